"""Retracing: a new function jitted inside a loop, traced and compiled again on every iteration.

``jax.jit`` caches its compiled code on the function object: a lambda, a
``functools.partial`` or a function defined in a loop is a new object on every
iteration, so each iteration traces and compiles again (JP301). Looked for in
any code, traced or not.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxpurity.linter._family import Family, Rule
from jaxpurity.linter.analysis._known_transforms import PARTIAL
from jaxpurity.linter.analysis._names import dotted
from jaxpurity.linter.analysis._syntax import Blocks, blocks, names_in

if TYPE_CHECKING:
    from jaxpurity.linter._context import ScopeContext

__all__ = ["FAMILY"]

FAMILY = Family(
    Rule(
        "JP301",
        "jit-in-loop",
        "jax.jit of a new function inside a loop",
        "{transform} of a new {what} inside a loop: every iteration traces and compiles "
        "again; make the function once, before the loop",
        "retracing_storms",
        "It sees a lambda, a functools.partial or a function defined in the loop, wrapped in "
        "the loop; a new function made by a factory call, or a static argument that changes "
        "on every call, is not seen. A jit whose options read the loop's variable "
        "(`out_shardings=shardings[group]`) compiles one function per group on purpose, "
        "and is not reported.",
    ),
)

# The kinds of transformation that compile and cache (see analysis/_known_transforms.py).
_JIT_KINDS = frozenset({"jit", "pmap"})


@FAMILY.on_scope
def _jit_in_loops(scope: ScopeContext) -> None:
    func = scope.func
    loops = blocks([*func.of(ast.For), *func.of(ast.AsyncFor), *func.of(ast.While)])
    if loops:
        for call in func.of(ast.Call):
            _jit_in_loop(scope, call, loops)


def _jit_in_loop(scope: ScopeContext, node: ast.Call, loops: Blocks) -> None:
    known = scope.module.analysis.applied.known
    transform = known.get(scope.names.qualified(node.func) or "")
    if transform is None or transform.kind not in _JIT_KINDS or not node.args:
        return
    if not loops.contain(node.lineno):
        return
    function = node.args[0]
    what = None
    if isinstance(function, ast.Lambda):
        what = "lambda"
    elif isinstance(function, ast.Call) and scope.names.qualified(function.func) in PARTIAL:
        what = "functools.partial"
    elif isinstance(function, ast.Name):
        target = scope.resolve(function, node.lineno)
        if target is not None and loops.share(target[0].line, node.lineno):
            what = "function defined in the loop"
    if what is not None and not _per_group(scope, node):
        scope.hit(node, "JP301", transform=dotted(node.func), what=what)


def _per_group(scope: ScopeContext, node: ast.Call) -> bool:
    """Whether the options of the jit call ``node`` read the variable of a loop around it
    (``out_shardings=sharding[layer_name]``): one compiled function per group of the loop,
    each with its own options, which one function made before the loop could not have."""
    options = [*node.args[1:], *(k.value for k in node.keywords)]
    read = {n.id for option in options for n in ast.walk(option) if isinstance(n, ast.Name)}
    if not read:
        return False
    loops: list[ast.For | ast.AsyncFor] = [*scope.func.of(ast.For), *scope.func.of(ast.AsyncFor)]
    for loop in loops:
        if loop.lineno <= node.lineno <= (loop.end_lineno or loop.lineno):
            if read & set(names_in(loop.target)):
                return True
    return False
