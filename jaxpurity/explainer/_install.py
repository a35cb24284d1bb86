"""Help where the error happens: a one-line note on every JAX error that ``explain`` knows.

:func:`install` adds the note in a script (and anywhere a JAX error is caught),
``%load_ext jaxpurity`` in IPython and Jupyter, and ``pytest -p jaxpurity`` in
a test run's failure report. The note says what happened and links the page
that fixes it::

    jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array ...
    jaxpurity: A jitted function used `if`, ... See https://.../python_control_flow.html
"""

from __future__ import annotations

import sys
import threading
import types
from collections.abc import Callable
from typing import Any

import jax

from jaxpurity.explainer._explain import explain
from jaxpurity.explainer.known_errors import KNOWN_ERRORS

__all__ = [
    "install",
    "load_ipython_extension",
    "pytest_runtest_logreport",
    "uninstall",
    "unload_ipython_extension",
]

_NOTED = "__jaxpurity_noted__"  # set on an exception once its note is added
_HAS_NOTES = sys.version_info >= (3, 11)  # BaseException.add_note


def _note_for(error: BaseException) -> str:
    try:
        explanation = explain(error)
    except Exception:  # noqa: BLE001 - a note must never replace the user's error
        return ""
    return explanation.note


def _add_note(error: BaseException) -> str:
    """Add the note to ``error`` once (where Python has notes); return it ("" when unknown)."""
    if getattr(error, _NOTED, False):
        return ""
    note = _note_for(error)
    if note:
        try:
            setattr(error, _NOTED, True)
        except AttributeError:
            return note
        if sys.version_info >= (3, 11):
            error.add_note(note)
    return note


# -- JAX's own error classes: the note is added when the error is made ------------------------


def _jax_error_classes() -> list[type[BaseException]]:
    """The exception classes of :doc:`jax.errors <jax:errors>` that ``explain`` knows by name."""
    known = {name for k in KNOWN_ERRORS for name in k.errors}
    return [
        value
        for name, value in vars(jax.errors).items()
        if name in known and isinstance(value, type) and issubclass(value, BaseException)
    ]


# (class, its own __init__ before install, or None where it inherited one)
_PATCHED: list[tuple[type[BaseException], Any]] = []


def _noting_init(init: Callable[..., None]) -> Callable[..., None]:
    def __init__(self: BaseException, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        _add_note(self)  # once: _add_note skips an error it has noted

    __init__.__doc__ = getattr(init, "__doc__", None)
    return __init__


def _patch_jax_errors() -> None:
    if _PATCHED:
        return
    for cls in _jax_error_classes():
        own = vars(cls).get("__init__")
        _PATCHED.append((cls, own))
        cls.__init__ = _noting_init(cls.__init__)  # type: ignore[method-assign]


def _unpatch_jax_errors() -> None:
    while _PATCHED:
        cls, own = _PATCHED.pop()
        if own is None:
            del cls.__init__
        else:
            cls.__init__ = own  # type: ignore[method-assign]


# -- Uncaught errors: sys.excepthook and threading.excepthook -----------------------------------


def _excepthook(
    previous: Callable[[type[BaseException], BaseException, types.TracebackType | None], Any],
) -> Callable[[type[BaseException], BaseException, types.TracebackType | None], None]:
    def hook(
        kind: type[BaseException], error: BaseException, tb: types.TracebackType | None
    ) -> None:
        note = _add_note(error)
        previous(kind, error, tb)
        if note and not _HAS_NOTES:  # Python 3.10: no notes in tracebacks; say it after
            print(note, file=sys.stderr)

    hook.__jaxpurity_previous__ = previous  # type: ignore[attr-defined]
    return hook


def _thread_hook(
    previous: Callable[[Any], Any],
) -> Callable[[Any], None]:
    def hook(args: Any) -> None:
        note = _add_note(args.exc_value) if args.exc_value is not None else ""
        previous(args)
        if note and not _HAS_NOTES:
            print(note, file=sys.stderr)

    hook.__jaxpurity_previous__ = previous  # type: ignore[attr-defined]
    return hook


def install() -> None:
    """Make every JAX error that :func:`jaxpurity.explain` recognises carry a one-line note.

    The note (``jaxpurity: <what happened> See <url>``) says what happened
    and links the page that fixes it. JAX's own errors (the classes of
    :doc:`jax.errors <jax:errors>`) get it when they are made, so a caught error carries it
    too, and Python prints it under the traceback (Python 3.11+, with
    :meth:`BaseException.add_note`). Any other recognised error (a
    ``TypeError`` from ``lax.cond``) gets it when it goes uncaught, from
    :func:`sys.excepthook` and :func:`threading.excepthook`; on Python 3.10,
    which prints no notes, those hooks print it after the traceback. Calling
    it again does nothing; :func:`uninstall` undoes it.

    Example:
      >>> import jax
      >>> import jaxpurity
      >>> jaxpurity.install()
      >>> try:
      ...     jax.jit(lambda x: 1 if x > 0 else 0)(1.0)
      ... except jax.errors.TracerBoolConversionError as error:
      ...     print(*[n for n in error.__notes__ if n.startswith("jaxpurity")])
      ...     # doctest: +ELLIPSIS
      jaxpurity: A jitted function used `if`, ... See https://.../python_control_flow.html
      >>> jaxpurity.uninstall()
    """
    if _HAS_NOTES:
        _patch_jax_errors()
    if not hasattr(sys.excepthook, "__jaxpurity_previous__"):
        sys.excepthook = _excepthook(sys.excepthook)
    if not hasattr(threading.excepthook, "__jaxpurity_previous__"):
        threading.excepthook = _thread_hook(threading.excepthook)


def uninstall() -> None:
    """Undo :func:`install`: JAX's error classes and the excepthooks are as they were.

    Example:
      >>> import sys, jaxpurity
      >>> hook = sys.excepthook
      >>> jaxpurity.install(); jaxpurity.uninstall()
      >>> sys.excepthook is hook
      True
    """
    _unpatch_jax_errors()
    previous = getattr(sys.excepthook, "__jaxpurity_previous__", None)
    if previous is not None:
        sys.excepthook = previous
    previous = getattr(threading.excepthook, "__jaxpurity_previous__", None)
    if previous is not None:
        threading.excepthook = previous


# -- IPython and Jupyter: %load_ext jaxpurity ----------------------------------------------------


def _ipython_handler(
    shell: Any,
    kind: type[BaseException],
    error: BaseException,
    tb: types.TracebackType | None,
    tb_offset: int | None = None,
) -> Any:
    note = _add_note(error)
    shell.showtraceback((kind, error, tb), tb_offset=tb_offset)
    if note and not _HAS_NOTES:
        print(note, file=sys.stderr)
    return None


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext jaxpurity``: notes on JAX errors in IPython and Jupyter (see :func:`install`)."""
    install()
    ipython.set_custom_exc((Exception,), _ipython_handler)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext jaxpurity``: undo :func:`load_ipython_extension`."""
    ipython.set_custom_exc((), None)
    uninstall()


# -- pytest: pytest -p jaxpurity -----------------------------------------------------------------


def pytest_runtest_logreport(report: Any) -> None:
    """``pytest -p jaxpurity``: a failed test whose error ``explain`` knows gets a section.

    The failure report then ends with a "jaxpurity" section: what happened,
    why, the fix, and the page to read.
    """
    if not getattr(report, "failed", False) or report.longrepr is None:
        return
    if any(title == "jaxpurity" for title, _ in report.sections):
        return
    explanation = explain(str(report.longrepr))
    if explanation.recognised:
        report.sections.append(("jaxpurity", str(explanation)))
