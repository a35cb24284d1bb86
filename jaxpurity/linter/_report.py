"""How ``jaxpurity lint`` writes its findings: text, JSON, or SARIF for code-scanning UIs.

- text: one ``path:line:col: JPxxx message (page URL)`` line per finding, the
  format of flake8 and ruff, which editors and CI logs link;
- JSON: a list of objects with the fields of :class:`~jaxpurity.linter._finding.Finding`;
- SARIF 2.1.0 (the format GitHub code scanning reads): one run, whose tool
  lists every rule with its page and what it cannot see, and one result per
  finding.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from pathlib import PurePath

from jaxpurity import __version__
from jaxpurity._pages import DOCS_URL
from jaxpurity.linter._finding import UNPARSABLE, Finding

__all__ = ["FORMATS", "as_json", "as_sarif", "as_text", "report"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def as_text(findings: Iterable[Finding]) -> str:
    """One line per finding.

    Example:
      >>> finding = Finding("a.py", 3, 5, "JP130", "print of a traced value", "t", "https://u")
      >>> print(as_text([finding]))
      a.py:3:5: JP130 print of a traced value (https://u)
    """
    return "\n".join(str(f) for f in findings)


def as_json(findings: Iterable[Finding]) -> str:
    """A JSON list of the findings, each with the fields of :class:`Finding`.

    Example:
      >>> finding = Finding("a.py", 3, 5, "JP130", "print of a traced value", "t", "https://u")
      >>> json.loads(as_json([finding]))[0]["code"]
      'JP130'
    """
    return json.dumps([dataclasses.asdict(f) for f in findings], indent=2, ensure_ascii=False)


def as_sarif(findings: Iterable[Finding]) -> str:
    """A SARIF 2.1.0 log of the findings, with every rule in the tool's description.

    Example:
      >>> finding = Finding("src/a.py", 3, 5, "JP130", "print of a traced value", "t", "u")
      >>> run = json.loads(as_sarif([finding]))["runs"][0]
      >>> result = run["results"][0]
      >>> result["ruleId"], result["locations"][0]["physicalLocation"]["region"]
      ('JP130', {'startLine': 3, 'startColumn': 5})
    """
    # The rule table holds every family's checks too: the command line, which imports
    # this module for every command, reads it only when a SARIF log is written.
    from jaxpurity.linter._rules import RULES

    rules = [
        {
            "id": rule.code,
            "name": "".join(part.capitalize() for part in rule.name.split("-")),
            "shortDescription": {"text": rule.title},
            "fullDescription": {"text": rule.cannot_see},
            "helpUri": rule.url,
            "help": {"text": f"{rule.title}. What it cannot see: {rule.cannot_see} {rule.url}"},
            "defaultConfiguration": {"level": "warning", "enabled": not rule.opt_in},
        }
        for rule in RULES
    ]
    rules.append(
        {
            "id": UNPARSABLE,
            "name": "Unchecked",
            "shortDescription": {"text": "A file that could not be read or parsed"},
            "defaultConfiguration": {"level": "error"},
        }
    )
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = [
        {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": "error" if f.code == UNPARSABLE else "warning",
            "message": {"text": f"{f.message} ({f.url})" if f.url else f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": PurePath(f.path).as_posix()},
                        "region": {"startLine": f.line, "startColumn": f.col},
                    }
                }
            ],
        }
        for f in findings
    ]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "jaxpurity",
                        "version": __version__,
                        "informationUri": DOCS_URL,
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False)


#: Each output format by name.
FORMATS = {"text": as_text, "json": as_json, "sarif": as_sarif}


def report(findings: Iterable[Finding], format: str) -> str:
    """The findings written in ``format`` (``"text"``, ``"json"`` or ``"sarif"``).

    Raises:
      ValueError: An unknown format.
    """
    try:
        write = FORMATS[format]
    except KeyError:
        raise ValueError(f"format={format!r}: choose one of {', '.join(FORMATS)}") from None
    return write(findings)
