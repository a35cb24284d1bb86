"""Find the source line that stored into a name: where a leaked tracer was put.

Only source is read (:mod:`ast`), never run. A line is reported only when it
is the one: no line beats a wrong one.
"""

from __future__ import annotations

import ast
import functools
import inspect
import ntpath  # its basename splits at "/" and at "\\": paths from any system
import textwrap
import types

from jaxpurity._introspect import code_names

__all__ = ["store_line"]

# Methods that store their arguments into the container they are called on.
_MUTATORS = frozenset(
    "append extend insert add update setdefault appendleft extendleft __setitem__".split()
)


def store_line(
    codes: list[types.CodeType], methods: list[types.CodeType], names: list[str]
) -> str | None:
    """The line that stored the tracer into something named ``names[0]`` (or the next name).

    First the first such line in ``codes`` (the traced function and the code it
    reaches), in order. Else a line in ``methods`` (of the objects on the way
    to the tracer), only when one method has one, or one of the methods that
    ``codes`` call by name does. None when unsure: no line beats a wrong one.
    """
    called = set().union(*(code_names(c) for c in codes))
    for name in names:
        for code in codes:
            found = _first_store(code, name)
            if found is not None:
                return found
        stores = {code: _first_store(code, name) for code in methods}
        candidates = [code for code, found in stores.items() if found is not None]
        calls = [code for code in candidates if code.co_name in called]
        for likely in (calls, candidates):
            if len(likely) == 1:
                return stores[likely[0]]
        if candidates:
            return None
    return None


def _first_store(code: types.CodeType, name: str) -> str | None:
    """``"file.py:12: source"`` for the first statement in ``code`` that stores into ``name``."""
    tree = _source_tree(code)
    if tree is None:
        return None
    filename, first, lines, root = tree
    found = [
        node.lineno
        for node in ast.walk(root)
        if isinstance(node, (ast.stmt, ast.expr)) and _stores_into(node, name)
    ]
    if not found:
        return None
    line = min(found)
    return f"{ntpath.basename(filename)}:{first + line - 1}: {lines[line - 1].strip()}"


@functools.lru_cache(maxsize=256)
def _source_tree(code: types.CodeType) -> tuple[str, int, list[str], ast.AST] | None:
    try:
        lines, first = inspect.getsourcelines(code)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return None
    return code.co_filename, max(first, 1), [line.rstrip("\n") for line in lines], tree


def _mentions(node: ast.AST, name: str) -> bool:
    """Whether an assignment target or method receiver is ``name`` or goes through it."""
    while True:
        if isinstance(node, ast.Name):
            return node.id == name
        if isinstance(node, ast.Attribute):
            if node.attr == name:
                return True
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, (ast.Tuple, ast.List)):
            return any(_mentions(e, name) for e in node.elts)
        elif isinstance(node, ast.Starred):
            node = node.value
        else:
            return False


def _is_literal(node: ast.AST | None) -> bool:
    """Whether an expression is a constant, or a container display of constants: no tracer."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(map(_is_literal, node.elts))
    if isinstance(node, ast.Dict):
        return all(map(_is_literal, [*node.keys, *node.values]))
    return False


def _stores_into(node: ast.AST, name: str) -> bool:
    """Whether a statement may store a tracer into ``name`` (storing a literal cannot)."""
    if isinstance(node, ast.Assign):
        return not _is_literal(node.value) and any(_mentions(t, name) for t in node.targets)
    if isinstance(node, ast.AnnAssign):  # `x: int` alone stores nothing
        value = node.value
        return value is not None and not _is_literal(value) and _mentions(node.target, name)
    if isinstance(node, ast.AugAssign):
        return _mentions(node.target, name)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _MUTATORS:
            literal = all(map(_is_literal, [*node.args, *(k.value for k in node.keywords)]))
            return not literal and _mentions(func.value, name)
        if isinstance(func, ast.Name) and func.id == "setattr" and len(node.args) >= 2:
            attr = node.args[1]
            return isinstance(attr, ast.Constant) and attr.value == name
    return False
