"""Read an error as people paste it: a traceback, a fragment, a notebook's output, a CI log.

Pasted text arrives with ANSI colours, CRLF line ends, IPython's and pytest's
decorations, JAX's ``FilteredStackTrace:`` prefixes, lines wrapped by a
terminal or by Rich, chained tracebacks, and class names in the middle of a
line. :func:`read_error` turns an exception or such text into
:class:`ErrorBlock` s, one per error of a chain, the raised one first, each
with its class names, its text with whitespace collapsed, and its text with
no whitespace at all (so that a phrase split by any wrapping is still found).

Everything here runs in time linear in the input: no regular expression can
backtrack over a long run of one character.
"""

from __future__ import annotations

import linecache
import re
import sys
import types
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ErrorBlock", "Frame", "is_jax_machinery", "read_error", "squeeze"]

# A frame of a traceback: the file, the function's name, and its first line (None when
# read from printed text, which shows the line running instead).
Frame = tuple[str, str, "int | None"]

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
# What tools put in front of each line, with the indentation before it: pytest's "E   ", a
# comment's "# ", a quote's "> ", Rich's box borders; and Rich's border at the end of a line,
# with the blanks after it. Neither can run past its line, and a prefix starts with no blank,
# so the blanks before one are read once: each pass over the text is linear in it.
_LINE_PREFIX = re.compile(r"^[ \t]*(?:E[ \t]+|#+[ \t]?|>[ \t]?|[│┃║|][ \t]?)", re.M)
_LINE_BORDER = re.compile(r"[│┃║][ \t]*$", re.M)
# The lines that separate the errors of a chain, and start a traceback.
# Not an error: on Python 3.10 JAX chains this note, that it hid its own frames, as the cause
# of the error it raises (Python 3.11+ gets an exception note instead).
# Whitespace before it, but not a newline: from each line start, "\s*" ran on over every blank
# line after it, so a traceback followed by n blank lines cost n * n steps (20,000: 14 s).
_JAX_FRAMES_NOTE = "SimplifiedTraceback"
_JAX_FRAMES_NOTE_LINE = re.compile(rf"^[^\S\n]*(?:jax\.errors\.)?{_JAX_FRAMES_NOTE}:", re.M)

_CHAIN = re.compile(
    r"The above exception was the direct cause of the following exception:"
    r"|During handling of the above exception, another exception occurred:"
    r"|Traceback \(most recent call last\)"
)
# A class name where an error is named: "Name:" or "Name" at the end of a line (a Python
# traceback, pytest, JAX's "FilteredStackTrace: jax.core.Name: ..."), possibly qualified.
# Only names that end in Error or Exception count (checked after the match).
# Found from the end of the name (a fast search for its fixed suffix), then read back.
_NAME_END = re.compile(r"(?:Error|Exception)(?=:|[ \t]*$)", re.M)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")
# IPython's and Jupyter's header line: "NameError        Traceback (most recent call last)".
_IPYTHON_HEADER = re.compile(r"[ \t]*([A-Z]\w{0,99})[ \t]+Traceback \(most recent call last\)")
# JAX's own names anywhere in a line (jax.errors.Name, jax._src.errors.Name, jax.core.Name),
# and its documentation links (errors.html#jax.errors.Name).
_JAX_NAME = re.compile(r"jax(?:\._src)?\.(?:errors|core)\.([A-Z]\w{0,99})")
# JAX's own error classes (jax.errors): named anywhere, even in a sentence or in backticks
# ("crash with `TracerBoolConversionError`"), they can only mean that error.
_JAX_ERROR_WORD = re.compile(
    r"\b(ConcretizationTypeError|Tracer(?:Array|Bool|Integer)ConversionError"
    r"|UnexpectedTracerError|NonConcreteBooleanIndexError|KeyReuseError)\b"
)
# The files of JAX's error machinery: the frames where a conversion of a tracer raises
# (core.py's __bool__, error, concrete_or_error), not the code that asked for it.
_JAX_MACHINERY = re.compile(
    r"(?:^|[/\\])jax[/\\](?:_src[/\\])?(?:core|errors|traceback_util|source_info_util)\.py$"
)
# A frame line printed by Python: File "path", line 12, in name; and the source line under it.
_FRAME = re.compile(
    r'^[ \t]*File "([^"\n]{1,1000})", line \d+, in (\S{1,200})[ \t]*(?:\n([ \t]+\S[^\n]{0,1000}))?',
    re.M,
)

# A frame as IPython and Jupyter print it: "path in function(args)" (IPython 7 and older;
# "<ipython-input-3-...> in <module>", once "in <module>()"), or "File path:12, in
# function(args)" (IPython 8, where a notebook may make the path a link: "File
# [~/x.py:12](http://...), in f(x)"); the line that ran is the one under it marked "-->"
# or "---->" with its number.
_IPYTHON_FRAME = re.compile(
    r"^(?:File \[?(?P<path8>[^\n\]]{1,1000}?):\d{1,7}\]?(?:\([^)\n]{0,1000}\))?, in "
    r"(?P<name8>[\w.<>]{1,200})\("
    r"|(?P<path>(?:[A-Za-z]:)?[/\\~<][^\n]{0,999}?) in (?P<name>[\w.<>]{1,200})(?:\(|$))",
    re.M,
)
_IPYTHON_RAN = re.compile(r"^-{1,8}> ?\d{1,7} ?([^\n]{0,1000})", re.M)


def squeeze(text: str) -> str:
    """``text`` with every whitespace character removed: wrapping cannot split a phrase.

    Example:
      >>> squeeze("Abstract tracer value\\n   encountered")
      'Abstracttracervalueencountered'
    """
    return "".join(text.split())


@dataclass(frozen=True)
class ErrorBlock:
    """One error of a chain, as found in an exception or in pasted text.

    Attributes:
      names: The class names the error goes by, the most specific first: its
        classes for an exception; for text, the names found where an error
        is named ("Name: message"), last one first, then JAX's qualified
        names anywhere (``jax.errors.Name``, and its ``errors.html#jax.errors.Name``
        links).
      text: The error's text (the message, and for pasted text the whole
        block), whitespace collapsed to single spaces.
      squeezed: ``text`` with no whitespace at all.
      frames: The traceback's frames, or None when no traceback is known.
      code: The source lines the traceback shows under its frames (for an
        exception, read from its files), the ones it shows at all.
      raised: The code that raised it: the innermost frame outside JAX's error
        machinery, as ``"path in function"``, with the source line it ran on a
        second line where known; None when no traceback is known.
    """

    names: tuple[str, ...]
    text: str
    squeezed: str
    frames: tuple[Frame, ...] | None
    code: tuple[str, ...] = ()
    raised: str | None = None
    _found: dict[str, bool] = field(default_factory=dict, compare=False, repr=False)

    def contains(self, words: str) -> bool:
        """Whether ``squeezed`` contains ``words``: each search of a long text is made once.

        Example:
          >>> ErrorBlock.of([], "Abstract tracer value", None).contains("tracervalue")
          True
        """
        found = self._found.get(words)
        if found is None:
            found = self._found[words] = words in self.squeezed
        return found

    @classmethod
    def of(
        cls,
        names: list[str],
        text: str,
        frames: list[Frame] | None,
        code: list[str] | None = None,
        raised: str | None = None,
    ) -> ErrorBlock:
        unique = tuple(dict.fromkeys(names))
        spaced = " ".join(text.split())
        found = None if frames is None else tuple(frames)
        return cls(unique, spaced, squeeze(spaced), found, tuple(code or ()), raised)


def is_jax_machinery(path: str) -> bool:
    """Whether ``path`` is a file of JAX's error machinery, where a conversion of a tracer raises.

    Example:
      >>> is_jax_machinery("/venv/jax/_src/core.py"), is_jax_machinery("/venv/jax/_src/api.py")
      (True, False)
    """
    return _JAX_MACHINERY.search(path) is not None


def _raising(lines: list[tuple[str, str, str]]) -> str | None:
    """The innermost of ``(path, function, source line)`` outside JAX's error machinery.

    Example:
      >>> _raising([("train.py", "step", "n = int(k)"), ("/jax/_src/core.py", "error", "")])
      'train.py in step\\nn = int(k)'
    """
    for path, function, line in reversed(lines):
        if not is_jax_machinery(path):
            return f"{path} in {function}" + (f"\n{line}" if line else "")
    return None


def _clean(text: str) -> str:
    """Pasted text without colour codes, CR line ends and the tools' line decorations.

    Each line loses a tool's prefix (and the indentation before it), then Rich's
    border at its end; two passes over the whole text, not a call for each line,
    which made a log of millions of short lines slow.

    Example:
      >>> _clean("E   x = 1\\r\\n│ y = 2    │  \\n  # z")
      'x = 1\\ny = 2    \\nz'
    """
    text = _ANSI.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    return _LINE_BORDER.sub("", _LINE_PREFIX.sub("", text))


def _class_names(block: str) -> list[str]:
    """The class names where the block names an error ("Name:"), in order.

    A name may be qualified (``jax.errors.Name``); each is read back from its
    end over at most 200 characters, so the work is linear in the block.
    """
    names = []
    for end in _NAME_END.finditer(block):
        start, limit = end.start(), max(0, end.start() - 200)
        while start > limit and block[start - 1] in _NAME_CHARS:
            start -= 1
        name = block[start : end.end()].rsplit(".", 1)[-1]
        if name[:1].isupper() and (start == 0 or block[start - 1] not in _NAME_CHARS):
            names.append(name)
    return names


def _text_block(block: str, *, traceback: bool) -> ErrorBlock:
    header = _IPYTHON_HEADER.match(block)
    named = [header.group(1)] if header is not None else []
    named += reversed(_class_names(block))
    named += _JAX_NAME.findall(block)
    named += _JAX_ERROR_WORD.findall(block)
    named = [n for n in named if n.endswith(("Error", "Exception"))]
    frames: list[Frame] | None = None
    code: list[str] = []
    raised = None
    if traceback:
        lines = _frames(block) or _ipython_frames(block)
        frames = [(path, function, None) for path, function, _ in lines]
        code = [line for _, _, line in lines if line]
        raised = _raising(lines)
    return ErrorBlock.of(named, block, frames, code, raised)


def _frames(block: str) -> list[tuple[str, str, str]]:
    """The frames of a Python traceback: ``(path, function, the line that ran or "")``."""
    return [(m[1], m[2], (m[3] or "").strip()) for m in _FRAME.finditer(block)]


def _ipython_frames(block: str) -> list[tuple[str, str, str]]:
    """The frames of an IPython or Jupyter traceback, each with the line marked as run.

    Example:
      >>> [(path, function, ran)] = _ipython_frames(
      ...     "/venv/jax/_src/numpy/lax_numpy.py in nonzero(a, size)\\n"
      ...     "   4120   mask = a != 0\\n"
      ...     "-> 4121   size = int(mask.sum())\\n"
      ... )
      >>> function, ran
      ('nonzero', 'size = int(mask.sum())')
    """
    headers = list(_IPYTHON_FRAME.finditer(block))
    ran = list(_IPYTHON_RAN.finditer(block))
    lines, r = [], 0
    for i, header in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(block)
        while r < len(ran) and ran[r].start() < header.end():
            r += 1
        line = ran[r][1].strip() if r < len(ran) and ran[r].start() < end else ""
        path, function = header["path8"] or header["path"], header["name8"] or header["name"]
        # IPython 8 qualifies the name (Tracer.__bool__, f.<locals>.<lambda>); Python's
        # tracebacks, and JAX's messages, name the function alone.
        lines.append((path, function.rsplit(".", 1)[-1], line))
    return lines


def _exception_frames(
    tb: types.TracebackType | None,
) -> tuple[list[Frame] | None, list[str], str | None]:
    """An exception's frames, the source lines they ran, and the code that raised it.

    As a printed traceback shows them (see :attr:`ErrorBlock.code` and
    :attr:`ErrorBlock.raised`); no frames (None) without a traceback.
    """
    if tb is None:
        return None, [], None
    frames: list[Frame] = []
    ran: list[str] = []
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append((code.co_filename, code.co_name, code.co_firstlineno))
        ran.append(linecache.getline(code.co_filename, tb.tb_lineno).strip())
        tb = tb.tb_next
    lines = [(path, function, line) for (path, function, _), line in zip(frames, ran, strict=True)]
    return frames, [line for line in ran if line], _raising(lines)


def _stack_frames() -> list[Frame]:
    """The frames running now, outermost first, as a traceback lists them."""
    frames: list[Frame] = []
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        frames.append((code.co_filename, code.co_name, code.co_firstlineno))
        frame = frame.f_back
    return frames[::-1]


def _attribute(error: BaseException, name: str) -> Any:
    """``error.name`` as Python's traceback reads it, without the class's own
    ``__getattribute__`` or ``__getattr__``; None where it is missing or reading it raises."""
    try:
        return object.__getattribute__(error, name)
    except Exception:  # noqa: BLE001 - a hostile exception must not break explain
        return None


def _message(error: BaseException) -> str:
    """``str(error)`` and its notes; never an error, even where ``__str__`` raises."""
    try:
        message = str(error)
    except Exception:  # noqa: BLE001 - a broken __str__ must not break explain
        message = ""
    notes = _attribute(error, "__notes__")
    if isinstance(notes, (list, tuple)):
        message = "\n".join([message, *(n for n in notes if isinstance(n, str))])
    return message


def read_error(error: BaseException | str) -> list[ErrorBlock]:
    """``error`` and the errors it was raised from or during, the raised one first.

    For an exception the chain is ``__cause__`` (or ``__context__`` unless
    suppressed); an exception that has not been raised yet (no traceback) gets
    the frames of the code that is making it. For text, each traceback and
    each "The above exception..." line starts another error, and the last one
    in the text is the raised one.

    Example:
      >>> text = '''Traceback (most recent call last):
      ...   File "train.py", line 3, in <module>
      ... \\x1b[31mjax.errors.TracerBoolConversionError\\x1b[0m: Attempted boolean
      ... conversion of traced array'''
      >>> [block] = read_error(text)
      >>> block.names, block.frames
      (('TracerBoolConversionError',), (('train.py', '<module>', None),))
    """
    if isinstance(error, str):
        # The text itself, as a plain str: a subclass's own methods (which may raise) are
        # not the text's.
        cleaned = _clean(str.__str__(error))
        # Each error starts at the start of its line: IPython writes "NameError    Traceback
        # (most recent call last)", so the class name belongs to the traceback that follows.
        # The search for the start of a match's line goes back to the previous match only, and
        # keeps the line start it had where it finds none: back to the previous error's start,
        # it went to the text's start on every match of a text with no newline (n * n steps).
        starts, line, searched = [0], 0, 0
        for m in _CHAIN.finditer(cleaned):
            line = cleaned.rfind("\n", searched, m.start()) + 1 or line
            searched = m.start()
            starts.append(max(starts[-1], line))
        blocks = [cleaned[a:b] for a, b in zip(starts, [*starts[1:], len(cleaned)], strict=True)]
        found = [
            _text_block(block, traceback="Traceback (most recent call last)" in block[:300])
            for block in blocks
            if block.strip()
            and not _CHAIN.fullmatch(block.strip())
            and not _JAX_FRAMES_NOTE_LINE.search(block)
        ]
        return [block for block in reversed(found) if block.text]
    chain: list[ErrorBlock] = []
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        names = [cls.__name__ for cls in type(current).__mro__]
        frames, code, raised = _exception_frames(_attribute(current, "__traceback__"))
        if frames is None and current is error:
            frames = _stack_frames()
        if names[0] != _JAX_FRAMES_NOTE:
            chain.append(ErrorBlock.of(names, _message(current), frames, code, raised))
        following = _attribute(current, "__cause__") or (
            None
            if _attribute(current, "__suppress_context__")
            else _attribute(current, "__context__")
        )
        current = following if isinstance(following, BaseException) else None
    return chain
