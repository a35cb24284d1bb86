"""What the e2e tests share: where the built site and Chromium are, and how a page is kept offline.

Only the standard library is imported here, so that ``conftest.py`` can import it on a plain
``pytest`` run, which needs neither Playwright nor a browser.
"""

from __future__ import annotations

import http.server
import os
from pathlib import Path

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
