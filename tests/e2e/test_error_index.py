"""The built error index agrees with ``jaxpurity.explain`` on every error the site captured.

The docs build logs each error a gallery page catches (docs/examples/_captured). For each one,
``jaxpurity.explain`` must send the reader to the page that the index names for it, and that page
must show the error. Runs with the end-to-end tests (``tox -e e2e``), after the site is built.
"""

from __future__ import annotations

import os
import re
from html import unescape
from pathlib import Path

import pytest

import jaxpurity
from jaxpurity._capture import read_caught
from jaxpurity._pages import topic_of

if os.environ.get("JAXPURITY_E2E") != "1":
    pytest.skip("runs with `tox -e e2e` (JAXPURITY_E2E=1)", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("JAXPURITY_SITE") or ROOT / "build" / "html")
CAPTURED = ROOT / "docs" / "examples" / "_captured"


def _index_rows() -> dict[str, list[str]]:
    """First line of each row of errors.html -> the pages its "Explained on" cell links."""
    html = (SITE / "errors.html").read_text(encoding="utf-8")
    rows = {}
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", html, re.S)[1:]:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        first_line = unescape(re.sub(r"<[^>]+>", "", cells[1])).strip()
        rows[first_line] = re.findall(r'href="(examples/[^"#]+\.html)', cells[2])
    return rows


ERRORS = read_caught(CAPTURED)


def test_the_site_captured_errors():
    assert len(ERRORS) >= 20, f"only {len(ERRORS)} captured errors in {CAPTURED}"


@pytest.mark.parametrize(
    "error", ERRORS, ids=[f"{e['page']}-{e['type']}-{i}" for i, e in enumerate(ERRORS)]
)
def test_explain_sends_each_captured_error_to_the_page_the_index_names(error):
    rows = _index_rows()
    first_line = (error["message"].splitlines() or [""])[0].strip()
    assert first_line in rows, f"{error['type']} from {error['page']} is missing from the index"
    explanation = jaxpurity.explain(f"{error['type']}: {error['message']}")
    if not explanation.recognised:
        assert rows[first_line] == []
        return
    assert explanation.page in rows[first_line]
    shown_on = {topic_of(e["page"]) for e in ERRORS if e["type"] == error["type"]}
    assert explanation.topic in shown_on
