"""Probe: the function traced once, as ``jax.jit`` traces it, and watched while it is.

The trace shows the tracers that escape it (:func:`jaxpurity.find_leaks`), the state it
changes (:mod:`jaxpurity.checks._watch`), what it prints, reads (the environment, the
clock, settings) and draws (a random generator it moves), and, read from its program
(:mod:`jaxpurity.checks._program`), the callbacks jit may drop or run another number of
times and the calls that donate an array. Where the function cannot be traced, that is
the evidence: :func:`trace_failure` says whether it runs eagerly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from jaxpurity._capture import this_thread_output
from jaxpurity._jax_names import PRINTED_TRACER
from jaxpurity._naming import short_repr
from jaxpurity.checks._leaks import Leak, trace_finding_leaks
from jaxpurity.checks._problems import (
    OR_CLEAR_CACHE,
    Problem,
    leak_template,
    mode_mismatch,
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
from jaxpurity.checks._restore import Restored
from jaxpurity.checks._trace_reads import outside_reads, settings_read
from jaxpurity.checks._tracing import RaisedWhileTraced, SplitCall
from jaxpurity.checks._watch import watch_state
from jaxpurity.checks.probes.evidence import Evidence
from jaxpurity.checks.probes.session import Session

__all__ = ["Trace", "trace_failure", "watched_trace"]


@dataclass
class Trace(Evidence):
    """What the trace showed, and what the probes after it need of it.

    Attributes:
      program: The ``jax.stages.Traced`` of the call.
      split: The split call that was traced (to run its program).
      leaks: The tracers that escaped.
      state_changed: Whether the trace changed state the function reaches.
      moved: The random generators the trace moved (frozen randomness).
      by_design: The callbacks whose answers may change from call to call
        (``io_callback``): results are not compared where there are any.
      printed: What the trace printed (Python's ``print`` runs while tracing).
    """

    program: Any = None
    split: SplitCall | None = None
    leaks: list[Leak] = field(default_factory=list)
    state_changed: bool = False
    moved: list[Restored] = field(default_factory=list)
    by_design: list[str] = field(default_factory=list)
    printed: str = ""


def watched_trace(session: Session) -> Trace | RaisedWhileTraced:
    """Trace the call once and say what the trace did; the error where it cannot be traced."""
    call, name = session.call, session.call.name
    watches = watch_state(call)
    reads = settings_read(call)
    with this_thread_output() as trace_output, outside_reads() as outside:
        try:
            program, split, leaks, holders = trace_finding_leaks(call, session.counted)
        except RaisedWhileTraced as raised:  # the user's bug: evidence, not a crash
            return raised
    session.holders += holders  # emptied of tracers when the check ends
    found = Trace(program=program, split=split, leaks=leaks, printed=trace_output.text)
    found.add(*(problem(leak_template(leak), leak=leak) for leak in leaks))
    for w in watches:
        change = w.change()
        if change is not None:
            found.add(problem(w.kind, name=name, label=w.label, change=change))
            found.state_changed = True
    if trace_output.text:
        printed_text = short_repr(trace_output.text.rstrip())
        found.add(problem("trace-time-print", name=name, printed=printed_text))
    found.moved = [r for r in session.rngs if r.moved()]
    found.add(*(problem("frozen-randomness", name=name, generator=r.label) for r in found.moved))
    jaxpr = program.jaxpr
    found.add(
        *(
            problem("dropped-callback", name=name, primitive=p, count=n)
            for p, n in sorted(unused_callbacks(jaxpr).items())
        )
    )
    or_clear = OR_CLEAR_CACHE if call.jitted is not None else ""  # no cache to clear else
    for r in [*outside, *reads]:
        fields = {"label": r.label, "value": r.value, "why": r.why, "or_clear": or_clear}
        found.add(problem(r.problem, name=name, **fields))
    in_loops, in_remat = debug_callbacks_in_loops(jaxpr), debug_callbacks_in_remat(jaxpr)
    found.add(*(problem("loop-callback", name=name, callback=c) for c in in_loops))
    found.add(*(problem("remat-callback", name=name, callback=c) for c in in_remat))
    found.add(*(problem("donated-argument", name=name, argument=a) for a in sorted(call.donated)))
    found.by_design = effectful_callbacks(jaxpr)
    session.copy = donates(jaxpr)  # eager runs would delete the caller's arrays: copies
    return found


def printed_tracers(lines: list[str], name: str) -> list[Problem]:
    """The problem of a program that prints tracers (formatted into the text at trace time)."""
    tracer_lines = [ln for ln in lines if re.search(PRINTED_TRACER, ln)]
    if not tracer_lines:
        return []
    return [problem("printed-tracer", name=name, printed=short_repr("\n".join(tracer_lines)))]


def trace_failure(session: Session, raised: RaisedWhileTraced) -> Problem:
    """What it means that the function cannot be traced: a ``mode-mismatch`` where it runs
    eagerly (jit is the mode that breaks), else a ``trace-error`` (it is broken either way)."""
    name, error = session.call.name, raised.error
    session.stage = "run"
    eager = session.run_eagerly()
    session.inputs.restore()
    if eager.error is None:
        return mode_mismatch(name, "jax.jit", error, "error")
    return trace_error(name, error)
