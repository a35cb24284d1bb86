"""Tests for jaxpurity/control/_collect.py: collect(fn, n) is jnp.stack([fn(i) ...]), one scan."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxpurity


def stacked(fn, n):
    """What collect promises to equal: the Python loop plus jnp.stack, leaf by leaf."""
    rows = [fn(jnp.int32(i)) for i in range(n)]
    return jax.tree_util.tree_map(lambda *leaves: jnp.stack(leaves), *rows)


ROWS = {
    "scalar": lambda i: i * i,
    "weak-python-scalar": lambda i: 2.5,
    "rank-2": lambda i: jnp.outer(jnp.arange(3.0) + i, jnp.arange(2.0)),
    "pytree": lambda i: {"v": jnp.full((2,), i, jnp.float16), "pair": (i % 2 == 0, None)},
}


@pytest.mark.parametrize("row", ROWS)
def test_collect_equals_stacking_a_python_loop(row, run, assert_same_tree):
    fn = ROWS[row]
    n = 5
    # run puts x on the device; collect's rows are computed from it there.
    assert_same_tree(
        run(lambda x: jaxpurity.collect(lambda i: (fn(i), x * i), n), jnp.float32(3)),
        run(lambda x: stacked(lambda i: (fn(i), x * i), n), jnp.float32(3)),
    )


@pytest.mark.parametrize("wide", [False, True])
def test_fn_receives_an_int32_scalar(wide, request):
    if wide:
        request.getfixturevalue("x64")  # int32 even where Python ints become int64
    seen = []
    jaxpurity.collect(lambda i: seen.append((i.shape, i.dtype)) or i, 3)
    assert seen == [((), jnp.int32)]


def test_n_may_be_a_numpy_integer():
    np.testing.assert_array_equal(jaxpurity.collect(lambda i: i, np.int64(3)), [0, 1, 2])


def test_zero_rows_keep_the_row_shape_and_dtype():
    def fn(i):
        return {"m": jnp.zeros((2, 3), jnp.int8) + i.astype(jnp.int8), "s": i * 0.5}

    out = jaxpurity.collect(fn, 0)
    row = jax.eval_shape(fn, jax.ShapeDtypeStruct((), jnp.int32))
    assert jax.tree_util.tree_structure(out) == jax.tree_util.tree_structure(row)
    assert (out["m"].shape, out["m"].dtype) == ((0, 2, 3), jnp.int8)
    assert (out["s"].shape, out["s"].dtype) == ((0,), jnp.float32)
    # Stacking a single row and dropping it gives the same: zero rows of that type.
    one = stacked(fn, 1)
    assert out["m"].shape == one["m"][:0].shape and out["s"].dtype == one["s"].dtype


def test_program_size_does_not_grow_with_n():
    def size(n):
        jaxpr = jax.make_jaxpr(lambda: jaxpurity.collect(lambda i: jnp.sin(i * 0.1), n))()
        (scan,) = jaxpr.jaxpr.eqns  # one scan whose body is traced once, whatever n is
        return scan.primitive.name, str(scan.params["jaxpr"]), scan.params["length"] == n

    assert size(10) == size(10_000)
    loop = jax.make_jaxpr(lambda: stacked(lambda i: jnp.sin(i * 0.1), 10))()
    assert len(loop.jaxpr.eqns) > 10  # the Python loop, by contrast, grows with n


def test_traced_n_error_gives_a_pattern_that_works():
    def fn(i):
        return i * 10

    with pytest.raises(TypeError) as info:
        jax.jit(lambda n: jaxpurity.collect(fn, n))(3)
    message = str(info.value)
    assert "n is traced" in message
    assert "jnp.where(jnp.arange(max_n) < n, ys, 0)" in message
    assert "jaxpurity.while_loop" in message
    assert "static_arguments.html" in message

    # The pattern the message gives, run under jit with a traced n:
    @jax.jit
    def masked(n):
        max_n = 5
        ys = jaxpurity.collect(fn, max_n)
        return jnp.where(jnp.arange(max_n) < n, ys, 0)

    assert masked(3).tolist() == [0, 10, 20, 0, 0]


BAD_N = [
    (
        "fn-not-callable",
        lambda: jaxpurity.collect([1, 2], 2),
        TypeError,
        [r"fn must be a function, got \[1, 2\]", r"lambda i: i \*\* 2"],
    ),
    (
        "n-bool",
        lambda: jaxpurity.collect(lambda i: i, True),
        TypeError,
        [r"n must be an int \(the number of rows\), got True, a bool", r"collect\(fn, 3\)"],
    ),
    (
        "n-float",
        lambda: jaxpurity.collect(lambda i: i, 3.0),
        TypeError,
        [r"got 3\.0 \(type float\)", r"int\(3\.0\)"],
    ),
    (
        "n-negative",
        lambda: jaxpurity.collect(lambda i: i, -2),
        ValueError,
        [r"n must be >= 0 .*got -2", r"max\(-2, 0\)"],
    ),
    (
        "n-past-a-dimension",  # nanobind's "incompatible function arguments" from lax
        lambda: jaxpurity.collect(lambda i: i, 2**70),
        ValueError,
        [r"n is 1180591620717411303424, more rows than an array can have", r"2\*\*63 - 1"],
    ),
    (
        "n-uint64-max",
        lambda: jaxpurity.collect(lambda i: i, np.uint64(2**64 - 1)),
        ValueError,
        [r"n is 18446744073709551615, more rows"],
    ),
    (
        "n-string",
        lambda: jaxpurity.collect(lambda i: i, "3"),
        TypeError,
        [r"got '3' \(type str\)", r"int\(n\)"],
    ),
    (
        "n-concrete-array",
        lambda: jaxpurity.collect(lambda i: i, jnp.int32(3)),
        TypeError,
        [r"n must be a Python int", r"int\(n\)"],
    ),
]


@pytest.mark.parametrize(
    ("call", "error", "patterns"),
    [pytest.param(call, error, patterns, id=name) for name, call, error, patterns in BAD_N],
)
def test_bad_n_error_names_the_problem_and_the_fix(call, error, patterns):
    with pytest.raises(error) as info:
        call()
    assert type(info.value) is error
    for pattern in patterns:
        assert re.search(pattern, str(info.value)), (pattern, str(info.value))
