"""Differentiation: what reverse mode cannot go through, and a ``jnp.where`` that still gives nan.

Reverse-mode differentiation (``jax.grad``, ``vjp``) cannot go through a
``while_loop``, or a ``fori_loop`` whose trip count is traced, that touches a
differentiated value (JP303). And ``jnp.where`` differentiates both of its
sides: a ``sqrt``, ``log`` or division that the condition guards still gives a
nan gradient where it is not picked (JP304). What the function differentiates
is followed with its own taint, made when first needed.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxpurity.linter._family import Family, Rule
from jaxpurity.linter.analysis._names import Names, dotted
from jaxpurity.linter.analysis._syntax import is_constant, names_in

if TYPE_CHECKING:
    from jaxpurity.linter._context import TracedFunction
    from jaxpurity.linter.analysis._taint import Taint

__all__ = ["FAMILY"]

FAMILY = Family(
    Rule(
        "JP303",
        "reverse-through-loop",
        "A loop of traced length under reverse-mode differentiation",
        "`{loop}` {why} under {reverse}: reverse-mode differentiation cannot go through it; "
        "give it a static trip count, or use jax.lax.scan over a fixed maximum with a mask",
        "differentiating_loops",
        "It sees while_loop and fori_loop in the function that jax.grad (or vjp, jacrev, "
        "hessian) differentiates, when they touch a differentiated argument; a loop in a "
        "helper it calls is not seen.",
    ),
    Rule(
        "JP304",
        "where-nan-gradient",
        "jnp.where guarding a sqrt, log or division under jax.grad",
        "`{call}` in a jnp.where that guards it ({how}): jnp.where differentiates both sides, "
        "so the side not picked still gives a nan gradient; guard the input too, with a "
        "second jnp.where",
        "nan_gradients",
        "It sees a sqrt, log, arcsin, arccos, reciprocal or division inside jnp.where whose "
        "condition compares the very value that function is given, up to a sign or abs "
        "(`x > 0` with jnp.log(x), `x != 0` with 1 / x); a condition on another expression "
        "(a switch between formulas), a mask computed before or elsewhere "
        "(jnp.mean(..., where=mask)), log1p and expm1 forms, or jnp.linalg.norm at zero is "
        "not seen.",
    ),
)

_REVERSE_LOOPS = {
    f"{prefix}.{loop}": loop
    for prefix in ("jax.lax", "jaxpurity")
    for loop in ("while_loop", "fori_loop")
}
# Functions whose derivative is infinite or nan somewhere in their domain.
_UNSAFE = frozenset(
    {
        "jax.numpy.sqrt",
        "jax.numpy.log",
        "jax.numpy.log2",
        "jax.numpy.log10",
        "jax.numpy.arcsin",
        "jax.numpy.arccos",
        "jax.numpy.arctanh",
        "jax.numpy.reciprocal",
        "jax.lax.sqrt",
        "jax.lax.rsqrt",
        "jax.lax.log",
    }
)
# Calls that keep an input in a safe range (the fix's inner jnp.where).
_GUARDS = frozenset({"jax.numpy.where", "jax.numpy.maximum", "jax.numpy.clip"})
_ABS = frozenset({"abs", "jax.numpy.abs", "jax.numpy.absolute", "jax.lax.abs"})


@FAMILY.on_call
def _differentiated_call(fn: TracedFunction, node: ast.Call, name: str) -> None:
    if name in _REVERSE_LOOPS and fn.func.differentiated:
        _reverse_loop(fn, node, _REVERSE_LOOPS[name])
    if name == "jax.numpy.where" and len(node.args) == 3 and "grad" in fn.func.kinds:
        _where_nan(fn, node)


def _differentiated(fn: TracedFunction) -> Taint:
    """What in the function derives from its differentiated parameters."""
    return fn.module.analysis.taint_of(fn.func, fn.func.differentiated, staged=False)


def _reverse_loop(fn: TracedFunction, node: ast.Call, loop: str) -> None:
    """A while_loop, or a fori_loop with traced bounds, that touches a differentiated
    value: its arguments, or what its body function reads from here."""
    differentiated = fn.memo(_differentiated)
    body_position = 1 if loop == "while_loop" else 2
    if loop == "fori_loop" and not any(fn.holds_tracer(a) for a in node.args[:2]):
        return  # static bounds: JAX makes it a scan, which reverse mode can go through
    touched = any(differentiated.holds_tracer(a) for a in node.args)
    functions = node.args[: body_position + 1]
    for function in functions:
        target = fn.resolve(function, node.lineno)
        if target is not None:
            touched = touched or bool(target[0].free_reads() & differentiated.tracer_names)
    if touched:
        why = "with a traced trip count" if loop == "fori_loop" else "runs"
        fn.hit(node, "JP303", loop=dotted(node.func), why=why, reverse=fn.func.reverse)


def _where_nan(fn: TracedFunction, node: ast.Call) -> None:
    """``jnp.where(x > 0, jnp.sqrt(x), 0.0)``: the condition compares the very value,
    up to a sign or ``abs``, that an unsafe function on a side is given. A condition on
    another expression (``x > -0.7`` beside ``jnp.log(-jnp.expm1(x))``) switches between
    formulas, and guards nothing."""
    names = fn.names
    compared = {
        _up_to_sign(operand, names)
        for test in ast.walk(node.args[0])
        if isinstance(test, ast.Compare)
        for operand in [test.left, *test.comparators]
        if not is_constant(operand)
    }
    for side in node.args[1:]:
        for inner in ast.walk(side):
            if isinstance(inner, ast.Call) and names.qualified(inner.func) in _UNSAFE:
                # the derivative of sqrt(v) is infinite where v is 0: v must be traced
                given = inner.args[0] if inner.args else None
                unsafe = given is not None and fn.holds_tracer(given)
                what = f"{dotted(inner.func)}()"
            elif isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Div):
                # the derivative of s / n is infinite where n is 0, for s or n traced
                given, unsafe, what = inner.right, fn.holds_tracer(inner), "a division"
            else:
                continue
            if (
                unsafe
                and given is not None
                and _up_to_sign(given, names) in compared
                and not (isinstance(given, ast.Name) and given.id in fn.memo(_guarded_names))
            ):
                fn.hit(inner, "JP304", call=what)
                return


def _guarded_names(fn: TracedFunction) -> set[str]:
    """Names assigned only from jnp.where, jnp.maximum or jnp.clip."""
    verdict: dict[str, bool] = {}
    for node in fn.func.of(ast.Assign):
        guarded = isinstance(node.value, ast.Call) and (
            fn.names.qualified(node.value.func) in _GUARDS
        )
        for target in node.targets:
            for name in names_in(target):
                verdict[name] = verdict.get(name, True) and guarded
    return {name for name, ok in verdict.items() if ok}


def _up_to_sign(node: ast.expr, names: Names) -> str:
    """``node``'s structure, without a sign or ``abs()`` around it: ``-x``, ``jnp.abs(x)``
    and ``x`` are the same value at zero."""
    while True:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            node = node.operand
        elif (
            isinstance(node, ast.Call)
            and len(node.args) == 1
            and names.qualified(node.func) in _ABS
        ):
            node = node.args[0]
        else:
            return ast.dump(node)
