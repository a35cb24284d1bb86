"""Probe: the function run four ways on the same inputs, and the results compared.

Eagerly (with JAX's own leak checker on, as a careful user runs it), through the program
compiled from the watched trace, under a fresh ``jax.jit``, and through the jit cache of
the wrapper the user passed: where these disagree, the function depends on Python state
or on whether it is traced (``jit-eager-mismatch``), or a compiled program answers with
values read at an earlier trace (``stale-result``). What the eager run changes in an
argument that jit's run does not is a ``lost-mutation``. The fresh program, called a
second time, must answer the same: where it does not, it reads state its calls change
(``hidden-state``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import re
from collections.abc import Callable
from typing import Any

import jax

from jaxpurity._capture import printed
from jaxpurity._introspect import library_jit
from jaxpurity._jax_compat import (
    can_drop_traces,
    has_compiled,
    is_leak_error,
    jit_cache_misses,
    leak_checker_on,
)
from jaxpurity.checks._call import BoundCall
from jaxpurity.checks._outcomes import Outcome, agree, run
from jaxpurity.checks._problems import (
    STATE_CAUSE,
    eager_mismatch,
    jax_leak_problem,
    mode_mismatch,
    problem,
)
from jaxpurity.checks._restore import Restored
from jaxpurity.checks._snapshot import Change
from jaxpurity.checks._tracing import SplitCall, uncached_tracing
from jaxpurity.checks.probes.evidence import Evidence
from jaxpurity.checks.probes.session import Session
from jaxpurity.checks.probes.trace import Trace, printed_tracers

__all__ = ["Runs", "compared_runs"]


@dataclasses.dataclass
class Runs(Evidence):
    """What the runs showed; ``eager`` is what the eager run returned or raised, and
    ``state_changed`` whether the runs changed state (so that they could differ), and
    ``agreed`` whether the eager run and jit's agree."""

    eager: Outcome | None = None
    state_changed: bool = False
    agreed: bool = True  # the eager run and jit's agree


def compared_runs(session: Session, trace: Trace) -> Runs:
    """Run the function eagerly and under jit, and say where the runs disagree."""
    call, name, inputs = session.call, session.call.name, session.inputs
    found = Runs()
    assert trace.split is not None  # a trace that ran has its split call
    inputs.restore()
    with printed(echo=False):
        split = trace.split
        with printed(echo=False) as program_output:  # only callbacks print here
            try:
                program, split = _compiled(trace.program, split, session.counted)
            except Exception as error:  # noqa: BLE001 - JAX cannot lower it: jax.jit(fn) fails
                first = Outcome(None, error)
            else:
                first = session.run(lambda: program(*split.args, **split.kwargs))
        inputs.restore()
        session.stage = "run"
        # What jax.checking_leaks() sees, as a careful user runs it; where JAX can drop
        # the traces it made (forgetting_traces), since a leak it reports leaves the
        # leaking function uncached for the caller (seen on 0.4.35 and 0.6.2). Not where
        # the trace showed a leak already: that report says more, and JAX's checker, on
        # finding a leak, asks the garbage collector for every referrer of each tracer,
        # which takes seconds in a large process (1.3 s of a 2.2 s check alone, 20 s in
        # the test suite's process, for one corpus case).
        checking = can_drop_traces() and not trace.leaks
        with leak_checker_on() if checking else contextlib.nullcontext():
            eager = session.run_eagerly()
        written = [r for r in _hidden_refs(session) if r.moved()]  # before the next reset
        jax_leak = eager.error if eager.error and is_leak_error(eager.error) else None
        if jax_leak is not None:  # a finding of its own: the run's outcome is without it
            inputs.restore()
            eager = session.run_eagerly()
        eager_effects = inputs.changes()
        inputs.restore()
        session.stage = "trace"
        jitted = jax.jit(split.traceable(session.counted))
        with uncached_tracing():
            fresh = session.run(lambda: jitted(*split.args, **split.kwargs))
            jit_effects = inputs.changes()
            inputs.restore()
            for r in session.refs:  # the Refs it takes are inputs: the same again
                if r.label.startswith("argument"):
                    r.reset()
            again = run(lambda: jitted(*split.args, **split.kwargs))  # other state kept
        inputs.restore()
        # Numbers drawn at trace time differ from trace to trace: frozen-randomness.
        cached = None if trace.moved else _run_cached(session)
        inputs.restore()
        if _lost_mutations(call, eager_effects, jit_effects) and library_jit(call.fn):
            jit_effects += _changes_of_the_users_call(session)

    if jax_leak is not None and not trace.leaks:
        found.add(jax_leak_problem(name, jax_leak))
    found.add(*printed_tracers(program_output.lines, name))
    for r in _hidden_refs(session):
        template = "hidden-ref-written" if any(r is w for w in written) else "hidden-ref"
        found.add(problem(template, name=name, label=r.label))
    lost = _lost_mutations(call, eager_effects, jit_effects)
    found.add(*lost)
    state_changed = trace.state_changed or bool(lost)
    found.eager, found.state_changed = eager, state_changed
    found.agreed = agree(eager, fresh)
    found.add(*_hidden_state(name, trace, fresh, again))
    cause = STATE_CAUSE if state_changed or trace.leaks else ""
    compared = not trace.by_design
    mismatch = compared and not agree(eager, fresh)
    stale_cache = compared and cached is not None and not agree(cached, fresh)
    # A trace that leaked a tracer compiles to a program that takes it as one more input,
    # which it cannot be called without: that failure is the leak's, already reported.
    stale_program = (
        compared
        and not stale_cache
        and not agree(first, fresh)
        and not (trace.leaks and first.error is not None)
    )
    fresh_trace = fresh
    if state_changed and (mismatch or stale_cache or stale_program):
        # The runs above moved the user's state (a counter): show what the user's own calls
        # return instead, where those disagree too.
        yours = _as_the_user_calls(session, split)
        if not agree(yours.eager, yours.jitted) and not agree(yours.jitted, yours.traced):
            eager, fresh, first, cached = yours.eager, yours.jitted, yours.jitted, yours.jitted
            fresh_trace = yours.traced
    if mismatch and not state_changed and (eager.error is None) != (fresh.error is None):
        found.add(_one_mode_raises(name, eager, fresh))  # not a value: its error says why
    elif mismatch:
        found.add(problem("jit-eager-mismatch", name=name, eager=eager, fresh=fresh, cause=cause))
    if stale_cache:
        found.add(problem("stale-cache", name=name, cached=cached, fresh=fresh_trace, cause=cause))
    if stale_program:
        found.add(problem("stale-program", name=name, first=first, fresh=fresh_trace, cause=cause))
    return found


def _one_mode_raises(name: str, eager: Outcome, jitted: Outcome) -> Any:
    """The problem of a function that raises under jit and not eagerly, or the reverse."""
    if jitted.error is not None:
        return mode_mismatch(name, "jax.jit", jitted.error, "error")
    assert eager.error is not None
    return eager_mismatch(name, eager.error)


def _hidden_refs(session: Session) -> list[Restored]:
    """The Refs the call reaches that it does not take as arguments (globals, closures)."""
    return [r for r in session.refs if not r.label.startswith("argument")]


def _changes_of_the_users_call(session: Session) -> list[Change]:
    """What calling the function as the user passed it changes in its arguments. Another
    library's jit (``nnx.jit``) may write back into them what its program computed: that
    change is by design, not lost, where jax.jit's would be."""
    try:
        session.run_as_passed()
        return session.inputs.changes()
    finally:
        session.inputs.restore()


#: The libraries whose objects are pytrees that their methods change in place (Flax NNX's
#: modules and optimizers): a change lost under jax.jit has the library's own fix.
MODULE_LIBRARIES = ("flax",)


def _lost_mutations(call: BoundCall, eager: list[Change], jitted: list[Change]) -> list[Any]:
    """The changes to an argument that the eager run makes and jit's run does not."""
    changed_by_jit = {(c.root, c.path) for c in jitted}
    property_caches = _cached_properties(call)
    lost = []
    arguments = dict(call.named)
    for c in eager:
        if (c.root, c.path) not in changed_by_jit and c.path not in property_caches:
            fields = {"root": c.root, "path": c.path, "before": c.before, "after": c.after}
            argument = arguments.get(re.split(r"[.\[]", c.path, maxsplit=1)[0], None)
            library = type(argument).__module__.partition(".")[0]
            if library in MODULE_LIBRARIES:
                template = "lost-module-mutation"
                lost.append(problem(template, name=call.name, library=library, **fields))
                continue
            kind = "lost-attribute-mutation" if "." in c.path else "lost-mutation"
            lost.append(problem(kind, name=call.name, **fields))
    return lost


def _hidden_state(name: str, trace: Trace, fresh: Outcome, again: Outcome) -> list[Any]:
    """A program that answers differently when called again: it reads state its calls change."""
    if fresh.error is not None or again.error is not None or agree(fresh, again):
        return []
    through = "an io_callback" if trace.by_design else "a callback or a Ref"
    return [problem("hidden-state", name=name, first=fresh, second=again, through=through)]


@dataclasses.dataclass(frozen=True)
class _UserCalls:
    """What the user's own second calls return, each series from their state before the check."""

    eager: Outcome  # the second eager call
    jitted: Outcome  # the second call of one jax.jit, which answers from its first trace
    traced: Outcome  # a trace made after one eager call: what jit would compute now


def _as_the_user_calls(session: Session, split: SplitCall) -> _UserCalls:
    """Replay two calls as the user makes them, each series from the user's state.

    A global counter ``calls += 1; return x * calls`` from ``calls = 0`` returns ``x * 2``
    at the second eager call and ``x * 1`` at the second jitted one, whatever the check's
    own runs moved the counter to.
    """
    body = session.call.body

    def second(first: Callable[[], Any], then: Callable[[], Any]) -> Outcome:
        session.scope.restore()
        session.inputs.restore()
        session.run(first)
        return session.run(then)

    def eagerly() -> Any:
        return session.run_eagerly(body).values

    try:
        with printed(echo=False):
            jitted = jax.jit(split.traceable(body))
            with uncached_tracing():
                user_jit = second(*[lambda: jitted(*split.args, **split.kwargs)] * 2)
            user_eager = second(eagerly, lambda: _raised(session.run_eagerly(body)))
            traced = second(eagerly, lambda: _fresh_run(split.traceable(body), split))
    finally:
        session.reset()
        session.scope.restore()
        session.inputs.restore()
    return _UserCalls(user_eager, user_jit, traced)


def _raised(outcome: Outcome) -> Any:
    """What the outcome returned, as its array leaves; its error raised again."""
    if outcome.error is not None:
        raise outcome.error
    return outcome.values


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


def _fresh_run(fn: Callable[..., Any], call: SplitCall) -> Any:
    """``jax.jit(fn)`` on the split call, traced without JAX's caches (so loop bodies run again)."""
    with uncached_tracing():
        return jax.jit(fn)(*call.args, **call.kwargs)


def _run_cached(session: Session) -> Outcome | None:
    """What ``call.fn`` answers from its jit wrapper's cache now (``call.jitted``, reached
    through partials and bound methods); None when it has no program.

    It is given copies of the arrays among the arguments, so that one that
    donates them (``donate_argnums``) leaves the caller's arrays alive. A
    wrapper with an empty cache is not called. One whose cache misses on
    these arguments traces the body (counted as a trace) and its result is
    not used; neither is an error (jit could not take the arguments).
    """
    call = session.call
    fn, jitted = call.fn, call.jitted
    if jitted is None or not has_compiled(jitted):
        return None
    # A wrapper with donate_argnums deletes the arrays it is given: hand it copies.
    args, kwargs = jax.tree_util.tree_map(
        lambda v: v.copy() if isinstance(v, jax.Array) else v, call.given
    )
    with jit_cache_misses(jitted) as missed:
        outcome = session.run(lambda: fn(*args, **kwargs))
    if missed():
        session.counts["trace"] += 1
        return None
    return None if outcome.error is not None else outcome
