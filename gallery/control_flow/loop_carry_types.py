"""
My loop carry changes shape or dtype
====================================

A :func:`jax.lax.fori_loop`, :func:`jax.lax.while_loop` or :func:`jax.lax.scan`
whose body hands back a carry of another dtype or shape than the one it was
given raises ``TypeError: ... carry input and carry output must have equal
types``. The same mistake made with a plain Python number as the initial value
raises nothing at all: the loop quietly runs in whatever dtype the body
produces, which this page shows with a float16 sum that stops counting at
2048.
"""

# %%
# The code people write
# ---------------------
#
# An exponential moving average over daily counts. The counts are integers,
# so the first count, used as the starting average, is an ``int32`` array.
# The body mixes in ``0.8 * avg``, which is a float.

import jax.numpy as jnp
import numpy as np
from jax import lax

import jaxpurity

counts = jnp.array([3, 5, 4, 8, 6])


def ema_step(i, avg):
    return 0.8 * avg + 0.2 * counts[i]


print("init dtype:", counts[0].dtype)

# %%
# What JAX does: ``TypeError`` from ``fori_loop``
# -----------------------------------------------
#
# JAX traces ``ema_step`` once, compares what comes out with what went in,
# and refuses the loop before it runs a single step.

CARRY_MISMATCH = r"carry input and carry output must have equal types"

with jaxpurity.raises(TypeError, match=CARRY_MISMATCH) as info:
    lax.fori_loop(1, 5, ema_step, counts[0])

# %%
# The message speaks of ``scan`` because a ``fori_loop`` with bounds known
# at trace time is built on :func:`jax.lax.scan`. It names the carry
# (``loop_carry[1]``: the loop keeps its index in slot 0 and your carry after
# it) and says which part differs: the dtypes.

message = str(info.value)
assert "scan" in message and "loop_carry[1]" in message and "dtypes" in message, message

# %%
# :func:`jax.lax.while_loop` checks the same thing and says so in its own
# words. Here the carry is a pair ``(n, history)`` for the Collatz
# sequence, and the body appends to ``history`` on every step, so the carry
# grows.


def collatz_step(state):
    n, history = state
    n = jnp.where(n % 2 == 0, n // 2, 3 * n + 1)
    return n, jnp.append(history, n)


def not_done(state):
    return state[0] != 1


with jaxpurity.raises(TypeError, match=r"while_loop body function carry input") as grown:
    lax.while_loop(not_done, collatz_step, (jnp.int32(6), jnp.array([6])))
assert "shapes do not match" in str(grown.value), grown.value

# %%
# This time the dtypes agree and the shapes do not: ``history`` goes in with
# one element and comes out with two.
#
# ``TypeError`` from ``scan``: the carry and the output swapped
# --------------------------------------------------------------
#
# :func:`jax.lax.scan` keeps two things apart: the *carry*, threaded from
# step to step, and the *output* of each step, stacked into an array at the
# end. The body must return them as a pair, carry first. A running sum over
# the rows of a matrix that records the norm after each row, written with the
# pair the wrong way round, hands back a scalar where the ``(3,)`` carry
# should be.

rows = jnp.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]])


def running_sum_swapped(total, row):
    total = total + row
    return jnp.linalg.norm(total), total


with jaxpurity.raises(TypeError, match=CARRY_MISMATCH):
    lax.scan(running_sum_swapped, jnp.zeros(3), rows)

# %%
# Returning only the new carry, with no output at all, is the other common
# slip. ``scan`` says the body's output must be a pair.


def running_sum_carry_only(total, row):
    return total + row


with jaxpurity.raises(TypeError, match=r"must be a pair"):
    lax.scan(running_sum_carry_only, jnp.zeros(3), rows)

# %%
# The silent case: a Python ``0`` raises nothing
# -----------------------------------------------
#
# Start the carry at a plain Python ``0`` and the checks above do not fire
# for a body that returns any other number type. Here the body adds a
# float16 one, three thousand times.


def add_half_precision_one(i, total):
    return total + jnp.float16(1)


total = lax.fori_loop(0, 3000, add_half_precision_one, 0)
print("dtype:", total.dtype, " total:", float(total))
assert total.dtype == jnp.float16, total.dtype
assert float(total) == 2048.0, total

# %%
# No error, and a wrong answer: the loop ran in float16, where ``2048 + 1``
# rounds back to ``2048``, so the sum stops growing there. The same ``0``
# becomes a float32 carry when the body returns float32, and an integer
# ``0`` silently becomes a float when the body adds ``0.5``:

as_float32 = lax.fori_loop(0, 3, lambda i, c: c + jnp.float32(1), 0)
int_then_half = lax.fori_loop(0, 3, lambda i, c: c + 0.5, 0)
print("float32 body:", as_float32.dtype, float(as_float32))
print("int 0 plus 0.5:", int_then_half.dtype, float(int_then_half))
assert as_float32.dtype == jnp.float32 and float(as_float32) == 3.0
assert jnp.issubdtype(int_then_half.dtype, jnp.floating), int_then_half.dtype
assert float(int_then_half) == 1.5, int_then_half

# %%
# Why
# ---
#
# A JAX loop is compiled once: XLA gets one program for the body and runs it
# over and over on the same buffers. The carry is such a buffer, so its shape
# and dtype are fixed for the whole loop; a body that returns something else
# would need a different buffer on the next step. JAX therefore traces the body
# with the initial carry's type and insists that the output has exactly that
# type, leaf by leaf.
#
# A Python scalar such as ``0`` or ``0.5`` has no dtype of its own: JAX calls
# it *weakly typed* and lets it take the dtype of whatever it meets. When the
# only difference between the carry that went in and the one that came out is
# a weakly typed leaf that JAX's type promotion lets become the body's dtype,
# the loop promotes it instead of raising, and runs the whole loop in that
# dtype. That is how ``0`` turned into a float16 accumulator above. A weak
# ``0`` can become any int or float type, a weak ``0.0`` any float type, and
# neither a ``bool``: a body that returns a ``bool`` from a ``0``, or an
# ``int32`` from a ``0.0``, still raises.

with jaxpurity.raises(TypeError, match=CARRY_MISMATCH):
    lax.fori_loop(0, 3, lambda i, c: c > 0, 0)
with jaxpurity.raises(TypeError, match=CARRY_MISMATCH):
    lax.fori_loop(0, 3, lambda i, c: i, 0.0)

# %%
# The fix: give the carry its real type up front
# ----------------------------------------------
#
# Decide what the carry is and build the initial value with that dtype and
# shape. ``.astype`` fixes the moving average:

ema = lax.fori_loop(1, 5, ema_step, counts[0].astype(jnp.float32))
expected = float(counts[0])
for c in counts[1:].tolist():
    expected = 0.8 * expected + 0.2 * c
print("EMA:", round(float(ema), 4), ema.dtype)
assert ema.dtype == jnp.float32
np.testing.assert_allclose(float(ema), expected, rtol=1e-6)

# %%
# ``jnp.asarray(0, dtype)`` (or ``jnp.zeros((), dtype)``) pins the dtype of a
# scalar accumulator, so the float16 terms are added into a float32 sum:

total = lax.fori_loop(0, 3000, add_half_precision_one, jnp.asarray(0, jnp.float32))
print("dtype:", total.dtype, " total:", float(total))
assert total.dtype == jnp.float32 and float(total) == 3000.0, total

# %%
# A carry that wants to grow gets a fixed-size buffer instead, allocated
# once with the largest size the loop may need, plus a count of how much of
# it is filled. The body writes into the buffer with ``.at[...].set`` (see
# :doc:`inplace_updates`), so the carry keeps its shape on every step.

MAX_STEPS = 16


def collatz_step_fixed(state):
    n, history, length = state
    n = jnp.where(n % 2 == 0, n // 2, 3 * n + 1)
    return n, history.at[length].set(n), length + 1


def collatz(start):
    buffer = jnp.zeros(MAX_STEPS, dtype=start.dtype).at[0].set(start)
    return lax.while_loop(not_done, collatz_step_fixed, (start, buffer, jnp.int32(1)))


n, history, length = collatz(jnp.int32(6))
sequence = history[: int(length)].tolist()
print("Collatz from 6:", sequence)
assert sequence == [6, 3, 10, 5, 16, 8, 4, 2, 1], sequence

# %%
# A fixed size is a promise that nothing checks. From 27 the sequence has
# 112 values, and the loop raises nothing: a write past the end of a JAX
# array is dropped (:doc:`inplace_updates`), so ``history`` keeps the first
# 16 values while ``length`` counts on. Guard the loop's condition with the
# buffer's size, ``(n != 1) & (length < MAX_STEPS)``, and check afterwards
# whether ``n`` reached 1.

n, history, length = collatz(jnp.int32(27))
print("values counted:", int(length), "| slots:", MAX_STEPS, "| last slot:", int(history[-1]))
assert int(length) == 112 and int(history[-1]) != 1, (length, history)

# %%
# For ``scan``, return ``(new_carry, output)`` in that order, and build the
# initial carry with :func:`jax.numpy.zeros_like` from something that already
# has the right shape and dtype:


def running_sum(total, row):
    total = total + row
    return total, jnp.linalg.norm(total)


final, norms = lax.scan(running_sum, jnp.zeros_like(rows[0]), rows)
print("final sum:", final.tolist(), " norms:", [round(v, 4) for v in norms.tolist()])
assert final.tolist() == [1.0, 2.0, 2.0], final
np.testing.assert_allclose(norms, [1.0, 5**0.5, 3.0], rtol=1e-6)


# %%
# With jaxpurity: ``TypeMismatchError``
# -------------------------------------
#
# :func:`jaxpurity.fori_loop`, :func:`jaxpurity.while_loop` and
# :func:`jaxpurity.scan` take the same arguments as their :mod:`jax.lax`
# namesakes and hand them to it. Where lax rejects the carry, or the carry
# comes back with another dtype than the initial one, they compare the two
# leaf by leaf and raise :class:`jaxpurity.TypeMismatchError` (a
# ``TypeError``) with a table of what changed. So unlike :mod:`jax.lax` they
# also refuse the silent case, a weakly typed ``0`` that the body would turn
# into float16:

with jaxpurity.raises(jaxpurity.TypeMismatchError, match=r"weakly typed") as weak:
    jaxpurity.fori_loop(0, 3000, add_half_precision_one, 0)
assert "Accumulate in float32: jnp.asarray(0, jnp.float32)" in str(weak.value), weak.value

# %%
# The hint asks for an explicit dtype, and for a float16 running sum it asks
# for float32: a float16 start would make the silent 2048 explicit, not right.
# With the float32 start, the checked loop gives what :func:`jax.lax.fori_loop`
# gives from the same start:

checked = jaxpurity.fori_loop(0, 3000, add_half_precision_one, jnp.asarray(0, jnp.float32))
print("dtype:", checked.dtype, " total:", float(checked))
assert checked.dtype == total.dtype and float(checked) == float(total) == 3000.0

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "ema_step": {
        "fn": lambda avg: lax.fori_loop(1, 5, ema_step, avg),
        "args": (jnp.float32(3.0),),
    },
    "add_half_precision_one": {
        "fn": lambda total: lax.fori_loop(0, 3000, add_half_precision_one, total),
        "args": (jnp.asarray(0, jnp.float32),),
    },
    "collatz_step_fixed": {
        "fn": collatz,
        "args": (jnp.int32(6),),
        "not": {"grad": "a Collatz sequence is of ints: nothing to differentiate"},
    },
    "collatz": "fix 2's loop, run by collatz_step_fixed's entry",
    "running_sum": {"fn": lambda rows: lax.scan(running_sum, jnp.zeros(3), rows), "args": (rows,)},
    "jaxpurity.fori_loop": {
        "fn": lambda total: jaxpurity.fori_loop(0, 3000, add_half_precision_one, total),
        "args": (jnp.asarray(0, jnp.float32),),
    },
}
# sphinx_gallery_end_ignore
