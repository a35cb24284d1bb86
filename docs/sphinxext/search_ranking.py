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
  index (``genindex.html``) lists them too. The phrases readers search a page's symptom
  by (:mod:`searched_for`, from ``docs/searched_for.json``) are main entries of their page
  in the same way. A document is read again only when
  its entries change. Sphinx keeps the search's index entries only for the
  documents it rewrites (sphinx-doc/sphinx#12599, open in Sphinx 9.1), so
  :func:`keep_unwritten_entries` puts back, from the last build's search index,
  those of the documents that a build did not rewrite.
* **A scorer**, ``docs/_static/search_scorer.js`` (``html_search_scorer``, set
  here unless ``conf.py`` sets it): a page whose index entry begins with the
  query ranks by how much of the entry the query covers, its main entry above
  the others; and a page whose own title holds the query's words ranks above
  one that only has them in a section title or its text (a gallery page's
  title says the symptom in a reader's words).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import searched_for
from docutils import nodes
from editions import language_of

# The folder error_index.py logs each page's caught errors in: one place says where.
from error_index import _captured_dir
from per_document import keep_per_document
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment
from sphinx.search import js_index
from sphinx.transforms import SphinxTransform
from sphinx.util import docname_join

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


def reread_changed(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Work out this build's keywords; read again each document whose keywords changed.

    The keywords come from the table of known errors and from what the gallery caught, so
    they can change while no document does. The last build's are kept in the environment.
    """
    captured = read_caught(_captured_dir(app.srcdir))
    before = getattr(env, "jaxpurity_search_keywords", None)
    now = keywords(captured)
    for doc, phrases in searched_for.entries(language_of(app)).items():
        now.setdefault(doc, {}).update(dict.fromkeys(phrases, True))
    env.jaxpurity_search_keywords = now  # type: ignore[attr-defined]
    # An environment built without this extension: every document.
    if before is None:
        return sorted(env.found_docs)
    return sorted(doc for doc in before.keys() | now.keys() if before.get(doc) != now.get(doc))


def _start_writing(app: Sphinx, builder: Any) -> None:
    builder.jaxpurity_written = set()


def _written(app: Sphinx, pagename: str, templatename: str, context: Any, doctree: Any) -> None:
    if doctree is not None:  # a document's page, not genindex or search
        app.builder.jaxpurity_written.add(pagename)  # type: ignore[attr-defined]


def frozen_index_entries(index: Mapping[str, Any]) -> dict[str, list[tuple[str, str, str]]]:
    """The index entries of a written search index (``searchindex.js``'s data), by document.

    In the form Sphinx holds them while it builds (``(entry, target id, "main" or "")``),
    each document's in the order the index lists them. The index holds each entry in lower
    case, as Sphinx writes it from any case, so that it is written again the same.
    """
    entries: dict[str, list[tuple[str, str, str]]] = {}
    for entry, places in index.get("indexentries", {}).items():
        for doc, target, main in places:
            entries.setdefault(index["docnames"][doc], []).append(
                (entry, target, "main" if main else "")
            )
    return entries


def keep_unwritten_entries(app: Sphinx) -> list[Any]:
    """Before Sphinx writes the search index: give each document that this build did not
    rewrite its index entries from the last build's index, and order all by document.

    Sphinx puts in ``searchindex.js`` the index entries of the documents it wrote in this
    build only (sphinx-doc/sphinx#12599). The last build's index is still on disk here
    (``html-collect-pages`` comes before Sphinx writes it), so each unwritten document gets
    back what it had there; in the order of the documents' names, the index comes out the
    same whichever documents a build rewrote.
    """
    indexer = getattr(app.builder, "indexer", None)
    if indexer is None:
        return []
    written = getattr(app.builder, "jaxpurity_written", set())
    path = Path(app.outdir) / app.builder.searchindex_filename  # type: ignore[attr-defined]
    try:
        last = frozen_index_entries(js_index.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        last = {}
    entries = indexer._index_entries
    kept = {
        doc: entries.get(doc, []) if doc in written else last.get(doc, [])
        for doc in sorted(app.env.all_docs)
    }
    entries.clear()
    entries.update({doc: found for doc, found in kept.items() if found})
    return []


# A page is a directory when it points at this many other documents, or at two or more with at
# most this many words of its own per document. Measured on 2026-12-06's site: the landing page
# points at 34 documents, the API page at 29, the error index at 25, the section indexes at 2 to
# 8 with 7 to 15 words each; a gallery page at 7 at most, with 103 words or more each.
DIRECTORY_DOCUMENTS = 10
DIRECTORY_WORDS = 40
# Text that is no prose of the page: raw HTML (thumbnails), comments, code and captured output.
_NOT_PROSE = (nodes.raw, nodes.comment, nodes.literal_block, addnodes.index)


def is_directory(words: int, documents: int) -> bool:
    """Whether a page of ``words`` words that points at ``documents`` other documents is mostly
    pointers: at least :data:`DIRECTORY_DOCUMENTS` of them, or two or more with at most
    :data:`DIRECTORY_WORDS` words each.

    >>> is_directory(1196, 34), is_directory(46, 3), is_directory(719, 7), is_directory(30, 1)
    (True, True, False, False)
    """
    return documents >= DIRECTORY_DOCUMENTS or (
        documents >= 2 and words <= DIRECTORY_WORDS * documents
    )


def pointers(doctree: nodes.document) -> tuple[int, list[tuple[str, str]]]:
    """A document's words of prose, and what it points at: ``(kind, target)`` for each
    cross-reference (``doc``, ``ref``, or a Python object's ``py``) and toctree entry
    (``doc``), unresolved, as reading leaves them."""
    words = 0
    for text in doctree.findall(nodes.Text):
        ancestor, prose = text.parent, True
        while ancestor is not None and prose:
            prose = not isinstance(ancestor, _NOT_PROSE)
            ancestor = ancestor.parent
        words += len(re.findall(r"\w+", text.astext())) if prose else 0
    found = []
    for xref in doctree.findall(addnodes.pending_xref):
        target = xref.get("reftarget", "")
        if xref.get("reftype") == "doc":
            found.append(("doc", docname_join(xref.get("refdoc", ""), target)))
        elif xref.get("reftype") == "ref":
            found.append(("ref", target.lower()))
        elif xref.get("refdomain") == "py":
            found.append(("py", target))
    for toctree in doctree.findall(addnodes.toctree):
        found += [("doc", entry) for _, entry in toctree["entries"]]
    return words, found


def directories(env: BuildEnvironment) -> list[str]:
    """The documents that are directories (:func:`is_directory`), each pointer resolved to
    the document it leads to (a label's, a Python object's); the document itself and
    unresolved pointers do not count."""
    labels = env.domaindata["std"]["anonlabels"]
    objects = env.domaindata["py"]["objects"]
    found = []
    for doc, (words, refs) in sorted(getattr(env, "jaxpurity_pointers", {}).items()):
        targets = set()
        for kind, target in refs:
            if kind == "doc":
                targets.add(target)
            elif kind == "ref" and target in labels:
                targets.add(labels[target][0])
            elif kind == "py" and target in objects:
                targets.add(objects[target][0])
        targets &= set(env.all_docs)
        targets.discard(doc)
        if is_directory(words, len(targets)):
            found.append(doc)
    return found


def _tell_search_page(app: Sphinx, pagename: str, templatename: str, context: Any, doctree: Any):
    """Give the search page the directories' names, for the scorer."""
    if pagename == "search":
        names = json.dumps(directories(app.env))
        app.add_js_file(None, body=f"window.JAXPURITY_DIRECTORIES = {names};")


def use_scorer(app: Sphinx, config: Config) -> None:
    """Point ``html_search_scorer`` at ``search_scorer.js`` unless ``conf.py`` set it."""
    if not config.html_search_scorer:
        config.html_search_scorer = str(SCORER)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", use_scorer)
    app.connect("env-get-outdated", reread_changed)
    app.connect("write-started", _start_writing)
    app.connect("html-page-context", _written)
    # After the documents are written and before the search index is (html-collect-pages
    # is emitted in between).
    app.connect("html-collect-pages", keep_unwritten_entries)
    app.add_transform(AddSearchKeywords)
    keep_per_document(app, "jaxpurity_pointers", lambda app, doctree: pointers(doctree))
    app.connect("html-page-context", _tell_search_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
