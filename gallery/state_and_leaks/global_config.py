"""
I changed a global setting and my jitted function ignored it
============================================================

A function compiled with :func:`jax.jit` reads a module-level setting (a
scale factor, a mode flag). You change the setting, call the function again,
and get the old behaviour; JAX raises nothing at all. Then an input of a new
shape or dtype picks up the new setting while the old shape keeps the old
one, so the same function gives inconsistent results in one program. This
page shows why, why wrapping the function in :func:`jax.jit` again does not
help, and the fixes: pass the setting as an argument (traced or static), or
clear the function's cache when the setting changes.
"""

# %%
# The code people write
# ---------------------
#
# A module-level constant and a flag, read by a jitted function. Both look
# like configuration: set once, maybe changed by a command-line option or a
# notebook cell.

import functools
import re

import jax
import jax.numpy as jnp

import jaxpurity

SCALE = 2.0
MODE = "cap"


def postprocess(x):
    y = x * SCALE
    if MODE == "cap":
        y = jnp.minimum(y, 1.0)
    return y


fast_postprocess = jax.jit(postprocess)

x = jnp.array([0.25, 0.75])
before = fast_postprocess(x).tolist()
before_scalar = float(fast_postprocess(jnp.float32(0.25)))
print("before:", before, "| float32 scalar:", before_scalar)
assert before == [0.5, 1.0] and before_scalar == 0.5, (before, before_scalar)

# %%
# What JAX does: raises nothing, keeps the old settings
# -----------------------------------------------------
#
# A notebook cell turns the cap off and lowers the scale. Plain Python
# would now return ``x * 0.5``. The output shows what the jitted function
# returns for the same input.

SCALE = 0.5
MODE = "none"
stale = fast_postprocess(x).tolist()
print("after the change:", stale, "| eager Python gives:", postprocess(x).tolist())
assert stale == [0.5, 1.0], stale
assert postprocess(x).tolist() == [0.125, 0.375]

# %%
# A new shape or dtype sees the new settings
# ------------------------------------------
#
# An input of another length, or another dtype, makes JAX trace the function
# again, and this new trace reads the new values. The old shape keeps the
# old program. One function, one program run, two behaviours:

three = fast_postprocess(jnp.array([0.25, 0.75, 4.0])).tolist()
halves = fast_postprocess(jnp.array([0.25, 0.75], jnp.float16)).tolist()
two = fast_postprocess(x).tolist()
print("length 3:", three)
print("float16: ", halves)
print("length 2:", two)
assert three == [0.125, 0.375, 2.0], three
assert halves == [0.125, 0.375], halves
assert two == [0.5, 1.0], two

# %%
# Even the same number can get two answers. A Python float is *weakly
# typed*, which :func:`jax.jit` treats as a different signature from a
# float32 scalar, so the Python float gets a trace of its own, made now,
# while the float32 scalar reuses the trace made before the change.

from_python = float(fast_postprocess(0.25))
from_array = float(fast_postprocess(jnp.float32(0.25)))
print("python float 0.25:", from_python, "| float32 scalar 0.25:", from_array)
assert from_python == 0.125 and from_array == 0.5, (from_python, from_array)

# %%
# Why
# ---
#
# :func:`jax.jit` runs the Python body only when it traces, once per new
# input signature: the shapes, dtypes and weak types of the arguments, and
# the values of static arguments. Reading ``SCALE`` during that trace puts
# its current value into the program as a constant; the ``if MODE == ...``
# runs in Python and decides which operations get recorded. A module global
# is not part of the signature, so changing it does not cause a new trace,
# and every cached program keeps the value it saw. The jaxpr of the float32
# scalar trace, printed below, contains the old scale and the cap.

jaxpr_text = str(jax.make_jaxpr(fast_postprocess)(jnp.float32(0.25)))
print(jaxpr_text)
assert re.search(r"mul \w+ 2\.0", jaxpr_text) and "min" in jaxpr_text, jaxpr_text

# %%
# Wrapping the function again does not help
# -----------------------------------------
#
# A tempting fix is a fresh ``jax.jit(postprocess)``. JAX's trace cache is
# keyed on the Python function, not on the wrapper, so the new wrapper
# reuses the old traces and gives the same stale result for ``x``.

rewrapped = jax.jit(postprocess)(x).tolist()
print("fresh jax.jit(postprocess):", rewrapped)
assert rewrapped == [0.5, 1.0], rewrapped

# %%
# Fix 1: pass the settings as arguments
# -------------------------------------
#
# A number that may change should be an ordinary argument: JAX traces it like
# any input, so one compiled program serves every scale. A setting that
# changes *which operations run*, like ``mode``, must be a static argument
# (``static_argnames``): JAX traces once per value, keeps one program per
# value, and picks the right one on every call. Static values must be
# hashable, such as strings, ints and tuples; :doc:`../control_flow/static_arguments`
# covers them in depth.


@functools.partial(jax.jit, static_argnames="mode")
def postprocess_fixed(x, scale, mode):
    y = x * scale
    if mode == "cap":
        y = jnp.minimum(y, 1.0)
    return y


# %%
# The fixed output
# ----------------
#
# Every call gives what its arguments say, whichever shapes were traced
# before.

calls = [(2.0, "cap"), (0.5, "none"), (4.0, "none"), (2.0, "cap")]
outputs = []
for scale, mode in calls:
    outputs.append(postprocess_fixed(x, scale, mode=mode).tolist())
    print(f"scale={scale}, mode={mode!r}: {outputs[-1]}")
assert outputs == [[0.5, 1.0], [0.125, 0.375], [1.0, 3.0], [0.5, 1.0]], outputs

# %%
# Fix 2: if it must stay global, clear the cache when it changes
# --------------------------------------------------------------
#
# When a setting really is global and changes rarely, drop the cached traces
# right after changing it, with the jitted function's ``clear_cache()``
# method (or :func:`jax.clear_caches` for every function). The next call
# traces again and reads the new values, and agrees with eager Python.

SCALE = 4.0
MODE = "cap"
fast_postprocess.clear_cache()
refreshed = fast_postprocess(x).tolist()
print("after clear_cache:", refreshed, "| eager Python gives:", postprocess(x).tolist())
assert refreshed == postprocess(x).tolist() == [1.0, 1.0], refreshed

# %%
# With jaxpurity: check_pure finds the stale result
# -------------------------------------------------
#
# Reading a global is not wrong at any single moment; it goes wrong when the
# global changes after the function was traced. So check the *jitted*
# function at such a moment. :func:`jaxpurity.check_pure` calls it as it
# is, so that its cache answers, and compares that answer with what a fresh
# trace computes now. Here the scale changes once more, without clearing the
# cache. The report finds the stale result (``stale-result``), and gives
# both answers: the program that jit compiled earlier answers with the
# settings it read when it was traced, while a fresh trace now uses the new
# scale. The warnings name the two globals it read.

SCALE = 1.0
report = jaxpurity.check_pure(fast_postprocess, x)
print(report)
read_at_trace_time = [warning.kind for warning in report.warnings]
assert "stale-result" in [problem.kind for problem in report.problems], report
assert read_at_trace_time == ["trace-time-read"] * 2, report

# %%
# The check can only see a result that is stale when it runs, so run it
# where settings change (for example in a test that changes them). The fixed
# function has no hidden input to go stale, and passes:

fixed_report = jaxpurity.check_pure(postprocess_fixed, x, 0.5, mode="none")
print(fixed_report)
assert fixed_report.ok, fixed_report

# %%
# What the fixed function costs is countable. :func:`jaxpurity.count_traces`
# wraps the jitted ``postprocess_fixed`` and counts the calls that had to
# trace: one per ``mode``, none for a new ``scale``.

counted = jaxpurity.count_traces(postprocess_fixed)
postprocess_fixed.clear_cache()
for scale, mode in calls:
    counted(x, scale, mode=mode)
print("calls:", len(calls), "| traces:", counted.traces)
assert counted.traces == 2, counted.traces
