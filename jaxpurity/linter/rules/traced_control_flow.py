"""Control flow on traced values: ``if``, ``bool()``, NumPy, ``range()`` need a value, not a tracer.

While JAX traces, an array is a tracer: it has a shape and a dtype, not a
value. Python's ``if``, ``while`` and ``assert`` on one (JP201), ``bool()``,
``int()``, ``float()``, ``.item()`` and ``math`` on one (JP202), NumPy's
functions (JP203: NumPy's files too, ``np.save`` of a traced pytree) and
``range()`` (JP204) all need the value, and fail. A
traced argument tested as it is (``if flag:``) is a flag that should be a
static argument (JP205). Only what the taint knows to be an array counts: a
pytree's attributes, shapes and dtypes are Python values while tracing.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxpurity.linter._family import Family, Rule
from jaxpurity.linter.analysis._arrays import CONVERSIONS, STATIC_CALLS
from jaxpurity.linter.analysis._names import dotted
from jaxpurity.linter.analysis._syntax import Blocks, blocks

if TYPE_CHECKING:
    from jaxpurity.linter._context import TracedFunction

__all__ = ["FAMILY"]

FAMILY = Family(
    Rule(
        "JP201",
        "traced-condition",
        "Python if, while or assert on a traced value",
        "Python `{statement}` on a traced value ({how}): JAX cannot choose while tracing; use "
        "jnp.where, jax.lax.cond or jax.lax.while_loop",
        "python_control_flow",
        "It follows values computed from traced arguments in the function; a traced value "
        "read from a module-level array or returned by a function of another module is not "
        "followed. Parameters with defaults count as Python values, and parameters annotated "
        "as containers as pytrees, not arrays; so does a helper's parameter given a name that "
        "the caller also assigns a Python value (`size = None`).",
        needs_value=True,
    ),
    Rule(
        "JP202",
        "traced-conversion",
        "bool(), int(), float(), .item(), .tolist() or a host container's index of a traced value",
        "`{call}` of a traced value ({how}): it needs the value, which does not exist while "
        "JAX traces",
        "python_control_flow",
        "The same values as JP201. A Python list, tuple or dict or a NumPy array indexed by "
        "a traced array (`strides[i]`, which calls `__index__`) is seen when the scope that "
        "owns the name binds it only to such literals, when it is a parameter annotated as "
        "one or with one as its default, or an attribute of `self` that the class sets only "
        "to those; one made elsewhere is not.",
        needs_value=True,
    ),
    Rule(
        "JP203",
        "numpy-on-traced",
        "A NumPy function on a traced value",
        "NumPy's `{call}` on a traced value ({how}): NumPy needs concrete values; {fix}",
        "python_control_flow",
        "The same values as JP201; NumPy functions that only read a shape or a dtype are allowed. "
        "NumPy's writers (np.save, np.savez, np.savetxt, and jnp.save, which is NumPy's) are "
        "reported on any traced value, a pytree of them too; other writers (open, pickle, a "
        "logger) are not seen.",
        needs_value=True,
    ),
    Rule(
        "JP204",
        "range-over-traced",
        "range() over a traced value",
        "range() over a traced value ({how}): the number of steps must be known while JAX "
        "traces; use jax.lax.fori_loop, or make it a static argument",
        "python_control_flow",
        "The same values as JP201.",
        needs_value=True,
    ),
    Rule(
        "JP205",
        "traced-flag",
        "A traced argument used as a flag",
        "Python `{statement}` on `{name}`, an argument JAX traces ({how}): a flag must be a "
        "static argument (static_argnames)",
        "static_arguments",
        "It reports a traced argument tested as it is (`if flag:`, `if mode == 'a':`); a flag "
        "inside a container is JP201's. An argument annotated as a container "
        "(`Tuple[jax.Array, jax.Array]`, `Sequence`, `dict`) or a class of the module, and "
        "`*args`, is a pytree whose truth is static: not reported. An annotation `bool` or "
        "`int` does not make an argument static, and is no exception.",
        needs_value=True,
    ),
)

# NumPy functions that read only a shape or a dtype, which a tracer has: those whose
# result the taint knows is static, and those given shapes or dtypes.
_NUMPY_STATIC = frozenset(
    {name for name in STATIC_CALLS if name.startswith("numpy.")}
    | {"numpy.can_cast", "numpy.promote_types", "numpy.broadcast_shapes"}
)
# NumPy's writers, which jax.numpy re-exports: they turn every leaf they are given into a
# NumPy array, so a pytree of tracers fails as an array does.
_NUMPY_WRITERS = frozenset(
    f"{module}.{name}"
    for module in ("numpy", "jax.numpy")
    for name in ("save", "savez", "savez_compressed", "savetxt")
)
# Conversions that fail under jax.grad alone too: they would lose the derivative.
_NEED_DERIVATIVE = frozenset({"float", "complex"})
# What a test is, for a message: the statement or expression that makes it.
_STATEMENTS = {
    ast.If: "if",
    ast.While: "while",
    ast.IfExp: "... if ... else ...",
    ast.Assert: "assert",
}


@FAMILY.on(ast.If, ast.While, ast.IfExp, ast.Assert)
def _condition(fn: TracedFunction, node: ast.If | ast.While | ast.IfExp | ast.Assert) -> None:
    _test(fn, node.test, _STATEMENTS[type(node)])


@FAMILY.on(ast.comprehension)
def _comprehension_condition(fn: TracedFunction, node: ast.comprehension) -> None:
    for condition in node.ifs:
        _test(fn, condition, "if")


def _test(fn: TracedFunction, test: ast.expr, statement: str) -> None:
    if not fn.not_only_grad:
        return  # jax.grad alone runs the body on values: a test of one works
    flag = _flag_argument(test)
    if flag is not None and flag in fn.func.traced_params and flag in fn.taint.arrays:
        fn.hit(test, "JP205", statement=statement, name=flag)
    elif _tests_array(fn, test):
        fn.hit(test, "JP201", statement=statement)


def _tests_array(fn: TracedFunction, test: ast.expr) -> bool:
    """Whether Python must turn an array into a bool to decide ``test``."""
    if isinstance(test, ast.BoolOp):
        return any(_tests_array(fn, v) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _tests_array(fn, test.operand)
    return fn.is_array(test)


def _flag_argument(test: ast.expr) -> str | None:
    """The argument a test reads as a flag: ``flag``, ``not flag``, ``mode == "a"``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.Name):
        return test.id
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and len(test.ops) == 1
        and isinstance(test.ops[0], (ast.Eq, ast.NotEq))
        and isinstance(test.comparators[0], ast.Constant)
        and isinstance(test.comparators[0].value, (str, bool))
    ):
        return test.left.id
    return None


@FAMILY.on_call
def _conversion(fn: TracedFunction, node: ast.Call, name: str) -> None:
    grad_only = not fn.not_only_grad
    if name in CONVERSIONS and node.args and fn.is_array(node.args[0]):
        # Under jax.grad alone the value exists: bool() and int() of it work, float()
        # and complex() do not (they would drop the derivative).
        if not grad_only or name in _NEED_DERIVATIVE:
            fn.hit(node, "JP202", call=f"{dotted(node.func) or name}()")
    elif (
        isinstance(node.func, ast.Attribute)
        and node.func.attr in ("item", "tolist")
        and not node.args
        and not grad_only
        and fn.holds_tracer(node.func.value)
    ):
        fn.hit(node, "JP202", call=f".{node.func.attr}()")
    elif name.startswith("math.") and _array_argument(fn, node):
        fn.hit(node, "JP202", call=f"{dotted(node.func) or name}()")
    elif name in _NUMPY_WRITERS and any(fn.holds_tracer(a) for a in _arguments(node)):
        fix = "save the result outside, or from jax.debug.callback"
        fn.hit(node, "JP203", call=f"{dotted(node.func) or name}()", fix=fix)
    elif (
        name.startswith("numpy.")
        and not name.startswith("numpy.random.")
        and name not in _NUMPY_STATIC
        and _array_argument(fn, node)
        and not fn.memo(_numpy_branches).contain(node.lineno)
    ):
        fn.hit(node, "JP203", call=f"{dotted(node.func) or name}()", fix="use jax.numpy")
    elif name == "range" and not grad_only and _array_argument(fn, node):
        fn.hit(node, "JP204")


@FAMILY.on(ast.Subscript)
def _python_index(fn: TracedFunction, node: ast.Subscript) -> None:
    """``strides[i]``: a Python list, tuple or dict, or a NumPy array, indexed by a traced
    array, which calls its ``__index__`` (or its hash), and needs its value."""
    if not isinstance(node.ctx, ast.Load) or isinstance(node.slice, (ast.Slice, ast.Tuple)):
        return
    held = node.value
    if not isinstance(held, (ast.Name, ast.Attribute)):
        return
    kind = fn.module.analysis.python_sequence(held, fn.func)
    if kind is not None and fn.is_array(node.slice):
        fn.hit(node, "JP202", call=f"{dotted(held) or 'it'}[...], a {kind}'s index")


def _numpy_branches(fn: TracedFunction) -> Blocks:
    """The bodies of ``if isinstance(v, np.ndarray):`` in the function: a tracer never gets
    there, so NumPy is given NumPy values (``levanter``'s ``_concatenate``)."""
    tests = []
    for node in fn.func.of(ast.If):
        test = node.test
        if (
            isinstance(test, ast.Call)
            and fn.names.qualified(test.func) == "isinstance"
            and len(test.args) == 2
        ):
            kinds = test.args[1]
            options = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
            if all((fn.names.qualified(k) or "").startswith("numpy.") for k in options):
                tests.append(node)
    return blocks(tests)


def _array_argument(fn: TracedFunction, node: ast.Call) -> bool:
    """Whether an argument of ``node``, by position or keyword, is a traced array."""
    return any(fn.is_array(a) for a in _arguments(node))


def _arguments(node: ast.Call) -> list[ast.expr]:
    """The arguments of ``node``, by position and by keyword."""
    return [*node.args, *(k.value for k in node.keywords)]
