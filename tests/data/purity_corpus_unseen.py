"""An unseen corpus of impure and pure JAX functions, reduced from public bug reports.

How, when and by whom: collected in one sitting in December 2026, by a helper who had not
seen ``check_pure``'s score on any case (nor read ``jaxpurity/checks/``, nor imported
``jaxpurity`` while collecting), from public GitHub threads that no other file of this
repository cites. Every label was decided from the thread's discussion (what the maintainers,
the reporter or the pull request said the code does wrong, or why it is fine) before
``check_pure`` was run on any case; ``check()`` then shows the label with JAX and NumPy alone.
The score as collected is in the closing note of the change that added this file.

The format is the one of :mod:`purity_corpus` (its :class:`Case`, its ``KINDS``): ``make``
builds fresh state and returns ``(fn, args, kwargs)``, ``check`` returns ``True`` when the
label holds, ``versions`` are the JAX versions on which ``check()`` was seen ``True``.

Some real bugs have no word in ``KINDS``: a function that raises under one transformation and
returns under another, a PRNG key consumed twice, a callback run a different number of times,
state read from a closed-over object or ``Ref``, a global rebound under a cached trace. Those
cases use the names in :data:`NEW_KINDS`, and their ``why`` says so.

:data:`HELD_OUT` names half of the impure and half of the pure cases, chosen by a rule fixed
before any case was written (see its comment), for scoring a tool that was tuned on the rest.

Where a thread's code used an API that JAX has since removed (``host_callback``), the
reduction uses its current equivalent (``io_callback``), and the case's ``why`` says so.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import io_callback
from purity_corpus import (
    KINDS,
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

__all__ = ["CASES", "HELD_OUT", "NEW_KINDS"]

OLD = "0.10.2"
NEW = "0.12.0.1"
BOTH = (OLD, NEW)

#: Kinds this corpus needs that ``KINDS`` has no word for.
NEW_KINDS: tuple[str, ...] = (
    # Raises under jit, vmap or grad where it returns eagerly (or the reverse).
    "mode-mismatch",
    # A PRNG key consumed twice, or consumed and then split.
    "key-reuse",
    # A callback or print runs a different number of times under a transformation.
    "callback-count",
    # Reads state kept in a closed-over Ref or object, changed between calls.
    "hidden-state",
    # A global rebound between two calls, which a cached trace has baked in.
    "stale-global",
)


def _holds_tracer(tree: Any) -> bool:
    return any(_is_tracer(leaf) for leaf in jax.tree_util.tree_leaves(tree))


def _printed(fn: Callable[..., Any], *args: Any) -> str:
    return _run_capturing(fn, *args)[1]


def _reuses_key(make: Callable[[], Made]) -> bool:
    """True when JAX's key-reuse checker rejects the call, eagerly and under jit.

    Each run gets fresh arguments from ``make``: the checker marks a key consumed eagerly.
    """
    with jax.debug_key_reuse(True):
        fn, args, kwargs = make()
        eager = _raises(jax.errors.KeyReuseError, functools.partial(fn, **kwargs), *args)
        jfn, jargs, jkwargs = make()
        jitted = jax.jit(functools.partial(jfn, **jkwargs))
        return eager and _raises(jax.errors.KeyReuseError, jitted, *jargs)


def _raw_keys(make: Callable[[], Made]) -> Callable[[], Made]:
    """``make`` with every typed key among the arguments replaced by its raw key data."""

    def raw(leaf: Any) -> Any:
        is_key = isinstance(leaf, jax.Array) and jnp.issubdtype(leaf.dtype, jax.dtypes.prng_key)
        return jax.random.key_data(leaf) if is_key else leaf

    def made() -> Made:
        fn, args, kwargs = make()
        return fn, jax.tree_util.tree_map(raw, args), jax.tree_util.tree_map(raw, kwargs)

    return made


def _pure_without_key_reuse(make: Callable[[], Made]) -> Callable[[], bool]:
    """No key consumed twice, and pure as ``_check_pure`` sees it (on raw keys)."""

    def check() -> bool:
        return not _reuses_key(make) and _check_pure(_raw_keys(make))

    return check


# ======================================================================================
# IMPURE CASES
# ======================================================================================

# --- jax-ml/jax#28225: a global helper rebound, the jitted caller re-wrapped -----------

_mock_fn: Any = None  # placeholder only; each make() gives the function its own namespace


def _tmpl_mock_fn_vec(x: Any) -> Any:
    return jax.vmap(_mock_fn)(x)


def _make_mock_fn_vec() -> Made:
    return _fresh_globals(_tmpl_mock_fn_vec, _mock_fn=lambda x: x), (jnp.array([1, 1]),), {}


def _check_mock_fn_vec() -> bool:
    fn, args, _ = _make_mock_fn_vec()
    first = jax.jit(fn)(*args)
    fn.__globals__["_mock_fn"] = lambda x: -x
    again = jax.jit(fn)(*args)  # a new jax.jit of the same function, as in the report
    ones = np.array([1, 1])
    return _same(first, ones) and _same(again, ones) and _same(fn(*args), -ones)


# --- jax-ml/jax#19314: jax.debug.print in a branch of a vmapped lax.cond ----------------


def _select_u(x: Any) -> Any:
    key = jax.random.PRNGKey(123)
    u = jax.random.uniform(key)
    lax.cond(
        u > x,
        lambda w, z: jax.debug.print("selecting u: {w}>{z}", w=w, z=z),
        lambda x, y: None,
        u,
        x,
    )
    return lax.select(u > x, u, x)


def _make_select_u() -> Made:
    return _copy_function(_select_u), (jnp.float32(2.0),), {}


def _check_select_u() -> bool:
    fn, _, _ = _make_select_u()
    grid = jnp.array([0.0, 2.0])
    eager = "".join(_printed(fn, x) for x in grid)
    vmapped = _printed(jax.vmap(fn), grid)
    return eager.count("selecting u") == 1 and vmapped.count("selecting u") == 2


# --- google/jaxopt#555: the zoom line search's failure diagnostic under vmap ------------


def _failure_diagnostic() -> None:
    jax.debug.print(
        "WARNING: jaxopt.ZoomLineSearch: Linesearch failed, no stepsize satisfying "
        "sufficient decrease found."
    )


def _zoom_step(x: Any, y: Any) -> Any:
    def value(z):
        return jnp.square(y - z)

    direction = -jax.grad(value)(x)
    stepsizes = jnp.array([1.0, 0.5, 0.25])
    decrease = value(x + stepsizes * direction) < value(x)
    safe_stepsize = jnp.where(jnp.any(decrease), stepsizes[jnp.argmax(decrease)], 0.0)
    lax.cond(safe_stepsize > 0.0, lambda: None, _failure_diagnostic)
    return x + safe_stepsize * direction


def _make_zoom_step() -> Made:
    return _copy_function(_zoom_step), (jnp.float32(0.0), jnp.float32(1.0)), {}


def _check_zoom_step() -> bool:
    fn, (x, _), _ = _make_zoom_step()
    ys = jnp.array([1.0, 2.0])
    eager = "".join(_printed(fn, x, y) for y in ys)
    vmapped = _printed(jax.vmap(fn, in_axes=(None, 0)), x, ys)
    return eager == "" and "Linesearch failed" in vmapped


# --- google/jaxopt#589: BFGS's line-search warnings spam stdout under vmap --------------


def _bfgs_iterations(x: Any, target: Any) -> Any:
    def value(z):
        return jnp.sum(jnp.square(target - z))

    def body(_, z):
        grad = jax.grad(value)(z)
        slope = jnp.vdot(grad, -grad)
        lax.cond(
            jnp.abs(slope) > 1e3,
            lambda s: jax.debug.print(
                "WARNING: jaxopt.ZoomLineSearch: Very large absolute slope at stepsize=0. "
                "(|slope|={s}).",
                s=jnp.abs(s),
            ),
            lambda s: None,
            slope,
        )
        return z - 0.25 * grad

    return lax.fori_loop(0, 2, body, x)


def _make_bfgs_iterations() -> Made:
    return _copy_function(_bfgs_iterations), (jnp.zeros(2), jnp.ones(2)), {}


def _check_bfgs_iterations() -> bool:
    fn, (x, _), _ = _make_bfgs_iterations()
    targets = jnp.ones((3, 2))
    eager = "".join(_printed(fn, x, t) for t in targets)
    vmapped = _printed(jax.vmap(fn, in_axes=(None, 0)), x, targets)
    return eager == "" and vmapped.count("Very large absolute slope") == 6


# --- jax-ml/jax#5344: a Gaussian process caches K on self in a jitted fit ---------------


class _GP:
    def __init__(self, alpha: float = 1e-8) -> None:
        self.alpha = alpha
        self.x: Any = None
        self.y: Any = None
        self.K: Any = None

    @staticmethod
    def kernel(a: Any, b: Any) -> Any:
        return jnp.exp(-0.5 * jnp.square(a[:, None] - b[None, :]))

    def fit(self, x: Any, y: Any) -> None:
        self.x = x
        self.y = y
        self.K = self.kernel(x, x) + self.alpha * jnp.eye(x.shape[0])

    def predict_mu(self, xs: Any) -> Any:
        return self.kernel(xs, self.x) @ jnp.linalg.solve(self.K, self.y)


def _make_gp_fit() -> Made:
    return _GP().fit, (jnp.linspace(0.0, 1.0, 4), jnp.sin(jnp.linspace(0.0, 1.0, 4))), {}


def _check_gp_fit() -> bool:
    fn, args, _ = _make_gp_fit()
    fn(*args)
    eager_ok = not _is_tracer(fn.__self__.K) and fn.__self__.predict_mu(args[0]).shape == (4,)
    jfn, jargs, _ = _make_gp_fit()
    jax.jit(jfn)(*jargs)
    gp = jfn.__self__
    leaked = _raises(jax.errors.UnexpectedTracerError, gp.predict_mu, jargs[0])
    return eager_ok and _is_tracer(gp.K) and leaked


# --- jax-ml/jax#14597: Student's t sampling draws the gamma with the normal's key -------


def _student_t(key: Any, df: Any) -> Any:
    key_n, key_g = jax.random.split(key)
    n = jax.random.normal(key_n, (4,))
    half_df = df / 2.0
    g = jax.random.gamma(key_n, half_df, (4,))  # key_g is never used
    return n * jnp.sqrt(half_df / g)


def _make_student_t() -> Made:
    return _copy_function(_student_t), (jax.random.key(0), jnp.float32(3.0)), {}


def _check_student_t() -> bool:
    return _reuses_key(_make_student_t)


# --- google-deepmind/mujoco_playground#349: Finger's reset reuses one key ---------------


def _finger_reset(rng: Any) -> Any:
    rng, rng1 = jax.random.split(rng)
    qpos = jax.random.uniform(rng1, (2,), minval=-jnp.pi, maxval=jnp.pi)  # the two hinges
    spinner = jax.random.uniform(rng1, (), minval=-jnp.pi, maxval=jnp.pi)  # the same key
    return jnp.concatenate([qpos, spinner[None]]), rng


def _make_finger_reset() -> Made:
    return _copy_function(_finger_reset), (jax.random.key(1),), {}


def _check_finger_reset() -> bool:
    return _reuses_key(_make_finger_reset)


# --- pyro-ppl/numpyro#602: a global counts the calls of a jitted update -----------------

_my_fn_calls = 0  # placeholder only


def _tmpl_my_fn(state: Any, g: Any) -> Any:
    global _my_fn_calls
    _my_fn_calls += 1
    i, params = state
    return i + 1, params - 1e-3 * g


def _make_my_fn() -> Made:
    fn = _fresh_globals(_tmpl_my_fn, _my_fn_calls=0)
    return fn, ((0, jnp.zeros(3)), jnp.ones(3)), {}


def _check_my_fn() -> bool:
    def run(fn: Callable[..., Any], call: Callable[..., Any]) -> int:
        state, g = (0, jnp.zeros(3)), jnp.ones(3)
        for _ in range(10):
            state = call(state, g)
        return fn.__globals__["_my_fn_calls"]

    fn, _, _ = _make_my_fn()
    jfn, _, _ = _make_my_fn()
    return run(fn, fn) == 10 and run(jfn, jax.jit(jfn)) <= 2


# --- jax-ml/jax#26361: writing the input to a global mutable array under jax.grad ------


def _build_global_ref_write() -> tuple[Made, Any]:
    a_ref = jax.new_ref(jnp.float32(0))

    def f(x):
        a_ref[()] = x  # writing the function's input to a global mutable array
        return 2 * x

    return (f, (jnp.float32(3.0),), {}), a_ref


def _check_global_ref_write() -> bool:
    (fn, args, _), a_ref = _build_global_ref_write()
    eager = float(fn(*args))
    written = float(a_ref[...])
    (gfn, gargs, _), _ = _build_global_ref_write()
    under_grad = _raises(Exception, jax.jit(jax.grad(gfn)), *gargs)
    return eager == 6.0 and written == 3.0 and under_grad


# --- jax-ml/jax#27470: a custom_jvp function reads and writes a global mutable array ----


def _build_custom_jvp_ref() -> Made:
    a_ref = jax.new_ref(jnp.float32(0.0))

    @jax.custom_jvp
    def f(x):
        y = a_ref[...]
        a_ref[...] = jnp.sum(x)
        return x**2 + y

    @f.defjvp
    def _f_jvp(primals, tangents):
        raise NotImplementedError

    return f, (jnp.float32(1.0),), {}


def _check_custom_jvp_ref() -> bool:
    fn, args, _ = _build_custom_jvp_ref()
    first, second = float(fn(*args)), float(fn(*args))
    jfn, jargs, _ = _build_custom_jvp_ref()
    under_jit = _raises(NotImplementedError, jax.jit(jfn), *jargs)
    return first == 1.0 and second == 2.0 and under_jit


# --- jax-ml/jax#15136: a jitted method with a static self assigns self.param -----------


class _DenseNet:
    def __init__(self) -> None:
        self.param = [(jnp.ones((2, 1)), jnp.zeros(1))]
        self.lr = 0.1

    @staticmethod
    def loss(param: Any, data: Any, labels: Any) -> Any:
        (w, b) = param[0]
        return jnp.mean(jnp.square(data @ w + b - labels))


class _Trainer:
    def __init__(self) -> None:
        self.nn = _DenseNet()
        self.data = jnp.array([[1.0, 2.0], [3.0, 4.0]])
        self.labels = jnp.array([[1.0], [0.0]])
        self.param: Any = None

    @functools.partial(jax.jit, static_argnums=(0,))
    def opt(self) -> None:
        grads = jax.grad(self.nn.loss)(self.nn.param, self.data, self.labels)
        self.param = [
            (w - self.nn.lr * dw, b - self.nn.lr * db)
            for (w, b), (dw, db) in zip(self.nn.param, grads, strict=True)
        ]


def _make_trainer_opt() -> Made:
    return _Trainer().opt, (), {}


def _check_trainer_opt() -> bool:
    fn, _, _ = _make_trainer_opt()
    trainer = fn.__self__
    _Trainer.opt.__wrapped__(trainer)  # the same method without jit
    eager_ok = not _holds_tracer(trainer.param)
    jfn, _, _ = _make_trainer_opt()
    jfn()
    return eager_ok and _holds_tracer(jfn.__self__.param)


# --- jax-ml/jax#33050: a remat-decorated function increments an argument Ref ------------


@jax.remat
def _remat_increment(y: Any, x_ref: Any) -> Any:
    out = y * x_ref[...]
    x_ref[...] += 1
    return out


def _make_remat_increment() -> Made:
    return _remat_increment, (1.0, jax.new_ref(1.0)), {}


def _check_remat_increment() -> bool:
    fn, (y, x_ref), _ = _make_remat_increment()
    out = float(fn(y, x_ref))
    eager_ref = float(x_ref[...])
    gfn, (gy, gref), _ = _make_remat_increment()
    grad = float(jax.grad(gfn)(gy, gref))
    grad_ref = float(gref[...])
    return out == 1.0 and eager_ref == 2.0 and grad_ref == 3.0 and grad == 2.0


# --- climate-analytics-lab/jax-gcm#735: a static self bakes the physics parameters in --


class _TermParams:
    """A parameter holder edited in place, as an nnx.Param is with set_value."""

    def __init__(self, trvdi: float) -> None:
        self._value = {"trvdi": trvdi}

    def get_value(self) -> dict[str, float]:
        return dict(self._value)

    def set_value(self, value: dict[str, float]) -> None:
        self._value = dict(value)


class _Model:
    def __init__(self, params: _TermParams) -> None:
        self.params = params

    # Note: changing fields assumed static won't propagate.
    @functools.partial(jax.jit, static_argnums=(0,))
    def _run_from_state(self, temperature: Any) -> Any:
        return temperature * jnp.exp(-0.5 / self.params.get_value()["trvdi"])

    def run(self, temperature: Any) -> Any:
        return self._run_from_state(temperature)


def _make_model_run() -> Made:
    return _Model(_TermParams(trvdi=1.0)).run, (jnp.ones(3),), {}


def _check_model_run() -> bool:
    fn, args, _ = _make_model_run()
    model = fn.__self__
    t1 = fn(*args)
    model.params.set_value({"trvdi": 2.0})
    t2 = fn(*args)
    live = _Model._run_from_state.__wrapped__(model, *args)
    return _same(t1, t2) and not _same(t2, live)


# --- thomaspinder/GPJax#495: the PositiveReal parameter's check under jit ---------------


class _PositiveReal:
    def __init__(self, value: Any) -> None:
        if not jnp.all(value > 0):
            raise ValueError("PositiveReal parameters must be positive.")
        self.value = value


_GPJAX_X = jnp.array([[1.0], [2.0], [3.0]])


def _get_kernel_gram_func(lengthscale: Any) -> Any:
    ls = _PositiveReal(lengthscale)
    variance = _PositiveReal(jnp.array(1.0))
    d = (_GPJAX_X - _GPJAX_X.T) / ls.value
    return variance.value * jnp.exp(-0.5 * jnp.square(d))


def _make_gram() -> Made:
    return _copy_function(_get_kernel_gram_func), (jnp.array([3.0]),), {}


def _check_gram() -> bool:
    fn, args, _ = _make_gram()
    eager_ok = fn(*args).shape == (3, 3)
    return eager_ok and _raises(jax.errors.ConcretizationTypeError, jax.jit(fn), *args)


# --- tud-phi/soromox#152: validating untouched parameters inside a jitted update -------


class _GVSParams(NamedTuple):
    base_pose: Any
    lengths: Any


_GVS_PARAMS = _GVSParams(base_pose=jnp.zeros(3), lengths=jnp.array([0.1, 0.2]))


def _validate_against_structure(params: _GVSParams) -> None:
    if params.base_pose.shape != (3,):
        raise ValueError("base_pose must have shape (3,)")
    if not bool(jnp.all(params.lengths > 0)):
        raise ValueError("segment lengths must be positive")


def _potential_force(theta: Any) -> Any:
    params = _GVS_PARAMS._replace(base_pose=jnp.array([0.0, 0.0, 1.0]) * theta)
    _validate_against_structure(params)  # update_params(base_pose=...) validates everything
    return jnp.sum(params.lengths) * jnp.sin(params.base_pose[2])


def _make_potential_force() -> Made:
    return _copy_function(_potential_force), (jnp.float32(0.5),), {}


def _check_potential_force() -> bool:
    fn, args, _ = _make_potential_force()
    eager_ok = abs(float(fn(*args)) - 0.3 * math.sin(0.5)) < 1e-6
    return eager_ok and _raises(jax.errors.ConcretizationTypeError, jax.jit(fn), *args)


# --- jax-ml/jax#20726: an io_callback in a while_loop whose predicate vmap batches -----


def _build_io_loop() -> tuple[Made, list[float]]:
    log: list[float] = []

    def record(v):
        log.append(float(v))

    def body(c):
        io_callback(record, None, c, ordered=False)
        return c + 1.0

    def loop(n):
        return lax.while_loop(lambda c: c < n, body, 0.0)

    return (loop, (jnp.float32(3.0),), {}), log


def _check_io_loop() -> bool:
    (fn, _, _), log = _build_io_loop()
    ns = jnp.array([1.0, 3.0])
    for n in ns:
        jax.block_until_ready(fn(n))
    jax.effects_barrier()
    eager_ok = len(log) == 4
    (vfn, _, _), _ = _build_io_loop()
    return eager_ok and _raises(Exception, jax.vmap(vfn), ns)


# --- jax-ml/jax#9023: a jitted method with a static self calls a reassigned self.fn -----


class _Wrapper:
    def __init__(self) -> None:
        self.fn: Callable[[Any], Any] = lambda x: x

    @functools.partial(jax.jit, static_argnums=(0,))
    def wrapper(self, x: Any) -> Any:
        return self.fn(x)

    def assign_fn(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn


def _make_wrapper() -> Made:
    t = _Wrapper()
    t.assign_fn(lambda x: x + 1)
    return t.wrapper, (1,), {}


def _check_wrapper() -> bool:
    fn, args, _ = _make_wrapper()
    t = fn.__self__
    first = int(fn(*args))
    t.assign_fn(lambda x: x + 2)
    second = int(fn(*args))
    return first == 2 and second == 2 and int(t.fn(1)) == 3


# --- google/flax#4695: an optimizer updated in place from a jax.jit closure -------------


class _Optimizer:
    """nnx.Optimizer-like: update() changes the model's params and its own state."""

    def __init__(self, params: Any, lr: float) -> None:
        self.params = params
        self.lr = lr
        self.step = jnp.int32(0)

    def update(self, grads: Any) -> None:
        self.params = jax.tree_util.tree_map(lambda p, g: p - self.lr * g, self.params, grads)
        self.step = self.step + 1


class _Algorithm:
    def __init__(self, use_jit: bool = True) -> None:
        self.optimizer = _Optimizer({"w": jnp.ones(3)}, lr=0.1)

        def update(key, data):
            def loss_fn(params):
                noise = 0.01 * jax.random.normal(key, data.shape)
                return jnp.sum(jnp.square(params["w"] * data + noise))

            grad = jax.grad(loss_fn)(self.optimizer.params)
            self.optimizer.update(grad)

        self.update = jax.jit(update) if use_jit else update


def _build_algorithm_update() -> tuple[Made, _Algorithm]:
    alg = _Algorithm()
    return (alg.update, (jax.random.PRNGKey(0), jnp.ones(3)), {}), alg


def _check_algorithm_update() -> bool:
    alg = _Algorithm(use_jit=False)
    alg.update(jax.random.PRNGKey(0), jnp.ones(3))
    eager_ok = not _holds_tracer(alg.optimizer.params)
    (fn, args, _), jalg = _build_algorithm_update()
    fn(*args)
    leaked = _raises(jax.errors.UnexpectedTracerError, lambda: jalg.optimizer.params["w"] + 1)
    return eager_ok and _holds_tracer(jalg.optimizer.params) and leaked


# --- ucl-dark/pax#26: the agent logs metrics from inside a scanned train loop -----------


class _Logger:
    def __init__(self) -> None:
        self.metrics: dict[str, Any] = {}


class _Agent:
    def __init__(self) -> None:
        self._logger = _Logger()

    def update(self, params: Any, batch: Any) -> Any:
        loss, grad = jax.value_and_grad(lambda p: jnp.mean(jnp.square(p - batch)))(params)
        self._logger.metrics["loss"] = loss
        return params - 0.1 * grad


def _build_agent_scan() -> tuple[Made, _Agent]:
    agent = _Agent()

    def run_loop(params, batches):
        def step(p, batch):
            return agent.update(p, batch), None

        return lax.scan(step, params, batches)[0]

    return (run_loop, (jnp.zeros(2), jnp.ones((3, 2))), {}), agent


def _check_agent_scan() -> bool:
    (fn, (params, batches), _), agent = _build_agent_scan()
    for batch in batches:  # the loop before it was jitted with lax.scan
        params = agent.update(params, batch)
    python_loop_ok = not _is_tracer(agent._logger.metrics["loss"])
    (sfn, sargs, _), sagent = _build_agent_scan()
    sfn(*sargs)
    return python_loop_ok and _is_tracer(sagent._logger.metrics["loss"])


# --- p-doom/jasmine#214: one key for the noise level and the noise ----------------------


def _dynamics_noise(rng: Any, vid_embed: Any) -> Any:
    rng, _rng_noise = jax.random.split(rng)
    noise_level = jax.random.uniform(_rng_noise, shape=(2,), minval=0.0, maxval=0.7)
    noise = jax.random.normal(_rng_noise, shape=vid_embed.shape)
    return vid_embed + noise_level[:, None] * noise, rng


def _make_dynamics_noise() -> Made:
    return _copy_function(_dynamics_noise), (jax.random.key(2), jnp.zeros((2, 3))), {}


def _check_dynamics_noise() -> bool:
    return _reuses_key(_make_dynamics_noise)


# --- pyro-ppl/numpyro#263: the seed handler hands out its key, then splits it -----------


def _student_t_site(random_state: Any) -> Any:
    # The sampler splits its key itself, as StudentT does (a uniform stands in for its
    # chi-squared draw, which is slow to compile and beside the point here).
    key_n, key_c = jax.random.split(random_state)
    n = jax.random.normal(key_n)
    c = jax.random.uniform(key_c, minval=0.5, maxval=2.0)
    return n * jnp.sqrt(1.5 / c)


class _SeedHandler:
    def __init__(self, rng: Any, split_first: bool) -> None:
        self.rng = rng
        self.split_first = split_first

    def process_message(self, msg: dict[str, Any]) -> None:
        if self.split_first:  # the fix
            self.rng, rng_sample = jax.random.split(self.rng)
            msg["random_state"] = rng_sample
        else:
            msg["random_state"] = self.rng
            (self.rng,) = jax.random.split(self.rng, 1)


def _seeded_model(split_first: bool) -> Callable[[Any], Any]:
    def model(rng):
        handler = _SeedHandler(rng, split_first)
        samples = []
        for _ in range(2):
            msg: dict[str, Any] = {}
            handler.process_message(msg)
            samples.append(_student_t_site(msg["random_state"]))
        return jnp.stack(samples)

    return model


def _make_seed_then_split() -> Made:
    return _seeded_model(False), (jax.random.key(3),), {}


def _check_seed_then_split() -> bool:
    return _reuses_key(_make_seed_then_split)


# --- jax-ml/jax#29433: one mutable array passed twice to a vmapped function ------------


def _copy_ref(m1: Any, m2: Any) -> None:
    m1[...] = m2[...]


def _make_copy_ref() -> Made:
    m = jax.new_ref(jnp.arange(9.0).reshape(3, 3))
    return _copy_function(_copy_ref), (m, m), {}


def _check_copy_ref() -> bool:
    fn, _, _ = _make_copy_ref()
    dst, src = jax.new_ref(jnp.zeros(2)), jax.new_ref(jnp.ones(2))
    fn(dst, src)
    writes = _same(dst[...], np.ones(2))
    _, (m, _), _ = _make_copy_ref()
    loop = jax.new_ref(jnp.arange(9.0).reshape(3, 3))
    for i in range(3):  # what jax.vmap(f)(batch) == stack([f(x) for x in batch]) would mean
        loop[i] = loop[:, i]
    expected = np.array([[0.0, 3.0, 6.0], [3.0, 4.0, 7.0], [6.0, 7.0, 8.0]])
    vmapped = _raises(ValueError, jax.vmap(fn, in_axes=[0, 1]), m, m)
    return writes and _same(loop[...], expected) and vmapped


# --- jax-ml/jax#39438: a custom_vjp's backward pass stashes the gradient in a Ref -------


@jax.custom_vjp
def _stash_grads(grads_ref: Any, x: Any) -> Any:
    return x


def _stash_grads_fwd(grads_ref: Any, x: Any) -> Any:
    return x, grads_ref


def _stash_grads_bwd(grads_ref: Any, g: Any) -> Any:
    grads_ref[...] = g
    return None, g


_stash_grads.defvjp(_stash_grads_fwd, _stash_grads_bwd)


def _stash_sin(x: Any, grads_ref: Any) -> Any:
    x = _stash_grads(grads_ref, x)
    return jnp.sin(x)


def _make_stash_sin() -> Made:
    return _copy_function(_stash_sin), (1.0, jax.new_ref(0.0)), {}


def _check_stash_sin() -> bool:
    fn, (x, ref), _ = _make_stash_sin()
    fn(x, ref)
    untouched = float(ref[...]) == 0.0
    gfn, (gx, gref), _ = _make_stash_sin()
    jax.grad(gfn)(gx, gref)
    return untouched and abs(float(gref[...]) - math.cos(1.0)) < 1e-6


# --- jax-ml/jax#20704: a jitted function closes over one key and draws from it ---------


def _build_closed_key() -> Made:
    key = jax.random.key(0)

    def f():
        return jax.random.bits(key)

    return f, (), {}


def _check_closed_key() -> bool:
    fn, _, _ = _build_closed_key()
    jitted = jax.jit(fn)
    same_bits = int(jitted()) == int(jitted())
    with jax.debug_key_reuse(True):
        jfn, _, _ = _build_closed_key()
        jreuse = jax.jit(jfn)
        jreuse()
        second_call = _raises(jax.errors.KeyReuseError, jreuse)
    return same_bits and second_call


# --- jax-ml/jax#26354: a function writes 7 into a global mutable array -----------------


def _build_global_ref_seven() -> tuple[Made, Any]:
    a_ref = jax.new_ref(jnp.uint32(0))

    def f(x):
        a_ref[()] = 7  # writing to a global mutable array
        return jnp.isfinite(x)

    return (f, (jnp.float32(4.0),), {}), a_ref


def _check_global_ref_seven() -> bool:
    (fn, args, _), a_ref = _build_global_ref_seven()
    eager = bool(fn(*args)) and int(a_ref[...]) == 7
    (jfn, jargs, _), ja_ref = _build_global_ref_seven()
    compiled = jax.jit(jfn).lower(*jargs).compile()
    aot = bool(compiled(*jargs)) and int(ja_ref[...]) == 7
    return eager and aot


# --- pyro-ppl/numpyro#1753: one seeded-model instance reused under jit and vmap ---------


class _Seed:
    """numpyro.handlers.seed before it was made stateless: it splits and keeps its key."""

    def __init__(self, fn: Callable[..., Any], rng_seed: Any) -> None:
        self.fn = fn
        self.rng_key = rng_seed

    def __call__(self, *args: Any) -> Any:
        self.rng_key, subkey = jax.random.split(self.rng_key)
        return self.fn(subkey, *args)


def _noisy_model(key: Any, data: Any) -> Any:
    return jnp.mean(data) + jax.random.normal(key)


def _build_seeded_instance() -> tuple[Made, _Seed]:
    seeded = _Seed(_noisy_model, jax.random.PRNGKey(0))

    def fit_one(data):
        return seeded(data)

    return (fit_one, (jnp.ones((2, 3)),), {}), seeded


def _check_seeded_instance() -> bool:
    (fn, (batch,), _), seeded = _build_seeded_instance()
    for data in batch:
        fn(data)
    eager_ok = not _is_tracer(seeded.rng_key)
    (jfn, (jbatch,), _), jseeded = _build_seeded_instance()
    jax.jit(jax.vmap(jfn))(jbatch)
    leaked = _raises(jax.errors.UnexpectedTracerError, jfn, jbatch[0])
    return eager_ok and _is_tracer(jseeded.rng_key) and leaked


# --- jax-ml/jax#7199: a side-effecting branch of a vmapped lax.cond ---------------------


def _build_cond_callback() -> tuple[Made, list[float]]:
    log: list[float] = []

    def record(v):
        log.append(float(v))

    def f(x):
        def positive(x):
            io_callback(record, None, x)  # host_callback.call in the report
            return x + 1.0

        return lax.cond(x > 0, positive, lambda x: x - 1.0, x)

    return (f, (jnp.float32(1.0),), {}), log


def _check_cond_callback() -> bool:
    (fn, _, _), log = _build_cond_callback()
    xs = jnp.array([1.0, -1.0])
    for x in xs:
        jax.block_until_ready(fn(x))
    jax.effects_barrier()
    eager_ok = log == [1.0]
    (vfn, _, _), _ = _build_cond_callback()
    return eager_ok and _raises(NotImplementedError, jax.vmap(vfn), xs)


# --- jax-ml/jax#20819: repr of the argument appended to a global list -------------------

_cool: list[str] = []  # placeholder only


def _tmpl_cool(x: Any) -> Any:
    _cool.append(repr(x))
    return x.sum()


def _make_cool() -> Made:
    return _fresh_globals(_tmpl_cool, _cool=[]), (jnp.ones((3, 3)),), {}


def _check_cool() -> bool:
    fn, args, _ = _make_cool()
    fn(*args)
    fn(*args)
    eager = fn.__globals__["_cool"]
    jfn, jargs, _ = _make_cool()
    jitted = jax.jit(jfn)
    jitted(*jargs)
    jitted(*jargs)
    jit = jfn.__globals__["_cool"]
    eager_ok = len(eager) == 2 and all(r.startswith("Array(") for r in eager)
    return eager_ok and len(jit) == 1 and "Trac" in jit[0]


# --- jax-ml/jax#2273: assert on a value inside a jitted function ------------------------


def _test_nan_assert(x: Any) -> None:
    assert jnp.all(jnp.isfinite(x))


def _make_nan_assert() -> Made:
    return _copy_function(_test_nan_assert), (jnp.array([1.0, 2.0, 3.0]),), {}


def _check_nan_assert() -> bool:
    fn, args, _ = _make_nan_assert()
    eager_ok = fn(*args) is None and _raises(AssertionError, fn, jnp.array([1.0, jnp.nan]))
    return eager_ok and _raises(jax.errors.ConcretizationTypeError, jax.jit(fn), *args)


# --- asantini29/phentax#28: int(jnp.ceil(...)) and value asserts under jit --------------


class _PhenomTHM:
    def __init__(self, T: float, delta_t: float) -> None:
        self.T = T
        self.delta_t = delta_t

    def initial_processing(self, chi1: Any) -> Any:
        assert jnp.all(jnp.abs(chi1) <= 1.0), "spin magnitude must not exceed 1"
        n_steps = int(jnp.ceil(self.T / self.delta_t))
        return jnp.linspace(0.0, self.T, n_steps) * jnp.sum(chi1)


def _make_phenom() -> Made:
    return _PhenomTHM(T=1.0, delta_t=0.25).initial_processing, (jnp.array([0.1, 0.2]),), {}


def _check_phenom() -> bool:
    fn, args, _ = _make_phenom()
    eager_ok = fn(*args).shape == (4,)
    return eager_ok and _raises(jax.errors.ConcretizationTypeError, jax.jit(fn), *args)


# --- patrick-kidger/equinox#45: a BatchNorm keeps its running mean in a host cache ------


def _build_host_batchnorm() -> Made:
    cache: dict[int, Any] = {}
    shape = jax.ShapeDtypeStruct((), jnp.float32)

    def _get_state(i):
        return np.asarray(cache[int(i)], dtype=np.float32)

    def _set_state(i, v):
        cache[int(i)] = np.asarray(v)

    def get_state(i):  # hcb.call in the thread
        return io_callback(_get_state, shape, i, ordered=True)

    def set_state(i, v):
        io_callback(_set_state, None, i, lax.stop_gradient(v), ordered=True)

    mean_index = 1
    set_state(mean_index, jnp.zeros((), jnp.float32))
    momentum = 0.99

    def forward(x):
        running_mean = (1 - momentum) * jnp.mean(x) + momentum * get_state(mean_index)
        set_state(mean_index, running_mean)
        return x - running_mean

    return forward, (jnp.ones(3),), {}


def _check_host_batchnorm() -> bool:
    fn, args, _ = _build_host_batchnorm()
    e1, e2 = fn(*args), fn(*args)
    jfn, jargs, _ = _build_host_batchnorm()
    jitted = jax.jit(jfn)
    j1, j2 = jitted(*jargs), jitted(*jargs)
    jax.effects_barrier()
    return not _same(e1, e2) and _same(e1, j1) and _same(e2, j2)


# --- jax-ml/jax#4618: print(x) and print(repr(x)) in a jitted function ------------------


def _print_both(x: Any) -> Any:
    print(x)
    print(repr(x))
    return x


def _make_print_both() -> Made:
    return _copy_function(_print_both), (3.14,), {}


def _check_print_both() -> bool:
    fn, args, _ = _make_print_both()
    eager = _printed(fn, *args)
    jfn, jargs, _ = _make_print_both()
    jitted = jax.jit(jfn)
    first, second = _printed(jitted, *jargs), _printed(jitted, *jargs)
    return eager.count("3.14") == 2 and "Trac" in first and "3.14" not in first and second == ""


# ======================================================================================
# PURE CASES
# ======================================================================================

# --- jax-ml/jax#14597 (the fix): the gamma draw uses key_g -----------------------------


def _student_t_fixed(key: Any, df: Any) -> Any:
    key_n, key_g = jax.random.split(key)
    n = jax.random.normal(key_n, (4,))
    half_df = df / 2.0
    g = jax.random.gamma(key_g, half_df, (4,))
    return n * jnp.sqrt(half_df / g)


def _make_student_t_fixed() -> Made:
    return _copy_function(_student_t_fixed), (jax.random.key(0), jnp.float32(3.0)), {}


# --- google-deepmind/mujoco_playground#349 (the fix): a split key for each draw --------


def _finger_reset_fixed(rng: Any) -> Any:
    rng, rng1, rng2 = jax.random.split(rng, 3)
    qpos = jax.random.uniform(rng1, (2,), minval=-jnp.pi, maxval=jnp.pi)
    spinner = jax.random.uniform(rng2, (), minval=-jnp.pi, maxval=jnp.pi)
    return jnp.concatenate([qpos, spinner[None]]), rng


def _make_finger_reset_fixed() -> Made:
    return _copy_function(_finger_reset_fixed), (jax.random.key(1),), {}


# --- p-doom/jasmine#214 (the review's request): separate keys for level and noise ------


def _dynamics_noise_fixed(rng: Any, vid_embed: Any) -> Any:
    rng, _rng_level, _rng_noise = jax.random.split(rng, 3)
    noise_level = jax.random.uniform(_rng_level, shape=(2,), minval=0.0, maxval=0.7)
    noise = jax.random.normal(_rng_noise, shape=vid_embed.shape)
    return vid_embed + noise_level[:, None] * noise, rng


def _make_dynamics_noise_fixed() -> Made:
    return _copy_function(_dynamics_noise_fixed), (jax.random.key(2), jnp.zeros((2, 3))), {}


# --- pyro-ppl/numpyro#263 (the fix): the handler splits before handing out a key -------


def _make_split_then_seed() -> Made:
    return _seeded_model(True), (jax.random.key(3),), {}


# --- google-deepmind/dm-haiku#585: next_rng_key is a function of the key passed in ------


class _RngSequence:
    """Like hk.PRNGSequence inside hk.transform: built from the key given to apply."""

    def __init__(self, key: Any) -> None:
        self._key = key

    def next_rng_key(self) -> Any:
        self._key, subkey = jax.random.split(self._key)
        return subkey


def _dropout_apply(params: Any, key: Any, x: Any) -> Any:
    rng = _RngSequence(key)
    keep = jax.random.bernoulli(rng.next_rng_key(), 0.5, x.shape)
    return jnp.where(keep, x / 0.5, 0.0) + params["bias"]


def _make_dropout_apply() -> Made:
    return (
        _copy_function(_dropout_apply),
        ({"bias": jnp.zeros(4)}, jax.random.key(42)),
        {"x": jnp.ones(4)},
    )


def _check_dropout_apply() -> bool:
    fn, (params, key), kwargs = _make_dropout_apply()
    different = not _same(fn(params, jax.random.key(123), **kwargs), fn(params, key, **kwargs))
    return different and _pure_without_key_reuse(_make_dropout_apply)()


# --- QuantEcon/lecture-jax#159: sort returns a new array --------------------------------


def _sorted_copy(a: Any) -> Any:
    b = a.sort()
    return a, b


def _make_sorted_copy() -> Made:
    return _copy_function(_sorted_copy), (jnp.array([2, 1]),), {}


def _check_sorted_copy() -> bool:
    fn, args, _ = _make_sorted_copy()
    a, b = fn(*args)
    unchanged = _same(a, np.array([2, 1])) and _same(b, np.array([1, 2]))
    return unchanged and _check_pure(_make_sorted_copy)


# --- tud-phi/soromox#152 (the fix): validate under ensure_compile_time_eval -------------


def _potential_force_fixed(theta: Any) -> Any:
    params = _GVS_PARAMS._replace(base_pose=jnp.array([0.0, 0.0, 1.0]) * theta)
    with jax.ensure_compile_time_eval():
        _validate_against_structure(params._replace(base_pose=_GVS_PARAMS.base_pose))
    return jnp.sum(params.lengths) * jnp.sin(params.base_pose[2])


def _make_potential_force_fixed() -> Made:
    return _copy_function(_potential_force_fixed), (jnp.float32(0.5),), {}


# --- ucl-dark/pax#26 (the fix): the scan returns the metrics ---------------------------


def _run_loop_with_metrics(params: Any, batches: Any) -> Any:
    def step(p, batch):
        loss, grad = jax.value_and_grad(lambda q: jnp.mean(jnp.square(q - batch)))(p)
        return p - 0.1 * grad, {"loss": loss}

    return lax.scan(step, params, batches)


def _make_run_loop_with_metrics() -> Made:
    return _copy_function(_run_loop_with_metrics), (jnp.zeros(2), jnp.ones((3, 2))), {}


# --- google/flax#4695 (the maintainers' advice): the optimizer state is an input -------


def _functional_update(params: Any, step: Any, key: Any, data: Any) -> Any:
    def loss_fn(p):
        noise = 0.01 * jax.random.normal(key, data.shape)
        return jnp.sum(jnp.square(p["w"] * data + noise))

    grads = jax.grad(loss_fn)(params)
    new_params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
    return new_params, step + 1


def _make_functional_update() -> Made:
    args = ({"w": jnp.ones(3)}, jnp.int32(0), jax.random.PRNGKey(0), jnp.ones(3))
    return _copy_function(_functional_update), args, {}


# --- jax-ml/jax#15136 (jakevdp's option 2): don't modify self, return the params --------


def _opt_step(param: Any, data: Any, labels: Any) -> Any:
    grads = jax.grad(_DenseNet.loss)(param, data, labels)
    return [(w - 0.1 * dw, b - 0.1 * db) for (w, b), (dw, db) in zip(param, grads, strict=True)]


def _make_opt_step() -> Made:
    trainer = _Trainer()
    return _copy_function(_opt_step), (trainer.nn.param, trainer.data, trainer.labels), {}


# --- jax-ml/jax#33050: a function that only uses a Ref internally -----------------------


def _internal_ref(x: Any) -> Any:
    x_ref = jax.new_ref(jnp.zeros_like(x))
    x_ref[...] = x
    x_ref[...] += jnp.sin(x)
    return x_ref[...]


def _make_internal_ref() -> Made:
    return _copy_function(_internal_ref), (jnp.float32(1.0),), {}


def _check_internal_ref() -> bool:
    fn, args, _ = _make_internal_ref()
    grad = float(jax.grad(fn)(*args))
    return abs(grad - (1.0 + math.cos(1.0))) < 1e-6 and _check_pure(_make_internal_ref)


# --- jax-ml/jax#3974: a jitted function closes over a constant built once --------------

_y_const: Any = None  # placeholder only


def _tmpl_jax_fn(x: Any) -> Any:
    y2 = _y_const @ _y_const
    return jnp.sum(y2) * x


def _make_jax_fn() -> Made:
    y = jax.random.randint(jax.random.PRNGKey(0), (4, 4), 0, 100)
    return _fresh_globals(_tmpl_jax_fn, _y_const=y), (jnp.float32(2.0),), {}


# --- pyro-ppl/numpyro#1753 (the fix): a new seed handler for every call -----------------


def _seeded_model_fn(data: Any) -> Any:
    return _Seed(_noisy_model, jax.random.PRNGKey(0))(data)


def _make_seeded_model_fn() -> Made:
    return _copy_function(_seeded_model_fn), (jnp.ones(3),), {}


def _check_seeded_model_fn() -> bool:
    fn, args, _ = _make_seeded_model_fn()
    batched = jax.jit(jax.vmap(fn))(jnp.ones((2, 3)))
    return batched.shape == (2,) and _check_pure(_make_seeded_model_fn)


# --- jax-ml/jax#2273: return the check instead of asserting it --------------------------


def _test_nan_return(x: Any) -> Any:
    return jnp.all(jnp.isfinite(x))


def _make_nan_return() -> Made:
    return _copy_function(_test_nan_return), (jnp.array([1.0, jnp.inf, 3.0]),), {}


def _check_nan_return() -> bool:
    fn, args, _ = _make_nan_return()
    return not bool(jax.jit(fn)(*args)) and _check_pure(_make_nan_return)


# --- asantini29/phentax#28 (the fix): math.ceil on Python floats, asserts skipped -------


class _PhenomTHMFixed(_PhenomTHM):
    def initial_processing(self, chi1: Any) -> Any:
        if not isinstance(chi1, jax.core.Tracer):
            assert jnp.all(jnp.abs(chi1) <= 1.0), "spin magnitude must not exceed 1"
        n_steps = math.ceil(self.T / self.delta_t)
        return jnp.linspace(0.0, self.T, n_steps) * jnp.sum(chi1)


def _make_phenom_fixed() -> Made:
    return _PhenomTHMFixed(T=1.0, delta_t=0.25).initial_processing, (jnp.array([0.1, 0.2]),), {}


# ======================================================================================
# The corpus.
# ======================================================================================

CASES: list[Case] = [
    # ---------------------------------------------------------------- impure cases
    Case(
        id="redefined-global-helper-cached-trace",
        source="jax-ml/jax#28225",
        impure=True,
        kinds=("stale-global",),
        why="After mock_fn is rebound, a new jax.jit(mock_fn_vec) still returns the old "
        "result while the plain call uses the new helper; the report was closed as a "
        "question, the trace being cached on mock_fn_vec (new kind: stale-global).",
        make=_make_mock_fn_vec,
        check=_check_mock_fn_vec,
        versions=BOTH,
    ),
    Case(
        id="vmapped-cond-debug-print",
        source="jax-ml/jax#19314",
        impure=True,
        kinds=("callback-count",),
        why="jakevdp: behaving as expected, a vmapped cond becomes a select, so the "
        "jax.debug.print in the branch prints for every element, not only those meeting the "
        "condition (new kind: callback-count).",
        make=_make_select_u,
        check=_check_select_u,
        versions=BOTH,
    ),
    Case(
        id="linesearch-diagnostic-under-vmap",
        source="google/jaxopt#555",
        impure=True,
        kinds=("callback-count",),
        why="ZoomLineSearch under vmap ends up calling failure_diagnostic() even when "
        "safe_stepsize > 0: the lax.cond guarding the print becomes a select (new kind: "
        "callback-count).",
        make=_make_zoom_step,
        check=_check_zoom_step,
        versions=BOTH,
    ),
    Case(
        id="solver-warnings-only-under-vmap",
        source="google/jaxopt#589",
        impure=True,
        kinds=("callback-count",),
        why="Run directly the solver prints no warnings; inside a vmap it spams the line "
        "search's warnings, printed from a vmapped conditional (new kind: callback-count).",
        make=_make_bfgs_iterations,
        check=_check_bfgs_iterations,
        versions=BOTH,
    ),
    Case(
        id="gp-fit-caches-k-on-self",
        source="jax-ml/jax#5344",
        impure=True,
        kinds=("argument-mutation", "leaked-tracer"),
        why="The reporter caches K and the data on self in fit and notes that JIT requires "
        "no operations on variables outside the function; jitting fit 'results in a tracer "
        "error' when predict reads self.K.",
        make=_make_gp_fit,
        check=_check_gp_fit,
        versions=BOTH,
    ),
    Case(
        id="student-t-gamma-reuses-normal-key",
        source="jax-ml/jax#14597",
        impure=True,
        kinds=("key-reuse",),
        why="Student's t sampling uses the same key for the normal and the gamma draws "
        "(key_g is unused); jakevdp: that looks like a bug (new kind: key-reuse).",
        make=_make_student_t,
        check=_check_student_t,
        versions=BOTH,
    ),
    Case(
        id="finger-reset-one-key-two-draws",
        source="google-deepmind/mujoco_playground#349",
        impure=True,
        kinds=("key-reuse",),
        why="Finger resets reused one key for joint positions and the spinner angle, an "
        "unintended correlation the PR removes, verified with jax.debug_key_reuse (new kind: "
        "key-reuse).",
        make=_make_finger_reset,
        check=_check_finger_reset,
        versions=BOTH,
    ),
    Case(
        id="global-counter-counts-traces",
        source="pyro-ppl/numpyro#602",
        impure=True,
        kinds=("global-assignment",),
        why="my_fn increments the global my_fn_calls, which counts compilations, not calls "
        "(fehiepsi: the tip of using a global variable to detect re-compilation); eagerly it "
        "counts every step.",
        make=_make_my_fn,
        check=_check_my_fn,
        versions=BOTH,
    ),
    Case(
        id="global-ref-written-under-grad",
        source="jax-ml/jax#26361",
        impure=True,
        kinds=("container-mutation", "mode-mismatch"),
        why="f writes its input to a global mutable array; it runs eagerly, but under "
        "jit(grad(f)) the write of a differentiated value raises (new kind: mode-mismatch).",
        make=lambda: _build_global_ref_write()[0],
        check=_check_global_ref_write,
        versions=BOTH,
    ),
    Case(
        id="custom-jvp-reads-global-ref",
        source="jax-ml/jax#27470",
        impure=True,
        kinds=("hidden-state", "mode-mismatch"),
        why="A custom_jvp f reads a global mutable array and writes sum(x) into it, so two "
        "calls with one input differ (new kind: hidden-state); under jit it raises (new "
        "kind: mode-mismatch).",
        make=_build_custom_jvp_ref,
        check=_check_custom_jvp_ref,
        versions=BOTH,
    ),
    Case(
        id="static-self-opt-assigns-params",
        source="jax-ml/jax#15136",
        impure=True,
        kinds=("argument-mutation", "leaked-tracer"),
        why="jakevdp: you are JIT-compiling an impure function; opt modifies self (self.param "
        "= ...) inside a jitted method while marking self static, so self.param holds tracers.",
        make=_make_trainer_opt,
        check=_check_trainer_opt,
        versions=BOTH,
    ),
    Case(
        id="remat-increments-argument-ref",
        source="jax-ml/jax#33050",
        impure=True,
        kinds=("argument-mutation", "remat-mutation"),
        why="With external refs the semantics of remat are ambiguous: do we want the effect "
        "once, or every time the function is re-run? The PR wants 2.0; here grad of the "
        "remat function runs the increment twice (3.0), eagerly once.",
        make=_make_remat_increment,
        check=_check_remat_increment,
        versions=BOTH,
    ),
    Case(
        id="static-self-bakes-physics-params",
        source="climate-analytics-lab/jax-gcm#735",
        impure=True,
        kinds=("trace-time-read", "stale-result"),
        why="Because self is static, the physics parameters are baked into the executable, "
        "and a parameter edited in place never reaches the computation: the run silently "
        "returns the values it was built with.",
        make=_make_model_run,
        check=_check_model_run,
        versions=BOTH,
    ),
    Case(
        id="positive-real-check-under-jit",
        source="thomaspinder/GPJax#495",
        impure=True,
        kinds=("mode-mismatch",),
        why="Jitting over kernel parameters fails with TracerBoolConversionError because of "
        "the if statement in the new PositiveReal parameter class; the same code runs "
        "eagerly (new kind: mode-mismatch).",
        make=_make_gram,
        check=_check_gram,
        versions=BOTH,
    ),
    Case(
        id="untouched-params-validated-under-jit",
        source="tud-phi/soromox#152",
        impure=True,
        kinds=("mode-mismatch",),
        why="Updating base_pose inside jax.jit fails with ConcretizationTypeError in "
        "validate_against_structure, which checks unchanged parameter arrays by value; it "
        "works eagerly (new kind: mode-mismatch).",
        make=_make_potential_force,
        check=_check_potential_force,
        versions=BOTH,
    ),
    Case(
        id="io-callback-in-vmapped-while",
        source="jax-ml/jax#20726",
        impure=True,
        kinds=("mode-mismatch",),
        why="mattjj: batching a while_loop with a batched predicate runs extra iterations "
        "for finished elements, fine for pure bodies but not with side effects, so an "
        "io_callback in the body raises under vmap (new kind: mode-mismatch).",
        make=lambda: _build_io_loop()[0],
        check=_check_io_loop,
        versions=BOTH,
    ),
    Case(
        id="static-self-reassigned-fn",
        source="jax-ml/jax#9023",
        impure=True,
        kinds=("trace-time-read", "stale-result"),
        why="wrapper is jitted with a static self and calls self.fn; after assign_fn the "
        "jitted wrapper still returns 2. jakevdp: a static argument is re-evaluated only if "
        "its hash changes, and the hash does not change when fn is updated.",
        make=_make_wrapper,
        check=_check_wrapper,
        versions=BOTH,
    ),
    Case(
        id="optimizer-updated-in-jit-closure",
        source="google/flax#4695",
        impure=True,
        kinds=("container-mutation", "leaked-tracer"),
        why="Optimizer.update called in a jax.jit closure over self updates the model's "
        "params in place, and reading the state afterwards raises UnexpectedTracerError; "
        "mutating objects across the jit boundary introduces tracer leakage.",
        make=lambda: _build_algorithm_update()[0],
        check=_check_algorithm_update,
        versions=BOTH,
    ),
    Case(
        id="logger-keeps-scanned-metrics",
        source="ucl-dark/pax#26",
        impure=True,
        kinds=("container-mutation", "leaked-tracer"),
        why="Since jitting the train loop with lax.scan, Agent2 logs traced arrays that "
        "cannot be sent to Wandb: update stores its loss in the logger's metrics dict.",
        make=lambda: _build_agent_scan()[0],
        check=_check_agent_scan,
        versions=BOTH,
    ),
    Case(
        id="noise-level-and-noise-share-key",
        source="p-doom/jasmine#214",
        impure=True,
        kinds=("key-reuse",),
        why="The review on the noise sampling: _rng_noise draws both the noise level and the "
        "noise, 'Do not reuse rng keys.' (new kind: key-reuse).",
        make=_make_dynamics_noise,
        check=_check_dynamics_noise,
        versions=BOTH,
    ),
    Case(
        id="seed-handler-splits-a-used-key",
        source="pyro-ppl/numpyro#263",
        impure=True,
        kinds=("key-reuse",),
        why="fehiepsi: the seed handler gives self.rng to the sample and then splits it, but "
        "msg['fn'] may split that key itself (as StudentT does), so keys are reused (new "
        "kind: key-reuse).",
        make=_make_seed_then_split,
        check=_check_seed_then_split,
        versions=BOTH,
    ),
    Case(
        id="aliased-ref-passed-to-vmap",
        source="jax-ml/jax#29433",
        impure=True,
        kinds=("argument-mutation", "mode-mismatch"),
        why="f writes m2 into its argument m1; passing one mutable array twice to vmap with "
        "different axes does not match the loop semantics, and the PR now refuses it (new "
        "kind: mode-mismatch).",
        make=_make_copy_ref,
        check=_check_copy_ref,
        versions=BOTH,
    ),
    Case(
        id="backward-pass-stashes-grads",
        source="jax-ml/jax#39438",
        impure=True,
        kinds=("argument-mutation",),
        why="The documented stash_grads pattern: the custom_vjp's backward rule writes the "
        "gradient into grads_ref, an argument; calling f leaves it at 0, grad(f) fills it.",
        make=_make_stash_sin,
        check=_check_stash_sin,
        versions=BOTH,
    ),
    Case(
        id="closed-over-key-drawn-every-call",
        source="jax-ml/jax#20704",
        impure=True,
        kinds=("key-reuse",),
        why="jakevdp: a jitted f draws bits from a closed-over key; the second f() should "
        "error under jax_debug_key_reuse but didn't, as every call reuses the key (new kind: "
        "key-reuse).",
        make=_build_closed_key,
        check=_check_closed_key,
        versions=BOTH,
    ),
    Case(
        id="global-ref-written-every-call",
        source="jax-ml/jax#26354",
        impure=True,
        kinds=("container-mutation",),
        why="f writes 7 into a global mutable array on every call (the report's repro, run "
        "ahead of time through lower and compile).",
        make=lambda: _build_global_ref_seven()[0],
        check=_check_global_ref_seven,
        versions=BOTH,
    ),
    Case(
        id="seeded-instance-reused-in-vmap",
        source="pyro-ppl/numpyro#1753",
        impure=True,
        kinds=("container-mutation", "leaked-tracer"),
        why="fehiepsi: seed(model) is an instance of a seed class which has mutable state; "
        "reused under jit and vmap it keeps a traced key, and the fix builds a new seed "
        "handler on each call.",
        make=lambda: _build_seeded_instance()[0],
        check=_check_seeded_instance,
        versions=BOTH,
    ),
    Case(
        id="side-effect-branch-in-vmapped-cond",
        source="jax-ml/jax#7199",
        impure=True,
        kinds=("mode-mismatch",),
        why="'vmap of cond does not work when the branches are not side-effect-free': the "
        "callback branch (host_callback.call in the report, io_callback here) runs eagerly "
        "but raises under vmap (new kind: mode-mismatch).",
        make=lambda: _build_cond_callback()[0],
        check=_check_cond_callback,
        versions=BOTH,
    ),
    Case(
        id="repr-appended-to-global-list",
        source="jax-ml/jax#20819",
        impure=True,
        kinds=("container-mutation",),
        why="mattjj's example f appends repr(x) to the global list cool: under jit it records "
        "a tracer's repr, once for two calls, where the eager calls record two arrays.",
        make=_make_cool,
        check=_check_cool,
        versions=BOTH,
    ),
    Case(
        id="assert-finite-under-jit",
        source="jax-ml/jax#2273",
        impure=True,
        kinds=("mode-mismatch",),
        why="assert np.all(np.isfinite(x)) works without jit but not under jit; hawkinsp: "
        "working as intended, the assert is control flow on a traced value (new kind: "
        "mode-mismatch).",
        make=_make_nan_assert,
        check=_check_nan_assert,
        versions=BOTH,
    ),
    Case(
        id="int-of-jnp-ceil-under-jit",
        source="asantini29/phentax#28",
        impure=True,
        kinds=("mode-mismatch",),
        why="Inside jax.jit, int(jnp.ceil(T / delta_t)) and the spin-bound assert raise "
        "ConcretizationTypeError: jnp.ceil returns a tracer; the call works eagerly (new "
        "kind: mode-mismatch).",
        make=_make_phenom,
        check=_check_phenom,
        versions=BOTH,
    ),
    Case(
        id="batchnorm-mean-in-host-cache",
        source="patrick-kidger/equinox#45",
        impure=True,
        kinds=("hidden-state",),
        why="The infeed/outfeed BatchNorm keeps its running mean in a host-side cache dict "
        "read and written through callbacks (hcb.call there, io_callback here), so one input "
        "gives a new output on every call (new kind: hidden-state).",
        make=_build_host_batchnorm,
        check=_check_host_batchnorm,
        versions=BOTH,
    ),
    Case(
        id="print-tracer-under-jit",
        source="jax-ml/jax#4618",
        impure=True,
        kinds=("trace-time-print",),
        why="print(x) and print(repr(x)) in a jitted f print Traced<float32[]> and the "
        "tracer's repr while tracing, and nothing on later calls.",
        make=_make_print_both,
        check=_check_print_both,
        versions=BOTH,
    ),
    # ------------------------------------------------------------------ pure cases
    Case(
        id="student-t-separate-keys",
        source="jax-ml/jax#14597",
        impure=False,
        kinds=(),
        why="The fix the report proposes and jakevdp accepts: g = gamma(key_g, ...), so each "
        "draw has its own key.",
        make=_make_student_t_fixed,
        check=_pure_without_key_reuse(_make_student_t_fixed),
        versions=BOTH,
    ),
    Case(
        id="finger-reset-split-keys",
        source="google-deepmind/mujoco_playground#349",
        impure=False,
        kinds=(),
        why="The PR's fix: each random draw receives a distinct split key.",
        make=_make_finger_reset_fixed,
        check=_pure_without_key_reuse(_make_finger_reset_fixed),
        versions=BOTH,
    ),
    Case(
        id="noise-level-own-key",
        source="p-doom/jasmine#214",
        impure=False,
        kinds=(),
        why="What the review asks for: separate keys for the noise level and the noise.",
        make=_make_dynamics_noise_fixed,
        check=_pure_without_key_reuse(_make_dynamics_noise_fixed),
        versions=BOTH,
    ),
    Case(
        id="seed-handler-splits-first",
        source="pyro-ppl/numpyro#263",
        impure=False,
        kinds=(),
        why="The PR: self.rng, rng_sample = random.split(self.rng), so the sample's key is "
        "never split again by the handler.",
        make=_make_split_then_seed,
        check=_pure_without_key_reuse(_make_split_then_seed),
        versions=BOTH,
    ),
    Case(
        id="next-rng-key-from-apply-key",
        source="google-deepmind/dm-haiku#585",
        impure=False,
        kinds=(),
        why="tomhennigan: hk.next_rng_key() is fully deterministic, split from the key passed "
        "to apply; the same key gives the same dropout mask, a different key a different one.",
        make=_make_dropout_apply,
        check=_check_dropout_apply,
        versions=BOTH,
    ),
    Case(
        id="sort-returns-new-array",
        source="QuantEcon/lecture-jax#159",
        impure=False,
        kinds=(),
        why="Suspected of sorting in place; kp992 shows a.sort() returns the sorted array "
        "and leaves a unchanged.",
        make=_make_sorted_copy,
        check=_check_sorted_copy,
        versions=BOTH,
    ),
    Case(
        id="validation-at-compile-time",
        source="tud-phi/soromox#152",
        impure=False,
        kinds=(),
        why="The proposed fix wraps the failing validation in jax.ensure_compile_time_eval, "
        "so the structure check runs on concrete values and the update jits.",
        make=_make_potential_force_fixed,
        check=_pure(_make_potential_force_fixed),
        versions=BOTH,
    ),
    Case(
        id="scan-returns-metrics",
        source="ucl-dark/pax#26",
        impure=False,
        kinds=(),
        why="The PR exposes the logger metrics to the runner: the scanned step returns them, "
        "so concrete values come out.",
        make=_make_run_loop_with_metrics,
        check=_pure(_make_run_loop_with_metrics),
        versions=BOTH,
    ),
    Case(
        id="optimizer-state-as-input",
        source="google/flax#4695",
        impure=False,
        kinds=(),
        why="The maintainers' solution: have the optimizer (its state) as an input of the "
        "transformed function and its update as an output, not mutated from a closure.",
        make=_make_functional_update,
        check=_pure(_make_functional_update),
        versions=BOTH,
    ),
    Case(
        id="opt-returns-params",
        source="jax-ml/jax#15136",
        impure=False,
        kinds=(),
        why="jakevdp's option: don't modify self within the jit-compiled function; the step "
        "takes the params and returns the new ones.",
        make=_make_opt_step,
        check=_pure(_make_opt_step),
        versions=BOTH,
    ),
    Case(
        id="ref-used-only-internally",
        source="jax-ml/jax#33050",
        impure=False,
        kinds=(),
        why="mattjj: functions that only internally use refs are pure; the Ref is created, "
        "written and read inside the function.",
        make=_make_internal_ref,
        check=_check_internal_ref,
        versions=BOTH,
    ),
    Case(
        id="closure-over-constant-array",
        source="jax-ml/jax#3974",
        impure=False,
        kinds=(),
        why="mattjj's recommended pattern: code you don't want staged out moves outside the "
        "jitted function and is reached by lexical closure; the constant is never rebound.",
        make=_make_jax_fn,
        check=_pure(_make_jax_fn),
        versions=BOTH,
    ),
    Case(
        id="seed-handler-per-call",
        source="pyro-ppl/numpyro#1753",
        impure=False,
        kinds=(),
        why="fehiepsi's fix: close the seeded model into a function, so each call creates a "
        "new instance of the seed handler.",
        make=_make_seeded_model_fn,
        check=_check_seeded_model_fn,
        versions=BOTH,
    ),
    Case(
        id="return-finite-check",
        source="jax-ml/jax#2273",
        impure=False,
        kinds=(),
        why="The report's working variant: return np.all(np.isfinite(x)) under jit.",
        make=_make_nan_return,
        check=_check_nan_return,
        versions=BOTH,
    ),
    Case(
        id="ceil-on-python-floats",
        source="asantini29/phentax#28",
        impure=False,
        kinds=(),
        why="The PR's fix: math.ceil keeps the step count on concrete Python floats, and the "
        "spin assertions are skipped while tracing.",
        make=_make_phenom_fixed,
        check=_pure(_make_phenom_fixed),
        versions=BOTH,
    ),
]


def _first_half_by_hash(ids: list[str]) -> list[str]:
    return sorted(ids, key=lambda i: hashlib.sha256(i.encode()).hexdigest())[: len(ids) // 2]


# The held-out rule, fixed before any case was looked at: within each group (impure, pure),
# sort the case ids by hashlib.sha256(id.encode()).hexdigest() and take the first half,
# rounded down.
HELD_OUT: frozenset[str] = frozenset(
    _first_half_by_hash([case.id for case in CASES if case.impure])
    + _first_half_by_hash([case.id for case in CASES if not case.impure])
)


validate(CASES, (*KINDS, *NEW_KINDS))
