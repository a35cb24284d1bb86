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
# Under :func:`jax.vmap`, keep the setting static there too. ``vmap`` maps
# over every argument it is given, keywords included, and a string is no
# array (:doc:`../control_flow/static_arguments` shows the error). Bind the
# setting first, with :func:`functools.partial`, and map over the data only:

rows, scales = jnp.stack([x, 2 * x]), jnp.array([2.0, 0.5])
capped = jax.vmap(functools.partial(postprocess_fixed, mode="cap"))(rows, scales)
print("vmap, mode bound first:", capped.tolist())
assert capped.tolist() == [[0.5, 1.0], [0.25, 0.75]], capped

# %%
# Fix 2: if it must stay global, clear every cache when it changes
# ----------------------------------------------------------------
#
# When a setting really is global and changes rarely, drop the cached
# programs right after changing it. A jitted function's ``clear_cache()``
# method is not enough: it empties that function's cache only, and a jitted
# function that *calls* it keeps its own program, with the old setting
# inside. Here ``pipeline`` calls ``fast_postprocess``; both are traced
# with the settings of the cell above, then the scale changes:


@jax.jit
def pipeline(x):
    return fast_postprocess(x).sum()


fast_postprocess.clear_cache()
before_change = float(pipeline(x))
SCALE = 4.0
fast_postprocess.clear_cache()
print("fast_postprocess:", fast_postprocess(x).tolist(), "| pipeline:", float(pipeline(x)))
assert fast_postprocess(x).tolist() == [1.0, 3.0], fast_postprocess(x)
assert float(pipeline(x)) == before_change == 0.5, pipeline(x)

# %%
# :func:`jax.clear_caches` empties every cache, and the next call of each
# function traces again with the new values:

jax.clear_caches()
print("after jax.clear_caches:", float(pipeline(x)), "| eager Python gives:", 1.0 + 3.0)
assert float(pipeline(x)) == float(postprocess(x).sum()) == 4.0, pipeline(x)

# %%
# Every program is compiled again after it, so keep it for settings that
# change rarely; a setting that changes between calls is an argument
# (fix 1). Fix 2 keeps the globals, so :func:`jaxpurity.check_pure` still
# warns that the function reads ``SCALE`` and ``MODE`` when it is traced
# (``trace-time-read``): the fix clears the programs that read them, and
# the reads stay.
#
# With jaxpurity: check_pure finds the stale result
# -------------------------------------------------
#
# Reading a global is not wrong at any single moment; it goes wrong when the
# global changes after the function was traced. So check the *jitted*
# function at such a moment. :func:`jaxpurity.check_pure` calls it as it
# is, so that its cache answers, and compares that answer with what a fresh
# trace computes now. Here the scale changes once more, without clearing the
# cache, and the report names the stale result (``stale-result``) with both
# answers: the program that jit compiled earlier, with the settings it read
# when it was traced, and a fresh trace, with the new scale. (Its advice to
# call ``clear_cache()`` reaches this function only: a jitted caller needs
# :func:`jax.clear_caches`, as fix 2 showed.)

fast_postprocess(x)
SCALE = 1.0
report = jaxpurity.check_pure(fast_postprocess, x)
stale = [problem for problem in report.problems if problem.kind == "stale-result"]
print(stale[0])
assert stale and "clear_cache()" in str(stale[0]), report

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.


def _change_then(clear):
    """The scale changes, then ``clear`` runs: what fix 2 does."""

    def change():
        global SCALE
        SCALE += 1.0
        clear()

    return change


FIXES = {
    "postprocess_fixed": {"args": (x, 0.5), "static": {"mode": "cap"}},
    "fast_postprocess": {
        "args": (x,),
        "change": _change_then(jax.clear_caches),
        "check_pure": {"trace-time-read": "Fix 2 keeps the globals"},
    },
    "clear_cache_only": {
        "fn": fast_postprocess,
        "check_pure": {"trace-time-read": "Fix 2 keeps the globals"},
        "args": (x,),
        "change": _change_then(fast_postprocess.clear_cache),
        "breaks": {
            "jit": ("differs", "", "fast_postprocess"),
            "nested": ("differs", "", "fast_postprocess"),
        },
    },
    "pipeline": "shows what clear_cache() misses",
}
# sphinx_gallery_end_ignore
