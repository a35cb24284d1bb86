"""What gives a JAX array and what gives a Python value while JAX traces: data, by qualified name.

Knowledge is data: the taint (:mod:`jaxpurity.linter.analysis._taint`) reads these tables
to tell tracers and arrays from Python values, and the rules read them to
tell an array from a pytree or a number. Under a transformation, jax.numpy,
jax.lax and their kin return arrays (:data:`ARRAY_MODULES`), but some of
their functions, and ``len``, ``isinstance`` or ``.shape``, give Python
values however traced their argument (:data:`STATIC_CALLS`,
:data:`STATIC_ATTRIBUTES`). :func:`builds_array` says, from an expression's
source alone, whether it makes one array.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jaxpurity.linter.analysis._names import Names

__all__ = [
    "ARRAY_ATTRIBUTES",
    "ARRAY_METHODS",
    "ARRAY_MODULES",
    "CONVERSIONS",
    "NOT_ONE_ARRAY",
    "STATIC_ATTRIBUTES",
    "STATIC_CALLS",
    "STATIC_PARTS",
    "TREE_MAPS",
    "at_update",
    "builds_array",
    "is_at",
]

#: Attributes of a traced array that are Python values while tracing.
STATIC_ATTRIBUTES = frozenset(
    {"shape", "ndim", "dtype", "size", "weak_type", "sharding", "itemsize", "nbytes", "aval"}
)

#: Calls that turn a traced value into a Python one: the rules flag them; their result is
#: not traced (so that one mistake is reported once).
CONVERSIONS = frozenset({"bool", "int", "float", "complex", "operator.index"})

#: Calls whose result is known while tracing, whatever their arguments: given a tracer,
#: each returns a Python value (a bool, a dtype, a shape), as under jax.jit.
STATIC_CALLS = CONVERSIONS | {
    "len",
    "isinstance",
    "issubclass",
    "type",
    "id",
    "hasattr",
    "callable",
    "range",
    "jax.numpy.shape",
    "jax.numpy.ndim",
    "jax.numpy.size",
    "jax.numpy.result_type",
    "jax.numpy.issubdtype",
    "jax.numpy.isdtype",
    "jax.numpy.iscomplexobj",
    "jax.numpy.isrealobj",
    "jax.numpy.isscalar",
    "jax.numpy.iinfo",
    "jax.numpy.finfo",
    "jax.numpy.dtype",
    "jax.dtypes.result_type",
    "jax.dtypes.issubdtype",
    "jax.eval_shape",
    "jax.typeof",
    "jax.tree_util.tree_structure",
    "jax.tree.structure",
    "flax.nnx.graphdef",
    "numpy.shape",
    "numpy.ndim",
    "numpy.size",
    "numpy.result_type",
    "numpy.issubdtype",
    "numpy.iscomplexobj",
    "numpy.isrealobj",
    "numpy.isscalar",
    "numpy.iinfo",
    "numpy.finfo",
    "numpy.dtype",
}

#: Calls that return a tuple with Python values in it, however traced their arguments: the
#: positions of those values. A tree's structure (``treedef``) and an NNX ``GraphDef``
#: describe a pytree; they hold no array.
STATIC_PARTS: dict[str, tuple[int, ...]] = {
    "flax.nnx.split": (0,),
    "jax.tree_util.tree_flatten": (1,),
    "jax.tree.flatten": (1,),
    "jax.tree_util.tree_flatten_with_path": (1,),
    "jax.tree.flatten_with_path": (1,),
}

#: The functions that map a function over pytrees: the result holds what it returns.
TREE_MAPS = frozenset({"jax.tree.map", "jax.tree_util.tree_map", "jax.tree_map"})

#: The modules whose functions return arrays.
ARRAY_MODULES = ("jax.numpy.", "jax.lax.", "jax.random.", "jax.nn.", "jax.scipy.")
#: Methods that only arrays have (or that return an array when called on one).
ARRAY_METHODS = frozenset(
    (
        "sum mean max min prod any all std var argmax argmin astype reshape ravel flatten "
        "squeeze transpose swapaxes dot clip round cumsum cumprod sort argsort conj take "
        "repeat diagonal trace nonzero"
    ).split()
)
#: Attributes of an array that are arrays.
ARRAY_ATTRIBUTES = frozenset({"T", "mT", "real", "imag"})

#: Functions of :data:`ARRAY_MODULES` whose result is not one array: pytrees of the user's,
#: lists, tuples, or Python values.
NOT_ONE_ARRAY = frozenset(
    {
        *(
            f"jax.lax.{name}"
            for name in "scan fori_loop while_loop map associative_scan cond switch".split()
        ),
        "jax.numpy.split",
        "jax.numpy.array_split",
        "jax.numpy.hsplit",
        "jax.numpy.vsplit",
        "jax.numpy.dsplit",
        "jax.numpy.meshgrid",
        "jax.numpy.broadcast_arrays",
        "jax.numpy.nonzero",
        "jax.numpy.unravel_index",
        "jax.numpy.shape",
        "jax.numpy.ndim",
        "jax.numpy.size",
    }
)

# The methods of ``.at[...]``.
_AT_METHODS = frozenset(
    {"set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max", "apply"}
)


def is_at(node: ast.Subscript) -> bool:
    """``x.at[i]``."""
    return isinstance(node.value, ast.Attribute) and node.value.attr == "at"


def at_update(node: ast.expr) -> tuple[ast.expr, str] | None:
    """The array and the method of ``node`` when it is ``array.at[...].set(...)`` (or
    ``add``, ``multiply``, ...); else None.

    Example:
      >>> array, method = at_update(ast.parse("x.at[0].add(1)", mode="eval").body)
      >>> ast.unparse(array), method
      ('x', 'add')
    """
    method = node.func if isinstance(node, ast.Call) else None
    if (
        isinstance(method, ast.Attribute)
        and method.attr in _AT_METHODS
        and isinstance(method.value, ast.Subscript)
        and is_at(method.value)
    ):
        assert isinstance(method.value.value, ast.Attribute)
        return method.value.value.value, method.attr
    return None


def builds_array(node: ast.expr | None, names: Names, known: dict[str, bool] | None = None) -> bool:
    """Whether ``node`` makes a JAX array: a jax.numpy (jax.random, jax.nn, jax.scipy) call,
    an ``.at[...]`` update, arithmetic on those, or a name already known to be one."""
    if isinstance(node, ast.Call):
        name = names.qualified(node.func) or ""
        if name.startswith(ARRAY_MODULES) and name not in NOT_ONE_ARRAY:
            return True
        return at_update(node) is not None
    if isinstance(node, ast.BinOp):
        return builds_array(node.left, names, known) or builds_array(node.right, names, known)
    if isinstance(node, ast.UnaryOp):
        return builds_array(node.operand, names, known)
    if isinstance(node, ast.Name) and known is not None:
        return known.get(node.id, False)
    return False
