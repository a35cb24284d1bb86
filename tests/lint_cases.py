"""Helpers for the tests of jaxpurity lint: a snippet's expected findings, what it found, and
the cases of the rules' fixtures.

A snippet marks each line where a finding is expected with ``# expect: JP101``
(several codes separated by commas); :func:`expected` reads the marks and
:func:`found` lints the snippet, so a test compares the two sets exactly: a
finding missing or one too many fails it. :func:`fixture_cases` reads the cases
of ``tests/lint_fixtures/``, one file per rule (its README says how they are
written).
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import jaxpurity

_MARK = re.compile(r"#\s*expect:\s*([A-Z0-9, ]+)")
_CASE = re.compile(r"^# %% (?P<kind>finds|fine): (?P<name>.+)$", re.M)

#: The fixtures of the rules: ``JP101.py`` holds the cases of JP101.
FIXTURES = Path(__file__).resolve().parent / "lint_fixtures"


def source(snippet: str) -> str:
    """The snippet without its common indentation."""
    return textwrap.dedent(snippet).lstrip("\n")


def expected(snippet: str) -> set[tuple[int, str]]:
    """The (line, code) pairs that the snippet's ``# expect:`` comments mark."""
    marks = set()
    for number, line in enumerate(source(snippet).splitlines(), start=1):
        match = _MARK.search(line)
        if match:
            marks |= {(number, code.strip()) for code in match.group(1).split(",") if code.strip()}
    return marks


def found(snippet: str, **options) -> set[tuple[int, str]]:
    """The (line, code) pairs that :func:`jaxpurity.lint` reports for the snippet."""
    return {(f.line, f.code) for f in jaxpurity.lint(source=source(snippet), **options)}


@dataclass(frozen=True)
class Case:
    """One case of a rule's fixture: a ``finds`` case (a bug, its findings marked) or a
    ``fine`` one (a look-alike), its name, its source, and the line of the fixture where
    that source starts."""

    rule: str
    kind: str
    name: str
    source: str
    path: str
    line: int

    def in_file(self, pairs: set[tuple[int, str]]) -> set[tuple[int, str]]:
        """(line, code) pairs of the case's source, with the lines of the fixture file."""
        return {(line + self.line - 1, code) for line, code in pairs}


def fixture_cases() -> list[Case]:
    """Every case of every fixture, file by file in code order, each file's in its order.

    Raises:
      ValueError: Two cases have the same name, or a fixture holds no case.
    """
    cases, names = [], set()
    for path in sorted(FIXTURES.glob("JP*.py")):
        text = path.read_text(encoding="utf-8")
        starts = list(_CASE.finditer(text))
        if not starts:
            raise ValueError(f"{path}: no case (a line '# %% finds: <name>' starts one)")
        for start, end in zip(starts, [*starts[1:], None], strict=True):
            name = start.group("name").strip()
            if name in names:
                raise ValueError(f"{path}: a second case named {name!r}")
            names.add(name)
            body = text[start.end() + 1 : end.start() if end else len(text)].rstrip("\n") + "\n"
            line = text.count("\n", 0, start.end()) + 2
            shown = path.relative_to(FIXTURES.parent.parent).as_posix()
            cases.append(Case(path.stem, start.group("kind"), name, body, shown, line))
    return cases
