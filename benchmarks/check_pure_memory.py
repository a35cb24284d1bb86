"""How much memory check_pure and find_leaks keep per call, beside plain JAX doing the same work.

Each case is called a few times to warm up, then ``--calls`` times (200 by default). The
growth of the memory Python has allocated (:mod:`tracemalloc`: JAX's caches of traces and
their jaxprs) and of the process's resident set (RSS: XLA's compiled programs too) is
divided by the number of calls. Beside each case, two baselines make JAX calls without
jaxpurity:

* ``jax.jit(f)(x)``, the user's own call, which JAX's caches answer;
* the same work as the check: ``f`` traced, compiled and run under :func:`jax.jit` twice,
  each time as a new function (so JAX traces it again, as the check does), and called
  eagerly once; for ``find_leaks``, traced once. What this keeps is JAX's own: an eager
  ``lax.scan`` keeps its body's program, for one.

    JAX_PLATFORMS=cpu python benchmarks/check_pure_memory.py [--calls 200] [--top 3]

``--top N`` prints the N tracebacks whose memory grew most over each case's calls.
``tests/test_purity_memory.py`` runs the same cases, with fewer calls.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import os
import sys
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import jaxpurity  # noqa: E402

# ----------------------------------------------------------------- the functions checked


@jax.jit
def scaled(x: jax.Array) -> jax.Array:
    return jnp.sin(x) * 2.0


def running_sums(xs: jax.Array) -> Any:
    def step(total: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        return total + x, total

    return jax.lax.scan(step, xs[0], xs)


@jax.tree_util.register_pytree_node_class
class Affine:
    def __init__(self, w: jax.Array) -> None:
        self.w = w

    def tree_flatten(self) -> tuple[tuple[jax.Array], None]:
        return (self.w,), None

    @classmethod
    def tree_unflatten(cls, _aux: None, children: tuple[jax.Array]) -> Affine:
        return cls(*children)

    @jax.jit
    def apply(self, x: jax.Array) -> jax.Array:
        return self.w * x + 1.0


def helpers_defined_once() -> Callable[[jax.Array], jax.Array]:
    """A function whose loop body and inner jit live as long as it does, like module-level
    helpers: JAX keeps their traces in its caches for as long."""

    def step(total: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        return total + x, total

    doubled = jax.jit(lambda x: 2.0 * x)

    def doubled_sums(xs: jax.Array) -> jax.Array:
        return doubled(jax.lax.scan(step, xs[0], xs)[0])

    return doubled_sums


# ----------------------------------------------------------------- the cases


@dataclass(frozen=True)
class Case:
    """A check to repeat, and the JAX calls to compare it with."""

    name: str
    check: Callable[[], object]  # one call of check_pure or find_leaks
    same_work: Callable[[], object]  # the JAX calls that check makes, without jaxpurity
    plain_jit: Callable[[], object]  # jax.jit(f)(x)
    tested: bool = True  # whether tests/test_purity_memory.py runs it (see cases())
    needs_eviction: bool = False  # flat only where JAX drops one function's entries (>= 0.10.2)


def _traced_anew(body: Callable[..., Any], args: tuple[Any, ...], times: int) -> None:
    """``body`` jitted, compiled and run ``times`` times, each time as a new function."""
    for _ in range(times):
        jax.block_until_ready(jax.jit(lambda *a: body(*a))(*args))


def _check_pure(name: str, fn: Any, args: tuple[Any, ...], body: Any, body_args: Any) -> Case:
    """``check_pure(fn, *args)``, where jit traces ``body(*body_args)``."""

    def same_work() -> None:
        _traced_anew(body, body_args, 2)
        jax.block_until_ready(body(*body_args))

    return Case(
        name,
        lambda: jaxpurity.check_pure(fn, *args),
        same_work,
        lambda: jax.block_until_ready(jax.jit(fn)(*args)),
    )


def cases() -> list[Case]:
    """The cases, made anew (the function of the case "run by the caller" is run here once).

    ``check_pure`` of a ``lax.scan`` keeps less than JAX making the same calls: an
    eager ``lax.scan`` keeps its body's compiled program in JAX (32 KB and 0.8 MB of
    RSS a call on JAX 0.12.0.1), and the check empties that cache after its eager
    run. Where JAX cannot drop one function's entries from its C++ trace caches
    (JAX before 0.10.2), a check keeps what JAX keeps for one trace of the function
    checked (``needs_eviction``: more than JAX making the same calls).

    The case "run by the caller" is measured, not tested. No JAX can drop the
    check's entries for a body without dropping the caller's too, which would make
    the caller's code trace it again and see globals changed since. So each such
    check keeps what JAX keeps for one trace of the body.
    """
    xs = jnp.arange(4.0)
    model = Affine(jnp.ones(4))
    helpers, helpers_run = helpers_defined_once(), helpers_defined_once()
    jax.block_until_ready(jax.jit(helpers_run)(xs))
    found = [
        _check_pure("check_pure, jitted function", scaled, (xs,), scaled.__wrapped__, (xs,)),
        _check_pure("check_pure, lax.scan", running_sums, (xs,), running_sums, (xs,)),
        _check_pure(
            "check_pure, jitted method of a pytree",
            model.apply,
            (xs,),
            Affine.apply.__wrapped__,  # type: ignore[attr-defined]
            (model, xs),
        ),
        Case(
            "find_leaks, lax.scan",
            lambda: jaxpurity.find_leaks(running_sums, xs),
            lambda: jax.jit(lambda *a: running_sums(*a)).trace(xs),
            lambda: jax.block_until_ready(jax.jit(running_sums)(xs)),
        ),
    ]
    for name, fn in [("never run by the caller", helpers), ("run by the caller", helpers_run)]:
        case = _check_pure(f"check_pure, helpers defined once, {name}", fn, (xs,), fn, (xs,))
        tested = name.startswith("never")
        found.append(dataclasses.replace(case, tested=tested, needs_eviction=True))
    return found


# ----------------------------------------------------------------- measuring


@dataclass(frozen=True)
class Growth:
    """What a call keeps, on average, in kilobytes; and where it grew most."""

    traced_kb: float  # tracemalloc's traced memory
    rss_kb: float  # the resident set; nan where /proc/self/statm is missing
    top: list[str] = field(default_factory=list)


def _rss_bytes() -> float:
    try:
        resident = Path("/proc/self/statm").read_text().split()[1]
    except OSError:
        return float("nan")
    return int(resident) * os.sysconf("SC_PAGE_SIZE")


def measure(call: Callable[[], object], calls: int, *, warmup: int = 3, top: int = 0) -> Growth:
    """What each of ``calls`` calls of ``call`` keeps, after ``warmup`` calls, with tracemalloc.

    Example:
      >>> kept = []
      >>> measure(lambda: kept.append(bytearray(10_000)), calls=10).traced_kb > 9
      True
    """
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start(25 if top else 1)
    try:
        for _ in range(warmup):
            call()
        gc.collect()
        before, rss = tracemalloc.get_traced_memory()[0], _rss_bytes()
        snapshot = tracemalloc.take_snapshot() if top else None
        for _ in range(calls):
            call()
        gc.collect()
        after, rss_after = tracemalloc.get_traced_memory()[0], _rss_bytes()
        grew = []
        if snapshot is not None:
            stats = tracemalloc.take_snapshot().compare_to(snapshot, "traceback")[:top]
            grew = [f"{s}\n" + "\n".join(s.traceback.format()[-12:]) for s in stats]
    finally:
        if started:
            tracemalloc.stop()
    return Growth((after - before) / calls / 1024, (rss_after - rss) / calls / 1024, grew)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls measured per case")
    parser.add_argument("--top", type=int, default=0, help="tracebacks to print per check")
    parser.add_argument("--only", default="", help="run the cases whose name holds this text")
    options = parser.parse_args()
    print(f"JAX {jax.__version__}, {options.calls} calls per case, kilobytes kept per call")
    print("(Python's traced memory / resident set), after 3 calls to warm up\n")
    print(f"{'case':58} {'the check':>15} {'same work':>15} {'jax.jit(f)(x)':>15}")
    for case in cases():
        if options.only not in case.name:
            continue
        row = []
        for call in (case.check, case.same_work, case.plain_jit):
            growth = measure(call, options.calls, top=options.top if call is case.check else 0)
            row.append(f"{growth.traced_kb:6.1f} / {growth.rss_kb:6.1f}")
            for text in growth.top:
                print(text)
        print(f"{case.name:58} {row[0]:>15} {row[1]:>15} {row[2]:>15}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
