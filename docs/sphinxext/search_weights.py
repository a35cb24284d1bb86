"""How often each word occurs on each page, for the site search's ranking.

Sphinx's search index says which pages hold a word, not how often: a page that
mentions ``cond`` once ranks with the page about ``jax.lax.cond``. This extension
counts, as each document is read, how often each word the index holds occurs in its prose,
split and stemmed as Sphinx's own indexer does (:class:`sphinx.search.WordCollector`,
the search language's ``stem`` and ``word_filter``), so that a count is keyed by the
same term as the index. ``search_scorer.js`` ranks with them (BM25, over every page
that holds any word of a query).

The counts are written to ``_static/searchweights.js``, which the search page loads:
``{"length": [words of each document's prose], "terms": {term: [document, count, ...]}}``,
documents by their number in the search index. A term a document holds once is left out
(the index already says it holds it, in prose or in code), so the file stays small.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from docutils import nodes
from per_document import keep_per_document
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.search import IndexBuilder, SearchLanguage, WordCollector
from unchanged_rebuild import write_if_changed

FILENAME = "searchweights.js"


class ProseCollector(WordCollector):
    """Sphinx's collector of a document's words, less its code and the output captured from
    it (literal blocks)."""

    def dispatch_visit(self, node: nodes.Node) -> None:
        if isinstance(node, (nodes.literal_block, nodes.doctest_block)):
            raise nodes.SkipNode
        super().dispatch_visit(node)


def term_counts(doctree: nodes.document, lang: SearchLanguage) -> Counter[str]:
    """How often each search term occurs in the prose of ``doctree``, its titles included.

    A word becomes a term as :meth:`sphinx.search.IndexBuilder.feed` makes it one: its
    stem in lower case, or the word itself where the stem is filtered out and the word is
    not. Code and captured output are left out: a reader asks in prose, and a page's prose
    says what the page is about, where its code and output repeat words that happen to be
    there (``ops`` in XLA's output, ``double`` in a dtype's name). The index still holds
    their words, which count as held once.
    """
    collector = ProseCollector(doctree, lang)
    doctree.walk(collector)
    counts: Counter[str] = Counter()
    for word in collector.found_words:
        term = lang.stem(word).lower()
        if not lang.word_filter(term) and lang.word_filter(word):
            term = word
        if lang.word_filter(term):
            counts[term] += 1
    return counts


def _search_language(app: Sphinx) -> None:
    """Give the builder its search language, as its indexer makes it; None for a builder
    with no search (gettext, linkcheck)."""
    lang = None
    if getattr(app.builder, "search", False):
        lang = IndexBuilder(
            app.env,
            app.config.html_search_language or app.config.language,
            app.config.html_search_options,
            app.config.html_search_scorer,
        ).lang
    app.builder.jaxpurity_search_language = lang  # type: ignore[attr-defined]


def _counts(app: Sphinx, doctree: nodes.document) -> dict[str, int] | None:
    lang = getattr(app.builder, "jaxpurity_search_language", None)
    return None if lang is None else dict(term_counts(doctree, lang))


def weights(counts: dict[str, dict[str, int]], docnames: list[str]) -> dict[str, Any]:
    """The table ``searchweights.js`` holds, for the documents in the search index's order.

    >>> weights({"b": {"cond": 3, "jit": 1}, "a": {"jit": 2}}, ["a", "b"])
    {'length': [2, 4], 'terms': {'cond': [1, 3], 'jit': [0, 2]}}
    """
    terms: dict[str, list[int]] = {}
    for number, doc in enumerate(docnames):
        for term, count in sorted(counts.get(doc, {}).items()):
            if count > 1:
                terms.setdefault(term, []).extend([number, count])
    length = [sum(counts.get(doc, {}).values()) for doc in docnames]
    return {"length": length, "terms": dict(sorted(terms.items()))}


def write_weights(app: Sphinx, env: BuildEnvironment) -> None:
    """Write ``_static/searchweights.js`` into the build, only where its text changed.

    Once every document is read, before any page is written, so that the search page links
    it with its checksum (``searchweights.js?v=...``): a browser then never keeps a stale copy.
    The search index numbers its documents in the order of their names, every document of the
    site.
    """
    if getattr(app.builder, "jaxpurity_search_language", None) is None:
        return
    table = weights(getattr(env, "jaxpurity_prose_counts", {}), sorted(env.all_docs))
    text = json.dumps(table, separators=(",", ":"), ensure_ascii=False)
    data = f"window.JAXPURITY_WEIGHTS = {text};\n".encode()
    write_if_changed(Path(app.outdir) / "_static" / FILENAME, data)


def _load_on_search_page(app: Sphinx, pagename: str, templatename: str, context: Any, doctree: Any):
    if pagename == "search":
        app.add_js_file(FILENAME, priority=100)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", _search_language)
    keep_per_document(app, "jaxpurity_prose_counts", _counts)
    app.connect("html-page-context", _load_on_search_page)
    app.connect("env-updated", write_weights)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
