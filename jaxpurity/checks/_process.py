"""What a check puts back beyond the state the call reaches: the process's.

The snapshot (:mod:`jaxpurity.checks._snapshot`) puts back what the checked call can
reach through its arguments, globals and closures. A function can also change the
process: set an environment variable, switch a JAX flag, or store a tracer somewhere no
walk of its own state reaches (an attribute of a standard-library module, ``builtins``,
``sys.modules``, an object held by a library, a list nested thousands deep).
:class:`ProcessState` records, before a check, the environment, JAX's flags and the
attributes of every imported module, and puts them back after it:

* the environment and JAX's flags, as they were;
* a module attribute that now holds a tracer, to what it held (or away, if it is new);
* and the dicts and lists that held a tracer that escaped the watched trace
  (:func:`holders_of`) are emptied of tracers (:func:`empty`): the places the walks could
  not name, so that none is left where the caller can reach it; so are the
  :func:`functools.lru_cache` functions whose results hold one (cleared).

Only a module attribute that holds a tracer is put back: libraries fill their own module
attributes lazily (caches, registries), and undoing that would harm them.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import types
from dataclasses import dataclass, field
from typing import Any

from jaxpurity._jax_compat import Tracer, config_values, restore_config
from jaxpurity._naming import is_lru_cache

__all__ = ["Holder", "ProcessState", "empty", "holders_of"]


@dataclass
class ProcessState:
    """The environment, JAX's flags and the imported modules' attributes, as they were."""

    environ: dict[str, str] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    modules: list[tuple[types.ModuleType, dict[str, Any]]] = field(default_factory=list)

    @classmethod
    def now(cls) -> ProcessState:
        """Record the process's state now (a few milliseconds for a thousand modules)."""
        modules = []
        for module in list(sys.modules.values()):
            namespace = getattr(module, "__dict__", None) if _is_module(module) else None
            if isinstance(namespace, dict):
                modules.append((module, dict(namespace)))
        return cls(dict(os.environ), config_values(), modules)

    def restore(self) -> None:
        """Put the environment and JAX's flags back, and each module attribute that holds a
        tracer; then drop ``sys.modules`` entries that are tracers."""
        for name in [n for n in os.environ if n not in self.environ]:
            del os.environ[name]
        for name, value in self.environ.items():
            if os.environ.get(name) != value:
                os.environ[name] = value
        restore_config(self.config)
        for module, saved in self.modules:
            namespace = vars(module)
            for name, value in list(namespace.items()):
                if _is_tracer(value):
                    if name in saved:
                        namespace[name] = saved[name]
                    else:
                        del namespace[name]
        for key, held in list(sys.modules.items()):
            if _is_tracer(held):
                del sys.modules[key]


def _is_module(value: Any) -> bool:
    return issubclass(type(value), types.ModuleType)


def _is_tracer(value: Any) -> bool:
    """By type: ``isinstance`` reads ``__class__``, which a hostile object's may raise."""
    return issubclass(type(value), Tracer)


@dataclass(frozen=True)
class Holder:
    """What held a tracer that escaped a trace of the check: a dict, a list or an object, and
    the tracers it held that were there before (a leak of the caller's own, to be kept)."""

    value: Any
    kept: frozenset[int]


def holders_of(tracers: list[Any], ours: list[Any]) -> list[Holder]:
    """What holds ``tracers`` now, leaving out ``ours`` (the check's own): where a leak is
    stored, to be emptied of the check's tracers when the check ends (:func:`empty`)."""
    mine = {id(ours), *map(id, ours)}
    made = {id(t) for t in tracers}
    skipped = (types.FrameType, types.CellType, tuple)  # reached through what holds them
    found: dict[int, Holder] = {}
    if not tracers:
        return []
    holders = gc.get_referrers(*tracers)  # one scan of the heap for them all
    mine.add(id(holders))
    for holder in holders:
        if id(holder) in mine or id(holder) in found or issubclass(type(holder), skipped):
            continue
        before = {id(v) for v in _held(holder) if _is_tracer(v) and id(v) not in made}
        found[id(holder)] = Holder(holder, frozenset(before))
    return list(found.values())


def _held(holder: Any) -> list[Any]:
    """The values a dict, a list or an object holds; none where they cannot be read."""
    try:
        if issubclass(type(holder), list):
            return list(holder)
        if issubclass(type(holder), dict):
            return list(holder.values())
        return list(vars(holder).values())
    except Exception:  # noqa: BLE001 - an object that hides its attributes (a hostile __dict__)
        return []


def empty(holders: list[Holder]) -> None:
    """Take the check's tracers out of ``holders``: a dict's entry (a class's own attribute
    through the class), a list's item, an object's attribute (where Python keeps it in the
    object itself, with no dict). The same places hold the tracers of every trace of the
    check, so emptying them after the last leaves none, wherever the walks of the caller's
    state could not reach (a library's object, a list nested thousands deep); a tracer that
    was there before the check is the caller's, and stays. A :func:`functools.lru_cache`
    cannot drop one result: one that holds a tracer is cleared, and its function runs again
    on its next call, where it would otherwise return the check's tracer."""
    for holder in holders:
        value, kept = holder.value, holder.kept
        if is_lru_cache(value):
            with contextlib.suppress(Exception):  # an object that only looks like one
                value.cache_clear()
            continue

        def ours(item: Any, kept: frozenset[int] = kept) -> bool:
            return _is_tracer(item) and id(item) not in kept

        if issubclass(type(value), list):
            value[:] = [item for item in value if not ours(item)]
            continue
        if not issubclass(type(value), dict):  # an object whose attributes live in it
            with contextlib.suppress(Exception):  # one that hides them (a hostile __dict__)
                for name in [k for k, v in vars(value).items() if ours(v)]:
                    object.__delattr__(value, name)
            continue
        keys = [k for k, v in list(value.items()) if ours(v)]
        owners = [o for o in gc.get_referrers(value) if issubclass(type(o), type)] if keys else []
        for key in keys:
            owner = next((o for o in owners if vars(o).get(key) is value.get(key)), None)
            if owner is not None:  # a class's own dict: changed through the class
                delattr(owner, key)
            else:
                del value[key]
