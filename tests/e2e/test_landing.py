"""The two pages a reader starts from, the landing page and the error index, in Chromium.

Both read without scrolling sideways on a phone (390px) and on a laptop (1280px): the
document does not overflow, and nothing in the page's text reaches past the viewport's edge
(not even inside a box that scrolls on its own, as a wide table's does). The landing page
links every gallery page. Runs with ``tox -e e2e``, on the site the other e2e tests use.
"""

from __future__ import annotations

import os

import pytest

if os.environ.get("JAXPURITY_E2E") != "1":
    pytest.skip("runs with `tox -e e2e` (JAXPURITY_E2E=1)", allow_module_level=True)

from _site import block_external

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
    ctx = browser.new_context(viewport={"width": request.param, "height": 900}, base_url=base_url)
    block_external(ctx, base_url)
    tab = ctx.new_page()
    yield tab
    ctx.close()


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
