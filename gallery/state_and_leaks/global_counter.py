"""
My global counter only moves when jit retraces
==============================================

You count calls with a global variable inside a function decorated with
:func:`jax.jit`, and the count is wrong while JAX raises nothing at all: the
counter moves only when JAX traces the function again, and the result keeps
using the value the counter had at trace time. Storing a traced value in a
global is worse: a later use raises
:class:`jax.errors.UnexpectedTracerError`, and :obj:`jax.checking_leaks`
reports it earlier as a ``Leaked trace`` error with a chain of references
that names the holder. This page shows all three, then the fixes: passing the
state in and out of the function, :func:`jax.new_ref <jax.ref.new_ref>` (JAX
0.7.2 and newer; under :func:`jax.vmap`, one per row), and
:class:`jaxpurity.Stateful`.
"""

# %%
# The code people write
# ---------------------
#
# A step function bumps a global counter and scales its input by it. In plain Python
# this counts calls. The ``global`` statement is what makes it impure: the function
# reads and writes state that is not among its arguments or its results.

import re
import types

import jax
import jax.numpy as jnp

import jaxpurity

counter = 0


@jax.jit
def step(x):
    global counter
    counter += 1
    return x * counter


# %%
# What JAX does: raises nothing, counts traces
# --------------------------------------------
#
# Three calls with the same float32 input. A reader of the code expects the counter to
# reach 3 and the results to grow. The output shows what happens instead.

x = jnp.float32(2.0)
results = [float(step(x)) for _ in range(3)]
print("results:", results, "counter:", counter)
assert results == [2.0, 2.0, 2.0], results
assert counter == 1, counter

# %%
# A call with a new dtype makes JAX trace ``step`` again, so the body runs
# once more and the counter moves. Going back to float32 reuses the program
# compiled by the first trace: the counter does not move, and the result
# still uses the counter value baked in at that first trace.

as_int = int(step(jnp.int32(2)))
print("int32 call:", as_int, "counter:", counter)
assert as_int == 4 and counter == 2, (as_int, counter)

again = float(step(x))
print("float32 call again:", again, "counter:", counter)
assert again == 2.0 and counter == 2, (again, counter)

# %%
# Why
# ---
#
# :func:`jax.jit` runs the Python body once per new input *signature* (shape, dtype,
# weak type, static arguments) with abstract tracers in place of the values, and records
# only the array operations into a program (a jaxpr). ``counter += 1`` is plain Python:
# it runs during that trace and is not recorded. ``x * counter`` reads a Python int,
# which enters the program as a constant. Printing the jaxpr of the float32 version
# shows that constant; :func:`jax.make_jaxpr` reuses the cached trace here, so the
# counter still does not move.

jaxpr_text = str(jax.make_jaxpr(step)(x))
print(jaxpr_text)
assert re.search(r"mul \w+ 1\.0", jaxpr_text), jaxpr_text
print("counter:", counter)
assert counter == 2, counter

# %%
# A real leak: UnexpectedTracerError
# ----------------------------------
#
# Saving an *array* computed inside the function is worse than bumping an
# int. During the trace that array is a tracer, a placeholder that belongs to
# the trace. Here ``scale`` keeps a history of its intermediate values in a
# list that lives in another module, as a ``metrics.py`` imported all over a
# project would; the page builds that module in place to stay one file. The
# call itself succeeds and returns a correct value.

metrics = types.ModuleType("metrics")
metrics.history = []


@jax.jit
def scale(x):
    y = x * 3.0
    metrics.history.append(y)
    return y + 1.0


scaled = float(scale(1.0))
print("scale(1.0) =", scaled, "| metrics.history holds a", type(metrics.history[0]).__name__)
assert scaled == 4.0, scaled
assert len(metrics.history) == 1, metrics.history

# %%
# The list holds the tracer from the trace, not a number. The trace ended when ``scale``
# returned, so any later use of that tracer fails. The error names the function that was
# being traced and the line that created the leaked value.

with jaxpurity.raises(jax.errors.UnexpectedTracerError, match="unexpected tracer"):
    metrics.history[0] + 1.0

# %%
# Catch it at trace time: jax.checking_leaks and "Leaked trace"
# -------------------------------------------------------------
#
# The :class:`~jax.errors.UnexpectedTracerError` fires where the tracer is
# *used*, which can be far from where it escaped. :obj:`jax.checking_leaks`
# (or the ``JAX_CHECK_TRACER_LEAKS`` environment variable) checks at the end
# of every trace that no tracer is still referenced.
#
# It checks only when a trace happens. A call that hits the compilation cache
# does not trace, so it is not checked: the output shows that nothing was
# raised and nothing was appended.

metrics.history.clear()
with jax.checking_leaks():
    scale(1.0)
print("cached call under checking_leaks, history length:", len(metrics.history))
assert len(metrics.history) == 0, metrics.history

# %%
# A new dtype forces a trace, and the leak checker raises a bare :class:`Exception`
# whose message starts with ``Leaked trace``. Each leaked tracer comes with the
# references that keep it alive: a line ``<A> is referred to by <B>[0]`` means that
# ``B`` holds ``A``. Follow the lines down to the last one, which names something in
# your code, here ``metrics.history``: that is what to fix. (The numbers are ``id()``
# values; on recent JAX more chains follow, for tracers the stored one keeps alive, and
# they end at the same root.)

with jax.checking_leaks():
    with jaxpurity.raises(Exception, match="Leaked trace") as info:
        scale(jnp.float16(1.0))
assert "is referred to by metrics.history" in str(info.value), info.value
metrics.history.clear()

# %%
# The fix: pass state in, return state out
# ----------------------------------------
#
# A pure function gets everything it reads as arguments and gives back
# everything it changes as results. The count becomes an array argument and
# a result; the caller keeps it between calls.
#
# The state goes in first and comes out last: ``pure_step(count, x)`` returns
# ``(y, count)``, the output and then the new state. That is the order
# :class:`jaxpurity.Stateful` (at the end of this page) expects, and every pure step on
# this site uses it. Loop bodies follow their loop's API instead: a :func:`jax.lax.scan`
# body returns the carry first, as on :doc:`leak_from_loop_body`.


@jax.jit
def pure_step(count, x):
    count = count + 1
    return x * count, count


count = jnp.int32(0)
pure_results = []
for _ in range(3):
    y, count = pure_step(count, x)
    pure_results.append(float(y))
print("results:", pure_results, "count:", int(count))
assert pure_results == [2.0, 4.0, 6.0], pure_results
assert int(count) == 3, count

# %%
# A new dtype still makes JAX trace again, but the count no longer depends on
# it: the count is data, not a Python side effect. And being data, it goes
# through :func:`jax.vmap` like any input: a batch of counts, one per row.

y, count = pure_step(count, jnp.int32(2))
print("int32 call:", int(y), "count:", int(count))
assert int(y) == 8 and int(count) == 4, (y, count)
ys, counts = jax.vmap(pure_step)(jnp.array([0, 10]), jnp.array([2.0, 3.0]))
print("vmap over two counters:", ys.tolist(), counts.tolist())
assert ys.tolist() == [2.0, 33.0] and counts.tolist() == [1, 11], (ys, counts)

# %%
# The same idea fixes the leak: return the intermediate value as a second
# result and append the concrete array outside :func:`jax.jit`.


@jax.jit
def scale_with_trace(x):
    y = x * 3.0
    return y + 1.0, y


for value in [1.0, 2.0]:
    _, seen = scale_with_trace(value)
    metrics.history.append(seen)
print("history:", [float(h) for h in metrics.history])
assert [float(h) for h in metrics.history] == [3.0, 6.0], metrics.history

# %%
# The fix on new JAX: jax.new_ref
# -------------------------------
#
# JAX 0.7.2 and newer have mutable array references (0.7.1 named the function
# ``jax.array_ref``; JAX 0.4.35, the oldest this site supports, has neither).
# :func:`jax.new_ref <jax.ref.new_ref>` wraps an initial array; ``ref[...]``
# reads the whole value and ``ref[...] = value`` writes it. Unlike a Python
# int, a ``Ref`` passed to a jitted function is part of the program: reads
# and writes are recorded, so they happen on every call, not once per
# trace. A plain Python counter of traces shows the difference. Where JAX
# has no ``jax.new_ref``, each cell of this section prints one line instead.

HAS_NEW_REF = hasattr(jax, "new_ref")
NO_NEW_REF = f"JAX {jax.__version__} has no jax.new_ref"
traces = 0


@jax.jit
def ref_step(ref, x):
    global traces
    traces += 1
    ref[...] += 1
    return x * ref[...]


if HAS_NEW_REF:
    count_ref = jax.new_ref(jnp.int32(0))
    ref_results = [float(ref_step(count_ref, x)) for _ in range(3)]
    print("results:", ref_results, "count_ref:", int(count_ref[...]), "traces:", traces)
    assert ref_results == [2.0, 4.0, 6.0], ref_results
    assert int(count_ref[...]) == 3 and traces == 1, (count_ref, traces)
else:
    print(f"{NO_NEW_REF}: pass the count in and out, as pure_step does.")

# %%
# A ``Ref`` has rules: JAX refuses to return one from a jitted function, to
# write one that every row of a :func:`jax.vmap` shares, and to write into one
# a value that :func:`jax.grad` differentiates. :doc:`mutable_refs` shows
# each rule, and the code that holds.

# %%
# With jaxpurity: Stateful
# ------------------------
#
# Threading the count by hand is the pure fix, but the call site has to keep it.
# :class:`jaxpurity.Stateful` keeps the state on the Python side for you. Give it a pure
# step ``fn(state, *args) -> (out, new_state)``, such as ``pure_step``, and the first
# state. Each call runs the step under :func:`jax.jit` with the current state, stores
# the new state and returns the output. It also counts traces, and checks that the state
# keeps its type.

stepper = jaxpurity.Stateful(pure_step, 0)
stateful_results = [float(stepper(x)) for _ in range(3)]
print("results:", stateful_results, "state:", int(stepper.state), "traces:", stepper.trace_count)
assert stateful_results == [2.0, 4.0, 6.0], stateful_results
assert int(stepper.state) == 3 and stepper.trace_count == 1, stepper

# %%
# It is a driver for Python code, such as a training loop. Inside a jitted function it
# would keep a tracer, so it refuses, and says to call the pure step there:

with jaxpurity.raises(TypeError, match="inside a JAX transformation"):
    jax.jit(stepper)(x)

# %%
# :doc:`../tools/let_jaxpurity_find_it` hands ``step`` to :func:`jaxpurity.check_pure`,
# which names the global and the stale result, and finds tracers stored as ``scale``
# stores one. On the fixes it reports a ``global-assignment`` for the counter of traces
# in ``ref_step``, there only to show them, and warns that ``ref_step`` raises under
# vmap: it maps the call with the ``Ref`` shared, which :doc:`mutable_refs` shows
# refused; and a ``mode-mismatch`` for ``stepper``, which runs eagerly but refuses jit.

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
REFUSES_JIT = (TypeError, "inside a JAX transformation", "pure_step")
MOVES = "each call moves the state it keeps: its step, pure_step, is what {} takes"
FIXES = {
    "pure_step": {"args": (jnp.int32(0), x), "wrt": 1},
    "scale_with_trace": {"args": (1.0,)},
    "ref_step": {
        "check_pure": {"global-assignment": "counter of traces", "mode-mismatch": "``Ref`` shared"},
        "needs": "jax.new_ref",
        "args": lambda: (jax.new_ref(jnp.int32(0)), x),
        "wrt": 1,
        "in_axes": (None, 0),
        "breaks": {"vmap": (Exception, "unbatched array reference", "pure_step")},
    },
    "stepper": {
        "check_pure": {"mode-mismatch": "for ``stepper``, which runs eagerly but"},
        "args": (x,),
        "breaks": {"jit": REFUSES_JIT, "nested": REFUSES_JIT},
        "not": {"grad": MOVES.format("grad"), "vmap": MOVES.format("vmap")},
    },
}
# sphinx_gallery_end_ignore
