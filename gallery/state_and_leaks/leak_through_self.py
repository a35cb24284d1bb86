"""
My object's attribute turned into a tracer after a jitted method
================================================================

A method compiled with :func:`jax.jit` updates ``self.total``, and from then
on the object is broken: a second call silently returns a wrong value, and
any later use of the attribute raises
:class:`jax.errors.UnexpectedTracerError`. This page shows why assignments to
``self`` inside a traced method leak tracers, then fixes it three ways:
return the new state and assign it outside the trace, make the state a
pytree dataclass that goes in and out of the jitted function, or wrap a pure
step function in :class:`jaxpurity.Stateful`.
"""

# %%
# The code people write
# ---------------------
#
# A running mean kept on an object. :func:`jax.jit` cannot take a plain
# Python object as a traced argument, so a common recipe marks ``self`` as
# static with ``static_argnums=0``. The method then reads and writes
# attributes as any Python method would.

import dataclasses
import functools
import re

import jax
import jax.numpy as jnp

import jaxpurity


class RunningMean:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    @functools.partial(jax.jit, static_argnums=0)
    def update(self, x):
        self.total = self.total + x.sum()
        self.count = self.count + x.size
        return self.total / self.count


# %%
# What JAX does: the first call looks right
# -----------------------------------------
#
# The mean of 1, 2 and 3 comes back correct. But ``self.total`` no longer
# holds a number: it holds a tracer, the placeholder JAX used while it traced
# ``update``. ``self.count`` is a plain int, because ``x.size`` is a static
# shape, not a traced value.

stats = RunningMean()
first = float(stats.update(jnp.array([1.0, 2.0, 3.0])))
total_type = type(stats.total).__name__
print("mean:", first, "| total is a", total_type, "| count:", stats.count)
assert first == 2.0, first
assert total_type.endswith("Tracer"), total_type
assert stats.count == 3, stats.count

# %%
# The second call raises nothing and is wrong
# -------------------------------------------
#
# After 1, 2, 3 and then 10, 20, 30 the running mean should be 66 / 6. The
# output shows what the second call returns, and that the count has not
# moved.

second = float(stats.update(jnp.array([10.0, 20.0, 30.0])))
print(f"mean after six values: {second} (expected {66.0 / 6}) | count: {stats.count}")
assert second == 20.0, second
assert stats.count == 3, stats.count

# %%
# Reading the attribute: UnexpectedTracerError
# --------------------------------------------
#
# Any arithmetic on ``stats.total`` outside the trace fails. The message
# names the method that was being traced (``update``, "traced for jit") and
# the line that created the leaked value.

with jaxpurity.raises(jax.errors.UnexpectedTracerError, match="traced for jit") as info:
    stats.total + 1.0

# %%
# In a larger program, that line is the one to read: it names the method
# whose body assigned the tracer, which is where to look for
# ``self.<name> = ...``.

leaked_from = re.search(r"value leaked was (\w+)", str(info.value)).group(1)
print("leaked from:", leaked_from)
assert leaked_from == "update", leaked_from

# %%
# An input of a new shape makes JAX trace ``update`` again. This time the
# body reads the leaked tracer from ``self.total``, so the call itself
# fails with the same error.

with jaxpurity.raises(jax.errors.UnexpectedTracerError, match="unexpected tracer"):
    stats.update(jnp.array([1.0, 2.0]))

# %%
# Why
# ---
#
# :func:`jax.jit` runs the Python body of ``update`` only when it traces:
# once per new input signature (shapes, dtypes, and the static ``self``,
# which is hashed by identity). During that trace, ``x`` is a tracer and so
# is everything computed from it, including the value assigned to
# ``self.total``. The assignment itself is a Python side effect: it is not
# recorded in the compiled program.
#
# So the second call with the same shape does not run the body at all. It
# runs the program from the first trace, in which ``self.total`` and
# ``self.count`` entered as the constants they held back then, ``0.0`` and
# ``0``. That program computes ``x.sum() / 3`` for every call, which is the
# ``20.0`` above, and never touches the object. Meanwhile ``self.total``
# keeps the tracer from a trace that is over, and using it raises
# :class:`~jax.errors.UnexpectedTracerError`.
#
# :doc:`global_counter` shows the same mechanism with a module global, and
# how :obj:`jax.checking_leaks` reports the leak when it happens.

# %%
# Fix 1: return the new state, assign it outside the trace
# --------------------------------------------------------
#
# Move the arithmetic into a pure function that takes the state and returns
# the new state, after the output, in the order :doc:`global_counter`
# introduced. The method keeps its interface, but it calls the jitted
# function and assigns the returned concrete arrays to ``self`` *outside*
# the trace.


@jax.jit
def mean_step(total, count, x):
    total = total + x.sum()
    count = count + x.size
    return total / count, total, count


class FixedRunningMean:
    def __init__(self):
        self.total = jnp.float32(0.0)
        self.count = jnp.int32(0)

    def update(self, x):
        mean, self.total, self.count = mean_step(self.total, self.count, x)
        return mean


# %%
# The fixed output
# ----------------
#
# The same three batches, including the one with a new shape. Each call
# returns the true running mean, and the attributes stay concrete arrays.

fixed = FixedRunningMean()
batches = [[1.0, 2.0, 3.0], [10.0, 20.0, 30.0], [1.0, 2.0]]
means = [float(fixed.update(jnp.array(b))) for b in batches]
print("means:", means, "| total:", float(fixed.total), "| count:", int(fixed.count))
print("type of total:", type(fixed.total).__name__)
assert means == [2.0, 11.0, 8.625], means
assert float(fixed.total) == 69.0 and int(fixed.count) == 8, (fixed.total, fixed.count)
assert not type(fixed.total).__name__.endswith("Tracer")

# %%
# Fix 2: a pytree dataclass as the state
# --------------------------------------
#
# If the state should travel as one object, make it an immutable pytree: a
# frozen :func:`dataclasses.dataclass`, registered with
# :func:`jax.tree_util.register_dataclass` (JAX 0.4.35 needs its
# ``data_fields`` and ``meta_fields`` spelled out). Its fields become traced
# leaves, so ``self`` is an ordinary traced argument (no ``static_argnums``),
# and ``update`` returns a *new* state, made with
# :func:`dataclasses.replace`, instead of assigning to the old one.
# (:func:`jaxpurity.dataclass` does both in one decorator, and adds a
# ``replace`` method.)


@functools.partial(jax.tree_util.register_dataclass, data_fields=["total", "count"], meta_fields=[])
@dataclasses.dataclass(frozen=True)
class MeanState:
    total: jax.Array
    count: jax.Array

    @jax.jit
    def update(self, x):
        new = dataclasses.replace(self, total=self.total + x.sum(), count=self.count + x.size)
        return new.total / new.count, new


# %%
# The caller rebinds the state on every step, as in ``mean, state =
# state.update(x)``. Because the dataclass is frozen, an accidental
# ``self.total = ...`` raises right away instead of leaking a tracer.

state = MeanState(total=jnp.float32(0.0), count=jnp.int32(0))
state_means = []
for b in batches:
    mean, state = state.update(jnp.array(b))
    state_means.append(float(mean))
print("means:", state_means, "| state:", float(state.total), int(state.count))
assert state_means == means, state_means
assert float(state.total) == 69.0 and int(state.count) == 8, state

with jaxpurity.raises(dataclasses.FrozenInstanceError, match="total"):
    state.total = jnp.float32(0.0)

# %%
# Fix 3: keep the object feel with jaxpurity.Stateful
# ---------------------------------------------------
#
# If callers should keep writing ``stats.update(x)`` without threading the
# state, wrap a pure step ``(state, x) -> (out, new_state)`` in
# :class:`jaxpurity.Stateful`. The method of fix 2 is one already: called on
# the class, ``MeanState.update(state, x)`` returns the mean and the new
# state. :class:`~jaxpurity.Stateful` jits the step, keeps the state on the
# Python side between calls, and checks that the new state has the same
# type as the old one.

running = jaxpurity.Stateful(
    MeanState.update, MeanState(total=jnp.float32(0.0), count=jnp.int32(0))
)
stateful_means = [float(running(jnp.array(b))) for b in batches]
print("means:", stateful_means, "| state:", float(running.state.total), int(running.state.count))
print("traces:", running.trace_count)
assert stateful_means == means, stateful_means
assert float(running.state.total) == 69.0 and int(running.state.count) == 8, running.state

# %%
# Two traces for three calls: the batch of two values has a new shape, the
# other two share one trace. Unlike the broken ``RunningMean``, the calls
# that reuse a trace still update the state, because the state is an input
# and an output of the compiled program, not a side effect of tracing it.
# :doc:`../tools/let_jaxpurity_find_it` shows :func:`jaxpurity.check_pure`
# naming the attribute of ``self`` that received a tracer.

assert running.trace_count == 2, running.trace_count

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "mean_step": {"args": (jnp.float32(1.0), jnp.int32(2), jnp.array([1.0, 2.0]))},
    "FixedRunningMean": "the Python side of fix 1: it keeps what mean_step, the fix, returns",
    "MeanState": {
        "fn": MeanState.update,
        "args": (MeanState(jnp.float32(1.0), jnp.int32(2)), jnp.array([1.0, 2.0])),
    },
    "running": "a driver kept in Python (global_counter shows it refuse jit); "
    "its step, MeanState.update, is the fix that JAX transforms",
}
# sphinx_gallery_end_ignore
