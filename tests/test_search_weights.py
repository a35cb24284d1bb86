"""Tests for docs/sphinxext/search_weights.py: how often each page holds each search term."""

import json
from pathlib import Path

import search_weights
from sphinx.application import Sphinx


def _site(root: Path) -> Path:
    src = root / "src"
    src.mkdir()
    (src / "conf.py").write_text('extensions = ["search_weights"]\n')
    (src / "index.rst").write_text("Home\n====\n\n.. toctree::\n\n   cond\n   loops\n")
    (src / "cond.rst").write_text(
        "Branches\n========\n\nThe cond call takes branches. Each cond branch returns "
        "arrays, and cond compares them.\n\n.. code-block:: python\n\n   lax.cond(p, f, g, x)\n"
    )
    (src / "loops.rst").write_text("Loops\n=====\n\nA loop carry. One cond here.\n")
    return src


def _build(src: Path, out: Path, builder: str = "html") -> tuple[dict, dict]:
    app = Sphinx(src, src, out, out / ".doctrees", builder, status=None, warningiserror=True)
    app.build()
    index = (out / "searchindex.js").read_text()
    weights = (out / "_static" / search_weights.FILENAME).read_text()
    return (
        json.loads(index[index.index("(") + 1 : index.rindex(")")]),
        json.loads(weights[weights.index("=") + 1 :].strip().rstrip(";")),
    )


def _count(index: dict, weights: dict, doc: str, term: str) -> int:
    """How often ``doc`` holds ``term``, as search_scorer.js reads the two files."""
    file = index["docnames"].index(doc)
    pairs = weights["terms"].get(term, [])
    counted = dict(zip(pairs[::2], pairs[1::2], strict=True))
    if file in counted:
        return counted[file]
    held = [index["terms"].get(term, []), index["titleterms"].get(term, [])]
    return int(any(file in (files if isinstance(files, list) else [files]) for files in held))


def test_a_page_counts_each_term_as_often_as_its_prose_and_titles_hold_it(tmp_path):
    index, weights = _build(_site(tmp_path), tmp_path / "html")
    assert _count(index, weights, "cond", "cond") == 3  # in prose; the code's is left out
    assert _count(index, weights, "cond", "lax") == 1  # only in the code: held, once
    assert _count(index, weights, "loops", "cond") == 1  # once: the index alone says so
    assert _count(index, weights, "cond", "branch") == 3  # "Branches" (the title), "branches"...
    assert _count(index, weights, "loops", "branch") == 0
    # Every counted term is one the search index holds for that page: the same split and stem.
    for term, pairs in weights["terms"].items():
        for file in pairs[::2]:
            held = [index["terms"].get(term, []), index["titleterms"].get(term, [])]
            assert any(file in (f if isinstance(f, list) else [f]) for f in held), term
    assert len(weights["length"]) == len(index["docnames"])


def test_a_rebuild_that_reads_nothing_again_writes_the_same_counts(tmp_path):
    src, out = _site(tmp_path), tmp_path / "html"
    first = _build(src, out)
    assert _build(src, out) == first


def test_a_builder_with_no_search_counts_nothing(tmp_path):
    src, out = _site(tmp_path), tmp_path / "gettext"
    Sphinx(src, src, out, out / ".doctrees", "gettext", status=None, warningiserror=True).build()
    assert not (out / "_static" / search_weights.FILENAME).exists()


def test_the_search_page_loads_the_counts(tmp_path):
    _build(_site(tmp_path), tmp_path / "html")
    search_page = (tmp_path / "html" / "search.html").read_text()
    assert f'src="_static/{search_weights.FILENAME}' in search_page
