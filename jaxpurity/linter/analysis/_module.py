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
from jaxpurity.linter.analysis._arrays import (
    MAPS,
    NUMPY_ARRAY_MAKERS,
    PRIMITIVES,
    REFERENCE_MAKERS,
    REFERENCE_TYPES,
    builds_array,
    makes_array,
)
from jaxpurity.linter.analysis._functions import DEFS, MAX_CALL_DEPTH, Func, Functions
from jaxpurity.linter.analysis._known_transforms import HOST_CALLBACKS, STAGED, Transform
from jaxpurity.linter.analysis._layers import Layer, Layers, Partial
from jaxpurity.linter.analysis._names import Names
from jaxpurity.linter.analysis._package import Arguments, Entry, LayerText, Package, Target
from jaxpurity.linter.analysis._syntax import names_in, parameter_names
from jaxpurity.linter.analysis._taint import Taint

__all__ = ["ModuleAnalysis"]

# The literals of containers, which pass a pytree to a function, never one array.
_CONTAINERS = (
    ast.Tuple,
    ast.List,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.DictComp,
    ast.SetComp,
    ast.GeneratorExp,
)

_MAX_VISITS = 4


class ModuleAnalysis:
    """One module, analysed: every function, which of them JAX traces, and their traced values.

    Args:
      tree: The parsed module.
      names: Its :class:`~jaxpurity.linter.analysis._names.Names`.
      known_transforms: The known transformations, by qualified name, with the project's
        own jit wrappers (:func:`jaxpurity.linter.analysis._known_transforms.with_jit_wrappers`).

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
        self.static_functions = self._static_functions()
        self.package = package
        self.file = file
        self._arrays_of: dict[int, set[str]] = {}
        self._primitives: tuple[set[str], set[str]] | None = None
        self._references_of: dict[int, set[str]] = {}
        self._memo: dict[tuple[str, int], object] = {}
        self._given_references: dict[int, set[str]] | None = None
        #: How this module's traced code reaches functions of other modules of the package.
        self.outgoing: list[Entry] = []
        self._queue: deque[Func] = deque()
        for func, layers, shift in self.applied.applications():
            self._mark(func, layers, shift)
        self._arrays_given_to_filters()
        self._transformed_elsewhere()
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
            constants=self._constants(func) if staged is not False else (),
            results=(lambda call: self._result(func, call)) if staged is not False else None,
            static_attributes=self.annotations.static_attributes,
        )
        taint.follow(
            func.binders,
            self.type_checked(func),
            self.annotations.containers(func),
            [*func.of(ast.If), *func.of(ast.IfExp)],
        )
        return taint

    def array_names(self, scope: Func) -> set[str]:
        """The names that ``scope`` binds only to JAX arrays (from jax.numpy and friends),
        never to anything else, found once per scope."""
        key = id(scope)
        if key not in self._arrays_of:
            self._arrays_of[key] = _array_names(scope, self.names)
        return self._arrays_of[key]

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

    # -- Python sequences ----------------------------------------------------------------

    def python_sequence(self, node: ast.Name | ast.Attribute, scope: Func) -> str | None:
        """``"Python list"``, ``"Python tuple"``, ``"Python dict"`` or ``"NumPy array"`` when
        ``node``, read in ``scope``, surely holds such a host container: a name that the
        scope owning it binds only to such (see :meth:`python_sequences`), or ``self.attr``
        that the class of the method sets only to such; else None."""
        if isinstance(node, ast.Name):
            owner: Func | None = scope
            while owner is not None and node.id not in owner.local:
                owner = owner.parent
            if owner is None or (owner is self.top_level and node.id in self.names.imported):
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
        return self._sequence_attributes(method.cls).get(node.attr)

    def python_sequences(self, scope: Func) -> dict[str, str]:
        """The names that ``scope`` binds only to Python lists, tuples or dicts (literals,
        comprehensions, ``list(...)``) or to NumPy arrays (``np.arange(5)``): its own
        assignments, and parameters annotated as one
        (``Sequence[jax.Array]``) or given one as a default and never assigned again, each
        with its kind. Found once per scope."""
        key = ("sequences", id(scope))
        if key not in self._memo:
            kinds: dict[str, str | None] = dict(self._sequence_parameters(scope))
            for node in scope.of(ast.Assign):
                kind = self._sequence_kind(node.value)
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
            self._memo[key] = {name: kind for name, kind in kinds.items() if kind}
        return self._memo[key]  # type: ignore[return-value]

    def _sequence_parameters(self, scope: Func) -> dict[str, str]:
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
            kind = kind or (self._sequence_kind(default) if default is not None else None)
            if kind:
                found[arg.arg] = kind
        return found

    def _sequence_attributes(self, cls: ast.ClassDef) -> dict[str, str]:
        """The attributes that the methods of ``cls`` set on ``self`` only to Python
        sequences: literals, or their own parameters that hold one."""
        key = ("attributes", id(cls))
        if key not in self._memo:
            kinds: dict[str, str | None] = {}
            for method in self.functions.methods(cls):
                held = self.python_sequences(method)
                for node in method.of(ast.Assign):
                    value = node.value
                    kind = self._sequence_kind(value) or (
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
            self._memo[key] = {name: kind for name, kind in kinds.items() if kind}
        return self._memo[key]  # type: ignore[return-value]

    def _sequence_kind(self, node: ast.expr) -> str | None:
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

    # -- mutable references ------------------------------------------------------------

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
        return self.names.qualified(call.func) in REFERENCE_MAKERS or any(
            k.arg == "hijax" and isinstance(k.value, ast.Constant) and k.value.value is True
            for k in call.keywords
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
            for scope in self.funcs:
                for call in scope.of(ast.Call):
                    passed = [
                        a
                        for a in [*call.args, *(k.value for k in call.keywords)]
                        if isinstance(a, ast.Name)
                    ]
                    if not any(self._bound_reference(a, scope) for a in passed):
                        continue
                    for callee, (argument, param) in self._parameters_given(call, scope):
                        if isinstance(argument, ast.Name) and self._bound_reference(
                            argument, scope
                        ):
                            given.setdefault(id(callee), set()).add(param)
            self._given_references = given
        return self._given_references

    def _parameters_given(
        self, call: ast.Call, scope: Func
    ) -> list[tuple[Func, tuple[ast.expr, str]]]:
        """Each argument of ``call`` with the parameter of the module's function it is passed
        to (a jitted function, or any other)."""
        jitted = self.applied.jitted(call, scope)
        if jitted is not None:
            return [(jitted.func, pair) for pair in jitted.arguments(call)]
        target = self.functions.resolve(call.func, scope, call.lineno)
        if target is None:
            return []
        callee, shift = target
        params = callee.positional[shift:]
        pairs = [
            (argument, params[i])
            for i, argument in enumerate(call.args)
            if i < len(params) and not isinstance(argument, ast.Starred)
        ]
        pairs += [(k.value, k.arg) for k in call.keywords if k.arg]
        return [(callee, pair) for pair in pairs]

    def _constants(self, func: Func) -> set[str]:
        """The concrete arrays that ``func`` reads from outside: names that a scope around
        it not run under a staging trace (the module, most often) binds only to JAX arrays
        (``table = jnp.array([...])``)."""
        found = set()
        for name in func.free_reads():
            owner = self.functions.outer(func, name)
            if owner is not None and not owner.kinds & STAGED and name in self.array_names(owner):
                found.add(name)
        return found

    def _result(self, func: Func, call: ast.Call) -> str | None:
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
            for func in self.funcs:
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
                for callee, (argument, param) in self._parameters_given(call, scope):
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
                self._call_elsewhere(caller, call, taint)
            return
        if target[0] is caller:
            return
        callee, shift = target
        given = _arguments(call, taint, shift, caller.traced_params)
        traced, arrays = _reached(callee, given)
        if caller not in callee.callers:
            callee.callers.append(caller)
        if shift and callee.self_name is not None:
            if self._made_in_trace(call.func, caller):
                callee.self_inside = True
            else:
                callee.self_outside = True
        self._through(caller, callee, caller.depth + 1, traced=traced, arrays=arrays)

    def _made_in_trace(self, node: ast.expr, caller: Func) -> bool:
        """Whether the object whose method ``node`` calls from traced code was made by traced
        code: ``Iteration()(x)``; ``impl(x)`` or ``impl.step(x)`` with ``impl`` bound in a
        traced function; ``self.step(x)`` in a method whose ``self`` is such an object."""
        if isinstance(node, ast.Call):
            return True
        head = node.value if isinstance(node, ast.Attribute) else node
        if not isinstance(head, ast.Name):
            return False
        scope: Func | None = caller
        while scope is not None:
            if scope.self_name == head.id:
                return scope.self_inside and not scope.self_outside
            if head.id in scope.local:
                # made there by a class's call: not a parameter, which the caller gives
                given = head.id in {*scope.positional, *scope.kwonly, scope.vararg}
                made = self.functions.instance_of(head, scope) is not None
                return scope.is_traced and made and not given
            scope = scope.parent
        return False

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
        given = _arguments(call, taint, 0, caller.traced_params)
        given = replace(given, positional=given.positional[own:])
        for func in self.applied.transformed(made, where):
            traced, arrays = _reached(func, given)
            self._through(caller, func, caller.depth + 1, traced=traced, arrays=arrays)
        return True

    # -- other modules of the package -----------------------------------------------------

    def _call_elsewhere(self, caller: Func, call: ast.Call, taint: Taint) -> None:
        """A call from traced code to a function of another module of the package: an
        imported function (``utils.helper(x)``) or a method of an instance of an imported
        class (``stimuli.set_currents(x)``)."""
        found = self._elsewhere(call.func, caller)
        if found is not None:
            target, shift = found
            given = _arguments(call, taint, shift, caller.traced_params)
            if shift:
                given = replace(given, made_here=self._made_in_trace(call.func, caller))
            self.outgoing.append(
                Entry(
                    target,
                    frozenset(caller.kinds),
                    caller.root,
                    self._dotted(caller),
                    caller.depth + 1,
                    call=given,
                )
            )

    def _transformed_elsewhere(self) -> None:
        """The transformations this module applies to functions of other modules."""
        for node, layers, scope in self.applied.elsewhere:
            found = self._elsewhere(node, scope)
            if found is not None:
                target, shift = found
                texts = tuple(_layer_text(layer) for layer in layers)
                entry = Entry(target, frozenset(), "", "", 0, layers=texts, shift=shift)
                self.outgoing.append(entry)

    def _elsewhere(self, node: ast.expr, scope: Func) -> tuple[Target, int] | None:
        """The function of another module of the package that ``node`` names, and how many
        of its leading parameters are bound."""
        if self.package is None:
            return None
        if isinstance(node, ast.Call):  # Decoder()(z): an instance's __call__
            made: ast.ClassDef | str | None = None
            if isinstance(node.func, (ast.Name, ast.Attribute)):
                made = self._imported_class(node.func, scope)
            target = self.package.target(f"{made}.__call__") if made else None
            return (target, 1) if target is not None else None
        head = node
        while isinstance(head, ast.Attribute):
            head = head.value
        if not isinstance(head, ast.Name):
            return None
        if head.id in self.names.imported and head.id not in scope.local:
            target = self.package.target(self.names.qualified(node) or "")
            return (target, 0) if target is not None else None
        if isinstance(node, ast.Attribute) and node.value is head:
            made = self.functions.instance_of(head, scope)
            if isinstance(made, str):
                target = self.package.target(f"{made}.{node.attr}")
                return (target, 1) if target is not None else None
        if isinstance(node, ast.Name):
            made = self.functions.instance_of(node, scope)
            if isinstance(made, str):
                target = self.package.target(f"{made}.__call__")
                return (target, 1) if target is not None else None
        return None

    def _imported_class(self, node: ast.Name | ast.Attribute, scope: Func) -> str | None:
        """The qualified name of an imported class that ``node`` names (capitalised, as
        classes are named); None for anything else."""
        head: ast.expr = node
        while isinstance(head, ast.Attribute):
            head = head.value
        if not isinstance(head, ast.Name) or head.id not in self.names.imported:
            return None
        if head.id in scope.local:
            return None
        qualified = self.names.qualified(node) or ""
        return qualified if qualified.rpartition(".")[2][:1].isupper() else None

    def _dotted(self, func: Func) -> str:
        """A function's name as another module reads it: ``train.step``."""
        module = self.package.module_of(self.file) if self.package else None
        return f"{module.rpartition('.')[2]}.{func.name}" if module else func.name

    def _enter(self, entry: Entry) -> None:
        """Trace a function of this module as another module's traced code reaches it."""
        func = self._entry_function(entry.target.path)
        if func is None:
            return
        if entry.call is not None:
            traced, arrays = _reached(func, entry.call)
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
        layers = tuple(_layer(text, self.applied.known) for text in entry.layers)
        if all(layer is not None for layer in layers) and any(
            isinstance(layer, Layer) for layer in layers
        ):
            self._mark(func, layers, entry.shift)  # type: ignore[arg-type]

    def _entry_function(self, path: str) -> Func | None:
        """The function of this module at ``"helper"`` or ``"Class.method"``, or at
        ``"@12:name"``: the function named ``name`` whose ``def`` (or first decorator, or
        ``lambda``) is on line 12, nested ones too, as a running function knows its own."""
        if path.startswith("@"):
            line, _, name = path[1:].partition(":")
            return next((f for f in self.funcs if _defined_at(f, int(line), name)), None)
        head, _, method = path.partition(".")
        if not method:
            candidates = self.top_level.defs.get(head)
            return candidates[-1] if candidates else None
        cls = self.top_level.classes.get(head)
        return self.functions.method(cls, method) if cls is not None else None

    def _through(self, caller: Func, func: Func, depth: int, **reached: Iterable[str]) -> None:
        """``func`` is traced as ``caller`` is, through it (called from it, or defined in
        it), with what reaches it (``traced`` parameters, ``free`` names)."""
        kinds, root, name = caller.kinds, caller.root, caller.name
        self._update(func, kinds, root=root, through=name, depth=depth, **reached)


def _arguments(call: ast.Call, taint: Taint, shift: int, params: Iterable[str] = ()) -> Arguments:
    """What ``call`` passes, as the caller's taint sees it; ``params``: the caller's
    traced parameters (one of them not known for an array is passed on as such)."""
    own = set(params)

    def flavor(node: ast.expr) -> str | None:
        """An array, unless it may be a Python value or a pytree: a name also assigned one
        (``size = None``), a parameter not known for an array, a tuple, list or dict of
        tracers, or a field of a pytree not surely an array, unless its class is of this
        module and says which fields are static (one of another module may declare it so:
        ``sys.matrix_inv_iterations``)."""
        if not taint.holds_tracer(node):
            return None
        if taint.may_be_python(node):
            return "traced"
        if isinstance(node, ast.Name) and not taint.is_array(node):
            if node.id in own or taint.is_item(node):
                return "traced"
        if isinstance(node, _CONTAINERS):
            return "traced"  # a tuple, list or dict of tracers: a pytree, no array
        if isinstance(node, ast.Attribute) and not taint.is_array(node):
            base = node.value
            if not (isinstance(base, ast.Name) and base.id in taint.static_fields):
                return "traced"
        return "array"

    positional: list[str | None] = []
    starred = None
    for argument in call.args:
        if isinstance(argument, ast.Starred):
            # The items of a traced tuple: static ones may be among them.
            starred = "traced" if taint.holds_tracer(argument.value) else None
            break
        positional.append(flavor(argument))
    keywords = []
    double_star = None
    for keyword in call.keywords:
        given = flavor(keyword.value)
        if keyword.arg is None:
            double_star = double_star or given
        elif given is not None:
            keywords.append((keyword.arg, given))
    return Arguments(tuple(positional), starred, tuple(keywords), double_star, shift)


def _reached(callee: Func, given: Arguments) -> tuple[set[str], set[str]]:
    """The parameters of ``callee`` that a call gives tracers, and those of them that get
    arrays; never its static parameters nor ``self``."""
    params = callee.positional
    traced: set[str] = set()
    arrays: set[str] = set()

    def reach(names: set[str], flavor: str) -> None:
        traced.update(names)
        if flavor == "array":
            arrays.update(names)

    for index, flavor in enumerate(given.positional, start=given.shift):
        name = params[index] if index < len(params) else callee.vararg
        if name and flavor:
            reach({name}, flavor)
    if given.starred:
        start = given.shift + len(given.positional)
        reach(set(params[start:]) | ({callee.vararg} if callee.vararg else set()), given.starred)
    for name, flavor in given.keywords:
        if name in params or name in callee.kwonly:
            reach({name}, flavor)
    if given.double_star:
        reach(set(params) | set(callee.kwonly), given.double_star)
    excluded = callee.static | {callee.self_name or ""}
    return traced - excluded, arrays - excluded


def _layer_text(layer: Layer | Partial) -> LayerText:
    """A layer as source text, to send to another module."""
    if isinstance(layer, Partial):
        keywords = tuple((name, "None") for name in sorted(layer.names))
        return LayerText("functools.partial", ("None",) * layer.count, keywords, partial=True)
    return LayerText(
        layer.name,
        tuple(ast.unparse(a) for a in layer.args),
        tuple((k, ast.unparse(v)) for k, v in layer.keywords.items()),
    )


def _defined_at(func: Func, line: int, name: str) -> bool:
    """Whether ``func`` is named ``name`` and starts on ``line``: at its ``def`` or its first
    decorator (where Python's ``co_firstlineno`` says a function starts)."""
    node = func.node
    own = getattr(node, "name", "<lambda>" if isinstance(node, ast.Lambda) else None)
    decorators = [d.lineno for d in getattr(node, "decorator_list", [])]
    return own == name and line in (func.line, *decorators[:1])


def _layer(text: LayerText, known: dict[str, Transform]) -> Layer | Partial | None:
    """A layer read back from its source text; None for a transformation not known here."""
    if text.partial:
        return Partial(len(text.args), frozenset(k for k, _ in text.keywords))
    transform = known.get(text.name)
    if transform is None:
        return None
    parse = _expression
    keywords = {k: parse(v) for k, v in text.keywords}
    return Layer(text.name, transform, tuple(parse(a) for a in text.args), keywords)


def _expression(text: str) -> ast.expr:
    """An expression from its source text (a Python None where it cannot be read)."""
    try:
        return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return ast.Constant(None)


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


def _annotated_sequence(annotation: ast.expr | None, names: Names) -> str | None:
    """The kind of Python sequence an annotation names (``Sequence[jax.Array]``, ``tuple``)."""
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    if annotation is None:
        return None
    return _SEQUENCE_TYPES.get(names.qualified(annotation) or "")
