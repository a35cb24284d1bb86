"""The Chinese edition's catalogs: every message translated, none fuzzy, the markup kept.

The catalogs (``locale/zh_CN/LC_MESSAGES/``, one per page) hold the prose of
the site; code, outputs and JAX's messages are not in them. A translation is
reST too, so it must keep what the reader searches for or follows: every
``inline literal``, the target of every role (``:func:`jaxpurity.explain```)
and the address of every link. Inline markup also needs a space or a
punctuation mark around it, which Chinese text does not have between words:
``使用``jax.jit``时`` would show its backquotes, and so would ``f``（. Whether the catalogs hold
every message of the current English pages is checked on the built site
(``tests/e2e/test_chinese_edition.py``): a message missing from them stays
English there.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

LOCALE = Path(__file__).resolve().parents[1] / "locale" / "zh_CN" / "LC_MESSAGES"
CATALOGS = sorted(LOCALE.rglob("*.po"))

# ``literal``, :role:`target` or :role:`text <target>`, `text <address>`_.
_LITERAL = re.compile(r"``.+?``")
_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`(?:[^`<]*<)?([^`<>]+)>?`")
_LINK = re.compile(r"`[^`<]*<([^`>]+)>`__?")
# A whole piece of inline markup: a literal, a role, strong emphasis, emphasis, a link.
_MARKUP = re.compile(
    r"``.+?``|:[a-z]+(?::[a-z]+)?:`[^`]+`|\*\*[^*]+\*\*|\*[^*\s][^*]*\*|`[^`]+`_{0,2}"
)


def _kept(text: str) -> Counter[str]:
    """What a translation must keep: the literals, role targets and link addresses."""
    return Counter(
        [*_LITERAL.findall(text), *_ROLE.findall(_LITERAL.sub("", text)), *_LINK.findall(text)]
    )


# reST's rule: inline markup starts after whitespace or one of these, and ends before
# whitespace or one of those (docutils, "Inline markup recognition rules"). Chinese
# characters are neither, and neither is an opening bracket after markup, "``f``（".
_BEFORE_START = set("-:/'\"<([{") | {"Pd", "Po", "Ps", "Pi", "Pf"}
_AFTER_END = set("-.,:;!?\\/'\")]}>") | {"Pd", "Po", "Pe", "Pi", "Pf"}


def _separates(char: str, allowed: set[str]) -> bool:
    return char.isspace() or char in allowed or unicodedata.category(char) in allowed


def _glued(text: str) -> list[str]:
    """The places where inline markup touches a character that keeps reST from seeing it."""
    places = []
    for m in _MARKUP.finditer(text):
        before = text[m.start() - 1] if m.start() else " "
        after = text[m.end()] if m.end() < len(text) else " "
        if not (_separates(before, _BEFORE_START) and _separates(after, _AFTER_END)):
            places.append(text[max(0, m.start() - 2) : m.end() + 1])
    return places


# Full-width brackets. reST needs a separator between inline markup and "（" after it (or "）"
# before it); a space shows on the page, reST's escaped space "\\ " does not.
_FULL_WIDTH_OPEN = "（【「《“"
_FULL_WIDTH_CLOSE = "）】」》”"


def _spaced(text: str) -> list[str]:
    """The places where a space that the page shows stands between inline markup and a
    full-width bracket: ``f`` （, or ） ``f``."""
    places = []
    for m in _MARKUP.finditer(text):
        after = text[m.end() : m.end() + 2]
        before = text[max(0, m.start() - 2) : m.start()]
        if (len(after) == 2 and after[0] == " " and after[1] in _FULL_WIDTH_OPEN) or (
            len(before) == 2 and before[1] == " " and before[0] in _FULL_WIDTH_CLOSE
        ):
            places.append(text[max(0, m.start() - 2) : m.end() + 2])
    return places


def _messages(path: Path) -> list:
    with path.open("rb") as file:
        return [m for m in read_po(file) if m.id]


def test_there_is_a_catalog_for_every_page():
    pages = {p.relative_to(LOCALE).with_suffix("").as_posix() for p in CATALOGS}
    assert {"index", "about", "api", "errors", "glossary", "examples/index"} <= pages
    gallery = Path(__file__).resolve().parents[1] / "gallery"
    scripts = {f"examples/{p.parent.name}/{p.stem}" for p in gallery.glob("*/*.py")}
    assert scripts <= pages, sorted(scripts - pages)


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.relative_to(LOCALE).as_posix())
def test_every_message_is_translated_and_none_is_fuzzy(path):
    messages = _messages(path)
    assert messages
    untranslated = [m.id for m in messages if not m.string]
    fuzzy = [m.id for m in messages if m.fuzzy]
    assert not untranslated, f"{len(untranslated)} untranslated, first: {untranslated[0]!r}"
    assert not fuzzy, f"{len(fuzzy)} fuzzy, first: {fuzzy[0]!r}"


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.relative_to(LOCALE).as_posix())
def test_every_translation_keeps_the_literals_roles_and_links(path):
    changed = [
        (m.id, sorted((_kept(m.id) - _kept(m.string)).elements()))
        for m in _messages(path)
        if m.string and _kept(m.id) - _kept(m.string)
    ]
    assert not changed, f"{len(changed)} lost markup, first: {changed[0]}"


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.relative_to(LOCALE).as_posix())
def test_no_inline_markup_is_glued_to_the_text_around_it(path):
    glued = [(m.string, _glued(m.string)) for m in _messages(path) if _glued(m.string)]
    assert not glued, f"{len(glued)} messages, first: {glued[0]}"


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.relative_to(LOCALE).as_posix())
def test_no_space_shows_between_inline_markup_and_a_full_width_bracket(path):
    spaced = [(m.string, _spaced(m.string)) for m in _messages(path) if _spaced(m.string)]
    assert not spaced, f"{len(spaced)} messages, first: {spaced[0]} (write \\ for the space)"


def test_the_checks_see_lost_and_glued_markup():
    english = "Use :func:`jax.jit` on ``f``, as `the docs <https://docs.jax.dev/>`_ say."
    assert _kept(english) == Counter(["``f``", "jax.jit", "https://docs.jax.dev/"])
    assert not _kept(english) - _kept(
        "对 ``f`` 使用 :func:`jax.jit`，见 `文档 <https://docs.jax.dev/>`_。"
    )
    assert _kept(english) - _kept("对 f 使用 :func:`jax.jit`。") == Counter(
        ["``f``", "https://docs.jax.dev/"]
    )
    assert _glued("使用``jax.jit``时") == ["使用``jax.jit``时"]
    assert _glued("对 ``f`` 使用 :func:`jax.jit`，**注意**。") == []
    assert _glued("见:doc:`/errors`") == ["见:doc:`/errors`"]
    assert _glued("用 ``f``（或 ``g``）") == ["用 ``f``（"]
    assert _glued("（见 ``f``）") == []
    assert _glued("把 key *拆分*（split）") == ["y *拆分*（"]
    assert _glued("见 `文档 <https://docs.jax.dev/>`_。") == []
    assert _spaced("用 ``f`` （或 ``g``）") == ["用 ``f`` （"]
    assert _spaced("（重新追踪） ``f`` 时") == ["） ``f`` 时"]
    assert _spaced("用 ``f``\\ （或 ``g``）\\ ``h``") == []
    assert not _glued("用 ``f``\\ （或 ``g``）\\ ``h``")


# The story beats that section titles share across the gallery (house style: the code people
# write, what JAX does, why, the fix, the fix with jaxpurity).
_STORY_BEATS = ("The code people write", "What JAX does", "Why", "The fix", "With jaxpurity")


def test_the_shared_section_titles_read_the_same_on_every_page():
    said: dict[str, set[str]] = {beat: set() for beat in _STORY_BEATS}
    for path in CATALOGS:
        for m in _messages(path):
            beat, colon, _ = m.id.partition(": ")
            if beat in said and (colon or m.id == beat) and len(m.id) < 80:
                said[beat].add(m.string.partition("：")[0])
    assert all(said.values()), said
    assert {beat: heads for beat, heads in said.items() if len(heads) > 1} == {}


def test_each_index_entry_reads_as_its_pages_title():
    # sphinx-gallery lists a page as "Title (Error)", in the section's index, the gallery's
    # and the API's; its Chinese must be the page title's, as in English.
    titles = {}
    for path in (LOCALE / "examples").glob("*/*.po"):
        if path.name != "index.po":
            title = next(m for m in _messages(path) if not m.id.startswith(":ref:"))
            titles[title.id.replace("``", "")] = title.string.replace("``", "")
    entries = [
        (m.string, f"{titles[found[1]]}（{found[2]}）")
        for path in [LOCALE / "api.po", *(LOCALE / "examples").rglob("index.po")]
        for m in _messages(path)
        if (found := re.fullmatch(r"(.*) \((\w+)\)", m.id)) and found[1] in titles
    ]
    assert len(entries) >= len(titles)
    assert [(said, title) for said, title in entries if said != title] == []
    # A title that names its error itself shows it twice there: "...（TypeError）（TypeError）".
    assert [said for said, _ in entries if re.search(r"（(\w+)）（\1）", said)] == []
