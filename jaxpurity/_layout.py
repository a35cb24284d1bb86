"""How a text is laid out in each language: its colon, brackets and lists, and its wrapping.

English puts a space after a colon and before a bracket, and joins a list with
", " and "and". Chinese uses full-width marks with no space around them (错误：,
（ValueError）), joins a list with 、 and 以及, and has no spaces to break a
line at: a line may break between two Chinese characters, but never inside a
run of ASCII (an identifier, a URL, a path), and a Chinese character is two
columns wide in a terminal. :func:`jaxpurity.explain` and the site's paste box
both lay out their text with these.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Sequence

__all__ = ["bracketed", "colon", "join", "sentences", "width", "wrap"]

# What a line may not start with (it closes what is before it), and may not end with.
_CLOSING = set("，。、；：！？）」』》】”’…%,.;:!?)]}")
_OPENING = set("（「『《【“‘([{")


def colon(lang: str) -> str:
    """What follows a label: ``": "`` in English, ``"："`` (full width, no space) in Chinese.

    Example:
      >>> "Error" + colon("en") + "TypeError", "错误" + colon("zh_CN") + "TypeError"
      ('Error: TypeError', '错误：TypeError')
    """
    return ": " if lang == "en" else "："


def bracketed(text: str, lang: str) -> str:
    """``text`` in brackets, to follow a word: `` (text)`` in English, ``（text）`` in Chinese.

    Example:
      >>> "error" + bracketed("ValueError", "en"), "错误" + bracketed("ValueError", "zh_CN")
      ('error (ValueError)', '错误（ValueError）')
    """
    return f" ({text})" if lang == "en" else f"（{text}）"


def join(items: Sequence[str], lang: str) -> str:
    """The items as a list in a sentence: ``a, b and c``, or ``a、b 以及 c`` in Chinese.

    Example:
      >>> join(["TypeError", "ValueError", "KeyError"], "en")
      'TypeError, ValueError and KeyError'
      >>> join(["TypeError", "ValueError", "KeyError"], "zh_CN")
      'TypeError、ValueError 以及 KeyError'
    """
    if len(items) < 2:
        return "".join(items)
    if lang == "en":
        return f"{', '.join(items[:-1])} and {items[-1]}"
    return f"{'、'.join(items[:-1])} 以及 {items[-1]}"


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in "WF"


def sentences(texts: Sequence[str], lang: str) -> str:
    """The sentences as one text: a space between them in English, none in Chinese.

    Example:
      >>> sentences(["It failed.", "Read on."], "en"), sentences(["失败了。", "读下去。"], "zh_CN")
      ('It failed. Read on.', '失败了。读下去。')
    """
    return (" " if lang == "en" else "").join(texts)


def width(text: str) -> int:
    """The columns ``text`` takes in a terminal: two for a wide (Chinese) character.

    Example:
      >>> width("jit"), width("追踪"), width("错误：TypeError")
      (3, 4, 15)
    """
    return sum(2 if _wide(c) else 1 for c in text)


def _pieces(text: str) -> list[str]:
    """Runs of whitespace, runs of narrow characters (a word, an identifier, a URL), and
    wide characters (Chinese ones, full-width marks), one each."""
    pieces: list[str] = []
    for kind, run in itertools.groupby(text, lambda c: "space" if c.isspace() else _wide(c)):
        chars = list(run)
        pieces += chars if kind is True else ["".join(chars)]
    return pieces


def _units(text: str) -> list[tuple[str, bool]]:
    """The pieces a line may break between, each with whether a space came before it.

    A closing mark stays with the piece before it, an opening one with the piece after.
    """
    units: list[tuple[str, bool]] = []
    spaced = opening = False
    for piece in _pieces(text):
        if piece.isspace():
            spaced = bool(units)
            opening = False
            continue
        if units and not spaced and (opening or piece[0] in _CLOSING):
            units[-1] = (units[-1][0] + piece, units[-1][1])
        else:
            units.append((piece, spaced))
        spaced = False
        opening = piece[-1] in _OPENING
    return units


def wrap(text: str, columns: int, indent: str = "  ") -> str:
    """``text`` in lines of at most ``columns`` columns, the lines after the first indented.

    A line breaks at a space, or between two Chinese characters, never inside a run
    of ASCII: a piece longer than a line (a URL) has a line of its own, whole.

    Example:
      >>> print(wrap("错误：用 static_argnames= 标记它，详见 https://example.com/a/b", 30))
      错误：用 static_argnames= 标记
        它，详见
        https://example.com/a/b
    """
    lines: list[str] = []
    line = ""
    for piece, spaced in _units(text):
        joined = f"{line} {piece}" if spaced and line.strip() else line + piece
        if line.strip() and width(joined) > columns:
            lines.append(line)
            line = indent + piece
        else:
            line = joined
    lines.append(line)
    return "\n".join(lines)
