"""The JAX arrays a module makes itself, apart from what a transformation traces.

A traced function computes with more than its traced arguments: it reads concrete
arrays from outside (``table = jnp.array([...])`` at the top of the module) and calls
jitted functions and primitives, whose results are JAX values too. Under a staging trace
each is a tracer (:class:`~jaxpurity.linter.analysis._taint.Taint` takes them as its
``constants`` and ``results``). :class:`ArrayValues` says which names a scope binds only to
JAX arrays (:meth:`ArrayValues.array_names`, which the rules ask as well), which of them
a function reads from outside (:meth:`ArrayValues.constants`), and what a call gives
(:meth:`ArrayValues.result`). All of it read from the syntax tree, found once per scope,
and once for the module's primitives.
"""

from __future__ import annotations

import ast

from jaxpurity.linter.analysis._applied_transforms import AppliedTransforms
from jaxpurity.linter.analysis._arrays import PRIMITIVES, builds_array, makes_array
from jaxpurity.linter.analysis._functions import Func
from jaxpurity.linter.analysis._known_transforms import STAGED
from jaxpurity.linter.analysis._names import Names
from jaxpurity.linter.analysis._syntax import names_in

__all__ = ["ArrayValues"]


class ArrayValues:
    """The JAX arrays and values that a module's own code makes.

    Args:
      names: The module's :class:`~jaxpurity.linter.analysis._names.Names`.
      applied: The transformations it applies
        (:class:`~jaxpurity.linter.analysis._applied_transforms.AppliedTransforms`), with
        its functions and the known transformations.

    Example:
      >>> from jaxpurity.linter.analysis._functions import Functions
      >>> from jaxpurity.linter.analysis._known_transforms import TRANSFORMS
      >>> tree = ast.parse(
      ...     "import jax.numpy as jnp\\n"
      ...     "table = jnp.arange(3)\\n"
      ...     "def f(x):\\n    return table[x]\\n"
      ... )
      >>> names = Names(tree)
      >>> functions = Functions(tree, names)
      >>> values = ArrayValues(names, AppliedTransforms(functions, names, TRANSFORMS))
      >>> sorted(values.array_names(functions.top_level))
      ['table']
      >>> sorted(values.constants(functions.top_level.defs["f"][-1]))
      ['table']
    """

    def __init__(self, names: Names, applied: AppliedTransforms) -> None:
        self.names = names
        self.applied = applied
        self.functions = applied.functions
        self._arrays_of: dict[int, set[str]] = {}
        self._primitives: tuple[set[str], set[str]] | None = None

    def array_names(self, scope: Func) -> set[str]:
        """The names that ``scope`` binds only to JAX arrays (from jax.numpy and friends),
        never to anything else, found once per scope."""
        key = id(scope)
        if key not in self._arrays_of:
            self._arrays_of[key] = _array_names(scope, self.names)
        return self._arrays_of[key]

    def is_array_value(self, node: ast.expr, scope: Func) -> bool:
        """Whether ``node`` is a JAX array made where it is written, or a name that the
        scope owning it binds only to JAX arrays."""
        if builds_array(node, self.names):
            return True
        if not isinstance(node, ast.Name):
            return False
        owner: Func | None = scope
        while owner is not None and node.id not in owner.local:
            owner = owner.parent
        return owner is not None and node.id in self.array_names(owner)

    def constants(self, func: Func) -> set[str]:
        """The concrete arrays that ``func`` reads from outside: names that a scope around
        it not run under a staging trace (the module, most often) binds only to JAX arrays
        (``table = jnp.array([...])``)."""
        found = set()
        for name in func.free_reads():
            owner = self.functions.outer(func, name)
            if owner is not None and not owner.kinds & STAGED and name in self.array_names(owner):
                found.add(name)
        return found

    def result(self, func: Func, call: ast.Call) -> str | None:
        """What a call in ``func`` gives, where what it calls says: ``"array"`` for a
        primitive's ``bind`` or a transformation of a function that returns one array
        (``jax.jit(lax.gt)``), ``"value"`` for another jitted or transformed function (JAX
        values of unknown structure); None for anything else."""
        callee = call.func
        if isinstance(callee, ast.Call) and self.applied.is_transform_call(callee):
            return self._transformed_result(callee)
        if isinstance(callee, ast.Attribute) and callee.attr == "bind":
            primitives, multiple = self._primitive_names()
            name = self.names.qualified(callee.value) or ""
            if name in multiple:
                return "value"
            if name in primitives or (name.startswith("jax.") and name.endswith("_p")):
                return "array"
            return None
        if isinstance(callee, (ast.Name, ast.Attribute)):
            made, _ = self.applied.binding(callee, func, call.lineno)
            if made is not None:
                return self._transformed_result(made)
            target = self.functions.resolve(callee, func, call.lineno)
            if target is not None and target[0].layers:
                return "value"
        return None

    def _transformed_result(self, transform_call: ast.Call) -> str:
        """What calling the result of a transformation gives: one array when the function
        it transforms is a jax.numpy or jax.lax function that returns one."""
        transform = self.applied.known.get(self.names.qualified(transform_call.func) or "")
        function = transform_call.args[0] if transform_call.args else None
        if transform is not None and transform.kind in ("jit", "pmap", "checkpoint", "vmap"):
            if function is not None and makes_array(self.names.qualified(function) or ""):
                return "array"
        return "value"

    def _primitive_names(self) -> tuple[set[str], set[str]]:
        """The names the module binds to a JAX primitive (``p = Primitive("p")``), and
        those of them given ``p.multiple_results = True`` (whose ``bind`` gives a list)."""
        if self._primitives is None:
            made: set[str] = set()
            multiple: set[str] = set()
            for func in self.functions.funcs:
                for node in func.of(ast.Assign):
                    value = node.value
                    for target in node.targets:
                        if (
                            isinstance(value, ast.Call)
                            and isinstance(target, ast.Name)
                            and self.names.qualified(value.func) in PRIMITIVES
                        ):
                            made.add(target.id)
                        elif (
                            isinstance(target, ast.Attribute)
                            and target.attr == "multiple_results"
                            and isinstance(target.value, ast.Name)
                            and not (isinstance(value, ast.Constant) and not value.value)
                        ):
                            multiple.add(target.value.id)
            self._primitives = made, multiple & made
        return self._primitives


def _array_names(scope: Func, names: Names) -> set[str]:
    """The names that ``scope`` binds only to JAX arrays (from jax.numpy and friends), never
    to anything else: not its parameters, nor a loop's, a comprehension's or a ``with``'s
    targets."""
    verdict: dict[str, bool] = {}
    for node in scope.of(ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Name):
                verdict[target.id] = verdict.get(target.id, True) and builds_array(
                    node.value, names, verdict
                )
            else:
                for name in names_in(target):
                    verdict[name] = False
    blocks: list[ast.With | ast.AsyncWith] = [*scope.of(ast.With), *scope.of(ast.AsyncWith)]
    not_arrays = [
        *(n.target for n in scope.of(ast.For)),
        *(n.target for n in scope.of(ast.AsyncFor)),
        *(n.target for n in scope.of(ast.comprehension)),
        *(n.target for n in scope.of(ast.AnnAssign)),
        *(item.optional_vars for n in blocks for item in n.items if item.optional_vars),
    ]
    for target in not_arrays:
        for name in names_in(target):
            verdict[name] = False
    for param in [*scope.positional, *scope.kwonly]:
        verdict[param] = False
    return {name for name, is_array in verdict.items() if is_array}
