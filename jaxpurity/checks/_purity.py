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
from jaxpurity.checks._snapshot import Snapshot
from jaxpurity.checks._tracing import RaisedWhileTraced, forgetting_traces
from jaxpurity.checks.probes.evidence import Evidence, in_report_order
from jaxpurity.checks.probes.keys import key_reuse
from jaxpurity.checks.probes.runs import compared_runs
from jaxpurity.checks.probes.session import Session
from jaxpurity.checks.probes.static import static_evidence
from jaxpurity.checks.probes.trace import trace_failure, watched_trace
from jaxpurity.checks.probes.transformed import under_transformations

__all__ = ["Problem", "PurityReport", "check_pure"]

P = ParamSpec("P")


# ----------------------------------------------------------------- the check


def check_pure(fn: Callable[P, Any], /, *args: P.args, **kwargs: P.kwargs) -> PurityReport:
    """Check ``fn(*args, **kwargs)`` for impurities that ``jit``, ``grad`` and ``vmap`` trip over.

    It runs ``fn`` through a pipeline of probes (``jaxpurity/checks/probes/``):
    it traces ``fn`` once with :func:`jax.jit` and watches what the trace
    does; calls it eagerly, under a fresh :func:`jax.jit` (twice) and
    through your jit cache, and compares the results; runs it under
    :func:`jax.vmap`, and under :func:`jax.vjp` where it holds what
    differentiation treats otherwise (a callback, a while loop, a checkpoint, a
    derivative rule of your own, a Ref), against the eager call; where it draws
    random numbers, traces it with JAX's key-reuse checker on; and reads its
    module with :func:`jaxpurity.lint` (its findings are warnings).
    ``fn`` is called as :func:`jax.jit` calls it: its pytree arguments (and
    ``self``, for a method decorated with ``jax.jit``) are flattened and
    rebuilt, and a jit wrapper's static arguments are kept whole. When the
    check ends, everything ``fn`` can reach is as it was, with no tracer left
    in it, and none of your arrays deleted (a donating call inside ``fn`` is
    given copies).

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
    * ``"mode-mismatch"``: ``fn`` runs eagerly but ``jax.jit(fn)`` raises (a
      ``TracerBoolConversionError``, say: nothing else can be checked until it
      traces), or the reverse; the page is the one :func:`jaxpurity.explain`
      gives the error (``"leaked-tracer"`` for JAX's UnexpectedTracerError).
    * ``"trace-error"``: ``fn`` raised while it was traced, and raises when
      run eagerly too: it is broken whatever the mode.
    * ``"key-reuse"``: a jax.random key used twice, as JAX's key-reuse
      checker (``jax.debug_key_reuse``) sees (a raw ``PRNGKey`` among the
      arguments is followed as the typed key it holds); or a typed key ``fn``
      closes over and draws from, so that every call draws the same numbers.

    It warns (:attr:`PurityReport.warnings`) about what goes wrong once
    something changes: a global, closure variable or environment variable
    read while tracing, which jit bakes in (``"trace-time-read"``); an
    attribute read off a static argument, which jit keeps as a cache key
    (``"stale-result"``); a ``jax.debug.callback`` in a loop body, which
    under ``grad`` JAX may move out of the loop, or in a ``jax.checkpoint``,
    which ``grad`` runs twice (``"dropped-callback"``); an argument that a jit
    wrapper ``fn`` donates, which each call deletes (``"argument-mutation"``);
    a mode that raises where the eager call returns (``"mode-mismatch"``: under
    :func:`jax.vmap` a write to a Ref that is not batched, under
    :func:`jax.vjp` a callback with no derivative), or returns other values;
    a mode that does other things than the eager call (``"callback-count"``:
    under ``vmap`` a ``cond`` whose batched predicate runs both branches and
    their prints, under ``grad`` a checkpointed callback run twice); a second
    call of one compiled program that answers differently, or a Ref ``fn``
    reads without taking it (``"hidden-state"``), or writes
    (``"container-mutation"``).

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
        process = ProcessState.now()
        scope = Snapshot(call.named, call.bindings)
        session = Session(call, scope)
        try:
            return _check(session)
        finally:
            scope.restore()
            process.restore()
            empty(session.holders)


def _check(session: Session) -> PurityReport:
    """Run the probes in order and gather what each found; the caller puts every global,
    closure and argument back after it (``session.scope``), and the process's state."""
    call = session.call
    try:
        trace = watched_trace(session)
        if isinstance(trace, RaisedWhileTraced):  # nothing else can run: what it means
            found = [Evidence(problems=[trace_failure(session, trace)])]
        else:
            runs = compared_runs(session, trace)
            transformed = under_transformations(session, trace, runs)
            found = [trace, runs, transformed, key_reuse(session, trace)]
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
