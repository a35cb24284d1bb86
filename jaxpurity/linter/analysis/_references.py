"""The names that hold mutable references: the documented way to write state under ``jit``.

A write through a mutable reference (``jax.new_ref(x)``, ``jax.Ref``, or an NNX
``Variable`` made with ``hijax=True``) reaches the caller, so the rules leave it alone.
:class:`References` says which names hold one: those a scope binds to a reference, and
the parameters that hold one, because they say so themselves (annotated ``jax.Ref``, or
read or written whole: ``ref[...]``) or because a call in the module gives them one
(``inc(v)`` after ``v = nnx.Variable(0, hijax=True)``). All of it read from the syntax
tree, found once per scope, and once for the module's calls.
"""

from __future__ import annotations

import ast

from jaxpurity.linter.analysis._applied_transforms import AppliedTransforms
from jaxpurity.linter.analysis._arrays import REFERENCE_MAKERS, REFERENCE_TYPES
from jaxpurity.linter.analysis._calls import parameters_given
from jaxpurity.linter.analysis._functions import DEFS, Func
from jaxpurity.linter.analysis._names import Names

__all__ = ["References"]


class References:
    """The mutable references that the names of a module hold.

    Args:
      names: The module's :class:`~jaxpurity.linter.analysis._names.Names`.
      applied: The transformations it applies
        (:class:`~jaxpurity.linter.analysis._applied_transforms.AppliedTransforms`), to
        follow a reference given to a jitted function or any other.

    Example:
      >>> from jaxpurity.linter.analysis._functions import Functions
      >>> from jaxpurity.linter.analysis._known_transforms import TRANSFORMS
      >>> tree = ast.parse(
      ...     "import jax\\n"
      ...     "def inc(counter, x):\\n    counter[...] += x\\n"
      ...     "def run(v):\\n    r = jax.new_ref(0)\\n    inc(r, v)\\n"
      ... )
      >>> names = Names(tree)
      >>> functions = Functions(tree, names)
      >>> references = References(names, AppliedTransforms(functions, names, TRANSFORMS))
      >>> [sorted(references.references(f)) for f in functions.funcs if f.name == "inc"]
      [['counter']]
      >>> [sorted(references.reference_names(f)) for f in functions.funcs if f.name == "run"]
      [['r']]
    """

    def __init__(self, names: Names, applied: AppliedTransforms) -> None:
        self.names = names
        self.applied = applied
        self._references_of: dict[int, set[str]] = {}
        self._given_references: dict[int, set[str]] | None = None

    def reference_names(self, scope: Func) -> set[str]:
        """The names that ``scope`` binds to a mutable reference (``jax.new_ref(x)``, or a
        call given ``hijax=True``: ``nnx.Variable(x, hijax=True)``), found once per scope."""
        key = id(scope)
        if key not in self._references_of:
            self._references_of[key] = {
                target.id
                for node in scope.of(ast.Assign)
                if isinstance(node.value, ast.Call) and self._makes_reference(node.value)
                for target in node.targets
                if isinstance(target, ast.Name)
            }
        return self._references_of[key]

    def _makes_reference(self, call: ast.Call) -> bool:
        return self.names.qualified(call.func) in REFERENCE_MAKERS or _hijax(call)

    def hijax_by_default(self, scope: Func) -> bool:
        """Whether ``scope`` runs where Flax NNX makes every ``Variable`` a mutable reference:
        ``nnx.var_defaults(hijax=True)`` called in the module's own code, or decorating
        ``scope`` or a function it is defined in. An NNX object's in-place changes then
        reach the caller under plain ``jax.jit``."""
        func: Func | None = scope
        while func is not None:
            if func.parent is None:  # the module: its statements
                calls = [s.value for s in func.node.body if isinstance(s, ast.Expr)]  # type: ignore[attr-defined]
            else:
                calls = list(getattr(func.node, "decorator_list", []))
            if any(self._sets_hijax(call) for call in calls):
                return True
            func = func.parent
        return False

    def _sets_hijax(self, node: ast.expr) -> bool:
        return (
            isinstance(node, ast.Call)
            and self.names.qualified(node.func) == "flax.nnx.var_defaults"
            and _hijax(node)
        )

    def holds_reference(self, node: ast.expr, scope: Func) -> bool:
        """Whether the name ``node``, read in ``scope``, holds a mutable reference: one bound
        to one in the scope that owns it, or a parameter of ``scope`` that holds one."""
        if not isinstance(node, ast.Name):
            return False
        if node.id in {*scope.positional, *scope.kwonly}:
            return node.id in self.references(scope)
        return self._bound_reference(node, scope)

    def _bound_reference(self, node: ast.Name, scope: Func) -> bool:
        """Whether the scope that owns the name ``node`` binds it to a mutable reference, or
        it is a parameter of ``scope`` that says it holds one itself."""
        owner: Func | None = scope
        while owner is not None and node.id not in owner.local:
            owner = owner.parent
        if owner is None:
            return False
        if owner is scope and node.id in {*scope.positional, *scope.kwonly}:
            return node.id in self._own_references(scope)
        return node.id in self.reference_names(owner)

    def references(self, func: Func) -> set[str]:
        """The parameters of ``func`` that hold mutable references, the documented way to
        write state under ``jit`` (the write reaches the caller): annotated ``jax.Ref``,
        read or written whole (``ref[...]``, which only a reference or an NNX ``Variable``
        takes), or given a reference by a call in the module."""
        given = self._calls_giving_references().get(id(func), set())
        return given | self._own_references(func)

    def _own_references(self, func: Func) -> set[str]:
        """The parameters of ``func`` that say themselves that they hold mutable references:
        annotated ``jax.Ref``, or read or written whole (``ref[...]``)."""
        params = {*func.positional, *func.kwonly}
        found = set()
        if isinstance(func.node, DEFS):
            args = func.node.args
            found |= {
                a.arg
                for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]
                if a.annotation is not None
                and self.names.qualified(a.annotation) in REFERENCE_TYPES
            }
        for node in func.of(ast.Subscript):
            if (
                isinstance(node.value, ast.Name)
                and node.value.id in params
                and isinstance(node.slice, ast.Constant)
                and node.slice.value is Ellipsis
            ):
                found.add(node.value.id)
        return found & params

    def _calls_giving_references(self) -> dict[int, set[str]]:
        """The parameters, by function (``id``), that a call in the module gives a name
        bound to a mutable reference: ``inc(v)`` after ``v = nnx.Variable(0, hijax=True)``."""
        if self._given_references is None:
            given: dict[int, set[str]] = {}
            for scope in self.applied.functions.funcs:
                for call in scope.of(ast.Call):
                    passed = [
                        a
                        for a in [*call.args, *(k.value for k in call.keywords)]
                        if isinstance(a, ast.Name)
                    ]
                    if not any(self._bound_reference(a, scope) for a in passed):
                        continue
                    for callee, (argument, param) in parameters_given(call, scope, self.applied):
                        if isinstance(argument, ast.Name) and self._bound_reference(
                            argument, scope
                        ):
                            given.setdefault(id(callee), set()).add(param)
            self._given_references = given
        return self._given_references


def _hijax(call: ast.Call) -> bool:
    """Whether ``call`` is given ``hijax=True``."""
    return any(
        k.arg == "hijax" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in call.keywords
    )
