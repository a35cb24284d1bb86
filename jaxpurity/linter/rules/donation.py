"""Donation: an array read again after it was donated to a jitted function, whose buffer is gone.

``donate_argnums`` and ``donate_argnames`` let a jitted function reuse its
arguments' buffers for its results: the donated array is deleted, and reading
it again raises (JP302). The names are followed through each function's
statements in order (:mod:`jaxpurity.linter.analysis._flow`): rebinding the name to the
result makes it fresh, and ``.is_deleted()`` may be read. Looked for in any
code, traced or not.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxpurity.linter._family import Family, Rule
from jaxpurity.linter.analysis._flow import Event
from jaxpurity.linter.analysis._names import dotted
from jaxpurity.linter.analysis._syntax import position, walk_here

if TYPE_CHECKING:
    from jaxpurity.linter._context import ScopeContext

__all__ = ["FAMILY"]

FAMILY = Family(
    Rule(
        "JP302",
        "donated-read",
        "An argument read after it was donated to a jitted function",
        "`{name}` was donated to `{function}` on line {line}: its buffer is deleted; use "
        "the result, and rebind the name (`{name} = {function}({name}, ...)`)",
        "buffer_donation",
        "It follows local names within one function or module, through branches and loops; "
        "an alias of the donated array, or a pytree passed through a helper, is not "
        "followed. Reading .is_deleted() is allowed.",
    ),
)


@FAMILY.on_scope
def _donated_reads(scope: ScopeContext) -> None:
    """Names read after they were donated to a jitted function (``donate_argnums``)."""
    donations: dict[int, tuple[str, str]] = {}  # id of the argument -> (name, function)
    for node, jitted in scope.jitted_calls:
        donated = jitted.options("donate_argnums", "donate_argnames")
        for argument, param in jitted.arguments(node) if donated else ():
            if param in (donated or ()) and isinstance(argument, ast.Name):
                donations[id(argument)] = (argument.id, dotted(node.func) or jitted.func.name)
    if not donations:
        return
    donated_names = {name for name, _ in donations.values()}
    function_at = {}  # (line, name) of a donation -> the function it went to
    for argument in scope.func.of(ast.Name):
        if id(argument) in donations:
            name, function = donations[id(argument)]
            function_at[(argument.lineno, name)] = function

    def events(node: ast.AST) -> list[Event]:
        checked = {
            id(inner.value)
            for inner in ast.walk(node)
            if isinstance(inner, ast.Attribute) and inner.attr == "is_deleted"
        }
        found = [
            Event(inner, inner.id, spends=id(inner) in donations)
            for inner in walk_here(node)
            if isinstance(inner, ast.Name)
            and isinstance(inner.ctx, ast.Load)
            and inner.id in donated_names
            and id(inner) not in checked
        ]
        return sorted(found, key=lambda e: position(e.node))

    for read in scope.spent_uses(events):
        function = function_at.get((read.line, read.name), "a jitted function")
        scope.hit(read.node, "JP302", name=read.name, line=read.line, function=function)
