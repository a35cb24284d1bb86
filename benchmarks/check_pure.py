"""What check_pure costs, as a ratio to one jax.jit compile-and-run of the same function.

The function is a training step of a 32-layer MLP (SGD on a mean squared error), the kind of
function people check. Both are measured side by side in one run, on fresh function objects
(so that JAX's caches do not answer for either), the median of a few repeats:

    python benchmarks/check_pure.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import jaxpurity  # noqa: E402

LAYERS, WIDTH, BATCH, REPEATS = 32, 128, 64, 5


def make_step():
    """A fresh training step (a new function object each time: no cache answers for it)."""

    def loss(params, x, y):
        for w, b in params:
            x = jnp.tanh(x @ w + b)
        return jnp.mean((x - y) ** 2)

    def step(params, x, y):
        grads = jax.grad(loss)(params, x, y)
        return [
            (w - 0.01 * gw, b - 0.01 * gb) for (w, b), (gw, gb) in zip(params, grads, strict=True)
        ]

    return step


def inputs():
    keys = jax.random.split(jax.random.key(0), LAYERS + 2)
    params = [
        (jax.random.normal(k, (WIDTH, WIDTH)) / WIDTH**0.5, jnp.zeros(WIDTH)) for k in keys[:-2]
    ]
    x = jax.random.normal(keys[-2], (BATCH, WIDTH))
    y = jax.random.normal(keys[-1], (BATCH, WIDTH))
    return params, x, y


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> int:
    params, x, y = inputs()
    jit_times, check_times = [], []
    for _ in range(REPEATS):
        jit_times.append(timed(lambda: jax.block_until_ready(jax.jit(make_step())(params, x, y))))
        check_times.append(timed(lambda: jaxpurity.check_pure(make_step(), params, x, y)))
    report = jaxpurity.check_pure(make_step(), params, x, y)
    jit_s, check_s = statistics.median(jit_times), statistics.median(check_times)
    print(f"{LAYERS}-layer MLP training step, width {WIDTH}, batch {BATCH}, JAX {jax.__version__}")
    print(f"one jax.jit compile-and-run: {jit_s:.2f} s (median of {REPEATS})")
    print(f"check_pure:                  {check_s:.2f} s (median of {REPEATS})")
    print(
        f"ratio: {check_s / jit_s:.2f}; the body ran {report.traces} times traced and "
        f"{report.runs} time(s) eagerly; report ok: {report.ok}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
