"""Which functions of a module JAX traces, and which of their values are tracers, from the AST.

A function is traced when a transformation is applied to it
(:mod:`jaxpurity.linter._transformations`: decorated with ``@jax.jit``, passed
to ``jax.vmap`` or ``lax.scan``, ...), called from a traced function of the
same module (to :data:`~jaxpurity.linter._functions.MAX_CALL_DEPTH` calls), or
defined inside one and handed to something (a lambda). Its traced parameters
are those the transformation turns into tracers: all but
``static_argnums``/``static_argnames`` for ``jit``, the mapped ones for
``vmap``, the differentiated ones for ``grad``, none for ``eqx.filter_jit``
(which keeps Python values static), and, for a function called from a traced
one, those that receive traced arguments (taken for arrays, unless the
argument is a name that the caller also assigns a Python value, such as
``size = None``). Parameters with a default are not counted as traced: when a
call leaves them out, JAX sees the default, a Python value.

Complexity: the module is walked once to split its nodes among their
functions (:mod:`jaxpurity.linter._functions`; each node belongs to exactly
one) and once to find the transformations. Traced functions are then analysed
from a work list; a function is analysed again only when what reaches it
grows, at most :data:`_MAX_VISITS` times, and each analysis is linear in that
function's own nodes (:class:`~jaxpurity.linter._taint.Taint`). Name look-ups
are dictionary and bisection look-ups. So the whole is linear in the size of
the module.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterable

from jaxpurity.linter._annotations import Annotations
from jaxpurity.linter._arrays import TREE_MAPS
from jaxpurity.linter._functions import DEFS, MAX_CALL_DEPTH, Func, Functions
from jaxpurity.linter._names import Names
from jaxpurity.linter._syntax import parameter_names
from jaxpurity.linter._taint import Taint
from jaxpurity.linter._transformations import Layer, Layers, Partial, Transformations, seeds
from jaxpurity.linter._wrappers import Transform

__all__ = ["Scopes"]

_MAX_VISITS = 4


class Scopes:
    """Every function of a module, which of them JAX traces, and their traced values.

    Args:
      tree: The parsed module.
      names: Its :class:`~jaxpurity.linter._names.Names`.
      transforms: The transformations to recognise, by qualified name
        (:func:`jaxpurity.linter._wrappers.jit_like`).

    Attributes:
      functions: The module's functions, and what a reference names
        (:class:`~jaxpurity.linter._functions.Functions`); ``funcs`` and ``module``
        are its.
      transformations: The transformations applied to them
        (:class:`~jaxpurity.linter._transformations.Transformations`).
      annotations: What their annotations say
        (:class:`~jaxpurity.linter._annotations.Annotations`).
      static_functions: The functions mapped over pytrees that return Python values (see
        :class:`~jaxpurity.linter._taint.Taint`).

    Example:
      >>> from jaxpurity.linter._wrappers import TRANSFORMS
      >>> tree = ast.parse(
      ...     "import jax\\n"
      ...     "def helper(v):\\n    return v + 1\\n"
      ...     "@jax.jit\\ndef step(x, n):\\n    return helper(x * 2)\\n"
      ... )
      >>> scopes = Scopes(tree, Names(tree), TRANSFORMS)
      >>> [(f.name, sorted(f.traced_params), f.how) for f in scopes.traced()]
      [('helper', ['v'], 'jax.jit, through step'), ('step', ['n', 'x'], 'jax.jit')]
    """

    def __init__(self, tree: ast.Module, names: Names, transforms: dict[str, Transform]) -> None:
        self.names = names
        self.functions = Functions(tree, names)
        self.funcs = self.functions.funcs
        self.module = self.functions.module
        self.transformations = Transformations(self.functions, names, transforms)
        self.annotations = Annotations(self.module.classes, names)
        self.static_functions = self._static_functions()
        self._queue: deque[Func] = deque()
        for func, layers, shift in self.transformations.applications():
            self._mark(func, layers, shift)
        self._propagate()

    def traced(self) -> list[Func]:
        """The traced functions, in source order."""
        return sorted((f for f in self.funcs if f.traced), key=lambda f: f.line)

    def type_checked(self, func: Func) -> set[str]:
        """The names that ``func`` tests with ``isinstance(name, ...)``."""
        return {
            call.args[0].id
            for call in func.of(ast.Call)
            if call.args
            and isinstance(call.args[0], ast.Name)
            and self.names.qualified(call.func) == "isinstance"
        }

    def taint_of(
        self, func: Func, traced: Iterable[str], arrays: Iterable[str] | None = None
    ) -> Taint:
        """What in ``func`` derives from the names ``traced`` (:class:`Taint`, followed), of
        which ``arrays`` hold arrays (all of them when not given)."""
        fields = self.annotations.static_fields(func)
        taint = Taint(self.names, traced, self.static_functions, fields, arrays)
        taint.follow(func.binders, self.type_checked(func), self.annotations.containers(func))
        return taint

    def _static_functions(self) -> frozenset[str]:
        """The names of the functions given to ``jax.tree.map`` whose every ``return``
        gives a Python value, whatever the arguments (each definition of the name)."""
        mapped = {
            call.args[0].id
            for func in self.funcs
            for call in func.of(ast.Call)
            if call.args
            and isinstance(call.args[0], ast.Name)
            and self.names.qualified(call.func) in TREE_MAPS
        }
        verdict: dict[str, bool] = {}
        for func in self.funcs:
            if func.name not in mapped or not isinstance(func.node, DEFS):
                continue
            taint = Taint(self.names, parameter_names(func.node))
            taint.follow(func.binders)
            returns = func.of(ast.Return)
            static = bool(returns) and not any(taint.is_traced(r.value) for r in returns)
            verdict[func.name] = verdict.get(func.name, True) and static
        return frozenset(name for name, static in verdict.items() if static)

    # -- what reaches a traced function ---------------------------------------------------

    def _mark(self, func: Func, layers: Layers, shift: int) -> None:
        bound: set[str] = set()
        traced: set[str] = set()
        unbatched: set[str] = set()
        differentiated: set[str] = set()
        kinds: set[str] = set()
        for layer in reversed(layers):
            if isinstance(layer, Partial):
                shift += layer.count
                bound |= layer.names
                continue
            kinds.add(layer.transform.kind)
            given, whole = seeds(layer, func, shift, bound)
            traced |= given
            unbatched |= whole
            if layer.transform.reverse:
                differentiated |= given
                func.reverse = func.reverse or layer.name
        not_traced = func.defaulted | {func.self_name}
        outermost = next(layer for layer in layers if isinstance(layer, Layer))
        self._update(
            func,
            kinds,
            traced=traced - not_traced,
            arrays=traced - not_traced,
            unbatched=unbatched,
            differentiated=differentiated - not_traced,
            direct=kinds,
            root=outermost.name,
            depth=0,
        )

    def _update(
        self,
        func: Func,
        kinds: Iterable[str],
        *,
        traced: Iterable[str] = (),
        arrays: Iterable[str] = (),
        free: Iterable[str] = (),
        unbatched: Iterable[str] = (),
        differentiated: Iterable[str] = (),
        direct: Iterable[str] = (),
        root: str,
        through: str = "",
        depth: int,
    ) -> None:
        changed = False
        for have, new in (
            (func.kinds, kinds),
            (func.traced_params, traced),
            (func.array_params, arrays),
            (func.traced_free, free),
            (func.unbatched, unbatched),
            (func.differentiated, differentiated),
            (func.direct, direct),
        ):
            added = set(new) - have
            if added:
                have |= added
                changed = True
        if not func.root or depth < func.depth:
            func.root, func.through = root, through
        func.depth = min(func.depth, depth)
        if changed and not func.queued:
            func.queued = True
            self._queue.append(func)

    def _propagate(self) -> None:
        while self._queue:
            func = self._queue.popleft()
            func.queued = False
            if func.visits >= _MAX_VISITS:
                continue
            func.visits += 1
            taint = self._analyse(func)
            if func.depth < MAX_CALL_DEPTH:
                for call in func.of(ast.Call):
                    if not self.transformations.is_transform_call(call):
                        self._follow_call(func, call, taint)
            for child in func.children:
                if child.traced or isinstance(child.node, ast.Lambda):
                    free = child.free_reads() & taint.traced
                    self._through(func, child, func.depth, free=free)
        for func in self.funcs:
            if func.traced:
                self._analyse(func)

    def _analyse(self, func: Func) -> Taint:
        func.taint = self.taint_of(
            func, func.traced_params | func.traced_free, func.array_params | func.traced_free
        )
        return func.taint

    def _follow_call(self, caller: Func, call: ast.Call, taint: Taint) -> None:
        target = self.functions.resolve(call.func, caller, call.lineno)
        if target is None or target[0] is caller:
            return
        callee, shift = target
        params = callee.positional
        traced: set[str] = set()
        arrays: set[str] = set()
        for index, argument in enumerate(call.args, start=shift):
            if isinstance(argument, ast.Starred):
                if taint.is_traced(argument.value):
                    given = set(params[index:]) | ({callee.vararg} if callee.vararg else set())
                    traced |= given
                    arrays |= given
                break
            name = params[index] if index < len(params) else callee.vararg
            if name and taint.is_traced(argument):
                traced.add(name)
                if not taint.may_be_python(argument):
                    arrays.add(name)
        for keyword in call.keywords:
            if taint.is_traced(keyword.value):
                if keyword.arg is None:
                    given = set(params) | set(callee.kwonly)
                elif keyword.arg in params or keyword.arg in callee.kwonly:
                    given = {keyword.arg}
                else:
                    continue
                traced |= given
                if not taint.may_be_python(keyword.value):
                    arrays |= given
        traced -= callee.static | {callee.self_name or ""}
        arrays -= callee.static | {callee.self_name or ""}
        if caller not in callee.callers:
            callee.callers.append(caller)
        self._through(caller, callee, caller.depth + 1, traced=traced, arrays=arrays)

    def _through(self, caller: Func, func: Func, depth: int, **reached: Iterable[str]) -> None:
        """``func`` is traced as ``caller`` is, through it (called from it, or defined in
        it), with what reaches it (``traced`` parameters, ``free`` names)."""
        kinds, root, name = caller.kinds, caller.root, caller.name
        self._update(func, kinds, root=root, through=name, depth=depth, **reached)
