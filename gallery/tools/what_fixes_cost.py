"""
Do the fixes make my code slower?
=================================

The fixes on this site replace Python loops with :func:`jax.lax.scan` or
:func:`jaxpurity.collect` and :func:`jax.lax.cond` with :func:`jaxpurity.cond`, and add a
:func:`jaxpurity.check_pure` while you debug. This page measures what each costs, side by
side with the code it replaces, in the same run: the compile and run time of a loop, the
drop-ins against :mod:`jax.lax`, and one check against one :func:`jax.jit` compile-and-run.
The plot and tables show this build's numbers; the prose claims only ratios, since the
seconds depend on the machine.
"""

# %%
# How the timings are taken
# -------------------------
#
# A timing on a busy machine is the true cost plus whatever else the machine was doing,
# so each figure is the fastest of a few repeats (more while the fastest still drops),
# and the things compared are timed in turns, so that a slow moment hits both. Each
# compile uses a new function object: JAX caches compiled programs by function.

import re
import time

import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
from jax import lax

import jaxpurity


def seconds(run):
    """How long one call of ``run()`` takes, waiting for JAX to finish."""
    start = time.perf_counter()
    jax.block_until_ready(run())
    return time.perf_counter() - start


def fastest_in_turns(runs, repeats=3):
    """Each of ``runs``' fastest time, in turns: ``repeats`` rounds, more while one drops 5%."""
    fastest = [float("inf")] * len(runs)
    for round_ in range(4 * repeats):
        times = [seconds(run) for run in runs]
        dropped = any(t < 0.95 * f for t, f in zip(times, fastest, strict=True))
        fastest = [min(t, f) for t, f in zip(times, fastest, strict=True)]
        if round_ >= repeats - 1 and not dropped:
            break
    return fastest


def batch(fn, args):
    return [fn(*args) for _ in range(20)]


# %%
# Compile time: an unrolled loop against scan and collect
# -------------------------------------------------------
#
# A Python ``for`` loop under :func:`jax.jit` is unrolled: JAX traces the
# body once per step, and XLA compiles a program with one copy of it per
# step (see :doc:`../control_flow/python_control_flow`). :func:`jax.lax.scan`
# and :func:`jaxpurity.collect` trace the body once and compile a loop. Here
# are the three ways to compute the same rows ``sin(x * i) @ w`` for
# ``i = 0, ..., n - 1``, for a trip count ``n`` known when tracing, and a
# fourth in between: ``scan`` with ``unroll=8``, whose loop holds 8 copies of
# the body and runs ``n / 8`` steps.

x = jnp.linspace(0.0, 1.0, 8)
w = jnp.linspace(-1.0, 1.0, 32).reshape(8, 4)


def unrolled(n):
    def rows(x, w):
        return jnp.stack([jnp.sin(x * i) @ w for i in range(n)])

    return rows


def scanned(n, unroll=1):
    def rows(x, w):
        return lax.scan(
            lambda _, i: (None, jnp.sin(x * i) @ w), None, jnp.arange(n), unroll=unroll
        )[1]

    return rows


def collected(n):
    def rows(x, w):
        return jaxpurity.collect(lambda i: jnp.sin(x * i) @ w, n)

    return rows


UNROLLED, UNROLL = "Python loop (unrolled)", "lax.scan(unroll=8)"
programs = {UNROLLED: unrolled, "lax.scan": scanned, "jaxpurity.collect": collected}
programs[UNROLL] = lambda n: scanned(n, unroll=8)
for make in programs.values():
    assert jnp.allclose(jax.jit(make(8))(x, w), unrolled(8)(x, w), atol=1e-5)

# %%
# They agree on the values. Now the compile time (tracing, lowering and
# XLA's compile, for a fresh function each time) at three trip counts:

trip_counts = [2, 8, 32]
for make in programs.values():  # the first compile of each kind pays one-off costs: not timed
    jax.jit(make(1)).lower(x, w).compile()
compile_ms = {label: [] for label in programs}
for n in trip_counts:
    runs = [lambda m=make, n=n: jax.jit(m(n)).lower(x, w).compile() for make in programs.values()]
    for label, taken in zip(programs, fastest_in_turns(runs), strict=True):
        compile_ms[label].append(1e3 * taken)
print(f"{'compile time at n =':<24}" + "".join(f"{n:>8}" for n in trip_counts))
for label, ms in compile_ms.items():
    print(f"{label:<24}" + "".join(f"{t:>5.0f} ms" for t in ms))

# %%
# The plot shows the same table. The unrolled loop's compile time grows
# with the trip count; ``scan`` and ``collect`` compile in about the same
# time whatever it is, since their program holds one copy of the body.

fig, ax = plt.subplots(figsize=(6, 3.4), layout="constrained")
for (label, ms), marker in zip(compile_ms.items(), "os^D", strict=True):
    ax.plot(trip_counts, ms, marker=marker, label=label)
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xticks(trip_counts, [str(n) for n in trip_counts])
ax.set_xlabel("trip count n")
ax.set_ylabel("compile time (ms, this build)")
ax.set_title("Compile time against trip count")
ax.legend()
plt.show()

# %%
# Why: the program XLA compiles. The unrolled loop's holds one ``sine`` per step, so it
# grows with the trip count; ``scan``'s and ``collect``'s hold one, whatever it is.

sines = {
    label: [jax.jit(make(n)).lower(x, w).as_text().count("stablehlo.sine") for n in trip_counts]
    for label, make in programs.items()
    if label != UNROLL
}
for label, counts in sines.items():
    print(f"{label:<24} sine ops at n = {trip_counts}: {counts}")
assert sines[UNROLLED] == trip_counts, sines
assert sines["lax.scan"] == sines["jaxpurity.collect"] == [1] * len(trip_counts), sines

# %%
# The times, as ratios measured side by side in this run (each column timed in turns, so
# a busy machine slows all four alike). At the largest trip count the unrolled loop
# compiles slowest, and ``unroll=8`` slower than ``scan``, for its copies; the unrolled
# loop's time grows most from the smallest trip count. How much depends on the machine
# and how busy it is, so the page asserts only the order.

growth = {label: ms[-1] / ms[0] for label, ms in compile_ms.items()}
for label, ratio in growth.items():
    print(f"{label:<24} compile time x{ratio:.1f} from n={trip_counts[0]} to n={trip_counts[-1]}")
slowest = max(programs, key=lambda label: compile_ms[label][-1])
print("slowest to compile at n =", trip_counts[-1], "->", slowest)
assert slowest == UNROLLED and compile_ms["lax.scan"][-1] < compile_ms[UNROLL][-1], compile_ms
assert growth[UNROLLED] > max(growth["lax.scan"], growth["jaxpurity.collect"]), growth

# %%
# Run time: the loop against straight-line code
# ---------------------------------------------
#
# Compiling is paid once, running on every call. A loop pays a little on each step (a
# counter, a test; XLA optimises one step at a time) that straight-line code does not;
# ``unroll=8`` pays it on an eighth of the steps. Against the unrolled loop at the largest
# trip count (20 calls, in turns), no loop takes twice its time on a CPU, as a call of a
# program this small is mostly calling. Whether ``unroll=`` pays depends on the backend
# and the body (an accelerator's loop steps can cost more): time it where your code runs.

warm = [jax.jit(make(trip_counts[-1])) for make in programs.values()]
runs = [lambda fn=fn: batch(fn, (x, w)) for fn in warm]
run_s = dict(zip(programs, fastest_in_turns(runs, repeats=5), strict=True))
for label, seconds_taken in run_s.items():
    print(f"{label:<24} run time x{seconds_taken / run_s[UNROLLED]:.2f}")
if jax.default_backend() == "cpu":
    assert all(run_s[label] < 2 * run_s[UNROLLED] for label in programs), run_s

# %%
# Trace, compile and run: the drop-ins against jax.lax
# ----------------------------------------------------
#
# :func:`jaxpurity.cond`, :func:`jaxpurity.fori_loop` and :func:`jaxpurity.scan` hand
# their arguments to :mod:`jax.lax` unchanged, and look at the types of the branches or
# of the loop carry only where lax rejects them, to name what differs. So the program
# JAX records is lax's own, and XLA compiles it to the same program. The same three
# programs, written with either module:

m = jnp.linspace(-1.0, 1.0, 64 * 64).reshape(64, 64)
v, xs = jnp.linspace(-1.0, 1.0, 64), jnp.linspace(-1.0, 1.0, 100 * 64).reshape(100, 64)


def programs_with(api):
    """Fresh functions each call: a compile they time is never a cache hit."""

    def step(c):
        return jnp.tanh(c @ m / 64 + 0.1)

    return {
        "cond": (lambda a: api.cond(a.sum() > 0, jnp.sin, jnp.cos, a), (m,)),
        "fori_loop": (lambda c: api.fori_loop(0, 100, lambda i, c: step(c), c), (v,)),
        "scan": (lambda c, xs: api.scan(lambda c, x: (step(c) + x, c.sum()), c, xs), (v, xs)),
    }


ours, theirs = programs_with(jaxpurity), programs_with(lax)


def compiled_program(fn, args):
    """XLA's optimised program, less the source lines it keeps for error messages."""
    text = re.sub(r", metadata=\{[^}]*\}", "", jax.jit(fn).lower(*args).compile().as_text())
    return [line for line in text.splitlines() if line.lstrip().startswith(("%", "ROOT", "}"))]


for name, (ours_fn, args) in ours.items():
    lax_fn = theirs[name][0]
    jaxpr = str(jax.make_jaxpr(ours_fn)(*args)) == str(jax.make_jaxpr(lax_fn)(*args))
    program = compiled_program(ours_fn, args) == compiled_program(lax_fn, args)
    print(f"jaxpurity.{name} and lax.{name}: same jaxpr {jaxpr}, same compiled program {program}")
    assert jaxpr and program, name

# %%
# So the run times are equal up to noise. What a drop-in adds is Python work while JAX
# traces, timed with :func:`jax.make_jaxpr`. A first call pays that trace, then lowering
# and XLA's compile; later calls only run. Each time is the fastest of a few, in turns with
# lax's, on fresh functions (so that no cache answers); a run is a batch of 20 warm calls.


def stage_runs(api, name):
    args = ours[name][1]
    compiled = jax.jit(programs_with(api)[name][0])
    batch(compiled, args)  # compiled and warm: the run column times calls only
    return {
        "trace": lambda: jax.make_jaxpr(programs_with(api)[name][0])(*args),
        "first call": lambda: jax.jit(programs_with(api)[name][0]).lower(*args).compile(),
        "run": lambda: batch(compiled, args),
    }


ratio, trace_share = {}, {}
for name in ours:
    ours_runs, lax_runs = stage_runs(jaxpurity, name), stage_runs(lax, name)
    for stage in ours_runs:
        ours_s, lax_s = fastest_in_turns([ours_runs[stage], lax_runs[stage]], repeats=5)
        ratio[name, stage] = ours_s / lax_s
        if stage == "trace":
            extra_s = ours_s - lax_s
        if stage == "first call":
            trace_share[name] = extra_s / lax_s
    print(
        f"jaxpurity.{name:<9} / lax: "
        + ", ".join(f"{stage} x{ratio[name, stage]:.2f}" for stage in ours_runs)
        + f"; the extra trace time is {100 * trace_share[name]:.1f}% of lax's first call"
    )

# %%
# The extra trace time is a small part of a first call, which is mostly lowering and XLA's
# compile. The run is lax's own program, so a run ratio away from 1 is noise (a build on a
# busy machine measured 2.5; first calls have ranged from 0.8 to 2.6): the page asserts
# that the programs are the same, and bounds the trace's share, not figures.

assert all(share < 0.1 for share in trace_share.values()), trace_share

# %%
# check_pure against one jit compile-and-run
# ------------------------------------------
#
# :func:`jaxpurity.check_pure` runs the function to see what it does: it traces it,
# compiles and runs it, runs it eagerly, and traces it again to compare. The function
# here is a training step of a small multilayer perceptron, the kind of function people
# check. Both the check and :func:`jax.jit` get a fresh step function each time.


def make_step():
    def loss(params, x, y):
        for w, b in params:
            x = jnp.tanh(x @ w + b)
        return jnp.mean((x - y) ** 2)

    def step(params, x, y):
        return jax.tree.map(lambda p, g: p - 0.01 * g, params, jax.grad(loss)(params, x, y))

    return step


keys = jax.random.split(jax.random.key(0), 6)
params = [(jax.random.normal(k, (32, 32)) / 32**0.5, jnp.zeros(32)) for k in keys[:4]]
batch_x, batch_y = jax.random.normal(keys[4], (16, 32)), jax.random.normal(keys[5], (16, 32))
inputs = (params, batch_x, batch_y)

report = jaxpurity.check_pure(make_step(), *inputs)
print(report)
assert report.ok, report

# %%
# The step is pure, so the report is clean. Now the cost:

jit_s, check_s, leaks_s = fastest_in_turns(
    [
        lambda: jax.jit(make_step())(*inputs),
        lambda: jaxpurity.check_pure(make_step(), *inputs),
        lambda: jaxpurity.find_leaks(make_step(), *inputs),
    ],
    repeats=2,
)
check_ratio, leaks_ratio = check_s / jit_s, leaks_s / jit_s
print(f"check_pure / one jax.jit compile-and-run: {check_ratio:.1f}")
print(f"find_leaks / one jax.jit compile-and-run: {leaks_ratio:.1f}")
print("the check traced the step", report.traces, "times and ran it eagerly", report.runs, "time")

# %%
# On a CPU a check costs a few compile-and-runs (it includes one): 2 to 3 by JAX version,
# 7 to 10 on 0.10.2, whose leak checker (on for the check's eager run) compiles each
# operation anew. An accelerator's eager run sends each operation to the device as a program
# of its own: 33 on a TPU v5e chip (JAX 0.10.2, 2026-12-05). Cheap once, while you debug,
# too much for every step of a training loop: check the function, then train with the plain
# :func:`jax.jit`. :func:`jaxpurity.find_leaks` traces once and runs nothing.

assert 1.0 < check_ratio < (20.0 if jax.default_backend() == "cpu" else 60.0), check_ratio
assert leaks_ratio < check_ratio, (leaks_ratio, check_ratio)

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {}  # it measures the drop-ins and lax, which the pages' fixes use
# sphinx_gallery_end_ignore
