"""
My Python loop or if statement breaks inside jit
================================================

Python ``for`` loops, ``if`` statements and NumPy calls behave differently
inside :func:`jax.jit`. A loop over a fixed ``range(5)`` works, by unrolling
into a program that grows with the trip count. A loop over a traced ``n``
raises ``TracerIntegerConversionError``, an ``if`` on a traced value raises
``TracerBoolConversionError``, and ``np.asarray`` on a traced value raises
``TracerArrayConversionError``. This page shows each one, why it happens,
and the fixes: static arguments, :func:`jax.numpy.where` and
:func:`jax.lax.cond`, :func:`jax.lax.fori_loop` and :func:`jax.lax.scan`
(including a ``fori_loop`` port that only works for scalars), and
:func:`jaxpurity.collect`. Each fix is then taken through
:func:`jax.grad` and :func:`jax.vmap`, where three of them change: a
``fori_loop`` over a traced ``n`` cannot be reverse-differentiated,
``jnp.where`` can give a ``nan`` gradient from the side it did not pick
(the Gradients section has a page on each), and ``lax.cond`` under
``vmap`` runs both branches.
"""

# %%
# The code people write: a loop over a fixed range
# ------------------------------------------------
#
# A fixed-point iteration written as a plain Python loop. Under
# :func:`jax.jit` it runs and gives the same value as without ``jit``.

import time

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
primitives = [eqn.primitive.name for eqn in jaxpr.jaxpr.eqns]
print("cos appears", primitives.count("cos"), "times")
assert primitives.count("cos") == 5, primitives

# %%
# That is fine for five steps. The program, and so the compile time, grows
# with the trip count. The table traces and compiles the loop for a few trip
# counts (timings depend on the machine; the equation count does not).


def iterate_times(n):
    def body(x):
        for _ in range(n):
            x = 0.5 * jnp.cos(x)
        return x

    return body


print(f"{'steps':>6} {'equations':>10} {'compile (s)':>12}")
for n in [10, 100, 400]:
    equations = len(jax.make_jaxpr(iterate_times(n))(x).jaxpr.eqns)
    start = time.perf_counter()
    jax.jit(iterate_times(n)).lower(x).compile()
    seconds = time.perf_counter() - start
    print(f"{n:>6} {equations:>10} {seconds:>12.3f}")
    assert equations == 2 * n, (n, equations)

# %%
# What JAX does: TracerIntegerConversionError
# -------------------------------------------
#
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
# Why
# ---
#
# All three errors have one cause: Python control flow and NumPy run *while
# JAX traces*, when an argument is only an abstract value (a shape and a
# dtype). A Python ``for`` or ``if`` over such a value, or a conversion to an
# int, a bool or a NumPy array, would need the concrete value, which exists
# only later, when the compiled program runs. A loop over ``range(5)`` works
# because ``5`` is a Python int, known while tracing.
#
# There are two ways out: make the value known at trace time (a static
# argument), or keep it traced and use an operation that JAX records
# (:func:`jax.numpy.where`, :func:`jax.lax.cond`, :func:`jax.lax.fori_loop`,
# :func:`jax.lax.scan`, ``jnp`` instead of ``np``).
#
# Fix: static_argnames
# --------------------
#
# Marking ``n`` static makes it a Python value during tracing, so
# ``range(n)`` works. Each new value of ``n`` is a new trace and a new
# compilation (and an unrolled program, as above), which a Python counter in
# the body shows.

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
# :func:`jax.lax.fori_loop` records the loop itself, so ``n`` can stay
# traced: one trace serves every trip count (the counter shows it), and the
# program holds the body once, inside a ``while`` loop, however many steps
# run.

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
# The jaxpr has one ``cos`` inside a ``while`` loop.

jaxpr = jax.make_jaxpr(iterate_fori)(x, 5)
print(jaxpr)
assert "while" in str(jaxpr) and str(jaxpr).count("cos") == 1, jaxpr

# %%
# ``jax.grad`` through the loop
# -----------------------------
#
# Reverse mode cannot go through a ``fori_loop`` over a traced ``n``
# (``jax.grad`` raises ``ValueError``); :doc:`../gradients/differentiating_loops`
# shows why, and the fixes: static bounds, or a masked :func:`jax.lax.scan`.
#
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
# jnp.where and lax.cond under grad
# ---------------------------------
#
# ``jnp.where`` computes both sides, and so does its gradient: a side that
# is not defined everywhere, such as ``jnp.sqrt``, gives a ``nan`` gradient
# where it was not picked (:doc:`../gradients/nan_gradients` shows why, and
# the fix). :func:`jax.lax.cond` on one value differentiates only the
# branch that ran, so it has no such ``nan``: the gradient is ``0`` where
# the ``0.0`` branch runs, and ``1 / (2 * sqrt(4))`` at ``4``.


def sqrt_or_zero_cond(x):
    return lax.cond(x > 0, jnp.sqrt, jnp.zeros_like, x)


inputs = jnp.array([-1.0, 0.0, 4.0])
expected = [0.0, 0.0, 0.25]
cond_grads = [float(jax.jit(jax.grad(sqrt_or_zero_cond))(v)) for v in inputs]
print(f"cond, grad at {inputs.tolist()}:", cond_grads)
assert cond_grads == expected, cond_grads

# %%
# lax.cond under vmap: both branches run
# --------------------------------------
#
# Under :func:`jax.vmap`, each element has its own predicate, and one
# program cannot take a different branch per element. So JAX turns the
# ``cond`` into a select: it runs *both* branches on the whole batch, then
# picks per element, as ``jnp.where`` does. A :func:`jax.debug.print` in
# each branch shows it: called one value at a time, each call runs one
# branch; under ``vmap``, each branch runs on every element, including the
# ones it was not picked for (the square root of ``-1`` is computed, and is
# ``nan``).


def sqrt_or_zero_logged(x):
    def sqrt_branch(x):
        y = jnp.sqrt(x)
        jax.debug.print("sqrt branch: sqrt({}) = {}", x, y)
        return y

    def zero_branch(x):
        jax.debug.print("zero branch: x = {}", x)
        return jnp.zeros_like(x)

    return lax.cond(x > 0, sqrt_branch, zero_branch, x)


logged = jax.jit(sqrt_or_zero_logged)
print("One value at a time:")
with jaxpurity.printed() as one_by_one:
    for v in inputs:
        logged(v)
print("Under vmap:")
with jaxpurity.printed() as batched:
    batched_values = jax.vmap(logged)(inputs)
zero_lines = [f"zero branch: x = {v}" for v in inputs.tolist()]
sqrt_lines = ["sqrt branch: sqrt(-1.0) = nan", "sqrt branch: sqrt(0.0) = 0.0"]
sqrt_lines.append("sqrt branch: sqrt(4.0) = 2.0")
assert sorted(one_by_one.lines) == sorted([sqrt_lines[2], *zero_lines[:2]]), one_by_one.lines
assert sorted(batched.lines) == sorted(sqrt_lines + zero_lines), batched.lines
assert batched_values.tolist() == [0.0, 0.0, 2.0]

# %%
# The program shows the swap: no ``cond`` is left, a ``select_n`` picks the
# result. When the predicate is the same for the whole batch (not batched,
# here ``in_axes=None``), the ``cond`` stays a ``cond`` and one branch runs.


def primitives(fn, *args):
    return {eqn.primitive.name for eqn in jax.make_jaxpr(fn)(*args).jaxpr.eqns}


per_element = primitives(jax.vmap(sqrt_or_zero_cond), inputs)
one_flag = primitives(
    jax.vmap(lambda x, flag: lax.cond(flag, jnp.sqrt, jnp.zeros_like, x), in_axes=(0, None)),
    inputs,
    True,
)
for name, found in [("batched predicate", per_element), ("unbatched predicate", one_flag)]:
    print(f"{name:>19}: cond {'cond' in found}, select_n {'select_n' in found}")
assert "cond" not in per_element and "select_n" in per_element, per_element
assert "cond" in one_flag and "select_n" not in one_flag, one_flag

# %%
# What this means, with a batched predicate:
#
# - **Cost**: you pay for both branches on every element. An expensive
#   branch that one element in a thousand takes costs the whole batch.
# - **NaNs**: the branch not picked runs on values it was meant to avoid
#   (``sqrt(-1)`` above is ``nan``). The select drops that value, and JAX
#   hands each branch a copy of its inputs with the gradient stopped where
#   that branch was not picked, so the gradient stays clean: unlike the
#   plain ``jnp.where``, it needs no double ``where``
#   (:doc:`../gradients/nan_gradients`).
# - **Callbacks**: a :func:`jax.debug.print` or :func:`jax.debug.callback`
#   in a branch runs for every element, with values its branch did not
#   choose. Do not count or log "branch taken" from inside a branch; return
#   the predicate and log it outside.

vmap_grads = jax.jit(jax.vmap(jax.grad(sqrt_or_zero_cond)))(inputs).tolist()
print(f"cond, vmap(grad) at {inputs.tolist()}:", vmap_grads)
assert vmap_grads == expected, vmap_grads

# %%
# Fix: jnp instead of np
# ----------------------
#
# :mod:`jax.numpy` mirrors the NumPy API and records its operations, so the
# fix for ``np.asarray`` is to stay in ``jnp``.


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
# The buffer also fixes the dtype: an integer ``x`` comes back as floats.

print("int32 x ->", collect_naive(jnp.int32(1)).dtype)
assert collect_naive(jnp.int32(1)).dtype == jnp.float32

# %%
# Fix: a buffer built from x, or lax.scan
# ---------------------------------------
#
# Build the buffer from ``x``: shape ``(5, *x.shape)`` and ``x.dtype``. Then
# it fits any rank and keeps the dtype.


@jax.jit
def collect_fori(x):
    def body(i, out):
        return out.at[i].set(x + i)

    return lax.fori_loop(0, 5, body, jnp.zeros((5, *x.shape), x.dtype))


# %%
# :func:`jax.lax.scan` avoids the buffer: the body returns ``(carry, y)``
# and ``scan`` stacks the ``y`` of every step along a new leading axis.


@jax.jit
def collect_scan(x):
    def body(carry, i):
        return carry, x + i

    _, ys = lax.scan(body, None, jnp.arange(5))
    return ys


# %%
# Both give what the Python loop gives (the reference runs jitted, so that
# each input compiles once) for a vector, a matrix and an integer scalar:
# the same values, shapes and dtypes.

reference = jax.jit(collect_python)
for value in [jnp.arange(3.0), jnp.ones((2, 2)), jnp.int32(1)]:
    expected = reference(value)
    for collect in [collect_fori, collect_scan]:
        got = collect(value)
        assert got.shape == expected.shape and got.dtype == expected.dtype, (got, expected)
        assert jnp.array_equal(got, expected), (got, expected)
    print(f"x {value.dtype}{list(value.shape)} -> {expected.dtype}{list(expected.shape)}: match")
print(collect_scan(jnp.arange(3.0)))

# %%
# With jaxpurity: collect
# -----------------------
#
# :func:`jaxpurity.collect` is the ``scan`` above packaged: ``collect(fn, n)``
# stacks ``fn(0), ..., fn(n - 1)`` like the Python loop, for outputs of any
# rank, and traces ``fn`` once. The jaxpr holds one ``scan`` with one copy
# of the body, even for 400 steps.

vector = jnp.arange(3.0)
collected = jaxpurity.collect(lambda i: vector + i, 5)
same = bool(jnp.array_equal(collected, collect_python(vector)))
print("shape:", collected.shape, "| equal to the Python loop:", same)
assert same


def add_count(n):
    jaxpr_text = str(jax.make_jaxpr(lambda x: jaxpurity.collect(lambda i: x + i, n))(vector))
    assert "scan" in jaxpr_text, jaxpr_text
    return jaxpr_text.count(" add ")


print("add equations for 5 steps:", add_count(5), "| for 400 steps:", add_count(400))
assert add_count(5) == add_count(400)

# %%
# Ask jaxpurity.explain
# ---------------------
#
# :func:`jaxpurity.explain` takes each error caught above and says what
# usually causes it, how to fix it and where to read more.

for caught in [int_error, bool_error, array_error]:
    explanation = jaxpurity.explain(caught.value)
    print(explanation, end="\n\n")
    assert explanation.topic == "python_control_flow", explanation
