"""Tests for jaxpurity/_trees.py: what makes a pytree one JAX cannot flatten, said plainly."""

from __future__ import annotations

import collections
import dataclasses
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import pytest

from jaxpurity._trees import JAX_DEPTH, flatten_tree, not_a_tree, tree_problem

#: Deeper than JAX flattens on this Python (JAX_DEPTH: 1,000 before 3.12, 1,500 on 3.12,
#: 10,000 on 3.13).
TOO_DEEP = 2 * JAX_DEPTH


def nested_list(depth: int, leaf: Any = 1.0) -> Any:
    """``depth`` lists, each holding the next, the last holding ``leaf``."""
    tree = [leaf]
    for _ in range(depth - 1):
        tree = [tree]
    return tree


def nested_dict(depth: int, leaf: Any = 1.0) -> Any:
    tree = {"a": leaf}
    for _ in range(depth - 1):
        tree = {"a": tree}
    return tree


def cyclic_list() -> list[Any]:
    cycle: list[Any] = [1.0]
    cycle.append(cycle)
    return cycle


class Pair(NamedTuple):
    a: Any
    b: Any


@dataclasses.dataclass
class Node:
    child: Any


# JAX 0.4.35 needs the fields named.
jax.tree_util.register_dataclass(Node, data_fields=["child"], meta_fields=[])


def test_jax_itself_fails_on_these_trees_with_an_error_that_names_nothing():
    # What the helper replaces: if JAX starts raising a clear error, the helper can go.
    for tree in (nested_list(TOO_DEEP), cyclic_list()):
        with pytest.raises((SystemError, RecursionError)):
            jax.tree_util.tree_flatten(tree)


@pytest.mark.parametrize(
    ("tree", "path", "target"),
    [
        (cyclic_list(), ("[1]",), ()),
        ({"x": [1.0, cyclic_list()]}, ("['x']", "[1]", "[1]"), ("['x']", "[1]")),
        (Pair(1.0, cyc := cyclic_list()), (".b", "[1]"), (".b",)),
        (Node(child=[cyc]), (".child", "[0]", "[1]"), (".child", "[0]")),
    ],
    ids=["list", "dict of lists", "namedtuple", "registered dataclass"],
)
def test_tree_problem_finds_a_reference_cycle_and_where(tree, path, target):
    problem = tree_problem(tree)
    assert problem is not None and problem.cycle
    assert (problem.path, problem.target, problem.container) == (path, target, "a list")


def test_a_node_of_a_registered_type_that_holds_itself_is_a_cycle():
    od: collections.OrderedDict[str, Any] = collections.OrderedDict(a=1.0)
    od["me"] = od
    problem = tree_problem(od)
    assert problem is not None and problem.cycle
    assert problem.path == ("['me']",)
    assert problem.container == "an object of type `OrderedDict`"


def test_a_subtree_shared_by_two_branches_is_no_cycle():
    shared = [jnp.ones(2), {"w": 1.0}]
    assert tree_problem({"a": shared, "b": [shared, shared]}) is None


@pytest.mark.parametrize("make", [nested_list, nested_dict], ids=["lists", "dicts"])
def test_tree_problem_stops_at_the_first_path_deeper_than_the_limit(make):
    problem = tree_problem(make(TOO_DEEP))
    assert problem is not None and not problem.cycle and not problem.complete
    assert problem.depth == JAX_DEPTH + 1
    assert tree_problem(make(50), limit=50) is None
    assert tree_problem(make(51), limit=50) is not None


def test_a_too_deep_tree_is_not_called_a_reference_cycle():
    error = not_a_tree("jaxpurity.scan", {"init": nested_list(TOO_DEEP)})
    assert error is not None
    message = str(error)
    assert "cycle" not in message
    assert message.startswith(f"jaxpurity.scan: init is nested more than {JAX_DEPTH:,} levels")
    assert "init[0][0][0][0][0]...(" in message  # where, with the middle left out
    assert "Pass a flatter structure" in message


def test_a_cycle_error_names_the_tree_the_path_and_the_fix():
    error = not_a_tree("jaxpurity.cond", {"like": 1.0, "operands": (2.0, cyclic_list())})
    assert str(error).startswith(
        "jaxpurity.cond: operands holds a reference cycle: operands[1][1] is operands[1] "
        "again (a list that contains itself)."
    )
    assert "Pass the arrays it needs" in str(error)


def test_a_path_can_start_with_a_call_where_the_tree_is_an_output():
    label = "the output of body_fun"
    error = not_a_tree("x", {label: cyclic_list()}, roots={label: "body_fun(...)"})
    assert "the output of body_fun holds a reference cycle: body_fun(...)[1] is body_fun(...)" in (
        str(error)
    )


def test_not_a_tree_is_none_for_trees_jax_takes():
    trees = {"a": {"w": jnp.ones(3), "b": [1, 2.0, None]}, "b": Pair(1, (2, 3)), "c": "text"}
    assert not_a_tree("x", trees) is None


def test_a_tree_shallower_than_the_limit_is_named_too_deep_only_past_a_floor():
    # JAX can fail on a tree shallower than JAX_DEPTH from a deep call stack: such a tree
    # is named too deep; a shallow one is not (JAX's error is then about something else).
    assert "is nested 300 levels deep" in str(not_a_tree("x", {"t": nested_list(300)}))
    assert not_a_tree("x", {"t": nested_list(10)}) is None


def test_flatten_tree_flattens_as_jax_does_and_names_a_tree_it_cannot():
    tree = {"b": (1.0, [jnp.ones(2)]), "a": None}
    assert flatten_tree(tree, "xs", where="w")[1] == jax.tree_util.tree_structure(tree)
    with pytest.raises(TypeError, match=r"^jaxpurity.scan: xs holds a reference cycle"):
        flatten_tree({"k": cyclic_list()}, "xs", where="jaxpurity.scan")


def test_a_node_whose_flatten_raises_is_left_to_jax():
    class Raising:
        pass

    jax.tree_util.register_pytree_node(
        Raising, lambda _: (_ for _ in ()).throw(ValueError("no")), lambda *_: Raising()
    )
    assert tree_problem([Raising(), 1.0]) is None


class Checked:
    """A pytree node whose unflatten computes with its children (so no placeholder fits)."""

    def __init__(self, child: Any) -> None:
        self.child = child


jax.tree_util.register_pytree_node(
    Checked, lambda node: ((node.child,), None), lambda _, kids: Checked(kids[0] + 0)
)


def test_a_cycle_through_a_node_that_cannot_be_rebuilt_is_named_by_position():
    cycle: list[Any] = [1.0]
    cycle.append(Checked(cycle))
    problem = tree_problem(cycle)
    assert problem is not None and problem.cycle
    assert problem.path == ("[1]", "[0]")
