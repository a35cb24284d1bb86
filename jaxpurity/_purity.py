"""Check a function for every kind of impurity that JAX's transformations trip over."""

from __future__ import annotations

import collections
import contextlib
import functools
import io
import operator
import random
import re
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from jaxpurity._leaks import (
    LRU_CACHE,
    TRACEABLE,
    Leak,
    SplitCall,
    array_leaves,
    cell_value,
    code_names,
    is_jit,
    is_user_code,
    kind_of,
    named_arguments,
    qualname,
    scope_functions,
    short_repr,
    strip_jit,
    trace_finding_leaks,
    uncached_tracing,
)
from jaxpurity._pages import page
from jaxpurity._typediff import is_tracer

__all__ = ["Problem", "PurityReport", "check_pure"]

_MUTABLE = (list, dict, set, bytearray, collections.deque)
_MISSING = object()
_REF = getattr(jax, "Ref", None)  # jax.new_ref's arrays: new JAX only


@dataclass(frozen=True)
class Problem:
    """One impurity that :func:`check_pure` found.

    Attributes:
      kind: A short name: ``"leaked-tracer"``, ``"global-assignment"``,
        ``"closure-assignment"``, ``"container-mutation"``,
        ``"argument-mutation"``, ``"trace-time-print"``,
        ``"frozen-randomness"``, ``"jit-eager-mismatch"`` or ``"stale-result"``.
      message: What happened and how to fix it, in plain words.
      page: The site path of the gallery page that explains it.
    """

    kind: str
    message: str
    page: str

    def __str__(self) -> str:
        return f"[{self.kind}] {self.message}\n  See {self.page}."


@dataclass(frozen=True)
class PurityReport:
    """What :func:`check_pure` found.

    Attributes:
      function: The checked function's name.
      problems: Every :class:`Problem` found, in a fixed order of kinds.
      traces: How many times the function's Python body ran under a trace.
      runs: How many times it ran eagerly (without a trace).
    """

    function: str
    problems: list[Problem] = field(default_factory=list)
    traces: int = 0
    runs: int = 0

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems

    def __str__(self) -> str:
        ran = f"traced {self.traces} times, run eagerly {self.runs} time(s)"
        if self.ok:
            return f"check_pure(`{self.function}`): no impurity found ({ran})."
        head = f"check_pure(`{self.function}`): {len(self.problems)} problem(s) ({ran}):"
        body = [f"{i}. " + str(p).replace("\n", "\n   ") for i, p in enumerate(self.problems, 1)]
        return "\n".join([head, *body])


# ----------------------------------------------------------------- watching state


def _short(value: Any) -> str:
    return "nothing" if value is _MISSING else short_repr(value)


def _holds_tracer(value: Any) -> bool:
    """Whether ``value`` is a tracer or directly holds one (then it is a leak, reported so)."""
    if is_tracer(value):
        return True
    if isinstance(value, dict):
        value = list(value.values())
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        value = list(vars(value).values())
    if isinstance(value, (list, tuple, set, frozenset, collections.deque)):
        return any(map(is_tracer, value))
    return False


def _is_user_object(value: Any) -> bool:
    """An instance of a user-defined class, whose attributes are the user's state."""
    if isinstance(value, (type, types.ModuleType, types.FunctionType, types.MethodType)):
        return False
    return hasattr(value, "__dict__") and is_user_code(type(value))


@dataclass
class _Watch:
    """One piece of state to compare before and after the trace.

    ``how`` says what ``read`` returns and so how to compare: ``"binding"``
    (the value, compared by identity), ``"items"`` (a list copy),
    ``"elements"`` (a set copy), ``"keys"`` or ``"attributes"`` (a dict copy).
    """

    kind: str  # the Problem kind when it changes
    label: str
    how: str
    read: Callable[[], Any]
    before: Any = None

    def change(self) -> str | None:
        """How it changed, in words; None when it did not, or when it now holds a tracer
        (that is a leak, reported as one)."""
        before, after = self.before, self.read()
        if self.how == "binding":
            if after is before or _holds_tracer(after):
                return None
            return f"it was rebound from {_short(before)} to {_short(after)}"
        if self.how in ("keys", "attributes"):
            changed = [
                k
                for k in {**before, **after}
                if before.get(k, _MISSING) is not after.get(k, _MISSING)
            ]
            if not changed or any(_holds_tracer(after.get(k)) for k in changed):
                return None
            name = (
                (lambda k: f"attribute `{k}`")
                if self.how == "attributes"
                else (lambda k: f"key {k!r}")
            )
            return "; ".join(
                f"{name(k)} went from {_short(before.get(k, _MISSING))} to "
                f"{_short(after.get(k, _MISSING))}"
                for k in changed
            )
        if self.how == "elements":
            if after == before or _holds_tracer(after - before):
                return None
            return f"{len(after - before)} element(s) added, {len(before - after)} removed"
        if len(after) == len(before) and all(a is b for a, b in zip(after, before, strict=True)):
            return None
        if _holds_tracer(after):
            return None
        return f"it went from {len(before)} to {len(after)} item(s): now {_short(after)}"


def _watch_value(watches: list[_Watch], label: str, value: Any, kind: str) -> None:
    """Watch the contents of a container, or the attributes of a user object."""
    label = f"{label} ({kind_of(value)})"
    if isinstance(value, dict):
        watches.append(_Watch(kind, label, "keys", lambda: dict(value)))
    elif isinstance(value, set):
        watches.append(_Watch(kind, label, "elements", lambda: set(value)))
    elif isinstance(value, _MUTABLE):
        watches.append(_Watch(kind, label, "items", lambda: list(value)))
    elif _is_user_object(value):
        watches.append(_Watch(kind, label, "attributes", lambda: dict(vars(value))))


# Values whose own state is not the user's data: skipped when watching globals and closures.
_CODE = (
    types.ModuleType,
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    functools.partial,
)


def _scope_names(fn: Callable[..., Any]) -> list[tuple[str, str, Callable[[], Any]]]:
    """``(kind, label, read)`` for each global named by ``fn``'s code and each closure variable.

    ``kind`` is the Problem kind for rebinding it; ``read`` returns its value now.
    """
    found = []
    for f in scope_functions(fn):
        for name in sorted(code_names(f.__code__)):
            if not name.startswith("__"):
                read = functools.partial(f.__globals__.get, name, _MISSING)
                found.append(("global-assignment", f"global `{name}`", read))
        for name, cell in zip(f.__code__.co_freevars, f.__closure__ or (), strict=True):
            label = f"closure variable `{name}` of `{qualname(f)}`"
            found.append(("closure-assignment", label, functools.partial(cell_value, cell)))
    return found


def _watches(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[_Watch]:
    """The state ``fn`` can reach in one step: its globals, closures, and arguments."""
    watches: list[_Watch] = []
    for kind, label, read in _scope_names(fn):
        value = read()
        if not isinstance(value, _CODE):
            watches.append(_Watch(kind, label, "binding", read))
            _watch_value(watches, label, value, "container-mutation")
    for name, value in named_arguments(fn, args, kwargs):
        for leaf in jax.tree_util.tree_leaves(value):
            if not isinstance(leaf, TRACEABLE):
                _watch_value(watches, f"argument `{name}`", leaf, "argument-mutation")
    unique: dict[str, _Watch] = {}
    for w in watches:
        unique.setdefault(w.label, w)
    for w in unique.values():
        w.before = w.read()
    return list(unique.values())


# ----------------------------------------------------------------- state put back for each run


@dataclass
class _Restored:
    """State that each run starts from, put back at the end: a random number generator
    (whose state a trace may advance), or a :func:`jax.new_ref` array."""

    label: str
    get: Callable[[], Any]
    set: Callable[[Any], None]
    initial: Any = None

    def moved(self) -> bool:
        return not _same_state(self.get(), self.initial)

    def reset(self) -> None:
        self.set(self.initial)


def _same_state(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_state(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same_state(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    return bool(a == b)


def _generator_state(rng: Any) -> tuple[Callable[[], Any], Callable[[Any], None]] | None:
    """How to read and set the state of a NumPy or Python generator object; None for others."""
    if isinstance(rng, np.random.Generator):
        bits = rng.bit_generator
        return (lambda: bits.state), functools.partial(setattr, bits, "state")
    if isinstance(rng, np.random.RandomState):
        return rng.get_state, rng.set_state
    if isinstance(rng, random.Random) and not isinstance(rng, random.SystemRandom):
        return rng.getstate, rng.setstate
    return None


def _rngs(fn: Callable[..., Any]) -> list[_Restored]:
    """NumPy's and Python's global generators, and generators ``fn`` holds in globals/closures."""
    rngs = [
        _Restored(
            "numpy.random (NumPy's global generator)", np.random.get_state, np.random.set_state
        ),
        _Restored("random (Python's global generator)", random.getstate, random.setstate),
    ]
    for _, label, read in _scope_names(fn):
        value = read()
        state = _generator_state(value)
        if state is not None:
            rngs.append(_Restored(f"{label} ({kind_of(value)})", *state))
    for r in rngs:
        r.initial = r.get()
    return rngs


def _refs(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[_Restored]:
    """The :func:`jax.new_ref` arrays ``fn`` reaches in one step: its arguments (pytree
    leaves), globals and closure variables, and what the lists, tuples, dicts and user
    objects among those hold directly."""
    if _REF is None:
        return []
    places = [(label, read()) for _, label, read in _scope_names(fn)]
    places += [(f"argument `{name}`", value) for name, value in named_arguments(fn, args, kwargs)]
    found: dict[int, _Restored] = {}
    for label, value in places:
        if isinstance(value, _CODE):
            continue
        held = vars(value).values() if _is_user_object(value) else []
        for x in [*jax.tree_util.tree_leaves(value), *held]:
            if isinstance(x, _REF) and id(x) not in found:
                get = functools.partial(operator.getitem, x, ...)
                found[id(x)] = _Restored(label, get, functools.partial(operator.setitem, x, ...))
    for r in found.values():
        r.initial = r.get()
    return list(found.values())


# ----------------------------------------------------------------- running and comparing


@dataclass(frozen=True)
class _Outcome:
    """The array leaves a call returned, or the exception it raised."""

    values: list[np.ndarray] | None
    error: BaseException | None

    def __str__(self) -> str:
        if self.error is not None:
            lines = str(self.error).strip().split(". ")[0].splitlines()
            said = lines[0].rstrip(".") if lines else ""
            said = said if len(said) <= 80 else said[:77] + "..."
            return f"raised {type(self.error).__name__}" + (f" ({said})" if said else "")
        shown = [_rounded(v) if v.size <= 6 else f"{v.dtype}{list(v.shape)}" for v in self.values]
        return f"returned {_short(shown[0] if len(shown) == 1 else shown)}"


def _rounded(v: np.ndarray) -> Any:
    """A small array as Python values, floats to 4 significant digits (0.5, not 0.49999997)."""
    if np.issubdtype(v.dtype, np.floating):
        return np.vectorize(lambda x: float(f"{x:.4g}"), otypes=[object])(v).tolist()
    return v.tolist()


def _run(call: Callable[[], Any]) -> _Outcome:
    try:
        leaves = array_leaves(jax.block_until_ready(call()))
    except Exception as error:  # noqa: BLE001 - a failing call is one of the outcomes compared
        return _Outcome(None, error)
    return _Outcome([_as_numpy(x) for x in leaves], None)


def _as_numpy(x: Any) -> np.ndarray:
    dtype = getattr(x, "dtype", None)
    if dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key):
        x = jax.random.key_data(x)
    return np.asarray(x)


def _agree(a: _Outcome, b: _Outcome) -> bool:
    if a.error is not None or b.error is not None:
        return type(a.error) is type(b.error)
    assert a.values is not None and b.values is not None
    if len(a.values) != len(b.values):
        return False
    for x, y in zip(a.values, b.values, strict=True):
        if x.shape != y.shape:
            return False
        if np.issubdtype(x.dtype, np.inexact) or np.issubdtype(y.dtype, np.inexact):
            low = min(np.finfo(d).bits for d in (x.dtype, y.dtype) if np.issubdtype(d, np.inexact))
            rtol = 1e-2 if low <= 16 else 1e-4
            if not np.allclose(x, y, rtol=rtol, atol=rtol / 10, equal_nan=True):
                return False
        elif not np.array_equal(x, y):
            return False
    return True


@contextlib.contextmanager
def _quiet() -> Iterator[io.StringIO]:
    """Capture what is printed; give it back to the real stdout if the block fails."""
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            yield buffer
    except BaseException:
        sys.stdout.write(buffer.getvalue())
        raise


# ----------------------------------------------------------------- the check


def check_pure(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> PurityReport:
    """Check ``fn(*args, **kwargs)`` for impurities that ``jit``, ``grad`` and ``vmap`` trip over.

    It traces ``fn`` once with :func:`jax.jit` and watches what the trace
    does, then calls it twice more, eagerly and under a fresh
    :func:`jax.jit`, and compares the results. It finds:

    * tracers that leaked out of the trace (``"leaked-tracer"``, through
      :func:`find_leaks`), each linked to the page for its origin: a loop
      body, ``grad``/``vmap``, an attribute of ``self`` or another
      argument, a cache (a ``functools.lru_cache``, or a container whose
      name says cache or memo), or else a global;
    * globals and closure variables rebound while tracing
      (``"global-assignment"``, ``"closure-assignment"``);
    * lists, dicts and sets, or attributes of objects, that ``fn`` reaches
      through its globals or closure and changes while tracing
      (``"container-mutation"``), and attributes of its arguments it changes
      (``"argument-mutation"``);
    * ``print`` output written while tracing (``"trace-time-print"``): it
      happens once per trace, not once per call;
    * draws from ``numpy.random``, ``random``, or a NumPy/Python generator
      held in a global or closure (``"frozen-randomness"``): under ``jit``
      the numbers are drawn once and baked in as constants;
    * results of ``jax.jit(fn)`` that differ from running ``fn`` eagerly on
      the same inputs (``"jit-eager-mismatch"``);
    * results that go stale (``"stale-result"``): the program compiled from
      the first trace, called again, disagrees with what a fresh trace
      computes now; or, when ``fn`` is a jit wrapper (a bound jitted method
      too) that has compiled programs, calling ``fn(*args, **kwargs)`` as it
      is, answered from its cache, disagrees with a fresh trace: the cached
      program was traced when the Python state it reads had other values
      (not compared when ``fn`` draws random numbers while traced: its cached
      program holds numbers drawn then, which is ``"frozen-randomness"``).
      Only a result that is stale at the time of the check can be seen, so
      check where settings change.

    **Cost, measured:** ``fn``'s Python body runs three times: traced twice
    (the watched trace, and a fresh ``jax.jit`` trace) and run eagerly once.
    The two compiled programs run once each. A jit wrapper with compiled
    programs is also called once as it is; its cache answers without
    running the body, or, when it has no program for these argument types,
    it traces the body a third time (counted in ``report.traces``). So
    trace-time side effects happen two or three times and eager side effects
    once, and nothing ``fn`` changed is undone: the check changes your
    globals, closures and objects exactly as those calls do. Three things
    are put back: the global NumPy and ``random`` generators (and any
    generator ``fn`` holds) and the :func:`jax.new_ref` arrays ``fn``
    reaches (in its arguments, globals and closure variables, or held
    directly by a list, tuple, dict or object there) are reset to their
    starting values before each call and restored at the end, so that the
    calls draw the same numbers and see the same ``Ref`` values, and your
    random stream and ``Ref`` values are left as they were; and anything
    ``fn`` prints is captured (the trace-time output is quoted in the
    report), not shown.

    Both traces bypass JAX's trace caches (:func:`find_leaks` says how;
    nothing is cleared), so the bodies of ``scan``, ``while_loop``,
    ``fori_loop`` and ``cond`` and inner ``jit`` functions run in each,
    even where JAX traced them before. The eager run uses the caches as any
    eager call does.

    Only state ``fn`` reaches in one step is watched: the globals its code
    names, its closure variables, the contents of lists, dicts and sets held
    there, the attributes of user objects held there, and the attributes of
    its non-array arguments (a bound method's ``self`` included). Arguments
    are traced as :func:`find_leaks` traces them.

    Args:
      fn: The function to check, or a :func:`jax.jit` of it (looked through),
        also a bound method (jitted or not) or a :func:`functools.partial`.
      *args: Positional arguments for ``fn``.
      **kwargs: Keyword arguments for ``fn``.

    Returns:
      A :class:`PurityReport`; ``report.ok`` is True when nothing was found.

    Raises:
      Exception: Whatever ``fn`` raises while it is first traced (for example
        a ``TracerBoolConversionError``), as ``jax.jit(fn)`` raises it, naming
        ``fn`` and its arguments: fix that first; :func:`jaxpurity.explain`
        says how.

    Example:
      >>> import jax.numpy as jnp
      >>> calls = 0
      >>> def scaled(x):
      ...     global calls
      ...     calls += 1
      ...     print("tracing")
      ...     return x * calls
      >>> report = check_pure(scaled, jnp.ones(2))
      >>> report.ok, [p.kind for p in report.problems]  # doctest: +NORMALIZE_WHITESPACE
      (False, ['global-assignment', 'trace-time-print', 'jit-eager-mismatch', 'stale-result'])
      >>> print(report.problems[0])
      [global-assignment] `scaled` rebinds global `calls` while it is traced: it was rebound from 0 to 1. Under jit this runs once per trace, not once per call, so the value is wrong from the second call on. Pass the state in and return its new value instead.
        See examples/state_and_leaks/global_counter.html.
      >>> check_pure(lambda x: jnp.sin(x) * 2, jnp.ones(2)).ok
      True
    """  # noqa: E501
    target = strip_jit(fn)
    name = qualname(target)
    counts = collections.Counter[str]()
    stage = ["trace"]

    @functools.wraps(target)
    def counted(*a: Any, **k: Any) -> Any:
        counts[stage[0]] += 1
        return target(*a, **k)

    watches = _watches(target, args, kwargs)
    rngs = _rngs(target)
    restored = rngs + _refs(target, args, kwargs)
    try:
        with _quiet() as printed:
            traced, call, leaks = trace_finding_leaks(counted, args, kwargs)
        changes = [(w, w.change()) for w in watches]
        moved = [r for r in rngs if r.moved()]
        with _quiet():
            program = traced.lower().compile()
            first = _run_after_reset(restored, lambda: program(*call.args, **call.kwargs))
            stage[0] = "run"
            eager = _run_after_reset(restored, lambda: counted(*args, **kwargs))
            stage[0] = "trace"
            fresh = _run_after_reset(restored, lambda: _fresh_run(call.traceable(counted), call))
            # Numbers drawn at trace time differ from trace to trace: frozen-randomness.
            cached = None if moved else _run_cached(fn, args, kwargs, restored, counts)
    finally:
        for r in restored:
            r.reset()

    problems = [_leak_problem(leak) for leak in leaks]
    state_changed = False
    for w, change in changes:
        if change is not None:
            problems.append(_state_problem(name, w, change))
            state_changed = True
    if printed.getvalue():
        problems.append(_print_problem(name, printed.getvalue()))
    problems += [_random_problem(name, r) for r in moved]
    cause = (
        " The state changes listed above are the likely cause: each call saw different state."
        if state_changed or leaks
        else ""
    )
    if not _agree(eager, fresh):
        problems.append(
            Problem(
                "jit-eager-mismatch",
                f"`{name}` gives different results under jit and eagerly on the same inputs: "
                f"eagerly it {eager}, but jax.jit({name}) {fresh}. Something in it depends on "
                f"Python state or on whether it is traced.{cause}",
                page("global_config"),
            )
        )
    if cached is not None and not _agree(cached, fresh):
        problems.append(
            Problem(
                "stale-result",
                f"`{name}` under jit answers from a stale program: called as you jitted it, it "
                f"ran the program its jit cache holds for these argument types and {cached}, "
                f"but a fresh trace now {fresh}. That program was traced when the Python state "
                "it reads (a global, a closure variable, a setting) had other values; jit "
                "reuses it as long as the argument types stay the same. Pass such values in as "
                "arguments (static_argnames for those that choose which code runs), or call "
                f"the jitted function's clear_cache() after changing them.{cause}",
                page("global_config"),
            )
        )
    elif not _agree(first, fresh):
        problems.append(
            Problem(
                "stale-result",
                f"`{name}`'s compiled result goes stale: calling the program compiled from its "
                f"first trace again {first}, but a fresh trace now {fresh}. jit reuses the first "
                "trace as long as the argument types stay the same, so it keeps answering with "
                f"values read at trace time. Pass such values in as arguments.{cause}",
                page("global_config"),
            )
        )
    return PurityReport(name, problems, traces=counts["trace"], runs=counts["run"])


def _run_after_reset(restored: list[_Restored], call: Callable[[], Any]) -> _Outcome:
    for r in restored:
        r.reset()
    return _run(call)


def _fresh_run(fn: Callable[..., Any], call: SplitCall) -> Any:
    """``jax.jit(fn)`` on the split call, traced without JAX's caches (so loop bodies run again)."""
    with uncached_tracing():
        return jax.jit(fn)(*call.args, **call.kwargs)


def _run_cached(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    restored: list[_Restored],
    counts: collections.Counter[str],
) -> _Outcome | None:
    """What ``fn``, a jit wrapper, answers from its cache now; None when it has no program.

    A wrapper with an empty cache is not called. One whose cache misses on
    these arguments traces ``fn`` (counted as a trace) and its result is not
    used; neither is an error (jit could not take the arguments).
    """
    if not is_jit(fn) or fn._cache_size() == 0:
        return None
    before = fn._cache_size()
    outcome = _run_after_reset(restored, lambda: fn(*args, **kwargs))
    if fn._cache_size() > before:
        counts["trace"] += 1
        return None
    return None if outcome.error is not None else outcome


_LOOPS = frozenset({"scan", "while_loop", "fori_loop"})
_GRAD_VMAP = frozenset({"grad", "jvp/grad", "vmap"})
# A dict, list or object whose name says it is a cache (names are quoted in Leak.where).
_NAMED_CACHE = re.compile(r"`[^`]*(?:cache|memo)[^`]*`", re.IGNORECASE)


def _leak_topic(leak: Leak) -> str:
    """The page about where this leak came from: a cache, a loop body, grad/vmap, self."""
    if LRU_CACHE in leak.where or _NAMED_CACHE.search(leak.where):
        return "memoization_caches"
    if leak.transformation in _LOOPS:
        return "leak_from_loop_body"
    if leak.transformation in _GRAD_VMAP:
        return "leak_from_grad_vmap"
    return "leak_through_self" if leak.root == "argument" else "global_counter"


def _leak_problem(leak: Leak) -> Problem:
    topic = _leak_topic(leak)
    return Problem(
        "leaked-tracer",
        f"{leak}\nA tracer is only valid inside its trace; using it later raises "
        "UnexpectedTracerError. Return the value from the function instead of storing it.",
        page(topic),
    )


_STATE_ADVICE = {
    "global-assignment": "Pass the state in and return its new value instead.",
    "closure-assignment": "Pass the state in and return its new value instead.",
    "container-mutation": "Return the new entries from the function and update the container "
    "outside it (or keep the state in a pytree you pass in and return).",
    "argument-mutation": "Return the new values (for example a new object built with "
    "dataclasses.replace) instead of setting attributes on the argument.",
}


def _state_problem(name: str, watch: _Watch, change: str) -> Problem:
    verb = {
        "global-assignment": "rebinds",
        "closure-assignment": "rebinds",
    }.get(watch.kind, "changes")
    return Problem(
        watch.kind,
        f"`{name}` {verb} {watch.label} while it is traced: {change}. Under jit this runs "
        "once per trace, not once per call, so the value is wrong from the second call on. "
        + _STATE_ADVICE[watch.kind],
        page("leak_through_self" if watch.kind == "argument-mutation" else "global_counter"),
    )


def _print_problem(name: str, text: str) -> Problem:
    return Problem(
        "trace-time-print",
        f"`{name}` printed {_short(text.rstrip())} while it was traced. print runs once per "
        "trace (showing tracers, not values), and never on later calls of the compiled "
        "function. Use jax.debug.print('x = {}', x) to print values on every call.",
        page("print_vs_debug_print"),
    )


def _random_problem(name: str, rng: _Restored) -> Problem:
    return Problem(
        "frozen-randomness",
        f"`{name}` drew numbers from {rng.label} while it was traced. Under jit they are drawn "
        "once, at trace time, and baked into the compiled function as constants: every call "
        "returns the same 'random' numbers. Take a jax.random key as an argument and draw "
        "with jax.random (split the key for each call).",
        page("frozen_randomness"),
    )
