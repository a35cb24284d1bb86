"""A corpus of real impure and pure JAX functions, reduced from public bug reports.

Every entry in :data:`CASES` is a :class:`Case`: a small, CPU-only function reduced from a
GitHub issue / pull request (cited as ``owner/repo#number``) or a public web page (cited by
URL) in which someone's function behaved differently under ``jax.jit`` / ``jax.grad`` /
``jax.vmap`` than when run eagerly because of a side effect or hidden state -- or, for the
cases labelled pure, a function that was suspected of impurity but is pure (often the fixed
version from the same thread).

Each case carries

* ``make``: a zero-argument function that builds *fresh* state (new closures, new objects,
  new global namespaces, new caches) and returns ``(fn, args, kwargs)``.  Calling it twice
  never shares state between the two results, and no case shares state with another.
* ``check``: a zero-argument function that uses only ``jax``, ``numpy`` and the standard
  library to demonstrate the label: for impure cases it returns ``True`` when the impurity is
  observable (eager and jit disagree, a jitted function returns a stale or frozen value, a
  global or argument is changed only once or not at all, a tracer leaks, a callback is
  dropped, ...); for pure cases it returns ``True`` when eager and jit agree, repeated calls
  agree and no argument or outside state changed.
* ``versions``: the JAX versions on which ``check()`` was seen to return ``True``.

Functions that need *global* state (``global x`` statements, module-level lists) are written
once at module level as templates and re-bound by ``make`` to a brand-new globals namespace,
so the function really does assign to / mutate its globals while each ``make()`` call still
starts from scratch and the module's own globals are never touched.

The module imports only ``jax``, ``numpy`` and the standard library; it does not import the
package under test.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import os
import time
import types
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

__all__ = ["CASES", "KINDS", "Case", "validate"]

KINDS: tuple[str, ...] = (
    "leaked-tracer",
    "global-assignment",
    "closure-assignment",
    "container-mutation",
    "argument-mutation",
    "trace-time-print",
    "frozen-randomness",
    "jit-eager-mismatch",
    "stale-result",
    "dropped-callback",
    "trace-time-read",
    "lost-mutation",
    "remat-mutation",
)

Made = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]

NEW = "0.10.2"
OLD = "0.4.35"
#: Each case's check() run again on every JAX of the test matrix (December 2026, issue 36).
EVERY = (OLD, "0.6.2", NEW, "0.12.0.1")


@dataclasses.dataclass(frozen=True)
class Case:
    """One corpus entry; see the module docstring."""

    id: str
    source: str
    impure: bool
    kinds: tuple[str, ...]
    why: str
    make: Callable[[], Made]
    check: Callable[[], bool]
    versions: tuple[str, ...]


# --------------------------------------------------------------------------------------
# Helpers shared by the checks.
# --------------------------------------------------------------------------------------


def _is_tracer(x: Any) -> bool:
    return isinstance(x, jax.core.Tracer)


def _leaves(tree: Any) -> list[Any]:
    return jax.tree_util.tree_leaves(tree)


def _same(a: Any, b: Any) -> bool:
    """True when two pytrees have the same structure and numerically equal leaves."""
    if jax.tree_util.tree_structure(a) != jax.tree_util.tree_structure(b):
        return False
    return all(
        np.shape(x) == np.shape(y) and np.allclose(np.asarray(x), np.asarray(y))
        for x, y in zip(_leaves(a), _leaves(b), strict=True)
    )


def _snapshot(tree: Any) -> Any:
    """A host copy of every leaf, to detect later in-place changes."""
    return jax.tree_util.tree_map(lambda leaf: np.array(leaf, copy=True), tree)


def _run_capturing(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, str]:
    """Call ``fn`` and return its result together with everything printed meanwhile."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        out = fn(*args, **kwargs)
        jax.block_until_ready(out)
        jax.effects_barrier()
    return out, buf.getvalue()


def _fresh_globals(template: Callable[..., Any], **initial: Any) -> Callable[..., Any]:
    """Re-bind ``template`` to a new globals namespace seeded with ``initial``.

    The returned function is a distinct function object (so ``jax.jit`` traces it afresh)
    whose ``global`` statements and global reads refer to its own private namespace, which
    is reachable as ``fn.__globals__``.
    """
    namespace = dict(template.__globals__)
    namespace.update(initial)
    return _copy_function(template, namespace)


def _copy_function(
    template: Callable[..., Any], namespace: dict[str, Any] | None = None
) -> Callable[..., Any]:
    """A new function object with the same code (and, by default, the same globals).

    ``make`` hands out copies so that every call returns a function ``jax.jit`` has never
    seen: its tracing cache is keyed on the function object, and a cache hit would hide
    trace-time side effects from a later run of the same case.
    """
    fn = types.FunctionType(
        template.__code__,
        template.__globals__ if namespace is None else namespace,
        template.__name__,
        template.__defaults__,
        template.__closure__,
    )
    fn.__kwdefaults__ = template.__kwdefaults__
    fn.__qualname__ = template.__qualname__
    fn.__doc__ = template.__doc__
    fn.__module__ = template.__module__
    return fn


def _check_pure(make: Callable[[], Made]) -> bool:
    """Eager == jit, two jitted calls agree, and no argument is changed in place."""
    fn, args, kwargs = make()
    before = _snapshot((args, kwargs))
    eager = fn(*args, **kwargs)
    eager_again = fn(*args, **kwargs)
    jfn, jargs, jkwargs = make()
    jbefore = _snapshot((jargs, jkwargs))
    jitted = jax.jit(jfn)
    first = jitted(*jargs, **jkwargs)
    second = jitted(*jargs, **jkwargs)
    return (
        _same(eager, eager_again)
        and _same(eager, first)
        and _same(first, second)
        and _same(before, _snapshot((args, kwargs)))
        and _same(jbefore, _snapshot((jargs, jkwargs)))
    )


# ======================================================================================
# IMPURE CASES
# ======================================================================================

# --- jax-ml/jax#1348: global counter rebound inside jit --------------------------------

_g = 0  # placeholder only; each make() gives the function its own namespace


def _tmpl_global_counter() -> Any:
    global _g
    _g = _g + 1
    return _g


def _make_global_counter() -> Made:
    return _fresh_globals(_tmpl_global_counter, _g=0), (), {}


def _check_global_counter() -> bool:
    fn, _, _ = _make_global_counter()
    eager = [int(fn()), int(fn())]
    jfn, _, _ = _make_global_counter()
    jitted = jax.jit(jfn)
    jit = [int(jitted()), int(jitted())]
    return (
        eager == [1, 2]
        and fn.__globals__["_g"] == 2
        and jit == [1, 1]
        and jfn.__globals__["_g"] == 1
    )


# --- jax-ml/jax#3086: tracer stored in a global ----------------------------------------

_x_saved: Any = None  # placeholder only


def _tmpl_save_to_global(y: Any) -> Any:
    global _x_saved
    _x_saved = y
    return y + 2


def _make_save_to_global() -> Made:
    return _fresh_globals(_tmpl_save_to_global, _x_saved=None), (7.0,), {}


def _check_save_to_global() -> bool:
    fn, args, _ = _make_save_to_global()
    fn(*args)
    eager_ok = not _is_tracer(fn.__globals__["_x_saved"]) and fn.__globals__["_x_saved"] == 7.0
    jfn, jargs, _ = _make_save_to_global()
    jax.jit(jfn)(*jargs)
    return eager_ok and _is_tracer(jfn.__globals__["_x_saved"])


# --- jax-ml/jax#5492: list.append of a traced value ------------------------------------


def _build_append_leak() -> tuple[Made, list[Any]]:
    lst: list[Any] = []

    def f(x):
        lst.append(x)
        return x

    return (f, (3.0,), {}), lst


def _check_append_leak() -> bool:
    (fn, args, _), lst = _build_append_leak()
    fn(*args)
    (jfn, jargs, _), jlst = _build_append_leak()
    jax.jit(jfn)(*jargs)
    return not _is_tracer(lst[0]) and len(jlst) == 1 and _is_tracer(jlst[0])


# --- jax-ml/jax#252: global side-effect list appended only at trace time ---------------

_effects: list[Any] = []  # placeholder only


def _tmpl_effects(x: Any) -> Any:
    _effects.append(1)
    return x


def _make_effects() -> Made:
    return _fresh_globals(_tmpl_effects, _effects=[]), (2.0,), {}


def _check_effects() -> bool:
    fn, args, _ = _make_effects()
    fn(*args)
    fn(*args)
    jfn, jargs, _ = _make_effects()
    jitted = jax.jit(jfn)
    jitted(*jargs)
    jitted(*jargs)
    return len(fn.__globals__["_effects"]) == 2 and len(jfn.__globals__["_effects"]) == 1


# --- jax-ml/jax#13022: vmap writes a closure capturing a tracer into a dict -----------


class _DictHolder:
    def __init__(self, dct: dict[str, Any]) -> None:
        self.dct = dct


def _build_vmap_dict_leak() -> tuple[Made, _DictHolder]:
    a = _DictHolder({})

    def sketch(x):
        a.dct["hi"] = [lambda: x]
        return x

    return (sketch, (jnp.arange(3),), {}), a


def _check_vmap_dict_leak() -> bool:
    (fn, _, _), a = _build_vmap_dict_leak()
    fn(jnp.int32(1))
    (jfn, jargs, _), ja = _build_vmap_dict_leak()
    jax.vmap(jfn)(*jargs)
    return not _is_tracer(a.dct["hi"][0]()) and _is_tracer(ja.dct["hi"][0]())


# --- jax-ml/jax#12773: closed-over list used as an accumulator -------------------------


def _build_accumulator() -> tuple[Made, list[Any]]:
    tot: list[Any] = [0.0]

    def increment(x):
        tot[0] += x
        return tot[0]

    return (increment, (1.0,), {}), tot


def _check_accumulator() -> bool:
    (fn, args, _), _tot = _build_accumulator()
    eager = [float(fn(*args)), float(fn(*args))]
    (jfn, jargs, _), jtot = _build_accumulator()
    jitted = jax.jit(jfn)
    jit = [float(jitted(*jargs)), float(jitted(*jargs))]
    return eager == [1.0, 2.0] and jit == [1.0, 1.0] and _is_tracer(jtot[0])


# --- jax-ml/jax#15817: jitted method assigns to an attribute of self -------------------


class _Subsystem:
    def __init__(self, x: Any) -> None:
        self.x = x

    def set_subsystem(self, index: Any, sub: _Subsystem) -> None:
        self.x = self.x.at[index].set(sub.x)


jax.tree_util.register_pytree_node(
    _Subsystem, lambda a: ((a.x,), None), lambda _aux, children: _Subsystem(*children)
)


def _make_set_subsystem() -> Made:
    a = _Subsystem(jnp.array([0.76, 0.37, 0.30]))
    sub = _Subsystem(jnp.array([0.02, 0.84]))
    return _copy_function(_Subsystem.set_subsystem), (a, jnp.arange(2), sub), {}


def _check_set_subsystem() -> bool:
    fn, (a, idx, sub), _ = _make_set_subsystem()
    fn(a, idx, sub)
    eager_changed = _same(a.x, jnp.array([0.02, 0.84, 0.30]))
    jfn, (ja, jidx, jsub), _ = _make_set_subsystem()
    jax.jit(jfn)(ja, jidx, jsub)
    return eager_changed and _same(ja.x, jnp.array([0.76, 0.37, 0.30]))


# --- jax-ml/jax#14619: tree_unflatten re-runs __init__ (which transforms its input) ----


class _HalvingSolver:
    def __init__(self, theta: Any = 0.0) -> None:
        self.theta = theta // 2

    def _tree_flatten(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (self.theta,), {}

    @classmethod
    def _tree_unflatten(cls, aux: dict[str, Any], children: tuple[Any, ...]) -> _HalvingSolver:
        return cls(*children, **aux)

    def solve(self) -> Any:
        return self.theta


jax.tree_util.register_pytree_node(
    _HalvingSolver, _HalvingSolver._tree_flatten, _HalvingSolver._tree_unflatten
)


def _make_halving_solver() -> Made:
    return _copy_function(_HalvingSolver.solve), (_HalvingSolver(theta=4),), {}


def _check_halving_solver() -> bool:
    fn, args, _ = _make_halving_solver()
    eager = fn(*args)
    jfn, jargs, _ = _make_halving_solver()
    jit = jax.jit(jfn)(*jargs)
    return float(eager) == 2.0 and float(jit) == 1.0


# --- patrick-kidger/equinox#1071: "consumed" flag set on a state argument -------------


class _ConsumableState:
    def __init__(self, value: Any) -> None:
        self.value = value
        self.consumed = False

    def get(self) -> Any:
        return self.value

    def set(self, value: Any) -> _ConsumableState:
        self.consumed = True  # invalidate the old state, as eqx.nn.State.set does
        return _ConsumableState(value)


jax.tree_util.register_pytree_node(
    _ConsumableState,
    lambda s: ((s.value,), None),
    lambda _aux, children: _ConsumableState(*children),
)


def _counter_step(x: Any, state: _ConsumableState) -> tuple[Any, _ConsumableState]:
    value = state.get()
    new_state = state.set(value + 1)
    return x + value, new_state


def _make_consumed_flag() -> Made:
    return _copy_function(_counter_step), (jnp.float32(2.3), _ConsumableState(jnp.int32(0))), {}


def _check_consumed_flag() -> bool:
    fn, (x, state), _ = _make_consumed_flag()
    fn(x, state)
    jfn, (jx, jstate), _ = _make_consumed_flag()
    jax.jit(jfn)(jx, jstate)
    return state.consumed and not jstate.consumed


# --- jax-ml/jax#196: print of a traced value inside jit --------------------------------


def _print_update(i: Any, params: Any) -> Any:
    print("params", params)
    return params - 0.1 * i


def _make_print_update() -> Made:
    return _copy_function(_print_update), (1.0, jnp.ones(2)), {}


def _check_print_update() -> bool:
    fn, args, _ = _make_print_update()
    _, eager1 = _run_capturing(fn, *args)
    _, eager2 = _run_capturing(fn, *args)
    jfn, jargs, _ = _make_print_update()
    jitted = jax.jit(jfn)
    _, jit1 = _run_capturing(jitted, *jargs)
    _, jit2 = _run_capturing(jitted, *jargs)
    return (
        "params" in eager1
        and "params" in eager2
        and "Trace" not in eager1
        and "params" in jit1
        and "Trace" in jit1
        and jit2 == ""
    )


# --- jax-ml/jax#4615: print inside a function differentiated with grad -----------------


def _jutotal(x: Any) -> Any:
    ret = jnp.sin(x) * x
    print("JUtotal: ", ret)
    return ret


def _make_jutotal() -> Made:
    return _copy_function(_jutotal), (0.5,), {}


def _check_jutotal() -> bool:
    fn, args, _ = _make_jutotal()
    _, eager = _run_capturing(fn, *args)
    gfn, gargs, _ = _make_jutotal()
    _, grad_out = _run_capturing(jax.grad(gfn), *gargs)
    return "JUtotal" in eager and "Trace" not in eager and "Trace" in grad_out


# --- jax-ml/jax#2793: stateful numpy random numbers inside jit -------------------------


def _make_numpy_random() -> Made:
    rng = np.random.default_rng(0)

    def add_noise(x):
        return x + rng.normal()

    return add_noise, (jnp.zeros(3),), {}


def _check_numpy_random() -> bool:
    fn, args, _ = _make_numpy_random()
    e1, e2 = fn(*args), fn(*args)
    jfn, jargs, _ = _make_numpy_random()
    jitted = jax.jit(jfn)
    j1, j2 = jitted(*jargs), jitted(*jargs)
    return not _same(e1, e2) and _same(j1, j2)


# --- google/objax#208: stateful key generator object used inside jit -------------------


class _KeyGenerator:
    def __init__(self, seed: int) -> None:
        self.key = jax.random.PRNGKey(seed)

    def __call__(self) -> Any:
        self.key, subkey = jax.random.split(self.key)
        return subkey


def _build_generator() -> tuple[Made, _KeyGenerator]:
    gen = _KeyGenerator(0)

    def function():
        return jax.random.uniform(gen(), (1,))

    return (function, (), {}), gen


def _check_generator() -> bool:
    (fn, _, _), _gen = _build_generator()
    e1, e2, e3 = fn(), fn(), fn()
    (jfn, _, _), jgen = _build_generator()
    jitted = jax.jit(jfn)
    j1, j2, j3 = jitted(), jitted(), jitted()
    return (
        not _same(e1, e2)
        and not _same(e2, e3)
        and _same(j1, j2)
        and _same(j2, j3)
        and _is_tracer(jgen.key)
    )


# --- jax-ml/jax#4312: global PRNG key split inside jit ---------------------------------

_key: Any = None  # placeholder only


def _tmpl_global_key_init() -> Any:
    global _key
    _key, subkey = jax.random.split(_key)
    return jax.random.normal(subkey, ())


def _make_global_key() -> Made:
    return _fresh_globals(_tmpl_global_key_init, _key=jax.random.PRNGKey(0)), (), {}


def _check_global_key() -> bool:
    fn, _, _ = _make_global_key()
    e1, e2 = fn(), fn()
    jfn, _, _ = _make_global_key()
    jitted = jax.jit(jfn)
    j1, j2 = jitted(), jitted()
    return not _same(e1, e2) and _same(j1, j2) and _is_tracer(jfn.__globals__["_key"])


# --- jcmgray/autoray#27: backend-global key registry traced out by jit -----------------


def _build_key_registry() -> tuple[Made, dict[str, Any]]:
    registry = {"jax": jax.random.PRNGKey(0)}

    def get_key():
        registry["jax"], subkey = jax.random.split(registry["jax"])
        return subkey

    def sampler():
        return jax.random.normal(get_key())

    return (sampler, (), {}), registry


def _check_key_registry() -> bool:
    (fn, _, _), _reg = _build_key_registry()
    eager = [float(fn()) for _ in range(3)]
    (jfn, _, _), jreg = _build_key_registry()
    jitted = jax.jit(jfn)
    jit = [float(jitted()) for _ in range(3)]
    return len(set(eager)) == 3 and len(set(jit)) == 1 and _is_tracer(jreg["jax"])


# --- google/flax#112: RNG context (make_rng) does not extend into jit ------------------


class _RngContext:
    def __init__(self, key: Any) -> None:
        self.key = key
        self.count = 0

    def make_rng(self) -> Any:
        self.count += 1
        return jax.random.fold_in(self.key, self.count)


def _build_rng_context() -> tuple[Made, _RngContext]:
    ctx = _RngContext(jax.random.PRNGKey(0))

    def rnd():
        return (
            jax.random.randint(ctx.make_rng(), (5,), 0, 10),
            jax.random.randint(ctx.make_rng(), (5,), 0, 10),
        )

    return (rnd, (), {}), ctx


def _check_rng_context() -> bool:
    (fn, _, _), ctx = _build_rng_context()
    e1, e2 = fn(), fn()
    (jfn, _, _), jctx = _build_rng_context()
    jitted = jax.jit(jfn)
    j1, j2, j3 = jitted(), jitted(), jitted()
    return (
        not _same(e1, e2) and ctx.count == 4 and _same(j1, j2) and _same(j2, j3) and jctx.count == 2
    )


# --- jax-ml/jax#1141: PRNG key seeded from time.time() at trace time -------------------


def _time_seeded_noise(x: Any) -> Any:
    seed = int(time.time() * 1e6) % (2**31 - 1)
    key = jax.random.PRNGKey(seed)
    return x + jax.random.normal(key, x.shape)


def _make_time_seeded() -> Made:
    return _copy_function(_time_seeded_noise), (jnp.zeros(3),), {}


def _check_time_seeded() -> bool:
    fn, args, _ = _make_time_seeded()
    e1 = fn(*args)
    time.sleep(0.002)
    e2 = fn(*args)
    jfn, jargs, _ = _make_time_seeded()
    jitted = jax.jit(jfn)
    j1 = jitted(*jargs)
    time.sleep(0.002)
    j2 = jitted(*jargs)
    return not _same(e1, e2) and _same(j1, j2)


# --- jax-ml/jax#33524: os.environ consulted while tracing ------------------------------

_ENV_FLAG = "JAXPURITY_CORPUS_DEBUG"


def _env_debug_double(x: Any) -> Any:
    if _ENV_FLAG in os.environ:
        jax.debug.print("debug x = {}", x)
    return 2.0 * x


def _make_env_flag() -> Made:
    os.environ.pop(_ENV_FLAG, None)
    return _copy_function(_env_debug_double), (jnp.arange(3.0),), {}


def _check_env_flag() -> bool:
    previous = os.environ.get(_ENV_FLAG)
    try:
        jfn, jargs, _ = _make_env_flag()
        jitted = jax.jit(jfn)
        _, before = _run_capturing(jitted, *jargs)
        os.environ[_ENV_FLAG] = "1"
        _, after = _run_capturing(jitted, *jargs)
        fn, args, _ = _make_env_flag()
        os.environ[_ENV_FLAG] = "1"
        _, eager = _run_capturing(fn, *args)
        return "debug x" not in before and "debug x" not in after and "debug x" in eager
    finally:
        if previous is None:
            os.environ.pop(_ENV_FLAG, None)
        else:
            os.environ[_ENV_FLAG] = previous


# --- jax-ml/jax#1426: closed-over variable changed after jit(grad(...)) ----------------


def _build_closure_scale() -> tuple[Made, Callable[[float], None]]:
    a = 10.0

    def loss_sum(val):
        return jnp.sum(val[:2] ** 2 + val[2:] ** 3) * a

    def set_a(value: float) -> None:
        nonlocal a
        a = value

    return (loss_sum, (jnp.array([2.0, 3.0, 4.0, 5.0]),), {}), set_a


def _check_closure_scale() -> bool:
    (fn, args, _), set_a = _build_closure_scale()
    g = jax.jit(jax.grad(fn))
    first = g(*args)
    set_a(20.0)
    second = g(*args)
    eager = jax.grad(fn)(*args)
    expected_20 = np.array([80.0, 120.0, 960.0, 1500.0])
    return (
        _same(first, np.array([40.0, 60.0, 480.0, 750.0]))
        and _same(second, first)
        and _same(eager, expected_20)
    )


# --- Optax training-loop question: global learning rate read at trace time ------------

_extra_learning_rate = 0.1  # placeholder only


def _tmpl_scaled_step(params: Any, updates: Any) -> Any:
    return params - _extra_learning_rate * updates


def _make_scaled_step() -> Made:
    fn = _fresh_globals(_tmpl_scaled_step, _extra_learning_rate=0.1)
    return fn, (jnp.ones(3), jnp.ones(3)), {}


def _check_scaled_step() -> bool:
    fn, args, _ = _make_scaled_step()
    jitted = jax.jit(fn)
    first = jitted(*args)
    fn.__globals__["_extra_learning_rate"] = 0.01
    second = jitted(*args)
    eager = fn(*args)
    return (
        _same(first, 0.9 * np.ones(3)) and _same(second, first) and _same(eager, 0.99 * np.ones(3))
    )


# --- reservoirpy/reservoirpy#235: jitted step with static self, attributes mutated ------


class _IPReservoir:
    def __init__(self) -> None:
        self.a = 1.0
        self.b = 0.0

    @functools.partial(jax.jit, static_argnums=(0,))
    def _step(self, x: Any) -> Any:
        return jnp.tanh(self.a * x + self.b)


def _build_ip_reservoir() -> tuple[Made, _IPReservoir]:
    node = _IPReservoir()
    return (node._step, (jnp.array([0.5, -0.25]),), {}), node


def _check_ip_reservoir() -> bool:
    (fn, args, _), node = _build_ip_reservoir()
    first = fn(*args)
    node.a, node.b = 2.0, 0.5  # what fit/partial_fit do
    second = fn(*args)
    expected = np.tanh(2.0 * np.asarray(args[0]) + 0.5)
    return _same(second, first) and not _same(second, expected)


# --- jax-ml/jax#13992: hashable static argument mutated after use ---------------------


class _StaticValue:
    def __init__(self, val: int) -> None:
        self.val = val

    def __hash__(self) -> int:
        return hash(self.val)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _StaticValue) and self.val == other.val


def _add_static(v: _StaticValue, y: Any) -> Any:
    return y + v.val


def _make_mutated_static() -> Made:
    return _copy_function(_add_static), (_StaticValue(100), 1), {}


def _check_mutated_static() -> bool:
    fn, (v, y), _ = _make_mutated_static()
    add = jax.jit(fn, static_argnums=0)
    first = int(add(v, y))
    v.val = 0
    after = [int(add(v, y)), int(add(v, y))]
    return first == 101 and any(r != 1 for r in after)


# --- jax-ml/jax#13762: pure_callback used for a side effect, result unused -------------


def _build_unused_callback() -> tuple[Made, list[Any]]:
    calls: list[Any] = []

    def callback(x):
        calls.append(x)
        return x

    def f(x):
        _ = jax.pure_callback(callback, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
        return x

    return (f, (jnp.float32(3.0),), {}), calls


def _check_unused_callback() -> bool:
    (fn, args, _), calls = _build_unused_callback()
    fn(*args)
    (jfn, jargs, _), jcalls = _build_unused_callback()
    jax.block_until_ready(jax.jit(jfn)(*jargs))
    jax.effects_barrier()
    return len(calls) == 1 and len(jcalls) == 0


# --- brainpy/BrainPy#683: progress bar updated through pure_callback in a loop ---------


def _build_progress_bar() -> tuple[Made, list[int]]:
    ticks: list[int] = []

    def tick(i):
        ticks.append(int(i))
        return i

    def run(x):
        def body(i, carry):
            jax.pure_callback(tick, jax.ShapeDtypeStruct(jnp.shape(i), jnp.result_type(i)), i)
            return carry * 1.1

        return lax.fori_loop(0, 5, body, x)

    return (run, (jnp.float32(1.0),), {}), ticks


def _check_progress_bar() -> bool:
    (jfn, jargs, _), ticks = _build_progress_bar()
    out = jax.jit(jfn)(*jargs)
    jax.block_until_ready(out)
    jax.effects_barrier()
    return bool(np.isclose(float(out), 1.1**5, rtol=1e-5)) and ticks == []


# --- jax-ml/jax#16637: debug.callback counter hoisted out of scan under grad -----------


def _build_hoisted_callback() -> tuple[Made, list[int]]:
    counter = [0]

    def count():
        counter[0] += 1

    def f(x, _):
        jax.debug.callback(count)
        return jnp.sin(x), None

    def run(x):
        out, _ = lax.scan(f, x, xs=None, length=5)
        return out

    return (run, (1.0,), {}), counter


def _check_hoisted_callback() -> bool:
    (fn, args, _), counter = _build_hoisted_callback()
    jax.block_until_ready(jax.jit(fn)(*args))
    jax.effects_barrier()
    fwd = counter[0]
    (gfn, gargs, _), gcounter = _build_hoisted_callback()
    jax.block_until_ready(jax.jit(jax.grad(gfn))(*gargs))
    jax.effects_barrier()
    return fwd == 5 and gcounter[0] != 5


# --- jax-ml/jax#19570: tracing a bound method sets a flag on self ----------------------


class _TraceFlag:
    def __init__(self) -> None:
        self.f_traced = False
        self.times_traced = 0

    def f(self) -> Any:
        # The report guards this with `assert not self.f_traced`; here the second trace is
        # counted instead, so the function can also be run eagerly and then jitted.
        self.f_traced = True
        self.times_traced += 1
        return jnp.zeros(())


def _make_trace_flag() -> Made:
    foo = _TraceFlag()
    return foo.f, (), {}


def _check_trace_flag() -> bool:
    fn, _, _ = _make_trace_flag()
    foo = fn.__self__
    jax.jit(foo.f).lower()  # only traces and lowers, never runs the computation
    mutated_by_tracing = foo.f_traced and foo.times_traced == 1
    jax.jit(foo.f).lower()  # a new bound method: traced again, sees the mutated self
    return mutated_by_tracing and foo.times_traced == 2


# --- jax-ml/jax#20732: Counter.count jitted, self.n += 1 -------------------------------


class _Counter:
    def __init__(self) -> None:
        self.n = 0

    def count(self) -> int:
        self.n += 1
        return self.n


def _make_counter_method() -> Made:
    return _Counter().count, (), {}


def _check_counter_method() -> bool:
    fn, _, _ = _make_counter_method()
    eager = [int(fn()) for _ in range(3)]
    jfn, _, _ = _make_counter_method()
    jitted = jax.jit(jfn)
    jit = [int(jitted()) for _ in range(3)]
    return eager == [1, 2, 3] and jit == [1, 1, 1] and jfn.__self__.n == 1


# --- jax-ml/jax#1922: batch norm writes its running mean into a dict argument ---------


def _batchnorm_train(x: Any, stats: dict[str, Any]) -> Any:
    mean = jnp.mean(x)
    stats["running_mean"] = 0.9 * stats["running_mean"] + 0.1 * mean
    return x - mean


def _make_batchnorm() -> Made:
    return (
        _copy_function(_batchnorm_train),
        (jnp.array([1.0, 2.0, 3.0]), {"running_mean": jnp.float32(0.0)}),
        {},
    )


def _check_batchnorm() -> bool:
    fn, (x, stats), _ = _make_batchnorm()
    fn(x, stats)
    jfn, (jx, jstats), _ = _make_batchnorm()
    jax.jit(jfn)(jx, jstats)
    return _same(stats["running_mean"], 0.2) and _same(jstats["running_mean"], 0.0)


# --- Stateful-update tutorial: dict argument mutated (append + item assignment) --------


def _update_data(data_dict: dict[str, Any], new_value: Any) -> None:
    data_dict["values"].append(new_value)
    data_dict["last_added"] = new_value


def _make_update_data() -> Made:
    return _copy_function(_update_data), ({"values": [10, 20]}, 30), {}


def _check_update_data() -> bool:
    fn, (data, value), _ = _make_update_data()
    fn(data, value)
    jfn, (jdata, jvalue), _ = _make_update_data()
    jax.jit(jfn)(jdata, jvalue)
    return data == {"values": [10, 20, 30], "last_added": 30} and jdata == {"values": [10, 20]}


# --- pyro-ppl/numpyro#1651: lazy property caches a tracer on an outside object --------


class _lazy_property:  # noqa: N801 - mirrors numpyro.distributions.util.lazy_property
    def __init__(self, wrapped: Callable[[Any], Any]) -> None:
        self.wrapped = wrapped
        self.name = wrapped.__name__

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return self
        value = self.wrapped(instance)
        instance.__dict__[self.name] = value
        return value


class _TruncatedNormal:
    def __init__(self, loc: Any, scale: Any) -> None:
        self.loc = jnp.asarray(loc)
        self.scale = jnp.asarray(scale)

    @_lazy_property
    def log_norm(self) -> Any:
        return jnp.log(self.scale) + 0.5 * jnp.log(2 * jnp.pi)

    def log_prob(self, value: Any) -> Any:
        return -0.5 * ((value - self.loc) / self.scale) ** 2 - self.log_norm


def _build_lazy_property() -> tuple[Made, dict[str, _TruncatedNormal]]:
    prior = {"x": _TruncatedNormal(0.0, 1.0)}

    def model(value):
        return prior["x"].log_prob(value)

    return (model, (jnp.float32(0.3),), {}), prior


def _check_lazy_property() -> bool:
    (fn, args, _), prior = _build_lazy_property()
    fn(*args)
    (jfn, jargs, _), jprior = _build_lazy_property()
    jax.jit(jfn)(*jargs)
    return not _is_tracer(prior["x"].__dict__["log_norm"]) and _is_tracer(
        jprior["x"].__dict__["log_norm"]
    )


# --- pyro-ppl/numpyro#2000: lru_cache'd helper first called inside jit ----------------


def _build_lru_cache() -> tuple[Made, Callable[[int], Any]]:
    @functools.lru_cache(maxsize=32)
    def offsets(n: int) -> Any:
        return jnp.arange(n) * 2.0

    def shifted(x):
        return x + offsets(x.shape[0])

    return (shifted, (jnp.ones(3),), {}), offsets


def _check_lru_cache() -> bool:
    (fn, args, _), offsets = _build_lru_cache()
    fn(*args)
    (jfn, jargs, _), joffsets = _build_lru_cache()
    jax.jit(jfn)(*jargs)
    return not _is_tracer(offsets(3)) and _is_tracer(joffsets(3))


# --- google-deepmind/distrax#64: object state written from a lax.scan body ------------


class _CachingNormal:
    def __init__(self, loc: Any) -> None:
        self.loc = loc
        self._last_centered: Any = None

    def log_prob(self, x: Any) -> Any:
        self._last_centered = x - self.loc
        return -0.5 * self._last_centered**2


def _build_scan_state() -> tuple[Made, _CachingNormal]:
    dist = _CachingNormal(jnp.float32(0.5))

    def unroll(xs):
        def body(carry, x):
            return carry + dist.log_prob(x), None

        total, _ = lax.scan(body, jnp.float32(0.0), xs)
        return total

    return (unroll, (jnp.array([0.0, 1.0, 2.0]),), {}), dist


def _check_scan_state() -> bool:
    (fn, args, _), dist = _build_scan_state()
    out = fn(*args)  # eager call: the scan body is still traced
    return bool(np.isclose(float(out), -0.5 * (0.25 + 0.25 + 2.25))) and _is_tracer(
        dist._last_centered
    )


# --- jax-ml/jax#18910: custom pytree stores an attribute during grad / jit ------------


class _CPT:
    def __init__(self, *, a: Any, b: Any) -> None:
        self.a = a
        self.b = b
        self.c: Any = None

    def set_c(self, e: Any) -> None:
        self.c = self.a * self.b * e

    def get_d(self) -> Any:
        return self.c * 2 + 1


jax.tree_util.register_pytree_node(
    _CPT, lambda t: ((t.a, t.b), None), lambda _aux, ch: _CPT(a=ch[0], b=ch[1])
)


def _cpt_loss(x: Any, e: Any, cpt: _CPT) -> Any:
    e = e.at[1:2].set(x)
    cpt.set_c(e)
    return cpt.get_d().sum()


def _make_cpt() -> Made:
    return (
        _copy_function(_cpt_loss),
        (2.0, jnp.ones(3), _CPT(a=jnp.float32(2.0), b=jnp.float32(3.0))),
        {},
    )


def _check_cpt() -> bool:
    fn, (x, e, cpt), _ = _make_cpt()
    fn(x, e, cpt)
    eager_ok = not _is_tracer(cpt.c) and _same(cpt.c, np.array([6.0, 12.0, 6.0]))
    gfn, (gx, ge, gcpt), _ = _make_cpt()
    jax.grad(gfn)(gx, ge, gcpt)
    jfn, (jx, je, jcpt), _ = _make_cpt()
    jax.jit(jfn)(jx, je, jcpt)
    return eager_ok and _is_tracer(gcpt.c) and jcpt.c is None


# --- jax-ml/jax#27315: nonlocal variable rebound inside a jitted function -------------


def _build_nonlocal() -> tuple[Made, Callable[[], Any]]:
    a = None

    def h(x):
        nonlocal a
        a = jnp.uint32(0) + x
        return a * 2

    def get_a():
        return a

    return (h, (jnp.uint32(3),), {}), get_a


def _check_nonlocal() -> bool:
    (fn, args, _), get_a = _build_nonlocal()
    fn(*args)
    (jfn, jargs, _), jget_a = _build_nonlocal()
    jax.jit(jfn)(*jargs)
    return not _is_tracer(get_a()) and int(get_a()) == 3 and _is_tracer(jget_a())


# --- Farama-Foundation/Jumpy#29: numpy-or-jax dispatch decided by the argument type ----


def _which_np(*args: Any) -> Any:
    return jnp if any(isinstance(a, jax.Array) for a in args) else np


def _random_split(rng: Any) -> Any:
    if _which_np(rng) is np:
        gen = np.random.default_rng(np.asarray(rng))
        return gen.integers(0, 2**32, size=(2, 2), dtype=np.uint32)
    return jax.random.split(rng)


def _make_backend_dispatch() -> Made:
    return _copy_function(_random_split), (np.array([0, 0], dtype=np.uint32),), {}


def _check_backend_dispatch() -> bool:
    fn, args, _ = _make_backend_dispatch()
    eager = fn(*args)
    jfn, jargs, _ = _make_backend_dispatch()
    jit = jax.jit(jfn)(*jargs)
    return isinstance(eager, np.ndarray) and not _same(eager, jit)


# --- jax-ml/jax#38460: global list read by a nested jit after eval_shape --------------


def _build_eval_shape_leak() -> tuple[Made, list[Any]]:
    foo: list[Any] = []

    @jax.jit
    def brk(token):
        [x] = foo
        return jnp.concatenate([token, x])

    def fn(x):
        foo.append(x)
        out = brk(x)
        foo.clear()
        return out

    return (fn, (jnp.array([1.0]),), {}), foo


def _check_eval_shape_leak() -> bool:
    (fn, args, _), _foo = _build_eval_shape_leak()
    jax.eval_shape(fn, *args)
    try:
        fn(*args)
    except jax.errors.UnexpectedTracerError:
        return True
    return False


# --- patrick-kidger/equinox#839: counter mutates its Memory field in __call__ ----------


class _Memory:
    def __init__(self, value: Any) -> None:
        self.value = value


class _MemoryCounter:
    def __init__(self, memory: _Memory) -> None:
        self.memory = memory

    def __call__(self, x: Any) -> Any:
        new_x = x + self.memory.value
        self.memory.value += 1
        return new_x


jax.tree_util.register_pytree_node(
    _Memory, lambda m: ((m.value,), None), lambda _aux, ch: _Memory(*ch)
)
jax.tree_util.register_pytree_node(
    _MemoryCounter, lambda c: ((c.memory,), None), lambda _aux, ch: _MemoryCounter(*ch)
)


def _memory_counter_call(counter: _MemoryCounter, x: Any) -> Any:
    return counter(x)


def _make_memory_counter() -> Made:
    return (
        _copy_function(_memory_counter_call),
        (_MemoryCounter(_Memory(jnp.asarray(0))), jnp.float32(2.3)),
        {},
    )


def _check_memory_counter() -> bool:
    fn, (counter, x), _ = _make_memory_counter()
    fn(counter, x)
    fn(counter, x)
    jfn, (jcounter, jx), _ = _make_memory_counter()
    jitted = jax.jit(jfn)
    jitted(jcounter, jx)
    jitted(jcounter, jx)
    return int(counter.memory.value) == 2 and int(jcounter.memory.value) == 0


# ======================================================================================
# PURE CASES
# ======================================================================================

# --- jax-ml/jax#5233: rebinding a local copy of an argument ---------------------------


def _rebind_copy(x: Any) -> Any:
    x_copy = x
    x_copy = x_copy**2
    return x_copy.sum()


def _make_rebind_copy() -> Made:
    return _copy_function(_rebind_copy), (jnp.array([1.0, 2.0, 3.0]),), {}


# --- google/flax#2060: loss reads a module-level function (predict) -------------------


def _predict(W: Any, b: Any, x: Any) -> Any:  # noqa: N803 - names from the thread
    return jnp.dot(x, W) + b


def _mse(W: Any, b: Any, x_batched: Any, y_batched: Any) -> Any:  # noqa: N803
    def squared_error(x, y):
        y_pred = _predict(W, b, x)
        return jnp.inner(y - y_pred, y - y_pred) / 2.0

    return jnp.mean(jax.vmap(squared_error)(x_batched, y_batched), axis=0)


def _make_mse() -> Made:
    W = jnp.array([[1.0, 0.0], [0.5, -1.0]])  # noqa: N806
    b = jnp.array([0.1, -0.2])
    xs = jnp.array([[1.0, 2.0], [3.0, 4.0], [0.0, -1.0]])
    ys = jnp.array([[1.0, 1.0], [2.0, 0.0], [0.5, 0.5]])
    return _copy_function(_mse), (W, b, xs, ys), {}


# --- jax-ml/jax#2287: index update returns a new array --------------------------------


def _record(tab: Any, i: Any, value: Any) -> Any:
    return tab.at[i].set(value)


def _make_record() -> Made:
    return _copy_function(_record), (jnp.zeros(5), 2, 1.5), {}


# --- jax-ml/jax#7783: .at[].set under jit does not touch the input --------------------


def _fancy_set(a: Any, idx: Any, b: Any) -> Any:
    return a.at[idx].set(b)


def _make_fancy_set() -> Made:
    idx = (jnp.array([1, 1, 2, 2]), jnp.array([1, 2, 1, 2]))
    return _copy_function(_fancy_set), (jnp.ones((3, 3)), idx, -1.0), {}


# --- jax-ml/jax#196 (resolution): jax.debug.print prints on every call ----------------


def _debug_print_update(i: Any, params: Any) -> Any:
    jax.debug.print("params {p}", p=params)
    return params - 0.1 * i


def _make_debug_print() -> Made:
    return _copy_function(_debug_print_update), (1.0, jnp.ones(2)), {}


def _check_debug_print() -> bool:
    fn, args, _ = _make_debug_print()
    eager, eager_text = _run_capturing(fn, *args)
    jfn, jargs, _ = _make_debug_print()
    jitted = jax.jit(jfn)
    j1, text1 = _run_capturing(jitted, *jargs)
    j2, text2 = _run_capturing(jitted, *jargs)
    printed_each_call = all("params [1. 1.]" in t for t in (eager_text, text1, text2))
    return printed_each_call and _same(eager, j1) and _same(j1, j2)


# --- jax-ml/jax#1348 (resolution): counter threaded through arguments -----------------


def _increment(g: Any) -> Any:
    return g + 1


def _make_increment() -> Made:
    return _copy_function(_increment), (jnp.int32(0),), {}


def _check_increment() -> bool:
    fn, args, _ = _make_increment()
    jitted = jax.jit(fn)
    g = args[0]
    seen = []
    for _ in range(3):
        g = jitted(g)
        seen.append(int(g))
    return seen == [1, 2, 3] and _check_pure(_make_increment)


# --- jax-ml/jax#4312 (resolution): PRNG key passed in and returned --------------------


def _explicit_key_init(key: Any) -> Any:
    key, subkey = jax.random.split(key)
    return jax.random.normal(subkey, ()), key


def _make_explicit_key() -> Made:
    return _copy_function(_explicit_key_init), (jax.random.PRNGKey(0),), {}


def _check_explicit_key() -> bool:
    fn, (key,), _ = _make_explicit_key()
    jitted = jax.jit(fn)
    v1, key = jitted(key)
    v2, key = jitted(key)
    return not _same(v1, v2) and _check_pure(_make_explicit_key)


# --- google/flax#112 ("Works" variant): rng passed explicitly into jit ----------------


def _rnd_with_rng(rng: Any) -> Any:
    k1, k2 = jax.random.split(rng)
    return jax.random.randint(k1, (5,), 0, 10), jax.random.randint(k2, (5,), 0, 10)


def _make_rnd_with_rng() -> Made:
    return _copy_function(_rnd_with_rng), (jax.random.PRNGKey(0),), {}


# --- patrick-kidger/equinox#1071 (stateful API): new state returned, not mutated ------


class _CountState(NamedTuple):
    count: Any


def _functional_counter(x: Any, state: _CountState) -> tuple[Any, _CountState]:
    value = state.count
    return x + value, _CountState(value + 1)


def _make_functional_counter() -> Made:
    return _copy_function(_functional_counter), (jnp.float32(2.3), _CountState(jnp.int32(0))), {}


# --- google/dopamine#189: noise drawn from a fixed key is deterministic ----------------


def _fixed_key_noisy_dense(x: Any, w: Any) -> Any:
    noise = jax.random.normal(jax.random.PRNGKey(1), w.shape)
    return x @ (w + 0.1 * noise)


def _make_fixed_key() -> Made:
    return _copy_function(_fixed_key_noisy_dense), (jnp.ones((2, 3)), jnp.eye(3)), {}


# --- jax-ml/jax#13762 (contrast): pure_callback whose result is used ------------------


def _callback_sin(x: Any) -> Any:
    return jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)


def _make_callback_sin() -> Made:
    return _copy_function(_callback_sin), (jnp.arange(3, dtype=jnp.float32),), {}


# --- jax-ml/jax#207 (resolution): values threaded through the fori_loop carry ----------


def _iterate_get(a: Any, b: Any) -> Any:
    def body_fun(step, carry):
        idx, row = carry
        return idx, row[idx]

    return lax.fori_loop(0, 10, body_fun, (a, b))[1]


def _make_iterate_get() -> Made:
    return _copy_function(_iterate_get), (jnp.array([1, 2, 3, 0]), jnp.array([0, 1, 2, 3])), {}


# --- jax-ml/jax#1426 (resolution): the scale is an explicit argument ------------------


def _loss_sum(val: Any, a: Any) -> Any:
    return jnp.sum(val[:2] ** 2 + val[2:] ** 3) * a


def _make_loss_sum_grad() -> Made:
    return jax.grad(_copy_function(_loss_sum)), (jnp.array([2.0, 3.0, 4.0, 5.0]), 10.0), {}


def _check_loss_sum_grad() -> bool:
    fn, (val, _a), _ = _make_loss_sum_grad()
    jitted = jax.jit(fn)
    g10, g20 = jitted(val, 10.0), jitted(val, 20.0)
    return (
        _same(g10, np.array([40.0, 60.0, 480.0, 750.0]))
        and _same(g20, np.array([80.0, 120.0, 960.0, 1500.0]))
        and _check_pure(_make_loss_sum_grad)
    )


# --- jax-ml/jax#15817 (resolution): return a new object instead of setting self.x -----


def _with_subsystem(a: _Subsystem, index: Any, sub: _Subsystem) -> _Subsystem:
    return _Subsystem(a.x.at[index].set(sub.x))


def _make_with_subsystem() -> Made:
    a = _Subsystem(jnp.array([0.76, 0.37, 0.30]))
    sub = _Subsystem(jnp.array([0.02, 0.84]))
    return _copy_function(_with_subsystem), (a, jnp.arange(2), sub), {}


def _check_with_subsystem() -> bool:
    fn, (a, idx, sub), _ = _make_with_subsystem()
    out = jax.jit(fn)(a, idx, sub)
    return (
        _same(out.x, np.array([0.02, 0.84, 0.30]))
        and _same(a.x, np.array([0.76, 0.37, 0.30]))
        and _check_pure(_make_with_subsystem)
    )


# --- jax-ml/jax#14619 (resolution): unflatten bypasses __init__ -----------------------


class _HalvingSolverFixed:
    def __init__(self, theta: Any = 0.0) -> None:
        self.theta = theta // 2

    def _tree_flatten(self) -> tuple[tuple[Any, ...], None]:
        return (self.theta,), None

    @classmethod
    def _tree_unflatten(cls, aux: None, children: tuple[Any, ...]) -> _HalvingSolverFixed:
        obj = object.__new__(cls)
        (obj.theta,) = children
        return obj

    def solve(self) -> Any:
        return self.theta


jax.tree_util.register_pytree_node(
    _HalvingSolverFixed, _HalvingSolverFixed._tree_flatten, _HalvingSolverFixed._tree_unflatten
)


def _make_halving_solver_fixed() -> Made:
    return _copy_function(_HalvingSolverFixed.solve), (_HalvingSolverFixed(theta=4),), {}


def _check_halving_solver_fixed() -> bool:
    fn, args, _ = _make_halving_solver_fixed()
    return float(jax.jit(fn)(*args)) == 2.0 and _check_pure(_make_halving_solver_fixed)


# --- pyro-ppl/numpyro#1024: lax.scan with the state in the carry ----------------------


def _matrix_rollout(K: Any, c_in: Any) -> Any:  # noqa: N803 - name from the thread
    def iteration(c_prev, c):
        c_next = jnp.dot(c_prev, K) + c
        return c_next, (c_next,)

    _, (ys,) = lax.scan(iteration, jnp.asarray([1.0, 0.0]), c_in)
    return ys


def _make_matrix_rollout() -> Made:
    K = jnp.asarray([[0.7, 0.3], [0.3, 0.7]])  # noqa: N806
    return _copy_function(_matrix_rollout), (K, jnp.asarray([[1.0, 0.0], [0.0, 1.0]])), {}


def _pure(make: Callable[[], Made]) -> Callable[[], bool]:
    return functools.partial(_check_pure, make)


def _raises(exc: type[BaseException], fn: Callable[..., Any], *args: Any) -> bool:
    """Whether ``fn(*args)`` raises ``exc``, its callbacks' effects included (what it prints
    is dropped)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            jax.block_until_ready(fn(*args))
            jax.effects_barrier()
    except exc:
        return True
    return False


# ======================================================================================
# The corpus.
# ======================================================================================

CASES: list[Case] = [
    # ---------------------------------------------------------------- impure cases
    Case(
        id="global-counter-jit",
        source="jax-ml/jax#1348",
        impure=True,
        kinds=("global-assignment", "stale-result"),
        why="Under @jit, f() with `global g; g = g+1` gives 1, 1, 1 instead of 1, 2, 3.",
        make=_make_global_counter,
        check=_check_global_counter,
        versions=EVERY,
    ),
    Case(
        id="global-store-tracer",
        source="jax-ml/jax#3086",
        impure=True,
        kinds=("global-assignment", "leaked-tracer"),
        why="`global x; x = y` inside a jitted f stores the traced y in a global, which the "
        "leak checker reports as a leaked tracer.",
        make=_make_save_to_global,
        check=_check_save_to_global,
        versions=EVERY,
    ),
    Case(
        id="list-append-leak",
        source="jax-ml/jax#5492",
        impure=True,
        kinds=("container-mutation", "leaked-tracer"),
        why="`lst.append(x)` in a jitted f stashes a tracer in outside state, the side effect "
        "the leak checker was revived to catch.",
        make=lambda: _build_append_leak()[0],
        check=_check_append_leak,
        versions=EVERY,
    ),
    Case(
        id="global-effects-list-once",
        source="jax-ml/jax#252",
        impure=True,
        kinds=("container-mutation",),
        why="`effects.append(1)` in a jitted f runs only while tracing; only with jit "
        "disabled does calling f twice give len(effects) == 2.",
        make=_make_effects,
        check=_check_effects,
        versions=EVERY,
    ),
    Case(
        id="vmap-dict-closure-leak",
        source="jax-ml/jax#13022",
        impure=True,
        kinds=("container-mutation", "leaked-tracer"),
        why="`a.dct['hi'] = [lambda: x]` under vmap keeps a BatchTracer alive through a dict, "
        "reported as a leaked trace.",
        make=lambda: _build_vmap_dict_leak()[0],
        check=_check_vmap_dict_leak,
        versions=EVERY,
    ),
    Case(
        id="closure-list-accumulator",
        source="jax-ml/jax#12773",
        impure=True,
        kinds=("container-mutation", "stale-result", "leaked-tracer"),
        why="The maintainers' model of the bug, a jitted increment doing `tot[0] += x` on a "
        "closed-over list, is a mutating side effect that voids the jax.jit warranty.",
        make=lambda: _build_accumulator()[0],
        check=_check_accumulator,
        versions=EVERY,
    ),
    Case(
        id="jit-method-sets-self-attr",
        source="jax-ml/jax#15817",
        impure=True,
        kinds=("argument-mutation", "lost-mutation"),
        why="The jitted method set_subsystem, which assigns self.x, does not change the "
        "attribute x; without jit it does.",
        make=_make_set_subsystem,
        check=_check_set_subsystem,
        versions=EVERY,
    ),
    Case(
        id="unflatten-reruns-init",
        source="jax-ml/jax#14619",
        impure=True,
        kinds=("jit-eager-mismatch",),
        why="tree_unflatten calls cls(...), so __init__'s `theta // 2` runs again inside "
        "jit: no-jit gives 2 but the jitted method gives 1.",
        make=_make_halving_solver,
        check=_check_halving_solver,
        versions=EVERY,
    ),
    Case(
        id="state-consumed-flag-lost",
        source="patrick-kidger/equinox#1071",
        impure=True,
        kinds=("argument-mutation", "lost-mutation"),
        why="Under jit, state.set()'s `self._state = _sentinel` invalidation is dropped, so "
        "the old state is not marked as consumed and can be reused.",
        make=_make_consumed_flag,
        check=_check_consumed_flag,
        versions=EVERY,
    ),
    Case(
        id="print-traced-params",
        source="jax-ml/jax#196",
        impure=True,
        kinds=("trace-time-print",),
        why="print('params', params) inside a jitted update prints Traced<ShapedArray(...)> "
        "objects (once, at trace time) instead of values.",
        make=_make_print_update,
        check=_check_print_update,
        versions=EVERY,
    ),
    Case(
        id="print-under-grad",
        source="jax-ml/jax#4615",
        impure=True,
        kinds=("trace-time-print",),
        why="print('JUtotal: ', ret) in a function passed to grad shows a JVPTracer instead "
        "of the numerical value.",
        make=_make_jutotal,
        check=_check_jutotal,
        versions=EVERY,
    ),
    Case(
        id="numpy-random-in-jit",
        source="jax-ml/jax#2793",
        impure=True,
        kinds=("frozen-randomness",),
        why="Functions should act the same whether they are under jit or not, and a stateful "
        "numpy-style random API does not preserve that jit-invariance property.",
        make=_make_numpy_random,
        check=_check_numpy_random,
        versions=EVERY,
    ),
    Case(
        id="stateful-generator-object",
        source="google/objax#208",
        impure=True,
        kinds=("frozen-randomness", "leaked-tracer"),
        why="If the random generator's variables are not given to Jit, the jitted function "
        "returns the same number every time.",
        make=lambda: _build_generator()[0],
        check=_check_generator,
        versions=EVERY,
    ),
    Case(
        id="global-key-split",
        source="jax-ml/jax#4312",
        impure=True,
        kinds=("global-assignment", "frozen-randomness", "leaked-tracer"),
        why="init() splitting a global key gives repeated randomness under jit, and the "
        "global key is left holding an escaped tracer.",
        make=_make_global_key,
        check=_check_global_key,
        versions=EVERY,
    ),
    Case(
        id="global-key-registry",
        source="jcmgray/autoray#27",
        impure=True,
        kinds=("container-mutation", "frozen-randomness", "leaked-tracer"),
        why="jit traces out the backend's global random key, so the jitted sampler prints "
        "the same 'random' number ten times.",
        make=lambda: _build_key_registry()[0],
        check=_check_key_registry,
        versions=EVERY,
    ),
    Case(
        id="rng-context-make-rng",
        source="google/flax#112",
        impure=True,
        kinds=("frozen-randomness", "container-mutation"),
        why="The stochastic context does not extend into jitted functions, so make_rng() "
        "inside them always produces the same 'random' numbers.",
        make=lambda: _build_rng_context()[0],
        check=_check_rng_context,
        versions=EVERY,
    ),
    Case(
        id="time-seeded-key",
        source="jax-ml/jax#1141",
        impure=True,
        kinds=("trace-time-read", "frozen-randomness"),
        why="`rng = random.PRNGKey(int(time.time()))` freezes the key at compile time and "
        "produces the same random numbers at every step.",
        make=_make_time_seeded,
        check=_check_time_seeded,
        versions=EVERY,
    ),
    Case(
        id="environ-flag-at-trace-time",
        source="jax-ml/jax#33524",
        impure=True,
        kinds=("trace-time-read", "stale-result"),
        why="The suggested `if 'DEBUG' in os.environ: jax.debug.print(...)` is evaluated "
        "while tracing, so a jitted function ignores later changes to the variable.",
        make=_make_env_flag,
        check=_check_env_flag,
        versions=EVERY,
    ),
    Case(
        id="closure-scale-stale",
        source="jax-ml/jax#1426",
        impure=True,
        kinds=("trace-time-read", "stale-result"),
        why="After `a = 20` the jit(grad(loss_sum)) result still uses a = 10; without jit "
        "the gradient doubles.",
        make=lambda: _build_closure_scale()[0],
        check=_check_closure_scale,
        versions=EVERY,
    ),
    Case(
        id="global-learning-rate-stale",
        source="https://openillumi.com/en/en-jax-jit-external-variable-implicit-argument-jaxpr",
        impure=True,
        kinds=("trace-time-read", "stale-result"),
        why="Globals used inside a @jax.jit function are captured as constants at the first "
        "trace, so changing extra_learning_rate between step calls is ignored.",
        make=_make_scaled_step,
        check=_check_scaled_step,
        versions=EVERY,
    ),
    Case(
        id="static-self-attributes-stale",
        source="reservoirpy/reservoirpy#235",
        impure=True,
        kinds=("trace-time-read", "stale-result"),
        why="_step is jitted with a static self, so self.a and self.b are baked into the "
        "compiled step and later updates by fit are ignored.",
        make=lambda: _build_ip_reservoir()[0],
        check=_check_ip_reservoir,
        versions=EVERY,
    ),
    Case(
        id="mutated-static-argument",
        source="jax-ml/jax#13992",
        impure=True,
        kinds=("argument-mutation", "stale-result"),
        why="Mutating a hashed static argument after a call lets the jit cache return a "
        "result computed for the old value (mutation and hashability don't mix).",
        make=_make_mutated_static,
        check=_check_mutated_static,
        versions=(NEW,),
    ),
    Case(
        id="pure-callback-result-unused",
        source="jax-ml/jax#13762",
        impure=True,
        kinds=("dropped-callback",),
        why="A pure_callback whose result is unused is dead-code-eliminated under jit, so "
        "the callback's print never happens.",
        make=lambda: _build_unused_callback()[0],
        check=_check_unused_callback,
        versions=EVERY,
    ),
    Case(
        id="pure-callback-progress-bar",
        source="brainpy/BrainPy#683",
        impure=True,
        kinds=("dropped-callback",),
        why="If JAX sees that a pure_callback's result isn't used it may optimize the call "
        "out, so progress-bar updates (a side effect) don't occur.",
        make=lambda: _build_progress_bar()[0],
        check=_check_progress_bar,
        versions=EVERY,
    ),
    Case(
        id="debug-callback-hoisted-from-scan",
        source="jax-ml/jax#16637",
        impure=True,
        kinds=("global-assignment", "dropped-callback"),
        why="A jax.debug.callback incrementing a global counter in a scan body runs 5 times "
        "for jit(run) but once for jit(grad(run)): it gets hoisted out of the scan.",
        make=lambda: _build_hoisted_callback()[0],
        check=_check_hoisted_callback,
        versions=EVERY,
    ),
    Case(
        id="bound-method-trace-flag",
        source="jax-ml/jax#19570",
        impure=True,
        kinds=("argument-mutation",),
        why="Tracing foo.f sets self.f_traced, so a second jax.jit(foo.f).lower() re-traces "
        "the method and its `assert not self.f_traced` fails.",
        make=_make_trace_flag,
        check=_check_trace_flag,
        versions=EVERY,
    ),
    Case(
        id="counter-method-jit",
        source="jax-ml/jax#20732",
        impure=True,
        kinds=("argument-mutation", "stale-result", "lost-mutation"),
        why="The counter's n attribute is modified as a side effect of count, so the jitted "
        "count returns 1 every time.",
        make=_make_counter_method,
        check=_check_counter_method,
        versions=EVERY,
    ),
    Case(
        id="batchnorm-running-mean-dict",
        source="jax-ml/jax#1922",
        impure=True,
        kinds=("argument-mutation", "lost-mutation"),
        why="The user wants a jitted batchnorm to update a variable defined outside the "
        "function through a reference, but jitted functions cannot mutate their inputs.",
        make=_make_batchnorm,
        check=_check_batchnorm,
        versions=EVERY,
    ),
    Case(
        id="dict-argument-append",
        source="https://apxml.com/courses/getting-started-with-jax/chapter-6-managing-state-in-"
        "jax/challenge-of-state-functional",
        impure=True,
        kinds=("argument-mutation", "container-mutation", "lost-mutation"),
        why="update_data modifies the dictionary passed in (append and item assignment), a "
        "side effect that jax.jit does not carry back to the caller.",
        make=_make_update_data,
        check=_check_update_data,
        versions=EVERY,
    ),
    Case(
        id="lazy-property-cached-tracer",
        source="pyro-ppl/numpyro#1651",
        impure=True,
        kinds=("leaked-tracer",),
        why="Creating an attribute of a global jax pytree object (like a Distribution's lazy "
        "property) during tracing leaks the trace.",
        make=lambda: _build_lazy_property()[0],
        check=_check_lazy_property,
        versions=EVERY,
    ),
    Case(
        id="lru-cache-inside-jit",
        source="pyro-ppl/numpyro#2000",
        impure=True,
        kinds=("leaked-tracer", "container-mutation"),
        why="Functions cached during a run inside jit keep traced values, causing leaks; the "
        "fix is to cache outside the jit context.",
        make=lambda: _build_lru_cache()[0],
        check=_check_lru_cache,
        versions=EVERY,
    ),
    Case(
        id="scan-body-writes-object-state",
        source="google-deepmind/distrax#64",
        impure=True,
        kinds=("leaked-tracer", "container-mutation"),
        why="A distribution used inside jax.lax.scan stores intermediate state on itself and "
        "leaks it out of the scan body.",
        make=lambda: _build_scan_state()[0],
        check=_check_scan_state,
        versions=EVERY,
    ),
    Case(
        id="pytree-set-attr-under-grad",
        source="jax-ml/jax#18910",
        impure=True,
        kinds=("argument-mutation", "leaked-tracer", "lost-mutation"),
        why="cpt.set_c writes self.c inside the transformed function, so grad leaves an "
        "escaped tracer on the object while jit drops the attribute.",
        make=_make_cpt,
        check=_check_cpt,
        versions=EVERY,
    ),
    Case(
        id="nonlocal-rebound-in-jit",
        source="jax-ml/jax#27315",
        impure=True,
        kinds=("closure-assignment", "leaked-tracer"),
        why="h rebinds an enclosing variable with `nonlocal a; a = jnp.uint32(0)` inside jit, "
        "a closure side effect the leak checker reports (the report resets `a = None`).",
        make=lambda: _build_nonlocal()[0],
        check=_check_nonlocal,
        versions=EVERY,
    ),
    Case(
        id="backend-dispatch-by-type",
        source="Farama-Foundation/Jumpy#29",
        impure=True,
        kinds=("jit-eager-mismatch",),
        why="In the non-jit version the numpy implementation is used, while in jit the jax "
        "one is, which results in different keys.",
        make=_make_backend_dispatch,
        check=_check_backend_dispatch,
        versions=EVERY,
    ),
    Case(
        id="eval-shape-global-list",
        source="jax-ml/jax#38460",
        impure=True,
        kinds=("container-mutation", "leaked-tracer"),
        why="A nested jit reading a tracer through a global list gets a false cache hit "
        "after eval_shape and raises UnexpectedTracerError.",
        make=lambda: _build_eval_shape_leak()[0],
        check=_check_eval_shape_leak,
        versions=EVERY,
    ),
    Case(
        id="memory-field-increment",
        source="patrick-kidger/equinox#839",
        impure=True,
        kinds=("argument-mutation", "lost-mutation"),
        why="The proposed Counter keeps its state by mutating a Memory field in __call__ "
        "(`self.value.value += 1`) instead of returning a new state.",
        make=_make_memory_counter,
        check=_check_memory_counter,
        versions=EVERY,
    ),
    # ------------------------------------------------------------------ pure cases
    Case(
        id="rebind-local-copy",
        source="jax-ml/jax#5233",
        impure=False,
        kinds=(),
        why="Creating x_copy and changing what it points to is no side effect; only "
        "changing non-local state (e.g. `global x_copy`) would be.",
        make=_make_rebind_copy,
        check=_pure(_make_rebind_copy),
        versions=EVERY,
    ),
    Case(
        id="read-module-level-function",
        source="google/flax#2060",
        impure=False,
        kinds=(),
        why="mse reading predict from the global scope is not a side effect because mse "
        "cannot modify it.",
        make=_make_mse,
        check=_pure(_make_mse),
        versions=EVERY,
    ),
    Case(
        id="index-update-returns-new",
        source="jax-ml/jax#2287",
        impure=False,
        kinds=(),
        why="index_update does not update its input in place; it returns the updated array.",
        make=_make_record,
        check=_pure(_make_record),
        versions=EVERY,
    ),
    Case(
        id="at-set-under-jit",
        source="jax-ml/jax#7783",
        impure=False,
        kinds=(),
        why="JAX arrays are immutable, so a.at[idx].set(b) under jit returns a new array and "
        "leaves a untouched.",
        make=_make_fancy_set,
        check=_pure(_make_fancy_set),
        versions=EVERY,
    ),
    Case(
        id="debug-print-every-call",
        source="jax-ml/jax#10553",
        impure=False,
        kinds=(),
        why="debug_print is a stage-able printing function: it prints runtime values from "
        "jitted code on every call and returns nothing that changes the computation.",
        make=_make_debug_print,
        check=_check_debug_print,
        versions=EVERY,
    ),
    Case(
        id="counter-as-argument",
        source="jax-ml/jax#1348",
        impure=False,
        kinds=(),
        why="JAX expects side-effect-free functions, so the counter is passed in and the "
        "incremented value returned.",
        make=_make_increment,
        check=_check_increment,
        versions=EVERY,
    ),
    Case(
        id="explicit-key-threading",
        source="jax-ml/jax#4312",
        impure=False,
        kinds=(),
        why="The repeated randomness came from splitting a global Python key; splitting a "
        "key that is passed in and returned touches no global state.",
        make=_make_explicit_key,
        check=_check_explicit_key,
        versions=EVERY,
    ),
    Case(
        id="rng-passed-into-jit",
        source="google/flax#112",
        impure=False,
        kinds=(),
        why="The 'Works' variant passes the rng into the jitted function explicitly.",
        make=_make_rnd_with_rng,
        check=_pure(_make_rnd_with_rng),
        versions=EVERY,
    ),
    Case(
        id="functional-state-returned",
        source="patrick-kidger/equinox#1071",
        impure=False,
        kinds=(),
        why="Following the stateful API, __call__ returns (new_x, new_state) and the caller "
        "uses the returned state instead of relying on mutation.",
        make=_make_functional_counter,
        check=_pure(_make_functional_counter),
        versions=EVERY,
    ),
    Case(
        id="fixed-key-noise",
        source="google/dopamine#189",
        impure=False,
        kinds=(),
        why="The same rng_key is used on every call, so no new noise is generated and the "
        "layer is deterministic in its inputs.",
        make=_make_fixed_key,
        check=_pure(_make_fixed_key),
        versions=EVERY,
    ),
    Case(
        id="pure-callback-result-used",
        source="jax-ml/jax#11928",
        impure=False,
        kinds=(),
        why="pure_callback applies a functionally pure Python callable and works under jit; "
        "with np.sin and its result used, jit and eager agree.",
        make=_make_callback_sin,
        check=_pure(_make_callback_sin),
        versions=EVERY,
    ),
    Case(
        id="fori-loop-carry",
        source="jax-ml/jax#207",
        impure=False,
        kinds=(),
        why="Instead of closing over values, add them as parameters to body_fun and thread "
        "them through the loop carry.",
        make=_make_iterate_get,
        check=_pure(_make_iterate_get),
        versions=EVERY,
    ),
    Case(
        id="scale-as-argument",
        source="jax-ml/jax#1426",
        impure=False,
        kinds=(),
        why="With a passed as an argument, jit(grad(loss_sum)) reflects a change from 10 to "
        "20 without recompiling the graph by hand.",
        make=_make_loss_sum_grad,
        check=_check_loss_sum_grad,
        versions=EVERY,
    ),
    Case(
        id="return-new-object",
        source="jax-ml/jax#15817",
        impure=False,
        kinds=(),
        why="Returning a new object instead of assigning self.x inside the jitted method "
        "gives the expected [sub.x, x[2]] with and without jit.",
        make=_make_with_subsystem,
        check=_check_with_subsystem,
        versions=EVERY,
    ),
    Case(
        id="unflatten-skips-init",
        source="jax-ml/jax#14619",
        impure=False,
        kinds=(),
        why="Answering 'Should I avoid manipulating input args in __init__()?': bypassing "
        "__init__ in tree_unflatten makes jit and no-jit agree.",
        make=_make_halving_solver_fixed,
        check=_check_halving_solver_fixed,
        versions=EVERY,
    ),
    Case(
        id="scan-state-in-carry",
        source="pyro-ppl/numpyro#1024",
        impure=False,
        kinds=(),
        why="The matrix rollout keeps its state in the lax.scan carry and returns the "
        "stacked outputs, with nothing stored outside.",
        make=_make_matrix_rollout,
        check=_pure(_make_matrix_rollout),
        versions=EVERY,
    ),
]


def validate(cases: list[Case], kinds: tuple[str, ...] = KINDS) -> None:
    """Raise where a corpus's ids repeat, a case names a kind not in ``kinds``, or an impure
    case has no kind (a pure one, any)."""
    ids = [case.id for case in cases]
    if len(ids) != len(set(ids)):
        raise ValueError("duplicate case ids")
    for case in cases:
        if not set(case.kinds) <= set(kinds):
            raise ValueError(f"{case.id}: unknown kinds {set(case.kinds) - set(kinds)}")
        if case.impure != bool(case.kinds):
            raise ValueError(f"{case.id}: impure cases need kinds, pure cases none")


validate(CASES)
