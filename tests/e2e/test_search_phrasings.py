"""The site search, on what users type: each symptom query of ``tests/data/search_phrasings.json``
(real issue titles and questions, with their sources) lists its page first.

The table names a topic of :mod:`jaxpurity._pages` for each query, chosen from the thread; the
browser runs Sphinx's real search on it (``test_search.ranked``). The terminal summary
shows where each query puts its page. A row with a ``zh_CN`` phrasing (the same question as a
Chinese reader types it) is searched on the Chinese edition too. Runs with ``tox -e e2e``.
"""

# ruff: noqa: F811
from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from _site import ROOT, SITE

# test_search's helper and test_site's fixtures (context, page), found by name (F811);
# importing them also skips this module without JAXPURITY_E2E=1.
from test_search import _rank, ranked, search
from test_site import context, page  # noqa: F401

from jaxpurity._pages import page as page_of

TABLE = ROOT / "tests" / "data" / "search_phrasings.json"
PHRASINGS = json.loads(TABLE.read_text(encoding="utf-8"))["phrasings"]
# Phrasings the site's phrases were not written from, and how many put their page first as
# last measured (5 when they were collected; 8 once the search ranked by BM25): a floor.
HELDOUT = json.loads(TABLE.read_text(encoding="utf-8"))["heldout"]
HELDOUT_FIRST = 8


def test_the_table_holds_25_sourced_phrasings_mostly_new():
    assert len(PHRASINGS) >= 25
    assert all(p["source"] for p in PHRASINGS)
    assert sum(not p.get("named") for p in PHRASINGS) * 2 >= len(PHRASINGS)


def _misses(found: list[list[str]], rows: list[tuple[str, str]]) -> list[str]:
    return [
        f"{query!r}: {expected} at {_rank(listed, expected)}, first {listed[:3]}"
        for listed, (query, expected) in zip(found, rows, strict=True)
        if listed[:1] != [expected]
    ]


def test_each_users_phrasing_lists_its_page_first(page, base_url: str, summary):
    rows = [(p["query"], page_of(p["topic"])) for p in PHRASINGS]
    found = ranked(page, base_url, [query for query, _ in rows])
    misses = _misses(found, rows)
    summary.append(f"phrasings: {len(rows) - len(misses)}/{len(rows)} put their page first")
    assert not misses, misses


def test_each_chinese_readers_phrasing_lists_its_page_first_in_the_chinese_edition(
    page, base_url: str, summary
):
    rows = [(p["zh_CN"], "zh_CN/" + page_of(p["topic"])) for p in PHRASINGS if "zh_CN" in p]
    found = ranked(page, base_url, [query for query, _ in rows], edition="zh_CN/")
    misses = _misses(found, rows)
    summary.append(f"zh phrasings: {len(rows) - len(misses)}/{len(rows)} put their page first")
    assert not misses, misses


# sphinx-gallery's note at the top of each example, in each edition's words.
DOWNLOAD_NOTE = {"": "Go to the end", "zh_CN/": "跳到末尾"}


def _snippets(tab, count: int) -> list[str]:
    """The text under each of the ``count`` results listed, once every one has it.

    Sphinx fetches each result's page to write its snippet and writes the summary line
    (what ``search`` waits for) without waiting for those fetches, so under load the list
    can be complete while its snippets are still on their way.
    """
    snippets = tab.locator("#search-results ul.search > li p.context")
    snippets.nth(count - 1).wait_for(timeout=15_000)  # as search() waits for its summary
    return snippets.all_inner_texts()


@pytest.mark.parametrize("edition", DOWNLOAD_NOTE, ids=["en", "zh_CN"])
def test_snippets_and_pages_begin_without_the_download_note(page, base_url: str, edition):
    query = PHRASINGS[0]["zh_CN" if edition else "query"]
    found = search(page, base_url, query, edition=edition)
    assert found, "no results"
    snippets = _snippets(page, len(found))
    assert not [s for s in snippets if DOWNLOAD_NOTE[edition] in s], snippets
    page.goto(found[0])
    assert page.locator(".sphx-glr-download-link-note").count() == 0
    assert page.locator(".sphx-glr-download-python a").count() == 1  # the downloads stay


def test_phrasings_held_out_put_their_page_first_as_often_as_measured(page, base_url, summary):
    ranks = []
    for row, found in zip(
        HELDOUT, ranked(page, base_url, [r["query"] for r in HELDOUT]), strict=True
    ):
        expected = page_of(row["topic"])
        ranks.append(_rank(found, expected))
        summary.append(f"held-out {row['query']!r}: {expected} at {ranks[-1]} of {len(found)}")
    first = ranks.count(1)
    summary.append(f"held-out phrasings: {first}/{len(HELDOUT)} put their page first")
    assert first >= HELDOUT_FIRST, ranks


# Issue 39's questions in users' words that neither the phrasing table nor
# docs/searched_for.json holds: a development set (search_questions_dev.json) to work the
# ranking from, and a held-out one (search_questions_heldout.json) to tell whether the work
# generalizes; the first held-out set was seen while the ranking changed, so a second
# (search_questions_heldout_2.json) was collected after, and scored as collected: it judges
# the next change. Where each puts its page is shown in the summary; the floor is how many
# put it first, as last measured.
QUESTION_FLOORS = {
    "search_questions_dev.json": 11,
    "search_questions_heldout.json": 7,
    "search_questions_heldout_2.json": 7,
}


@pytest.mark.parametrize("table", QUESTION_FLOORS)
def test_questions_put_their_page_first_as_often_as_measured(page, base_url, summary, table):
    rows = json.loads((ROOT / "tests" / "data" / table).read_text("utf-8"))["questions"]
    ranks = []
    for row, found in zip(rows, ranked(page, base_url, [r["query"] for r in rows]), strict=True):
        expected = page_of(row["topic"])
        ranks.append(_rank(found, expected))
        summary.append(
            f"{table} {row['query']!r} ({row['source']}): {expected} at {ranks[-1]} "
            f"of {len(found)}; first: {found[:1]}"
        )
    first = ranks.count(1)
    summary.append(f"{table}: {first}/{len(ranks)} put their page first")
    assert first >= QUESTION_FLOORS[table], ranks


# A third held-out set, 59 thread titles collected while the BM25 ranking was worked on, to
# add to the pages' words (which gained nothing and was not kept), and never typed into the
# search while the ranking was chosen (search_questions_heldout_3.json), scored by
# scorers/search.js: the site's own search scripts in Node, which rank as the browser does
# (14/59 first with the ranking before BM25, 30/59 with it), in a second. The floor is the
# figure as collected.
HELDOUT_3_FIRST = 30


@pytest.mark.skipif(shutil.which("node") is None, reason="scorers/search.js needs Node.js")
def test_the_third_held_out_set_puts_its_page_first_as_often_as_measured(summary):
    table = ROOT / "tests" / "data" / "search_questions_heldout_3.json"
    scored = subprocess.run(
        ["node", str(ROOT / "scorers" / "search.js"), str(SITE), str(table)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    summary.append(scored.strip())
    first = int(scored.split(": ")[1].split("/")[0])
    assert first >= HELDOUT_3_FIRST, scored
