"""The checker: runs every rule family's checks (:mod:`jaxpurity.linter.rules`) over one module.

:func:`check` takes a module's :class:`~jaxpurity.linter.analysis._module.ModuleAnalysis` and
returns a :class:`~jaxpurity.linter._context.Hit` per finding. It visits each traced
function's own nodes once, in source order, and hands each node to the checks that the
families registered for its type (:class:`~jaxpurity.linter._family.Family`), with a
:class:`~jaxpurity.linter._context.TracedFunction`: how JAX traces the function, and what
:class:`~jaxpurity.linter.analysis._taint.Taint` knows of its traced values and arrays.
Then it runs the families' checks of whole scopes, with a
:class:`~jaxpurity.linter._context.ScopeContext`, on every function and on the module's own
code, traced or not: item assignment on an array, a discarded ``.at[...]`` update, a
reused key, a donated array read again, an unhashable static argument and a ``jit``
inside a loop are looked for everywhere. Nothing is reported in code that a test expects
to fail (:attr:`~jaxpurity.linter._context.Module.expected_errors`) or that a constant flag
of the module closes (``if DEBUG:`` after ``DEBUG = False``,
:attr:`~jaxpurity.linter._context.Module.unreached`), nor the need for a tracer's value
where a ``try`` catches JAX's tracer errors
(:attr:`~jaxpurity.linter._context.Module.tracer_guarded`).

Complexity: each node of a traced function is handed to a fixed number of
checks, and each check looks at a constant number of nodes, or at the nodes of
one type of one function, once per module (the flows of keys and donated
arrays are linear too); so the checks are linear in the size of the module.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from jaxpurity.linter._context import Hit, Module, ScopeContext, TracedFunction
from jaxpurity.linter._rules import FAMILIES
from jaxpurity.linter.analysis._module import ModuleAnalysis

__all__ = ["check"]


def check(analysis: ModuleAnalysis) -> list[Hit]:
    """Every finding in the module of ``scopes``.

    Example:
      >>> from jaxpurity.linter.analysis._names import Names
      >>> from jaxpurity.linter.analysis._known_transforms import TRANSFORMS
      >>> tree = ast.parse("import jax\\n@jax.jit\\ndef f(x):\\n    if x > 0:\\n        return x")
      >>> analysis = ModuleAnalysis(tree, Names(tree), TRANSFORMS)
      >>> [(hit.code, hit.node.lineno) for hit in check(analysis)]
      [('JP201', 4)]
    """
    module = Module(analysis)
    hits: list[Hit] = []
    for func in analysis.traced_functions():
        hits += _check_traced(TracedFunction(func, module))
    for func in analysis.funcs:
        scope = ScopeContext(func, module)
        for scope_check in _SCOPE_CHECKS:
            scope_check(scope)
        hits += scope.hits
    expected, unreached, guarded = (
        module.expected_errors,
        module.unreached,
        module.tracer_guarded,
    )
    return [
        hit
        for hit in hits
        if not expected.contain(line := getattr(hit.node, "lineno", 0))
        and not unreached.contain(line)
        and not (hit.code in _NEEDS_VALUE and guarded.contain(line))
    ]


def _check_traced(fn: TracedFunction) -> list[Hit]:
    """Run the families' checks on one traced function: each check of the function as a
    whole, then each node's checks, node by node in source order."""
    for function_check in _FUNCTION_CHECKS:
        function_check(fn)
    qualified = fn.names.qualified
    node_checks = _NODE_CHECKS
    for node in fn.func.nodes:
        if type(node) is ast.Call:
            name = qualified(node.func) or ""
            for call_check in _CALL_CHECKS:
                call_check(fn, node, name)
        else:
            for node_check in node_checks.get(type(node), ()):
                node_check(fn, node)
    return fn.hits


# Every family's checks, in the order of the families.
_NODE_CHECKS: dict[type[ast.AST], tuple[Callable[[TracedFunction, Any], None], ...]] = {
    kind: tuple(check for family in FAMILIES for check in family.node_checks.get(kind, ()))
    for kind in {kind for family in FAMILIES for kind in family.node_checks}
}
_CALL_CHECKS = tuple(check for family in FAMILIES for check in family.call_checks)
_FUNCTION_CHECKS = tuple(check for family in FAMILIES for check in family.function_checks)
_SCOPE_CHECKS = tuple(check for family in FAMILIES for check in family.scope_checks)
# The codes of the rules that need a tracer's value (not reported where a try expects one).
_NEEDS_VALUE = frozenset(
    rule.code for family in FAMILIES for rule in family.rules if rule.needs_value
)
