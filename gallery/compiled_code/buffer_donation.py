"""
My array was deleted after a jit call (donate_argnums)
======================================================

A :func:`jax.jit` function with ``donate_argnums`` hands the memory of its
arguments to its outputs, and afterwards the array you passed in is gone:
reading it raises ``RuntimeError: Array has been deleted``, and passing it
again fails too. This page shows both errors, how to see whether the update
really happened in place (``is_deleted()`` and ``unsafe_buffer_pointer()``),
the ``Some donated buffers were not usable`` warning when it did not, the
places where donation is dropped without one (a bigger ``jit``, a TPU's
layout), and the fix: rebind the name to the result, and donate at the
outermost ``jit``.
"""

# %%
# The code people write
# ---------------------
#
# A training step that donates the parameters, so that XLA can write the new
# parameters into the memory of the old ones instead of holding both. After
# the step, the code looks at how much the parameters moved.

import warnings

import jax
import jax.numpy as jnp

import jaxpurity


def loss(params, x):
    return jnp.sum((params * x - 1.0) ** 2)


def sgd_step(params, x):
    return params - 0.1 * jax.grad(loss)(params, x)


train_step = jax.jit(sgd_step, donate_argnums=0)

params = jnp.zeros(4)
x = jnp.arange(4.0)
new_params = train_step(params, x)
print("new params:", new_params.tolist())

# %%
# What JAX does: ``RuntimeError: Array has been deleted``
# --------------------------------------------------------
#
# The step ran and its result is fine. The old ``params`` is not:

with jaxpurity.raises(RuntimeError, match="Array has been deleted") as info:
    print("moved by:", new_params - params)

# %%
# The same happens in a loop that forgets to rebind the name: the first call
# deletes ``params``, the second passes a deleted array. JAX 0.12 raises the
# ``RuntimeError`` again; JAX 0.4.35 to 0.10 let the runtime refuse it, with
# ``ValueError: INVALID_ARGUMENT:`` and the backend's words: "Buffer has been
# deleted or donated" on CPU, "Donation requested for invalid buffer" on TPU.

params = jnp.zeros(4)
with jaxpurity.raises((RuntimeError, ValueError), match="(?i)deleted|donation requested"):
    for _ in range(2):
        new_params = train_step(params, x)

# %%
# Why
# ---
#
# ``donate_argnums=0`` tells jit: the caller will not use this argument again.
# XLA may then compute the output in the argument's memory, and JAX marks the
# argument deleted so that nothing reads memory that now holds something
# else. You can see both: :meth:`jax.Array.is_deleted`, and the address of
# the memory, :meth:`jax.Array.unsafe_buffer_pointer`, which the output now
# has.

params = jnp.zeros(4)
address = params.unsafe_buffer_pointer()
new_params = train_step(params, x)
print("old params deleted:", params.is_deleted())
print("new params in the old memory:", new_params.unsafe_buffer_pointer() == address)
assert params.is_deleted() and new_params.unsafe_buffer_pointer() == address

# %%
# The fix: rebind the name
# ------------------------
#
# Treat the donated argument as used up, as if the call took it. Give the
# result the old name, and take anything you still need from the old value
# (here, how far the step moved) inside the step, or before the call.


def step_and_distance(params, x):
    new = sgd_step(params, x)
    return new, jnp.linalg.norm(new - params)


step_and_distance = jax.jit(step_and_distance, donate_argnums=0)

params = jnp.zeros(4)
for _ in range(3):
    params, moved = step_and_distance(params, x)
    print("moved by:", round(float(moved), 4))
print("params:", [round(v, 4) for v in params.tolist()], " deleted:", params.is_deleted())
assert not params.is_deleted() and float(moved) < 1.0

# %%
# A pytree argument is donated leaf by leaf, and a vmapped step under jit
# donates the whole batch: the same rule, the same fix.

state = {"w": jnp.zeros(4), "step": jnp.int32(0)}
advance = jax.jit(lambda s: {"w": s["w"] + 1.0, "step": s["step"] + 1}, donate_argnums=0)
old_state, state = state, advance(state)
print("leaves deleted:", {k: v.is_deleted() for k, v in old_state.items()})
assert all(v.is_deleted() for v in old_state.values())

batch = jnp.ones((3, 4))
batched_step = jax.jit(jax.vmap(sgd_step, in_axes=(0, None)), donate_argnums=0)
address = batch.unsafe_buffer_pointer()
new_batch = batched_step(batch, x)
print("batch reused in place:", new_batch.unsafe_buffer_pointer() == address)
assert batch.is_deleted() and new_batch.unsafe_buffer_pointer() == address

# %%
# When donation does nothing: ``Some donated buffers were not usable``
# --------------------------------------------------------------------
#
# A donated buffer can only become an output of the same size. When no output
# fits (here the step returns a scalar loss, not new parameters), JAX warns
# once, when it compiles, and keeps the argument alive:

evaluate = jax.jit(loss, donate_argnums=0)
params = jnp.zeros(4)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    evaluate(params, x)
for w in caught:
    print(f"{w.category.__name__}: {w.message}")
print("params deleted:", params.is_deleted())
assert [w.category for w in caught] == [UserWarning], caught
assert "Some donated buffers were not usable" in str(caught[0].message)
assert not params.is_deleted()

# %%
# What counts as "fits" depends on the JAX and on the backend. JAX 0.8.0 and
# newer also offer XLA a donated argument for an output of another shape or
# dtype (here ``float32[4]`` into ``float32[2,2]``, and into ``int32[4]``);
# 0.6.2 and older need the same shape and dtype, and warn. XLA then reuses
# the memory where both take the same bytes *as the backend lays them out*:
# the CPU does for both; a TPU chip pads small arrays into tiles, so
# ``float32[2,2]`` takes more memory than ``float32[4]``, and it keeps the
# argument alive, with no warning (recorded on a TPU v5e, JAX 0.10.2).

reshape = jax.jit(lambda p: p.reshape(2, 2) * 2.0, donate_argnums=0)
cast = jax.jit(lambda p: (p * 2.0).astype(jnp.int32), donate_argnums=0)
reused, warned = {}, {}
for name, fn in [("reshape", reshape), ("cast", cast)]:
    params = jnp.zeros(4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(params)
    reused[name], warned[name] = params.is_deleted(), bool(caught)
print(f"JAX {jax.__version__} on {jax.default_backend()}: reused {reused}, warned {warned}")
newer = jax.__version_info__ >= (0, 8, 0)
assert warned == {"reshape": not newer, "cast": not newer}, warned
assert reused["cast"] == newer, reused
if jax.default_backend() in ("cpu", "tpu"):  # the backends recorded here
    assert reused["reshape"] == (newer and jax.default_backend() == "cpu"), reused

# %%
# And a donated argument that the function never uses is dropped from the
# compiled program (jit's ``keep_unused=False``) before donation is
# considered: no warning, nothing deleted, and no memory saved.

ignore_first = jax.jit(lambda p, q: q * 2.0, donate_argnums=0)
params = jnp.zeros(4)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    ignore_first(params, x)
print("unused donated argument deleted:", params.is_deleted(), " warnings:", len(caught))
assert not params.is_deleted() and not caught

# %%
# Where donation is dropped without a word
# ----------------------------------------
#
# ``donate_argnums`` counts only on the ``jit`` that Python calls. Two steps
# in one jitted function make one program, whose arguments the outer ``jit``
# owns: the inner donation is dropped, with no warning, and no memory is
# saved. Donate at the outermost ``jit``:


def two_steps(params, x):
    return train_step(train_step(params, x), x)


kept, given = jnp.zeros(4), jnp.zeros(4)
jax.jit(two_steps)(kept, x)
jax.jit(two_steps, donate_argnums=0)(given, x)
print("inner donation deleted:", kept.is_deleted(), " outer donation:", given.is_deleted())
assert not kept.is_deleted() and given.is_deleted()

# %%
# :func:`jax.grad` of a function that calls a donating step runs that step
# on your array, and donates it: the caller's ``params`` is gone. Donate in
# the step that takes the gradient, not in a function that is differentiated.

params = jnp.zeros(4)
jax.grad(lambda p: jnp.sum(train_step(p, x)))(params)
print("deleted by grad:", params.is_deleted())
assert params.is_deleted()

# %%
# And the same array cannot be donated and passed again in one call
# (`jax-ml/jax#9635 <https://github.com/jax-ml/jax/issues/9635>`_): the
# runtime refuses it. Pass a copy (``jnp.copy(params)``) as the second.

params = jnp.zeros(4)
with jaxpurity.raises(RuntimeError, match="previously donated in the same call"):
    jax.jit(lambda p, q: p + q, donate_argnums=0)(params, params)

# %%
# On CPU, GPU and TPU
# -------------------
#
# This page was built on the backend printed below. The CPU backend has
# honoured donation since jaxlib 0.3.24 (November 2022), so every JAX this
# site supports donates there as on GPU and TPU; before that, every donation
# on CPU gave the warning above with ``Donation is not implemented for cpu``.
# JAX decides which arguments it offers and warns when no output could fit;
# the backend decides whether it reuses the memory, and may decline in
# silence. Check with ``is_deleted()`` where you run.

print("backend:", jax.default_backend())

# %%
# What jaxpurity can and cannot see
# ---------------------------------
#
# :func:`jaxpurity.check_pure` passes: donation is no impurity of the
# function, which computes the same result from the same inputs. The bug is
# the caller's, who reads an array after giving it away, so the report warns
# that ``params`` is donated: an ``argument-mutation``, as on every donating
# step of this page, the fixes too. (The check works on copies, so it leaves
# your argument alive.)

params = jnp.zeros(4)
report = jaxpurity.check_pure(train_step, params, x)
print(report)
assert report.ok and not params.is_deleted(), report
assert [w.kind for w in report.warnings] == ["argument-mutation"], report

# %%
# Given the error from the top of the page, :func:`jaxpurity.explain` names
# this page:

explanation = jaxpurity.explain(info.value)
print(explanation)
assert explanation.topic == "buffer_donation", explanation

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them,
# each donating at the outermost jit, and checks that the donated argument is gone.
FIXES = {
    "step_and_distance": {
        "donates": (0,),
        "args": lambda: (jnp.zeros(4), x),
        "check_pure": {"argument-mutation": "as on every donating step of this page"},
    },
    "advance": {
        "donates": (0,),
        "args": lambda: ({"w": jnp.zeros(4), "step": jnp.int32(0)},),
        "check_pure": {"argument-mutation": "as on every donating step of this page"},
    },
    "batched_step": {
        "donates": (0,),
        "args": lambda: (jnp.ones((3, 4)), x),
        "check_pure": {"argument-mutation": "as on every donating step of this page"},
    },
}
# sphinx_gallery_end_ignore
