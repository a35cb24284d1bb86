"""The e2e tests' shared fixtures (the built site on localhost, one browser) and the "site e2e"
section of pytest's terminal summary: pages visited, time taken.

Only pytest and the standard library are imported here (Playwright inside the fixture), so that
a plain ``pytest`` run, which loads this file while collecting ``tests/``, needs neither
Playwright nor a browser.
"""

from __future__ import annotations

import functools
import http.server
import threading

import pytest
from _site import CHROMIUM, CHROMIUM_ARGS, SITE, QuietHandler

SUMMARY = pytest.StashKey[list[str]]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[SUMMARY] = []


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    lines = config.stash.get(SUMMARY, [])
    if lines:
        terminalreporter.section("site e2e")
        for line in lines:
            terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def summary(request: pytest.FixtureRequest) -> list[str]:
    """Append a line to show it in the terminal summary."""
    return request.config.stash[SUMMARY]


@pytest.fixture(scope="session")
def base_url():
    """The built site served on 127.0.0.1 at a free port, as ``http://127.0.0.1:PORT/``."""
    handler = functools.partial(QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for every e2e test module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
