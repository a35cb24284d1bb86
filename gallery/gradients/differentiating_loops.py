"""
jax.grad fails on my fori_loop or while_loop
============================================

A :func:`jax.lax.fori_loop` whose number of steps is an argument, or a
:func:`jax.lax.while_loop` that runs until a condition holds, computes the
right values under :func:`jax.jit`, and :func:`jax.grad` refuses it with
``ValueError: Reverse-mode differentiation does not work for lax.while_loop
or lax.fori_loop with dynamic start/stop values``. This page shows why
(reverse mode stores every step, and the number of steps is not known), the
fixes (static bounds, which make a ``scan``, a ``scan`` over a fixed
maximum with a mask, and for a loop run to convergence,
:func:`jax.lax.custom_root`, which differentiates the answer and not the
loop), each checked against the exact derivative, and :func:`jax.checkpoint`,
which makes a long differentiated loop store less.
"""

# %%
# The code people write
# ---------------------
#
# Fitting a decay rate: integrate ``dx/dt = -rate * x`` with ``n`` explicit
# Euler steps of size ``h``, from ``x = 1``. The number of steps is an
# argument, so :func:`jax.lax.fori_loop` runs it without a new compile for
# every ``n``. The result has a closed form, ``(1 - h * rate) ** n``, and
# the loop agrees with it:

import contextlib
import io
import math
import re

import jax
import jax.numpy as jnp
from jax import lax
from jax.ad_checkpoint import print_saved_residuals

import jaxpurity

H = 0.1


def euler_step(x, rate):
    return x - H * rate * x


@jax.jit
def decay(rate, n):
    return lax.fori_loop(0, n, lambda i, x: euler_step(x, rate), 1.0)


def exact_value(rate, n):
    return (1 - H * rate) ** n


print("decay(0.5, 20):", round(float(decay(0.5, 20)), 6), " exact:", round(exact_value(0.5, 20), 6))
assert math.isclose(float(decay(0.5, 20)), exact_value(0.5, 20), rel_tol=1e-5)

# %%
# What JAX does: ``ValueError`` under ``jax.grad``
# ------------------------------------------------
#
# The slope with respect to the rate is what an optimiser needs, and
# :func:`jax.grad` refuses to compute it:

with jaxpurity.raises(
    ValueError, match=r"Reverse-mode differentiation does not work for lax\.while_loop"
):
    jax.grad(decay)(0.5, 20)

# %%
# A :func:`jax.lax.while_loop` that steps until ``x`` falls below a
# threshold is refused the same way, with or without ``jit``: its trip
# count depends on the data.


def decay_until(rate, threshold):
    def keep_going(x):
        return x > threshold

    return lax.while_loop(keep_going, lambda x: euler_step(x, rate), 1.0)


print("decay_until(0.5, 0.5):", round(float(decay_until(0.5, 0.5)), 6))
with jaxpurity.raises(
    ValueError, match=r"Reverse-mode differentiation does not work for lax\.while_loop"
):
    jax.grad(decay_until)(0.5, 0.5)

# %%
# Why
# ---
#
# Reverse mode (``grad``, :func:`jax.vjp`) runs the function forwards and
# stores what each step needs for its derivative (its *residuals*), then
# walks back through the steps in reverse order. XLA compiles programs with
# fixed shapes, so the store's size, one slot per step, must be known at
# compile time. ``fori_loop`` with a traced ``n`` (here, an argument of a
# jitted function) becomes a ``while`` loop, and a ``while`` loop's trip
# count is only known once it has run. JAX cannot size the store, and says
# so.
#
# Forward mode (:func:`jax.jvp`, :func:`jax.jacfwd`) carries the derivative
# along with the value, step by step, and stores nothing, so it goes through
# the same loop. The exact slope is ``-n * h * (1 - h * rate) ** (n - 1)``:


def exact_slope(rate, n):
    return -n * H * (1 - H * rate) ** (n - 1)


forward = float(jax.jacfwd(decay)(0.5, 20))
print("jacfwd:", round(forward, 6), " exact:", round(exact_slope(0.5, 20), 6))
assert math.isclose(forward, exact_slope(0.5, 20), rel_tol=1e-5)

# %%
# That is a fine answer for one parameter. For many parameters (a network's
# weights), forward mode costs one pass per parameter, and reverse mode is
# the one you want; the fixes below give it a loop it can store.
#
# Fix 1: static bounds, and ``fori_loop`` becomes a ``scan``
# ----------------------------------------------------------
#
# When ``fori_loop``'s start and stop are Python ints, it is lowered to a
# :func:`jax.lax.scan`, whose length is fixed, and reverse mode works. The
# jaxpr shows the ``scan``; with a traced ``n`` it shows a ``while``:


def decay_fixed(rate, n):
    return lax.fori_loop(0, n, lambda i, x: euler_step(x, rate), 1.0)


static_jaxpr = str(jax.make_jaxpr(lambda rate: decay_fixed(rate, 20))(0.5))
traced_jaxpr = str(jax.make_jaxpr(decay_fixed)(0.5, 20))
print("static n: scan" if "scan" in static_jaxpr else "static n: no scan")
print("traced n: while" if "while" in traced_jaxpr else "traced n: no while")
assert "scan" in static_jaxpr and "while" not in static_jaxpr
assert "while" in traced_jaxpr

# %%
# Under ``jit``, ``n`` must then be static (``static_argnames``), and each
# new ``n`` compiles again (:doc:`../control_flow/static_arguments` shows
# the cost). The gradient is the exact one:

decay_static = jax.jit(decay_fixed, static_argnames="n")
slope = float(jax.grad(decay_static)(0.5, n=20))
print("grad, static n=20:", round(slope, 6), " exact:", round(exact_slope(0.5, 20), 6))
assert math.isclose(slope, exact_slope(0.5, 20), rel_tol=1e-5)

# %%
# Fix 2: ``scan`` over a fixed maximum, with a mask
# -------------------------------------------------
#
# To keep ``n`` traced, one compile for every ``n``, give the loop a length
# known while tracing, ``MAX_STEPS``, and make the steps past ``n`` do
# nothing: each keeps ``x`` as it was when ``i >= n``. The cost is
# ``MAX_STEPS`` steps on every call, and a stored slot for each.

MAX_STEPS = 32


@jax.jit
def decay_masked(rate, n):
    def body(x, i):
        return jnp.where(i < n, euler_step(x, rate), x), None

    x, _ = lax.scan(body, 1.0, jnp.arange(MAX_STEPS))
    return x


# %%
# One compiled gradient serves every ``n`` up to ``MAX_STEPS``, and matches
# the exact slope, and the value of the ``fori_loop`` version:

grad_masked = jax.jit(jax.grad(decay_masked))
for n in [0, 1, 20, MAX_STEPS]:
    got = float(grad_masked(0.5, n))
    print(f"n={n:>2}: grad {got:+.6f}   exact {exact_slope(0.5, n):+.6f}")
    assert math.isclose(got, exact_slope(0.5, n), rel_tol=1e-5, abs_tol=1e-7), (n, got)
    assert math.isclose(float(decay_masked(0.5, n)), float(decay(0.5, n)), rel_tol=1e-6)

# %%
# Under :func:`jax.vmap`, one call gives the slopes for a batch of step
# counts, or of rates, each the exact one:

ns = jnp.array([5, 10, 30])
rates = jnp.array([0.1, 0.5, 2.0])
per_n = jax.vmap(grad_masked, in_axes=(None, 0))(0.5, ns)
per_rate = jax.vmap(grad_masked, in_axes=(0, None))(rates, 10)
print("vmap over n:   ", [round(g, 6) for g in per_n.tolist()])
print("vmap over rate:", [round(g, 6) for g in per_rate.tolist()])
assert jnp.allclose(per_n, jnp.array([exact_slope(0.5, int(n)) for n in ns]), rtol=1e-5)
assert jnp.allclose(per_rate, jnp.array([exact_slope(float(r), 10) for r in rates]), rtol=1e-5)

# %%
# ``MAX_STEPS`` is a promise that nothing checks: ``n = 40`` runs 32 steps,
# without a word, and gives the slope of 32 steps. Pick the bound from what
# ``n`` can be, and check ``n`` where it is known before the call.

over = float(grad_masked(0.5, 40))
print(f"n=40: grad {over:+.6f}   exact {exact_slope(0.5, 40):+.6f}")
assert over == float(grad_masked(0.5, MAX_STEPS))
assert not math.isclose(over, exact_slope(0.5, 40), rel_tol=1e-2)

# %%
# The masked steps still compute ``euler_step``, and ``jnp.where``
# differentiates both of its sides. A step that is unsafe on the values it
# would be given past ``n`` (a ``log``, a ``sqrt``, a division) makes a
# ``nan`` gradient even though it is masked: :doc:`nan_gradients` shows the
# fix.
#
# A while loop that stops when it converges can be made the same way: a
# ``scan`` over the most steps it may take, where each step does nothing
# once the condition fails (``jnp.where(x > threshold, step(x), x)``).
#
# Fix 3: a loop run to convergence: differentiate the answer
# ----------------------------------------------------------
#
# When the loop solves an equation, the answer does not depend on the path
# the loop took to it, and neither does its derivative: the implicit
# function theorem gives it from the equation at the answer.
# :func:`jax.lax.custom_root` does this. Give it the equation ``f(x) = 0``, a
# first guess, and the loop that solves it (any loop, ``while_loop``
# included), and a solver for the linear equation of the derivative (for a
# scalar, a division). Reverse mode never enters the loop. Here Newton's
# method finds the square root of ``a``:


def sqrt_by_newton(a):
    def newton(f, x):
        return lax.while_loop(lambda x: jnp.abs(f(x)) > 1e-6 * a, lambda x: x - f(x) / (2 * x), x)

    return lax.custom_root(lambda x: x * x - a, a, newton, lambda g, y: y / g(1.0))


a = jnp.array([2.0, 9.0])
roots = jax.vmap(sqrt_by_newton)(a)
slopes = jax.jit(jax.vmap(jax.grad(sqrt_by_newton)))(a)
print("roots:", roots.tolist(), "| grad:", slopes.tolist(), "| exact 1 / (2 sqrt a):")
print("      ", (1 / (2 * jnp.sqrt(a))).tolist())
assert jnp.allclose(roots, jnp.sqrt(a)) and jnp.allclose(slopes, 1 / (2 * jnp.sqrt(a)))

# %%
# Memory: ``jax.checkpoint`` on the loop body
# -------------------------------------------
#
# Reverse mode through a ``scan`` stores each step's residuals, stacked:
# for a long loop with a body that does real work, that is a lot of memory.
# :func:`jax.checkpoint` (also named ``jax.remat``) on the body stores only
# what goes into each step, the carry, and computes the rest again during
# the backward pass. A damped pendulum, 200 steps, for a batch of 8 starting
# angles:

STEPS = 200


def pendulum_step(state, damping):
    angle, speed = state
    accel = -jnp.sin(angle) - damping * speed * jnp.cos(angle) ** 2
    return angle + 0.05 * speed, speed + 0.05 * jnp.tanh(accel)


def swing(damping, checkpoint):
    def body(state, _):
        return pendulum_step(state, damping), None

    if checkpoint:
        body = jax.checkpoint(body)
    start = (jnp.linspace(0.1, 1.5, 8), jnp.zeros(8))
    (angle, _), _ = lax.scan(body, start, None, length=STEPS)
    return jnp.sum(angle**2)


# %%
# :func:`jax.ad_checkpoint.print_saved_residuals` lists what reverse mode
# would store. (It prints; the helper below collects its lines, and counts
# the arrays stacked over the 200 steps and the floats saved in all.)
# Without the checkpoint, reverse mode keeps several arrays per step (the
# sine, the cosine, the ``tanh`` and other intermediates of the body); with
# it, only the carry, the angle and the speed: under a third of the floats
# here. The more work a step does, the bigger the saving.


def saved_residuals(f, *args):
    """How many arrays f's reverse mode stacks over the steps, and how many floats in all."""
    with contextlib.redirect_stdout(io.StringIO()) as out:
        print_saved_residuals(f, *args)
    shapes = [re.match(r"\w+\[([\d,]*)\]", line).group(1) for line in out.getvalue().splitlines()]
    sizes = [math.prod(int(d) for d in shape.split(",") if d) for shape in shapes]
    return sum(shape.startswith(f"{STEPS},") for shape in shapes), sum(sizes)


saved = {c: saved_residuals(lambda d, c=c: swing(d, c), 0.3) for c in (False, True)}
print("stacked arrays:", saved[False][0], "->", saved[True][0])
print("floats saved:  ", saved[False][1], "->", saved[True][1])
assert saved[True][0] == 2 < saved[False][0], saved
assert saved[True][1] < saved[False][1] / 3, saved

# %%
# The gradient is the same, and so is forward mode's, which stores nothing
# (jitted, so that each version compiles once):

plain = float(jax.jit(jax.grad(lambda d: swing(d, False)))(0.3))
remat = float(jax.jit(jax.grad(lambda d: swing(d, True)))(0.3))
forward = float(jax.jit(jax.jacfwd(lambda d: swing(d, False)))(0.3))
print(f"grad: {plain:.6f}   with checkpoint: {remat:.6f}   jacfwd: {forward:.6f}")
assert math.isclose(plain, remat, rel_tol=1e-5), (plain, remat)
assert math.isclose(plain, forward, rel_tol=1e-4), (plain, forward)

# %%
# The saving is paid for in time: the backward pass runs each step's body
# again. ``jax.checkpoint`` takes a ``policy`` (from
# ``jax.checkpoint_policies``) that keeps some values, such as the results
# of matrix products, and recomputes only the cheap ones.

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "decay_fixed": {"fn": decay_static, "args": (0.5,), "static": {"n": 20}},
    "decay_static": "decay_fixed, jitted with n static: decay_fixed's entry runs it",
    "decay_masked": {"args": (0.5, 20)},
    "grad_masked": "decay_masked's gradient, jitted: decay_masked's entry runs it",
    "sqrt_by_newton": {"args": (jnp.float32(2.0),)},
}
# sphinx_gallery_end_ignore
