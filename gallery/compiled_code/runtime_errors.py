"""
An index out of range gives a wrong number, not an IndexError
=============================================================

NumPy raises ``IndexError`` for ``x[10]`` on a four-element array. JAX
returns a number: a read past the end gives the last element, a write there
is dropped, and a ``NaN`` from ``log(-1)`` flows on without a word, inside
:func:`jax.jit` and outside it. This page shows each one, why a compiled
program cannot raise there, and how :mod:`jax.experimental.checkify` turns
them back into errors (under ``jit``, ``vmap`` and ``grad`` too); for NaNs,
``jax.debug_nans`` is the other way.
"""

# %%
# The code people write
# ---------------------
#
# An embedding lookup: each id picks a row of a table. The ids come from
# data, and one of them (``7``) is past the end of the four-row table, the
# kind of slip an off-by-one in a tokenizer makes.

import jax
import jax.numpy as jnp
from jax.experimental import checkify

import jaxpurity

table = jnp.arange(4.0) * 10.0  # rows 0..3: 0, 10, 20, 30
ids = jnp.array([1, 7, 2])


@jax.jit
def lookup(table, ids):
    return table[ids]


rows = lookup(table, ids)
print("lookup(table, [1, 7, 2]):", rows.tolist())

# %%
# What JAX does: it raises nothing
# --------------------------------
#
# Id ``7`` came back as ``30.0``, the last row: the read was *clamped* to
# the last valid index. A write past the end is *dropped* instead, so the
# same mistake in an update leaves the array as it was:

assert rows.tolist() == [10.0, 30.0, 20.0], rows


@jax.jit
def bump(counts, i):
    return counts.at[i].add(1.0)


counts = bump(jnp.zeros(4), 7)
print("bump(zeros, 7):", counts.tolist())
assert counts.tolist() == [0.0, 0.0, 0.0, 0.0], counts

# %%
# Negative indices count from the end, as in Python, until they run past
# the start. ``-1`` is the last element; ``-10`` becomes ``-10 + 4 = -6``,
# which is then clamped to ``0`` for a read and dropped for a write:

read = jax.jit(lambda x, i: x[i])
write = jax.jit(lambda x, i: x.at[i].set(-1.0))
print("x[-1]:", float(read(table, -1)), " x[-10]:", float(read(table, -10)))
print("x.at[-1].set:", write(table, -1).tolist())
print("x.at[-10].set:", write(table, -10).tolist())
assert float(read(table, -1)) == 30.0 and float(read(table, -10)) == 0.0
assert write(table, -1).tolist() == [0.0, 10.0, 20.0, -1.0]
assert write(table, -10).tolist() == table.tolist()

# %%
# Without ``jit`` it is the same: the array operations are the compiled
# ones either way.

print("eager table[7]:", float(table[7]))
assert float(table[7]) == 30.0

# %%
# Under ``grad`` the two rules meet, and the gradient disagrees with the
# value. The loss reads ``x[9]`` as ``x[3]`` (clamped, so it counts
# ``x[3] ** 2 = 900``), but the gradient flows back through a write to
# index ``9``, which is dropped: ``x[3]`` gets no gradient at all.


def loss(x, i):
    return jnp.sum(x[i] ** 2)


bad = jnp.array([2, 9])
value_and_grad = jax.jit(jax.value_and_grad(loss))
value, grad = value_and_grad(table, bad)
_, good_grad = value_and_grad(table, jnp.array([2, 3]))
print("loss:", float(value), " grad:", grad.tolist())
print("grad for ids [2, 3]:", good_grad.tolist())
assert float(value) == 20.0**2 + 30.0**2
assert grad.tolist() == [0.0, 0.0, 40.0, 0.0] != good_grad.tolist() == [0.0, 0.0, 40.0, 60.0]

# %%
# A ``NaN`` is silent too: ``log`` of a negative number is ``NaN`` by the
# rules of floating point, and everything computed from it is ``NaN``.


@jax.jit
def log_mean(x):
    return jnp.mean(jnp.log(x))


print("log_mean([-1, 1, 2]):", float(log_mean(jnp.array([-1.0, 1.0, 2.0]))))
assert jnp.isnan(log_mean(jnp.array([-1.0, 1.0, 2.0])))

# %%
# Why
# ---
#
# A compiled program runs on the device, often after the Python call has
# returned (JAX dispatches it asynchronously), and XLA's operations have no
# way to stop half-way and raise. So every operation must give *some*
# value for every input. A read ``x[i]`` *promises* XLA that its indices are
# in range (its mode, in the jaxpr, is ``"promise_in_bounds"``), and XLA's
# gather then clamps them; a write drops the updates whose index is out of
# range (``"fill_or_drop"``). NaN is what IEEE arithmetic gives, on every
# device. Nothing here is a bug; it is the documented behaviour (JAX's
# "sharp bits"), and it holds without ``jit`` too, so that the same code
# gives the same answer jitted or not.

read_mode = "PROMISE_IN_BOUNDS" in str(jax.make_jaxpr(lambda t, i: t[i])(table, ids))
write_mode = "FILL_OR_DROP" in str(jax.make_jaxpr(lambda t, i: t.at[i].add(1.0))(table, ids))
print("x[ids] promises in bounds:", read_mode, "| x.at[ids].add drops:", write_mode)
assert read_mode and write_mode

# %%
# The fix for the value: a ``mode``
# ---------------------------------
#
# The ``.at`` methods take a ``mode`` to pick a rule that is yours:
# ``"fill"`` returns ``fill_value`` for an index out of range, and ``"clip"``
# clamps it, on a write as on a read.


@jax.jit
def with_modes(table, ids):
    filled = table.at[ids].get(mode="fill", fill_value=-1.0)
    clipped = jnp.zeros(4).at[7].add(1.0, mode="clip")
    return filled, clipped


filled, clipped = with_modes(table, ids)
print('mode="fill":', filled.tolist())
print('mode="clip" on a write:', clipped.tolist())
assert filled.tolist() == [10.0, -1.0, 20.0]
assert clipped.tolist() == [0.0, 0.0, 0.0, 1.0]

# %%
# A mode also mends the gradient above, because the read and its gradient
# then follow one rule: with ``"clip"``, ``x[9]`` is ``x[3]`` and its
# gradient goes to ``x[3]``; with ``"fill"`` it is ``0``, a constant, with
# no gradient. Either way the gradient agrees with the value.


def loss_clip(x, i):
    return jnp.sum(x.at[i].get(mode="clip") ** 2)


def loss_fill(x, i):
    return jnp.sum(x.at[i].get(mode="fill", fill_value=0.0) ** 2)


for fixed_loss in (loss_clip, loss_fill):
    value, grad = jax.jit(jax.value_and_grad(fixed_loss))(table, bad)
    print(f"{fixed_loss.__name__}: loss {float(value)}, grad {grad.tolist()}")
assert jax.grad(loss_clip)(table, bad).tolist() == [0.0, 0.0, 40.0, 60.0]
assert jax.grad(loss_fill)(table, bad).tolist() == [0.0, 0.0, 40.0, 0.0]

# %%
# A mode makes the answer explicit, but it still raises nothing. To find
# *where* a bad index comes from, you want an error.
#
# The fix: ``checkify`` turns them into errors
# --------------------------------------------
#
# :func:`jax.experimental.checkify.checkify` rewrites a function so that
# it also returns an :class:`~jax.experimental.checkify.Error`: the checks
# run inside the compiled program, and their result comes out as a value,
# which Python can raise once the program has run. ``errors=`` says what to
# check; :data:`~jax.experimental.checkify.index_checks` checks every index.

checked_lookup = checkify.checkify(lookup, errors=checkify.index_checks)
err, rows = checked_lookup(table, ids)
print("err.get():", err.get())
print("rows (still clamped):", rows.tolist())
assert "index 7 is out of bounds for axis 0 with size 4" in err.get(), err.get()

# %%
# ``err.get()`` gives the message, or ``None`` when no check failed;
# ``err.throw()`` raises it as
# :exc:`~jax.experimental.checkify.JaxRuntimeError`:

with jaxpurity.raises(checkify.JaxRuntimeError, match=r"out-of-bounds indexing"):
    err.throw()

# %%
# In range, nothing fails, and ``throw()`` does nothing:

err, rows = checked_lookup(table, jnp.array([1, 3, 2]))
err.throw()
print("err.get():", err.get(), " rows:", rows.tolist())
assert err.get() is None and rows.tolist() == [10.0, 30.0, 20.0]

# %%
# The check knows nothing about intent: it flags an index out of range even
# where ``mode="fill"`` asked for exactly that (and in ``jnp.take``, which
# fills by default).


def fill_lookup(table, ids):
    return table.at[ids].get(mode="fill", fill_value=-1.0)


err, filled = jax.jit(checkify.checkify(fill_lookup, errors=checkify.index_checks))(table, ids)
print('mode="fill":', err.get())
assert "index 7 is out of bounds" in err.get(), err.get()

# %%
# ``NaN``: ``nan_checks``
# -----------------------
#
# :data:`~jax.experimental.checkify.nan_checks` names the first operation
# that made a ``NaN``:

err, _ = checkify.checkify(log_mean, errors=checkify.nan_checks)(jnp.array([-1.0, 1.0, 2.0]))
with jaxpurity.raises(checkify.JaxRuntimeError, match=r"nan generated by primitive: log"):
    err.throw()

# %%
# Your own checks: ``checkify.check``
# -----------------------------------
#
# :func:`jax.experimental.checkify.check` states a condition on traced
# values, with a message that can show them (``{}`` fields, formatted with
# the values at run time). It is checked when the function runs under
# ``checkify`` (:data:`~jax.experimental.checkify.user_checks`, the
# default ``errors=``):


def lookup_checked(table, ids):
    n = table.shape[0]  # a Python int: the message's fields take arrays only
    checkify.check(jnp.all((ids >= 0) & (ids < n)), f"ids must be in [0, {n}), got {{}}", ids)
    return table[ids]


err, _ = jax.jit(checkify.checkify(lookup_checked))(table, ids)
with jaxpurity.raises(checkify.JaxRuntimeError, match=r"ids must be in \[0, 4\), got \[1 7 2\]"):
    err.throw()

# %%
# ``jax.jit(checkify.checkify(f))`` and ``checkify.checkify(jax.jit(f))``
# both work; the error leaves ``jit`` as a value either way, and is raised
# outside it. Called without ``jit``, ``check`` raises at once. But under
# ``jit`` without ``checkify`` it cannot run at all, and JAX says so:

with jaxpurity.raises(ValueError, match=r"checkify.check which was not functionalized"):
    jax.jit(lookup_checked)(table, ids)

# %%
# Checked under ``vmap`` and ``grad``
# -----------------------------------
#
# ``checkify`` composes with the other transformations. Inside ``vmap``,
# the error says which element of the batch failed (outside it,
# ``checkify(vmap(f))``, only that one did). Here each row of ``batch`` is
# a separate lookup, and row 1 holds the bad id:

batch = jnp.array([[1, 2], [3, 9], [0, 1]])
per_row = jax.jit(
    jax.vmap(checkify.checkify(lookup, errors=checkify.index_checks), in_axes=(None, 0))
)
err, _ = per_row(table, batch)
print("vmap(checkify(f)):", err.get())
assert err.get().startswith("at mapped index 1: out-of-bounds indexing"), err.get()


# %%
# Under ``grad``, the check catches the index that gave the gradient above
# its missing entry:

err, grad = jax.jit(checkify.checkify(jax.grad(loss), errors=checkify.index_checks))(table, bad)
print("checkify(grad(loss)):", err.get(), " grad:", grad.tolist())
assert "index 9 is out of bounds" in err.get(), err.get()

# %%
# The checks cost a comparison per indexed element and some bookkeeping,
# so use them while hunting a bug, or on the inputs of a production
# function, and turn them off (plain ``f``) when you know the data is good.
#
# ``jax.debug_nans``: the first NaN, without changing the function
# ----------------------------------------------------------------
#
# For NaNs there is also a flag that needs no rewrite: inside
# ``jax.debug_nans(True)`` (the ``jax_debug_nans`` config), a jitted
# function that returns a NaN is run again without ``jit``, one operation
# at a time, and the operation that made the NaN raises
# ``FloatingPointError``. :doc:`../gradients/nan_gradients` shows it at
# work, with its messages on the oldest and the newest JAX. It checks only
# NaNs (``jax.debug_infs`` checks infinities), and it slows every call
# down, so it is a debugging tool; ``checkify`` is the one to keep in code.

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "with_modes": {"args": (table, ids)},
    "loss_clip": {"args": (table, bad)},
    "loss_fill": {"args": (table, bad)},
    "fill_lookup": {"args": (table, ids)},
    "checked_lookup": {
        "args": (table, ids),
        "breaks": {"grad": ("differs", "", "loss_clip")},
    },
}
# sphinx_gallery_end_ignore
