"""The names that hold host containers: Python lists, tuples and dicts, and NumPy arrays.

Indexed by a traced array (``strides[i]``), a host container calls the array's
``__index__`` (or its hash), which needs its value, so the rules flag it under a
transformation. :class:`Sequences` says which names surely hold one: those a scope binds
only to such (literals, comprehensions, ``list(...)``, ``np.arange(5)``), parameters
annotated as one or given one as a default, and ``self.attr`` that the methods of a class
set only to one. All of it read from the syntax tree, found once per scope and per class.
"""

from __future__ import annotations

import ast

from jaxpurity.linter.analysis._arrays import NUMPY_ARRAY_MAKERS
from jaxpurity.linter.analysis._functions import DEFS, Func, Functions
from jaxpurity.linter.analysis._names import Names
from jaxpurity.linter.analysis._syntax import names_in

__all__ = ["Sequences"]

# Annotations of a Python list, tuple or dict, by kind.
_SEQUENCE_TYPES = {
    **dict.fromkeys(
        ("list", "typing.List", "typing.Sequence", "collections.abc.Sequence"), "Python list"
    ),
    **dict.fromkeys(("tuple", "typing.Tuple"), "Python tuple"),
    **dict.fromkeys(
        ("dict", "typing.Dict", "typing.Mapping", "collections.abc.Mapping"), "Python dict"
    ),
}


class Sequences:
    """The host containers that the names of a module hold, each with its kind.

    Args:
      names: The module's :class:`~jaxpurity.linter.analysis._names.Names`.
      functions: Its :class:`~jaxpurity.linter.analysis._functions.Functions`.

    Example:
      >>> tree = ast.parse(
      ...     "import numpy as np\\n"
      ...     "def f(i, sizes: tuple = (1, 2)):\\n    t = np.arange(3)\\n    return t[i]\\n"
      ... )
      >>> names = Names(tree)
      >>> functions = Functions(tree, names)
      >>> Sequences(names, functions).python_sequences(functions.top_level.defs["f"][-1])
      {'sizes': 'Python tuple', 't': 'NumPy array'}
    """

    def __init__(self, names: Names, functions: Functions) -> None:
        self.names = names
        self.functions = functions
        self._of_scope: dict[int, dict[str, str]] = {}
        self._of_class: dict[int, dict[str, str]] = {}

    def python_sequence(self, node: ast.Name | ast.Attribute, scope: Func) -> str | None:
        """``"Python list"``, ``"Python tuple"``, ``"Python dict"`` or ``"NumPy array"`` when
        ``node``, read in ``scope``, surely holds such a host container: a name that the
        scope owning it binds only to such (see :meth:`python_sequences`), or ``self.attr``
        that the class of the method sets only to such; else None."""
        if isinstance(node, ast.Name):
            owner: Func | None = scope
            while owner is not None and node.id not in owner.local:
                owner = owner.parent
            if owner is None or (
                owner is self.functions.top_level and node.id in self.names.imported
            ):
                return None
            return self.python_sequences(owner).get(node.id)
        method: Func | None = scope
        while method is not None and method.self_name is None:
            method = method.parent
        if (
            method is None
            or method.cls is None
            or not isinstance(node.value, ast.Name)
            or node.value.id != method.self_name
        ):
            return None
        return self._attributes(method.cls).get(node.attr)

    def python_sequences(self, scope: Func) -> dict[str, str]:
        """The names that ``scope`` binds only to Python lists, tuples or dicts (literals,
        comprehensions, ``list(...)``) or to NumPy arrays (``np.arange(5)``): its own
        assignments, and parameters annotated as one
        (``Sequence[jax.Array]``) or given one as a default and never assigned again, each
        with its kind. Found once per scope."""
        key = id(scope)
        if key not in self._of_scope:
            kinds: dict[str, str | None] = dict(self._parameters(scope))
            for node in scope.of(ast.Assign):
                kind = self._kind(node.value)
                for target in node.targets:
                    for name in names_in(target):
                        seen = kinds.get(name, kind) if isinstance(target, ast.Name) else None
                        kinds[name] = kind if seen == kind else None
            others: list[ast.AST] = [
                *scope.of(ast.For),
                *scope.of(ast.AsyncFor),
                *scope.of(ast.AugAssign),
                *scope.of(ast.AnnAssign),
                *scope.of(ast.NamedExpr),
            ]
            for other in others:
                rebound = getattr(other, "target", None)
                for name in names_in(rebound) if rebound is not None else ():
                    kinds[name] = None
            self._of_scope[key] = {name: kind for name, kind in kinds.items() if kind}
        return self._of_scope[key]

    def _parameters(self, scope: Func) -> dict[str, str]:
        """The parameters of ``scope`` annotated as a Python list, tuple or dict, or whose
        default is a literal one."""
        found: dict[str, str] = {}
        if not isinstance(scope.node, DEFS):
            return found
        args = scope.node.args
        positional = [*args.posonlyargs, *args.args]
        defaults = dict(
            zip(
                [a.arg for a in positional[len(positional) - len(args.defaults) :]],
                args.defaults,
                strict=True,
            )
        )
        defaults |= {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d}
        for arg in [*positional, *args.kwonlyargs]:
            kind = _annotated_sequence(arg.annotation, self.names)
            default = defaults.get(arg.arg)
            kind = kind or (self._kind(default) if default is not None else None)
            if kind:
                found[arg.arg] = kind
        return found

    def _attributes(self, cls: ast.ClassDef) -> dict[str, str]:
        """The attributes that the methods of ``cls`` set on ``self`` only to Python
        sequences: literals, or their own parameters that hold one."""
        key = id(cls)
        if key not in self._of_class:
            kinds: dict[str, str | None] = {}
            for method in self.functions.methods(cls):
                held = self.python_sequences(method)
                for node in method.of(ast.Assign):
                    value = node.value
                    kind = self._kind(value) or (
                        held.get(value.id) if isinstance(value, ast.Name) else None
                    )
                    for target in node.targets:
                        if (
                            isinstance(target, ast.Attribute)
                            and isinstance(target.value, ast.Name)
                            and target.value.id == method.self_name
                        ):
                            seen = kinds.get(target.attr, kind)
                            kinds[target.attr] = kind if seen == kind else None
            self._of_class[key] = {name: kind for name, kind in kinds.items() if kind}
        return self._of_class[key]

    def _kind(self, node: ast.expr) -> str | None:
        """What host container ``node`` makes: a Python list, tuple or dict, or a NumPy
        array; None for anything else."""
        if isinstance(node, (ast.List, ast.ListComp)):
            return "Python list"
        if isinstance(node, ast.Tuple):
            return "Python tuple"
        if isinstance(node, (ast.Dict, ast.DictComp)):
            return "Python dict"
        if isinstance(node, ast.Call):
            name = self.names.qualified(node.func) or ""
            if name in ("list", "tuple", "dict"):
                return f"Python {name}"
            if name in NUMPY_ARRAY_MAKERS:
                return "NumPy array"
        return None


def _annotated_sequence(annotation: ast.expr | None, names: Names) -> str | None:
    """The kind of Python sequence an annotation names (``Sequence[jax.Array]``, ``tuple``)."""
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    if annotation is None:
        return None
    return _SEQUENCE_TYPES.get(names.qualified(annotation) or "")
