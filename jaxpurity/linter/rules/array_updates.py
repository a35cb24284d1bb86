"""JAX arrays written in place: item assignment, and an ``.at[...]`` update whose result is dropped.

JAX arrays are immutable, traced or not: ``x[0] = 1`` on one raises (JP209),
and ``x.at[0].set(1)`` returns a new array and leaves ``x`` as it was, so a
statement that drops its result does nothing (JP210). Both are looked for in
any code, traced or not.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxpurity.linter._family import Family, Rule
from jaxpurity.linter.analysis._arrays import at_update
from jaxpurity.linter.analysis._syntax import flatten

if TYPE_CHECKING:
    from jaxpurity.linter._context import ScopeContext

__all__ = ["FAMILY"]

FAMILY = Family(
    Rule(
        "JP209",
        "item-assignment",
        "Item assignment on a JAX array",
        "item assignment on the JAX array `{name}`: JAX arrays are immutable; write "
        "`{name} = {name}.at[...].set(...)`",
        "inplace_updates",
        "It knows an array by its assignment from a jax.numpy, jax.lax or jax.random call in "
        "the same function; an array passed in as an argument is not seen.",
    ),
    Rule(
        "JP210",
        "discarded-update",
        "The result of .at[...].set() discarded",
        "the result of `.at[...].{method}()` is discarded: it returns a new array and leaves "
        "`{name}` as it was",
        "inplace_updates",
        "It sees the update as a statement of its own; one whose result is assigned to a "
        "name never used is not seen.",
    ),
)


@FAMILY.on_scope
def _item_assignment(scope: ScopeContext) -> None:
    arrays = scope.module.analysis.array_names(scope.func)
    assignments: list[ast.Assign | ast.AugAssign] = [
        *scope.func.of(ast.Assign),
        *scope.func.of(ast.AugAssign),
    ]
    for node in assignments:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            for element in flatten(target):
                if (
                    isinstance(element, ast.Subscript)
                    and isinstance(element.value, ast.Name)
                    and element.value.id in arrays
                ):
                    scope.hit(element, "JP209", name=element.value.id)


@FAMILY.on_scope
def _discarded_update(scope: ScopeContext) -> None:
    for statement in scope.func.of(ast.Expr):
        update = at_update(statement.value)
        if update is not None:
            array, method = update
            scope.hit(statement.value, "JP210", method=method, name=_short(array))


def _short(node: ast.expr) -> str:
    """``node`` as source, cut to a length that fits a message."""
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."
