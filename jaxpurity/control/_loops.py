"""Drop-in ``fori_loop``, ``while_loop`` and ``scan`` that name every carry leaf whose type changes.

Each takes the same arguments as its :mod:`jax.lax` namesake and hands them to
it unchanged (:mod:`jaxpurity.control._through_lax` says how the types are
checked only where lax rejects them, or where lax changed a weakly typed carry).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jaxpurity._jax_compat import hide_from_source_info
from jaxpurity._leaftypes import (
    LeafType,
    describe_leaf,
    is_tracer,
    leaf_type,
    safe_repr,
    shape_dtype_structs,
)
from jaxpurity._trees import flatten_tree
from jaxpurity.control._through_lax import (
    TypesOf,
    require_callable,
    scalar_type,
    through_lax,
)
from jaxpurity.control._typediff import (
    check_carry,
    same_types,
)

__all__ = ["fori_loop", "scan", "while_loop"]

Carry = TypeVar("Carry")

hide_from_source_info(__file__)  # as _through_lax says


def _check_carry(
    step: Callable[[Any], tuple[Any, Any]], init: Any, *, api: str, init_name: str, out_name: str
) -> None:
    """Check that the new carry ``step(types of init)`` returns (with scan's y) has init's type."""
    new_carry, other = step(shape_dtype_structs(init))
    check_carry(
        init,
        new_carry,
        what=(
            f"jaxpurity.{api}: {out_name} has a different type than {init_name}; a loop "
            "carry keeps one type on every iteration"
        ),
        init_name=init_name,
        carry_name=out_name,
        **other,
    )


def _carry_changed(init: Any, carry: Any) -> bool:
    """Whether the carry lax returned differs in type from ``init``.

    Where lax succeeded, the one way for that is its promotion of a weakly
    typed init leaf to the type the body returns (``0`` carried as
    ``float16``): jaxpurity refuses that, and the analysis then says why. A
    weak leaf that comes back strong with its dtype (``0.0`` and ``float32``)
    is no change.
    """
    return not same_types(init, carry)


def _is_pair(out: Any) -> bool:
    return isinstance(out, (tuple, list)) and len(out) == 2


def _bound_type(x: Any, name: str) -> LeafType:
    t = scalar_type(
        x,
        name,
        "fori_loop",
        "an integer scalar",
        "a loop bound is one number. To loop a different number of times per element, "
        "loop to the largest bound and mask: jnp.where(i < bound, new, old).",
    )
    if t.dtype == np.dtype(bool) or not jnp.issubdtype(t.dtype, jnp.integer):
        raise TypeError(
            f"jaxpurity.fori_loop: {name} is {t}; loop bounds must be integers. Convert "
            f"explicitly: int({name}) for a Python number, or {name}.astype(jnp.int32)."
        )
    return t


def _loop_index_type(lower: Any, upper: Any) -> jax.ShapeDtypeStruct:
    """The type lax.fori_loop gives the loop index ``i`` (mirrors its dtype rules)."""
    lo, up = _bound_type(lower, "lower"), _bound_type(upper, "upper")
    if lo.dtype == up.dtype:
        dtype = lo.dtype
    elif (
        jnp.issubdtype(lo.dtype, jnp.signedinteger)
        and jnp.issubdtype(up.dtype, jnp.signedinteger)
        and lo.weak != up.weak
    ):
        dtype = up.dtype if lo.weak else lo.dtype
    else:
        raise TypeError(
            f"jaxpurity.fori_loop: lower ({lo}) and upper ({up}) have different integer "
            f"dtypes; cast one to the other, for example upper.astype(jnp.{lo.dtype.name})."
        )
    concrete = not any(is_tracer(b) for b in (lower, upper))
    if concrete:  # lax calls int() on the bounds and loops with a scan over Python ints
        return jax.ShapeDtypeStruct((), jnp.result_type(int), weak_type=True)
    return jax.ShapeDtypeStruct((), dtype, weak_type=lo.weak and lo.dtype == dtype)


def fori_loop(
    lower: Any,
    upper: Any,
    body_fun: Callable[[Any, Carry], Carry],
    init_val: Carry,
    *,
    unroll: int | bool | None = None,
) -> Carry:
    """:func:`jax.lax.fori_loop`, with a readable error when the carry changes type.

    Same arguments and result as ``jax.lax.fori_loop``, which gets them as
    they are: the traced program is exactly lax's, and ``body_fun`` is traced
    as often as lax traces it (a Python side effect in it, such as ``print``,
    runs as it would under lax). Where ``body_fun(i, carry)`` returns another
    type than ``init_val``'s, :class:`jaxpurity.TypeMismatchError` lists every
    leaf of the carry that changed, and the fix: jaxpurity traces the body
    once more with :func:`jax.eval_shape` to find them, in place of lax's
    ``TypeError`` (kept as its ``__context__``).

    Deliberate difference from lax: where ``init_val`` holds a weakly typed
    Python scalar (``0``) and the body returns another dtype (``float16``),
    lax silently promotes the carry and returns ``float16``; jaxpurity sees
    the changed carry in what lax returns, and raises instead, with the typed
    init to write: for a low-precision float such as ``float16``, a
    ``float32`` accumulator (a ``float16`` running sum stops growing at
    2048), ``jnp.asarray(0, jnp.float32)``.

    Args:
      lower: The first loop index (an integer scalar).
      upper: One past the last loop index (an integer scalar).
      body_fun: ``body_fun(i, carry) -> new carry``.
      init_val: The carry before the first iteration.
      unroll: As in :func:`jax.lax.fori_loop`.

    Returns:
      The carry after the last iteration.

    Raises:
      TypeMismatchError: ``body_fun`` returns a carry whose structure, shape
        or dtype differs from ``init_val`` (including a weak ``init_val``
        leaf that lax would promote).
      TypeError: ``body_fun`` is not callable, or a bound is not an integer
        scalar.

    Example:
      >>> import jax.numpy as jnp
      >>> import jaxpurity
      >>> jaxpurity.fori_loop(0, 4, lambda i, total: total + i, 0).tolist()
      6
      >>> step = jnp.float16(0.5)
      >>> jaxpurity.fori_loop(0, 4, lambda i, total: total + step, 0)  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      jaxpurity.TypeMismatchError: jaxpurity.fori_loop: body_fun output has a different type than init_val; ...
      ...
        (top level)  int32[] (weak: a Python scalar) vs float16[]
      How to fix:
        (top level)  init_val is weakly typed ... Accumulate in float32: jnp.asarray(0, jnp.float32) ...
    """  # noqa: E501
    require_callable(body_fun, "body_fun", "fori_loop", "lambda i, carry: carry + i")
    index = _loop_index_type(lower, upper)

    def analyse(types_of: TypesOf) -> None:
        _check_carry(
            lambda carry: (types_of(body_fun, index, carry), {}),
            init_val,
            api="fori_loop",
            init_name="init_val",
            out_name="body_fun output",
        )

    return through_lax(
        lambda: lax.fori_loop(lower, upper, body_fun, init_val, unroll=unroll),
        analyse,
        suspect=lambda carry: _carry_changed(init_val, carry),
        api="fori_loop",
        inputs={"init_val": init_val},
        functions={"body_fun": body_fun},
    )


def while_loop(
    cond_fun: Callable[[Carry], Any],
    body_fun: Callable[[Carry], Carry],
    init_val: Carry,
) -> Carry:
    """:func:`jax.lax.while_loop`, with a readable error when the carry changes type.

    Same arguments and result as ``jax.lax.while_loop``, which gets them as
    they are: the traced program is exactly lax's, and ``cond_fun`` and
    ``body_fun`` are traced as often as lax traces them. Where lax rejects
    the carry or ``cond_fun``'s output, jaxpurity's error says which leaf and
    how to fix it, found as in :func:`jaxpurity.fori_loop`; and like it, it
    raises where lax would silently promote a weakly typed ``init_val`` leaf.

    The number of iterations may depend on traced values, so this is also
    the loop to use for a data-dependent count (reverse-mode differentiation
    through it is not supported, as in lax).

    Args:
      cond_fun: ``cond_fun(carry) -> bool scalar``: keep looping while true.
      body_fun: ``body_fun(carry) -> new carry``.
      init_val: The carry before the first iteration.

    Returns:
      The carry once ``cond_fun`` returns false.

    Raises:
      TypeMismatchError: ``body_fun`` returns a carry of a different type
        than ``init_val`` (including a weak leaf lax would promote).
      TypeError: ``cond_fun`` or ``body_fun`` is not callable, or ``cond_fun``
        does not return a boolean scalar.

    Example:
      >>> import jax.numpy as jnp
      >>> import jaxpurity
      >>> jaxpurity.while_loop(lambda x: x < 100, lambda x: 2 * x, jnp.int32(3)).tolist()
      192
      >>> jaxpurity.while_loop(lambda x: x, lambda x: x - 1, jnp.int32(3))  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      TypeError: jaxpurity.while_loop: cond_fun must return a boolean scalar, got int32[]...
    """
    require_callable(cond_fun, "cond_fun", "while_loop", "lambda carry: carry < 10")
    require_callable(body_fun, "body_fun", "while_loop", "lambda carry: carry + 1")

    def analyse(types_of: TypesOf) -> None:
        keep_going = types_of(cond_fun, init_val)
        is_bool_scalar = isinstance(keep_going, jax.ShapeDtypeStruct) and (
            keep_going.shape == () and keep_going.dtype == np.dtype(bool)
        )
        if not is_bool_scalar:
            got = jax.tree_util.tree_map(describe_leaf, keep_going)
            raise TypeError(
                f"jaxpurity.while_loop: cond_fun must return a boolean scalar, got {got}. "
                "Compare explicitly (carry < 10), or reduce an array with jnp.all(...) or "
                "jnp.any(...)."
            )
        _check_carry(
            lambda carry: (types_of(body_fun, carry), {}),
            init_val,
            api="while_loop",
            init_name="init_val",
            out_name="body_fun output",
        )

    return through_lax(
        lambda: lax.while_loop(cond_fun, body_fun, init_val),
        analyse,
        suspect=lambda carry: _carry_changed(init_val, carry),
        api="while_loop",
        inputs={"init_val": init_val},
        functions={"cond_fun": cond_fun, "body_fun": body_fun},
    )


def _check_length(length: Any) -> None:
    if length is None:
        return
    if isinstance(length, bool) or not isinstance(length, numbers.Integral):
        raise TypeError(
            "jaxpurity.scan: length must be a Python int (the number of steps) or None, got "
            f"{safe_repr(length)} (type {type(length).__name__}); lax.scan needs the number of "
            "steps while it traces. Pass int(length) for a whole number."
        )
    if length < 0:
        raise ValueError(f"jaxpurity.scan: length must be >= 0 (the number of steps), got {length}")


def _slice_types(xs: Any, length: Any) -> Callable[[], Any]:
    """Check that the leaves of ``xs`` can be sliced along axis 0 in ``length`` steps.

    Returns what builds the types of one slice ``x`` (``ShapeDtypeStruct`` s),
    which only the analysis of the types needs.
    """
    leaves, treedef = flatten_tree(xs, "xs", where="jaxpurity.scan")

    def name(i: int) -> str:  # written only for a message
        path = jax.tree_util.tree_flatten_with_path(xs)[0][i][0]
        return f"xs{jax.tree_util.keystr(path)}"

    types = []
    for i, leaf in enumerate(leaves):
        t = leaf_type(leaf)
        if t.shape == ():
            raise ValueError(
                f"jaxpurity.scan: {name(i)} is a scalar ({t}); scan slices every leaf of xs "
                "along its first axis, so each needs one. Pass an array with a leading axis, "
                "for example jnp.stack(list_of_values), or close over the scalar in f instead."
            )
        types.append(t)
    sizes = [t.shape[0] for t in types]
    if len(set(sizes)) > 1:
        listed = ", ".join(f"{name(i)} has {size}" for i, size in enumerate(sizes))
        raise ValueError(
            f"jaxpurity.scan: the leaves of xs have different leading sizes ({listed}); scan "
            "takes one slice of each per step. Slice or pad them to one length."
        )
    if isinstance(length, numbers.Integral) and sizes and length not in sizes:
        raise ValueError(
            f"jaxpurity.scan: length={length} but {name(0)} has leading size {sizes[0]}; drop "
            "length= (it is taken from xs) or make them agree."
        )
    if not sizes and length is None:
        raise ValueError(
            "jaxpurity.scan: xs has no arrays, so scan cannot tell how many steps to run; "
            "pass length=n."
        )
    return lambda: jax.tree_util.tree_unflatten(
        treedef, [jax.ShapeDtypeStruct(t.shape[1:], t.dtype, weak_type=t.weak) for t in types]
    )


def scan(
    f: Callable[[Carry, Any], tuple[Carry, Any]],
    init: Carry,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
    _split_transpose: bool = False,
) -> tuple[Carry, Any]:
    """:func:`jax.lax.scan`, with a readable error when the carry changes type.

    Same arguments and result as ``jax.lax.scan``, which gets them as they
    are: the traced program is exactly lax's, and ``f`` is traced as often as
    lax traces it. Where ``f(carry, x)`` returns a new carry of another type
    than ``init``'s, or no pair, jaxpurity's error says which leaf and how to
    fix it, found as in :func:`jaxpurity.fori_loop`; and like it, it raises
    where lax would silently promote a weakly typed ``init`` leaf (``0``
    carried as ``float16``). Malformed ``xs`` (a scalar leaf, leaves of
    different lengths) get an error naming the leaf, before lax is called.

    Args:
      f: ``f(carry, x) -> (new carry, y)``.
      init: The carry before the first step.
      xs: A pytree of arrays to scan over along their first axis, or None.
      length: The number of steps; needed when ``xs`` is None.
      reverse: Scan from the end of ``xs``, as in lax.
      unroll: As in :func:`jax.lax.scan` (its private ``_split_transpose`` too is passed on).

    Returns:
      ``(final carry, ys)`` where ``ys`` stacks every ``y`` along a new
      first axis.

    Raises:
      TypeMismatchError: The new carry's type differs from ``init``'s.
      TypeError: ``f`` is not callable or does not return a pair.
      ValueError: A leaf of ``xs`` is a scalar, the leaves' lengths differ
        (or differ from ``length``), or neither ``xs`` nor ``length`` says
        how many steps to run.

    Example:
      >>> import jax.numpy as jnp
      >>> import jaxpurity
      >>> total, running = jaxpurity.scan(lambda c, x: (c + x, c + x), 0.0, jnp.arange(4.0))
      >>> total.tolist(), running.tolist()
      (6.0, [0.0, 1.0, 3.0, 6.0])
      >>> jaxpurity.scan(lambda c, x: c + x, 0.0, jnp.arange(4.0))  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      TypeError: jaxpurity.scan: f must return a pair (new_carry, y), got float32[]...
    """
    require_callable(f, "f", "scan", "lambda carry, x: (carry + x, carry)")
    _check_length(length)
    slice_types = _slice_types(xs, length)

    def analyse(types_of: TypesOf) -> None:
        x = slice_types()

        def new_carry(carry: Any) -> Any:
            out = types_of(f, carry, x)
            if not _is_pair(out):
                got = jax.tree_util.tree_map(describe_leaf, out)
                raise TypeError(
                    f"jaxpurity.scan: f must return a pair (new_carry, y), got {got}. Return "
                    "(carry, None) if there is nothing to stack."
                )
            return out[0], {"y": out[1]}

        _check_carry(new_carry, init, api="scan", init_name="init", out_name="f's new carry")

    # lax returns (carry, ys) in the container f returned: lax takes any pytree node with
    # two children (a dict of two entries, say) where jaxpurity asks for a pair.
    return through_lax(
        lambda: lax.scan(f, init, xs, length, reverse, unroll, _split_transpose=_split_transpose),
        analyse,
        suspect=lambda out: not _is_pair(out) or _carry_changed(init, out[0]),
        api="scan",
        inputs={"init": init, "xs": xs},
        functions={"f": f},
    )
