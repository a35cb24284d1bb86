"""Record all the state a call can reach, say what a call changed, and put everything back.

:func:`check_pure` runs the user's function several times (traced, eagerly,
under a fresh ``jit``). Each run must start from the same state, and when the
check ends the caller's arguments, objects and globals must be as they were,
with no tracer left in them. A :class:`Snapshot` records, deeply, what a call
can reach from its arguments, its globals and its closure: the items of lists,
dicts and sets, the values of NumPy arrays, the attributes of user objects
(and of their classes), and the bindings of globals and closure variables.
:meth:`Snapshot.changes` lists what differs now, by path (``d['count']``,
``model.mean``), and :meth:`Snapshot.restore` puts it all back, in place.

Where :mod:`jaxpurity.checks._watch` names the state one trace changed in the words
of its report, this module is the deep record the check compares runs with,
and restores from.
"""

from __future__ import annotations

import collections
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from jaxpurity._introspect import EMPTY_CELL, is_user_code, is_user_object
from jaxpurity._naming import short_repr

__all__ = ["Binding", "Change", "Snapshot"]

_MAX_OBJECTS = 20_000  # objects recorded per snapshot, so that a huge graph stays quick
_MAX_DEPTH = 12
# Values with no state of their own to record: compared by identity only.
_ATOMS = (
    type(None),
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    range,
    jax.Array,
    np.generic,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.CodeType,
    type,
)
_MISSING = object()


@dataclass(frozen=True)
class Binding:
    """A name the call can rebind: a global (in its module's dict) or a closure cell."""

    label: str  # how the report names it: "global `counter`", "closure variable `n` of `f`"
    path: str  # how a path through it starts: "counter", "n"
    get: Callable[[], Any]
    set: Callable[[Any], None]

    @classmethod
    def global_(cls, namespace: dict[str, Any], name: str) -> Binding:
        def set_(value: Any) -> None:
            if value is _MISSING:
                namespace.pop(name, None)
            else:
                namespace[name] = value

        return cls(f"global `{name}`", name, lambda: namespace.get(name, _MISSING), set_)

    @classmethod
    def cell(cls, cell: types.CellType, name: str, owner: str) -> Binding:
        def get() -> Any:
            try:
                return cell.cell_contents
            except ValueError:
                return EMPTY_CELL

        def set_(value: Any) -> None:
            if value is EMPTY_CELL:
                del cell.cell_contents
            else:
                cell.cell_contents = value

        return cls(f"closure variable `{name}` of `{owner}`", name, get, set_)


@dataclass(frozen=True)
class Change:
    """One difference from the snapshot: where, and what it was and is."""

    root: str  # the label of the argument or binding the path starts from
    path: str  # a Python expression for the place: "d['count']", "model.mean", "history"
    before: Any
    after: Any


def _slots(value: Any) -> list[str]:
    names = []
    for klass in type(value).__mro__:
        slots = vars(klass).get("__slots__", ())
        names += [slots] if isinstance(slots, str) else [s for s in slots if isinstance(s, str)]
    return [n for n in names if n not in ("__dict__", "__weakref__")]


class Snapshot:
    """A deep record of the state reachable from some roots, to compare with and restore.

    Example:
      >>> d = {"count": 0, "items": []}
      >>> snap = Snapshot([("argument `d`", "d", d)], [])
      >>> d["count"] += 1; d["items"].append(3)
      >>> [(c.path, c.before, c.after) for c in snap.changes()]
      [("d['count']", '0', '1'), ("d['items']", '0 item(s)', '1 item(s): [3]')]
      >>> snap.restore()
      >>> d
      {'count': 0, 'items': []}
    """

    def __init__(self, roots: list[tuple[str, str, Any]], bindings: list[Binding]) -> None:
        self.bindings = [(b, b.get()) for b in bindings]
        # id -> (object, root label, path, kind, saved contents); ordered as walked
        self.records: dict[int, tuple[Any, str, str, str, Any]] = {}
        self._keep: list[Any] = []  # keeps every recorded object alive: no id is reused
        queue: collections.deque[tuple[str, str, Any, int]] = collections.deque(
            (label, path, value, 0) for label, path, value in roots
        )
        queue.extend((b.label, b.path, value, 0) for b, value in self.bindings)
        while queue and len(self.records) < _MAX_OBJECTS:
            label, path, value, depth = queue.popleft()
            if id(value) in self.records or depth > _MAX_DEPTH:
                continue
            if isinstance(value, type) and is_user_code(value):
                self._record_class(label, value)  # a class the code names: its attributes
                continue
            if isinstance(value, _ATOMS):
                continue
            for child_path, child in self._record(label, path, value):
                queue.append((label, child_path, child, depth + 1))

    def _record(self, label: str, path: str, value: Any) -> list[tuple[str, Any]]:
        """Record ``value``'s own state; return its children to walk, with their paths."""
        kind: str
        saved: Any
        children: list[tuple[Any, Any]]
        if isinstance(value, list):
            kind, saved, children = "list", list(value), list(enumerate(value))
        elif isinstance(value, dict):
            kind, saved = "dict", list(value.items())
            children = list(saved)
        elif isinstance(value, (set, frozenset)):
            kind, saved, children = "set", set(value), []
        elif isinstance(value, (collections.deque, bytearray)):
            kind, saved, children = "sequence", list(value), list(enumerate(value))
        elif isinstance(value, tuple):
            kind, saved, children = "tuple", None, list(enumerate(value))
        elif isinstance(value, np.ndarray):
            kind, saved, children = "array", np.array(value, copy=True), []
        elif is_user_object(value):
            attrs = dict(vars(value)) if hasattr(value, "__dict__") else {}
            slots = {n: getattr(value, n, _MISSING) for n in _slots(value)}
            kind, saved = "object", (attrs, slots)
            children = [(f".{k}", v) for k, v in {**attrs, **slots}.items() if v is not _MISSING]
            self._record_class(label, type(value))
        else:
            return []
        self.records[id(value)] = (value, label, path, kind, saved)
        self._keep.append(value)
        return [
            (
                f"{path}{key}"
                if isinstance(key, str) and key.startswith(".")
                else f"{path}[{key!r}]",
                c,
            )
            for key, c in children
        ]

    def _record_class(self, label: str, klass: type) -> None:
        if id(klass) not in self.records:
            self.records[id(klass)] = (klass, label, klass.__qualname__, "class", dict(vars(klass)))
            self._keep.append(klass)

    def changes(self) -> list[Change]:
        """What differs from the snapshot now, bindings first, then objects as walked."""
        found = [
            Change(b.label, b.path, _shown(before), _shown(b.get()))
            for b, before in self.bindings
            if b.get() is not before
        ]
        for value, label, path, kind, saved in self.records.values():
            for sub, before, after in _differences(value, kind, saved):
                found.append(Change(label, path + sub, before, after))
        return found

    def restore(self) -> None:
        """Put every recorded binding, item, attribute and array value back, in place."""
        for value, _, _, kind, saved in reversed(list(self.records.values())):
            if _differences(value, kind, saved):
                _put_back(value, kind, saved)
        for binding, before in self.bindings:
            if binding.get() is not before:
                binding.set(before)


def _shown(value: Any) -> str:
    return "nothing" if value is _MISSING or value is EMPTY_CELL else short_repr(value)


def _differences(value: Any, kind: str, saved: Any) -> list[tuple[str, str, str]]:
    """``(sub-path, before, after)`` for each way ``value`` differs from ``saved``."""
    if kind in ("list", "sequence"):
        items = list(value)
        if len(items) == len(saved) and all(x is y for x, y in zip(items, saved, strict=True)):
            return []
        if len(items) == len(saved):
            return [
                (f"[{i}]", _shown(y), _shown(x))
                for i, (x, y) in enumerate(zip(items, saved, strict=True))
                if x is not y
            ]
        return [("", f"{len(saved)} item(s)", f"{len(items)} item(s): {_shown(items)}")]
    if kind == "dict":
        return _mapping_differences(dict(saved), dict(value.items()), "[{!r}]")
    if kind == "set":
        return [] if value == saved else [("", _shown(saved), _shown(set(value)))]
    if kind == "array":
        same = value.shape == saved.shape and np.array_equal(value, saved, equal_nan=True)
        return [] if same else [("", _shown(saved), _shown(value))]
    if kind == "object":
        attrs, slots = saved
        before = {**attrs, **{k: v for k, v in slots.items() if v is not _MISSING}}
        now = dict(vars(value)) if hasattr(value, "__dict__") else {}
        now.update({n: v for n in slots if (v := getattr(value, n, _MISSING)) is not _MISSING})
        return _mapping_differences(before, now, ".{}")
    if kind == "class":
        return _mapping_differences(saved, dict(vars(value)), ".{}")
    return []  # a tuple holds nothing of its own to change


def _mapping_differences(
    before: dict[Any, Any], now: dict[Any, Any], step: str
) -> list[tuple[str, str, str]]:
    """The keys whose value is another object now (or that came or went), as path steps."""
    return [
        (step.format(k), _shown(before.get(k, _MISSING)), _shown(now.get(k, _MISSING)))
        for k in [*before, *(k for k in now if k not in before)]
        if before.get(k, _MISSING) is not now.get(k, _MISSING)
    ]


def _same_mapping(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(a[k] is b[k] for k in a)


def _put_back(value: Any, kind: str, saved: Any) -> None:
    if kind == "list":
        value[:] = saved
    elif kind == "dict":
        value.clear()
        value.update(saved)
    elif kind == "set":
        value.clear()
        value.update(saved)
    elif kind == "sequence":
        value.clear()
        value.extend(saved)
    elif kind == "array":
        if value.shape == saved.shape and value.flags.writeable:
            np.copyto(value, saved)
    elif kind == "object":
        attrs, slots = saved
        if hasattr(value, "__dict__"):
            namespace = vars(value)
            namespace.clear()
            namespace.update(attrs)
        for name, before in slots.items():
            if before is _MISSING:
                if hasattr(value, name):
                    object.__delattr__(value, name)
            else:
                object.__setattr__(value, name, before)
    elif kind == "class":
        now = dict(vars(value))
        for name in now.keys() - saved.keys():
            delattr(value, name)
        for name, before in saved.items():
            if now.get(name, _MISSING) is not before:
                setattr(value, name, before)
