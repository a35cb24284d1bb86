"""A fourth corpus of impure and pure JAX functions: transformations and compiled code.

How, when and by whom: collected on 2026-12-06, in one sitting, by a helper that had not seen
``check_pure``'s score on any case (nor read ``jaxpurity/`` or ``scorers/``, nor imported
``jaxpurity``, nor run any of its tools while collecting), from public GitHub threads and web
pages that no other file of this repository cites (each source was grepped for before use).
Every label was decided from what the thread or page says the code does wrong, or why it is
fine, before ``check()`` was written; ``check()`` then shows the label with JAX and NumPy alone.

The area of this file is transformations and compiled code: arguments written in place or
donated, Python state read at trace time and baked into the compiled program, side effects in
the bodies of ``lax.cond`` and ``lax.fori_loop`` that run once per trace rather than once per
step, and Python containers whose hidden state a transformation does not see.

The format is the one of :mod:`purity_corpus` (its :class:`Case`, its ``KINDS``) and of
:mod:`purity_corpus_unseen` (its ``NEW_KINDS``): ``make`` builds fresh state and returns
``(fn, args, kwargs)``, ``check`` returns ``True`` when the label holds, ``versions`` are the
JAX versions on which ``check()`` was seen ``True``.

Where a thread's code used something that is not observable from a test (a profiler trace
annotation), the reduction puts a recording stand-in of the same shape in its place, and the
case's ``why`` says so.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from purity_corpus import (
    KINDS,
    Case,
    Made,
    _copy_function,
    _is_tracer,
    _pure,
    _raises,
    _same,
    validate,
)
from purity_corpus_unseen import NEW_KINDS as UNSEEN_NEW_KINDS

__all__ = ["CASES"]

OLD = "0.10.2"
NEW = "0.12.0.1"
BOTH = (OLD, NEW)


# ======================================================================================
# IMPURE CASES
# ======================================================================================

# --- https://crackedaicode.com/problems/jax-jit-donate-argnums: reading donated params ----


def _sgd_step(params: Any, grads: Any) -> Any:
    return params - grads


def _make_donated_update() -> Made:
    update = jax.jit(_copy_function(_sgd_step), donate_argnums=(0,))
    return update, (jnp.ones((4,)), jnp.full((4,), 0.01)), {}


def _check_donated_update() -> bool:
    fn, (params, grads), _ = _make_donated_update()
    fn.__wrapped__(params, grads)  # the same step without jit leaves params alone
    eager_kept = not params.is_deleted() and _same(params, np.ones(4))
    jfn, (jparams, jgrads), _ = _make_donated_update()
    new = jfn(jparams, jgrads)
    read_again = _raises(RuntimeError, np.asarray, jparams)
    return eager_kept and _same(new, np.full(4, 0.99)) and jparams.is_deleted() and read_again


# --- jax-ml/jax#3103: lax.cond runs the Python bodies of both branches -------------------


def _build_cond_branches() -> tuple[Made, list[Any]]:
    log: list[Any] = []

    def positive(x):
        log.append(x)  # a side effect the author expected on one branch only
        return x * 2

    def negative(x):
        log.append(x)
        return -x

    def f(x):
        return lax.cond(x > 0, positive, negative, x)

    return (f, (jnp.float32(2.0),), {}), log


def _closure(fn: Callable[..., Any]) -> dict[str, Any]:
    cells = (cell.cell_contents for cell in fn.__closure__ or ())
    return dict(zip(fn.__code__.co_freevars, cells, strict=True))


def _check_cond_branches() -> bool:
    (fn, (x,), _), log = _build_cond_branches()
    out = fn(x)
    (pfn, _, _), py_log = _build_cond_branches()
    branches = _closure(pfn)
    py_out = branches["positive"](x) if x > 0 else branches["negative"](x)  # a Python if
    return (
        float(out) == 4.0
        and len(log) == 2
        and all(_is_tracer(v) for v in log)
        and float(py_out) == 4.0
        and len(py_log) == 1
        and not _is_tracer(py_log[0])
    )


# --- jax-ml/jax#11930: a step annotation in a fori_loop body is recorded for step 0 only --


def _build_step_annotation() -> tuple[Made, list[Any]]:
    steps: list[Any] = []

    @contextlib.contextmanager
    def step_trace_annotation(name, step_num):  # stands in for jax.profiler.StepTraceAnnotation
        steps.append(step_num)
        yield

    def body_func(i, val):
        with step_trace_annotation("body function step", step_num=i):
            val *= i + 1
            return val

    def factorial(n):
        return lax.fori_loop(0, n, body_func, 1)

    return (factorial, (10,), {}), steps


def _check_step_annotation() -> bool:
    (fn, args, _), steps = _build_step_annotation()
    out = int(fn(*args))
    (pfn, _, _), py_steps = _build_step_annotation()
    body_func = _closure(pfn)["body_func"]
    val = 1
    for i in range(10):  # the loop the author meant: one annotation per step
        val = body_func(i, val)
    return (
        out == 3628800
        and len(steps) == 1
        and _is_tracer(steps[0])
        and val == out
        and py_steps == list(range(10))
    )


# --- jax-ml/jax#1328: writing the result into an out= buffer argument ---------------------


def _exp_into(b: Any, out: Any) -> Any:
    np.exp(b, out=out)  # NumPy fills the caller's buffer in place
    return out


def _make_exp_into() -> Made:
    return _copy_function(_exp_into), (jnp.ones(2), np.zeros(2)), {}


def _check_exp_into() -> bool:
    fn, (b, out), _ = _make_exp_into()
    fn(b, out)
    eager_wrote = bool(np.allclose(out, np.e))
    jfn, jargs, _ = _make_exp_into()
    return eager_wrote and _raises(jax.errors.TracerArrayConversionError, jax.jit(jfn), *jargs)


# --- jax-ml/jax#8419: concatenating a dict's values in insertion order -------------------


def _concat_features(input_dict: dict[str, Any]) -> Any:
    return jnp.concatenate(list(input_dict.values()), axis=0)


def _make_concat_features() -> Made:
    return _copy_function(_concat_features), ({"b": np.array([0, 1]), "a": np.array([2, 3])},), {}


def _check_concat_features() -> bool:
    fn, args, _ = _make_concat_features()
    jfn, jargs, _ = _make_concat_features()
    eager, jitted = fn(*args), jax.jit(jfn)(*jargs)
    return _same(eager, np.array([0, 1, 2, 3])) and _same(jitted, np.array([2, 3, 0, 1]))


# --- jax-ml/jax#4720: a static argument mutated after the first call ----------------------


class _Scale:
    """Hashable by identity (object's default), and mutable."""

    def __init__(self, factor: float) -> None:
        self.factor = factor


def _scaled(x: Any, scale: _Scale) -> Any:
    return x * scale.factor


def _make_scaled() -> Made:
    return jax.jit(_copy_function(_scaled), static_argnums=1), (jnp.ones(2), _Scale(2.0)), {}


def _check_scaled() -> bool:
    fn, (x, scale), _ = _make_scaled()
    first = fn(x, scale)
    scale.factor = 3.0
    again = fn(x, scale)  # same object, same hash: the cached trace is reused
    live = fn.__wrapped__(x, scale)
    return _same(first, 2 * np.ones(2)) and _same(again, first) and _same(live, 3 * np.ones(2))


# --- jax-ml/jax#4085: jit flattens a dict with sorted keys, so "the first key" changes -----


def _first_value(x: dict[str, Any]) -> Any:
    first_key = next(iter(x))
    return x[first_key]


def _make_first_value() -> Made:
    return _copy_function(_first_value), ({"b": jnp.float32(2.0), "a": jnp.float32(1.0)},), {}


def _check_first_value() -> bool:
    fn, args, _ = _make_first_value()
    jfn, jargs, _ = _make_first_value()
    return float(fn(*args)) == 2.0 and float(jax.jit(jfn)(*jargs)) == 1.0


# ======================================================================================
# PURE CASES
# ======================================================================================

# --- https://crackedaicode.com/problems/jax-jit-donate-argnums: no donation, old kept -----


def _make_kept_update() -> Made:
    return jax.jit(_copy_function(_sgd_step)), (jnp.ones((4,)), jnp.full((4,), 0.01)), {}


# --- jax-ml/jax#3103: lax.cond with branches that only compute ---------------------------


def _cond_compute(x: Any) -> Any:
    return lax.cond(x > 0, lambda y: y * 2, lambda y: -y, x)


def _make_cond_compute() -> Made:
    return _copy_function(_cond_compute), (jnp.float32(2.0),), {}


# --- jax-ml/jax#11930: the same fori_loop factorial without the annotation ---------------


def _factorial(n: Any) -> Any:
    def body_func(i, val):
        return val * (i + 1)

    return lax.fori_loop(0, n, body_func, 1)


def _make_factorial() -> Made:
    return _copy_function(_factorial), (10,), {}


# --- jax-ml/jax#3094: a Python list built inside one scan step, returned as ys -----------


def _unrolled_scan(xs: Any) -> Any:
    def body(carry, x_chunk):
        ys = []
        for x in x_chunk:  # a local list, built and consumed inside one step
            carry = carry + x
            ys.append(carry)
        return carry, jnp.stack(ys)

    return lax.scan(body, jnp.float32(0.0), xs)


def _make_unrolled_scan() -> Made:
    return _copy_function(_unrolled_scan), (jnp.arange(6.0).reshape(3, 2),), {}


# --- nissymori/JAX-CORL#59: a hashable, frozen config passed as a static argument --------


@dataclasses.dataclass(frozen=True)
class _Config:
    lr: float = 0.1


def _sgd_with_config(params: Any, grads: Any, config: _Config) -> Any:
    return params - config.lr * grads


def _make_config_step() -> Made:
    step = jax.jit(_copy_function(_sgd_with_config), static_argnums=2)
    return step, (jnp.ones(3), jnp.ones(3), _Config(0.1)), {}


def _check_config_step() -> bool:
    fn, (params, grads, config), _ = _make_config_step()
    before = np.array(params)
    eager = fn.__wrapped__(params, grads, config)
    first, second = fn(params, grads, config), fn(params, grads, config)
    other = fn(params, grads, _Config(0.5))  # a new value is a new cache key, not stale
    return (
        _same(eager, first)
        and _same(first, second)
        and _same(first, np.full(3, 0.9))
        and _same(other, np.full(3, 0.5))
        and _same(params, before)
    )


CASES: list[Case] = [
    Case(
        id="donated-params-read-after-call",
        source="https://crackedaicode.com/problems/jax-jit-donate-argnums",
        impure=True,
        kinds=("argument-mutation",),
        why="The page's pitfall: after a donated call the Python object bound to that argument "
        "is invalidated and reading it raises 'Array has been deleted'; the undonated step "
        "leaves the caller's params readable (argument-mutation is the nearest kind).",
        make=_make_donated_update,
        check=_check_donated_update,
        versions=BOTH,
    ),
    Case(
        id="cond-runs-both-branch-bodies",
        source="jax-ml/jax#3103",
        impure=True,
        kinds=("container-mutation", "callback-count"),
        why="mattjj: lax.cond applies both Python branch functions to tracers to build their "
        "jaxprs, so Python side effects in the branches (his example: print) happen for both; "
        "here each branch appends its operand, and both tracers land in the list.",
        make=lambda: _build_cond_branches()[0],
        check=_check_cond_branches,
        versions=BOTH,
    ),
    Case(
        id="step-annotation-once-in-fori-loop",
        source="jax-ml/jax#11930",
        impure=True,
        kinds=("callback-count", "leaked-tracer"),
        why="The report: a StepTraceAnnotation inside a fori_loop body shows up for step 0 only, "
        "not for steps 1..9; the body's Python runs once, when the loop is traced. The profiler "
        "annotation is replaced by a recording context manager of the same shape.",
        make=lambda: _build_step_annotation()[0],
        check=_check_step_annotation,
        versions=BOTH,
    ),
    Case(
        id="numpy-out-buffer-under-jit",
        source="jax-ml/jax#1328",
        impure=True,
        kinds=("argument-mutation", "mode-mismatch"),
        why="The thread compares NumPy's out= (which fills the caller's buffer in place) with "
        "jax.numpy; mattjj: the out argument of NumPy functions is on JAX's 'don't use' list. "
        "The NumPy version writes its argument eagerly and cannot be traced under jit.",
        make=_make_exp_into,
        check=_check_exp_into,
        versions=BOTH,
    ),
    Case(
        id="dict-values-concat-order",
        source="jax-ml/jax#8419",
        impure=True,
        kinds=("jit-eager-mismatch",),
        why="The report: the jitted counterpart concatenates a dict's values in a different "
        "order, because jit flattens the dict with sorted keys and drops the insertion order "
        "the eager function reads (jakevdp points to #4085).",
        make=_make_concat_features,
        check=_check_concat_features,
        versions=BOTH,
    ),
    Case(
        id="mutated-identity-hashed-static-arg",
        source="jax-ml/jax#4720",
        impure=True,
        kinds=("trace-time-read", "stale-result"),
        why="The PR documents that static_argnums values should be immutable: the object is "
        "hashed into the cache key, so changing its attribute after the first call reuses the "
        "trace that read the old value.",
        make=_make_scaled,
        check=_check_scaled,
        versions=BOTH,
    ),
    Case(
        id="dict-first-key-under-jit",
        source="jax-ml/jax#4085",
        impure=True,
        kinds=("jit-eager-mismatch",),
        why="jakevdp's first_value example: pytree flattening inside jit sorts the dict's keys, "
        "so a function that reads the dict's insertion order returns a different value under "
        "jit than eagerly.",
        make=_make_first_value,
        check=_check_first_value,
        versions=BOTH,
    ),
    Case(
        id="update-without-donation",
        source="https://crackedaicode.com/problems/jax-jit-donate-argnums",
        impure=False,
        kinds=(),
        why="The page: don't donate if you need the old value; the jitted update without "
        "donate_argnums returns new params and leaves the old ones intact.",
        make=_make_kept_update,
        check=_pure(_make_kept_update),
        versions=BOTH,
    ),
    Case(
        id="cond-branches-only-compute",
        source="jax-ml/jax#3103",
        impure=False,
        kinds=(),
        why="Both branches are traced, but with no Python side effects in them only the "
        "selected branch's computation runs, as mattjj explains.",
        make=_make_cond_compute,
        check=_pure(_make_cond_compute),
        versions=BOTH,
    ),
    Case(
        id="fori-loop-factorial",
        source="jax-ml/jax#11930",
        impure=False,
        kinds=(),
        why="The report's factorial without the annotation: the fori_loop body only computes, "
        "so tracing it once is all it needs.",
        make=_make_factorial,
        check=_pure(_make_factorial),
        versions=BOTH,
    ),
    Case(
        id="local-list-in-scan-step",
        source="jax-ml/jax#3094",
        impure=False,
        kinds=(),
        why="The thread's unrolled inner loop: appending to a list inside the scan body works "
        "when the list is local to the step and is stacked into the step's output.",
        make=_make_unrolled_scan,
        check=_pure(_make_unrolled_scan),
        versions=BOTH,
    ),
    Case(
        id="frozen-config-static-arg",
        source="nissymori/JAX-CORL#59",
        impure=False,
        kinds=(),
        why="The PR makes the config hashable (frozen) so it can be a static argument of "
        "jax.jit; a different config is a different cache key, never a stale trace.",
        make=_make_config_step,
        check=_check_config_step,
        versions=BOTH,
    ),
]


validate(CASES, (*KINDS, *UNSEEN_NEW_KINDS))
