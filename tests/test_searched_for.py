"""Tests for docs/sphinxext/searched_for.py: the phrases readers search a page's symptom by."""

import json
from pathlib import Path

import pytest
from searched_for import PHRASES, entries, phrases_of, read_phrases, searched_for_line
from sphinx.application import Sphinx

from jaxpurity._languages import EDITIONS
from jaxpurity._pages import page

RETRACING = page("retracing_storms").removesuffix(".html")


def _phrases_file(tmp_path: Path, phrases: dict) -> Path:
    path = tmp_path / "searched_for.json"
    path.write_text(json.dumps({"phrases": phrases}), encoding="utf-8")
    return path


def test_every_topic_of_the_file_has_phrases_in_each_edition():
    found = read_phrases()
    assert len(found) >= 20
    for by_edition in found.values():
        assert set(by_edition) == set(EDITIONS)
        assert all(by_edition.values())


def test_a_pages_phrases_are_its_entries_and_other_pages_have_none():
    assert "jit recompiles every call" in phrases_of(RETRACING, "en")
    assert phrases_of(RETRACING, "zh_CN") == read_phrases()["retracing_storms"]["zh_CN"]
    assert phrases_of("errors", "en") == []
    assert entries("en")[RETRACING] == phrases_of(RETRACING, "en")


def test_an_unknown_topic_is_an_error_that_names_it(tmp_path):
    path = _phrases_file(tmp_path, {"global_countr": {"en": ["x"], "zh_CN": ["y"]}})
    with pytest.raises(ValueError, match="'global_countr' is no topic"):
        read_phrases(path)


@pytest.mark.parametrize("editions", [{"en": ["x"]}, {"en": ["x"], "zh_CN": []}])
def test_a_topic_without_phrases_for_an_edition_is_an_error(tmp_path, editions):
    path = _phrases_file(tmp_path, {"global_counter": editions})
    with pytest.raises(ValueError, match="give a non-empty list for each edition"):
        read_phrases(path)


def test_the_line_quotes_each_phrase_after_the_label():
    line = searched_for_line("You may have searched for:", ["counter stays 0", "x[i] = v"])
    assert line.astext() == "You may have searched for: counter stays 0, x[i] = v"
    assert line["classes"] == ["searched-for"]


def test_a_build_shows_the_line_after_the_first_paragraph_and_indexes_the_phrases(tmp_path):
    src, out = tmp_path / "src", tmp_path / "html"
    (src / Path(RETRACING).parent).mkdir(parents=True)
    (src / "conf.py").write_text('extensions = ["search_ranking", "searched_for"]\n')
    (src / "index.rst").write_text(f"Home\n====\n\n.. toctree::\n\n   {RETRACING}\n")
    (src / f"{RETRACING}.rst").write_text("Compiles again\n==============\n\nText.\n")
    Sphinx(src, src, out, out / ".doctrees", "html", status=None, warningiserror=True).build()
    html = (out / f"{RETRACING}.html").read_text(encoding="utf-8")
    title, text, line = (html.index(s) for s in ("Compiles again", "Text.", "searched-for"))
    assert title < text < line  # after the page's first paragraph
    index = (out / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(index[index.index("(") + 1 : index.rindex(")")])
    for phrase in phrases_of(RETRACING, "en"):
        assert index["indexentries"][phrase.lower()][0][2] == 1, phrase  # the main entry
    assert PHRASES.is_file()
