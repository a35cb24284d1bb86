"""Run the hostile inputs of tests/data/hostile_inputs.py against every public jaxpurity tool.

The project's rule is that a tool is total: on any input it returns an answer or raises a
clear error that names what was wrong, never hangs, never crashes with an internal error,
and never harms (it leaves the caller's arguments, objects, globals and modules as it found
them, with no JAX tracer left where the caller can reach it). This runs each input in a
fresh ``python`` subprocess of its own, so that a hang or a segfault is contained, and
gives it one of four verdicts. Run:

    python scorers/hostile.py                         # every input, on this repository
    python scorers/hostile.py --tool lint --id fifo   # the lint inputs whose id has "fifo"
    python scorers/hostile.py --jaxpurity /work/baseline --jobs 2 --timeout 30
    python scorers/hostile.py --list                  # the ids, without running anything

``--jaxpurity DIR`` puts DIR first on ``sys.path`` in each subprocess (default: the
repository this file is in), and the subprocess checks that ``jaxpurity.__file__`` is under
DIR. ``--logs DIR`` keeps each subprocess's stdout and stderr; ``--json FILE`` writes every
result. It prints one line per input as it finishes (verdict, id, seconds the call took,
then why), then a table per tool, then the inputs that were not answered.

Each subprocess runs with ``JAX_PLATFORMS=cpu``, ``JAX_TRACEBACK_FILTERING=off`` (JAX
otherwise hides its own frames, and the verdict needs to know who called what),
``PYTHONDONTWRITEBYTECODE=1`` (the measured copy stays as it is), ``$TMPDIR`` in a folder
of its own that is removed afterwards, and a data memory limit (``RLIMIT_DATA``,
``--memory-gb``, 4 by default), so that a runaway loop fails with ``MemoryError`` rather
than take a shared machine's memory. Before the call it imports every public name of
jaxpurity, so that imports the call would make lazily are not counted as its changes.

How each verdict is decided, in this order:

* ``hung``: the subprocess ran past ``--timeout`` seconds (30 by default; the time includes
  starting Python and importing JAX, about a second). Its process group is killed. Two
  seconds before the limit, :mod:`faulthandler` dumps every thread's stack to stderr; the
  line shows the innermost jaxpurity frame of each thread there. A subprocess that finished
  the call and then could not exit (a thread left running) is ``hung`` too, and says so.
* ``crashed``: the subprocess died during the call without writing its result (a
  segfault, an abort, a fatal error in C code that exits with 1): the line shows the
  fault handler's innermost jaxpurity frame, or, where it printed none, the innermost
  jaxpurity frame at the last call before the death, found by running the input once more
  with every call traced (``sys.setprofile``); or the call raised an exception that is not
  one of these:

  1. A clear error: an exception raised by a ``raise`` statement in jaxpurity's own code (the
     innermost frame of its traceback is a line of a ``raise`` statement in a file of the
     ``jaxpurity`` package), whose message is at least 20 characters long, of one of the
     types ``TypeError`` (and so ``TypeMismatchError``), ``ValueError`` (and so
     ``UnicodeDecodeError``), ``FileNotFoundError``, ``IsADirectoryError``,
     ``NotADirectoryError``, ``PermissionError``; or of a type the tool documents:
     ``RetraceError`` (``count_traces``), ``AssertionError`` (``raises``),
     ``dataclasses.FrozenInstanceError`` (``dataclass``).
  2. The user's own error, re-raised by a tool that does so by design: the exception came
     out of the user's code (the innermost frame of the user's code, which is any code in
     a user module or in hostile_inputs.py other than the harness's own ``call``, has no
     jaxpurity frame below it) and it did not come from a hostile dunder method that
     jaxpurity itself called. The tools that re-raise by design, from their docstrings:
     ``find_leaks`` ("Exception: Whatever fn raises while it is traced"), ``count_traces``
     (the counter calls ``fn``), ``cond``, ``switch``, ``fori_loop``, ``while_loop``,
     ``scan`` and ``collect`` ("Same arguments and result as" lax, which propagates a
     branch's or body's error), ``Stateful`` (calls ``fn``), ``dataclass`` (the class's own
     code), ``raises`` (re-raises KeyboardInterrupt, SystemExit and GeneratorExit).
     ``check_pure`` does not: its docstring makes an error that ``fn`` raises while traced
     a ``"trace-error"`` problem in the report, and the eager run's error part of the
     comparison, so a user error that escapes ``check_pure`` is ``crashed``.
  3. The library's own error: for a tool that wraps a library call (``find_leaks``,
     ``count_traces`` and ``Stateful``: ``jax.jit``; the drop-in control flow: the
     ``jax.lax`` function; ``dataclass``: ``dataclasses.dataclass(frozen=True)``), the same
     call through the library (``reference()``, on freshly built state) raises an
     exception of the same type, which is not ``RecursionError``, ``SystemError`` or
     ``MemoryError``: the tool behaves as the library it wraps. These lines say "as
     <library>", so that they can be read apart.

  An exception raised by a hostile dunder (``DunderBoom``) that jaxpurity's own code called
  (the frame that called the dunder is in jaxpurity) is ``crashed``. An exception raised by
  the call itself before any jaxpurity code ran (the tool's signature cannot take the call)
  is ``crashed``. Everything else is ``crashed``: ``SystemError``, ``RecursionError``,
  ``IndexError``/``AttributeError``/``KeyError`` from inside jaxpurity, JAX's errors from
  jaxpurity's machinery. The line gives the exception type, its message's start, and the
  innermost jaxpurity frame (``file:line function``).
* ``harmed``: the call returned, or raised as in 1-3 above, but afterwards the caller can
  see a change. Before the call and after it, the subprocess takes a deep picture of
  ``state()`` (the arguments, the function with its closure cells, defaults and attributes,
  the globals its code names, the user module, and any module or object the input touches):
  values of NumPy and JAX arrays (a deleted, donated array shows), of lists, tuples,
  dicts, sets, deques, object attributes (``__dict__`` and ``__slots__``, read without
  calling the object's own dunders), class attributes, module attributes (not submodules),
  closure cells, defaults, ``jax.new_ref`` values, iterator and generator positions, file
  positions, lock states, and the identity of every mutable object (an object replaced by
  an equal copy is a change, and says so). It also compares the process's state: the
  recursion limit, sys.stdout/stderr/stdin, trace and profile hooks, the garbage
  collector's switch and thresholds, warning filters, the working directory, the
  environment, sys.path, sys.meta_path, excepthooks, signal handlers, JAX's configuration
  flags, NumPy's error and print settings, the global NumPy and ``random`` generators'
  states, the attributes of ``builtins``, and ``sys.modules`` (an entry removed or
  replaced, or one added that is not a module). Any difference is ``harmed``, and so is a
  ``jax.core.Tracer`` reachable (through the same walk) from ``state()``, from what the call
  returned or raised (its args, cause, context, notes and attributes; not its traceback's
  frames), from the attributes of the ``jaxpurity`` modules, or from a new ``sys.modules``
  entry. The line says where.
* ``answered``: otherwise. The line says what came back, or which clear error, and notes
  a clear error whose message matches the input's ``wrong_message`` (it names the wrong
  problem) as MISLEADING.

A crashed input is also checked for harm, which its line notes. For ``dataclass``, which
changes the class it decorates by design, the class must be left as it was only where the
call raises (``state_if_raised``). A verdict of ``harness`` means the harness itself failed
on the input (building it, or taking its picture, or the process died outside the call),
which is a bug of this file or of hostile_inputs.py, not of jaxpurity. Notes that do not decide
a verdict: tracers still alive after ``gc.collect()`` (anywhere in the process), a thread
left running, file descriptors left open, and the reference call's outcome for check_pure.
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import contextlib
import dataclasses
import functools
import gc
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import types
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
VERDICTS = ("answered", "crashed", "hung", "harmed")
#: The prefix of the folders that hold user modules (hostile_inputs.USER_DIR_PREFIX).
USER_DIR_PREFIX = "jaxpurity-hostile-"

#: Tools whose docstrings say that the user's own errors come out as they are.
RERAISES_USER_ERRORS = frozenset(
    {
        "find_leaks",
        "count_traces",
        "cond",
        "switch",
        "fori_loop",
        "while_loop",
        "scan",
        "collect",
        "Stateful",
        "dataclass",
        "raises",
    }
)
#: Tools whose error on an input may be the wrapped library's own, and that library.
LIBRARY = {
    "find_leaks": "jax.jit",
    "count_traces": "jax.jit",
    "Stateful": "jax.jit",
    "cond": "jax.lax.cond",
    "switch": "jax.lax.switch",
    "fori_loop": "jax.lax.fori_loop",
    "while_loop": "jax.lax.while_loop",
    "scan": "jax.lax.scan",
    "collect": "jax.lax.scan",
    "dataclass": "dataclasses.dataclass",
}
CLEAR_TYPES = (
    TypeError,
    ValueError,
    FileNotFoundError,
    IsADirectoryError,
    NotADirectoryError,
    PermissionError,
)
#: Exception class names that a tool documents, beside CLEAR_TYPES.
TOOL_CLEAR_NAMES = {
    "count_traces": {"RetraceError"},
    "raises": {"AssertionError"},
    "dataclass": {"FrozenInstanceError"},
}
INTERNAL = (RecursionError, SystemError, MemoryError)
MIN_MESSAGE = 20
#: Where the child writes what it found, as phases go by.
PHASES = ("called", "done")


# -- The picture: a deep, comparable walk of what the caller can see --------------------------


_PRIMITIVES = (bool, int, float, complex, str, bytes, type(None), type(Ellipsis))
_SKIPPED_MODULE_ATTRS = frozenset(
    {"__builtins__", "__loader__", "__spec__", "__cached__", "__file__", "__doc__", "__path__"}
)
_BUDGET = 600_000


@dataclasses.dataclass
class Picture:
    """Every node reached from the roots, in walk order: its parent, the edge to it, a token
    of its value and the id of a mutable object (or None), and where tracers are."""

    parents: list[int] = dataclasses.field(default_factory=list)
    edges: list[str] = dataclasses.field(default_factory=list)
    tokens: list[Any] = dataclasses.field(default_factory=list)
    ids: list[int | None] = dataclasses.field(default_factory=list)
    tracers: list[int] = dataclasses.field(default_factory=list)
    keep: list[Any] = dataclasses.field(default_factory=list)  # no id is reused meanwhile
    truncated: bool = False

    def path(self, index: int) -> str:
        parts = []
        while index >= 0:
            parts.append(self.edges[index])
            index = self.parents[index]
        parts.reverse()
        if len(parts) > 16:
            parts = [*parts[:8], f"...({len(parts) - 14} more)...", *parts[-6:]]
        return "".join(parts)


def _tracer_type() -> type:
    import jax

    return jax.core.Tracer


def _safe(get: Any, default: Any = "<unreadable>") -> Any:
    try:
        return get()
    except Exception:  # noqa: BLE001 - the walk must not trip on what it looks at
        return default


def _hash_bytes(data: bytes) -> int:
    return hash(data)


def _class_dict(cls: type) -> dict[str, Any]:
    return dict(_safe(lambda: type.__dict__["__dict__"].__get__(cls), {}))


def _module_of(cls: type) -> str:
    return str(_class_dict(cls).get("__module__", ""))


def _array_token(obj: Any) -> tuple[Any, list[tuple[str, Any]]]:
    import jax
    import numpy as np

    if _safe(obj.is_deleted, False):
        return ("jax.Array", "deleted"), []
    if jax.dtypes.issubdtype(obj.dtype, jax.dtypes.prng_key):
        data = np.asarray(jax.random.key_data(obj))
    else:
        data = np.asarray(obj)
    return ("jax.Array", str(obj.dtype), tuple(obj.shape), _hash_bytes(data.tobytes())), []


def _describe(obj: Any, module_ok: bool) -> tuple[Any, bool, list[tuple[str, Any, bool]]]:
    """``(token, keeps identity, children)``: children as ``(edge, object, expand modules)``."""
    import jax
    import numpy as np

    kind = type(obj)
    if kind in _PRIMITIVES:
        if kind is str and len(obj) > 200:
            return ("str", len(obj), hash(obj)), False, []
        if kind is bytes and len(obj) > 200:
            return ("bytes", len(obj), hash(obj)), False, []
        if kind is float or kind is complex:
            return (kind.__name__, repr(obj)), False, []
        return (kind.__name__, obj), False, []
    if issubclass(kind, _tracer_type()):
        return ("TRACER", kind.__name__), False, []
    if issubclass(kind, jax.Array):
        token, children = _array_token(obj)
        return token, True, []
    if kind.__name__ == "Ref" and _module_of(kind).startswith("jax"):
        value = _safe(lambda: np.asarray(obj[...]).tobytes())
        return ("jax.Ref", _hash_bytes(value) if isinstance(value, bytes) else value), True, []
    if issubclass(kind, np.ndarray):
        if obj.dtype == object:
            children = [(f"[{i}]", v, False) for i, v in enumerate(list(obj.flat))]
            return ("ndarray", "object", obj.shape), True, children
        return ("ndarray", str(obj.dtype), obj.shape, _hash_bytes(obj.tobytes())), True, []
    if issubclass(kind, np.generic):
        return ("numpy scalar", str(obj.dtype), _safe(obj.tobytes)), False, []
    if kind.__name__ == "GlobalNames" and kind.__module__ == "hostile_inputs":
        present = [n for n in obj.names if n in obj.globals]
        children = [(f" global `{n}`", obj.globals[n], False) for n in present]
        return ("globals", tuple(present)), False, children
    if issubclass(kind, types.ModuleType):
        name = _safe(lambda: object.__getattribute__(obj, "__name__"))
        if not module_ok:
            return ("module", name), True, []
        namespace = _safe(lambda: object.__getattribute__(obj, "__dict__"), {})
        children = [
            (f".{k}", v, False)
            for k, v in list(namespace.items())
            if k not in _SKIPPED_MODULE_ATTRS and not isinstance(v, types.ModuleType)
        ]
        return ("module", name), True, children
    if issubclass(kind, dict):
        children = []
        for i, (key, value) in enumerate(list(dict.items(obj))):
            if type(key) in _PRIMITIVES:
                children.append((f"[{key!r}]"[:80], value, False))
            else:
                children.append((f"<key #{i} ({type(key).__name__})>", key, False))
                children.append((f"[<key #{i}>]", value, False))
        return ("dict", kind.__name__, dict.__len__(obj)), True, children
    if issubclass(kind, list):
        items = list(list.__iter__(obj))
        return (
            ("list", kind.__name__, len(items)),
            True,
            [(f"[{i}]", v, False) for i, v in enumerate(items)],
        )
    if issubclass(kind, tuple):
        items = list(tuple.__iter__(obj))
        return (
            ("tuple", kind.__name__, len(items)),
            False,
            [(f"[{i}]", v, False) for i, v in enumerate(items)],
        )
    if kind.__name__ == "deque" and kind.__module__ == "collections":
        items = list(obj)
        return (
            ("deque", len(items), obj.maxlen),
            True,
            [(f"[{i}]", v, False) for i, v in enumerate(items)],
        )
    if issubclass(kind, (set, frozenset)):
        items = list(set.__iter__(obj) if issubclass(kind, set) else frozenset.__iter__(obj))
        mutable = issubclass(kind, set)
        return (
            (kind.__name__, len(items)),
            mutable,
            [(f"{{#{i}}}", v, False) for i, v in enumerate(items)],
        )
    if kind is types.FunctionType:
        children: list[tuple[str, Any, bool]] = [
            (".__defaults__", obj.__defaults__, False),
            (".__kwdefaults__", obj.__kwdefaults__, False),
        ]
        for name, cell in zip(obj.__code__.co_freevars, obj.__closure__ or (), strict=False):
            children.append((f" <closure `{name}`>", cell, False))
        children += [(f".{k}", v, False) for k, v in list(obj.__dict__.items())]
        return ("function", obj.__qualname__, id(obj.__code__)), True, children
    if kind is types.CellType:
        try:
            return ("cell",), False, [("", obj.cell_contents, False)]
        except ValueError:
            return ("cell", "empty"), False, []
    if kind is types.MethodType:
        return (
            ("bound method",),
            False,
            [(".__self__", obj.__self__, False), (".__func__", obj.__func__, False)],
        )
    if kind is functools.partial:
        children = [
            (".func", obj.func, False),
            (".args", obj.args, False),
            (".keywords", obj.keywords, False),
        ]
        children += [(f".{k}", v, False) for k, v in list(_safe(lambda: obj.__dict__, {}).items())]
        return ("partial",), True, children
    if kind in (staticmethod, classmethod):
        return (kind.__name__,), True, [(".__func__", obj.__func__, False)]
    if issubclass(kind, type):
        own = _class_dict(obj)
        qualname = str(
            own.get("__qualname__", _safe(lambda: type.__dict__["__qualname__"].__get__(obj)))
        )
        if str(own.get("__module__", "")) == "builtins":
            return ("class", qualname), True, []
        children = [
            (f".{k}", v, False)
            for k, v in own.items()
            if k not in ("__dict__", "__weakref__") and not isinstance(v, types.ModuleType)
        ]
        return ("class", qualname), True, children
    if issubclass(kind, BaseException):
        base = BaseException.__dict__
        children = [
            (".args", base["args"].__get__(obj), False),
            (".__cause__", base["__cause__"].__get__(obj), False),
            (".__context__", base["__context__"].__get__(obj), False),
        ]
        own = _safe(lambda: object.__getattribute__(obj, "__dict__"), {})
        children += [(f".{k}", v, False) for k, v in list(dict(own).items())]
        return ("exception", kind.__name__), True, children
    if issubclass(kind, (types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)):
        frame = _safe(lambda: obj.gi_frame if hasattr(obj, "gi_frame") else obj.cr_frame, None)
        lasti = frame.f_lasti if frame is not None else None
        local = dict(_safe(lambda: frame.f_locals, {})) if frame is not None else {}
        children = [(f" <local `{k}`>", v, False) for k, v in local.items()]
        return (kind.__name__, obj.__qualname__, lasti), True, children
    module = _module_of(kind)
    if module == "builtins" and hasattr(kind, "__next__"):
        state = _safe(lambda: repr(obj.__reduce__()[2:]))
        return ("iterator", kind.__name__, state), True, []
    if issubclass(kind, io.IOBase):
        closed = _safe(lambda: obj.closed)
        position = None if closed is True else _safe(obj.tell)
        value = _safe(lambda: hash(obj.getvalue()), None) if hasattr(kind, "getvalue") else None
        return ("file", kind.__name__, closed, position, value), True, []
    if module in ("_thread", "threading") and hasattr(kind, "locked"):
        return ("lock", kind.__name__, _safe(obj.locked)), True, []
    if module.startswith(("jax", "jaxlib")):
        wrapped = _safe(lambda: obj.__wrapped__, None)
        children = [(".__wrapped__", wrapped, False)] if wrapped is not None else []
        text = _safe(lambda: repr(obj)[:300]) if not callable(obj) else ""
        return ("jax object", kind.__qualname__, text), True, children
    if module == "builtins" or "weakref" in kind.__name__:
        return ("object", kind.__qualname__), True, []
    children = []
    try:
        own = object.__getattribute__(obj, "__dict__")
        children += [(f".{k}", v, False) for k, v in list(dict(own).items())]
    except AttributeError:
        pass
    except Exception:  # noqa: BLE001 - a __dict__ property that raises: read the referents
        children += [
            (f" <referent #{i}>", v, False)
            for i, v in enumerate(gc.get_referents(obj))
            if v is not kind
        ]
    for klass in kind.__mro__:
        slots = _class_dict(klass).get("__slots__", ())
        for name in [slots] if isinstance(slots, str) else list(slots):
            member = _class_dict(klass).get(name)
            if type(member) is types.MemberDescriptorType:
                try:
                    children.append((f".{name}", member.__get__(obj, kind), False))
                except AttributeError:
                    children.append((f".{name}", "<unset slot>", False))
    return ("object", kind.__qualname__), True, children


def take_picture(roots: dict[str, Any], *, budget: int = _BUDGET) -> Picture:
    """Walk ``roots`` depth-first (without recursion, so 5,000-deep nests are fine)."""
    picture = Picture()
    seen: dict[int, int] = {}
    stack: list[tuple[int, str, Any, bool]] = [
        (-1, name, root, True) for name, root in reversed(list(roots.items()))
    ]
    while stack:
        parent, edge, obj, module_ok = stack.pop()
        if len(picture.tokens) >= budget:
            picture.truncated = True
            break
        index = len(picture.tokens)
        picture.parents.append(parent)
        picture.edges.append(edge)
        primitive = type(obj) in _PRIMITIVES
        if not primitive and id(obj) in seen:
            picture.tokens.append(("same object as", picture.path(seen[id(obj)])))
            picture.ids.append(None)
            continue
        try:
            token, keeps_identity, children = _describe(obj, module_ok)
        except Exception as error:  # noqa: BLE001 - unreadable: say so, and compare that
            token, keeps_identity, children = ("unreadable", type(error).__name__), True, []
        if not primitive:
            seen[id(obj)] = index
            picture.keep.append(obj)
        picture.tokens.append(token)
        picture.ids.append(id(obj) if keeps_identity else None)
        if token[0] == "TRACER":
            picture.tracers.append(index)
        for child_edge, child, child_module_ok in reversed(children):
            stack.append((index, child_edge, child, child_module_ok))
    return picture


def _short(token: Any) -> str:
    return repr(token)[:120]


def _keys(picture: Picture) -> tuple[list[int], list[int]]:
    """A key for each node's path (a hash of its parent's key and its edge), and its depth."""
    keys: list[int] = []
    depths: list[int] = []
    for parent, edge in zip(picture.parents, picture.edges, strict=True):
        keys.append(hash((keys[parent] if parent >= 0 else 0, edge)))
        depths.append(depths[parent] + 1 if parent >= 0 else 0)
    return keys, depths


def compare(before: Picture, after: Picture, shown: int = 3) -> list[str]:
    """The shallowest differences between two pictures, matched by path, or []."""
    keys_before, depths_before = _keys(before)
    keys_after, depths_after = _keys(after)
    where_before = dict(zip(keys_before, range(len(keys_before)), strict=True))
    where_after = dict(zip(keys_after, range(len(keys_after)), strict=True))
    found: list[tuple[int, str]] = []
    for key, i in where_before.items():
        j = where_after.get(key)
        if j is None:
            found.append(
                (depths_before[i], f"{before.path(i)} is gone (was {_short(before.tokens[i])})")
            )
        elif before.tokens[i] != after.tokens[j]:
            change = f"{_short(before.tokens[i])} -> {_short(after.tokens[j])}"
            found.append((depths_after[j], f"{after.path(j)}: {change}"))
        elif before.ids[i] != after.ids[j]:
            what = f"was replaced by an equal object ({_short(after.tokens[j])})"
            found.append((depths_after[j], f"{after.path(j)} {what}"))
    for key, j in where_after.items():
        if key not in where_before:
            found.append((depths_after[j], f"{after.path(j)} is new: {_short(after.tokens[j])}"))
    if not found:
        return []
    found.sort(key=lambda item: item[0])
    more = f" (and {len(found) - shown} more differences)" if len(found) > shown else ""
    return [text for _, text in found[:shown]][:-1] + [found[:shown][-1][1] + more]


def tracer_paths(picture: Picture, label: str) -> list[str]:
    return [f"tracer in {label}: {picture.path(i)}" for i in picture.tracers[:5]]


# -- The process's own state -------------------------------------------------------------------

_JAX_FLAGS = (
    "jax_enable_x64",
    "jax_disable_jit",
    "jax_check_tracer_leaks",
    "jax_debug_nans",
    "jax_debug_infs",
    "jax_numpy_rank_promotion",
    "jax_numpy_dtype_promotion",
    "jax_default_matmul_precision",
    "jax_log_compiles",
    "jax_default_prng_impl",
    "jax_enable_checks",
    "jax_traceback_filtering",
    "jax_explain_cache_misses",
    "jax_platforms",
    "jax_dynamic_shapes",
)


def environment() -> dict[str, Any]:
    """What a call must leave as it found it in the process, beside the input's own state."""
    import builtins
    import random
    import warnings

    import jax
    import numpy as np

    np_state = np.random.get_state()
    return {
        "recursion limit": sys.getrecursionlimit(),
        "sys.stdout/stderr/stdin": (id(sys.stdout), id(sys.stderr), id(sys.stdin)),
        "trace and profile hooks": (
            repr(sys.gettrace()),
            repr(sys.getprofile()),
            repr(threading.gettrace()),
        ),
        "garbage collector": (gc.isenabled(), gc.get_threshold()),
        "warning filters": tuple(
            (
                a,
                getattr(m, "pattern", m),
                getattr(c, "__name__", c),
                getattr(mod, "pattern", mod),
                ln,
            )
            for a, m, c, mod, ln in warnings.filters
        ),
        "working directory": os.getcwd(),
        "environment": dict(os.environ),
        "sys.path": tuple(sys.path),
        "sys.meta_path": tuple(id(f) for f in sys.meta_path),
        "excepthooks": (id(sys.excepthook), id(threading.excepthook)),
        "signal handlers": tuple(
            repr(signal.getsignal(s)) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM)
        ),
        "jax config": {f: _safe(lambda f=f: repr(getattr(jax.config, f))) for f in _JAX_FLAGS},
        "numpy settings": (repr(np.geterr()), repr(np.get_printoptions())),
        "numpy random state": (np_state[0], hash(np_state[1].tobytes()), *np_state[2:]),
        "random state": hash(random.getstate()),
        "builtins": {k: id(v) for k, v in vars(builtins).items()},
    }


def environment_changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    changes = []
    for key, old in before.items():
        new = after[key]
        if old == new:
            continue
        if isinstance(old, dict):
            keys = sorted({*old, *new}, key=str)
            diff = [k for k in keys if old.get(k, "<absent>") != new.get(k, "<absent>")]
            shown = ", ".join(
                f"{k}: {old.get(k, '<absent>')!r:.60} -> {new.get(k, '<absent>')!r:.60}"
                for k in diff[:3]
            )
            changes.append(f"{key} changed: {shown}")
        else:
            changes.append(f"{key} changed: {old!r:.120} -> {new!r:.120}")
    return changes


def modules_snapshot() -> dict[str, int]:
    return {name: id(module) for name, module in list(sys.modules.items())}


def module_changes(before: dict[str, int]) -> tuple[list[str], dict[str, Any]]:
    """Entries of sys.modules removed, replaced, or added that are not modules."""
    changes, odd = [], {}
    now = dict(sys.modules)
    for name, key in before.items():
        if name not in now:
            changes.append(f"sys.modules[{name!r}] was removed")
        elif id(now[name]) != key:
            changes.append(f"sys.modules[{name!r}] was replaced by {type(now[name]).__name__}")
    for name, value in now.items():
        if name not in before and not isinstance(value, types.ModuleType):
            changes.append(f"sys.modules[{name!r}] was added: a {type(value).__name__}")
            odd[name] = value
    return changes, odd


def live_tracers() -> int:
    gc.collect()
    tracer = _tracer_type()
    return sum(1 for obj in gc.get_objects() if issubclass(type(obj), tracer))


def open_descriptors() -> int:
    return _safe(lambda: len(os.listdir("/proc/self/fd")), -1)


# -- Telling a clear error from a crash --------------------------------------------------------


@functools.cache
def _raise_lines(path: str) -> frozenset[int]:
    """The lines of ``raise`` statements in one file."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return frozenset(lines)


@dataclasses.dataclass(frozen=True)
class Frame:
    path: str
    line: int
    function: str
    code: Any

    def where(self, package: Path) -> str:
        path = Path(self.path)
        try:
            shown = str(path.relative_to(package.parent))
        except ValueError:
            shown = path.name
        return f"{shown}:{self.line} {self.function}"


def frames_of(error: BaseException) -> list[Frame]:
    frames = []
    tb = error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append(Frame(code.co_filename, tb.tb_lineno, code.co_name, code))
        tb = tb.tb_next
    return frames


class Judge:
    """Decides a verdict for one call, knowing where jaxpurity and the user's code live."""

    def __init__(self, package: Path, data_file: str, harness_codes: set[Any]) -> None:
        self.package = package
        self.data_file = os.path.realpath(data_file)
        self.harness_codes = harness_codes

    def is_jaxpurity(self, frame: Frame) -> bool:
        if not os.path.isabs(frame.path):  # "<frozen ...>", "<string>"
            return False
        return os.path.realpath(frame.path).startswith(str(self.package) + os.sep)

    def is_user(self, frame: Frame) -> bool:
        if frame.code in self.harness_codes or not os.path.isabs(frame.path):
            return False
        path = os.path.realpath(frame.path)
        return path == self.data_file or f"{os.sep}{USER_DIR_PREFIX}" in path

    def innermost_jaxpurity(self, frames: list[Frame]) -> str:
        inside = [f for f in frames if self.is_jaxpurity(f)]
        return inside[-1].where(self.package) if inside else "(no jaxpurity frame)"

    def judge(
        self, tool: str, error: BaseException, reference: BaseException | str | None
    ) -> tuple[str, str]:
        """``(verdict, why)`` for an exception that came out of the call."""
        frames = frames_of(error)
        # The harness's own frames (the runner and the input's call()) come first.
        start = 0
        while start < len(frames) and (
            frames[start].code in self.harness_codes or frames[start].path == __file__
        ):
            start += 1
        inner = frames[start:]
        kind = type(error).__name__
        dunder = error.__class__.__name__ == "DunderBoom"
        if not inner:
            return "crashed", f"the call itself raised {kind}: the tool's signature cannot take it"
        if dunder:
            caller = self._dunder_caller(inner)
            if caller is not None and self.is_jaxpurity(caller):
                return (
                    "crashed",
                    f"jaxpurity called a hostile dunder ({caller.where(self.package)})",
                )
        elif self._from_user_code(inner):
            if tool in RERAISES_USER_ERRORS:
                return "answered", f"the user's own {kind}, re-raised by design"
            return "crashed", f"the user's own {kind} escaped (not re-raised by design)"
        if not dunder and self._clear(tool, error, inner):
            return "answered", f"clear {kind}"
        library = LIBRARY.get(tool)
        if (
            library is not None
            and isinstance(reference, BaseException)
            and type(reference) is type(error)
            and not isinstance(error, INTERNAL)
        ):
            return "answered", f"{kind} as {library} raises it"
        if not any(self.is_jaxpurity(f) for f in inner):
            return (
                "crashed",
                f"{kind}, with no jaxpurity frame (from {inner[-1].where(self.package)})",
            )
        return "crashed", kind

    def _dunder_caller(self, inner: list[Frame]) -> Frame | None:
        """The frame that called the hostile dunder: the first above it that is not user code."""
        for i in range(len(inner) - 1, -1, -1):
            if not self.is_user(inner[i]):
                return inner[i]
        return None

    def _from_user_code(self, inner: list[Frame]) -> bool:
        users = [i for i, f in enumerate(inner) if self.is_user(f)]
        if not users:
            return False
        return not any(self.is_jaxpurity(f) for f in inner[users[-1] + 1 :])

    def _clear(self, tool: str, error: BaseException, inner: list[Frame]) -> bool:
        if not inner or not self.is_jaxpurity(inner[-1]):
            return False
        if inner[-1].line not in _raise_lines(inner[-1].path):
            return False
        documented = type(error).__name__ in TOOL_CLEAR_NAMES.get(tool, set()) or any(
            c.__name__ in TOOL_CLEAR_NAMES.get(tool, set()) for c in type(error).__mro__
        )
        if not (isinstance(error, CLEAR_TYPES) or documented):
            return False
        return len(_message(error)) >= MIN_MESSAGE


def _message(error: BaseException) -> str:
    try:
        return str(error)
    except Exception as inner:  # noqa: BLE001
        return f"<str() raised {type(inner).__name__}>"


def summary(result: Any) -> str:
    """What the call returned, in a few words."""
    kind = type(result).__name__
    try:
        if kind == "PurityReport":
            problems = [p.kind for p in result.problems]
            warnings = [w.kind for w in result.warnings]
            return f"PurityReport problems={problems} warnings={warnings}"
        if isinstance(result, list) and result and type(result[0]).__name__ == "Leak":
            return f"{len(result)} leaks, first: {result[0].where}"[:160]
        if isinstance(result, list) and result and type(result[0]).__name__ == "Finding":
            codes = Counter(f.code for f in result).most_common(4)
            return f"{len(result)} findings {codes}"[:160]
        if kind == "Explanation":
            return f"Explanation error={result.error!r} recognised={result.recognised}"
        if isinstance(result, list):
            return f"list of {len(result)}"
    except Exception as error:  # noqa: BLE001
        return f"{kind} (unreadable: {type(error).__name__})"
    return kind


# -- The child: one input in its own process -----------------------------------------------------


def _write(path: str, record: dict[str, Any]) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(record, handle)
    os.replace(tmp, path)


def _profile_to(path: str, package: Path) -> None:
    """Keep, in ``path``, the innermost jaxpurity frame at every call: where a process that
    dies without a word (a fatal error in C code) last was in jaxpurity."""
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    prefix = str(package.parent) + os.sep
    inside = str(package) + os.sep
    last: list[str | None] = [None]

    def hook(frame: Any, event: str, arg: Any) -> None:
        if event not in ("call", "c_call"):
            return
        while frame is not None and not frame.f_code.co_filename.startswith(inside):
            frame = frame.f_back
        if frame is None:
            return
        where = f"{frame.f_code.co_filename[len(prefix) :]}:{frame.f_lineno} {frame.f_code.co_name}"
        if where != last[0]:
            last[0] = where
            os.pwrite(handle, where.encode()[:400].ljust(400), 0)

    sys.setprofile(hook)
    threading.setprofile(hook)


def child(
    input_id: str,
    jaxpurity_dir: str,
    result_path: str,
    timeout: float,
    profile: str | None = None,
    memory_gb: float = 0,
) -> int:
    """Run one input and write what happened to ``result_path`` as JSON."""
    import faulthandler
    import resource

    if memory_gb > 0:  # a runaway loop fails here, not on the shared machine
        limit = int(memory_gb * (1 << 30))
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    faulthandler.enable()
    faulthandler.dump_traceback_later(max(timeout - 2, 1), exit=False)
    record: dict[str, Any] = {"id": input_id, "phase": "start", "notes": [], "harm": []}
    directory = Path(jaxpurity_dir).resolve()
    sys.path[:0] = [str(directory), str(DATA)]
    import jaxpurity

    package = Path(jaxpurity.__file__).resolve().parent
    if not str(package).startswith(str(directory) + os.sep):
        record.update(verdict="harness", why=f"imported jaxpurity from {package}, not {directory}")
        _write(result_path, record)
        return 0
    for name in jaxpurity.__all__:  # import every tool now, not during the call
        getattr(jaxpurity, name)
    import hostile_inputs

    hostile = hostile_inputs.by_id(input_id)
    record["tool"] = hostile.tool
    try:
        setup = hostile.build()
        roots = setup.state()
        if_raised = setup.state_if_raised() if setup.state_if_raised is not None else {}
        if_raised = {f"{k} (if it raises)": v for k, v in if_raised.items()}
        env_before = environment()
        modules_before = modules_snapshot()
        threads_before = threading.active_count()
        fds_before = open_descriptors()
        before = take_picture(roots)
        before_if_raised = take_picture({**roots, **if_raised})
    except Exception:  # noqa: BLE001 - the harness failed, not jaxpurity
        record.update(verdict="harness", why="build or picture: " + traceback.format_exc()[-600:])
        _write(result_path, record)
        return 0
    if before.tracers:
        record["notes"].append("a tracer was there before the call")
    harness = {setup.call.__code__} if hasattr(setup.call, "__code__") else set()
    judge = Judge(package, hostile_inputs.__file__, harness)

    record["phase"] = "calling"
    _write(result_path, record)
    if profile:
        _profile_to(profile, package)
    started = time.perf_counter()
    result: Any = None
    error: BaseException | None = None
    try:
        result = setup.call()
    except BaseException as raised:  # noqa: BLE001 - every way out is a result here
        error = raised
    record["seconds"] = round(time.perf_counter() - started, 2)
    sys.setprofile(None)
    threading.setprofile(None)  # type: ignore[arg-type]
    record["phase"] = "measuring"
    _write(result_path, record)

    harm: list[str] = record["harm"]
    try:
        if error is not None and if_raised:
            roots, before = {**roots, **if_raised}, before_if_raised
        after = take_picture(roots)
        harm += compare(before, after)
        harm += tracer_paths(after, "the caller's state")
        harm += environment_changes(env_before, environment())
        changed_modules, odd_modules = module_changes(modules_before)
        harm += changed_modules
        harm += tracer_paths(take_picture(odd_modules), "sys.modules")
        own = {
            n: m
            for n, m in list(sys.modules.items())
            if n == "jaxpurity" or n.startswith("jaxpurity.")
        }
        harm += tracer_paths(take_picture(own), "jaxpurity's modules")
        if error is None:
            harm += tracer_paths(take_picture({"result": result}), "the result")
        else:
            harm += tracer_paths(take_picture({"error": error}), "the raised exception")
        if before.truncated:
            record["notes"].append(f"picture truncated at {_BUDGET} nodes")
        tracers = live_tracers()
        if tracers:
            record["notes"].append(f"{tracers} tracers alive after gc.collect()")
        if threading.active_count() > threads_before:
            record["notes"].append(
                f"{threading.active_count() - threads_before} threads left running"
            )
        if open_descriptors() > fds_before >= 0:
            record["notes"].append(f"{open_descriptors() - fds_before} file descriptors left open")
    except Exception:  # noqa: BLE001
        record.update(verdict="harness", why="picture after: " + traceback.format_exc()[-600:])
        _write(result_path, record)
        return 0

    def decide(reference: BaseException | str | None) -> None:
        if error is None:
            verdict, why = "answered", summary(result)
        else:
            verdict, why = judge.judge(hostile.tool, error, reference)
            frames = frames_of(error)
            record["error_type"] = f"{type(error).__module__}.{type(error).__qualname__}"
            record["message"] = " ".join(_message(error).split())[:300]
            record["jaxpurity_frame"] = judge.innermost_jaxpurity(frames)
            record["innermost_frame"] = frames[-1].where(package) if frames else "-"
            wrong = hostile.wrong_message
            if verdict == "answered" and wrong and re.search(wrong, _message(error)):
                why += f" MISLEADING: the message says {wrong!r}"
        if verdict in ("answered",) and harm:
            verdict = "harmed"
        record.update(verdict=verdict, why=why)

    decide(None)
    record["phase"] = "called"
    _write(result_path, record)

    if error is not None and setup.reference is not None:
        reference: BaseException | str
        try:
            fresh = hostile.build()
            assert fresh.reference is not None
            fresh.reference()
            reference = "returned"
        except BaseException as raised:  # noqa: BLE001
            reference = raised
        record["reference"] = (
            reference
            if isinstance(reference, str)
            else f"{type(reference).__name__}: {_message(reference)[:120]}"
        )
        decide(reference)
    record["phase"] = "done"
    _write(result_path, record)
    faulthandler.cancel_dump_traceback_later()
    sys.stdout.flush()
    return 0


# -- The parent: many inputs, each in a subprocess ----------------------------------------------

_FAULT_FRAME = re.compile(r'^\s+File "(?P<path>[^"]+)", line (?P<line>\d+) in (?P<function>\S+)')
_FAULT_THREAD = re.compile(r"^(?:Current thread|Thread) (0x[0-9a-f]+)")


def fault_frames(stderr: str, package: str) -> list[str]:
    """The innermost jaxpurity frame of each thread in a faulthandler dump."""
    found: list[str] = []
    thread, taken = None, False
    for line in stderr.splitlines():
        head = _FAULT_THREAD.match(line)
        if head:
            thread, taken = head.group(1), False
            continue
        frame = _FAULT_FRAME.match(line)
        if (
            frame
            and not taken
            and f"{os.sep}jaxpurity{os.sep}" in frame["path"]
            and frame["path"].startswith(package)
        ):
            name = frame["path"][len(package) + 1 :]
            found.append(f"{name}:{frame['line']} {frame['function']} (thread {thread})")
            taken = True
    return found


@dataclasses.dataclass
class Outcome:
    id: str
    tool: str
    verdict: str
    why: str
    record: dict[str, Any]
    seconds: float

    def line(self) -> str:
        r = self.record
        parts = [self.why]
        if r.get("error_type"):
            parts.append(f"{r['error_type']}: {r.get('message', '')[:140]}")
            parts.append(f"at {r.get('jaxpurity_frame')}")
        if r.get("reference") and self.verdict != "answered":
            parts.append(f"reference: {r['reference'][:80]}")
        if r.get("harm"):
            parts.append("harm: " + " | ".join(r["harm"][:3]))
        if r.get("notes"):
            parts.append("notes: " + "; ".join(r["notes"]))
        took = f"{r['seconds']:6.1f}s" if "seconds" in r else f"{'-':>7}"
        return f"{self.verdict:9} {self.id:58} {took} " + " || ".join(p for p in parts if p)


class Runner:
    def __init__(
        self, jaxpurity_dir: Path, timeout: float, python: str, logs: Path | None, memory_gb: float
    ) -> None:
        self.memory_gb = memory_gb
        self.jaxpurity_dir = jaxpurity_dir
        self.timeout = timeout
        self.python = python
        self.logs = logs
        self.running: set[subprocess.Popen[bytes]] = set()
        self.lock = threading.Lock()

    def run(self, hostile: Any) -> Outcome:
        folder = tempfile.mkdtemp(prefix="hostile-run-")
        try:
            return self._run(hostile, folder)
        finally:
            for root, dirs, _ in os.walk(folder):  # a chmod 000 folder would stop rmtree
                for name in dirs:
                    with contextlib.suppress(OSError):
                        os.chmod(os.path.join(root, name), 0o700)
            shutil.rmtree(folder, ignore_errors=True)

    def _run(self, hostile: Any, folder: str) -> Outcome:
        result_path = os.path.join(folder, "result.json")
        out_path, err_path = os.path.join(folder, "stdout"), os.path.join(folder, "stderr")
        work = os.path.join(folder, "tmp")
        os.mkdir(work)
        env = {**os.environ, **self._env(work)}
        command = [
            self.python,
            str(Path(__file__).resolve()),
            "--child",
            hostile.id,
            "--jaxpurity",
            str(self.jaxpurity_dir),
            "--result",
            result_path,
            "--timeout",
            str(self.timeout),
            "--memory-gb",
            str(self.memory_gb),
        ]
        started = time.perf_counter()
        timed_out = False
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            process = subprocess.Popen(
                command,
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=work,
                start_new_session=True,
            )
            with self.lock:
                self.running.add(process)
            try:
                process.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                _kill_group(process)
                with self.lock:
                    self.running.discard(process)
        seconds = time.perf_counter() - started
        stderr = Path(err_path).read_text(errors="replace")
        if self.logs is not None:
            safe = hostile.id.replace("/", "__")
            shutil.copy(out_path, self.logs / f"{safe}.stdout")
            shutil.copy(err_path, self.logs / f"{safe}.stderr")
        record: dict[str, Any] = {}
        with contextlib.suppress(OSError, ValueError):
            record = json.loads(Path(result_path).read_text())
        package = str(self.jaxpurity_dir.resolve())
        if timed_out:
            where = fault_frames(stderr, package)
            phase = record.get("phase")
            if phase == "done":
                why = "the call finished but the process did not exit (a thread left running?)"
            elif phase == "called":
                # The reference call (the library, on a fresh build) hung, not jaxpurity.
                record.setdefault("notes", []).append("the reference call hung")
                return Outcome(
                    hostile.id, hostile.tool, record["verdict"], record["why"], record, seconds
                )
            else:
                why = f"past {self.timeout:g} s"
            why += "; " + ("; ".join(where) if where else "no jaxpurity frame in the stack dump")
            record["why"] = why
            return Outcome(hostile.id, hostile.tool, "hung", why, record, seconds)
        if not record.get("verdict"):
            phase = record.get("phase", "start")
            where = fault_frames(stderr, package)
            if not where and phase == "calling":
                where = [f"last in jaxpurity at {self._last_frame(hostile, folder)}"]
            tail = " ".join(stderr.strip().splitlines()[-2:])[-160:]
            why = f"the process exited with {process.returncode} and no result"
            why += "; " + "; ".join(where) + f"; stderr ends: {tail}"
            verdict = "crashed" if phase == "calling" else "harness"
            if verdict == "harness":
                why = f"the harness died ({phase}): " + why
            return Outcome(hostile.id, hostile.tool, verdict, why, record, seconds)
        return Outcome(
            hostile.id, hostile.tool, record["verdict"], record.get("why", ""), record, seconds
        )

    def _last_frame(self, hostile: Any, folder: str) -> str:
        """Run the input again with every call traced: its innermost jaxpurity frame at the
        last call before the process died."""
        profile = os.path.join(folder, "profile")
        work = os.path.join(folder, "tmp-again")
        os.mkdir(work)
        command = [
            self.python,
            str(Path(__file__).resolve()),
            "--child",
            hostile.id,
            "--jaxpurity",
            str(self.jaxpurity_dir),
            "--result",
            os.path.join(folder, "again.json"),
            "--timeout",
            str(self.timeout * 4),
            "--profile",
            profile,
            "--memory-gb",
            str(self.memory_gb),
        ]
        env = {**os.environ, **self._env(work)}
        process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=work,
            start_new_session=True,
        )
        with self.lock:
            self.running.add(process)
        try:
            process.wait(timeout=self.timeout * 4)
        except subprocess.TimeoutExpired:
            pass
        finally:
            _kill_group(process)
            with self.lock:
                self.running.discard(process)
        text = _safe(lambda: Path(profile).read_text().strip(), "")
        return text or "(unknown)"

    def _env(self, work: str) -> dict[str, str]:
        return {
            "JAX_PLATFORMS": "cpu",
            "PYTHONDONTWRITEBYTECODE": "1",
            "TMPDIR": work,
            "PYTHONFAULTHANDLER": "1",
            # JAX hides its own frames from tracebacks; the verdict needs to see who called what.
            "JAX_TRACEBACK_FILTERING": "off",
        }

    def stop(self) -> None:
        with self.lock:
            for process in list(self.running):
                _kill_group(process)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the child and anything it started (its own session), and reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(Exception):
        process.wait(timeout=10)


def print_table(outcomes: list[Outcome], tools: list[str]) -> None:
    columns = [*VERDICTS, *sorted({o.verdict for o in outcomes} - set(VERDICTS))]
    print(f"\n{'tool':14} {'inputs':>6} " + " ".join(f"{c:>8}" for c in columns))
    totals: Counter[str] = Counter()
    for tool in tools:
        mine = [o for o in outcomes if o.tool == tool]
        if not mine:
            continue
        counts = Counter(o.verdict for o in mine)
        totals.update(counts)
        print(f"{tool:14} {len(mine):>6} " + " ".join(f"{counts[c]:>8}" for c in columns))
    print(f"{'total':14} {len(outcomes):>6} " + " ".join(f"{totals[c]:>8}" for c in columns))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", help="only this tool's inputs")
    parser.add_argument("--id", dest="id_part", help="only inputs whose id contains this")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per input")
    parser.add_argument("--jobs", type=int, default=1, help="subprocesses at a time")
    parser.add_argument("--jaxpurity", type=Path, default=ROOT, help="the jaxpurity to measure")
    parser.add_argument("--python", default=sys.executable, help="the Python to run inputs with")
    parser.add_argument("--logs", type=Path, help="keep each input's stdout and stderr here")
    parser.add_argument("--json", type=Path, help="write every result here")
    parser.add_argument(
        "--memory-gb", type=float, default=4.0, help="memory limit of each subprocess (0: none)"
    )
    parser.add_argument("--list", action="store_true", help="list the inputs and stop")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    parser.add_argument("--profile", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(
            args.child, str(args.jaxpurity), args.result, args.timeout, args.profile, args.memory_gb
        )

    sys.path.insert(0, str(DATA))
    import hostile_inputs

    chosen = list(hostile_inputs.iter_inputs(args.tool, args.id_part))
    if args.list:
        for hostile in chosen:
            print(f"{hostile.id:58} {hostile.hostile}")
        print(f"{len(chosen)} inputs")
        return 0
    if not chosen:
        print("no input matches", file=sys.stderr)
        return 2
    if args.logs is not None:
        args.logs.mkdir(parents=True, exist_ok=True)
    runner = Runner(args.jaxpurity.resolve(), args.timeout, args.python, args.logs, args.memory_gb)
    print(
        f"{len(chosen)} hostile inputs, jaxpurity from {args.jaxpurity.resolve()}, "
        f"{args.timeout:g} s each, {args.jobs} at a time",
        flush=True,
    )
    outcomes: list[Outcome] = []
    started = time.perf_counter()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs))
    try:
        futures = [pool.submit(runner.run, hostile) for hostile in chosen]
        for future in concurrent.futures.as_completed(futures):
            outcome = future.result()
            outcomes.append(outcome)
            print(outcome.line(), flush=True)
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        runner.stop()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        runner.stop()
    order = {h.id: i for i, h in enumerate(chosen)}
    outcomes.sort(key=lambda o: order[o.id])
    print_table(outcomes, hostile_inputs.tools())
    print(f"({time.perf_counter() - started:.0f} s)")
    bad = [o for o in outcomes if o.verdict != "answered"]
    if bad:
        print("\nnot answered:")
        for outcome in bad:
            print("  " + outcome.line())
    if args.json is not None:
        args.json.write_text(
            json.dumps([dataclasses.asdict(o) for o in outcomes], indent=1, default=str)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
