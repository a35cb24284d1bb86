"""The two pages a reader starts from, the landing page and the error index, in Chromium.

Both read without scrolling sideways on a phone (390px) and on a laptop (1280px): the
document does not overflow, and nothing in the page's text reaches past the viewport's edge
(not even inside a box that scrolls on its own, as a wide table's does). The landing page
links every gallery page. Its first screen leads to help, on a phone (390x844) and a laptop
(1280x800), in both editions: a link to the paste box and one to the error index, each above the
fold, and the paste link brings the box into view and puts the cursor in it, for a keyboard as
for a mouse. Runs with ``tox -e e2e``, on the site the other e2e tests use.
"""

from __future__ import annotations

import os

import pytest

if os.environ.get("JAXPURITY_E2E") != "1":
    pytest.skip("runs with `tox -e e2e` (JAXPURITY_E2E=1)", allow_module_level=True)

from _site import offline_tab

from jaxpurity._pages import SECTIONS, page

WIDTHS = (390, 1280)
STARTING_PAGES = ("index.html", "errors.html")

# The document's own sideways scroll, and each rendered element of the page's text that
# reaches past the viewport's left or right edge (the sidebars, off-screen drawers on a
# phone, are outside the article).
OVERFLOW_JS = """() => {
  const width = document.documentElement.clientWidth;
  const past = [];
  for (const el of document.querySelectorAll("article *")) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.right > width + 0.5 || r.left < -0.5) {
      const text = (el.textContent || "").trim().slice(0, 60);
      past.push({tag: el.tagName, cls: el.className, left: r.left, right: r.right, text});
    }
  }
  return {scroll: document.documentElement.scrollWidth, client: width, past};
}"""

# The gallery pages the landing page's text links, as paths from the site's root.
GALLERY_LINKS_JS = """() => Array.from(
  document.querySelectorAll("article a[href]"),
  (a) => new URL(a.getAttribute("href"), document.baseURI).pathname.replace(/^\\//, ""),
).filter((path) => /^examples\\/[^/]+\\/[^/]+\\.html$/.test(path))"""


@pytest.fixture(scope="module", params=WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def sized_page(request, browser, base_url: str):
    with offline_tab(browser, base_url, request.param, 900) as tab:
        yield tab


@pytest.mark.parametrize("path", STARTING_PAGES)
def test_page_reads_without_scrolling_sideways(sized_page, path: str):
    sized_page.goto(path)
    sized_page.wait_for_load_state("load")
    layout = sized_page.evaluate(OVERFLOW_JS)
    assert layout["scroll"] <= layout["client"], layout
    assert layout["past"] == [], (
        f"{len(layout['past'])} elements past the edge: {layout['past'][:5]}"
    )


def test_landing_page_links_every_gallery_page(sized_page):
    sized_page.goto("index.html")
    linked = set(sized_page.evaluate(GALLERY_LINKS_JS))
    gallery = {page(topic) for section in SECTIONS for topic in section.topics}
    assert len(gallery) >= 16
    assert gallery - linked == set(), "not linked from the landing page"


# The first screen at each size: a phone's, and a laptop's.
FIRST_SCREENS = {390: 844, 1280: 800}
EDITIONS = ("", "zh_CN/")

# Where the landing page's links to the paste box and to the error index end, in the viewport.
FIRST_HELP_JS = """() => {
  const bottom = (a) => (a ? a.getBoundingClientRect().bottom : null);
  const help = document.querySelector("article p.first-help");
  return {
    height: window.innerHeight,
    box: bottom(help && help.querySelector('a[href="#got-an-error"]')),
    index: bottom(help && help.querySelector('a[href="errors.html"]')),
  };
}"""

BOX_IN_VIEW_JS = """() => {
  const r = document.querySelector(".explain-box textarea").getBoundingClientRect();
  return r.top >= 0 && r.bottom <= window.innerHeight;
}"""


@pytest.mark.parametrize("edition", EDITIONS, ids=["en", "zh_CN"])
@pytest.mark.parametrize("width", FIRST_SCREENS, ids=[f"{w}px" for w in FIRST_SCREENS])
def test_first_screen_links_the_paste_box_and_the_error_index(
    browser, base_url: str, summary, width: int, edition: str
):
    height = FIRST_SCREENS[width]
    with offline_tab(browser, base_url, width, height) as tab:
        tab.goto(edition + "index.html")
        tab.wait_for_load_state("load")
        seen = tab.evaluate(FIRST_HELP_JS)
        summary.append(
            f"first screen {edition or 'en/'} {width}x{height}: paste-box link ends at "
            f"{seen['box']:.0f}px, error-index link at {seen['index']:.0f}px"
        )
        assert seen["box"] is not None and seen["box"] <= height, seen
        assert seen["index"] is not None and seen["index"] <= height, seen
        tab.locator('p.first-help a[href="#got-an-error"]').click()
        # The page may scroll smoothly: wait until the whole text area is in view.
        tab.wait_for_function(BOX_IN_VIEW_JS, timeout=5_000)
        tab.locator('p.first-help a[href="errors.html"]').click()
        tab.wait_for_load_state("load")
        assert tab.url.endswith(edition + "errors.html")


BOX_FOCUSED_JS = "() => document.activeElement?.matches('.explain-box textarea') ?? false"


@pytest.mark.parametrize("edition", EDITIONS, ids=["en", "zh_CN"])
def test_the_paste_link_puts_the_cursor_in_the_box(browser, base_url: str, edition: str):
    with offline_tab(browser, base_url, 1280, 800) as tab:
        tab.goto(edition + "index.html")
        link = tab.locator('p.first-help a[href="#got-an-error"]')
        # A keyboard user: on the link, Enter, then paste.
        link.focus()
        tab.keyboard.press("Enter")
        tab.wait_for_function(BOX_FOCUSED_JS, timeout=5_000)
        tab.wait_for_function(BOX_IN_VIEW_JS, timeout=5_000)
        tab.keyboard.insert_text("TracerBoolConversionError")
        assert tab.locator(".explain-box textarea").input_value() == "TracerBoolConversionError"
        # A mouse, from the top of the page again.
        tab.evaluate("() => { document.activeElement.blur(); window.scrollTo(0, 0); }")
        assert not tab.evaluate(BOX_FOCUSED_JS)
        link.click()
        tab.wait_for_function(BOX_FOCUSED_JS, timeout=5_000)
        tab.wait_for_function(BOX_IN_VIEW_JS, timeout=5_000)
        # A link to the section around the box's leaves the focus alone.
        tab.evaluate("() => document.activeElement.blur()")
        tab.evaluate("""() => document.querySelector('a[href="#what-went-wrong"]').click()""")
        tab.wait_for_timeout(100)
        assert not tab.evaluate(BOX_FOCUSED_JS)
