"""check_pure and find_leaks keep no memory across calls, and still trace cached code each time.

A check traces the user's function in a trace context that no trace of the caller's uses,
so that JAX's caches do not answer for the loop bodies and inner jits it calls, and drops
what JAX cached under it when the check ends; it also empties JAX's cache of eager
operations where its eager run compiled a loop. Before, each check had a new context, and
JAX kept what it traced in each for as long as the traced functions lived (7 to 36 KB a
call), and an eager scan's compiled program for good (32 KB and 0.8 MB of RSS a call). The
cases are ``benchmarks/check_pure_memory.py``'s, which measures them over 200 calls
and prints the tracebacks that grow."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import pytest

import jaxpurity
from jaxpurity import _jax_compat as compat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.check_pure_memory import cases  # noqa: E402

# Minutes, not seconds: the backend lane (tests/lane.py) runs these in a call of their own.
pytestmark = pytest.mark.slow

CALLS = 10
# Kilobytes a call may keep (beyond what JAX keeps for the same calls, or at all): under a
# third of the least a check kept before (7.2 KB, find_leaks on JAX 0.12.0.1; an eager scan
# kept 32 KB), and above the noise that earlier tests leave (NumPy's and JAX's small
# allocations, a dict resized now and then: up to 1 KB a call measured over CALLS calls).
BOUND_KB = 2.0
# Calls before the absolute measure: JAX 0.10.2 keeps traces' avals and names in caches of a
# bounded size, which fill over a check's first calls and then turn over. Measured over 10
# calls on that JAX, a lax.scan check kept 4.6 KB a call after 3 calls, 1.0 after 20 and
# 0.1 after 60; a leak would keep the same at every point. On JAX 0.12.0.1 every case kept
# at most 0.7 KB a call after 5 calls (each measured twice), so the newest JAX's env spends
# no more (JAX 0.4.35 and 0.6.2 cannot drop traces, and skip this test).
WARMUP = 5 if jax.__version_info__ >= (0, 12) else 30


TESTED = [c for c in cases() if c.tested]
DROPS = pytest.mark.skipif(
    not compat.can_drop_traces(),
    reason="this JAX cannot drop one function's entries from its C++ trace caches",
)


@pytest.mark.parametrize(
    "name", [pytest.param(c.name, marks=[DROPS] if c.needs_eviction else []) for c in TESTED]
)
def test_repeated_checks_keep_no_more_memory_than_jax_doing_the_same_work(name: str) -> None:
    # In a Python of its own, after WARMUP calls: in the suite's process, after test_purity
    # and the corpora, the check of a jitted method of a pytree measured 4.4 to 5.1 KB a call
    # against JAX's 1.7 to 2.3 on JAX 0.6.2 (which cannot drop traces); alone after 3 calls,
    # 3.6 to 4.2 against 2.1 (CI failed on 4.2); after 30 calls, 1.4 against 0.9.
    kept, jax_own = _kept_in_a_new_process(name, "check", "same_work", warmup=WARMUP)
    assert kept < jax_own + BOUND_KB, (
        f"{name}: each call kept {kept:.1f} KB; JAX, making the same calls, "
        f"{jax_own:.1f} KB (run benchmarks/check_pure_memory.py --top 3 to see where)"
    )


def _kept_in_a_new_process(name: str, *calls: str, warmup: int) -> list[float]:
    """What each of case ``name``'s ``calls`` (its ``check``, its ``same_work``) keeps per
    call, in KB, each measured on the case made anew, in a Python of its own.

    Away from what the suite's earlier tests left in JAX's bounded caches, which turn
    over during the measure: on JAX 0.10.2 a case that keeps 0.4 to 0.7 KB a call alone
    measured 2.2 after the rest of the suite.
    """
    code = "from benchmarks.check_pure_memory import cases, measure\n" + "".join(
        f"case = next(c for c in cases() if c.name == {name!r})\n"
        f"print(measure(case.{call}, {CALLS}, warmup={warmup}).traced_kb)\n"
        for call in calls
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [float(line) for line in proc.stdout.split()[-len(calls) :]]


@DROPS
@pytest.mark.parametrize("name", [c.name for c in TESTED])
def test_repeated_checks_keep_no_memory(name: str) -> None:
    # Flat, even where JAX itself keeps memory for the same calls: an eager lax.scan keeps
    # its body's compiled program, and the check empties that cache after its eager run.
    (kept,) = _kept_in_a_new_process(name, "check", warmup=WARMUP)
    assert kept < BOUND_KB, f"{name}: each call kept {kept:.1f} KB after {WARMUP} calls"


# ----------------------------------------------------------------- what the caches must still do

saved: list[Any] = []


def _remember(carry: jax.Array, _: None) -> tuple[jax.Array, None]:
    saved.append(carry)
    return carry + 1, None


@jax.jit
def _double_remembering(x: jax.Array) -> jax.Array:
    saved.append(x)
    return 2 * x


def _in_a_loop(x: jax.Array) -> jax.Array:
    return jax.lax.scan(_remember, x, None, length=2)[0]


def _in_an_inner_jit(x: jax.Array) -> jax.Array:
    return _double_remembering(x) + 1


# Bodies that live on between checks, as module-level functions do: JAX keeps their traces.
BODIES = [pytest.param(_in_a_loop, id="loop body"), pytest.param(_in_an_inner_jit, id="inner jit")]


@pytest.mark.parametrize("caller_ran_it", [False, True], ids=["new", "run by the caller"])
@pytest.mark.parametrize("fn", BODIES)
def test_every_check_traces_a_body_that_jax_keeps_cached(fn: Any, caller_ran_it: bool) -> None:
    # A check that let JAX's cache answer would not run the body, and so would miss the
    # leak from the second check on.
    x = jnp.ones(3)
    if caller_ran_it:
        jax.jit(fn)(x)
        saved.clear()
    for _ in range(2):
        assert [leak.root for leak in jaxpurity.find_leaks(fn, x)] == ["global"]
        report = jaxpurity.check_pure(fn, x)
        assert "leaked-tracer" in [p.kind for p in report.problems]
        assert saved == []  # put back


@pytest.mark.parametrize("fn", BODIES)
def test_a_check_leaves_the_callers_cached_traces_in_place(fn: Any) -> None:
    x = jnp.ones(3)
    jax.make_jaxpr(lambda x: fn(x))(x)  # the caller traces the body, and JAX caches its trace
    saved.clear()
    jaxpurity.check_pure(fn, x)
    jax.make_jaxpr(lambda x: fn(x))(x)  # a new function around it: the cache answers for the body
    assert saved == []  # so the body did not run
