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
state in and out of the function, :func:`jax.new_ref <jax.ref.new_ref>` on JAX versions that
have it, and :class:`jaxpurity.Stateful`.
"""

# %%
# The code people write
# ---------------------
#
# A step function bumps a global counter and scales its input by it. In plain
# Python this counts calls. The ``global`` statement is what makes it
# impure: the function reads and writes state that is not among its arguments
# or its results.

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
# Three calls with the same float32 input. A reader of the code expects the
# counter to reach 3 and the results to grow. The output shows what happens
# instead.

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
# :func:`jax.jit` runs the Python body once per new input *signature* (shape,
# dtype, weak type, static arguments) with abstract tracers in place of the
# values, and records only the array operations into a program (a jaxpr).
# ``counter += 1`` is plain Python: it runs during that trace and is not
# recorded. ``x * counter`` reads a Python int, which enters the program as a
# constant. Printing the jaxpr of the float32 version shows that constant;
# :func:`jax.make_jaxpr` reuses the cached trace here, so the counter still
# does not move.

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
# The list holds the tracer from the trace, not a number. The trace ended
# when ``scale`` returned, so any later use of that tracer fails. The error
# names the function that was being traced and the line that created the
# leaked value.

with jaxpurity.raises(jax.errors.UnexpectedTracerError, match="unexpected tracer") as leak:
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
# A new dtype forces a trace, and the leak checker raises a bare
# :class:`Exception` whose message starts with ``Leaked trace``.

with jax.checking_leaks():
    with jaxpurity.raises(Exception, match="Leaked trace") as info:
        scale(jnp.float16(1.0))

# %%
# How to read the reference chain
# -------------------------------
#
# Each leaked tracer comes with the references that keep it alive. A line
# ``<A> is referred to by <B>[0]`` means that object ``B`` holds ``A`` (here
# at index ``0``). Follow the lines down: each names the holder of the line
# above, until the last one names something you can find in your code, here
# ``metrics.history``, a module attribute (an instance attribute would read
# ``<Model ...>.cache``). That root is what to fix. The numbers are ``id()``
# values: they change from run to run and only tie the lines together.
#
# On recent JAX the report can list more tracers than you stored, such as
# the traced input ``x``: the stored tracer keeps the equation that computed
# it alive (``TracingEqn``), and that equation keeps its inputs. Those chains
# end at the same root. The leaked tracer is still in the list; drop it.

leak_report = str(info.value)
assert "metrics.history" in leak_report, leak_report
metrics.history.clear()

# %%
# The fix: pass state in, return state out
# ----------------------------------------
#
# A pure function gets everything it reads as arguments and gives back
# everything it changes as results. The count becomes an array argument and
# a result; the caller keeps it between calls.
#
# The state goes in first and comes out last: ``pure_step(count, x)``
# returns ``(y, count)``, the output and then the new state. That is the
# order :class:`jaxpurity.Stateful` (at the end of this page) expects, and
# every pure step on this site uses it. Loop bodies follow their loop's API
# instead: a :func:`jax.lax.scan` body returns the carry first, as on
# :doc:`leak_from_loop_body`.


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
# it: the count is data, not a Python side effect.

y, count = pure_step(count, jnp.int32(2))
print("int32 call:", int(y), "count:", int(count))
assert int(y) == 8 and int(count) == 4, (y, count)

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
# Recent JAX has mutable array references. :func:`jax.new_ref <jax.ref.new_ref>` wraps an
# initial array; ``ref[...]`` reads the whole value and ``ref[...] = value``
# writes it (indexing like ``ref[1]`` works too). Unlike a Python int, a
# ``Ref`` closed over by a jitted function is part of the program: reads and
# writes are recorded, so they happen on every call, not once per trace.
# A plain Python counter of traces shows the difference.
#
# Older releases have no :func:`jax.new_ref <jax.ref.new_ref>` (JAX 0.4.35, the oldest this
# site supports, is one). There, each cell of this section prints one line
# instead of its results: that this JAX has no ``jax.new_ref``, and what to
# use in its place.

HAS_NEW_REF = hasattr(jax, "new_ref")
NO_NEW_REF = f"JAX {jax.__version__} has no jax.new_ref"

if HAS_NEW_REF:
    count_ref = jax.new_ref(jnp.int32(0))
    traces = 0

    @jax.jit
    def ref_step(x):
        global traces
        traces += 1
        count_ref[...] += 1
        return x * count_ref[...]

    ref_results = [float(ref_step(x)) for _ in range(3)]
    print("results:", ref_results, "count_ref:", int(count_ref[...]), "traces:", traces)
    assert ref_results == [2.0, 4.0, 6.0], ref_results
    assert int(count_ref[...]) == 3 and traces == 1, (count_ref, traces)
else:
    print(f"{NO_NEW_REF}: pass the count in and out, as pure_step does, or use Stateful (below).")

# %%
# A ``Ref`` can also be an argument, which makes the dependency visible in
# the signature. It cannot be a result: JAX refuses to return one from a
# jitted function, so read it with ``ref[...]`` and return the array. Where
# JAX has no ``jax.new_ref``, the cell says what takes the place of a ``Ref``
# argument.

if HAS_NEW_REF:

    @jax.jit
    def bump(ref, x):
        ref[...] += 1
        return x * ref[...]

    arg_ref = jax.new_ref(jnp.int32(0))
    bumped = [float(bump(arg_ref, x)) for _ in range(2)]
    print("results:", bumped, "arg_ref:", int(arg_ref[...]))
    assert bumped == [2.0, 4.0] and int(arg_ref[...]) == 2, (bumped, arg_ref)

    with jaxpurity.raises(ValueError, match="cannot be returned"):
        jax.jit(lambda ref: ref)(arg_ref)
else:
    print(f"{NO_NEW_REF}: in place of a Ref argument, pass the count and return it (pure_step).")

# %%
# :func:`jaxpurity.check_pure` agrees that ``bump`` is pure. The check runs
# the function several times; it puts each ``Ref`` it can reach back to its
# starting value before each run, so every run sees the same state, and
# after the last one, so ``arg_ref`` is left as it was. Where JAX has no
# ``jax.new_ref``, the cell says which check below stands in for this one.

if HAS_NEW_REF:
    ref_report = jaxpurity.check_pure(bump, arg_ref, x)
    print(ref_report)
    print("arg_ref after the check:", int(arg_ref[...]))
    assert ref_report.ok, ref_report
    assert int(arg_ref[...]) == 2, arg_ref
else:
    print(f"{NO_NEW_REF}: nothing to check here; check_pure passes pure_step below.")

# %%
# With jaxpurity: Stateful
# ------------------------
#
# Threading the count by hand is the pure fix, but the call site has to keep
# it. :class:`jaxpurity.Stateful` keeps the state on the Python side for you.
# Give it a pure step ``fn(state, *args) -> (out, new_state)``, such as
# ``pure_step``, and the first state. Each call runs the step under
# :func:`jax.jit` with the current state, stores the new state and returns
# the output. It also counts traces, and checks that the state keeps its
# type.

stepper = jaxpurity.Stateful(pure_step, 0)
stateful_results = [float(stepper(x)) for _ in range(3)]
print("results:", stateful_results, "state:", int(stepper.state), "traces:", stepper.trace_count)
assert stateful_results == [2.0, 4.0, 6.0], stateful_results
assert int(stepper.state) == 3 and stepper.trace_count == 1, stepper

# %%
# Check it with jaxpurity.check_pure
# ----------------------------------
#
# :func:`jaxpurity.check_pure` takes a function and example arguments, runs
# it (traced and eagerly, as the report's first line counts) and reports
# what it finds. For ``step`` it names the global that the trace rebinds
# (``global-assignment``), and the stale result that follows from it
# (``stale-result``): the program that jit compiled earlier answers with the
# counter value it read when it was traced, while a fresh trace now gives
# another answer.

report = jaxpurity.check_pure(step, x)
print(report)
kinds = [problem.kind for problem in report.problems]
assert "global-assignment" in kinds and "stale-result" in kinds, report

# %%
# For ``scale`` it finds the tracer left in ``metrics.history``, names the
# line that stored it, and links to this page.

metrics.history.clear()
leak_report = jaxpurity.check_pure(scale, 1.0)
print(leak_report)
leaks = [p for p in leak_report.problems if p.kind == "leaked-tracer"]
assert leaks and all(p.page.endswith("/global_counter.html") for p in leaks), leak_report

# %%
# When it ends, the check puts back what every function it ran could write:
# the globals and closure variables of the function and of the code it calls,
# the attributes of the modules they name, and what those hold. So
# ``metrics.history`` is as it was, with no tracer left in it.

tracers_left = sum(isinstance(h, jax.core.Tracer) for h in metrics.history)
print("metrics.history after the check:", len(metrics.history), "items,", tracers_left, "tracers")
assert metrics.history == [], metrics.history

# %%
# Both fixes pass: the step that takes and returns the count, and the
# function that returns the value it used to store.

for fixed_report in (
    jaxpurity.check_pure(pure_step, jnp.int32(0), x),
    jaxpurity.check_pure(scale_with_trace, 1.0),
):
    print(fixed_report)
    assert fixed_report.ok, fixed_report

# %%
# :doc:`../tools/let_jaxpurity_find_it` runs these checks on more of the
# site's examples.

# %%
# Ask jaxpurity.explain
# ---------------------
#
# :func:`jaxpurity.explain` takes the caught error and says what usually
# causes it, how to fix it and where to read more.

explanation = jaxpurity.explain(leak.value)
print(explanation)
assert explanation.error == "UnexpectedTracerError", explanation
