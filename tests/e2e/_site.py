"""What the e2e tests share: where the built site and Chromium are, and how a page is kept offline.

Only the standard library is imported here, so that ``conftest.py`` can import it on a plain
``pytest`` run, which needs neither Playwright nor a browser.
"""

from __future__ import annotations

import contextlib
import html
import http.server
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("JAXPURITY_SITE") or ROOT / "build" / "html")
CHROMIUM = "/usr/bin/chromium"  # Debian's, not a Playwright download
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def block_external(ctx, base_url: str) -> None:
    """Abort requests that leave the site: it must work offline, and results not vary with it."""
    ctx.route(lambda url: not url.startswith(base_url), lambda route: route.abort())


@contextlib.contextmanager
def offline_tab(browser, base_url: str, width: int = 1280, height: int = 900) -> Iterator[Any]:
    """A tab of a new context at ``width`` x ``height`` px that stays on the site; closed after."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, base_url=base_url)
    block_external(ctx, base_url)
    try:
        yield ctx.new_page()
    finally:
        ctx.close()


# The files a page loads by itself: scripts, stylesheets, images and icons it names.
_LOADED = re.compile(r"<(?:script|img|link)\b[^>]*>", re.I)
_URL = re.compile(r'\b(?:src|href)="([^"]+)"')
_LOADED_LINKS = re.compile(r'\brel="(?:stylesheet|icon|shortcut icon|preload)"')


def page_weight(path: str) -> dict[str, int]:
    """The bytes of a built page and of each file of the site it loads: ``{file: bytes}``.

    The page's HTML, and every script, stylesheet, image and icon it names that is on the
    site (external ones are not: the site loads none). Files are counted once.
    """
    page = SITE / path
    text = page.read_text(encoding="utf-8")
    files = {page.resolve()}
    for tag in _LOADED.finditer(text):
        url = _URL.search(tag[0])
        if url is None or (tag[0].lower().startswith("<link") and not _LOADED_LINKS.search(tag[0])):
            continue
        address = urlsplit(html.unescape(url[1]))
        if not address.scheme and not address.netloc:
            files.add((page.parent / unquote(address.path)).resolve())
    return {file.relative_to(SITE.resolve()).as_posix(): file.stat().st_size for file in files}
