"""Check a function for every kind of impurity that JAX's transformations trip over."""

from __future__ import annotations

import collections
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jax

from jaxpurity._capture import printed
from jaxpurity._introspect import qualname, strip_jit
from jaxpurity._jax_compat import (
    GRAD_VMAP,
    LOOPS,
    has_compiled,
    is_jit_wrapper,
    jit_cache_misses,
)
from jaxpurity._leaks import Leak, trace_finding_leaks
from jaxpurity._naming import LRU_CACHE
from jaxpurity._outcomes import Outcome, agree, run
from jaxpurity._pages import page
from jaxpurity._restore import Restored, new_ref_arrays, random_generators
from jaxpurity._tracing import SplitCall, uncached_tracing
from jaxpurity._watch import Watch, short, watch_state

__all__ = ["Problem", "PurityReport", "check_pure"]


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

    watches = watch_state(target, args, kwargs)
    rngs = random_generators(target)
    restored = rngs + new_ref_arrays(target, args, kwargs)
    try:
        with printed(echo=False) as trace_output:
            traced, call, leaks = trace_finding_leaks(counted, args, kwargs)
        changes = [(w, w.change()) for w in watches]
        moved = [r for r in rngs if r.moved()]
        with printed(echo=False):
            program = traced.lower().compile()
            first = _run_after_reset(restored, lambda: program(*call.args, **call.kwargs))
            stage[0] = "run"
            eager = _run_after_reset(restored, lambda: counted(*args, **kwargs))
            stage[0] = "trace"
            fresh = _run_after_reset(restored, lambda: _freshrun(call.traceable(counted), call))
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
    if trace_output.text:
        problems.append(_print_problem(name, trace_output.text))
    problems += [_random_problem(name, r) for r in moved]
    cause = (
        " The state changes listed above are the likely cause: each call saw different state."
        if state_changed or leaks
        else ""
    )
    if not agree(eager, fresh):
        problems.append(
            Problem(
                "jit-eager-mismatch",
                f"`{name}` gives different results under jit and eagerly on the same inputs: "
                f"eagerly it {eager}, but jax.jit({name}) {fresh}. Something in it depends on "
                f"Python state or on whether it is traced.{cause}",
                page("global_config"),
            )
        )
    if cached is not None and not agree(cached, fresh):
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
    elif not agree(first, fresh):
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


def _run_after_reset(restored: list[Restored], call: Callable[[], Any]) -> Outcome:
    for r in restored:
        r.reset()
    return run(call)


def _freshrun(fn: Callable[..., Any], call: SplitCall) -> Any:
    """``jax.jit(fn)`` on the split call, traced without JAX's caches (so loop bodies run again)."""
    with uncached_tracing():
        return jax.jit(fn)(*call.args, **call.kwargs)


def _run_cached(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    restored: list[Restored],
    counts: collections.Counter[str],
) -> Outcome | None:
    """What ``fn``, a jit wrapper, answers from its cache now; None when it has no program.

    A wrapper with an empty cache is not called. One whose cache misses on
    these arguments traces ``fn`` (counted as a trace) and its result is not
    used; neither is an error (jit could not take the arguments).
    """
    if not is_jit_wrapper(fn) or not has_compiled(fn):
        return None
    with jit_cache_misses(fn) as missed:
        outcome = _run_after_reset(restored, lambda: fn(*args, **kwargs))
    if missed():
        counts["trace"] += 1
        return None
    return None if outcome.error is not None else outcome


# A dict, list or object whose name says it is a cache (names are quoted in Leak.where).
_NAMED_CACHE = re.compile(r"`[^`]*(?:cache|memo)[^`]*`", re.IGNORECASE)


def _leak_topic(leak: Leak) -> str:
    """The page about where this leak came from: a cache, a loop body, grad/vmap, self."""
    if LRU_CACHE in leak.where or _NAMED_CACHE.search(leak.where):
        return "memoization_caches"
    if leak.transformation in LOOPS:
        return "leak_from_loop_body"
    if leak.transformation in GRAD_VMAP:
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


def _state_problem(name: str, watch: Watch, change: str) -> Problem:
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
        f"`{name}` printed {short(text.rstrip())} while it was traced. print runs once per "
        "trace (showing tracers, not values), and never on later calls of the compiled "
        "function. Use jax.debug.print('x = {}', x) to print values on every call.",
        page("print_vs_debug_print"),
    )


def _random_problem(name: str, rng: Restored) -> Problem:
    return Problem(
        "frozen-randomness",
        f"`{name}` drew numbers from {rng.label} while it was traced. Under jit they are drawn "
        "once, at trace time, and baked into the compiled function as constants: every call "
        "returns the same 'random' numbers. Take a jax.random key as an argument and draw "
        "with jax.random (split the key for each call).",
        page("frozen_randomness"),
    )
