"""
Slicing ``x[i:i + k]`` fails inside jit when ``i`` is an argument
=================================================================

A slice whose start comes from a traced value, such as a window at position
``i``, works in plain Python and raises ``IndexError`` under :func:`jax.jit`
or :func:`jax.vmap`. This page shows the error as each JAX version words it,
why a fixed-size window is still possible, and the fixes:
:func:`jax.lax.dynamic_slice` to read, :func:`jax.lax.dynamic_update_slice`
to write, and gathers or masks from ``jax.numpy``. Each one treats an
out-of-range start differently, and the page shows how (``x[jax.ds(i, k)]``
too, which clamps only where ``i`` is traced).
"""

# %%
# The code people write
# ---------------------
#
# A moving window: ``k`` values of a signal, starting at position ``i``.

import jax
import jax.numpy as jnp
from jax import lax

import jaxpurity

HAS_DS = hasattr(jax, "ds")  # jax.ds(start, size): in JAX 0.9.1 and newer


def window(x, i, k=3):
    return x[i : i + k]


x = jnp.arange(10.0) * 10
print("without jit:", window(x, 2).tolist())

# %%
# What JAX does: ``IndexError`` under jit
# ---------------------------------------
#
# Under ``jit``, ``i`` is a tracer, and the slice refuses it. JAX 0.4.35 says
# "Array slice indices must have static start/stop/step ... Found slice(...)";
# JAX 0.8.2 to 0.11 say "Slice entries must be static integers"; 0.12 says
# the first again, and suggests ``jax.ds``.

with jaxpurity.raises(IndexError, match=r"static start/stop/step|must be static integers"):
    jax.jit(window)(x, 2)

# %%
# ``vmap`` over the start fails the same way: inside ``vmap``, ``i`` is a
# tracer that stands for a whole batch of starts.

starts = jnp.array([0, 4, 8])
with jaxpurity.raises(IndexError, match=r"static start/stop/step|must be static integers"):
    jax.vmap(window, in_axes=(None, 0))(x, starts)

# %%
# ``jax.grad`` alone does not trip on it: it traces only the argument it
# differentiates, so a Python ``int`` start stays an ``int``.

grad = jax.grad(lambda x, i: window(x, i).sum())(x, 2)
print("grad, i not traced:", grad.tolist())
assert grad.tolist() == [0, 0, 1, 1, 1, 0, 0, 0, 0, 0]

# %%
# Why
# ---
#
# Every array in a jitted program has a shape fixed while tracing. For
# ``0 <= i <= n``, NumPy gives ``x[i:i + k]`` the length ``min(i + k, n) - i``:
# it depends on the *value* of ``i`` (near the end of ``x`` the slice is
# shorter), and that value is unknown while tracing. JAX does not try to
# prove that ``i + k - i`` is always ``k``, and even if it did, the clipping at
# the end would change the length.
#
# A window of a fixed size ``k`` at a traced position is fine, though: that
# is a separate operation, with a static size and a dynamic start.
#
# The fix: ``lax.dynamic_slice``
# ------------------------------
#
# :func:`jax.lax.dynamic_slice` takes the start indices (traced or not) and
# the sizes (static), one per dimension; :func:`jax.lax.dynamic_slice_in_dim`
# is its one-axis form.


def window_fixed(x, i, k=3):
    return lax.dynamic_slice_in_dim(x, i, k)


print("jit:", jax.jit(window_fixed)(x, 2).tolist())
assert jax.jit(window_fixed)(x, 2).tolist() == window(x, 2).tolist() == [20.0, 30.0, 40.0]

# %%
# It works under ``vmap`` over the start, and under ``grad``, also when
# ``grad`` is jitted and the start is traced:

rows = jax.vmap(window_fixed, in_axes=(None, 0))(x, starts)
print("vmap over i:", rows.tolist())
grad = jax.jit(jax.grad(lambda x, i: window_fixed(x, i).sum()))(x, 2)
print("jit(grad):", grad.tolist())
assert rows.tolist() == [[0.0, 10.0, 20.0], [40.0, 50.0, 60.0], [70.0, 80.0, 90.0]]
assert grad.tolist() == [0, 0, 1, 1, 1, 0, 0, 0, 0, 0]

# %%
# An out-of-range start is clamped, silently
# ------------------------------------------
#
# Look at the last row above: the start ``8`` asked for positions 8, 9 and 10
# of a length-10 array, and got 7, 8 and 9. ``dynamic_slice`` always returns
# ``k`` values, so it moves the start back into range (to ``n - k``) instead
# of returning a shorter slice, as NumPy would, or raising. It does the same
# outside jit:

clamped = window_fixed(x, 8)
print("dynamic_slice at 8:", clamped.tolist(), " NumPy-style x[8:11]:", x[8:11].tolist())
assert clamped.tolist() == [70.0, 80.0, 90.0]
assert x[8:11].tolist() == [80.0, 90.0]

# %%
# In JAX 0.9.1 and newer, ``x[jax.ds(i, k)]`` writes a window as indexing
# (``jax.ds`` is a slice with a start and a static size), and with a traced
# ``i`` it is ``dynamic_slice``, clamped. With a Python int start (as
# ``grad`` without ``jit`` leaves it, above), JAX 0.12 slices like
# ``x[i:i + k]`` instead, so near the end it gives fewer values; JAX 0.10
# clamped that too. The cell prints what this JAX does. Where the two differ,
# :func:`jaxpurity.check_pure` reports a ``jit-eager-mismatch`` on
# ``x[jax.ds(i, k)]``: called eagerly with an int start, it slices, and under
# jit it clamps.

INT_START_SLICES = HAS_DS and x[jax.ds(8, 3)].shape != (3,)
if HAS_DS:
    traced_start = jax.jit(lambda x, i: x[jax.ds(i, 3)])(x, 8)
    python_start = x[jax.ds(8, 3)]
    print("x[jax.ds(8, 3)], traced 8:", traced_start.tolist(), "| int 8:", python_start.tolist())
    assert traced_start.tolist() == [70.0, 80.0, 90.0]
    assert INT_START_SLICES == (python_start.tolist() == [80.0, 90.0])
    if jax.__version_info__ >= (0, 12) or jax.__version_info__ < (0, 11):
        assert INT_START_SLICES == (jax.__version_info__ >= (0, 12)), python_start
else:
    print(f"JAX {jax.__version__} has no jax.ds: use lax.dynamic_slice_in_dim(x, i, 3)")

# %%
# When the window must start exactly at ``i``, build its indices and gather
# them, choosing what an out-of-range position gives: ``x.at[...].get`` with
# ``mode="fill"`` fills it, :func:`jax.numpy.take` with ``mode="clip"`` repeats
# the last value, and :func:`jax.numpy.roll` wraps around to the start of
# ``x``. All three take a traced ``i``.


def gathers(x, i, k=3):
    idx = i + jnp.arange(k)
    return {
        "dynamic_slice": lax.dynamic_slice_in_dim(x, i, k),
        "at[].get(fill)": x.at[idx].get(mode="fill", fill_value=-1.0),
        "take(clip)": jnp.take(x, idx, mode="clip"),
        "roll": jnp.roll(x, -i)[:k],
    }


results = {name: out.tolist() for name, out in jax.jit(gathers)(x, 8).items()}
for name, values in results.items():
    print(f"{name:>15}: {values}")
assert results == {
    "dynamic_slice": [70.0, 80.0, 90.0],
    "at[].get(fill)": [80.0, 90.0, -1.0],
    "take(clip)": [80.0, 90.0, 90.0],
    "roll": [80.0, 90.0, 0.0],
}

# %%
# Writing a window: ``lax.dynamic_update_slice``
# ----------------------------------------------
#
# ``x.at[i:i + k].set(v)`` with a traced ``i`` raises the same ``IndexError``.
# :func:`jax.lax.dynamic_update_slice` writes a block at a traced position,
# and clamps the same way; a scatter at explicit indices drops the positions
# that fall outside instead.


def write(x, i):
    block = jnp.ones(3)
    return {
        "dynamic_update_slice": lax.dynamic_update_slice(jnp.zeros_like(x), block, (i,)),
        "at[idx].set": jnp.zeros_like(x).at[i + jnp.arange(3)].set(block),
    }


written = {name: out.tolist() for name, out in jax.jit(write)(x, 8).items()}
for name, values in written.items():
    print(f"{name:>20}: {values}")
assert written["dynamic_update_slice"] == [0, 0, 0, 0, 0, 0, 0, 1, 1, 1]
assert written["at[idx].set"] == [0, 0, 0, 0, 0, 0, 0, 0, 1, 1]

# %%
# A traced *size* has no fixed-shape form
# ---------------------------------------
#
# ``x[:n]`` with a traced ``n`` has a length that depends on ``n``, and
# ``dynamic_slice`` does not help: its size must be static. A traced size
# raises the shape error of :doc:`static_arguments` from ``dynamic_slice``,
# and a ``TracerIntegerConversionError`` (see :doc:`python_control_flow`)
# from ``dynamic_slice_in_dim``, which reads the size as a Python ``int``.

with jaxpurity.raises(TypeError, match=r"Shapes must be 1D sequences of concrete values"):
    jax.jit(lambda x, n: lax.dynamic_slice(x, (0,), (n,)))(x, 3)
with jaxpurity.raises(jax.errors.TracerIntegerConversionError, match=r"__index__"):
    jax.jit(lambda x, n: lax.dynamic_slice_in_dim(x, 0, n))(x, 3)

# %%
# Either make ``n`` static (one compile per value, see
# :doc:`static_arguments`), or keep the full length and mask what lies
# outside the window: the shape stays fixed, so it also works under ``vmap``
# over ``n``.


def sum_first(x, n):
    return jnp.sum(jnp.where(jnp.arange(x.shape[0]) < n, x, 0.0))


sums = jax.jit(jax.vmap(sum_first, in_axes=(None, 0)))(x, jnp.array([1, 3, 10]))
print("sum of the first 1, 3, 10:", sums.tolist())
assert sums.tolist() == [0.0, 30.0, 450.0]

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "window_fixed": {"args": (x, 8)},
    "jax.ds": {
        "fn": lambda x, i: x[jax.ds(i, 3)],
        "args": (x, 8),
        "needs": "jax.ds",
        "check_pure": {"jit-eager-mismatch": "called eagerly with an int start, it slices"}
        if INT_START_SLICES
        else {},
        # where a Python int start slices, every transformation (a traced start) differs
        "breaks": {
            how: ("differs", "", "window_fixed") for how in ("jit", "nested", "grad", "vmap")
        }
        if INT_START_SLICES
        else {},
    },
    "gathers": {"args": (x, 8)},
    "write": {"args": (x, 8)},
    "sum_first": {"args": (x, 3)},
}
# sphinx_gallery_end_ignore
