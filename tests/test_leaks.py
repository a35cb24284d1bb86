"""find_leaks: every escaped tracer is found, and its place is named in a user's words."""

from __future__ import annotations

import functools
import gc
import itertools
import operator
import re
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import pytest

import jaxpurity

# ----------------------------------------------------------------- the places a tracer leaks to

saved: list[Any] = []
memo: dict[str, Any] = {}


class Accumulator:
    def __init__(self) -> None:
        self.total: Any = None

    def update(self, x: jax.Array) -> jax.Array:
        self.total = x
        return x


acc = Accumulator()


def make_step() -> Callable[[jax.Array], jax.Array]:
    cache = None

    def step(x: jax.Array) -> jax.Array:
        nonlocal cache
        cache = x
        return x * 2

    return step


def to_list(x: jax.Array) -> jax.Array:
    saved.append(x)
    return x * 2


def to_dict(x: jax.Array) -> jax.Array:
    memo["x"] = x
    return x * 2


def to_attribute(x: jax.Array) -> jax.Array:
    acc.total = x
    return x * 2


# Look-alikes: the same statements, storing static facts (no tracer), or into a local.
def list_of_shapes(x: jax.Array) -> jax.Array:
    saved.append(x.shape)
    return x * 2


def local_dict(x: jax.Array) -> jax.Array:
    scratch = {"x": x}
    return scratch["x"] * 2


def attribute_dtype(x: jax.Array) -> jax.Array:
    acc.total = x.dtype
    return x * 2


def make_pure_step() -> Callable[[jax.Array], jax.Array]:
    scale = 2.0

    def step(x: jax.Array) -> jax.Array:
        return x * scale

    return step


@pytest.fixture(autouse=True)
def _clean_state() -> Any:
    yield
    saved.clear()
    memo.clear()
    acc.total = None


def _stored(where: str) -> Any:
    """The value now held at the place a case leaks to."""
    return {"list": lambda: saved[-1], "dict": lambda: memo["x"], "attr": lambda: acc.total}[
        where
    ]()


# How each transformation is applied to a function of one float32[3] array.
TRANSFORMS: dict[str, tuple[Callable[[Callable[..., Any]], Callable[..., Any]], jax.Array]] = {
    "jit": (jax.jit, jnp.ones(3)),
    "grad": (lambda f: jax.grad(lambda x: f(x).sum()), jnp.ones(3)),
    "vmap": (jax.vmap, jnp.ones((2, 3))),
}
# Leak.transformation under each: JAX 0.4.35's grad makes JVPTracers, which jvp makes too.
TRANSFORMATION = {"jit": {"jit"}, "grad": {"grad", "jvp/grad"}, "vmap": {"vmap"}}

LEAKS = [
    (to_list, "list", "global `saved` (a list), item 0", "saved.append(x)"),
    (to_dict, "dict", "global `memo` (a dict), key 'x'", 'memo["x"] = x'),
    (
        to_attribute,
        "attr",
        "global `acc` (an `Accumulator` object), attribute `total`",
        "acc.total = x",
    ),
]


@pytest.mark.parametrize("transform", list(TRANSFORMS))
@pytest.mark.parametrize(("fn", "store", "where", "line"), LEAKS, ids=["list", "dict", "attr"])
def test_find_leaks_names_where_the_tracer_is_stored(
    fn: Callable[..., Any], store: str, where: str, line: str, transform: str
) -> None:
    wrap, x = TRANSFORMS[transform]
    [leak] = jaxpurity.find_leaks(wrap(fn), x)
    assert leak.where == where
    assert leak.root == "global"
    assert leak.line is not None and leak.line.endswith(line)
    assert leak.line.startswith("test_leaks.py:")
    assert f"into {where}" in str(leak)
    assert leak.transformation in TRANSFORMATION[transform]
    assert leak.tracer.endswith(f" tracer (from {leak.transformation})")
    # find_leaks put the place back: it leaves no tracer where the caller can reach it ...
    assert (saved, memo, acc.total) == ([], {}, None)
    # ... and JAX agrees that it is a leak: the same call stores a tracer, and using it fails.
    wrap(fn)(x)
    stored = _stored(store)
    assert isinstance(stored, jax.core.Tracer)
    _jax_error_using(stored)


def _jax_error_using(stored: Any) -> str:
    """The UnexpectedTracerError that JAX raises when a leaked tracer is used."""
    with pytest.raises(jax.errors.UnexpectedTracerError) as error:
        jax.jit(lambda y: y + stored)(jnp.ones(stored.shape))
    return str(error.value)


@pytest.mark.parametrize("transform", list(TRANSFORMS))
@pytest.mark.parametrize(
    "fn", [list_of_shapes, local_dict, attribute_dtype], ids=lambda fn: fn.__name__
)
def test_find_leaks_passes_look_alikes_that_store_no_tracer(
    fn: Callable[..., Any], transform: str
) -> None:
    wrap, x = TRANSFORMS[transform]
    assert jaxpurity.find_leaks(wrap(fn), x) == []
    with jax.checking_leaks():  # JAX's checker agrees
        wrap(fn)(x)


@pytest.mark.parametrize("transform", list(TRANSFORMS))
def test_find_leaks_names_a_closure_variable_and_the_traced_function(transform: str) -> None:
    wrap, x = TRANSFORMS[transform]
    step = make_step()
    [leak] = jaxpurity.find_leaks(wrap(step), x)
    assert leak.where == "closure variable `cache` of `step`"
    assert leak.root == "closure"
    assert leak.function == {"jit": "step", "grad": "<lambda>", "vmap": "step"}[transform]
    assert leak.line is not None and leak.line.endswith("cache = x")
    [cell] = step.__closure__
    before = cell.cell_contents
    assert not isinstance(before, jax.core.Tracer)  # put back by find_leaks
    wrap(step)(x)
    assert isinstance(cell.cell_contents, jax.core.Tracer)  # JAX agrees: the call leaks


@pytest.mark.parametrize("transform", list(TRANSFORMS))
def test_find_leaks_passes_a_closure_over_constants(transform: str) -> None:
    wrap, x = TRANSFORMS[transform]
    assert jaxpurity.find_leaks(wrap(make_pure_step()), x) == []


def test_find_leaks_names_the_argument_of_a_method() -> None:
    model = Accumulator()
    [leak] = jaxpurity.find_leaks(model.update, jnp.ones(3))
    assert leak.where == "argument `self` (an `Accumulator` object), attribute `total`"
    assert leak.root == "argument"
    assert leak.function == "Accumulator.update"
    assert leak.line is not None and leak.line.endswith("self.total = x")
    assert model.total is None  # find_leaks put the attribute back


class Running:
    """A total that starts as a literal in __init__ and is stored in two methods."""

    def __init__(self) -> None:
        self.total: Any = 0.0

    def add(self, x: jax.Array) -> jax.Array:
        self.total = self.total + x
        return x

    def restart(self, x: jax.Array) -> jax.Array:
        self.total = x * 0
        return x


def test_find_leaks_finds_the_line_in_the_method_an_argument_default_calls() -> None:
    running = Running()
    add_twice = lambda x, acc=running: acc.add(x) * 2  # noqa: E731 - the case reported
    [leak] = jaxpurity.find_leaks(add_twice, jnp.ones(3))
    assert leak.where == "argument `acc` (a `Running` object), attribute `total`"
    assert leak.line is not None and leak.line.endswith("self.total = self.total + x")
    assert running.total == 0.0  # find_leaks put the attribute back


def test_find_leaks_leaves_the_line_out_when_two_methods_could_have_stored_it() -> None:
    running = Running()
    add_twice = lambda x, acc=running: operator.methodcaller("add", x)(acc) * 2  # noqa: E731
    [leak] = jaxpurity.find_leaks(add_twice, jnp.ones(3))
    assert leak.where == "argument `acc` (a `Running` object), attribute `total`"
    assert leak.line is None  # add or restart: either would be a guess
    assert "stored at" not in str(leak)


class Registry:
    last: Any = None


def test_find_leaks_names_a_class_attribute() -> None:
    def register(x: jax.Array) -> jax.Array:
        Registry.last = x
        return x

    [leak] = jaxpurity.find_leaks(register, jnp.ones(3))
    assert leak.where == "global `Registry` (a class `Registry`), attribute `last`"
    assert leak.line is not None and leak.line.endswith("Registry.last = x")
    Registry.last = None


@functools.lru_cache
def window(n: int) -> jax.Array:
    return jnp.arange(n) / n


def test_find_leaks_names_an_lru_cache() -> None:
    def taper(x: jax.Array) -> jax.Array:
        return x * window(x.shape[0])

    window.cache_clear()
    [leak] = jaxpurity.find_leaks(taper, jnp.ones(3))
    assert leak.where == (
        "global `window` (a function cached with functools.lru_cache), one of its cached results"
    )
    # The cache, which cannot drop one result, was cleared: the caller's next call computes
    # its value, where it would have been given the check's tracer.
    assert window.cache_info().currsize == 0
    assert not isinstance(window(3), jax.core.Tracer)
    window.cache_clear()


def test_find_leaks_follows_a_stored_closure_to_its_global() -> None:
    def remember_later(x: jax.Array) -> jax.Array:
        saved.append(lambda: x)
        return x

    [leak] = jaxpurity.find_leaks(remember_later, jnp.ones(3))
    assert leak.where == "global `saved` (a list), item 0, closure variable `x` of `<lambda>`"


# Loop bodies defined once, so that JAX caches their traces across calls.
def scan_body(carry: jax.Array, _: None) -> tuple[jax.Array, None]:
    saved.append(carry)
    return carry + 1, None


def while_body(carry: jax.Array) -> jax.Array:
    saved.append(carry)
    return carry + 1


def fori_body(i: Any, carry: jax.Array) -> jax.Array:
    saved.append(carry)
    return carry + i


LOOPS: dict[str, Callable[[jax.Array], jax.Array]] = {
    "scan": lambda x: jax.lax.scan(scan_body, x, None, length=2)[0],
    "while_loop": lambda x: jax.lax.while_loop(lambda c: c.sum() < 5, while_body, x),
    "fori_loop": lambda x: jax.lax.fori_loop(0, 2, fori_body, x),
}
# JAX's "traced for ..." names a while_loop body "while_body" (JAX 0.10.2).
_JAX_LOOP_NAMES = {"while_body": "while_loop"}


@pytest.mark.parametrize("loop", list(LOOPS))
def test_find_leaks_finds_a_leak_from_a_loop_body_jax_already_cached(loop: str) -> None:
    run = LOOPS[loop]
    jax.jit(run)(jnp.ones(3))
    jax.jit(lambda x: run(x))(jnp.ones(3))
    assert len(saved) == 1  # the second jit used JAX's cached trace of the body
    [leak] = jaxpurity.find_leaks(run, jnp.ones(3))
    assert leak.where == "global `saved` (a list), item 1"
    assert leak.line is not None and leak.line.endswith("saved.append(carry)")
    assert len(saved) == 1  # find_leaks put the list back
    # The loop JAX names when the tracer is used (on 0.4.35 fori_loop runs as a scan).
    traced_for = re.search(r"traced for (\w+)", _jax_error_using(saved[0]))
    assert traced_for is not None
    assert leak.transformation == _JAX_LOOP_NAMES.get(traced_for[1], traced_for[1])
    assert leak.tracer.endswith(f"(from {leak.transformation})")
    jax.jit(lambda x: run(x))(jnp.ones(3))
    assert len(saved) == 1  # JAX's cache is still there for everyone else


def test_find_leaks_finds_a_leak_from_a_loop_body() -> None:
    def loop(x: jax.Array) -> jax.Array:
        def body(carry: jax.Array, _: None) -> tuple[jax.Array, None]:
            saved.append(carry)
            return carry + 1, None

        return jax.lax.scan(body, x, None, length=2)[0]

    [leak] = jaxpurity.find_leaks(loop, jnp.ones(3))
    assert leak.where == "global `saved` (a list), item 0"
    assert leak.function == "loop"
    assert leak.line is not None and leak.line.endswith("saved.append(carry)")


# ----------------------------------------------------------------- where jax.checking_leaks fails


def make_step_with_optional_bias(use_bias: bool) -> Callable[[jax.Array], jax.Array]:
    """A closure with a variable that is only sometimes assigned: its cell stays empty."""

    def step(x: jax.Array) -> jax.Array:
        nonlocal last_input
        last_input = x
        return x + bias if use_bias else x

    last_input = None
    if use_bias:
        bias = 1.0
    return step


def test_find_leaks_names_a_closure_where_checking_leaks_raises_an_internal_error() -> None:
    step = make_step_with_optional_bias(use_bias=False)
    with pytest.raises(Exception) as jax_error:  # noqa: PT011 - we look at what JAX raises
        with jax.checking_leaks():
            jax.jit(step)(jnp.ones(3))
    # JAX's checker trips over the empty cell of `bias` while writing its report: an
    # internal error that names neither the leak nor the variable.
    assert type(jax_error.value) is ValueError
    assert "last_input" not in str(jax_error.value)
    [leak] = jaxpurity.find_leaks(step, jnp.ones(3))
    assert leak.where == "closure variable `last_input` of `step`"
    assert leak.line is not None and leak.line.endswith("last_input = x")


def test_find_leaks_works_and_restores_the_config_inside_checking_leaks() -> None:
    with jax.checking_leaks():
        [leak] = jaxpurity.find_leaks(to_list, jnp.ones(3))
        assert jax.config.jax_check_tracer_leaks
    assert not jax.config.jax_check_tracer_leaks
    assert leak.where == "global `saved` (a list), item 0"


# ----------------------------------------------------------------- what it runs and reports


def test_find_leaks_runs_the_function_once() -> None:
    calls = itertools.count()  # state find_leaks cannot put back: it counts the runs

    def counted(x: jax.Array) -> jax.Array:
        next(calls)
        return to_list(x)

    jaxpurity.find_leaks(jax.jit(counted), jnp.ones(3))
    assert repr(calls) == "count(1)"
    assert saved == []  # what the run appended is put back


def test_find_leaks_ignores_tracers_leaked_before_it_was_called() -> None:
    jax.jit(lambda x: to_list(x))(jnp.ones(3))  # a new function: no cached trace
    assert isinstance(saved[0], jax.core.Tracer)
    assert jaxpurity.find_leaks(make_pure_step(), jnp.ones(3)) == []


def test_find_leaks_reports_each_leaked_tracer() -> None:
    def two(x: jax.Array) -> jax.Array:
        saved.append(x)
        saved.append(x + 1)
        return x

    leaks = jaxpurity.find_leaks(two, jnp.ones(3))
    assert sorted(leak.where for leak in leaks) == [
        "global `saved` (a list), item 0",
        "global `saved` (a list), item 1",
    ]


def test_find_leaks_passes_other_leaves_through_unchanged() -> None:
    def update(model: Accumulator, x: jax.Array, scale: float) -> jax.Array:
        model.total = x * scale
        return x

    model = Accumulator()
    [leak] = jaxpurity.find_leaks(update, model, jnp.ones(3), scale=2.0)
    assert leak.where == "argument `model` (an `Accumulator` object), attribute `total`"
    assert leak.tracer == "float32[3] tracer (from jit)"


def test_find_leaks_raises_what_the_function_raises_when_traced() -> None:
    def branch(x: jax.Array) -> jax.Array:
        return x if x.sum() > 0 else -x

    with pytest.raises(Exception) as from_jax:  # noqa: PT011 - compared by type below
        jax.jit(branch)(jnp.ones(3))
    with pytest.raises(type(from_jax.value)):
        jaxpurity.find_leaks(branch, jnp.ones(3))


# ----------------------------------------------------------------- errors name the user's code


class Config:
    """An object argument: find_leaks passes it in untraced, like a partial that binds it."""


def gated(config: Config, x: jax.Array, *, scale: dict[str, jax.Array]) -> jax.Array:
    return x if scale["s"] > 0 else -x


def _passing_through(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return wrapper


class Layer:
    @_passing_through  # a bound method whose __wrapped__ (the function) still takes self
    def relu(self, x: jax.Array) -> jax.Array:
        return x if x > 0 else 0.0 * x


@pytest.mark.parametrize("case", ["static-and-keyword", "decorated-method"])
def test_find_leaks_lets_jax_errors_name_the_function_and_its_arguments(case: str) -> None:
    """The error find_leaks raises is the one jit raises for the function itself, word for
    word: the function's name and line, and the argument the value came from."""
    if case == "static-and-keyword":
        config, x, scale = Config(), jnp.ones(3), {"s": jnp.float32(2.0)}
        run = functools.partial(jax.jit(functools.partial(gated, config)), x, scale=scale)
        check = functools.partial(jaxpurity.find_leaks, gated, config, x, scale=scale)
    else:
        layer, x = Layer(), jnp.float32(1.0)
        run = functools.partial(jax.jit(layer.relu), x)
        check = functools.partial(jaxpurity.find_leaks, layer.relu, x)
    with pytest.raises(Exception) as from_jax:  # noqa: PT011 - compared by type and text below
        run()
    with pytest.raises(type(from_jax.value)) as from_check:
        check()
    assert str(from_check.value) == str(from_jax.value)


@pytest.mark.parametrize(
    ("name", "article"),
    [("M", "an"), ("MLP", "an"), ("Model", "a"), ("Item", "an"), ("URL", "a"), ("_Optim", "an")],
)
def test_find_leaks_says_an_before_a_vowel_sound(name: str, article: str) -> None:
    holder = type(name, (), {})()

    def keep(holder: Any, x: jax.Array) -> jax.Array:
        holder.kept = x
        return x

    [leak] = jaxpurity.find_leaks(keep, holder, jnp.ones(3))
    assert leak.where == f"argument `holder` ({article} `{name}` object), attribute `kept`"


@jax.tree_util.register_pytree_node_class
class _Schedule:
    """A pytree whose flatten keeps a function in its static data, as a static field does."""

    def __init__(self, params: Any, schedule: Any) -> None:
        self.params, self.schedule = params, schedule

    def tree_flatten(self) -> tuple[tuple[Any], Any]:
        return (self.params,), self.schedule

    @classmethod
    def tree_unflatten(cls, schedule: Any, children: Any) -> _Schedule:
        return cls(children[0], schedule)


def _make_state(lr: jax.Array) -> _Schedule:
    return _Schedule(jnp.zeros(2), lambda step: lr * 0.5**step)  # closes over a traced lr


def test_a_tracer_in_the_static_data_of_the_result_is_a_leak_of_the_result() -> None:
    state = jax.jit(_make_state)(jnp.float32(0.1))
    with pytest.raises(jax.errors.UnexpectedTracerError):
        state.schedule(1)  # plain JAX: the schedule's lr is a leaked tracer

    [leak] = jaxpurity.find_leaks(_make_state, jnp.float32(0.1))
    assert leak.root == "result" and "static data of the value it returns" in leak.where
    [found] = jaxpurity.check_pure(_make_state, jnp.float32(0.1)).problems
    assert found.kind == "leaked-tracer" and "static_objects" in found.page
    assert jaxpurity.find_leaks(lambda lr: _Schedule(lr * 2, "constant"), jnp.float32(0.1)) == []


def _masked(arr: jax.Array, mask: jax.Array) -> jax.Array:
    return arr * mask


def _masked_jvp(mask: jax.Array, primals: Any, tangents: Any) -> Any:
    return jax.jvp(lambda arr: arr * mask, primals, tangents)


_masked_nondiff = jax.custom_jvp(_masked, nondiff_argnums=(1,))
_masked_nondiff.defjvp(_masked_jvp)


def _scan_with_a_nondiff_mask(x: jax.Array, mask: jax.Array) -> jax.Array:
    def step(carry: Any, _: Any) -> Any:
        return (_masked_nondiff(*carry), carry[1]), None

    return jax.lax.scan(step, (x, mask), None, length=2)[0][0].sum()


def test_an_array_in_nondiff_argnums_is_named_as_that_argument_not_jax_internals() -> None:
    x, mask = jnp.ones(4), jnp.array([True, False, True, True])
    with pytest.raises(jax.errors.UnexpectedTracerError):
        jax.grad(_scan_with_a_nondiff_mask)(x, mask)  # plain JAX: jax-ml/jax#20889

    [leak] = jaxpurity.find_leaks(_scan_with_a_nondiff_mask, x, mask)
    assert leak.where.startswith("an array passed in nondiff_argnums"), leak.where
    assert "WrappedFun" not in leak.where and "Unhashable" not in leak.where


# -------------------------------------------------- the collector is left as the check found it


def _leak_into_saved(x: jax.Array) -> jax.Array:
    saved.append(x)
    return x


def _leak_into_saved_and_collect(x: jax.Array) -> jax.Array:
    saved.append(x)
    gc.collect()  # moves what the trace made so far to the oldest generation
    return x


@pytest.mark.parametrize("collector_on", [True, False], ids=["collector-on", "collector-off"])
@pytest.mark.parametrize(
    "leaky", [_leak_into_saved, _leak_into_saved_and_collect], ids=["leaks", "leaks-and-collects"]
)
@pytest.mark.parametrize("generations", [True, False], ids=["generations", "no-generations"])
@pytest.mark.parametrize("frozen_by_the_caller", [False, True], ids=["none", "some"])
def test_find_leaks_finds_the_leak_and_leaves_the_collector_as_it_was(
    frozen_by_the_caller: bool,
    generations: bool,
    leaky: Callable[[jax.Array], jax.Array],
    collector_on: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The trace is walked with the caller's objects frozen (gc.freeze) where none were frozen.
    # Where some were (Python 3.12 starts so), it is walked in the young generations with the
    # automatic collector paused, and the tracers that the traced code's own collection made
    # old are looked for in the whole heap; where the collector has no generations (as on
    # Python 3.14), in the whole heap. Every way, the leak is found and the collector is as
    # the caller left it.
    from jaxpurity.checks import _tracing

    monkeypatch.setattr(_tracing, "_YOUNG_STAY_YOUNG", generations)
    callbacks = list(gc.callbacks)
    if frozen_by_the_caller:
        gc.freeze()
    if not collector_on:
        gc.disable()
    try:
        count = gc.get_freeze_count()
        found = jaxpurity.find_leaks(leaky, jnp.ones(2))
        assert gc.get_freeze_count() == count
        assert gc.isenabled() == collector_on
        assert gc.callbacks == callbacks
    finally:
        gc.enable()
        if frozen_by_the_caller:
            gc.unfreeze()
        saved.clear()
    # Where the caller froze the list itself, the collector cannot show what refers to the
    # tracer, and the leak is found without its place.
    named = "a place jaxpurity could not name" if frozen_by_the_caller else "global `saved`"
    assert [leak.where.split(" (")[0] for leak in found] == [named]


def test_a_tracer_kept_in_an_nnx_modules_plain_attribute_is_named_as_such() -> None:
    nnx = pytest.importorskip("flax.nnx", reason="needs Flax NNX (tox.ini: state_libraries)")

    class Accumulate(nnx.Module):  # flax#4695's "works, then fails later"
        def __init__(self) -> None:
            self.total = 0.0  # no nnx.Variable: static data of the module's structure

        def __call__(self, x: jax.Array) -> jax.Array:
            self.total = self.total + x.sum()
            return x

    accumulate = Accumulate()
    alive = _tracers_alive()
    leaks = jaxpurity.find_leaks(nnx.jit(lambda m, x: m(x)), accumulate, jnp.ones(2))
    assert [leak.where.split(":")[0] for leak in leaks] == [
        "the structure of a pytree, where it keeps what is not a leaf"
    ], leaks
    assert accumulate.total == 0.0  # the caller's module as it was
    # JAX's own lru_cache kept the structure, and with it the tracer: cleared.
    assert "lru_cache" in leaks[0].where
    del leaks
    assert _tracers_alive() == alive


def _tracers_alive() -> int:
    gc.collect()
    return sum(isinstance(o, jax.core.Tracer) for o in gc.get_objects())
