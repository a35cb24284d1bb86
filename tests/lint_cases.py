"""Helpers for the tests of jaxpurity lint: a snippet's expected findings, and what it found.

A snippet marks each line where a finding is expected with ``# expect: JP101``
(several codes separated by commas); :func:`expected` reads the marks and
:func:`found` lints the snippet, so a test compares the two sets exactly: a
finding missing or one too many fails it.
"""

from __future__ import annotations

import re
import textwrap

import jaxpurity

_MARK = re.compile(r"#\s*expect:\s*([A-Z0-9, ]+)")


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
