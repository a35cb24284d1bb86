"""Tests for jaxpurity/linter/_rules.py and the rule families of jaxpurity/linter/rules/: each
rule finds its bug, and not the look-alikes that are fine.

The cases are the rules' fixtures, tests/lint_fixtures/JPxxx.py (their README says where
they come from): each ``finds`` case marks its expected findings ``# expect: JPxxx`` on
their line (tests/lint_cases.py), and the test fails on a finding missing and on one too
many; a ``fine`` case must give none.
"""

from __future__ import annotations

import pytest
from lint_cases import FIXTURES, expected, fixture_cases, found, source

from jaxpurity._pages import PAGES
from jaxpurity.linter._rules import RULES, rule, selected

CASES = fixture_cases()
#: The bugs, by name: each marks what it must find.
FINDS = {case.name: case for case in CASES if case.kind == "finds"}
#: The look-alikes, by name: nothing to find.
FINE = {case.name: case for case in CASES if case.kind == "fine"}

#: Every rule, those off by default (JP122) included.
EVERY_RULE = [r.code for r in RULES]


@pytest.mark.parametrize("case", FINDS.values(), ids=FINDS.keys())
def test_rule_finds_its_bug_and_nothing_else(case):
    marks = expected(case.source)
    assert marks, f"{case.path}:{case.line}: a finds case must mark what it expects"
    # (line, code) pairs with the fixture's line numbers, so that a failure points there
    assert case.in_file(found(case.source, select=EVERY_RULE)) == case.in_file(marks), case.path


@pytest.mark.parametrize("case", FINE.values(), ids=FINE.keys())
def test_look_alike_is_not_flagged(case):
    assert expected(case.source) == set(), f"{case.path}:{case.line}: a fine case marks nothing"
    assert case.in_file(found(case.source, select=EVERY_RULE)) == set(), case.path


def test_a_rule_off_by_default_is_checked_only_when_its_code_is_selected():
    snippet = FINDS["JP122 a closed-over key under vmap and in scan, and an unbatched key"].source
    assert [r.code for r in RULES if r.opt_in] == ["JP122"]
    assert found(snippet) == set()
    assert found(snippet, select=["JP1"]) == set()
    assert found(snippet, select=["JP122"]) == expected(snippet)


def test_every_rule_has_a_case():
    covered = {code for case in FINDS.values() for _, code in expected(case.source)}
    assert covered == {r.code for r in RULES}


def test_every_rule_has_a_fixture_whose_cases_find_it():
    assert sorted(path.stem for path in FIXTURES.glob("*.py")) == [r.code for r in RULES]
    for each in RULES:
        own = [case for case in FINDS.values() if case.rule == each.code]
        assert any(code == each.code for case in own for _, code in expected(case.source)), each


def test_every_rule_has_a_look_alike_in_its_fixture():
    with_look_alike = {case.rule for case in FINE.values()}
    assert [r.code for r in RULES if r.code not in with_look_alike] == []


def test_every_rule_links_a_page_of_the_table_and_says_what_it_cannot_see():
    for each in RULES:
        assert each.topic in PAGES, each
        assert each.url.endswith(PAGES[each.topic]), each
        assert each.cannot_see.endswith("."), each
        assert each.code.startswith("JP") and len(each.code) == 5, each


def test_findings_name_the_transformation_and_the_function_in_between():
    findings = {
        f.code: f.message
        for f in __import__("jaxpurity").lint(
            source=source(
                """
                import jax
                def helper(v):
                    print(v)
                @jax.jit
                def step(x):
                    return helper(x * 2)
                """
            )
        )
    }
    assert findings == {
        "JP130": "print of a traced value (jax.jit, through step): it runs while JAX traces "
        "and shows a tracer; use jax.debug.print"
    }


def test_rule_names_an_unknown_code():
    with pytest.raises(KeyError, match="no jaxpurity lint rule 'JP999'"):
        rule("JP999")


@pytest.mark.parametrize(
    ("select", "ignore", "expected_codes"),
    [
        (None, [], {r.code for r in RULES} - {"JP122"}),
        (["JP12"], [], {"JP120", "JP121"}),
        (["JP12", "JP122"], ["JP120"], {"JP121", "JP122"}),
        (["JP13"], [], {"JP130", "JP131", "JP132", "JP133"}),
        (["jp13"], ["JP131"], {"JP130", "JP132", "JP133"}),
        (["JP1", "JP2"], ["JP1"], {r.code for r in RULES if r.code.startswith("JP2")}),
    ],
)
def test_selected_reads_codes_and_prefixes(select, ignore, expected_codes):
    assert selected(select, ignore) == expected_codes


def test_selected_names_a_code_that_matches_no_rule():
    with pytest.raises(ValueError, match=r"ignore: 'JP9' is no jaxpurity lint rule"):
        selected(None, ["JP9"])
    with pytest.raises(TypeError, match=r"select must be a list of codes, such as \['JP1'\]"):
        selected("JP1", [])
