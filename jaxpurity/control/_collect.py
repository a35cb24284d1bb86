"""Stack ``fn(0), ..., fn(n - 1)`` with one ``lax.scan``, instead of a Python loop."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jaxpurity._leaftypes import is_tracer, safe_repr
from jaxpurity._pages import page
from jaxpurity._trees import FLATTEN_ERRORS
from jaxpurity.control._through_lax import no_tree_error, require_callable

__all__ = ["collect"]

T = TypeVar("T")

#: The most rows: an array's dimension is a signed 64-bit int in XLA.
_MAX_ROWS = int(np.iinfo(np.int64).max)


def _check_count(n: Any) -> int:
    """``n`` as a Python int, or an error saying what to pass instead."""
    if is_tracer(n):
        raise TypeError(
            "jaxpurity.collect: n is traced, so its value is unknown while JAX traces, but "
            "collect returns an array of n rows and a shape must be known then. Collect a "
            "fixed maximum and mask the rows past n: "
            "ys = jaxpurity.collect(fn, max_n); "
            "ys = jnp.where(jnp.arange(max_n) < n, ys, 0) (give the mask ys's rank, for "
            "example [:, None], for rows that are not scalars). To loop a traced number of "
            "times without collecting, use jaxpurity.while_loop. Or make n static: "
            f"jax.jit(f, static_argnames='n'); see {page('static_arguments')}."
        )
    # jnp.bool_ scalars are numpy.bool_ (isinstance(x, jnp.bool_) checks that); JAX 0.12 types
    # jnp.bool_ as a scalar constructor, not a class.
    if isinstance(n, (bool, np.bool_)):
        raise TypeError(
            f"jaxpurity.collect: n must be an int (the number of rows), got {n!r}, a bool. "
            "Pass the count itself, for example collect(fn, 3)."
        )
    if not isinstance(n, numbers.Integral):
        fix = f"int({safe_repr(n)})" if isinstance(n, numbers.Real) else "int(n)"
        raise TypeError(
            f"jaxpurity.collect: n must be a Python int (the number of rows), got {safe_repr(n)} "
            f"(type {type(n).__name__}). Pass a whole number: {fix}, outside of any jit."
        )
    if n < 0:
        raise ValueError(
            f"jaxpurity.collect: n must be >= 0 (the number of rows), got {n}. Pass "
            f"max({n}, 0) if a negative count should mean no rows."
        )
    if int(n) > _MAX_ROWS:
        raise ValueError(
            f"jaxpurity.collect: n is {n}, more rows than an array can have: XLA sizes an "
            f"array's dimension with a signed 64-bit int, so n must be at most 2**63 - 1 "
            f"({_MAX_ROWS}). Pass the number of rows you need; to loop without collecting, "
            "use jaxpurity.fori_loop or jaxpurity.while_loop."
        )
    return int(n)


def collect(fn: Callable[[jax.Array], T], n: int) -> T:
    """Stack ``fn(0), ..., fn(n - 1)``, as ``jnp.stack([fn(i) for i in range(n)])`` would.

    The Python loop traces ``fn`` ``n`` times, so compile time grows with
    ``n``; ``collect`` traces it once, inside a :func:`jax.lax.scan`, so
    compile time does not. ``fn`` may return any pytree of arrays of any
    rank: each leaf is stacked along a new first axis (like
    ``jax.tree_util.tree_map(lambda *ys: jnp.stack(ys), *outputs)``).

    ``n = 0`` returns arrays with zero rows and ``fn``'s shapes and dtypes
    after them (found with :func:`jax.eval_shape`, without running ``fn``),
    where ``jnp.stack([])`` would raise; these arrays are strongly typed.

    Args:
      fn: ``fn(i)`` for the ``i``-th row; ``i`` is an ``int32`` scalar array
        (traced), so use it in ``jnp`` operations, not in Python ``if``.
      n: How many rows: a non-negative Python (or NumPy) int known before
        tracing.

    Returns:
      ``fn``'s output pytree with every leaf stacked: leaf shape ``(n, *s)``.

    Raises:
      TypeError: ``fn`` is not callable; ``n`` is a bool, a float or another
        non-integer, or is traced (the message shows the fixed-maximum plus
        mask pattern); ``fn`` returns a pytree that holds a reference cycle
        or is nested too deep for JAX to flatten.
      ValueError: ``n`` is negative, or more than ``2**63 - 1``.

    Example:
      >>> import jax.numpy as jnp
      >>> import jaxpurity
      >>> jaxpurity.collect(lambda i: i * i, 4).tolist()
      [0, 1, 4, 9]
      >>> rows = jaxpurity.collect(lambda i: {"x": jnp.full(2, i), "y": 0.5 * i}, 3)
      >>> rows["x"].tolist(), rows["y"].tolist()
      ([[0, 0], [1, 1], [2, 2]], [0.0, 0.5, 1.0])
      >>> jaxpurity.collect(lambda i: jnp.zeros(2), 0).shape
      (0, 2)
    """
    require_callable(fn, "fn", "collect", "lambda i: i ** 2")
    n = _check_count(n)
    try:
        return _collect(fn, n)
    except FLATTEN_ERRORS:
        # A row JAX cannot flatten (a cycle, or too deep): trace fn once more to say so.
        error = no_tree_error(
            "jaxpurity.collect",
            {},
            lambda types_of: types_of(fn, jax.ShapeDtypeStruct((), jnp.int32)),
            {"fn": fn},
        )
        if error is None:
            raise
    raise error from None


def _collect(fn: Callable[[jax.Array], T], n: int) -> T:
    if n == 0:
        row = jax.eval_shape(fn, jax.ShapeDtypeStruct((), jnp.int32))
        return jax.tree_util.tree_map(lambda s: jnp.zeros((0, *s.shape), s.dtype), row)

    def step(i: jax.Array, _: None) -> tuple[jax.Array, T]:
        return i + 1, fn(i)

    _, rows = lax.scan(step, jnp.int32(0), None, length=n)
    return rows
