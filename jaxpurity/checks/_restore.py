"""State that every run of a checked function starts from, and that is put back at the end.

A random number generator's state (a trace may advance it) and the values of
:func:`jax.new_ref <jax.ref.new_ref>` arrays: :func:`check_pure` resets both before each of its
calls, so that the calls draw the same numbers and see the same values, and
restores both when it is done.
"""

from __future__ import annotations

import functools
import operator
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from jaxpurity._introspect import is_user_object, own_attributes
from jaxpurity._jax_compat import Ref, is_ref
from jaxpurity._naming import kind_of
from jaxpurity.checks._call import BoundCall
from jaxpurity.checks._snapshot import CODE, same_array
from jaxpurity.checks._tracing import leaves_of

__all__ = ["Restored", "new_ref_arrays", "random_generators"]


@dataclass
class Restored:
    """State that each run starts from, put back at the end: a random number generator
    (whose state a trace may advance), or a :func:`jax.new_ref <jax.ref.new_ref>` array."""

    label: str
    get: Callable[[], Any]
    set: Callable[[Any], None]
    initial: Any = None

    def moved(self) -> bool:
        return not _same_state(self.get(), self.initial)

    def reset(self) -> None:
        self.set(self.initial)


def _same_state(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_state(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same_state(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (np.ndarray, jax.Array)) or isinstance(b, (np.ndarray, jax.Array)):
        return same_array(np.asarray(a), np.asarray(b))  # a Ref's value is a jax.Array
    return bool(a == b)


def _generator_state(rng: Any) -> tuple[Callable[[], Any], Callable[[Any], None]] | None:
    """How to read and set the state of a NumPy or Python generator object; None for others."""
    rng_type = type(rng)  # not isinstance, which reads __class__: a hostile object's may raise
    if not issubclass(rng_type, (np.random.Generator, np.random.RandomState, random.Random)):
        return None
    if isinstance(rng, np.random.Generator):
        bits = rng.bit_generator
        return (lambda: bits.state), functools.partial(setattr, bits, "state")
    if isinstance(rng, np.random.RandomState):
        return rng.get_state, rng.set_state
    if isinstance(rng, random.Random) and not isinstance(rng, random.SystemRandom):
        return rng.getstate, rng.setstate
    return None


def random_generators(call: BoundCall) -> list[Restored]:
    """NumPy's and Python's global generators, and the generators the call reaches in one step:
    in its globals, closure variables and arguments, and held directly by the lists, tuples,
    dicts and user objects among those (``self._random`` of an object a closure holds)."""
    rngs = [
        Restored(
            "numpy.random (NumPy's global generator)", np.random.get_state, np.random.set_state
        ),
        Restored("random (Python's global generator)", random.getstate, random.setstate),
    ]
    seen: set[int] = set()
    for label, value in _places(call):
        held = [(label, value), *((f"{label}, {where}", x) for where, x in _held_named(value))]
        for where, x in held:
            state = _generator_state(x)
            if state is not None and id(x) not in seen:
                seen.add(id(x))
                rngs.append(Restored(f"{where} ({kind_of(x)})", *state))
    for r in rngs:
        r.initial = r.get()
    return rngs


def _places(call: BoundCall) -> list[tuple[str, Any]]:
    """The values the call reaches by name, each with its label: its globals and closure
    variables, and its arguments."""
    places = [(b.label, b.get()) for b in call.bindings]
    return places + [(f"argument `{name}`", value) for name, value in call.named]


def _held_named(value: Any) -> list[tuple[str, Any]]:
    """What a list, tuple, dict or user object holds directly, each with where (``attribute
    `_random```, ``item 0``); nothing where that cannot be read (a hostile object)."""
    try:
        kind = type(value)  # by type: a hostile __class__ may raise
        if is_user_object(value):
            return [(f"attribute `{k}`", v) for k, v in own_attributes(value).items()]
        if issubclass(kind, (list, tuple)):
            return [(f"item {i}", v) for i, v in enumerate(value)]
        if issubclass(kind, dict):
            return [
                (f"item {k!r}" if type(k) in (str, int) else "an item", v)
                for k, v in list(value.items())
            ]
    except Exception:  # noqa: BLE001 - a hostile object: nothing read
        pass
    return []


def _held(value: Any) -> list[Any]:
    """What ``value`` holds directly, where a Ref may be: its pytree leaves, and a user object's
    attributes; nothing where that cannot be read (a cyclic or too deep tree, a hostile
    object)."""
    try:
        if issubclass(type(value), CODE):  # by type: a hostile __class__ may raise
            return []
        held = list(own_attributes(value).values()) if is_user_object(value) else []
        return [*(leaves_of(value) or []), *held]
    except Exception:  # noqa: BLE001 - RecursionError or SystemError from JAX, a hostile dunder
        return []


def new_ref_arrays(call: BoundCall) -> list[Restored]:
    """The :func:`jax.new_ref <jax.ref.new_ref>` arrays the call reaches in one step: its
    arguments (pytree leaves), globals and closure variables, and what the lists, tuples,
    dicts and user objects among those hold directly."""
    if Ref is None:
        return []
    found: dict[int, Restored] = {}
    for label, value in _places(call):
        for x in _held(value):
            if is_ref(x) and id(x) not in found:
                get = functools.partial(operator.getitem, x, ...)
                found[id(x)] = Restored(label, get, functools.partial(operator.setitem, x, ...))
    for r in found.values():
        r.initial = r.get()
    return list(found.values())
