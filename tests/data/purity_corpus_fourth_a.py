"""A fourth corpus of impure and pure JAX functions: state and side effects.

How, when and by whom: collected on 2026-12-06, in one sitting, by a helper that had not seen
``check_pure``'s score on any case, nor read the package's code, nor imported ``jaxpurity``
while collecting. The sources are public GitHub threads that no other file of this repository
cited at the time. The area is state and side effects: attributes of closed-over objects set
under ``jit``, a ``functools.lru_cache`` filled while tracing, Python and NumPy randomness and
counters in traced code, callbacks under ``grad``, and closed-over ``Ref``s. Every label was
decided from the thread's discussion (what the reporter, a maintainer or the pull request said
the code does, or why it is fine) before ``check()`` was written; ``check()`` then shows the
label with JAX, NumPy and the standard library alone.

The format is the one of :mod:`purity_corpus_unseen` (itself that of :mod:`purity_corpus`):
``make`` builds fresh state and returns ``(fn, args, kwargs)``, ``check`` returns ``True``
when the label holds, ``versions`` are the JAX versions on which ``check()`` was seen
``True``. Kinds come from ``KINDS`` and from :data:`purity_corpus_unseen.NEW_KINDS`.

Where a thread's code needs a library (Flax NNX, Brax, Equinox), the reduction keeps the
mechanism the thread names in plain JAX, and the case's ``why`` says what was kept.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback
from purity_corpus import (
    KINDS,
    Case,
    Made,
    _check_pure,
    _copy_function,
    _fresh_globals,
    _is_tracer,
    _raises,
    _same,
    validate,
)
from purity_corpus_unseen import NEW_KINDS as UNSEEN_KINDS

__all__ = ["CASES"]

OLD = "0.10.2"
NEW = "0.12.0.1"
BOTH = (OLD, NEW)


def _holds_tracer(tree: Any) -> bool:
    return any(_is_tracer(leaf) for leaf in jax.tree_util.tree_leaves(tree))


# ======================================================================================
# IMPURE CASES
# ======================================================================================

# --- google/flax#4539: a dropout module closed over by jax.jit --------------------------


class _Rngs:
    """The part of nnx.Rngs the thread is about: a key and a call counter kept on the object."""

    def __init__(self, seed: int) -> None:
        self.key = jax.random.key(seed)
        self.count = jnp.uint32(0)

    def __call__(self) -> Any:
        key = jax.random.fold_in(self.key, self.count)
        self.count = self.count + 1
        return key


class _Dropout:
    def __init__(self, rate: float, rngs: _Rngs) -> None:
        self.rate = rate
        self.rngs = rngs

    def __call__(self, x: Any) -> Any:
        keep = jax.random.bernoulli(self.rngs(), 1.0 - self.rate, x.shape)
        return jnp.where(keep, x / (1.0 - self.rate), 0.0)


def _build_closed_dropout() -> tuple[Made, _Dropout]:
    module = _Dropout(0.5, rngs=_Rngs(0))

    def forward(x):
        return module(x)

    return (forward, (jnp.ones((3, 5)),), {}), module


def _check_closed_dropout() -> bool:
    (fn, args, _), _ = _build_closed_dropout()
    eager_differs = not _same(fn(*args), fn(*args))
    (jfn, jargs, _), jmodule = _build_closed_dropout()
    jitted = jax.jit(jfn)
    frozen = _same(jitted(*jargs), jitted(*jargs))
    return eager_differs and frozen and _is_tracer(jmodule.rngs.count)


# --- jax-ml/jax#24818: an lru_cache on the shape evaluator's method ---------------------


def _build_caching_evaluator() -> Made:
    class CachingShapeEvaluator:
        def __init__(self, env: dict[str, Any]) -> None:
            self.env = env

        @functools.lru_cache  # noqa: B019 -- the cache the pull request removes
        def evaluate(self, name: str) -> Any:
            return 2 * self.env[name]

    def dim_sizes(b):
        evaluator = CachingShapeEvaluator({"b": b})
        return evaluator.evaluate("b") + 1

    return dim_sizes, (jnp.float32(3.0),), {}


def _check_caching_evaluator() -> bool:
    fn, args, _ = _build_caching_evaluator()
    with jax.checking_leaks():
        eager_ok = float(fn(*args)) == 7.0
    jfn, jargs, _ = _build_caching_evaluator()
    same_value = float(jax.jit(jfn)(*jargs)) == 7.0  # no leak check: the value is right
    kfn, kargs, _ = _build_caching_evaluator()
    with jax.checking_leaks():
        leaked = _raises(Exception, jax.jit(kfn), *kargs)
    return eager_ok and same_value and leaked


# --- jax-ml/jax#20218: a jitted function increments a closed-over mutable array ---------


def _build_closed_ref() -> tuple[Made, Any]:
    x_mut = jax.new_ref(jnp.zeros(3))

    def f():
        x_mut[0] += 1

    return (f, (), {}), x_mut


def _check_closed_ref() -> bool:
    (fn, _, _), ref = _build_closed_ref()
    fn()
    fn()
    eager = np.asarray(ref[...])
    (jfn, _, _), jref = _build_closed_ref()
    jitted = jax.jit(jfn)
    jitted()
    after_one = np.asarray(jref[...])
    jitted()
    twice = np.array([2.0, 0.0, 0.0])
    return (
        _same(eager, twice)
        and _same(after_one, np.array([1.0, 0.0, 0.0]))
        and _same(jref[...], twice)
    )


# --- google/brax#440: set_initial_state, then the jitted reset of a vector wrapper -------


class _InitPoseWrapper:
    """The reporter's wrapper: set_initial_state stores a pose that reset reads from self."""

    def __init__(self) -> None:
        self.q = jnp.zeros(3)
        self.init_pos = jnp.zeros(2)
        self._reset_noise_scale = 0.1

    def set_initial_state(self, init_pos: Any) -> None:
        self.init_pos = self.init_pos.at[:].set(init_pos)

    def reset(self, rng: Any) -> Any:
        rng, rng1 = jax.random.split(rng)
        low, hi = -self._reset_noise_scale, self._reset_noise_scale
        q = self.q.at[:2].set(self.init_pos)
        return q + jax.random.uniform(rng1, q.shape, minval=low, maxval=hi)


class _VectorGymWrapper:
    """Like brax's VectorGymWrapper: it jits the wrapped env's reset once, at construction."""

    def __init__(self, env: _InitPoseWrapper) -> None:
        self._env = env
        self._reset = jax.jit(env.reset)

    def reset(self, rng: Any) -> Any:
        return self._reset(rng)


def _make_gym_reset() -> Made:
    env = _InitPoseWrapper()
    env.set_initial_state(jnp.array([1.0, 2.0]))
    return _VectorGymWrapper(env).reset, (jax.random.key(0),), {}


def _check_gym_reset() -> bool:
    fn, (rng,), _ = _make_gym_reset()
    env = fn.__self__._env
    first = fn(rng)
    env.set_initial_state(jnp.array([-5.0, 7.0]))
    second = fn(rng)
    plain = env.reset(rng)  # the wrapped env's reset, not jitted
    return _same(first, second) and abs(float(plain[0]) + 5.0) < 0.2


# --- google/brax#300: reset picks a motion clip with Python's random module -------------


class _MocapClips:
    """The reporter's clip source: another class whose __getitem__ hands out a clip."""

    def __init__(self, seed: int) -> None:
        self.clips = jnp.ones((10, 3)) * jnp.arange(0, 10)[:, None]
        self._random = random.Random(seed)

    def __getitem__(self, _: Any) -> Any:
        return self.clips[self._random.randrange(len(self.clips))]


def _build_clip_reset() -> Made:
    mocap = _MocapClips(seed=3)

    def reset(rng):
        rng, key = jax.random.split(rng)
        clip = mocap[None]
        return rng, clip + 0.0 * jax.random.uniform(key)

    return reset, (jax.random.key(0),), {}


def _check_clip_reset() -> bool:
    fn, (rng,), _ = _build_clip_reset()
    eager = {float(fn(rng)[1][0]) for _ in range(6)}
    jfn, (jrng,), _ = _build_clip_reset()
    jitted = jax.jit(jfn)
    jit = {float(jitted(jrng)[1][0]) for _ in range(6)}
    return len(eager) > 1 and len(jit) == 1


# --- jax-ml/jax#13759: an io_callback in a function that is differentiated --------------


def _build_logged_square() -> tuple[Made, list[float]]:
    log: list[float] = []

    def record(v):
        log.append(float(v))

    def f(x):
        io_callback(record, None, x)
        return x * x

    return (f, (jnp.float32(2.0),), {}), log


def _check_logged_square() -> bool:
    (fn, args, _), log = _build_logged_square()
    jax.block_until_ready(fn(*args))
    jax.jit(fn)(*args)
    jax.effects_barrier()
    logged = log == [2.0, 2.0]
    (gfn, gargs, _), glog = _build_logged_square()
    return logged and _raises(ValueError, jax.grad(gfn), *gargs) and glog == []


# --- jax-ml/jax#5980: the JAX-101 counter whose count method is jitted ------------------


class _Counter:
    def __init__(self) -> None:
        self.n = 0

    def count(self) -> int:
        self.n += 1
        return self.n

    def reset(self) -> None:
        self.n = 0


def _make_counter_count() -> Made:
    return _Counter().count, (), {}


def _check_counter_count() -> bool:
    fn, _, _ = _make_counter_count()
    eager = [int(fn()) for _ in range(3)]
    jfn, _, _ = _make_counter_count()
    fast_count = jax.jit(jfn)
    jit = [int(fast_count()) for _ in range(3)]
    return eager == [1, 2, 3] and jit == [1, 1, 1] and jfn.__self__.n == 1


# --- jax-ml/jax#5905: the JAX-101 function that appends its input to a global list -----

_global_list: list[Any] = []  # placeholder only; each make() gives the function its own


def _tmpl_log2(x: Any) -> Any:
    _global_list.append(x)
    ln_x = jnp.log(x)
    ln_2 = jnp.log(2.0)
    return ln_x / ln_2


def _make_log2() -> Made:
    return _fresh_globals(_tmpl_log2, _global_list=[]), (jnp.float32(3.0),), {}


def _check_log2() -> bool:
    fn, args, _ = _make_log2()
    fn(*args)
    fn(*args)
    eager = fn.__globals__["_global_list"]
    jfn, jargs, _ = _make_log2()
    jitted = jax.jit(jfn)
    jitted(*jargs)
    jitted(*jargs)
    jit = jfn.__globals__["_global_list"]
    eager_ok = len(eager) == 2 and not any(_is_tracer(x) for x in eager)
    return eager_ok and len(jit) == 1 and _is_tracer(jit[0])


# ======================================================================================
# PURE CASES
# ======================================================================================

# --- jax-ml/jax#24818 (the fix): the evaluator without the cache ------------------------


class _ShapeEvaluator:
    def __init__(self, env: dict[str, Any]) -> None:
        self.env = env

    def evaluate(self, name: str) -> Any:
        return 2 * self.env[name]


def _dim_sizes_uncached(b: Any) -> Any:
    evaluator = _ShapeEvaluator({"b": b})
    return evaluator.evaluate("b") + 1


def _make_dim_sizes_uncached() -> Made:
    return _copy_function(_dim_sizes_uncached), (jnp.float32(3.0),), {}


def _check_dim_sizes_uncached() -> bool:
    fn, args, _ = _make_dim_sizes_uncached()
    with jax.checking_leaks():
        no_leak = float(jax.jit(fn)(*args)) == 7.0
    return no_leak and _check_pure(_make_dim_sizes_uncached)


# --- google/brax#300 (btaba's answer): the clip is drawn with a key the reset is given ---

_MOCAP = jnp.ones((10, 3)) * jnp.arange(0, 10)[:, None]  # load this once


def _reset_choice(rng: Any) -> Any:
    rng, key = jax.random.split(rng, 2)
    return rng, jax.random.choice(key, _MOCAP, (1,))


def _make_reset_choice() -> Made:
    return _copy_function(_reset_choice), (jax.random.PRNGKey(0),), {}


def _check_reset_choice() -> bool:
    fn, (rng,), _ = _make_reset_choice()
    clips = set()
    for _ in range(8):
        rng, clip = fn(rng)
        clips.add(float(clip[0, 0]))
    return len(clips) > 1 and _check_pure(_make_reset_choice)


# --- paganpasta/eqxvision#72: BatchNorm threads its state explicitly --------------------


def _batch_norm(x: Any, state: Any, momentum: float = 0.99, eps: float = 1e-5) -> Any:
    running_mean, running_var = state
    mean, var = jnp.mean(x, axis=0), jnp.var(x, axis=0)
    new_state = (
        momentum * running_mean + (1 - momentum) * mean,
        momentum * running_var + (1 - momentum) * var,
    )
    return (x - mean) / jnp.sqrt(var + eps), new_state


def _make_batch_norm() -> Made:
    x = jnp.arange(12.0).reshape(4, 3)
    return _copy_function(_batch_norm), (x, (jnp.zeros(3), jnp.ones(3))), {}


def _check_batch_norm() -> bool:
    fn, (x, state), _ = _make_batch_norm()
    _, state1 = fn(x, state)
    _, state2 = fn(x, state1)
    moves = not _same(state1, state2)
    return moves and _check_pure(_make_batch_norm)


# --- jax-ml/jax#5980 (the notebook's fix): CounterV2 takes and returns the count --------


class _CounterV2:
    def count(self, n: int) -> tuple[int, int]:
        return n + 1, n + 1

    def reset(self) -> int:
        return 0


def _make_counter_v2() -> Made:
    return _CounterV2().count, (0,), {}


def _check_counter_v2() -> bool:
    fn, _, _ = _make_counter_v2()
    fast_count = jax.jit(fn)
    state, seen = 0, []
    for _ in range(3):
        value, state = fast_count(state)
        seen.append(int(value))
    return seen == [1, 2, 3] and _check_pure(_make_counter_v2)


# ======================================================================================
# The corpus.
# ======================================================================================

CASES: list[Case] = [
    # ---------------------------------------------------------------- impure cases
    Case(
        id="dropout-module-closed-over-by-jit",
        source="google/flax#4539",
        impure=True,
        kinds=("frozen-randomness", "container-mutation", "leaked-tracer"),
        why="Jitting a function that calls a dropout module closed over from outside gives a "
        "constant mask on every call; the reporter found nnx.jit with the module passed in "
        "works. Kept here: the module's Rngs counter, bumped only while tracing (the Flax of "
        "December 2026 raises instead).",
        make=lambda: _build_closed_dropout()[0],
        check=_check_closed_dropout,
        versions=BOTH,
    ),
    Case(
        id="lru-cached-shape-evaluator",
        source="jax-ml/jax#24818",
        impure=True,
        kinds=("container-mutation", "leaked-tracer"),
        why="gnecula: the lru_cache attached to CachingShapeEvaluator.evaluate persists for "
        "the duration of the program and leads to leaked tracer errors; the pull request "
        "removes the caching.",
        make=_build_caching_evaluator,
        check=_check_caching_evaluator,
        versions=BOTH,
    ),
    Case(
        id="jit-increments-closed-over-ref",
        source="jax-ml/jax#20218",
        impure=True,
        kinds=("container-mutation",),
        why="The pull request's example: a jitted f with no arguments adds 1 to a closed-over "
        "mutable array, which is fed in and written back on every execution, so each call "
        "changes state outside the function.",
        make=lambda: _build_closed_ref()[0],
        check=_check_closed_ref,
        versions=BOTH,
    ),
    Case(
        id="wrapper-pose-baked-into-jitted-reset",
        source="google/brax#440",
        impure=True,
        kinds=("trace-time-read", "stale-result"),
        why="set_initial_state stores the pose on the wrapper and reset reads self.init_pos; "
        "the reporter sees the first pose on every later reset and suspects the jitted "
        "VectorGymWrapper: the pose was read once, when reset was traced.",
        make=_make_gym_reset,
        check=_check_gym_reset,
        versions=BOTH,
    ),
    Case(
        id="reset-picks-clip-with-python-random",
        source="google/brax#300",
        impure=True,
        kinds=("frozen-randomness",),
        why="The reporter's reset picks a random motion clip from another class's "
        "__getitem__, which they call impure because its output differs every time; under "
        "jit the Python draw happens once, at tracing, and every reset gets the same clip.",
        make=_build_clip_reset,
        check=_check_clip_reset,
        versions=BOTH,
    ),
    Case(
        id="io-callback-under-grad",
        source="jax-ml/jax#13759",
        impure=True,
        kinds=("mode-mismatch",),
        why="The design of io_callback: it should throw an error when autodifferentiated, "
        "there being no way to differentiate arbitrary side effects; the logging function "
        "runs eagerly and under jit, and jax.grad raises (new kind: mode-mismatch).",
        make=lambda: _build_logged_square()[0],
        check=_check_logged_square,
        versions=BOTH,
    ),
    Case(
        id="jax101-counter-count-jitted",
        source="jax-ml/jax#5980",
        impure=True,
        kinds=("argument-mutation", "lost-mutation", "stale-result"),
        why="The stateful-computations notebook: count() modifies self.n as a side effect; "
        "jax.jit(counter.count) returns 1 on every call, the increment having happened once, "
        "while tracing.",
        make=_make_counter_count,
        check=_check_counter_count,
        versions=BOTH,
    ),
    Case(
        id="jax101-log2-appends-to-global-list",
        source="jax-ml/jax#5905",
        impure=True,
        kinds=("container-mutation", "leaked-tracer"),
        why="The jitting notebook: the jaxpr does not capture global_list.append(x); you can "
        "expect the side effect of a transformed function to run once, during the first "
        "call, and never again (it stores a tracer).",
        make=_make_log2,
        check=_check_log2,
        versions=BOTH,
    ),
    # ------------------------------------------------------------------ pure cases
    Case(
        id="shape-evaluator-without-cache",
        source="jax-ml/jax#24818",
        impure=False,
        kinds=(),
        why="The pull request's fix: the evaluator computes the dimension from its "
        "environment on every call, with no cache to outlive the trace.",
        make=_make_dim_sizes_uncached,
        check=_check_dim_sizes_uncached,
        versions=BOTH,
    ),
    Case(
        id="reset-draws-clip-with-key",
        source="google/brax#300",
        impure=False,
        kinds=(),
        why="btaba's answer: load the clips once, split the key passed to reset and pick the "
        "clip with jax.random.choice, so reset stays a function of its key under jit.",
        make=_make_reset_choice,
        check=_check_reset_choice,
        versions=BOTH,
    ),
    Case(
        id="batch-norm-threads-state",
        source="paganpasta/eqxvision#72",
        impure=False,
        kinds=(),
        why="patrick-kidger: BatchNorm's statefulness is now threaded through explicitly, "
        "x, state = norm(x, state), without side-effecting hackery, and so is compatible "
        "with arbitrary JAX transformations.",
        make=_make_batch_norm,
        check=_check_batch_norm,
        versions=BOTH,
    ),
    Case(
        id="jax101-counter-v2",
        source="jax-ml/jax#5980",
        impure=False,
        kinds=(),
        why="The notebook's fix: CounterV2.count takes the counter state as an argument and "
        "returns the new state, so the jitted count counts.",
        make=_make_counter_v2,
        check=_check_counter_v2,
        versions=BOTH,
    ),
]


validate(CASES, (*KINDS, *UNSEEN_KINDS))
