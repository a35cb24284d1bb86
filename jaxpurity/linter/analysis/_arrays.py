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
    "BOOLEAN_FUNCTIONS",
    "CONVERSIONS",
    "FOLDED_ON_CONSTANTS",
    "MAPS",
    "NOT_ARRAY_PREFIXES",
    "NOT_ONE_ARRAY",
    "NOT_TRACER_TYPES",
    "NUMPY_ARRAY_MAKERS",
    "PRIMITIVES",
    "REFERENCE_MAKERS",
    "REFERENCE_TYPES",
    "STATIC_ATTRIBUTES",
    "STATIC_CALLS",
    "STATIC_PARTS",
    "TRACER_ATTRIBUTES",
    "TRACER_ERRORS",
    "TRACER_TYPES",
    "TREE_MAPS",
    "at_update",
    "builds_array",
    "is_at",
    "makes_array",
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
    "jax.numpy.broadcast_shapes",
    "jax.numpy.promote_types",
    "jax.numpy.can_cast",
    "jax.lax.broadcast_shapes",
    "jax.lax.padtype_to_pads",
    "jax.lax.conv_dimension_numbers",
    "jax.lax.conv_general_shape_tuple",
    "jax.lax.conv_transpose_shape_tuple",
    "jax.lax.conv_shape_tuple",
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
    "numpy.broadcast_shapes",
    "numpy.promote_types",
    "numpy.can_cast",
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
#: Those, and Python's ``map``: ``map(jnp.shape, arrays)`` gives shapes, however traced the
#: arrays.
MAPS = TREE_MAPS | {"map"}

#: The constructors of JAX primitives: ``prim.bind(x)`` of one gives an array (a list of
#: them once its ``multiple_results`` is set), traced as ``x`` is, or staged under ``jit``.
PRIMITIVES = frozenset(
    {"jax.core.Primitive", "jax.extend.core.Primitive", "jax._src.core.Primitive"}
)

#: The calls that make a mutable reference (``jax.new_ref``): writing through one
#: (``ref[...] = x``) is the documented way to change state under ``jit``, and the write
#: reaches the caller. A call given ``hijax=True`` (an NNX ``Variable``, ``nnx.with_vars``)
#: makes one too.
REFERENCE_MAKERS = frozenset(
    {
        "jax.new_ref",
        "jax.ref.new_ref",
        "jax.experimental.mutable_array",
        "jax._src.core.mutable_array",
    }
)
#: The annotations of a mutable reference.
REFERENCE_TYPES = frozenset({"jax.Ref", "jax.ref.Ref", "jax.experimental.MutableArray"})

#: The errors JAX raises where Python needs the value of a tracer: code inside a ``try``
#: that catches one expects a tracer there, and goes on without the value.
TRACER_ERRORS = frozenset(
    f"{module}.{name}"
    for module in ("jax.errors", "jax.core", "jax._src.errors")
    for name in (
        "ConcretizationTypeError",
        "TracerBoolConversionError",
        "TracerIntegerConversionError",
        "TracerArrayConversionError",
        "NonConcreteBooleanIndexError",
    )
)

#: Attributes every tracer has: ``hasattr(a, "shape")`` is false of none of them.
TRACER_ATTRIBUTES = STATIC_ATTRIBUTES | {"at", "T", "astype", "reshape"}
#: Types a tracer is an instance of: ``isinstance(a, jax.Array)`` is true of every one.
TRACER_TYPES = frozenset(
    {
        "jax.Array",
        "jax.numpy.ndarray",
        "jax.core.Tracer",
        "jax._src.core.Tracer",
        "jax.typing.ArrayLike",
    }
)
#: Types no tracer is an instance of: a branch that only they reach never sees a tracer.
NOT_TRACER_TYPES = frozenset(
    {
        *"int float bool complex str bytes list tuple dict set frozenset type".split(),
        "numpy.ndarray",
        "numpy.generic",
        "numpy.number",
        "numpy.integer",
        "numpy.floating",
        "numbers.Number",
        "numbers.Integral",
        "numbers.Real",
        "numbers.Complex",
    }
)

#: The modules whose functions return arrays.
ARRAY_MODULES = ("jax.numpy.", "jax.lax.", "jax.random.", "jax.nn.", "jax.scipy.")
#: Those of their functions that make no array: initializers (which return functions).
NOT_ARRAY_PREFIXES = ("jax.nn.initializers.",)
#: Functions that give a Python value when every argument is one: ``lax.psum(1, "i")``,
#: the idiom for the size of an axis.
FOLDED_ON_CONSTANTS = frozenset({"jax.lax.psum"})
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

#: Functions that give a boolean array (a mask) of arrays: comparisons and logical ones.
BOOLEAN_FUNCTIONS = frozenset(
    {
        *(
            f"jax.numpy.{name}"
            for name in (
                "isnan isinf isfinite isneginf isposinf isclose isin signbit logical_and "
                "logical_or logical_not logical_xor equal not_equal greater greater_equal "
                "less less_equal"
            ).split()
        ),
        *(f"jax.lax.{name}" for name in "eq ne gt ge lt le".split()),
    }
)

#: NumPy's functions that make an array: a host array, which a tracer cannot index.
NUMPY_ARRAY_MAKERS = frozenset(
    f"numpy.{name}"
    for name in (
        "array asarray arange zeros ones full empty linspace eye identity concatenate stack "
        "random.rand random.randn random.randint random.normal random.uniform"
    ).split()
)

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


def makes_array(name: str) -> bool:
    """Whether a function of that qualified name returns one array (``jax.numpy.sum``),
    not a Python value, a pytree, a function or an object of JAX's (``lax.Precision``).

    Example:
      >>> [makes_array(f"jax.{name}") for name in ("numpy.arange", "numpy.shape", "lax.Precision")]
      [True, False, False]
    """
    if not name.startswith(ARRAY_MODULES) or name.startswith(NOT_ARRAY_PREFIXES):
        return False
    if name in STATIC_CALLS or name in NOT_ONE_ARRAY:
        return False
    last = name.rpartition(".")[2]
    return not last[:1].isupper() or last == "PRNGKey"


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
