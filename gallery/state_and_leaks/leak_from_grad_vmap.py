"""
The loss I logged inside jax.grad is a tracer
=============================================

You append the loss to a list from inside the function you pass to
:func:`jax.grad`, or collect a per-example value inside a function you pass
to :func:`jax.vmap`. The gradients are right, but printing the logged value
with ``float`` raises :class:`jax.errors.ConcretizationTypeError`, and
combining the logged values raises :class:`jax.errors.UnexpectedTracerError`.
This page shows what those list entries really are, and the two ways to get
the values out: ``has_aux=True`` (or :func:`jax.value_and_grad`) for
gradients, and an extra output for :func:`jax.vmap`.
"""

# %%
# The code people write
# ---------------------
#
# A least-squares fit by gradient descent. The loss function logs each loss
# in a list, so that the training loop can report progress.

import jax
import jax.numpy as jnp

import jaxpurity

inputs = jnp.array([[1.0, 2.0], [3.0, 4.0]])
targets = jnp.array([1.0, 2.0])
losses = []


def loss_fn(w):
    loss = jnp.mean((inputs @ w - targets) ** 2)
    losses.append(loss)
    return loss


w = jnp.zeros(2)
for _ in range(3):
    w = w - 0.05 * jax.grad(loss_fn)(w)

# %%
# What JAX does: three entries, all tracers
# -----------------------------------------
#
# Unlike :func:`jax.jit`, :func:`jax.grad` keeps no trace cache: it runs the Python
# function on every call, so the list grows by one entry per step. But each
# entry is a tracer, not a number. (The tracer's class name differs between
# JAX versions; the output shows this one's.)

print("entries:", len(losses), "| types:", sorted({type(t).__name__ for t in losses}))
assert len(losses) == 3, losses
assert all(type(t).__name__.endswith("Tracer") for t in losses), losses

# %%
# Printing the loss: ConcretizationTypeError
# ------------------------------------------
#
# The usual progress line calls ``float`` on the last loss. The error does
# not mention a leak at all: it says that a concrete value was expected and
# an abstract tracer was found.

with jaxpurity.raises(jax.errors.ConcretizationTypeError, match="concrete value"):
    print(f"loss: {float(losses[-1]):.4f}")

# %%
# Combining the losses: UnexpectedTracerError
# -------------------------------------------
#
# Turning the log into one array, for a plot or a mean, fails with the
# error that names the real problem: a tracer escaped from a transformed
# function.

with jaxpurity.raises(jax.errors.UnexpectedTracerError, match="unexpected tracer") as info:
    jnp.stack(losses)

# %%
# The same leak from jax.vmap
# ---------------------------
#
# :func:`jax.vmap` runs the function once for the whole batch, not once per
# row. A list filled inside it gets one entry, and that entry is a tracer
# whose shape is the shape of *one* example: ``()`` here, though there are
# two rows.

row_norms = []


def normalize(row):
    norm = jnp.linalg.norm(row)
    row_norms.append(norm)
    return row / norm


unit_rows = jax.vmap(normalize)(inputs)
print("unit rows:", [[round(v, 4) for v in row] for row in unit_rows.tolist()])
print("entries:", len(row_norms), "| shape of the entry:", row_norms[0].shape)
assert len(row_norms) == 1 and row_norms[0].shape == (), row_norms

# %%
# Why
# ---
#
# :func:`jax.grad` and :func:`jax.vmap` call your function with tracers in
# place of its array arguments. A tracer for :func:`jax.grad` carries the
# value together with what the derivative needs; a tracer for
# :func:`jax.vmap` stands for a whole batch while behaving like one example.
# Every array computed from them is a tracer too, including the loss you
# append. Those tracers are only meaningful while the transformation is
# running. When :func:`jax.grad` returns, it has taken what it needs from the
# function's *return value*; anything the function stashed elsewhere is left
# holding a tracer of a finished transformation.
#
# The rule is the same as for :func:`jax.jit` (see :doc:`global_counter`):
# a transformed function gives back values only through what it returns.

# %%
# Fix 1: value_and_grad, and has_aux for anything else
# ----------------------------------------------------
#
# :func:`jax.value_and_grad` returns the loss together with the gradient.
# To get more values out (metrics, predictions), return a pair
# ``(loss, aux)`` and pass ``has_aux=True``: JAX differentiates the first
# item and hands back the second, any pytree, as concrete arrays.


def loss_and_metrics(w):
    errors = inputs @ w - targets
    loss = jnp.mean(errors**2)
    return loss, {"max_abs_error": jnp.max(jnp.abs(errors))}


w = jnp.zeros(2)
history = []
for _ in range(3):
    (loss, metrics), grads = jax.value_and_grad(loss_and_metrics, has_aux=True)(w)
    history.append((float(loss), float(metrics["max_abs_error"])))
    w = w - 0.05 * grads
print("(loss, max |error|) per step:", [(round(a, 4), round(b, 4)) for a, b in history])

# %%
# The logged losses are plain floats now, they go down, and the first one
# is the loss at the starting weights, computed directly.

first_loss = float(loss_and_metrics(jnp.zeros(2))[0])
print("first loss:", first_loss)
assert history[0][0] == first_loss == 2.5, (history, first_loss)
assert history[0][0] > history[1][0] > history[2][0], history

# %%
# With :func:`jax.grad` itself, ``has_aux=True`` returns ``(grads, aux)``.

grads, metrics = jax.grad(loss_and_metrics, has_aux=True)(w)
print("grads:", grads.shape, "| aux:", sorted(metrics), type(metrics["max_abs_error"]).__name__)
assert grads.shape == (2,) and not type(metrics["max_abs_error"]).__name__.endswith("Tracer")

# %%
# Fix 2: return per-example values from the vmapped function
# ----------------------------------------------------------
#
# :func:`jax.vmap` maps over every output, so an extra output comes back
# with one entry per row.


def normalize_with_norm(row):
    norm = jnp.linalg.norm(row)
    return row / norm, norm


unit_rows, norms = jax.vmap(normalize_with_norm)(inputs)
print("norms:", [round(v, 4) for v in norms.tolist()], "| shape:", norms.shape)
assert norms.shape == (2,), norms.shape
assert jnp.allclose(norms, jnp.array([5.0**0.5, 5.0])), norms

# %%
# :doc:`../tools/let_jaxpurity_find_it` shows :func:`jaxpurity.check_pure`,
# which looks through :func:`jax.grad` and :func:`jax.vmap` to the function
# inside, finding such a leak.

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "loss_and_metrics": {
        "fn": jax.value_and_grad(loss_and_metrics, has_aux=True),
        "args": (jnp.array([0.5, -0.5]),),
    },
    "normalize_with_norm": {"args": (inputs[1],)},
}
# sphinx_gallery_end_ignore
