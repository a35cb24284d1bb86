"""The site search puts the page that explains an error first, for its name or its first words.

Sphinx's search scores a page by where a query's words occur (title, text) and
breaks ties alphabetically, so a page that only mentions an exception can come
before the page that explains it. This extension gives the search what
:mod:`jaxpurity.explainer.known_errors` knows:

* **Index entries**, generated from ``KNOWN_ERRORS``: each exception name that
  identifies an error by itself (``UnexpectedTracerError``, not ``TypeError``)
  and each fixed wording of a message ("Encountered an unexpected tracer"), and
  the words a pattern of the table matched in an error the gallery caught
  ("Leaked trace DynamicJaxprTrace", from ``examples/_captured/``), is a main
  entry on the page that :func:`jaxpurity.explain` sends it to, and an
  entry on the error index, whose paste box explains it. A name that no one
  page explains (``explain`` does not recognise it alone) has its main entry on
  the error index. The entries have no target of their own: a hit links to the
  page, and the search merges it with the page's own text hit. The general
  index (``genindex.html``) lists them too. Every document with index entries
  is re-read on each build: Sphinx keeps the search's index entries only for
  the documents it rewrites.
* **A scorer**, ``docs/_static/search_scorer.js`` (``html_search_scorer``, set
  here unless ``conf.py`` sets it): a page whose index entry begins with the
  query ranks by how much of the entry the query covers, its main entry above
  the others; and a page whose own title holds the query's words ranks above
  one that only has them in a section title or its text (a gallery page's
  title says the symptom in a reader's words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from docutils import nodes

# The folder error_index.py logs each page's caught errors in: one place says where.
from error_index import _captured_dir
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment
from sphinx.transforms import SphinxTransform

import jaxpurity
from jaxpurity._capture import read_caught
from jaxpurity.explainer._explain import distinctive
from jaxpurity.explainer.known_errors import KNOWN_ERRORS

ERROR_INDEX = "errors"  # docs/errors.rst
SCORER = Path(__file__).resolve().parents[1] / "_static" / "search_scorer.js"


def captured_wordings(errors: Iterable[Mapping[str, str]]) -> list[str]:
    """The words that the table's regular-expression wordings matched in the captured errors.

    A pattern is no phrase a reader types, but what it matched in a message the
    gallery caught is: ``Leaked trace DynamicJaxprTrace`` for
    ``\\bLeaked (?:trace|level|sublevel) \\w``. Each match runs on to the end of
    its last word. A match with a digit in it (an object id, a line number, a
    shape) is left out: it changes from one build to the next.

    Args:
      errors: The errors the build captured, as :func:`jaxpurity._capture.read_caught`
        reads them (each with ``type`` and ``message``).
    """
    found = []
    for error in errors:
        text = " ".join(error["message"].split())  # as explain searches a pattern
        for known in KNOWN_ERRORS:
            for wording in known.wordings:
                match = re.search(wording.text, text) if wording.regex else None
                if match is None:
                    continue
                end = re.compile(r"\w*").match(text, match.end()).end()
                words = text[match.start() : end].strip()
                if len(words.split()) > 1 and not re.search(r"\d", words):
                    found.append(words)
    return list(dict.fromkeys(found))


def phrases(errors: Iterable[Mapping[str, str]] = ()) -> list[str]:
    """What a reader searches for an error by: its distinctive class names and fixed wordings.

    In the order of ``KNOWN_ERRORS``, each once, then the words its
    regular-expression wordings matched in ``errors`` (see
    :func:`captured_wordings`), which the build captured.
    """
    found = [name for known in KNOWN_ERRORS for name in known.errors if distinctive(name)]
    found += [w.text for known in KNOWN_ERRORS for w in known.wordings if not w.regex]
    return list(dict.fromkeys(found + captured_wordings(errors)))


def keywords(errors: Iterable[Mapping[str, str]] = ()) -> dict[str, dict[str, bool]]:
    """The index entries to add: docname -> {phrase: whether it is the main entry}."""
    entries: dict[str, dict[str, bool]] = {}
    for phrase in phrases(errors):
        explanation = jaxpurity.explain(phrase)
        if explanation.recognised and explanation.page is not None:
            entries.setdefault(explanation.page.removesuffix(".html"), {})[phrase] = True
        entries.setdefault(ERROR_INDEX, {}).setdefault(phrase, not explanation.recognised)
    return entries


def index_node(entries: dict[str, bool]) -> addnodes.index:
    """An index node of ``single`` entries without a target (a hit links to the page)."""
    return addnodes.index(
        entries=[
            ("single", phrase, "", "main" if main else "", None) for phrase, main in entries.items()
        ]
    )


class AddSearchKeywords(SphinxTransform):
    """Put a document's generated index entries at the top of its first section."""

    # Before sphinx.transforms.references.SphinxDomains (850) collects the index entries.
    default_priority = 840

    def apply(self, **kwargs: Any) -> None:
        keywords = self.env.jaxpurity_search_keywords  # type: ignore[attr-defined]
        entries = keywords.get(self.env.docname)
        section = next(iter(self.document.findall(nodes.section)), None)
        if entries and section is not None:
            section.insert(1, index_node(entries))  # after the section's title


def reread_indexed(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Work out this build's keywords; re-read every document that has index entries, or will.

    Sphinx leaves out of ``searchindex.js`` the index entries of each document
    it does not rewrite (sphinx-doc/sphinx#12599, open in Sphinx 9.0), so an
    incremental build would lose them; a document that is re-read is rewritten.
    This also re-reads a document whose keywords changed with the table.
    """
    captured = read_caught(_captured_dir(app.srcdir))
    env.jaxpurity_search_keywords = keywords(captured)  # type: ignore[attr-defined]
    indexed = {doc for doc, entries in env.get_domain("index").entries.items() if entries}
    return sorted(indexed | set(env.jaxpurity_search_keywords))  # type: ignore[attr-defined]


def use_scorer(app: Sphinx, config: Config) -> None:
    """Point ``html_search_scorer`` at ``search_scorer.js`` unless ``conf.py`` set it."""
    if not config.html_search_scorer:
        config.html_search_scorer = str(SCORER)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", use_scorer)
    app.connect("env-get-outdated", reread_indexed)
    app.add_transform(AddSearchKeywords)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
