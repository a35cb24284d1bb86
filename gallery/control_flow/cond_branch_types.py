"""
lax.cond says my branches must have equal output types
======================================================

Both branches of :func:`jax.lax.cond` look right on their own, yet the call
raises ``TypeError``: the branches return a different shape, a different
dtype or a different pytree structure. This page shows the real
``TypeError`` for each of the three, the one case where mismatched types are
accepted (weak types, which still change the result's type), the fixes, what
happens to ``cond`` under :func:`jax.vmap` (both branches run), the same
rule for :func:`jax.lax.switch`, and what :func:`jaxpurity.cond` adds.
"""

# %%
# The code people write
# ---------------------
#
# A function normalises a vector so that it sums to one. When the sum is
# zero there is nothing to normalise, so the second branch returns a
# placeholder, ``0.0``. Under :func:`jax.jit` the sum is not known while
# tracing, so a Python ``if`` cannot choose; :func:`jax.lax.cond` can.

import jax
import jax.numpy as jnp
from jax import lax

import jaxpurity

x = jnp.array([1.0, 3.0, 4.0])


@jax.jit
def normalize(x):
    total = x.sum()
    return lax.cond(total > 0, lambda x: x / total, lambda x: 0.0, x)


# %%
# What JAX does: TypeError for a shape mismatch
# ---------------------------------------------
#
# The call fails before anything runs. The message names both branches and
# gives the type of each output: an array of three floats against a scalar.

with jaxpurity.raises(TypeError, match=r"(?s)output.*float32\[3\].*float32\[\]"):
    normalize(x)

# %%
# Why
# ---
#
# :func:`jax.lax.cond` traces *both* branches and compiles them into one
# program, because the predicate is only known when the program runs. That
# program has one output buffer, so every branch must produce the same
# pytree structure and, leaf by leaf, the same shape and dtype. A Python
# ``if`` would have returned whichever value the branch made; ``cond`` has to
# know the result's type before it knows which branch runs.
#
# TypeError for a dtype mismatch
# ------------------------------
#
# The same rule covers dtypes. A sum of floats with a Python ``0`` as the
# fallback mixes ``float32`` with ``int32``.


@jax.jit
def sum_if_nonnegative(x):
    return lax.cond(jnp.all(x >= 0), lambda x: x.sum(), lambda x: 0, x)


with jaxpurity.raises(TypeError, match=r"(?s)output.*float32\[\].*int32\[\]"):
    sum_if_nonnegative(x)

# %%
# TypeError for a different pytree structure
# ------------------------------------------
#
# Returning an extra value from one branch only changes the structure: here a
# tuple against a single array. JAX checks the structure first, and reports
# it with a message of its own.


@jax.jit
def normalize_with_total(x):
    total = x.sum()
    return lax.cond(total > 0, lambda x: (x / total, total), lambda x: x, x)


with jaxpurity.raises(TypeError, match="same pytree structure|same type structure"):
    normalize_with_total(x)

# %%
# When there is no error: weak types
# ----------------------------------
#
# A Python float is *weakly typed*: it is ``float32`` but gives way to the
# other operand's dtype in arithmetic. ``cond`` accepts a weak ``float32``
# against a normal ``float32``, so ``0.0`` works where ``0`` failed.
#
# The catch: the result's type is taken from one branch, ``false_fun`` (the
# second function), whichever branch runs. Here that is the weak ``0.0``, so
# the result is weakly typed, though the branch that ran returned a plain
# ``float32``; with the branches swapped (and the predicate negated) it is
# not. A weak result gives way to other dtypes: added to a ``float16`` it
# becomes ``float16``, where the other stays ``float32``.

sum_or_zero = lax.cond(jnp.all(x >= 0), lambda x: x.sum(), lambda x: 0.0, x)
swapped = lax.cond(jnp.any(x < 0), lambda x: 0.0, lambda x: x.sum(), x)
half = jnp.float16(1.0)
print("0.0 as false_fun: weak", sum_or_zero.weak_type, "| + float16:", (sum_or_zero + half).dtype)
print("0.0 as true_fun:  weak", swapped.weak_type, "| + float16:", (swapped + half).dtype)
assert sum_or_zero.weak_type and (sum_or_zero + half).dtype == jnp.float16
assert not swapped.weak_type and (swapped + half).dtype == jnp.float32
assert float(swapped) == float(sum_or_zero) == 8.0

# %%
# The weak type forgives only the *weak* flag, not the dtype: ``0.0`` is a
# weak ``float32``, so it does not match a ``float16`` branch.

x16 = x.astype(jnp.float16)
with jaxpurity.raises(TypeError, match=r"(?s)output.*float16"):
    lax.cond(True, lambda x: x.sum(), lambda x: 0.0, x16)

# %%
# The fix: build the placeholder from the input
# ---------------------------------------------
#
# Make the placeholder with the input's shape and dtype. For ``normalize`` a
# uniform vector is a sensible answer when the total is zero, and
# :func:`jax.numpy.ones_like` gives it the right shape and dtype by
# construction (as :func:`jax.numpy.full_like` does for a constant fill
# value).


@jax.jit
def normalize(x):
    total = x.sum()
    return lax.cond(total > 0, lambda x: x / total, lambda x: jnp.ones_like(x) / x.size, x)


zeros = jnp.zeros(3)
print("normalize(x):    ", normalize(x).tolist())
print("normalize(zeros):", [round(v, 4) for v in normalize(zeros).tolist()])
assert normalize(x).tolist() == [0.125, 0.375, 0.5]
assert jnp.allclose(normalize(zeros), 1 / 3)

# %%
# For the dtype, create the fallback in the input's dtype, or cast a value
# with ``astype``. A zero made with ``x.dtype`` also fixes the ``float16``
# case, and it is not weakly typed.


@jax.jit
def sum_if_nonnegative(x):
    return lax.cond(jnp.all(x >= 0), lambda x: x.sum(), lambda x: jnp.zeros((), x.dtype), x)


for values in [x, x16, -x]:
    result = sum_if_nonnegative(values)
    print(values.dtype, "->", float(result), result.dtype, "weak:", result.weak_type)
    assert result.dtype == values.dtype and not result.weak_type
assert float(sum_if_nonnegative(-x)) == 0.0

# %%
# For the structure, return the same pytree from every branch: here both
# branches return a pair (array, total).


@jax.jit
def normalize_with_total(x):
    total = x.sum()
    return lax.cond(
        total > 0,
        lambda x: (x / total, total),
        lambda x: (jnp.ones_like(x) / x.size, total),
        x,
    )


weights, total = normalize_with_total(x)
print("weights:", weights.tolist(), "total:", float(total))
assert weights.tolist() == [0.125, 0.375, 0.5] and float(total) == 8.0

# %%
# Under vmap, cond runs both branches
# -----------------------------------
#
# ``cond`` picks one branch for the whole call. Under :func:`jax.vmap` each
# row has its own predicate, so JAX turns the ``cond`` into a select: both
# branches run on every row, and the result is picked row by row. A
# :func:`jax.debug.print` in each branch shows it. One row at a time, each
# call runs one branch; a batch of two rows runs both branches on both
# rows, so ``x / total`` is computed for the zero row too (a ``0 / 0``),
# and then dropped.


def normalize_logged(x):
    total = x.sum()

    def divide(x):
        jax.debug.print("divide ran, total {}", total)
        return x / total

    def uniform(x):
        jax.debug.print("uniform ran, total {}", total)
        return jnp.ones_like(x) / x.size

    return lax.cond(total > 0, divide, uniform, x)


rows = jnp.stack([x, zeros])
logged = jax.jit(normalize_logged)
print("One row at a time:")
with jaxpurity.printed() as one_by_one:
    for row in rows:
        logged(row)
print("Under vmap:")
with jaxpurity.printed() as batched:
    batched_weights = jax.vmap(logged)(rows)
assert sorted(one_by_one.lines) == ["divide ran, total 8.0", "uniform ran, total 0.0"]
assert sorted(batched.lines) == sorted(
    f"{name} ran, total {t}" for name in ["divide", "uniform"] for t in [8.0, 0.0]
), batched.lines
assert jnp.array_equal(batched_weights, jnp.stack([normalize(x), normalize(zeros)]))

# %%
# So with a batched predicate you pay for every branch on every row, and a
# callback in a branch runs for rows it was not picked for (count or log
# the predicate outside the ``cond`` instead). The ``nan`` of ``0 / 0``
# stays out of the result, and out of the gradient: JAX gives each branch
# its inputs with the gradient stopped on the rows it was not picked for.
# The gradients under ``vmap`` are the ones of the rows taken one at a
# time, all finite. (:doc:`../gradients/nan_gradients` shows the same with
# ``jnp.where``, where a thrown-away ``nan`` does reach the gradient.)


def first_weight(x):
    return normalize(x)[0]


batched_grads = jax.vmap(jax.grad(first_weight))(rows)
print("vmap(grad):", batched_grads.tolist())
assert jnp.isfinite(batched_grads).all(), batched_grads
assert jnp.array_equal(batched_grads, jnp.stack([jax.grad(first_weight)(r) for r in rows]))

# %%
# lax.switch: the same rule, the same TypeError
# ---------------------------------------------
#
# :func:`jax.lax.switch` picks one of several branches by index and checks
# all of them the same way. A count of positive entries is an ``int32``,
# unlike the other two reductions.


@jax.jit
def reduce(index, x):
    return lax.switch(index, [lambda x: x.sum(), lambda x: x.max(), lambda x: jnp.sum(x > 0)], x)


with jaxpurity.raises(TypeError, match=r"(?s)output.*float32\[\].*int32\[\]"):
    reduce(0, x)

# %%
# The fix is the same: cast the odd branch with ``astype`` so that every
# branch returns a ``float32`` scalar.


def count_positive(x):
    return jnp.sum(x > 0).astype(x.dtype)


@jax.jit
def reduce(index, x):
    return lax.switch(index, [lambda x: x.sum(), lambda x: x.max(), count_positive], x)


reduced = [float(reduce(i, x)) for i in range(3)]
print("sum, max, count:", reduced)
assert reduced == [8.0, 4.0, 3.0], reduced

# %%
# With jaxpurity: cond and TypeMismatchError
# ------------------------------------------
#
# :func:`jaxpurity.cond` takes the same arguments as :func:`jax.lax.cond` and
# builds the same program when the branches agree. When they do not, it
# raises :class:`jaxpurity.TypeMismatchError` (a ``TypeError``), which lists
# each differing leaf by its path and says how to fix it.


@jax.jit
def normalize_checked(x):
    total = x.sum()
    return jaxpurity.cond(total > 0, lambda x: x / total, lambda x: 0.0, x)


with jaxpurity.raises(jaxpurity.TypeMismatchError, match="zeros_like"):
    normalize_checked(x)

# %%
# It names each differing leaf by its path and says what to write: for a
# Python scalar, that it is weakly typed and should be given a dtype. It
# also takes **like=**, a template (an array or :class:`jax.ShapeDtypeStruct`)
# to convert every branch's output to, where nothing is lost. The scalar
# ``0.0`` becomes a vector of ``x``'s shape and dtype, so the first
# ``normalize`` works as written:


@jax.jit
def normalize_like(x):
    total = x.sum()
    return jaxpurity.cond(total > 0, lambda x: x / total, lambda x: 0.0, x, like=x)


print("like=x:", normalize_like(x).tolist(), normalize_like(zeros).tolist())
assert normalize_like(x).tolist() == [0.125, 0.375, 0.5]
assert normalize_like(zeros).tolist() == [0.0, 0.0, 0.0]

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "normalize": {"args": (x,)},
    "sum_if_nonnegative": {"args": (x,)},
    "normalize_with_total": {"args": (x,)},
    "reduce": {"args": (1, x), "wrt": 1},
    "count_positive": "a branch of reduce, the fix",
    "normalize_checked": "raises jaxpurity's TypeMismatchError, on purpose: no fix",
    "normalize_like": {"args": (x,)},
}
# sphinx_gallery_end_ignore
