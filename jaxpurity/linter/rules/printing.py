"""Printing and callbacks: what runs on the host while JAX traces, not when the compiled code runs.

``print`` of a traced value runs once, while JAX traces, and shows a tracer
(JP130), once for all devices under ``shard_map`` or ``pmap`` (JP131). An
f-string given to ``jax.debug.print`` is filled in while tracing, with a tracer
in it (JP132). And ``jit`` removes a ``jax.pure_callback`` whose result is
unused (JP133).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxpurity.linter._family import Family, Rule
from jaxpurity.linter.analysis._known_transforms import DEVICES

if TYPE_CHECKING:
    from jaxpurity.linter._context import TracedFunction

__all__ = ["FAMILY"]

FAMILY = Family(
    Rule(
        "JP130",
        "print-traced",
        "print of a traced value",
        "print of a traced value ({how}): it runs while JAX traces and shows a tracer; use "
        "jax.debug.print",
        "print_vs_debug_print",
        "It reports print calls whose arguments derive from traced arguments; a print of a "
        "value computed from module-level arrays, or a logging call, is not reported, nor a "
        "tree that jax.tree.map builds with a function returning Python values (an `is None` "
        "or isinstance test, a shape).",
    ),
    Rule(
        "JP131",
        "print-on-devices",
        "print of a traced value under shard_map or pmap",
        "print of a traced value on several devices ({how}): it runs once, while JAX traces, "
        "not once per device; use jax.debug.print",
        "side_effects_across_devices",
        "The same prints as JP130, under shard_map or pmap.",
    ),
    Rule(
        "JP132",
        "f-string-debug-print",
        "An f-string with a traced value given to jax.debug.print",
        "the f-string given to jax.debug.print is filled in while JAX traces ({how}), with a "
        'tracer in it; pass the value as an argument: jax.debug.print("{{}}", x)',
        "callbacks",
        "It sees an f-string written in the call; a message formatted earlier is not seen.",
    ),
    Rule(
        "JP133",
        "dropped-pure-callback",
        "A jax.pure_callback whose result is unused",
        "the result of jax.pure_callback is unused, so jit removes the call ({how}); for a "
        "side effect, use jax.debug.callback",
        "callbacks",
        "It sees a pure_callback whose result is not assigned; one assigned to a name that "
        "is never used is not seen.",
    ),
)


@FAMILY.on_call
def _print(fn: TracedFunction, node: ast.Call, name: str) -> None:
    if name == "print":
        printed = [a.value if isinstance(a, ast.Starred) else a for a in node.args]
        if any(fn.shows_tracer(a) for a in printed):
            fn.hit(node, "JP131" if fn.func.kinds & DEVICES else "JP130")
    elif name == "jax.debug.print" and node.args and isinstance(node.args[0], ast.JoinedStr):
        if fn.holds_tracer(node.args[0]):
            fn.hit(node, "JP132")


@FAMILY.on(ast.Expr)
def _dropped_callback(fn: TracedFunction, node: ast.Expr) -> None:
    call = node.value
    if (
        fn.cached
        and isinstance(call, ast.Call)
        and fn.names.qualified(call.func) == "jax.pure_callback"
    ):
        fn.hit(call, "JP133")
