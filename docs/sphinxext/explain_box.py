"""The paste box: a reader pastes an error and gets the page that explains it, in the browser.

The box (``.. explain-box::``) runs ``_static/explain_box.js``, a port of
:func:`jaxpurity.explain` that reads its knowledge from ``known_errors.js``,
which this extension writes at build time from ``jaxpurity.explainer.known_errors``:
the site and ``explain`` share one table, and ``tests/e2e`` checks that they
give the same answer on every real error of the corpora. It works offline
(no fetch, no server): the knowledge is a script the page loads.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from editions import UI, language_of, say
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from unchanged_rebuild import write_if_changed

from jaxpurity._languages import translate
from jaxpurity._layout import colon, sentences
from jaxpurity._pages import SECTIONS, page
from jaxpurity.explainer._explain import anchor, distinctive, not_recognised
from jaxpurity.explainer.known_errors import DEAD_TRACE, KNOWN_ERRORS, TRACED_FUNCTION

ERROR_INDEX = "errors.html"  # docs/errors.rst, where every error is listed

_BOX = """\
<form class="explain-box" role="search" aria-label="{name}" onsubmit="return false">
  <label for="{id}-text">{label}</label>
  <textarea id="{id}-text" class="explain-box-text" rows="7" spellcheck="false"
    placeholder="jax.errors.TracerBoolConversionError: Attempted boolean conversion ..."
  ></textarea>
  <button type="button" class="explain-box-button">{button}</button>
  <div class="explain-box-result" role="status" aria-live="polite"></div>
</form>
"""
#: What explain_box.js writes of its own, by its English; the page's edition gives its language.
_SCRIPT_TEXT = ("The knowledge of jaxpurity.explain did not load.", "Paste an error first.")
#: Where to look for an error explain does not know; the script makes {index} a link to it.
_INDEX_INSTEAD = "The {index} lists every error this site shows, with the page that explains each."
#: The labels of an answer: explain's own, from the package's catalog.
_LABELS = ("Not recognised", "Error", "Scenario", "Cause", "Fix", "Read more", "See also")


def _js_regex(pattern: str) -> str:
    """A Python regular expression in JavaScript's syntax (named groups and their references)."""
    return re.sub(r"\(\?P=(\w+)\)", r"\\k<\1>", re.sub(r"\(\?P<(\w+)>", r"(?<\1>", pattern))


def knowledge(lang: str = "en", titles: dict[str, str] | None = None) -> dict[str, Any]:
    """What the box needs of ``explain``'s knowledge, as plain data, in the language ``lang``.

    ``titles`` names each page (by its site path) for the box's links, as the edition's
    build titles it; a page it leaves out is named by its path.
    """
    entries = []
    for known in KNOWN_ERRORS:
        entries.append(
            {
                "errors": list(known.errors),
                "topic": known.topic,
                "page": page(known.topic),
                "wordings": [
                    {
                        "text": _js_regex(w.text) if w.regex else w.text,
                        "regex": w.regex,
                        "anchor": anchor(w),
                    }
                    for w in known.wordings
                ],
                "when": None if known.when is None else _js_regex(known.when),
                "unless": None if known.unless is None else _js_regex(known.unless),
                "raised_in": None if known.raised_in is None else _js_regex(known.raised_in),
                "leaked": known.leaked,
                "no_error": known.no_error,
                "see_also": [page(topic) for topic in known.see_also],
                "scenario": translate(known.scenario, lang),
                "cause": translate(known.cause, lang),
                "fix": translate(known.fix, lang),
            }
        )
    names = {name for known in KNOWN_ERRORS for name in known.errors}
    return {
        "entries": entries,
        "distinctive": sorted(n for n in names if distinctive(n)),
        "dead_trace": _js_regex(DEAD_TRACE),
        "traced_function": _js_regex(TRACED_FUNCTION),
        "text": {text: text if lang == "en" else UI[text] for text in _SCRIPT_TEXT},
        # explain's words and punctuation: the box answers as explain does (_layout.py).
        "labels": {label: translate(label, lang) for label in _LABELS},
        "colon": colon(lang),
        # explain's sentence, then where to look instead ("{error}": the error's name).
        "not_recognised": {
            case: sentences(
                [not_recognised(error, lang), say(lang, _INDEX_INSTEAD, index="{index}")], lang
            )
            for case, error in (("named", "{error}"), ("unnamed", ""))
        },
        "titles": dict(sorted((titles or {}).items())),
        "error_index": ERROR_INDEX,
        "index_text": say(lang, "error index"),
    }


def page_titles(env: BuildEnvironment) -> dict[str, str]:
    """Each gallery page's title as this edition's build read it, by the page's site path."""
    return {
        path: env.titles[docname].astext()
        for path in {page(topic) for section in SECTIONS for topic in section.topics}
        if (docname := path.removesuffix(".html")) in env.titles
    }


def write_knowledge(app: Sphinx, env: BuildEnvironment) -> None:
    """Write ``_static/known_errors.js`` into the build, only where its text changed.

    Once every document is read (the pages' titles are known), before any page is written:
    each page links the script with its checksum (``known_errors.js?v=...``), which Sphinx
    reads from the file, so a page written before it existed would link it without one, and
    differ from the same page rebuilt.
    """
    data = (
        "window.JAXPURITY_KNOWLEDGE = "
        + json.dumps(knowledge(language_of(app), page_titles(env)), indent=1, ensure_ascii=False)
        + ";\n"
    ).encode("utf-8")
    write_if_changed(Path(app.outdir) / "_static" / "known_errors.js", data)


class ExplainBox(Directive):
    """``.. explain-box::``: the paste box, here on the page."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        env = self.state.document.settings.env
        box_id = f"explain-box-{env.new_serialno('explain-box')}"
        lang = language_of(env.app)
        box = _BOX.format(
            id=box_id,
            name=say(lang, "Explain a JAX error"),
            label=say(lang, "Paste a JAX error (a whole traceback, or only a few lines of it):"),
            button=say(lang, "Explain this error"),
        )
        return [nodes.raw("", box, format="html")]


def has_box(doctree: nodes.document | None) -> bool:
    """Whether the page holds a paste box (``.. explain-box::``)."""
    return doctree is not None and any(
        'class="explain-box"' in node.astext()
        for node in doctree.findall(nodes.raw)
        if node.get("format") == "html"
    )


def load_scripts_where_a_box_is(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Link the box's scripts (``known_errors.js``: 110 KB) from the pages with a box only."""
    if has_box(doctree):
        app.add_js_file("known_errors.js")
        app.add_js_file("explain_box.js")  # after known_errors.js, which it reads


def _on_env_updated(app: Sphinx, env: BuildEnvironment) -> list[str]:
    if app.builder.format == "html":
        write_knowledge(app, env)
    return []


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("explain-box", ExplainBox)
    app.connect("env-updated", _on_env_updated)
    app.connect("html-page-context", load_scripts_where_a_box_is)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
