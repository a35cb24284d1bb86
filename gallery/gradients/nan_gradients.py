"""
My gradient is nan, but the function's value is fine
=====================================================

A function that uses :func:`jax.numpy.where` to keep a square root, a log or
a division away from its bad inputs returns the right values, and
:func:`jax.grad` still returns ``nan`` there. This page shows why (the side
that ``where`` throws away is differentiated too, and ``0 * inf`` is
``nan``), the fix (a second ``where``, on the input), the same trap in a
masked mean and in a vector norm, and how ``jax.debug_nans`` stops at the
first operation that makes a ``nan``, with a ``FloatingPointError``.
"""

# %%
# The code people write
# ---------------------
#
# A square root that is ``0`` for inputs that are not positive. The
# ``where`` makes the value right everywhere, including at ``0`` and below:

import traceback

import jax
import jax.numpy as jnp

import jaxpurity


def sqrt_or_zero(x):
    return jnp.where(x > 0, jnp.sqrt(x), 0.0)


inputs = jnp.array([-1.0, 0.0, 4.0])
print("values at", inputs.tolist(), "->", sqrt_or_zero(inputs).tolist())
assert sqrt_or_zero(inputs).tolist() == [0.0, 0.0, 2.0]

# %%
# What JAX does: a nan gradient
# -----------------------------
#
# The slope of this function is ``0`` wherever the ``0.0`` side is picked,
# and ``1 / (2 * sqrt(4)) = 0.25`` at ``4``. :func:`jax.grad` says ``nan``
# at ``0`` and at ``-1``, with or without :func:`jax.jit`, and under
# :func:`jax.vmap`. No error is raised.

grad = jax.grad(sqrt_or_zero)
print("grad at 0:     ", float(grad(0.0)))
print("jit(grad) at 0:", float(jax.jit(grad)(0.0)))
per_input = jax.vmap(grad)(inputs).tolist()
print("vmap(grad) at", inputs.tolist(), "->", per_input)
assert jnp.isnan(grad(0.0)) and jnp.isnan(jax.jit(grad)(0.0))
assert jnp.isnan(jnp.array(per_input)).tolist() == [True, True, False], per_input

# %%
# Why: both sides are differentiated
# ----------------------------------
#
# ``jnp.where`` computes both of its sides for every element, then picks.
# Its gradient does the same in reverse: each side receives the incoming
# gradient where it was picked, and ``0`` where it was not. The square root
# gets a ``0`` at ``x = 0``, and multiplies it by its own derivative there,
# ``1 / (2 * sqrt(0))``, which is ``inf``. In floating point, ``0 * inf`` is
# ``nan``, and the ``nan`` flows on into the result. (At ``-1`` the square
# root is already ``nan`` in the forward pass, and so is its derivative.)
#
# Each piece, computed on its own: the derivative of ``sqrt`` at ``0``, the
# product, and the backward pass of ``sqrt`` handed that ``0``
# (:func:`jax.vjp`):

slope = jax.grad(jnp.sqrt)(0.0)
_, sqrt_backward = jax.vjp(jnp.sqrt, 0.0)
(from_zero,) = sqrt_backward(0.0)
print("d sqrt / dx at 0:", float(slope))
print("0 * inf:         ", float(0.0 * slope))
print("sqrt's backward pass given 0:", float(from_zero))
assert jnp.isinf(slope) and jnp.isnan(0.0 * slope) and jnp.isnan(from_zero)

# %%
# The mask is right: it multiplies by zero. But a zero cannot cancel an
# infinity, so the thrown-away side poisons the gradient. The value of the
# function never shows it, because the forward pass picks before anything
# is multiplied.
#
# The fix: a second ``where``, on the input
# -----------------------------------------
#
# Keep the bad inputs from ever reaching the square root. A first ``where``
# hands it a harmless ``1.0`` wherever its result will be thrown away; the
# derivative there is finite (``0.5``), and the mask's ``0`` makes it ``0``.
# The second ``where`` is the one from before.


def sqrt_or_zero_safe(x):
    safe_x = jnp.where(x > 0, x, 1.0)
    return jnp.where(x > 0, jnp.sqrt(safe_x), 0.0)


expected = [0.0, 0.0, 0.25]
checks = {
    "grad": [float(jax.grad(sqrt_or_zero_safe)(v)) for v in inputs],
    "jit(grad)": [float(jax.jit(jax.grad(sqrt_or_zero_safe))(v)) for v in inputs],
    "vmap(grad)": jax.vmap(jax.grad(sqrt_or_zero_safe))(inputs).tolist(),
}
for name, grads in checks.items():
    print(f"{name:>10} at {inputs.tolist()}: {grads}")
    assert grads == expected, (name, grads)
assert sqrt_or_zero_safe(inputs).tolist() == sqrt_or_zero(inputs).tolist()

# %%
# It holds for the second derivative too: ``0`` where the ``0.0`` side is
# picked, and ``-1 / (4 * 4 ** 1.5) = -0.03125`` at ``4``.

second = jax.vmap(jax.grad(jax.grad(sqrt_or_zero_safe)))(inputs).tolist()
print("second derivative:", second)
assert second == [0.0, 0.0, -0.03125], second

# %%
# The replacement value only has to keep the unsafe function and its
# derivative finite: ``1.0`` suits ``sqrt``, ``log`` and a division. A
# :func:`jax.lax.cond` differentiates only the branch that was picked, so
# it has no such ``nan``, even under ``vmap``, where it runs both branches
# (:doc:`../control_flow/cond_branch_types` shows them run):

cond_grads = jax.vmap(jax.grad(lambda v: jax.lax.cond(v > 0, jnp.sqrt, jnp.zeros_like, v)))(inputs)
print("vmap(grad) of a lax.cond at", inputs.tolist(), "->", cond_grads.tolist())
assert cond_grads.tolist() == expected, cond_grads

# %%
# The same trap: a masked mean
# ----------------------------
#
# Padded batches hit it all the time. Two sequences of different lengths
# are padded with ``0`` to one shape, and a mask marks the real entries. The
# mean log-likelihood over the real entries is right, since ``where=``
# leaves the padding out of the sum:

probs = jnp.array([[0.5, 0.25, 0.0], [0.8, 0.0, 0.0]])
mask = probs > 0


def mean_log(p, mask):
    return jnp.mean(jnp.log(p), where=mask)


value = float(mean_log(probs[0], mask[0]))
print("mean log of [0.5, 0.25]:", round(value, 6))
assert abs(value - (jnp.log(0.5) + jnp.log(0.25)) / 2) < 1e-6, value

# %%
# Its gradient is ``nan`` at every padded entry: ``log`` was taken of the
# padding's ``0``, and its derivative there, ``1 / 0``, is ``inf``.

print("grad:", jax.grad(mean_log)(probs[0], mask[0]).tolist())
assert jnp.isnan(jax.grad(mean_log)(probs[0], mask[0])).tolist() == [False, False, True]

# %%
# The fix is the same double ``where``: give ``log`` a ``1.0`` where the
# mask is off. The gradient is then ``1 / (n * p)`` on the ``n`` real
# entries and ``0`` on the padding, row by row under ``vmap``, and under
# ``jit``:


def mean_log_safe(p, mask):
    return jnp.mean(jnp.log(jnp.where(mask, p, 1.0)), where=mask)


rows = jax.jit(jax.vmap(jax.grad(mean_log_safe)))(probs, mask)
exact = []
for row, keep in zip(probs.tolist(), mask.tolist(), strict=True):
    n = sum(keep)
    exact.append([1 / (n * p) if k else 0.0 for p, k in zip(row, keep, strict=True)])
print("grad, row by row:", [[round(g, 6) for g in row] for row in rows.tolist()])
print("1 / (n * p):     ", [[round(g, 6) for g in row] for row in exact])
assert jnp.allclose(rows, jnp.array(exact)), (rows, exact)

# %%
# The same trap: the norm of a vector
# -----------------------------------
#
# :func:`jax.numpy.linalg.norm` is ``sqrt(sum(x ** 2))``, whose derivative
# ``x / norm`` is ``0 / 0`` at the zero vector. A loss that measures a
# distance, or normalises a direction, meets the zero vector sooner or later:

zero = jnp.zeros(3)
print("grad of norm at 0:", jax.grad(jnp.linalg.norm)(zero).tolist())
assert jnp.isnan(jax.grad(jnp.linalg.norm)(zero)).all()

# %%
# The double ``where`` goes around the square root: on the squared norm.
# At the zero vector the gradient is ``0`` (one choice of subgradient);
# elsewhere it is the one of ``jnp.linalg.norm``.


def safe_norm(x):
    squared = jnp.sum(x**2)
    nonzero = squared > 0
    return jnp.where(nonzero, jnp.sqrt(jnp.where(nonzero, squared, 1.0)), 0.0)


vectors = jnp.array([[0.0, 0.0, 0.0], [3.0, 0.0, 4.0]])
safe_grads = jax.jit(jax.vmap(jax.grad(safe_norm)))(vectors)
print("safe_norm grads:", [[round(g, 6) for g in row] for row in safe_grads.tolist()])
assert safe_grads[0].tolist() == [0.0, 0.0, 0.0]
assert jnp.allclose(safe_grads[1], jax.grad(jnp.linalg.norm)(vectors[1]))
assert jnp.allclose(jax.vmap(safe_norm)(vectors), jnp.linalg.norm(vectors, axis=1))

# %%
# Finding the first nan: ``jax.debug_nans``
# -----------------------------------------
#
# In a real model the ``nan`` shows up far from where it was made: in the
# loss, or in parameters a few steps later. With the ``jax_debug_nans``
# setting on, JAX checks the output of every operation it runs and raises a
# ``FloatingPointError`` at the first one that makes a ``nan``.
# ``jax.debug_nans(True)`` turns it on for a block;
# ``jax.config.update("jax_debug_nans", True)`` (or ``JAX_DEBUG_NANS=True``
# in the environment) for the whole program. ``jax_debug_infs`` does the
# same for infinities.
#
# Run the gradient without a ``jit`` of your own, and ask for it at ``0``.
# JAX still runs the backward pass of ``grad`` as a compiled program (JAX
# 0.12 says so in the line above the error: "the backward pass of a jax.jit
# function"). When a compiled program returns a ``nan``, JAX runs
# it again operation by operation, "de-optimized", and raises at the first
# operation that makes one:

NAN_ERROR = r"invalid value \(nan\) encountered in"
with jax.debug_nans(True), jaxpurity.printed() as said:
    with jaxpurity.raises(FloatingPointError, match=NAN_ERROR) as info:
        jax.grad(sqrt_or_zero)(0.0)
says_jit = "the backward pass of a jax.jit function" in said.text
if jax.__version_info__ >= (0, 12) or jax.__version_info__ < (0, 5):  # 0.10.2 prints no line
    assert says_jit == (jax.__version_info__ >= (0, 12)), said.text

# %%
# The message names the operation whose output was ``nan``. On recent JAX
# that is ``mul``: the backward pass multiplying ``sqrt``'s infinite slope
# by the zero from ``where``. (JAX 0.4.35, and other releases before 0.5.1,
# say ``jit(sqrt)``, the operation whose derivative rule made it, and add a
# paragraph saying that the "de-optimized function did not produce invalid
# values"; that paragraph is wrong there, a known bug, jax-ml/jax#24955.)
# The traceback says where: its last lines are the line of your code that
# the operation came from (the helper below picks the frames of this file):


def frames_here(error, script=sqrt_or_zero.__code__.co_filename):
    """The frames of this script in an error's traceback and in the errors it chains to."""
    here, seen = [], set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        tb = traceback.extract_tb(error.__traceback__)
        for f in tb:
            frame = f"{f.name}, line {f.lineno}: {f.line}"
            if f.filename == script and frame not in here:
                here.append(frame)
        error = error.__cause__ or error.__context__
    return here


for frame in frames_here(info.value):
    print(frame)
assert any(frame.startswith("sqrt_or_zero,") for frame in frames_here(info.value))

# %%
# At ``-1`` it stops earlier, in the forward pass: ``sqrt(-1)`` is ``nan``
# already, though ``where`` throws it away and the value is ``0``. Run op by
# op, every intermediate result is checked, the thrown-away ones included.

with jax.debug_nans(True):
    with jaxpurity.raises(FloatingPointError, match=NAN_ERROR):
        sqrt_or_zero(-1.0)

# %%
# Under ``jit``, only the outputs of the compiled program are checked: the
# forward pass at ``-1`` returns ``0.0`` and passes. When an output is
# ``nan``, JAX runs the function again without ``jit`` to find the
# operation (the lines about a "de-optimized" function below are JAX
# saying so). So keep ``jit`` for speed, and let ``debug_nans`` drop it
# when it has to.

with jax.debug_nans(True):
    print("jit, value at -1:", float(jax.jit(sqrt_or_zero)(-1.0)))
    assert float(jax.jit(sqrt_or_zero)(-1.0)) == 0.0
    with jaxpurity.raises(FloatingPointError, match=NAN_ERROR):
        jax.jit(jax.grad(sqrt_or_zero))(-1.0)

# %%
# Once fixed, the check doubles as a test: the safe versions run under
# ``debug_nans`` without a word, forward and backward, at every input.

with jax.debug_nans(True):
    jax.vmap(jax.grad(sqrt_or_zero_safe))(inputs)
    jax.vmap(jax.grad(mean_log_safe))(probs, mask)
    jax.vmap(jax.grad(safe_norm))(vectors)
print("debug_nans: no nan in the safe versions")

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "sqrt_or_zero_safe": {"args": (jnp.array([-1.0, 4.0]),)},
    "mean_log_safe": {"args": (probs[0], mask[0])},
    "safe_norm": {"args": (jnp.array([3.0, 0.0, 4.0]),)},
}
# sphinx_gallery_end_ignore
