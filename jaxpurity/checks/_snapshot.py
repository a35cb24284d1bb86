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

This is the one walker of that state. :func:`bindings` finds the names a
function can rebind; a :class:`Record` keeps what one piece of state held and
says how it differs now (:meth:`Record.differences`). The snapshot walks the
records deeply; :mod:`jaxpurity.checks._watch` reads the same records one step
deep, and says in the words of a report what one trace changed.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import io
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

import jax
import numpy as np

from jaxpurity._introspect import (
    EMPTY_CELL,
    MISSING,
    attributes_set,
    cell_value,
    code_names,
    is_user_code,
    is_user_object,
    own_attributes,
    qualname,
    slot_names,
)
from jaxpurity._jax_compat import OpaqueTraceState
from jaxpurity._naming import short_repr

__all__ = [
    "CODE",
    "MUTABLE",
    "Binding",
    "Change",
    "Difference",
    "Record",
    "Snapshot",
    "bindings",
    "same_array",
    "shown",
]

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
#: Containers whose contents a call can change in place.
MUTABLE = (list, dict, set, bytearray, collections.deque, np.ndarray)
#: Values that are code, not the user's data: a name bound to one is not watched.
CODE = (
    types.ModuleType,
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    functools.partial,
)


def same_array(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two NumPy arrays hold the same: NaN equal to NaN where the dtype has NaNs; an
    array of objects or records compared by ``==`` where that answers, else item by item
    by identity.

    Example:
      >>> objects = np.array([None, "a"], dtype=object)
      >>> same_array(np.array([np.nan]), np.array([np.nan])), same_array(objects, objects.copy())
      (True, True)
    """
    if a.shape != b.shape:
        return False
    try:
        return bool(np.array_equal(a, b, equal_nan=True))
    except TypeError:  # no NaN in this dtype (objects, records, strings)
        pass
    try:
        return bool(np.array_equal(a, b))
    except Exception:  # noqa: BLE001 - objects whose == raises or answers no bool
        return all(x is y for x, y in zip(a.flat, b.flat, strict=True))


def shown(value: Any) -> str:
    """``value`` in a message: its short repr, or "nothing" for a missing name or empty cell."""
    return "nothing" if value is MISSING or value is EMPTY_CELL else short_repr(value)


@dataclass(frozen=True)
class Binding:
    """A name the call can rebind: a global (in its module's dict) or a closure cell."""

    scope: Literal["global", "closure"]
    label: str  # how the report names it: "global `counter`", "closure variable `n` of `f`"
    path: str  # how a path through it starts: "counter", "n"
    get: Callable[[], Any]
    set: Callable[[Any], None]

    @classmethod
    def global_(cls, namespace: dict[str, Any], name: str, module: str = "") -> Binding:
        """A global of a module's namespace; ``module`` names it when it is not the checked
        function's own module."""

        def set_(value: Any) -> None:
            if value is MISSING:
                namespace.pop(name, None)
            else:
                namespace[name] = value

        get = functools.partial(namespace.get, name, MISSING)
        of = f" of module `{module}`" if module else ""
        return cls("global", f"global `{name}`{of}", name, get, set_)

    @classmethod
    def cell(cls, cell: types.CellType, name: str, owner: str) -> Binding:
        def set_(value: Any) -> None:
            if value is EMPTY_CELL:
                del cell.cell_contents
            else:
                cell.cell_contents = value

        label = f"closure variable `{name}` of `{owner}`"
        return cls("closure", label, name, functools.partial(cell_value, cell), set_)


def bindings(
    functions: Iterable[types.FunctionType],
    modules: Iterable[types.ModuleType] = (),
    home: str | None = None,
) -> list[Binding]:
    """The names the functions can rebind: for each, the globals its code names, then its cells;
    then the attributes of the modules that the code names (or sets).

    The globals are those that the function's code, and the code defined in
    it, name (in sorted order, leaving out ``__dunder__`` names). Each place is
    listed once. A global of a module other than ``home`` (the checked
    function's) says its module.

    Example:
      >>> def make():
      ...     n = 0
      ...     def step(x):
      ...         return x + n + OFFSET
      ...     return step
      >>> [b.label for b in bindings([make()])]
      ['global `OFFSET`', 'closure variable `n` of `step`']
    """
    found: dict[tuple[int, str], Binding] = {}
    functions = list(functions)
    for f in functions:
        owner = str(f.__globals__.get("__name__", ""))
        of = "" if home is None or owner == home else owner
        for name in sorted(code_names(f.__code__)):
            if not name.startswith("__") and (id(f.__globals__), name) not in found:
                found[id(f.__globals__), name] = Binding.global_(f.__globals__, name, of)
        for name, cell in zip(f.__code__.co_freevars, f.__closure__ or (), strict=True):
            found.setdefault((id(cell), name), Binding.cell(cell, name, qualname(f)))
    stored = set().union(*(attributes_set(f.__code__) for f in functions))
    named = set().union(*(code_names(f.__code__) for f in functions))
    for module in modules:
        namespace = vars(module)
        for name in sorted((named & namespace.keys()) | stored):
            if not name.startswith("__") and (id(namespace), name) not in found:
                found[id(namespace), name] = Binding.global_(namespace, name, module.__name__)
    return list(found.values())


@dataclass(frozen=True)
class Difference:
    """One way a recorded piece of state differs now.

    ``step`` is the path from the recorded object to the place that holds
    another value (``[0]``, ``['count']``, ``.mean``), or ``""`` for the whole:
    a rebound name, a list of another length, a set, an array. ``key`` is the
    index, key or attribute name of that place (None for the whole).
    """

    step: str
    key: Any
    before: Any
    after: Any


def _seekable(stream: io.IOBase) -> bool:
    return not stream.closed and stream.seekable()


def _stream(stream: io.IOBase) -> tuple[int, Any]:
    """Where ``stream`` is read or written, and, for an in-memory buffer, what it holds."""
    contents = stream.getvalue() if isinstance(stream, (io.BytesIO, io.StringIO)) else None
    return stream.tell(), contents


def _attributes(value: Any, slots: Iterable[str]) -> dict[str, Any]:
    """The attributes ``value`` holds now: its ``__dict__`` and the slots that are set."""
    now = dict(own_attributes(value))
    now.update({n: v for n in slots if (v := _slot(value, n)) is not MISSING})
    return now


def _records_a_trace(value: Any, depth: int = 3) -> bool:
    """Whether ``value`` is, or holds within ``depth`` attributes, JAX's record of which trace
    runs: what a library keeps on its objects to refuse changes from another trace (Flax NNX's
    ``_pytree__state``), and renews whenever a transformation meets the object."""
    if type(value) is OpaqueTraceState:
        return True
    held = _attributes(value, slot_names(type(value))).values() if depth else ()
    return any(_records_a_trace(v, depth - 1) for v in held)


def _slot(value: Any, name: str) -> Any:
    """What a slot holds, MISSING where it is not set (never what a ``__getattr__`` says)."""
    try:
        return object.__getattribute__(value, name)
    except AttributeError:
        return MISSING


@dataclass(frozen=True)
class Record:
    """What one piece of state held when it was recorded, and where the walk found it.

    ``kind`` says what ``value`` is and what ``saved`` holds: ``"binding"``
    (``value`` is a :class:`Binding`; ``saved``, the value it was bound to),
    ``"list"`` and ``"sequence"`` (a deque or bytearray; ``saved``, the items),
    ``"dict"`` (the ``(key, value)`` pairs), ``"set"`` (the elements),
    ``"tuple"`` (nothing of its own), ``"array"`` (a copy of the NumPy array),
    ``"object"`` (a user object, or a user function: its ``__dict__`` and its slots),
    ``"class"`` (a user class: its attributes) or ``"stream"`` (a seekable file or
    buffer: its position, and an in-memory buffer's contents).
    """

    value: Any
    root: str  # the label of the argument or binding the walk started from
    path: str  # a Python expression for the place: "d['count']", "model.mean", "history"
    kind: str
    saved: Any

    @classmethod
    def bound(cls, binding: Binding) -> Record:
        """Record what a name is bound to now."""
        return cls(binding, binding.label, binding.path, "binding", binding.get())

    @classmethod
    def of(cls, value: Any, root: str, path: str) -> Record | None:
        """Record what ``value`` holds now; None for a value with no state of its own, or
        one whose state cannot be read (a hostile ``__dict__`` or ``__getattribute__``)."""
        try:
            return cls._of(value, root, path)
        except Exception:  # noqa: BLE001 - the object's own code raised: not recorded
            return None

    @classmethod
    def _of(cls, value: Any, root: str, path: str) -> Record | None:
        kind = type(value)  # not isinstance, which reads __class__: a hostile object's may raise
        if issubclass(kind, type):  # a class the code names: its attributes
            if not is_user_code(value):
                return None
            return cls(value, root, value.__qualname__, "class", dict(vars(value)))
        if issubclass(kind, types.FunctionType):  # its own attributes (f.calls) are state
            if not is_user_code(value) or not vars(value):
                return None
            return cls(value, root, path, "object", (dict(vars(value)), {}))
        if issubclass(kind, _ATOMS):
            return None
        if issubclass(kind, io.IOBase):  # a file or buffer: where it is read, what it holds
            return cls(value, root, path, "stream", _stream(value)) if _seekable(value) else None
        if issubclass(kind, list):
            return cls(value, root, path, "list", list(value))
        if issubclass(kind, dict):
            return cls(value, root, path, "dict", list(value.items()))
        if issubclass(kind, (set, frozenset)):
            return cls(value, root, path, "set", set(value))
        if issubclass(kind, (collections.deque, bytearray)):
            return cls(value, root, path, "sequence", list(value))
        if issubclass(kind, tuple):
            return cls(value, root, path, "tuple", None)
        if issubclass(kind, np.ndarray):
            return cls(value, root, path, "array", np.array(value, copy=True))
        if is_user_object(value):
            attrs = dict(own_attributes(value))
            slots = {n: _slot(value, n) for n in slot_names(type(value))}
            return cls(value, root, path, "object", (attrs, slots))
        return None

    def step(self, key: Any) -> str:
        """The path step from this object to what it holds at ``key``."""
        return f".{key}" if self.kind in ("object", "class") else f"[{key!r}]"

    def children(self) -> list[tuple[str, Any]]:
        """What the walk goes on to from here, each with its path."""
        if self.kind == "binding":
            return [(self.path, self.saved)]
        if self.kind in ("list", "sequence"):
            held: list[tuple[Any, Any]] = list(enumerate(self.saved))
        elif self.kind == "dict":
            held = list(self.saved)
        elif self.kind == "tuple":
            held = list(enumerate(self.value))
        elif self.kind == "object":
            attrs, slots = self.saved
            held = [(k, v) for k, v in {**attrs, **slots}.items() if v is not MISSING]
        else:
            held = []
        return [(self.path + self.step(key), child) for key, child in held]

    def differences(self) -> list[Difference]:
        """How the state differs from the record now; empty when it does not."""
        value, kind, saved = self.value, self.kind, self.saved
        if kind == "binding":
            now = value.get()
            return [] if now is saved else [Difference("", None, saved, now)]
        if kind in ("list", "sequence"):
            items = list(value)
            if len(items) != len(saved):
                return [Difference("", None, saved, items)]
            return [
                Difference(self.step(i), i, y, x)
                for i, (x, y) in enumerate(zip(items, saved, strict=True))
                if x is not y
            ]
        if kind == "dict":
            return self._keys_differences(dict(saved), dict(value.items()))
        if kind == "set":
            return [] if value == saved else [Difference("", None, saved, set(value))]
        if kind == "array":
            same = same_array(value, saved)
            return [] if same else [Difference("", None, saved, value)]
        if kind == "object":
            attrs, slots = saved
            before = {**attrs, **{k: v for k, v in slots.items() if v is not MISSING}}
            return self._keys_differences(before, _attributes(value, slots))
        if kind == "class":
            return self._keys_differences(saved, dict(vars(value)))
        if kind == "stream":
            now = _stream(value) if _seekable(value) else saved
            return [] if now == saved else [Difference("", None, saved[0], now[0])]
        return []  # a tuple holds nothing of its own to change

    def _keys_differences(self, before: dict[Any, Any], now: dict[Any, Any]) -> list[Difference]:
        """The keys whose value is another object now (or that came or went)."""
        return [
            Difference(self.step(k), k, before.get(k, MISSING), now.get(k, MISSING))
            for k in [*before, *(k for k in now if k not in before)]
            if before.get(k, MISSING) is not now.get(k, MISSING)
        ]

    def put_back(self) -> None:
        """Put what was recorded back, in place."""
        value, kind, saved = self.value, self.kind, self.saved
        if kind == "binding":
            value.set(saved)
        elif kind == "list":
            value[:] = saved
        elif kind in ("dict", "set"):
            value.clear()
            value.update(saved)
        elif kind == "sequence":
            value.clear()
            value.extend(saved)
        elif kind == "array":
            if value.shape == saved.shape and value.flags.writeable:
                np.copyto(value, saved)
        elif kind == "stream":
            position, contents = saved
            if contents is not None:  # an in-memory buffer: its contents too
                value.seek(0)
                value.truncate()
                value.write(contents)
            value.seek(position)
        elif kind == "object":
            attrs, slots = saved
            namespace = own_attributes(value, make=bool(attrs))  # made to put some back
            namespace.clear()
            namespace.update(attrs)
            for name, before in slots.items():
                if before is MISSING:
                    if _slot(value, name) is not MISSING:
                        object.__delattr__(value, name)
                else:
                    object.__setattr__(value, name, before)
        elif kind == "class":
            now = dict(vars(value))
            for name in now.keys() - saved.keys():
                delattr(value, name)
            for name, before in saved.items():
                if now.get(name, MISSING) is not before:
                    setattr(value, name, before)


@dataclass(frozen=True)
class Change:
    """One difference from the snapshot: where, and what it was and is."""

    root: str  # the label of the argument or binding the path starts from
    path: str  # a Python expression for the place: "d['count']", "model.mean", "history"
    before: Any
    after: Any


class Snapshot:
    """A deep record of the state reachable from a call's arguments and bindings.

    Example:
      >>> d = {"count": 0, "items": []}
      >>> snap = Snapshot([("d", d)], [])
      >>> d["count"] += 1; d["items"].append(3)
      >>> [(c.path, c.before, c.after) for c in snap.changes()]
      [("d['count']", '0', '1'), ("d['items']", '0 item(s)', '1 item(s): [3]')]
      >>> snap.restore()
      >>> d
      {'count': 0, 'items': []}
    """

    def __init__(self, arguments: Iterable[tuple[str, Any]], names: Iterable[Binding]) -> None:
        # By id, in the order walked: the names first. A record keeps its object alive, so
        # no id is reused while the snapshot lives.
        self.records: dict[int, Record] = {}
        queue: collections.deque[tuple[str, str, Any, int]] = collections.deque(
            (f"argument `{name}`", name, value, 0) for name, value in arguments
        )
        for binding in names:
            bound = Record.bound(binding)
            self.records[id(binding)] = bound
            queue.extend((bound.root, path, child, 0) for path, child in bound.children())
        while queue and len(self.records) < _MAX_OBJECTS:
            root, path, value, depth = queue.popleft()
            if id(value) in self.records or depth > _MAX_DEPTH:
                continue
            record = Record.of(value, root, path)
            if record is None:
                continue
            if record.kind == "object" and id(type(value)) not in self.records:
                klass = Record.of(type(value), root, path)  # a user object's class is the user's
                if klass is not None:
                    self.records[id(klass.value)] = klass
            self.records[id(value)] = record
            queue.extend((root, p, child, depth + 1) for p, child in record.children())

    def changes(self) -> list[Change]:
        """What differs from the snapshot now, the names first, then objects as walked."""
        found = []
        for record in self.records.values():
            for d in _differences(record):
                if _records_a_trace(d.after):
                    continue  # a library's bookkeeping, renewed by each trace: not state
                if d.step == "" and record.kind in ("list", "sequence"):
                    before = f"{len(d.before)} item(s)"
                    after = f"{len(d.after)} item(s): {shown(d.after)}"
                else:
                    before, after = shown(d.before), shown(d.after)
                found.append(Change(record.root, record.path + d.step, before, after))
        return found

    def restore(self) -> None:
        """Put every recorded item, attribute and array value back, in place, then the names."""
        for record in reversed(list(self.records.values())):
            if _differences(record):
                with contextlib.suppress(Exception):  # an object that refuses now keeps it
                    record.put_back()


def _differences(record: Record) -> list[Difference]:
    """``record.differences()``; none where reading the state now raises (a hostile object)."""
    try:
        return record.differences()
    except Exception:  # noqa: BLE001 - the object's own reads raise: nothing can be compared
        return []
