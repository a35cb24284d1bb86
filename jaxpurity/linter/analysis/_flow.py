"""Names used after they are spent: a flow through one block's statements, in order.

Some values may be used once: a :mod:`jax.random` key (drawing from it twice
gives the same numbers twice), an array donated to a jitted function (its
buffer is deleted). :func:`spent_uses` walks a block of statements in source
order with a caller's notion of *events*, each a name being spent or read, and
reports each event on a name already spent. Assigning the name again
(``key, sub = jax.random.split(key)``, ``params = step(params)``) makes it
fresh; a comprehension's variable of the same name does not, being the
comprehension's own. Branches are followed separately and joined (a name spent on either
path counts as spent; a path that returns, raises, breaks or continues does
not reach the join), and a loop's body is walked twice, so that a name spent
in one iteration and not replaced is caught in the next. Nested functions are
flows of their own and are skipped.

The walk is linear: loops nested in loops would double it at each level, so
once it has visited as many statements as its budget (a few times the size of
the block), it walks the remaining loop bodies once.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import cast

from jaxpurity.linter.analysis._syntax import (
    COMPREHENSIONS,
    NESTED_SCOPES,
    comprehension_scopes,
    names_in,
    position,
)

__all__ = ["MARK", "Event", "Spent", "calls_in_order", "spent_uses"]

_TRY: tuple[type, ...] = (ast.Try, getattr(ast, "TryStar", ast.Try))  # TryStar: Python 3.11+

#: What separates a name from a mark of it in an event (``key/reordered``): a caller's
#: second fact about one name, made fresh with it when the name is assigned again.
MARK = "/"


@dataclass(frozen=True)
class Event:
    """``name`` read (``spends=False``) or spent (``spends=True``) at ``node``; ``always``:
    a second use whatever came before (a draw from one key in every round of a
    comprehension, or a second draw from its own variable in one round); ``late``: the
    spending comes after the statement binds its names (a name it binds, spent by the
    value bound to it)."""

    node: ast.AST
    name: str
    spends: bool
    always: bool = False
    late: bool = False


@dataclass(frozen=True)
class Spent:
    """An event on a name already spent: where, the name, and the line it was spent on."""

    node: ast.AST
    name: str
    line: int


def spent_uses(
    body: list[ast.stmt], events: Callable[[ast.AST], Iterable[Event]], budget: int
) -> list[Spent]:
    """The events of ``body`` on names already spent, in source order.

    ``events(node)`` gives the events of one simple statement, or of one expression of a
    compound statement's header (an ``if`` test, a ``for`` iterable), in the order they run.
    ``budget`` is how many statements to visit before loops are walked once only (a few
    times the size of the block).

    Example:
      >>> def draws(node):
      ...     for call in calls_in_order([node]):
      ...         if isinstance(call.func, ast.Name) and call.func.id == "draw":
      ...             yield Event(call, call.args[0].id, spends=True)
      >>> source = "a = draw(key)\\nif a:\\n    b = draw(key)\\nkey = new()\\nc = draw(key)"
      >>> body = ast.parse(source).body
      >>> [(s.node.lineno, s.name, s.line) for s in spent_uses(body, draws, budget=20)]
      [(3, 'key', 1)]
    """
    flow = _Flow(events, budget)
    flow.block(body, {})
    return sorted(flow.found.values(), key=lambda s: position(s.node))


def calls_in_order(nodes: Iterable[ast.AST]) -> Iterator[ast.Call]:
    """The calls in ``nodes``, outer before inner and left to right, not inside nested
    functions."""
    stack = list(reversed(list(nodes)))
    while stack:
        node = stack.pop()
        if isinstance(node, NESTED_SCOPES):
            continue
        if isinstance(node, ast.Call):
            yield node
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


# What is spent on one path (name -> the line that spent it); None: no path gets here
# (after a return, a raise, a break or a continue).
_State = dict[str, int] | None
_ENDS = (ast.Return, ast.Raise, ast.Break, ast.Continue)


class _Flow:
    def __init__(self, events: Callable[[ast.AST], Iterable[Event]], budget: int) -> None:
        self.events = events
        self.budget = budget
        self.found: dict[int, Spent] = {}

    def block(self, statements: list[ast.stmt], spent: _State) -> _State:
        for statement in statements:
            if spent is None:
                return None
            spent = self.statement(statement, spent)
        return spent

    def statement(self, node: ast.stmt, spent: dict[str, int]) -> _State:
        self.budget -= 1
        if isinstance(node, NESTED_SCOPES):
            return spent
        if isinstance(node, ast.If):
            self.run(node.test, spent)
            return _join(self.block(node.body, dict(spent)), self.block(node.orelse, dict(spent)))
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            loop_names: set[str] = set()
            if isinstance(node, ast.While):
                self.run(node.test, spent)
            else:
                self.run(node.iter, spent)
                loop_names = set(names_in(node.target))
            after = self.block(node.body, _without(spent, loop_names))
            if self.budget > 0 and after is not None:
                after = self.block(node.body, _without(after, loop_names))
            return self.block(node.orelse, _join(spent, after))
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.run(item.context_expr, spent)
                if item.optional_vars is not None:
                    spent = _without(spent, set(names_in(item.optional_vars)))
            return self.block(node.body, spent)
        if isinstance(node, _TRY):
            attempt = cast(ast.Try, node)
            after = self.block(attempt.body, spent)
            for handler in attempt.handlers:
                after = _join(after, self.block(handler.body, dict(spent)))
            after = self.block(attempt.orelse, after)
            return self.block(attempt.finalbody, after if after is not None else dict(spent))
        if isinstance(node, ast.Match):
            self.run(node.subject, spent)
            joined: _State = None
            for case in node.cases:
                joined = _join(joined, self.block(case.body, dict(spent)))
            return _join(joined, spent)
        late = self.run(node, spent)
        if isinstance(node, _ENDS):
            return None
        spent = _without(spent, set(_stored(node)))
        for event in late:
            spent[event.name] = getattr(event.node, "lineno", 0)
        return spent

    def run(self, node: ast.AST, spent: dict[str, int]) -> list[Event]:
        """Apply the events of ``node``; return those that spend after its bindings."""
        late = []
        for event in self.events(node):
            if event.late:
                late.append(event)
                continue
            line = getattr(event.node, "lineno", 0)
            if event.always:
                self.found.setdefault(id(event.node), Spent(event.node, event.name, line))
            elif event.name in spent:
                self.found.setdefault(
                    id(event.node), Spent(event.node, event.name, spent[event.name])
                )
            if event.spends:
                spent[event.name] = line
        return late


def _stored(node: ast.AST) -> Iterator[str]:
    """The names a statement assigns, not the variables of its comprehensions (their own).
    One walk; only a comprehension's part of it is read again, for its own scope."""
    stack = [node]
    while stack:
        child = stack.pop()
        if isinstance(child, COMPREHENSIONS):
            scopes = comprehension_scopes(ast.walk(child))
            for inner in ast.walk(child):
                if isinstance(inner, ast.Name) and not isinstance(inner.ctx, ast.Load):
                    if inner.id not in scopes.get(id(inner), {}):
                        yield inner.id
            continue
        if isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
            yield child.id
        stack.extend(ast.iter_child_nodes(child))


def _without(spent: dict[str, int], names: set[str]) -> dict[str, int]:
    """``spent`` less ``names`` and their marks (``key/reordered``: see :data:`MARK`)."""
    return {k: v for k, v in spent.items() if k.partition(MARK)[0] not in names}


def _join(first: _State, second: _State) -> _State:
    """What is spent where two paths meet: spent on either."""
    if first is None or second is None:
        return second if first is None else first
    return {**second, **first}
