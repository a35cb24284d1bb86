"""Tests for jaxpurity/control/_typediff.py: the pytree diff, and its messages."""

from __future__ import annotations

import dataclasses
import re
import sys
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpurity import TypeMismatchError
from jaxpurity._leaftypes import describe_leaf
from jaxpurity.control._typediff import (
    check_carry,
    check_castable,
    check_same_types,
    same_types,
)

NAMES = {"expected_name": "left", "actual_name": "right"}


def mismatch(expected, actual, **kwargs) -> str:
    """The message check_same_types raises for ``expected`` vs ``actual``."""
    with pytest.raises(TypeMismatchError) as info:
        check_same_types(expected, actual, what="they differ", **NAMES, **kwargs)
    return str(info.value)


def rows(message: str) -> dict[str, str]:
    """The message's diff table as {path: "left vs right"} (paths as jax keystr writes them)."""
    table = message.split("How to fix:")[0].splitlines()[2:]
    return dict(re.match(r"  (\(top level\)|\S+)\s+(.*)", line).groups() for line in table)


def fixes(message: str) -> dict[str, str]:
    lines = message.split("How to fix:\n")[1].splitlines()
    return dict(re.match(r"  (\(top level\)|\S+)\s+(.*)", line).groups() for line in lines)


class Pair(NamedTuple):
    a: object
    b: object


# --------------------------------------------------------------------------- typed keys


def test_typed_prng_keys_have_their_own_dtype():
    key = jax.random.key(0)
    assert describe_leaf(key) == f"{key.dtype.name}[]"
    check_same_types({"key": key}, {"key": jax.random.split(key)[0]}, what="x", **NAMES)
    message = mismatch(key, jax.random.key_data(key)[0])
    assert "jax.random.key_data / jax.random.wrap_key_data" in fixes(message)["(top level)"]
    with pytest.raises(TypeMismatchError, match=r"can lose information"):
        check_castable(jnp.zeros(()), key, what="x", template_name="like", actual_name="out")
    assert "(weak: a Python scalar)" in mismatch(key, 0, weak_ok=True)


# --------------------------------------------------------------------------- same types


SAME = [
    (jnp.zeros(3), jnp.ones(3)),
    (1.0, jnp.float32(2)),  # weak and strong float32: the same type to JAX
    ({"a": 0, "b": (jnp.int8(1), None)}, {"a": jnp.int32(0), "b": (np.int8(2), None)}),
    (Pair(1.0, 2.0), Pair(jnp.float32(1), 3.0)),
]


@pytest.mark.parametrize(("expected", "actual"), SAME)
def test_check_same_types_accepts_equal_types(expected, actual):
    check_same_types(expected, actual, what="x", **NAMES)


@jax.tree_util.register_static
@dataclasses.dataclass(frozen=True)
class Activation:
    name: str


DIFFERENT = [
    (0, jnp.float16(1)),  # a weak int against float16: promotion, not the same type
    (jnp.zeros(3), jnp.zeros(2)),
    (jnp.zeros(3), jnp.zeros(3, jnp.int32)),
    ({"a": 1.0}, {"a": 1.0, "b": 2.0}),
    ((1.0, 2.0), [1.0, 2.0]),
    (Pair(jnp.zeros(2), 1.0), Pair(jnp.zeros(2), None)),
    ((jnp.zeros(2), Activation("relu")), (jnp.zeros(2), Activation("tanh"))),
    ({"a": jnp.zeros(2)}, {"a": "text"}),
    ({"a": jnp.zeros(2)}, {"a": {"x": jnp.zeros(2)}}),
]


@pytest.mark.parametrize(
    ("expected", "actual", "same"),
    [(e, a, True) for e, a in SAME] + [(e, a, False) for e, a in DIFFERENT],
)
def test_same_types_answers_as_check_same_types_does(expected, actual, same):
    try:
        check_same_types(expected, actual, what="x", **NAMES)
    except TypeMismatchError:
        accepted = False
    else:
        accepted = True
    assert accepted == same
    assert same_types(expected, actual) == same


def test_mismatch_lists_every_differing_leaf_by_path_shape_dtype_and_weak_flag():
    left = {"w": jnp.zeros(3), "n": 0, "ok": jnp.zeros(2), "deep": [jnp.zeros((2, 2)), 1.0]}
    right = {
        "w": jnp.zeros(2),
        "n": jnp.float16(1),
        "ok": jnp.ones(2),
        "deep": [jnp.zeros((2, 2), jnp.int8), jnp.float16(1)],
    }
    message = mismatch(left, right)
    assert message.splitlines()[0] == "they differ."
    paths = [jax.tree_util.keystr(p) for p, _ in jax.tree_util.tree_flatten_with_path(left)[0]]
    differing = [p for p in paths if p != "['ok']"]
    assert rows(message) == {
        differing[0]: "float32[2,2] vs int8[2,2]",
        differing[1]: "float32[] (weak: a Python scalar) vs float16[]",
        differing[2]: "int32[] (weak: a Python scalar) vs float16[]",
        differing[3]: "float32[3] vs float32[2]",
    }
    assert set(fixes(message)) == set(differing)
    assert message.rstrip().splitlines()[-1].startswith("  ['w']")  # ends with a fix


def test_weak_scalar_against_other_dtype_is_a_mismatch_unless_weak_ok():
    message = mismatch(0, jnp.float16(1))
    assert "jnp.asarray(0, jnp.float16)" in fixes(message)["(top level)"]
    check_same_types(0, jnp.float16(1), what="x", **NAMES, weak_ok=True)
    check_same_types(jnp.float16(1), 0.5, what="x", **NAMES, weak_ok=True)
    # weak_ok still refuses what promotion would not give: a float into an int, or new shapes.
    # The fix makes the int side float (0.5 would not survive an int32).
    assert "cast left's value x: x.astype(jnp.float32), here jnp.asarray(1.0, jnp.float32)" in (
        mismatch(jnp.int32(1), 0.5, weak_ok=True)
    )
    assert "jnp.zeros_like(x)" in mismatch(0, jnp.zeros(3), weak_ok=True)


@pytest.mark.parametrize(
    ("left", "right", "fix"),
    [
        (
            0.0,
            jnp.zeros(3),
            "right has an array x; build a matching array instead: jnp.zeros_like(x)",
        ),
        (
            jnp.zeros(3),
            1,
            "right has a Python scalar where left has an array x; build a matching array "
            "instead: jnp.ones_like(x)",
        ),
        (2.5, jnp.zeros((2, 2)), "jnp.full_like(x, 2.5)"),
        (jnp.zeros(3), jnp.zeros(()), "broadcast right's value x: jnp.broadcast_to(x, (3,))"),
        (
            jnp.zeros(()),
            jnp.zeros((2, 3), jnp.int8),
            "broadcast left's value x: jnp.broadcast_to(x, (2, 3)); and cast right's value x: "
            "x.astype(jnp.float32)",
        ),
        (jnp.zeros(3), jnp.zeros(2), "shapes (3,) and (2,) do not broadcast to each other"),
        (jnp.zeros(3), jnp.zeros(3, jnp.int32), "cast right's value x: x.astype(jnp.float32)"),
        (
            jnp.zeros(3, jnp.int8),
            jnp.zeros(3, jnp.float32),
            "cast left's value x: x.astype(jnp.float32)",
        ),
        (
            0,
            jnp.float16(0),
            "left is weakly typed (a Python scalar takes its dtype from context); give it the "
            "dtype explicitly: jnp.asarray(0, jnp.float16)",
        ),
        (
            jnp.bfloat16(0),
            1.0,
            "right is weakly typed (a Python scalar takes its dtype from context); give it the "
            "dtype explicitly: jnp.asarray(1.0, jnp.bfloat16)",
        ),
    ],
)
def test_mismatch_fix_is_concrete_for_the_case(left, right, fix):
    assert fix in fixes(mismatch(left, right))["(top level)"]


# Every dtype a fix names: in x.astype(jnp.X), jnp.asarray(v, jnp.X), jnp.zeros(s, jnp.X).
_FIX_DTYPES = re.compile(r"(?:astype\(|, )jnp\.(\w+)\)")


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (jnp.int32(0), jnp.float32(0.5)),  # an int carry updated with floats
        (jnp.float32(0.5), jnp.int32(0)),
        (jnp.int32(0), 0.5),  # a weak float: it must not be cast to int
        (jnp.float16(0), jnp.float32(0)),
        (jnp.zeros(2, jnp.int8), jnp.zeros(2, jnp.uint8)),  # neither holds the other
        (0, jnp.float16(0)),
        (jnp.zeros(()), jnp.zeros((2, 3), jnp.int8)),
        (0.5, jnp.zeros(2, jnp.int8)),
    ],
    ids=str,
)
def test_dtype_fix_converts_to_the_dtype_that_holds_both(left, right):
    """Every dtype the fix names is the one JAX promotes the two to: nothing is narrowed."""
    named = set(_FIX_DTYPES.findall(fixes(mismatch(left, right))["(top level)"]))
    assert named == {jnp.result_type(left, right).name}


def carry_mismatch(init, body, xs, *, with_y: bool = False) -> str:
    """The message check_carry raises for scan's ``body`` over ``xs`` from ``init``."""
    new_carry, y = jax.eval_shape(body, init, xs[0])
    extra = {"y": y} if with_y else {}
    with pytest.raises(TypeMismatchError) as info:
        check_carry(init, new_carry, what="w", init_name="init", carry_name="new carry", **extra)
    return str(info.value)


def test_carry_int_init_with_float_updates_asks_for_a_float_init():
    xs = jnp.array([1.0, 2.0, 4.0])

    def mean_step(mean, step):
        i, x = step
        return mean + (x - mean) / (i + 1), None

    steps = (jnp.arange(3), xs)
    new_carry, _ = jax.eval_shape(mean_step, jnp.int32(0), (steps[0][0], steps[1][0]))
    with pytest.raises(TypeMismatchError) as info:
        check_carry(jnp.int32(0), new_carry, what="w", init_name="init", carry_name="new carry")
    fix = fixes(str(info.value))["(top level)"]
    assert fix == "cast init's value x: x.astype(jnp.float32), here jnp.asarray(0.0, jnp.float32)"
    # JAX rejects the int init; the float one the fix writes runs and keeps the fractions.
    with pytest.raises(TypeError):
        jax.lax.scan(mean_step, jnp.int32(0), steps)
    mean, _ = jax.lax.scan(mean_step, jnp.asarray(0.0, jnp.float32), steps)
    assert float(mean) == pytest.approx(7 / 3)


@pytest.mark.parametrize("size", [1, 3])
def test_carry_that_grows_is_told_to_keep_a_fixed_shape(size):
    def grow(carry, x):
        return jnp.append(carry, x), None

    xs = jnp.arange(3.0)
    fix = fixes(carry_mismatch(jnp.zeros(size), grow, xs))["(top level)"]
    assert fix.startswith(
        f"a loop carry keeps one fixed shape, but new carry has shape ({size + 1},)"
    )
    for advice in ("Preallocate", ".at[i].set(value)", "lax.dynamic_update_slice", "ys"):
        assert advice in fix
    assert "broadcast_to" not in fix
    # Broadcasting the init to the new shape would not help: the carry grows again.
    with pytest.raises(TypeError):
        jax.lax.scan(grow, jnp.zeros(size + 1), xs)


def test_scalar_init_of_an_array_carry_is_told_to_broadcast():
    def add_rows(carry, x):
        return carry + x, None

    xs = jnp.ones((2, 3))
    fix = fixes(carry_mismatch(jnp.float32(0), add_rows, xs))["(top level)"]
    assert fix == "broadcast init's value x: jnp.broadcast_to(x, (3,))"
    total, _ = jax.lax.scan(add_rows, jnp.broadcast_to(jnp.float32(0), (3,)), xs)
    assert total.tolist() == [2.0, 2.0, 2.0]


def test_scan_body_that_swapped_carry_and_y_is_asked_about_it():
    def swapped(carry, x):
        return (carry + x).sum(), carry + x

    xs = jnp.ones((2, 3))
    message = carry_mismatch(jnp.zeros(3), swapped, xs, with_y=True)
    assert message.splitlines()[-1] == (
        "  scan's body returns (new_carry, y): did you swap them? Its y has the type of init "
        "and its new carry does not; return (new_carry, y)"
    )
    assert "broadcast" not in message
    with pytest.raises(TypeError):
        jax.lax.scan(swapped, jnp.zeros(3), xs)
    carry, ys = jax.lax.scan(lambda c, x: swapped(c, x)[::-1], jnp.zeros(3), xs)
    assert carry.tolist() == [2.0, 2.0, 2.0] and ys.tolist() == [3.0, 6.0]


def test_scan_body_whose_y_differs_from_init_is_not_called_swapped():
    def reduce(carry, x):
        return (carry + x).sum(), (carry + x).max()

    message = carry_mismatch(jnp.zeros(3), reduce, jnp.ones((2, 3)), with_y=True)
    assert "swap" not in message
    assert fixes(message)["(top level)"] == (
        "broadcast new carry's value x: jnp.broadcast_to(x, (3,))"
    )


def test_scan_body_whose_carry_only_changed_dtype_is_not_called_swapped():
    # y is the carry passed through, so it has init's type; the carry's dtype drifted.
    def running(carry, x):
        return carry + x, carry

    message = carry_mismatch(0, running, jnp.ones(3, jnp.float16), with_y=True)
    assert "swap" not in message
    assert "Accumulate in float32: jnp.asarray(0, jnp.float32)" in fixes(message)["(top level)"]


def test_broadcast_fix_really_fixes_the_mismatch():
    x = jnp.zeros(())
    check_same_types(jnp.zeros(3), jnp.broadcast_to(x, (3,)), what="x", **NAMES)
    check_same_types(jnp.float16(0), jnp.asarray(0, jnp.float16), what="x", **NAMES)


# --------------------------------------------------------------------------- structure


def test_structure_mismatch_names_missing_and_extra_dict_keys():
    message = mismatch({"a": 1.0, "b": 2.0, "c": 3.0}, {"a": 1.0, "d": 2.0, "c": jnp.zeros(2)})
    table = rows(message)
    assert (
        table["(top level)"] == "dict with keys ['a', 'b', 'c'] vs dict with keys ['a', 'c', 'd']"
    )
    assert "['b'] only in left; ['d'] only in right" in fixes(message)["(top level)"]
    assert (
        table["['c']"] == "float32[] (weak: a Python scalar) vs float32[2]"
    )  # common keys still compared


def test_structure_mismatch_names_tuple_lengths_and_container_types():
    message = mismatch({"x": (1.0, 2.0)}, {"x": (1.0, 2.0, 3.0)})
    assert rows(message)["['x']"] == "tuple of length 2 vs tuple of length 3"
    assert "[2] only in right" in fixes(message)["['x']"]
    message = mismatch((1.0, 2.0), [1.0, 2.0])
    assert rows(message)["(top level)"] == "tuple of length 2 vs list of length 2"
    assert "use the same container type (tuple)" in fixes(message)["(top level)"]


def test_structure_mismatch_names_dataclass_fields():
    message = mismatch(Pair(jnp.zeros(2), 1.0), Pair(jnp.zeros(3), None))
    table = rows(message)
    assert table[".a"] == "float32[2] vs float32[3]"
    assert table[".b"] == "float32[] (weak: a Python scalar) vs None"

    @dataclasses.dataclass
    class Params:
        w: object
        b: object

    jax.tree_util.register_dataclass(Params, data_fields=["w", "b"], meta_fields=[])
    message = mismatch(Params(jnp.zeros(2), 0.0), {"w": jnp.zeros(2)})
    assert rows(message)["(top level)"] == "Params with children .w, .b vs dict with keys ['w']"


def test_structure_mismatch_names_static_field_differences():
    @dataclasses.dataclass
    class Layer:
        w: object
        act: str

    jax.tree_util.register_dataclass(Layer, data_fields=["w"], meta_fields=["act"])
    message = mismatch(Layer(jnp.zeros(2), "relu"), Layer(jnp.zeros(2), "tanh"))
    assert "static (non-array) fields differ" in fixes(message)["(top level)"]


def test_leaf_against_container_or_non_array():
    message = mismatch({"a": jnp.zeros(2)}, {"a": {"x": jnp.zeros(2)}})
    assert rows(message)["['a']"] == "float32[2] vs dict with keys ['x']"
    message = mismatch({"a": jnp.zeros(2)}, {"a": "text"})
    assert rows(message)["['a']"] == "float32[2] vs 'text' (type str, not an array)"


# --------------------------------------------------------------------------- castable


def roundtrips(values, src, dst) -> bool:
    x = np.asarray(values, dtype=src)
    with np.errstate(over="ignore"):
        return x.astype(dst).tolist() == x.tolist()


@pytest.mark.parametrize(
    ("src", "dst", "probe"),
    [
        (jnp.int8, jnp.float32, [-128, 127]),
        (jnp.int16, jnp.float32, [-(2**15), 2**15 - 1]),
        (jnp.int32, jnp.float32, [2**24 + 1]),
        (jnp.float32, jnp.int32, [0.5]),
        (jnp.float32, jnp.float16, [1e-8, 7e4]),
        (jnp.float16, jnp.float32, [6e-8, 65504]),
        (jnp.bool_, jnp.int8, [True, False]),
        (jnp.uint8, jnp.int8, [255]),
        (jnp.float32, jnp.float32, [1.5]),
    ],
)
def test_castable_rule_is_exactly_the_lossless_conversions(src, dst, probe):
    template = jax.ShapeDtypeStruct((), dst)
    lossless = roundtrips(probe, src, dst)
    if lossless:
        check_castable(
            template, jnp.zeros((), src), what="x", template_name="like", actual_name="out"
        )
    else:
        with pytest.raises(TypeMismatchError, match=r"can lose information"):
            check_castable(
                template, jnp.zeros((), src), what="x", template_name="like", actual_name="out"
            )


def test_castable_shapes_must_broadcast_to_the_template():
    template = jax.ShapeDtypeStruct((2, 3), jnp.float32)
    check_castable(template, jnp.zeros(3), what="x", template_name="like", actual_name="out")
    with pytest.raises(TypeMismatchError, match=r"shape \(2,\) does not broadcast to \(2, 3\)"):
        check_castable(template, jnp.zeros(2), what="x", template_name="like", actual_name="out")
    # Broadcasting only goes one way: the template's shape is the result.
    with pytest.raises(TypeMismatchError, match=r"shape \(4, 2, 3\) does not broadcast"):
        check_castable(
            template, jnp.zeros((4, 2, 3)), what="x", template_name="like", actual_name="out"
        )


def test_castable_weak_scalars_follow_promotion():
    f16 = jax.ShapeDtypeStruct((3,), jnp.float16)
    check_castable(f16, 0, what="x", template_name="like", actual_name="out")
    check_castable(f16, 0.5, what="x", template_name="like", actual_name="out")
    with pytest.raises(TypeMismatchError, match=r"float32 -> int32 can lose information"):
        check_castable(jnp.int32(0), 0.5, what="x", template_name="like", actual_name="out")


def _nested(depth: int, leaf: object) -> object:
    tree: object = leaf
    for _ in range(depth):
        tree = {"a": tree, "b": jnp.int32(0)}
    return tree


# As deep as JAX flattens (about 1,500 levels on Python 3.12, 1,000 before), and deeper
# than Python's own recursion goes.
_DEEP = 1_000 if sys.version_info >= (3, 12) else 600


def test_a_difference_deeper_than_python_recursion_is_found_and_named():
    init, carry = _nested(_DEEP, jnp.float32(0)), _nested(_DEEP, jnp.int32(0))
    with pytest.raises(TypeMismatchError) as info:
        check_carry(init, carry, what="the carry changed", init_name="init", carry_name="new")
    (row,) = [line for line in str(info.value).splitlines() if "float32[] vs int32[]" in line]
    assert row.strip().startswith("['a']['a']['a']")
    assert row.count("['a']") == _DEEP
    check_carry(init, init, what="unchanged", init_name="init", carry_name="new")
