"""Each gallery page says what readers type when they search for its symptom.

``docs/searched_for.json`` lists, by topic of :mod:`jaxpurity._pages` and by edition, the
phrases readers use ("jit recompiles every call", "counter stays 0"). This extension puts
them on the topic's page, under its first paragraph, as one line: "You may have searched for: ...".
The line is the page's text, so Sphinx's search finds the page for those words (a page is a
result only when it holds every word of the query), and its snippet can show them.
:mod:`search_ranking` gives the phrases to the search as the page's index entries too, where
``search_scorer.js`` ranks a page first for a query that holds one of them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docutils import nodes
from editions import say
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

from jaxpurity._languages import EDITIONS
from jaxpurity._pages import page

PHRASES = Path(__file__).resolve().parents[1] / "searched_for.json"
LABEL = "You may have searched for:"


def read_phrases(path: Path = PHRASES) -> dict[str, dict[str, list[str]]]:
    """The phrases of ``path``, by topic and then by edition, checked.

    Raises:
      ValueError: A topic that is no page of the site, an edition the site does not have, or a
        topic without phrases for each edition; the message names it and says what to write.

    Example:
      >>> read_phrases()["retracing_storms"]["en"][0]
      'jit recompiles every call'
    """
    found = json.loads(path.read_text(encoding="utf-8"))["phrases"]
    for topic, by_edition in found.items():
        try:
            page(topic)
        except (KeyError, ValueError) as error:
            raise ValueError(
                f"{path.name}: {topic!r} is no topic of jaxpurity._pages; use a page's "
                f"topic, such as 'global_counter'"
            ) from error
        unknown = set(by_edition) - set(EDITIONS)
        missing = set(EDITIONS) - {e for e, said in by_edition.items() if said}
        if unknown or missing:
            raise ValueError(
                f"{path.name}: topic {topic!r} has phrases for {sorted(by_edition)}; give a "
                f"non-empty list for each edition of the site, {sorted(EDITIONS)}, and no other"
            )
    return found


def phrases_of(docname: str, language: str, path: Path = PHRASES) -> list[str]:
    """The phrases of the page ``docname`` (``examples/<section>/<topic>``), in ``language``."""
    return entries(language, path).get(docname, [])


def entries(language: str, path: Path = PHRASES) -> dict[str, list[str]]:
    """Each page's phrases in ``language``, by docname: the index entries the search gets."""
    return {
        page(topic).removesuffix(".html"): by_edition[language]
        for topic, by_edition in read_phrases(path).items()
    }


#: What comes between two phrases, by edition (Chinese lists with the enumeration comma).
SEPARATOR = {"en": ", ", "zh_CN": "、"}


def searched_for_line(label: str, phrases: list[str], language: str = "en") -> nodes.paragraph:
    """``label`` and the phrases, each set off, in one paragraph of class ``searched-for``.

    Example:
      >>> searched_for_line("搜索过：", ["重新编译", "x[i] = v"], "zh_CN").astext()
      '搜索过：重新编译、x[i] = v'
    """
    line = nodes.paragraph(classes=["searched-for"])
    line += nodes.strong(text=label)
    for i, phrase in enumerate(phrases):
        # No space after a full-width colon.
        line += nodes.Text(SEPARATOR[language] if i else "" if label.endswith("：") else " ")
        line += nodes.literal(text=phrase) if "[" in phrase else nodes.emphasis(text=phrase)
    return line


class AddSearchedForLine(SphinxTransform):
    """Put the page's "You may have searched for" line under its first paragraph."""

    # After sphinx.transforms.i18n.Locale (20): the line is written in the edition's words
    # and stays out of the catalogs.
    default_priority = 845

    def apply(self, **kwargs: Any) -> None:
        language = self.config.language or "en"  # editions.language_of, without the app
        found = phrases_of(self.env.docname, language)
        section = next(iter(self.document.findall(nodes.section)), None)
        if not found or section is None:
            return
        # After the page's first paragraph, which says its symptom (and which the Chinese
        # edition's thumbnails show: editions._intro), else under the title.
        first = next((i for i, n in enumerate(section) if isinstance(n, nodes.paragraph)), 0)
        section.insert(first + 1, searched_for_line(say(language, LABEL), found, language))


def setup(app: Sphinx) -> dict[str, Any]:
    read_phrases()  # a mistake in the file fails the build at once, naming it
    app.add_transform(AddSearchedForLine)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
