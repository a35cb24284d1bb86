"""
lax.cond says my branches must have equal output types
======================================================

Both branches of :func:`jax.lax.cond` look right on their own, yet the call
raises ``TypeError``: the branches return a different shape, a different
dtype or a different pytree structure. This page shows the real
``TypeError`` for each of the three, the one case where mismatched types are
accepted (weak types, which still change the result's type), the fixes
(``jnp.ones_like``, ``broadcast_to``, ``astype``, one structure for both
branches), and the same rule and error for :func:`jax.lax.switch`.
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

with jaxpurity.raises(TypeError, match=r"(?s)output.*float32\[3\].*float32\[\]") as shape_error:
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

sum_or_zero = lax.cond(jnp.all(x >= 0), lambda x: x.sum(), lambda x: 0.0, x)
print("value:", float(sum_or_zero), "dtype:", sum_or_zero.dtype, "weak:", sum_or_zero.weak_type)
assert float(sum_or_zero) == 8.0 and sum_or_zero.dtype == jnp.float32

# %%
# The output shows the catch: the result is weakly typed even though the
# branch that ran returned a plain ``float32``. It now gives way to other
# dtypes: added to a ``float16`` it becomes ``float16``, where the plain sum
# stays ``float32``.

half = jnp.float16(1.0)
print("cond result + float16:", (sum_or_zero + half).dtype)
print("x.sum()     + float16:", (x.sum() + half).dtype)
assert sum_or_zero.weak_type
assert (sum_or_zero + half).dtype == jnp.float16
assert (x.sum() + half).dtype == jnp.float32

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
# construction. For a constant fill value, :func:`jax.numpy.broadcast_to`
# does the same.


@jax.jit
def normalize(x):
    total = x.sum()
    return lax.cond(total > 0, lambda x: x / total, lambda x: jnp.ones_like(x) / x.size, x)


@jax.jit
def normalize_or_fill(x):
    total = x.sum()
    fill = jnp.asarray(-1.0, x.dtype)
    return lax.cond(total > 0, lambda x: x / total, lambda x: jnp.broadcast_to(fill, x.shape), x)


zeros = jnp.zeros(3)
print("normalize(x):         ", normalize(x).tolist())
print("normalize(zeros):     ", [round(v, 4) for v in normalize(zeros).tolist()])
print("normalize_or_fill(0s):", normalize_or_fill(zeros).tolist())
assert normalize(x).tolist() == [0.125, 0.375, 0.5]
assert jnp.allclose(normalize(zeros), 1 / 3)
assert normalize_or_fill(zeros).tolist() == [-1.0, -1.0, -1.0]

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
# Ask jaxpurity.explain
# ---------------------
#
# :func:`jaxpurity.explain` takes the first error on this page, the one from
# :func:`jax.lax.cond` itself, and says what usually causes it and where to
# read more.

explanation = jaxpurity.explain(shape_error.value)
print(explanation)
assert explanation.topic == "cond_branch_types", explanation
