"""The checks behind each rule of :mod:`jaxpurity.linter._rules`, run over one parsed module.

:func:`check` takes a module's :class:`~jaxpurity.linter._scope.Scopes` and
returns a :class:`Hit` per finding. Most rules look only inside traced
functions, with what :class:`~jaxpurity.linter._taint.Taint` knows of their
traced values; item assignment on an array, a discarded ``.at[...]`` update,
a reused key, a donated array read again, an unhashable static argument and a
``jit`` inside a loop are looked for everywhere. Nothing is reported in the body of a
``with`` block that a test expects to raise (``pytest.raises``, ``self.assertRaises*``,
``np.testing.assert_raises``): that code is meant to fail. Each function's own nodes are
visited a constant number of times (the flows of keys and donated arrays,
:mod:`jaxpurity.linter._flow`, are linear too), so the checks are linear in the
size of the module.
"""

from __future__ import annotations

import ast
import bisect
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

from jaxpurity.linter._arrays import CONVERSIONS, STATIC_CALLS, at_update, builds_array
from jaxpurity.linter._flow import Event, calls_in_order, spent_uses
from jaxpurity.linter._functions import Func
from jaxpurity.linter._names import Names, dotted
from jaxpurity.linter._scope import Scopes
from jaxpurity.linter._syntax import (
    NESTED_SCOPES,
    Blocks,
    blocks,
    comprehension_scopes,
    flatten,
    is_constant,
    is_container,
    names_in,
    position,
)
from jaxpurity.linter._taint import Taint
from jaxpurity.linter._transformations import Jitted
from jaxpurity.linter._wrappers import CACHED, DEVICES, PARTIAL

__all__ = ["KEY_USERS", "Hit", "check"]

#: The jax.random functions that use up their key (not ``fold_in``: deriving a key per
#: step from one key is the fix).
KEY_USERS = frozenset(
    f"jax.random.{name}"
    for name in (
        "ball bernoulli beta binomial bits categorical cauchy chisquare choice dirichlet "
        "double_sided_maxwell exponential f gamma generalized_normal geometric gumbel "
        "laplace loggamma logistic lognormal maxwell multinomial multivariate_normal normal "
        "orthogonal pareto permutation poisson rademacher randint rayleigh shuffle split t "
        "triangular truncated_normal uniform wald weibull_min"
    ).split()
)
# Functions whose derivative is infinite or nan somewhere in their domain.
_UNSAFE = frozenset(
    {
        "jax.numpy.sqrt",
        "jax.numpy.log",
        "jax.numpy.log2",
        "jax.numpy.log10",
        "jax.numpy.arcsin",
        "jax.numpy.arccos",
        "jax.numpy.arctanh",
        "jax.numpy.reciprocal",
        "jax.lax.sqrt",
        "jax.lax.rsqrt",
        "jax.lax.log",
    }
)
# Calls that keep an input in a safe range (the fix's inner jnp.where).
_GUARDS = frozenset({"jax.numpy.where", "jax.numpy.maximum", "jax.numpy.clip"})
_ABS = frozenset({"abs", "jax.numpy.abs", "jax.numpy.absolute", "jax.lax.abs"})
_REVERSE_LOOPS = {
    f"{prefix}.{loop}": loop
    for prefix in ("jax.lax", "jaxpurity")
    for loop in ("while_loop", "fori_loop")
}

# Methods that store into a container.
_STORES = frozenset(
    {"append", "extend", "insert", "add", "update", "setdefault", "appendleft", "extendleft"}
)
_TIME_READS = frozenset(
    {
        "time.time",
        "time.time_ns",
        "time.perf_counter",
        "time.perf_counter_ns",
        "time.monotonic",
        "time.monotonic_ns",
        "time.process_time",
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
        "datetime.datetime.today",
        "datetime.date.today",
        "os.getenv",
        "os.environ.get",
    }
)
_GENERATORS = frozenset(
    {
        "numpy.random.default_rng",
        "numpy.random.RandomState",
        "numpy.random.Generator",
        "random.Random",
    }
)
# NumPy functions that read only a shape or a dtype, which a tracer has: those whose
# result the taint knows is static, and those given shapes or dtypes.
_NUMPY_STATIC = frozenset(
    {name for name in STATIC_CALLS if name.startswith("numpy.")}
    | {"numpy.can_cast", "numpy.promote_types", "numpy.broadcast_shapes"}
)
_SHAPE_KEYWORDS = {
    "axis": "an axis",
    "axes": "axes",
    "shape": "a shape",
    "size": "a size",
    "length": "a length",
    "num": "a count",
    "num_segments": "a segment count",
    "total_repeat_length": "a length",
    "new_sizes": "a shape",
}
# Positions of shape arguments: None for all positional arguments.
_SHAPE_POSITIONS: dict[str, tuple[int, ...] | None] = {
    "jax.numpy.zeros": (0,),
    "jax.numpy.ones": (0,),
    "jax.numpy.empty": (0,),
    "jax.numpy.full": (0,),
    "jax.numpy.arange": None,
    "jax.numpy.eye": (0, 1),
    "jax.numpy.identity": (0,),
    "jax.numpy.linspace": (2,),
    "jax.numpy.reshape": (1,),
    "jax.numpy.broadcast_to": (1,),
    "jax.numpy.tile": (1,),
    "jax.random.normal": (1,),
    "jax.random.uniform": (1,),
    "jax.random.randint": (1,),
    "jax.random.bernoulli": (2,),
}
_SHAPE_METHODS = frozenset({"reshape", "broadcast_to"})
_NONZERO = frozenset(
    f"jax.numpy.{name}"
    for name in (
        "nonzero argwhere flatnonzero unique unique_values unique_counts unique_inverse "
        "unique_all compress extract"
    ).split()
)
# Contexts whose body a test expects to raise (besides the assertRaises* methods). Not
# jaxpurity.raises: a page shows a reader's bug with it, and the bug is what lint must find.
_EXPECTED_ERRORS = frozenset(
    {"pytest.raises", "numpy.testing.assert_raises", "numpy.testing.assert_raises_regex"}
)
_JIT_KINDS = frozenset({"jit", "pmap"})


@dataclass(frozen=True)
class Hit:
    """One finding of a check: the node it is at, the rule's code, and the message's fields."""

    node: ast.AST
    code: str
    fields: dict[str, object] = field(default_factory=dict)


def check(scopes: Scopes) -> list[Hit]:
    """Every finding in the module of ``scopes``.

    Example:
      >>> from jaxpurity.linter._wrappers import TRANSFORMS
      >>> tree = ast.parse("import jax\\n@jax.jit\\ndef f(x):\\n    if x > 0:\\n        return x")
      >>> [(hit.code, hit.node.lineno) for hit in check(Scopes(tree, Names(tree), TRANSFORMS))]
      [('JP201', 4)]
    """
    facts = _Facts(scopes)
    hits: list[Hit] = []
    for func in scopes.traced():
        hits += _TracedChecks(func, facts).run()
    for scope in scopes.funcs:
        hits += _everywhere(scope, facts)
    expected = facts.expected_errors
    return [hit for hit in hits if not expected.contain(getattr(hit.node, "lineno", 0))]


class _Facts:
    """What the checks need to know about the module as a whole, computed once."""

    def __init__(self, scopes: Scopes) -> None:
        self.scopes = scopes
        self.names: Names = scopes.names
        module = scopes.module
        self.module = module
        self._containers: dict[int, set[str]] = {}
        self._checked_by_tests: dict[tuple[int, str], bool] = {}
        self._self_containers: dict[int, set[str]] = {}
        self.generators = {
            target.id
            for node in module.of(ast.Assign)
            if isinstance(node.value, ast.Call)
            if self.names.qualified(node.value.func) in _GENERATORS
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        #: The bodies of ``with pytest.raises(...)`` and its kin: code there is meant to fail.
        self.expected_errors = blocks(
            node
            for scope in scopes.funcs
            for node in scope.of(ast.With)
            if any(_expects_error(item.context_expr, self.names) for item in node.items)
        )

    def containers(self, scope: Func) -> set[str]:
        """The names and attribute paths that ``scope`` binds to a list, dict or set."""
        key = id(scope)
        if key not in self._containers:
            found = set()
            assignments: list[ast.Assign | ast.AnnAssign] = [
                *scope.of(ast.Assign),
                *scope.of(ast.AnnAssign),
            ]
            for node in assignments:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target, value in _pairs(targets, node.value):
                    path = dotted(target)
                    if path is not None and is_container(value, self.names):
                        found.add(path)
            self._containers[key] = found
        return self._containers[key]

    def self_containers(self, cls: ast.ClassDef) -> set[str]:
        """The attributes that a class's methods set to a list, dict or set (``self.x = []``)."""
        key = id(cls)
        if key not in self._self_containers:
            found = set()
            for method in self.scopes.functions.methods(cls):
                for node in method.of(ast.Assign):
                    if is_container(node.value, self.names):
                        found |= {
                            t.attr
                            for t in node.targets
                            if isinstance(t, ast.Attribute)
                            and isinstance(t.value, ast.Name)
                            and t.value.id == method.self_name
                        }
            self._self_containers[key] = found
        return self._self_containers[key]

    def checked_by_tests(self, func: Func, name: str) -> bool:
        """Whether ``name``, which ``func`` assigns through ``global`` or ``nonlocal``, is
        read only where a test checks it: in ``assert`` statements, ``assert*()`` calls
        (``self.assertEqual(n, 1)``) and blocks that expect an error, at least once, and never
        in a traced function (updates such as ``n = n + 1`` aside). A trace counter, or a flag
        that the body ran, counts traces on purpose."""
        owner = self.module if name in func.declared_global else _owner(func.parent, name)
        key = (id(owner), name)
        if key not in self._checked_by_tests:
            checked, unchecked = 0, 0
            for scope, read in self._reads.get(key, []):
                if id(read) in self._updates:
                    continue
                if not scope.traced and (
                    id(read) in self._asserted or self.expected_errors.contain(read.lineno)
                ):
                    checked += 1
                else:
                    unchecked += 1
            self._checked_by_tests[key] = checked > 0 and not unchecked
        return self._checked_by_tests[key]

    @functools.cached_property
    def _declared(self) -> set[str]:
        """The names that some function assigns through ``global`` or ``nonlocal``."""
        return {n for f in self.scopes.funcs for n in f.declared_global | f.declared_nonlocal}

    @functools.cached_property
    def _reads(self) -> dict[tuple[int, str], list[tuple[Func, ast.Name]]]:
        """The reads of each declared name, by the scope that binds it (the module for a
        global) and the name, each with the function it is read in."""
        declared = self._declared
        reads: dict[tuple[int, str], list[tuple[Func, ast.Name]]] = {}
        for scope in self.scopes.funcs:
            for node in scope.of(ast.Name):
                if node.id in declared and isinstance(node.ctx, ast.Load):
                    owner = self.module if node.id in scope.declared_global else None
                    owner = owner or _owner(scope, node.id)
                    reads.setdefault((id(owner), node.id), []).append((scope, node))
        return reads

    @functools.cached_property
    def _asserted(self) -> set[int]:
        """The declared names read in an ``assert`` statement or an ``assert*()`` call."""
        declared, found, seen = self._declared, set(), set()
        for scope in self.scopes.funcs:
            checks: list[ast.AST] = [*scope.of(ast.Assert)]
            checks += [c for c in scope.of(ast.Call) if _is_assert_call(c)]
            for check in checks:
                stack = [check]
                while stack:
                    node = stack.pop()
                    if id(node) in seen:
                        continue
                    seen.add(id(node))
                    if isinstance(node, ast.Name) and node.id in declared:
                        found.add(id(node))
                    stack.extend(ast.iter_child_nodes(node))
        return found

    @functools.cached_property
    def _updates(self) -> set[int]:
        """The reads of a declared name in an assignment to it (``n = n + 1``)."""
        declared, found = self._declared, set()
        for scope in self.scopes.funcs:
            for node in scope.of(ast.Assign):
                targets = {t.id for t in node.targets if isinstance(t, ast.Name)} & declared
                if targets:
                    found |= {
                        id(n)
                        for n in ast.walk(node.value)
                        if isinstance(n, ast.Name) and n.id in targets
                    }
        return found

    def in_trace_of(self, func: Func, scope: Func) -> bool:
        """Whether ``func`` runs inside the trace of ``scope``, a traced function that it is
        defined in, with no transformation in between: ``func`` and each function between
        them is a helper that ``scope`` calls (or another such helper), or a lambda it hands
        on, never transformed itself. A container that ``scope`` makes (``env = {}``) is
        then made anew on every trace, and what ``func`` stores in it does not outlive it."""
        if not scope.traced:
            return False
        stack, seen = [func], set()
        while stack:
            current = stack.pop()
            if current is scope or id(current) in seen:
                continue
            seen.add(id(current))
            if current.direct or current.parent is None or not _defined_in(current, scope):
                return False
            stack.extend(current.callers or [current.parent])
        return True

    def stale_setting(self, func: Func, name: str) -> int | None:
        """The line where the module gives ``name``, a setting that ``func`` reads, a value
        that a trace of ``func`` may have missed: a constant given again at module level
        after ``func``'s ``def``, when a function that traces ``func`` (itself, one it is
        defined in, or one that calls it) runs both before that line and after it, so that
        the later run reuses a trace that read the old value; or an assignment through
        ``global`` in a function, whose time is unknown. None when there is no such line."""
        if name in self._set_through_global:
            return self._set_through_global[name]
        lines = [line for line in self._settings.get(name, []) if line > func.line]
        if not lines:
            return None
        runs, hosts = self._runs
        for tracer in _tracers_of(func, hosts):
            times = runs.get(id(tracer), [])
            for line in lines:
                before = bisect.bisect_left(times, line)
                if before > 0 and bisect.bisect_right(times, line) < len(times):
                    return line
        return None

    @functools.cached_property
    def _settings(self) -> dict[str, list[int]]:
        """Module-level names given a constant (or updated in place) again at module level:
        name -> the lines of those assignments, in order."""
        bound_before: set[str] = set()
        settings: dict[str, list[int]] = {}
        for node in self.module.nodes:
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for name in (t.id for t in targets if isinstance(t, ast.Name)):
                    if name in bound_before and (
                        isinstance(node, ast.AugAssign) or is_constant(node.value)
                    ):
                        settings.setdefault(name, []).append(node.lineno)
                    bound_before.add(name)
        return settings

    @functools.cached_property
    def _set_through_global(self) -> dict[str, int]:
        """Module-level names assigned through ``global`` in a function: name -> the first
        such line."""
        found: dict[str, int] = {}
        for func in self.scopes.funcs:
            if not func.declared_global:
                continue
            assignments: list[ast.Assign | ast.AugAssign] = [
                *func.of(ast.Assign),
                *func.of(ast.AugAssign),
            ]
            for node in assignments:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name) and target.id in func.declared_global:
                        found.setdefault(target.id, node.lineno)
        return found

    @functools.cached_property
    def _runs(self) -> tuple[dict[int, list[int]], dict[int, list[Func]]]:
        """The lines where each function of the module is traced or its compiled trace
        runs (by ``id``): a call of it when it is jitted (``step(x)`` after ``step =
        jax.jit(f)``, or a decorated ``f``), and every transformation applied to it
        (``lax.fori_loop(0, n, f, x)``, ``jax.jit(f)``: JAX's trace cache is shared).
        And the functions that apply a transformation to each (whose runs trace it)."""
        scopes = self.scopes
        runs: dict[int, list[int]] = {}
        hosts: dict[int, list[Func]] = {}
        for scope in scopes.funcs:
            for call in scope.of(ast.Call):
                if scopes.transformations.is_transform_call(call):
                    ran = scopes.transformations.transformed(call, scope)
                    for func in ran:
                        hosts.setdefault(id(func), []).append(scope)
                else:
                    jitted = scopes.transformations.jitted(call, scope)
                    ran = [jitted.func] if jitted is not None else []
                for func in ran:
                    runs.setdefault(id(func), []).append(call.lineno)
        for lines in runs.values():
            lines.sort()
        return runs, hosts


class _TracedChecks:
    """The checks of one traced function."""

    def __init__(self, func: Func, facts: _Facts) -> None:
        assert func.taint is not None
        self.func = func
        self.taint = func.taint
        self.facts = facts
        self.names = facts.names
        self.hits: list[Hit] = []
        self._reported: set[tuple[str, str]] = set()
        kinds = func.kinds
        self.cached = bool(kinds & CACHED)
        self.in_loop = bool(kinds & {"loop", "branch"})
        self.not_only_grad = bool(kinds - {"grad"})
        self.masks = self._mask_names()
        self.differentiated: Taint | None = None
        if func.differentiated:
            self.differentiated = facts.scopes.taint_of(func, func.differentiated)

    def hit(self, node: ast.AST, code: str, once: str | None = None, **fields: object) -> None:
        if once is not None:
            if (code, once) in self._reported:
                return
            self._reported.add((code, once))
        fields.setdefault("how", self.func.how)
        self.hits.append(Hit(node, code, fields))

    def traced(self, node: ast.expr | None) -> bool:
        return self.taint.is_traced(node)

    def array(self, node: ast.expr | None) -> bool:
        return self.taint.is_array(node)

    def run(self) -> list[Hit]:
        self._definition()
        for node in self.func.nodes:
            if isinstance(node, ast.Assign):
                self._assignment(node, node.targets, node.value)
            elif isinstance(node, ast.AugAssign):
                self._assignment(node, [node.target], node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self._assignment(node, [node.target], node.value)
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                self._assignment(node, [node.target], node.iter)
            elif isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.If):
                self._test(node.test, "if")
            elif isinstance(node, ast.While):
                self._test(node.test, "while")
            elif isinstance(node, ast.IfExp):
                self._test(node.test, "... if ... else ...")
            elif isinstance(node, ast.Assert):
                self._test(node.test, "assert")
            elif isinstance(node, ast.comprehension):
                for condition in node.ifs:
                    self._test(condition, "if")
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                self._subscript(node)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                self._setting(node)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                if self.cached and self.names.qualified(node.value.func) == "jax.pure_callback":
                    self.hit(node.value, "JP133")
        return self.hits

    # -- the function itself: caches and defaults -----------------------------------------

    def _definition(self) -> None:
        node = self.func.node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return
        for decorator in node.decorator_list:
            name = self.names.qualified(
                decorator.func if isinstance(decorator, ast.Call) else decorator
            )
            if name in ("functools.lru_cache", "functools.cache") and self._returns_arrays(node):
                self.hit(decorator, "JP106", decorator=dotted(decorator) or name)
        if self.cached:
            defaults = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
            positional = [*node.args.posonlyargs, *node.args.args]
            with_default = positional[len(positional) - len(node.args.defaults) :]
            named = {id(d): p.arg for d, p in zip(node.args.defaults, with_default, strict=True)}
            for arg, default in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True):
                if default is not None:
                    named[id(default)] = arg.arg
            for default in defaults:
                if is_container(default, self.names):
                    kind = type(default).__name__.lower().removesuffix("comp")
                    if isinstance(default, ast.Call):
                        kind = (self.names.qualified(default.func) or "object").split(".")[-1]
                    self.hit(default, "JP107", name=named.get(id(default), "?"), kind=kind)

    def _returns_arrays(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        annotations = [a.annotation for a in [*node.args.posonlyargs, *node.args.args]]
        if any(_is_array_annotation(a, self.names) for a in [*annotations, node.returns]):
            return True
        blocks: list[ast.With | ast.AsyncWith] = [
            *self.func.of(ast.With),
            *self.func.of(ast.AsyncWith),
        ]
        concrete = [
            (n.lineno, n.end_lineno or n.lineno)
            for n in blocks
            if any(
                self.names.qualified(item.context_expr.func) == "jax.ensure_compile_time_eval"
                for item in n.items
                if isinstance(item.context_expr, ast.Call)
            )
        ]
        return any(
            builds_array(n.value, self.names)
            and not any(start <= n.lineno <= end for start, end in concrete)
            for n in self.func.of(ast.Return)
        )

    # -- state: globals, outer containers, self -------------------------------------------

    def _assignment(self, node: ast.AST, targets: list[ast.expr], value: ast.expr) -> None:
        value_traced = self.traced(value)
        declared = self.func.declared_global | self.func.declared_nonlocal
        for target in targets:
            for element in flatten(target):
                if isinstance(element, ast.Name) and element.id in declared:
                    if self._local_of_the_trace(element.id):
                        continue
                    if value_traced or (self.cached and not self._counted(element.id, value)):
                        statement = (
                            "global" if element.id in self.func.declared_global else "nonlocal"
                        )
                        self.hit(
                            element, "JP101", once=element.id, name=element.id, declared=statement
                        )
                elif isinstance(element, (ast.Attribute, ast.Subscript)):
                    self._store(
                        element, element.value, [value], item=isinstance(element, ast.Subscript)
                    )

    def _local_of_the_trace(self, name: str) -> bool:
        """Whether the nonlocal ``name`` is a local of a traced function that this one runs
        in the trace of (a helper it defines and calls): made anew on every trace, what the
        helper assigns to it does not outlive the trace."""
        if name not in self.func.declared_nonlocal:
            return False
        owner = _owner(self.func.parent, name)
        return (
            owner is not None
            and owner.parent is not None
            and self.facts.in_trace_of(self.func, owner)
        )

    def _counted(self, name: str, value: ast.expr) -> bool:
        """Whether assigning ``value`` (not traced) to the global or nonlocal ``name`` keeps
        a trace counter or flag that only tests check: no JAX array, which would be a
        tracer."""
        return not builds_array(value, self.names) and self.facts.checked_by_tests(self.func, name)

    def _store(
        self, target: ast.expr, base: ast.expr, values: list[ast.expr], *, item: bool
    ) -> None:
        """A store of ``values`` into ``base`` (``base.attr = v``, ``base[k] = v``,
        ``base.append(v)``)."""
        value_traced = any(self.traced(v) for v in values)
        self_name = self.func.self_name or self._enclosing_self()
        root = base
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if not isinstance(root, ast.Name):
            return
        if self_name is not None and root.id == self_name:
            self._self_store(target, base, value_traced)
            return
        path = dotted(base)
        if root.id in self.func.local or path is None:
            return
        scope = self.facts.scopes.functions.outer(self.func, root.id)
        if scope is None:
            return
        is_container = path in self.facts.containers(scope)
        if (item or isinstance(target, ast.Call)) and not is_container:
            return
        if is_container and self.facts.in_trace_of(self.func, scope):
            return  # made anew on every trace that changes it: it does not outlive one
        name = path if item or isinstance(target, ast.Call) else dotted(target) or path
        if self.in_loop:
            # A loop body always runs staged: a JAX array made there is a tracer too. What
            # holds none (a shape, a count, a string) is bookkeeping at trace time.
            if value_traced or any(builds_array(v, self.names) for v in values):
                self.hit(target, "JP103", name=name)
        elif self.cached:
            self.hit(target, "JP102", name=name)
        elif value_traced:
            self.hit(target, "JP104", name=name)

    def _method(self) -> Func | None:
        """The method this function is, or is defined in."""
        scope: Func | None = self.func
        while scope is not None and scope.self_name is None:
            scope = scope.parent
        return scope

    def _enclosing_self(self) -> str | None:
        method = self._method()
        return method.self_name if method else None

    def _self_store(self, target: ast.expr, base: ast.expr, value_traced: bool) -> None:
        """``self.x = v`` always; ``self.x[k] = v`` and ``self.x.append(v)`` when the class
        makes ``self.x`` a list, dict or set (else ``update`` may be an optimizer's)."""
        if not (self.cached or value_traced) or self.func.root.startswith("flax.nnx"):
            return
        attribute = target if isinstance(target, ast.Attribute) else base
        while isinstance(attribute, (ast.Attribute, ast.Subscript)) and not (
            isinstance(attribute, ast.Attribute) and isinstance(attribute.value, ast.Name)
        ):
            attribute = attribute.value
        if not isinstance(attribute, ast.Attribute):
            return
        method = self._method()
        if attribute is not target and (
            method is None
            or method.cls is None
            or attribute.attr not in self.facts.self_containers(method.cls)
        ):
            return
        self.hit(target, "JP105", name=attribute.attr)

    # -- calls ---------------------------------------------------------------------------

    def _call(self, node: ast.Call) -> None:
        name = self.names.qualified(node.func) or ""
        written = dotted(node.func) or name
        arguments = [*node.args, *(k.value for k in node.keywords)]
        array_argument = any(self.array(a) for a in arguments)
        if isinstance(node.func, ast.Attribute) and node.func.attr in _STORES:
            self._store(node, node.func.value, arguments, item=False)
        printed = [a.value if isinstance(a, ast.Starred) else a for a in node.args]
        if name == "print" and any(self._shows_tracer(a) for a in printed):
            on_devices = self.func.kinds & DEVICES
            self.hit(node, "JP131" if on_devices else "JP130")
        elif name == "jax.debug.print" and node.args and isinstance(node.args[0], ast.JoinedStr):
            if self.traced(node.args[0]):
                self.hit(node, "JP132")
        if self.cached and name in _TIME_READS:
            self.hit(node, "JP110", call=written + "()")
        if self.not_only_grad and self._host_randomness(node, name):
            self.hit(node, "JP120", call=written + "()")
        self._conversions(node, name, written, array_argument)
        self._shapes(node, name)
        if name in KEY_USERS:
            self._shared_key(node)
        if name in _REVERSE_LOOPS and self.differentiated is not None:
            self._reverse_loop(node, _REVERSE_LOOPS[name])
        if name == "jax.numpy.where" and len(node.args) == 3 and "grad" in self.func.kinds:
            self._where_nan(node)

    def _reverse_loop(self, node: ast.Call, loop: str) -> None:
        """A while_loop, or a fori_loop with traced bounds, that touches a differentiated
        value: its arguments, or what its body function reads from here."""
        assert self.differentiated is not None
        body_position = 1 if loop == "while_loop" else 2
        if loop == "fori_loop" and not any(self.traced(a) for a in node.args[:2]):
            return  # static bounds: JAX makes it a scan, which reverse mode can go through
        touched = any(self.differentiated.is_traced(a) for a in node.args)
        functions = node.args[: body_position + 1]
        for function in functions:
            target = self.facts.scopes.functions.resolve(function, self.func, node.lineno)
            if target is not None:
                touched = touched or bool(target[0].free_reads() & self.differentiated.traced)
        if touched:
            why = "with a traced trip count" if loop == "fori_loop" else "runs"
            self.hit(node, "JP303", loop=dotted(node.func), why=why, reverse=self.func.reverse)

    def _where_nan(self, node: ast.Call) -> None:
        """``jnp.where(x > 0, jnp.sqrt(x), 0.0)``: the condition compares the very value,
        up to a sign or ``abs``, that an unsafe function on a side is given. A condition on
        another expression (``x > -0.7`` beside ``jnp.log(-jnp.expm1(x))``) switches between
        formulas, and guards nothing."""
        compared = {
            _up_to_sign(operand, self.names)
            for test in ast.walk(node.args[0])
            if isinstance(test, ast.Compare)
            for operand in [test.left, *test.comparators]
            if not is_constant(operand)
        }
        for side in node.args[1:]:
            for inner in ast.walk(side):
                if isinstance(inner, ast.Call) and self.names.qualified(inner.func) in _UNSAFE:
                    # the derivative of sqrt(v) is infinite where v is 0: v must be traced
                    given = inner.args[0] if inner.args else None
                    unsafe = given is not None and self.traced(given)
                    what = f"{dotted(inner.func)}()"
                elif isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Div):
                    # the derivative of s / n is infinite where n is 0, for s or n traced
                    given, unsafe, what = inner.right, self.traced(inner), "a division"
                else:
                    continue
                if (
                    unsafe
                    and given is not None
                    and _up_to_sign(given, self.names) in compared
                    and not (isinstance(given, ast.Name) and given.id in self._guarded_names())
                ):
                    self.hit(inner, "JP304", call=what)
                    return

    def _guarded_names(self) -> set[str]:
        """Names assigned only from jnp.where, jnp.maximum or jnp.clip."""
        if not hasattr(self, "_guarded"):
            verdict: dict[str, bool] = {}
            for node in self.func.of(ast.Assign):
                guarded = isinstance(node.value, ast.Call) and (
                    self.names.qualified(node.value.func) in _GUARDS
                )
                for target in node.targets:
                    for name in names_in(target):
                        verdict[name] = verdict.get(name, True) and guarded
            self._guarded = {name for name, ok in verdict.items() if ok}
        return self._guarded

    def _host_randomness(self, node: ast.Call, name: str) -> bool:
        if name.startswith("numpy.random.") and name not in _GENERATORS:
            return True
        if (
            name.startswith("random.")
            and "random" in self.names.imported
            and name != "random.Random"
        ):
            return True
        base = node.func.value if isinstance(node.func, ast.Attribute) else None
        return (
            isinstance(base, ast.Name)
            and base.id in self.facts.generators
            and base.id not in self.func.local
        )

    def _shows_tracer(self, node: ast.expr) -> bool:
        """Whether printing ``node`` shows a tracer: an array, a traced argument or name
        (perhaps a pytree of them), or a string formatted from one."""
        if isinstance(node, ast.JoinedStr):
            return any(
                isinstance(v, ast.FormattedValue) and self._shows_tracer(v.value)
                for v in node.values
            )
        if isinstance(node, ast.Name):
            return self.traced(node)
        return self.array(node)

    def _conversions(self, node: ast.Call, name: str, written: str, array_argument: bool) -> None:
        if name in CONVERSIONS and node.args and self.array(node.args[0]):
            self.hit(node, "JP202", call=f"{written}()")
        elif (
            isinstance(node.func, ast.Attribute)
            and node.func.attr in ("item", "tolist")
            and not node.args
            and self.traced(node.func.value)
        ):
            self.hit(node, "JP202", call=f".{node.func.attr}()")
        elif name.startswith("math.") and array_argument:
            self.hit(node, "JP202", call=f"{written}()")
        elif (
            name.startswith("numpy.")
            and not name.startswith("numpy.random.")
            and name not in _NUMPY_STATIC
            and array_argument
        ):
            self.hit(node, "JP203", call=f"{written}()")
        elif name == "range" and array_argument:
            self.hit(node, "JP204")

    def _shapes(self, node: ast.Call, name: str) -> None:
        on_array = isinstance(node.func, ast.Attribute) and self.traced(node.func.value)
        if name.startswith("jax.") or on_array:
            for keyword in node.keywords:
                if keyword.arg in _SHAPE_KEYWORDS and self.array(keyword.value):
                    self.hit(
                        keyword.value,
                        "JP206",
                        what=f"{_SHAPE_KEYWORDS[keyword.arg]} ({keyword.arg}=)",
                    )
                    return
        positions: tuple[int, ...] | None = ()
        if name in _SHAPE_POSITIONS:
            positions = _SHAPE_POSITIONS[name]
        elif on_array and isinstance(node.func, ast.Attribute) and node.func.attr in _SHAPE_METHODS:
            positions = None
        shape_args = (
            node.args
            if positions is None
            else [node.args[i] for i in positions if i < len(node.args)]
        )
        for argument in shape_args:
            if self.array(argument):
                self.hit(argument, "JP206", what=f"a shape (of {dotted(node.func)})")
                return
        if self.not_only_grad and not any(k.arg == "size" for k in node.keywords):
            nonzero = name in _NONZERO or (name == "jax.numpy.where" and len(node.args) == 1)
            method = (
                isinstance(node.func, ast.Attribute) and node.func.attr == "nonzero" and on_array
            )
            if (nonzero and any(self.array(a) for a in node.args)) or method:
                self.hit(node, "JP207", what=f"{dotted(node.func)}() without size=")

    def _shared_key(self, call: ast.Call) -> None:
        direct = self.func.direct
        key = key_argument(call)
        if not isinstance(key, ast.Name) or not direct & {"vmap", "loop"}:
            return
        if "loop" in direct:
            place, unit, fix = "the loop body", "step", "carry the key and split it at every step"
        else:
            place, unit, fix = (
                "the vmapped function",
                "row",
                "split one key per row and map over them",
            )
        if key.id in self.func.unbatched:
            source = "an argument that vmap passes whole to every row (in_axes=None)"
        elif key.id not in self.func.local:
            source = f"a key from outside {place}"
        else:
            return
        self.hit(call, "JP122", once=key.id, name=key.id, source=source, unit=unit, fix=fix)

    # -- control flow, indexing, settings ---------------------------------------------------

    def _test(self, test: ast.expr, statement: str) -> None:
        flag = _flag_argument(test)
        if flag is not None and flag in self.func.traced_params and flag in self.taint.arrays:
            self.hit(test, "JP205", statement=statement, name=flag)
        elif self._tests_array(test):
            self.hit(test, "JP201", statement=statement)

    def _tests_array(self, test: ast.expr) -> bool:
        """Whether Python must turn an array into a bool to decide ``test``."""
        if isinstance(test, ast.BoolOp):
            return any(self._tests_array(v) for v in test.values)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._tests_array(test.operand)
        return self.array(test)

    def _subscript(self, node: ast.Subscript) -> None:
        index = node.slice
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        bounds = [b for p in parts if isinstance(p, ast.Slice) for b in (p.lower, p.upper, p.step)]
        if any(self.array(b) for b in bounds):
            self.hit(node, "JP208")
        elif (
            self.not_only_grad
            and self.traced(node.value)
            and not (isinstance(node.value, ast.Attribute) and node.value.attr == "at")
            and any(self._is_mask(p) for p in parts)
        ):
            self.hit(node, "JP207", what="a boolean mask as an index")
        if self.cached and self.names.qualified(node.value) == "os.environ":
            self.hit(node, "JP110", call="os.environ[...]")

    def _mask_names(self) -> set[str]:
        masks: set[str] = set()
        for node in self.func.of(ast.Assign):
            if len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name) and self._is_mask(node.value, masks):
                    masks.add(target.id)
        return masks

    def _is_mask(self, node: ast.expr, masks: set[str] | None = None) -> bool:
        masks = self.masks if masks is None else masks
        if isinstance(node, ast.Name):
            return node.id in masks
        if isinstance(node, ast.Compare):
            return self.array(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
            return self._is_mask(node.operand, masks)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
            return self._is_mask(node.left, masks) or self._is_mask(node.right, masks)
        return False

    def _setting(self, node: ast.Name) -> None:
        if (
            self.cached
            and node.id not in self.func.local
            and node.id not in self.func.declared_global
            and self.facts.scopes.functions.outer(self.func, node.id) is self.facts.module
        ):
            line = self.facts.stale_setting(self.func, node.id)
            if line is not None:
                self.hit(node, "JP111", once=node.id, name=node.id, line=line)


def _everywhere(scope: Func, facts: _Facts) -> list[Hit]:
    """The checks that hold in any code, traced or not."""
    names = facts.names
    hits = []
    arrays = _array_names(scope, names)
    loops = _loop_bodies(scope)
    calls: list[tuple[ast.Call, Jitted]] = []  # the calls of jitted functions
    draws = False  # whether the scope draws from a jax.random key at all
    assignments: list[ast.Assign | ast.AugAssign] = [
        *scope.of(ast.Assign),
        *scope.of(ast.AugAssign),
    ]
    for node in assignments:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            for element in flatten(target):
                if (
                    isinstance(element, ast.Subscript)
                    and isinstance(element.value, ast.Name)
                    and element.value.id in arrays
                ):
                    hits.append(Hit(element, "JP209", {"name": element.value.id}))
    for statement in scope.of(ast.Expr):
        update = at_update(statement.value)
        if update is not None:
            array, method = update
            hits.append(Hit(statement.value, "JP210", {"method": method, "name": _short(array)}))
    for call in scope.of(ast.Call):
        if loops:
            hits += _jit_in_loop(call, scope, facts, loops)
        if names.qualified(call.func) in KEY_USERS:
            draws = True
        jitted = facts.scopes.transformations.jitted(call, scope)
        if jitted is not None:
            calls.append((call, jitted))
    hits += _unhashable_statics(calls, facts)
    body = getattr(scope.node, "body", None)
    if isinstance(body, list):
        budget = 4 * len(scope.nodes)
        if draws:
            for reuse in spent_uses(body, lambda node: _key_events(node, names), budget):
                hits.append(Hit(reuse.node, "JP121", {"name": reuse.name, "line": reuse.line}))
        hits += _donated_reads(scope, body, calls, budget)
    return hits


def key_argument(call: ast.Call) -> ast.expr | None:
    """The key a jax.random call is given: its first argument, or ``key=``."""
    if call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "key"), None)


def _key_events(node: ast.AST, names: Names) -> list[Event]:
    """Each draw from a key held in a name. One in a comprehension draws again in every
    round, from the same key, unless the key is the comprehension's own variable
    (``[jax.random.normal(k) for k in keys]``): a new key in every round, whatever the name
    held before; only a second draw from it in one round counts."""
    events = []
    scopes = comprehension_scopes(ast.walk(node))
    drawn: set[tuple[int, str]] = set()  # comprehension variables drawn from, by scope
    for call in calls_in_order([node]):
        key = key_argument(call) if names.qualified(call.func) in KEY_USERS else None
        if not isinstance(key, ast.Name):
            continue
        comprehension = scopes.get(id(key), {}).get(key.id)
        if comprehension is None:
            events.append(Event(call, key.id, spends=True, always=id(call) in scopes))
        elif (id(comprehension), key.id) in drawn:
            events.append(Event(call, key.id, spends=False, always=True))
        else:
            drawn.add((id(comprehension), key.id))
    return events


def _donated_reads(
    scope: Func, body: list[ast.stmt], calls: list[tuple[ast.Call, Jitted]], budget: int
) -> list[Hit]:
    """Names read after they were donated to a jitted function (``donate_argnums``)."""
    donations: dict[int, tuple[str, str]] = {}  # id of the argument -> (name, function)
    for node, jitted in calls:
        donated = jitted.options("donate_argnums", "donate_argnames")
        for argument, param in jitted.arguments(node) if donated else ():
            if param in (donated or ()) and isinstance(argument, ast.Name):
                donations[id(argument)] = (argument.id, dotted(node.func) or jitted.func.name)
    if not donations:
        return []
    donated_names = {name for name, _ in donations.values()}
    function_at = {}  # (line, name) of a donation -> the function it went to
    for argument in scope.of(ast.Name):
        if id(argument) in donations:
            name, function = donations[id(argument)]
            function_at[(argument.lineno, name)] = function

    def events(node: ast.AST) -> list[Event]:
        checked = {
            id(inner.value)
            for inner in ast.walk(node)
            if isinstance(inner, ast.Attribute) and inner.attr == "is_deleted"
        }
        found = [
            Event(inner, inner.id, spends=id(inner) in donations)
            for inner in _walk_here(node)
            if isinstance(inner, ast.Name)
            and isinstance(inner.ctx, ast.Load)
            and inner.id in donated_names
            and id(inner) not in checked
        ]
        return sorted(found, key=lambda e: position(e.node))

    hits = []
    for read in spent_uses(body, events, budget):
        function = function_at.get((read.line, read.name), "a jitted function")
        hits.append(
            Hit(read.node, "JP302", {"name": read.name, "line": read.line, "function": function})
        )
    return hits


def _walk_here(node: ast.AST) -> list[ast.AST]:
    """The nodes under ``node``, not inside nested functions."""
    found, stack = [], [node]
    while stack:
        inner = stack.pop()
        found.append(inner)
        if not isinstance(inner, NESTED_SCOPES) or inner is node:
            stack.extend(ast.iter_child_nodes(inner))
    return found


def _unhashable_statics(calls: list[tuple[ast.Call, Jitted]], facts: _Facts) -> list[Hit]:
    """Lists, dicts, sets and mutable dataclasses passed as static arguments."""
    hits = []
    for node, jitted in calls:
        static = jitted.options("static_argnums", "static_argnames")
        for argument, param in jitted.arguments(node) if static else ():
            what = _unhashable(argument, facts) if param in (static or ()) else None
            if what:
                function = dotted(node.func) or jitted.func.name
                fields: dict[str, object] = {"name": param, "function": function, "what": what}
                hits.append(Hit(argument, "JP211", fields))
    return hits


def _unhashable(node: ast.expr, facts: _Facts) -> str | None:
    if isinstance(node, (ast.List, ast.ListComp)):
        return "a list"
    if isinstance(node, (ast.Dict, ast.DictComp)):
        return "a dict"
    if isinstance(node, (ast.Set, ast.SetComp)):
        return "a set"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        cls = facts.module.classes.get(node.func.id)
        if cls is not None and _mutable_dataclass(cls, facts.names):
            return f"a {cls.name} (a dataclass without frozen=True)"
        name = facts.names.qualified(node.func)
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


def _jit_in_loop(node: ast.Call, scope: Func, facts: _Facts, loops: Blocks) -> list[Hit]:
    transform = facts.scopes.transformations.transforms.get(facts.names.qualified(node.func) or "")
    if transform is None or transform.kind not in _JIT_KINDS or not node.args:
        return []
    if not loops.contain(node.lineno):
        return []
    function = node.args[0]
    what = None
    if isinstance(function, ast.Lambda):
        what = "lambda"
    elif isinstance(function, ast.Call) and facts.names.qualified(function.func) in PARTIAL:
        what = "functools.partial"
    elif isinstance(function, ast.Name):
        target = facts.scopes.functions.resolve(function, scope, node.lineno)
        if target is not None and loops.share(target[0].line, node.lineno):
            what = "function defined in the loop"
    if what is None:
        return []
    return [Hit(node, "JP301", {"transform": dotted(node.func), "what": what})]


def _loop_bodies(scope: Func) -> Blocks:
    return blocks([*scope.of(ast.For), *scope.of(ast.AsyncFor), *scope.of(ast.While)])


def _array_names(scope: Func, names: Names) -> set[str]:
    """The names that ``scope`` binds only to JAX arrays (from jax.numpy and friends)."""
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


def _tracers_of(func: Func, hosts: dict[int, list[Func]], limit: int = 64) -> list[Func]:
    """``func``, the functions it is defined in, those that call it and those that
    transform it (``hosts``), and theirs in turn (up to ``limit`` functions): whichever of
    them runs traces ``func`` too."""
    found, seen = [func], {id(func)}
    for current in found:
        if len(found) >= limit:
            break
        for other in [current.parent, *current.callers, *hosts.get(id(current), [])]:
            if other is not None and other.parent is not None and id(other) not in seen:
                seen.add(id(other))
                found.append(other)
    return found


def _defined_in(func: Func, scope: Func) -> bool:
    """Whether ``func`` is defined in ``scope``, or in a function defined there."""
    parent = func.parent
    while parent is not None and parent is not scope:
        parent = parent.parent
    return parent is scope


def _owner(scope: Func | None, name: str) -> Func | None:
    """The scope, from ``scope`` up, that binds ``name``; the module when none does."""
    found = scope
    while found is not None and found.parent is not None and name not in found.local:
        found = found.parent
    return found


def _is_assert_call(node: ast.Call) -> bool:
    """``self.assertEqual(...)``, ``np.testing.assert_allclose(...)``, ``assert_equal(...)``."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return isinstance(name, str) and name.startswith("assert")


def _expects_error(node: ast.expr, names: Names) -> bool:
    """``pytest.raises(...)``, ``self.assertRaises(...)`` (``assertRaisesRegex``, ...),
    ``np.testing.assert_raises(...)``: a context that fails unless its body raises."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Attribute) and node.func.attr.startswith("assertRaises"):
        return True
    return names.qualified(node.func) in _EXPECTED_ERRORS


def _pairs(targets: Sequence[ast.expr], value: ast.expr | None) -> list[tuple[ast.expr, ast.expr]]:
    """Each target with the value it gets: ``a, b = [], {}`` pairs ``a`` with ``[]``."""
    pairs = []
    for target in targets:
        if (
            isinstance(target, ast.Tuple)
            and isinstance(value, ast.Tuple)
            and len(target.elts) == len(value.elts)
        ):
            pairs += list(zip(target.elts, value.elts, strict=True))
        elif value is not None:
            pairs.append((target, value))
    return pairs


def _short(node: ast.expr) -> str:
    """``node`` as source, cut to a length that fits a message."""
    text = ast.unparse(node)
    return text if len(text) <= 40 else text[:37] + "..."


def _true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and bool(node.value)


def _is_array_annotation(node: ast.expr | None, names: Names) -> bool:
    if node is None:
        return False
    name = names.qualified(node) or ""
    return name in ("jax.Array", "jax.numpy.ndarray", "chex.Array", "jaxtyping.Array")


def _up_to_sign(node: ast.expr, names: Names) -> str:
    """``node``'s structure, without a sign or ``abs()`` around it: ``-x``, ``jnp.abs(x)``
    and ``x`` are the same value at zero."""
    while True:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            node = node.operand
        elif (
            isinstance(node, ast.Call)
            and len(node.args) == 1
            and names.qualified(node.func) in _ABS
        ):
            node = node.args[0]
        else:
            return ast.dump(node)


def _flag_argument(test: ast.expr) -> str | None:
    """The argument a test reads as a flag: ``flag``, ``not flag``, ``mode == "a"``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.Name):
        return test.id
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and len(test.ops) == 1
        and isinstance(test.ops[0], (ast.Eq, ast.NotEq))
        and isinstance(test.comparators[0], ast.Constant)
        and isinstance(test.comparators[0].value, (str, bool))
    ):
        return test.left.id
    return None
