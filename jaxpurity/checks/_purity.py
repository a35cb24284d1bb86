"""Check a function for every kind of impurity that JAX's transformations trip over."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ParamSpec

import jax

from jaxpurity._jax_compat import leak_checker_off
from jaxpurity.checks._call import BoundCall
from jaxpurity.checks._guard import ONE_CHECK_AT_A_TIME, require_plain_python
from jaxpurity.checks._problems import Problem, PurityReport
from jaxpurity.checks._process import ProcessState, empty
from jaxpurity.checks._program import has_loops_or_conds
from jaxpurity.checks._snapshot import Snapshot
from jaxpurity.checks._tracing import Forgetting, RaisedWhileTraced, forgetting_traces
from jaxpurity.checks.probes.evidence import Evidence, in_report_order
from jaxpurity.checks.probes.keys import key_reuse
from jaxpurity.checks.probes.runs import compared_runs
from jaxpurity.checks.probes.session import Session
from jaxpurity.checks.probes.static import static_evidence
from jaxpurity.checks.probes.threaded import threaded_state
from jaxpurity.checks.probes.trace import trace_failure, watched_trace
from jaxpurity.checks.probes.transformed import under_transformations

__all__ = ["Problem", "PurityReport", "check_pure"]

P = ParamSpec("P")


# ----------------------------------------------------------------- the check


def check_pure(fn: Callable[P, Any], /, *args: P.args, **kwargs: P.kwargs) -> PurityReport:
    """Check ``fn(*args, **kwargs)`` for impurities that ``jit``, ``grad`` and ``vmap`` trip over.

    It traces ``fn`` once with :func:`jax.jit` and watches what the trace does; runs it
    eagerly, under fresh jits and through your jit cache, and compares; runs it under
    :func:`jax.vmap`, and under :func:`jax.vjp` where differentiation may differ (a
    callback, a while loop, a checkpoint, a custom derivative, a Ref); traces it with
    JAX's key-reuse checker where it draws random numbers; and reads its module with
    :func:`jaxpurity.lint` (whose findings are warnings). ``fn`` gets its arguments as
    :func:`jax.jit` gives them (pytrees rebuilt, a jit wrapper's static arguments kept
    whole). When the check ends, everything ``fn`` can reach is as it was, with no
    tracer in it and none of your arrays deleted.

    The problems it finds (:attr:`Problem.kind`), each with its fix and its page:

    * ``"leaked-tracer"``: a tracer stored where it outlives the trace
      (:func:`find_leaks`), or a leak JAX's own checker sees in the eager run (JAX 0.10.2
      and newer).
    * ``"global-assignment"``, ``"closure-assignment"``: a variable rebound while tracing.
    * ``"container-mutation"``, ``"argument-mutation"``: a list, dict, set or object held
      in a global, a closure or an argument, changed while tracing.
    * ``"trace-time-print"``: ``print`` while tracing, or a tracer formatted into the text
      of ``jax.debug.print``.
    * ``"frozen-randomness"``: ``numpy.random``, ``random`` or a held generator: jit bakes
      the numbers in.
    * ``"jit-eager-mismatch"``: ``jax.jit(fn)`` and ``fn`` disagree on the same inputs.
    * ``"stale-result"``: the compiled program (or a jit wrapper's cache) disagrees with a
      fresh trace now; only what is stale at the time of the check can be seen.
    * ``"lost-mutation"``: a change to an argument that only the eager run makes.
    * ``"remat-mutation"``: a function under ``jax.checkpoint`` that stores a value in
      its caller's list or dict (JAX 0.10.2 and newer).
    * ``"dropped-callback"``: a ``pure_callback`` whose result nothing uses.
    * ``"trace-time-read"``: the clock read while tracing.
    * ``"mode-mismatch"``: ``fn`` runs eagerly but ``jax.jit(fn)`` raises, or the
      reverse; the page is the one :func:`jaxpurity.explain` gives the error.
    * ``"trace-error"``: ``fn`` raises traced and eagerly alike.
    * ``"key-reuse"``: a jax.random key used twice (``jax.debug_key_reuse``), or a key
      ``fn`` closes over, so every call draws the same numbers.

    Its warnings (:attr:`PurityReport.warnings`) say what goes wrong once something changes,
    or in another mode, with the same kinds: a variable read while tracing, an attribute of
    a static argument, a ``jax.debug.callback`` in a loop or a checkpoint, an argument a jit
    wrapper donates, ``vmap`` or ``vjp`` raising or doing other things
    (``"callback-count"``), a second call of one program answering otherwise or a Ref read
    without being passed (``"hidden-state"``), a compiled step that compiles again when given
    the state it returned (``"retracing"``). Only what ``fn`` reaches in one step is
    watched: the globals it names, its closure, its arguments' attributes. How the check
    puts everything back: ``CONTRIBUTING.md``, "How check_pure keeps out of the way".

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
    with (
        ONE_CHECK_AT_A_TIME,
        forgetting_traces() as forgetting,
        leak_checker_off(),
        jax.disable_jit(False),
    ):
        process = ProcessState.now()
        scope = Snapshot(call.named, call.bindings)
        session = Session(call, scope)
        try:
            return _check(session, forgetting)
        finally:
            scope.restore()
            process.restore()
            empty(session.holders)


def _check(session: Session, forgetting: Forgetting) -> PurityReport:
    """Run the probes in order and gather what each found; the caller puts every global,
    closure and argument back after it (``session.scope``), and the process's state."""
    call = session.call
    try:
        trace = watched_trace(session)
        if not isinstance(trace, RaisedWhileTraced):
            forgetting.loops_ran = has_loops_or_conds(trace.program.jaxpr)
        if isinstance(trace, RaisedWhileTraced):  # nothing else can run: what it means
            found = [Evidence(problems=[trace_failure(session, trace)])]
        else:
            runs = compared_runs(session, trace)
            transformed = under_transformations(session, trace, runs)
            found = [trace, runs, transformed, key_reuse(session, trace), threaded_state(session)]
    finally:
        session.reset()
    seen = {p.kind for e in found for p in [*e.problems, *e.warnings]}
    found.append(static_evidence(call, seen))
    problems = in_report_order(p for e in found for p in e.problems)
    warnings = [w for e in found for w in e.warnings]
    counts = session.counts
    return PurityReport(
        call.name, problems, traces=counts["trace"], runs=counts["run"], warnings=warnings
    )
