"""Tests for the drop-ins (jaxpurity/control/_branches.py, _loops.py, _through_lax.py): they match
lax, and say what lax does not."""

from __future__ import annotations

import os
import pathlib
import pydoc
import re
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import jaxpurity
from jaxpurity import TypeMismatchError

ROOT = pathlib.Path(__file__).resolve().parents[1]
F16 = jnp.float16


# ----------------------------------------------------------------------------------------
# Programs written twice: once with jaxpurity, once with lax. Each entry is
# (ours, lax's, args); the two must trace to the same jaxpr and compute the same values.


def _cond_operands(api):
    return lambda x: api.cond(x.sum() > 0, lambda a, b: a + b, lambda a, b: a * b, x, 2.0)


def _cond_closure(api):
    def f(x, p):
        return api.cond(p, lambda: {"s": x.sum(), "v": x}, lambda: {"s": x.max(), "v": -x})

    return f


def _cond_legacy_operand(api):
    return lambda x: api.cond(x[0] > 0, lambda a: a + 1, lambda a: a - 1, operand=x)


def _switch(api):
    branches = [lambda a: a, lambda a: jnp.sin(a), lambda a: a * a]
    return lambda i, x: api.switch(i, branches, x)


def _fori_static(api):
    return lambda x: api.fori_loop(
        0, 5, lambda i, c: (c[0] + i * c[1], c[1] * 0.5), (jnp.zeros_like(x), x), unroll=2
    )


def _fori_traced(api):
    return lambda n, x: api.fori_loop(0, n, lambda i, c: c + i, x)


def _while(api):
    return lambda x: api.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 1.5), (0, x))


def _scan(api):
    def step(c, xs):
        return c + xs["a"] * xs["b"], {"prod": c * xs["a"], "none": None}

    return lambda x: api.scan(step, x[0], {"a": x, "b": 2 * x}, reverse=True, unroll=2)


def _scan_length(api):
    return lambda x: api.scan(lambda c, _: (c * 2, c), x, length=4)


def _weak_init_same_dtype(api):
    # init 0.0 is weak float32, the body returns strong float32: lax accepts it, and so do we.
    return lambda x: api.fori_loop(0, 3, lambda i, c: c + x.sum(), 0.0)


X = jnp.array([1.0, -2.0, 3.0], jnp.float32)
CASES = {
    "cond-operands": (_cond_operands, (X,)),
    "cond-closure-pytree": (_cond_closure, (X, jnp.array(False))),
    "cond-legacy-operand": (_cond_legacy_operand, (X,)),
    "switch": (_switch, (jnp.int32(2), X)),
    "fori-static-pytree": (_fori_static, (X,)),
    "fori-traced-bounds": (_fori_traced, (jnp.int32(4), X)),
    "while": (_while, (X,)),
    "scan-xs-pytree": (_scan, (X,)),
    "scan-length": (_scan_length, (X,)),
    "weak-init-same-dtype": (_weak_init_same_dtype, (X,)),
}


@pytest.mark.parametrize("case", CASES)
def test_drop_in_traces_to_exactly_lax_program(case):
    make, args = CASES[case]
    ours = jax.make_jaxpr(make(jaxpurity))(*args)
    theirs = jax.make_jaxpr(make(lax))(*args)
    assert str(ours) == str(theirs)


def _lowered_with_locations(fn, args):
    lowered = jax.jit(fn).lower(*args)
    try:
        return lowered.as_text(debug_info=True)
    except TypeError:  # JAX 0.4.35's as_text has no debug_info
        return lowered.compiler_ir("stablehlo").operation.get_asm(enable_debug_info=True)


@pytest.mark.parametrize("case", CASES)
def test_drop_in_lowers_to_lax_program_with_lax_locations(case):
    # The source locations name the user's lines, not jaxpurity's: the program is lax's to
    # the byte, and lowering it costs what lax's does.
    make, args = CASES[case]
    ours, theirs = [_lowered_with_locations(make(api), args) for api in (jaxpurity, lax)]
    assert not any(f"{module}.py" in ours for module in ("_branches", "_loops", "_through_lax"))
    assert ours == theirs


@pytest.mark.parametrize("case", CASES)
def test_drop_in_computes_lax_values(case, run, assert_same_tree):
    make, args = CASES[case]
    assert_same_tree(run(make(jaxpurity), *args), run(make(lax), *args))


def test_like_without_conversion_traces_to_lax_program():
    def make(api, **like):
        return lambda x: api.cond(x[0] > 0, lambda: x, lambda: -x, **like)

    ours = jax.make_jaxpr(make(jaxpurity, like=jax.ShapeDtypeStruct((3,), jnp.float32)))(X)
    assert str(ours) == str(jax.make_jaxpr(make(lax))(X))


@pytest.mark.parametrize("api", ["cond", "scan", "fori_loop"])
def test_grad_and_vmap_through_drop_in_match_lax(api):
    def make(m):
        if api == "cond":
            return lambda x: m.cond(x > 0, lambda: jnp.sin(x), lambda: x * x)
        if api == "scan":
            return lambda x: m.scan(lambda c, _: (c * jnp.cos(c), None), x, length=3)[0]
        return lambda x: m.fori_loop(0, 3, lambda i, c: c * jnp.cos(c) + i, x)

    xs = jnp.array([-1.0, 0.5, 2.0])
    ours, theirs = make(jaxpurity), make(lax)
    np.testing.assert_array_equal(jax.vmap(jax.grad(ours))(xs), jax.vmap(jax.grad(theirs))(xs))
    np.testing.assert_array_equal(jax.vmap(ours)(xs), jax.vmap(theirs)(xs))


# ----------------------------------------------------------------------------------------
# Type mismatches: jaxpurity raises TypeMismatchError where lax raises its own TypeError.

MISMATCHES = {
    "cond-dtype": lambda api: api.cond(True, lambda: jnp.zeros(2), lambda: jnp.zeros(2, F16)),
    "cond-structure": lambda api: api.cond(True, lambda: {"a": 1.0, "b": 2.0}, lambda: {"a": 1.0}),
    "switch-shape": lambda api: api.switch(
        1, [lambda: jnp.zeros(3), lambda: jnp.zeros(3), lambda: jnp.zeros(2)]
    ),
    "fori-tuple-length": lambda api: api.fori_loop(0, 2, lambda i, c: (*c, c[0]), (1.0, 2.0)),
    "while-dtype": lambda api: api.while_loop(
        lambda c: c < 3, lambda c: (c + 1).astype(jnp.int8), jnp.int32(0)
    ),
    "scan-shape": lambda api: api.scan(lambda c, x: (jnp.append(c, x), None), jnp.zeros(1), X),
}


@pytest.mark.parametrize("case", MISMATCHES)
def test_mismatch_raises_type_mismatch_error_where_lax_raises_type_error(case):
    with pytest.raises(TypeError) as lax_error:
        MISMATCHES[case](lax)
    assert not isinstance(lax_error.value, TypeMismatchError)
    with pytest.raises(TypeMismatchError, match=r"How to fix:"):
        MISMATCHES[case](jaxpurity)


def test_cond_mismatch_names_each_leaf_and_the_fix():
    with pytest.raises(TypeMismatchError) as info:
        jaxpurity.cond(
            True,
            lambda: {"w": jnp.zeros(3), "n": 0, "same": jnp.ones(2)},
            lambda: {"w": jnp.zeros(2), "n": jnp.float16(1), "same": jnp.ones(2)},
        )
    message = str(info.value)
    assert message.startswith("jaxpurity.cond: the branches return different types")
    assert re.search(r"\['n'\] +int32\[\] \(weak: a Python scalar\) vs float16\[\]", message)
    assert re.search(r"\['w'\] +float32\[3\] vs float32\[2\]", message)
    assert "['same']" not in message
    assert "jnp.asarray(x, jnp.float16)" in message


# ----------------------------------------------------------------------------------------
# The deliberate difference: lax promotes a weak-typed carry, jaxpurity refuses.

WEAK_CARRY_LOOPS = {
    "fori_loop": lambda api, init: api.fori_loop(0, 3, lambda i, c: c + F16(1), init),
    "while_loop": lambda api, init: api.while_loop(lambda c: c < 3, lambda c: c + F16(1), init),
    "scan": lambda api, init: api.scan(lambda c, x: (c + x, c), init, jnp.ones(3, F16))[0],
}


@pytest.mark.parametrize("loop", WEAK_CARRY_LOOPS)
def test_weak_carry_that_lax_promotes_is_an_error_with_the_typed_init(loop):
    run_loop = WEAK_CARRY_LOOPS[loop]
    promoted = run_loop(lax, 0)  # what lax does, live: the int init comes out float16
    assert promoted.dtype == F16
    init_name = "init" if loop == "scan" else "init_val"
    with pytest.raises(TypeMismatchError) as info:
        run_loop(jaxpurity, 0)
    message = str(info.value)
    assert re.search(r"\(top level\) +int32\[\] \(weak: a Python scalar\) vs float16\[\]", message)
    assert f"{init_name} is weakly typed" in message
    assert "Accumulate in float32: jnp.asarray(0, jnp.float32)" in message
    # The fix the message gives works: the loop runs, in float32, and gives lax's value.
    fixed = run_loop(jaxpurity, jnp.asarray(0, jnp.float32))
    assert fixed.dtype == jnp.float32
    np.testing.assert_array_equal(fixed.astype(F16), promoted)


def test_the_float16_hint_avoids_the_plateau_a_float16_accumulator_hits():
    steps = 3000
    in_float16 = lax.fori_loop(0, steps, lambda i, c: c + F16(1), jnp.asarray(0, F16))
    hinted = jaxpurity.fori_loop(0, steps, lambda i, c: c + F16(1), jnp.asarray(0, jnp.float32))
    assert float(in_float16) == 2048.0  # the plateau: 2048 + 1 rounds back to 2048 in float16
    assert float(hinted) == steps


@pytest.mark.parametrize(
    ("lower", "upper"),
    [(0, 3), (jnp.int16(0), 3), (0, jnp.int16(3)), (np.int16(1), np.int16(3))],
)
@pytest.mark.parametrize("jit_upper", [False, True])
def test_fori_loop_index_has_the_type_lax_gives_it(lower, upper, jit_upper):
    # i's type decides the carry's: int16 carry + weak i stays int16, + strong int32 i does not.
    def loop(api, upper):
        return api.fori_loop(lower, upper, lambda i, c: c + i, jnp.int16(0))

    def outcome(api):
        f = jax.jit(lambda u: loop(api, u)) if jit_upper else lambda u: loop(api, u)
        try:
            return f(upper)
        except TypeError as error:
            return type(error)

    theirs, ours = outcome(lax), outcome(jaxpurity)
    if isinstance(theirs, type):
        assert ours is TypeMismatchError
    else:
        np.testing.assert_array_equal(ours, theirs)
        assert ours.dtype == theirs.dtype


def test_switch_traced_index_is_clamped_as_in_lax():
    branches = [lambda: 10, lambda: 20, lambda: 30]
    for index in (-5, 7):
        ours = jax.jit(lambda i: jaxpurity.switch(i, branches))(index)
        assert ours == jax.jit(lambda i: lax.switch(i, branches))(index)


# ----------------------------------------------------------------------------------------
# like=: convert branch outputs to a template where nothing is lost, and only then.


@pytest.mark.parametrize("pred", [True, False])
def test_cond_like_casts_and_broadcasts_as_explicit_lax_code_would(pred, run, assert_same_tree):
    template = jax.ShapeDtypeStruct((3,), jnp.float32)

    def ours(p):
        return jaxpurity.cond(p, lambda: jnp.int8(3), lambda: jnp.arange(3.0), like=template)

    def by_hand(p):
        return lax.cond(
            p,
            lambda: jnp.broadcast_to(jnp.int8(3).astype(jnp.float32), (3,)),
            lambda: jnp.arange(3.0),
        )

    assert_same_tree(run(ours, jnp.asarray(pred)), run(by_hand, jnp.asarray(pred)))


def test_switch_like_takes_an_array_template_and_pytrees(run, assert_same_tree):
    like = {"v": jnp.zeros(2, jnp.float32), "k": jnp.int32(0)}
    branches = [
        lambda x: {"v": x, "k": jnp.int8(1)},
        lambda x: {"v": x.sum(), "k": 7},  # () broadcasts to (2,); a Python int fits int32
    ]

    def ours(i, x):
        return jaxpurity.switch(i, branches, x, like=like)

    def by_hand(i, x):
        return lax.switch(
            i,
            [
                lambda x: {"v": x, "k": jnp.int8(1).astype(jnp.int32)},
                lambda x: {"v": jnp.broadcast_to(x.sum(), (2,)), "k": jnp.int32(7)},
            ],
            x,
        )

    for i in (0, 1):
        args = (jnp.int32(i), jnp.array([1.0, 2.0]))
        assert_same_tree(run(ours, *args), run(by_hand, *args))


def test_without_like_nothing_is_converted():
    with pytest.raises(TypeMismatchError, match=r"int8\[\] vs float32\[\]"):
        jaxpurity.cond(True, lambda: jnp.int8(3), lambda: jnp.float32(1))


@pytest.mark.usefixtures("x64")
def test_like_refuses_float64_to_float32_narrowing():
    with pytest.raises(TypeMismatchError, match=r"float64 -> float32 can lose information"):
        jaxpurity.cond(
            True,
            lambda: jnp.zeros(3, jnp.float64),
            lambda: jnp.zeros(3, jnp.float32),
            like=jax.ShapeDtypeStruct((3,), jnp.float32),
        )


# ----------------------------------------------------------------------------------------
# Bad input: each error says what was wrong (the argument or leaf) and how to fix it.

F32_3 = jax.ShapeDtypeStruct((3,), jnp.float32)


TWO = [lambda: jnp.zeros(2), lambda: jnp.ones(2)]


BAD_INPUTS = [
    # cond
    (
        "cond-true_fun-not-callable",
        lambda: jaxpurity.cond(True, 1.0, lambda: 2.0),
        TypeError,
        [r"true_fun must be a function, got 1\.0", r"jnp\.where"],
    ),
    (
        "cond-false_fun-not-callable",
        lambda: jaxpurity.cond(True, lambda: 1.0, None),
        TypeError,
        [r"false_fun must be a function, got None", r"Pass a function"],
    ),
    (
        "cond-pred-array",
        lambda: jaxpurity.cond(jnp.array([True, False]), *TWO),
        TypeError,
        [r"pred must be a scalar, got bool\[2\]", r"jnp\.where\(pred, a, b\)", r"jnp\.any"],
    ),
    (
        "cond-pred-float",
        lambda: jaxpurity.cond(jnp.float32(0.5), *TWO),
        TypeError,
        [r"pred is float32\[\]", r"pred != 0 or x > 0"],
    ),
    (
        "cond-pred-none",
        lambda: jaxpurity.cond(None, *TWO),
        TypeError,
        [r"pred must be a boolean scalar such as x > 0, got None"],
    ),
    (
        "cond-pred-string",
        lambda: jaxpurity.cond("yes", *TWO),
        TypeError,
        [r"pred must be a boolean scalar such as x > 0, got 'yes' \(type str\)"],
    ),
    (
        "cond-operand-twice",
        lambda: jaxpurity.cond(True, lambda x: x, lambda x: x, 1.0, operand=2.0),
        TypeError,
        [r"operands both positionally and as operand=", r"positionally only"],
    ),
    (
        "cond-scalar-vs-array",
        lambda: jaxpurity.cond(True, lambda: jnp.zeros(3), lambda: 0.0),
        TypeMismatchError,
        [
            r"float32\[3\] vs float32\[\] \(weak",
            r"jnp\.zeros_like\(x\), here jnp\.zeros\(\(3,\), jnp\.float32\)",
        ],
    ),
    (
        "like-float-to-int",
        lambda: jaxpurity.cond(
            True, lambda: jnp.zeros(3), lambda: jnp.zeros(3), like=jnp.zeros(3, jnp.int32)
        ),
        TypeMismatchError,
        [
            r"like= cannot take true_fun's output",
            r"float32 -> int32 can lose information",
            r"x\.astype\(jnp\.int32\)",
        ],
    ),
    (
        "like-narrowing",
        lambda: jaxpurity.cond(
            True, lambda: jnp.zeros(3), lambda: jnp.zeros(3), like=jnp.zeros(3, F16)
        ),
        TypeMismatchError,
        [r"float32 -> float16 can lose information", r"change like to a type that holds it"],
    ),
    (
        "like-shape",
        lambda: jaxpurity.cond(True, lambda: jnp.zeros(2), lambda: jnp.zeros(3), like=F32_3),
        TypeMismatchError,
        [r"shape \(2,\) does not broadcast to \(3,\)"],
    ),
    (
        "like-structure",
        lambda: jaxpurity.cond(True, lambda: (jnp.zeros(3),), lambda: (jnp.zeros(3),), like=F32_3),
        TypeMismatchError,
        [r"float32\[3\] vs tuple of length 1", r"an array in both, or the same container"],
    ),
    (
        "like-not-arrays",
        lambda: jaxpurity.cond(True, *TWO, like="float32"),
        TypeError,
        [r"like= must be a pytree of arrays or jax\.ShapeDtypeStruct", r"'float32' \(type str\)"],
    ),
    # switch
    (
        "switch-branches-function",
        lambda: jaxpurity.switch(0, lambda: 1.0),
        TypeError,
        [r"branches must be a list or tuple of functions", r"Wrap a single function: \[f\]"],
    ),
    (
        "switch-branches-empty",
        lambda: jaxpurity.switch(0, []),
        ValueError,
        [r"branches is empty", r"at least one function"],
    ),
    (
        "switch-branch-not-callable",
        lambda: jaxpurity.switch(0, [lambda: 1.0, 2.0]),
        TypeError,
        [r"branches\[1\] must be a function, got 2\.0"],
    ),
    (
        "switch-index-float",
        lambda: jaxpurity.switch(1.0, TWO),
        TypeError,
        [
            r"index is float32\[\] \(weak: a Python scalar\); switch needs an integer",
            r"jnp\.floor\(x\)\.astype\(jnp\.int32\)",
        ],
    ),
    (
        "switch-index-bool",
        lambda: jaxpurity.switch(jnp.bool_(True), TWO),
        TypeError,
        [r"index is a bool", r"jaxpurity\.cond\(flag, \.\.\.\)", r"astype\(jnp\.int32\)"],
    ),
    (
        "switch-index-python-bool",
        lambda: jaxpurity.switch(True, TWO),
        TypeError,
        [r"index is a bool"],
    ),
    (
        "switch-index-string",
        lambda: jaxpurity.switch("0", TWO),
        TypeError,
        [r"index must be an integer scalar such as jnp\.argmax\(scores\), got '0'"],
    ),
    (
        "switch-index-array",
        lambda: jaxpurity.switch(jnp.array([0, 1]), TWO),
        TypeError,
        [r"index must be a scalar, got int32\[2\]", r"jax\.vmap"],
    ),
    (
        "switch-index-out-of-range",
        lambda: jaxpurity.switch(2, TWO),
        ValueError,
        [
            r"index 2 is out of range for 2 branches",
            r"run branches\[1\]",
            r"jnp\.clip\(index, 0, 1\)",
        ],
    ),
    (
        "switch-index-negative",
        lambda: jaxpurity.switch(np.int32(-1), TWO),
        ValueError,
        [r"index -1 is out of range", r"branches\[0\] \(not the last one"],
    ),
    (
        "switch-branch-mismatch",
        lambda: jaxpurity.switch(0, [lambda: 1.0, lambda: 2.0, lambda: jnp.zeros(2, jnp.int8)]),
        TypeMismatchError,
        [
            r"branches\[0\] output vs branches\[2\] output",
            # 1.0 and int8 zeros: both become float32, which holds every value of both.
            r"here jnp\.zeros\(\(2,\), jnp\.float32\)",
            r"cast branches\[2\] output's value x: x\.astype\(jnp\.float32\)",
        ],
    ),
    # fori_loop
    (
        "fori-body-not-callable",
        lambda: jaxpurity.fori_loop(0, 3, "body", 0.0),
        TypeError,
        [r"body_fun must be a function, got 'body'", r"lambda i, carry"],
    ),
    (
        "fori-lower-float",
        lambda: jaxpurity.fori_loop(0.5, 3, lambda i, c: c, 0.0),
        TypeError,
        [
            r"lower is float32\[\] \(weak: a Python scalar\); loop bounds must be integers",
            r"int\(lower\)",
        ],
    ),
    (
        "fori-upper-array",
        lambda: jaxpurity.fori_loop(0, jnp.array([3, 4]), lambda i, c: c, 0.0),
        TypeError,
        [r"upper must be a scalar, got int32\[2\]"],
    ),
    (
        "fori-bound-dtypes",
        lambda: jaxpurity.fori_loop(jnp.uint8(0), jnp.int16(3), lambda i, c: c, 0.0),
        TypeError,
        [
            r"lower \(uint8\[\]\) and upper \(int16\[\]\) have different integer dtypes",
            r"upper\.astype\(jnp\.uint8\)",
        ],
    ),
    (
        "fori-carry-dtype",
        lambda: jaxpurity.fori_loop(0, 3, lambda i, c: c.astype(F16), jnp.zeros(2)),
        TypeMismatchError,
        [r"float32\[2\] vs float16\[2\]", r"astype\(jnp\.float"],
    ),
    # while_loop
    (
        "while-cond-not-callable",
        lambda: jaxpurity.while_loop(True, lambda c: c, 0),
        TypeError,
        [r"cond_fun must be a function, got True", r"lambda carry: carry < 10"],
    ),
    (
        "while-cond-returns-float",
        lambda: jaxpurity.while_loop(lambda c: c, lambda c: c - 1.0, 3.0),
        TypeError,
        [r"cond_fun must return a boolean scalar, got float32\[\]", r"jnp\.all"],
    ),
    (
        "while-cond-returns-array",
        lambda: jaxpurity.while_loop(lambda c: c > 0, lambda c: c - 1, jnp.ones(2)),
        TypeError,
        [r"cond_fun must return a boolean scalar, got bool\[2\]", r"jnp\.any"],
    ),
    (
        "while-carry-weak",
        lambda: jaxpurity.while_loop(
            lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * F16(2)), (0, 1.0)
        ),
        TypeMismatchError,
        [
            r"\[1\] +float32\[\] \(weak: a Python scalar\) vs float16\[\]",
            r"Accumulate in float32: jnp\.asarray\(1\.0, jnp\.float32\)",
        ],
    ),
    # scan
    (
        "scan-f-not-callable",
        lambda: jaxpurity.scan(None, 0.0, X),
        TypeError,
        [r"f must be a function, got None", r"lambda carry, x"],
    ),
    (
        "scan-f-not-pair",
        lambda: jaxpurity.scan(lambda c, x: c + x, 0.0, X),
        TypeError,
        [r"f must return a pair \(new_carry, y\), got float32\[\]", r"\(carry, None\)"],
    ),
    (
        "scan-xs-scalar-leaf",
        lambda: jaxpurity.scan(lambda c, x: (c, x), 0.0, {"a": X, "b": 1.0}),
        ValueError,
        [r"xs\['b'\] is a scalar", r"leading axis"],
    ),
    (
        "scan-xs-lengths",
        lambda: jaxpurity.scan(lambda c, x: (c, x), 0.0, (X, jnp.ones(4))),
        ValueError,
        [r"xs\[0\] has 3, xs\[1\] has 4", r"pad them to one length"],
    ),
    (
        "scan-length-disagrees",
        lambda: jaxpurity.scan(lambda c, x: (c, x), 0.0, X, length=5),
        ValueError,
        [r"length=5 but xs has leading size 3", r"drop length="],
    ),
    (
        "scan-no-length",
        lambda: jaxpurity.scan(lambda c, x: (c, x), 0.0),
        ValueError,
        [r"xs has no arrays", r"pass length=n"],
    ),
    (
        "scan-carry-structure",
        lambda: jaxpurity.scan(lambda c, x: ({"s": c["s"] + x}, None), {"s": 0.0, "n": 0}, X),
        TypeMismatchError,
        [r"dict with keys \['n', 's'\] vs dict with keys \['s'\]", r"\['n'\] only in init"],
    ),
]


@pytest.mark.parametrize(
    ("call", "error", "patterns"),
    [pytest.param(call, error, patterns, id=name) for name, call, error, patterns in BAD_INPUTS],
)
def test_bad_input_error_names_the_problem_and_the_fix(call, error, patterns):
    with pytest.raises(error) as info:
        call()
    assert type(info.value) is error
    for pattern in patterns:
        assert re.search(pattern, str(info.value)), (pattern, str(info.value))


# ----------------------------------------------------------------------------------------
# Several devices, sharded input, GPU, and the docs.

MULTI_DEVICE_SCRIPT = """
import jax, jax.numpy as jnp, numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec
import jaxpurity

assert len(jax.devices()) == 4, jax.devices()

def program(api):
    def f(x):
        total, running = api.scan(lambda c, v: (c + v, c * v), jnp.zeros(x.shape[1:]), x)
        return api.cond(total.sum() > 0, lambda: running, lambda: -running)
    return f

x = jnp.arange(32.0).reshape(8, 4) - 10
for device in jax.devices():
    on_device = jax.device_put(x, device)
    ours, theirs = jax.jit(program(jaxpurity))(on_device), jax.jit(program(lax))(on_device)
    np.testing.assert_array_equal(ours, theirs)
    assert ours.devices() == {device} == theirs.devices()

mesh = Mesh(np.array(jax.devices()), ("d",))
sharded = jax.device_put(x, NamedSharding(mesh, PartitionSpec(None, "d")))
assert len(sharded.addressable_shards) == 4
ours, theirs = jax.jit(program(jaxpurity))(sharded), jax.jit(program(lax))(sharded)
np.testing.assert_array_equal(ours, theirs)
assert ours.sharding.is_equivalent_to(theirs.sharding, ours.ndim)
jaxprs = [str(jax.make_jaxpr(program(api))(sharded)) for api in (jaxpurity, lax)]
assert jaxprs[0] == jaxprs[1]
print("checked on", len(jax.devices()), "devices")
"""


def test_drop_ins_match_lax_on_four_host_devices_and_sharded_input():
    env = dict(os.environ)
    env.update(
        XLA_FLAGS="--xla_force_host_platform_device_count=4",
        JAX_PLATFORMS="cpu",
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
    )
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(MULTI_DEVICE_SCRIPT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "checked on 4 devices"


@pytest.mark.gpu
def test_drop_ins_on_gpu_match_cpu(gpu_devices, assert_same_tree):
    cpu = jax.devices("cpu")[0]
    for make, args in CASES.values():
        expected = jax.jit(make(lax))(*jax.device_put(args, cpu))
        for gpu in gpu_devices:
            got = jax.jit(make(jaxpurity))(*jax.device_put(args, gpu))
            jax.tree_util.tree_map(
                lambda g, e: np.testing.assert_allclose(g, e, rtol=1e-6), got, expected
            )


@pytest.mark.parametrize("name", ["cond", "switch", "fori_loop", "while_loop", "scan", "collect"])
def test_help_shows_a_real_docstring(name):
    text = pydoc.render_doc(getattr(jaxpurity, name), renderer=pydoc.plaintext)
    for section in ("Args:", "Returns:", "Raises:", "Example:", ">>> "):
        assert section in text


# ----------------------------------------------------------------------------------------
# Tracing: the drop-ins call lax with the user's own functions, and trace nothing more
# while the types agree, so each branch or body runs as often as under lax.


def _counting(calls):
    """``counted(fn)``: ``fn``, recording in ``calls`` its number (in order made) per call."""
    made = []

    def counted(fn):
        number = len(made)
        made.append(fn)

        def wrapper(*args):
            calls.append(number)
            return fn(*args)

        return wrapper

    return counted


def _reused_scan_body(api, counted):
    step = counted(lambda c, x: (c * x, c))  # one function for both scans: lax's cache serves it
    return lambda x: api.scan(step, x[0], x)[0] + api.scan(step, x[1], x)[0]


TRACE_COUNTED = {
    "cond": (
        lambda api, counted: (
            lambda x: api.cond(x.sum() > 0, counted(lambda a: a + 1), counted(lambda a: a - 1), x)
        ),
        (X,),
    ),
    "switch": (
        lambda api, counted: (
            lambda i, x: api.switch(
                i, [counted(lambda a: a), counted(lambda a: -a), counted(lambda a: a * a)], x
            )
        ),
        (jnp.int32(1), X),
    ),
    "fori_loop-static": (
        lambda api, counted: lambda x: api.fori_loop(0, 3, counted(lambda i, c: c + i), x),
        (X,),
    ),
    "fori_loop-traced": (
        lambda api, counted: lambda n, x: api.fori_loop(0, n, counted(lambda i, c: c * 2), x),
        (jnp.int32(3), X),
    ),
    "fori_loop-weak-init": (
        lambda api, counted: lambda x: api.fori_loop(0, 3, counted(lambda i, c: c + x.sum()), 0.0),
        (X,),
    ),
    "while_loop": (
        lambda api, counted: (
            lambda x: api.while_loop(
                counted(lambda c: c[0] < 3), counted(lambda c: (c[0] + 1, c[1] * 2)), (0, x)
            )
        ),
        (X,),
    ),
    "scan": (
        lambda api, counted: lambda x: api.scan(counted(lambda c, x: (c + x, c * x)), 0.0, x),
        (X,),
    ),
    "scan-reused-body": (_reused_scan_body, (X,)),
}


@pytest.mark.parametrize("jit", [True, False], ids=["jit", "eager"])
@pytest.mark.parametrize("case", TRACE_COUNTED)
def test_bodies_run_as_often_as_under_lax(case, jit):
    make, args = TRACE_COUNTED[case]

    def calls(api):
        made = []
        program = make(api, _counting(made))  # fresh functions: no cache of an earlier run
        if jit:
            jax.jit(program).lower(*args)
        else:
            program(*args)
        return made  # which function ran, in order

    theirs = calls(lax)
    assert calls(jaxpurity) == theirs
    assert theirs  # the count is of something


def test_like_traces_each_branch_once():
    made = []
    counted = _counting(made)
    jax.jit(
        lambda x: jaxpurity.cond(x[0] > 0, counted(lambda: x), counted(lambda: 0.0), like=x)
    ).lower(X)
    assert len(made) == 2


# ----------------------------------------------------------------------------------------
# Where lax rejects the types, the drop-in traces once more to name the leaves, and raises
# its error in place of lax's; errors that are not about these types pass through.


@pytest.mark.parametrize("case", MISMATCHES)
def test_mismatch_message_is_the_one_a_check_before_lax_gives(case):
    # Under disable_jit lax checks no types, so the drop-ins analyse them before calling
    # lax: the message must not depend on which way it was found.
    with pytest.raises(TypeMismatchError) as after_lax:
        MISMATCHES[case](jaxpurity)
    with jax.disable_jit(), pytest.raises(TypeMismatchError) as before_lax:
        MISMATCHES[case](jaxpurity)
    assert str(after_lax.value) == str(before_lax.value)


@pytest.fixture
def traceback_filtering_off():
    """JAX as the drop-in left the chain: on Python 3.10 JAX's traceback filtering puts its
    SimplifiedTraceback in the cause's place and drops the context."""
    previous = jax.config.jax_traceback_filtering
    jax.config.update("jax_traceback_filtering", "off")
    yield
    jax.config.update("jax_traceback_filtering", previous)


def test_mismatch_error_replaces_lax_error_which_stays_its_context(traceback_filtering_off):
    with pytest.raises(TypeMismatchError) as info:
        jax.jit(lambda x: jaxpurity.cond(x > 0, lambda: x, lambda: 0))(1.0)
    error = info.value
    assert error.__cause__ is None and error.__suppress_context__  # not shown...
    assert type(error.__context__) is TypeError  # ...but kept: lax's own error
    assert "float32" in str(error.__context__)


def test_user_type_error_in_a_branch_is_lax_own():
    def broken(x):
        return x + "1"

    def outcome(api):
        made = []
        with pytest.raises(TypeError) as info:
            api.cond(True, _counting(made)(broken), lambda x: x, 1.0)
        return type(info.value), str(info.value), len(made)

    theirs, ours = outcome(lax), outcome(jaxpurity)
    assert ours[:2] == theirs[:2]
    assert ours[2] == theirs[2] + 1  # traced again to look for a type mismatch: none


def test_tracer_errors_pass_without_a_second_trace():
    def branch(x):
        if x > 0:  # a tracer used as a bool
            return x
        return -x

    def outcome(api):
        made = []
        with pytest.raises(jax.errors.TracerBoolConversionError) as info:
            jax.jit(lambda x: api.cond(True, _counting(made)(branch), lambda x: x, x))(1.0)
        return str(info.value).splitlines()[0], len(made)

    assert outcome(jaxpurity) == outcome(lax)


def test_mismatch_inside_a_branch_is_the_inner_drop_in_error():
    def inner(x):
        return jaxpurity.fori_loop(0, 2, lambda i, c: c.astype(F16), x)

    with pytest.raises(TypeMismatchError, match=r"^jaxpurity\.fori_loop: body_fun output"):
        jaxpurity.cond(True, inner, lambda x: x, jnp.zeros(2))


# ----------------------------------------------------------------------------------------
# What lax accepts and jaxpurity refuses is still refused, found in what lax returns.


def test_scan_refuses_a_two_entry_dict_even_where_lax_takes_it_as_a_pair():
    def step(c, x):
        return {"carry": c + x, "y": c}

    try:
        assert isinstance(lax.scan(step, 0.0, X), dict)  # JAX 0.4.35 takes it
    except TypeError:
        pass  # newer JAX asks for a pair too (0.12.0.1 does)
    with pytest.raises(TypeError, match=r"f must return a pair \(new_carry, y\), got \{"):
        jaxpurity.scan(step, 0.0, X)


@pytest.mark.parametrize("api", ["cond", "switch", "fori_loop", "while_loop", "scan"])
def test_disable_jit_keeps_the_checks_lax_skips_there(api):
    # Under disable_jit lax runs Python: cond runs one branch, the loops run the body as it
    # is, so nothing compares types. The drop-ins still do.
    calls = {
        "cond": lambda m: m.cond(True, lambda: jnp.zeros(3), lambda: 0.0),
        "switch": lambda m: m.switch(0, [lambda: jnp.zeros(3), lambda: 0.0]),
        "fori_loop": lambda m: m.fori_loop(0, 3, lambda i, c: c.astype(F16), jnp.zeros(2)),
        "while_loop": lambda m: m.while_loop(lambda c: c < 3, lambda c: c + F16(1), 0),
        "scan": lambda m: m.scan(lambda c, x: (c * x, None), 0, jnp.ones(3, F16)),
    }
    with jax.disable_jit():
        calls[api](lax)
        with pytest.raises(TypeMismatchError):
            calls[api](jaxpurity)
