"""How the drop-ins call lax: lax first, and the types analysed only where lax rejects them.

Each drop-in (:mod:`~jaxpurity.control._branches`, :mod:`~jaxpurity.control._loops`)
takes the same arguments as its :mod:`jax.lax` namesake and hands them to it
unchanged, so lax traces each branch or loop body as often as it would on its
own (once, usually) and records exactly its own program, with the user's lines
as the operations' source locations (JAX skips the drop-ins' frames as it skips
its own). jaxpurity's checks that need no tracing (a float ``pred``, a static ``index``
out of range, malformed ``xs``) run before that. The types are analysed only
after lax has traced: where lax rejects them with a ``TypeError``, or where a
loop comes back with a carry whose type lax changed (it promotes a weakly
typed init leaf, which jaxpurity refuses), jaxpurity traces the branches or
body once more with :func:`jax.eval_shape` and compares the types with
:mod:`jaxpurity.control._typediff`, to raise its error naming every leaf in
place of lax's. That extra trace happens on that error path only; there a
Python side effect in a branch or body (``print``) runs once more.

Under :func:`jax.disable_jit` lax runs the Python functions and checks no
types, so there the types are analysed first, as lax would not.

Where lax (or the analysis) fails to flatten a pytree, with a ``SystemError``
or ``RecursionError``, jaxpurity looks for the argument that holds a
reference cycle or is nested too deep (:mod:`jaxpurity._trees`), and then for
a branch or body whose output is one (traced once more, as for the types),
and raises a ``TypeError`` that names it; where none is, lax's error stands.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import jax

from jaxpurity._jax_compat import hide_from_source_info
from jaxpurity._leaftypes import LeafType, is_extended, leaf_type, safe_repr
from jaxpurity._trees import FLATTEN_ERRORS, not_a_tree
from jaxpurity.control._typediff import TypeMismatchError

__all__ = ["TypesOf", "no_tree_error", "require_callable", "scalar_type", "through_lax"]

T = TypeVar("T")

# This module's frames are not the user's: JAX skips them, as it skips its own, when it
# records where each operation came from (the compiled program's locations, the lines
# its errors quote). So a drop-in's lowered program, locations included, is lax's byte
# for byte; and our frames do not take the places of the user's outer frames among those
# a location keeps (jax_traceback_in_locations_limit: 10 on JAX 0.4.35, 100 on 0.12).
hide_from_source_info(__file__)


def require_callable(fn: Any, name: str, api: str, example: str) -> None:
    """Raise a :class:`TypeError` naming argument ``name`` of ``api`` unless ``fn`` is callable.

    Example:
      >>> require_callable(3, "body_fun", "fori_loop", "lambda i, carry: carry + i")
      Traceback (most recent call last):
      TypeError: jaxpurity.fori_loop: body_fun must be a function, got 3 (type int). Pass a function, for example lambda i, carry: carry + i
    """  # noqa: E501
    if not callable(fn):
        raise TypeError(
            f"jaxpurity.{api}: {name} must be a function, got {safe_repr(fn)} "
            f"(type {type(fn).__name__}). "
            f"Pass a function, for example {example}"
        )


# Finds the types of ``fn(*args)``: jax.eval_shape, or _retraced after lax has traced.
TypesOf = Callable[..., Any]


class _Untraceable(Exception):
    """A branch or body failed when traced again for the analysis: lax's own error stands."""


def _retraced(fn: Callable[..., Any], *args: Any) -> Any:
    """``jax.eval_shape(fn, *args)`` after lax has traced ``fn``; if it fails, nothing is added."""
    try:
        return jax.eval_shape(fn, *args)
    except Exception as error:  # noqa: BLE001 - whatever fn raised, lax has reported already
        raise _Untraceable from error


class _NotATree(Exception):
    """A branch or body returned what JAX cannot flatten: ``error`` says so."""

    def __init__(self, error: TypeError) -> None:
        super().__init__(str(error))
        self.error = error


def no_tree_error(
    where: str,
    inputs: Mapping[str, Any],
    analyse: Callable[[TypesOf], None] | None = None,
    functions: Mapping[str, Callable[..., Any]] | None = None,
) -> TypeError | None:
    """Where a flatten failed: the error naming the input or output that is no tree, if any.

    ``inputs`` are the drop-in's pytree arguments by name (``"init_val"``);
    when none holds a cycle or is too deep, ``analyse`` traces the branches or
    body once more (as for the types), each output checked before JAX
    flattens it, and ``functions`` names them by their argument
    (``"body_fun"``); ``where`` starts the message (``"jaxpurity.scan"``). None
    where neither is the cause: the caller re-raises.
    """
    error = not_a_tree(where, inputs)
    if error is not None or analyse is None:
        return error
    names = {id(fn): name for name, fn in (functions or {}).items()}

    def checked(fn: Callable[..., Any], *args: Any) -> Any:
        name = names.get(id(fn), "a function")
        label = f"the output of {name}"

        def body(*traced: Any) -> Any:
            out = fn(*traced)
            found = not_a_tree(where, {label: out}, roots={label: f"{name}(...)"})
            if found is not None:
                raise _NotATree(found)
            return out

        return jax.eval_shape(body, *args)

    try:
        analyse(checked)
    except _NotATree as found:
        return found.error
    except Exception:  # noqa: BLE001 - no output is the cause: the caller re-raises lax's error
        return None
    return None


def through_lax(
    call: Callable[[], T],
    analyse: Callable[[TypesOf], None],
    *,
    suspect: Callable[[T], bool] | None = None,
    api: str,
    inputs: Mapping[str, Any],
    functions: Mapping[str, Callable[..., Any]],
) -> T:
    """``call()``, lax's own call, with jaxpurity's error in place of lax's about types.

    ``analyse(types_of)`` is the drop-in's check of the types: it finds them
    with ``types_of`` (the branches' outputs, the new carry) and raises
    jaxpurity's error for the first problem, or returns. It runs only where lax
    raised a ``TypeError``, or where ``suspect(result)`` says that lax accepted
    what jaxpurity refuses (a loop carry whose dtype lax changed); under
    :func:`jax.disable_jit`, where lax checks no types, it runs first instead.

    Where a pytree could not be flattened (a ``SystemError`` or
    ``RecursionError``), :func:`no_tree_error` names the input among
    ``inputs`` (or the output of one of ``functions``) that holds a cycle or
    is nested too deep; ``api`` is the drop-in's name, for the messages.
    """
    try:
        return _through_lax(call, analyse, suspect)
    except FLATTEN_ERRORS:
        error = no_tree_error(f"jaxpurity.{api}", inputs, analyse, functions)
        if error is None:
            raise
    raise error from None


def _through_lax(
    call: Callable[[], T],
    analyse: Callable[[TypesOf], None],
    suspect: Callable[[T], bool] | None,
) -> T:
    if jax.config.jax_disable_jit:
        analyse(jax.eval_shape)
        return call()
    try:
        out = call()
    except TypeError as lax_error:
        # A nested drop-in's error, or JAX's about a tracer in user code (used as a bool,
        # an index, a NumPy array) is not about these types: it stands as raised.
        if isinstance(lax_error, (TypeMismatchError, jax.errors.JAXTypeError)):
            raise
        try:
            analyse(_retraced)
        except _Untraceable:
            pass
        except TypeError as ours:
            # The same message as a check before lax would give; lax's error stays the
            # __context__ (not shown), since jaxpurity's names the leaves and the fix.
            raise ours from None
        raise
    if suspect is not None and suspect(out):
        try:
            analyse(_retraced)
        except _Untraceable:
            pass
    return out


def scalar_type(x: Any, name: str, api: str, kind: str, why_scalar: str) -> LeafType:
    """The type of ``x``, which must be a scalar; ``kind`` and ``why_scalar`` go in errors."""
    try:
        t = leaf_type(x)
    except TypeError:
        raise TypeError(
            f"jaxpurity.{api}: {name} must be {kind}, got {safe_repr(x)} (type {type(x).__name__})"
        ) from None
    if is_extended(t.dtype):
        raise TypeError(
            f"jaxpurity.{api}: {name} must be {kind}, got a PRNG key ({t}). Draw from the "
            "key first: jax.random.bernoulli(key) gives a random boolean, "
            "jax.random.randint(key, (), 0, n) a random index."
        )
    if t.shape != ():
        raise TypeError(f"jaxpurity.{api}: {name} must be a scalar, got {t}: {why_scalar}")
    return t
