"""Settings read once, while JAX traces: a mutable default, the clock, the environment, a global.

``jit`` runs a function's Python body once per trace and keeps what it read:
a mutable default argument (JP107), the time, an environment variable, the
next item of an iterator from outside the function or an attribute of ``self``
that a setter changes later (JP110), and a module-level setting (JP111) hold
the values of that moment on every later call. JP111 reports a setting only
when the module gives it a new value between two runs of one trace, ordered by
their lines; which lines run each function is found once per module
(:class:`_Settings`).
"""

from __future__ import annotations

import ast
import bisect
import functools
from typing import TYPE_CHECKING

from jaxpurity.linter._family import Family, Rule
from jaxpurity.linter.analysis._names import dotted
from jaxpurity.linter.analysis._syntax import is_constant, is_container

if TYPE_CHECKING:
    from jaxpurity.linter._context import Module, TracedFunction
    from jaxpurity.linter.analysis._functions import Func
    from jaxpurity.linter.analysis._names import Names

__all__ = ["FAMILY"]

FAMILY = Family(
    Rule(
        "JP107",
        "mutable-default",
        "A mutable default argument on a traced function",
        "the default of `{name}` is a mutable {kind} in a function JAX traces ({how}): it is "
        "state that jit reads once, while tracing; pass it as an argument",
        "global_config",
        "It sees list, dict and set literals and constructors; any other mutable object as a "
        "default is not seen. Its page is the one on settings read at trace time: a default "
        "is one more global setting, read once per trace.",
    ),
    Rule(
        "JP110",
        "trace-time-read",
        "The clock, the environment or an outer iterator read in a traced function",
        "`{call}` is read while JAX traces ({how}): the compiled function keeps that value on "
        "every call",
        "global_config",
        "It knows time.*, datetime's now()/today(), os.environ/os.getenv, next() of an "
        "iterator or generator held in a global or an enclosing function's name (a batch "
        "drawn once, while tracing), and an attribute of self read by a method that "
        "__init__ jits bound (self.f = jax.jit(self._f)) when another method sets it from "
        "its argument (a setter). An iterator made in the function, a `for` loop over one, "
        "an object jitted elsewhere or changed otherwise, and other host state (a file, a "
        "database, a config library) are not seen.",
    ),
    Rule(
        "JP111",
        "rebound-global-read",
        "A module-level setting read in a traced function and changed after it ran",
        "`{name}` is a module-level setting that the module assigns again (line {line}) after "
        "calling a traced function: jit keeps the value it read when it traced ({how})",
        "global_config",
        "It reports a module-level name given a constant again after the def of a traced "
        "function that reads it, when that function (or one that calls or transforms it) "
        "runs both before the new value and after it, reusing its trace; and names assigned "
        "through `global` in a function. Runs are ordered by their lines in the file. A "
        "setting changed from another module, or held in an object's attribute, is not seen.",
    ),
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


@FAMILY.on_function
def _mutable_defaults(fn: TracedFunction) -> None:
    node = fn.func.node
    if not fn.cached or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return
    defaults = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
    positional = [*node.args.posonlyargs, *node.args.args]
    with_default = positional[len(positional) - len(node.args.defaults) :]
    named = {id(d): p.arg for d, p in zip(node.args.defaults, with_default, strict=True)}
    for arg, default in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True):
        if default is not None:
            named[id(default)] = arg.arg
    for default in defaults:
        if is_container(default, fn.names):
            kind = type(default).__name__.lower().removesuffix("comp")
            if isinstance(default, ast.Call):
                kind = (fn.names.qualified(default.func) or "object").split(".")[-1]
            fn.hit(default, "JP107", name=named.get(id(default), "?"), kind=kind)


@FAMILY.on_call
def _time_read(fn: TracedFunction, node: ast.Call, name: str) -> None:
    if fn.cached and name in _TIME_READS:
        fn.hit(node, "JP110", call=(dotted(node.func) or name) + "()")


@FAMILY.on_call
def _outer_iterator(fn: TracedFunction, node: ast.Call, name: str) -> None:
    """``next(batches)`` of an iterator from outside: it advances once, while tracing. One
    of a traced function around it is its own business, unless a loop body reads it."""
    iterator = node.args[0] if name == "next" and node.args else None
    if not (fn.cached and isinstance(iterator, ast.Name) and iterator.id not in fn.func.local):
        return
    outer = fn.outer(iterator.id)
    if (
        outer is not None
        and (not outer.kinds or "loop" in fn.func.direct)
        and not fn.holds_tracer(iterator)
    ):
        fn.hit(node, "JP110", call=f"next({iterator.id})")


@FAMILY.on(ast.Attribute)
def _object_setting(fn: TracedFunction, node: ast.Attribute) -> None:
    """``self.target`` read by a method that ``__init__`` jits bound
    (``self.compute = jax.jit(self._compute)``), when another method sets it: the trace
    keeps the value it read, and the compiled function never sees the new one."""
    me = fn.func.self_name
    if (
        isinstance(node.ctx, ast.Load)
        and isinstance(node.value, ast.Name)
        and node.value.id == me
        and node.attr in fn.memo(_stale_attributes)
    ):
        fn.hit(node, "JP110", once=node.attr, call=f"{me}.{node.attr}")


def _stale_attributes(fn: TracedFunction) -> set[str]:
    """The attributes a jitted bound method keeps that another method sets (found once per
    traced function)."""
    cls = fn.func.cls
    if fn.func.self_name is None or cls is None:
        return set()
    if fn.func.name not in _jitted_in_init(cls, fn.names):
        return set()
    return _set_later(cls)


def _init_of(cls: ast.ClassDef) -> ast.FunctionDef | None:
    return next(
        (m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None
    )


def _jitted_in_init(cls: ast.ClassDef, names: Names) -> set[str]:
    """The methods that ``__init__`` jits bound to ``self`` and keeps:
    ``self.compute = jax.jit(self._compute)``."""
    init = _init_of(cls)
    if init is None or not init.args.args:
        return set()
    me = init.args.args[0].arg
    jitted = set()
    for node in ast.walk(init):
        value = node.value if isinstance(node, ast.Assign) else None
        if (
            isinstance(value, ast.Call)
            and names.qualified(value.func) == "jax.jit"
            and value.args
            and isinstance(value.args[0], ast.Attribute)
            and isinstance(value.args[0].value, ast.Name)
            and value.args[0].value.id == me
        ):
            jitted.add(value.args[0].attr)
    return jitted


def _set_later(cls: ast.ClassDef) -> set[str]:
    """The attributes that a method of ``cls`` other than ``__init__`` sets on ``self``
    from one of its parameters: a setter, run after the object was made."""
    found = set()
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef) or method.name == "__init__":
            continue
        params = [a.arg for a in method.args.args]
        if not params:
            continue
        for node in ast.walk(method):
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Name)
                and node.value.id in params[1:]
            ):
                for target in node.targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == params[0]
                    ):
                        found.add(target.attr)
    return found


@FAMILY.on(ast.Subscript)
def _environ_read(fn: TracedFunction, node: ast.Subscript) -> None:
    if (
        fn.cached
        and isinstance(node.ctx, ast.Load)
        and fn.names.qualified(node.value) == "os.environ"
    ):
        fn.hit(node, "JP110", call="os.environ[...]")


@FAMILY.on(ast.Name)
def _setting(fn: TracedFunction, node: ast.Name) -> None:
    if (
        fn.cached
        and isinstance(node.ctx, ast.Load)
        and node.id not in fn.func.local
        and node.id not in fn.func.declared_global
        and fn.outer(node.id) is fn.module.func
    ):
        line = fn.module.memo(_Settings).stale(fn.func, node.id)
        if line is not None:
            fn.hit(node, "JP111", once=node.id, name=node.id, line=line)


class _Settings:
    """The module's settings given a new value, and the lines where each of its functions
    is traced or its trace runs, found when first needed."""

    def __init__(self, module: Module) -> None:
        self.analysis = module.analysis
        self.module = module.func

    def stale(self, func: Func, name: str) -> int | None:
        """The line where the module gives ``name``, a setting that ``func`` reads, a value
        that a trace of ``func`` may have missed: a constant given again at module level
        after ``func``'s ``def``, when a function that traces ``func`` (itself, one it is
        defined in, or one that calls it) runs both before that line and after it, so that
        the later run reuses a trace that read the old value; or an assignment through
        ``global`` in a function that runs such a trace before it (on an earlier line, or
        in a loop around both): a function that sets a global before the first trace, as
        a test's set-up does, changes nothing a trace kept. None when there is no such line."""
        runs, hosts = self._runs
        tracers = _tracers_of(func, hosts)
        for assigner, line in self._set_through_global.get(name, []):
            if _runs_before(assigner, line, [r for t in tracers for r in runs.get(id(t), [])]):
                return line
        lines = [line for line in self._settings.get(name, []) if line > func.line]
        if not lines:
            return None
        for tracer in tracers:
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
    def _set_through_global(self) -> dict[str, list[tuple[Func, int]]]:
        """Module-level names assigned through ``global`` in a function: name -> each such
        function with the line of the assignment."""
        found: dict[str, list[tuple[Func, int]]] = {}
        for func in self.analysis.funcs:
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
                        found.setdefault(target.id, []).append((func, node.lineno))
        return found

    @functools.cached_property
    def _runs(self) -> tuple[dict[int, list[int]], dict[int, list[Func]]]:
        """The lines where each function of the module is traced or its compiled trace
        runs (by ``id``): a call of it when it is jitted (``step(x)`` after ``step =
        jax.jit(f)``, or a decorated ``f``), and every transformation applied to it
        (``lax.fori_loop(0, n, f, x)``, ``jax.jit(f)``: JAX's trace cache is shared).
        And the functions that apply a transformation to each (whose runs trace it)."""
        transformations = self.analysis.applied
        runs: dict[int, list[int]] = {}
        hosts: dict[int, list[Func]] = {}
        for scope in self.analysis.funcs:
            for call in scope.of(ast.Call):
                if transformations.is_transform_call(call):
                    ran = transformations.transformed(call, scope)
                    for func in ran:
                        hosts.setdefault(id(func), []).append(scope)
                else:
                    jitted = transformations.jitted(call, scope)
                    ran = [jitted.func] if jitted is not None else []
                for func in ran:
                    runs.setdefault(id(func), []).append(call.lineno)
        for lines in runs.values():
            lines.sort()
        return runs, hosts


def _runs_before(scope: Func, line: int, runs: list[int]) -> bool:
    """Whether one of ``runs`` (lines where a trace runs) comes before ``line`` in ``scope``:
    on an earlier line of it, or in a loop of it that holds ``line`` too."""
    end = getattr(scope.node, "end_lineno", None) or line
    if any(scope.line <= run < line for run in runs):
        return True
    loops = [*scope.of(ast.For), *scope.of(ast.AsyncFor), *scope.of(ast.While)]
    return any(
        loop.lineno <= line <= (loop.end_lineno or loop.lineno)
        and any(loop.lineno <= run <= (loop.end_lineno or loop.lineno) <= end for run in runs)
        for loop in loops
    )


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
