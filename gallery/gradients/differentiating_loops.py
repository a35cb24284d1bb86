"""
jax.grad fails on my fori_loop or while_loop
============================================

A :func:`jax.lax.fori_loop` whose number of steps is an argument, or a
:func:`jax.lax.while_loop` that runs until a condition holds, computes the
right values under :func:`jax.jit`, and :func:`jax.grad` refuses it with
``ValueError: Reverse-mode differentiation does not work for lax.while_loop
or lax.fori_loop with dynamic start/stop values``. This page shows why
(reverse mode stores every step, and the number of steps is not known), the
fixes (static bounds, which make a ``scan``, or a ``scan`` over a fixed
maximum with a mask), each checked against the exact derivative, and
:func:`jax.checkpoint`, which makes a long differentiated loop store less.
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
) as info:
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
# A while loop that stops when it converges is made the same way: a
# ``scan`` over the most steps it may take, where each step does nothing
# once the condition fails (``jnp.where(x > threshold, step(x), x)``).
#
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
# would store. (It prints; the helper below collects its lines, and
# counts the arrays stacked over the 200 steps and the floats saved in
# all.)


def saved_residuals(f, *args):
    """The lines print_saved_residuals prints for f, without the build machine's paths."""
    with contextlib.redirect_stdout(io.StringIO()) as out:
        print_saved_residuals(f, *args)
    return jaxpurity.clean_paths(out.getvalue()).splitlines()


def floats(line):
    """How many numbers a residual holds: the product of its shape, f32[200,8] -> 1600."""
    shape = re.match(r"\w+\[([\d,]*)\]", line).group(1)
    return math.prod(int(d) for d in shape.split(",") if d)


saved = {}
for checkpoint in (False, True):
    lines = saved_residuals(lambda d, c=checkpoint: swing(d, c), 0.3)
    per_step = [line for line in lines if line.startswith(f"f32[{STEPS},")]
    saved[checkpoint] = (len(per_step), sum(floats(line) for line in lines))
    print(f"checkpoint={checkpoint}:")
    print("  " + "\n  ".join(lines))
    print(f"  {len(per_step)} arrays over the {STEPS} steps, {saved[checkpoint][1]} floats")

# %%
# Without the checkpoint, reverse mode keeps several arrays per step (the
# sine, the cosine, the ``tanh`` and other intermediates of the body); with
# it, only the carry, the angle and the speed: under a third of the floats
# here. The more work a step does, the bigger the saving.

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
#
# With jaxpurity
# --------------
#
# :func:`jaxpurity.check_pure` finds no impurity: the loop is pure, and
# what fails is the differentiation, not a side effect. It does warn that
# ``decay`` reads the global ``H`` while it is traced, so that ``jit``
# bakes ``0.1`` into the program. For a constant step size that is what we
# want; a step size meant to change would be an argument
# (:doc:`../state_and_leaks/global_config`).

report = jaxpurity.check_pure(decay, 0.5, 20)
print(report)
assert report.ok, report
assert [w.kind for w in report.warnings] == ["trace-time-read"], report
assert "`H`" in str(report.warnings[0]), report

# %%
# Given the ``ValueError`` caught at the top of the page (kept with ``as
# info``), :func:`jaxpurity.explain` says what usually causes it and names
# this page:

explanation = jaxpurity.explain(info.value)
print(explanation)
assert explanation.topic == "differentiating_loops", explanation
