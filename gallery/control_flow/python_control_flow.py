"""
My Python loop or if statement breaks inside jit
================================================

Python ``for`` loops, ``if`` statements and NumPy calls behave differently
inside :func:`jax.jit`. A loop over a fixed ``range(5)`` works, by unrolling
into a program that grows with the trip count. A loop over a traced ``n``
raises ``TracerIntegerConversionError``, an ``if`` on a traced value raises
``TracerBoolConversionError``, ``np.asarray`` on a traced value raises
``TracerArrayConversionError``, and ``float`` or ``math.exp`` raises
``ConcretizationTypeError``. This page shows each one, why it happens,
and the fixes: static arguments, :func:`jax.numpy.where` and
:func:`jax.lax.cond`, :func:`jax.lax.fori_loop`, and :func:`jax.lax.scan`
or :func:`jaxpurity.collect` for a loop that collects its steps.
"""

# %%
# The code people write: a loop over a fixed range
# ------------------------------------------------
#
# A fixed-point iteration written as a plain Python loop. Under
# :func:`jax.jit` it runs and gives the same value as without ``jit``.

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import jaxpurity


def iterate(x):
    for _ in range(5):
        x = 0.5 * jnp.cos(x)
    return x


x = jnp.float32(1.0)
print("jit:", round(float(jax.jit(iterate)(x)), 6), "eager:", round(float(iterate(x)), 6))
assert jnp.allclose(jax.jit(iterate)(x), iterate(x))

# %%
# What JAX does: it unrolls the loop
# ----------------------------------
#
# :func:`jax.jit` runs the Python function once, with tracers in place of the
# arguments, and records each array operation it sees. The Python loop runs
# during that trace, so the recorded program (the jaxpr) holds five copies of
# the loop body, one after the other. :func:`jax.make_jaxpr` prints it.

jaxpr = jax.make_jaxpr(iterate)(x)
print(jaxpr)
assert str(jaxpr).count("cos") == 5, jaxpr

# %%
# What JAX does: TracerIntegerConversionError
# -------------------------------------------
#
# That is fine for five steps, but the program, and so the compile time,
# grows with the trip count (:doc:`../tools/what_fixes_cost` measures it).
# Make the number of steps an argument and the loop stops working.
# ``range(n)`` needs a Python int, but under ``jit`` ``n`` is a tracer: its
# value is not known while the function is traced.


@jax.jit
def iterate_n(x, n):
    for _ in range(n):
        x = 0.5 * jnp.cos(x)
    return x


with jaxpurity.raises(jax.errors.TracerIntegerConversionError, match="__index__") as int_error:
    iterate_n(x, 5)

# %%
# What JAX does: TracerBoolConversionError
# ----------------------------------------
#
# An ``if`` needs a Python bool. ``x > 0`` on a tracer is a traced boolean,
# and turning it into ``True`` or ``False`` would need its value.


@jax.jit
def leaky_relu(x):
    if x > 0:
        return x
    return 0.1 * x


with jaxpurity.raises(jax.errors.TracerBoolConversionError, match="boolean") as bool_error:
    leaky_relu(x)

# %%
# What JAX does: TracerArrayConversionError
# -----------------------------------------
#
# NumPy functions compute on concrete buffers, so ``np.asarray`` asks the
# tracer for its values, and it has none.


@jax.jit
def standardize(x):
    x = np.asarray(x)
    return (x - x.mean()) / x.std()


with jaxpurity.raises(jax.errors.TracerArrayConversionError, match="__array__") as array_error:
    standardize(jnp.arange(4.0))

# %%
# ``float(x)`` and the functions of Python's ``math`` (``math.exp`` calls ``float``) need
# one number too: under ``jit``, :func:`jax.grad` or :func:`jax.vmap` they raise
# ``ConcretizationTypeError``.

with jaxpurity.raises(jax.errors.ConcretizationTypeError, match="`float` function"):
    jax.vmap(math.exp)(jnp.arange(3.0))

# %%
# Why
# ---
#
# All these errors have one cause: Python control flow and NumPy run *while JAX traces*,
# when an argument is only an abstract value (a shape and a dtype). A Python ``for`` or
# ``if`` over such a value, or a conversion to an int, a bool or a NumPy array, would
# need the concrete value, which exists only later, when the compiled program runs. A
# loop over ``range(5)`` works because ``5`` is a Python int, known while tracing.
#
# There are two ways out: make the value known at trace time (a static argument), or
# keep it traced and use an operation that JAX records (:func:`jax.numpy.where`,
# :func:`jax.lax.cond`, :func:`jax.lax.fori_loop`, :func:`jax.lax.scan`, ``jnp`` instead
# of ``np``).
#
# Fix: static_argnames
# --------------------
#
# Marking ``n`` static makes it a Python value during tracing, so ``range(n)`` works.
# Each new value of ``n`` is a new trace and a new compilation (and an unrolled program,
# as above), which a Python counter in the body shows. The counter is there only to show
# the traces: it is a global that the body changes, so :func:`jaxpurity.check_pure`
# reports a ``global-assignment`` on this fix and the next one.

traces = 0


def iterate_n(x, n):
    global traces
    traces += 1
    for _ in range(n):
        x = 0.5 * jnp.cos(x)
    return x


iterate_static = jax.jit(iterate_n, static_argnames="n")
for n in [5, 5, 6]:
    print(f"n={n}:", round(float(iterate_static(x, n=n)), 6), "traces so far:", traces)
assert traces == 2, traces
assert jnp.allclose(iterate_static(x, n=5), iterate(x))

# %%
# Fix: lax.fori_loop
# ------------------
#
# :func:`jax.lax.fori_loop` records the loop itself, so ``n`` can stay traced: one trace
# serves every trip count (the counter shows it), and the program holds the body once,
# inside a ``while`` loop, however many steps run.

traces = 0


def iterate_fori(x, n):
    global traces
    traces += 1
    return lax.fori_loop(0, n, lambda i, x: 0.5 * jnp.cos(x), x)


iterate_fori_jit = jax.jit(iterate_fori)
for n in [5, 6, 400]:
    print(f"n={n}:", round(float(iterate_fori_jit(x, n)), 6), "traces so far:", traces)
assert traces == 1, traces
assert jnp.allclose(iterate_fori_jit(x, 5), iterate(x))

# %%
# Its jaxpr holds one ``cos``, inside a ``while`` loop. Reverse mode cannot
# go through such a loop once ``n`` is traced (``jax.grad`` raises
# ``ValueError``); :doc:`../gradients/differentiating_loops` shows why, and
# the fixes: static bounds, or a masked :func:`jax.lax.scan`.

jaxpr = str(jax.make_jaxpr(iterate_fori)(x, 5))
print("while loop:", "while" in jaxpr, "| cos equations:", jaxpr.count("cos"))
assert "while" in jaxpr and jaxpr.count("cos") == 1, jaxpr

# %%
# Fix: jnp.where and lax.cond
# ---------------------------
#
# :func:`jax.numpy.where` computes both sides and picks elementwise, so it
# also works on arrays. :func:`jax.lax.cond` runs one of two functions,
# chosen by a scalar predicate; both must return the same types (see
# :doc:`cond_branch_types`).


@jax.jit
def leaky_relu(x):
    return jnp.where(x > 0, x, 0.1 * x)


@jax.jit
def leaky_relu_cond(x):
    return lax.cond(x > 0, lambda x: x, lambda x: 0.1 * x, x)


values = jnp.array([-2.0, 3.0])
print("where:", [round(v, 4) for v in leaky_relu(values).tolist()])
print("cond: ", [round(float(leaky_relu_cond(v)), 4) for v in values])
assert jnp.allclose(leaky_relu(values), jnp.array([-0.2, 3.0]))
assert [float(leaky_relu_cond(v)) for v in values] == leaky_relu(values).tolist()

# %%
# Both fixes go through :func:`jax.grad` and :func:`jax.vmap`, with two things to know.
# ``jnp.where`` differentiates both of its sides, so a side that is not defined
# everywhere (a ``sqrt``, a ``log``) gives a ``nan`` gradient where it was not picked
# (:doc:`../gradients/nan_gradients` shows the fix). And under ``vmap``, where each
# element has its own predicate, ``lax.cond`` runs both branches on every element
# (:doc:`cond_branch_types` shows it).

# %%
# Fix: jnp instead of np
# ----------------------
#
# :mod:`jax.numpy` mirrors the NumPy API and records its operations, so the
# fix for ``np.asarray`` is to stay in ``jnp``, as ``jnp.exp`` is for ``math.exp``.


@jax.jit
def standardize(x):
    return (x - x.mean()) / x.std()


standardized = standardize(jnp.arange(4.0))
print([round(v, 4) for v in standardized.tolist()])
assert jnp.allclose(standardized.mean(), 0.0, atol=1e-6)

# %%
# Collecting loop outputs: a fori_loop port that only works for scalars
# ---------------------------------------------------------------------
#
# A loop that collects one result per step is the usual next case. As a
# Python loop it unrolls like ``iterate`` did; the result is the reference.


def collect_python(x):
    return jnp.stack([x + i for i in range(5)])


# %%
# A common ``fori_loop`` port preallocates ``jnp.zeros((5,))`` and writes
# step ``i`` into row ``i``. It gives the right answer for a scalar ``x``,
# which is what people test first.


@jax.jit
def collect_naive(x):
    def body(i, out):
        return out.at[i].set(x + i)

    return lax.fori_loop(0, 5, body, jnp.zeros((5,)))


print("scalar x:", collect_naive(jnp.float32(1.0)).tolist())
assert jnp.array_equal(collect_naive(jnp.float32(1.0)), collect_python(jnp.float32(1.0)))

# %%
# For a vector ``x`` each step produces a row, and a row does not fit in one
# element of the buffer. The buffer's shape was written for scalars.

with jaxpurity.raises(ValueError, match="broadcast"):
    collect_naive(jnp.arange(3.0))

# %%
# Fix: lax.scan, or jaxpurity.collect
# -----------------------------------
#
# :func:`jax.lax.scan` needs no buffer: the body returns ``(carry, y)``
# and ``scan`` stacks the ``y`` of every step along a new leading axis, so
# the result has the rank and the dtype of what each step gives.


@jax.jit
def collect_scan(x):
    def body(carry, i):
        return carry, x + i

    _, ys = lax.scan(body, None, jnp.arange(5))
    return ys


for value in [jnp.arange(3.0), jnp.ones((2, 2)), jnp.int32(1)]:
    got, expected = collect_scan(value), jax.jit(collect_python)(value)
    assert got.dtype == expected.dtype and jnp.array_equal(got, expected), (got, expected)
    print(f"x {value.dtype}{list(value.shape)} -> {got.dtype}{list(got.shape)}: as the loop")

# %%
# :func:`jaxpurity.collect` is that ``scan`` packaged: ``collect(fn, n)``
# stacks ``fn(0), ..., fn(n - 1)`` like the Python loop, and traces ``fn``
# once, so its program holds one copy of the body whatever ``n`` is.

vector = jnp.arange(3.0)
collected = jaxpurity.collect(lambda i: vector + i, 5)
print("shape:", collected.shape, "| equal to the Python loop:", collected.tolist())
assert jnp.array_equal(collected, collect_python(vector))

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
COUNTER = {"global-assignment": "The counter is there only to show the traces"}
NO_REVERSE_MODE = {"grad": (ValueError, "Reverse-mode differentiation", "iterate_static")}
FIXES = {
    "iterate_n": "fix 1's function, with a counter of traces: iterate_static is the fix",
    "iterate_static": {"args": (x,), "static": {"n": 5}, "check_pure": COUNTER},
    "iterate_fori": {"args": (x, 5), "check_pure": COUNTER, "breaks": NO_REVERSE_MODE},
    "iterate_fori_jit": {"args": (x, 5), "check_pure": COUNTER, "breaks": NO_REVERSE_MODE},
    "leaky_relu": {"args": (jnp.array([-2.0, 3.0]),)},
    "leaky_relu_cond": {"args": (jnp.float32(-2.0),)},
    "standardize": {"args": (jnp.array([1.0, 2.0, 4.0]),)},
    "collect_scan": {"args": (jnp.arange(3.0),)},
    "collect": {"fn": lambda x: jaxpurity.collect(lambda i: x + i, 5), "args": (jnp.arange(3.0),)},
}
# sphinx_gallery_end_ignore
