"""check_pure and find_leaks keep no memory across calls, and still trace cached code each time.

Each check traces the user's function in a trace context of its own, so that JAX's caches
do not answer for the loop bodies and inner jits it calls. Before, every check had a new
context, and JAX kept what it traced in each for as long as the traced functions lived:
about 13 to 150 kilobytes per call (26 for a jitted ``sin(x) * 2`` on JAX 0.12.0.1, 33 on
0.4.35). The cases are ``tests/benchmark_check_pure_memory.py``'s, which measures them over
200 calls and prints the tracebacks that grow.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import pytest

import jaxpurity

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmark_check_pure_memory import Case, cases, measure  # noqa: E402

CALLS = 10
# Kilobytes a call may keep beyond what JAX keeps for the same calls without jaxpurity. It is
# 1/13 of the least that a check kept before (13 KB, the jitted method), and above what
# JAX's caches add now and then as they grow (a dict resized, a few KB once in CALLS calls).
BOUND_KB = 1.0


@pytest.mark.parametrize("case", [c for c in cases() if c.tested], ids=lambda c: c.name)
def test_repeated_checks_keep_no_more_memory_than_jax_doing_the_same_work(case: Case) -> None:
    kept = measure(case.check, CALLS).traced_kb
    jax_own = measure(case.same_work, CALLS).traced_kb
    assert kept < jax_own + BOUND_KB, (
        f"{case.name}: each call kept {kept:.1f} KB; JAX, making the same calls, "
        f"{jax_own:.1f} KB (run tests/benchmark_check_pure_memory.py --top 3 to see where)"
    )


# ----------------------------------------------------------------- what the caches must still do

saved: list[Any] = []


def _remember(carry: jax.Array, _: None) -> tuple[jax.Array, None]:
    saved.append(carry)
    return carry + 1, None


@jax.jit
def _remember_twice(x: jax.Array) -> jax.Array:
    saved.append(x)
    return 2 * x


def _in_a_loop(x: jax.Array) -> jax.Array:
    return jax.lax.scan(_remember, x, None, length=2)[0]


def _in_an_inner_jit(x: jax.Array) -> jax.Array:
    return _remember_twice(x) + 1


@pytest.mark.parametrize("caller_ran_it", [False, True], ids=["new", "run by the caller"])
@pytest.mark.parametrize("fn", [_in_a_loop, _in_an_inner_jit], ids=["loop body", "inner jit"])
def test_every_check_traces_a_body_that_jax_keeps_cached(fn: Any, caller_ran_it: bool) -> None:
    # The body lives on between checks, so JAX keeps its traces: a check that let JAX's
    # cache answer would not run it, and would miss the leak from the second check on.
    x = jnp.ones(3)
    if caller_ran_it:
        jax.jit(fn)(x)
        saved.clear()
    for _ in range(2):
        assert [leak.root for leak in jaxpurity.find_leaks(fn, x)] == ["global"]
        report = jaxpurity.check_pure(fn, x)
        assert "leaked-tracer" in [p.kind for p in report.problems]
        assert saved == []  # put back


def test_a_check_leaves_the_callers_cached_traces_in_place() -> None:
    runs: list[int] = []

    def body(carry: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        runs.append(1)
        return carry + x, x

    def total(xs: jax.Array) -> jax.Array:
        return jax.lax.scan(body, 0.0, xs)[0]

    xs = jnp.ones(3)
    jax.make_jaxpr(total)(xs)
    jaxpurity.check_pure(total, xs)
    assert runs == [1]  # the caller's trace; the check put the list back
    jax.make_jaxpr(total)(xs)
    assert runs == [1]  # JAX's cache still answers the caller: the body did not run again
