"""The site search, in headless Chromium: the page a reader needs comes first.

A reader searches for what they have in front of them: the exception's name, the first words of
its message, or the symptom in their own words. For each, the page that explains it is the first
result; for an exception name, the error index (every captured message, with the paste box)
follows in the first three. The page each query expects is the one :func:`jaxpurity.explain`
sends the name or the whole message to, never one picked by eye; a symptom names its topic of
:mod:`jaxpurity._pages`. The page a result opens marks the searched words in its article, with
no script error. Runs with ``tox -e e2e`` (``JAXPURITY_E2E=1``) on a built site; the
browser and the server are conftest's fixtures, the page and its context ``test_site.py``'s.
"""

# ruff: noqa: F811
from __future__ import annotations

import json
import re
from urllib.parse import urlencode

import pytest
from _site import ROOT

# test_site's fixtures (context, page), which pytest finds by name, so the test arguments
# shadow these imports (F811). Importing test_site also skips this module without
# JAXPURITY_E2E=1, and fails it without a built site or a browser.
from test_site import context, page, site_path  # noqa: F401

import jaxpurity
from jaxpurity._capture import read_caught
from jaxpurity._pages import page as page_of
from jaxpurity.explainer._explain import distinctive
from jaxpurity.explainer.known_errors import KNOWN_ERRORS

ERROR_INDEX = "errors.html"
CAPTURED = ROOT / "docs" / "examples" / "_captured"  # what the build's examples caught


def explained_on(text: str) -> str:
    """The page jaxpurity.explain sends ``text`` to, or the error index if it knows none."""
    explanation = jaxpurity.explain(text)
    return explanation.page if explanation.recognised and explanation.page else ERROR_INDEX


# Every exception name that the table of known errors recognises by itself; the first result
# is the page explain sends it to (the error index for TypeMismatchError, which jaxpurity's
# cond and loops both raise).
EXCEPTION_NAMES = sorted(
    {(name, explained_on(name)) for k in KNOWN_ERRORS for name in k.errors if distinctive(name)}
)


def _completed(first_words: str) -> str:
    """The shortest message that begins with ``first_words``: a wording of the table, or the
    first line of an error the gallery caught (for a wording that is a pattern)."""
    texts = [w.text for k in KNOWN_ERRORS for w in k.wordings if not w.regex]
    texts += [(e["message"].splitlines() or [""])[0] for e in read_caught(CAPTURED)]
    begun = [text for text in texts if text.startswith(first_words)]
    assert begun, f"no wording or captured message begins with {first_words!r}"
    return min(begun, key=len)


FIRST_WORDS = [
    (words, explained_on(_completed(words)))
    for words in (
        "Abstract tracer value encountered",
        "Encountered an unexpected tracer",
        "JAX arrays are immutable",
        "Attempted boolean conversion",
        "Array boolean indices must be concrete",
        "Non-hashable static arguments",
        "Previously-consumed key",
        "Leaked trace",
    )
]
# A symptom in a reader's words, and the topic whose page is about it.
SYMPTOMS = [
    (query, page_of(topic))
    for query, topic in (
        ("global counter", "global_counter"),
        ("random numbers are the same on every jit call", "frozen_randomness"),
        ("same random numbers in every vmap row", "keys_in_vmap_and_scan"),
        ("gradient is nan", "nan_gradients"),
        ("array has been deleted", "buffer_donation"),
        ("compiles again on every call", "retracing_storms"),
        ("pure_callback never ran", "callbacks"),
        ("print shows a tracer", "print_vs_debug_print"),
        ("lru_cache returns a tracer", "memoization_caches"),
        ("loop carry changes dtype", "loop_carry_types"),
        ("attribute turned into a tracer", "leak_through_self"),
    )
]
SEARCHES = EXCEPTION_NAMES + FIRST_WORDS + SYMPTOMS
FIRST_RESULTS = 3


def search(tab, base_url: str, query: str, edition: str = "") -> list[str]:
    """The site paths of the results for ``query``, in the order the search page lists them.

    ``edition`` is the folder of the edition to search (``"zh_CN/"``), the English one's by default.
    """
    tab.goto(edition + "search.html?" + urlencode({"q": query}))
    # Sphinx writes the summary line only once every result is listed.
    summary = tab.locator("#search-results p.search-summary")
    summary.filter(has_text=re.compile(r"\S")).wait_for(timeout=15_000)
    hrefs = tab.locator("#search-results ul.search > li > a").evaluate_all(
        "links => links.map((a) => a.href)"
    )
    return [site_path(url, base_url).split("#")[0] for url in hrefs]


# The search page's own ranking, run in the page for each query as Search.query runs it when
# a reader types it (search_scorer.js reads the query from the address, so the address says
# it), without writing the list out: the pages in the order the list shows them, from its end.
_RANK_IN_PAGE = """async (queries) => {
  while (!Search.hasIndex()) await new Promise((done) => setTimeout(done, 20));
  return queries.map((query) => {
    history.replaceState(null, "", "?" + new URLSearchParams({ q: query }));
    const results = Search._performSearch(...Search._parseQuery(query));
    return results.reverse().map((result) => result[0] + DOCUMENTATION_OPTIONS.FILE_SUFFIX);
  });
}"""


def ranked(tab, base_url: str, queries: list[str], edition: str = "") -> list[list[str]]:
    """For each of ``queries``, the site paths ``search`` gives, from one load of the search
    page: the same ranking, without a page load and its list written out for each query."""
    tab.goto(edition + "search.html")
    return [[edition + path for path in found] for found in tab.evaluate(_RANK_IN_PAGE, queries)]


_RANKED: dict[str, list[str]] = {}


def _ranked_once(tab, base_url: str, query: str) -> list[str]:
    """``search``'s list for ``query``, ranked in the page with every query of this module the
    first time one is asked (one load of the search page for them all)."""
    if query not in _RANKED:
        queries = [q for q in dict.fromkeys([*_QUERIES, query]) if q not in _RANKED]
        _RANKED.update(zip(queries, ranked(tab, base_url, queries), strict=True))
        _DIRECTORIES.update(doc + ".html" for doc in tab.evaluate(DIRECTORIES_JS))
    return _RANKED[query]


@pytest.mark.parametrize(
    ("queries", "edition"),
    [
        (["UnexpectedTracerError", "grad of fori_loop leads to cryptic error message"], ""),
        (["jit 全局变量不更新", "梯度"], "zh_CN/"),
    ],
)
def test_the_ranking_run_in_the_page_lists_what_the_search_page_shows(
    page, base_url: str, queries: list[str], edition: str
):
    shown = [search(page, base_url, query, edition=edition) for query in queries]
    assert ranked(page, base_url, queries, edition=edition) == shown


def _rank(found: list[str], path: str) -> int | str:
    return found.index(path) + 1 if path in found else "absent"


@pytest.mark.parametrize(("query", "expected"), SEARCHES)
def test_search_lists_the_page_that_explains_it_first(
    page, base_url: str, summary: list[str], query: str, expected: str
):
    found = _ranked_once(page, base_url, query)
    summary.append(
        f"search {query!r}: {expected} at {_rank(found, expected)}, "
        f"error index at {_rank(found, ERROR_INDEX)}, of {len(found)} results"
    )
    assert found[:1] == [expected], (
        f"searching {query!r}: {expected} is result {_rank(found, expected)} of {len(found)}; "
        f"first results: {found[:FIRST_RESULTS]}"
    )


# The pages that list other pages (search_ranking.directories), as the search page has them.
DIRECTORIES_JS = "() => window.JAXPURITY_DIRECTORIES"
_DIRECTORIES: set[str] = set()


@pytest.mark.parametrize("query", [query for query, _ in EXCEPTION_NAMES])
def test_search_for_an_exception_lists_the_error_index_first_of_the_pages_that_list_others(
    page, base_url, query: str
):
    # Issue 39: a page that lists other pages comes after every page that matches; among those
    # lists, the error index, with every captured message and the paste box, comes first.
    found = _ranked_once(page, base_url, query)
    directories = [path for path in found if path in _DIRECTORIES]
    assert directories[:1] == [ERROR_INDEX], (
        f"searching {query!r}: the error index is result {_rank(found, ERROR_INDEX)}; "
        f"the lists of pages come in the order {directories}"
    )


# Queries a user measured (issue 39): the landing page was first for the first two.
LISTED_FIRST = [
    ("lru_cache jax function", "memoization_caches"),
    ("vmap side effect callback", "callbacks"),
    ("UnexpectedTracerError scan", "leak_from_loop_body"),
    ("grad returns nan where", "nan_gradients"),
    ("frozen random numbers", "frozen_randomness"),
]


# Every query the ranking tests above and below ask, ranked in one load of the search page.
_QUERIES = [q for q, _ in SEARCHES + LISTED_FIRST] + ["jax", "jit", "tracer", "scan"]


@pytest.mark.parametrize("query", _QUERIES)
def test_a_page_that_lists_other_pages_never_comes_before_a_page_that_matches(
    page, base_url, query: str
):
    found = _ranked_once(page, base_url, query)
    directories = _DIRECTORIES
    assert directories >= {"index.html", "api.html", ERROR_INDEX, "examples/index.html"}
    listed = [i for i, path in enumerate(found) if path in directories]
    # The error index comes first for a name that no one page explains (its main entry).
    own = [i for i in listed if found[i] == ERROR_INDEX and query in _OWN_ENTRIES]
    pages = [i for i, path in enumerate(found) if path not in directories]
    assert all(i > max(pages, default=-1) for i in listed if i not in own), found


# The names whose main index entry is on the error index: no one page explains them.
_OWN_ENTRIES = {name for name, page in EXCEPTION_NAMES if page == ERROR_INDEX}


# The text Sphinx cuts a result's snippet from (Search.htmlToText), and the page's own text.
SNIPPET_TEXT_JS = """async (path) => {
  const html = await (await fetch(path)).text();
  const main = new DOMParser().parseFromString(html, "text/html").querySelector('[role="main"]');
  return [main.textContent, Search.htmlToText(html)];
}"""


def test_result_snippets_leave_out_private_parameters_of_a_signature(page, base_url):
    # The API page's signature of jaxpurity.scan holds _split_transpose=False.
    assert "api.html" in search(page, base_url, "scan")
    text, snippet_text = page.evaluate(SNIPPET_TEXT_JS, "api.html")
    assert "_split_transpose=False" in text
    assert "_split_transpose=False" not in snippet_text
    assert "unroll=1" in snippet_text  # the public parameters stay
    assert len(snippet_text) > 0.9 * len(text)


# The words Sphinx's highlighter marked in the article (span.highlighted), lower-cased.
HIGHLIGHTED_JS = """() => Array.from(
  document.querySelectorAll("article span.highlighted"), (s) => s.textContent.toLowerCase())"""


def _highlighted(tab) -> list[str]:
    # sphinx_highlight.js marks the words 10 ms after the page is ready.
    tab.locator("article span.highlighted").first.wait_for(timeout=5_000)
    return tab.evaluate(HIGHLIGHTED_JS)


@pytest.mark.parametrize("how", ["highlight parameter", "search result"])
def test_a_result_page_highlights_the_searched_words_in_the_article(page, base_url, how: str):
    # "mode" is in the <title> of furo's hidden icons ("Light mode"): walked to, as it was
    # without a div.body around the article, it stopped the highlighter with a TypeError.
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    if how == "highlight parameter":
        # A search hands its words to the next page opened (localStorage), before the URL's:
        # an earlier test's search would be highlighted instead.
        page.goto("search.html")
        page.evaluate("localStorage.removeItem('sphinx_highlight_terms')")
        page.goto(page_of("differentiating_loops") + "?highlight=mode")
    else:
        found = search(page, base_url, "reverse-mode")
        assert found, "no result for reverse-mode"
        page.locator("#search-results ul.search > li > a").first.click()
        page.wait_for_load_state("load")
    words = _highlighted(page)
    assert any("mode" in word for word in words), words
    assert errors == []
    assert page.locator("svg tspan, svg rect.highlighted").count() == 0  # the icons untouched


# Questions in users' words (issue 39's development and held-out sets) and words that once
# broke the highlighter ("mode": Sphinx's highlighter walked furo's hidden SVG icons); in the
# Chinese edition, its readers' phrasings (search_phrasings.json) and the same words.
QUESTIONS_AND_WORDS = {
    "": [
        row["query"]
        for table in ("search_questions_dev.json", "search_questions_heldout.json")
        for row in json.loads((ROOT / "tests" / "data" / table).read_text("utf-8"))["questions"]
    ]
    + ["while_loop reverse-mode differentiation", "dark mode"],
    "zh_CN/": [
        row["zh_CN"]
        for table in ("search_phrasings.json",)
        for row in json.loads((ROOT / "tests" / "data" / table).read_text("utf-8"))["phrasings"]
        if "zh_CN" in row
    ]
    + ["泄漏", "全局变量", "随机数", "梯度", "缓冲区捐赠", "donate_argnums", "vmap", "scan"]
    + ["while_loop reverse-mode 求导", "dark mode"],
}


@pytest.mark.parametrize("edition", QUESTIONS_AND_WORDS)
def test_searching_and_opening_the_first_result_raises_no_error_in_the_browser(
    page, base_url: str, summary: list[str], edition: str
):
    errors: list[str] = []
    page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    queries = QUESTIONS_AND_WORDS[edition]
    opened = 0
    for query in queries:
        found = search(page, base_url, query, edition=edition)
        first = page.locator("#search-results ul.search > li > a").first
        if found:
            # The link as the browser resolves it, with its ?highlight=.
            page.goto(first.evaluate("a => a.href"), wait_until="load")
            opened += 1
        assert not errors, f"searching {query!r} and opening {found[:1]}: {errors}"
    summary.append(
        f"{edition or 'en/'}: {len(queries)} searches, {opened} first results opened: "
        "no browser error"
    )
    assert len(queries) >= 20 and opened >= len(queries) - 2, opened
