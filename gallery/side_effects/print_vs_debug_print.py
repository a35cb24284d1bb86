"""
print shows a tracer, and only once, inside jit
===============================================

A ``print`` inside a :func:`jax.jit` function raises nothing, yet it prints
a tracer instead of numbers, and only on the first call. This page shows
when ``print`` runs (while JAX traces) and when :func:`jax.debug.print` runs
(every time the compiled code runs), under ``jit``, :func:`jax.vmap`,
:func:`jax.grad` and inside loops, and how ``ordered=True`` fixes the order
of the printed lines.
"""

# %%
# The code people write
# ---------------------
#
# A normalisation step with a ``print`` to see what comes in, called three
# times with different data. To count the printed lines, the page collects
# what a block prints with :func:`jaxpurity.printed` (which waits for JAX's
# run-time prints, then shows them below the cell as usual).

import jax
import jax.numpy as jnp
from jax import lax

import jaxpurity


@jax.jit
def normalize(x):
    print("print: x =", x)
    return x / jnp.linalg.norm(x)


with jaxpurity.printed() as out:
    for scale in (1.0, 2.0, 3.0):
        normalize(scale * jnp.array([3.0, 4.0]))

# %%
# What JAX does: it raises nothing
# --------------------------------
#
# Three calls, one line, and the line shows a tracer (its dtype and shape)
# where you expected numbers:

print_lines = [line for line in out.lines if line.startswith("print:")]
print(f"{len(print_lines)} print line(s) for 3 calls")
assert len(print_lines) == 1 and "Trace" in print_lines[0], out.lines

# %%
# A call with a new shape prints again, once:

with jaxpurity.printed() as out:
    normalize(jnp.array([1.0, 2.0, 2.0]))
    normalize(jnp.array([2.0, 4.0, 4.0]))
assert sum(line.startswith("print:") for line in out.lines) == 1, out.lines

# %%
# Why
# ---
#
# ``jit`` runs your Python function only to *trace* it: every argument is
# replaced by a tracer that stands for any array of that shape and dtype,
# and JAX records the operations done to it. ``print`` is not such an
# operation; it runs right there, in Python, and prints the tracer. The
# compiled program that later runs on each call contains the division and
# the norm, but no trace of the ``print``. A new input shape or dtype means
# a new trace, so Python runs again and so does ``print``.
#
# The fix: ``jax.debug.print``
# ----------------------------
#
# :func:`jax.debug.print` puts the print *into* the compiled program. It
# takes a format string with ``{}`` fields, filled in with the runtime
# values on every call:


@jax.jit
def normalize_debug(x):
    jax.debug.print("debug.print: x = {}", x)
    return x / jnp.linalg.norm(x)


with jaxpurity.printed() as out:
    for scale in (1.0, 2.0, 3.0):
        normalize_debug(scale * jnp.array([3.0, 4.0]))
assert len(out.lines) == 3, out.lines
assert out.lines[0].endswith("[3. 4.]") and out.lines[2].endswith("[ 9. 12.]"), out.lines

# %%
# The two together show both moments: ``print`` when the function is
# traced, ``jax.debug.print`` when it runs. Python's ``print`` is still the
# right tool to look at *shapes* while tracing.


@jax.jit
def both(x):
    print("trace time: shape", x.shape)
    jax.debug.print("run time: x = {}", x)
    return x + 1


with jaxpurity.printed() as out:
    both(jnp.arange(2.0))
    both(jnp.arange(2.0) + 10)
assert [line.split(":")[0] for line in out.lines] == ["trace time", "run time", "run time"], (
    out.lines
)

# %%
# Under ``vmap``: one ``print``, one ``jax.debug.print`` per example
# -------------------------------------------------------------------
#
# :func:`jax.vmap` traces the function once for the whole batch, so
# ``print`` shows one batch tracer. ``jax.debug.print`` prints once for each
# example in the batch, with that example's values.


def scaled(x):
    print("print:", x)
    jax.debug.print("debug.print: {}", x)
    return 2 * x


with jaxpurity.printed() as out:
    jax.vmap(scaled)(jnp.arange(3.0))
assert sum(line.startswith("print:") for line in out.lines) == 1, out.lines
debug_lines = sorted(line for line in out.lines if line.startswith("debug.print:"))
assert debug_lines == [f"debug.print: {v}" for v in ("0.0", "1.0", "2.0")], out.lines

# %%
# Under ``grad``: ``jax.debug.print`` shows the primal value
# ----------------------------------------------------------
#
# :func:`jax.grad` traces too, with tracers that carry a value and a
# derivative. ``print`` shows that tracer; ``jax.debug.print`` shows only
# the value.

with jaxpurity.printed() as out:
    slope = jax.grad(scaled)(3.0)
print("grad:", float(slope))
assert float(slope) == 2.0
assert out.lines[0].startswith("print:") and "Trace" in out.lines[0], out.lines
assert [line for line in out.lines if line.startswith("debug.print")] == ["debug.print: 3.0"], (
    out.lines
)

# %%
# Inside loops: once per trace versus once per iteration
# ------------------------------------------------------
#
# The body of :func:`jax.lax.fori_loop` is traced once, however many times
# it runs, so the same split shows up there without ``jit``:


def body(i, total):
    print("print in body:", i)
    jax.debug.print("debug.print in body: i = {}", i)
    return total + i


with jaxpurity.printed() as out:
    lax.fori_loop(0, 4, body, 0)
assert sum(line.startswith("print in body") for line in out.lines) == 1, out.lines
assert sum(line.startswith("debug.print in body") for line in out.lines) == 4, out.lines

# %%
# The order of the lines: ``ordered=True``
# ----------------------------------------
#
# By default ``jax.debug.print`` calls that do not depend on each other may
# run in any order: the compiler is free to reorder independent operations.
# Pass ``ordered=True`` to have them appear in program order, within one
# call and from one call to the next.


@jax.jit
def two_steps(x):
    jax.debug.print("step 1: {}", x, ordered=True)
    y = jnp.sin(x)
    jax.debug.print("step 2: {}", y, ordered=True)
    return y


with jaxpurity.printed() as out:
    two_steps(0.0)
    two_steps(1.0)
assert [line.split(":")[0] for line in out.lines] == ["step 1", "step 2"] * 2, out.lines

# %%
# ``jax.debug.print`` is a debugging aid: it moves data from the device back
# to Python on every call, so take it out of hot code once you have found
# the problem. For pausing at a value, :func:`jax.debug.breakpoint` works the
# same way.
# To run a Python function of your own at run time (a logger, a progress
# bar), see :doc:`callbacks`.

# %%
# :doc:`../tools/debugging_workflow` shows :func:`jaxpurity.check_pure`
# reporting a ``print`` that runs only while JAX traces.

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "normalize_debug": {"args": (jnp.array([3.0, 4.0]),)},
    "both": "shows when each print runs; its print of a shape is on purpose",
    "two_steps": {"args": (jnp.float32(1.0),)},
}
# sphinx_gallery_end_ignore
