"""check_pure: each detector flags its impurity, passes a pure look-alike, and stays in budget."""

from __future__ import annotations

import functools
import itertools
import random
import re
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxpurity
from jaxpurity import _jax_compat as compat
from jaxpurity._pages import page

# ----------------------------------------------------------------- state the cases touch

saved: list[Any] = []
history: list[int] = []
calls = 0
initialised = False
SCALE = 2.0


class Model:
    def __init__(self) -> None:
        self.calls = 0
        self.scale = 2.0


def make_counter() -> Callable[[jax.Array], jax.Array]:
    n = 0

    def step(x: jax.Array) -> jax.Array:
        nonlocal n
        n += 1
        return x * n

    return step


def make_constant_closure() -> Callable[[jax.Array], jax.Array]:
    n = 2.0

    def step(x: jax.Array) -> jax.Array:
        return x * n

    return step


@pytest.fixture(autouse=True)
def _reset_state() -> Any:
    global calls, initialised
    yield
    saved.clear()
    history.clear()
    calls = 0
    initialised = False


# ----------------------------------------------------------------- impure cases and look-alikes


def leaks(x: jax.Array) -> jax.Array:
    saved.append(x)
    return x * 2


def keeps_a_local_list(x: jax.Array) -> jax.Array:
    local = [x]
    return local[0] * 2


def counts_in_a_global(x: jax.Array) -> jax.Array:
    global calls
    calls += 1
    return x * 2


def reads_a_global(x: jax.Array) -> jax.Array:
    return x * SCALE


def appends_to_a_global(x: jax.Array) -> jax.Array:
    history.append(1)
    return x * 2


def copies_a_global(x: jax.Array) -> jax.Array:
    mine = list(history)
    mine.append(1)
    return x * len(mine)


def prints(x: jax.Array) -> jax.Array:
    print("x =", x)
    return x * 2


def debug_prints(x: jax.Array) -> jax.Array:
    jax.debug.print("x = {}", x)
    return x * 2


def numpy_noise(x: jax.Array) -> jax.Array:
    return x + np.random.normal()


def python_noise(x: jax.Array) -> jax.Array:
    return x + random.random()


def jax_noise(x: jax.Array) -> jax.Array:
    return x + jax.random.normal(jax.random.key(0), x.shape)


def tracer_dependent(x: jax.Array) -> jax.Array:
    return x * (2.0 if isinstance(x, jax.core.Tracer) else 1.0)


def where_dependent(x: jax.Array) -> jax.Array:
    return jnp.where(x > 0, x * 2.0, x)


def initialises_lazily(x: jax.Array) -> jax.Array:
    """The first call (the first trace) sees the flag unset; later ones see it set."""
    global initialised
    out = x * 2.0 if initialised else x
    initialised = True
    return out


def mutates_argument(model: Model, x: jax.Array) -> jax.Array:
    model.calls += 1
    return x * 2


def reads_argument(model: Model, x: jax.Array) -> jax.Array:
    return x * model.scale


@dataclass(frozen=True)
class Case:
    kind: str
    impure: Callable[..., Any]
    pure: Callable[..., Any]
    transforms: tuple[str, ...]  # where the detector applies
    topic: str
    with_model: bool = False  # the function takes a Model first
    topic_under: dict[str, str] = field(default_factory=dict)  # another page per transform

    def page(self, transform: str) -> str:
        return page(self.topic_under.get(transform, self.topic))


CASES = [
    Case(
        "leaked-tracer",
        leaks,
        keeps_a_local_list,
        ("jit", "grad", "vmap"),
        "global_counter",
        topic_under={"grad": "leak_from_grad_vmap", "vmap": "leak_from_grad_vmap"},
    ),
    Case(
        "global-assignment",
        counts_in_a_global,
        reads_a_global,
        ("jit", "grad", "vmap"),
        "global_counter",
    ),
    Case(
        "closure-assignment",
        make_counter,
        make_constant_closure,
        ("jit", "grad", "vmap"),
        "global_counter",
    ),
    Case(
        "container-mutation",
        appends_to_a_global,
        copies_a_global,
        ("jit", "grad", "vmap"),
        "global_counter",
    ),
    Case(
        "argument-mutation",
        mutates_argument,
        reads_argument,
        ("jit", "grad", "vmap"),
        "leak_through_self",
        with_model=True,
    ),
    Case("trace-time-print", prints, debug_prints, ("jit", "grad", "vmap"), "print_vs_debug_print"),
    Case("frozen-randomness", numpy_noise, jax_noise, ("jit", "grad", "vmap"), "frozen_randomness"),
    Case("frozen-randomness", python_noise, jax_noise, ("jit",), "frozen_randomness"),
    # Under grad and vmap the eager call sees tracers too, so the two agree: jit only.
    Case("jit-eager-mismatch", tracer_dependent, where_dependent, ("jit",), "global_config"),
    Case(
        "stale-result",
        initialises_lazily,
        where_dependent,
        ("jit", "grad", "vmap"),
        "global_config",
    ),
]
IDS = [f"{c.kind}-{c.impure.__name__}" for c in CASES]


def _prepare(
    case: Case, fn: Callable[..., Any], transform: str
) -> tuple[Callable[..., Any], tuple]:
    """The function to check and its arguments, with the transformation applied."""
    if fn in (make_counter, make_constant_closure):
        fn = fn()
    if case.with_model:  # fn(model, x): the model is an argument passed through untraced
        wrapped = {
            "jit": lambda: jax.jit(fn, static_argnums=0),
            "grad": lambda: jax.grad(lambda m, x: fn(m, x).sum(), argnums=1),
            "vmap": lambda: jax.vmap(fn, in_axes=(None, 0)),
        }[transform]()
        return wrapped, (Model(), jnp.ones((2, 3)) if transform == "vmap" else jnp.ones(3))
    if transform == "jit":
        return jax.jit(fn), (jnp.ones(3),)
    if transform == "grad":
        return jax.grad(lambda x: fn(x).sum()), (jnp.ones(3),)
    return jax.vmap(fn), (jnp.ones((2, 3)),)


_APPLIES = [(c, t) for c in CASES for t in c.transforms]


@pytest.mark.parametrize(
    ("case", "transform"), _APPLIES, ids=[f"{c.kind}-{c.impure.__name__}-{t}" for c, t in _APPLIES]
)
def test_check_pure_flags_the_impurity(case: Case, transform: str) -> None:
    fn, args = _prepare(case, case.impure, transform)
    report = jaxpurity.check_pure(fn, *args)
    assert not report.ok
    found = [p for p in report.problems if p.kind == case.kind]
    assert found, str(report)
    assert all(p.page == case.page(transform) for p in found)


@pytest.mark.parametrize(
    ("case", "transform"), _APPLIES, ids=[f"{c.kind}-{c.pure.__name__}-{t}" for c, t in _APPLIES]
)
def test_check_pure_passes_the_pure_look_alike(case: Case, transform: str) -> None:
    fn, args = _prepare(case, case.pure, transform)
    report = jaxpurity.check_pure(fn, *args)
    assert report.ok, str(report)
    assert report.problems == []


def test_jit_eager_mismatch_is_what_jax_really_computes() -> None:
    x = jnp.ones(3)
    assert not np.allclose(jax.jit(tracer_dependent)(x), tracer_dependent(x))
    assert np.allclose(jax.jit(where_dependent)(x), where_dependent(x))
    [problem] = jaxpurity.check_pure(tracer_dependent, x).problems
    assert problem.kind == "jit-eager-mismatch"
    assert str(tracer_dependent(x).tolist()) in problem.message
    assert str(jax.jit(tracer_dependent)(x).tolist()) in problem.message


def mlp_training_step(params: dict, batch: jax.Array) -> dict:
    """A pure training step of matrix products: SGD on a three-layer MLP."""

    def loss(params: dict) -> jax.Array:
        h = batch
        for w in params["layers"]:
            h = jnp.tanh(h @ w)
        return jnp.mean((h - 0.5) ** 2)

    grads = jax.grad(loss)(params)
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)


def test_a_pure_matmul_heavy_training_step_passes_on_the_default_backend() -> None:
    """On a TPU, float32 products run at its default (lower) precision, and the eager run
    (one program per operation) and the compiled one (fused) round differently: still
    pure, still ok. The same step made impure is still caught."""
    keys = jax.random.split(jax.random.key(0), 4)
    params = {"layers": [jax.random.normal(k, (256, 256)) / 16 for k in keys[:3]]}
    batch = jax.random.normal(keys[3], (128, 256))
    report = jaxpurity.check_pure(mlp_training_step, params, batch)
    assert report.ok and not report.problems, str(report)

    def step_reading_a_global(params: dict, batch: jax.Array) -> dict:
        return mlp_training_step(params, batch * scale)

    global scale
    scale = 1.0
    report = jaxpurity.check_pure(step_reading_a_global, params, batch)
    assert report.ok, str(report)  # a constant global: no different result anywhere
    scale = 1.5
    jitted = jax.jit(step_reading_a_global)
    jitted(params, batch)  # traced with 1.5
    scale = 1.0
    assert [p.kind for p in jaxpurity.check_pure(jitted, params, batch).problems] == [
        "stale-result"
    ]


scale = 1.0


def test_stale_result_is_what_a_cached_jit_really_returns() -> None:
    global initialised
    x = jnp.ones(3)
    cached = jax.jit(initialises_lazily)
    first = cached(x)  # traced while the flag was unset
    assert cached(x).tolist() == first.tolist()  # the cache answers with the old trace
    assert jax.jit(lambda y: initialises_lazily(y))(x).tolist() != first.tolist()  # a fresh one
    initialised = False
    report = jaxpurity.check_pure(initialises_lazily, x)
    assert [p.kind for p in report.problems] == ["global-assignment", "stale-result"]


def test_check_pure_leaves_an_argument_a_cached_jit_wrapper_donates_alive() -> None:
    step = jax.jit(lambda p, g: p - 0.1 * g, donate_argnums=0)
    step(jnp.zeros(3), jnp.ones(3))  # now it has a compiled program, called as it is
    params = jnp.zeros(3)
    report = jaxpurity.check_pure(step, params, jnp.ones(3))
    assert report.ok, report
    assert not params.is_deleted()
    assert params.tolist() == [0.0, 0.0, 0.0]


MODE = "cap"


def postprocess(x: jax.Array) -> jax.Array:
    """Reads two module settings: their values at trace time are baked into the program."""
    y = x * SCALE
    return jnp.minimum(y, 1.0) if MODE == "cap" else y


def postprocess_fixed(x: jax.Array, scale: float, mode: str) -> jax.Array:
    y = x * scale
    return jnp.minimum(y, 1.0) if mode == "cap" else y


class Scaler:
    def __init__(self) -> None:
        self.scale = 2.0

    @functools.partial(jax.jit, static_argnums=0)  # self hashes by identity: a changed
    def apply(self, x: jax.Array) -> jax.Array:  # attribute keeps the old program
        return x * self.scale


def _scale_by(x: jax.Array, settings: _Settings) -> jax.Array:
    return x * settings.scale


@pytest.mark.parametrize("how", ["function", "bound method", "partial"])
def test_check_pure_finds_the_stale_program_a_jit_cache_serves(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    x = jnp.array([0.25, 0.75])
    if how == "function":
        fast, plain = jax.jit(postprocess), postprocess
        fast(x)
        monkeypatch.setitem(globals(), "SCALE", 0.5)
        monkeypatch.setitem(globals(), "MODE", "none")
    elif how == "bound method":
        scaler = Scaler()
        fast, plain = scaler.apply, functools.partial(Scaler.apply.__wrapped__, scaler)
        fast(x)
        scaler.scale = 0.5
    else:  # a partial of a jitted function binds its static argument: the cache answers
        settings = _Settings(2.0)
        fast = functools.partial(jax.jit(_scale_by, static_argnames="settings"), settings=settings)
        plain = functools.partial(_scale_by, settings=settings)
        fast(x)
        settings.scale = 0.5
    served, now = fast(x).tolist(), plain(x).tolist()
    assert served != now  # JAX's cache answers with the program traced before the change
    report = jaxpurity.check_pure(fast, x)
    assert [p.kind for p in report.problems] == ["stale-result"], str(report)
    [stale] = report.problems
    assert f"returned {served}, but a fresh trace now returned {now}" in stale.message
    assert "traced when the Python state it reads" in stale.message
    assert stale.page == page("global_config")
    assert (report.traces, report.runs) == (3, 1)


def test_check_pure_reports_numbers_a_cached_program_drew_once() -> None:
    """The cached program holds numbers drawn at its trace: frozen-randomness, not stale too."""
    fast = jax.jit(numpy_noise)
    fast(jnp.ones(3))
    report = jaxpurity.check_pure(fast, jnp.ones(3))
    assert [p.kind for p in report.problems] == ["frozen-randomness"], str(report)


def test_check_pure_passes_a_jit_cache_that_takes_the_settings_as_arguments() -> None:
    x = jnp.array([0.25, 0.75])
    fast = jax.jit(postprocess_fixed, static_argnames="mode")
    fast(x, 2.0, mode="cap")
    fast(x, 0.5, mode="none")
    report = jaxpurity.check_pure(fast, x, 0.5, mode="none")
    assert report.ok, str(report)
    assert (report.traces, report.runs) == (3, 1)


def test_results_in_messages_are_rounded_as_jax_computes_them() -> None:
    x = jnp.full(2, 0.1)  # float32 0.1 is 0.10000000149011612 as a Python float
    [problem] = jaxpurity.check_pure(tracer_dependent, x).problems
    eager = [round(v, 4) for v in tracer_dependent(x).tolist()]
    jitted = [round(v, 4) for v in jax.jit(tracer_dependent)(x).tolist()]
    assert f"eagerly it returned {eager}, but jax.jit(tracer_dependent) returned {jitted}" in (
        problem.message
    )
    assert "0000" not in problem.message


def test_check_pure_reports_a_jax_error_naming_the_function_argument_and_page() -> None:
    def relu(x: jax.Array) -> jax.Array:
        return x if x > 0 else 0.0 * x

    with pytest.raises(jax.errors.TracerBoolConversionError) as from_jax:
        jax.jit(relu)(jnp.float32(1.0))
    [found] = jaxpurity.check_pure(relu, jnp.float32(1.0)).problems
    assert found.kind == "mode-mismatch"  # it runs eagerly: jit is the mode that breaks
    assert "runs eagerly, but under jax.jit it raises TracerBoolConversionError" in found.message
    where = next(ln for ln in str(from_jax.value).splitlines() if "error occurred" in ln)
    assert where.strip() in found.message  # JAX's words: the function, the argument x
    assert found.page == jaxpurity.explain(from_jax.value).page


def test_check_pure_reports_the_users_own_error_while_traced_and_leaves_state() -> None:
    saved: list[Any] = []

    def save_host_copy(x: jax.Array) -> jax.Array:
        saved.append(x)
        return jnp.asarray(np.asarray(x) * 2)  # NumPy on a tracer: the user's bug

    with pytest.raises(jax.errors.TracerArrayConversionError) as from_jax:
        jax.jit(save_host_copy)(jnp.ones(2))
    saved.clear()
    report = jaxpurity.check_pure(save_host_copy, jnp.ones(2))
    assert [p.kind for p in report.problems] == ["mode-mismatch"], str(report)
    assert report.problems[0].page == jaxpurity.explain(from_jax.value).page
    assert saved == []  # what the failed trace stored is put back


def test_an_unexpected_tracer_error_while_traced_is_a_leaked_tracer_problem() -> None:
    def f(x: jax.Array) -> jax.Array:
        kept = None

        def g(y: jax.Array) -> jax.Array:
            nonlocal kept
            kept = y  # jax-ml/jax#2048: the jvp tracer escapes its transformation
            return y * 2

        jax.jvp(g, (x,), (x,))
        return kept + x  # used after jvp ended

    with pytest.raises(jax.errors.UnexpectedTracerError):
        jax.jit(f)(jnp.float32(1.0))  # plain JAX
    # 0.4.35 raises while check_pure traces (a trace-error of kind leaked-tracer); 0.12.0.1
    # raises later, and the watched trace finds the leak: a leaked tracer either way
    kinds = [p.kind for p in jaxpurity.check_pure(f, jnp.float32(1.0)).problems]
    assert kinds == ["leaked-tracer"], kinds  # no stale-result from the leak's own program


def test_check_pure_reads_a_returned_leaked_tracer_as_an_outcome_not_a_crash() -> None:
    cache: dict[str, Any] = {}

    def doubled(x: jax.Array) -> jax.Array:
        if "y" not in cache:
            cache["y"] = x * 2  # the trace stores its tracer; the eager run returns it
        return cache["y"]

    jax.jit(doubled)(jnp.ones(2))
    with pytest.raises(jax.errors.TracerArrayConversionError):
        np.asarray(doubled(jnp.ones(2)))  # plain JAX: what the check must not trip over
    cache.clear()
    kinds = [p.kind for p in jaxpurity.check_pure(doubled, jnp.ones(2)).problems]
    assert "leaked-tracer" in kinds and "jit-eager-mismatch" in kinds, kinds
    assert cache == {}


# ----------------------------------------------------------------- jax.new_ref state

needs_new_ref = pytest.mark.skipif(not hasattr(jax, "new_ref"), reason="JAX has no jax.new_ref")
count_ref: Any = None  # a jax.Ref, set by the tests that use it


def _ref_case(place: str) -> tuple[Callable[..., Any], tuple[Any, ...], Any]:
    """A function that bumps a Ref it reaches through ``place``, its arguments, and the Ref."""
    global count_ref
    ref = jax.new_ref(jnp.int32(5))
    x = jnp.float32(2.0)
    if place == "argument":

        def bump(ref: Any, x: jax.Array) -> jax.Array:
            ref[...] += 1
            return x * ref[...]

        return jax.jit(bump), (ref, x), ref
    if place == "closure":

        def step(x: jax.Array) -> jax.Array:
            ref[...] += 1
            return x * ref[...]

        return jax.jit(step), (x,), ref
    if place == "global":
        count_ref = ref

        def global_step(x: jax.Array) -> jax.Array:
            count_ref[...] += 1
            return x * count_ref[...]

        return global_step, (x,), ref

    class Counter:
        def __init__(self) -> None:
            self.ref = ref

        def step(self, x: jax.Array) -> jax.Array:
            self.ref[...] += 1
            return x * self.ref[...]

    return Counter().step, (x,), ref


@needs_new_ref
@pytest.mark.parametrize("cached", [False, True], ids=["fresh", "jit-cached"])
@pytest.mark.parametrize("place", ["argument", "closure", "global", "attribute"])
def test_check_pure_starts_each_run_from_the_same_ref_values(place: str, cached: bool) -> None:
    fn, args, ref = _ref_case(place)
    if cached:
        fn = jax.jit(fn)
        fn(*args)
    before = int(ref[...])
    assert float(fn(*args)) != float(fn(*args))  # each call really bumps the Ref
    assert int(ref[...]) == before + 2
    report = jaxpurity.check_pure(fn, *args)
    assert report.ok, str(report)
    assert int(ref[...]) == before + 2  # left as it was


@needs_new_ref
def test_check_pure_still_flags_a_trace_counter_next_to_a_ref() -> None:
    ref = jax.new_ref(jnp.int32(0))

    def ref_step(x: jax.Array) -> jax.Array:
        global calls
        calls += 1
        ref[...] += 1
        return x * ref[...]

    report = jaxpurity.check_pure(jax.jit(ref_step), jnp.float32(2.0))
    assert [p.kind for p in report.problems] == ["global-assignment"], str(report)


def test_leak_into_an_argument_points_at_the_self_page() -> None:
    class Holder:
        def keep(self, x: jax.Array) -> jax.Array:
            self.kept = x
            return x

    [problem] = jaxpurity.check_pure(Holder().keep, jnp.ones(3)).problems
    assert problem.kind == "leaked-tracer"
    assert "argument `self`" in problem.message
    assert problem.page == page("leak_through_self")


@functools.lru_cache
def window(n: int) -> jax.Array:
    return jnp.arange(n) / n


def test_leak_into_an_lru_cache_points_at_the_memoization_page() -> None:
    window.cache_clear()
    report = jaxpurity.check_pure(lambda x: x * window(x.shape[0]), jnp.ones(3))
    # The check cleared the cache that held its tracer: the caller's next call computes.
    assert not isinstance(window(3), jax.core.Tracer)
    window.cache_clear()
    leak = report.problems[0]
    assert leak.kind == "leaked-tracer"
    assert leak.page == page("memoization_caches")
    # Later traces hit the cached tracer: JAX's UnexpectedTracerError, named in the report.
    [stale] = [p for p in report.problems if p.kind == "stale-result"]
    assert "raised UnexpectedTracerError" in stale.message


window_cache: dict[int, jax.Array] = {}
by_length: dict[int, jax.Array] = {}


def taper_with_a_cache(x: jax.Array) -> jax.Array:
    n = x.shape[0]
    if n not in window_cache:
        window_cache[n] = jnp.arange(n) / n
    return x * window_cache[n]


def taper_by_length(x: jax.Array) -> jax.Array:
    n = x.shape[0]
    if n not in by_length:
        by_length[n] = jnp.arange(n) / n
    return x * by_length[n]


@pytest.mark.parametrize(
    ("fn", "store", "topic"),
    [
        (taper_with_a_cache, window_cache, "memoization_caches"),
        (taper_by_length, by_length, "global_counter"),
    ],
    ids=["named-cache", "other-name"],
)
def test_leak_into_a_dict_named_as_a_cache_points_at_the_memoization_page(
    fn: Callable[..., Any], store: dict[int, jax.Array], topic: str
) -> None:
    store.clear()
    report = jaxpurity.check_pure(fn, jnp.ones(3))
    store.clear()
    [leak] = [p for p in report.problems if p.kind == "leaked-tracer"]
    assert leak.page == page(topic)


def test_state_changes_name_the_variable_and_values() -> None:
    report = jaxpurity.check_pure(counts_in_a_global, jnp.ones(3))
    [problem] = report.problems
    assert "global `calls`" in problem.message
    assert "from 0 to 1" in problem.message
    report = jaxpurity.check_pure(make_counter(), jnp.ones(3))
    assert "closure variable `n` of `step`" in report.problems[0].message
    model = Model()
    [problem] = jaxpurity.check_pure(mutates_argument, model, jnp.ones(3)).problems
    assert "argument `model`" in problem.message
    assert "attribute `calls` went from 0 to 1" in problem.message


def test_trace_time_print_is_quoted_and_not_shown(capsys: pytest.CaptureFixture[str]) -> None:
    report = jaxpurity.check_pure(prints, jnp.ones(3))
    assert capsys.readouterr().out == ""
    [problem] = report.problems
    assert "'x = " in problem.message


# ----------------------------------------------------------------- budget and bookkeeping


def _body_count(
    fn: Callable[..., Any],
) -> tuple[Callable[..., Any], list[None], Callable[[], int]]:
    """``fn`` counting its runs: in a list (state check_pure watches and puts back), and in
    an itertools.count, which it cannot put back: ``runs()`` says how many there were."""
    ran: list[None] = []
    tick = itertools.count()

    def counted(x: jax.Array) -> jax.Array:
        ran.append(None)
        next(tick)
        return fn(x)

    return counted, ran, lambda: int(repr(tick)[len("count(") : -1])


@pytest.mark.parametrize(
    "fn",
    [where_dependent, counts_in_a_global, leaks, numpy_noise],
    ids=lambda fn: fn.__name__,
)
def test_check_pure_runs_the_body_four_times(fn: Callable[..., Any]) -> None:
    """The budget: the watched trace, a fresh jit, vmap; vjp where the program holds what
    differentiation treats otherwise (a callback, a while loop, a checkpoint, a rule of the
    user's, a Ref); the key-reuse checker's trace where it draws random numbers; one eager
    run, and one more to compare effects where it calls back to Python. Measured here, with
    none of those: 3 traces and 1 run."""
    counted, ran, runs = _body_count(fn)
    report = jaxpurity.check_pure(counted, jnp.ones(3))
    assert (report.traces, report.runs) == (3, 1)
    assert runs() == 4
    assert ran == []  # what the runs appended is put back
    assert "traced 3 times, run eagerly 1 time(s)" in str(report)


@pytest.mark.parametrize(
    ("cached_shape", "traces"), [(None, 3), ((3,), 3), ((2,), 4)], ids=["empty", "hit", "miss"]
)
def test_check_pure_calls_a_jit_wrapper_within_budget(
    cached_shape: tuple[int, ...] | None, traces: int
) -> None:
    """A jit wrapper with programs is called as it is: answered from its cache, or (another
    shape cached) traced once more, and counted. An empty cache is not called."""
    counted, ran, runs = _body_count(where_dependent)
    fast = jax.jit(counted)
    if cached_shape is not None:
        fast(jnp.ones(cached_shape))
    ran.clear()
    before = runs()
    report = jaxpurity.check_pure(fast, jnp.ones(3))
    assert [p.kind for p in report.problems] == ["container-mutation"], str(report)  # `ran`
    assert (report.traces, report.runs) == (traces, 1)
    assert runs() - before == report.traces + report.runs
    assert ran == []


def test_check_pure_leaves_the_random_streams_as_they_were() -> None:
    np.random.seed(0)
    random.seed(0)
    expected = (np.random.normal(), random.random())
    np.random.seed(0)
    random.seed(0)
    jaxpurity.check_pure(numpy_noise, jnp.ones(3))
    jaxpurity.check_pure(python_noise, jnp.ones(3))
    assert (np.random.normal(), random.random()) == expected


def test_check_pure_names_a_generator_held_in_a_closure() -> None:
    rng = np.random.default_rng(0)

    def noisy(x: jax.Array) -> jax.Array:
        return x + rng.normal()

    state = rng.bit_generator.state
    [problem] = jaxpurity.check_pure(noisy, jnp.ones(3)).problems
    assert problem.kind == "frozen-randomness"
    assert "closure variable `rng` of `noisy`" in problem.message
    assert rng.bit_generator.state == state


def test_check_pure_looks_through_jit() -> None:
    report = jaxpurity.check_pure(jax.jit(counts_in_a_global), jnp.ones(3))
    assert report.function == "counts_in_a_global"
    assert [p.kind for p in report.problems] == ["global-assignment"]


def test_report_reads_as_a_numbered_summary() -> None:
    report = jaxpurity.check_pure(initialises_lazily, jnp.ones(3))
    text = str(report)
    lines = text.splitlines()
    assert lines[0].startswith(f"check_pure(`initialises_lazily`): {len(report.problems)} problem")
    for i, problem in enumerate(report.problems, 1):
        assert f"{i}. [{problem.kind}]" in text
        assert problem.page in text
    pure = str(jaxpurity.check_pure(where_dependent, jnp.ones(3)))
    assert pure == (
        "check_pure(`where_dependent`): no impurity found (traced 3 times, run eagerly 1 time(s))."
    )


SCALE = 2.0  # a global read while traced: a warning, not a problem


def scaled_by_a_global(x: jax.Array) -> jax.Array:
    print("tracing")
    return x * SCALE


def test_report_counts_problems_and_warnings_as_it_lists_them_with_full_addresses() -> None:
    report = jaxpurity.check_pure(scaled_by_a_global, jnp.ones(3))
    assert report.problems and report.warnings, str(report)
    text = str(report)
    head, items = text.splitlines()[0], re.findall(r"^\d+\. \[", text, re.MULTILINE)
    assert f"{len(report.problems)} problem(s) and {len(report.warnings)} warning(s)" in head
    assert len(items) == len(report.problems) + len(report.warnings)
    for found in [*report.problems, *report.warnings]:
        assert found.url.startswith("http") and found.url.endswith(found.page)
        assert f"See {found.url}" in text


def test_clear_cache_is_advised_only_for_a_jitted_function() -> None:
    def advice(fn: Callable[..., Any]) -> list[str]:
        report = jaxpurity.check_pure(fn, jnp.ones(3))
        return [w.message for w in report.warnings if w.kind == "trace-time-read"]

    [plain] = advice(scaled_by_a_global)
    [jitted] = advice(jax.jit(scaled_by_a_global))
    assert "clear_cache()" not in plain and "`SCALE`" in plain
    assert "call the jitted function's clear_cache()" in jitted


def test_find_leaks_raises_what_the_function_raises_when_traced() -> None:
    def branch(x: jax.Array) -> jax.Array:
        return x if x.sum() > 0 else -x

    with pytest.raises(Exception) as from_jax:  # noqa: PT011 - compared by type below
        jax.jit(branch)(jnp.ones(3))
    with pytest.raises(type(from_jax.value)):
        jaxpurity.find_leaks(branch, jnp.ones(3))


# ----------------------------------------------------------------- methods and partials


class RunningMean:
    """Methods jitted with `self` static, the usual recipe for a method under jit."""

    def __init__(self) -> None:
        self.total: Any = 0.0
        self.scale = 2.0

    @functools.partial(jax.jit, static_argnums=0)
    def update(self, x: jax.Array) -> jax.Array:
        self.total = self.total + x
        return self.total

    @functools.partial(jax.jit, static_argnums=0)
    def scaled(self, x: jax.Array) -> jax.Array:
        return x * self.scale

    def plain_update(self, x: jax.Array) -> jax.Array:
        self.total = self.total + x
        return self.total


def _bound(how: str, method: str) -> tuple[RunningMean, Callable[..., Any]]:
    """A fresh RunningMean and one of its bound methods, passed as a user would pass it."""
    obj = RunningMean()
    bound = getattr(obj, method)
    return obj, {"method": bound, "partial": functools.partial(bound), "jit": jax.jit(bound)}[how]


@pytest.mark.parametrize("how", ["method", "partial", "jit"])
@pytest.mark.parametrize("method", ["update", "plain_update"])
def test_check_pure_keeps_self_of_a_bound_method(how: str, method: str) -> None:
    obj, fn = _bound(how, method)
    jax.jit(fn)(jnp.ones(3))
    assert isinstance(obj.total, jax.core.Tracer)  # JAX agrees: the method leaks into self
    obj, fn = _bound(how, method)
    report = jaxpurity.check_pure(fn, jnp.ones(3))
    assert report.function == f"RunningMean.{method}"
    [leak] = [p for p in report.problems if p.kind == "leaked-tracer"]
    assert "argument `self` (a `RunningMean` object), attribute `total`" in leak.message
    assert "self.total = self.total + x" in leak.message
    assert leak.page == page("leak_through_self")


@pytest.mark.parametrize("how", ["method", "partial", "jit"])
def test_check_pure_passes_a_bound_method_that_only_reads_self(how: str) -> None:
    obj, fn = _bound(how, "scaled")
    report = jaxpurity.check_pure(fn, jnp.ones(3))
    assert report.ok, str(report)
    assert report.function == "RunningMean.scaled"
    assert fn(jnp.ones(3)).tolist() == [2.0, 2.0, 2.0]
    assert obj.total == 0.0


def test_check_pure_sees_the_arguments_a_partial_binds() -> None:
    model = Model()
    report = jaxpurity.check_pure(
        functools.partial(jax.jit(mutates_argument, static_argnums=0), model), jnp.ones(3)
    )
    assert [p.kind for p in report.problems] == ["argument-mutation"]
    assert "argument `model`" in report.problems[0].message
    assert jaxpurity.check_pure(functools.partial(reads_argument, Model()), jnp.ones(3)).ok


# ----------------------------------------------------------------- loop bodies JAX has cached


def scan_body(carry: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    saved.append(carry)
    return carry + x, carry


def while_body(carry: jax.Array) -> jax.Array:
    saved.append(carry)
    return carry + 1.0


def fori_body(i: jax.Array, carry: jax.Array) -> jax.Array:
    saved.append(carry)
    return carry + i


def pure_scan_body(carry: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    return carry + x, carry


def below_three(carry: jax.Array) -> jax.Array:
    return carry < 3.0


LOOPS: dict[str, Callable[[jax.Array], jax.Array]] = {
    "scan": lambda xs: jax.lax.scan(scan_body, jnp.float32(0), xs)[0],
    "while_loop": lambda xs: jax.lax.while_loop(below_three, while_body, xs.sum()),
    "fori_loop": lambda xs: jax.lax.fori_loop(0, 3, fori_body, xs.sum()),
    "pure scan": lambda xs: jax.lax.scan(pure_scan_body, jnp.float32(0), xs)[0],
}


def _cached(loop: str) -> Callable[[jax.Array], jax.Array]:
    """The loop, after JAX traced and cached its body: a new jit of it runs no body code."""
    run = LOOPS[loop]
    jax.jit(run)(jnp.ones(3))
    saved.clear()
    jax.jit(lambda xs: run(xs))(jnp.ones(3))
    assert saved == []
    return run


@pytest.mark.parametrize("loop", ["scan", "while_loop", "fori_loop"])
def test_check_pure_finds_a_leak_from_a_loop_body_jax_already_cached(loop: str) -> None:
    run = _cached(loop)
    report = jaxpurity.check_pure(run, jnp.ones(3))
    [leak] = [p for p in report.problems if p.kind == "leaked-tracer"]
    assert "saved.append(carry)" in leak.message
    assert leak.page == page("leak_from_loop_body")
    # Not by clearing JAX's caches: the body is still cached for everyone else.
    saved.clear()
    jax.jit(lambda xs: run(xs))(jnp.ones(3))
    assert saved == []


def test_check_pure_passes_a_pure_loop_body_jax_already_cached() -> None:
    report = jaxpurity.check_pure(_cached("pure scan"), jnp.ones(3))
    assert report.ok, str(report)


# ----------------------------------------------------------------- threads, transformations


def _report_kinds(fn: Callable[..., Any], *args: Any) -> list[str]:
    return [p.kind for p in jaxpurity.check_pure(fn, *args).problems]


@pytest.mark.parametrize("threads", [2, 4])
def test_checks_from_several_threads_give_the_results_of_one_thread(
    threads: int, capsys: pytest.CaptureFixture
) -> None:
    import sys
    import threading

    cases = [(prints, jnp.ones(3)), (leaks, jnp.ones(3)), (where_dependent, jnp.ones(3))]
    cases += [(numpy_noise, jnp.ones(3))]
    cases = cases[:threads]
    alone = [_report_kinds(fn, x) for fn, x in cases]
    saved.clear()
    stdout = sys.stdout
    start = threading.Barrier(threads)
    results: dict[int, list[str]] = {}

    def work(i: int) -> None:
        start.wait()
        fn, x = cases[i]
        results[i] = _report_kinds(fn, x)
        print(f"thread {i} done")

    pool = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert [results[i] for i in range(threads)] == alone
    assert sys.stdout is stdout  # put back, whatever the order the checks ended in
    out = capsys.readouterr().out
    assert sorted(line for line in out.splitlines() if "done" in line) == [
        f"thread {i} done" for i in range(threads)
    ]
    assert saved == []  # no thread's check left a tracer in the shared list


@pytest.mark.parametrize("transform", [jax.jit, jax.vmap, jax.grad], ids=lambda t: t.__name__)
def test_check_pure_inside_a_transformation_says_to_call_it_from_plain_python(transform) -> None:
    def inner(x: jax.Array) -> jax.Array:
        jaxpurity.check_pure(where_dependent, x)
        return x.sum()

    x = jnp.ones(3) if transform is not jax.vmap else jnp.ones((2, 3))
    with pytest.raises(TypeError, match="call it from plain Python"):
        transform(inner)(x)


@pytest.mark.parametrize("context", ["disable_jit", "checking_leaks"])
def test_check_pure_finds_the_same_under_disable_jit_and_checking_leaks(context: str) -> None:
    expected = _report_kinds(counts_in_a_global, jnp.ones(3))
    manager = jax.disable_jit() if context == "disable_jit" else jax.checking_leaks()
    with manager:
        assert _report_kinds(counts_in_a_global, jnp.ones(3)) == expected
    assert "global-assignment" in expected


def test_a_jit_wrappers_static_argument_stays_static() -> None:
    @functools.partial(jax.jit, static_argnames="n")
    def tile(x: jax.Array, n: int) -> jax.Array:
        return jnp.tile(x, n)  # n must be a Python int: traced, this raises

    report = jaxpurity.check_pure(tile, jnp.ones(2), n=3)
    assert report.ok, str(report)


def test_a_jitted_method_of_a_pytree_is_checked_on_a_rebuilt_self() -> None:
    @jax.tree_util.register_pytree_node_class
    class Counter:
        def __init__(self, total: jax.Array) -> None:
            self.total = total

        def tree_flatten(self) -> tuple[tuple[jax.Array], None]:
            return (self.total,), None

        @classmethod
        def tree_unflatten(cls, aux: None, children: tuple[jax.Array]) -> Counter:
            return cls(*children)

        @jax.jit
        def add(self, x: jax.Array) -> jax.Array:
            self.total = self.total + x  # lands on jit's rebuilt copy: the change is lost
            return self.total

    counter = Counter(jnp.zeros(3))
    report = jaxpurity.check_pure(counter.add, jnp.ones(3))
    kinds = [p.kind for p in report.problems]
    assert "lost-mutation" in kinds, str(report)
    assert "leaked-tracer" not in kinds  # real jit leaves no tracer on the caller's object
    assert isinstance(counter.total, jax.Array) and counter.total.tolist() == [0.0] * 3


class _Settings:
    """A static argument: jit keeps the object itself as a key of its cache."""

    def __init__(self, scale: float) -> None:
        self.scale = scale


def _scaled(settings: _Settings, x: jax.Array) -> jax.Array:
    return x * settings.scale


def test_an_attribute_of_a_static_argument_warns_of_a_stale_result() -> None:
    settings = _Settings(2.0)
    scaled = jax.jit(_scaled, static_argnums=0)
    assert scaled(settings, jnp.ones(2)).tolist() == [2.0, 2.0]
    settings.scale = 3.0  # what jit really does: the cached program answers for the old scale
    assert scaled(settings, jnp.ones(2)).tolist() == [2.0, 2.0]

    report = jaxpurity.check_pure(_scaled, settings, jnp.ones(2))
    [warning] = [w for w in report.warnings if "settings.scale" in w.message]
    assert warning.kind == "stale-result" and warning.severity == "warning", str(report)
    assert warning.page == page("static_objects")
    assert "frozen dataclass" in warning.message


class _Sampler:
    def __init__(self, temperature: float, width: int) -> None:
        self.temperature = jnp.float32(temperature)
        self.width = width  # set once, by __init__: a setting, not state

    def anneal(self, temperature: float) -> None:
        self.temperature = jnp.float32(temperature)

    def draw(self, x: jax.Array) -> jax.Array:
        return x[: self.width] / self.temperature


def test_a_jitted_method_reading_what_another_method_sets_warns_of_a_trace_time_read() -> None:
    annealed = _Sampler(1.0, 2)
    draw = jax.jit(annealed.draw)  # its `self` is baked in, with the attributes it reads
    assert draw(jnp.ones(3)).tolist() == [1.0, 1.0]
    annealed.anneal(2.0)
    assert draw(jnp.ones(3)).tolist() == [1.0, 1.0]  # what jit really does: the old temperature

    draw = jax.jit(_Sampler(1.0, 2).draw)  # checked before anything changed it: a warning

    def step(x: jax.Array) -> jax.Array:
        return draw(x) + 1.0

    report = jaxpurity.check_pure(step, jnp.ones(3))
    [warning] = [w for w in report.warnings if w.kind == "trace-time-read"]
    assert "`self.temperature` of `_Sampler.draw`" in warning.message, str(report)
    assert "`_Sampler.anneal` changes it" in warning.message
    assert "self.width" not in str(report)  # only __init__ sets it
    assert not report.problems


class _Clips:
    def __init__(self) -> None:
        self.clips = jnp.arange(10.0)
        self._random = random.Random(3)  # a generator an object holds, not a global

    def pick(self) -> jax.Array:
        return self.clips[self._random.randrange(10)]


def test_a_generator_an_object_holds_is_frozen_randomness_and_is_put_back() -> None:
    clips = _Clips()

    def reset(x: jax.Array) -> jax.Array:
        return x + clips.pick()

    before = clips._random.getstate()
    report = jaxpurity.check_pure(reset, jnp.zeros(()))
    [frozen] = [p for p in report.problems if p.kind == "frozen-randomness"]
    assert "attribute `_random` (a `Random` object)" in frozen.message, str(report)
    assert clips._random.getstate() == before  # the check's draws are taken back


def _loop_with(step_callback: Callable[..., Any]) -> Callable[[float], jax.Array]:
    def body(c: jax.Array, _: None) -> tuple[jax.Array, None]:
        step_callback(c)
        return jnp.sin(c), None

    def run(x: float) -> jax.Array:
        return jax.lax.scan(body, x, xs=None, length=5)[0]

    return run


def test_a_debug_callback_in_a_loop_body_warns_that_grad_may_move_it() -> None:
    steps: list[int] = []

    def count_step(c: jax.Array) -> None:
        jax.debug.callback(lambda: steps.append(1))

    run = _loop_with(count_step)
    jax.block_until_ready(jax.jit(jax.grad(run))(1.0))
    jax.effects_barrier()
    assert len(steps) != 5  # what JAX really does under grad (jax-ml/jax#16637)

    report = jaxpurity.check_pure(run, 1.0)
    [warning] = report.warnings
    assert (warning.kind, warning.severity) == ("dropped-callback", "warning"), str(report)
    assert "jax.debug.callback(<lambda>) in a loop body" in warning.message


def test_a_debug_callback_in_a_checkpoint_warns_that_grad_runs_it_twice() -> None:
    calls: list[float] = []

    def record(v: jax.Array) -> None:
        calls.append(float(v))

    @jax.checkpoint
    def layer(x: jax.Array) -> jax.Array:
        jax.debug.callback(record, x)
        return jnp.sin(x)

    def loss(x: jax.Array) -> jax.Array:
        return 2.0 * layer(x)

    jax.block_until_ready(jax.grad(loss)(1.0))
    jax.effects_barrier()
    assert len(calls) == 2  # plain JAX: once forward, once more in the backward pass

    report = jaxpurity.check_pure(loss, 1.0)
    [warning] = report.warnings
    assert (warning.kind, warning.severity) == ("dropped-callback", "warning"), str(report)
    assert "jax.debug.callback(record) inside jax.checkpoint" in warning.message


def test_a_tracer_formatted_into_a_debug_print_string_is_a_trace_time_print() -> None:
    def show(x: jax.Array) -> jax.Array:
        jax.debug.print(f"x = {x}")  # formatted once, while traced
        return x * 2

    with jaxpurity.printed(echo=False) as out:
        jax.jit(show)(jnp.float32(1.0))
    assert "1.0" not in out.text and "Trace" in out.text  # plain JAX prints the tracer

    report = jaxpurity.check_pure(show, jnp.float32(1.0))
    [found] = report.problems
    assert found.kind == "trace-time-print", str(report)
    assert "a tracer was formatted into the text" in found.message
    fixed = jaxpurity.check_pure(lambda x: jax.debug.print("x = {}", x) or x * 2, 1.0)
    assert fixed.ok and not fixed.warnings, str(fixed)


@pytest.mark.parametrize("where", ["debug.print in the loop", "debug.callback outside a loop"])
def test_debug_print_in_a_loop_and_a_callback_outside_one_give_no_warning(where: str) -> None:
    if where == "debug.print in the loop":
        fn = _loop_with(lambda c: jax.debug.print("c = {}", c))
    else:

        def fn(x: float) -> jax.Array:
            jax.debug.callback(lambda: None)
            return jnp.sin(x)

    report = jaxpurity.check_pure(fn, 1.0)
    if where == "debug.print in the loop" and _lines_printed_under_grad(fn) != 5:
        # JAX 0.4.35 prints nothing from a debug.print in a scan body under grad: then the
        # warning is true, and it says so.
        [warning] = report.warnings
        assert warning.kind == "callback-count", str(report)
        assert "under jax.vjp it printed 0 line(s)" in warning.message
        return
    assert report.ok and not report.warnings, str(report)


def _lines_printed_under_grad(fn: Callable[[float], jax.Array]) -> int:
    """What plain JAX prints from ``fn`` under ``jax.grad``."""
    with jaxpurity.printed(echo=False) as out:
        jax.block_until_ready(jax.grad(fn)(1.0))
        jax.effects_barrier()
    return len(out.text.splitlines())


def test_a_donated_argument_is_a_warning_and_the_callers_array_stays_alive() -> None:
    def sgd(params: jax.Array, grads: jax.Array) -> jax.Array:
        return params - 0.1 * grads

    step = jax.jit(sgd, donate_argnums=0)
    given = jnp.ones(3)
    jax.block_until_ready(step(given, jnp.ones(3)))
    assert given.is_deleted()  # plain JAX: the call deleted the caller's array

    params = jnp.ones(3)
    report = jaxpurity.check_pure(step, params, jnp.ones(3))
    assert report.ok, str(report)
    [warning] = report.warnings
    assert warning.kind == "argument-mutation" and "donates argument `params`" in warning.message
    assert not params.is_deleted()
    assert not jaxpurity.check_pure(jax.jit(sgd), params, jnp.ones(3)).warnings


_sgd_step = jax.jit(lambda p, g: p - 0.1 * g, donate_argnums=0)
_GLOBAL_PARAMS: dict[str, jax.Array] = {}


class _Trainer:
    def __init__(self, params: jax.Array) -> None:
        self.params = params

    def train(self, x: jax.Array) -> jax.Array:
        return _sgd_step(self.params, 2 * x)


def _train(params: jax.Array, x: jax.Array) -> jax.Array:
    return _sgd_step(params, 2 * x)


def _train_held(held: Any, x: jax.Array) -> jax.Array:
    return _sgd_step(held[0] if isinstance(held, (list, tuple)) else held["w"], 2 * x)


def _train_global(x: jax.Array) -> jax.Array:
    return _sgd_step(_GLOBAL_PARAMS["w"], 2 * x)


class _Slotted:
    __slots__ = ("_array",)

    def __init__(self, array: jax.Array) -> None:
        self._array = array


class _Forwarding(_Slotted):
    """As a Flax NNX Variable: its array in a slot, other attribute reads handed on to it."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._array, name)


def _train_slotted(held: _Slotted, x: jax.Array) -> jax.Array:
    return _sgd_step(held._array, 2 * x)


@pytest.mark.parametrize(
    "held_in",
    ["argument", "list", "tuple", "dict", "global", "partial", "bound self", "slot", "slot, reads"],
)
def test_a_pure_caller_of_a_donating_step_is_pure_and_the_callers_arrays_stay_alive(
    held_in: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its eager run would delete the caller's array (the inner jit donates it): each run gets
    copies, so the report is right and the caller's arrays are alive after the check."""
    params, x = jnp.ones(3), jnp.ones(3)
    calls: dict[str, tuple[Any, tuple[Any, ...]]] = {
        "argument": (_train, (params, x)),
        "list": (_train_held, ([params], x)),
        "tuple": (_train_held, ((params,), x)),
        "dict": (_train_held, ({"w": params}, x)),
        "global": (_train_global, (x,)),
        "partial": (functools.partial(_train, params), (x,)),
        "bound self": (_Trainer(params).train, (x,)),
        "slot": (_train_slotted, (_Slotted(params), x)),
        "slot, reads": (_train_slotted, (_Forwarding(params), x)),
    }
    monkeypatch.setitem(_GLOBAL_PARAMS, "w", params)
    fn, args = calls[held_in]
    report = jaxpurity.check_pure(fn, *args)
    assert report.ok, str(report)  # (a bound self's attribute read is a warning of its own)
    assert not params.is_deleted() and not x.is_deleted()
    assert _GLOBAL_PARAMS["w"] is params


class _Multiplier:
    def __init__(self, mul: float) -> None:
        self.mul = mul

    def calc(self, x: jax.Array) -> jax.Array:
        return x * self.mul


def test_an_attribute_read_through_a_bound_methods_instance_warns_of_a_stale_result() -> None:
    c = _Multiplier(2.0)
    jitted = jax.jit(c.calc)
    first = jitted(jnp.ones(2)).tolist()
    c.mul = 3.0
    assert jitted(jnp.ones(2)).tolist() == first  # plain JAX: the first trace's 2.0 stays

    report = jaxpurity.check_pure(_Multiplier(2.0).calc, jnp.ones(2))
    [warning] = report.warnings
    assert warning.kind == "stale-result" and "`self.mul` (2.0)" in warning.message, str(report)


def appends_inside_a_checkpoint(x: jax.Array) -> jax.Array:
    seen: list[Any] = []

    @jax.checkpoint
    def layer(y: jax.Array) -> jax.Array:
        seen.append(y)  # a local list: nothing outside the call can reach it
        return jnp.sin(y)

    return layer(x) * len(seen)


def appends_inside_an_inner_jit(x: jax.Array) -> jax.Array:
    seen: list[Any] = []

    @jax.jit
    def layer(y: jax.Array) -> jax.Array:
        seen.append(y)
        return jnp.sin(y)

    return layer(x) * len(seen)


_LEAK_CHECKER_RUNS = pytest.mark.skipif(
    not compat.can_drop_traces(),
    reason="before JAX 0.10.2 a leak JAX's checker reports leaves the function uncached for good",
)


@_LEAK_CHECKER_RUNS
def test_a_leak_only_jax_leak_checker_sees_is_reported() -> None:
    with pytest.raises(Exception, match="Leaked") as leaked:  # noqa: PT011 - JAX's plain one
        with jax.checking_leaks():
            appends_inside_an_inner_jit(1.0)  # plain JAX: the inner jit's trace leaked
    assert type(leaked.value) is Exception
    assert jaxpurity.find_leaks(appends_inside_an_inner_jit, 1.0) == []  # none it can name

    report = jaxpurity.check_pure(appends_inside_an_inner_jit, 1.0)
    [found] = report.problems
    assert found.kind == "leaked-tracer" and "JAX's own leak checker" in found.message
    assert "tracing the function layer" in found.message and "global_counter" in found.page


@_LEAK_CHECKER_RUNS
def test_a_list_changed_inside_a_checkpoint_is_a_remat_mutation() -> None:
    kept: list[Any] = []

    @jax.checkpoint
    def layer(y: jax.Array) -> jax.Array:
        kept.append(y)
        return jnp.sin(y)

    layer(1.0)  # plain JAX, no jit: checkpoint traced layer, so the list holds a dead tracer
    assert len(kept) == 1 and isinstance(kept[0], jax.core.Tracer), kept
    with pytest.raises(Exception, match="Leaked") as leaked:  # noqa: PT011 - JAX's plain one
        with jax.checking_leaks():
            appends_inside_a_checkpoint(1.0)
    assert type(leaked.value) is Exception
    assert jaxpurity.find_leaks(appends_inside_a_checkpoint, 1.0) == []  # none it can name

    report = jaxpurity.check_pure(appends_inside_a_checkpoint, 1.0)
    [found] = report.problems
    assert found.kind == "remat-mutation", str(report)
    assert "tracing the function layer" in found.message and "checkpoint" in found.message
    assert found.page == page("leak_from_loop_body")


@dataclass(frozen=True)
class _Lens:
    radius: Any

    @functools.cached_property
    def area(self) -> Any:
        return jnp.pi * self.radius**2


jax.tree_util.register_pytree_node(_Lens, lambda m: ((m.radius,), None), lambda _, c: _Lens(*c))


def test_a_cached_property_filled_in_eagerly_is_no_lost_mutation() -> None:
    def loss(lens: _Lens) -> jax.Array:
        return 2.0 * lens.area

    lens = _Lens(jnp.float32(1.0))
    assert float(jax.jit(loss)(lens)) == float(loss(_Lens(jnp.float32(1.0))))  # equinox#539
    assert "area" not in vars(lens)  # under jit the cache lands on a rebuilt copy
    report = jaxpurity.check_pure(loss, lens)
    assert report.ok, str(report)


def test_an_iterator_consumed_in_a_loop_body_is_caught() -> None:
    def make() -> Callable[[], jax.Array]:
        batches = iter(range(10))

        def total() -> jax.Array:
            return jax.lax.fori_loop(0, 3, lambda i, c: c + next(batches), 0)

        return total

    jitted = jax.jit(make())
    assert [int(jitted()), int(jitted())] == [0, 0]  # plain JAX: next() ran once, at trace
    kinds = {p.kind for p in jaxpurity.check_pure(make()).problems}
    assert kinds & {"jit-eager-mismatch", "stale-result"}, kinds


# ----------------------------------------------------------------- quiet where the code is right

WINDOW_STEPS = 4  # bound once in this file and never changed: a constant
APPENDED: list[int] = []  # only appended to, by a host callback


def steps_of_a_constant(x: jax.Array) -> jax.Array:
    return jax.lax.fori_loop(0, WINDOW_STEPS, lambda i, c: c * 0.5, x)


def logs_to_a_list(x: jax.Array) -> jax.Array:
    jax.debug.callback(lambda v: APPENDED.append(int(v)), x.sum().astype(int))
    return x * 2


def _reads(fn: Callable[..., Any], *args: Any) -> list[str]:
    return [w.message for w in jaxpurity.check_pure(fn, *args).warnings]


def test_a_module_constant_and_a_list_only_appended_to_are_no_warning() -> None:
    assert _reads(steps_of_a_constant, jnp.ones(2)) == []
    assert _reads(logs_to_a_list, jnp.ones(2)) == []
    [changed] = _reads(scaled_by_a_global, jnp.ones(3))  # SCALE is bound twice in this file
    assert "global `SCALE`" in changed


def test_a_closure_a_factory_binds_once_is_no_warning_and_one_rebound_is() -> None:
    def make_taper(n: int) -> Callable[[jax.Array], jax.Array]:
        window = np.sin(np.pi * np.arange(n) / n) ** 2
        return lambda signal: signal * window

    def make_scaled() -> tuple[Callable[[jax.Array], jax.Array], Callable[[], None]]:
        scale = 2.0

        def bump() -> None:
            nonlocal scale
            scale += 1.0

        return (lambda x: x * scale), bump

    assert _reads(make_taper(4), jnp.ones(4)) == []
    scaled, bump = make_scaled()
    jitted = jax.jit(scaled)
    jitted(jnp.ones(2))
    bump()
    assert jitted(jnp.ones(2)).tolist() == [2.0, 2.0]  # plain JAX: the old scale, baked in
    [read] = _reads(scaled, jnp.ones(2))
    assert "closure variable `scale`" in read


@dataclass(frozen=True)
class _FrozenScale:
    scale: float


@dataclass
class _Scale:
    scale: float


def test_an_attribute_of_a_frozen_static_dataclass_is_no_warning() -> None:
    def layer(x: jax.Array, config: Any) -> jax.Array:
        return x * config.scale

    frozen = jax.jit(layer, static_argnames="config")
    assert _reads(frozen, jnp.ones(2), _FrozenScale(2.0)) == []
    [read] = _reads(functools.partial(frozen, config=_Scale(2.0)), jnp.ones(2))
    assert "`config.scale`" in read


def test_attributes_read_off_a_parameter_are_found_whatever_the_bytecode() -> None:
    # Python 3.13 loads two locals in one instruction where the others load one each:
    # LOAD_FAST_LOAD_FAST ('x', 'config') here, STORE_FAST_LOAD_FAST ('item', 'config') below.
    from jaxpurity.checks._trace_reads import _attribute_reads

    def product(x: Any, config: Any) -> Any:
        return x * config.scale

    def per_item(x: Any, config: Any) -> Any:
        return [config.offset * item for item in x]

    assert _attribute_reads(product.__code__, "config") == ["scale"]
    assert _attribute_reads(per_item.__code__, "config") == ["offset"]
    assert _attribute_reads(product.__code__, "x") == []


def test_an_io_callback_counter_is_hidden_state_a_warning_not_a_problem() -> None:
    """Its answers change by design, so no run is compared with another; but a second call
    of one program answers differently: a warning that its result depends on how often it
    ran, which jit, vmap and grad do not keep to."""
    from jax.experimental import io_callback

    tickets = itertools.count(100)

    def take_ticket(x: jax.Array) -> jax.Array:
        shape = jax.ShapeDtypeStruct((), jnp.int32)
        return x + io_callback(lambda: np.int32(next(tickets)), shape, ordered=True)

    jitted = jax.jit(take_ticket)
    assert [int(jitted(jnp.int32(0))) for _ in range(2)] == [100, 101]  # new answers by design
    report = jaxpurity.check_pure(take_ticket, jnp.int32(0))
    assert report.ok, str(report)
    [warning] = report.warnings
    assert warning.kind == "hidden-state" and "an io_callback" in warning.message, str(report)


def test_a_checkified_function_is_compared_by_its_values_not_its_error_codes() -> None:
    from jax.experimental import checkify

    def lookup(table: jax.Array, i: jax.Array) -> jax.Array:
        checkify.check(i < table.shape[0], "index {i} out of range", i=i)
        return table[i]

    checked = checkify.checkify(lookup)
    error, value = jax.jit(checked)(jnp.arange(3.0), jnp.int32(1))
    assert error.get() is None and float(value) == 1.0
    report = jaxpurity.check_pure(checked, jnp.arange(3.0), jnp.int32(1))
    assert report.ok and not report.warnings, str(report)


# ----------------------------------------------------------------- values from the user's calls

TICKS = 0


def ticking(x: jax.Array) -> jax.Array:
    global TICKS
    TICKS += 1
    return x * TICKS


def test_a_report_shows_the_values_the_users_own_calls_return() -> None:
    global TICKS
    jitted = jax.jit(ticking)
    yours_jit = [jitted(jnp.ones(2)).tolist() for _ in range(2)]
    TICKS = 0
    yours_eager = [ticking(jnp.ones(2)).tolist() for _ in range(2)]
    TICKS = 0
    assert yours_jit == [[1.0, 1.0]] * 2 and yours_eager == [[1.0, 1.0], [2.0, 2.0]]
    report = jaxpurity.check_pure(ticking, jnp.ones(2))
    assert TICKS == 0
    by_kind = {p.kind: p.message for p in report.problems}
    # The second calls from the state before the check, not the check's own runs (3.0 and up).
    assert (
        "eagerly it returned [2.0, 2.0], but jax.jit(ticking) returned [1.0, 1.0]"
        in (by_kind["jit-eager-mismatch"])
    )
    assert (
        "first trace again returned [1.0, 1.0], but a fresh trace now returned [2.0, 2.0]"
        in (by_kind["stale-result"])
    )


class _SlotCounter:
    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


class _PrivateSlotCounter:
    __slots__ = ("__count",)

    def __init__(self) -> None:
        self.__count = 0

    @property
    def count(self) -> int:
        return self.__count

    def bump(self) -> None:
        self.__count += 1


def _bump(counter: Any, x: jax.Array) -> jax.Array:
    if isinstance(counter, _PrivateSlotCounter):
        counter.bump()
    else:
        counter.count += 1
    return 2 * x


@pytest.mark.parametrize("counter_type", [_SlotCounter, _PrivateSlotCounter])
def test_an_argument_changed_in_a_slot_is_reported_and_put_back(counter_type: type) -> None:
    counter = counter_type()
    report = jaxpurity.check_pure(_bump, counter, jnp.ones(2))
    [found] = report.problems
    assert found.kind == "argument-mutation" and "went from 0 to 1" in found.message, str(report)
    assert counter.count == 0


class _HandsReadsOn:
    """As a Flax NNX Variable: a slot, and attribute reads handed on to what it holds."""

    __slots__ = ("_held",)

    def __init__(self, held: Any) -> None:
        self._held = held

    def __getattr__(self, name: str) -> Any:
        return getattr(self._held, name)


_OTHER = types.SimpleNamespace(tag="other")


def _swap_held(box: _HandsReadsOn, x: jax.Array) -> jax.Array:
    box._held = _OTHER
    return x


def test_putting_back_an_object_that_hands_reads_on_leaves_the_other_object_alone() -> None:
    held = types.SimpleNamespace(tag="mine")
    box = _HandsReadsOn(held)
    jaxpurity.check_pure(_swap_held, box, jnp.ones(2))
    assert box._held is held and vars(held) == {"tag": "mine"}
    assert vars(_OTHER) == {"tag": "other"}  # its __dict__ was cleared and given held's


def _accumulate(state: dict[str, jax.Array], x: jax.Array) -> jax.Array:
    state["w"] = state["w"] + x
    return 2 * x


class _WritesBack:
    """As Flax's ``nnx.jit``: a jax.jit of the function, and what it wrote into its dict
    argument written back into the caller's."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.__wrapped__ = fn
        self.compiled = jax.jit(lambda state, x: (fn(state, x), state))

    def __call__(self, state: dict[str, jax.Array], x: jax.Array) -> jax.Array:
        out, new_state = self.compiled(state, x)
        state.update(new_state)
        return out


def test_what_another_librarys_jit_writes_back_is_no_lost_mutation() -> None:
    state = {"w": jnp.zeros(2)}
    report = jaxpurity.check_pure(_WritesBack(_accumulate), state, jnp.ones(2))
    assert report.ok, str(report)
    assert state["w"].tolist() == [0.0, 0.0]
    # Under jax.jit the same write is lost: the check says so.
    [lost] = jaxpurity.check_pure(jax.jit(_accumulate), state, jnp.ones(2)).problems
    assert lost.kind == "lost-mutation" and state["w"].tolist() == [0.0, 0.0]


def _scaled_in_training(x: jax.Array, training: bool) -> jax.Array:
    if training:
        return x * 0.5
    return x


class _KeepsNumbers:
    """As Equinox's filter_jit: a jax.jit inside, arrays traced, Python numbers constants."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.__wrapped__ = fn
        self.compiled = jax.jit(fn, static_argnums=(1,))

    def __call__(self, x: jax.Array, training: bool) -> jax.Array:
        return self.compiled(x, training)


def test_another_librarys_jit_keeps_python_numbers_out_of_the_trace() -> None:
    report = jaxpurity.check_pure(_KeepsNumbers(_scaled_in_training), jnp.ones(2), True)
    assert report.ok and not report.warnings, str(report)
    # The plain function, which the user would hand to jax.jit, branches on a traced bool.
    [found] = jaxpurity.check_pure(_scaled_in_training, jnp.ones(2), True).problems
    assert found.kind == "mode-mismatch" and "TracerBoolConversionError" in found.message


@jax.tree_util.register_pytree_node_class
class _Stepped:
    """A state whose step count is static (its pytree's aux data), its value an array."""

    def __init__(self, step: int, value: jax.Array) -> None:
        self.step, self.value = step, value

    def tree_flatten(self) -> tuple[tuple[jax.Array], int]:
        return (self.value,), self.step

    @classmethod
    def tree_unflatten(cls, step: int, children: tuple[jax.Array]) -> _Stepped:
        return cls(step, *children)


class _LibraryJit:
    """Another library's jit, as Equinox's filter_jit is: an object with a jax.jit inside."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.__wrapped__ = fn
        self.compiled = jax.jit(fn)

    def __call__(self, *args: Any) -> Any:
        return self.compiled(*args)


def test_a_step_that_compiles_again_on_the_state_it_returned_is_a_retracing_warning() -> None:
    advance = _LibraryJit(lambda state: _Stepped(state.step + 1, state.value * 2))
    state = _Stepped(0, jnp.ones(2))
    report = jaxpurity.check_pure(advance, state)
    [warning] = report.warnings
    assert warning.kind == "retracing" and "given the state it returned" in warning.message
    assert "_Stepped[0]" in warning.message and "_Stepped[1]" in warning.message
    assert state.step == 0 and state.value.tolist() == [1.0, 1.0]
    keeps_step = _LibraryJit(lambda state: _Stepped(state.step, state.value * 2))
    assert not jaxpurity.check_pure(keeps_step, state).warnings


def _eager_cache_size() -> int:
    from jax._src import dispatch  # private: the cache of eagerly run primitives

    return int(dispatch.xla_primitive_callable.cache_info().currsize)


def test_checks_of_a_function_without_loops_keep_jaxs_cache_of_eager_operations() -> None:
    """Where JAX's cache cannot list its entries (0.4.35 to 0.10.2), the check emptied it
    whenever it grew, so every check compiled each eager operation again; it is emptied only
    where the program holds a loop or a cond, whose eager runs add a program each time."""
    x = jnp.linspace(0.0, 1.0, 5)
    jaxpurity.check_pure(where_dependent, x)
    after_one = _eager_cache_size()
    jaxpurity.check_pure(where_dependent, x)
    assert after_one > 0 and _eager_cache_size() == after_one


def _opaque_trace_state() -> object:
    """JAX's public record of the current trace: jax.extend.core's from 0.10, jax.core's
    before (deprecated there since)."""
    import jax.extend.core

    made = getattr(jax.extend.core, "get_opaque_trace_state", None)
    return (made or jax.core.get_opaque_trace_state)(
        convention="flax"
    )  # the convention Flax passes


class _TracedAt:
    """As a Flax NNX object keeps it: which trace the object belongs to, renewed by each
    transformation that meets it (NNX's ``_pytree__state``)."""

    def __init__(self) -> None:
        self.trace = _opaque_trace_state()


class _Tracked:
    """A pytree with one array, and a record of the trace it was last used in."""

    def __init__(self, w: jax.Array) -> None:
        self.w, self.where = w, _TracedAt()


jax.tree_util.register_pytree_node(_Tracked, lambda t: ((t.w,), None), lambda _, c: _Tracked(*c))


def _moves(tracked: _Tracked, x: jax.Array) -> jax.Array:
    tracked.where = _TracedAt()  # renewed, eagerly as under jit: bookkeeping, not state
    return tracked.w * x


def test_a_librarys_record_of_the_trace_is_no_lost_mutation() -> None:
    report = jaxpurity.check_pure(_moves, _Tracked(jnp.ones(2)), jnp.ones(2))
    assert report.ok, str(report)


def test_a_flax_objects_update_lost_under_jit_names_the_nnx_page() -> None:
    nnx = pytest.importorskip("flax.nnx", reason="needs Flax NNX (tox.ini: state_libraries)")
    optax = pytest.importorskip("optax")
    model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
    kernel = model.kernel[...].tolist()

    @jax.jit
    def train_step(model: Any, optimizer: Any, x: jax.Array) -> None:
        grads = nnx.grad(lambda m: m(x).sum())(model)
        optimizer.update(model, grads)

    report = jaxpurity.check_pure(train_step, model, optimizer, jnp.ones((1, 2)))
    paths = [p.message.split("`")[3] for p in report.problems]
    assert sorted(paths) == ["model.bias._raw_value", "model.kernel._raw_value",
                             "optimizer.step._raw_value"], str(report)  # fmt: skip
    assert {p.page for p in report.problems} == {page("nnx_and_equinox_state")}
    assert model.kernel[...].tolist() == kernel and int(optimizer.step[...]) == 0
