"""Randomness and keys: host randomness frozen by a trace, and jax.random keys used twice or shared.

NumPy's and Python's random generators draw while JAX traces, so a compiled
function returns the same numbers on every call (JP120). A jax.random key
gives the same numbers every time it is used: a key drawn from twice (JP121,
followed through each function's statements, :mod:`jaxpurity.linter.analysis._flow`),
or one key for every row of a vmap, every step of a loop or every leaf of a
tree map (JP122, off by default).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from jaxpurity.linter._family import SAME_MODULE, Family, Rule
from jaxpurity.linter.analysis._arrays import TREE_MAPS
from jaxpurity.linter.analysis._flow import MARK, Event, calls_in_order
from jaxpurity.linter.analysis._names import Names, dotted
from jaxpurity.linter.analysis._syntax import (
    comprehension_scopes,
    flatten,
    is_constant,
    names_in,
    position,
    walk_here,
)

if TYPE_CHECKING:
    from jaxpurity.linter._context import Module, ScopeContext, TracedFunction

__all__ = ["FAMILY", "KEY_USERS", "key_argument"]

FAMILY = Family(
    Rule(
        "JP120",
        "host-randomness",
        "NumPy or Python randomness in a traced function",
        "`{call}` draws while JAX traces ({how}): every call returns the same numbers; take a "
        "jax.random key as an argument",
        "frozen_randomness",
        "It knows numpy.random, Python's random, generators made at module level by "
        "numpy.random.default_rng or random.Random, and a generator's draws (rng.random(), "
        "rng.normal(), ...) from a parameter the trace keeps static; a generator passed in "
        "any other way is not seen. " + SAME_MODULE,
    ),
    Rule(
        "JP121",
        "key-reuse",
        "One jax.random key used twice",
        "key `{name}` was already used on line {line}: the same key gives the same numbers; "
        "split it and use each key once",
        "frozen_randomness",
        "It follows a key held in a local name, within one function, through its branches "
        "and loops, and a key returned after a draw from it (the caller draws again); a key "
        "named as one (key, rng, rng_key, prng_key) given to a function of your own in every "
        "round of a comprehension, with nothing that changes between rounds, is reported "
        "too. Otherwise a key passed to a function of your own, or held in an attribute or a "
        "container, is not followed. Two permutations (or shuffles) from one key give one "
        "order, which keeps two arrays paired: not reported, unless the key draws otherwise "
        "too.",
    ),
    Rule(
        "JP122",
        "shared-key",
        "A key shared by every row of a vmap, every step of a loop or every leaf of a tree",
        "`{name}` is {source} ({how}): every {unit} draws the same numbers; {fix}",
        "keys_in_vmap_and_scan",
        "It sees a key read from outside the vmapped function or loop body, one made there "
        "from a constant (`jax.random.PRNGKey(0)`), or a vmapped "
        "argument with in_axes=None, and one read from outside a function that jax.tree.map "
        "maps over the leaves of a pytree (not a permutation: one order for every leaf keeps "
        "rows together); a key shared through a helper, or split into too few keys, is not "
        "seen.",
        opt_in="Off by default: on real code 1 of its 3 findings was a bug. One key for "
        "every row is often meant: common random numbers across a population, or one draw "
        "of which a single row is used, and the source looks the same as the bug.",
    ),
)

#: The jax.random functions that use up their key (not ``fold_in``: deriving a key per
#: step from one key is the fix).
KEY_USERS = frozenset(
    f"jax.random.{name}"
    for name in (
        "ball bernoulli beta binomial bits categorical cauchy chisquare choice dirichlet "
        "double_sided_maxwell exponential f gamma generalized_normal geometric gumbel "
        "laplace loggamma logistic lognormal maxwell multinomial multivariate_normal normal "
        "orthogonal pareto permutation poisson rademacher randint rayleigh shuffle split t "
        "triangular truncated_normal uniform wald weibull_min"
    ).split()
)
#: The draws that reorder what they are given: one key for several arrays is one order.
_REORDERINGS = frozenset({"jax.random.permutation", "jax.random.shuffle"})
# The mark of a key that a permutation has used (see _key_events).
_REORDERED = MARK + "reordered"
#: The names that hold one key, by the convention of JAX's own code.
_KEY_NAMES = frozenset({"key", "rng", "prng", "rng_key", "prng_key"})
#: The jax.random functions that make keys.
_KEY_MAKERS = frozenset(
    f"jax.random.{name}" for name in ("split", "key", "PRNGKey", "fold_in", "wrap_key_data")
)
_GENERATORS = frozenset(
    {
        "numpy.random.default_rng",
        "numpy.random.RandomState",
        "numpy.random.Generator",
        "random.Random",
    }
)

# The draws of numpy.random.Generator and RandomState (and random.Random's own): a
# parameter the trace does not trace (a static argument) whose method draws is a host
# generator, read once while tracing.
_DRAW_METHODS = frozenset(
    (
        "beta binomial choice exponential gamma gauss integers normal normalvariate permutation "
        "poisson rand randint randn random randrange shuffle standard_normal uniform"
    ).split()
)


def key_argument(call: ast.Call) -> ast.expr | None:
    """The key a jax.random call is given: its first argument, or ``key=``."""
    if call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "key"), None)


# -- in traced functions: host randomness, a key shared by rows or steps ----------------------


@FAMILY.on_call
def _draw(fn: TracedFunction, node: ast.Call, name: str) -> None:
    if fn.not_only_grad and _host_randomness(fn, node, name):
        fn.hit(node, "JP120", call=(dotted(node.func) or name) + "()")
    if name in KEY_USERS:
        _shared_key(fn, node)


def _host_randomness(fn: TracedFunction, node: ast.Call, name: str) -> bool:
    if name.startswith("numpy.random.") and name not in _GENERATORS:
        return True
    if name.startswith("random.") and "random" in fn.names.imported and name != "random.Random":
        return True
    if not isinstance(node.func, ast.Attribute) or not isinstance(node.func.value, ast.Name):
        return False
    base = node.func.value
    if (
        fn.cached
        and node.func.attr in _DRAW_METHODS
        and base.id in {*fn.func.positional, *fn.func.kwonly} - {fn.func.self_name}
        and not fn.holds_tracer(base)
    ):
        return True
    return base.id in fn.module.memo(_generators) and base.id not in fn.func.local


def _generators(module: Module) -> set[str]:
    """The names that the module's own code binds to a NumPy or Python random generator."""
    return {
        target.id
        for node in module.func.of(ast.Assign)
        if isinstance(node.value, ast.Call)
        if module.names.qualified(node.value.func) in _GENERATORS
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def _shared_key(fn: TracedFunction, call: ast.Call) -> None:
    direct = fn.func.direct
    key = key_argument(call)
    if not direct & {"vmap", "loop"}:
        return
    if isinstance(key, ast.Call) and _constant_key(key, fn.names):
        unit = "step" if "loop" in direct else "row"
        source = "a key made from a constant"
        fix = "take a key from outside and split it (or fold in the step)"
        fn.hit(call, "JP122", name=dotted(key) or "key", source=source, unit=unit, fix=fix)
        return
    if not isinstance(key, ast.Name):
        return
    if "loop" in direct:
        place, unit, fix = "the loop body", "step", "carry the key and split it at every step"
    else:
        place, unit, fix = (
            "the vmapped function",
            "row",
            "split one key per row and map over them",
        )
    if key.id in fn.func.unbatched:
        source = "an argument that vmap passes whole to every row (in_axes=None)"
    elif key.id not in fn.func.local:
        source = f"a key from outside {place}"
    else:
        return
    fn.hit(call, "JP122", once=key.id, name=key.id, source=source, unit=unit, fix=fix)


def _constant_key(call: ast.Call, names: Names) -> bool:
    """``jax.random.PRNGKey(0)``: a key made from constants, the same in every round."""
    return (
        names.qualified(call.func) in ("jax.random.PRNGKey", "jax.random.key")
        and bool(call.args)
        and all(is_constant(a) for a in call.args)
        and not call.keywords
    )


# -- in any code: a key used twice, or shared by every leaf of a tree map -----------------------


@FAMILY.on_scope
def _key_per_leaf(scope: ScopeContext) -> None:
    """A function mapped over a pytree (``jax.tree.map(noise, grads)``) that draws from a key
    of its own scope's outside: every leaf draws the same numbers. A permutation is left
    alone: one order for every leaf keeps a batch's rows together (brax, acme)."""
    for call in scope.func.of(ast.Call):
        how = scope.names.qualified(call.func)
        if how not in TREE_MAPS or not call.args:
            continue
        mapped = scope.resolve(call.args[0], call.lineno)
        if mapped is None:
            continue
        leaf_fn = mapped[0]
        own = leaf_fn.local | {*leaf_fn.positional, *leaf_fn.kwonly}
        for draw in leaf_fn.of(ast.Call):
            drawn = scope.names.qualified(draw.func)
            key = key_argument(draw) if drawn in KEY_USERS - _REORDERINGS else None
            if isinstance(key, ast.Name) and key.id not in own:
                source = "a key from outside the function mapped over the tree"
                fix = "split one key per leaf (jax.random.split(key, n), then jax.tree.unflatten)"
                fields = dict(name=key.id, source=source, unit="leaf", fix=fix, how=how)
                scope.hit(draw, "JP122", **fields)


# -- in any code: a key used twice -------------------------------------------------------------


@FAMILY.on_scope
def _key_reuse(scope: ScopeContext) -> None:
    names = scope.names
    if not any(
        names.qualified(call.func) in KEY_USERS
        or (call.args and isinstance(call.args[0], ast.Name) and call.args[0].id in _KEY_NAMES)
        for call in scope.func.of(ast.Call)
    ):
        return
    dead = _dead_draws(scope)
    keys = _key_names(scope)
    for reuse in scope.spent_uses(lambda node: _key_events(node, names, dead, keys)):
        name = reuse.name.partition(MARK)[0]
        scope.hit(reuse.node, "JP121", name=name, line=reuse.line)


def _same_call_every_round(call: ast.Call, bound: Mapping[str, ast.expr], names: Names) -> bool:
    """Whether ``call``, in a comprehension whose variables are ``bound``, gives a key named
    as one (``rng``, ``key``) to a function of its own (an initializer, a model's init) and
    nothing that changes from round to round: every round draws the same numbers."""
    first = call.args[0] if call.args else None
    return (
        isinstance(first, ast.Name)
        and first.id in _KEY_NAMES
        and names.qualified(call.func) not in KEY_USERS | _KEY_MAKERS
        and not any(isinstance(n, ast.Name) and n.id in bound for n in ast.walk(call))
    )


def _key_names(scope: ScopeContext) -> set[str]:
    """The names that may hold keys given or made here: the scope's parameters, the names
    it unpacks from one (``key, x = carry``), and those it assigns a key made by jax.random
    (``key, sub = jax.random.split(key)``); not the numbers a draw gives."""
    parameters = {*scope.func.positional, *scope.func.kwonly}
    keys = set(parameters)
    for node in scope.func.of(ast.Assign):
        value = node.value
        if (isinstance(value, ast.Name) and value.id in parameters) or (
            isinstance(value, ast.Call) and scope.names.qualified(value.func) in _KEY_MAKERS
        ):
            keys |= {n for target in node.targets for n in names_in(target)}
    return keys


def _dead_draws(scope: ScopeContext) -> set[int]:
    """The draws (by ``id``) whose results nothing reads: those of an assignment to names
    that are all assigned again before any read (``keys = split(key, n)`` overwritten
    unused). Such a draw gives no numbers to anyone, so it uses up nothing: a later draw
    from the same key is no second use. A result that is neither read nor assigned again
    is taken for used (returned, or kept at module level), and so is a name that a nested
    function reads."""
    names = scope.names
    draws: dict[int, tuple[ast.Assign, list[str]]] = {}
    for node in scope.func.of(ast.Assign):
        calls = [c for c in ast.walk(node.value) if isinstance(c, ast.Call)]
        targets = [t for target in node.targets for t in flatten(target)]
        if any(names.qualified(c.func) in KEY_USERS for c in calls) and all(
            isinstance(t, ast.Name) for t in targets
        ):
            draws[id(node)] = (node, [n for t in targets for n in names_in(t)])
    if not draws:
        return set()
    tracked = {name for _, bound in draws.values() for name in bound}
    nested = {
        n.id
        for child in scope.func.children
        for n in child.of(ast.Name)
        if isinstance(n.ctx, ast.Load) and n.id in tracked
    }

    # A read of a name after a draw bound it is an event on the name; an assignment to it,
    # an event on "=name" (kept apart, since an assignment also makes the name fresh).
    def events(node: ast.AST) -> list[Event]:
        found = [
            Event(n, n.id if isinstance(n.ctx, ast.Load) else "=" + n.id, spends=False)
            for n in walk_here(node)
            if isinstance(n, ast.Name) and n.id in tracked
        ]
        found.sort(key=lambda e: position(e.node))
        if id(node) in draws:
            for name in draws[id(node)][1]:
                found += [
                    Event(node, name, spends=True, late=True),
                    Event(node, "=" + name, spends=True, late=True),
                ]
        return found

    uses = {(use.name, use.line) for use in scope.spent_uses(events)}
    dead: set[int] = set()
    for node, bound in draws.values():
        if all(
            (name, node.lineno) not in uses
            and ("=" + name, node.lineno) in uses
            and name not in nested
            for name in bound
        ):
            dead |= {id(c) for c in ast.walk(node.value) if isinstance(c, ast.Call)}
    return dead


def _key_events(
    node: ast.AST,
    names: Names,
    dead: AbstractSet[int] = frozenset(),
    keys: AbstractSet[str] = frozenset(),
) -> list[Event]:
    """Each draw from a key held in a name. One in a comprehension draws again in every
    round, from the same key, unless the key is the comprehension's own variable
    (``[jax.random.normal(k) for k in keys]``): a new key in every round, whatever the name
    held before; only a second draw from it in one round counts. A key returned (one of
    ``keys``) is read: returned after a draw from it, it is used again by the caller."""
    events = []
    scopes: dict[int, dict[str, ast.expr]] | None = None  # found at the first draw
    drawn: set[tuple[int, str]] = set()  # comprehension variables drawn from, by scope
    for call in calls_in_order([node]):
        if id(call) in dead:
            continue
        first = call.args[0] if call.args else None
        named_key = isinstance(first, ast.Name) and first.id in _KEY_NAMES
        if not named_key and names.qualified(call.func) not in KEY_USERS:
            continue  # neither a draw nor a key handed on: most calls
        if scopes is None:
            scopes = comprehension_scopes(ast.walk(node))
        if id(call) in scopes and _same_call_every_round(call, scopes[id(call)], names):
            assert isinstance(first, ast.Name)
            events.append(Event(call, first.id, spends=False, always=True))
            continue
        drawn_by = names.qualified(call.func)
        key = key_argument(call) if drawn_by in KEY_USERS else None
        if not isinstance(key, ast.Name):
            continue
        comprehension = scopes.get(id(key), {}).get(key.id)
        if comprehension is None and drawn_by in _REORDERINGS and id(call) not in scopes:
            # One key for two permutations is one order: it keeps two arrays paired. Only
            # another draw from it (or one before), or this permutation again in a later
            # round of a loop (the same order every epoch), is a second use.
            events.append(Event(call, key.id, spends=False))
            events.append(Event(call, f"{key.id}{_REORDERED}@{id(call)}", spends=True))
            events.append(Event(call, key.id + _REORDERED, spends=True, late=True))
        elif comprehension is None:
            events.append(Event(call, key.id, spends=True, always=id(call) in scopes))
            events.append(Event(call, key.id + _REORDERED, spends=True))
        elif (id(comprehension), key.id) in drawn:
            events.append(Event(call, key.id, spends=False, always=True))
        else:
            drawn.add((id(comprehension), key.id))
    if isinstance(node, ast.Return) and node.value is not None:
        # A key returned (alone, or in a tuple: a loop's carry) goes on to the caller,
        # which splits or draws from it again: a second use if it was drawn from here.
        returned = flatten(node.value)
        events += [
            Event(k, k.id, spends=False)
            for k in returned
            if isinstance(k, ast.Name) and k.id in keys
        ]
    return events
