"""Tests for docs/sphinxext/thumbnails.py: one small card per gallery page, with alt text."""

from __future__ import annotations

import io
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from docutils import nodes
from PIL import Image
from thumbnails import SIZE, Card, card_for, cards, draw, set_alt_text, thumbnail_path

from jaxpurity._pages import PAGES, script

TRACER_LEAK = "Encountered an unexpected tracer. A function transformed by JAX had a side effect."


def _caught(type_: str, message: str) -> dict[str, str]:
    return {"type": type_, "message": message}


def test_card_names_the_first_error_the_page_caught():
    card = card_for("My counter never changes", [_caught("UnexpectedTracerError", TRACER_LEAK)])
    assert card == Card("My counter never changes", "UnexpectedTracerError", None)
    assert card.alt == "My counter never changes (UnexpectedTracerError)"


def test_builtin_exception_gets_the_first_line_of_its_message():
    caught = [_caught("TypeError", "true_fun and false_fun output must have identical types\nx")]
    card = card_for("My cond branches disagree", caught)
    assert card.detail == "true_fun and false_fun output must have identical types"


def test_page_without_errors_shows_its_title():
    assert card_for("Do the fixes make my code slower?", []) == Card(
        "Do the fixes make my code slower?", None, None
    )


def _png(card: Card) -> Image.Image:
    data = draw(card)
    assert data.startswith(b"\x89PNG"), "not a PNG"
    return Image.open(io.BytesIO(data))


@pytest.mark.parametrize(
    "card",
    [
        Card("My counter never changes inside jit", "UnexpectedTracerError", None),
        Card("My branches", "TypeError", "true_fun and false_fun output must have identical types"),
        Card("Do the fixes make my code slower? A long title that needs wrapping", None, None),
    ],
)
def test_card_is_a_small_palette_png_of_the_gallery_size(card: Card):
    data = draw(card)
    image = _png(card)
    assert image.size == SIZE
    assert image.mode == "P"
    assert len(data) < 10_000, f"{len(data)} bytes"
    # Not blank: text in more than the background colour.
    assert len(image.convert("RGB").getcolors(maxcolors=256) or []) > 2


def test_same_card_gives_the_same_bytes_and_cards_differ():
    a = Card("My counter", "UnexpectedTracerError", None)
    b = Card("My counter", "ConcretizationTypeError", None)
    assert draw(a) == draw(a)
    assert draw(a) != draw(b)


def test_thumbnail_path_is_where_sphinx_gallery_puts_it(tmp_path: Path):
    section = Path(script("global_counter")).parent.name
    assert thumbnail_path(tmp_path, "examples", "global_counter") == (
        tmp_path / "examples" / section / "images" / "thumb" / "sphx_glr_global_counter_thumb.png"
    )


def test_cards_come_from_the_captured_log_and_skip_failed_pages(tmp_path: Path):
    log = tmp_path / "examples" / "_captured" / "state_and_leaks" / "global_counter.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text(json.dumps(_caught("UnexpectedTracerError", TRACER_LEAK)) + "\n")
    gallery_conf = {
        "src_dir": str(tmp_path),
        "failing_examples": {str(tmp_path / "gallery/control_flow/boolean_masks.py"): "boom"},
        "titles": {
            str(tmp_path / "gallery/state_and_leaks/global_counter.py"): "My counter",
            str(tmp_path / "gallery/tools/debugging_workflow.py"): "A workflow",
            str(tmp_path / "gallery/control_flow/boolean_masks.py"): "Masks",
        },
    }
    assert cards(gallery_conf) == {
        "global_counter": Card("My counter", "UnexpectedTracerError", None),
        "debugging_workflow": Card("A workflow", None, None),
    }


def test_alt_text_is_set_on_gallery_thumbnails_only():
    doctree = nodes.document(None, None)
    thumb = nodes.image(uri="examples/tools/images/thumb/sphx_glr_debugging_workflow_thumb.png")
    other = nodes.image(uri="_static/logo.png", alt="logo")
    doctree += [thumb, other]
    app = SimpleNamespace(
        env=SimpleNamespace(jaxpurity_thumbnail_alts={"debugging_workflow": "A"}),
        config=SimpleNamespace(language="en"),
    )
    set_alt_text(app, doctree)
    assert thumb["alt"] == "A"
    assert other["alt"] == "logo"


def test_every_page_has_a_topic_the_thumbnails_know():
    # thumbnail_path works for every page of SECTIONS (it raises on an unknown one).
    for topic in PAGES:
        assert thumbnail_path("src", "examples", topic).name == f"sphx_glr_{topic}_thumb.png"
    with pytest.raises(KeyError, match="no gallery page"):
        thumbnail_path("src", "examples", "no_such_page")


def test_every_page_gets_a_card_of_its_own(tmp_path: Path):
    # The cards of the real pages, from the errors each caught on JAX 0.4.35 (the committed
    # record) and each script's title: pages that show the same exception first (five show
    # an UnexpectedTracerError) still get different pictures.
    root = Path(__file__).resolve().parents[1]
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "_captured").symlink_to(root / "docs" / "captured" / "jax-0.4.35")
    docstrings = {topic: (root / script(topic)).read_text().strip('"\n') for topic in PAGES}
    titles = {str(tmp_path / script(t)): text.splitlines()[0] for t, text in docstrings.items()}
    found = cards({"src_dir": str(tmp_path), "failing_examples": {}, "titles": titles})
    assert sorted(found) == sorted(PAGES)
    shared = [card.error for card in found.values() if card.error]
    assert len(shared) > len(set(shared)), "no two pages share an exception: the test tests nothing"
    pictures = {draw(card) for card in found.values()}
    assert len(pictures) == len(PAGES)
