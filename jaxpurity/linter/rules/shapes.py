"""Shapes that depend on traced values: a traced shape or axis, a boolean mask, a traced slice.

Every array JAX traces has a shape known while tracing. A shape, size or axis
given a traced value (JP206), a boolean mask or ``nonzero`` whose result's
size depends on the data (JP207), and a slice with traced bounds (JP208) ask
for a shape that only the values would give.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxpurity.linter._family import Family, Rule
from jaxpurity.linter.analysis._arrays import BOOLEAN_FUNCTIONS
from jaxpurity.linter.analysis._names import dotted

if TYPE_CHECKING:
    from jaxpurity.linter._context import TracedFunction

__all__ = ["FAMILY"]

FAMILY = Family(
    Rule(
        "JP206",
        "traced-shape",
        "A traced value used as a shape, size or axis",
        "{what} is traced ({how}): shapes and axes must be known while JAX traces; make it a "
        "static argument, or read it from an array's .shape",
        "static_arguments",
        "It knows the axis=, shape=, size= and length= arguments and the shape arguments of "
        "jnp.zeros, ones, empty, full, arange, eye, linspace, reshape, broadcast_to, tile "
        "and the jax.random samplers.",
        needs_value=True,
    ),
    Rule(
        "JP207",
        "boolean-mask",
        "A boolean mask or nonzero of a traced value",
        "{what} ({how}): the size of the result depends on the data; use jnp.where, or give size=",
        "boolean_masks",
        "It sees a mask written as a comparison, a logical function (jnp.isnan, "
        "jnp.logical_and, ...) or .astype(bool), or a name assigned one, as an index or in "
        "`.at[...]`; a boolean array from elsewhere, used as an index, is not seen.",
        needs_value=True,
    ),
    Rule(
        "JP208",
        "traced-slice",
        "A slice with traced bounds",
        "slice with traced bounds ({how}): slice bounds must be known while JAX traces; use "
        "jax.lax.dynamic_slice",
        "dynamic_slicing",
        "The same values as JP201.",
        needs_value=True,
    ),
)

_SHAPE_KEYWORDS = {
    "axis": "an axis",
    "axes": "axes",
    "shape": "a shape",
    "size": "a size",
    "length": "a length",
    "num": "a count",
    "num_segments": "a segment count",
    "total_repeat_length": "a length",
    "new_sizes": "a shape",
}
# Positions of shape arguments: None for all positional arguments.
_SHAPE_POSITIONS: dict[str, tuple[int, ...] | None] = {
    "jax.numpy.zeros": (0,),
    "jax.numpy.ones": (0,),
    "jax.numpy.empty": (0,),
    "jax.numpy.full": (0,),
    "jax.numpy.arange": None,
    "jax.numpy.eye": (0, 1),
    "jax.numpy.identity": (0,),
    "jax.numpy.linspace": (2,),
    "jax.numpy.reshape": (1,),
    "jax.numpy.broadcast_to": (1,),
    "jax.numpy.tile": (1,),
    "jax.random.normal": (1,),
    "jax.random.uniform": (1,),
    "jax.random.randint": (1,),
    "jax.random.bernoulli": (2,),
}
_SHAPE_METHODS = frozenset({"reshape", "broadcast_to"})
# The boolean dtypes, as ``.astype(...)`` names them.
_BOOLEAN_TYPES = frozenset({"bool", "jax.numpy.bool_", "numpy.bool_", "jax.numpy.bool"})
_NONZERO = frozenset(
    f"jax.numpy.{name}"
    for name in (
        "nonzero argwhere flatnonzero unique unique_values unique_counts unique_inverse "
        "unique_all compress extract"
    ).split()
)


@FAMILY.on_call
def _shapes(fn: TracedFunction, node: ast.Call, name: str) -> None:
    on_array = isinstance(node.func, ast.Attribute) and fn.holds_tracer(node.func.value)
    if name.startswith("jax.") or on_array:
        for keyword in node.keywords:
            if keyword.arg in _SHAPE_KEYWORDS and fn.is_array(keyword.value):
                what = f"{_SHAPE_KEYWORDS[keyword.arg]} ({keyword.arg}=)"
                fn.hit(keyword.value, "JP206", what=what)
                return
    positions: tuple[int, ...] | None = ()
    if name in _SHAPE_POSITIONS:
        positions = _SHAPE_POSITIONS[name]
    elif on_array and isinstance(node.func, ast.Attribute) and node.func.attr in _SHAPE_METHODS:
        positions = None
    shape_args = (
        node.args if positions is None else [node.args[i] for i in positions if i < len(node.args)]
    )
    for argument in shape_args:
        if fn.is_array(argument):
            fn.hit(argument, "JP206", what=f"a shape (of {dotted(node.func)})")
            return
    if fn.not_only_grad and not any(k.arg == "size" for k in node.keywords):
        nonzero = name in _NONZERO or (name == "jax.numpy.where" and len(node.args) == 1)
        method = isinstance(node.func, ast.Attribute) and node.func.attr == "nonzero" and on_array
        if (nonzero and any(fn.is_array(a) for a in node.args)) or method:
            fn.hit(node, "JP207", what=f"{dotted(node.func)}() without size=")


@FAMILY.on(ast.Subscript)
def _index(fn: TracedFunction, node: ast.Subscript) -> None:
    if not isinstance(node.ctx, ast.Load):
        return
    index = node.slice
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    bounds = [b for p in parts if isinstance(p, ast.Slice) for b in (p.lower, p.upper, p.step)]
    if any(fn.is_array(b) for b in bounds):
        fn.hit(node, "JP208")
    elif (
        fn.not_only_grad
        and fn.holds_tracer(node.value)
        and any(_is_mask(fn, p, fn.memo(_mask_names)) for p in parts)
    ):
        fn.hit(node, "JP207", what="a boolean mask as an index")


def _mask_names(fn: TracedFunction) -> set[str]:
    """The names that the function assigns a boolean mask (``keep = x > 0``)."""
    masks: set[str] = set()
    for node in fn.func.of(ast.Assign):
        if len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and _is_mask(fn, node.value, masks):
                masks.add(target.id)
    return masks


def _is_mask(fn: TracedFunction, node: ast.expr, masks: set[str]) -> bool:
    """Whether ``node`` is a boolean mask: a comparison of arrays, a logical function of
    them (``jnp.isnan(x)``, ``jnp.logical_and``), ``.astype(bool)`` of one, one of
    ``masks``, or ``~``, ``&``, ``|`` or ``^`` of those."""
    if isinstance(node, ast.Name):
        return node.id in masks
    if isinstance(node, ast.Compare):
        return fn.is_array(node)
    if isinstance(node, ast.Call):
        if fn.names.qualified(node.func) in BOOLEAN_FUNCTIONS:
            return fn.is_array(node)
        method = node.func
        return (
            isinstance(method, ast.Attribute)
            and method.attr == "astype"
            and len(node.args) == 1
            and (fn.names.qualified(node.args[0]) or "") in _BOOLEAN_TYPES
            and fn.is_array(node)
        )
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return _is_mask(fn, node.operand, masks)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return _is_mask(fn, node.left, masks) or _is_mask(fn, node.right, masks)
    return False
