"""Runs of a checked function get copies of the caller's arrays: none of the caller's is deleted.

A function may call a jitted function that donates its argument (``donate_argnums``):
run eagerly, that call deletes the array it is given. Where the checked program does
(:func:`jaxpurity.checks._program.donates`), each eager run gets copies of the arrays the
call reaches: its arguments, what partials and bound methods bind, its globals and closure
variables, and what the lists, dicts, tuples and objects among those hold (in their
``__dict__`` and their ``__slots__``: a Flax NNX ``Variable`` keeps its array in a slot,
and hands attribute reads on to that array). A mutable holder keeps its identity (the copy
is put in place, and the caller's array put back after the run where the copy still is),
so that what the run writes into it is still seen; a tuple is rebuilt around the copies.
"""

from __future__ import annotations

import contextlib
import functools
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jax

from jaxpurity._introspect import own_attributes, slot_names, wrappers
from jaxpurity.checks._call import BoundCall

__all__ = ["arrays_copied"]

_MAX_OBJECTS = 20_000  # holders looked into per run, so that a huge graph stays quick
_MAX_DEPTH = 12


@dataclass(frozen=True)
class _Swap:
    """A copy put where the caller's array was, to be undone while the copy is still there."""

    get: Callable[[], Any]
    set: Callable[[Any], None]
    original: Any
    copy: Any

    def undo(self) -> None:
        with contextlib.suppress(Exception):  # a holder that refuses now keeps the copy
            if self.get() is self.copy:
                self.set(self.original)


class _Copier:
    def __init__(self) -> None:
        self.swaps: list[_Swap] = []
        self.seen: set[int] = set()

    def copied(self, value: Any, depth: int = 0) -> Any:
        """``value`` with copies of its arrays: a new array or tuple, or the holder itself
        with copies put in place."""
        if isinstance(value, jax.Array):
            return value.copy()
        if id(value) in self.seen or depth > _MAX_DEPTH or len(self.seen) > _MAX_OBJECTS:
            return value
        self.seen.add(id(value))
        try:
            return self._copied(value, depth + 1)
        except Exception:  # noqa: BLE001 - a holder that refuses (dunders raising) keeps its own
            return value

    def _copied(self, value: Any, depth: int) -> Any:
        if type(value) is tuple or (isinstance(value, tuple) and hasattr(value, "_fields")):
            items = [self.copied(v, depth) for v in value]
            if all(a is b for a, b in zip(items, value, strict=True)):
                return value
            return tuple(items) if type(value) is tuple else type(value)(*items)
        if isinstance(value, list):
            for i, item in enumerate(list(value)):
                self._put(value.__getitem__, value.__setitem__, i, item, depth)
        elif isinstance(value, dict):
            for key, item in list(value.items()):
                self._put(
                    value.__getitem__, functools.partial(dict.__setitem__, value), key, item, depth
                )
        elif isinstance(value, functools.partial):
            self.copied(value.keywords, depth)
        elif not isinstance(value, _CODE):
            get = functools.partial(object.__getattribute__, value)  # past a __getattr__
            set_ = functools.partial(object.__setattr__, value)  # past a frozen class's
            for name, item in list(own_attributes(value).items()):
                self._put(get, set_, name, item, depth)
            for name in slot_names(type(value)):
                with contextlib.suppress(AttributeError):  # a slot never set
                    self._put(get, set_, name, get(name), depth)
        return value

    def _put(
        self,
        get: Callable[[Any], Any],
        set_: Callable[[Any, Any], None],
        key: Any,
        item: Any,
        depth: int,
    ) -> None:
        new = self.copied(item, depth)
        if new is not item:
            set_(key, new)
            self.swaps.append(
                _Swap(functools.partial(get, key), functools.partial(set_, key), item, new)
            )


def _rebind(partial: functools.partial[Any], args: tuple[Any, ...]) -> None:
    """Give ``partial`` other positional arguments (its ``__setstate__``, as pickle does)."""
    state = (partial.func, args, partial.keywords, partial.__dict__ or None)
    partial.__setstate__(state)  # type: ignore[attr-defined]  # not in typeshed's partial


_CODE = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)


@contextlib.contextmanager
def arrays_copied(
    call: BoundCall, copy: bool = True
) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Within the block, the call's arrays are copies; gives the arguments to run it with.

    With ``copy=False``, the block gives the call's own arguments and changes nothing.

    Example:
      >>> import jax.numpy as jnp
      >>> x, held = jnp.ones(2), {}
      >>> held["w"] = x
      >>> call = BoundCall.of(lambda a, h: a, (x, held), {})
      >>> with arrays_copied(call) as (args, kwargs):
      ...     args[0] is x, held["w"] is x, args[1] is held
      (False, False, True)
      >>> held["w"] is x
      True
    """
    if not copy:
        yield call.args, call.kwargs
        return
    copier = _Copier()
    try:
        args = tuple(copier.copied(a) for a in call.args)
        kwargs = {k: copier.copied(v) for k, v in call.kwargs.items()}
        for layer in wrappers(call.body):  # what partials and bound methods bind
            if isinstance(layer, functools.partial):
                copier.copied(layer.keywords)
                bound = copier.copied(layer.args)
                if bound is not layer.args:
                    rebind = functools.partial(_rebind, layer)
                    get = functools.partial(getattr, layer, "args")
                    copier.swaps.append(_Swap(get, rebind, layer.args, bound))
                    rebind(bound)
            elif isinstance(layer, types.MethodType):
                copier.copied(layer.__self__)
        for binding in call.bindings:
            value = binding.get()
            new = copier.copied(value)
            if new is not value:
                binding.set(new)
                copier.swaps.append(_Swap(binding.get, binding.set, value, new))
        yield args, kwargs
    finally:
        for swap in reversed(copier.swaps):
            swap.undo()
