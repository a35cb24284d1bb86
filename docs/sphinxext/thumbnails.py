"""Gallery thumbnails that say what each page is about: the error it shows, or its symptom.

sphinx-gallery gives every page that draws no figure the same placeholder picture, with an
empty alt text. After sphinx-gallery has run the examples (``builder-inited``, priority 600),
:func:`write_thumbnails` draws one small card per page into the file that the gallery's index
pages show
(``examples/<section>/images/thumb/sphx_glr_<topic>_thumb.png``):

* the first error the page caught (from the log that ``error_index`` keeps), and under it the
  first line of JAX's message where the exception's name alone says little (``TypeError``),
  else the page's title: five pages show an ``UnexpectedTracerError`` first, and their cards
  differ by what each is about;
* the page's title, the symptom in a user's words, when the page caught no error.

A page whose example failed keeps sphinx-gallery's "broken example" picture. Each card is a
palette PNG of a few kilobytes, drawn at twice the size the gallery shows it (160 x 112 CSS
pixels), so that it stays sharp on high-density screens.

:func:`set_alt_text` gives each thumbnail image the page's title and the error its card names
as alt text; when that text changes, every document is read again (they are the pages that
can hold a thumbnail: the gallery's indexes).
"""

from __future__ import annotations

import builtins
import io
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docutils import nodes
from editions import from_catalog
from error_index import _captured_dir
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from unchanged_rebuild import write_if_changed

from jaxpurity._capture import read_caught
from jaxpurity._pages import PAGES, script, topic_of

#: The size of a card in pixels: twice the 160 x 112 that sphinx-gallery's CSS shows.
SIZE = (320, 224)
_DPI = 100
_PAD = 18  # pixels of margin inside the card
_BACKGROUND, _TEXT, _ERROR = "#f6f6f6", "#1f1f1f", "#a4102b"  # contrast 15:1 and 6.9:1
_COLOURS = 16  # palette entries: the antialiased text needs a few greys
_THUMB = re.compile(r"sphx_glr_(?P<topic>\w+)_thumb\.png$")


@dataclass(frozen=True)
class Card:
    """What one page's thumbnail says."""

    title: str  # the page's title: its symptom
    error: str | None  # the exception the page shows first, or None
    detail: str | None  # the first line of its message, where the name alone says little

    @property
    def alt(self) -> str:
        return f"{self.title} ({self.error})" if self.error else self.title


def card_for(title: str, caught: list[dict[str, str]]) -> Card:
    """The card of a page with this title that caught these errors (in the order it showed them).

    Example:
      >>> card_for("My counter", [{"type": "UnexpectedTracerError", "message": "..."}]).alt
      'My counter (UnexpectedTracerError)'
    """
    if not caught:
        return Card(title, None, None)
    first = caught[0]
    # A built-in exception's name (TypeError, Exception) says little; JAX's own ones say much.
    generic = isinstance(getattr(builtins, first["type"], None), type)
    detail = (first["message"].splitlines() or [""])[0].strip() if generic else None
    return Card(title, first["type"], detail or None)


def _split_name(name: str) -> list[str]:
    """An exception's name on one line, or on two split at a capital to balance them."""
    cuts = [m.start() for m in re.finditer(r"(?<=[a-z0-9])[A-Z]", name)]
    if len(name) <= 22 or not cuts:
        return [name]
    cut = min(cuts, key=lambda i: max(i, len(name) - i))
    return [name[:cut], name[cut:]]


def _wrap(text: str, width: int, lines: int) -> list[str]:
    wrapped = textwrap.wrap(text, width) or [""]
    if len(wrapped) > lines:
        wrapped = wrapped[:lines]
        wrapped[-1] = wrapped[-1][: width - 1].rstrip() + "\N{HORIZONTAL ELLIPSIS}"
    return wrapped


def _fit_text(fig: Any, renderer: Any, y: float, text: str, px: float, **style: Any) -> Any:
    """Draw ``text`` centred at height ``y`` (0 to 1), shrinking it until it fits the width."""
    width = SIZE[0] - 2 * _PAD
    while True:
        artist = fig.text(0.5, y, text, ha="center", va="center", fontsize=px * 72 / _DPI, **style)
        if artist.get_window_extent(renderer).width <= width or px <= 8:
            return artist
        artist.remove()
        px *= 0.95


def draw(card: Card) -> bytes:
    """The card as PNG bytes: the exception in red, over its message or the page's title; or
    the title alone.

    The same card gives the same bytes, so that an unchanged page rewrites nothing.
    """
    # Here, not at the top: a build that draws nothing need not import matplotlib.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from PIL import Image

    fig = Figure(figsize=(SIZE[0] / _DPI, SIZE[1] / _DPI), dpi=_DPI, facecolor=_BACKGROUND)
    canvas = FigureCanvasAgg(fig)
    renderer = canvas.get_renderer()
    if card.error:
        name = _split_name(card.error)
        detail = _wrap(card.detail or card.title, 30, 3)
        top = 0.6 + 0.06 * (len(detail) - 1) + 0.075 * (len(name) - 1)  # the block centred
        for i, line in enumerate(name):
            _fit_text(fig, renderer, top - 0.15 * i, line, 26, color=_ERROR,
                      family="DejaVu Sans Mono", weight="bold")  # fmt: skip
        for i, line in enumerate(detail):
            y = top - 0.15 * (len(name) - 1) - 0.2 - 0.12 * i
            _fit_text(fig, renderer, y, line, 17, color=_TEXT, family="DejaVu Sans")
    else:
        lines = _wrap(card.title, 22, 4)
        top = 0.5 + 0.085 * (len(lines) - 1)
        for i, line in enumerate(lines):
            _fit_text(fig, renderer, top - 0.17 * i, line, 24, color=_TEXT,
                      family="DejaVu Sans", weight="bold")  # fmt: skip
    canvas.draw()
    rgb = Image.frombuffer("RGBA", SIZE, canvas.buffer_rgba()).convert("RGB")
    out = io.BytesIO()
    rgb.quantize(_COLOURS, method=Image.Quantize.MEDIANCUT).save(out, "png", optimize=True)
    return out.getvalue()


def thumbnail_path(srcdir: str | Path, gallery_dir: str, topic: str) -> Path:
    """The thumbnail sphinx-gallery's index pages show for ``topic``."""
    section = Path(script(topic)).parent.name
    return Path(srcdir) / gallery_dir / section / "images" / "thumb" / f"sphx_glr_{topic}_thumb.png"


def cards(gallery_conf: dict[str, Any]) -> dict[str, Card]:
    """topic -> card, for every page sphinx-gallery built (its titles) that did not fail."""
    caught: dict[str, list[dict[str, str]]] = {}
    for error in read_caught(_captured_dir(gallery_conf["src_dir"])):
        caught.setdefault(topic_of(error["page"]), []).append(error)
    failed = {topic_of(path) for path in gallery_conf["failing_examples"]}
    titles = {topic_of(path): title for path, title in gallery_conf["titles"].items()}
    return {
        topic: card_for(title, caught.get(topic, []))
        for topic, title in titles.items()
        if topic in PAGES and topic not in failed
    }


def write_thumbnails(app: Sphinx) -> None:
    """Draw each page's card over the thumbnail sphinx-gallery wrote (only where it changed).

    A card that the last build drew the same, and whose file still holds what it drew, is
    not drawn again: the environment keeps each card with its picture.
    """
    gallery_conf = app.config.sphinx_gallery_conf
    found = cards(gallery_conf)
    last: dict[str, tuple[Card, bytes]] = getattr(app.env, "jaxpurity_thumbnails", {})
    drawn = {}
    for topic, card in found.items():
        path = thumbnail_path(app.srcdir, gallery_conf["gallery_dirs"], topic)
        last_card, png = last.get(topic, (None, b""))
        if last_card != card or not path.is_file() or path.read_bytes() != png:
            png = draw(card)
            write_if_changed(path, png)
        drawn[topic] = (card, png)
    app.env.jaxpurity_thumbnails = drawn  # type: ignore[attr-defined]
    alts = {topic: card.alt for topic, card in found.items()}
    app.env.jaxpurity_thumbnail_alts_changed = (
        getattr(app.env, "jaxpurity_thumbnail_alts", None) != alts
    )
    app.env.jaxpurity_thumbnail_alts = alts


def read_again_when_alt_text_changes(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Every document, when some thumbnail's alt text differs from the last build's."""
    return sorted(env.found_docs) if env.jaxpurity_thumbnail_alts_changed else []


def set_alt_text(app: Sphinx, doctree: nodes.document) -> None:
    """Give each gallery thumbnail in ``doctree`` its card's alt text, in the edition's language."""
    alts = app.env.jaxpurity_thumbnail_alts
    for image in doctree.findall(nodes.image):
        match = _THUMB.search(image["uri"])
        if match and match["topic"] in alts:
            image["alt"] = from_catalog(app, alts[match["topic"]])


def setup(app: Sphinx) -> dict[str, Any]:
    # After sphinx-gallery (priority 500) has run the examples and written its thumbnails.
    app.connect("builder-inited", write_thumbnails, priority=600)
    app.connect("env-get-outdated", read_again_when_alt_text_changes)
    app.connect("doctree-read", set_alt_text)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
