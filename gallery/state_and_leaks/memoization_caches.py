"""
My functools.lru_cache returns a tracer after a jitted call
===========================================================

A helper memoized with :func:`functools.lru_cache` (or a dict used as a
cache) builds an array from a Python int, so caching looks safe. If its
first call for some key happens inside a function compiled with
:func:`jax.jit`, the cache keeps a tracer, and every later caller that hits
that key gets :class:`jax.errors.UnexpectedTracerError`, with a message that
blames the wrong function. Whether it breaks depends on which caller came
first. This page shows the failure, what :obj:`jax.checking_leaks` reports
for it, and two fixes: fill the cache with concrete arrays, or cache the
jitted function instead of values.
"""

# %%
# The code people write
# ---------------------
#
# A (periodic) Hann window of length ``n``, memoized because many calls use
# the same lengths. The key is a Python int and the result depends only on
# it, so the cache looks safe. A jitted function tapers a signal with it.

import functools
import re
import types

import jax
import jax.numpy as jnp
import numpy as np

import jaxpurity


@functools.lru_cache
def hann_window(n):
    return jnp.sin(np.pi * np.arange(n) / n) ** 2


@jax.jit
def taper(signal):
    return signal * hann_window(signal.shape[0])


def rounded(values):
    """A list of floats rounded to 4 decimals, for stable printing."""
    return [round(v, 4) for v in values.tolist()]


# %%
# What JAX does: the first caller is fine
# ---------------------------------------
#
# The jitted call returns the right window. But the cache entry it created
# for ``n=4`` is a tracer, not an array.

tapered = taper(jnp.ones(4))
print("taper(ones(4)):", rounded(tapered))
print("cache:", hann_window.cache_info().currsize, "entry | type:", type(hann_window(4)).__name__)
assert rounded(tapered) == [0.0, 0.5, 1.0, 0.5], tapered
assert type(hann_window(4)).__name__.endswith("Tracer")

# %%
# Calling ``taper`` again with the same shape still works: :func:`jax.jit`
# reuses its compiled program and does not run the Python body, so it never
# looks at the cache. The bug hides from the code that caused it.

again = taper(jnp.array([2.0, 2.0, 2.0, 2.0]))
print("taper again:", rounded(again))
assert rounded(again) == [0.0, 1.0, 2.0, 1.0], again

# %%
# Every other caller: UnexpectedTracerError
# -----------------------------------------
#
# A second jitted function that uses the same window length fails. The
# message blames ``taper``, the function that was being traced when the
# cached value was created, not the function you just called.


@jax.jit
def windowed_energy(signal):
    return jnp.sum((signal * hann_window(signal.shape[0])) ** 2)


with jaxpurity.raises(jax.errors.UnexpectedTracerError, match="taper") as info:
    windowed_energy(jnp.ones(4))

# %%
# ``taper`` itself fails as soon as it is traced again, for example for an
# input of the same length but another dtype: the new trace reads the tracer
# that the old one left in the cache.

with jaxpurity.raises(jax.errors.UnexpectedTracerError, match="unexpected tracer"):
    taper(jnp.ones(4, jnp.float16))

# %%
# Plain eager code is no better: the cached value is unusable outside any
# transformation too.

with jaxpurity.raises(jax.errors.UnexpectedTracerError, match="unexpected tracer"):
    hann_window(4).sum()

# %%
# Why
# ---
#
# Inside a trace, every :mod:`jax.numpy` operation is recorded rather than
# run, even on constants: the angles are a NumPy array computed from the
# Python int ``n``, yet ``jnp.sin`` of them inside ``taper`` is a tracer.
# :func:`functools.lru_cache` knows nothing about traces. It stores
# whatever the first call returned under the key ``n``, and hands that same
# object to every later call: in this trace, in other traces, and outside
# them. Once ``taper``'s trace has ended, that object is a tracer of a
# finished trace. A plain dict used as a cache
# (``if n not in cache: cache[n] = ...``) behaves the same way.
#
# So the outcome depends on the order of calls. Had eager code asked for
# ``hann_window(4)`` first, the cache would hold a real array, and a jitted
# function would simply embed it as a constant. Below, the cache is emptied
# and eager code calls first. ``windowed_energy.clear_cache()`` matters too:
# recent JAX versions keep the failed trace of ``windowed_energy`` (the
# tracer entered it as a constant, and the error came only when the program
# ran), and would raise the same error again without a new trace.

hann_window.cache_clear()
windowed_energy.clear_cache()
eager_first = hann_window(4)
energy = round(float(windowed_energy(jnp.ones(4))), 4)
print("cached after an eager call:", type(eager_first).__name__, "| windowed_energy:", energy)
assert not type(eager_first).__name__.endswith("Tracer")
assert energy == 1.5, energy

# %%
# Catch it at trace time: "Leaked trace"
# --------------------------------------
#
# :obj:`jax.checking_leaks` (introduced on :doc:`global_counter`) checks at
# the end of each trace that nothing still refers to a tracer, and names the
# references that keep each one alive. In a project, a cached helper like
# ``hann_window`` usually lives in a module of its own, imported by the
# jitted code. The page builds such a module, ``signals``, in place to stay
# one file, and gives it the same function with a cache of its own
# (``__wrapped__`` is the function that a cache wraps).

signals = types.ModuleType("signals")
signals.hann_window = functools.lru_cache(hann_window.__wrapped__)


@jax.jit
def taper_signal(signal):
    return signal * signals.hann_window(signal.shape[0])


# %%
# The first trace fills the cache, and fails right there.

with jax.checking_leaks():
    with jaxpurity.raises(Exception, match="Leaked trace") as leak_info:
        taper_signal(jnp.ones(8))

# %%
# Each chain of ``is referred to by`` lines starts at a leaked tracer, and
# each line names the holder of the line above. The first chain is the
# whole story: the tracer is held by an ``_lru_cache_wrapper`` (the cache),
# which is ``signals.hann_window``, a name in your code. That root is what to
# fix. On recent JAX, more chains follow, for tracers that the cached one
# keeps alive (the equation that computed it, ``TracingEqn``, holds its
# inputs); they end at the same root. The numbers are ``id()`` values, which
# change from run to run.

chains = [
    [line for line in block.splitlines() if " is referred to by " in line]
    for block in str(leak_info.value).split("\n\n")[1:]
]
roots = {re.sub(r"\d+", "...", chain[-1]) for chain in chains}
print("chains:", len(chains), "| every chain ends with:", *roots)
assert roots == {"<_lru_cache_wrapper ...> is referred to by signals.hann_window"}, chains
assert [re.sub(r"\d+", "...", line) for line in chains[0]] == [
    "<DynamicJaxprTracer ...> is referred to by <_lru_cache_wrapper ...>",
    "<_lru_cache_wrapper ...> is referred to by signals.hann_window",
], chains
signals.hann_window.cache_clear()

# %%
# Fix 1: fill the cache with concrete arrays
# ------------------------------------------
#
# Compute the cached value outside the trace, whoever calls first. Inside
# :func:`jax.ensure_compile_time_eval`, :mod:`jax.numpy` operations on
# concrete inputs run right away, even during a trace, so the cache always
# holds a real array. (Computing it with NumPy does the same.)


@functools.lru_cache
def hann_window_concrete(n):
    with jax.ensure_compile_time_eval():
        return jnp.sin(np.pi * np.arange(n) / n) ** 2


@jax.jit
def taper_fixed(signal):
    return signal * hann_window_concrete(signal.shape[0])


# %%
# The fixed output
# ----------------
#
# The jitted function fills the cache first, under the leak checker, which
# has nothing to report. The cached entry is a concrete array that any other
# caller can use.

with jax.checking_leaks():
    tapered = taper_fixed(jnp.ones(4))
cached = hann_window_concrete(4)
print("taper_fixed(ones(4)):", rounded(tapered), "| cached type:", type(cached).__name__)
print("eager sum of the cached window:", round(float(cached.sum()), 4))
assert rounded(tapered) == [0.0, 0.5, 1.0, 0.5], tapered
assert not type(cached).__name__.endswith("Tracer")
assert round(float(cached.sum()), 4) == 2.0

# %%
# Fix 2: cache the jitted function, not values
# --------------------------------------------
#
# When the cache exists to avoid rebuilding work per configuration, memoize
# the *function*. ``make_taper(n)`` runs outside any trace, so the window it
# builds is concrete; the jitted function it returns closes over that array
# as a constant. The cache holds functions, never tracers.


@functools.lru_cache
def make_taper(n):
    window = np.sin(np.pi * np.arange(n) / n) ** 2
    return jax.jit(lambda signal: signal * window)


with jax.checking_leaks():
    results = [rounded(make_taper(4)(jnp.ones(4))) for _ in range(2)]
print("results:", results, "| functions cached:", make_taper.cache_info().currsize)
assert results == [[0.0, 0.5, 1.0, 0.5]] * 2, results
assert make_taper.cache_info().currsize == 1

# %%
# Check it with jaxpurity.check_pure
# ----------------------------------
#
# :func:`jaxpurity.check_pure` traces a function and looks at what the
# trace left behind. Started with an empty cache, it finds the tracer among
# the cached results of ``hann_window``, and the stale result that follows
# (``stale-result``): the program that jit compiled earlier still answers,
# while a fresh trace now fails. The leak links to this page.
# Whichever caller comes first leaks, so both are checked, each with an
# empty cache.

for caller in (taper, windowed_energy):
    hann_window.cache_clear()
    report = jaxpurity.check_pure(caller, jnp.ones(4))
    print(report)
    leaks = [p for p in report.problems if p.kind == "leaked-tracer"]
    assert leaks and all(p.page.endswith("/memoization_caches.html") for p in leaks), report
    assert "stale-result" in [p.kind for p in report.problems], report

# %%
# When it ends, the check puts back the globals, closure variables and
# arguments it reaches, and what they hold. A :func:`functools.lru_cache`
# cannot give back one entry, so a cache that holds the check's tracer is
# emptied: the next call computes its value again, where it would otherwise
# get the tracer, as the output shows. Its other entries go too.

entries, left = hann_window.cache_info().currsize, type(hann_window(4)).__name__
print("after the checks, cache:", entries, "entries | next call gives:", left)
assert entries == 0 and not left.endswith("Tracer"), (entries, left)

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "taper_fixed": {"args": (jnp.ones(4),)},
    "hann_window_concrete": {
        "static": {"n": 4},
        "not": {
            "grad": "its one argument is a length, a static int",
            "vmap": "its one argument is a length, a static int",
        },
    },
    "make_taper": {"fn": make_taper(4), "args": (jnp.ones(4),)},
}
# sphinx_gallery_end_ignore
