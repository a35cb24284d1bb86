"""A fresh corpus of impure and pure JAX functions, reduced from public bug reports.

How, when and by whom: collected in one sitting in December 2026 for the issue on
``check_pure``'s recall, by a helper who had not seen ``check_pure``'s score on any of these
cases, from public GitHub threads and web pages that no other corpus of this repository takes
a function from. Every label was decided from the thread's discussion (what the maintainers,
or the page's author, said the code does wrong or why it is fine) before ``check_pure`` was
run on the case; ``check()`` then shows the label with JAX and NumPy alone. The score as
collected is in the closing notes of the change that added this file; ``python
scorers/check_pure.py --corpus fresh`` prints it again.

The format is the one of :mod:`purity_corpus` (its :class:`Case`, its ``KINDS``): ``make``
builds fresh state and returns ``(fn, args, kwargs)``, ``check`` returns ``True`` when the
label holds, ``versions`` are the JAX versions on which ``check()`` was seen ``True``.

Sources. Most threads are new to the repository. Eleven threads (:data:`ALSO_IN_EXPLAIN_CORPORA`)
are also in an ``explain`` corpus (``tests/data/*.json``), which took only their error text;
their functions are taken here for the first time. No source of ``purity_corpus.py`` is used.

Where the vocabulary of kinds has no word for what a case does (a callback that runs *more*
often under a transformation, an argument deleted by buffer donation), the nearest kind is
given and the case's ``why`` says what really happens.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from purity_corpus import (
    Case,
    Made,
    _check_pure,
    _copy_function,
    _fresh_globals,
    _is_tracer,
    _pure,
    _raises,
    _run_capturing,
    _same,
    validate,
)

__all__ = ["ALSO_IN_EXPLAIN_CORPORA", "CASES"]

OLD = "0.10.2"
NEW = "0.12.0.1"
V062 = "0.6.2"
#: Each case's check() run again on every JAX of the test matrix (December 2026, issue 36).
EVERY = ("0.4.35", V062, OLD, NEW)

#: Threads an ``explain`` corpus cites for their error text; their functions are taken here.
ALSO_IN_EXPLAIN_CORPORA: tuple[str, ...] = (
    "jax-ml/jax#6335",
    "jax-ml/jax#1567",
    "jax-ml/jax#2048",
    "jax-ml/jax#2332",
    "vllm-project/tpu-inference#364",
    "https://jugheadjones10.github.io/kim-young-jin/ml/leaked_batch_tracer.html",
    "pyro-ppl/numpyro#1886",
    "TARPS-group/prob-pipe#163",
    "awslabs/fortuna#55",
    "world-modelz/dreamax#14",
    "marin-community/haliax#28",
)


def _holds_tracer(tree: Any) -> bool:
    return any(_is_tracer(leaf) for leaf in jax.tree_util.tree_leaves(tree))


def _cells_hold_tracer(fn: Callable[..., Any]) -> bool:
    return any(_is_tracer(cell.cell_contents) for cell in fn.__closure__ or ())


def _printed(fn: Callable[..., Any], *args: Any) -> str:
    return _run_capturing(fn, *args)[1]


# ======================================================================================
# IMPURE CASES
# ======================================================================================

# --- jax-ml/jax#20889: an array passed through custom_jvp's nondiff_argnums, in a scan --


def _nondiff_mask_loss(use_nondiff: bool) -> Callable[..., Any]:
    if use_nondiff:

        def func_fwd(arr, mask):
            return arr * mask

        def func_jvp(mask, primals, tangents):
            def f(arr):
                return arr * mask

            return jax.jvp(f, primals, tangents)

        func = jax.custom_jvp(func_fwd, nondiff_argnums=(1,))
        func.defjvp(func_jvp)
    else:  # the fix: the mask is an ordinary argument whose tangent is ignored

        @jax.custom_jvp
        def func(arr, mask):
            return arr * mask

        @func.defjvp
        def _func_jvp(primals, tangents):
            arr, mask = primals
            arr_dot, _ = tangents
            return arr * mask, arr_dot * mask

    def step(carry, _):
        return (func(*carry), carry[1]), None

    def loss(x, mask):
        carry, _ = lax.scan(step, (x, mask), None, length=2)
        return carry[0].sum()

    return loss


def _make_nondiff_mask() -> Made:
    return _nondiff_mask_loss(True), (jnp.ones(4), jnp.array([True, False, True, False])), {}


def _check_nondiff_mask() -> bool:
    fn, args, _ = _make_nondiff_mask()
    eager_ok = float(fn(*args)) == 2.0
    return eager_ok and _raises(jax.errors.UnexpectedTracerError, jax.grad(fn), *args)


# --- jax-ml/jax#8907: a callback under jax.checkpoint runs again in the backward pass ---


def _build_checkpoint_callback() -> tuple[Made, list[float]]:
    calls: list[float] = []

    def record(v):
        calls.append(float(v))

    @jax.checkpoint
    def f(x):
        jax.debug.callback(record, x)
        return jnp.sin(x)

    def loss(x):
        return 2.0 * f(x)

    return (loss, (1.0,), {}), calls


def _check_checkpoint_callback() -> bool:
    (fn, args, _), calls = _build_checkpoint_callback()
    jax.block_until_ready(fn(*args))
    jax.effects_barrier()
    eager = len(calls)
    (gfn, gargs, _), gcalls = _build_checkpoint_callback()
    jax.block_until_ready(jax.grad(gfn)(*gargs))
    jax.effects_barrier()
    return eager == 1 and len(gcalls) == 2


# --- patrick-kidger/diffrax#396: a progress callback in a checkpointed loop under grad --


def _build_progress_scan() -> tuple[Made, list[float]]:
    ticks: list[float] = []

    def tick(t):
        ticks.append(float(t))

    def body(y, _):
        jax.debug.callback(tick, y)
        return jnp.cos(y), None

    def solve(y0):
        y, _ = lax.scan(jax.checkpoint(body), y0, None, length=4)
        return y

    return (solve, (1.0,), {}), ticks


def _check_progress_scan() -> bool:
    (fn, args, _), ticks = _build_progress_scan()
    jax.block_until_ready(jax.jit(fn)(*args))
    jax.effects_barrier()
    (gfn, gargs, _), gticks = _build_progress_scan()
    jax.block_until_ready(jax.grad(gfn)(*gargs))
    jax.effects_barrier()
    return len(ticks) == 4 and len(gticks) == 8


# --- jax-ml/jax#11770: jax.debug.print given an f-string ---------------------------


def _debug_print_fstring(x: Any) -> Any:
    jax.debug.print(f"x = {x}")
    return x * 2


def _make_debug_print_fstring() -> Made:
    return _copy_function(_debug_print_fstring), (jnp.float32(1.0),), {}


def _check_debug_print_fstring() -> bool:
    fn, args, _ = _make_debug_print_fstring()
    eager = _printed(fn, *args)
    jfn, jargs, _ = _make_debug_print_fstring()
    jitted = jax.jit(jfn)
    jit = _printed(jitted, *jargs) + _printed(jitted, jnp.float32(2.0))
    return "x = 1.0" in eager and jit.count("x = ") == 2 and "1.0" not in jit and "2.0" not in jit


# --- PennyLaneAI/pennylane#1238: a device that splits its own key, sampled under jit ---


class _JaxDevice:
    """A device holding its PRNG key and splitting it on every execution."""

    def __init__(self, key: Any, shots: int) -> None:
        self._prng_key = key
        self.shots = shots

    def sample(self, prob: Any) -> Any:
        self._prng_key, subkey = jax.random.split(self._prng_key)
        return jnp.where(jax.random.bernoulli(subkey, prob, (self.shots,)), -1, 1)


def _build_device_samples() -> tuple[Made, _JaxDevice]:
    dev = _JaxDevice(jax.random.PRNGKey(0), shots=16)

    def circuit():
        return dev.sample(0.5)  # Hadamard, then sample PauliZ

    return (circuit, (), {}), dev


def _check_device_samples() -> bool:
    (fn, _, _), _dev = _build_device_samples()
    a, b = fn(), fn()
    (jfn, _, _), jdev = _build_device_samples()
    jitted = jax.jit(jfn)
    ja, jb = jitted(), jitted()
    return not _same(a, b) and _same(ja, jb) and _is_tracer(jdev._prng_key)


# --- pyro-ppl/numpyro#1976: an autoguide caches the plates it creates on each call -----


class _Plate:
    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self._indices = jnp.arange(size)


class _AutoDelta:
    def __init__(self, cache_plates: bool) -> None:
        self.cache_plates = cache_plates
        self.plates: dict[str, _Plate] = {}

    def __call__(self, key: Any) -> Any:
        plates = {"n": _Plate("n", 2)}
        if self.cache_plates:
            self.plates = plates  # the cache the PR removes
        draws = jax.random.normal(key, (2,))
        return draws[plates["n"]._indices]


def _build_guide_plates(cache: bool) -> tuple[Made, _AutoDelta]:
    guide = _AutoDelta(cache_plates=cache)

    def run():
        return guide(jax.random.PRNGKey(9))

    return (run, (), {}), guide


def _check_guide_plates() -> bool:
    (fn, _, _), guide = _build_guide_plates(True)
    fn()
    (jfn, _, _), jguide = _build_guide_plates(True)
    jax.jit(jfn)()
    return not _is_tracer(guide.plates["n"]._indices) and _is_tracer(jguide.plates["n"]._indices)


# --- google-deepmind/optax#503: a schedule closing over jnp arrays, kept in a static field --


class _TrainState:
    """A flax.struct-like train state: params are a child, the optimizer is static."""

    def __init__(self, params: Any, tx: Callable[[Any], Any]) -> None:
        self.params = params
        self.tx = tx


jax.tree_util.register_pytree_node(
    _TrainState, lambda s: ((s.params,), s.tx), lambda tx, ch: _TrainState(ch[0], tx)
)


def _piecewise_interpolate_schedule(xnp: Any) -> Callable[[Any], Any]:
    boundaries_and_scales = {10: 2.0, 20: 0.5}
    bounds = xnp.asarray([0, *boundaries_and_scales])
    values = xnp.cumprod(xnp.asarray([1.0, *boundaries_and_scales.values()]))

    def schedule(count):
        return jnp.interp(count, bounds, values)

    return schedule


def _make_train_state(xnp: Any) -> Callable[[], _TrainState]:
    def create_state():
        return _TrainState(params=jnp.zeros(5), tx=_piecewise_interpolate_schedule(xnp))

    return create_state


def _make_schedule_jnp() -> Made:
    return _make_train_state(jnp), (), {}


def _check_schedule_jnp() -> bool:
    fn, _, _ = _make_schedule_jnp()
    eager_ok = float(fn().tx(10)) == 2.0
    jfn, _, _ = _make_schedule_jnp()
    state = jax.jit(jfn)()
    return eager_ok and _cells_hold_tracer(state.tx)


# --- rigetti/pyquil#1860: a cached_property first touched inside jit ------------------


@dataclasses.dataclass(frozen=True, eq=False)
class _BadLazy:
    n: int

    @functools.cached_property
    def table(self) -> Any:
        return jnp.eye(self.n) * 3.0  # first touch may be inside a trace


def _force_cached_properties(obj: Any) -> None:
    for klass in type(obj).__mro__:
        for name, attr in vars(klass).items():
            if isinstance(attr, functools.cached_property):
                getattr(obj, name)


@dataclasses.dataclass(frozen=True, eq=False)
class _GoodEager(_BadLazy):
    def __post_init__(self) -> None:
        _force_cached_properties(self)


def _build_lazy_table(cls: type[_BadLazy]) -> tuple[Made, _BadLazy]:
    sim = cls(3)

    def apply(x):
        return sim.table @ x

    return (apply, (jnp.ones(3),), {}), sim


def _check_lazy_table() -> bool:
    (fn, args, _), sim = _build_lazy_table(_BadLazy)
    fn(*args)
    (jfn, jargs, _), jsim = _build_lazy_table(_BadLazy)
    jax.jit(jfn)(*jargs)
    poisoned = _raises(jax.errors.UnexpectedTracerError, lambda: jsim.table @ jnp.ones(3))
    return not _is_tracer(sim.__dict__["table"]) and _is_tracer(jsim.__dict__["table"]) and poisoned


# --- PlasmaControl/DESC#310: an objective's compute jitted with a static self ----------


class _Objective:
    def __init__(self, target: float, weight: float) -> None:
        self.target = target
        self.weight = weight

    @functools.partial(jax.jit, static_argnums=0)
    def compute(self, x: Any) -> Any:
        return self.weight * (x - self.target)


def _build_objective() -> tuple[Made, _Objective]:
    obj = _Objective(target=0.0, weight=1.0)
    return (obj.compute, (jnp.array([1.0, 2.0]),), {}), obj


def _check_objective() -> bool:
    (fn, args, _), obj = _build_objective()
    first = fn(*args)
    obj.target, obj.weight = 1.0, 2.0  # what perturb/optimize do to the objective
    second = fn(*args)
    expected = 2.0 * (np.asarray(args[0]) - 1.0)
    return _same(second, first) and not _same(second, expected)


# --- jax-ml/jax#13351: lax.switch traces every branch, so each branch's print runs ------


def _build_switch_prints() -> Made:
    def fun_a():
        print("a")

    def fun_b():
        print("b")

    def fun_c():
        print("c")

    branches = [fun_a, fun_b, fun_c]

    def f(i):
        return lax.switch(i, branches)

    return f, (0,), {}


def _check_switch_prints() -> bool:
    fn, args, _ = _build_switch_prints()
    eager = _printed(fn, *args)
    jfn, jargs, _ = _build_switch_prints()
    jitted = jax.jit(jfn)
    first, second = _printed(jitted, *jargs), _printed(jitted, *jargs)
    return eager.split() == ["a", "b", "c"] and first.split() == ["a", "b", "c"] and second == ""


# --- pyro-ppl/numpyro#1982: SteinVI stores a traced temperature on self ---------------


class _SteinVI:
    def __init__(self, loss_temperature: Any) -> None:
        self.loss_temperature = loss_temperature

    def loss_and_grads(self, params: Any, temperature: Any) -> Any:
        self.loss_temperature = temperature / 2.0
        return jnp.sum(params**2) / self.loss_temperature


def _make_stein() -> Made:
    return _SteinVI(jnp.float32(1.0)).loss_and_grads, (jnp.ones(3), jnp.float32(2.0)), {}


def _check_stein() -> bool:
    fn, args, _ = _make_stein()
    fn(*args)
    jfn, jargs, _ = _make_stein()
    jax.jit(jfn)(*jargs)
    return float(fn.__self__.loss_temperature) == 1.0 and _is_tracer(jfn.__self__.loss_temperature)


# --- openillumi: jax.jit(c.calc) keeps the attribute the first trace read ---------------


class _CustomClass:
    def __init__(self, mul: float) -> None:
        self.mul = mul

    def calc(self, x: Any) -> Any:
        return x * self.mul


def _make_bound_calc() -> Made:
    return _CustomClass(2.0).calc, (jnp.arange(3.0),), {}


def _check_bound_calc() -> bool:
    fn, args, _ = _make_bound_calc()
    jitted = jax.jit(fn)
    first = jitted(*args)
    fn.__self__.mul = 3.0
    second = jitted(*args)
    return _same(second, first) and _same(fn(*args), 3.0 * np.arange(3.0))


# --- jax-ml/jax#3567: an iterator advanced in a fori_loop body --------------------------


def _build_iterator_loop() -> Made:
    train_iterator = iter(range(10))

    def total():
        def body_fun(i, cnt):
            return cnt + next(train_iterator)

        return lax.fori_loop(0, 3, body_fun, 0)

    return total, (), {}


def _check_iterator_loop() -> bool:
    fn, _, _ = _build_iterator_loop()
    eager = [int(fn()), int(fn())]  # one element per trace, added three times
    jfn, _, _ = _build_iterator_loop()
    jitted = jax.jit(jfn)
    jit = [int(jitted()), int(jitted())]
    return eager == [0, 3] and jit == [0, 0]  # a Python loop would give 0 + 1 + 2 = 3


# --- jax-ml/jax#2936: a donated argument is deleted by the call -------------------------


def _sgd_update(params: Any, grads: Any) -> Any:
    return params - 0.1 * grads


def _make_donated() -> Made:
    update = jax.jit(_copy_function(_sgd_update), donate_argnums=(0,))
    return update, (jnp.ones(3), jnp.ones(3)), {}


def _check_donated() -> bool:
    fn, (params, grads), _ = _make_donated()
    fn.__wrapped__(params, grads)
    eager_kept = not params.is_deleted()
    jfn, (jparams, jgrads), _ = _make_donated()
    jax.block_until_ready(jfn(jparams, jgrads))
    return eager_kept and jparams.is_deleted()


# --- pasteurlabs/tesseract-core#577: jax_apply populates a VJP cache -------------------


def _build_vjp_cache() -> tuple[Made, dict[str, Any]]:
    vjp_cache: dict[str, Any] = {}

    def jax_apply(inputs):
        outputs = jnp.tanh(inputs)  # apply_jit(inputs)
        vjp_cache["last"] = (inputs, outputs)  # reused by a later jax_vjp call
        return outputs

    return (jax_apply, (jnp.arange(3.0),), {}), vjp_cache


def _check_vjp_cache() -> bool:
    (fn, args, _), cache = _build_vjp_cache()
    fn(*args)
    (jfn, jargs, _), jcache = _build_vjp_cache()
    jax.jit(jfn)(*jargs)
    return not _holds_tracer(cache["last"]) and _holds_tracer(jcache["last"])


# --- keras-team/keras-core#650: unseeded random ops draw from a global seed generator ---


class _SeedGenerator:
    def __init__(self, seed: int) -> None:
        self.state = jnp.array([seed, 0], dtype=jnp.uint32)

    def next(self) -> Any:
        seed_state = self.state
        self.state = seed_state + jnp.array([0, 1], dtype=jnp.uint32)
        return seed_state


def _build_global_seed() -> tuple[Made, _SeedGenerator]:
    global_generator = _SeedGenerator(1337)

    def normal(shape):
        seed = global_generator.next()
        key = jax.random.fold_in(jax.random.PRNGKey(seed[0]), seed[1])
        return jax.random.normal(key, shape)

    def jitted_random_numbers():
        return normal((3,))

    return (jitted_random_numbers, (), {}), global_generator


def _check_global_seed() -> bool:
    (fn, _, _), _gen = _build_global_seed()
    e1, e2 = fn(), fn()
    (jfn, _, _), jgen = _build_global_seed()
    jitted = jax.jit(jfn)
    j1, j2 = jitted(), jitted()
    return not _same(e1, e2) and _same(j1, j2) and _is_tracer(jgen.state)


# --- JAX FAQ, "jit changes the behavior of my function" -------------------------------

_faq_y = 0  # placeholder only


def _tmpl_impure_func(x: Any) -> Any:
    print("Inside:", _faq_y)
    return x + _faq_y


def _make_faq() -> Made:
    return _fresh_globals(_tmpl_impure_func, _faq_y=0), (0,), {}


def _check_faq() -> bool:
    def run(fn: Callable[..., Any], call: Callable[..., Any]) -> tuple[list[int], str]:
        results, printed = [], ""
        for y in range(3):
            fn.__globals__["_faq_y"] = y
            out, text = _run_capturing(call, y)
            results.append(int(out))
            printed += text
        return results, printed

    fn, _, _ = _make_faq()
    eager, eager_text = run(fn, fn)
    jfn, _, _ = _make_faq()
    jit, jit_text = run(jfn, jax.jit(jfn))
    return (
        eager == [0, 2, 4]
        and eager_text.count("Inside") == 3
        and jit == [0, 1, 2]
        and jit_text.count("Inside") == 1
    )


# --- henryiii/python-performance-minicourse (06b_jax): an f-string print under jit ------


def _watch_tracer(x: Any) -> Any:
    print(f"{x = }")
    y = x**2
    print(f"{y = }")
    return y


def _make_watch_tracer() -> Made:
    return _copy_function(_watch_tracer), (2.0,), {}


def _check_watch_tracer() -> bool:
    fn, args, _ = _make_watch_tracer()
    eager = _printed(fn, *args)
    jfn, jargs, _ = _make_watch_tracer()
    jitted = jax.jit(jfn)
    first, second = _printed(jitted, *jargs), _printed(jitted, *jargs)
    return "x = 2.0" in eager and "x = " in first and "2.0" not in first and second == ""


# --- jax-ml/jax#6335: self.key split inside a scanned method ----------------------------


class _NoisyWalk:
    def __init__(self, seed: int) -> None:
        self.key = jax.random.PRNGKey(seed)

    def step(self, carry: Any, _: Any) -> tuple[Any, Any]:
        self.key, subkey = jax.random.split(self.key)
        return carry, jax.random.normal(subkey)

    def run(self) -> Any:
        _, noise = lax.scan(self.step, 0.0, None, length=5)
        return noise


def _make_noisy_walk() -> Made:
    return _NoisyWalk(0).run, (), {}


def _check_noisy_walk() -> bool:
    fn, _, _ = _make_noisy_walk()
    noise = np.asarray(fn())  # eager: the scan body is still traced once
    return bool(np.all(noise == noise[0])) and _is_tracer(fn.__self__.key)


# --- jax-ml/jax#1567: World.step jitted with a static self, updating self.v and self.p -


class _World:
    def __init__(self) -> None:
        self.p = jnp.zeros(2)
        self.v = jnp.ones(2)

    @functools.partial(jax.jit, static_argnums=0)
    def step(self, dt: Any) -> None:
        self.v += dt * -self.p
        self.p += dt * self.v


def _make_world() -> Made:
    return _World().step, (0.1,), {}


def _check_world() -> bool:
    fn, args, _ = _make_world()
    world = fn.__self__
    _World.step.__wrapped__(world, *args)  # the same method without jit
    eager_ok = _same(world.p, np.array([0.1, 0.1]))
    jfn, jargs, _ = _make_world()
    jfn(*jargs)
    return eager_ok and _is_tracer(jfn.__self__.p) and _is_tracer(jfn.__self__.v)


# --- jax-ml/jax#2048: the inner function writes its traced argument to a nonlocal ------


def _derivative(f: Callable[[Any], Any], x: Any) -> Any:
    return jax.jvp(f, (x,), (1.0,))[1]


def _nonlocal_f(x: Any) -> Any:
    def inner(y):
        nonlocal x
        x = y
        return x

    return _derivative(inner, x) * x


def _local_f(x: Any) -> Any:
    def inner(y):
        return y

    return _derivative(inner, x) * x


def _make_nonlocal_jvp() -> Made:
    return _copy_function(_nonlocal_f), (1.0,), {}


def _check_nonlocal_jvp() -> bool:
    fn, args, _ = _make_nonlocal_jvp()
    return _raises(jax.errors.UnexpectedTracerError, fn, *args) and float(_local_f(1.0)) == 1.0


# --- jax-ml/jax#2332: a loss method appends each loss to self.loss_list -----------------


class _FourierFit:
    def __init__(self) -> None:
        self.loss_list: list[Any] = []

    def loss(self, coefficients: Any, train_values: Any, train_labels: Any) -> Any:
        preds = jnp.cos(jnp.outer(train_values, jnp.arange(3.0))) @ coefficients
        loss = jnp.sum(jnp.square(preds - train_labels))
        self.loss_list += [loss]
        return loss


_FOURIER_ARGS = (jnp.array([0.5, 0.2, 0.1]), jnp.linspace(0.0, 1.0, 4), jnp.ones(4))


def _make_loss_list() -> Made:
    return _FourierFit().loss, _FOURIER_ARGS, {}


def _check_loss_list() -> bool:
    fn, args, _ = _make_loss_list()
    fn(*args)
    gfn, gargs, _ = _make_loss_list()
    jax.grad(gfn)(*gargs)
    eager, grad = fn.__self__.loss_list, gfn.__self__.loss_list
    return len(eager) == 1 and not _is_tracer(eager[0]) and _is_tracer(grad[0])


# --- google/brax#609: the domain-randomization wrapper assigns the vmapped sys ----------


class _Env:
    def __init__(self, friction: Any) -> None:
        self.sys = {"friction": friction}

    @property
    def unwrapped(self) -> _Env:
        return self

    def reset(self, rng: Any) -> Any:
        return self.sys["friction"] * jax.random.uniform(rng, (2,))


def _build_domain_randomization() -> tuple[Made, _Env]:
    env = _Env(jnp.float32(1.0))

    def env_fn(sys):
        env.unwrapped.sys = sys  # DomainRandomizationVmapWrapper._env_fn
        return env

    def reset(sys, rng):
        return env_fn(sys).reset(rng)

    def randomized_reset(frictions, rng):
        return jax.vmap(reset, in_axes=({"friction": 0}, None))({"friction": frictions}, rng)

    return (randomized_reset, (jnp.array([0.5, 1.0, 1.5]), jax.random.PRNGKey(0)), {}), env


def _check_domain_randomization() -> bool:
    (fn, args, _), env = _build_domain_randomization()
    fn(*args)
    return _is_tracer(env.sys["friction"])


# --- vllm-project/tpu-inference#364: a rope cache computed with jnp under eval_shape ---


class _RotaryEmbedding:
    """The module keeps its sin/cos cache as static (aux) data."""

    def __init__(self, weight: Any, sin_cos_cache: Any) -> None:
        self.weight = weight
        self.sin_cos_cache = sin_cos_cache


jax.tree_util.register_pytree_node(
    _RotaryEmbedding,
    lambda m: ((m.weight,), m.sin_cos_cache),
    lambda cache, ch: _RotaryEmbedding(ch[0], cache),
)


def _compute_sin_cos(dim: int, max_len: int) -> Any:
    inv_freq = 1.0 / (10000.0 ** (jnp.arange(0, dim, 2) / dim))
    freqs = jnp.outer(jnp.arange(max_len), inv_freq)
    return jnp.concatenate([jnp.sin(freqs), jnp.cos(freqs)], axis=-1)


def _make_rope_jnp() -> Made:
    def init_model():
        return _RotaryEmbedding(jnp.zeros((4, 4)), _compute_sin_cos(4, 8))

    return init_model, (), {}


def _check_rope_jnp() -> bool:
    fn, _, _ = _make_rope_jnp()
    eager = fn()
    jfn, _, _ = _make_rope_jnp()
    abstract = jax.eval_shape(jfn)  # how the loader builds the model
    return not _is_tracer(eager.sin_cos_cache) and _is_tracer(abstract.sin_cos_cache)


# --- jugheadjones10 blog: vmap over learning rates, the schedule kept in the train state -


def _vmap_lr_train(lr: Any) -> _TrainState:
    def learning_schedule(count):
        return lr * 0.5 ** (count / 10)

    params = jnp.zeros(2) - learning_schedule(0)
    return _TrainState(params=params, tx=learning_schedule)


def _make_vmap_lr() -> Made:
    return jax.vmap(_copy_function(_vmap_lr_train)), (jnp.array([1.0, 5.0, 10.0]),), {}


def _check_vmap_lr() -> bool:
    fn, args, _ = _make_vmap_lr()
    state = fn(*args)
    single = fn.__wrapped__(jnp.float32(5.0))
    return _cells_hold_tracer(state.tx) and not _cells_hold_tracer(single.tx)


# --- pyro-ppl/numpyro#1886: a stateful seed handler traced by eval_shape ---------------


class _Seed:
    """numpyro.handlers.seed before it was made stateless: it splits and keeps its key."""

    def __init__(self, fn: Callable[[Any], Any], rng_seed: int) -> None:
        self.fn = fn
        self.rng_key = jax.random.PRNGKey(rng_seed)

    def __call__(self) -> Any:
        self.rng_key, subkey = jax.random.split(self.rng_key)
        return self.fn(subkey)


def _build_seed_handler() -> tuple[Made, _Seed]:
    def model(key):
        return jax.random.normal(key)

    seeded = _Seed(model, 0)

    def get_trace():
        return seeded()

    return (get_trace, (), {}), seeded


def _check_seed_handler() -> bool:
    (fn, _, _), seeded = _build_seed_handler()
    fn()
    (jfn, _, _), jseeded = _build_seed_handler()
    jax.eval_shape(jfn)  # as get_model_relations does
    return not _is_tracer(seeded.rng_key) and _is_tracer(jseeded.rng_key)


# --- TARPS-group/prob-pipe#163: a callable object records provenance on each call -------


class _WorkflowFunction:
    def __init__(self, func: Callable[[Any], Any]) -> None:
        self.func = func
        self.provenance: list[dict[str, Any]] = []

    def __call__(self, x: Any) -> Any:
        out = self.func(x)
        self.provenance.append({"input": x, "output": out})
        return out


def _make_workflow() -> Made:
    return _WorkflowFunction(jnp.square), (jnp.arange(3.0),), {}


def _check_workflow() -> bool:
    fn, args, _ = _make_workflow()
    fn(*args)
    vfn, vargs, _ = _make_workflow()
    jax.vmap(vfn)(*vargs)
    return not _holds_tracer(fn.provenance) and _holds_tracer(vfn.provenance)


# --- awslabs/fortuna#55: ADVI's sample saves an intermediate to global state -----------


def _build_advi_sample() -> tuple[Made, dict[str, Any]]:
    saved: dict[str, Any] = {}

    def sample(key, mean):
        if "log_std" not in saved:
            saved["log_std"] = jnp.log(jnp.abs(mean[0]) + 1.0)  # computed once, then reused
        return mean + jnp.exp(saved["log_std"]) * jax.random.normal(key, mean.shape)

    return (sample, (jax.random.PRNGKey(0), jnp.ones(2)), {}), saved


def _check_advi_sample() -> bool:
    (fn, (key, mean), _), _saved = _build_advi_sample()
    fn(key, mean)
    eager_ok = fn(key, jnp.ones(3)).shape == (3,)
    (jfn, (jkey, jmean), _), _jsaved = _build_advi_sample()
    jitted = jax.jit(jfn)
    jitted(jkey, jmean)
    recompiled = _raises(jax.errors.UnexpectedTracerError, jitted, jkey, jnp.ones(3))
    return eager_ok and recompiled


# --- world-modelz/dreamax#14: a jitted update method stores the new params on self -----


class _Agent:
    def __init__(self) -> None:
        self.params = jnp.ones(3)

    def update(self, batch: Any) -> Any:
        loss, grads = jax.value_and_grad(lambda p: jnp.sum((p - batch) ** 2))(self.params)
        self.params = self.params - 0.1 * grads
        return loss


def _make_agent() -> Made:
    return _Agent().update, (jnp.zeros(3),), {}


def _check_agent() -> bool:
    fn, args, _ = _make_agent()
    fn(*args)
    eager_ok = _same(fn.__self__.params, 0.8 * np.ones(3))
    jfn, jargs, _ = _make_agent()
    jax.jit(jfn)(*jargs)
    train_agent = jfn.__self__
    read_back = _raises(jax.errors.UnexpectedTracerError, lambda: train_agent.params + 1.0)
    return eager_ok and _is_tracer(train_agent.params) and read_back


# --- marin-community/haliax#28: a static field filled with a traced array at init -------


class _CausalAttention:
    """A module whose causal mask is a static (aux) field."""

    def __init__(self, weight: Any, mask: Any) -> None:
        self.weight = weight
        self.mask = mask


jax.tree_util.register_pytree_node(
    _CausalAttention,
    lambda m: ((m.weight,), m.mask),
    lambda mask, ch: _CausalAttention(ch[0], mask),
)


def _make_attention_traced() -> Made:
    def init(key):
        weight = jax.random.normal(key, (3, 3))
        return _CausalAttention(weight, jnp.tril(jnp.ones((3, 3))))

    return init, (jax.random.PRNGKey(0),), {}


def _check_attention_traced() -> bool:
    fn, args, _ = _make_attention_traced()
    eager = fn(*args)
    jfn, jargs, _ = _make_attention_traced()
    abstract = jax.eval_shape(jfn, *jargs)
    return not _is_tracer(eager.mask) and _is_tracer(abstract.mask)


# ======================================================================================
# PURE CASES
# ======================================================================================

# --- google-deepmind/optax#503 (the fix): the schedule closes over NumPy arrays ---------


def _make_schedule_numpy() -> Made:
    return _make_train_state(np), (), {}


def _check_schedule_numpy() -> bool:
    fn, _, _ = _make_schedule_numpy()
    eager = fn()
    jfn, _, _ = _make_schedule_numpy()
    jitted = jax.jit(jfn)
    first, second = jitted(), jitted()
    same_schedule = all(
        float(s.tx(c)) == float(eager.tx(c)) for s in (first, second) for c in (0, 10, 15, 30)
    )
    return same_schedule and not _cells_hold_tracer(first.tx) and _same(first.params, eager.params)


# --- rigetti/pyquil#1860 (GoodEager): cached properties forced in __post_init__ ---------


def _check_eager_table() -> bool:
    (jfn, jargs, _), jsim = _build_lazy_table(_GoodEager)
    jitted = jax.jit(jfn)
    jitted(*jargs)
    jitted(*jargs)
    return not _is_tracer(jsim.__dict__["table"]) and _check_pure(
        lambda: _build_lazy_table(_GoodEager)[0]
    )


# --- pyro-ppl/numpyro#1976 (the fix): the guide creates its plates on each call ---------


def _check_guide_no_cache() -> bool:
    (jfn, _, _), jguide = _build_guide_plates(False)
    jax.jit(jfn)()
    return jguide.plates == {} and _check_pure(lambda: _build_guide_plates(False)[0])


# --- pyro-ppl/numpyro#1982 (the fix): the temperature travels in the returned state ----


def _stein_loss_and_state(params: Any, temperature: Any) -> tuple[Any, Any]:
    loss_temperature = temperature / 2.0
    return jnp.sum(params**2) / loss_temperature, loss_temperature


def _make_stein_state() -> Made:
    return _copy_function(_stein_loss_and_state), (jnp.ones(3), jnp.float32(2.0)), {}


# --- jax-ml/jax#13351 (the suggestion): jax.debug.print in the switch's branches --------


def _build_switch_debug_print() -> Made:
    def fun_a(x):
        jax.debug.print("a {x}", x=x)
        return x + 1.0

    def fun_b(x):
        jax.debug.print("b {x}", x=x)
        return x + 2.0

    def fun_c(x):
        jax.debug.print("c {x}", x=x)
        return x + 3.0

    branches = [fun_a, fun_b, fun_c]

    def f(i, x):
        return lax.switch(i, branches, x)

    return f, (0, jnp.float32(1.0)), {}


def _check_switch_debug_print() -> bool:
    fn, args, _ = _build_switch_debug_print()
    eager = _printed(fn, *args)
    jfn, jargs, _ = _build_switch_debug_print()
    jitted = jax.jit(jfn)
    texts = [_printed(jitted, *jargs), _printed(jitted, *jargs)]
    only_taken = all(t.split() == ["a", "1.0"] for t in [eager, *texts])
    return only_taken and _check_pure(_build_switch_debug_print)


# --- jax-ml/jax#11770 (the intended use): values passed to jax.debug.print -------------


def _debug_print_kwargs(x: Any) -> Any:
    jax.debug.print("x = {x}", x=x)
    return x * 2


def _make_debug_print_kwargs() -> Made:
    return _copy_function(_debug_print_kwargs), (jnp.float32(1.0),), {}


def _check_debug_print_kwargs() -> bool:
    fn, args, _ = _make_debug_print_kwargs()
    jitted = jax.jit(fn)
    texts = [_printed(fn, *args), _printed(jitted, *args), _printed(jitted, jnp.float32(2.0))]
    return texts == ["x = 1.0\n", "x = 1.0\n", "x = 2.0\n"] and _check_pure(
        _make_debug_print_kwargs
    )


# --- PennyLaneAI/pennylane#1238 (the documented fix): the device is built inside jit ----


def _circuit_with_key(key: Any, param: Any) -> Any:
    dev = _JaxDevice(key, shots=16)
    return dev.sample(jnp.sin(param / 2) ** 2)


def _make_circuit_with_key() -> Made:
    return _copy_function(_circuit_with_key), (jax.random.PRNGKey(0), jnp.float32(1.5)), {}


def _check_circuit_with_key() -> bool:
    fn, (key, param), _ = _make_circuit_with_key()
    jitted = jax.jit(fn)
    other = jitted(jax.random.PRNGKey(1), param)
    return not _same(jitted(key, param), other) and _check_pure(_make_circuit_with_key)


# --- jax-ml/jax#3567 (the documented fix): index an array instead of an iterator --------


def _indexed_total(data: Any) -> Any:
    def body_fun(i, cnt):
        return cnt + data[i]

    return lax.fori_loop(0, 3, body_fun, 0)


def _make_indexed_total() -> Made:
    return _copy_function(_indexed_total), (jnp.arange(10),), {}


def _check_indexed_total() -> bool:
    fn, args, _ = _make_indexed_total()
    return int(jax.jit(fn)(*args)) == 3 and _check_pure(_make_indexed_total)


# --- patrick-kidger/equinox#539: a cached_property on a module passed as an argument ----


@dataclasses.dataclass(frozen=True)
class _Lens:
    radius: Any

    @functools.cached_property
    def area(self) -> Any:
        return jnp.pi * self.radius**2


jax.tree_util.register_pytree_node(_Lens, lambda m: ((m.radius,), None), lambda _, ch: _Lens(*ch))


def _lens_loss(lens: _Lens) -> Any:
    return 2.0 * lens.area


def _make_lens() -> Made:
    return _copy_function(_lens_loss), (_Lens(jnp.float32(2.0)),), {}


def _check_lens() -> bool:
    fn, (lens,), _ = _make_lens()
    jax.jit(fn)(lens)
    return "area" not in lens.__dict__ and _check_pure(_make_lens)


# --- jax-ml/jax#20889 (the fix): the mask is an ordinary argument ----------------------


def _make_mask_argument() -> Made:
    return _nondiff_mask_loss(False), (jnp.ones(4), jnp.array([1.0, 0.0, 1.0, 0.0])), {}


def _check_mask_argument() -> bool:
    fn, args, _ = _make_mask_argument()
    grads = jax.grad(fn)(*args)
    return _same(grads, np.array([1.0, 0.0, 1.0, 0.0])) and _check_pure(_make_mask_argument)


# --- jax-ml/jax#2332 (the suggestion): value_and_grad returns the loss -----------------


def _fourier_loss(coefficients: Any, train_values: Any, train_labels: Any) -> Any:
    preds = jnp.cos(jnp.outer(train_values, jnp.arange(3.0))) @ coefficients
    return jnp.sum(jnp.square(preds - train_labels))


def _make_value_and_grad() -> Made:
    return jax.value_and_grad(_copy_function(_fourier_loss)), _FOURIER_ARGS, {}


# ======================================================================================
# The corpus.
# ======================================================================================

CASES: list[Case] = [
    # ---------------------------------------------------------------- impure cases
    Case(
        id="nondiff-array-mask-in-scan",
        source="jax-ml/jax#20889",
        impure=True,
        kinds=("leaked-tracer",),
        why="mattjj: don't use nondiff_argnums for array-valued arguments, it often leads to "
        "unexpected-tracer errors; the boolean mask passed that way leaks under grad of scan.",
        make=_make_nondiff_mask,
        check=_check_nondiff_mask,
        versions=EVERY,
    ),
    Case(
        id="checkpoint-callback-twice-under-grad",
        source="jax-ml/jax#8907",
        impure=True,
        kinds=("dropped-callback",),
        why="gnecula: a callback under checkpoint is invoked twice when taking the gradient, "
        "once in the forward pass and again when the backward pass rematerializes it (the "
        "callback count changes under a transformation: the nearest kind is dropped-callback).",
        make=lambda: _build_checkpoint_callback()[0],
        check=_check_checkpoint_callback,
        versions=EVERY,
    ),
    Case(
        id="progress-callback-in-checkpointed-loop",
        source="patrick-kidger/diffrax#396",
        impure=True,
        kinds=("dropped-callback",),
        why="The progress meter breaks under jax.grad: the checkpointed solver loop runs its "
        "progress callback again in the backward pass, so the bar runs a second time.",
        make=lambda: _build_progress_scan()[0],
        check=_check_progress_scan,
        versions=(V062, OLD, NEW),
    ),
    Case(
        id="debug-print-f-string",
        source="jax-ml/jax#11770",
        impure=True,
        kinds=("trace-time-print",),
        why="sharadmv: with an f-string, jax.debug.print prints a traced x inside jit instead "
        "of the actual value: the text is formatted once, while tracing.",
        make=_make_debug_print_fstring,
        check=_check_debug_print_fstring,
        versions=EVERY,
    ),
    Case(
        id="device-key-same-samples",
        source="PennyLaneAI/pennylane#1238",
        impure=True,
        kinds=("frozen-randomness", "leaked-tracer"),
        why="A device built outside jax.jit keeps its own PRNG key: 'b = circuit() # Bad! b "
        "will be the exact same samples as a', while op-by-op the key advances on each call.",
        make=lambda: _build_device_samples()[0],
        check=_check_device_samples,
        versions=EVERY,
    ),
    Case(
        id="autoguide-caches-plates",
        source="pyro-ppl/numpyro#1976",
        impure=True,
        kinds=("container-mutation", "leaked-tracer"),
        why="The plate leaks tracers through its _indices attribute: the AutoGuide caches "
        "its plates, so after a jitted call guide.plates['n']._indices is a tracer; the PR "
        "removes the caching so that calls to the guide are pure.",
        make=lambda: _build_guide_plates(True)[0],
        check=_check_guide_plates,
        versions=EVERY,
    ),
    Case(
        id="schedule-closure-in-static-field",
        source="google-deepmind/optax#503",
        impure=True,
        kinds=("leaked-tracer",),
        why="piecewise_interpolate_schedule's closure over jnp arrays leaks tracers under jit: "
        "the schedule travels out in the TrainState's static tx field; the fix is onp.",
        make=_make_schedule_jnp,
        check=_check_schedule_jnp,
        versions=EVERY,
    ),
    Case(
        id="cached-property-first-touched-in-jit",
        source="rigetti/pyquil#1860",
        impure=True,
        kinds=("leaked-tracer", "container-mutation"),
        why="Marked BAD in the PR's construction rules: a cached_property whose first touch is "
        "inside a trace poisons the instance, and its next eager use raises.",
        make=lambda: _build_lazy_table(_BadLazy)[0],
        check=_check_lazy_table,
        versions=EVERY,
    ),
    Case(
        id="static-self-objective-target",
        source="PlasmaControl/DESC#310",
        impure=True,
        kinds=("trace-time-read", "stale-result"),
        why="Because JAX compiles self as a static argument for jitted methods, updates to the "
        "objective's target and weight are not reflected in the jitted compute.",
        make=lambda: _build_objective()[0],
        check=_check_objective,
        versions=EVERY,
    ),
    Case(
        id="switch-traces-every-branch",
        source="jax-ml/jax#13351",
        impure=True,
        kinds=("trace-time-print",),
        why="lax.switch traces all its branches, so each branch's print runs (a b c for index "
        "0); apaszke: JAX assumes your code is pure.",
        make=_build_switch_prints,
        check=_check_switch_prints,
        versions=EVERY,
    ),
    Case(
        id="stein-stores-traced-temperature",
        source="pyro-ppl/numpyro#1982",
        impure=True,
        kinds=("argument-mutation", "leaked-tracer"),
        why="fehiepsi: we shouldn't set self.foo for a tracer foo (self.loss_temperature in "
        "SteinVI); the fix carries it in the Stein state.",
        make=_make_stein,
        check=_check_stein,
        versions=EVERY,
    ),
    Case(
        id="jit-bound-method-reads-attribute",
        source="https://openillumi.com/en/en-jax-jit-class-method-stale-cache-fix",
        impure=True,
        kinds=("trace-time-read", "stale-result"),
        why="jit(c.calc) works only by a loophole: the cache is not updated when the instance's "
        "attributes (c.mul) change, a stale-cache bug.",
        make=_make_bound_calc,
        check=_check_bound_calc,
        versions=EVERY,
    ),
    Case(
        id="iterator-in-fori-loop-body",
        source="jax-ml/jax#3567",
        impure=True,
        kinds=("trace-time-read", "stale-result"),
        why="next(train_iterator) in a fori_loop body runs once, while tracing: the batch is "
        "always the same in the loop; the documented answer is not to use an iterator.",
        make=_build_iterator_loop,
        check=_check_iterator_loop,
        versions=EVERY,
    ),
    Case(
        id="donated-argument-deleted",
        source="jax-ml/jax#2936",
        impure=True,
        kinds=("argument-mutation",),
        why="Donated buffers are deleted by the call: you should not reuse buffers that you "
        "donate to a computation (the caller's params are gone, which the eager function never "
        "does; the nearest kind is argument-mutation).",
        make=_make_donated,
        check=_check_donated,
        versions=EVERY,
    ),
    Case(
        id="apply-populates-vjp-cache",
        source="pasteurlabs/tesseract-core#577",
        impure=True,
        kinds=("container-mutation", "leaked-tracer"),
        why="jax_apply cannot be jitted because it has side effects: it populates a cache for "
        "a later jax_vjp call.",
        make=lambda: _build_vjp_cache()[0],
        check=_check_vjp_cache,
        versions=EVERY,
    ),
    Case(
        id="unseeded-random-global-generator",
        source="keras-team/keras-core#650",
        impure=True,
        kinds=("frozen-randomness", "container-mutation", "leaked-tracer"),
        why="'current rng setup is full of footguns in jax': unseeded random ops draw from a "
        "global SeedGenerator, so they are deterministic per traced function execution.",
        make=lambda: _build_global_seed()[0],
        check=_check_global_seed,
        versions=EVERY,
    ),
    Case(
        id="faq-global-read-and-print",
        source="https://jax.readthedocs.io/en/latest/faq.html",
        impure=True,
        kinds=("trace-time-read", "stale-result", "trace-time-print"),
        why="FAQ 'jit changes the behavior of my function': impure_func uses the global y and "
        "prints; with jit the print runs once and the first value of y is kept.",
        make=_make_faq,
        check=_check_faq,
        versions=EVERY,
    ),
    Case(
        id="f-string-print-watches-tracer",
        source="https://raw.githubusercontent.com/henryiii/python-performance-minicourse/"
        "master/06b_jax.ipynb",
        impure=True,
        kinds=("trace-time-print",),
        why="'Notice that the Python code runs once, and something that is not an integer at "
        "all is being passed in. From then on, the function doesn't run the Python code.'",
        make=_make_watch_tracer,
        check=_check_watch_tracer,
        versions=EVERY,
    ),
    Case(
        id="self-key-split-in-scan-body",
        source="jax-ml/jax#6335",
        impure=True,
        kinds=("frozen-randomness", "argument-mutation", "leaked-tracer"),
        why="jakevdp: modifying self (self.key = split(self.key)) inside the scanned function "
        "is a side effect: every step draws the same noise and self.key is left a tracer.",
        make=_make_noisy_walk,
        check=_check_noisy_walk,
        versions=EVERY,
    ),
    Case(
        id="world-step-updates-static-self",
        source="jax-ml/jax#1567",
        impure=True,
        kinds=("argument-mutation", "leaked-tracer"),
        why="mattjj: the step method violates functional purity, it has a side effect of "
        "updating self.v and self.p; you can only use jit on pure functions.",
        make=_make_world,
        check=_check_world,
        versions=EVERY,
    ),
    Case(
        id="nonlocal-write-under-jvp",
        source="jax-ml/jax#2048",
        impure=True,
        kinds=("closure-assignment", "leaked-tracer"),
        why="mattjj: the trouble is a side effect, namely where you write x = y for the "
        "nonlocal x.",
        make=_make_nonlocal_jvp,
        check=_check_nonlocal_jvp,
        versions=(V062, OLD, NEW),
    ),
    Case(
        id="loss-list-append-under-grad",
        source="jax-ml/jax#2332",
        impure=True,
        kinds=("argument-mutation", "container-mutation", "leaked-tracer"),
        why="mattjj: side effects aren't allowed in JAX-transformed functions, and appending "
        "to a list like self.loss_list += [l] is a side effect.",
        make=_make_loss_list,
        check=_check_loss_list,
        versions=EVERY,
    ),
    Case(
        id="vmapped-sys-assigned-to-env",
        source="google/brax#609",
        impure=True,
        kinds=("container-mutation", "leaked-tracer"),
        why="DomainRandomizationVmapWrapper._env_fn assigns the vmapped sys to the "
        "environment (env.unwrapped.sys = sys), which keeps a tracer; the fix stops mutating "
        "the object.",
        make=lambda: _build_domain_randomization()[0],
        check=_check_domain_randomization,
        versions=EVERY,
    ),
    Case(
        id="rope-cache-traced-under-eval-shape",
        source="vllm-project/tpu-inference#364",
        impure=True,
        kinds=("leaked-tracer",),
        why="The model is built under eval_shape; compute_sin_cos used jnp, so the rope cache "
        "kept on the module was a tracer and leaked; the fix computes it with NumPy.",
        make=_make_rope_jnp,
        check=_check_rope_jnp,
        versions=EVERY,
    ),
    Case(
        id="vmapped-schedule-in-train-state",
        source="https://jugheadjones10.github.io/kim-young-jin/ml/leaked_batch_tracer.html",
        impure=True,
        kinds=("leaked-tracer",),
        why="vmapping training over learning rates: the schedule closes over the batched lr "
        "and is kept in the TrainState's non-traced data, so a BatchTracer escapes the vmap.",
        make=_make_vmap_lr,
        check=_check_vmap_lr,
        versions=EVERY,
    ),
    Case(
        id="seed-handler-keeps-traced-key",
        source="pyro-ppl/numpyro#1886",
        impure=True,
        kinds=("container-mutation", "leaked-tracer"),
        why="get_model_relations traces a seed(model, key) object, and the seed handler keeps "
        "the traced key as mutable state (the handler was later made stateless).",
        make=lambda: _build_seed_handler()[0],
        check=_check_seed_handler,
        versions=EVERY,
    ),
    Case(
        id="callable-object-records-provenance",
        source="TARPS-group/prob-pipe#163",
        impure=True,
        kinds=("argument-mutation", "container-mutation", "leaked-tracer"),
        why="Maintainer: some Python-side state in WorkflowFunction.__call__ (provenance "
        "metadata, ...) captured a tracer that was meant to stay inside the transformation.",
        make=_make_workflow,
        check=_check_workflow,
        versions=EVERY,
    ),
    Case(
        id="sample-saves-intermediate-globally",
        source="awslabs/fortuna#55",
        impure=True,
        kinds=("container-mutation", "leaked-tracer"),
        why="Upon recompilation of ADVI's sample method an UnexpectedTracerError is raised, "
        "due to the saving of intermediate values to global state.",
        make=lambda: _build_advi_sample()[0],
        check=_check_advi_sample,
        versions=EVERY,
    ),
    Case(
        id="update-method-stores-params",
        source="world-modelz/dreamax#14",
        impure=True,
        kinds=("argument-mutation", "leaked-tracer"),
        why="The jitted update method stores its new params on the agent, and reading "
        "train_agent.params afterwards raises: a side effect let an intermediate escape.",
        make=_make_agent,
        check=_check_agent,
        versions=EVERY,
    ),
    Case(
        id="static-field-traced-at-init",
        source="marin-community/haliax#28",
        impure=True,
        kinds=("leaked-tracer",),
        why="A traced array created while the model is built under eval_shape stays in a "
        "static field; dlwh: solved with jax.ensure_compile_time_eval(), but sometimes the "
        "answer is to not use a static field.",
        make=_make_attention_traced,
        check=_check_attention_traced,
        versions=EVERY,
    ),
    # ------------------------------------------------------------------ pure cases
    Case(
        id="schedule-closure-over-numpy",
        source="google-deepmind/optax#503",
        impure=False,
        kinds=(),
        why="The fix the report proposes: build the schedule's arrays with onp, so the "
        "static field holds constants, not tracers.",
        make=_make_schedule_numpy,
        check=_check_schedule_numpy,
        versions=EVERY,
    ),
    Case(
        id="cached-property-forced-at-init",
        source="rigetti/pyquil#1860",
        impure=False,
        kinds=(),
        why="GoodEager: forcing cached properties in __post_init__ makes the table concrete "
        "before any trace, so it survives every call order.",
        make=lambda: _build_lazy_table(_GoodEager)[0],
        check=_check_eager_table,
        versions=EVERY,
    ),
    Case(
        id="guide-builds-plates-per-call",
        source="pyro-ppl/numpyro#1976",
        impure=False,
        kinds=(),
        why="The PR removes the caching such that calls to the guide are pure.",
        make=lambda: _build_guide_plates(False)[0],
        check=_check_guide_no_cache,
        versions=EVERY,
    ),
    Case(
        id="temperature-in-returned-state",
        source="pyro-ppl/numpyro#1982",
        impure=False,
        kinds=(),
        why="The fix: the temperature travels in the Stein state that the function returns, "
        "not on self.",
        make=_make_stein_state,
        check=_pure(_make_stein_state),
        versions=EVERY,
    ),
    Case(
        id="switch-branches-debug-print",
        source="jax-ml/jax#13351",
        impure=False,
        kinds=(),
        why="soraros: to print values in a traced function, jax.debug.print; it prints only "
        "for the branch taken, at run time.",
        make=_build_switch_debug_print,
        check=_check_switch_debug_print,
        versions=EVERY,
    ),
    Case(
        id="debug-print-with-arguments",
        source="jax-ml/jax#11770",
        impure=False,
        kinds=(),
        why="The intended use the PR enforces: the values are passed as arguments to "
        "jax.debug.print, which formats them at run time.",
        make=_make_debug_print_kwargs,
        check=_check_debug_print_kwargs,
        versions=EVERY,
    ),
    Case(
        id="device-built-from-key-argument",
        source="PennyLaneAI/pennylane#1238",
        impure=False,
        kinds=(),
        why="The documented pattern: construct the device inside the jitted method from a key "
        "passed in, so new keys give new samples and a key gives the same samples.",
        make=_make_circuit_with_key,
        check=_check_circuit_with_key,
        versions=EVERY,
    ),
    Case(
        id="loop-indexes-an-array",
        source="jax-ml/jax#3567",
        impure=False,
        kinds=(),
        why="The documented answer: don't use an iterator in the loop body; index the data by "
        "the loop counter.",
        make=_make_indexed_total,
        check=_check_indexed_total,
        versions=EVERY,
    ),
    Case(
        id="cached-property-on-argument-module",
        source="patrick-kidger/equinox#539",
        impure=False,
        kinds=(),
        why="patrick-kidger: cached properties on a module behave correctly under jit; they "
        "are just not preserved across flattening, so the caller's module is untouched.",
        make=_make_lens,
        check=_check_lens,
        versions=EVERY,
    ),
    Case(
        id="mask-as-ordinary-argument",
        source="jax-ml/jax#20889",
        impure=False,
        kinds=(),
        why="Array-valued arguments should not go through nondiff_argnums: passed as an "
        "ordinary argument whose tangent the rule ignores, grad of the scan works.",
        make=_make_mask_argument,
        check=_check_mask_argument,
        versions=EVERY,
    ),
    Case(
        id="value-and-grad-returns-loss",
        source="jax-ml/jax#2332",
        impure=False,
        kinds=(),
        why="mattjj: use value_and_grad instead of appending the loss to a list; every output "
        "is a return value.",
        make=_make_value_and_grad,
        check=_pure(_make_value_and_grad),
        versions=EVERY,
    ),
]


validate(CASES)
