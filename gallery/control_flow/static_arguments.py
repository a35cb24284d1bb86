"""
My shape, axis or flag argument breaks jit
==========================================

Configuration passed to a :func:`jax.jit` function as an ordinary argument
becomes a tracer, and then a size raises ``TypeError: Shapes must be 1D
sequences of concrete values``, an axis raises ``ConcretizationTypeError``
and an ``if flag:`` raises ``TracerBoolConversionError``. This page shows
each one, the fix (``static_argnames``), and the price of the fix: one new
trace for every new static value.
"""

# %%
# The code people write
# ---------------------
#
# A small reduction helper: sum along an axis, and optionally divide by the
# length of that axis to get a mean. ``axis`` and ``normalize`` are
# configuration, not data, but nothing tells :func:`jax.jit` so.

import functools

import jax
import jax.numpy as jnp

import jaxpurity


def summarize(x, axis, normalize):
    total = jnp.sum(x, axis=axis)
    if normalize:
        total = total / x.shape[axis]
    return total


x = jnp.arange(6.0).reshape(2, 3)
print("without jit:", summarize(x, axis=0, normalize=True).tolist())

# %%
# What JAX does: ``ConcretizationTypeError`` for a traced axis
# ------------------------------------------------------------
#
# Under ``jit`` every argument is replaced by a tracer that knows only its
# shape and dtype. ``jnp.sum`` needs the axis as a Python integer to know the
# shape of its result, and says so.

with jaxpurity.raises(jax.errors.ConcretizationTypeError, match=r"axis argument"):
    jax.jit(summarize)(x, 0, True)

# %%
# ``TracerBoolConversionError`` for a traced flag
# -----------------------------------------------
#
# Mark only the axis as static, and the next line fails instead: ``if
# normalize:`` asks Python for the truth value of a tracer. (The page
# :doc:`python_control_flow` covers this error when the condition really is
# data.)

with jaxpurity.raises(jax.errors.TracerBoolConversionError, match=r"boolean conversion"):
    jax.jit(summarize, static_argnames="axis")(x, axis=0, normalize=True)

# %%
# ``TypeError`` for a traced size
# -------------------------------
#
# A length used to build an array fails with a plain ``TypeError``. Here a
# moving-average kernel of width ``n``:


def box_kernel(n):
    return jnp.ones(n) / n


with jaxpurity.raises(TypeError, match=r"Shapes must be 1D sequences of concrete values"):
    jax.jit(box_kernel)(3)

# %%
# Why
# ---
#
# ``jit`` compiles one program per combination of argument *shapes and
# dtypes*, and the program has fixed shapes throughout. An argument's value
# is not known while tracing; only its type is. An axis, a size or a Python
# branch all decide the *shape* or the *structure* of the program, so they
# must be known while tracing, and a traced integer cannot give them.
#
# The shape of a traced array, on the other hand, *is* known while tracing:
# ``x.shape[axis]`` above is a plain Python integer once ``axis`` is. So a
# size that can be read off an input's shape needs no static argument at
# all; only configuration that comes from nowhere else does.
#
# The fix: ``static_argnames``
# ----------------------------
#
# Tell ``jit`` which arguments are configuration. Static arguments reach the
# function as the Python values you passed, so ``jnp.sum``, ``if`` and
# ``jnp.ones`` all work. (``static_argnums`` does the same by position.)

summarize_jit = jax.jit(summarize, static_argnames=("axis", "normalize"))
box_kernel_jit = jax.jit(box_kernel, static_argnames="n")

means = summarize_jit(x, axis=0, normalize=True)
kernel = box_kernel_jit(n=3)
print("mean over axis 0:", means.tolist())
print("box kernel:", [round(v, 4) for v in kernel.tolist()])
assert means.tolist() == summarize(x, axis=0, normalize=True).tolist() == [1.5, 2.5, 3.5]
assert kernel.shape == (3,)

# %%
# :func:`jax.vmap` knows nothing of ``static_argnames``: it maps every
# argument it is given, keywords included. A setting passed to the mapped
# function is mapped too, and a string has no array form. Bind the settings
# first, with :func:`functools.partial`, and map over the data only:


def pool(x, how):
    return jnp.max(x, axis=-1) if how == "max" else jnp.mean(x, axis=-1)


pool_jit = jax.jit(pool, static_argnames="how")
with jaxpurity.raises((TypeError, ValueError), match="not a valid JAX type|rank"):
    jax.vmap(pool_jit)(jnp.stack([x, 2 * x]), how="max")
pooled = jax.vmap(functools.partial(pool_jit, how="max"))(jnp.stack([x, 2 * x]))
print("max of each row, two batches:", pooled.tolist())
assert pooled.tolist() == [[2.0, 5.0], [4.0, 10.0]], pooled

# %%
# Static values must be hashable, because ``jit`` uses them as keys of its
# cache of compiled programs. An axis given as a list raises ``ValueError``;
# a tuple works. (:doc:`static_objects` covers a whole settings object as a
# static argument: dicts, dataclasses, and objects changed after a call.)

with jaxpurity.raises(ValueError, match=r"Non-hashable static arguments"):
    summarize_jit(x, axis=[0, 1], normalize=False)

print("sum over both axes:", float(summarize_jit(x, axis=(0, 1), normalize=False)))

# %%
# The price: a new trace for every new static value
# -------------------------------------------------
#
# Each distinct static value gets its own trace and its own compiled
# program. A Python list appended to inside the function shows when tracing
# happens, since Python code in a jitted function runs only while tracing.

traces = []


def summarize_logged(x, axis, normalize):
    traces.append((axis, normalize))
    return summarize(x, axis, normalize)


summarize_logged_jit = jax.jit(summarize_logged, static_argnames=("axis", "normalize"))
calls = [(0, True), (0, True), (1, True), (0, False), (0, True)]
for axis, normalize in calls:
    summarize_logged_jit(x, axis=axis, normalize=normalize)
print(f"{len(calls)} calls, {len(traces)} traces:", traces)
assert traces == [(0, True), (1, True), (0, False)], traces

# %%
# Repeated values reuse their compiled program, so a handful of settings
# costs a handful of compiles. New *data* never retraces, as long as its
# shape and dtype stay the same:

traces.clear()
for scale in (1.0, 2.0, 3.0):
    summarize_logged_jit(x * scale, axis=0, normalize=True)
print("traces for three new arrays of one shape:", len(traces))
assert traces == [], traces

# %%
# With jaxpurity: ``count_traces`` and ``RetraceError``
# -----------------------------------------------------
#
# :func:`jaxpurity.count_traces` does the counting for you, without touching
# the function: wrap it, then ``jit`` the wrapper as before. It also records
# what each trace was for.

counted = jaxpurity.count_traces(summarize)
counted_jit = jax.jit(counted, static_argnames=("axis", "normalize"))
for axis, normalize in calls:
    counted_jit(x, axis=axis, normalize=normalize)
print(f"{len(calls)} calls, {counted.traces} traces")
for signature in counted.signatures:
    print(" ", signature["axis"], "/", signature["normalize"])
assert counted.traces == len(set(calls)) == 3, counted

# %%
# A value that changes on almost every call, such as a step counter, is a
# poor static argument: each call compiles anew. ``max_traces`` turns that
# into an error, :class:`jaxpurity.RetraceError`, which names the argument
# that changed.


def decayed(x, step):
    return x * 0.9**step


decayed_counted = jaxpurity.count_traces(decayed, max_traces=1)
decayed_static = jax.jit(decayed_counted, static_argnames="step")
decayed_static(x, step=0)
with jaxpurity.raises(jaxpurity.RetraceError, match=r"(?s)`step`.*as an array instead"):
    decayed_static(x, step=1)

# %%
# Here the message's first suggestion is the right one: ``step`` only feeds
# arithmetic, so it can stay traced. Three steps, one trace:

decayed_counted = jaxpurity.count_traces(decayed, max_traces=1)
decayed_traced = jax.jit(decayed_counted)
last = [decayed_traced(x, step) for step in range(3)][-1]
print("traces:", decayed_counted.traces, " step 2:", [round(v, 4) for v in last[0].tolist()])
assert decayed_counted.traces == 1
assert jnp.allclose(last, x * 0.81), last

# %%
# An axis or a shape has no traced alternative, so there the other
# suggestion applies: accept one trace per value, and keep the number of
# distinct values small.

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "summarize_jit": {"args": (x,), "static": {"axis": 0, "normalize": True}},
    "box_kernel_jit": {
        "static": {"n": 3},
        "not": {
            "grad": "its one argument is a size, a static int",
            "vmap": "its one argument is a size, a static int",
        },
    },
    "counted": "count_traces on summarize, counting: no fix of its own",
    "counted_jit": "summarize_jit, counted",
    "decayed_counted": "count_traces around decayed, the fix below",
    "decayed_static": "step as a static argument: the retrace that RetraceError names",
    "decayed": {"args": (x, 2)},
    "pool_jit": {"args": (x,), "static": {"how": "max"}},
    "pool": "the function pool_jit jits",
    "decayed_traced": "decayed, jitted with step traced, and counted: the fix is decayed",
}
# sphinx_gallery_end_ignore
