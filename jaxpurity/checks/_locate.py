"""Walk references up from a leaked tracer to a name a user knows, and say the path in words.

The garbage collector knows who refers to each object. :class:`Locator`
climbs from each escaped tracer through those referrers (lists, dicts,
attributes, closure cells, finished frames) until it reaches a global, a
closure variable of the traced function, or one of its arguments, and writes
the way down in words: ``global `saved` (a list), item 0``.
"""

from __future__ import annotations

import contextlib
import gc
import sys
import types
from dataclasses import dataclass
from typing import Any

from jaxpurity._introspect import is_user_code, own_attributes, qualname, slot_names
from jaxpurity._leaftypes import is_tracer
from jaxpurity._naming import CONTAINERS, is_lru_cache, kind_of
from jaxpurity.checks._call import BoundCall
from jaxpurity.checks._tracing import is_traceable

__all__ = ["RETURNED", "UNKNOWN", "Locator", "Place", "Root", "Step"]

_MAX_DEPTH = 12  # reference hops walked up from a tracer before giving up on a name
_MAX_WIDTH = 2000  # objects looked at per hop, so that a huge object graph stays quick
# Once one tracer has a place, hops walked up from the others without finding another
# before giving up on them. Each hop is a scan of the whole heap (gc.get_referrers), 0.16 s
# in the test suite's process: the tracers a leak keeps alive only through JAX's own
# objects took the walk to _MAX_DEPTH every time. In the test suite's leaks (test_purity
# and the corpora), every later place was found within 4 hops of the one before.
_PATIENCE = 4


@dataclass(frozen=True)
class Step:
    """One hop from a container down to what it holds, in words."""

    text: str
    name: str | None = None  # the identifier the source would use for this hop
    key: Any = None  # a dict key: under an instance's ``__dict__`` it is an attribute


@dataclass(frozen=True)
class Root:
    """Where a path starts: a name the user knows."""

    kind: str  # "global", "closure", "argument", "result" ("unknown" when no path is found)
    text: str
    name: str | None
    weak: bool = False  # a closure of a function found elsewhere: keep looking above it


@dataclass(frozen=True)
class Place:
    """Where one tracer is stored: the root a user knows, and the steps from it down."""

    root: Root
    steps: list[Step]

    @property
    def where(self) -> str:
        """The path in words: ``"global `saved` (a list), item 0"``."""
        return ", ".join([self.root.text, *(s.text for s in self.steps if s.text)])

    @property
    def names(self) -> list[str]:
        """The identifiers on the path, nearest the tracer first: where a line stored it."""
        names = [s.name for s in reversed(self.steps) if s.name]
        return names + [self.root.name] if self.root.name else names


#: Where a tracer is stored when no path to it from a known name is found.
UNKNOWN = Place(Root("unknown", "a place jaxpurity could not name", None), [])
#: Where a tracer is stored that the function returned in a pytree's static data.
RETURNED = Place(
    Root(
        "result",
        "the static data of the value it returns (a pytree's aux data or a static field, "
        "which jit keeps as it is, not traced)",
        None,
    ),
    [],
)


def _root_kind(child: Any) -> str:
    """What a root holds, as `` (a list)``; nothing when it holds the tracer itself."""
    return "" if is_tracer(child) else f" ({kind_of(child)})"


def _step_kind(child: Any) -> str:
    """What a step reaches, when it is an object whose attributes come next."""
    plain = (*CONTAINERS, types.CellType, types.FrameType, types.TracebackType, types.FunctionType)
    return "" if is_tracer(child) or issubclass(type(child), plain) else f" ({kind_of(child)})"


def _collapse(steps: list[Step]) -> list[Step]:
    """Read ``__dict__`` then ``key 'total'`` as ``attribute `total```."""
    if len(steps) >= 2 and steps[0].text == "__dict__" and isinstance(steps[1].key, str):
        key = steps[1].key
        suffix = steps[1].text[len(f"key {key!r}") :]
        return [Step(f"attribute `{key}`{suffix}", key), *steps[2:]]
    return steps


class Locator:
    """Walks references up from the tracers a call leaked to names a user knows."""

    def __init__(self, call: BoundCall) -> None:
        self.scope = call.functions
        self.module = getattr(call.innermost, "__module__", None)
        self.args = {id(v): (name, v) for name, v in call.named if not is_traceable(v)}
        self.ignore = {id(call), id(call.named), id(self.args)}
        frame: types.FrameType | None = sys._getframe()
        while frame is not None:  # our own frames, and our callers', hold nothing leaked
            self.ignore.add(id(frame))
            frame = frame.f_back
        self.modules = {
            id(vars(m)): m.__name__
            for m in list(sys.modules.values())
            if isinstance(m, types.ModuleType)
        }
        # Code run by exec or doctest has globals that are no module's dict.
        self.modules.update({id(f.__globals__): f.__module__ for f in self.scope})
        # Where to look for the line that stored a tracer: the functions that ran (and
        # those they reach), then the methods of the objects on the way to the tracer.
        self.codes: list[types.CodeType] = [f.__code__ for f in self.scope]
        self.methods: list[types.CodeType] = []
        self.visited: list[Any] = []  # keeps every node alive, so that no id is reused
        # The functools.lru_caches that hold a tracer among their results (the caller's own, or
        # a library's, such as JAX's own): the check clears them when it ends.
        self.caches: list[Any] = []
        self.ignore.update({id(self.visited), id(self.codes), id(self.methods), id(self.caches)})

    def referrers(self, *objs: Any) -> list[Any]:
        found = gc.get_referrers(*objs)
        self.ignore.add(id(found))
        return [r for r in found if id(r) not in self.ignore and not is_tracer(r)]

    def locate(self, tracers: list[Any]) -> list[tuple[Any, Place]]:
        """Each tracer that has a place a user can name, with that place.

        A leaked tracer keeps its whole trace alive, and so every tracer the
        trace made: those are reachable only through JAX's internals, and
        have no name. When no tracer has one, the first is returned with
        the place :data:`UNKNOWN`, so that the leak is still reported.
        """
        self.ignore.add(id(tracers))
        found = self.places(tracers)
        named = [(t, found[i]) for i, t in enumerate(tracers) if i in found]
        if named or not tracers:
            return named
        return [(tracers[0], UNKNOWN)]

    def places(self, tracers: list[Any]) -> dict[int, Place]:
        """Breadth first from all tracers at once: one scan of the heap per level."""
        paths: dict[int, dict[int, list[Step]]] = {id(t): {i: []} for i, t in enumerate(tracers)}
        done: dict[int, Place] = {}
        weak: dict[int, Place] = {}
        self.ignore.update({id(paths), id(done), id(weak)})
        frontier = list(tracers)
        last_found = 0
        for level in range(_MAX_DEPTH):
            if len(done) + len(weak) > 0 and level - last_found > _PATIENCE:
                break  # the rest are held only by JAX's own objects, as far as it goes
            found_before = len(done) + len(weak)
            self.ignore.add(id(frontier))
            for node in frontier:
                if id(node) in self.args:
                    name, value = self.args[id(node)]
                    root = Root("argument", f"argument `{name}`{_root_kind(value)}", name)
                    for i, steps in paths[id(node)].items():
                        done.setdefault(i, Place(root, steps))
            frontier = [n for n in frontier if any(i not in done for i in paths[id(n)])]
            if not frontier:
                break
            by_id = {id(n): n for n in frontier}
            next_frontier: list[Any] = []
            queued: set[int] = set()
            self.ignore.update({id(by_id), id(next_frontier)})
            for parent in self.referrers(*frontier):
                for child_id in {id(c) for c in gc.get_referents(parent)} & by_id.keys():
                    for hop in self.hops(parent, by_id[child_id]):
                        for i, steps in paths[child_id].items():
                            if i in done:
                                continue
                            if isinstance(hop, Root):
                                (weak if hop.weak else done).setdefault(i, Place(hop, steps))
                                continue
                            up, step = hop
                            up_paths = paths.setdefault(id(up), {})
                            if i not in up_paths:
                                up_paths[i] = _collapse([step, *steps])
                                if id(up) not in queued:
                                    queued.add(id(up))
                                    next_frontier.append(up)
                                    self.visited.append(up)
            frontier = next_frontier[:_MAX_WIDTH]
            if len(done) + len(weak) > found_before:
                last_found = level
        return {**weak, **done}

    def hops(self, parent: Any, child: Any) -> list[Root | tuple[Any, Step]]:
        """How ``parent`` holds ``child``: as a named root, or as a step up to ``parent``.

        By type, not isinstance, which reads ``__class__``: a hostile object's may raise.
        """
        kind = type(parent)
        if issubclass(kind, dict):
            keys = [k for k, v in list(parent.items()) if v is child]
            if id(parent) in self.modules:
                module = self.modules[id(parent)]
                of = "" if module == self.module else f" of module `{module}`"
                return [
                    Root("global", f"global `{k}`{of}{_root_kind(child)}", str(k)) for k in keys
                ]
            return [(parent, Step(f"key {k!r}{_step_kind(child)}", None, k)) for k in keys]
        if issubclass(kind, (list, tuple)):
            return [
                (parent, Step(f"item {i}{_step_kind(child)}"))
                for i, v in enumerate(list(parent))
                if v is child
            ]
        if issubclass(kind, (set, frozenset)):
            return [(parent, Step(f"an element of the set{_step_kind(child)}"))]
        if issubclass(kind, types.CellType):
            return self.cell_hops(parent, child)
        if issubclass(kind, types.FrameType):
            name = parent.f_code.co_name
            return [
                (parent, Step(f"local variable `{k}` of a finished call of `{name}`"))
                for k, v in list(parent.f_locals.items())
                if v is child
            ]
        if issubclass(kind, types.TracebackType):
            return [(parent, Step(""))]  # the frame below names the call
        if issubclass(kind, BaseException):
            what = "its traceback" if child is parent.__traceback__ else "its arguments"
            return [(parent, Step(what))]
        if issubclass(kind, type):
            # A class keeps its attributes in a dict of its own (vars() gives a proxy of it).
            return [(parent, Step("__dict__"))] if issubclass(type(child), dict) else []
        if is_lru_cache(parent):
            if all(parent is not c for c in self.caches):
                self.caches.append(parent)
            return [(parent, Step("one of its cached results"))]
        attrs = _attributes_holding(parent, child)
        self.add_methods(parent)
        if not attrs:
            return [(parent, Step(f"inside {kind_of(parent)}"))]
        if attrs == ["__dict__"]:
            return [(parent, Step("__dict__"))]  # read with the key below it, by _collapse
        return [(parent, Step(f"attribute `{a}`{_step_kind(child)}", a)) for a in attrs]

    def cell_hops(self, cell: types.CellType, child: Any) -> list[Root | tuple[Any, Step]]:
        """A closure cell: name the variable after the functions that close over it."""
        owners = [
            f
            for t in self.referrers(cell)
            if isinstance(t, tuple)
            for f in self.referrers(t)
            if isinstance(f, types.FunctionType) and f.__closure__ is t
        ]
        hops: list[Root | tuple[Any, Step]] = []
        for f in owners:
            # By identity: cells compare by their contents, and a tracer's == is no bool.
            index = next(i for i, c in enumerate(f.__closure__ or ()) if c is cell)
            name = f.__code__.co_freevars[index]
            text = f"closure variable `{name}` of `{qualname(f)}`"
            self.codes.append(f.__code__)
            if f in self.scope:
                hops.append(Root("closure", text + _root_kind(child), name))
            else:  # a function kept somewhere: name that place if there is one
                hops.append(Root("closure", text + _root_kind(child), name, weak=True))
                hops.append((f, Step(text + _step_kind(child), name)))
        return hops

    def add_methods(self, obj: Any) -> None:
        """Search the methods of ``obj``'s class, too, for the line that stored the tracer."""
        for klass in type(obj).__mro__:
            for value in list(vars(klass).values()):
                if isinstance(value, types.FunctionType) and is_user_code(value):
                    if value.__code__ not in self.codes + self.methods:
                        self.methods.append(value.__code__)


def _attributes_holding(obj: Any, child: Any) -> list[str]:
    """The attributes of ``obj`` whose value is ``child`` (``["__dict__"]`` for its dict)."""
    namespace = own_attributes(obj)  # no code of obj's class run
    if namespace is child:
        return ["__dict__"]
    names = [k for k, v in list(namespace.items()) if v is child]
    for slot in slot_names(type(obj)):
        with contextlib.suppress(Exception):  # an empty slot
            if object.__getattribute__(obj, slot) is child:
                names.append(slot)
    return names
