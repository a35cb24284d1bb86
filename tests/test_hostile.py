"""Hostile inputs for every public function: a clear error that names what was wrong, or the
same answer as lax, and never an internal crash or a changed argument.

Each case is one call. ``BAD`` cases must raise the given error with a message that names the
argument and says what to pass; ``LIKE_LAX`` cases must be accepted and give what ``jax.lax``
gives; ``DIAGNOSED`` cases run ``check_pure`` / ``find_leaks`` / ``explain`` on odd functions
and inputs, which must give a report (find_leaks: or the function's own error, as jit raises it)
and leave the inputs as they were.
"""

from __future__ import annotations

import builtins
import collections
import dataclasses
import functools
import io
import os
import queue
import re
import string
import sys
import threading
import types
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import jaxpurity
from jaxpurity._introspect import own_attributes
from jaxpurity._leaftypes import is_tracer
from jaxpurity._trees import JAX_DEPTH

KEY = jax.random.key(0)


class Empty(NamedTuple):
    pass


class State(NamedTuple):
    count: jax.Array
    key: jax.Array


def _ident(x: Any) -> Any:
    return x


# -- Bad input: a clear error ---------------------------------------------------------------------

# (name, call, exception type, words the message must contain)
BAD: list[tuple[str, Callable[[], Any], type[BaseException], str]] = [
    (
        "cond pred is a key",
        lambda: jaxpurity.cond(KEY, lambda: 1.0, lambda: 2.0),
        TypeError,
        r"pred must be .* got a PRNG key",
    ),
    (
        "cond pred is a vector",
        lambda: jaxpurity.cond(jnp.ones(2) > 0, lambda: 1, lambda: 2),
        TypeError,
        r"pred must be a scalar",
    ),
    (
        "cond pred is a float",
        lambda: jaxpurity.cond(0.5, lambda: 1, lambda: 2),
        TypeError,
        r"pred is float32",
    ),
    (
        "cond pred is a string",
        lambda: jaxpurity.cond("yes", lambda: 1, lambda: 2),
        TypeError,
        r"pred must be a boolean scalar",
    ),
    (
        "cond true_fun not callable",
        lambda: jaxpurity.cond(True, 1, lambda: 2),
        TypeError,
        r"true_fun must be a function",
    ),
    (
        "cond false_fun not callable",
        lambda: jaxpurity.cond(True, lambda: 1, None),
        TypeError,
        r"false_fun must be a function",
    ),
    (
        "switch index is a key",
        lambda: jaxpurity.switch(KEY, [lambda: 1]),
        TypeError,
        r"index must be .* got a PRNG key",
    ),
    (
        "switch index is a float",
        lambda: jaxpurity.switch(1.5, [lambda: 1, lambda: 2]),
        TypeError,
        r"index is float32",
    ),
    (
        "switch index is a bool",
        lambda: jaxpurity.switch(True, [lambda: 1, lambda: 2]),
        TypeError,
        r"index is a bool",
    ),
    (
        "switch index out of range",
        lambda: jaxpurity.switch(5, [lambda: 1, lambda: 2]),
        ValueError,
        r"index 5 is out of range",
    ),
    (
        "switch negative index",
        lambda: jaxpurity.switch(-1, [lambda: 1, lambda: 2]),
        ValueError,
        r"index -1 is out of range",
    ),
    ("switch no branches", lambda: jaxpurity.switch(0, []), ValueError, r"branches is empty"),
    (
        "switch one function, not a list",
        lambda: jaxpurity.switch(0, lambda: 1),
        TypeError,
        r"branches must be a list or tuple",
    ),
    (
        "switch branches a string",
        lambda: jaxpurity.switch(0, "ab"),
        TypeError,
        r"branches must be a list or tuple",
    ),
    (
        "switch branch not callable",
        lambda: jaxpurity.switch(0, [lambda: 1, 2]),
        TypeError,
        r"branches\[1\] must be a function",
    ),
    (
        "scan f not callable",
        lambda: jaxpurity.scan(3, 0.0, jnp.ones(3)),
        TypeError,
        r"f must be a function",
    ),
    (
        "scan length a float",
        lambda: jaxpurity.scan(lambda c, x: (c, x), 0.0, None, length=2.5),
        TypeError,
        r"length must be a Python int",
    ),
    (
        "scan length a bool",
        lambda: jaxpurity.scan(lambda c, x: (c, x), 0.0, None, length=True),
        TypeError,
        r"length must be a Python int",
    ),
    (
        "scan length negative",
        lambda: jaxpurity.scan(lambda c, x: (c, x), 0.0, None, length=-1),
        ValueError,
        r"length must be >= 0",
    ),
    (
        "scan length disagrees",
        lambda: jaxpurity.scan(lambda c, x: (c, x), 0.0, jnp.ones(3), length=4),
        ValueError,
        r"length=4 but xs has leading size 3",
    ),
    (
        "scan no xs no length",
        lambda: jaxpurity.scan(lambda c, x: (c, x), 0.0, None),
        ValueError,
        r"length",
    ),
    (
        "scan scalar xs",
        lambda: jaxpurity.scan(lambda c, x: (c, x), 0.0, jnp.float32(1)),
        ValueError,
        r"scalar",
    ),
    (
        "scan body returns one value",
        lambda: jaxpurity.scan(lambda c, x: c, 0.0, jnp.ones(3)),
        TypeError,
        r"pair",
    ),
    (
        "fori_loop float bound",
        lambda: jaxpurity.fori_loop(0, 2.5, lambda i, c: c, 0.0),
        TypeError,
        r"upper is float32",
    ),
    (
        "fori_loop body not callable",
        lambda: jaxpurity.fori_loop(0, 3, None, 0.0),
        TypeError,
        r"body_fun must be a function",
    ),
    (
        "fori_loop string bound",
        lambda: jaxpurity.fori_loop("0", 3, lambda i, c: c, 0.0),
        TypeError,
        r"lower",
    ),
    (
        "while_loop cond not callable",
        lambda: jaxpurity.while_loop(1, lambda c: c, 0.0),
        TypeError,
        r"cond_fun must be a function",
    ),
    (
        "while_loop body not callable",
        lambda: jaxpurity.while_loop(lambda c: False, 1, 0.0),
        TypeError,
        r"body_fun must be a function",
    ),
    (
        "while_loop cond returns a vector",
        lambda: jaxpurity.while_loop(lambda c: c > 0, lambda c: c - 1, jnp.ones(2)),
        TypeError,
        r"cond_fun",
    ),
    (
        "collect n a float",
        lambda: jaxpurity.collect(lambda i: i, 2.5),
        TypeError,
        r"n must be a Python int",
    ),
    (
        "collect n negative",
        lambda: jaxpurity.collect(lambda i: i, -1),
        ValueError,
        r"n must be >= 0",
    ),
    (
        "collect fn not callable",
        lambda: jaxpurity.collect(3, 2),
        TypeError,
        r"fn must be a function",
    ),
    (
        "count_traces of a number",
        lambda: jaxpurity.count_traces(3),
        TypeError,
        r"fn must be a function",
    ),
    (
        "count_traces max_traces a float",
        lambda: jaxpurity.count_traces(_ident, max_traces=1.5),
        TypeError,
        r"max_traces must be a positive int",
    ),
    (
        "count_traces max_traces a bool",
        lambda: jaxpurity.count_traces(_ident, max_traces=True),
        TypeError,
        r"max_traces must be a positive int",
    ),
    (
        "count_traces max_traces zero",
        lambda: jaxpurity.count_traces(_ident, max_traces=0),
        ValueError,
        r"max_traces must be a positive int",
    ),
    (
        "count_traces max_traces a string",
        lambda: jaxpurity.count_traces(_ident, max_traces="2"),
        TypeError,
        r"max_traces must be a positive int",
    ),
    (
        "check_pure of a number",
        lambda: jaxpurity.check_pure(3, 1.0),
        TypeError,
        r"check_pure: fn must be a function",
    ),
    (
        "check_pure of None",
        lambda: jaxpurity.check_pure(None),
        TypeError,
        r"check_pure: fn must be a function",
    ),
    (
        "find_leaks of a string",
        lambda: jaxpurity.find_leaks("f", 1.0),
        TypeError,
        r"find_leaks: fn must be a function",
    ),
    (
        "check_pure inside jit",
        lambda: jax.jit(lambda x: jaxpurity.check_pure(_ident, x))(1.0),
        TypeError,
        r"call it from plain Python",
    ),
    (
        "find_leaks inside vmap",
        lambda: jax.vmap(lambda x: jaxpurity.find_leaks(_ident, x) and x)(jnp.ones(2)),
        TypeError,
        r"call it from plain Python",
    ),
    (
        "explain of a number",
        lambda: jaxpurity.explain(3),
        TypeError,
        r"explain\(\) takes an exception or its text",
    ),
    (
        "explain of bytes",
        lambda: jaxpurity.explain(b"TypeError"),
        TypeError,
        r"explain\(\) takes an exception or its text",
    ),
    (
        "explain of a list",
        lambda: jaxpurity.explain(["a"]),
        TypeError,
        r"explain\(\) takes an exception or its text",
    ),
    (
        "raises of a string",
        lambda: jaxpurity.raises("TypeError").__enter__(),
        TypeError,
        r"raises\(\) takes an exception class",
    ),
    (
        "raises of an instance",
        lambda: jaxpurity.raises(TypeError()).__enter__(),
        TypeError,
        r"raises\(\) takes an exception class",
    ),
    (
        "raises of an empty tuple",
        lambda: jaxpurity.raises(()).__enter__(),
        TypeError,
        r"raises\(\) takes an exception class",
    ),
    (
        "dataclass of a function",
        lambda: jaxpurity.dataclass(_ident),
        TypeError,
        r"decorates a class",
    ),
    (
        "Stateful of a number",
        lambda: jaxpurity.Stateful(3, 0.0),
        TypeError,
        r"fn must be a callable",
    ),
    (
        "check_pure on a cyclic list",
        lambda: jaxpurity.check_pure(lambda x, c: x, 1.0, _cyclic()),
        TypeError,
        r"holds a reference cycle",
    ),
    (
        "find_leaks on a cyclic list",
        lambda: jaxpurity.find_leaks(lambda x, c: x, 1.0, _cyclic()),
        TypeError,
        r"holds a reference cycle",
    ),
    # Trees JAX cannot flatten: lax raises a SystemError that names nothing.
    (
        "cond operand holds a cycle",
        lambda: jaxpurity.cond(True, _ident, _ident, _cyclic()),
        TypeError,
        r"^jaxpurity.cond: operands holds a reference cycle: operands\[0\]\[1\] is "
        r"operands\[0\] again \(a list that contains itself\)",
    ),
    (
        "cond operand= nested too deep",
        lambda: jaxpurity.cond(True, _ident, _ident, operand=_nested(TOO_DEEP)),
        TypeError,
        r"^jaxpurity.cond: operand is nested more than [\d,]+ levels deep \(operand\[0\]",
    ),
    (
        "cond like= holds a cycle",
        lambda: jaxpurity.cond(True, lambda: [1.0], lambda: [1.0], like=_cyclic()),
        TypeError,
        r"^jaxpurity.cond: like holds a reference cycle",
    ),
    (
        "cond like= nested too deep",
        lambda: jaxpurity.cond(True, lambda: 1.0, lambda: 1.0, like=_nested(TOO_DEEP)),
        TypeError,
        r"^jaxpurity.cond: like is nested more than",
    ),
    (
        "cond branch returns a tree nested too deep",
        lambda: jaxpurity.cond(True, lambda: _nested(TOO_DEEP), lambda: _nested(TOO_DEEP)),
        TypeError,
        r"^jaxpurity.cond: the output of true_fun is nested more than [\d,]+ levels deep "
        r"\(true_fun\(\.\.\.\)\[0\]",
    ),
    (
        "cond pred's every attribute read raises",
        lambda: jaxpurity.cond(HostileAttributes(), _ident, _ident, 1.0),
        TypeError,
        r"pred must be a boolean scalar such as x > 0, got <.*HostileAttributes object",
    ),
    (
        "switch operand nested too deep",
        lambda: jaxpurity.switch(0, [_ident, _ident], _nested(TOO_DEEP)),
        TypeError,
        r"^jaxpurity.switch: operands is nested more than",
    ),
    (
        "switch branch returns a cycle",
        lambda: jaxpurity.switch(1, [lambda: [1.0, 2.0], lambda: _cyclic()]),
        TypeError,
        r"^jaxpurity.switch: the output of branches\[1\] holds a reference cycle",
    ),
    (
        "switch index's every attribute read raises",
        lambda: jaxpurity.switch(HostileAttributes(), [_ident], 1.0),
        TypeError,
        r"index must be an integer scalar",
    ),
    (
        "fori_loop init_val holds a cycle",
        lambda: jaxpurity.fori_loop(0, 2, lambda i, c: c, _cyclic()),
        TypeError,
        r"^jaxpurity.fori_loop: init_val holds a reference cycle",
    ),
    (
        "fori_loop body returns a tree nested too deep",
        lambda: jaxpurity.fori_loop(0, 2, lambda i, c: _nested(TOO_DEEP, c), 1.0),
        TypeError,
        r"^jaxpurity.fori_loop: the output of body_fun is nested more than",
    ),
    (
        "while_loop init_val nested too deep",
        lambda: jaxpurity.while_loop(lambda c: False, _ident, _nested(TOO_DEEP)),
        TypeError,
        r"^jaxpurity.while_loop: init_val is nested more than",
    ),
    (
        "while_loop body returns a cycle",
        lambda: jaxpurity.while_loop(lambda c: False, lambda c: [c, _cyclic()], 1.0),
        TypeError,
        r"^jaxpurity.while_loop: the output of body_fun holds a reference cycle",
    ),
    (
        "scan xs holds a cycle",
        lambda: jaxpurity.scan(lambda c, x: (c, x), 0.0, [jnp.ones(3), _cyclic()]),
        TypeError,
        r"^jaxpurity.scan: xs holds a reference cycle",
    ),
    (
        "scan init nested too deep",
        lambda: jaxpurity.scan(lambda c, x: (c, x), _nested(TOO_DEEP), jnp.ones(3)),
        TypeError,
        r"^jaxpurity.scan: init is nested more than",
    ),
    (
        "scan f returns a carry nested too deep",
        lambda: jaxpurity.scan(lambda c, x: (_nested(TOO_DEEP, c), x), 0.0, jnp.ones(3)),
        TypeError,
        r"^jaxpurity.scan: the output of f is nested more than [\d,]+ levels deep "
        r"\(f\(\.\.\.\)\[0\]\[0\]",
    ),
    (
        "collect fn returns a cycle",
        lambda: jaxpurity.collect(lambda i: [i, _cyclic()], 3),
        TypeError,
        r"^jaxpurity.collect: the output of fn holds a reference cycle",
    ),
    (
        "collect fn returns a row nested too deep, n=0",
        lambda: jaxpurity.collect(lambda i: _nested(TOO_DEEP, i), 0),
        TypeError,
        r"^jaxpurity.collect: the output of fn is nested more than",
    ),
    (
        "Stateful init_state holds a cycle",
        lambda: jaxpurity.Stateful(lambda s: (None, s), _cyclic()),
        TypeError,
        r"^Stateful\(<lambda>\): init_state holds a reference cycle",
    ),
    (
        "Stateful init_state nested too deep",
        lambda: jaxpurity.Stateful(lambda s: (None, s), _nested(TOO_DEEP)),
        TypeError,
        r"^Stateful\(<lambda>\): init_state is nested more than",
    ),
    (
        "Stateful fn returns a new state nested too deep",
        lambda: jaxpurity.Stateful(lambda s: (None, _nested(TOO_DEEP, s)), 1.0)(),
        TypeError,
        r"^Stateful\(<lambda>\): the output of fn is nested more than [\d,]+ levels deep "
        r"\(fn\(\.\.\.\)\[1\]\[0\]",
    ),
    (
        "Stateful argument holds a cycle",
        lambda: jaxpurity.Stateful(lambda s, x: (None, s), 1.0)(_cyclic()),
        TypeError,
        r"^Stateful\(<lambda>\): args holds a reference cycle",
    ),
    (
        "Stateful init_state leaf whose repr raises",
        lambda: jaxpurity.Stateful(lambda s: (None, s), [Broken()]),
        TypeError,
        r"init_state leaf \[0\] cannot be traced: an object of type Broken whose repr raises",
    ),
]


@pytest.mark.parametrize(("name", "call", "error", "words"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_gets_a_clear_error(name, call, error, words):
    with pytest.raises(error) as info:
        call()
    assert re.search(words, str(info.value)), f"{name}: {info.value}"


# -- What lax accepts, the drop-ins accept -------------------------------------------------------

# (name, jaxpurity call, the lax call it must agree with)
LIKE_LAX: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = [
    (
        "scan an empty dict carry",
        lambda: jaxpurity.scan(lambda c, x: (c, x), {}, jnp.ones(3)),
        lambda: lax.scan(lambda c, x: (c, x), {}, jnp.ones(3)),
    ),
    (
        "scan an empty tuple carry",
        lambda: jaxpurity.scan(lambda c, x: (c, x), (), jnp.ones(3)),
        lambda: lax.scan(lambda c, x: (c, x), (), jnp.ones(3)),
    ),
    (
        "scan an empty NamedTuple carry (optax's empty state)",
        lambda: jaxpurity.scan(lambda c, x: (c, x), Empty(), jnp.ones(3)),
        lambda: lax.scan(lambda c, x: (c, x), Empty(), jnp.ones(3)),
    ),
    (
        "scan a None carry",
        lambda: jaxpurity.scan(lambda c, x: (c, x * 2), None, jnp.ones(3)),
        lambda: lax.scan(lambda c, x: (c, x * 2), None, jnp.ones(3)),
    ),
    (
        "scan a key in the carry",
        lambda: jaxpurity.scan(lambda k, x: (jax.random.split(k)[0], x), KEY, jnp.ones(3)),
        lambda: lax.scan(lambda k, x: (jax.random.split(k)[0], x), KEY, jnp.ones(3)),
    ),
    (
        "scan a NamedTuple state with a key",
        lambda: jaxpurity.scan(
            lambda s, x: (State(s.count + 1, s.key), x), State(jnp.int32(0), KEY), jnp.ones(2)
        ),
        lambda: lax.scan(
            lambda s, x: (State(s.count + 1, s.key), x), State(jnp.int32(0), KEY), jnp.ones(2)
        ),
    ),
    (
        "scan length zero",
        lambda: jaxpurity.scan(lambda c, x: (c + 1, c), 0, None, length=0),
        lambda: lax.scan(lambda c, x: (c + 1, c), 0, None, length=0),
    ),
    (
        "scan no xs with length",
        lambda: jaxpurity.scan(lambda c, x: (c + 1, c), 0, None, length=3),
        lambda: lax.scan(lambda c, x: (c + 1, c), 0, None, length=3),
    ),
    (
        "cond branches return empty dicts",
        lambda: jaxpurity.cond(True, lambda: {}, lambda: {}),
        lambda: lax.cond(True, lambda: {}, lambda: {}),
    ),
    (
        "cond branches return empty tuples",
        lambda: jaxpurity.cond(False, lambda: (), lambda: ()),
        lambda: lax.cond(False, lambda: (), lambda: ()),
    ),
    (
        "cond branches return None and an array",
        lambda: jaxpurity.cond(
            True, lambda: (None, jnp.float32(1)), lambda: (None, jnp.float32(2))
        ),
        lambda: lax.cond(True, lambda: (None, jnp.float32(1)), lambda: (None, jnp.float32(2))),
    ),
    (
        "cond with no operands",
        lambda: jaxpurity.cond(True, lambda: 1.0, lambda: 2.0),
        lambda: lax.cond(True, lambda: 1.0, lambda: 2.0),
    ),
    (
        "cond returns keys",
        lambda: jaxpurity.cond(True, lambda k: k, lambda k: k, KEY),
        lambda: lax.cond(True, lambda k: k, lambda k: k, KEY),
    ),
    (
        "switch with one branch",
        lambda: jaxpurity.switch(0, [lambda: 1.0]),
        lambda: lax.switch(0, [lambda: 1.0]),
    ),
    (
        "switch branches return empty",
        lambda: jaxpurity.switch(1, [lambda: (), lambda: ()]),
        lambda: lax.switch(1, [lambda: (), lambda: ()]),
    ),
    (
        "fori_loop an empty carry",
        lambda: jaxpurity.fori_loop(0, 3, lambda i, c: c, ()),
        lambda: lax.fori_loop(0, 3, lambda i, c: c, ()),
    ),
    (
        "fori_loop zero trips",
        lambda: jaxpurity.fori_loop(0, 0, lambda i, c: c + 1, 0),
        lambda: lax.fori_loop(0, 0, lambda i, c: c + 1, 0),
    ),
    (
        "fori_loop a key carry",
        lambda: jaxpurity.fori_loop(0, 2, lambda i, k: jax.random.split(k)[0], KEY),
        lambda: lax.fori_loop(0, 2, lambda i, k: jax.random.split(k)[0], KEY),
    ),
    (
        "while_loop an empty dict",
        lambda: jaxpurity.while_loop(lambda c: False, lambda c: c, {}),
        lambda: lax.while_loop(lambda c: False, lambda c: c, {}),
    ),
    (
        "while_loop a dict carry",
        lambda: jaxpurity.while_loop(
            lambda c: c["n"] < 3, lambda c: {"n": c["n"] + 1}, {"n": jnp.int32(0)}
        ),
        lambda: lax.while_loop(
            lambda c: c["n"] < 3, lambda c: {"n": c["n"] + 1}, {"n": jnp.int32(0)}
        ),
    ),
    (
        "collect zero rows",
        lambda: jaxpurity.collect(lambda i: jnp.float32(i), 0),
        lambda: jnp.zeros((0,), jnp.float32),
    ),
]


def _same(a: Any, b: Any) -> None:
    assert jax.tree_util.tree_structure(a) == jax.tree_util.tree_structure(b)
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b), strict=True):
        x, y = jnp.asarray(x), jnp.asarray(y)
        if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
            x, y = jax.random.key_data(x), jax.random.key_data(y)
        assert (x.shape, x.dtype) == (y.shape, y.dtype)
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


@pytest.mark.parametrize(("name", "ours", "theirs"), LIKE_LAX, ids=[c[0] for c in LIKE_LAX])
def test_what_lax_accepts_the_drop_ins_accept(name, ours, theirs):
    _same(ours(), theirs())


# -- The diagnostics on odd functions and inputs ------------------------------------------------


class Broken:
    """An argument whose repr, eq and hash all raise."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no eq")

    __hash__ = None  # type: ignore[assignment]


class Slotted:
    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


@dataclasses.dataclass(frozen=True)
class Frozen:
    scale: float = 2.0


def _cyclic() -> list[Any]:
    cycle: list[Any] = [1]
    cycle.append(cycle)
    return cycle


#: Deeper than JAX flattens pytrees on this Python (jaxpurity._trees.JAX_DEPTH).
TOO_DEEP = 2 * JAX_DEPTH


def _nested(depth: int, leaf: Any = 1.0) -> list[Any]:
    """``depth`` lists, each holding the next, the innermost holding ``leaf``."""
    tree: list[Any] = [leaf]
    for _ in range(depth - 1):
        tree = [tree]
    return tree


class HostileAttributes:
    """An object whose every attribute read raises (not AttributeError)."""

    def __getattribute__(self, name: str) -> Any:
        raise RuntimeError(f"reading {name} raised on purpose")


def _deep(n: int) -> dict[str, Any]:
    tree: dict[str, Any] = {"leaf": 1}
    for _ in range(n):
        tree = {"child": tree}
    return tree


def _uses_default(x, acc=[]):  # noqa: B006 - the mutable default argument is the case
    acc.append(1)
    return x * len(acc)


class CallMe:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, x: jax.Array) -> jax.Array:
        self.calls += 1
        return x * 2


def _raises_value_error(x: jax.Array) -> jax.Array:
    raise ValueError("the function's own error")


def _recursive(x: jax.Array, n: int = 3) -> jax.Array:
    return x if n == 0 else _recursive(x * 2, n - 1)


def _is_even(x: jax.Array, n: int = 4) -> jax.Array:
    return x if n == 0 else _is_odd(x + 1, n - 1)


def _is_odd(x: jax.Array, n: int) -> jax.Array:
    return x if n == 0 else _is_even(x * 2, n - 1)


def _own_attribute(x: jax.Array) -> jax.Array:
    return x * _own_attribute.scale  # type: ignore[attr-defined]


_own_attribute.scale = 2.0  # type: ignore[attr-defined]


def _own_default(x: jax.Array, me: Any = None) -> jax.Array:
    return x * 2 if me is None else me(x, None)


_own_default.__defaults__ = (_own_default,)


def _stax_layer() -> Callable[[jax.Array], jax.Array]:
    """A stax-style layer that names itself through its closure cell."""

    def apply_fun(x: jax.Array) -> jax.Array:
        return x * len(apply_fun.states)  # type: ignore[attr-defined]

    apply_fun.states = [1, 2]  # type: ignore[attr-defined]
    return apply_fun


namespace: dict[str, Any] = {"jnp": jnp}
exec("def from_exec(x):\n    return jnp.sin(x)\n", namespace)  # no source file to read

# (name, fn, args, kwargs, what the check may raise: None, or the function's own error type)
DIAGNOSED: list[tuple[str, Callable[..., Any], tuple[Any, ...], dict[str, Any], Any]] = [
    ("a lambda", lambda x: x * 2, (jnp.ones(2),), {}, None),
    ("a builtin numpy ufunc", jnp.sin, (jnp.ones(2),), {}, None),
    ("a functools.partial", functools.partial(lambda x, k: x * k, k=3), (jnp.ones(2),), {}, None),
    ("a callable object", CallMe(), (jnp.ones(2),), {}, None),
    ("a jitted lambda", jax.jit(lambda x: x + 1), (jnp.ones(2),), {}, None),
    ("a grad", jax.grad(lambda x: (x**2).sum()), (jnp.ones(2),), {}, None),
    ("a vmap", jax.vmap(lambda x: x * 2), (jnp.ones((2, 3)),), {}, None),
    ("a function from exec", namespace["from_exec"], (jnp.ones(2),), {}, None),
    ("a mutable default argument", _uses_default, (jnp.ones(2),), {}, None),
    ("keyword-only arguments", lambda *, x: x * 2, (), {"x": jnp.ones(2)}, None),
    ("*args", lambda *xs: sum(xs), (jnp.ones(2), jnp.ones(2)), {}, None),
    ("**kwargs", lambda **kw: kw["a"] * 2, (), {"a": jnp.ones(2)}, None),
    ("no arguments", lambda: jnp.ones(2), (), {}, None),
    ("returns None", lambda x: None, (jnp.ones(2),), {}, None),
    ("returns a string", lambda x: "done", (jnp.ones(2),), {}, None),
    ("returns a nested pytree", lambda x: {"a": [x, (x, x)]}, (jnp.ones(2),), {}, None),
    ("raises its own error", _raises_value_error, (jnp.ones(2),), {}, ValueError),
    (
        "an argument whose repr, eq and hash raise",
        lambda x, b: x,
        (jnp.ones(2), Broken()),
        {},
        None,
    ),
    ("a deeply nested dict argument", lambda x, d: x, (jnp.ones(2), _deep(50)), {}, None),
    ("a __slots__ object argument", lambda x, s: x + s.value, (jnp.ones(2), Slotted()), {}, None),
    ("a frozen dataclass argument", lambda x, f: x * f.scale, (jnp.ones(2), Frozen()), {}, None),
    ("a numpy array argument", lambda x: x * 2, (np.ones(3),), {}, None),
    ("a numpy scalar argument", lambda x: x * 2, (np.float32(2),), {}, None),
    ("a string argument", lambda x, mode: x if mode == "id" else -x, (jnp.ones(2), "id"), {}, None),
    ("a key argument", lambda k: jax.random.normal(k, (2,)), (KEY,), {}, None),
    ("a zero-size array", lambda x: x.sum(), (jnp.ones((0, 3)),), {}, None),
    ("a bool argument", lambda x, flag: x, (jnp.ones(2), True), {}, None),
    ("a None argument", lambda x, y: x, (jnp.ones(2), None), {}, None),
    ("an empty dict argument", lambda x, d: x, (jnp.ones(2), {}), {}, None),
    ("a deque argument", lambda x, q: x, (jnp.ones(2), collections.deque([1])), {}, None),
    ("a generator function", lambda x: (y for y in [x]), (jnp.ones(2),), {}, None),
    ("float64 under default config", lambda x: x * 2, (np.ones(2, np.float64),), {}, None),
    ("complex input", lambda x: x * 1j, (jnp.ones(2),), {}, None),
    ("an int8 array", lambda x: x + 1, (jnp.ones(2, jnp.int8),), {}, None),
    ("a recursive function", _recursive, (jnp.ones(2),), {}, None),
    ("mutually recursive functions", _is_even, (jnp.ones(2),), {}, None),
    ("a function that reads its own attribute", _own_attribute, (jnp.ones(2),), {}, None),
    ("a function that is its own default", _own_default, (jnp.ones(2),), {}, None),
    ("a function that names itself in its closure", _stax_layer(), (jnp.ones(2),), {}, None),
]


@pytest.mark.timeout(60)  # a diagnostic that hangs fails here, not the whole run
@pytest.mark.parametrize("api", ["check_pure", "find_leaks"])
@pytest.mark.parametrize(
    ("name", "fn", "args", "kwargs", "own"), DIAGNOSED, ids=[d[0] for d in DIAGNOSED]
)
def test_the_diagnostics_take_odd_functions_and_inputs(name, fn, args, kwargs, own, api):
    check = getattr(jaxpurity, api)
    if own is not None and api == "find_leaks":
        with pytest.raises(own):
            check(fn, *args, **kwargs)
        return
    result = check(fn, *args, **kwargs)
    if own is not None:  # check_pure reports the function's own error: no crash
        assert [p.kind for p in result.problems] == ["trace-error"], str(result)
        assert own.__name__ in result.problems[0].message
    if api == "check_pure":
        assert isinstance(result, jaxpurity.PurityReport)
        str(result)  # the report can be written out
    else:
        assert isinstance(result, list)


def _scaled(x: jax.Array, scale: Any) -> jax.Array:
    return x * 2 if scale else x


# Static arguments of every kind jit hashes: a NumPy scalar, a NumPy string, a 0-d array is
# not hashable and so not among them.
STATIC_VALUES = [
    pytest.param(True, id="bool"),
    pytest.param(2.0, id="float"),
    pytest.param(np.float32(2.0), id="numpy float32"),
    pytest.param(np.int64(3), id="numpy int64"),
    pytest.param(np.bool_(True), id="numpy bool"),
    pytest.param(np.str_("on"), id="numpy str"),
]


@pytest.mark.parametrize("value", STATIC_VALUES)
@pytest.mark.parametrize("by", ["static_argnums", "static_argnames"])
def test_a_jit_wrappers_static_argument_is_kept_static_on_every_jax(value, by):
    # On JAX 0.4.35 the wrapper's static arguments were unknown to check_pure, which traced
    # them: `if scale` raised TracerBoolConversionError from the user's own correct code.
    wrapper = jax.jit(_scaled, **{by: {"static_argnums": 1, "static_argnames": "scale"}[by]})
    report = jaxpurity.check_pure(wrapper, jnp.ones(2), value)
    assert report.ok, str(report)
    assert jaxpurity.find_leaks(wrapper, jnp.ones(2), value) == []


def test_a_mutable_default_argument_is_called_one_in_the_report():
    report = jaxpurity.check_pure(_uses_default, jnp.ones(2))
    text = str(report)
    assert "acc" in text, text
    assert _uses_default.__defaults__ == ([],)  # put back: the default list is empty again


def test_a_list_item_changed_in_place_says_which_item():
    items = ["idle", "idle"]

    def mark(x: jax.Array) -> jax.Array:
        items[1] = "busy"  # a new value in place of item 1; the length stays 2
        return x

    report = jaxpurity.check_pure(mark, jnp.ones(2))
    text = str(report)
    assert "went from 2 to 2 item(s)" not in text
    assert "item 1 went from 'idle' to 'busy'" in text, text
    assert items == ["idle", "idle"]


EXPLAINED = [
    "",
    " " * 10_000,
    "\x00\x01\x02" * 1000,
    "Traceback (most recent call last):\n" * 100,
    "E" * 100_000 + "rror:",
    "é" * 10_000,
    "\ud800",  # a lone surrogate
    "TypeError:" * 10_000,
]


@pytest.mark.parametrize("text", EXPLAINED, ids=[f"text-{i}" for i in range(len(EXPLAINED))])
def test_explain_takes_junk_text_without_error(text):
    assert not jaxpurity.explain(text).recognised


def test_explain_takes_a_cyclic_chain_of_exceptions():
    a, b = ValueError("a"), ValueError("b")
    a.__cause__, b.__cause__ = b, a
    assert not jaxpurity.explain(a).recognised


def test_raises_shows_an_exception_whose_str_raises(capsys):
    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no str")

    with jaxpurity.raises(Unprintable):
        raise Unprintable()
    assert "Unprintable: <the message could not be shown" in capsys.readouterr().out


# -- The diagnostics leave the process as they found it ---------------------------------------


def _writes_environ(x: jax.Array) -> jax.Array:
    os.environ["JAXPURITY_TEST_WRITTEN"] = "by the function"
    return x * 2


def _flips_x64(x: jax.Array) -> jax.Array:
    jax.config.update("jax_enable_x64", not jax.config.jax_enable_x64)
    return x * 2


def _leaks_into_the_standard_library(x: jax.Array) -> jax.Array:
    string.leaked = x  # a module outside the user's code
    string.Template.leaked = x  # a class of it
    builtins.leaked = x
    sys.modules["jaxpurity_test_leak"] = x
    types.SimpleNamespace.__init__  # noqa: B018 - read only
    return x * 2


@pytest.mark.timeout(60)
@pytest.mark.parametrize("api", ["check_pure", "find_leaks"])
@pytest.mark.parametrize(
    "fn", [_writes_environ, _flips_x64, _leaks_into_the_standard_library], ids=lambda f: f.__name__
)
def test_the_diagnostics_put_back_the_environment_jax_flags_and_library_modules(fn, api):
    x64, environ = jax.config.jax_enable_x64, dict(os.environ)
    getattr(jaxpurity, api)(fn, jnp.ones(2))
    assert jax.config.jax_enable_x64 == x64 and dict(os.environ) == environ
    assert not hasattr(string, "leaked") and not hasattr(string.Template, "leaked")
    assert not hasattr(builtins, "leaked") and "jaxpurity_test_leak" not in sys.modules


def _counts_itself(x: jax.Array) -> jax.Array:
    _counts_itself.calls += 1  # type: ignore[attr-defined]
    return x * _counts_itself.calls  # type: ignore[attr-defined]


_counts_itself.calls = 0  # type: ignore[attr-defined]
_LINES = io.StringIO("1\n2\n3\n4\n5\n6\n7\n8\n")
_BUFFER = io.BytesIO()


def _reads_a_line(x: jax.Array) -> jax.Array:
    return x * float(_LINES.readline() or 0)


def _writes_a_buffer(x: jax.Array) -> jax.Array:
    _BUFFER.write(b"written")
    return x * 2


@pytest.mark.timeout(60)
@pytest.mark.parametrize("api", ["check_pure", "find_leaks"])
def test_the_diagnostics_put_back_a_functions_attributes_and_where_a_file_is_read(api):
    getattr(jaxpurity, api)(_counts_itself, jnp.ones(2))
    assert _counts_itself.calls == 0  # type: ignore[attr-defined]
    getattr(jaxpurity, api)(_reads_a_line, jnp.ones(2))
    assert _LINES.tell() == 0
    getattr(jaxpurity, api)(_writes_a_buffer, jnp.ones(2))
    assert _BUFFER.getvalue() == b"" and _BUFFER.tell() == 0


class _RaisingGetattribute:
    def __getattribute__(self, name: str) -> Any:
        raise RuntimeError(f"{name} is not to be read")


class _RaisingDict:
    @property
    def __dict__(self) -> Any:  # type: ignore[override]
        raise RuntimeError("__dict__ is not to be read")


_HOSTILE_GLOBAL: Any = None  # set by the test: pytest's collection would read its attributes


def _holds_a_hostile_global(x: jax.Array) -> jax.Array:
    return x * 2 if _HOSTILE_GLOBAL is not None else x


@pytest.mark.timeout(60)
@pytest.mark.parametrize("api", ["check_pure", "find_leaks"])
@pytest.mark.parametrize("hostile", [_RaisingGetattribute, _RaisingDict], ids=lambda c: c.__name__)
def test_an_object_whose_attributes_raise_is_no_crash(hostile, api, monkeypatch):
    monkeypatch.setitem(globals(), "_HOSTILE_GLOBAL", hostile())
    check = getattr(jaxpurity, api)
    check(lambda x, obj: x * 2, jnp.ones(2), hostile())
    check(_holds_a_hostile_global, jnp.ones(2))
    wrapper = functools.wraps(_ident)(lambda x: x)
    wrapper.__wrapped__ = wrapper  # a wrapper loop: inspect.unwrap raises
    check(wrapper, jnp.ones(2))


def _stores_on_a_hostile_global(x: jax.Array) -> jax.Array:
    _HOSTILE_GLOBAL.seen = x.sum()  # object.__setattr__: no attribute is read
    return x * 2


@pytest.mark.timeout(60)
@pytest.mark.parametrize("api", ["check_pure", "find_leaks"])
def test_a_tracer_stored_on_an_object_whose_attribute_reads_raise_is_found_and_taken_back(
    api, monkeypatch
):
    hostile = _RaisingGetattribute()
    monkeypatch.setitem(globals(), "_HOSTILE_GLOBAL", hostile)
    report = getattr(jaxpurity, api)(_stores_on_a_hostile_global, jnp.ones(2))
    text = str(report)
    assert "global `_HOSTILE_GLOBAL`" in text and "attribute `seen`" in text, text
    assert not any(is_tracer(v) for v in own_attributes(hostile).values())


@pytest.mark.timeout(60)
def test_check_pure_called_from_a_thread_the_checked_function_starts_is_refused_not_hung():
    errors: queue.SimpleQueue[BaseException] = queue.SimpleQueue()  # no state check_pure puts back

    def starts_a_check(x: jax.Array) -> jax.Array:
        def check() -> None:
            try:
                jaxpurity.check_pure(lambda y: y, jnp.ones(2))
            except TypeError as error:
                errors.put(error)

        worker = threading.Thread(target=check)
        worker.start()
        worker.join()
        return x * 2

    report = jaxpurity.check_pure(starts_a_check, jnp.ones(2))  # (errors: a closure changed)
    assert isinstance(report, jaxpurity.PurityReport)
    assert "from a thread that the function being checked started" in str(errors.get_nowait())


def test_the_function_to_check_is_positional_only_so_a_keyword_named_fn_reaches_it():
    def scale(x: jax.Array, fn: float) -> jax.Array:
        return x * fn

    assert jaxpurity.check_pure(scale, jnp.ones(2), fn=2.0).ok
    assert jaxpurity.find_leaks(scale, jnp.ones(2), fn=2.0) == []
