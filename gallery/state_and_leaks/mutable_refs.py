"""
My jax.new_ref (a mutable array) raises under vmap, grad or a loop
==================================================================

A mutable array reference, made by :func:`jax.new_ref <jax.ref.new_ref>`
(JAX 0.7.2 and newer; ``jax.experimental.mutable_array`` before, and
JAX's errors still call it a mutable array), is state that :func:`jax.jit`
keeps: its reads and writes are part of the compiled program, so they
happen on every call, where a Python counter changes once per trace
(:doc:`global_counter`). But each transformation sets rules on what a
``Ref`` may do, and a program that breaks one raises. This page shows what
a ``Ref`` buys, then the rules of :func:`jax.jit`, :func:`jax.vmap`,
:func:`jax.grad` and the loops, each with the error JAX raises and the code
that holds.
"""

# %%
# What a Ref buys
# ---------------
#
# A count of the calls of a layer, kept deep inside a model. Threaded by
# hand, the count would be an argument and a result of the layer and of
# every function that calls it. A ``Ref`` made once, at the top of the
# module, is written where the count changes, and nothing else changes.

import jax
import jax.numpy as jnp

import jaxpurity

# sphinx_gallery_start_ignore
if not hasattr(jax, "new_ref"):
    raise SystemExit(f"This page needs JAX 0.7.2 or newer (jax.new_ref), not {jax.__version__}.")
# sphinx_gallery_end_ignore

calls = jax.new_ref(jnp.int32(0))


def layer(x):
    calls[...] += 1
    return jnp.tanh(x)


@jax.jit
def model(x):
    return layer(layer(x))


model(1.0)
model(2.0)
print("calls:", int(calls[...]))
assert int(calls[...]) == 4

# %%
# Four: ``model`` was traced once, and its program wrote the ``Ref`` twice
# in each of its two calls. ``calls[...] = 0`` resets it. The rest of this
# page is what JAX refuses, and what holds instead.
#
# jit: a Ref stays on the caller's side
# -------------------------------------
#
# A jitted function may read and write a ``Ref``, closed over or passed in,
# but not return one (jax-ml/jax#26349), and not take the same ``Ref`` twice,
# as two arguments or as an argument it also closes over (jax-ml/jax#25449):
# two names for one buffer would make the order of its writes ambiguous.

with jaxpurity.raises(ValueError, match="mutable array references cannot be returned"):
    jax.jit(lambda x: jax.new_ref(x))(1.0)

with jaxpurity.raises(ValueError, match="both closed over and passed"):
    jax.jit(lambda ref: layer(ref[...]))(calls)

# %%
# The fix for the first is to return the value, ``ref[...]``, or to return
# nothing and keep the ``Ref`` where the caller holds it. For the second,
# pass a ``Ref`` once: as an argument, or by closure, not both.
#
# vmap: an unbatched Ref may be read, not written
# -----------------------------------------------
#
# Mapped over a batch, ``model`` raises: every row writes ``calls``, which
# holds one value for the whole batch. JAX refuses any write from a row into
# an unbatched ``Ref``, a closed-over one or one mapped with ``in_axes=None``,
# even a write that every row would make the same.

xs = jnp.array([0.5, 1.0, 1.5])
with jaxpurity.raises(Exception, match="unbatched array reference"):
    jax.vmap(model)(xs)

# %%
# Reading an unbatched ``Ref`` is allowed. To write, give each row its own
# entry: a batched ``Ref``, mapped with ``in_axes=0``, or one made inside the
# mapped function. Here each row counts its own calls.


def counted_layer(count, x):
    count[...] += 1
    return jnp.tanh(x)


row_counts = jax.new_ref(jnp.zeros(3, jnp.int32))
ys = jax.jit(jax.vmap(counted_layer))(row_counts, xs)
print("outputs:", ys.round(4).tolist(), "| calls per row:", row_counts[...].tolist())
assert row_counts[...].tolist() == [1, 1, 1]

# %%
# grad: a Ref is plumbing
# -----------------------
#
# :func:`jax.grad` does not differentiate through a ``Ref``: it is neither
# an input nor an output of the function it differentiates. So writing it a
# value that depends on the differentiated input fails, whether the ``Ref``
# is passed in or a global the function closes over. A log of intermediates
# is the common case.


def loss(x, log):
    hidden = jnp.sin(x)
    log[...] = hidden
    return hidden**2


log = jax.new_ref(jnp.float32(0.0))
with jaxpurity.raises(Exception, match="differentiated value on a non-differentiated"):
    jax.grad(loss)(1.0, log)

# %%
# The fix: write the value without its derivative, with
# :func:`jax.lax.stop_gradient`. The log keeps the number; the gradient
# comes from what the function returns.


def logged_loss(x, log):
    hidden = jnp.sin(x)
    log[...] = jax.lax.stop_gradient(hidden)
    return hidden**2


grad = jax.jit(jax.grad(logged_loss))(1.0, log)
print("grad:", round(float(grad), 4), "| logged:", round(float(log[...]), 4))
assert abs(float(grad) - 2 * jnp.sin(1.0) * jnp.cos(1.0)) < 1e-6

# %%
# Loops: close over the Ref, carry values
# ---------------------------------------
#
# A ``Ref`` that a :func:`jax.lax.scan` or :func:`jax.lax.fori_loop` body
# closes over is written at every step: an accumulator needs no carry.


def running_total(xs):
    total = jax.new_ref(jnp.float32(0.0))

    def step(carry, x):
        total[...] += x
        return carry, total[...]

    _, partial_sums = jax.lax.scan(step, None, xs)
    return partial_sums


sums = jax.jit(running_total)(xs)
print("partial sums:", sums.tolist())
assert sums.tolist() == [0.5, 1.5, 3.0]

# %%
# What a loop refuses is a ``Ref`` in its carry: the body would return it.
# Keep the ``Ref`` outside the loop, as ``running_total`` does, and carry
# plain values.

with jaxpurity.raises(ValueError, match="cannot be returned"):
    jax.lax.scan(lambda ref, x: (ref, x), jax.new_ref(0.0), xs)

# %%
# A :func:`jax.lax.while_loop` must not stop on a ``Ref`` that its body
# writes. Without jit, JAX refuses the loop: it hands the ``Ref`` to the
# condition and to the body. Under jit it raises nothing, and the condition
# sees the value the ``Ref`` had before the loop (JAX 0.10.2 and 0.12.0.1):
# the loop runs on. Bounded at 20 steps by its carry, the loop below runs 20
# times, where the ``Ref`` should have stopped it at 5. Keep what the
# condition reads in the carry.

steps = jax.new_ref(0)


def count_to_five(limit):
    def body(i):
        steps[...] += 1
        return i + 1

    return jax.lax.while_loop(lambda i: (steps[...] < 5) & (i < limit), body, 0)


with jaxpurity.raises(ValueError, match="only one reference to a mutable array"):
    count_to_five(20)
print("steps under jit:", int(jax.jit(count_to_five)(20)), "| the Ref:", int(steps[...]))
assert int(steps[...]) == 20

# %%
# With jaxpurity: check_pure
# --------------------------
#
# A ``Ref`` that a function closes over is state outside its arguments:
# :func:`jaxpurity.check_pure` warns about it on ``model``, as a
# ``container-mutation`` that names the ``Ref`` it writes, and with a
# ``mode-mismatch``, since ``model`` runs but raises under :func:`jax.vmap`,
# as above. On ``counted_layer`` and ``logged_loss`` it warns with the same
# ``mode-mismatch``: check_pure maps them with the ``Ref`` shared by every
# row, the write refused above. On ``running_total``, whose ``Ref`` is made
# inside, it reports nothing. The check leaves ``calls`` as it found it.

calls[...] = 0
with jaxpurity.printed(echo=False):
    report = jaxpurity.check_pure(model, 1.0)
print(report)
assert {w.kind for w in report.warnings} == {"container-mutation", "mode-mismatch"}, report
assert not report.problems and int(calls[...]) == 0, report

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
# A Ref cannot be stacked into a batch: the vmap cell maps the values, and shares the Ref,
# which is the refusal the page shows; the batched Ref that holds is on the page.
SHARED = (Exception, "unbatched array reference", "mutable_refs")
FIXES = {
    "counted_layer": {
        "needs": "jax.new_ref",
        "args": lambda: (jax.new_ref(jnp.int32(0)), xs[0]),
        "wrt": 1,
        "in_axes": (None, 0),
        "breaks": {"vmap": SHARED},
        "check_pure": {"mode-mismatch": "with the ``Ref`` shared by every row"},
    },
    "logged_loss": {
        "needs": "jax.new_ref",
        "args": lambda: (1.0, jax.new_ref(jnp.float32(0.0))),
        "in_axes": (0, None),
        "breaks": {"vmap": SHARED},
        "check_pure": {"mode-mismatch": "with the ``Ref`` shared by every row"},
    },
    "running_total": {"needs": "jax.new_ref", "args": (xs,)},
}
# sphinx_gallery_end_ignore
