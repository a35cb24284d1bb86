"""
Let jaxpurity find the impurity for me
======================================

Your jitted function gives stale numbers, or a value you saved raises
:class:`jax.errors.UnexpectedTracerError` long after the call that saved it,
and JAX raised nothing at the line that caused it. Instead of working through
:doc:`debugging_workflow` by hand, hand the function to jaxpurity:
:func:`jaxpurity.check_pure` reports each impurity with the page that explains
it, :func:`jaxpurity.find_leaks` names the variable that holds a leaked tracer,
:func:`jaxpurity.count_traces` raises :class:`jaxpurity.RetraceError` naming
the argument that made JAX trace again, and :func:`jaxpurity.explain` reads a
pasted error message, in Python or on the command line.
"""

# %%
# A global counter: check_pure
# ----------------------------
#
# The function from :doc:`../state_and_leaks/global_counter`: a jitted step
# that bumps a global counter and scales its input by it. It raises nothing
# and returns wrong numbers, so there is no error to search for.

import subprocess
import sys
import traceback

import jax
import jax.numpy as jnp

import jaxpurity

counter = 0


@jax.jit
def step(x):
    global counter
    counter += 1
    return x * counter


x = jnp.float32(2.0)
results = [float(step(x)) for _ in range(3)]
print("results:", results, "| counter:", counter)
assert results == [2.0, 2.0, 2.0] and counter == 1, (results, counter)

# %%
# :func:`jaxpurity.check_pure` takes the function and example arguments, the
# same ones you would call it with. It looks through :func:`jax.jit`.

report = jaxpurity.check_pure(step, x)
print(report)
kinds = [problem.kind for problem in report.problems]
assert not report.ok, report
assert "global-assignment" in kinds and "stale-result" in kinds, report

# %%
# Each problem comes with a kind (the word in brackets), what happened in
# words, and the page of this site that explains it; the report is a
# :class:`jaxpurity.PurityReport`, and ``report.problems`` holds them as
# :class:`jaxpurity.Problem` objects for code that wants to check them.
# Besides the global that the trace rebinds (``global-assignment``), it
# finds the stale result that follows (``stale-result``): the compiled
# program answers with the counter it read when traced, a fresh trace not.
#
# What the check costs
# --------------------
#
# :func:`jaxpurity.check_pure` has to run the function: it traces it, runs the
# compiled program, runs it eagerly, traces it once more to compare, and runs it
# under ``vmap`` (the report's first line counts the body's runs).
# Each run moved the counter. When the check ends, it puts back the globals the
# function names, its closure variables and its arguments, and what they hold,
# so no tracer is left there. The counter is where it was before the check:

print("traced:", report.traces, "| run eagerly:", report.runs, "| counter now:", counter)
assert report.traces + report.runs == 4 and counter == 1, (counter, report)

# %%
# A tracer stored anywhere else, an attribute of a library's module
# included, is taken out when the check ends. One place cannot give back a
# single entry: a :func:`functools.lru_cache` that holds a tracer is emptied,
# and its function runs again on its next call
# (:doc:`../state_and_leaks/memoization_caches`).

# %%
# The fixed counter passes
# ------------------------
#
# The pure version gets the count as an argument and returns the new one,
# after its output, as :doc:`../state_and_leaks/global_counter` does. The
# check finds nothing.


@jax.jit
def pure_step(count, x):
    count = count + 1
    return x * count, count


fixed_report = jaxpurity.check_pure(pure_step, jnp.int32(0), x)
print(fixed_report)
assert fixed_report.ok, fixed_report

# %%
# UnexpectedTracerError later: find_leaks names where the tracer went
# -------------------------------------------------------------------
#
# A tracer that outlives its trace raises
# :class:`~jax.errors.UnexpectedTracerError` where it is *used*, which can be
# far from where it was stored. Here are four functions that store a traced
# value in four different places: a global list, an attribute of an object,
# a closure variable and a global dict.

history = []


def log_sine(x):
    y = jnp.sin(x)
    history.append(y)
    return y


class Model:
    def __init__(self):
        self.last = None

    def predict(self, x):
        self.last = 2.0 * x
        return self.last


def make_keeper():
    kept = None

    def keep(x):
        nonlocal kept
        kept = x + 1.0
        return kept

    return keep


stats = {}


def center(x):
    stats["mean"] = x.mean()
    return x - stats["mean"]


model = Model()
keep = make_keeper()
xs = jnp.arange(3.0)

# %%
# Under :func:`jax.jit`, ``log_sine`` returns the right values, but what it
# stored is a tracer, and its first use raises the error (kept for
# :func:`jaxpurity.explain`, below).

sines = jax.jit(log_sine)(xs)
print("log_sine:", [round(v, 4) for v in sines.tolist()], "| history holds:", len(history))
assert len(history) == 1 and isinstance(history[0], jax.core.Tracer), history
with jaxpurity.raises(
    jax.errors.UnexpectedTracerError, match=r"(?s)unexpected.*log_sine"
) as leak_error:
    jnp.stack(history)
history.clear()

# %%
# :func:`jaxpurity.find_leaks` traces a function once, as :func:`jax.jit`
# would, and then looks for tracers that are still alive. Each
# :class:`jaxpurity.Leak` says where the tracer is stored, starting from a
# name in your code, and the source line that stored it.

expected_places = {
    log_sine: "global `history`",
    model.predict: "attribute `last`",
    keep: "closure variable `kept`",
    center: "global `stats`",
}
roots = []
for fn, place in expected_places.items():
    leaks = jaxpurity.find_leaks(fn, xs)
    for leak in leaks:
        print(leak)
    assert leaks and all(place in leak.where for leak in leaks), leaks
    roots.append(leaks[0].root)

# %%
# ``leak.root`` says where each path starts: a global, an argument (the
# ``self`` of the bound method) or a closure variable.

assert roots == ["global", "argument", "closure", "global"], roots

# %%
# Each trace stored a tracer. When :func:`~jaxpurity.find_leaks` ends, it
# puts back what the trace changed, so none of the four places holds one
# now:

print("history:", history, "| model.last:", model.last, "| stats:", stats)
assert history == [] and model.last is None and stats == {}, (history, model.last, stats)

# %%
# check_pure reports leaks too
# ----------------------------
#
# :func:`jaxpurity.check_pure` runs the same search as one of its checks, so
# each of the four functions is flagged with a ``leaked-tracer`` problem. The
# report for the method shows how it reads; for an argument such as ``self``
# it points to :doc:`../state_and_leaks/leak_through_self`.

impure = {"log_sine": log_sine, "predict": model.predict, "keep": keep, "center": center}
reports = {name: jaxpurity.check_pure(fn, xs) for name, fn in impure.items()}
print(reports["predict"])
assert reports["predict"].problems[0].page.endswith("/leak_through_self.html"), reports
kinds = {name: [problem.kind for problem in r.problems] for name, r in reports.items()}
print(kinds)
assert all("leaked-tracer" in found for found in kinds.values()), reports

# %%
# The fixed versions pass
# -----------------------
#
# The fix is the same for all four: return the value, and let the caller
# store the concrete result it gets back. Each function becomes pure and
# passes the check. (An ``if`` on a traced value is no impurity: JAX cannot trace
# it, and ``check_pure`` reports jit's error as a ``mode-mismatch``, since the
# function runs eagerly, with its page, :doc:`../control_flow/python_control_flow`.)


def sine(x):
    return jnp.sin(x)


def predict(x):
    return 2.0 * x


def plus_one(x):
    return x + 1.0


def center_with_mean(x):
    mean = x.mean()
    return x - mean, mean


for fn in (sine, predict, plus_one, center_with_mean):
    clean = jaxpurity.check_pure(fn, xs)
    print(clean)
    assert clean.ok, clean

# %%
# Retraces: count_traces and RetraceError
# ---------------------------------------
#
# :func:`jaxpurity.count_traces` counts the traces of a function; with
# ``max_traces`` it raises :class:`jaxpurity.RetraceError` on the first
# trace past the limit, naming the argument that changed. Wrapped around the
# jitted ``pure_step``, it counts the calls that had to trace:

counted_step = jaxpurity.count_traces(pure_step, max_traces=1)
count = jnp.int32(0)
for value in (1.0, 2.0, 3.0):
    _, count = counted_step(count, jnp.float32(value))
print("calls: 3 | traces:", counted_step.traces)
assert counted_step.traces == 1 and int(count) == 3, (counted_step, count)

# %%
# A call with an int32 ``x`` needs a new trace, one more than allowed:

with jaxpurity.raises(jaxpurity.RetraceError, match=r"argument `x`: dtype changed"):
    counted_step(count, jnp.int32(2))

# %%
# Ask jaxpurity.explain about a pasted error
# ------------------------------------------
#
# When all you have is an error message, paste it into
# :func:`jaxpurity.explain`: here, the :class:`~jax.errors.UnexpectedTracerError`
# caught above, as a traceback prints it (its first line is shown).

pasted = "".join(traceback.format_exception_only(type(leak_error.value), leak_error.value))
print(pasted.splitlines()[0])
explanation = jaxpurity.explain(pasted)
print(explanation)
assert explanation.recognised and explanation.error == "UnexpectedTracerError", explanation

# %%
# The same from the command line
# ------------------------------
#
# ``python -m jaxpurity explain "<error text>"`` prints the same explanation
# (with no text, it reads the error from standard input). Its exit status is
# 0 when it recognises the error, so a script can test it.

# sphinx_gallery_start_ignore
# The site is built from a source checkout: give the command this jaxpurity.
import os
from pathlib import Path

python_path = os.environ.get("PYTHONPATH")
package_root = str(Path(jaxpurity.__file__).resolve().parent.parent)
os.environ["PYTHONPATH"] = os.pathsep.join([package_root, python_path or ""])
# sphinx_gallery_end_ignore
command = [sys.executable, "-m", "jaxpurity", "explain", pasted]
result = subprocess.run(command, capture_output=True, text=True, check=False)
# sphinx_gallery_start_ignore
if python_path is None:
    del os.environ["PYTHONPATH"]
else:
    os.environ["PYTHONPATH"] = python_path
# sphinx_gallery_end_ignore
print(result.stdout, end="")
print("exit status:", result.returncode)
assert result.returncode == 0, result.stderr
assert result.stdout == f"{explanation}\n", result.stdout

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "pure_step": {"args": (jnp.int32(0), x), "wrt": 1},
    "sine": {"args": (xs,)},
    "predict": {"args": (xs,)},
    "plus_one": {"args": (xs,)},
    "center_with_mean": {"args": (xs,)},
}
# sphinx_gallery_end_ignore
