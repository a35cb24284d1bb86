"""Watch the state a function reaches in one step, and say in words how a call changed it.

:func:`check_pure` reads each piece of state before and after the trace: the
globals the function's code names, its closure variables, the contents of
the lists, dicts and sets held there, the attributes of user objects held
there, and the attributes of its non-array arguments.
"""

from __future__ import annotations

import collections
import functools
import inspect
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax

from jaxpurity._introspect import (
    cell_value,
    code_names,
    is_user_object,
    named_arguments,
    qualname,
    scope_functions,
)
from jaxpurity._leaftypes import is_tracer
from jaxpurity._naming import kind_of, short_repr
from jaxpurity.checks._tracing import TRACEABLE

__all__ = ["CODE", "MISSING", "Watch", "scope_names", "short", "watch_state"]

_MUTABLE = (list, dict, set, bytearray, collections.deque)
#: What a watched global reads as when it does not exist.
MISSING = object()


def short(value: Any) -> str:
    return "nothing" if value is MISSING else short_repr(value)


def _holds_tracer(value: Any) -> bool:
    """Whether ``value`` is a tracer or directly holds one (then it is a leak, reported so)."""
    if is_tracer(value):
        return True
    if isinstance(value, dict):
        value = list(value.values())
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        value = list(vars(value).values())
    if isinstance(value, (list, tuple, set, frozenset, collections.deque)):
        return any(map(is_tracer, value))
    return False


@dataclass
class Watch:
    """One piece of state to compare before and after the trace.

    ``how`` says what ``read`` returns and so how to compare: ``"binding"``
    (the value, compared by identity), ``"items"`` (a list copy),
    ``"elements"`` (a set copy), ``"keys"`` or ``"attributes"`` (a dict copy).
    """

    kind: str  # the Problem kind when it changes
    label: str
    how: str
    read: Callable[[], Any]
    before: Any = None

    def change(self) -> str | None:
        """How it changed, in words; None when it did not, or when it now holds a tracer
        (that is a leak, reported as one)."""
        before, after = self.before, self.read()
        if self.how == "binding":
            if after is before or _holds_tracer(after):
                return None
            return f"it was rebound from {short(before)} to {short(after)}"
        if self.how in ("keys", "attributes"):
            changed = [
                k
                for k in {**before, **after}
                if before.get(k, MISSING) is not after.get(k, MISSING)
            ]
            if not changed or any(_holds_tracer(after.get(k)) for k in changed):
                return None
            name = (
                (lambda k: f"attribute `{k}`")
                if self.how == "attributes"
                else (lambda k: f"key {k!r}")
            )
            return "; ".join(
                f"{name(k)} went from {short(before.get(k, MISSING))} to "
                f"{short(after.get(k, MISSING))}"
                for k in changed
            )
        if self.how == "elements":
            if after == before or _holds_tracer(after - before):
                return None
            return f"{len(after - before)} element(s) added, {len(before - after)} removed"
        if len(after) == len(before) and all(a is b for a, b in zip(after, before, strict=True)):
            return None
        if _holds_tracer(after):
            return None
        if len(after) == len(before):  # items replaced in place: say which
            return "; ".join(
                f"item {i} went from {short(b)} to {short(a)}"
                for i, (a, b) in enumerate(zip(after, before, strict=True))
                if a is not b
            )
        return f"it went from {len(before)} to {len(after)} item(s): now {short(after)}"


def _watch_value(watches: list[Watch], label: str, value: Any, kind: str) -> None:
    """Watch the contents of a container, or the attributes of a user object."""
    label = f"{label} ({kind_of(value)})"
    if isinstance(value, dict):
        watches.append(Watch(kind, label, "keys", lambda: dict(value)))
    elif isinstance(value, set):
        watches.append(Watch(kind, label, "elements", lambda: set(value)))
    elif isinstance(value, _MUTABLE):
        watches.append(Watch(kind, label, "items", lambda: list(value)))
    elif is_user_object(value) and hasattr(value, "__dict__"):
        watches.append(Watch(kind, label, "attributes", lambda: dict(vars(value))))


# Values whose own state is not the user's data: skipped when watching globals and closures.
CODE = (
    types.ModuleType,
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    functools.partial,
)


def scope_names(fn: Callable[..., Any]) -> list[tuple[str, str, Callable[[], Any]]]:
    """``(kind, label, read)`` for each global named by ``fn``'s code and each closure variable.

    ``kind`` is the Problem kind for rebinding it; ``read`` returns its value now.
    """
    found: list[tuple[str, str, Callable[[], Any]]] = []
    for f in scope_functions(fn):
        for name in sorted(code_names(f.__code__)):
            if not name.startswith("__"):
                read = functools.partial(f.__globals__.get, name, MISSING)
                found.append(("global-assignment", f"global `{name}`", read))
        for name, cell in zip(f.__code__.co_freevars, f.__closure__ or (), strict=True):
            label = f"closure variable `{name}` of `{qualname(f)}`"
            found.append(("closure-assignment", label, functools.partial(cell_value, cell)))
    return found


def _defaults_used(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """The parameters the call leaves out, by name, with the default value each then gets."""
    try:
        signature = inspect.signature(fn)
        bound = signature.bind_partial(*args, **kwargs)
    except (TypeError, ValueError):
        return {}
    return {
        name: p.default
        for name, p in signature.parameters.items()
        if name not in bound.arguments and p.default is not inspect.Parameter.empty
    }


def watch_state(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[Watch]:
    """The state ``fn`` can reach in one step: its globals, closures, and arguments."""
    watches: list[Watch] = []
    for kind, label, read in scope_names(fn):
        value = read()
        if not isinstance(value, CODE):
            watches.append(Watch(kind, label, "binding", read))
            _watch_value(watches, label, value, "container-mutation")
    defaults = _defaults_used(fn, args, kwargs)
    for name, value in named_arguments(fn, args, kwargs):
        if name in defaults and value is defaults[name]:
            # One object for every call that leaves the argument out: state, like a global.
            label = f"the default value of argument `{name}` (shared by every call)"
            _watch_value(watches, label, value, "container-mutation")
            continue
        for leaf in jax.tree_util.tree_leaves(value):
            if not isinstance(leaf, TRACEABLE):
                _watch_value(watches, f"argument `{name}`", leaf, "argument-mutation")
    unique: dict[str, Watch] = {}
    for w in watches:
        unique.setdefault(w.label, w)
    for w in unique.values():
        w.before = w.read()
    return list(unique.values())
