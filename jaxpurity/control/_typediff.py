"""Say how two pytrees of types differ, and how to fix it.

This is the one place that compares two pytrees of leaf types (read by
:mod:`jaxpurity._leaftypes`) and writes the error. Every jaxpurity helper
that needs "these must have the same type" calls :func:`check_same_types`.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxpurity._introspect import MISSING
from jaxpurity._leaftypes import LeafType, is_extended, is_tracer, leaf_type, safe_repr

__all__ = [
    "TypeMismatchError",
    "check_carry",
    "check_castable",
    "check_same_types",
    "describe_value",
    "same_types",
]


class TypeMismatchError(TypeError):
    """Two pytrees that must have the same type (structure, shapes, dtypes) do not.

    Raised by :func:`jaxpurity.cond`, :func:`jaxpurity.scan` and the other
    jaxpurity helpers before JAX's own error. The message lists every
    differing leaf by its pytree path and ends with a fix. It subclasses
    :class:`TypeError`, so code that catches JAX's ``TypeError`` still works.
    """

    __module__ = "jaxpurity"  # shown as jaxpurity.TypeMismatchError, where users import it


# --------------------------------------------------------------------------- the diff


@dataclass(frozen=True)
class _Difference:
    """One place where two pytrees differ: what each side has there, and the fix."""

    path: str
    expected: str
    actual: str
    fix: str


@dataclass(frozen=True)
class _Names:
    expected: str
    actual: str


# Compares two leaf types (and the leaves, for their values); returns the fix, or None if fine.
_LeafRule = Callable[[LeafType, LeafType, Any, Any, _Names], "str | None"]


def _jnp_dtype(dtype: np.dtype) -> str:
    return "jnp.bool_" if dtype == np.dtype(bool) else f"jnp.{dtype.name}"


def _literal(x: Any) -> str:
    """How to write leaf ``x`` in a fix: its value when it is a known Python number."""
    if isinstance(x, numbers.Number) and not isinstance(x, (bool, np.generic)):
        return repr(x)
    return "x"


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


def _python_type(dtype: np.dtype) -> type:
    """The Python number type of ``dtype``'s kind: to JAX, it stands for a weak value."""
    kinds = ((jnp.bool_, bool), (jnp.integer, int), (jnp.floating, float))
    return next((t for kind, t in kinds if jnp.issubdtype(dtype, kind)), complex)


def _weak_promotes_to(weak: np.dtype, dtype: Any) -> bool:
    """Whether JAX's promotion of a weakly typed ``weak`` value with ``dtype`` gives ``dtype``."""
    if is_extended(dtype):
        return False
    return np.dtype(jnp.result_type(_python_type(weak), dtype)) == dtype


def _promoted(e: LeafType, a: LeafType) -> np.dtype:
    """The dtype JAX's promotion gives the two: one that holds the values of both."""
    kinds = [_python_type(t.dtype) if t.weak else t.dtype for t in (e, a)]
    return np.dtype(jnp.result_type(*kinds))


def _value_text(x: Any, dtype: np.dtype) -> str | None:
    """A known scalar value, written as a number of ``dtype``'s kind; None when unknown."""
    if isinstance(x, numbers.Number) and not isinstance(x, np.generic):
        value = x
    elif isinstance(x, (jax.Array, np.ndarray, np.generic)) and not is_tracer(x):
        if x.shape != () or is_extended(x.dtype):
            return None
        value = x.item()
    else:
        return None
    return repr(_python_type(dtype)(value))


def _scalar_to_array_fix(
    scalar: Any, scalar_type: LeafType, side: str, array: LeafType, array_side: str
) -> str:
    """A Python scalar stands where the other side has an array: build a matching array."""
    value = _literal(scalar)
    target = _promoted(scalar_type, array)  # 0.5 and an int32 array: float32, for both
    shape, dtype = array.shape, _jnp_dtype(target)
    if value in ("0", "0.0", "x"):
        build = f"jnp.zeros_like(x), here jnp.zeros({shape}, {dtype})"
        if value == "x":
            build += " (or jnp.ones_like(x), jnp.full_like(x, value))"
    elif value in ("1", "1.0"):
        build = f"jnp.ones_like(x), here jnp.ones({shape}, {dtype})"
    else:
        build = f"jnp.full_like(x, {value}), here jnp.full({shape}, {value}, {dtype})"
    return (
        f"{side} has a Python scalar where {array_side} has an array x; "
        f"build a matching array instead: {build}{_also_cast(array, array_side, target)}"
    )


def _also_cast(leaf: LeafType, side: str, target: np.dtype | None) -> str:
    """``"; and cast right's value ..."`` where ``leaf`` must change dtype too; else nothing."""
    if target is None or leaf.dtype == target:
        return ""
    return f"; and cast {side}'s value x: x.astype({_jnp_dtype(target)})"


def _common_dtype(e: LeafType, a: LeafType) -> np.dtype | None:
    """The dtype both sides should have (None when they have one already, or hold keys)."""
    if e.dtype == a.dtype or is_extended(e.dtype) or is_extended(a.dtype):
        return None
    return _promoted(e, a)


def _broadcast_fix(side: str, leaf: LeafType, shape: tuple[int, ...], target: Any) -> str:
    """Broadcast ``side``'s value to ``shape`` (casting it to ``target`` where needed)."""
    cast = "" if target is None or leaf.dtype == target else f".astype({_jnp_dtype(target)})"
    return f"broadcast {side}'s value x: jnp.broadcast_to(x, {shape}){cast}"


def _shape_fix(e: LeafType, a: LeafType, names: _Names) -> str:
    """Two leaves of different shapes: broadcast one where that is valid, else say so."""
    target = _common_dtype(e, a)
    if _broadcasts_to(a.shape, e.shape):
        return _broadcast_fix(names.actual, a, e.shape, target) + _also_cast(
            e, names.expected, target
        )
    if _broadcasts_to(e.shape, a.shape):
        return _broadcast_fix(names.expected, e, a.shape, target) + _also_cast(
            a, names.actual, target
        )
    return (
        f"shapes {e.shape} and {a.shape} do not broadcast to each other; make "
        f"{names.expected} and {names.actual} produce the same shape (look for the "
        "slice, reduction or concatenation that changed it)"
    )


def _carry_shape_fix(e: LeafType, a: LeafType, names: _Names) -> str:
    """A loop carry (``a``) whose shape differs from the init's (``e``).

    Broadcasting is the fix only where the carry then keeps its shape: a new
    carry that broadcasts back to the init's shape (``()`` -> ``(3,)``), or a
    scalar init for a carry that is an array from the first step on. A carry
    that grows would grow again from any init.
    """
    target = _common_dtype(e, a)
    grows = len(a.shape) > len(e.shape) or np.prod(a.shape) > np.prod(e.shape)
    if _broadcasts_to(a.shape, e.shape) and not grows:  # not (1,) into an empty (0,)
        return _broadcast_fix(names.actual, a, e.shape, target) + _also_cast(
            e, names.expected, target
        )
    if e.shape == ():
        return _broadcast_fix(names.expected, e, a.shape, target) + _also_cast(
            a, names.actual, target
        )
    text = (
        f"a loop carry keeps one fixed shape, but {names.actual} has shape {a.shape} where "
        f"{names.expected} has {e.shape}"
    )
    if grows:
        return (
            f"{text}: it grows each step. Preallocate the largest size (jnp.zeros((n, ...))) "
            "and write step i with x.at[i].set(value) or lax.dynamic_update_slice; or "
            "return each step's value as scan's y (scan stacks them into ys) instead of "
            "growing the carry"
        )
    return f"{text}; look for the slice, reduction or indexing that changed it"


def _stand_for_each_other(e: LeafType, a: LeafType, *, weak_ok: bool) -> bool:
    """Whether JAX takes leaves of types ``e`` and ``a`` as one type (see check_same_types)."""
    if e.shape != a.shape:
        return False
    if e.dtype == a.dtype:
        return True  # a weak and a strong leaf of one dtype are the same type to JAX
    if weak_ok and e.weak != a.weak:
        weak, strong = (e, a) if e.weak else (a, e)
        return _weak_promotes_to(weak.dtype, strong.dtype)
    return False


def _same_type_rule(
    e: LeafType,
    a: LeafType,
    e_value: Any,
    a_value: Any,
    names: _Names,
    *,
    weak_ok: bool,
    carry: bool = False,
) -> str | None:
    """The fix when ``e`` and ``a`` cannot stand for each other, else None.

    With ``carry``, ``e`` is a loop's init and ``a`` its new carry.
    """
    if _stand_for_each_other(e, a, weak_ok=weak_ok):
        return None
    if e.shape != a.shape:
        if e.weak and e.shape == () and a.shape:
            return _scalar_to_array_fix(e_value, e, names.expected, a, names.actual)
        if a.weak and a.shape == () and e.shape:
            return _scalar_to_array_fix(a_value, a, names.actual, e, names.expected)
        return _carry_shape_fix(e, a, names) if carry else _shape_fix(e, a, names)
    return _dtype_fix(e, a, e_value, a_value, names, carry=carry)


def _low_precision(dtype: Any) -> bool:
    """A float dtype too narrow to accumulate in: float16, bfloat16, the float8 kinds."""
    return bool(jnp.issubdtype(dtype, jnp.floating)) and np.dtype(dtype).itemsize < 4


def _dtype_fix(
    e: LeafType, a: LeafType, e_value: Any, a_value: Any, names: _Names, *, carry: bool = False
) -> str:
    """Two leaves of one shape and different dtypes: change the side that loses nothing.

    That is the side whose dtype JAX's promotion of the two replaces (an
    int init with a float update: make the init float, never the update
    int), or both sides where neither dtype holds the other's values. A loop
    carry that would become a low-precision float (``float16``) is told to
    accumulate in ``float32`` instead: a ``float16`` running sum of ones
    stops growing at 2048.
    """
    if is_extended(e.dtype) or is_extended(a.dtype):
        return (
            f"make {names.expected} and {names.actual} hold the same kind of value here "
            f"({e.dtype.name} vs {a.dtype.name}): a typed PRNG key converts to and from its "
            "raw uint32 data only with jax.random.key_data / jax.random.wrap_key_data"
        )
    target = _promoted(e, a)
    if target not in (e.dtype, a.dtype):
        return (
            f"neither {e.dtype.name} nor {a.dtype.name} holds the other's values; cast both "
            f"{names.expected} and {names.actual} to {target.name}: x.astype({_jnp_dtype(target)})"
        )
    # A weak side of the target's dtype already holds every value: it only needs the dtype.
    if target == a.dtype and (target != e.dtype or e.weak):
        side, leaf, value = names.expected, e, e_value
    else:
        side, leaf, value = names.actual, a, a_value
    if leaf.weak and carry and _low_precision(target):
        return (
            f"{side} is weakly typed (a Python scalar takes its dtype from context); do not "
            f"give it {target.name}: a running value in {target.name} loses precision (a "
            f"{target.name} sum of ones stops growing at 2048). Accumulate in float32: "
            f"jnp.asarray({_literal(value)}, jnp.float32) ({target.name} updates promote to "
            f"float32), and cast the result to {target.name} after the loop if you need it"
        )
    if leaf.weak:
        return (
            f"{side} is weakly typed (a Python scalar takes its dtype from context); "
            f"give it the dtype explicitly: jnp.asarray({_literal(value)}, {_jnp_dtype(target)})"
        )
    fix = f"cast {side}'s value x: x.astype({_jnp_dtype(target)})"
    known = _value_text(value, target)
    return fix if known is None else f"{fix}, here jnp.asarray({known}, {_jnp_dtype(target)})"


def _castable_rule(
    e: LeafType, a: LeafType, e_value: Any, a_value: Any, names: _Names
) -> str | None:
    """The fix when ``a`` cannot become ``e`` without losing information, else None."""
    del e_value, a_value
    problems = []
    if not _broadcasts_to(a.shape, e.shape):
        problems.append(f"shape {a.shape} does not broadcast to {e.shape}")
    if is_extended(e.dtype) or is_extended(a.dtype):
        lossless = e.dtype == a.dtype  # nothing converts to or from a typed PRNG key
    elif a.weak:
        lossless = _weak_promotes_to(a.dtype, e.dtype)
    else:
        lossless = bool(jnp.can_cast(a.dtype, e.dtype, casting="safe"))
    if not lossless:
        problems.append(f"{a.dtype.name} -> {e.dtype.name} can lose information")
    if not problems:
        return None
    return (
        f"{' and '.join(problems)}; convert {names.actual}'s value x yourself where you "
        f"accept the loss (for example x.astype({_jnp_dtype(e.dtype)}), jnp.round first for "
        f"floats to integers), or change {names.expected} to a type that holds it"
    )


def _is_leaf(x: Any) -> bool:
    """Whether ``x`` is one pytree leaf (not None, an empty container or a pytree node).

    Read from one level of ``x`` (its children taken as leaves), so that a walk
    down a tree reads each node once.
    """
    treedef: Any = jax.tree_util.tree_structure(x, is_leaf=lambda y: y is not x)
    return bool(treedef.num_leaves == 1 and treedef.num_nodes == 1)


def _children(node: Any) -> tuple[dict[str, Any], Any]:
    """One level of ``node``: its children by key (``"['a']"``, ``"[0]"``, ``".w"``)."""
    pairs, treedef = jax.tree_util.tree_flatten_with_path(node, is_leaf=lambda y: y is not node)
    return {jax.tree_util.keystr(path): child for path, child in pairs}, treedef


def _describe_node(node: Any, keys: list[str]) -> str:
    if node is None:
        return "None"
    if isinstance(node, (tuple, list)) and not hasattr(node, "_fields"):
        return f"{type(node).__name__} of length {len(node)}"
    if isinstance(node, dict):
        return f"dict with keys {sorted(node, key=safe_repr)}"
    return f"{type(node).__name__} with children {', '.join(keys) or '(none)'}"


def describe_value(x: Any) -> str:
    """What ``x`` is, in a few words: a leaf's type, or a container's kind and size.

    Example:
      >>> import jax.numpy as jnp
      >>> describe_value(jnp.zeros(3)), describe_value((1, 2)), describe_value({"a": 1})
      ('float32[3]', 'tuple of length 2', "dict with keys ['a']")
    """
    if _is_leaf(x):
        try:
            return str(leaf_type(x))
        except TypeError:
            return f"{safe_repr(x)} (type {type(x).__name__}, not an array)"
    return _describe_node(x, list(_children(x)[0]))


def _differences(expected: Any, actual: Any, names: _Names, rule: _LeafRule) -> list[_Difference]:
    """Every difference between the two pytrees, in the order of their paths.

    A walk with a stack of its own, not Python's: a tree as deep as JAX takes
    (1,500 levels on Python 3.12) is deeper than Python's recursion limit.
    """
    out: list[_Difference] = []
    stack: list[tuple[Any, Any, str]] = [(expected, actual, "")]
    while stack:
        expected, actual, path = stack.pop()
        _compare(expected, actual, path, names, rule, out, stack)
    return out


def _compare(
    expected: Any,
    actual: Any,
    path: str,
    names: _Names,
    rule: _LeafRule,
    out: list[_Difference],
    stack: list[tuple[Any, Any, str]],
) -> None:
    """Append to ``out`` how two subtrees at ``path`` differ at their top, and push their
    children onto ``stack`` (the first child on top)."""
    e_leaf, a_leaf = _is_leaf(expected), _is_leaf(actual)
    if e_leaf and a_leaf:
        try:
            e, a = leaf_type(expected), leaf_type(actual)
        except TypeError as err:
            out.append(
                _Difference(
                    path,
                    describe_value(expected),
                    describe_value(actual),
                    f"{err}; return an array (or a Python number) here",
                )
            )
            return
        fix = rule(e, a, expected, actual, names)
        if fix is not None:
            out.append(_Difference(path, str(e), str(a), fix))
        return
    if e_leaf or a_leaf:
        out.append(
            _Difference(
                path,
                describe_value(expected),
                describe_value(actual),
                f"return the same kind of value from {names.expected} and {names.actual}: "
                "an array in both, or the same container in both",
            )
        )
        return
    e_kids, e_def = _children(expected)
    a_kids, a_def = _children(actual)
    if e_def != a_def:
        e_desc, a_desc = (
            _describe_node(expected, list(e_kids)),
            _describe_node(actual, list(a_kids)),
        )
        missing = [k for k in e_kids if k not in a_kids]
        extra = [k for k in a_kids if k not in e_kids]
        if type(expected) is not type(actual):
            fix = f"use the same container type ({type(expected).__name__}) in both"
        elif missing or extra:
            parts = [f"{', '.join(missing)} only in {names.expected}"] if missing else []
            parts += [f"{', '.join(extra)} only in {names.actual}"] if extra else []
            same = "length" if isinstance(expected, (tuple, list)) else "keys"
            fix = f"{'; '.join(parts)}: add or remove entries so both have the same {same}"
        else:
            fix = (
                f"both are {type(expected).__name__} but their static (non-array) fields "
                "differ; make them equal"
            )
        out.append(_Difference(path, e_desc, a_desc, fix))
    stack.extend(
        reversed(
            [(child, a_kids[key], path + key) for key, child in e_kids.items() if key in a_kids]
        )
    )


def _raise(
    differences: list[_Difference], *, what: str, names: _Names, fix: str | None = None
) -> None:
    """Raise the error that lists ``differences``, with one fix each or the one ``fix``."""
    width = max(len("path"), *(len(d.path or "(top level)") for d in differences))
    lines = [f"{what}.", f"  {'path'.ljust(width)}  {names.expected} vs {names.actual}"]
    for d in differences:
        lines.append(f"  {(d.path or '(top level)').ljust(width)}  {d.expected} vs {d.actual}")
    lines.append("How to fix:")
    if fix is None:
        lines += [f"  {(d.path or '(top level)').ljust(width)}  {d.fix}" for d in differences]
    else:
        lines.append(f"  {fix}")
    raise TypeMismatchError("\n".join(lines))


def _raise_if_different(
    expected: Any, actual: Any, *, what: str, names: _Names, rule: _LeafRule
) -> None:
    differences = _differences(expected, actual, names, rule)
    if differences:
        _raise(differences, what=what, names=names)


def check_same_types(
    expected: Any,
    actual: Any,
    *,
    what: str,
    expected_name: str,
    actual_name: str,
    weak_ok: bool = False,
) -> None:
    """Raise :class:`TypeMismatchError` unless two pytrees have the same type.

    The same type means the same pytree structure and, leaf by leaf, the same
    shape and dtype. A weakly typed leaf (one that came from a Python scalar)
    and a strongly typed leaf of the same dtype count as the same type, since
    JAX treats them so. A weak leaf whose dtype differs from the other side's
    is a mismatch: JAX would pick its dtype by promotion, silently.

    Args:
      expected: A pytree of arrays, tracers, ``ShapeDtypeStruct`` s or Python
        scalars: the type that is required (a loop's ``init_val``, a branch).
      actual: A pytree of the same kinds of leaves, checked against ``expected``.
      what: The first line of the message: what mismatched, for example
        ``"cond branches return different types"``.
      expected_name: How the message names ``expected`` (``"init_val"``).
      actual_name: How the message names ``actual`` (``"body_fun output"``).
      weak_ok: Also accept a weak leaf whose dtype differs from a strong leaf
        on the other side when JAX's promotion of the two gives the strong
        side's dtype (``0`` against ``float16``). Use it where that promotion
        is the intent, such as writing a Python number into a typed buffer.

    Raises:
      TypeMismatchError: The types differ. The message lists every differing
        leaf by path (``jax.tree_util.keystr``) with both sides' shape, dtype
        and weak flag, then a fix for each.

    Example:
      >>> import jax.numpy as jnp
      >>> check_same_types(
      ...     {"w": jnp.zeros(3), "n": 0},
      ...     {"w": jnp.zeros(2), "n": jnp.float16(1)},
      ...     what="the loop carry changed type",
      ...     expected_name="init_val",
      ...     actual_name="body_fun output",
      ... )
      Traceback (most recent call last):
      jaxpurity.TypeMismatchError: the loop carry changed type.
        path   init_val vs body_fun output
        ['n']  int32[] (weak: a Python scalar) vs float16[]
        ['w']  float32[3] vs float32[2]
      How to fix:
        ['n']  init_val is weakly typed (a Python scalar takes its dtype from context); give it the dtype explicitly: jnp.asarray(0, jnp.float16)
        ['w']  shapes (3,) and (2,) do not broadcast to each other; make init_val and body_fun output produce the same shape (look for the slice, reduction or concatenation that changed it)
    """  # noqa: E501

    def rule(e: LeafType, a: LeafType, e_value: Any, a_value: Any, names: _Names) -> str | None:
        return _same_type_rule(e, a, e_value, a_value, names, weak_ok=weak_ok)

    _raise_if_different(
        expected, actual, what=what, names=_Names(expected_name, actual_name), rule=rule
    )


def same_types(expected: Any, actual: Any) -> bool:
    """Whether :func:`check_same_types` accepts the two pytrees, found without writing a message.

    Example:
      >>> import jax.numpy as jnp
      >>> same_types({"n": 0.0}, {"n": jnp.float32(1)}), same_types(0, jnp.float16(1))
      (True, False)
    """
    e_def: Any  # a PyTreeDef, which JAX's type hints leave unresolved
    a_def: Any
    e_leaves, e_def = jax.tree_util.tree_flatten(expected)
    a_leaves, a_def = jax.tree_util.tree_flatten(actual)
    if e_def != a_def:  # the structures differ somewhere
        return False
    try:
        types = [(leaf_type(e), leaf_type(a)) for e, a in zip(e_leaves, a_leaves, strict=True)]
    except TypeError:
        return False  # a leaf that is no array: check_same_types reports it
    return all(_stand_for_each_other(e, a, weak_ok=False) for e, a in types)


def _shape_rule(e: LeafType, a: LeafType, *_: Any) -> str | None:
    """A rule that sees only shapes (structure is compared by the walk itself)."""
    return None if e.shape == a.shape else "shape"


def check_carry(
    init: Any,
    new_carry: Any,
    *,
    what: str,
    init_name: str,
    carry_name: str,
    y: Any = MISSING,  # the loop has no y (None is a valid y)
) -> None:
    """Raise :class:`TypeMismatchError` unless a loop body's new carry has the init's type.

    The same check as :func:`check_same_types`, with ``init`` as the
    required type, and fixes that suit a carry. Broadcasting is suggested
    only where the carry then keeps its shape (a scalar init for a carry of
    shape ``(3,)``); a carry that grows (``(3,)`` -> ``(4,)``) is told to
    keep one fixed shape: preallocate, write with ``.at[i].set``, or return
    per-step values as scan's ``ys``. Given scan's other output ``y``, a
    body whose ``y`` has the init's type while its new carry does not is
    asked whether it swapped the pair.

    Args:
      init: The loop's initial carry: a pytree of arrays or their types.
      new_carry: The new carry the body returns for a carry of ``init``'s type.
      what: The first line of the message.
      init_name: How the message names ``init`` (``"init_val"``).
      carry_name: How the message names ``new_carry`` (``"body_fun output"``).
      y: For :func:`jax.lax.scan`: the body's other output, its per-step
        value. Leave it out for loops that have none.

    Raises:
      TypeMismatchError: The new carry's type differs from ``init``'s; every
        differing leaf is listed by path, with a fix.

    Example:
      >>> import jax
      >>> import jax.numpy as jnp
      >>> check_carry(
      ...     jnp.zeros(3),
      ...     jax.ShapeDtypeStruct((4,), jnp.float32),  # what jnp.append(carry, x) gives
      ...     what="the carry changed type",
      ...     init_name="init",
      ...     carry_name="new carry",
      ... )  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      jaxpurity.TypeMismatchError: the carry changed type.
      ...
        (top level)  a loop carry keeps one fixed shape, but new carry has shape (4,) where init has (3,): it grows each step. Preallocate the largest size ...
      >>> check_carry(
      ...     jnp.float32(0),
      ...     jax.ShapeDtypeStruct((3,), jnp.float32),
      ...     y=jax.ShapeDtypeStruct((), jnp.float32),
      ...     what="the carry changed type",
      ...     init_name="init",
      ...     carry_name="new carry",
      ... )  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      jaxpurity.TypeMismatchError: the carry changed type.
      ...
        scan's body returns (new_carry, y): did you swap them? ...
    """  # noqa: E501
    if same_types(init, new_carry):  # the usual case, found by one flatten of each
        return
    names = _Names(init_name, carry_name)

    def rule(e: LeafType, a: LeafType, e_value: Any, a_value: Any, names: _Names) -> str | None:
        return _same_type_rule(e, a, e_value, a_value, names, weak_ok=False, carry=True)

    differences = _differences(init, new_carry, names, rule)
    if not differences:
        return
    fix = None
    # A swap shows in shapes or structure; a carry whose dtype alone drifted (a weak 0
    # made float16 by the body, with y the carry passed through) is no swap.
    if (
        y is not MISSING
        and not _differences(init, y, names, rule)
        and _differences(init, new_carry, names, _shape_rule)
    ):
        fix = (
            "scan's body returns (new_carry, y): did you swap them? Its y has the type of "
            f"{init_name} and its new carry does not; return (new_carry, y)"
        )
    _raise(differences, what=what, names=names, fix=fix)


def check_castable(
    template: Any, actual: Any, *, what: str, template_name: str, actual_name: str
) -> None:
    """Raise :class:`TypeMismatchError` unless ``actual`` converts to ``template`` losslessly.

    The rule, leaf by leaf: the structure must be the same; ``actual``'s shape
    must broadcast to the template's (``()`` -> ``(3,)`` does, ``(2,)`` ->
    ``(3,)`` does not); and its dtype must cast safely,
    ``jnp.can_cast(actual, template, casting="safe")`` (``int8`` -> ``float32``
    does, ``float32`` -> ``int32`` and ``float32`` -> ``float16`` do not). A
    weakly typed leaf (a Python scalar) converts where JAX's promotion would
    give the template's dtype (``0`` -> ``float16`` does, ``0.5`` -> ``int32``
    does not).

    Args:
      template: A pytree of arrays or ``ShapeDtypeStruct`` s: the target type.
      actual: A pytree of values (or their types) to be converted.
      what: The first line of the message.
      template_name: How the message names ``template`` (``"like"``).
      actual_name: How the message names ``actual`` (``"true_fun output"``).

    Raises:
      TypeMismatchError: Some leaf would change its value or cannot be
        broadcast; every such leaf is listed by path with a fix.

    Example:
      >>> import jax
      >>> import jax.numpy as jnp
      >>> f32 = jax.ShapeDtypeStruct((3,), jnp.float32)
      >>> check_castable(f32, jnp.int8(1), what="x", template_name="like", actual_name="out")
      >>> check_castable(
      ...     f32, jnp.zeros(2), what="cannot convert", template_name="like", actual_name="out"
      ... )  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      jaxpurity.TypeMismatchError: cannot convert.
      ...
        (top level)  shape (2,) does not broadcast to (3,); convert out's value x yourself...
    """
    _raise_if_different(
        template,
        actual,
        what=what,
        names=_Names(template_name, actual_name),
        rule=_castable_rule,
    )
