"""Which names the source binds once and never changes: constants that a trace may bake in.

A value that ``jit`` bakes into the program goes wrong only when it changes
later. A module constant (``STEPS = 4``, bound once, never rebound nor changed
in place) and a closure variable that its enclosing function binds once (the
array a factory closes over) cannot change, so reading them at trace time is
no warning. The source decides: what the function's own file binds, read with
:mod:`ast`. A function with no file of its own (a notebook cell, ``exec``) has
no source to prove this, nor one whose globals are not its module's namespace (a copy
that other code fills in), and its reads keep their warning.
"""

from __future__ import annotations

import ast
import functools
import linecache
import sys
import types
from collections.abc import Iterator

__all__ = ["MUTATORS", "is_constant"]

#: Methods that change a container in place: ``seen.append(x)`` changes ``seen``.
MUTATORS = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "add", "discard",
    "update", "setdefault", "popitem", "appendleft", "extendleft", "fill", "resize",
})  # fmt: skip
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


@functools.lru_cache(maxsize=32)
def _parsed(filename: str, source: str) -> ast.Module | None:
    try:
        return ast.parse(source, filename)
    except (SyntaxError, ValueError):
        return None


def _module_of(fn: types.FunctionType) -> ast.Module | None:
    """The parsed file that defines ``fn``, when it is its module's own file and ``fn``'s
    globals are that module's namespace (not a copy that other code fills in)."""
    filename = fn.__code__.co_filename
    module = sys.modules.get(fn.__module__ or "")
    if fn.__globals__.get("__file__") != filename or getattr(module, "__dict__", None) is not (
        fn.__globals__
    ):
        return None  # exec'd code, a notebook cell, a copied namespace: bindings unseen
    return _parsed(filename, "".join(linecache.getlines(filename)))


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``scope``'s own body, not those of the functions and classes inside it."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))


def _bindings(scope: ast.AST, name: str) -> int:
    """How many times ``scope`` itself binds ``name`` (parameters, assignments, imports...)."""
    count = 0
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        count += sum(a.arg == name for a in ast.walk(scope.args) if isinstance(a, ast.arg))
    for node in _own_nodes(scope):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            count += 1
        elif isinstance(node, _SCOPES[:2] + _SCOPES[3:]) and node.name == name:
            count += 1
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            count += sum((a.asname or a.name.partition(".")[0]) == name for a in node.names)
        elif isinstance(node, ast.AugAssign) and getattr(node.target, "id", None) == name:
            count += 1  # a second binding: the first made the name
    return count


def _changed_anywhere(tree: ast.AST, name: str) -> bool:
    """Whether any code in ``tree`` rebinds ``name`` from inside (``global``, ``nonlocal``) or
    changes what it holds in place (``name[i] = ...``, ``name.x = ...``, ``name.append(...)``)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
        if isinstance(node, (ast.Subscript, ast.Attribute)) and not isinstance(node.ctx, ast.Load):
            if isinstance(node.value, ast.Name) and node.value.id == name:
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            held = node.func.value
            if node.func.attr in MUTATORS and isinstance(held, ast.Name) and held.id == name:
                return True
    return False


def _enclosing(tree: ast.Module, line: int, name: str) -> ast.AST | None:
    """The innermost function around ``line`` that binds ``name``: the owner of its cell."""
    found = None
    for node in ast.walk(tree):
        if isinstance(node, _SCOPES[:3]) and node.lineno < line <= (node.end_lineno or 0):
            if _bindings(node, name) and (found is None or node.lineno >= found.lineno):
                found = node
    return found


def is_constant(fn: types.FunctionType, name: str, *, closure: bool) -> bool:
    """Whether ``name``, as ``fn`` reads it, is bound once and never changed, by its source.

    Args:
      fn: The function that reads the name.
      name: A global of ``fn`` or, with ``closure``, one of its closure variables.
      closure: Whether ``name`` is a closure variable rather than a global.

    Returns:
      True when the scope that owns ``name`` (``fn``'s module, or the enclosing
      function) binds it exactly once, and no code in it rebinds it with
      ``global`` or ``nonlocal`` or changes it in place.

    Example:
      >>> import jaxpurity.checks._constants as here
      >>> is_constant(here.is_constant, "_SCOPES", closure=False)
      True
    """
    tree = _module_of(fn)
    if tree is None:
        return False
    owner = _enclosing(tree, fn.__code__.co_firstlineno, name) if closure else tree
    return owner is not None and _bindings(owner, name) == 1 and not _changed_anywhere(owner, name)
