"""
My jitted function misbehaves and I don't know where to look
============================================================

A function under :func:`jax.jit` gives a stale value, runs slowly because it
compiles again and again, ``print`` shows a tracer instead of a number, or a
saved value later raises :class:`jax.errors.UnexpectedTracerError`. This page
turns the usual checklist into five runnable steps: count the traces (and
ask JAX why it traced again), read what JAX recorded with
:func:`jax.make_jaxpr`, print run-time values with :func:`jax.debug.print`,
step through the function eagerly with :func:`jax.disable_jit`, and catch a
leaked tracer where it escapes, as a ``Leaked trace`` error from the leak
checker (``JAX_CHECK_TRACER_LEAKS`` or ``jax_check_tracer_leaks``).
"""

# %%
# Step 1: count the traces
# ------------------------
#
# Python code in a jitted function runs only while JAX traces it, once per
# new input signature (shape, dtype, weak type, static arguments). A plain
# Python counter in the body therefore counts traces, not calls. Many
# "stale value" and "slow" bugs are a trace count that is lower or higher
# than you thought.

import io
import logging
import os
import types

import jax
import jax.numpy as jnp
import numpy as np

import jaxpurity

traces = 0


@jax.jit
def double(x):
    global traces
    traces += 1
    return x * 2


inputs = {
    "Python float 1.0": 1.0,
    "Python float 2.0": 2.0,
    "jnp.float32(1.0)": jnp.float32(1.0),
    "jnp.ones(3)": jnp.ones(3),
    "np.ones(3, float32)": np.ones(3, np.float32),
    "jnp.ones(3, int32)": jnp.ones(3, jnp.int32),
}
trace_counts = {}
for label, value in inputs.items():
    double(value)
    trace_counts[label] = traces
    print(f"{label:<20} traces so far: {traces}")
assert list(trace_counts.values()) == [1, 1, 2, 3, 3, 4], trace_counts

# %%
# The second Python float reused the first trace, but ``jnp.float32(1.0)``
# did not: a Python float is *weakly typed*, a different signature from a
# ``float32`` array. A NumPy array of the same shape and dtype reused the
# trace of ``jnp.ones(3)``.
#
# To learn *why* a call traced again, turn on ``jax_explain_cache_misses``.
# JAX logs the reason through :mod:`logging`; the page collects the log and
# shortens its paths with :func:`jaxpurity.clean_paths`.

log = io.StringIO()
handler = logging.StreamHandler(log)
jax_logger = logging.getLogger("jax")
jax_logger.addHandler(handler)
jax_logger.propagate = False  # Only to the page, not to the terminal too.
longer = jnp.ones(4)
jax.config.update("jax_explain_cache_misses", True)
double(longer)
jax.config.update("jax_explain_cache_misses", False)
jax_logger.removeHandler(handler)
jax_logger.propagate = True
print(jaxpurity.clean_paths(log.getvalue()))
assert "f32[4]" in log.getvalue(), log.getvalue()
assert traces == 5, traces

# %%
# Step 2: read what JAX recorded with jax.make_jaxpr
# --------------------------------------------------
#
# :func:`jax.make_jaxpr` prints the program that tracing produced. Python
# decisions do not appear in it: here the ``if`` on a Python setting was
# decided while tracing, and the setting became the constant ``0.5``.

threshold = 0.5


def clip_small(x):
    if threshold > 0:
        x = x * (jnp.abs(x) >= threshold)
    return x


jaxpr_text = str(jax.make_jaxpr(clip_small)(jnp.ones(3)))
print(jaxpr_text)
assert "ge" in jaxpr_text and "0.5" in jaxpr_text, jaxpr_text
print(clip_small(jnp.array([0.25, -2.0])).tolist())
assert clip_small(jnp.array([0.25, -2.0])).tolist() == [0.0, -2.0]

# %%
# Step 3: print at run time with jax.debug.print
# ----------------------------------------------
#
# ``print`` inside a jitted function runs while tracing and shows a tracer;
# :func:`jax.debug.print` is recorded into the program and prints the real
# value on every call. Three calls with the same signature show the
# difference; :func:`jaxpurity.printed` collects what they print (waiting
# for ``jax.debug.print``, which prints as the program runs) so that the
# page can count the lines.


@jax.jit
def loss(x):
    print("print:", x)
    jax.debug.print("jax.debug.print: {}", x)
    return x**2


with jaxpurity.printed() as out:
    for v in [1.0, 2.0, 3.0]:
        loss(jnp.float32(v))
assert sum(line.startswith("print:") for line in out.lines) == 1, out.lines
assert sum(line.startswith("jax.debug.print:") for line in out.lines) == 3, out.lines

# %%
# Step 4: step through eagerly with jax.disable_jit
# -------------------------------------------------
#
# Inside :func:`jax.disable_jit` a jitted function runs op by op, like plain
# NumPy code. ``print`` shows values, and ``breakpoint()`` placed in the body
# would stop there with real arrays to inspect (under ``jit``, use
# :func:`jax.debug.breakpoint` instead). The page prints rather than stops.


@jax.jit
def normalize(x):
    total = x.sum()
    print("total:", total, "| is a tracer:", isinstance(total, jax.core.Tracer))
    return x / total


with jax.disable_jit(), jaxpurity.printed(echo=False) as eager:
    normalize(jnp.array([1.0, 3.0]))
with jaxpurity.printed(echo=False) as traced:
    normalize(jnp.array([1.0, 3.0]))
print("under disable_jit ->", eager.text.strip())
print("under jit         ->", traced.text.strip())
assert eager.text == "total: 4.0 | is a tracer: False\n", eager.text
assert "is a tracer: True" in traced.text, traced.text

# %%
# Step 5: catch a leaked tracer with the leak checker
# ---------------------------------------------------
#
# A tracer saved outside the function (a global list, an attribute) raises
# :class:`~jax.errors.UnexpectedTracerError` only when it is used later. The
# leak checker raises at the end of the trace that leaked it instead. Here a
# ``metrics`` module of the project (built in place) collects values.
#
# The ``JAX_CHECK_TRACER_LEAKS`` environment variable is read when JAX is
# imported. Set after ``import jax``, it changes nothing, as the output shows:

os.environ["JAX_CHECK_TRACER_LEAKS"] = "1"
print("flag after setting the variable late:", jax.config.jax_check_tracer_leaks)
assert jax.config.jax_check_tracer_leaks is False
del os.environ["JAX_CHECK_TRACER_LEAKS"]

# %%
# In a running session, flip the flag with ``jax.config.update`` and put
# the old value back afterwards (:obj:`jax.checking_leaks` does both for one
# ``with`` block). The checker raises a bare :class:`Exception` whose message
# starts with ``Leaked trace`` and ends each chain of references at the
# holder to fix, here ``metrics.seen``.

metrics = types.ModuleType("metrics")
metrics.seen = []


@jax.jit
def record(x):
    metrics.seen.append(x * 2)
    return x


previous = jax.config.jax_check_tracer_leaks
jax.config.update("jax_check_tracer_leaks", True)
with jaxpurity.raises(Exception, match="Leaked trace") as info:
    record(jnp.float32(1.0))
jax.config.update("jax_check_tracer_leaks", previous)
metrics.seen.clear()
print("flag restored to:", jax.config.jax_check_tracer_leaks)
assert "metrics.seen" in str(info.value), info.value
assert jax.config.jax_check_tracer_leaks is previous

# %%
# Or let jaxpurity run the checks
# -------------------------------
#
# :func:`jaxpurity.check_pure` covers much of this checklist in one call: it
# traces and runs a function, and reports globals it changes while tracing,
# ``print`` calls that run only while tracing, leaked tracers, and results
# that go stale or differ between jit and eager runs. Each function from the
# steps above that has such a problem gets flagged with it.
# :doc:`let_jaxpurity_find_it` shows the reports in full, and the fixes
# that pass.

for fn, arg, kind in [
    (double, jnp.ones(3), "global-assignment"),
    (loss, jnp.float32(1.0), "trace-time-print"),
    (normalize, jnp.array([1.0, 3.0]), "trace-time-print"),
    (record, jnp.float32(1.0), "leaked-tracer"),
]:
    report = jaxpurity.check_pure(fn, arg)
    print(f"{report.function}: {[problem.kind for problem in report.problems]}")
    assert kind in [problem.kind for problem in report.problems], report
metrics.seen.clear()

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {}  # a workflow: each fix it points to is declared on its own page
# sphinx_gallery_end_ignore
