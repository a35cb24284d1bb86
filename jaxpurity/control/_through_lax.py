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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import jax

from jaxpurity._jax_compat import hide_from_source_info
from jaxpurity._leaftypes import LeafType, is_extended, leaf_type
from jaxpurity.control._typediff import TypeMismatchError

__all__ = ["TypesOf", "require_callable", "scalar_type", "through_lax"]

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
            f"jaxpurity.{api}: {name} must be a function, got {fn!r} (type {type(fn).__name__}). "
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


def through_lax(
    call: Callable[[], T],
    analyse: Callable[[TypesOf], None],
    *,
    suspect: Callable[[T], bool] | None = None,
) -> T:
    """``call()``, lax's own call, with jaxpurity's error in place of lax's about types.

    ``analyse(types_of)`` is the drop-in's check of the types: it finds them
    with ``types_of`` (the branches' outputs, the new carry) and raises
    jaxpurity's error for the first problem, or returns. It runs only where lax
    raised a ``TypeError``, or where ``suspect(result)`` says that lax accepted
    what jaxpurity refuses (a loop carry whose dtype lax changed); under
    :func:`jax.disable_jit`, where lax checks no types, it runs first instead.
    """
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
            f"jaxpurity.{api}: {name} must be {kind}, got {x!r} (type {type(x).__name__})"
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
