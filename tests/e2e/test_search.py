"""The site search, in headless Chromium: the page a reader needs comes first.

A reader searches for what they have in front of them: the exception's name, the first words of
its message, or the symptom in their own words. For each, the page that explains it is the first
result; for an exception name, the error index (every captured message, with the paste box)
follows in the first three. Runs with ``tox -e e2e`` (``JAXPURITY_E2E=1``) on a built site; the
browser, the server and the site come from ``test_site.py``'s fixtures.
"""

# ruff: noqa: F811
from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest

# test_site's fixtures (base_url, browser, context, page), which pytest finds by name, so the
# test arguments shadow these imports (F811). Importing test_site also skips this module
# without JAXPURITY_E2E=1, and fails it without a built site or a browser.
from test_site import base_url, browser, context, page, site_path  # noqa: F401

from jaxpurity._pages import page as page_of

ERROR_INDEX = "errors.html"
# (query, the first result: a topic of jaxpurity._pages, or the error index).
EXCEPTION_NAMES = [
    ("UnexpectedTracerError", "global_counter"),
    ("TracerBoolConversionError", "python_control_flow"),
    ("ConcretizationTypeError", "static_arguments"),
    ("NonConcreteBooleanIndexError", "boolean_masks"),
    ("TracerIntegerConversionError", "python_control_flow"),
    ("TracerArrayConversionError", "python_control_flow"),
    ("KeyReuseError", "frozen_randomness"),
    ("RetraceError", "static_arguments"),
    # Raised by jaxpurity's cond and its loops alike: no one page explains it.
    ("TypeMismatchError", None),
]
FIRST_WORDS = [
    ("Abstract tracer value encountered", "static_arguments"),
    ("Encountered an unexpected tracer", "global_counter"),
    ("JAX arrays are immutable", "inplace_updates"),
    ("Attempted boolean conversion", "python_control_flow"),
    ("Array boolean indices must be concrete", "boolean_masks"),
    ("Non-hashable static arguments", "static_arguments"),
]
SYMPTOMS = [
    ("global counter", "global_counter"),
    ("random numbers are the same", "frozen_randomness"),
    ("print shows a tracer", "print_vs_debug_print"),
    ("lru_cache returns a tracer", "memoization_caches"),
    ("loop carry changes dtype", "loop_carry_types"),
    ("attribute turned into a tracer", "leak_through_self"),
]
SEARCHES = EXCEPTION_NAMES + FIRST_WORDS + SYMPTOMS
FIRST_RESULTS = 3


def search(tab, base_url: str, query: str) -> list[str]:
    """The site paths of the results for ``query``, in the order the search page lists them."""
    tab.goto("search.html?" + urlencode({"q": query}))
    # Sphinx writes the summary line only once every result is listed.
    summary = tab.locator("#search-results p.search-summary")
    summary.filter(has_text=re.compile(r"\S")).wait_for(timeout=15_000)
    hrefs = tab.locator("#search-results ul.search > li > a").evaluate_all(
        "links => links.map((a) => a.href)"
    )
    return [site_path(url, base_url).split("#")[0] for url in hrefs]


def _expected(topic: str | None) -> str:
    return ERROR_INDEX if topic is None else page_of(topic)


def _rank(found: list[str], path: str) -> int | str:
    return found.index(path) + 1 if path in found else "absent"


@pytest.mark.parametrize(("query", "topic"), SEARCHES)
def test_search_lists_the_page_that_explains_it_first(
    page, base_url: str, summary: list[str], query: str, topic: str | None
):
    found = search(page, base_url, query)
    expected = _expected(topic)
    summary.append(
        f"search {query!r}: {expected} at {_rank(found, expected)}, "
        f"error index at {_rank(found, ERROR_INDEX)}, of {len(found)} results"
    )
    assert found[:1] == [expected], (
        f"searching {query!r}: {expected} is result {_rank(found, expected)} of {len(found)}; "
        f"first results: {found[:FIRST_RESULTS]}"
    )


@pytest.mark.parametrize("query", [query for query, _ in EXCEPTION_NAMES])
def test_search_for_an_exception_lists_the_error_index_near_the_top(page, base_url, query: str):
    found = search(page, base_url, query)
    assert ERROR_INDEX in found[:FIRST_RESULTS], (
        f"searching {query!r}: the error index is result {_rank(found, ERROR_INDEX)}; "
        f"first results: {found[:FIRST_RESULTS]}"
    )
