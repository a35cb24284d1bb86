"""Drop-in ``cond`` and ``switch`` that name every leaf whose type differs between branches.

Each takes the same arguments as its :mod:`jax.lax` namesake and hands them to
it unchanged (:mod:`jaxpurity.control._through_lax` says how the types are
checked only where lax rejects them).
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
    leaf_type,
    safe_repr,
    shape_dtype_structs,
)
from jaxpurity._trees import FLATTEN_ERRORS, not_a_tree
from jaxpurity.control._through_lax import (
    TypesOf,
    require_callable,
    scalar_type,
    through_lax,
)
from jaxpurity.control._typediff import (
    check_castable,
    check_same_types,
)

__all__ = ["cond", "switch"]

T = TypeVar("T")

hide_from_source_info(__file__)  # as _through_lax says


def _check_pred(pred: Any) -> None:
    t = scalar_type(
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
    t = scalar_type(
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
            f"{safe_repr(branches)} (type {type(branches).__name__}). Wrap a single function: [f]."
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
    except FLATTEN_ERRORS:
        error = not_a_tree(f"jaxpurity.{api}", {"like": like})
        if error is None:
            raise
        raise error from None
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
    inputs: dict[str, Any],
) -> T:
    """``call(branches)`` (lax's cond or switch), with jaxpurity's error where types differ.

    Without ``like``, lax gets the branches themselves, and only where it rejects
    their types are they traced again, to name each leaf. With ``like``, each
    branch is wrapped to check and convert its output as lax traces it.
    """
    like_types = None if like is None else _like_types(api, like)
    functions = dict(zip(names, branches, strict=True))

    def analyse(types_of: TypesOf) -> None:
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
        return through_lax(
            lambda: call(branches_for_lax), analyse, api=api, inputs=inputs, functions=functions
        )
    return through_lax(lambda: call(branches), analyse, api=api, inputs=inputs, functions=functions)


def _inputs(operands: tuple, operand: Any) -> dict[str, Any]:
    """The operands by the name a message gives them: as passed, ``operands`` or ``operand``."""
    return {"operands": operands} if operand is MISSING else {"operand": operand}


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
        "cond",
        call,
        [true_fun, false_fun],
        ["true_fun", "false_fun"],
        ops,
        like,
        _inputs(operands, operand),
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

    return _through_lax_branches(
        "switch", call, branches, names, ops, like, _inputs(operands, operand)
    )
