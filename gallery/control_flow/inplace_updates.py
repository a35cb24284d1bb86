"""
Assigning into a JAX array raises TypeError
===========================================

``x[i] = v``, the NumPy way to change one element, raises ``TypeError: JAX
arrays are immutable and do not support in-place item assignment``, with or
without :func:`jax.jit`. This page shows the error, the ``.at[...]``
methods that replace it, and three places where they behave differently
from NumPy's in-place updates without raising anything: the original array
never changes, repeated indices add up (and with ``.set``, which update
lands is not defined), and out-of-range indices are dropped.
"""

# %%
# The code people write
# ---------------------
#
# A histogram built one sample at a time, the way it is often written with
# NumPy: start from zeros and bump one bin per sample.

import jax
import jax.numpy as jnp
import numpy as np

import jaxpurity

samples = [0, 2, 2, 3, 2]


def histogram(samples, bins=4):
    counts = jnp.zeros(bins, dtype=jnp.int32)
    for s in samples:
        counts[s] += 1
    return counts


# %%
# What JAX does: ``TypeError``
# ----------------------------
#
# The very first assignment fails. JAX's message already names the fix.

with jaxpurity.raises(TypeError, match=r"immutable"):
    histogram(samples)

# %%
# It is the same error under :func:`jax.jit`: the check does not depend on
# tracing.

with jaxpurity.raises(TypeError, match=r"immutable"):
    jax.jit(histogram, static_argnames="bins")(jnp.array(samples))

# %%
# Why
# ---
#
# A JAX array is a value, like a Python ``int`` or a ``tuple``, not a buffer
# you own. Other arrays may share its memory, a traced function may have
# been compiled against it, and transformations such as :func:`jax.grad`
# need every intermediate value to stay what it was. So JAX has no operation
# that changes an array; "changing" one means computing a new array, and
# ``x[i] = v`` has no way to hand the new array back to you.
#
# The fix: ``x = x.at[i].set(v)``
# -------------------------------
#
# ``x.at[i]`` names the elements to change, and a method (``set``, ``add``,
# ``multiply``, ``min``, ``max``, ``get``, ...) returns a *new* array with
# that change. Assign the result back to the name:


def histogram_fixed(samples, bins=4):
    counts = jnp.zeros(bins, dtype=jnp.int32)
    for s in samples:
        counts = counts.at[s].add(1)
    return counts


counts = histogram_fixed(samples)
print("histogram:", counts.tolist())
assert counts.tolist() == np.bincount(samples, minlength=4).tolist() == [1, 0, 3, 1]

# %%
# Inside ``jit`` the copy you asked for need not happen: XLA sees that the
# old array is no longer used and updates the buffer in place, so the
# functional style usually costs no copy there.
#
# The original array does not change
# ----------------------------------
#
# Each ``.at`` call returns a new array and leaves the old one alone:

x = jnp.arange(4.0)
y = x.at[0].set(100.0)
print("x:", x.tolist())
print("y:", y.tolist())
assert x.tolist() == [0.0, 1.0, 2.0, 3.0]
assert y.tolist() == [100.0, 1.0, 2.0, 3.0]

# %%
# ``x += 1`` works on a JAX array, but it is shorthand for ``x = x + 1``: it
# binds the *name* to a new array. Another name that pointed at the old array
# still sees the old values. With NumPy, ``+=`` writes into the shared buffer
# and both names change.

a = jnp.zeros(3)
alias = a
a += 1
print("JAX   a:", a.tolist(), " alias:", alias.tolist())
assert alias.tolist() == [0.0, 0.0, 0.0]

a_np = np.zeros(3)
alias_np = a_np
a_np += 1
print("NumPy a:", a_np.tolist(), " alias:", alias_np.tolist())
assert alias_np.tolist() == [1.0, 1.0, 1.0]

# %%
# Repeated indices add up (``.at[].add`` raises nothing)
# ------------------------------------------------------
#
# With a whole array of indices, ``.at[idx].add`` applies every one of them,
# so repeated indices accumulate. NumPy's ``counts[idx] += 1`` does not: it
# reads, adds and writes back once per distinct index. The loop above can
# therefore become one call:

idx = jnp.array(samples)
print("JAX   .at[idx].add(1):", jnp.zeros(4, jnp.int32).at[idx].add(1).tolist())
numpy_counts = np.zeros(4, np.int32)
numpy_counts[samples] += 1
print("NumPy counts[idx] += 1:", numpy_counts.tolist())
assert jnp.zeros(4, jnp.int32).at[idx].add(1).tolist() == [1, 0, 3, 1]
assert numpy_counts.tolist() == [1, 0, 1, 1]

# %%
# ``.set`` with a repeated index is another matter: one of the updates
# lands, and which one is not defined. The documentation of
# :attr:`jax.numpy.ndarray.at` says the order in which conflicting updates
# are applied "is implementation-defined and may be nondeterministic", as on
# hardware that applies them concurrently. The backend that ran this page
# kept the value below; that is not a promise, and another backend, or
# another run on an accelerator, may keep another. Give each index one
# update, or combine with ``.min`` or ``.max``, whose result does not depend
# on the order.

updates, same = jnp.array([10.0, 20.0, 30.0]), jnp.array([1, 1, 1])
landed = jnp.zeros(4).at[same].set(updates)
largest = jnp.zeros(4).at[same].max(updates)
backend = f"on {jax.default_backend()}:"
print(backend, ".at[[1, 1, 1]].set([10, 20, 30]) ->", landed.tolist())
print(backend, ".at[[1, 1, 1]].max([10, 20, 30]) ->", largest.tolist())
assert float(landed[1]) in updates.tolist() and landed.tolist()[::2] == [0.0, 0.0], landed
assert largest.tolist() == [0.0, 30.0, 0.0, 0.0], largest

# %%
# Out-of-range indices raise nothing
# ----------------------------------
#
# NumPy raises ``IndexError`` for an index past the end. A compiled JAX
# program does not raise errors on its own, so indexing does something
# defined instead:
# ``.at[i].set`` drops an update whose index is out of range, and reading
# ``x[i]`` clamps the index to the last element. ``.at[i].get(mode="fill")``
# returns a value of your choice instead.

x = jnp.arange(4.0)
dropped = x.at[10].set(-1.0)
clamped = x[10]
filled = x.at[10].get(mode="fill", fill_value=-1.0)
print("x.at[10].set(-1.0):", dropped.tolist())
print("x[10]:", float(clamped))
print('x.at[10].get(mode="fill", fill_value=-1.0):', float(filled))
assert dropped.tolist() == x.tolist()
assert float(clamped) == float(x[-1]) == 3.0
assert float(filled) == -1.0

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "histogram_fixed": {
        "args": (samples,),
        "not": {"grad": "it counts samples into int32 bins: nothing to differentiate"},
    },
    "at_add": {
        "fn": lambda counts, idx: counts.at[idx].add(1.0),
        "args": (jnp.zeros(4), jnp.array(samples)),
    },
}
# sphinx_gallery_end_ignore
