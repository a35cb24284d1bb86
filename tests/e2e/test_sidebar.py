"""The sidebar's language switcher and search field, measured in Chromium: ``tox -e e2e``.

At 1280 px, and in the phone menu at 390 px, the language link's text starts where the menu's
links' text starts, clear of the screen's edge, and it does not touch the search box above
it. The focused search field shows an outline. Each case saves a screenshot of the sidebar
under the test's temporary folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

if os.environ.get("JAXPURITY_E2E") != "1":
    pytest.skip("runs with `tox -e e2e` (JAXPURITY_E2E=1)", allow_module_level=True)

from _site import offline_tab

WIDTHS = (1280, 390)
EDITIONS = ("index.html", "zh_CN/index.html")
MIN_GAP = 4  # px between the search box and the language link's box
MIN_EDGE = 8  # px between the screen's left edge and any sidebar text

# The boxes that matter, from getBoundingClientRect: the language link's text (a Range, so
# padding does not count), the menu's first link's text, and the search box.
GEOMETRY_JS = """() => {
  const textBox = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return range.getBoundingClientRect();
  };
  const language = document.querySelector(".sidebar-language");
  const menu = document.querySelector(".sidebar-tree a.reference");
  const search = document.querySelector(".sidebar-search-container").getBoundingClientRect();
  return {
    language: textBox(language).left,
    languageTop: language.getBoundingClientRect().top,
    menu: textBox(menu).left,
    searchBottom: search.bottom,
  };
}"""
OUTLINE_JS = """() => {
  const style = getComputedStyle(document.activeElement);
  return {name: document.activeElement.className, style: style.outlineStyle,
          width: parseFloat(style.outlineWidth)};
}"""


@pytest.fixture(scope="module", params=WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def sized_page(request, browser, base_url: str):
    with offline_tab(browser, base_url, request.param, 844) as tab:
        yield tab


def open_sidebar(tab) -> None:
    """On a phone, open the menu, and wait until its drawer has slid in."""
    if tab.locator(".sidebar-drawer").bounding_box()["x"] >= 0:
        return
    tab.locator("label.nav-overlay-icon").click()
    tab.wait_for_function(
        "() => document.querySelector('.sidebar-drawer').getBoundingClientRect().left >= 0"
    )


@pytest.mark.parametrize("path", EDITIONS)
def test_language_link_lines_up_with_the_menu(sized_page, path: str, tmp_path: Path):
    sized_page.goto(path)
    open_sidebar(sized_page)
    box = sized_page.evaluate(GEOMETRY_JS)
    sized_page.locator(".sidebar-drawer").screenshot(path=tmp_path / "sidebar.png")
    assert abs(box["language"] - box["menu"]) <= 1, box
    assert box["language"] >= MIN_EDGE, box
    assert box["languageTop"] - box["searchBottom"] >= MIN_GAP, box


@pytest.mark.parametrize("path", EDITIONS)
def test_focused_search_field_shows_an_outline(sized_page, path: str, tmp_path: Path):
    sized_page.goto(path)
    open_sidebar(sized_page)
    sized_page.locator(".sidebar-drawer input.sidebar-search").focus()
    outline = sized_page.evaluate(OUTLINE_JS)
    sized_page.locator(".sidebar-drawer").screenshot(path=tmp_path / "search-focused.png")
    assert outline["name"] == "sidebar-search", outline
    assert outline["style"] != "none" and outline["width"] >= 1, outline
