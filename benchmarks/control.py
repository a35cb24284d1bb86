"""Benchmark jaxpurity's control-flow helpers against lax (not a pytest file).

Run: ``JAX_PLATFORMS=cpu python benchmarks/control.py [--out table.md]``

It measures, in one run:

* the compile time (trace + lower + XLA compile, a fresh function each time) of
  :func:`jaxpurity.collect` at ``n=10`` and ``n=10000``: the ratio should stay
  within 1.5x, since the scan body is traced once whatever ``n`` is. The
  Python loop ``jnp.stack([fn(i) for i in range(n)])`` is timed beside it at a
  smaller ``n``, for contrast;
* the run time of each drop-in (``cond``, ``switch``, ``fori_loop``,
  ``while_loop``, ``scan``) against its ``jax.lax`` twin, both jitted and
  warmed up, in interleaved repeats: the ratio should stay within 5%, since
  the compiled programs are the same;
* the trace-and-lower time of each pair (paid once per compilation, never per
  call): the ratio should stay within 1.10, since the drop-ins hand lax the
  user's own functions and trace nothing more while the types agree (only an
  error is analysed with a second trace).

Every figure is a median over the repeats, except trace + lower: its samples
take milliseconds, and on a shared machine other work stretches some of them
to several times the rest, which moves even a median by tens of percent. So it
takes ten times as many samples and reports the fastest tenth of each (the
10th percentile), as ``timeit`` advises the minimum: contention only ever adds
time. The table is printed, and written to ``--out`` when given.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # the checkout's jaxpurity
import jaxpurity  # noqa: E402


def _compile_seconds(make: Callable[[], Callable[[], Any]]) -> float:
    """Trace, lower and compile a fresh function (so no cache is hit)."""
    start = time.perf_counter()
    jax.jit(make()).lower().compile()
    return time.perf_counter() - start


def _collect_program(n: int) -> Callable[[], Callable[[], Any]]:
    def make() -> Callable[[], Any]:
        def row(i: jax.Array) -> jax.Array:
            return jnp.sin(jnp.arange(8.0) * i) @ jnp.ones((8, 4))

        return lambda: jaxpurity.collect(row, n)

    return make


def _stack_program(n: int) -> Callable[[], Callable[[], Any]]:
    def make() -> Callable[[], Any]:
        def row(i: int) -> jax.Array:
            return jnp.sin(jnp.arange(8.0) * i) @ jnp.ones((8, 4))

        return lambda: jnp.stack([row(i) for i in range(n)])

    return make


def _programs(api: Any) -> dict[str, tuple[Callable[..., Any], tuple]]:
    """The same five programs written with ``api`` (jaxpurity or lax), with their inputs."""
    m = jnp.linspace(-1.0, 1.0, 256 * 256).reshape(256, 256)
    w = jnp.linspace(-0.1, 0.1, 64 * 64).reshape(64, 64)
    v = jnp.linspace(-1.0, 1.0, 64)
    xs = jnp.linspace(-1.0, 1.0, 300 * 64).reshape(300, 64)

    def step(c: jax.Array) -> jax.Array:
        return jnp.tanh(c @ w + 0.1)

    branches = [lambda a: jnp.sin(a) @ a, lambda a: jnp.cos(a) @ a, lambda a: a @ a]
    return {
        "cond": (lambda a: api.cond(a.sum() > 0, branches[0], branches[1], a), (m,)),
        "switch": (lambda i, a: api.switch(i, branches, a), (jnp.int32(2), m)),
        "fori_loop": (lambda c: api.fori_loop(0, 300, lambda i, c: step(c), c), (v,)),
        "while_loop": (
            lambda c: api.while_loop(
                lambda s: s[0] < 300, lambda s: (s[0] + 1, step(s[1])), (0, c)
            ),
            (v,),
        ),
        "scan": (lambda c, xs: api.scan(lambda c, x: (step(c) + x, c.sum()), c, xs), (v, xs)),
    }


def _seconds_per_call(fn: Callable[..., Any], args: tuple, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        out = fn(*args)
    jax.block_until_ready(out)
    return (time.perf_counter() - start) / calls


def _fastest_tenth(samples: list[float]) -> float:
    """The 10th percentile of ``samples``: what a sample costs when nothing else intrudes."""
    return sorted(samples)[len(samples) // 10]


def _interleaved(
    ours: Callable[[], float],
    theirs: Callable[[], float],
    repeats: int,
    summary: Callable[[list[float]], float] = statistics.median,
) -> tuple[float, float]:
    """``summary`` (the median) of ``repeats`` samples of each, taken in alternating order."""
    a, b = [], []
    for r in range(repeats):
        if r % 2:
            b.append(theirs())
            a.append(ours())
        else:
            a.append(ours())
            b.append(theirs())
    return summary(a), summary(b)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"


def measure(repeats: int) -> list[tuple[str, str, str, float, str]]:
    """Rows of (measurement, measured figure, baseline figure, ratio, target)."""
    rows = []
    big, small = _interleaved(
        lambda: _compile_seconds(_collect_program(10_000)),
        lambda: _compile_seconds(_collect_program(10)),
        repeats,
    )
    rows.append(
        (
            "jaxpurity.collect compile time, n=10000 vs n=10",
            _ms(big),
            _ms(small),
            big / small,
            "<= 1.5",
        )
    )
    loop_n = 200
    loop_big, loop_small = _interleaved(
        lambda: _compile_seconds(_stack_program(loop_n)),
        lambda: _compile_seconds(_stack_program(10)),
        max(3, repeats // 2),
    )
    rows.append(
        (
            f"(contrast) Python loop + jnp.stack compile, n={loop_n} vs n=10",
            _ms(loop_big),
            _ms(loop_small),
            loop_big / loop_small,
            "grows with n",
        )
    )

    ours_programs, lax_programs = _programs(jaxpurity), _programs(lax)
    for name, (ours_fn, args) in ours_programs.items():
        lax_fn = lax_programs[name][0]
        ours_jit, lax_jit = jax.jit(ours_fn), jax.jit(lax_fn)
        jax.block_until_ready((ours_jit(*args), lax_jit(*args)))  # compile and warm up
        once = _seconds_per_call(lax_jit, args, 3)
        calls = max(3, int(0.02 / max(once, 1e-6)))  # about 20 ms per sample
        run_ours, run_lax = _interleaved(
            lambda f=ours_jit, a=args, k=calls: _seconds_per_call(f, a, k),
            lambda f=lax_jit, a=args, k=calls: _seconds_per_call(f, a, k),
            repeats * 3,
        )
        rows.append(
            (
                f"jaxpurity.{name} vs lax.{name}: run time (jit)",
                _ms(run_ours),
                _ms(run_lax),
                run_ours / run_lax,
                "<= 1.05",
            )
        )
        trace_ours, trace_lax = _interleaved(
            lambda f=ours_fn, a=args: _lower_seconds(f, a),
            lambda f=lax_fn, a=args: _lower_seconds(f, a),
            repeats * 10,
            _fastest_tenth,
        )
        rows.append(
            (
                f"jaxpurity.{name} vs lax.{name}: trace + lower (once per compile, fastest tenth)",
                _ms(trace_ours),
                _ms(trace_lax),
                trace_ours / trace_lax,
                "<= 1.10",
            )
        )
    return rows


def _lower_seconds(fn: Callable[..., Any], args: tuple) -> float:
    fresh = lambda *a: fn(*a)  # noqa: E731  (a new function: no trace cache hit)
    start = time.perf_counter()
    jax.jit(fresh).lower(*args)
    return time.perf_counter() - start


def table(rows: list[tuple[str, str, str, float, str]]) -> str:
    device = jax.devices()[0]
    lines = [
        f"JAX {jax.__version__} on {device.platform} ({device.device_kind}), "
        f"{os.cpu_count()} CPU cores; medians of interleaved repeats (trace + lower: the "
        "fastest tenth).",
        "",
        "| measurement | measured | baseline | ratio | target |",
        "| --- | --- | --- | --- | --- |",
    ]
    lines += [f"| {m} | {a} | {b} | {r:.2f} | {t} |" for m, a, b, r, t in rows]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="also write the markdown table to this path")
    parser.add_argument("--repeats", type=int, default=5, help="samples per figure (default 5)")
    args = parser.parse_args()
    start = time.perf_counter()
    text = table(measure(args.repeats))
    print(text)
    print(f"(took {time.perf_counter() - start:.0f} s)")
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
