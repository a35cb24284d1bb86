"""
The values I collect inside a lax.scan body are tracers
=======================================================

You append each step's value to a Python list (or store it in a dict) from
inside the body of :func:`jax.lax.scan`, :func:`jax.lax.while_loop` or
:func:`jax.lax.fori_loop`. The loop returns the right answer, but the list
holds a single tracer instead of one number per step, and using it raises
:class:`jax.errors.UnexpectedTracerError` with a message that ends in
"traced for scan" (or the name of the other loop). This page shows why the
body runs only once, and how to get the values out: return them as scan
outputs, or carry them.
"""

# %%
# The code people write
# ---------------------
#
# A running sum with :func:`jax.lax.scan`. To look at the partial sums
# afterwards, the body appends each one to a list defined outside it, as a
# Python ``for`` loop would.

import re

import jax
import jax.numpy as jnp

import jaxpurity

partial_sums = []


def add_step(total, x):
    total = total + x
    partial_sums.append(total)
    return total, None


xs = jnp.arange(4.0)
final, _ = jax.lax.scan(add_step, jnp.float32(0.0), xs)

# %%
# What JAX does: one entry, and it is a tracer
# --------------------------------------------
#
# The final sum of 0, 1, 2 and 3 is right. The list, which a reader expects
# to hold four partial sums, holds what the output shows.

print("final:", float(final))
print("entries:", len(partial_sums), "| type:", type(partial_sums[0]).__name__)
assert float(final) == 6.0, final
assert len(partial_sums) == 1, partial_sums
assert type(partial_sums[0]).__name__.endswith("Tracer"), partial_sums

# %%
# Using the list: UnexpectedTracerError, "traced for scan"
# --------------------------------------------------------
#
# Stacking the collected values fails. Note that there is no :func:`jax.jit`
# anywhere on this page: :func:`jax.lax.scan` traces its body by itself. The
# message says so in the line "The function being traced when the value
# leaked was ``add_step`` ... traced for scan".

with jaxpurity.raises(jax.errors.UnexpectedTracerError, match="traced for scan") as scan_info:
    jnp.stack(partial_sums)

traced_for = re.search(r"value leaked was (\w+) .* traced for (\w+)", str(scan_info.value))
print("leaked from:", traced_for.group(1), "| traced for:", traced_for.group(2))
assert traced_for.groups() == ("add_step", "scan"), traced_for.groups()

# %%
# Why
# ---
#
# The body of a :mod:`jax.lax` loop is not called once per step. JAX calls
# it once, with abstract tracers for the carry and the slice of ``xs``, and
# records the array operations into a loop body program; the loop itself then
# runs that program, without Python. So ``partial_sums.append`` ran once,
# during that one trace, and stored the tracer standing for "the carry at
# some step". When :func:`jax.lax.scan` returned, its trace ended and the
# tracer became invalid.
#
# The same holds for :func:`jax.lax.while_loop` and
# :func:`jax.lax.fori_loop`, and for :func:`jax.lax.cond` branches: anything
# the body stores outside itself, in a list, a dict, a closure variable or
# an attribute, is a tracer from a finished trace. (:doc:`global_counter`
# shows :obj:`jax.checking_leaks`, which reports such a leak as soon as the
# loop is traced.)

# %%
# JAX also caches the traced body, keyed on the body function and the types
# of the carry and of one slice of ``xs``. Running the scan again, even over
# a longer ``xs``, reuses that trace: the body does not run at all, and the
# list does not grow.

jax.lax.scan(add_step, jnp.float32(0.0), xs)
jax.lax.scan(add_step, jnp.float32(0.0), jnp.arange(6.0))
print("entries after two more scans:", len(partial_sums))
assert len(partial_sums) == 1, partial_sums

# %%
# The same leak from a while_loop
# -------------------------------
#
# Newton's method for the square root of 2. The body records the last step
# size in a dict for a convergence report. The loop converges; the report
# does not work.

report = {}


def newton_cond(carry):
    x, step = carry
    return jnp.abs(step) > 1e-6


def newton_body(carry):
    x, _ = carry
    step = (x * x - 2.0) / (2.0 * x)
    report["last_step"] = step
    return x - step, step


root, _ = jax.lax.while_loop(newton_cond, newton_body, (jnp.float32(1.0), jnp.float32(1.0)))
print("root:", round(float(root), 6))
assert abs(float(root) - 2.0**0.5) < 1e-6, root

# %%
# The error names the loop that traced the body. Recent JAX says
# ``while_body``; older releases say ``while_loop``. The output shows the
# word that this JAX version uses.

with jaxpurity.raises(jax.errors.UnexpectedTracerError, match="traced for while") as info:
    report["last_step"] * 1.0

word = re.search(r"traced for (\w+)", str(info.value)).group(1)
print("traced for:", word)
assert word in ("while_body", "while_loop"), word

# %%
# The same leak from jax.checkpoint
# ---------------------------------
#
# :func:`jax.checkpoint` (``remat``) traces the function it wraps on its
# own, as a loop traces its body, even without :func:`jax.jit`, so that
# :func:`jax.grad` can run it again in the backward pass. A list of the
# caller's that the function appends to gets a tracer of that trace, and the
# change is lost. With no loop to name it, this leak is hard to place:
# :func:`jaxpurity.check_pure` runs :obj:`jax.checking_leaks` and reports it
# as a ``remat-mutation``. It does so on JAX 0.10.2 and newer only: older
# JAX cannot forget the trace that leaked, so there, run your code under
# :obj:`jax.checking_leaks` yourself. The fixes below hold here too.


def smooth(x):
    seen = []

    @jax.checkpoint
    def layer(y):
        seen.append(y)
        return jnp.sin(y)

    return layer(x) * len(seen)


found = jaxpurity.check_pure(smooth, jnp.float32(1.0))
kinds = [problem.kind for problem in found.problems]
print("check_pure(smooth) finds:", kinds)
assert kinds == (["remat-mutation"] if jax.__version_info__ >= (0, 10, 2) else []), found

# %%
# Fix 1: return per-step values as scan outputs
# ---------------------------------------------
#
# The second item a scan body returns is its per-step output. JAX stacks
# those outputs along a new leading axis, so returning the partial sum gives
# all four of them as one array.


def add_step_fixed(total, x):
    total = total + x
    return total, total


final, sums = jax.lax.scan(add_step_fixed, jnp.float32(0.0), xs)
print("final:", float(final), "| partial sums:", sums.tolist())
assert float(final) == 6.0, final
assert sums.tolist() == [0.0, 1.0, 3.0, 6.0], sums

# %%
# Fix 2: put what you need in the carry
# -------------------------------------
#
# :func:`jax.lax.while_loop` has no per-step outputs, because the number of
# steps is not known in advance. Everything the caller needs after the loop
# goes in the carry, which the loop returns. Here the carry also counts the
# iterations, a common companion to the last step size.


def newton_body_fixed(carry):
    x, _, iterations = carry
    step = (x * x - 2.0) / (2.0 * x)
    return x - step, step, iterations + 1


def newton_cond_fixed(carry):
    return jnp.abs(carry[1]) > 1e-6


start = (jnp.float32(1.0), jnp.float32(1.0), jnp.int32(0))
root, last_step, iterations = jax.lax.while_loop(newton_cond_fixed, newton_body_fixed, start)
print("root:", round(float(root), 6), "| iterations:", int(iterations))
print("last step below 1e-6:", bool(abs(last_step) <= 1e-6))
assert abs(float(root) - 2.0**0.5) < 1e-6, root
assert abs(float(last_step)) <= 1e-6, last_step
assert 1 <= int(iterations) < 10, iterations

# %%
# The carry is also all that :func:`jax.grad` can take back through the
# loop, and reverse mode refuses a ``while_loop``: it would have to store
# every step, and the number of steps is known only once the loop has run.
# :doc:`../gradients/differentiating_loops` shows why, and what to write
# instead (forward mode, a bounded ``scan``, or differentiating the answer
# rather than the loop).


def newton_root(x0):
    start = (x0, jnp.float32(1.0), jnp.int32(0))
    return jax.lax.while_loop(newton_cond_fixed, newton_body_fixed, start)[0]


with jaxpurity.raises(ValueError, match="Reverse-mode differentiation does not work"):
    jax.grad(newton_root)(jnp.float32(1.0))

# %%
# The same goes for :func:`jax.lax.fori_loop`: its body receives
# ``(i, carry)`` and returns the new carry. To keep every step's value,
# write it into an array in the carry, or switch to :func:`jax.lax.scan`,
# as in fix 1.


def fill_squares(i, squares):
    return squares.at[i].set(i * i)


squares = jax.lax.fori_loop(0, 4, fill_squares, jnp.zeros(4, jnp.int32))
print("squares:", squares.tolist())
assert squares.tolist() == [0, 1, 4, 9], squares

# %%
# :doc:`../tools/let_jaxpurity_find_it` shows :func:`jaxpurity.check_pure`
# finding such a leak and naming the list that holds it, even where JAX has
# cached the body's trace.

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "add_step_fixed": {
        "fn": lambda xs: jax.lax.scan(add_step_fixed, jnp.float32(0.0), xs),
        "args": (xs,),
    },
    "newton_body_fixed": {
        "fn": newton_root,
        "args": (jnp.float32(1.0),),
        "breaks": {
            "grad": (ValueError, "Reverse-mode differentiation", "differentiating_loops"),
        },
    },
    "newton_cond_fixed": "the condition of newton_body_fixed's loop",
    "newton_root": "fix 2's loop, as a function: newton_body_fixed's entry runs it",
    "fill_squares": {
        "fn": lambda squares: jax.lax.fori_loop(0, 4, fill_squares, squares),
        "args": (jnp.zeros(4, jnp.int32),),
        "not": {"grad": "it fills int32 squares: nothing to differentiate"},
    },
}
# sphinx_gallery_end_ignore
