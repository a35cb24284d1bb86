"""Static arguments that cannot be hashed: a list, dict, set or mutable dataclass passed as one.

``jit`` keys its cache of compiled code on the values of its static arguments
(``static_argnums``, ``static_argnames``), so they must be hashable: a list, a
dict, a set, or a dataclass without ``frozen=True``, built in the call of a
jitted function, raises ValueError (JP211). Looked for at every call of a
jitted function of the module, traced or not.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxpurity.linter._family import Family, Rule
from jaxpurity.linter.analysis._names import Names, dotted

if TYPE_CHECKING:
    from jaxpurity.linter._context import ScopeContext

__all__ = ["FAMILY"]

FAMILY = Family(
    Rule(
        "JP211",
        "unhashable-static",
        "A list, dict, set or mutable dataclass passed as a static argument",
        "`{name}` is a static argument of `{function}`, and {what} is not hashable: jit "
        "raises ValueError; pass a tuple or a frozen dataclass",
        "static_objects",
        "It sees literals and dataclasses of the same module built in the call; an object "
        "made elsewhere, or one that hashes by identity and changes later, is not seen.",
    ),
)


@FAMILY.on_scope
def _unhashable_statics(scope: ScopeContext) -> None:
    """Lists, dicts, sets and mutable dataclasses passed as static arguments."""
    for node, jitted in scope.jitted_calls:
        static = jitted.options("static_argnums", "static_argnames")
        for argument, param in jitted.arguments(node) if static else ():
            what = _unhashable(argument, scope) if param in (static or ()) else None
            if what:
                function = dotted(node.func) or jitted.func.name
                scope.hit(argument, "JP211", name=param, function=function, what=what)


def _unhashable(node: ast.expr, scope: ScopeContext) -> str | None:
    if isinstance(node, (ast.List, ast.ListComp)):
        return "a list"
    if isinstance(node, (ast.Dict, ast.DictComp)):
        return "a dict"
    if isinstance(node, (ast.Set, ast.SetComp)):
        return "a set"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        cls = scope.module.func.classes.get(node.func.id)
        if cls is not None and _mutable_dataclass(cls, scope.names):
            return f"a {cls.name} (a dataclass without frozen=True)"
        name = scope.names.qualified(node.func)
        if name in ("list", "dict", "set"):
            return f"a {name}"
    return None


def _mutable_dataclass(cls: ast.ClassDef, names: Names) -> bool:
    """A ``@dataclasses.dataclass`` with ``eq`` and without ``frozen`` or ``unsafe_hash``:
    Python gives it no hash."""
    for decorator in cls.decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else None
        if names.qualified(call.func if call else decorator) != "dataclasses.dataclass":
            continue
        options = {k.arg: k.value for k in (call.keywords if call else [])}
        frozen, unsafe_hash, eq = (options.get(o) for o in ("frozen", "unsafe_hash", "eq"))
        eq_off = isinstance(eq, ast.Constant) and eq.value is False
        return not (_true(frozen) or _true(unsafe_hash) or eq_off)
    return False


def _true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and bool(node.value)
