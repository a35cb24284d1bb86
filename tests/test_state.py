"""Tests for jaxpurity.control._state: jaxpurity.dataclass, static_field and Stateful.

Tests that take ``run`` (tests/conftest.py) run on every device, eagerly and
under jit. A Stateful is never called inside jit, so its tests read the device
and the jit flag from ``run`` and pass them to ``Stateful(..., jit=run.jit)``.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxpurity


@jaxpurity.dataclass
class Acc:
    count: jax.Array
    total: jax.Array


@jaxpurity.dataclass
class Params:
    w: jax.Array
    b: jax.Array
    activation: str = jaxpurity.static_field(default="tanh")


def _params() -> Params:
    return Params(w=jnp.arange(3.0), b=jnp.asarray(0.5))


def _apply(p: Params, x: jax.Array) -> jax.Array:
    act = jnp.tanh if p.activation == "tanh" else jax.nn.relu
    return act(p.w * x + p.b).sum()


def _count(n, step):
    return n, n + step


def _accumulate(acc: Acc, x: jax.Array) -> tuple[jax.Array, Acc]:
    new = acc.replace(count=acc.count + 1, total=acc.total + x.sum())
    return new.total / new.count, new


def _thread(fn, state, calls):
    """The reference: thread ``state`` through ``fn`` by hand, as pure JAX code does."""
    outs = []
    for args in calls:
        out, state = fn(state, *args)
        outs.append(out)
    return outs, state


# --------------------------------------------------------------------------- dataclass


def test_dataclass_round_trips_as_pytree(assert_same_tree):
    p = _params()
    leaves, treedef = jax.tree.flatten(p)
    assert leaves == [p.w, p.b]  # the static field is not a leaf
    rebuilt = jax.tree.unflatten(treedef, leaves)
    assert type(rebuilt) is Params and rebuilt.activation == "tanh"
    assert_same_tree(rebuilt, p)


def test_dataclass_keystr_paths_name_fields():
    paths = [
        jax.tree_util.keystr(path) for path, _ in jax.tree_util.tree_leaves_with_path(_params())
    ]
    assert paths == [jax.tree_util.keystr((jax.tree_util.GetAttrKey(n),)) for n in ("w", "b")]
    assert [p.strip(".") for p in paths] == ["w", "b"]


def test_dataclass_tree_map_accepts_any_leaf():
    # JAX rebuilds the node through __init__ with whatever the leaves became.
    dtypes = jax.tree.map(lambda x: str(x.dtype), _params())
    assert (dtypes.w, dtypes.b, dtypes.activation) == ("float32", "float32", "tanh")


def test_dataclass_grad_matches_grad_over_tuple(run, assert_same_tree):
    x = jnp.asarray(0.3)
    g = run(jax.grad(_apply), _params(), x)
    g_tuple = run(jax.grad(lambda wb, x: _apply(Params(*wb), x)), (_params().w, _params().b), x)
    assert type(g) is Params and g.activation == "tanh"
    assert_same_tree((g.w, g.b), g_tuple)
    assert g.w.devices() == {run.device}


def test_dataclass_vmap_matches_vmap_over_tuple(run, assert_same_tree):
    batch = Params(w=jnp.arange(6.0).reshape(2, 3), b=jnp.asarray([0.5, -1.0]))
    x = jnp.asarray(0.3)
    out = run(jax.vmap(_apply, in_axes=(0, None)), batch, x)
    by_tuple = jax.vmap(lambda wb, x: _apply(Params(*wb), x), in_axes=(0, None))
    assert_same_tree(out, run(by_tuple, (batch.w, batch.b), x))


def test_static_field_is_in_treedef_and_retraces_jit():
    relu = _params().replace(activation="relu")
    assert jax.tree.structure(relu) != jax.tree.structure(_params())
    assert jax.tree.structure(relu) == jax.tree.structure(_params().replace(activation="relu"))

    traces = []

    @jax.jit
    def f(p, x):
        traces.append(p.activation)
        return _apply(p, x)

    x = jnp.asarray(0.3)
    f(_params(), x)
    f(_params(), x)
    assert traces == ["tanh"]
    out = f(relu, x)
    assert traces == ["tanh", "relu"]
    np.testing.assert_allclose(out, _apply(relu, x))


def test_replace_returns_changed_copy():
    p = _params()
    q = p.replace(b=jnp.asarray(2.0))
    assert type(q) is Params and q is not p and q.w is p.w
    assert (float(q.b), float(p.b)) == (2.0, 0.5)


def test_replace_unknown_field_names_valid_fields():
    with pytest.raises(TypeError, match=r"Params\.replace\(\) got unknown field\(s\)") as info:
        _params().replace(bb=1.0)
    message = str(info.value)
    assert "'bb' (did you mean 'b'?)" in message
    assert "the fields are: w, b, activation" in message


def test_dataclass_is_frozen():
    p = _params()
    with pytest.raises(dataclasses.FrozenInstanceError, match=r"obj = obj\.replace\(w=\.\.\.\)"):
        p.w = jnp.zeros(3)
    with pytest.raises(dataclasses.FrozenInstanceError, match="'b'"):
        del p.b
    assert float(p.b) == 0.5


def test_dataclass_subclass_adds_fields():
    @jaxpurity.dataclass
    class Scaled(Params):
        scale: jax.Array = 2.0

    s = Scaled(w=jnp.ones(2), b=jnp.zeros(()))
    paths = [jax.tree_util.keystr(path) for path, _ in jax.tree_util.tree_leaves_with_path(s)]
    assert paths == [".w", ".b", ".scale"]
    assert jax.tree.structure(s) != jax.tree.structure(s.replace(activation="relu"))
    with pytest.raises(TypeError, match=r"Scaled\.activation is a static_field\(\)"):
        s.replace(activation=["relu"])


def test_dataclass_keeps_user_post_init_and_methods():
    @jaxpurity.dataclass
    class Box:
        lo: jax.Array
        hi: jax.Array

        def __post_init__(self):
            if isinstance(self.lo, float) and self.lo > self.hi:
                raise ValueError("lo > hi")

        def width(self):
            return self.hi - self.lo

    assert float(jax.jit(Box.width)(Box(1.0, 3.0))) == 2.0
    with pytest.raises(ValueError, match="lo > hi"):
        Box(3.0, 1.0)


@pytest.mark.parametrize(
    ("value", "kind"),
    [([1, 2], "list"), ({"a": 1}, "dict"), (jnp.ones(2), "an array"), (np.ones(2), "an array")],
)
def test_unhashable_static_field_is_rejected(value, kind):
    with pytest.raises(TypeError, match=r"Params\.activation is a static_field\(\)") as info:
        Params(w=jnp.ones(2), b=jnp.ones(()), activation=value)
    assert f"must be hashable; got {kind}" in str(info.value)
    with pytest.raises(TypeError, match=r"Params\.activation is a static_field\(\)"):
        _params().replace(activation=value)


def test_mutable_static_value_gives_stale_jit_results_without_the_check():
    # What the check spares the user: jit keeps the static value in its cache key,
    # so a list changed in place still matches, and the stale trace is reused.
    @dataclasses.dataclass(frozen=True)
    class Raw:
        w: jax.Array
        sizes: list

    jax.tree_util.register_dataclass(Raw, data_fields=["w"], meta_fields=["sizes"])
    f = jax.jit(lambda r: r.w * len(r.sizes))
    sizes = [1, 2]
    f(Raw(jnp.ones(()), sizes))
    sizes.append(3)
    assert float(f(Raw(jnp.ones(()), sizes))) == 2.0  # stale: len(sizes) is 3
    assert float(f.__wrapped__(Raw(jnp.ones(()), sizes))) == 3.0


def test_dataclass_rejects_non_class():
    with pytest.raises(TypeError, match="decorates a class, not <function"):
        jaxpurity.dataclass(lambda: None)


def test_dataclass_rejects_field_named_replace():
    with pytest.raises(TypeError, match="Bad has a field named 'replace'"):

        @jaxpurity.dataclass
        class Bad:
            replace: int


def test_dataclass_rejects_init_false_field():
    with pytest.raises(TypeError, match=r"Bad\.cached has init=False"):

        @jaxpurity.dataclass
        class Bad:
            x: jax.Array
            cached: int = dataclasses.field(init=False, default=0)


def _field_named_replace() -> type:
    class Bad:
        replace: int = 0

    return Bad


def _init_false_field() -> type:
    class Bad:
        x: int = 0
        cached: int = dataclasses.field(init=False, default=0)

    return Bad


def _mutable_default() -> type:
    class Bad:
        items: list = []  # noqa: RUF012 - the mutable default is the case

    return Bad


def _picture(cls: type) -> tuple[dict, dict]:
    """A class's attributes (compared by identity), and the slots of the fields it holds."""
    fields = {
        name: {slot: getattr(value, slot, None) for slot in type(value).__slots__}
        for name, value in vars(cls).items()
        if isinstance(value, dataclasses.Field)
    }
    return dict(vars(cls)), fields


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (_field_named_replace, TypeError),  # jaxpurity's check, after dataclasses ran
        (_init_false_field, TypeError),  # the same; the field's default replaced the Field
        (_mutable_default, ValueError),  # dataclasses raises, having set __dataclass_params__
    ],
    ids=["field named replace", "init=False", "mutable default"],
)
def test_a_dataclass_that_raises_leaves_the_class_as_it_was(make, error):
    cls = make()
    attributes, fields = _picture(cls)
    with pytest.raises(error):
        jaxpurity.dataclass(cls)
    now_attributes, now_fields = _picture(cls)
    assert now_attributes.keys() == attributes.keys()
    changed = [name for name, value in attributes.items() if now_attributes[name] is not value]
    assert changed == []
    assert now_fields == fields
    assert not dataclasses.is_dataclass(cls)


# --------------------------------------------------------------------------- Stateful


def test_stateful_counts_like_hand_threaded_state(run, assert_same_tree):
    init = jax.device_put(0, run.device)
    counter = jaxpurity.Stateful(_count, init, jit=run.jit)
    outs = [counter(2) for _ in range(3)]
    expected_outs, expected_state = _thread(_count, jnp.int32(0), [(2,)] * 3)
    assert_same_tree(outs, expected_outs)
    assert_same_tree(counter.state, expected_state)
    assert counter.state.devices() == {run.device}


def test_stateful_with_dataclass_state(run, assert_same_tree):
    init = jax.device_put(Acc(count=jnp.int32(0), total=jnp.float32(0.0)), run.device)
    acc = jaxpurity.Stateful(_accumulate, init, jit=run.jit)
    calls = [(jnp.arange(3.0),), (jnp.ones(3),), (jnp.full(3, 2.0, jnp.float32),)]
    outs = [acc(*args) for args in calls]
    expected_outs, expected_state = _thread(_accumulate, init, calls)
    assert_same_tree(outs, expected_outs)
    assert type(acc.state) is Acc
    assert_same_tree(acc.state, expected_state)
    assert acc.trace_count == (1 if run.jit else 3)


def test_stateful_passes_kwargs_through(run, assert_same_tree):
    def step(n, x, *, scale):
        return x * scale, n + 1

    wrapped = jaxpurity.Stateful(step, 0, jit=run.jit)
    x = jnp.arange(3.0)
    outs = [wrapped(x, scale=2.0), wrapped(x, scale=3.0)]
    assert_same_tree(outs, [x * 2.0, x * 3.0])
    assert int(wrapped.state) == 2


def test_stateful_trace_count_matches_jax_jit():
    def step(n, x):
        return x * 2, n + 1

    traces = []

    @jax.jit
    def reference(n, x):
        traces.append(None)
        return step(n, x)

    wrapped = jaxpurity.Stateful(step, jnp.int32(0))
    state = jnp.int32(0)
    for x in [jnp.ones(3), jnp.zeros(3), jnp.ones(3), jnp.ones(4)]:
        wrapped(x)
        _, state = reference(state, x)
        assert wrapped.trace_count == len(traces)
    assert wrapped.trace_count == 2  # one per argument shape
    assert int(wrapped.state) == 4


def test_stateful_steps_a_state_as_deep_as_jax_takes(run):
    # 1,000 lists on Python 3.12 (JAX flattens ~1,500), 600 before (it flattens ~1,000):
    # deeper than Python's recursion limit, which the comparison of state types hit.
    depth = 1_000 if sys.version_info >= (3, 12) else 600
    state: Any = jnp.float32(0)
    for _ in range(depth):
        state = [state]

    def step(s):
        return None, jax.tree.map(lambda x: x + 1, s)

    if run.jit:
        try:
            jax.jit(step)(state)
        except (RecursionError, SystemError):  # JAX 0.4.35 names arguments by recursion
            pytest.skip(f"jax.jit of JAX {jax.__version__} takes no state {depth} levels deep")
    stepper = jaxpurity.Stateful(step, state, jit=run.jit)
    stepper()
    stepper()
    assert jax.tree.leaves(stepper.state) == [2.0]
    assert stepper.trace_count == (1 if run.jit else 2)


def test_stateful_without_jit_runs_fn_on_every_call():
    counter = jaxpurity.Stateful(_count, 0, jit=False)
    for _ in range(4):
        counter(1)
    assert counter.trace_count == 4


def test_stateful_reset_restores_init_without_retracing(run):
    counter = jaxpurity.Stateful(_count, 10, jit=run.jit)
    counter(1)
    counter(1)
    traces = counter.trace_count
    counter.reset()
    assert int(counter.state) == 10
    assert int(counter(1)) == 10
    assert counter.trace_count == traces + (0 if run.jit else 1)


def test_stateful_makes_weak_init_strong_so_jit_traces_once():
    def step(n):
        return n, n + jnp.int32(1)

    # Threading a Python 0 through jit by hand traces twice: weak int32, then strong.
    traces = []

    @jax.jit
    def by_hand(n):
        traces.append(None)
        return step(n)

    state = 0
    for _ in range(3):
        _, state = by_hand(state)
    assert len(traces) == 2

    counter = jaxpurity.Stateful(step, 0)
    assert counter.state.dtype == jnp.result_type(0) and not counter.state.weak_type
    for _ in range(3):
        counter()
    assert counter.trace_count == 1 and int(counter.state) == 3


def test_stateful_makes_weak_new_state_strong(run):
    # jit alone would trace again: a weak int32 output is a new input type.
    traces = []

    @jax.jit
    def by_hand(n):
        traces.append(None)
        return n, 0

    state = jnp.int32(5)
    for _ in range(3):
        _, state = by_hand(state)
    assert len(traces) == 2

    wrapped = jaxpurity.Stateful(lambda n: (n, 0), jnp.int32(5), jit=run.jit)
    for _ in range(3):
        wrapped()
    assert isinstance(wrapped.state, jax.Array) and not wrapped.state.weak_type
    assert wrapped.state.dtype == jnp.int32 and int(wrapped.state) == 0
    assert wrapped.trace_count == (1 if run.jit else 3)


def test_stateful_with_legacy_prng_key_state(run, assert_same_tree):
    def draw(key):
        key, sub = jax.random.split(key)
        return jax.random.uniform(sub, (2,)), key

    sampler = jaxpurity.Stateful(draw, jax.random.PRNGKey(0), jit=run.jit)
    outs = [sampler() for _ in range(3)]
    expected_outs, expected_key = _thread(draw, jax.random.PRNGKey(0), [()] * 3)
    assert_same_tree(outs, expected_outs)
    assert_same_tree(sampler.state, expected_key)


def test_stateful_with_typed_prng_key_state():
    def draw(key):
        key, sub = jax.random.split(key)
        return jax.random.uniform(sub, (2,)), key

    sampler = jaxpurity.Stateful(draw, jax.random.key(0))
    sampler()
    assert (
        jax.random.key_data(sampler.state).tolist()
        == jax.random.key_data(jax.random.split(jax.random.key(0))[0]).tolist()
    )


def test_stateful_type_change_names_leaf_and_says_retrace(run):
    def drift(acc, x):
        return None, acc.replace(count=acc.count + 1, total=acc.total + x)  # int + float

    wrapped = jaxpurity.Stateful(drift, Acc(count=jnp.int32(0), total=jnp.int32(0)), jit=run.jit)
    before = wrapped.state
    with pytest.raises(jaxpurity.TypeMismatchError, match=r"Stateful\(.*drift\)") as info:
        wrapped(jnp.float32(1.5))
    message = str(info.value)
    assert "trace and compile fn again" in message
    assert ".total" in message and ".count" not in message
    assert wrapped.state is before  # the failed step left the state alone


def test_stateful_growing_state_is_a_type_change(run):
    def append(xs, x):
        return None, jnp.concatenate([xs, x[None]])

    wrapped = jaxpurity.Stateful(append, jnp.zeros(0), jit=run.jit)
    with pytest.raises(jaxpurity.TypeMismatchError, match="on every call") as info:
        wrapped(jnp.float32(1.0))
    assert "float32[0]" in str(info.value) and "float32[1]" in str(info.value)
    assert "it grows each step. Preallocate the largest size" in str(info.value)
    assert "broadcast" not in str(info.value)


@pytest.mark.parametrize(
    ("fn", "described"),
    [
        (lambda n: n + 1, "it returned int32[];"),
        (lambda n: (n, n, n), "it returned tuple of length 3;"),
        (lambda n: {"out": n, "state": n}, "it returned dict with keys ['out', 'state'];"),
    ],
)
def test_stateful_wrong_return_form_says_expected_pair(run, fn, described):
    wrapped = jaxpurity.Stateful(fn, jnp.int32(0), jit=run.jit)
    with pytest.raises(TypeError, match=r"fn must return a pair \(out, new_state\)") as info:
        wrapped()
    assert described in str(info.value)


def test_stateful_rejects_non_callable_fn():
    with pytest.raises(TypeError, match="fn must be a callable") as info:
        jaxpurity.Stateful(0, _count)
    assert "did you swap fn and init_state?" in str(info.value)


def test_stateful_rejects_non_bool_jit():
    with pytest.raises(TypeError, match="jit must be True or False, not 'yes'"):
        jaxpurity.Stateful(_count, 0, jit="yes")


def test_stateful_rejects_non_array_state_leaf():
    with pytest.raises(TypeError, match=r"init_state leaf \['name'\] cannot be traced") as info:
        jaxpurity.Stateful(_count, {"n": 0, "name": "counter"})
    assert "static_field()" in str(info.value)


def test_stateful_inside_jit_refuses_to_leak_a_tracer():
    counter = jaxpurity.Stateful(_count, 0)

    @jax.jit
    def outer(x):
        return counter(x)

    with pytest.raises(TypeError, match="inside a JAX transformation") as info:
        outer(1)
    assert "out, state = _count(state, ...)" in str(info.value)
    assert int(counter.state) == 0
    assert not isinstance(counter.state, jax.core.Tracer)


def _counted(n, x):
    return x * 2, n + 1  # the new state does not depend on x


@pytest.mark.parametrize("how", ["jit", "vmap", "grad", "scan"])
def test_stateful_inside_any_transformation_raises_and_keeps_its_state(how):
    def body(counter, x):
        return counter(x)

    transformed = {
        "jit": lambda counter, xs: jax.jit(lambda x: body(counter, x))(xs[0]),
        "vmap": lambda counter, xs: jax.vmap(lambda x: body(counter, x))(xs),
        "grad": lambda counter, xs: jax.grad(lambda x: body(counter, x))(xs[0]),
        "scan": lambda counter, xs: jax.lax.scan(lambda c, x: (c, body(counter, x)), 0.0, xs),
    }[how]
    # Plain JAX with a hand-made Python-side state: under vmap one step for three examples.
    steps = []

    def by_hand(x):
        steps.append(None)
        return x * 2

    jax.vmap(by_hand)(jnp.ones(3))
    assert len(steps) == 1
    counter = jaxpurity.Stateful(_counted, 0)
    with pytest.raises(TypeError, match=r"Stateful\(_counted\) was called inside a JAX"):
        transformed(counter, jnp.ones(3))
    assert int(counter.state) == 0 and counter.trace_count == 0
    assert float(counter(1.0)) == 2.0 and int(counter.state) == 1  # plain Python: steps
