"""Say what a JAX error means, why it happened, and how to fix it."""

from __future__ import annotations

import builtins
import ntpath  # its basename splits at "/" and at "\\": paths from any system
import re
import textwrap
import types
from dataclasses import dataclass

from jaxpurity._known_errors import DEAD_TRACE, KNOWN_ERRORS, TRACED_FUNCTION, KnownError
from jaxpurity._pages import page

__all__ = ["Explanation", "explain"]

_JAX_SOURCE = re.compile(r"(?:^|[/\\])jax[/\\]_src[/\\]")
# A frame line of a traceback printed by Python.
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line \d+, in (?P<name>\S+)', re.M)


_COMPILED = {p: re.compile(p) for k in KNOWN_ERRORS for p in (*k.patterns, k.only_if) if p}

# The "Name: message" line of an exception in pasted text (any module path before
# the name; pytest prefixes "E   "). Only names that end in Error or Exception count,
# so message lines that happen to contain a colon are not mistaken for a header.
_HEADER = re.compile(
    r"^(?:E +)?(?:\w+\.)*(?P<name>\w*(?:Error|Exception))(?::[ \t]?|[ \t]*$)", re.M
)
_TRACEBACK = "Traceback (most recent call last):"
_WIDTH = 88


@dataclass(frozen=True)
class Explanation:
    """What :func:`explain` says about an error.

    Attributes:
      error: The error's class name, such as ``"UnexpectedTracerError"``.
      scenario: One line: what the code was doing when the error happened.
      cause: Why JAX raises it.
      fix: What to change.
      topic: The gallery topic (a key of ``jaxpurity._pages.PAGES``), or None.
      page: The site path of the gallery page about it, or None.
      recognised: False when :func:`explain` does not know the error; then
        ``scenario``, ``cause`` and ``fix`` are empty and ``page`` is None.
    """

    error: str
    scenario: str
    cause: str
    fix: str
    topic: str | None
    page: str | None
    recognised: bool

    def __str__(self) -> str:
        if not self.recognised:
            names = {k.error for k in KNOWN_ERRORS}
            by_name = ", ".join(sorted(n for n in names if _distinctive(n)))
            by_text = " and ".join(sorted(n for n in names if not _distinctive(n)))
            lines = [
                f"Error: {self.error or 'unknown'}",
                "Not recognised: jaxpurity.explain has no entry for this error, so it "
                "cannot say what caused it.",
                f"It knows {by_name}, and some messages of {by_text}.",
            ]
        else:
            lines = [
                f"Error: {self.error}",
                f"Scenario: {self.scenario}",
                f"Cause: {self.cause}",
                f"Fix: {self.fix}",
                f"Read more: {self.page}",
            ]
        return "\n".join(textwrap.fill(line, _WIDTH, subsequent_indent="  ") for line in lines)


def _distinctive(name: str) -> bool:
    """Whether a class name identifies an error by itself (``TypeError`` does not)."""
    return not hasattr(builtins, name)


# One frame of a traceback: the file, the function's name, and its first line (None when
# read from printed text, which shows the line running instead).
_Frame = tuple[str, str, int | None]


@dataclass(frozen=True)
class _Error:
    """One error of a chain: its class names (most derived first), message and traceback."""

    names: list[str]
    message: str
    frames: list[_Frame] | None  # None when no traceback is known


def _parse(block: str, *, traceback: bool) -> _Error:
    """One error in pasted text: the class name (if shown), message and traceback frames."""
    header = _HEADER.search(block)
    above = block if header is None else block[: header.start()]
    frames: list[_Frame] | None = None
    if traceback:
        frames = [(m["file"], m["name"], None) for m in _FRAME.finditer(above)]
    if header is None:
        return _Error([], block.strip(), frames)
    return _Error([header.group("name")], block[header.end() :].strip(), frames)


def _frames(tb: types.TracebackType | None) -> list[_Frame] | None:
    """The frames a raised exception passed through, from where it was caught down."""
    if tb is None:
        return None
    frames: list[_Frame] = []
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append((code.co_filename, code.co_name, code.co_firstlineno))
        tb = tb.tb_next
    return frames


def _chain(error: BaseException | str) -> list[_Error]:
    """``error`` and the errors it was raised from.

    The raised error comes first, then its cause, and so on. For an exception
    the names are its classes, most derived first. In a traceback, each error
    starts at its own "Traceback" line and the raised one is last.
    """
    if isinstance(error, str):
        blocks = error.split(_TRACEBACK)
        return [
            _parse(block, traceback=i > 0)
            for i, block in reversed(list(enumerate(blocks)))
            if block.strip()
        ]
    chain, seen = [], set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        names = [cls.__name__ for cls in type(current).__mro__]
        chain.append(_Error(names, str(current), _frames(current.__traceback__)))
        current = current.__cause__ or (
            None if current.__suppress_context__ else current.__context__
        )
    return chain


def _leaked_use(error: _Error) -> bool:
    """Whether the error came from using a tracer after its trace had ended (a leaked one)."""
    if DEAD_TRACE.search(error.message):
        return True
    traced = TRACED_FUNCTION.search(error.message)
    if traced is None or error.frames is None or _JAX_SOURCE.search(traced["file"]):
        return False
    file, line = ntpath.basename(traced["file"]), int(traced["line"])
    running = [
        first == line if first is not None else name == traced["name"]
        for path, name, first in error.frames
        if ntpath.basename(path) == file
    ]
    return not any(running)


def _found(pattern: str | None, message: str) -> bool:
    return pattern is None or _COMPILED[pattern].search(message) is not None


def _match(entries: list[KnownError], names: list[str], message: str) -> KnownError | None:
    """The first entry for an error: by class name first, then by its message."""
    for name in names:
        if not _distinctive(name):
            continue
        for known in entries:
            if known.error == name and _found(known.only_if, message):
                return known
    for known in entries:
        if any(_found(p, message) for p in known.patterns) and _found(known.only_if, message):
            return known
    return None


_ABOUT_LEAKS = [k for k in KNOWN_ERRORS if k.leaked]
_OTHERS = [k for k in KNOWN_ERRORS if not k.leaked]


def _lookup(error: _Error) -> tuple[str, KnownError] | None:
    """The error's class name and its entry; one about leaks when it used a leaked tracer.

    An entry about a leaked tracer covers the ConcretizationTypeError family,
    so the class is named by the error, or else by the entry its message has
    without the leak.
    """
    known = _match(_ABOUT_LEAKS, error.names, error.message) if _leaked_use(error) else None
    usual = _match(_OTHERS, error.names, error.message)
    if known is None:
        return None if usual is None else (usual.error, usual)
    if error.names:
        return error.names[0], known
    return (usual or known).error, known


def explain(error: BaseException | str) -> Explanation:
    """Explain a JAX error: the scenario, the cause, the fix, and the page to read.

    Pass the exception itself, or its text as printed (a whole traceback, a
    ``Type: message`` line, or only the message). An exception is recognised by
    its class (and its base classes); text by the class name in its
    ``Type: message`` line, or else by wording that JAX's messages contain. When
    the raised error is unknown but was raised from a known one (``raise ... from
    err``, or a chained traceback), the known one is explained.

    A ``ConcretizationTypeError`` (from ``float()``, ``int()``, ``bool()``) on a
    tracer that leaked out of an earlier trace is explained as the leak it is,
    not as an argument to make static, where the error shows that the trace
    had ended: JAX 0.4.35's message says so; with JAX 0.10.2 the traceback
    does (the traced function it names is not running), so pass the
    exception or the whole traceback rather than the message alone.

    Args:
      error: The exception, or the text of one.

    Returns:
      An :class:`Explanation`; ``print`` it for a readable summary. For an error
      it does not know, ``recognised`` is False and it says so rather than guess.

    Raises:
      TypeError: ``error`` is neither an exception nor a string.

    Example:
      >>> import jax
      >>> import jaxpurity
      >>> @jax.jit
      ... def relu(x):
      ...     return x if x > 0 else 0.0
      >>> try:
      ...     relu(1.0)
      ... except Exception as err:
      ...     explanation = jaxpurity.explain(err)
      >>> explanation.error, explanation.page
      ('TracerBoolConversionError', 'examples/control_flow/python_control_flow.html')
      >>> print(explanation)  # doctest: +ELLIPSIS
      Error: TracerBoolConversionError
      Scenario: A jitted function used `if`, `while`, `and`/`or` or `assert` on a value...
      ...
      Read more: examples/control_flow/python_control_flow.html
      >>> jaxpurity.explain("ValueError: my own mistake").recognised
      False
    """
    if not isinstance(error, (BaseException, str)):
        raise TypeError(
            f"explain() takes an exception or its text (a str), not {type(error).__name__}; "
            "for example explain(err) inside `except Exception as err:`, or explain(str(err))"
        )
    chain = _chain(error)
    for raised in chain:
        found = _lookup(raised)
        if found is not None:
            name, known = found
            return Explanation(
                error=name,
                scenario=known.scenario,
                cause=known.cause,
                fix=known.fix,
                topic=known.topic,
                page=page(known.topic),
                recognised=True,
            )
    names = chain[0].names if chain else []
    return Explanation(
        error=names[0] if names else "",
        scenario="",
        cause="",
        fix="",
        topic=None,
        page=None,
        recognised=False,
    )
