"""Tests for jaxpurity/_leaftypes.py: the type JAX sees for each kind of leaf."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpurity._leaftypes import describe_leaf, is_tracer, leaf_type, shape_dtype_structs


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "int32[] (weak: a Python scalar)"),
        (1.5, "float32[] (weak: a Python scalar)"),
        (1j, "complex64[] (weak: a Python scalar)"),
        (True, "bool[]"),
        (np.float16(1), "float16[]"),
        (np.zeros((2, 3), np.int8), "int8[2,3]"),
        (jnp.zeros(3), "float32[3]"),
        (jax.ShapeDtypeStruct((4,), jnp.bfloat16), "bfloat16[4]"),
        (
            jax.ShapeDtypeStruct((4,), jnp.float32, weak_type=True),
            "float32[4] (weak: built from a Python scalar)",
        ),
    ],
)
def test_describe_leaf_matches_what_jax_traces(value, text):
    assert describe_leaf(value) == text
    # What jax.eval_shape sees for the same value: same shape, dtype and weak flag.
    traced = jax.eval_shape(lambda x: x, value)
    t = leaf_type(value)
    assert (t.shape, t.dtype, t.weak) == (traced.shape, traced.dtype, traced.weak_type)


def test_leaf_type_reads_tracers_inside_jit():
    seen = {}

    def f(x, y):
        seen["x"], seen["y"] = leaf_type(x), leaf_type(y * 2)
        return x

    jax.jit(f)(jnp.ones((2,), jnp.float16), 1.0)
    assert str(seen["x"]) == "float16[2]"
    assert str(seen["y"]) == "float32[] (weak: a Python scalar)"


def test_leaf_type_canonicalises_float64_without_x64():
    # Without x64 a float64 numpy array becomes float32 once JAX sees it.
    assert leaf_type(np.zeros(2)).dtype == jnp.asarray(np.zeros(2)).dtype == np.float32


def test_leaf_type_rejects_non_arrays_naming_the_value():
    with pytest.raises(TypeError, match=r"'abc' \(type str\) is not an array or a Python scalar"):
        leaf_type("abc")


def test_shape_dtype_structs_traces_like_the_original_tree():
    tree = {"w": jnp.ones((2, 3)), "n": 3, "h": np.float16(2), "none": None}
    structs = shape_dtype_structs(tree)

    def f(t):
        return t["w"] * t["n"] + t["h"], t["n"] * 2

    assert jax.eval_shape(f, structs) == jax.eval_shape(f, tree)


@pytest.mark.parametrize("transform", [jax.jit, jax.grad, jax.vmap], ids=lambda t: t.__name__)
def test_is_tracer_sees_the_tracers_of_each_transformation(transform):
    seen = []
    transform(lambda x: seen.append(x) or x.sum())(jnp.ones(2) if transform is jax.vmap else 1.0)
    assert [is_tracer(x) for x in seen] == [True]


def test_is_tracer_goes_by_type_not_by_what_an_object_says_its_class_is():
    class Liar:
        __class__ = jax.core.Tracer  # isinstance() would believe this

    assert isinstance(Liar(), jax.core.Tracer)
    assert not is_tracer(Liar())
    assert not is_tracer(jnp.ones(2))


class _Hostile:
    """Reading any attribute raises, and so does repr: a leaf_type must still answer."""

    def __getattribute__(self, name: str) -> object:
        raise RuntimeError(f"{name} read on purpose")

    def __repr__(self) -> str:
        raise RuntimeError("repr on purpose")


def test_leaf_type_rejects_an_object_whose_attributes_and_repr_raise():
    with pytest.raises(TypeError, match=r"^an object of type _Hostile whose repr raises is not an"):
        leaf_type(_Hostile())
