"""Tests for jaxpurity/linter/_report.py: the text, JSON and SARIF reports of findings."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from lint_cases import source

import jaxpurity
from jaxpurity.linter._report import SARIF_SCHEMA, as_json, as_sarif, as_text, report
from jaxpurity.linter._rules import RULES

SNIPPET = source(
    """
    import jax
    import numpy as np

    @jax.jit
    def step(x):
        print(x)
        return x + np.random.normal()
    """
)


@pytest.fixture
def findings():
    found = jaxpurity.lint(source=SNIPPET)
    broken = jaxpurity.lint(source="def f(:\n")
    return found + [broken[0]]


def test_text_is_one_flake8_style_line_per_finding(findings):
    lines = as_text(findings).splitlines()
    assert lines[0] == f"<string>:6:5: JP130 {findings[0].message} ({findings[0].url})"
    assert lines[1].startswith("<string>:7:16: JP120 `np.random.normal()` draws")
    assert lines[2].startswith("<string>:1:7: JP000 cannot parse it")
    assert "(None)" not in lines[2]


def test_json_holds_every_field_of_each_finding(findings):
    parsed = json.loads(as_json(findings))
    assert [entry["code"] for entry in parsed] == ["JP130", "JP120", "JP000"]
    assert parsed[0] == {
        "path": "<string>",
        "line": 6,
        "col": 5,
        "code": "JP130",
        "message": findings[0].message,
        "topic": "print_vs_debug_print",
        "url": findings[0].url,
    }
    assert parsed[2]["topic"] is None and parsed[2]["url"] is None


def test_sarif_has_what_the_schema_requires_and_every_rule(findings):
    log = json.loads(as_sarif(findings))
    assert log["$schema"] == SARIF_SCHEMA and log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "jaxpurity" and driver["version"] == jaxpurity.__version__
    rules = driver["rules"]
    assert [r["id"] for r in rules] == [r.code for r in RULES] + ["JP000"]
    for described, rule in zip(rules, RULES, strict=False):
        assert described["helpUri"] == rule.url
        assert described["shortDescription"]["text"] == rule.title
        assert described["fullDescription"]["text"] == rule.cannot_see
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["JP130", "JP120", "JP000"]
    for result, finding in zip(results, findings, strict=True):
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["message"]["text"].startswith(finding.message)
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == "<string>"
        assert physical["region"] == {"startLine": finding.line, "startColumn": finding.col}
    assert [r["level"] for r in results] == ["warning", "warning", "error"]


def test_report_names_an_unknown_format(findings):
    assert report(findings, "json") == as_json(findings)
    with pytest.raises(ValueError, match="format='xml': choose one of text, json, sarif"):
        report(findings, "xml")


@pytest.mark.parametrize(
    ("module", "table"),
    [("jaxpurity.linter._report", False), ("jaxpurity.linter._rules", True)],
)
def test_the_reports_and_the_rule_table_import_no_lint_engine(module, table):
    """The command line imports the reports for every command: they read the rule table
    only to write SARIF, and the table (every family, with its checks) imports none of the
    analysis."""
    code = f"import sys, {module}; print(*sorted(sys.modules), sep='\\n')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(done.stdout.split())
    assert ("jaxpurity.linter._rules" in loaded) == table
    engine = "_lint _checker _context analysis._module analysis._functions".split()
    engine += "analysis._applied_transforms analysis._annotations analysis._taint".split()
    assert not {f"jaxpurity.linter.{name}" for name in engine} & loaded
    assert "jax" not in loaded
