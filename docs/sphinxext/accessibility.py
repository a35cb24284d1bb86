"""Fixes to the theme that a keyboard, a screen reader and a phone need; axe-core checks them.

The templates in ``docs/_templates`` name the landmarks that furo leaves unnamed and give the
search page its heading; ``docs/_static/a11y.css`` names the gallery cards and shows focus.
A code block wider than its box scrolls sideways, and a keyboard can scroll it only if it takes
the focus: this extension makes each code block that scrolls on a phone a Tab stop in the HTML
it writes, so that this holds without JavaScript, and ``docs/_static/a11y.js`` then fits the
Tab stops to the window's real width. The site's own layout (captured output and doctests that
wrap, the banner that wraps) is in ``jaxpurity.css``. ``tests/e2e/test_accessibility.py`` runs
axe-core on every page, at a desktop and a phone width, with and without ``a11y.js``.
"""

from __future__ import annotations

import html
import itertools
import re
from pathlib import Path
from typing import Any

from editions import language_of, say
from sphinx.application import Sphinx
from sphinx.config import Config

TEMPLATES = Path(__file__).resolve().parents[1] / "_templates"

# A line of code longer than this scrolls on a phone: a 390 px wide phone shows 43 characters of
# furo's code font in a code block, and 40 leaves room for wider fonts.
PHONE_COLUMNS = 40
# Blocks that wrap instead of scrolling (jaxpurity.css): captured output, and doctests.
WRAPPED_CLASSES = ("sphx-glr-script-out", "doctest")
# What a11y.js sets on a block that scrolls and removes from one that does not; the two agree.
# Each region needs a name of its own (axe-core's landmark-unique), so the name holds the
# block's number among the page's highlighted blocks, counted alike by both.
SCROLLS = 'tabindex="0" role="region" aria-label="{name}" data-a11y-scrolls'
# One code block as Pygments writes it: up to the end of its <pre> tag, the class of the <div>
# around it, and its contents.
CODE_BLOCK = re.compile(
    r'(?P<start><div class="(?P<outer>[^"]*)"><div class="highlight"><pre)>(?P<code>.*?)</pre>',
    re.S,
)
TAG = re.compile(r"<[^>]*>")
LINK = re.compile(r"<a\s[^>]*\bhref=")


def longest_line(code_html: str) -> int:
    """The number of characters in the longest line of a block of highlighted code."""
    text = html.unescape(TAG.sub("", code_html))
    return max((len(line) for line in text.expandtabs().splitlines()), default=0)


def mark_scrolling_code(body: str, lang: str = "en") -> str:
    """``body`` with each code block that scrolls on a phone made a named Tab stop.

    A block that wraps, or that holds a link (which a keyboard reaches and scrolls to), is left
    as it is, as a11y.js leaves it.
    """

    numbers = itertools.count(1)

    def mark(block: re.Match[str]) -> str:
        number = next(numbers)
        wrapped = any(name in block["outer"].split() for name in WRAPPED_CLASSES)
        if wrapped or LINK.search(block["code"]) or longest_line(block["code"]) <= PHONE_COLUMNS:
            return block[0]
        name = say(lang, "Code block {number}, scrolls", number=str(number))
        return f"{block['start']} {SCROLLS.format(name=name)}>{block['code']}</pre>"

    return CODE_BLOCK.sub(mark, body)


def add_templates(app: Sphinx, config: Config) -> None:
    """Put ``docs/_templates`` first, so that its pages extend furo's."""
    if str(TEMPLATES) not in config.templates_path:
        config.templates_path.insert(0, str(TEMPLATES))


def mark_page(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if "body" in context:
        context["body"] = mark_scrolling_code(context["body"], language_of(app))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", add_templates)
    app.connect("html-page-context", mark_page)
    # After sphinx-gallery's stylesheet (priority 500), whose rules a11y.css overrides.
    app.add_css_file("a11y.css", priority=600)
    app.add_js_file("a11y.js", defer="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
