"""count_traces: counts what JAX really traces, either way round with jit, and names each cause."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import pytest

import jaxpurity
from jaxpurity import RetraceError, count_traces
from jaxpurity._leaftypes import describe_leaf
from jaxpurity._trees import JAX_DEPTH
from jaxpurity.checks import _traces as traces_module


class Config:
    """A static argument that hashes by identity: a new one is a new cache entry."""


def body(x: Any, flag: bool = True, obj: Any = None) -> Any:
    del obj
    return x * 2 if flag else x


def _counted(order: str, max_traces: int | None) -> tuple[Any, Callable[..., Any], list[None]]:
    """(counter, the function to call, a list that grows each time JAX really traces body)."""
    traced: list[None] = []

    def f(x: Any, flag: bool = True, obj: Any = None) -> Any:
        traced.append(None)
        return body(x, flag, obj)

    if order == "jit(count(f))":
        counter = count_traces(f, max_traces=max_traces)
        return counter, jax.jit(counter, static_argnames=("flag", "obj")), traced
    counter = count_traces(jax.jit(f, static_argnames=("flag", "obj")), max_traces=max_traces)
    return counter, counter, traced


ORDERS = ["jit(count(f))", "count(jit(f))"]
CONFIG = Config()
# (first call, second call, what the error says about the argument that changed)
CAUSES = {
    "shape": (
        ((jnp.ones(3),), {}),
        ((jnp.ones(4),), {}),
        "argument `x`: shape changed from float32[3] to float32[4]",
    ),
    "dtype": (
        ((jnp.ones(3),), {}),
        ((jnp.ones(3, jnp.int32),), {}),
        "argument `x`: dtype changed from float32[3] to int32[3]",
    ),
    "weak type": (
        ((jnp.float32(1.0),), {}),
        ((1.0,), {}),
        "argument `x`: weak type changed from float32[] to float32[] (weak: a Python scalar)",
    ),
    "static value": (
        ((jnp.ones(3),), {"flag": True}),
        ((jnp.ones(3),), {"flag": False}),
        "argument `flag`: static value changed from True to False",
    ),
    "object identity": (
        ((jnp.ones(3),), {"obj": CONFIG}),
        ((jnp.ones(3),), {"obj": Config()}),
        "argument `obj`: a different Python object (id 0x",
    ),
}


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("cause", list(CAUSES))
def test_retrace_error_names_the_argument_and_the_cause(order: str, cause: str) -> None:
    counter, call, traced = _counted(order, max_traces=1)
    (args1, kwargs1), (args2, kwargs2), words = CAUSES[cause]
    call(*args1, **kwargs1)
    call(*args1, **kwargs1)  # the same call again: JAX reuses its trace
    assert counter.traces == len(traced) == 1
    with pytest.raises(RetraceError) as error:
        call(*args2, **kwargs2)
    assert len(traced) == (1 if order == "jit(count(f))" else 2)  # raised before / after tracing
    message = str(error.value)
    assert words in message
    assert message.startswith("`f` was traced 2 times, more than max_traces=1.")
    assert message.rstrip().endswith(f"See {jaxpurity._pages.url('static_arguments')}")
    assert isinstance(error.value, RuntimeError)
    assert counter.traces == 1


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("cause", list(CAUSES))
def test_count_traces_counts_what_jax_traces(order: str, cause: str) -> None:
    counter, call, traced = _counted(order, max_traces=None)
    (args1, kwargs1), (args2, kwargs2), _ = CAUSES[cause]
    for args, kwargs in [(args1, kwargs1), (args2, kwargs2), (args1, kwargs1), (args2, kwargs2)]:
        call(*args, **kwargs)
    assert counter.traces == len(traced) == 2
    assert len(counter.signatures) == 2
    assert counter.signatures[0] != counter.signatures[1]


@pytest.mark.parametrize("order", ORDERS)
def test_max_traces_allows_up_to_the_limit(order: str) -> None:
    counter, call, traced = _counted(order, max_traces=2)
    call(jnp.ones(3))
    call(jnp.ones(4))
    assert counter.traces == len(traced) == 2
    with pytest.raises(RetraceError, match="traced 3 times"):
        call(jnp.ones(5))


def test_signatures_record_each_leaf_by_path() -> None:
    @count_traces
    def loss(params: dict[str, jax.Array], n: int) -> jax.Array:
        return params["w"].sum() * n

    jax.jit(loss, static_argnums=1)({"w": jnp.ones(2), "b": jnp.zeros((), jnp.int32)}, 3)
    assert loss.signatures == [
        {
            "params['b']": "an array int32[]",
            "params['w']": "an array float32[2]",
            "n": "static value 3",
        }
    ]


def test_retrace_error_names_a_pytree_leaf_and_compares_with_the_closest_trace() -> None:
    @count_traces(max_traces=2)
    def loss(params: dict[str, jax.Array]) -> jax.Array:
        return params["w"].sum()

    f = jax.jit(loss)
    f({"w": jnp.ones(2)})
    f({"w": jnp.ones(5)})
    with pytest.raises(RetraceError) as error:
        f({"w": jnp.ones(6)})
    assert "Compared with trace 2" in str(error.value)
    assert "argument `params['w']`: shape changed from float32[5] to float32[6]" in str(error.value)


def test_count_traces_counts_grad_and_vmap_traces_but_not_eager_calls() -> None:
    @count_traces
    def square(x: jax.Array) -> jax.Array:
        return (x**2).sum()

    square(jnp.ones(3))
    assert square.traces == 0
    jax.grad(square)(jnp.ones(3))
    jax.vmap(square)(jnp.ones((2, 3)))
    assert square.traces == 2
    assert square.signatures[1] == {"x": "an array float32[3]"}


def test_count_traces_keeps_the_function_usable_as_a_method() -> None:
    class Layer:
        scale = 3.0

        @count_traces
        def apply(self, x: jax.Array) -> jax.Array:
            return x * self.scale

    layer = Layer()
    assert jax.jit(layer.apply)(jnp.ones(2)).tolist() == [3.0, 3.0]
    assert Layer.apply.traces == 1
    assert Layer.apply.__name__ == "apply"


def test_max_traces_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_traces"):
        count_traces(body, max_traces=0)


# ----------------------------------------------------------------- Python scalars and static values


def scale(x: Any, s: Any) -> Any:
    return x * s


def _jax_traced_type(fn: Callable[..., Any], *args: Any) -> list[str]:
    """The type JAX gives each argument it traces, written as jaxpurity writes types."""
    avals = jax.make_jaxpr(fn)(*args).in_avals
    return [
        describe_leaf(jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)) for a in avals
    ]


@pytest.mark.parametrize("order", ORDERS)
def test_signatures_label_a_python_float_that_jit_traces(order: str) -> None:
    jitted = jax.jit(scale)
    counter = count_traces(scale)
    call = jax.jit(counter) if order == "jit(count(f))" else count_traces(jitted)
    call(jnp.ones(2), 2.0)
    [signature] = (counter if order == "jit(count(f))" else call).signatures
    x_type, s_type = _jax_traced_type(scale, jnp.ones(2), 2.0)
    assert s_type == "float32[] (weak: a Python scalar)"
    assert signature == {"x": f"an array {x_type}", "s": f"an array {s_type}"}


def test_signatures_say_both_where_jax_does_not_say_which_arguments_are_static(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every JAX from 0.4.35 to 0.12 says (_jax_compat.jit_static_argument_names); one that
    # stops saying gets both readings, not a guess.
    monkeypatch.setattr(traces_module, "jit_static_argument_names", lambda fn: None)

    def scale_anew(x: jax.Array, s: float) -> jax.Array:  # not in jit's cache yet
        return x * s

    call = count_traces(jax.jit(scale_anew))
    call(jnp.ones(2), 2.0)
    [signature] = call.signatures
    assert signature["s"] == (
        "Python scalar 2.0 (traced as float32[] (weak: a Python scalar) unless static)"
    )


@pytest.mark.parametrize("order", ORDERS)
def test_signatures_label_a_static_python_float_as_static(order: str) -> None:
    jitted = jax.jit(scale, static_argnums=1)
    counter = count_traces(scale)
    call = jax.jit(counter, static_argnums=1) if order == "jit(count(f))" else count_traces(jitted)
    call(jnp.ones(2), 2.0)
    [signature] = (counter if order == "jit(count(f))" else call).signatures
    assert len(jax.make_jaxpr(scale, static_argnums=1)(jnp.ones(2), 2.0).in_avals) == 1
    assert signature["s"] == "static value 2.0"


def test_retrace_error_of_a_static_float_says_to_pass_an_array() -> None:
    counter = count_traces(scale, max_traces=1)
    call = jax.jit(counter, static_argnums=1)
    call(jnp.ones(2), 0.5)
    with pytest.raises(RetraceError) as error:
        call(jnp.ones(2), 0.25)
    assert "argument `s`: static value changed from 0.5 to 0.25" in str(error.value)
    assert "pass `s` as an array instead of a static argument" in str(error.value)
    assert "bucket" not in str(error.value)


def test_retrace_error_of_a_static_axis_says_it_may_stay_static() -> None:
    def total(x: jax.Array, axis: int) -> jax.Array:
        return x.sum(axis)

    counter = count_traces(total, max_traces=1)
    call = jax.jit(counter, static_argnames="axis")
    call(jnp.ones((2, 3)), axis=0)
    with pytest.raises(RetraceError) as error:
        call(jnp.ones((2, 3)), axis=1)
    message = str(error.value)
    assert "argument `axis`: static value changed from 0 to 1" in message
    assert "if it sets a shape, an axis or a size it must stay static" in message
    assert "keep its distinct values few" in message
    # The axis really cannot be traced: JAX needs it while tracing.
    with pytest.raises(TypeError):
        jax.jit(total)(jnp.ones((2, 3)), 1)


def test_retrace_error_of_a_static_flag_does_not_suggest_an_array() -> None:
    counter, call, _ = _counted("jit(count(f))", max_traces=1)
    call(jnp.ones(3), flag=True)
    with pytest.raises(RetraceError) as error:
        call(jnp.ones(3), flag=False)
    message = str(error.value)
    assert "`flag` must stay static" in message
    assert "as an array" not in message


def _too_deep() -> list[Any]:
    """Lists nested deeper than JAX flattens on this Python (JAX_DEPTH)."""
    tree: list[Any] = [jnp.ones(2)]
    for _ in range(2 * JAX_DEPTH):
        tree = [tree]
    return tree


def _cyclic() -> list[Any]:
    cycle: list[Any] = [jnp.ones(2)]
    cycle.append(cycle)
    return cycle


@pytest.mark.parametrize("make", [_too_deep, _cyclic], ids=["too deep", "cyclic"])
def test_an_eager_call_passes_arguments_jax_cannot_flatten_through(make: Any) -> None:
    def f(x: Any, tree: Any) -> Any:
        return x * 2

    counter = count_traces(f, max_traces=1)
    assert counter(jnp.ones(2), make()).tolist() == [2.0, 2.0]  # f itself takes them
    assert counter.traces == 0


def test_a_trace_with_an_argument_jax_cannot_flatten_is_counted() -> None:
    deep = _too_deep()
    counter = count_traces(lambda x, tree: x * 2)
    jax.jit(lambda x: counter(x, deep))(jnp.ones(2))  # a Python value reaching the body
    jax.jit(lambda x: counter(x, deep))(jnp.ones(3))
    assert counter.traces == 2


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (_too_deep, r"argument `tree` is nested more than [\d,]+ levels deep \(tree\[0\]"),
        (_cyclic, r"argument `tree` holds a reference cycle: tree\[1\] is tree again"),
    ],
    ids=["too deep", "cyclic"],
)
def test_a_jitted_call_names_the_argument_jax_cannot_flatten(make: Any, says: str) -> None:
    counter = count_traces(jax.jit(lambda x, tree: x * 2))
    with pytest.raises(TypeError, match=r"^count_traces\(<lambda>\): " + says):
        counter(jnp.ones(2), make())
    assert counter.traces == 0


def test_count_traces_names_a_non_function_whose_repr_raises() -> None:
    class Unprintable:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    with pytest.raises(TypeError, match="an object of type Unprintable whose repr raises"):
        count_traces(Unprintable())  # type: ignore[arg-type]
