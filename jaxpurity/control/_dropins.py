"""Drop-in ``cond``, ``switch`` and loops that name every leaf whose type differs.

Each function takes the same arguments as its :mod:`jax.lax` namesake and
hands them to it unchanged, so lax traces each branch or loop body as often
as it would on its own (once, usually) and records exactly its own program,
with the user's lines as the operations' source locations (JAX skips this
module's frames as it skips its own).
jaxpurity's checks that need no tracing (a float ``pred``, a static ``index``
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

import functools
import numbers
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jaxpurity._introspect import MISSING
from jaxpurity._jax_compat import hide_from_source_info
from jaxpurity._leaftypes import (
    LeafType,
    describe_leaf,
    is_extended,
    is_tracer,
    leaf_type,
    shape_dtype_structs,
)
from jaxpurity.control._typediff import (
    TypeMismatchError,
    check_carry,
    check_castable,
    check_same_types,
    same_types,
)

__all__ = ["cond", "fori_loop", "require_callable", "scan", "switch", "while_loop"]

T = TypeVar("T")
Carry = TypeVar("Carry")

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
_TypesOf = Callable[..., Any]


class _Untraceable(Exception):
    """A branch or body failed when traced again for the analysis: lax's own error stands."""


def _retraced(fn: Callable[..., Any], *args: Any) -> Any:
    """``jax.eval_shape(fn, *args)`` after lax has traced ``fn``; if it fails, nothing is added."""
    try:
        return jax.eval_shape(fn, *args)
    except Exception as error:  # noqa: BLE001 - whatever fn raised, lax has reported already
        raise _Untraceable from error


def _through_lax(
    call: Callable[[], T],
    analyse: Callable[[_TypesOf], None],
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


def _scalar_type(x: Any, name: str, api: str, kind: str, why_scalar: str) -> LeafType:
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


def _check_pred(pred: Any) -> None:
    t = _scalar_type(
        pred,
        "pred",
        "cond",
        "a boolean scalar such as x > 0",
        "cond runs one branch for the whole call. To choose per element use "
        "jnp.where(pred, a, b); to test all or any elements use jnp.all(pred) or jnp.any(pred).",
    )
    if jnp.issubdtype(t.dtype, jnp.inexact):
        raise TypeError(
            f"jaxpurity.cond: pred is {t}: lax.cond would silently treat every nonzero "
            "float (0.5, nan) as True. Compare explicitly, for example pred != 0 or x > 0."
        )


def _check_index(index: Any, n_branches: int) -> None:
    t = _scalar_type(
        index,
        "index",
        "switch",
        "an integer scalar such as jnp.argmax(scores)",
        "switch runs one branch for the whole call. To pick a branch per element, vmap it: "
        "jax.vmap(lambda i, x: jaxpurity.switch(i, branches, x))(index, xs).",
    )
    if t.dtype == np.dtype(bool):
        raise TypeError(
            f"jaxpurity.switch: index is a bool ({t}), but switch picks branches[index] by "
            "position. For two branches use jaxpurity.cond(flag, ...); otherwise convert "
            "explicitly: flag.astype(jnp.int32)."
        )
    if not jnp.issubdtype(t.dtype, jnp.integer):
        raise TypeError(
            f"jaxpurity.switch: index is {t}; switch needs an integer and does not round "
            "for you. Convert explicitly, for example jnp.floor(x).astype(jnp.int32)."
        )
    static = isinstance(index, (numbers.Integral, np.ndarray))
    if static and not 0 <= int(index) < n_branches:
        last = n_branches - 1
        clamped = (
            "branches[0] (not the last one, as in Python)" if index < 0 else f"branches[{last}]"
        )
        raise ValueError(
            f"jaxpurity.switch: index {int(index)} is out of range for {n_branches} branches: "
            f"lax.switch would silently clamp it and run {clamped}. Pass 0 <= index <= {last}, "
            f"or clamp on purpose: jnp.clip(index, 0, {last})."
        )


def _check_branches(branches: Any) -> list[Callable[..., Any]]:
    if callable(branches) or not isinstance(branches, Sequence) or isinstance(branches, str):
        raise TypeError(
            f"jaxpurity.switch: branches must be a list or tuple of functions, got "
            f"{branches!r} (type {type(branches).__name__}). Wrap a single function: [f]."
        )
    if not branches:
        raise ValueError(
            "jaxpurity.switch: branches is empty; switch needs at least one function to "
            "call, for example [lambda x: x, lambda x: -x]."
        )
    for i, branch in enumerate(branches):
        require_callable(branch, f"branches[{i}]", "switch", "lambda x: x + 1")
    return list(branches)


def _check_like(api: str, like_types: Any, name: str, out: Any) -> None:
    """Raise unless ``name``'s output types ``out`` convert to ``like_types`` losslessly."""
    check_castable(
        like_types,
        out,
        what=f"jaxpurity.{api}: like= cannot take {name}'s output without losing information",
        template_name="like",
        actual_name=f"{name} output",
    )


def _converted(
    api: str, branch: Callable[..., Any], name: str, like_types: Any
) -> Callable[..., Any]:
    """``branch``, its output checked and converted to ``like_types`` as lax traces it.

    Each output leaf is cast and broadcast to the template's type, where
    :func:`_check_like` finds that nothing is lost.
    """

    def convert(target: jax.ShapeDtypeStruct, x: Any) -> Any:
        t = leaf_type(x)
        if t.dtype != target.dtype:
            x = lax.convert_element_type(x, target.dtype)
        if t.shape != target.shape:
            x = jnp.broadcast_to(x, target.shape)
        return x

    @functools.wraps(branch)
    def wrapped(*operands: Any) -> Any:
        out = branch(*operands)
        try:
            out_types = shape_dtype_structs(out)
        except TypeError:
            return out  # a leaf that is no array: lax's error says so, as for lax's own branches
        _check_like(api, like_types, name, out_types)
        return jax.tree_util.tree_map(convert, like_types, out)

    return wrapped


def _like_types(api: str, like: Any) -> Any:
    try:
        return shape_dtype_structs(like)
    except TypeError as err:
        raise TypeError(
            f"jaxpurity.{api}: like= must be a pytree of arrays or jax.ShapeDtypeStruct, "
            f"for example jax.ShapeDtypeStruct((3,), jnp.float32); but {err}"
        ) from None


def _through_lax_branches(
    api: str,
    call: Callable[[list[Callable[..., Any]]], T],
    branches: list[Callable[..., Any]],
    names: list[str],
    operands: tuple,
    like: Any,
) -> T:
    """``call(branches)`` (lax's cond or switch), with jaxpurity's error where types differ.

    Without ``like``, lax gets the branches themselves, and only where it rejects
    their types are they traced again, to name each leaf. With ``like``, each
    branch is wrapped to check and convert its output as lax traces it.
    """
    like_types = None if like is None else _like_types(api, like)

    def analyse(types_of: _TypesOf) -> None:
        outs = [types_of(branch, *operands) for branch in branches]
        if like_types is not None:
            for name, out in zip(names, outs, strict=True):
                _check_like(api, like_types, name, out)
            return
        for name, out in zip(names[1:], outs[1:], strict=True):
            check_same_types(
                outs[0],
                out,
                what=(
                    f"jaxpurity.{api}: the branches return different types (or pass "
                    "like=<template> to convert them where nothing is lost)"
                ),
                expected_name=f"{names[0]} output",
                actual_name=f"{name} output",
            )

    if like_types is not None:
        branches_for_lax = [
            _converted(api, branch, name, like_types)
            for branch, name in zip(branches, names, strict=True)
        ]
        return _through_lax(lambda: call(branches_for_lax), analyse)
    return _through_lax(lambda: call(branches), analyse)


def _operands(api: str, operands: tuple, operand: Any) -> tuple:
    if operand is MISSING:
        return operands
    if operands:
        raise TypeError(
            f"jaxpurity.{api}: got operands both positionally and as operand=; pass them "
            f"positionally only, for example {api}(..., x, y)."
        )
    return (operand,)


def cond(
    pred: Any,
    true_fun: Callable[..., T],
    false_fun: Callable[..., T],
    *operands: Any,
    operand: Any = MISSING,
    like: Any = None,
) -> T:
    """:func:`jax.lax.cond`, with a readable error when the branches' types differ.

    Same arguments and result as ``jax.lax.cond(pred, true_fun, false_fun,
    *operands)``, which gets them as they are: the traced program is exactly
    lax's, and each branch is traced as often as lax traces it (a Python side
    effect in it, such as ``print``, runs as it would under lax). Where lax
    rejects the branches' output types, jaxpurity traces them once more with
    :func:`jax.eval_shape` and raises :class:`jaxpurity.TypeMismatchError`,
    listing every differing leaf and the fix, in place of lax's
    ``TypeError`` (kept as its ``__context__``). With ``like=``, each
    branch's output is checked and converted as lax traces it.

    Differences from :func:`jax.lax.cond`, all deliberate: a floating-point
    ``pred`` is an error (lax treats any nonzero float, even ``nan``, as
    true); and ``like=`` can convert the branch outputs to one type.

    Args:
      pred: A boolean (or integer) scalar: ``true_fun`` runs when it is
        nonzero.
      true_fun: The function to call when ``pred`` is true.
      false_fun: The function to call when ``pred`` is false.
      *operands: Passed to whichever function runs.
      operand: The older single-operand form of ``*operands``, as in lax.
      like: Keyword only. A template pytree (arrays or
        ``jax.ShapeDtypeStruct`` s) to convert both branch outputs to. A
        leaf is converted only where nothing is lost: its shape must
        broadcast to the template's and its dtype must cast safely,
        ``jnp.can_cast(out, template, casting="safe")`` (``int8`` ->
        ``float32`` yes, ``float32`` -> ``int32`` or ``float64`` ->
        ``float32`` no; a Python scalar converts where JAX's promotion would
        give the template's dtype). Without ``like=`` nothing is converted.

    Returns:
      The output of the branch that ran (converted to ``like`` if given).

    Raises:
      TypeMismatchError: The branch outputs differ in structure, shape or
        dtype, or ``like=`` would lose information.
      TypeError: ``pred`` is not a boolean or integer scalar, or a branch is
        not callable.

    Example:
      >>> import jax
      >>> import jax.numpy as jnp
      >>> import jaxpurity
      >>> jaxpurity.cond(True, lambda x: x + 1, lambda x: x - 1, jnp.float32(1)).tolist()
      2.0
      >>> jaxpurity.cond(True, lambda: jnp.zeros(3), lambda: 0.0)  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      jaxpurity.TypeMismatchError: jaxpurity.cond: the branches return different types ...
        path         true_fun output vs false_fun output
        (top level)  float32[3] vs float32[] (weak: a Python scalar)
      How to fix:
        (top level)  false_fun output has a Python scalar ...: jnp.zeros_like(x)...
      >>> f32 = jax.ShapeDtypeStruct((3,), jnp.float32)
      >>> jaxpurity.cond(True, lambda: jnp.int8(2), lambda: jnp.zeros(3), like=f32).tolist()
      [2.0, 2.0, 2.0]
    """
    require_callable(
        true_fun, "true_fun", "cond", "lambda x: x + 1; to pick one of two values use jnp.where"
    )
    require_callable(
        false_fun, "false_fun", "cond", "lambda x: x - 1; to pick one of two values use jnp.where"
    )
    _check_pred(pred)
    ops = _operands("cond", operands, operand)

    def call(branches: list[Callable[..., Any]]) -> Any:
        if operand is MISSING:
            return lax.cond(pred, *branches, *operands)
        return lax.cond(pred, *branches, operand=operand)

    return _through_lax_branches(
        "cond", call, [true_fun, false_fun], ["true_fun", "false_fun"], ops, like
    )


def switch(
    index: Any,
    branches: Sequence[Callable[..., T]],
    *operands: Any,
    operand: Any = MISSING,
    like: Any = None,
) -> T:
    """:func:`jax.lax.switch`, with a readable error when the branches' types differ.

    Same arguments and result as ``jax.lax.switch(index, branches,
    *operands)``, which gets them as they are: the traced program is exactly
    lax's, and each branch is traced as often as lax traces it. Where a
    branch returns other types than ``branches[0]``, lax rejects them, and
    :class:`jaxpurity.TypeMismatchError` (found as in :func:`jaxpurity.cond`)
    names the first branch that differs, every differing leaf, and the fix.

    Differences from :func:`jax.lax.switch`, all deliberate: an index known
    before tracing (a Python or NumPy integer) that is out of range is an
    error, where lax silently clamps it (so ``-1`` runs ``branches[0]``, not
    the last branch); a traced index is still clamped, as in lax. ``like=``
    converts branch outputs as in :func:`jaxpurity.cond`.

    Args:
      index: An integer scalar: which branch to run.
      branches: A non-empty list or tuple of functions.
      *operands: Passed to the branch that runs.
      operand: The older single-operand form of ``*operands``, as in lax.
      like: Keyword only. A template pytree to convert every branch output
        to, where nothing is lost; see :func:`jaxpurity.cond`.

    Returns:
      The output of ``branches[index]`` (converted to ``like`` if given).

    Raises:
      TypeMismatchError: A branch's outputs differ from ``branches[0]``'s, or
        ``like=`` would lose information.
      TypeError: ``index`` is not an integer scalar (a bool, float, string or
        array), ``branches`` is not a list of functions.
      ValueError: ``branches`` is empty, or a static ``index`` is out of range.

    Example:
      >>> import jax.numpy as jnp
      >>> import jaxpurity
      >>> branches = [lambda x: x, lambda x: 2 * x, lambda x: -x]
      >>> jaxpurity.switch(1, branches, jnp.float32(3)).tolist()
      6.0
      >>> jaxpurity.switch(3, branches, jnp.float32(3))  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      ValueError: jaxpurity.switch: index 3 is out of range for 3 branches: lax.switch would ...
    """
    branches = _check_branches(branches)
    _check_index(index, len(branches))
    ops = _operands("switch", operands, operand)
    names = [f"branches[{i}]" for i in range(len(branches))]

    def call(branches: list[Callable[..., Any]]) -> Any:
        if operand is MISSING:
            return lax.switch(index, branches, *operands)
        return lax.switch(index, branches, operand=operand)

    return _through_lax_branches("switch", call, branches, names, ops, like)


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
    t = _scalar_type(
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

    def analyse(types_of: _TypesOf) -> None:
        _check_carry(
            lambda carry: (types_of(body_fun, index, carry), {}),
            init_val,
            api="fori_loop",
            init_name="init_val",
            out_name="body_fun output",
        )

    return _through_lax(
        lambda: lax.fori_loop(lower, upper, body_fun, init_val, unroll=unroll),
        analyse,
        suspect=lambda carry: _carry_changed(init_val, carry),
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

    def analyse(types_of: _TypesOf) -> None:
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

    return _through_lax(
        lambda: lax.while_loop(cond_fun, body_fun, init_val),
        analyse,
        suspect=lambda carry: _carry_changed(init_val, carry),
    )


def _check_length(length: Any) -> None:
    if length is None:
        return
    if isinstance(length, bool) or not isinstance(length, numbers.Integral):
        raise TypeError(
            f"jaxpurity.scan: length must be a Python int (the number of steps) or None, got "
            f"{length!r} (type {type(length).__name__}); lax.scan needs the number of steps "
            "while it traces. Pass int(length) for a whole number."
        )
    if length < 0:
        raise ValueError(f"jaxpurity.scan: length must be >= 0 (the number of steps), got {length}")


def _slice_types(xs: Any, length: Any) -> Callable[[], Any]:
    """Check that the leaves of ``xs`` can be sliced along axis 0 in ``length`` steps.

    Returns what builds the types of one slice ``x`` (``ShapeDtypeStruct`` s),
    which only the analysis of the types needs.
    """
    leaves, treedef = jax.tree_util.tree_flatten(xs)

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
      unroll: As in :func:`jax.lax.scan`.
      _split_transpose: As in :func:`jax.lax.scan` (experimental).

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

    def analyse(types_of: _TypesOf) -> None:
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
    return _through_lax(
        lambda: lax.scan(f, init, xs, length, reverse, unroll, _split_transpose=_split_transpose),
        analyse,
        suspect=lambda out: not _is_pair(out) or _carry_changed(init, out[0]),
    )
