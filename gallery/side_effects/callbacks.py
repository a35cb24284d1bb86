"""
My pure_callback never ran under jit (or ran three times)
=========================================================

JAX has three ways to call your own Python function from compiled code, and
they promise different things. :func:`jax.pure_callback` promises JAX that
the function is pure, so ``jit`` may drop it when nothing uses its result, or
run it once per example under :func:`jax.vmap`; :func:`jax.debug.callback`
and :func:`jax.experimental.io_callback` are the ones meant for side
effects. This page counts how often each runs under ``jit``, ``vmap`` and
:func:`jax.grad`, and shows the f-string that prints a tracer.
"""

# %%
# The code people write
# ---------------------
#
# A logger inside a jitted step, written with ``jax.pure_callback`` because
# it is the callback people find first. It must declare the shape and dtype
# of what it returns, so it returns its argument, and the step ignores the
# result. Every call of the logger is recorded in ``seen`` (read once a
# result is ready: on a GPU or TPU the callback runs after the call returns).

import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback

import jaxpurity

seen = []
remember = seen.append  # the callbacks below record through this


def log(x):
    remember(np.asarray(x).tolist())
    return np.asarray(x)


def like(x):
    return jax.ShapeDtypeStruct(x.shape, x.dtype)


def logged_step(x):
    jax.pure_callback(log, like(x), x)
    return 2 * x


step = jax.jit(logged_step)

for i in range(3):
    step(jnp.float32(i)).block_until_ready()
print("logger calls under jit:", len(seen))

# %%
# What JAX does: the logger never runs
# ------------------------------------
#
# Three calls, no log line. Without ``jit`` the same function logs every
# call, so the bug shows only once the code is compiled:

assert seen == [], seen
logged_step(jnp.float32(5.0)).block_until_ready()
print("logged without jit:", seen)
assert seen == [5.0], seen

# %%
# Why
# ---
#
# ``pure_callback`` tells JAX: this is a pure function of its arguments, like
# ``jnp.sin``. A pure function whose result is unused can be removed, and jit
# removes it as dead code; a pure function may also be run again or once per
# element, since that cannot change the answer. Only the side effect (here,
# the log) tells the difference.

# %%
# The fix: ``jax.debug.callback``
# -------------------------------
#
# :func:`jax.debug.callback` is for a function called for its side effect. It
# returns nothing, and jit keeps it: it runs on every call, asynchronously
# (:func:`jax.effects_barrier` waits for it). :func:`jax.debug.print` is
# built on it; :doc:`print_vs_debug_print` covers printing, and
# ``ordered=True``, which ``jax.debug.callback`` takes too.

seen.clear()


@jax.jit
def step_logged(x):
    jax.debug.callback(log, x)
    return 2 * x


for i in range(3):
    step_logged(jnp.float32(i))
jax.effects_barrier()
print("debug.callback calls:", seen)
assert seen == [0.0, 1.0, 2.0], seen

# %%
# It runs whenever the code around it runs, though, and JAX may run that
# code twice: :func:`jax.grad` of a :func:`jax.checkpoint` function (see
# :doc:`../gradients/differentiating_loops`) runs the forward pass again in
# the backward pass, and logs again. For an effect that must happen once per
# call, use ``io_callback`` (next), which refuses ``grad`` instead (below).

seen.clear()
jax.jit(jax.grad(jax.checkpoint(step_logged)))(jnp.float32(1.0))
jax.effects_barrier()
print("debug.callback under grad of checkpoint:", seen)
assert seen == [1.0, 1.0], seen

# %%
# A side effect that returns a value: ``io_callback``
# ---------------------------------------------------
#
# When the host function both has an effect and returns something the
# computation needs (reading the next item from a queue, a counter kept in
# Python), use :func:`jax.experimental.io_callback`. It runs on every call,
# even when its result is unused, and ``ordered=True`` keeps the calls in
# program order.

tickets = iter(range(100, 200))


def next_ticket():
    return np.int32(next(tickets))


@jax.jit
def take_ticket(x):
    ticket = io_callback(next_ticket, jax.ShapeDtypeStruct((), jnp.int32), ordered=True)
    return x + ticket


got = [int(take_ticket(jnp.int32(0))) for _ in range(3)]
print("io_callback tickets:", got)
assert got == [100, 101, 102], got

# %%
# Under ``vmap``: how many times does the callback run?
# -----------------------------------------------------
#
# ``vmap`` has to know how to batch a ``pure_callback``, and you say how with
# ``vmap_method``. Without it, JAX 0.6.0 and newer refuse; JAX 0.4.35 runs
# the callback once per example and warns that this default will go.


def shifted(x, offset, method=None):
    kwargs = {} if method is None else {"vmap_method": method}
    return jax.pure_callback(add_on_host, like(x), x, offset, **kwargs)


def add_on_host(x, offset):
    remember((np.shape(x), np.shape(offset)))
    return np.asarray(x) + np.asarray(offset)


batch = jnp.arange(6.0).reshape(3, 2)
offset = jnp.array([10.0, 20.0])
seen.clear()
# pure_callback's default under vmap: an error from JAX 0.6.0, a loop (and a warning) before.
if jax.__version_info__ >= (0, 6, 0):
    with jaxpurity.raises(NotImplementedError, match="vmap_method"):
        jax.vmap(shifted, in_axes=(0, None))(batch, offset)
else:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jax.vmap(shifted, in_axes=(0, None))(batch, offset).block_until_ready()
    print(f"{caught[0].category.__name__}: {caught[0].message}")
    print("calls without vmap_method:", seen)
    assert len(seen) == 3, seen

# %%
# Each method, counted. ``"sequential"`` loops: one call per example, each
# with one row. ``"expand_dims"`` and ``"broadcast_all"`` call once with the
# whole batch, so the callback must handle a batch; they differ in what the
# unbatched ``offset`` looks like: a new axis of size 1, or copied to the
# batch size.

shapes = {}
for method in ("sequential", "expand_dims", "broadcast_all"):
    seen.clear()
    out = jax.vmap(shifted, in_axes=(0, None, None))(batch, offset, method)
    assert out.tolist() == (batch + offset).tolist(), out  # waits for the result
    shapes[method] = list(seen)
    print(f"{method:>13}: {len(seen)} call(s), (x, offset) shapes {seen}")
assert shapes == {
    "sequential": [((2,), (2,))] * 3,
    "expand_dims": [((3, 2), (1, 2))],
    "broadcast_all": [((3, 2), (3, 2))],
}, shapes

# %%
# (``vmap_method`` is there on every JAX this site supports.) An ``io_callback``
# batches only when it is unordered (once per example); an ordered one refuses:

with jaxpurity.raises(ValueError, match="ordered IO callback"):
    jax.vmap(lambda x: io_callback(log, like(x), x, ordered=True))(jnp.arange(3.0))

# %%
# Under ``grad``: only ``debug.callback`` goes through
# ----------------------------------------------------
#
# ``grad`` needs a derivative for every operation, and JAX knows none for
# your Python function. ``pure_callback`` says so and suggests the fix:


def host_sin(x):
    return np.sin(x).astype(np.float32)


def f_pure(x):
    return jax.pure_callback(host_sin, like(x), x)


with jaxpurity.raises(ValueError, match="Pure callbacks do not support JVP"):
    jax.grad(f_pure)(1.0)

# %%
# ``io_callback`` refuses too, ordered or not:

with jaxpurity.raises(ValueError, match="IO callbacks do not support JVP"):
    jax.grad(lambda x: io_callback(host_sin, like(x), x, ordered=True))(1.0)

# %%
# ``jax.debug.callback`` has no output to differentiate, so ``grad`` goes
# through, and the callback sees the value (not a tracer), under ``jit`` too:

seen.clear()


def loss(x):
    jax.debug.callback(log, x)
    return x**2


slope = jax.jit(jax.grad(loss))(3.0)
jax.effects_barrier()
print("grad:", float(slope), " callback saw:", seen)
assert float(slope) == 6.0 and seen == [3.0], seen

# %%
# The fix for ``pure_callback`` under ``grad`` is the one the message names:
# give the function a derivative with :class:`jax.custom_jvp` (here another
# callback, ``cos``). Give each callback its ``vmap_method`` too, so that
# the function also goes through ``vmap``, as a ``jnp`` function would.


@jax.custom_jvp
def sin_via_numpy(x):
    return jax.pure_callback(host_sin, like(x), x, vmap_method="expand_dims")


@sin_via_numpy.defjvp
def _sin_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    host_cos = lambda v: np.cos(v).astype(np.float32)  # noqa: E731
    cos = jax.pure_callback(host_cos, like(x), x, vmap_method="expand_dims")
    return sin_via_numpy(x), cos * dx


slope = jax.jit(jax.grad(sin_via_numpy))(1.0)
slopes = jax.vmap(jax.grad(sin_via_numpy))(jnp.array([0.0, 1.0]))
print("d/dx sin at 1:", round(float(slope), 6), "| at 0 and 1, under vmap:", slopes.tolist())
assert abs(float(slope) - np.cos(1.0)) < 1e-6
assert jnp.allclose(slopes, jnp.cos(jnp.array([0.0, 1.0]))), slopes

# %%
# The f-string pitfall
# --------------------
#
# ``jax.debug.print`` fills in its ``{}`` fields with run-time values. An
# f-string is filled in by Python first, while jit traces, so the message is
# fixed before ``jax.debug.print`` sees it, with the tracer in it:


@jax.jit
def show(x):
    jax.debug.print(f"f-string: x = {x}")
    jax.debug.print("format: x = {}", x)
    return x


with jaxpurity.printed() as out:
    show(1.0)
f_string, formatted = sorted(out.lines)  # two run-time prints: in either order
assert "Trace" in f_string and formatted == "format: x = 1.0", out.lines

# %%
# With jaxpurity: ``check_pure`` finds the dropped callback
# ---------------------------------------------------------
#
# :func:`jaxpurity.check_pure` reports a ``pure_callback`` whose result nothing
# uses (``"dropped-callback"``), and the f-string by what the compiled program
# prints: a tracer, on every call (``"trace-time-print"``). Run under ``vmap``
# and ``jax.vjp`` too, it warns that ``shifted`` breaks under grad
# (``mode-mismatch``) and ``take_ticket`` answers anew at each call (``hidden-state``).

for fn, kind in [(step, "dropped-callback"), (show, "trace-time-print")]:
    report = jaxpurity.check_pure(fn, jnp.float32(1.0))
    print(report)
    assert [p.kind for p in report.problems] == [kind], report

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "step_logged": {"args": (jnp.float32(1.0),)},
    "take_ticket": {
        "check_pure": {"hidden-state": "``take_ticket`` answers anew at each call"},
        "args": (jnp.int32(0),),
        "same": "each call takes the next ticket",
        "not": {"grad": "it returns an int32 ticket: nothing to differentiate"},
    },
    "next_ticket": "the host function of take_ticket",
    "shifted": {
        "check_pure": {"mode-mismatch": "``shifted`` breaks under grad"},
        "args": (batch[0], offset),
        "static": {"method": "sequential"},
        "breaks": {"grad": (ValueError, "Pure callbacks do not support JVP", "sin_via_numpy")},
    },
    "sin_via_numpy": {"args": (jnp.float32(1.0),)},
    "_sin_jvp": "the derivative of sin_via_numpy",
}
# sphinx_gallery_end_ignore
