"""Probe: the function under ``jax.vmap`` and under ``jax.vjp``, against its eager run.

A pure function gives the same under every transformation: ``vmap`` over a batch of one
row returns that row's eager result, and the forward pass of ``vjp`` returns the eager
result; neither raises where the eager run returns, and each does what the eager run does
(prints the same lines, changes the same places as often). Where a mode differs, the
function depends on something a transformation changes: a callback in a ``cond`` whose
batched predicate runs both branches, state it writes, an effect JAX cannot batch or
differentiate. These are warnings: they go wrong in a mode the function may not be used in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxpurity._jax_compat import is_ref
from jaxpurity.checks._copies import arrays_copied
from jaxpurity.checks._outcomes import Outcome, agree
from jaxpurity.checks._problems import Problem, mode_mismatch, problem
from jaxpurity.checks._program import calls_host, differentiation_may_differ
from jaxpurity.checks.probes.evidence import Evidence
from jaxpurity.checks.probes.runs import Runs
from jaxpurity.checks.probes.session import Effects, Session
from jaxpurity.checks.probes.trace import Trace

__all__ = ["under_transformations"]


def under_transformations(session: Session, trace: Trace, runs: Runs) -> Evidence:
    """Run the function under ``vmap`` and under ``vjp`` and say where each differs from its
    eager run.

    ``vjp`` runs only where the program holds what differentiation can treat otherwise
    (:func:`jaxpurity.checks._program.differentiation_may_differ`).
    Where the program calls back to Python (or reaches a Ref), what a run does besides
    returning is compared too: each transformed run is held to an eager run of its own,
    from the same state, and ``vjp``'s pullback runs as well (a backward pass may call back
    again). Elsewhere the eager run of :func:`compared_runs` is the reference, and results
    are compared only where those runs changed no state (then they could differ anyway).
    """
    found = Evidence()
    name = session.call.name
    if runs.eager is None or runs.eager.error is not None:
        return found  # the eager run fails: nothing to hold the transformed runs to
    assert trace.split is not None  # a trace that ran has its split call
    leaves, tree = jax.tree_util.tree_flatten((trace.split.args, trace.split.kwargs))
    if session.copy:  # a donating call inside: the caller's arrays are not handed to it
        leaves = [x.copy() if isinstance(x, jax.Array) else x for x in leaves]
    fn = trace.split.traceable(session.counted)

    def called(*xs: Any) -> list[Any]:
        args, kwargs = jax.tree_util.tree_unflatten(tree, xs)
        return fn(*args, **kwargs)

    effectful = calls_host(trace.program.jaxpr) or bool(session.refs)
    eager, eager_effects = runs.eager, None
    if effectful:
        session.stage = "run"
        with session.effects() as eager_effects:
            eager = session.run_eagerly()
        session.stage = "trace"
        if eager.error is not None:
            return found
    # Answers meant to change from call to call (io_callback), runs whose state moved, or a
    # function that jit already sees differ (a transformation traces it as jit does) are
    # not compared; effects are, and errors.
    compare_values = not trace.by_design and not runs.state_changed and runs.agreed
    printing = not trace.printed  # Python's print shows tracers under a transformation
    # Where a loop or remat callback was found, the warning already says what grad does.
    said = any(w.kind == "dropped-callback" for w in trace.warnings)
    modes: list[tuple[str, Callable[[], Outcome | None], bool]] = [
        ("jax.vmap", lambda: _batched(session, called, leaves), True),
        ("jax.vjp", lambda: _differentiated(session, called, leaves, eager, effectful), not said),
    ]
    if not (effectful or differentiation_may_differ(trace.program.jaxpr)):
        modes.pop()  # JAX's own primitives alone: vjp runs as the eager run does
    for mode, transformed, effects_compared in modes:
        with session.effects() as effects, arrays_copied(session.call, session.copy):
            outcome = transformed()
        if outcome is None:
            continue  # the mode does not apply to these inputs
        reference = _inexact(eager) if mode == "jax.vjp" else eager
        if outcome.error is not None:
            found.add(mode_mismatch(name, mode, outcome.error, "warning"))
        elif compare_values and not agree(reference, outcome):
            found.add(problem("mode-values", name=name, mode=mode, eager=reference, other=outcome))
        elif eager_effects is not None and effects_compared:
            if _differ(eager_effects, effects, printing):
                found.add(_callback_count(name, mode, eager_effects, effects))
    return found


def _differ(eager: Effects, other: Effects, printing: bool) -> bool:
    if printing:
        return eager.differ(other)
    return eager.changed != other.changed


def _callback_count(name: str, mode: str, eager: Effects, other: Effects) -> Problem:
    return problem("callback-count", name=name, mode=mode, eager=eager, other=other)


def _batched(session: Session, called: Callable[..., Any], leaves: list[Any]) -> Outcome | None:
    """``vmap`` over a batch of one row: the call's arrays, each with a leading axis of 1."""
    if not leaves:
        return None
    axes = tuple(None if is_ref(x) else 0 for x in leaves)
    rows = [
        x if axis is None else jnp.asarray(x)[None] for x, axis in zip(leaves, axes, strict=True)
    ]

    def first_row() -> list[Any]:
        return [y[0] for y in jax.vmap(called, in_axes=axes)(*rows)]

    return session.run(first_row)


def _differentiated(
    session: Session,
    called: Callable[..., Any],
    leaves: list[Any],
    eager: Outcome,
    pullback: bool,
) -> Outcome | None:
    """The forward pass of ``vjp`` with respect to the call's floating-point arrays, and,
    where ``pullback``, its pullback of ones: the results it returns in floating point."""
    where = [i for i, x in enumerate(leaves) if _is_inexact(x)]
    if not where or not eager.values or not any(_is_inexact(v) for v in eager.values):
        return None

    def of_inexact(*xs: Any) -> list[Any]:
        full = list(leaves)
        for i, x in zip(where, xs, strict=True):
            full[i] = x
        return [y for y in called(*full) if _is_inexact(y)]

    def forward_and_back() -> list[Any]:
        out, back = jax.vjp(of_inexact, *[leaves[i] for i in where])
        if pullback:
            jax.block_until_ready(back([jnp.ones_like(y) for y in out]))
        return out

    return session.run(forward_and_back)


def _is_inexact(x: Any) -> bool:
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        return isinstance(x, (float, complex))
    return bool(jnp.issubdtype(dtype, jnp.inexact)) and not is_ref(x)


def _inexact(outcome: Outcome) -> Outcome:
    """The floating-point results of an outcome, as vjp returns them."""
    assert outcome.values is not None
    return Outcome([v for v in outcome.values if np.issubdtype(v.dtype, np.inexact)], None)
