"""Pages load what they use, read from the built HTML (no browser): ``tox -e e2e``.

- ``known_errors.js`` (110 KB) loads on the pages with a paste box, and on no other.
- The API page, with everything it loads, weighs at most :data:`API_PAGE_LIMIT` bytes: it
  lists the pages that use each entry as links, without sphinx-gallery's thumbnail cards.
- Every page links the site's icon, and ``favicon.ico`` is at the site's root (Chromium asks
  for it; ``test_site``'s crawl fails on any 404).

The terminal summary gives the landing page's and the API page's weight, in both editions.
"""

from __future__ import annotations

import os
import re

import pytest

if os.environ.get("JAXPURITY_E2E") != "1":
    pytest.skip("runs with `tox -e e2e` (JAXPURITY_E2E=1)", allow_module_level=True)

from _site import SITE, page_weight

# bytes: HTML, scripts, stylesheets and images (the Chinese edition's, with 30 pages' "used on"
# links: 400,592 on 2026-12-06)
API_PAGE_LIMIT = 420_000
PAGES = sorted(p.relative_to(SITE).as_posix() for p in SITE.rglob("*.html"))
EDITIONS = ("", "zh_CN/")
ICON = re.compile(r'<link rel="(?:shortcut )?icon" href="(?P<href>[^"]+)"')


def read(path: str) -> str:
    return (SITE / path).read_text(encoding="utf-8")


def test_known_errors_load_only_where_a_paste_box_is():
    with_box = [p for p in PAGES if 'class="explain-box"' in read(p)]
    loading = [p for p in PAGES if "_static/known_errors.js" in read(p)]
    assert with_box == [f"{e}{p}" for e in EDITIONS for p in ("errors.html", "index.html")]
    assert loading == with_box


@pytest.mark.parametrize("edition", EDITIONS, ids=["en", "zh_CN"])
def test_api_page_is_light(edition: str, summary: list[str]):
    weights = {path: page_weight(f"{edition}{path}") for path in ("index.html", "api.html")}
    for path, files in weights.items():
        summary.append(f"{edition}{path}: {sum(files.values()):,} bytes in {len(files)} files")
    api = weights["api.html"]
    assert not [f for f in api if f.endswith(".png")], "the API page shows thumbnails again"
    assert sum(api.values()) <= API_PAGE_LIMIT, sorted(api.items(), key=lambda f: -f[1])[:8]
    assert "sphx-glr-thumbcontainer" not in read(f"{edition}api.html")


def test_every_page_links_the_icon_and_the_root_has_favicon_ico():
    unlinked = []
    for path in PAGES:
        icon = ICON.search(read(path))
        if icon is None or not (SITE / path).parent.joinpath(icon["href"]).is_file():
            unlinked.append(path)
    assert unlinked == []
    # An ICO file: reserved 0, type 1 (icon), then the number of images.
    assert (SITE / "favicon.ico").read_bytes()[:4] == b"\x00\x00\x01\x00"
