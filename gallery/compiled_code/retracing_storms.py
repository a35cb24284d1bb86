"""
My jitted function compiles again on every call
===============================================

A training loop that should compile once and then run fast compiles on
every step instead, and raises nothing: :func:`jax.jit` called inside the
loop, a :func:`functools.partial` or a closure built anew for each call, or
an argument whose type keeps changing (a Python number one time, an array
the next; a new length every step). This page counts the compiles with
:func:`jaxpurity.count_traces`, lets JAX explain each one
(``jax_explain_cache_misses``, :data:`jax.log_compiles`), makes the next
one an error with :data:`jax.no_tracing`, and shows the fixes.
"""

# %%
# The code people write
# ---------------------
#
# A step function, jitted where it is used: in the loop, with the learning
# rate bound by ``partial``, or by a lambda that closes over it. To count
# the traces, the step is wrapped in :func:`jaxpurity.count_traces`, which
# counts each time ``jit`` runs its Python body.

import contextlib
import functools
import logging
import re

import jax
import jax.numpy as jnp

import jaxpurity


def sgd_step(w, grad, lr):
    return w - lr * grad


step = jaxpurity.count_traces(sgd_step)
w, g = jnp.ones(3), jnp.full(3, 0.5)
for _ in range(3):
    w = jax.jit(functools.partial(step, lr=0.1))(w, g)
for _ in range(3):
    w = jax.jit(lambda w, g: step(w, g, 0.1))(w, g)
print("6 steps, traces:", step.traces)
print("w:", [round(v, 4) for v in w.tolist()])

# %%
# What JAX does: it compiles every time
# -------------------------------------
#
# Six steps, six traces, and behind each trace a compile of the whole
# function by XLA, which costs far more than the step itself. Nothing is
# wrong with the numbers, so nothing warns you:

assert step.traces == 6, step.traces
assert jnp.allclose(w, 1.0 - 6 * 0.1 * 0.5), w

# %%
# Why
# ---
#
# ``jit`` keeps its compiled programs in a cache keyed by *the function*
# and the types of the arguments (shape, dtype, weak type, and the values
# of static arguments). Each ``jax.jit(...)`` call in the loop wraps a new
# ``partial`` or ``lambda`` object, which the cache has never seen, even
# though its code is the same as last time. So every call misses.
#
# JAX can say so. With ``jax_explain_cache_misses`` on, each miss is
# logged with its reason through :mod:`logging`, to the ``jax`` logger.
# This page attaches a :class:`logging.Handler` that keeps the records, so
# that they can be printed and checked (file paths and object ids
# shortened):


@contextlib.contextmanager
def jax_log():
    """Collect what JAX logs in the block, and keep it off the terminal."""
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger = logging.getLogger("jax")
    logger.addHandler(handler)
    propagate, logger.propagate = logger.propagate, False
    try:
        yield records
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def show(records):
    for record in records:
        print(re.sub(r"id=\d+", "id=...", jaxpurity.clean_paths(record.getMessage())))


with jax_log() as records, jax.explain_cache_misses(True):
    for _ in range(2):
        w = jax.jit(lambda w, g: step(w, g, 0.1))(w, g)
show(records)
assert len(records) == 2, [r.getMessage() for r in records]
assert "re-defined repeatedly" in records[1].getMessage(), records[1].getMessage()

# %%
# The second miss says what happened: a function defined on the same line
# was seen before, so the function is probably being re-defined on every
# call.
#
# The fix: jit once, outside the loop
# -----------------------------------
#
# Create the jitted function once, at module level or before the loop, and
# pass what changes (here the learning rate) as an argument. A Python float
# passed to ``jit`` is traced like an array, so new values do not retrace:

step = jaxpurity.count_traces(sgd_step)
sgd_step_jit = jax.jit(step)
for lr in (0.1, 0.05, 0.01):
    w = sgd_step_jit(w, g, lr)
print("3 steps, 3 learning rates, traces:", step.traces)
assert step.traces == 1, step.traces

# %%
# Strictly, it is the new *function object* that misses, not the
# ``jax.jit`` call: the cache belongs to the function, so jitting the same
# function again in the loop finds its program. Still, the call to
# ``jax.jit`` costs time on every step, so hoist it anyway.

for lr in (0.1, 0.05, 0.01):
    w = jax.jit(step)(w, g, lr)
print("3 more steps, jax.jit(step) in the loop, traces:", step.traces)
assert step.traces == 1, step.traces

# %%
# If a setting really must be a Python value while tracing (it picks a
# branch or a shape), make it static with ``static_argnames``. That
# compiles once per *distinct* value, the price
# :doc:`../control_flow/static_arguments` shows: fine for a flag, a storm
# for a number that changes every step.

step = jaxpurity.count_traces(sgd_step)
static_lr = jax.jit(step, static_argnames="lr")
for lr in (0.1, 0.1, 0.05, 0.1):
    w = static_lr(w, g, lr=lr)
print("4 calls, 2 distinct static values, traces:", step.traces)
assert step.traces == 2, step.traces

# %%
# The closure trap
# ----------------
#
# A helper that builds and jits a closure on each call storms the same way,
# and it is harder to see because the ``jit`` is out of sight:


def make_scaler(factor):
    return jax.jit(lambda x: scale(x, factor))


scale = jaxpurity.count_traces(lambda x, factor: x * factor)
for factor in (2.0, 2.0, 2.0):
    y = make_scaler(factor)(jnp.ones(3))
print("3 calls of make_scaler(2.0)(x), traces:", scale.traces)
assert scale.traces == 3, scale.traces

# %%
# Hoist the ``jit`` out of the helper, with the closed-over value as an
# argument:

scale = jaxpurity.count_traces(lambda x, factor: x * factor)
scale_jit = jax.jit(scale)
for factor in (2.0, 3.0, 4.0):
    y = scale_jit(jnp.ones(3), factor)
print("3 calls, 3 factors, traces:", scale.traces, " last:", y.tolist())
assert scale.traces == 1 and y.tolist() == [4.0, 4.0, 4.0]

# %%
# Arguments whose type changes
# ----------------------------
#
# One jitted function, created once, still retraces when an argument's
# *type* changes: a Python ``2.0`` is a *weakly typed* ``float32``, a
# ``jnp.float32(2.0)`` a strongly typed one, a Python ``2`` an ``int32``,
# and an array of another length another shape. ``count_traces`` keeps the
# signature of each trace:

scale = jaxpurity.count_traces(lambda x, factor: x * factor)
scale_jit = jax.jit(scale)
x3 = jnp.ones(3)
for x, factor in [(x3, 2.0), (x3, 3.0), (x3, jnp.float32(2.0)), (x3, 2), (jnp.ones(4), 2.0)]:
    scale_jit(x, factor)
for signature in scale.signatures:
    print(signature)
assert scale.traces == 4, scale.signatures

# %%
# The cache-miss log names the argument and the change each time:

x5 = jnp.ones(5)
with jax_log() as records, jax.explain_cache_misses(True):
    scale_jit(x5, 2.0)
show(records)
assert len(records) == 1 and "f32[5]" in records[0].getMessage(), records

# %%
# ``jax.log_compiles`` logs every compile, without the reason; it is the
# quickest way to see *that* a loop compiles. Here a batch that grows by
# one row per step compiles at every step:

batches = [jnp.ones(n) for n in (6, 7, 8)]
with jax_log() as records, jax.log_compiles(True):
    for batch in batches:
        scale_jit(batch, 2.0)
compiles = [r.getMessage() for r in records if r.getMessage().startswith("Compiling")]
print(*compiles, sep="\n")
assert len(compiles) == 3, compiles

# %%
# The fixes: keep each argument's type fixed from call to call. Pass
# numbers always the same way (always Python floats, or always
# ``jnp.float32``), and pad inputs whose length varies to a few fixed
# sizes, masking the padding out:


def padded_sum(x, n):
    return jnp.sum(jnp.where(jnp.arange(x.shape[0]) < n, x, 0.0))


padded = jaxpurity.count_traces(padded_sum)
padded_jit = jax.jit(padded)
sums = [float(padded_jit(jnp.pad(jnp.ones(n), (0, 8 - n)), n)) for n in (6, 7, 8)]
print("sums:", sums, " traces:", padded.traces)
assert sums == [6.0, 7.0, 8.0] and padded.traces == 1

# %%
# Make the next retrace an error: ``jax.no_tracing``
# --------------------------------------------------
#
# Counting tells you after the fact. Inside :data:`jax.no_tracing` (added
# in JAX 0.4.32, so every JAX this site supports has it) a call that would
# trace raises ``RuntimeError`` instead, so a test can pin down "this loop
# compiles nothing". Calls answered from the cache go through:

x2 = jnp.ones(2)  # made before the block: see below
with jax.no_tracing(True):
    scale_jit(x3, 5.0)  # the same types as before: no trace
    with jaxpurity.raises(RuntimeError, match=r"but 'no_tracing' is set") as info:
        scale_jit(x2, 5.0)  # a new shape: a new trace

# %%
# It refuses *any* trace, also the small ones that ``jax.numpy`` makes to
# build an array of a new shape, so create the inputs before the block:

with jax.no_tracing(True):
    with jaxpurity.raises(RuntimeError, match=r"but 'no_tracing' is set"):
        jnp.zeros(17)

# %%
# With jaxpurity: ``max_traces`` names the cause
# ----------------------------------------------
#
# ``jax.no_tracing`` says *that* a call traced; ``count_traces`` with
# ``max_traces`` also says *why*, comparing the new trace with the closest
# earlier one (see :doc:`../control_flow/static_arguments` for the
# :class:`jaxpurity.RetraceError` it raises):

scale = jaxpurity.count_traces(lambda x, factor: x * factor, max_traces=1)
scale_jit = jax.jit(scale)
scale_jit(x3, 2.0)
with jaxpurity.raises(jaxpurity.RetraceError, match=r"`factor`: dtype changed"):
    scale_jit(x3, 2)

# %%
# For the storm at the top of the page, a new function jitted on every
# call, no argument changed, and the message says so:

scale = jaxpurity.count_traces(lambda x, factor: x * factor, max_traces=1)
jax.jit(lambda x: scale(x, 2.0))(x3)
with jaxpurity.raises(jaxpurity.RetraceError, match=r"no argument changed") as retrace:
    jax.jit(lambda x: scale(x, 2.0))(x3)

# %%
# Ask jaxpurity.explain
# ---------------------
#
# Given the ``RuntimeError`` that ``jax.no_tracing`` raised (kept with
# ``as info``), :func:`jaxpurity.explain` names this page:

explanation = jaxpurity.explain(info.value)
print(explanation)
assert explanation.topic == "retracing_storms", explanation

# %%
# It sends the ``RetraceError`` with no changed argument here too:

print(jaxpurity.explain(retrace.value).page)
assert jaxpurity.explain(retrace.value).topic == "retracing_storms"

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "sgd_step_jit": {"args": (jnp.ones(3), jnp.full(3, 0.5), 0.1)},
    "static_lr": {"args": (jnp.ones(3), jnp.full(3, 0.5)), "static": {"lr": 0.1}},
    "step": "the counted sgd_step that the fixes jit: counting is no fix",
    "scale": "the diagnostic: it raises on its second trace, as the page shows",
    "scale_jit": "the diagnostic, jitted",
}
# sphinx_gallery_end_ignore
