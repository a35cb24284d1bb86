"""The analysis of one module: which functions JAX traces, and which of their values are tracers.

A function is traced when a transformation is applied to it
(:mod:`jaxpurity.linter.analysis._applied_transforms`: decorated with ``@jax.jit``, passed
to ``jax.vmap`` or ``lax.scan``, ...), called from a traced function of the
same module (to :data:`~jaxpurity.linter.analysis._functions.MAX_CALL_DEPTH` calls), or
defined inside one and handed to something (a lambda). Its traced parameters
are those the transformation turns into tracers: all but
``static_argnums``/``static_argnames`` for ``jit``, the mapped ones for
``vmap``, the differentiated ones for ``grad``, none for ``eqx.filter_jit``
(which keeps Python values static), and, for a function called from a traced
one, those that receive traced arguments (taken for arrays, unless the
argument is a name that the caller also assigns a Python value, such as
``size = None``). Parameters with a default are not counted as traced: when a
call leaves them out, JAX sees the default, a Python value.

What a call passes and which parameters it reaches is read by
:mod:`jaxpurity.linter.analysis._calls`; calls into the other modules of the package,
and the functions of this one that theirs reach, by
:mod:`jaxpurity.linter.analysis._crossings`. Which names hold host containers
(:mod:`jaxpurity.linter.analysis._sequences`), which mutable references
(:mod:`jaxpurity.linter.analysis._references`) and which JAX arrays
(:mod:`jaxpurity.linter.analysis._array_values`, with what calls give) the rules ask of
the analysis too.

Complexity: the module is walked once to split its nodes among their
functions (:mod:`jaxpurity.linter.analysis._functions`; each node belongs to exactly
one) and once to find the transformations. Traced functions are then analysed
from a work list; a function is analysed again only when what reaches it
grows, at most :data:`_MAX_VISITS` times, and each analysis is linear in that
function's own nodes (:class:`~jaxpurity.linter.analysis._taint.Taint`). Name look-ups
are dictionary and bisection look-ups. So the whole is linear in the size of
the module.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterable
from dataclasses import replace

from jaxpurity.linter.analysis._annotations import Annotations
from jaxpurity.linter.analysis._applied_transforms import AppliedTransforms, seeds
from jaxpurity.linter.analysis._array_values import ArrayValues
from jaxpurity.linter.analysis._arrays import MAPS
from jaxpurity.linter.analysis._calls import arguments, made_in_trace, parameters_given, reached
from jaxpurity.linter.analysis._crossings import Crossings
from jaxpurity.linter.analysis._functions import DEFS, MAX_CALL_DEPTH, Func, Functions
from jaxpurity.linter.analysis._known_transforms import HOST_CALLBACKS, STAGED, Transform
from jaxpurity.linter.analysis._layers import Layer, Layers, Partial
from jaxpurity.linter.analysis._names import Names
from jaxpurity.linter.analysis._package import Entry, Package
from jaxpurity.linter.analysis._references import References
from jaxpurity.linter.analysis._sequences import Sequences
from jaxpurity.linter.analysis._syntax import names_in, parameter_names
from jaxpurity.linter.analysis._taint import Taint

__all__ = ["ModuleAnalysis"]

_MAX_VISITS = 4


class ModuleAnalysis:
    """One module, analysed: every function, which of them JAX traces, and their traced values.

    Args:
      tree: The parsed module.
      names: Its :class:`~jaxpurity.linter.analysis._names.Names`.
      known_transforms: The known transformations, by qualified name, with the project's
        own jit wrappers (:func:`jaxpurity.linter.analysis._known_transforms.with_jit_wrappers`).
      package: The package being linted; None for a module linted alone.
      file: The module's path, as the package knows it.
      entries: How the traced code of other modules of the package reaches this one's
        functions.

    Attributes:
      functions: The module's functions, and what a reference names
        (:class:`~jaxpurity.linter.analysis._functions.Functions`); ``funcs`` and ``top_level``
        are its.
      applied: The transformations applied to them
        (:class:`~jaxpurity.linter.analysis._applied_transforms.AppliedTransforms`).
      annotations: What their annotations say
        (:class:`~jaxpurity.linter.analysis._annotations.Annotations`).
      static_functions: The functions mapped over pytrees that return Python values (see
        :class:`~jaxpurity.linter.analysis._taint.Taint`).
      arrays: Which names hold JAX arrays, and what calls give
        (:class:`~jaxpurity.linter.analysis._array_values.ArrayValues`).
      sequences: Which names hold host containers
        (:class:`~jaxpurity.linter.analysis._sequences.Sequences`).
      references: Which names hold mutable references
        (:class:`~jaxpurity.linter.analysis._references.References`).
      crossings: How traced code crosses between this module and the others of the
        package (:class:`~jaxpurity.linter.analysis._crossings.Crossings`).
      outgoing: How this module's traced code reaches functions of other modules of the
        package (:class:`~jaxpurity.linter.analysis._package.Entry`).

    Example:
      >>> from jaxpurity.linter.analysis._known_transforms import TRANSFORMS
      >>> tree = ast.parse(
      ...     "import jax\\n"
      ...     "def helper(v):\\n    return v + 1\\n"
      ...     "@jax.jit\\ndef step(x, n):\\n    return helper(x * 2)\\n"
      ... )
      >>> analysis = ModuleAnalysis(tree, Names(tree), TRANSFORMS)
      >>> [(f.name, sorted(f.traced_params), f.how) for f in analysis.traced_functions()]
      [('helper', ['v'], 'jax.jit, through step'), ('step', ['n', 'x'], 'jax.jit')]
    """

    def __init__(
        self,
        tree: ast.Module,
        names: Names,
        known_transforms: dict[str, Transform],
        package: Package | None = None,
        file: str = "",
        entries: Iterable[Entry] = (),
    ) -> None:
        self.names = names
        self.functions = Functions(tree, names)
        self.funcs = self.functions.funcs
        self.top_level = self.functions.top_level
        self.applied = AppliedTransforms(self.functions, names, known_transforms)
        self.annotations = Annotations(self.top_level.classes, names)
        self.arrays = ArrayValues(names, self.applied)
        self.sequences = Sequences(names, self.functions)
        self.references = References(names, self.applied)
        self.crossings = Crossings(names, self.applied, package, file)
        self.static_functions = self._static_functions()
        #: How this module's traced code reaches functions of other modules of the package.
        self.outgoing: list[Entry] = []
        self._queue: deque[Func] = deque()
        for func, layers, shift in self.applied.applications():
            self._mark(func, layers, shift)
        self._arrays_given_to_filters()
        self.outgoing += self.crossings.transformed()
        for entry in entries:
            self._enter(entry)
        self._propagate()

    def traced_functions(self) -> list[Func]:
        """The functions that JAX traces, in source order."""
        return sorted((f for f in self.funcs if f.is_traced), key=lambda f: f.line)

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
        self,
        func: Func,
        tracer_names: Iterable[str],
        arrays: Iterable[str] | None = None,
        *,
        staged: bool | None = None,
    ) -> Taint:
        """What in ``func`` derives from the names ``tracer_names`` (:class:`Taint`,
        followed), of which ``arrays`` hold arrays (all of them when not given).
        ``staged``: whether what the function computes under a staging trace counts too
        (jnp on constants, a jitted function's results); by default, when it runs under
        one. A taint of what derives from some values only (the differentiated ones) says
        False."""
        is_staged = bool(func.kinds & STAGED) if staged is None else staged
        taint = Taint(
            self.names,
            tracer_names,
            self.static_functions,
            self.annotations.static_fields(func),
            arrays,
            staged=is_staged,
            constants=self.arrays.constants(func) if staged is not False else (),
            results=(lambda call: self.arrays.result(func, call)) if staged is not False else None,
            static_attributes=self.annotations.static_attributes,
        )
        taint.follow(
            func.binders,
            self.type_checked(func),
            self.annotations.containers(func),
            [*func.of(ast.If), *func.of(ast.IfExp)],
        )
        return taint

    def flags(self) -> dict[str, bool]:
        """The module's constant flags: names its own code assigns only literals of one
        truth (``DEBUG = False``), never through ``global`` nor augmented, each with that
        truth. A branch that a flag closes never runs as the module is written."""
        truths: dict[str, bool | None] = {}
        module = self.top_level
        binders: list[ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor] = [
            *module.of(ast.Assign),
            *module.of(ast.AnnAssign),
            *module.of(ast.AugAssign),
            *module.of(ast.For),
            *module.of(ast.AsyncFor),
        ]
        for node in binders:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.iter if isinstance(node, (ast.For, ast.AsyncFor)) else node.value
            literal = isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(
                value, ast.Constant
            )
            for target in targets:
                for name in names_in(target):
                    constant = literal and isinstance(target, ast.Name)
                    truth = bool(value.value) if constant else None  # type: ignore[union-attr]
                    truths[name] = truth if truths.get(name, truth) == truth else None
        rebound = {name for func in self.funcs for name in func.declared_global}
        return {k: v for k, v in truths.items() if v is not None and k not in rebound}

    def python_sequence(self, node: ast.Name | ast.Attribute, scope: Func) -> str | None:
        """The host container (``"Python list"``, ..., ``"NumPy array"``) that ``node``,
        read in ``scope``, surely holds; else None
        (:meth:`~jaxpurity.linter.analysis._sequences.Sequences.python_sequence`)."""
        return self.sequences.python_sequence(node, scope)

    def holds_reference(self, node: ast.expr, scope: Func) -> bool:
        """Whether the name ``node``, read in ``scope``, holds a mutable reference
        (:meth:`~jaxpurity.linter.analysis._references.References.holds_reference`)."""
        return self.references.holds_reference(node, scope)

    def hijax_by_default(self, scope: Func) -> bool:
        """Whether every NNX ``Variable`` is a mutable reference where ``scope`` runs
        (:meth:`~jaxpurity.linter.analysis._references.References.hijax_by_default`)."""
        return self.references.hijax_by_default(scope)

    def array_names(self, scope: Func) -> set[str]:
        """The names that ``scope`` binds only to JAX arrays
        (:meth:`~jaxpurity.linter.analysis._array_values.ArrayValues.array_names`)."""
        return self.arrays.array_names(scope)

    def is_array_value(self, node: ast.expr, scope: Func) -> bool:
        """Whether ``node`` is surely a JAX array
        (:meth:`~jaxpurity.linter.analysis._array_values.ArrayValues.is_array_value`)."""
        return self.arrays.is_array_value(node, scope)

    def _static_functions(self) -> frozenset[str]:
        """The names of the functions given to ``jax.tree.map`` whose every ``return``
        gives a Python value, whatever the arguments (each definition of the name)."""
        mapped = {
            call.args[0].id
            for func in self.funcs
            for call in func.of(ast.Call)
            if call.args
            and isinstance(call.args[0], ast.Name)
            and self.names.qualified(call.func) in MAPS
        }
        verdict: dict[str, bool] = {}
        for func in self.funcs:
            if func.name not in mapped or not isinstance(func.node, DEFS):
                continue
            taint = Taint(self.names, parameter_names(func.node))
            taint.follow(func.binders)
            returns = func.of(ast.Return)
            static = bool(returns) and not any(taint.holds_tracer(r.value) for r in returns)
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
        outermost = next(layer for layer in layers if isinstance(layer, Layer))
        visible = [p for p in func.positional[shift:] if p not in bound]
        given_none = {visible[i] for i in outermost.given_none if i < len(visible)}
        not_traced = func.defaulted | {func.self_name} | given_none
        unbatched -= given_none
        func.self_outside = func.self_outside or func.self_name is not None
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
                    if not self.applied.is_transform_call(call):
                        self._follow_call(func, call, taint)
            on_host = self._host_callbacks(func)
            for child in func.children:
                if id(child.node) in on_host:
                    continue  # a callback's function runs on the host, on concrete values
                if child.is_traced or isinstance(child.node, ast.Lambda):
                    free = child.free_reads() & taint.tracer_names
                    self._through(func, child, func.depth, free=free)
        for func in self.funcs:
            if func.is_traced:
                self._analyse(func)

    def _arrays_given_to_filters(self) -> None:
        """The parameters of a function decorated with a filtering transformation
        (``eqx.filter_vmap``, ``nnx.jit``: arrays traced, other values static) that a call
        in the module gives a JAX array: ``make(arrs)`` after ``arrs = jnp.asarray(...)``."""
        filtered = [
            f for f in self.funcs if any(layer.transform.seeds == "none" for layer in f.layers)
        ]
        if not filtered:
            return
        names = {f.name for f in filtered}
        for scope in self.funcs:
            for call in scope.of(ast.Call):
                if not (isinstance(call.func, ast.Name) and call.func.id in names):
                    continue
                for callee, (argument, param) in parameters_given(call, scope, self.applied):
                    if callee in filtered and self.is_array_value(argument, scope):
                        kinds = {layer.transform.kind for layer in callee.layers}
                        root = callee.layers[0].name
                        self._update(
                            callee,
                            kinds,
                            traced={param},
                            arrays={param},
                            direct=kinds,
                            root=root,
                            depth=0,
                        )

    def _host_callbacks(self, func: Func) -> set[int]:
        """The ids of the nodes ``func`` passes as the function of a host callback."""
        found: set[int] = set()
        for call in func.of(ast.Call):
            if self.names.qualified(call.func) in HOST_CALLBACKS:
                given = call.args[:1] + [k.value for k in call.keywords if k.arg == "callback"]
                found.update(id(node) for node in given)
        return found

    def _analyse(self, func: Func) -> Taint:
        func.taint = self.taint_of(
            func, func.traced_params | func.traced_free, func.array_params | func.traced_free
        )
        return func.taint

    def _follow_call(self, caller: Func, call: ast.Call, taint: Taint) -> None:
        target = self.functions.resolve(call.func, caller, call.lineno)
        if target is None:
            if not self._run_transformed(caller, call, taint):
                entry = self.crossings.call(caller, call, taint)
                if entry is not None:
                    self.outgoing.append(entry)
            return
        if target[0] is caller:
            return
        callee, shift = target
        given = arguments(call, taint, shift, caller.traced_params)
        traced, arrays = reached(callee, given)
        if caller not in callee.callers:
            callee.callers.append(caller)
        if shift and callee.self_name is not None:
            if made_in_trace(call.func, caller, self.functions):
                callee.self_inside = True
            else:
                callee.self_outside = True
        self._through(caller, callee, caller.depth + 1, traced=traced, arrays=arrays)

    def _run_transformed(self, caller: Func, call: ast.Call, taint: Taint) -> bool:
        """A call of a method that runs a transformed function (``model.apply(params, rng,
        x)`` after ``model = hk.transform(f)``): ``f`` runs as the caller runs, given the
        arguments after the method's own. Whether the call was one."""
        callee = call.func
        if not isinstance(callee, ast.Attribute) or not isinstance(callee.value, ast.Name):
            return False
        made, where = self.applied.binding(callee.value, caller, call.lineno)
        transform = self.applied.known.get(self.names.qualified(made.func) or "") if made else None
        own = dict(transform.runs).get(callee.attr) if transform else None
        if made is None or own is None:
            return False
        given = arguments(call, taint, 0, caller.traced_params)
        given = replace(given, positional=given.positional[own:])
        for func in self.applied.transformed(made, where):
            traced, arrays = reached(func, given)
            self._through(caller, func, caller.depth + 1, traced=traced, arrays=arrays)
        return True

    def _enter(self, entry: Entry) -> None:
        """Trace a function of this module as another module's traced code reaches it."""
        func = self.crossings.function(entry.target.path)
        if func is None:
            return
        if entry.call is not None:
            traced, arrays = reached(func, entry.call)
            if entry.call.shift and func.self_name is not None:
                if entry.call.made_here:
                    func.self_inside = True
                else:
                    func.self_outside = True
            self._update(
                func,
                entry.kinds,
                traced=traced,
                arrays=arrays,
                root=entry.root,
                through=entry.through,
                depth=entry.depth,
            )
            return
        layers = self.crossings.layers(entry)
        if layers is not None:
            self._mark(func, layers, entry.shift)

    def _through(self, caller: Func, func: Func, depth: int, **given: Iterable[str]) -> None:
        """``func`` is traced as ``caller`` is, through it (called from it, or defined in
        it), with what reaches it (``traced`` parameters, ``free`` names)."""
        kinds, root, name = caller.kinds, caller.root, caller.name
        self._update(func, kinds, root=root, through=name, depth=depth, **given)
