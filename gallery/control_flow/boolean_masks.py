"""
Boolean mask indexing fails under jit
=====================================

``x[x > 0]`` works on concrete arrays but raises
``NonConcreteBooleanIndexError`` inside :func:`jax.jit` and
:func:`jax.vmap`, and ``jnp.nonzero`` raises ``ConcretizationTypeError``
there for the same reason: the size of the result depends on the data. This
page shows both errors and two fixes: keep the shape with
:func:`jax.numpy.where`, or fix the size with ``size=`` and a fill value.
It also shows the trap in the first fix under :func:`jax.grad`: a ``nan``
gradient from the values the mask threw away, and the double ``where``
that avoids it.
"""

# %%
# The code people write
# ---------------------
#
# The mean of the positive readings of a sensor, and the list of where they
# are. Without ``jit`` both lines do what NumPy would do.

import jax
import jax.numpy as jnp

import jaxpurity

readings = jnp.array([0.5, -1.0, 2.0, -3.0, 1.5])


def mean_of_positive(x):
    return x[x > 0].mean()


def where_positive(x):
    return jnp.nonzero(x > 0)[0]


eager_mean = float(mean_of_positive(readings))
print("mean of positive:", round(eager_mean, 6))
print("positions:", where_positive(readings).tolist())
assert abs(eager_mean - 4.0 / 3.0) < 1e-6, eager_mean
assert where_positive(readings).tolist() == [0, 2, 4]

# %%
# What JAX does: ``NonConcreteBooleanIndexError``
# -----------------------------------------------
#
# Under ``jit`` the mask ``x > 0`` is a tracer, and JAX refuses to index with
# it.

with jaxpurity.raises(jax.errors.NonConcreteBooleanIndexError, match=r"must be concrete"):
    jax.jit(mean_of_positive)(readings)

# %%
# :func:`jax.vmap` traces too, so a batch of rows fails the same way:

with jaxpurity.raises(jax.errors.NonConcreteBooleanIndexError, match=r"must be concrete"):
    jax.vmap(mean_of_positive)(jnp.stack([readings, -readings]))

# %%
# ``ConcretizationTypeError`` from ``jnp.nonzero``
# ------------------------------------------------
#
# Asking for the positions instead of the values hits the same wall from
# another side: :func:`jax.numpy.nonzero` (and one-argument
# :func:`jax.numpy.where`) need a ``size``.

with jaxpurity.raises(jax.errors.ConcretizationTypeError, match=r"size argument of jnp.nonzero"):
    jax.jit(where_positive)(readings)

# %%
# Setting through a mask, ``x.at[x < 0].set(0.0)``, is refused as well:

with jaxpurity.raises(jax.errors.NonConcreteBooleanIndexError, match=r"must be concrete"):
    jax.jit(lambda x: x.at[x < 0].set(0.0))(readings)

# %%
# Why
# ---
#
# ``jit`` compiles a program in which every array has a shape fixed at trace
# time. ``x[x > 0]`` has as many elements as there are positive entries,
# which is known only once the data is, so no fixed-shape program can
# compute it. ``vmap`` has the same problem one level up: the rows of a
# batch would need different lengths.
#
# :func:`jax.grad` alone is different: it runs your Python code on concrete
# values, so masks work there, and the gradient is zero where the mask is
# off:

grads = jax.grad(mean_of_positive)(readings)
print("grad:", [round(g, 4) for g in grads.tolist()])
assert grads.tolist()[1::2] == [0.0, 0.0], grads
assert all(abs(g - 1 / 3) < 1e-6 for g in grads.tolist()[::2]), grads

# %%
# Wrap that gradient in ``jit`` and the mask fails again:

with jaxpurity.raises(jax.errors.NonConcreteBooleanIndexError, match=r"must be concrete"):
    jax.jit(jax.grad(mean_of_positive))(readings)

# %%
# Fix 1: keep the shape, mask the values with ``jnp.where``
# ---------------------------------------------------------
#
# Most masked computations do not need the selected elements as an array of
# their own. Keep all elements and neutralise the unwanted ones: replace them
# with something harmless, or pass the mask to a reduction's ``where=``.


@jax.jit
def mean_of_positive_fixed(x):
    return jnp.mean(x, where=x > 0)


@jax.jit
def clip_negative(x):
    return jnp.where(x < 0, 0.0, x)


mean = mean_of_positive_fixed(readings)
clipped = clip_negative(readings)
print("mean of positive:", round(float(mean), 6))
print("negatives set to 0:", clipped.tolist())
assert abs(float(mean) - eager_mean) < 1e-6, mean
assert clipped.tolist() == [0.5, 0.0, 2.0, 0.0, 1.5]

# %%
# The same function now works on a batch, because every row keeps its
# length:

batch = jnp.stack([readings, -readings])
batch_means = jax.vmap(mean_of_positive_fixed)(batch)
print("batched means:", [round(m, 6) for m in batch_means.tolist()])
assert jnp.allclose(batch_means, jnp.array([4.0 / 3.0, 2.0])), batch_means

# %%
# Its gradient is the one :func:`jax.grad` gave the boolean index above, and
# now it works under ``jit`` as well:

fixed_grads = jax.jit(jax.grad(mean_of_positive_fixed))(readings)
print("grad:", [round(g, 4) for g in fixed_grads.tolist()])
assert jnp.allclose(fixed_grads, grads), (fixed_grads, grads)

# %%
# Fix 1 under grad: a nan from the masked-out values
# --------------------------------------------------
#
# The mask keeps the shape by computing on *every* element, the unwanted
# ones included. That is harmless for a mean, not for a function that is
# undefined there: the mean of the square roots of the positive readings.
# The boolean index (eager, as before) never takes the root of a negative
# reading, and its gradient is clean; the masked version gives ``nan`` at
# every negative reading, with or without ``jit``, and under ``vmap``.


def root_mean_indexed(x):
    return jnp.sqrt(x[x > 0]).mean()


def root_mean_masked(x):
    return jnp.mean(jnp.sqrt(x), where=x > 0)


reference = jax.grad(root_mean_indexed)(readings)
masked = jax.grad(root_mean_masked)(readings)
print("boolean index:", [round(g, 4) for g in reference.tolist()])
print("where=:       ", [round(g, 4) for g in masked.tolist()])
assert jnp.isfinite(reference).all(), reference
assert jnp.isnan(masked).tolist() == [False, True, False, True, False], masked
assert jnp.isnan(jax.jit(jax.grad(root_mean_masked))(readings)[1::2]).all()
assert jnp.isnan(jax.vmap(jax.grad(root_mean_masked))(batch)).any(axis=1).all()

# %%
# A value that is thrown away still poisons the gradient: ``0`` times the
# square root's derivative below ``0`` is ``nan``. :doc:`../gradients/nan_gradients`
# shows why, and how ``jax.debug_nans`` finds such a ``nan``.
#
# Fix: mask the input too (a double ``where``)
# --------------------------------------------
#
# Replace the unwanted inputs by a harmless value (``1.0``) *before* the
# unsafe function, and keep the mask after it. The gradient is then the one
# the boolean index gives, and it works under ``jit``:


@jax.jit
def root_mean_safe(x):
    positive = x > 0
    safe = jnp.where(positive, x, 1.0)
    return jnp.mean(jnp.sqrt(safe), where=positive)


safe_grads = jax.grad(root_mean_safe)(readings)
print("double where: ", [round(g, 4) for g in safe_grads.tolist()])
assert jnp.allclose(root_mean_safe(readings), root_mean_indexed(readings))
assert jnp.allclose(safe_grads, reference), (safe_grads, reference)

# %%
# It holds under ``vmap`` too: each row's gradient is the one the boolean
# index gives that row.

batch_grads = jax.vmap(jax.grad(root_mean_safe))(batch)
print("rows:", [[round(g, 4) for g in row] for row in batch_grads.tolist()])
for row, row_grads in zip(batch, batch_grads, strict=True):
    assert jnp.allclose(row_grads, jax.grad(root_mean_indexed)(row)), (row, row_grads)

# %%
# Fix 2: fix the size with ``size=`` and ``fill_value=``
# ------------------------------------------------------
#
# When you really need the positions, promise ``jnp.nonzero`` an upper bound
# on how many there are. The result always has that many entries; the unused
# ones hold ``fill_value``, here ``-1`` so that padding is easy to spot.


@jax.jit
def where_positive_fixed(x):
    return jnp.nonzero(x > 0, size=4, fill_value=-1)[0]


positions = where_positive_fixed(readings)
print("positions, padded to 4:", positions.tolist())
assert positions.tolist() == [0, 2, 4, -1]

# %%
# One-argument ``jnp.where`` takes the same ``size`` and ``fill_value``. To
# gather the values as well, pad with an index *past the end* and read with
# ``.at[...].get(mode="fill")``, which gives ``fill_value`` for out-of-range
# indices. (Padding with ``-1`` would quietly read the last element, since
# negative indices count from the end.)


@jax.jit
def positive_values(x):
    past_the_end = x.shape[0]
    positions = jnp.where(x > 0, size=4, fill_value=past_the_end)[0]
    return positions, x.at[positions].get(mode="fill", fill_value=0.0)


positions, values = positive_values(readings)
print("positions:", positions.tolist(), " values:", values.tolist())
assert positions.tolist() == [0, 2, 4, readings.shape[0]]
assert values.tolist() == [0.5, 2.0, 1.5, 0.0]

# %%
# ``size`` is a bound you promise, not one JAX checks. Ask for fewer
# positions than there are, and the extra ones are dropped without a word:

truncated = jnp.nonzero(readings > 0, size=2)[0]
print("size=2 keeps:", truncated.tolist())
assert truncated.tolist() == [0, 2]

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "mean_of_positive_fixed": {"args": (readings,)},
    "clip_negative": {"args": (readings,)},
    "root_mean_indexed": "the boolean index, without jit: the gradient to match",
    "root_mean_masked": {
        "args": (readings,),
        "breaks": {"grad": ("differs", "", "root_mean_safe")},
    },
    "root_mean_safe": {"args": (readings,)},
    "where_positive_fixed": {
        "args": (readings,),
        "not": {"grad": "it returns int32 positions: nothing to differentiate"},
    },
    "positive_values": {"args": (readings,)},
}
# sphinx_gallery_end_ignore
