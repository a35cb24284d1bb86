"""What Python's syntax says, before any analysis: which names a statement binds, and where.

The scope analysis, the taint, the flows and the rules all read the same facts
of the syntax tree: the names an assignment target binds (:func:`names_in`,
:func:`flatten`), the variables a comprehension binds in a scope of its own
(:func:`comprehension_scopes`), the nested functions and classes whose body runs
at another time (:data:`NESTED_SCOPES`), where a node starts (:func:`position`),
which expressions are literals (:func:`is_constant`, :func:`is_container`), and
which lines the bodies of some blocks cover (:class:`Blocks`). Nothing here
imports the analysis; each function is linear in the nodes it is given.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jaxpurity.linter.analysis._names import Names

__all__ = [
    "COMPREHENSIONS",
    "NESTED_SCOPES",
    "Blocks",
    "blocks",
    "comprehension_scopes",
    "flatten",
    "is_constant",
    "is_container",
    "line_blocks",
    "names_in",
    "parameter_names",
    "position",
    "walk_here",
]

#: The comprehensions: each binds its variables in a scope of its own.
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
#: The nodes whose body runs in a scope of its own, at another time: nested functions
#: and classes.
NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

# Calls that make a container (a list, a dict, a set, or a kin of theirs).
_CONTAINER_CALLS = frozenset(
    {
        "list",
        "dict",
        "set",
        "collections.defaultdict",
        "collections.OrderedDict",
        "collections.deque",
        "collections.Counter",
    }
)
_CONTAINER_LITERALS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)


def parameter_names(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """Every parameter of a ``def`` or ``lambda``, ``*args`` and ``**kwargs`` included."""
    args = node.args
    named = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {a.arg for a in named if a is not None}


def names_in(target: ast.expr) -> Iterable[str]:
    """The names an assignment target binds: ``a``, and each of ``a, (b, *c)``."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from names_in(element)
    elif isinstance(target, ast.Starred):
        yield from names_in(target.value)


def flatten(target: ast.expr) -> list[ast.expr]:
    """The single targets of an assignment target: ``a``, ``b.c`` and ``d[0]`` of
    ``a, (b.c, *d[0])``."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [leaf for element in target.elts for leaf in flatten(element)]
    if isinstance(target, ast.Starred):
        return flatten(target.value)
    return [target]


def walk_here(node: ast.AST) -> list[ast.AST]:
    """The nodes under ``node`` (``node`` too), not inside the functions and classes it
    holds, whose bodies run at another time."""
    found, stack = [], [node]
    while stack:
        inner = stack.pop()
        found.append(inner)
        if not isinstance(inner, NESTED_SCOPES) or inner is node:
            stack.extend(ast.iter_child_nodes(inner))
    return found


def position(node: ast.AST) -> tuple[int, int]:
    """Where ``node`` starts: (line, column)."""
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def comprehension_scopes(nodes: Iterable[ast.AST]) -> dict[int, dict[str, ast.expr]]:
    """Where the comprehensions among ``nodes`` bind their variables: for each node (by
    ``id``) that runs in a comprehension's own scope, the names bound there, each with the
    innermost comprehension that binds it.

    A comprehension's variable is a binding of its own: the ``i`` of ``[i for i in
    range(3)]`` is not the ``i`` of the function around it, and it takes its values from
    the iterable. The first iterable runs outside, in the scope around the comprehension;
    nested functions are not entered. Each node is visited once, though ``nodes`` may hold
    a comprehension and those inside it.

    Example:
      >>> tree = ast.parse("[i for i in range(i) if i > 0]")
      >>> scopes = comprehension_scopes(ast.walk(tree))
      >>> names = sorted(
      ...     (n for n in ast.walk(tree) if isinstance(n, ast.Name)), key=lambda n: n.col_offset
      ... )
      >>> [(n.id, n.col_offset, id(n) in scopes) for n in names]
      [('i', 1, True), ('i', 7, True), ('range', 12, False), ('i', 18, False), ('i', 24, True)]
    """
    scopes: dict[int, dict[str, ast.expr]] = {}
    walked: set[int] = set()
    for root in nodes:
        if not isinstance(root, COMPREHENSIONS) or id(root) in walked:
            continue
        stack: list[tuple[ast.AST, dict[str, ast.expr]]] = [(root, {})]
        while stack:
            node, bound = stack.pop()
            if bound:
                scopes[id(node)] = bound
            if isinstance(node, NESTED_SCOPES):
                continue
            if not isinstance(node, COMPREHENSIONS):
                stack.extend((child, bound) for child in ast.iter_child_nodes(node))
                continue
            walked.add(id(node))
            own = {name: node for g in node.generators for name in names_in(g.target)}
            inside = {**bound, **own}
            first = node.generators[0]
            stack.append((first.iter, bound))
            for generator in node.generators:
                scopes[id(generator)] = inside
                parts = [generator.target, *generator.ifs]
                parts += [] if generator is first else [generator.iter]
                stack.extend((part, inside) for part in parts)
            elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            stack.extend((element, inside) for element in elements)
    return scopes


def is_constant(node: ast.expr | None) -> bool:
    """A literal: a number, a string, True/False/None, or a tuple of them."""
    if isinstance(node, ast.UnaryOp):
        return is_constant(node.operand)
    if isinstance(node, ast.Tuple):
        return all(is_constant(e) for e in node.elts)
    return isinstance(node, ast.Constant)


def is_container(node: ast.expr | None, names: Names) -> bool:
    """A list, dict or set made where it is written: a literal, a comprehension, or a call
    of ``list``, ``dict``, ``set``, ``collections.defaultdict`` and their kin."""
    if isinstance(node, _CONTAINER_LITERALS):
        return True
    return isinstance(node, ast.Call) and names.qualified(node.func) in _CONTAINER_CALLS


@dataclass(frozen=True)
class Blocks:
    """The line ranges of some blocks (loop bodies, ``with`` bodies), sorted by start, with
    the furthest end among the first i of them: whether a line is in one is then one
    bisection."""

    ranges: list[tuple[int, int]]
    starts: list[int]
    furthest: list[int]

    def __bool__(self) -> bool:
        return bool(self.ranges)

    def contain(self, line: int) -> bool:
        """Whether a block holds ``line``."""
        index = bisect.bisect_right(self.starts, line)
        return index > 0 and self.furthest[index - 1] >= line

    def share(self, first: int, second: int) -> bool:
        """Whether one block holds both lines."""
        return any(
            start <= min(first, second) and max(first, second) <= end for start, end in self.ranges
        )


def blocks(
    statements: Iterable[ast.For | ast.AsyncFor | ast.While | ast.With | ast.AsyncWith | ast.If],
) -> Blocks:
    """The bodies of ``statements``.

    Example:
      >>> loop = ast.parse("for i in range(3):\\n    a = i\\n    b = a\\nc = 1").body[0]
      >>> bodies = blocks([loop])
      >>> bodies.contain(2), bodies.contain(4), bodies.share(2, 3)
      (True, False, True)
    """
    return line_blocks(
        (node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno)
        for node in statements
    )


def line_blocks(lines: Iterable[tuple[int, int]]) -> Blocks:
    """The blocks of these (first, last) line ranges.

    Example:
      >>> line_blocks([(5, 7), (2, 3)]).contain(6)
      True
    """
    ranges = sorted(lines)
    furthest, ends = 0, []
    for _, end in ranges:
        furthest = max(furthest, end)
        ends.append(furthest)
    return Blocks(ranges, [start for start, _ in ranges], ends)
