"""Pytrees JAX cannot flatten: a reference cycle, or nesting deeper than its recursion goes.

JAX flattens a pytree by recursion, one call per level of nesting, in C++. On a
list that contains itself, or on one nested thousands of levels deep, that
recursion hits Python's limit, and what comes out is a ``SystemError``
("returned a result with an exception set", nanobind's wrapping of a
``RecursionError``) that names neither the argument nor the problem.

:func:`tree_problem` walks a pytree's containers iteratively (lists, tuples,
dicts, and every node type :mod:`jax.tree_util` flattens), with the set of the
containers on the current path and a depth limit, and says where the cycle or
the too-deep path is. :func:`not_a_tree` turns that into the ``TypeError`` a
tool raises in place of JAX's; :func:`flatten_tree` is
``jax.tree_util.tree_flatten`` with that error.

Nothing is walked on the normal path: a tool calls JAX (or lax) as it would,
and only where that fails with ``RecursionError`` or ``SystemError`` asks
this module what the input was. A walk of a tree that JAX took would cost as
much as JAX's own flatten, in Python, and could not promise more: how deep
JAX's recursion goes depends on how deep the call stack already is.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from jaxpurity._jax_compat import Tracer

__all__ = [
    "FLATTEN_ERRORS",
    "JAX_DEPTH",
    "TreeProblem",
    "flatten_tree",
    "not_a_tree",
    "tree_problem",
]

#: What JAX's flatten raises on a cycle or a tree too deep for its recursion: a
#: ``RecursionError``, which nanobind (jaxlib's bindings) wraps in a ``SystemError``.
FLATTEN_ERRORS = (RecursionError, SystemError)

#: About how many levels of nesting JAX flattens from the top of the call stack: Python's
#: recursion limit up to Python 3.11, its C recursion limit from 3.12 on (1,500 on 3.12,
#: 10,000 on 3.13). Measured (jax.tree_util.tree_flatten of nested lists, dicts and
#: tuples): 998 levels on Python 3.10 and 3.11 (JAX 0.6.2, 0.10.2), 1,498 on Python 3.12
#: (JAX 0.4.35, 0.12.0.1), 9,999 on 3.13 (JAX 0.12.0.1); fewer where the call stack is
#: deep already. JAX 0.4.35 flattens with paths (tree_flatten_with_path) in Python: 993
#: levels there.
JAX_DEPTH = (
    10_000
    if sys.version_info >= (3, 13)
    else 1_500
    if sys.version_info >= (3, 12)
    else sys.getrecursionlimit()
)

# Where JAX failed on a tree with no cycle that is shallower than JAX_DEPTH (from a deep
# call stack), it is reported as too deep if it is at least this deep; a shallower one is
# not too deep for JAX from any reasonable stack, and JAX's error is raised as it is.
_SHALLOW = 100
# Paths longer than this many keys are shown as their start and end.
_SHOWN_KEYS = 8
# The walk gives up (and says nothing) after this many containers: JAX would flatten
# every one of them, so a tree this large is one it took, not why it failed.
_MAX_NODES = 2_000_000

# Leaves by type, known without a call into jax.tree_util.
_PLAIN_LEAVES = frozenset(
    {
        bool,
        int,
        float,
        complex,
        str,
        bytes,
        type(None),
        np.ndarray,
        jax.ShapeDtypeStruct,
        types.GeneratorType,  # a leaf, which JAX 0.12 warns about: not asked here
    }
)


@dataclass(frozen=True)
class TreeProblem:
    """Why JAX cannot flatten a pytree, and where.

    Attributes:
      cycle: True for a reference cycle; False for a tree nested too deep.
      path: The keys from the root to the container that holds an ancestor
        again (a cycle), or to the deepest container walked (too deep), as
        :func:`jax.tree_util.keystr` writes them (``"[0]"``, ``"['a']"``, ``".w"``).
      target: For a cycle, the keys of the ancestor it holds again (``()`` for
        the root itself); empty otherwise.
      container: For a cycle, what the ancestor is (``"a list"``); empty otherwise.
      complete: For a tree too deep, whether the walk reached its bottom (then
        :attr:`depth` is its depth); False where it stopped past the limit.
    """

    cycle: bool
    path: tuple[str, ...]
    target: tuple[str, ...] = ()
    container: str = ""
    complete: bool = True

    @property
    def depth(self) -> int:
        """How many containers are nested along :attr:`path`, the root's included."""
        return len(self.path) + 1


def _kind(node: Any) -> str:
    cls = type(node)
    plain: dict[type, str] = {list: "a list", dict: "a dict", tuple: "a tuple"}
    return plain.get(cls, f"an object of type `{cls.__name__}`")


def _key_text(key: Any) -> str:
    try:
        return str(jax.tree_util.keystr((key,)))
    except Exception:  # noqa: BLE001 - a key whose repr raises still has a place
        return f"[<a `{type(key).__name__}` key>]"


def _dict_key(key: Any) -> str:
    try:
        return f"[{key!r}]"
    except Exception:  # noqa: BLE001 - a key whose repr raises still has a place
        return f"[<a `{type(key).__name__}` key>]"


def _children(node: Any) -> Iterator[tuple[str, Any]] | None:
    """``(key, child)`` for each child of a pytree node; None for a leaf.

    Lists, tuples and dicts are read directly; any other type through
    :mod:`jax.tree_util`, one level (its children taken as leaves). A node
    whose flattening fails is a leaf here: JAX raises its own error for it.
    """
    cls = type(node)
    if cls in _PLAIN_LEAVES or issubclass(cls, (Tracer, np.generic, jax.Array)):
        return None
    if cls is list or cls is tuple:
        return ((f"[{i}]", child) for i, child in enumerate(node))
    if cls is dict:
        return ((_dict_key(key), child) for key, child in node.items())
    first = [True]

    def only_the_root_is_a_node(_: Any) -> bool:
        if first:
            first.pop()
            return False
        return True

    treedef: Any  # a PyTreeDef, which JAX's type hints leave unresolved
    try:  # one pass, which asks is_leaf about the root first
        children, treedef = jax.tree_util.tree_flatten(node, is_leaf=only_the_root_is_a_node)
    except Exception:  # noqa: BLE001 - jax raises its own error for this node
        return None
    if len(children) == 1 and children[0] is node and treedef.num_nodes == 1:
        return None  # a leaf
    return zip(_keys(treedef, len(children)), children, strict=True)


def _keys(treedef: Any, count: int) -> list[str]:
    """The keys of a node's children (``".w"``, ``"['a']"``), from its treedef of one level.

    The node is rebuilt with a placeholder per child and flattened with paths;
    a node that cannot be rebuilt so (its unflatten computes) gets positions.
    """
    try:
        rebuilt = jax.tree_util.tree_unflatten(treedef, [object() for _ in range(count)])
        paths = [path for path, _ in jax.tree_util.tree_flatten_with_path(rebuilt)[0]]
        if len(paths) == count and all(len(path) == 1 for path in paths):
            return [_key_text(path[0]) for path in paths]
    except Exception:  # noqa: BLE001 - a node whose unflatten fails on placeholders
        pass
    return [f"[{i}]" for i in range(count)]


def tree_problem(tree: Any, *, limit: int = JAX_DEPTH) -> TreeProblem | None:
    """The reference cycle in ``tree``, or its path deeper than ``limit``; None if neither.

    An iterative depth-first walk of the pytree's containers, in one pass: a
    container found again among its own ancestors is a cycle (one shared by
    two branches is not); a path longer than ``limit`` containers is too deep.
    The first problem found is returned.

    Args:
      tree: Any pytree.
      limit: The number of containers nested in one another (the root's
        included) past which a path is too deep (by default, about what JAX
        flattens, :data:`JAX_DEPTH`).

    Returns:
      A :class:`TreeProblem`, or None.

    Example:
      >>> cycle = [1.0, {"a": 2.0}]
      >>> cycle[1]["b"] = cycle
      >>> tree_problem({"x": cycle})
      TreeProblem(cycle=True, path=("['x']", '[1]', "['b']"), target=("['x']",), container='a list', complete=True)
      >>> deep = [1.0]
      >>> for _ in range(3):
      ...     deep = [deep]
      >>> tree_problem(deep, limit=3)
      TreeProblem(cycle=False, path=('[0]', '[0]', '[0]'), target=(), container='', complete=False)
      >>> tree_problem(deep, limit=4) is None  # four lists
      True
      >>> tree_problem([deep, deep]) is None  # shared, not cyclic
      True
    """  # noqa: E501
    return _walk(tree, limit)[0]


def _walk(tree: Any, limit: int) -> tuple[TreeProblem | None, tuple[str, ...], bool]:
    """The first problem; the keys of the deepest path walked; whether the walk went to the end."""
    root = _children(tree)
    if root is None:
        return None, (), True
    # The containers on the current path, each with its key and its children still to walk.
    nodes: list[Any] = [tree]
    keys: list[str] = []
    pending: list[Iterator[tuple[str, Any]]] = [root]
    on_path = {id(tree)}
    deepest: tuple[str, ...] = ()
    deeper = False  # whether the current path is deeper than ``deepest`` (copied when left)
    walked = 0
    while pending:
        step = next(pending[-1], None)
        if step is None:
            if deeper:
                deepest, deeper = tuple(keys), False
            pending.pop()
            on_path.discard(id(nodes.pop()))
            if keys:
                keys.pop()
            continue
        key, child = step
        if id(child) in on_path:
            at = next(i for i, node in enumerate(nodes) if node is child)
            problem = TreeProblem(True, (*keys, key), tuple(keys[:at]), _kind(child))
            return problem, deepest, False
        children = _children(child)
        if children is None:
            continue
        walked += 1
        if walked > _MAX_NODES:
            return None, deepest, False
        nodes.append(child)
        keys.append(key)
        pending.append(children)
        on_path.add(id(child))
        if len(keys) > len(deepest):
            deeper = True
            if len(keys) >= limit:  # limit + 1 containers, the root's included
                return TreeProblem(False, tuple(keys), complete=False), tuple(keys), False
    return None, deepest, True


def _shown(label: str, path: tuple[str, ...]) -> str:
    """``label`` and the keys of ``path``, the middle left out of a long one."""
    if len(path) <= _SHOWN_KEYS:
        return label + "".join(path)
    head, tail = path[: _SHOWN_KEYS - 3], path[-3:]
    left = len(path) - len(head) - len(tail)
    return f"{label}{''.join(head)}...({left:,} more)...{''.join(tail)}"


def _message(where: str, label: str, root: str, problem: TreeProblem) -> str:
    if problem.cycle:
        held = _shown(root, problem.path)
        ancestor = _shown(root, problem.target)
        return (
            f"{where}: {label} holds a reference cycle: {held} is {ancestor} again "
            f"({problem.container} that contains itself). JAX flattens it as a pytree, which "
            "must be a tree, and would recurse forever. Pass the arrays it needs, in "
            "containers that do not hold themselves."
        )
    depth = problem.depth
    how_deep = f"{depth:,}" if problem.complete else f"more than {depth - 1:,}"
    return (
        f"{where}: {label} is nested {how_deep} levels deep ({_shown(root, problem.path)}), deeper "
        f"than JAX's pytrees go: JAX flattens a pytree by recursion, one call per level, "
        f"which Python stops at {JAX_DEPTH:,} levels at most (fewer from a deep call stack). "
        "Pass a flatter structure: its leaves in one list or dict "
        "(jax.tree_util.tree_leaves), or arrays of one shape stacked into one (jnp.stack)."
    )


def not_a_tree(
    where: str, trees: Mapping[str, Any], *, roots: Mapping[str, str] | None = None
) -> TypeError | None:
    """The error to raise where JAX failed to flatten one of ``trees``; None if each is fine.

    Call it where JAX (or lax) raised one of :data:`FLATTEN_ERRORS`: it walks
    each tree in turn (:func:`tree_problem`), and for the first that holds a
    reference cycle, or is too deep, makes a ``TypeError`` that names it, says
    where, and what to pass instead. Where none is, the failure was something
    else: re-raise JAX's error.

    Args:
      where: Who is speaking, the start of the message (``"jaxpurity.cond"``).
      trees: The trees by the name the message gives each (``"operands"``,
        ``"init_val"``, ``"the output of body_fun"``).
      roots: Where a name is no expression, what a path starts with instead
        (``{"the output of body_fun": "body_fun(...)"}``); by default the name.

    Returns:
      A ``TypeError`` to raise, or None.

    Example:
      >>> cycle = [1.0]
      >>> cycle.append(cycle)
      >>> print(not_a_tree("jaxpurity.cond", {"operands": (2.0, cycle)}))  # doctest: +ELLIPSIS
      jaxpurity.cond: operands holds a reference cycle: operands[1][1] is operands[1] again (a list that contains itself). ...
      >>> deep = 1.0
      >>> for _ in range(2 * JAX_DEPTH):  # deeper than JAX goes on this Python
      ...     deep = {"a": deep}
      >>> print(not_a_tree("jaxpurity.scan", {"init": deep}))  # doctest: +ELLIPSIS
      jaxpurity.scan: init is nested more than ... levels deep (init['a']['a']['a']['a']['a']...), deeper than JAX's pytrees go: ...
      >>> not_a_tree("jaxpurity.cond", {"operands": (1.0, [2.0])}) is None
      True
    """  # noqa: E501
    for label, tree in trees.items():
        problem, deepest, finished = _walk(tree, JAX_DEPTH)
        if problem is None and finished and len(deepest) >= _SHALLOW:
            # Shallower than JAX_DEPTH, yet too deep for JAX from this call stack.
            problem = TreeProblem(False, deepest)
        if problem is not None:
            root = (roots or {}).get(label, label)
            return TypeError(_message(where, label, root, problem))
    return None


def flatten_tree(tree: Any, name: str, *, where: str) -> tuple[list[Any], Any]:
    """``jax.tree_util.tree_flatten(tree)``, with :func:`not_a_tree`'s error for a cycle or depth.

    The flatten is JAX's own, at its own speed; the tree is walked only when
    it fails.

    Args:
      tree: Any pytree.
      name: What the message calls it (``"xs"``).
      where: Who is speaking, the start of the message (``"jaxpurity.scan"``).

    Returns:
      The leaves and the treedef, as :func:`jax.tree_util.tree_flatten` returns them.

    Raises:
      TypeError: ``tree`` holds a reference cycle or is nested too deep for JAX.

    Example:
      >>> flatten_tree({"b": 2, "a": [1]}, "xs", where="jaxpurity.scan")[0]
      [1, 2]
      >>> cycle = []
      >>> cycle.append(cycle)
      >>> flatten_tree(cycle, "xs", where="jaxpurity.scan")  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      TypeError: jaxpurity.scan: xs holds a reference cycle: xs[0] is xs again (a list that contains itself). ...
    """  # noqa: E501
    try:
        return jax.tree_util.tree_flatten(tree)
    except FLATTEN_ERRORS:
        error = not_a_tree(where, {name: tree})
        if error is None:
            raise
    raise error from None
