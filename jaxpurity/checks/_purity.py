"""Check a function for every kind of impurity that JAX's transformations trip over."""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import re
from collections.abc import Callable
from typing import Any, ParamSpec

import jax

from jaxpurity._capture import printed, this_thread_output
from jaxpurity._jax_compat import (
    can_drop_traces,
    has_compiled,
    is_leak_error,
    jit_cache_misses,
    leak_checker_off,
    leak_checker_on,
)
from jaxpurity._jax_names import PRINTED_TRACER
from jaxpurity._naming import short_repr
from jaxpurity.checks._call import BoundCall
from jaxpurity.checks._copies import arrays_copied
from jaxpurity.checks._guard import ONE_CHECK_AT_A_TIME, require_plain_python
from jaxpurity.checks._leaks import trace_finding_leaks
from jaxpurity.checks._outcomes import Outcome, agree, run
from jaxpurity.checks._problems import (
    OR_CLEAR_CACHE,
    STATE_CAUSE,
    Problem,
    PurityReport,
    jax_leak_problem,
    leak_template,
    problem,
    trace_error,
)
from jaxpurity.checks._program import (
    debug_callbacks_in_loops,
    debug_callbacks_in_remat,
    donates,
    effectful_callbacks,
    unused_callbacks,
)
from jaxpurity.checks._restore import Restored, new_ref_arrays, random_generators
from jaxpurity.checks._snapshot import Snapshot
from jaxpurity.checks._trace_reads import outside_reads, settings_read
from jaxpurity.checks._tracing import (
    RaisedWhileTraced,
    SplitCall,
    forgetting_traces,
    uncached_tracing,
)
from jaxpurity.checks._watch import watch_state

__all__ = ["Problem", "PurityReport", "check_pure"]

P = ParamSpec("P")


# ----------------------------------------------------------------- the check


def check_pure(fn: Callable[P, Any], *args: P.args, **kwargs: P.kwargs) -> PurityReport:
    """Check ``fn(*args, **kwargs)`` for impurities that ``jit``, ``grad`` and ``vmap`` trip over.

    It traces ``fn`` once with :func:`jax.jit` and watches what the trace
    does, then calls it twice more, eagerly and under a fresh
    :func:`jax.jit`, and compares the results. ``fn`` is called as
    :func:`jax.jit` calls it: its pytree arguments (and ``self``, for a
    method decorated with ``jax.jit``) are flattened and rebuilt, and a jit
    wrapper's static arguments are kept whole. When the check ends,
    everything ``fn`` can reach is as it was, with no tracer left in it.

    The problems it finds (:attr:`Problem.kind`), each with its fix and the
    page that explains it:

    * ``"leaked-tracer"``: a tracer stored where it outlives the trace
      (:func:`find_leaks`), with the page for where it came from; or, where
      that finds none, a leak that JAX's own checker sees in the eager run
      (``jax.checking_leaks()``: a list local to ``fn`` that an inner jit
      function appends to, say). JAX 0.10.2 and newer only: on older JAX, a
      function whose trace JAX's checker saw leak is traced anew at every
      later call, and the check could not undo that.
    * ``"global-assignment"``, ``"closure-assignment"``: a global or closure
      variable rebound while tracing.
    * ``"container-mutation"``, ``"argument-mutation"``: a list, dict, set
      or object held in a global or closure, or an argument's attribute,
      changed while tracing.
    * ``"trace-time-print"``: ``print`` while tracing: once per trace, not
      once per call; or a tracer formatted into a string that the compiled
      program prints (an f-string given to ``jax.debug.print``).
    * ``"frozen-randomness"``: numbers drawn from ``numpy.random``,
      ``random`` or a generator ``fn`` holds: jit bakes them in.
    * ``"jit-eager-mismatch"``: ``jax.jit(fn)`` and ``fn`` disagree on the
      same inputs.
    * ``"stale-result"``: the program compiled from the first trace, or the
      one a jit wrapper ``fn`` answers from its cache, disagrees with a fresh
      trace now (not compared when ``fn`` draws random numbers while traced).
      Only what is stale at the time of the check can be seen, so check where
      settings change. Neither is compared when ``fn`` calls
      :func:`jax.experimental.io_callback`, whose answers change by design.
    * ``"lost-mutation"``: a change to an argument that only the eager run
      makes (``d["count"] += 1``): jit works on rebuilt pytrees.
    * ``"remat-mutation"``: a function under ``jax.checkpoint`` (remat)
      that stores a value in a list or dict of its caller: it stores a tracer
      of the checkpoint's own trace, even without jit. Seen by JAX's leak
      checker, so JAX 0.10.2 and newer only, as above.
    * ``"dropped-callback"``: a ``pure_callback`` whose result nothing uses:
      jit may remove it as dead code.
    * ``"trace-time-read"``: the clock read while tracing.
    * ``"trace-error"``: ``fn`` raised while it was traced, as ``jax.jit(fn)``
      would (a ``TracerBoolConversionError``, say): nothing else can be
      checked until it traces; the page is the one :func:`jaxpurity.explain`
      gives the error (``"leaked-tracer"`` for JAX's UnexpectedTracerError).

    It warns (:attr:`PurityReport.warnings`) about what goes wrong once
    something changes: a global, closure variable or environment variable
    read while tracing, which jit bakes in (``"trace-time-read"``); an
    attribute read off a static argument, which jit keeps as a cache key
    (``"stale-result"``); a ``jax.debug.callback`` in a loop body, which
    under ``grad`` JAX may move out of the loop, or in a ``jax.checkpoint``,
    which ``grad`` runs twice (``"dropped-callback"``); an argument that a jit
    wrapper ``fn`` donates, which each call deletes (``"argument-mutation"``).

    Only the state ``fn`` reaches in one step is watched: the globals its
    code names, its closure variables and what they hold, and the attributes
    of its non-array arguments. What the check costs, and how it puts
    everything back and keeps no memory, is in the project's
    ``CONTRIBUTING.md``: "How check_pure keeps out of the way".

    Args:
      fn: The function to check, or a :func:`jax.jit` of it (looked through),
        also a bound method (jitted or not) or a :func:`functools.partial`.
      *args: Positional arguments for ``fn``.
      **kwargs: Keyword arguments for ``fn``.

    Returns:
      A :class:`PurityReport`; ``report.ok`` is True when nothing was found.

    Raises:
      TypeError: ``fn`` is not a function, or the check was called inside a
        transformation (``jit``, ``vmap``, ``grad``, a loop body): call it
        from plain Python.

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
      >>> print(report.problems[0])  # doctest: +ELLIPSIS
      [global-assignment] `scaled` rebinds global `calls` while it is traced: it was rebound from 0 to 1. Under jit this runs once per trace, not once per call, so the value is wrong from the second call on. Pass the state in and return its new value instead.
        See https://.../examples/state_and_leaks/global_counter.html
      >>> check_pure(lambda x: jnp.sin(x) * 2, jnp.ones(2)).ok
      True
    """  # noqa: E501
    require_plain_python(fn, args, kwargs, "check_pure")
    call = BoundCall.of(fn, args, kwargs)
    with ONE_CHECK_AT_A_TIME, forgetting_traces(), leak_checker_off(), jax.disable_jit(False):
        scope = Snapshot(call.named, call.bindings)
        try:
            return _check(call, scope)
        finally:
            scope.restore()


def _check(call: BoundCall, scope: Snapshot) -> PurityReport:
    """The check itself; the caller puts every global, closure and argument back after it
    (``scope``, which also starts the replay of the user's own calls from their state)."""
    target = call.body
    name = call.name
    counts = collections.Counter[str]()
    stage = ["trace"]

    @functools.wraps(target)
    def counted(*a: Any, **k: Any) -> Any:
        counts[stage[0]] += 1
        return target(*a, **k)

    # Every run gets the same inputs: what one run writes into an argument is put back
    # before the next. Globals and closures keep what the runs do to them, as a program's.
    inputs = Snapshot(call.named, [])
    watches = watch_state(call)
    rngs = random_generators(call)
    restored = rngs + new_ref_arrays(call)
    reads = settings_read(call)
    try:
        with this_thread_output() as trace_output, outside_reads() as outside:
            try:
                traced, split, leaks = trace_finding_leaks(call, counted)
            except RaisedWhileTraced as raised:  # the user's bug: a finding, not a crash
                found = [trace_error(name, raised.error)]
                return PurityReport(name, found, traces=counts["trace"])
        changes = [(w, w.change()) for w in watches]
        moved = [r for r in rngs if r.moved()]
        dropped = unused_callbacks(traced.jaxpr)
        loop_callbacks = debug_callbacks_in_loops(traced.jaxpr)
        remat_callbacks = debug_callbacks_in_remat(traced.jaxpr)
        by_design = effectful_callbacks(traced.jaxpr)  # each call may answer anew: not compared
        copy = donates(traced.jaxpr)  # eager runs would delete the caller's arrays: copies
        inputs.restore()
        with printed(echo=False):
            program, split = _compiled(traced, split, counted)
            with printed(echo=False) as program_output:  # only callbacks print here
                first = _run_after_reset(restored, lambda: program(*split.args, **split.kwargs))
            inputs.restore()
            stage[0] = "run"
            # What jax.checking_leaks() sees, as a careful user runs it; where JAX can drop
            # the traces it made (forgetting_traces), since a leak it reports leaves the
            # leaking function uncached for the caller (seen on 0.4.35 and 0.6.2).
            with leak_checker_on() if can_drop_traces() else contextlib.nullcontext():
                eager = _run_eagerly(call, counted, restored, copy)
            jax_leak = eager.error if eager.error and is_leak_error(eager.error) else None
            if jax_leak is not None:  # a finding of its own: the run's outcome is without it
                inputs.restore()
                eager = _run_eagerly(call, counted, restored, copy)
            eager_effects = inputs.changes()
            inputs.restore()
            stage[0] = "trace"
            fresh = _run_after_reset(restored, lambda: _fresh_run(split.traceable(counted), split))
            jit_effects = inputs.changes()
            inputs.restore()
            # Numbers drawn at trace time differ from trace to trace: frozen-randomness.
            cached = None if moved else _run_cached(call, restored, counts)
            inputs.restore()
    finally:
        for r in restored:
            r.reset()

    problems = [problem(leak_template(leak), leak=leak) for leak in leaks]
    if jax_leak is not None and not leaks:
        problems.append(jax_leak_problem(name, jax_leak))
    state_changed = False
    for w, change in changes:
        if change is not None:
            problems.append(problem(w.kind, name=name, label=w.label, change=change))
            state_changed = True
    if trace_output.text:
        printed_text = short_repr(trace_output.text.rstrip())
        problems.append(problem("trace-time-print", name=name, printed=printed_text))
    tracer_lines = [ln for ln in program_output.lines if re.search(PRINTED_TRACER, ln)]
    if tracer_lines:
        printed_text = short_repr("\n".join(tracer_lines))
        problems.append(problem("printed-tracer", name=name, printed=printed_text))
    problems += [problem("frozen-randomness", name=name, generator=r.label) for r in moved]
    changed_by_jit = {(c.root, c.path) for c in jit_effects}
    property_caches = _cached_properties(call)
    for c in eager_effects:
        if (c.root, c.path) not in changed_by_jit and c.path not in property_caches:
            lost = "lost-attribute-mutation" if "." in c.path else "lost-mutation"
            fields = {"root": c.root, "path": c.path, "before": c.before, "after": c.after}
            problems.append(problem(lost, name=name, **fields))
            state_changed = True
    problems += [
        problem("dropped-callback", name=name, primitive=p, count=n)
        for p, n in sorted(dropped.items())
    ]
    or_clear = OR_CLEAR_CACHE if call.jitted is not None else ""  # no cache to clear else
    found_reads = [
        problem(r.problem, name=name, label=r.label, value=r.value, why=r.why, or_clear=or_clear)
        for r in [*outside, *reads]
    ]
    problems += [p for p in found_reads if p.severity == "error"]
    warnings = [p for p in found_reads if p.severity != "error"]
    warnings += [problem("loop-callback", name=name, callback=c) for c in loop_callbacks]
    warnings += [problem("remat-callback", name=name, callback=c) for c in remat_callbacks]
    warnings += [problem("donated-argument", name=name, argument=a) for a in sorted(call.donated)]
    cause = STATE_CAUSE if state_changed or leaks else ""
    compared = not by_design
    mismatch = compared and not agree(eager, fresh)
    stale_cache = compared and cached is not None and not agree(cached, fresh)
    # A trace that leaked a tracer compiles to a program that takes it as one more input,
    # which it cannot be called without: that failure is the leak's, already reported.
    stale_program = (
        compared
        and not stale_cache
        and not agree(first, fresh)
        and not (leaks and first.error is not None)
    )
    if state_changed and (mismatch or stale_cache or stale_program):
        # The runs above moved the user's state (a counter): show what the user's own calls
        # return instead, where those disagree too.
        yours = _as_the_user_calls(call, split, scope, inputs, restored, copy)
        if not agree(yours.eager, yours.jitted) and not agree(yours.jitted, yours.traced):
            eager, fresh, first, cached = yours.eager, yours.jitted, yours.jitted, yours.jitted
            fresh_trace = yours.traced
        else:
            fresh_trace = fresh
    else:
        fresh_trace = fresh
    if mismatch:
        problems.append(
            problem("jit-eager-mismatch", name=name, eager=eager, fresh=fresh, cause=cause)
        )
    if stale_cache:
        problems.append(
            problem("stale-cache", name=name, cached=cached, fresh=fresh_trace, cause=cause)
        )
    if stale_program:
        problems.append(
            problem("stale-program", name=name, first=first, fresh=fresh_trace, cause=cause)
        )
    return PurityReport(
        name, problems, traces=counts["trace"], runs=counts["run"], warnings=warnings
    )


@dataclasses.dataclass(frozen=True)
class _UserCalls:
    """What the user's own second calls return, each series from their state before the check."""

    eager: Outcome  # the second eager call
    jitted: Outcome  # the second call of one jax.jit, which answers from its first trace
    traced: Outcome  # a trace made after one eager call: what jit would compute now


def _as_the_user_calls(
    call: BoundCall,
    split: SplitCall,
    scope: Snapshot,
    inputs: Snapshot,
    restored: list[Restored],
    copy: bool,
) -> _UserCalls:
    """Replay two calls as the user makes them, each series from the user's state.

    A global counter ``calls += 1; return x * calls`` from ``calls = 0`` returns ``x * 2``
    at the second eager call and ``x * 1`` at the second jitted one, whatever the check's
    own runs moved the counter to.
    """

    def second(first: Callable[[], Any], then: Callable[[], Any]) -> Outcome:
        scope.restore()
        inputs.restore()
        _run_after_reset(restored, first)
        return _run_after_reset(restored, then)

    def eagerly() -> Any:
        with arrays_copied(call, copy) as (args, kwargs):
            return jax.block_until_ready(call.body(*args, **kwargs))

    try:
        with printed(echo=False):
            jitted = jax.jit(split.traceable(call.body))
            with uncached_tracing():
                user_jit = second(*[lambda: jitted(*split.args, **split.kwargs)] * 2)
            user_eager = second(eagerly, eagerly)
            traced = second(eagerly, lambda: _fresh_run(split.traceable(call.body), split))
    finally:
        for r in restored:
            r.reset()
        scope.restore()
        inputs.restore()
    return _UserCalls(user_eager, user_jit, traced)


def _cached_properties(call: BoundCall) -> set[str]:
    """The ``argument.attribute`` paths that are a :func:`functools.cached_property` of the
    argument's class: the eager run caches one in place, which changes no result
    (equinox#539), so that it is lost under jit is no problem."""
    return {
        f"{name}.{attr}"
        for name, value in call.named
        for attr, member in vars(type(value)).items()
        if isinstance(member, functools.cached_property)
    }


def _compiled(traced: Any, split: SplitCall, fn: Callable[..., Any]) -> tuple[Any, SplitCall]:
    """The program of the watched trace, compiled, and the split call it takes.

    Lowering describes the arguments by rebuilding their pytrees from
    placeholders; where that fails (an unflatten that runs code), the call is
    traced once more with its leaves passed flat, and that program is used.
    """
    try:
        return traced.lower().compile(), split
    except Exception:  # noqa: BLE001 - a pytree whose unflatten cannot take placeholders
        flat = split if split.flat else split.flattened()
        with uncached_tracing():
            program = jax.jit(flat.traceable(fn)).trace(*flat.args).lower().compile()
        return program, flat


def _run_eagerly(
    call: BoundCall, fn: Callable[..., Any], restored: list[Restored], copy: bool
) -> Outcome:
    """``fn`` on the call's arguments, without jit; on copies of its arrays where ``copy``."""
    with arrays_copied(call, copy) as (args, kwargs):
        return _run_after_reset(restored, lambda: fn(*args, **kwargs))


def _run_after_reset(restored: list[Restored], call: Callable[[], Any]) -> Outcome:
    for r in restored:
        r.reset()
    return run(call)


def _fresh_run(fn: Callable[..., Any], call: SplitCall) -> Any:
    """``jax.jit(fn)`` on the split call, traced without JAX's caches (so loop bodies run again)."""
    with uncached_tracing():
        return jax.jit(fn)(*call.args, **call.kwargs)


def _run_cached(
    call: BoundCall, restored: list[Restored], counts: collections.Counter[str]
) -> Outcome | None:
    """What ``call.fn`` answers from its jit wrapper's cache now (``call.jitted``, reached
    through partials and bound methods); None when it has no program.

    It is given copies of the arrays among the arguments, so that one that
    donates them (``donate_argnums``) leaves the caller's arrays alive. A
    wrapper with an empty cache is not called. One whose cache misses on
    these arguments traces the body (counted as a trace) and its result is
    not used; neither is an error (jit could not take the arguments).
    """
    fn, jitted = call.fn, call.jitted
    if jitted is None or not has_compiled(jitted):
        return None
    # A wrapper with donate_argnums deletes the arrays it is given: hand it copies.
    args, kwargs = jax.tree_util.tree_map(
        lambda v: v.copy() if isinstance(v, jax.Array) else v, call.given
    )
    with jit_cache_misses(jitted) as missed:
        outcome = _run_after_reset(restored, lambda: fn(*args, **kwargs))
    if missed():
        counts["trace"] += 1
        return None
    return None if outcome.error is not None else outcome
