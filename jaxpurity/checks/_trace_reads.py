"""What a function reads while it is traced, that ``jit`` bakes into the compiled program.

Python code under :func:`jax.jit` runs once, while JAX traces it; the values it
reads then (a global setting, a closure variable, an attribute of an object it
does not get as a pytree, an environment variable, the clock) become constants
of the program. When they change later, the jitted function goes on computing
with the old ones. :func:`settings_read` finds such reads in the function's
code (nothing is run); :func:`outside_reads` records, while a trace runs, what
the traced code read from ``os.environ`` and the clock.
"""

from __future__ import annotations

import collections
import contextlib
import dis
import os
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from jaxpurity._introspect import (
    EMPTY_CELL,
    MISSING,
    cell_value,
    code_names,
    is_user_code,
    is_user_object,
    own_attributes,
    qualname,
    wrappers,
)
from jaxpurity._naming import kind_of, short_repr
from jaxpurity.checks._call import BoundCall
from jaxpurity.checks._constants import MUTATORS, is_constant
from jaxpurity.checks._snapshot import MUTABLE, Binding

__all__ = ["Read", "outside_reads", "settings_read"]

# Values that a trace bakes in when it reads them: Python data, arrays, user objects.
_DATA = (bool, int, float, complex, str, bytes, tuple, list, dict, set, frozenset)
_ARRAYS = (np.ndarray, np.generic, jax.Array)
_GLOBAL_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_NAME"})
_ATTRIBUTE_LOADS = frozenset({"LOAD_ATTR", "LOAD_METHOD"})
_STORES = frozenset({"STORE_GLOBAL", "STORE_DEREF", "STORE_NAME"})
_STORE_ATTR = frozenset({"STORE_ATTR"})
# Python 3.13's pairs load their second local last: LOAD_FAST_LOAD_FAST ('x', 'config'),
# STORE_FAST_LOAD_FAST ('b', 'b') in `b = a.c; return b.d`.
_LOCAL_LOADS = frozenset(
    {"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "LOAD_DEREF"}
)


@dataclass(frozen=True)
class Read:
    """One value read at trace time: where from, what it was, and why that goes wrong."""

    label: str  # "global `lr`", "closure variable `scale` of `make.<locals>.f`", "`self.n`"
    value: str
    why: str
    # The problem it is (a template of checks._problems): "trace-time-read", baked into the
    # program, wrong once it changes; "clock-read", wrong from the next call on; "static-read",
    # read off an argument that jit keeps whole as a key of its cache, so that changing it in
    # place makes the cache answer stale.
    problem: str = "trace-time-read"


def _is_data(value: Any) -> bool:
    kind = type(value)  # not isinstance, which reads __class__: a hostile object's may raise
    if issubclass(kind, bool) or value is None:
        return False  # True/False/None flags are read too, but as constants they rarely change
    return issubclass(kind, (*_DATA, *_ARRAYS)) or is_user_object(value)


def _why(value: Any) -> str:
    if issubclass(type(value), MUTABLE):  # not isinstance: a hostile __class__ may raise
        return (
            f"its contents at trace time ({kind_of(value)}) are baked into the compiled "
            "program, so changing them later changes nothing the jitted function computes "
            "until it is traced again."
        )
    return (
        "jit bakes the value into the compiled program, so changing it later does not change "
        "what the jitted function computes until it is traced again."
    )


def _instructions(code: types.CodeType) -> Iterator[dis.Instruction]:
    yield from dis.get_instructions(code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _instructions(const)


def _global_names(code: types.CodeType) -> list[str]:
    """The globals ``code`` reads, less Python's own (``__builtins__``, ``__name__``)."""
    names = [i.argval for i in _instructions(code) if i.opname in _GLOBAL_LOADS]
    return list(dict.fromkeys(n for n in names if isinstance(n, str) and not n.startswith("__")))


def _only_changed(code: types.CodeType, name: str) -> bool:
    """Whether every load of ``name`` in ``code`` is to call a method that changes it in place
    (``seen.append(x)``): the code writes to it and reads nothing from it to bake in."""
    loads = [
        following
        for instruction, following in _pairs(code)
        if instruction.opname in (*_GLOBAL_LOADS, "LOAD_DEREF") and instruction.argval == name
    ]
    return bool(loads) and all(
        f is not None and f.opname in _ATTRIBUTE_LOADS and f.argval in MUTATORS for f in loads
    )


def _pairs(code: types.CodeType) -> Iterator[tuple[dis.Instruction, dis.Instruction | None]]:
    instructions = [i for i in _instructions(code) if i.opname not in ("CACHE", "EXTENDED_ARG")]
    yield from zip(instructions, [*instructions[1:], None], strict=True)


def _local_loaded_last(instruction: dis.Instruction) -> str | None:
    """The local variable an instruction leaves on top of the stack, if it loads one (of a
    pair of Python 3.13, the second: ``('x', 'config')`` in ``x * config.scale``)."""
    if instruction.opname not in _LOCAL_LOADS:
        return None
    name = instruction.argval
    return name[-1] if isinstance(name, tuple) else name


def _attribute_reads(
    code: types.CodeType, local: str, ops: frozenset[str] = _ATTRIBUTE_LOADS
) -> list[str]:
    """The attributes read directly off the local variable ``local`` (``self.scale``), or,
    with ``ops={"STORE_ATTR"}``, set on it (``self.pose = p``)."""
    found, previous = [], None
    for instruction in _instructions(code):
        if instruction.opname in ops and previous == local:
            found.append(instruction.argval)
        previous = _local_loaded_last(instruction)
    return list(dict.fromkeys(n for n in found if isinstance(n, str)))


def _is_plain_object(value: Any) -> bool:
    """A user object that jit does not flatten (no pytree) and that can change in place: it
    reaches the body as it is. A frozen dataclass cannot change, as the fix is to make it."""
    params = getattr(type(value), "__dataclass_params__", None)
    if params is not None and params.frozen:
        return False
    return is_user_object(value) and jax.tree_util.treedef_is_leaf(
        jax.tree_util.tree_structure(value)
    )


_STATIC_WHY = (
    "`{name}` is no pytree, so jit cannot trace it and takes it as a static argument, which it "
    "keeps, the object itself, as a key of its cache. Change {label} in place after a call and "
    "the next call finds that same key and runs the program compiled for the old value: a stale "
    "result, and no error. Make the object immutable (a frozen dataclass), or pass the value as "
    "an array argument, or register the class as a pytree so that jit traces its fields."
)


def settings_read(call: BoundCall) -> list[Read]:
    """The globals, closure variables and object attributes the call's code reads: all baked in.

    Found in the code (its bytecode), not by running it, for the function and
    the user functions it reaches in one step. A global or closure variable counts when
    it holds data (a number, a string, a container, an array, a user object) that
    can change: not a constant its source binds once and never changes
    (:func:`~jaxpurity.checks._constants.is_constant`), nor a container the code
    only changes in place (``seen.append(x)``);
    an attribute counts when it is read off an argument that reaches the body
    as it is (a user object that is no pytree, such as a static ``self``), or off the object
    that a method the call runs is bound to (``jax.jit(env.reset)``), where another method
    of its class sets it (:func:`_bound_reads`).

    Example:
      >>> LEARNING_RATE = 0.1
      >>> def update(w, g):
      ...     return w - LEARNING_RATE * g
      >>> update.__module__ = "my_project.train"  # as if defined there (not in jaxpurity)
      >>> [(r.label, r.value) for r in settings_read(BoundCall.of(update, (1.0, 1.0), {}))]
      [('global `LEARNING_RATE`', '0.1')]
    """
    reads: list[Read] = []
    for f in call.functions:
        if not is_user_code(f):
            continue  # JAX's own closures (checkify's error set): nothing the user changes
        names = [
            (name, False, Binding.global_(f.__globals__, name))
            for name in _global_names(f.__code__)
        ]
        names += [
            (name, True, Binding.cell(cell, name, qualname(f)))
            for name, cell in zip(f.__code__.co_freevars, f.__closure__ or (), strict=True)
        ]
        stored = {i.argval for i in _instructions(f.__code__) if i.opname in _STORES}
        for name, closure, binding in names:
            value = binding.get()
            if value is MISSING or value is EMPTY_CELL or not _is_data(value):
                continue
            if name in stored or _only_changed(f.__code__, name):
                continue  # rebound here: a global-assignment; a list only appended to
            if is_constant(f, name, closure=closure):
                continue  # bound once in its source and never changed
            reads.append(Read(binding.label, short_repr(value), _why(value)))
    body = call.innermost
    reads += _bound_reads(call, body)
    if isinstance(body, types.FunctionType):
        for name, value in call.parameters:
            if not _is_plain_object(value):
                continue
            for attr in _attribute_reads(body.__code__, name):
                attribute = getattr(value, attr, MISSING)
                if attribute is not MISSING and _is_data(attribute):
                    label = f"`{name}.{attr}`"
                    why = _STATIC_WHY.format(name=name, label=label)
                    reads.append(Read(label, short_repr(attribute), why, "static-read"))
    unique: dict[str, Read] = {}
    for read in reads:
        unique.setdefault(read.label, read)
    return list(unique.values())


#: How far the walk for methods bound to an object goes, from the call and its arguments, and
#: how many values it looks at in all: a check stays quick on a large object graph.
_BOUND_DEPTH = 3
_BOUND_VALUES = 500


def _methods_bound(call: BoundCall) -> list[tuple[types.FunctionType, Any]]:
    """The user methods the call can run bound to a plain user object, each with that object:
    the function of a bound method found through the layers (``jax.jit(env.reset)``) of the
    call, its arguments, the globals and closure variables of its code, and the attributes of
    the plain objects these reach (``self._reset``)."""
    found: dict[int, tuple[types.FunctionType, Any]] = {}
    seen: set[int] = set()
    named = [cell_value(c) for f in call.functions for c in f.__closure__ or ()]
    named += [f.__globals__.get(n) for f in call.functions for n in code_names(f.__code__)]
    starts = [call.fn, *(v for _, v in call.parameters), *named]
    queue = collections.deque((value, 0) for value in starts)
    while queue and len(seen) < _BOUND_VALUES:
        value, depth = queue.popleft()
        if id(value) in seen:
            continue
        seen.add(id(value))
        with contextlib.suppress(Exception):  # a hostile object: not followed
            for layer in wrappers(value):
                if issubclass(type(layer), types.MethodType):
                    method, owner = layer.__func__, layer.__self__
                    if issubclass(type(method), types.FunctionType) and _is_plain_object(owner):
                        found.setdefault(id(method), (method, owner))
                        queue.append((owner, depth + 1))
            if depth < _BOUND_DEPTH and is_user_object(value):
                held = own_attributes(value).values()
                queue.extend((v, depth + 1) for v in held if callable(v) or is_user_object(v))
    return list(found.values())


def _setters(kind: type) -> dict[str, str]:
    """Each attribute that a method of the user class ``kind`` (not ``__init__``) sets on its
    object, with the first such method's name."""
    setters: dict[str, str] = {}
    for klass in kind.__mro__:
        if not is_user_code(klass):
            continue
        for name, member in vars(klass).items():
            if name == "__init__" or not issubclass(type(member), types.FunctionType):
                continue
            code = member.__code__
            if code.co_argcount:
                for attribute in _attribute_reads(code, code.co_varnames[0], _STORE_ATTR):
                    setters.setdefault(attribute, f"{klass.__qualname__}.{name}")
    return setters


_BOUND_WHY = (
    "`{method}` runs bound to its object, so jit reads {label} once, while it traces, and "
    "bakes it into the program; `{setter}` changes it, and the compiled program goes on with "
    "the value it read."
)


def _bound_reads(call: BoundCall, body: Any) -> list[Read]:
    """The attributes that a method bound to a plain user object reads off it, and that another
    method of its class sets: each is baked in, and goes stale when that method runs. The
    body's own ``self`` is one of its arguments (a ``static-read``)."""
    reads = []
    for method, owner in _methods_bound(call):
        code = method.__code__
        if method is body or not code.co_argcount or not is_user_code(method):
            continue
        setters = _setters(type(owner))
        for attribute in _attribute_reads(code, code.co_varnames[0]):
            value = own_attributes(owner).get(attribute, MISSING)
            if attribute not in setters or value is MISSING or not _is_data(value):
                continue
            label = f"`self.{attribute}`"
            why = _BOUND_WHY.format(method=qualname(method), label=label, setter=setters[attribute])
            reads.append(Read(f"{label} of `{qualname(method)}`", short_repr(value), why))
    return reads


# -- Reads from outside Python's values: the environment and the clock ----------------------------

_CLOCKS = ("time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns")


@contextlib.contextmanager
def outside_reads() -> Iterator[list[Read]]:
    """Within the block, record what this thread reads from ``os.environ`` and the clock.

    ``os.environ`` is watched by giving it, for the block, a class of its own
    that notes each key read; the clock by wrapping :func:`time.time` and its
    kin in the :mod:`time` module (code that did ``from time import time``
    before is not seen). Both are put back when the block ends.

    Example:
      >>> import os, time
      >>> with outside_reads() as reads:
      ...     _ = os.environ.get("JAXPURITY_EXAMPLE_FLAG")
      ...     _ = time.time()
      >>> [r.label for r in reads]
      ["os.environ['JAXPURITY_EXAMPLE_FLAG']", 'time.time()']
    """
    reads: list[Read] = []
    me = threading.get_ident()
    environ_class = type(os.environ)

    def note(label: str, value: str, why: str, problem: str) -> None:
        if threading.get_ident() != me or not _called_from_user_code():
            return  # JAX reads the clock and its flags while it traces too: not the user's
        if all(r.label != label for r in reads):
            reads.append(Read(label, value, why, problem))

    class RecordingEnviron(environ_class):  # type: ignore[valid-type, misc]
        def __getitem__(self, key: str) -> str:
            try:
                value = super().__getitem__(key)
            except KeyError:
                note(f"os.environ[{key!r}]", "unset", _ENV_WHY, "trace-time-read")
                raise
            note(f"os.environ[{key!r}]", short_repr(value), _ENV_WHY, "trace-time-read")
            return value

        def __contains__(self, key: object) -> bool:
            found = super().__contains__(key)
            note(f"os.environ[{key!r}]", "set" if found else "unset", _ENV_WHY, "trace-time-read")
            return found

    clocks = {name: getattr(time, name) for name in _CLOCKS}

    def clock(name: str, real: Callable[[], float]) -> Callable[[], float]:
        def read() -> float:
            value = real()
            note(f"time.{name}()", short_repr(value), _CLOCK_WHY, "clock-read")
            return value

        return read

    os.environ.__class__ = RecordingEnviron
    for name, real in clocks.items():
        setattr(time, name, clock(name, real))
    try:
        yield reads
    finally:
        os.environ.__class__ = environ_class
        for name, real in clocks.items():
            setattr(time, name, real)


def _called_from_user_code() -> bool:
    """Whether the code that read the clock or the environment is the user's.

    The first frame above this module and the standard library's (``Mapping.get``
    calls ``__getitem__``) decides: JAX's, NumPy's and jaxpurity's own reads do
    not count.
    """
    frame: types.FrameType | None = sys._getframe(2)
    while frame is not None:
        module = frame.f_globals.get("__name__", "") or ""
        top = module.partition(".")[0]
        if module != __name__ and top not in sys.stdlib_module_names:
            return top not in {"jax", "jaxlib", "numpy", "jaxpurity"}
        frame = frame.f_back
    return False


_ENV_WHY = (
    "the environment at trace time is baked into the compiled program; setting the variable "
    "later changes nothing until the function is traced again."
)
_CLOCK_WHY = (
    "the time is read once, when JAX traces the function, and every call of the compiled "
    "program uses that one value (a seed from it repeats, a timestamp freezes)."
)
