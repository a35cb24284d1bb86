"""Watch the state a function reaches in one step, and say in words how a call changed it.

:func:`check_pure` records each piece of state before the trace and compares
it after: the globals the function's code names, its closure variables, the
contents of the lists, dicts and sets held there, the attributes of user
objects held there, and the attributes of its non-array arguments. The
records are the snapshot's (:class:`jaxpurity.checks._snapshot.Record`), one
step deep; this module says what changed in the words of the report.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import Any

from jaxpurity._introspect import own_attributes
from jaxpurity._leaftypes import is_tracer
from jaxpurity._naming import kind_of
from jaxpurity.checks._call import BoundCall
from jaxpurity.checks._snapshot import CODE, Record, shown
from jaxpurity.checks._tracing import is_traceable, leaves_of

__all__ = ["Watch", "watch_state"]

# The records whose contents a watch compares: containers a trace can fill, and objects.
_CONTENTS = frozenset({"list", "sequence", "dict", "set", "object"})


def _holds_tracer(value: Any) -> bool:
    """Whether ``value`` is a tracer or directly holds one (then it is a leak, reported so)."""
    if is_tracer(value):
        return True
    kind = type(value)  # not isinstance, which reads __class__: a hostile object's may raise
    held = list(own_attributes(value).values())
    if issubclass(kind, dict):
        held += value.values()
    elif issubclass(kind, (list, tuple, set, frozenset, collections.deque)):
        held += value
    return any(map(is_tracer, held))


@dataclass(frozen=True)
class Watch:
    """One piece of state to compare before and after the trace: a name, or what a value holds."""

    kind: str  # the Problem kind when it changes
    label: str
    record: Record

    def change(self) -> str | None:
        """How it changed, in words; None when it did not, or when it now holds a tracer
        (that is a leak, reported as one)."""
        record = self.record
        differences = record.differences()
        if not differences:
            return None
        if record.kind == "binding":
            [d] = differences
            if _holds_tracer(d.after):
                return None
            return f"it was rebound from {shown(d.before)} to {shown(d.after)}"
        if record.kind in ("dict", "object"):
            if any(_holds_tracer(d.after) for d in differences):
                return None
            place = "attribute `{}`" if record.kind == "object" else "key {!r}"
            return "; ".join(
                f"{place.format(d.key)} went from {shown(d.before)} to {shown(d.after)}"
                for d in differences
            )
        if record.kind == "set":
            [d] = differences
            if _holds_tracer(d.after - d.before):
                return None
            return f"{len(d.after - d.before)} element(s) added, {len(d.before - d.after)} removed"
        if _holds_tracer(list(record.value)):
            return None
        if differences[0].step == "":  # another length
            [d] = differences
            return f"it went from {len(d.before)} to {len(d.after)} item(s): now {shown(d.after)}"
        return "; ".join(  # items replaced in place: say which
            f"item {d.key} went from {shown(d.before)} to {shown(d.after)}" for d in differences
        )


def _watch_value(watches: list[Watch], label: str, value: Any, kind: str) -> None:
    """Watch the contents of a container, or the attributes of a user object."""
    label = f"{label} ({kind_of(value)})"
    record = Record.of(value, label, "")
    # An object is watched through its __dict__ and its slots: one holding neither is not.
    if record is not None and record.kind in _CONTENTS:
        if record.kind != "object" or record.children():
            watches.append(Watch(kind, label, record))


def watch_state(call: BoundCall) -> list[Watch]:
    """The state the call can reach in one step: its globals, closures, and arguments."""
    watches: list[Watch] = []
    for binding in call.bindings:
        value = binding.get()
        if not issubclass(type(value), CODE):  # by type: a hostile __class__ may raise
            kind = f"{binding.scope}-assignment"
            watches.append(Watch(kind, binding.label, Record.bound(binding)))
            _watch_value(watches, binding.label, value, "container-mutation")
    for name, value in call.named:
        if name in call.defaults and value is call.defaults[name]:
            # One object for every call that leaves the argument out: state, like a global.
            label = f"the default value of argument `{name}` (shared by every call)"
            _watch_value(watches, label, value, "container-mutation")
            continue
        for leaf in leaves_of(value) or [value]:
            if not is_traceable(leaf):
                _watch_value(watches, f"argument `{name}`", leaf, "argument-mutation")
    unique: dict[str, Watch] = {}
    for w in watches:
        unique.setdefault(w.label, w)
    return list(unique.values())
