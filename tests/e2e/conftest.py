"""The "site e2e" section of pytest's terminal summary: pages visited, time taken.

Only pytest is imported here, so that a plain ``pytest`` run, which loads this file while
collecting ``tests/``, needs neither Playwright nor a browser.
"""

from __future__ import annotations

import pytest

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
