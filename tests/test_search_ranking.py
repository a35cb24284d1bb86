"""Tests for docs/sphinxext/search_ranking.py: search keywords from the table of known errors."""

import json
import re
import types
from pathlib import Path

import jax
import pytest
from search_ranking import (
    ERROR_INDEX,
    SCORER,
    captured_wordings,
    directories,
    frozen_index_entries,
    is_directory,
    keywords,
    phrases,
    use_scorer,
)
from sphinx.application import Sphinx

from jaxpurity._pages import page
from jaxpurity.explainer._explain import distinctive
from jaxpurity.explainer.known_errors import KNOWN_ERRORS

GLOBAL_COUNTER = page("global_counter").removesuffix(".html")
INPLACE_UPDATES = page("inplace_updates").removesuffix(".html")


def test_phrases_are_the_tables_distinctive_names_and_fixed_wordings():
    found = phrases()
    assert len(found) == len(set(found))
    for known in KNOWN_ERRORS:
        for name in known.errors:
            assert (name in found) == distinctive(name), name
        for wording in known.wordings:
            assert (wording.text in found) == (not wording.regex), wording.text
    assert "TypeError" not in found  # names nothing by itself
    assert "UnexpectedTracerError" in found
    assert "JAX arrays are immutable and do not support in-place item assignment" in found


def test_a_phrase_is_the_main_entry_of_the_page_that_explains_it_and_also_on_the_error_index():
    entries = keywords()
    assert entries[GLOBAL_COUNTER]["UnexpectedTracerError"] is True
    assert entries[GLOBAL_COUNTER]["Encountered an unexpected tracer"] is True
    assert entries[INPLACE_UPDATES]["JAX 'Tracer' objects do not support item assignment"] is True
    assert entries[ERROR_INDEX]["UnexpectedTracerError"] is False
    # Every phrase is on the error index, and is the main entry of exactly one page.
    for phrase in phrases():
        assert phrase in entries[ERROR_INDEX], phrase
        mains = [doc for doc, on_page in entries.items() if on_page.get(phrase)]
        assert len(mains) == 1, (phrase, mains)


def test_a_name_that_no_one_page_explains_has_its_main_entry_on_the_error_index():
    # jaxpurity's cond and its loops both raise TypeMismatchError; the message tells them apart.
    entries = keywords()
    assert entries[ERROR_INDEX]["TypeMismatchError"] is True
    assert [doc for doc in entries if "TypeMismatchError" in entries[doc]] == [ERROR_INDEX]


def _leak_checked() -> dict[str, str]:
    """The error jax.checking_leaks() raises for a jitted function that keeps its tracer."""
    kept = []

    def keep(x):
        kept.append(x)
        return x * 2

    with pytest.raises(Exception, match="Leaked") as caught, jax.checking_leaks():
        jax.jit(keep)(1.0)
    return {"type": type(caught.value).__name__, "message": str(caught.value)}


def test_what_a_pattern_matched_in_a_captured_error_is_a_phrase_without_its_numbers():
    error = _leak_checked()
    assert re.search(r"\d", error["message"])  # the tracer's object id, at least
    found = captured_wordings([error])
    leaked = [phrase for phrase in found if phrase.startswith("Leaked trace ")]
    assert len(leaked) == 1, found  # "Leaked trace DynamicJaxprTrace" on JAX 0.10
    assert re.fullmatch(r"Leaked trace \w+", leaked[0]), leaked
    assert not [phrase for phrase in found if re.search(r"\d", phrase)]
    assert set(found) <= set(phrases([error]))
    assert leaked[0] not in phrases()  # only from what was captured
    assert keywords([error])[GLOBAL_COUNTER][leaked[0]] is True


@pytest.mark.parametrize(("configured", "expected"), [("", str(SCORER)), ("mine.js", "mine.js")])
def test_the_scorer_is_used_unless_conf_py_names_one(configured: str, expected: str):
    config = types.SimpleNamespace(html_search_scorer=configured)
    use_scorer(None, config)
    assert config.html_search_scorer == expected
    assert SCORER.is_file()


def _site(root: Path) -> Path:
    """A small project with the error index and one gallery page, and the extension on."""
    src = root / "src"
    (src / Path(GLOBAL_COUNTER).parent).mkdir(parents=True)
    (src / "conf.py").write_text('extensions = ["search_ranking"]\n')
    (src / "index.rst").write_text(
        f"Home\n====\n\n.. toctree::\n\n   {ERROR_INDEX}\n   {GLOBAL_COUNTER}\n"
    )
    (src / f"{ERROR_INDEX}.rst").write_text("Error index\n===========\n\nEvery error.\n")
    (src / f"{GLOBAL_COUNTER}.rst").write_text("My global counter\n=================\n\nText.\n")
    return src


def _build(src: Path, out: Path) -> dict:
    app = Sphinx(src, src, out, out / ".doctrees", "html", status=None, warningiserror=True)
    app.build()
    text = (out / "searchindex.js").read_text()
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


def _entries(index: dict, entry: str) -> list[tuple[str, str, bool]]:
    places = index["indexentries"][entry]
    return sorted((index["docnames"][file], target, main) for file, target, main in places)


def test_a_build_puts_the_entries_in_the_search_index_and_keeps_them_when_rebuilt(tmp_path):
    src, out = _site(tmp_path), tmp_path / "html"
    expected = [(ERROR_INDEX, "", False), (GLOBAL_COUNTER, "", True)]
    first = _build(src, out)
    assert _entries(first, "unexpectedtracererror") == expected
    assert _entries(first, "encountered an unexpected tracer") == expected
    # Sphinx alone drops the index entries of documents it does not rewrite
    # (sphinx-doc/sphinx#12599): a rebuild with nothing changed keeps them here.
    again = _build(src, out)
    assert again["indexentries"] == first["indexentries"]
    assert "Scorer.score =" in (out / "_static" / "language_data.js").read_text()


def test_index_entries_read_back_from_a_written_search_index_as_sphinx_holds_them():
    # What an incremental build puts back for the documents it did not rewrite
    # (sphinx-doc/sphinx#12599): each document's entries, in Sphinx's own form.
    written = {
        "docnames": ["errors", "examples/state_and_leaks/global_counter"],
        "indexentries": {
            "unexpectedtracererror": [[1, "", 1], [0, "", 0]],
            "leaked tracer": [[1, "", 0]],
        },
    }
    assert frozen_index_entries(written) == {
        "examples/state_and_leaks/global_counter": [
            ("unexpectedtracererror", "", "main"),
            ("leaked tracer", "", ""),
        ],
        "errors": [("unexpectedtracererror", "", "")],
    }
    assert frozen_index_entries({"docnames": []}) == {}


@pytest.mark.parametrize(
    ("words", "documents", "expected"),
    [
        (1196, 34, True),  # the landing page: many documents
        (7710, 29, True),  # the API page: long, but pointing at most of the site
        (46, 3, True),  # a section index: a few documents, a line on each
        (30, 2, True),
        (719, 7, False),  # the gallery page with the most links
        (30, 1, False),  # one link is a pointer, not a list
        (486, 4, False),
    ],
)
def test_a_page_is_a_directory_when_most_of_it_points_at_other_pages(words, documents, expected):
    assert is_directory(words, documents) is expected


def _directories_of(src: Path, out: Path) -> list[str]:
    app = Sphinx(src, src, out, out / ".doctrees", "html", status=None, warningiserror=True)
    app.build()
    return directories(app.env), (out / "search.html").read_text()


def test_the_home_page_that_lists_pages_is_a_directory_and_the_pages_it_lists_are_not(tmp_path):
    src = _site(tmp_path)
    found, search_page = _directories_of(src, tmp_path / "html")
    assert found == ["index"]
    assert 'window.JAXPURITY_DIRECTORIES = ["index"];' in search_page


def test_a_page_that_answers_with_a_few_references_is_no_directory(tmp_path):
    src = _site(tmp_path)
    (src / f"{GLOBAL_COUNTER}.rst").write_text(
        "My global counter\n=================\n\n"
        + "The counter only moves when jit traces the function again. " * 20
        + f"See :doc:`/{ERROR_INDEX}` and :doc:`/index`.\n"
    )
    found, _ = _directories_of(src, tmp_path / "html")
    assert GLOBAL_COUNTER not in found
    assert "index" in found


def test_a_rebuild_that_reads_nothing_again_keeps_the_directories(tmp_path):
    src, out = _site(tmp_path), tmp_path / "html"
    first, _ = _directories_of(src, out)
    again, search_page = _directories_of(src, out)
    assert again == first == ["index"]
    assert 'window.JAXPURITY_DIRECTORIES = ["index"];' in search_page


def test_the_scorer_lists_a_directory_after_the_pages_and_drops_private_names_from_snippets():
    scorer = SCORER.read_text(encoding="utf-8")
    assert "window.JAXPURITY_DIRECTORIES" in scorer
    private = re.search(r"const PRIVATE = /(.*)/g;", scorer).group(1)
    signature = "scan(f, init, xs=None, unroll=1, _split_transpose=False)"
    assert re.sub(private, "", signature) == "scan(f, init, xs=None, unroll=1)"
    assert (
        re.sub(private, "", "x_max=1, keep _underscores alone")
        == "x_max=1, keep _underscores alone"
    )
