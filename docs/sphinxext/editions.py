"""The site's two editions, English and 简体中文, built from one source.

The Chinese edition is the same pages with their prose translated through
Sphinx's gettext machinery (the catalogs in ``locale/zh_CN/LC_MESSAGES/``,
one per page). This extension:

- keeps out of the catalogs what is not prose to translate: the API
  reference's docstrings, which stay in English in both editions, and the
  error index (``examples/error_index.rst.inc``), which ``error_index``
  writes in the edition's language from jaxpurity's own translations;
- holds the Chinese of the site's own interface text, which no page's prose
  holds (:data:`UI`): the JAX version banner, the paste box, the error index's
  labels, the names of scrolling code blocks;
- in the Chinese edition, gives the gallery's thumbnails (which sphinx-gallery
  writes as raw HTML, out of the catalogs' reach) the titles and intros of
  their pages' translations;
- in the Chinese edition, splits the Chinese words of a search query as the
  index holds them (``_static/chinese_search.js``), and loads jieba's dictionary
  for the index only when a page is indexed (:class:`ChineseSearch`);
- gives every page's template what the language switcher needs
  (``docs/_templates/sidebar/languages.html``): the other edition's copy of
  the same page, as a relative link, so that it works offline and on any
  static host.

The English edition is built into ``build/html/``, the Chinese one into
``build/html/zh_CN/`` (``tox -e docs`` builds both; the README says how to
update the catalogs).
"""

from __future__ import annotations

import html
import os
import posixpath
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.transforms import Transform
from sphinx.application import Sphinx
from sphinx.locale import init as init_locale
from sphinx.search import zh as sphinx_zh
from sphinx.util.i18n import docname_to_domain

from jaxpurity._languages import EDITIONS

#: The site's interface text in Chinese, by its English; ``{name}`` parts are filled in.
UI = {
    # version_banner
    "<strong>JAX {jax}</strong> (jaxlib {jaxlib}, on CPU) produced every error and output "
    "on this site, at build time.": "<strong>JAX {jax}</strong>（jaxlib {jaxlib}，CPU）"
    "在构建时生成了本站的每一条错误和输出。",
    # explain_box
    "Explain a JAX error": "解释一个 JAX 错误",
    "Paste a JAX error (a whole traceback, or only a few lines of it):": "粘贴一个 JAX 错误"
    "（整个 traceback，或其中几行）：",
    "Explain this error": "解释这个错误",
    # (its answer's labels and "not recognised" sentence are explain's own, from its catalog)
    "The {index} lists every error this site shows, with the page that explains each.": (
        "{index}列出了本站展示的每一种错误，以及讲解它的页面。"
    ),
    "error index": "错误索引",
    "The knowledge of jaxpurity.explain did not load.": "jaxpurity.explain 的知识库没有加载。",
    "Paste an error first.": "请先粘贴一个错误。",
    # error_index
    "Errors from JAX": "来自 JAX 的错误",
    "Errors from jaxpurity": "来自 jaxpurity 的错误",
    "The parts of a message that change from one call to the next are shown as placeholders:": (
        "错误信息中每次调用都会变化的部分，以占位符显示："
    ),
    "{shown} for {example}": "{shown} 代表 {example}",
    "Raised as {name}; {count} kind of message.": "以 {name} 抛出；共 {count} 种信息。",
    "Raised as {name}; {count} kinds of message.": "以 {name} 抛出；共 {count} 种信息。",
    "**JAX {version}:** raises no such error on these pages": (
        "**JAX {version}：** 在这些页面上不抛出这种错误"
    ),
    "**Explained on:** no page; {explain} does not know it.": (
        "**讲解页面：** 没有；{explain} 不认识它。"
    ),
    "**Explained on:** {page}": "**讲解页面：** {page}",
    "**Explained on**, by what the code did:": "**讲解页面**，按代码所做的事区分：",
    "**Shown on:** {pages}": "**出现页面：** {pages}",
    "**Raised on JAX {versions} by the code of:** {pages}": (
        "**在 JAX {versions} 上由这些页面的代码抛出：** {pages}"
    ),
    # searched_for
    "You may have searched for:": "你可能搜索过：",
    # accessibility
    "Code block {number}, scrolls": "代码块 {number}，可滚动",
    # colab
    "Open in Colab": "在 Colab 中打开",
    # used_on
    "Used on these pages:": "用到它的页面：",
    # ran_on
    "{backend} ({device}), JAX {jax}, Python {python}: {pages} pages passed; "
    "{passed} tests passed, {failed} failed; {date}. {note}": (
        "{backend}（{device}），JAX {jax}，Python {python}：通过的页面 {pages}；"
        "通过的测试 {passed}，失败 {failed}；{date}。{note}"
    ),
}


def from_catalog(app: Sphinx, text: str) -> str:
    """``text`` as the catalog of the document being read translates it (itself in English).

    For text an extension puts into a page after Sphinx has translated it.
    """
    if language_of(app) == "en":
        return text
    domain = docname_to_domain(app.env.docname, app.config.gettext_compact)
    dirs = [os.path.join(app.srcdir, directory) for directory in app.config.locale_dirs]
    catalog, _ = init_locale(dirs, app.config.language, domain)
    return catalog.gettext(text)


def say(language: str, text: str, **parts: str) -> str:
    """The interface ``text`` in ``language``, its ``{name}`` parts filled in."""
    return (text if language == "en" else UI[text]).format(**parts)


_NOT_PROSE = (":docstring of ", "error_index.rst.inc")


def language_of(app: Sphinx) -> str:
    """The edition being built: ``"en"`` or ``"zh_CN"``."""
    language = app.config.language or "en"
    if language not in EDITIONS:
        raise ValueError(f"language {language!r}: the site has editions {sorted(EDITIONS)} only")
    return language


class KeepOutOfCatalogs(Transform):
    """Mark the docstrings and the generated error index as not to be translated."""

    # Before sphinx.transforms.i18n.Locale (20), which translates, and before the
    # gettext builder collects the messages.
    default_priority = 5

    def apply(self, **kwargs: Any) -> None:
        for node in self.document.findall(nodes.TextElement):
            if any(part in (node.source or "") for part in _NOT_PROSE):
                node["translatable"] = False


def _other_editions(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    here = language_of(app)
    up = "../" * EDITIONS[here].folder.count("/")  # from this edition's root to the English one
    context["editions"] = [
        {
            "language": language,
            "lang": language.replace("_", "-"),
            "name": edition.name,
            "href": context["pathto"](f"{up}{edition.folder}{pagename}.html", 1),
        }
        for language, edition in EDITIONS.items()
        if language != here
    ]


# One thumbnail of sphinx-gallery's: its tooltip (the page's intro), the link to the page, and
# the title shown under the image.
_THUMBNAIL = re.compile(
    r'(?P<start><div class="sphx-glr-thumbcontainer" tooltip=")(?P<tooltip>[^"]*)(?P<middle>".*?'
    r'<a class="reference internal" href="(?P<href>[^"#]*)[^"]*".*?'
    r'<div class="sphx-glr-thumbnail-title">)(?P<title>.*?)(?=</div>)',
    re.DOTALL,
)


def _intro(app: Sphinx, docname: str) -> str:
    """The first paragraph of a gallery page as the edition reads it, as plain text."""
    section = app.env.get_doctree(docname).next_node(nodes.section)
    paragraph = section.next_node(nodes.paragraph) if section else None
    return " ".join(paragraph.astext().split()) if paragraph else ""


def _translate_thumbnails(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if language_of(app) == "en" or "sphx-glr-thumbcontainer" not in context.get("body", ""):
        return

    def translated(match: re.Match[str]) -> str:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(pagename), match["href"]))
        docname = target.removesuffix(".html")
        if docname not in app.env.titles:
            return match[0]
        title = app.env.titles[docname].astext()
        tooltip = html.escape(_intro(app, docname), quote=True)
        return f"{match['start']}{tooltip}{match['middle']}{html.escape(title)}"

    context["body"] = _THUMBNAIL.sub(translated, context["body"])


class ChineseSearch(sphinx_zh.SearchChinese):
    """Sphinx's Chinese search, which loads jieba's dictionary when it first splits a text.

    Sphinx 9 loads one (jieba's own, ``jieba.load_userdict``, 349,000 words) as its search
    index starts, even when the build indexes no page: two thirds of an unchanged rebuild
    of the Chinese edition. Sphinx 8 loads only one that ``html_search_options["dict"]``
    names, in the same way. The index holds the same words, since the same dictionary is
    loaded once before the first page is split.
    """

    def __init__(self, options: dict[str, str]) -> None:
        # Sphinx 9 names jieba's own dictionary when none is given (empty without jieba).
        self._dictionary = options.get("dict", getattr(sphinx_zh, "JIEBA_DEFAULT_DICT", ""))
        super().__init__({**options, "dict": ""})

    def split(self, input: str) -> list[str]:
        if self._dictionary:
            dictionary, self._dictionary = self._dictionary, ""
            if Path(dictionary).is_file():
                _load_jieba_dictionary(dictionary)
        return super().split(input)


def _load_jieba_dictionary(path: str) -> None:
    """``jieba.load_userdict(path)``, where jieba is installed (Sphinx searches without it)."""
    try:
        import jieba
    except ImportError:
        return
    jieba.load_userdict(path)


def _add_chinese_search(app: Sphinx) -> None:
    if language_of(app) == "zh_CN":
        app.add_js_file("chinese_search.js")


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_transform(KeepOutOfCatalogs)
    app.add_search_language(ChineseSearch)
    app.connect("builder-inited", _add_chinese_search)
    app.connect("html-page-context", _other_editions)
    app.connect("html-page-context", _translate_thumbnails)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
