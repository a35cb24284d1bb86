"""Show what a block raised or printed on a page, and fail loudly when reality drifts."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
import textwrap
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jax

from jaxpurity._leaftypes import safe_repr
from jaxpurity._platforms import require_cpu_device

__all__ = ["ExceptionInfo", "Printed", "clean_paths", "printed", "raises"]

_MAX_LINES = 40
# Where the docs build asks raises() to record what it caught (one JSON line per
# error), so that the error index lists real, captured messages.
CAUGHT_LOG_ENV = "JAXPURITY_CAUGHT_LOG"
# An absolute path, where it starts a word: so URLs (``https://...``) are left alone.
_ABS_PATH = re.compile(
    r"""(?:(?<=^)|(?<=[\s"'(<\[=,]))(?:[A-Za-z]:)?(?:[/\\][\w.+@~-]+){2,}""", re.M
)
_SITE = re.compile(r".*[/\\](?:site|dist)-packages[/\\]")
# A memory address in a repr (``<function f at 0x7f...>``): different on every run.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def clean_paths(text: str) -> str:
    """Strip the build machine's absolute paths and memory addresses from ``text``.

    A path inside ``site-packages`` keeps its part from the package on
    (``jax/numpy/__init__.py``); any other absolute path keeps its file name.
    ``at 0x...`` addresses in reprs are dropped.

    Args:
      text: An error message or traceback.

    Returns:
      The text with every absolute path shortened.

    Example:
      >>> clean_paths("f at /srv/ana/work/gallery/counter.py:12")
      'f at counter.py:12'
      >>> clean_paths("in /usr/lib/python3/dist-packages/jax/numpy/__init__.py")
      'in jax/numpy/__init__.py'
      >>> clean_paths("got <function f at 0x7f3a2c1b9e40>")
      'got <function f>'
    """

    def shorten(match: re.Match[str]) -> str:
        path = match.group(0)
        if _SITE.match(path):
            return _SITE.sub("", path).replace("\\", "/")
        return re.split(r"[/\\]", path)[-1]

    return _ADDRESS.sub("", _ABS_PATH.sub(shorten, text))


@dataclass
class ExceptionInfo:
    """What :func:`raises` caught: filled in when the ``with`` block ends."""

    expected: type[BaseException] | tuple[type[BaseException], ...]
    value: BaseException | None = field(default=None)

    @property
    def type(self) -> type[BaseException] | None:
        """The class of the caught exception."""
        return None if self.value is None else type(self.value)


def _message(exc: BaseException) -> str:
    """``str(exc)``, or a note that it could not be written (a ``__str__`` that raises)."""
    try:
        return str(exc)
    except Exception as error:  # noqa: BLE001 - a broken __str__ must not hide the error
        return f"<the message could not be shown: its __str__ raised {type(error).__name__}>"


def _describe(exc: BaseException) -> str:
    """The exception as a reader should see it: ``Type: message``, paths cleaned."""
    name = type(exc).__name__
    message = clean_paths(_message(exc)).strip()
    lines = message.splitlines()
    if len(lines) > _MAX_LINES:
        cut = len(lines) - _MAX_LINES
        lines = [*lines[:_MAX_LINES], f"[... {cut} more lines]"]
    return f"{name}: " + "\n".join(lines) if lines else name


def _record(exc: BaseException) -> None:
    """Append the caught error to the file named by ``$JAXPURITY_CAUGHT_LOG``, if set.

    A log that cannot be written (a folder, a file in a folder that does not
    exist, no permission) is an error that names the variable: the docs build
    sets it to gather every page's errors into the error index, and an error
    left out of it silently would make the index wrong.
    """
    log = os.environ.get(CAUGHT_LOG_ENV)
    if log:
        message = clean_paths(_message(exc)).strip()
        entry = {"type": type(exc).__name__, "message": message}
        try:
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry) + "\n")
        except OSError as error:
            # OSError(errno, ...) is the subclass for that errno (IsADirectoryError, ...).
            raise OSError(
                error.errno,
                f"${CAUGHT_LOG_ENV} names {log!r}, where raises() cannot append what it "
                f"caught ({error.strerror or error}): set it to a file in an existing folder "
                "(the docs build sets it for each gallery page), or unset it",
            ) from error


def read_caught(directory: str | os.PathLike[str]) -> list[dict[str, str]]:
    """The errors recorded under ``directory/<section>/<page>.jsonl``, each with its ``page``.

    The docs build points ``$JAXPURITY_CAUGHT_LOG`` at one such file per gallery
    page; this reads them all back, in page order.

    Example:
      >>> import tempfile, pathlib
      >>> root = pathlib.Path(tempfile.mkdtemp())
      >>> (root / "tools").mkdir()
      >>> _ = (root / "tools" / "demo.jsonl").write_text('{"type": "TypeError", "message": "m"}\\n')
      >>> read_caught(root)
      [{'type': 'TypeError', 'message': 'm', 'page': 'tools/demo'}]
    """
    errors = []
    for log in sorted(Path(directory).glob("*/*.jsonl")):
        page = f"{log.parent.name}/{log.stem}"
        for line in log.read_text(encoding="utf-8").splitlines():
            errors.append({**json.loads(line), "page": page})
    return errors


def _names(expected: type[BaseException] | tuple[type[BaseException], ...]) -> str:
    types = expected if isinstance(expected, tuple) else (expected,)
    return " or ".join(t.__name__ for t in types)


def _pattern(match: Any) -> re.Pattern[str] | None:
    """``match`` compiled, or a clear error saying what to pass instead."""
    if match is None or isinstance(match, re.Pattern) and isinstance(match.pattern, str):
        return match
    if not isinstance(match, str):
        raise TypeError(
            f"raises(match=...) takes a regular expression as a str (or None), not "
            f'{type(match).__name__}; for example raises(ValueError, match=r"must be positive")'
        )
    try:
        return re.compile(match)
    except re.error as error:
        raise ValueError(
            f"raises(match={match!r}): not a valid regular expression ({error}). Escape the "
            f"characters that have a meaning in a pattern: match=re.escape({match!r}) finds "
            "the text as it is"
        ) from None


@contextlib.contextmanager
def raises(
    exc_type: type[BaseException] | tuple[type[BaseException], ...],
    match: str | None = None,
) -> Iterator[ExceptionInfo]:
    """Expect ``exc_type`` from the ``with`` block; print it and carry on.

    Use it on a gallery page to show the error JAX really raises and then go
    on to the fix. The caught exception is printed as ``Type: message`` with
    the build machine's paths removed (see :func:`clean_paths`). If the block
    raises nothing, raises another type, or raises a message that ``match``
    does not find, an :class:`AssertionError` says what happened instead, so
    the docs build fails rather than showing a stale story.

    Args:
      exc_type: The exception class (or a tuple of classes) expected.
      match: A regular expression searched (``re.search``) in ``str(error)``.
        A pattern with nested repeats (``(a+)+$``) can take exponential time,
        and nothing stops it: use ``re.escape(text)`` to find a text as it is.

    Yields:
      An :class:`ExceptionInfo` whose ``value`` is the caught exception.

    Raises:
      AssertionError: Nothing was raised, another type was raised (chained as
        the cause), or ``match`` was not found in the message.
      TypeError: ``exc_type`` is not an exception class or a tuple of them, or
        ``match`` is not a str (before the block runs).
      ValueError: ``match`` is not a valid regular expression (before the
        block runs).
      OSError: ``$JAXPURITY_CAUGHT_LOG`` (set by the docs build) names a file
        that cannot be appended to: a folder, or a file in a missing folder.

    Example:
      >>> import jax.numpy as jnp
      >>> with raises(TypeError, match="item assignment") as info:
      ...     jnp.zeros(3)[0] = 1.0  # doctest: +ELLIPSIS
      TypeError: JAX arrays are immutable and do not support in-place item assignment...
      >>> type(info.value).__name__
      'TypeError'
      >>> with raises(ValueError):
      ...     pass
      Traceback (most recent call last):
      AssertionError: expected ValueError, but the block raised nothing
    """
    if not (
        isinstance(exc_type, type)
        and issubclass(exc_type, BaseException)
        or isinstance(exc_type, tuple)
        and exc_type
        and all(isinstance(t, type) and issubclass(t, BaseException) for t in exc_type)
    ):
        raise TypeError(
            f"raises() takes an exception class or a tuple of them, not {safe_repr(exc_type)}; "
            "for example raises(TypeError)"
        )
    pattern = _pattern(match)
    info = ExceptionInfo(expected=exc_type)
    try:
        yield info
    except exc_type as exc:
        text = _describe(exc)
        if pattern is not None and not pattern.search(_message(exc)):
            raise AssertionError(
                f"expected {_names(exc_type)} matching {match!r}, but the message was:\n"
                + textwrap.indent(text, "  ")
            ) from exc
        info.value = exc
        _record(exc)
        print(text, file=sys.stdout)
        sys.stdout.flush()
        return
    except BaseException as exc:
        if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
            raise
        raise AssertionError(
            f"expected {_names(exc_type)}, but the block raised "
            + textwrap.indent(_describe(exc), "  ").lstrip()
        ) from exc
    raise AssertionError(f"expected {_names(exc_type)}, but the block raised nothing")


@dataclass
class Printed:
    """What :func:`printed` collected: filled in when the ``with`` block ends."""

    text: str = ""

    @property
    def lines(self) -> list[str]:
        """The printed text, split into lines."""
        return self.text.splitlines()


# One capture of sys.stdout at a time: two threads that each replaced sys.stdout and put
# back what they found would leave it replaced.
_STDOUT = threading.RLock()


class _ThreadOutput(io.TextIOBase):
    """sys.stdout for one thread's writes to go to a buffer, and every other thread's on."""

    def __init__(self, owner: int, buffer: io.StringIO, others: Any) -> None:
        self.owner, self.buffer, self.others = owner, buffer, others

    def write(self, text: str) -> int:
        target = self.buffer if threading.get_ident() == self.owner else self.others
        return int(target.write(text) or 0)

    def flush(self) -> None:
        self.others.flush()


@contextlib.contextmanager
def this_thread_output() -> Iterator[Printed]:
    """Collect what this thread prints in the block; other threads print as usual.

    For Python's ``print`` in code that this thread runs (a function being
    traced); :func:`printed` also collects JAX's callbacks, which print from
    threads of their own.
    """
    out = Printed()
    buffer = io.StringIO()
    with _STDOUT:
        saved = sys.stdout
        sys.stdout = _ThreadOutput(threading.get_ident(), buffer, saved)
        try:
            yield out
        finally:
            sys.stdout = saved
            out.text = buffer.getvalue()


@contextlib.contextmanager
def printed(*, echo: bool = True) -> Iterator[Printed]:
    """Collect what the block prints, :func:`jax.debug.print` output included.

    ``jax.debug.print`` and other callbacks of a compiled program may print
    after the call that ran them has returned; the block ends with
    ``jax.effects_barrier()``, so that everything it started has printed.
    Use it to count or check what a function prints at trace time and at run
    time. If the block raises, what it printed is shown and the error goes on.
    One block collects at a time, process-wide: a block in another thread
    waits for this one to end.

    Args:
      echo: Print the collected text when the block ends, so that it is still
        seen (on a gallery page, below the cell).

    Yields:
      A :class:`Printed` whose ``text`` and ``lines`` hold the output.

    Raises:
      RuntimeError: JAX has no CPU device (``JAX_PLATFORMS=cuda``), where
        ``jax.debug.print`` runs: the message says what to set.

    Example:
      >>> import jax
      >>> @jax.jit
      ... def f(x):
      ...     print("tracing")
      ...     jax.debug.print("x = {}", x)
      ...     return x
      >>> with printed(echo=False) as out:
      ...     _ = f(1.0)
      ...     _ = f(2.0)
      >>> out.lines
      ['tracing', 'x = 1.0', 'x = 2.0']
    """
    require_cpu_device("jaxpurity.printed()")
    out = Printed()
    buffer = io.StringIO()
    try:
        with _STDOUT, contextlib.redirect_stdout(buffer):
            yield out
            jax.effects_barrier()  # wait for every callback the block started
    except BaseException:
        sys.stdout.write(buffer.getvalue())
        raise
    out.text = buffer.getvalue()
    if echo:
        sys.stdout.write(out.text)
        sys.stdout.flush()
