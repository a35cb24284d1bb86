"""Hostile inputs for every public jaxpurity tool, as data; ``scorers/hostile.py`` runs them.

Each :class:`Hostile` names the tool, says in a few words what is hostile about the input,
and has a zero-argument ``build()`` that makes fresh state (user modules written to a
temporary folder, objects, files) and returns a :class:`Setup`:

* ``call()``: the one tool call to make;
* ``state()``: what the call must leave as it found it, by name: the arguments, the
  function's globals (:class:`GlobalNames`), its closure and defaults (through the
  function itself), the user module, and any module or object the input touches;
  ``state_if_raised()``, where given, what it must leave as it found it if it raises
  (``dataclass`` changes the class it decorates, but should not half-change it);
* ``reference()``, where jaxpurity wraps a library call: the same call through that library
  (``jax.lax`` for the drop-in control flow, ``jax.jit`` for ``find_leaks``,
  ``count_traces``, ``check_pure`` and ``Stateful``, ``dataclasses`` for ``dataclass``),
  so that an error the library raises on the same input is told apart from jaxpurity's own.

``wrong_message``, where given, is a regular expression that a clear error's message must
not match: the words of a message that names the wrong problem.

The user's code raises :class:`Boom` on purpose; a hostile dunder method raises
:class:`DunderBoom`, so that the runner can tell a dunder that jaxpurity called from an
error of the user's own function. User modules live in folders whose names start with
:data:`USER_DIR_PREFIX`, so that the runner knows their frames for the user's.

Importing this module has no side effects: files, modules, threads and global changes are
all made inside ``build()``, in the subprocess that runs the input.
"""

from __future__ import annotations

import builtins
import dataclasses
import enum
import functools
import importlib
import importlib.util
import itertools
import os
import sys
import tempfile
import textwrap
import types
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jaxpurity._trees import JAX_DEPTH

#: The prefix of every folder that holds a user module or file made by ``build()``.
USER_DIR_PREFIX = "jaxpurity-hostile-"
#: How deep the deeply nested containers go: past what JAX flattens on this Python.
DEEP = 2 * JAX_DEPTH
#: What a clear error about a deep (acyclic) input must not say.
_DEEP_CYCLE = "reference cycle"

_MODULE_NUMBERS = itertools.count()


class Boom(Exception):
    """Raised on purpose by the user's own code: a branch, a loop body, the checked function."""


class DunderBoom(Exception):
    """Raised by a hostile dunder method, which a tool should not need to call."""


@dataclasses.dataclass(frozen=True)
class Setup:
    """One built input: the call to make, and what it must leave unchanged."""

    call: Callable[[], Any]
    state: Callable[[], dict[str, Any]]
    reference: Callable[[], Any] | None = None
    #: More that must be left unchanged when the call raises (a decorator's class).
    state_if_raised: Callable[[], dict[str, Any]] | None = None


@dataclasses.dataclass(frozen=True)
class Hostile:
    """One hostile input to one public tool."""

    id: str
    tool: str
    hostile: str
    build: Callable[[], Setup]
    wrong_message: str | None = None


INPUTS: list[Hostile] = []


def _add(
    tool: str, name: str, hostile: str, build: Callable[[], Setup], wrong: str | None = None
) -> None:
    INPUTS.append(Hostile(f"{tool}/{name}", tool, hostile, build, wrong))


def by_id(input_id: str) -> Hostile:
    """The input with this exact id."""
    for hostile in INPUTS:
        if hostile.id == input_id:
            return hostile
    raise KeyError(f"no hostile input {input_id!r}")


def _jp() -> Any:
    """jaxpurity, imported when an input is built (the runner chooses which copy)."""
    return importlib.import_module("jaxpurity")


def user_dir() -> str:
    """A fresh folder for the user's files, under ``$TMPDIR`` (the runner removes it)."""
    return tempfile.mkdtemp(prefix=USER_DIR_PREFIX)


def user_module(source: str) -> types.ModuleType:
    """Write ``source`` to a fresh file and import it as a user module of its own."""
    name = f"hostile_user_{next(_MODULE_NUMBERS)}"
    path = os.path.join(user_dir(), name + ".py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def nested_list(depth: int, leaf: Any = None) -> list[Any]:
    """``[[[...[leaf]...]]]``, ``depth`` lists deep, built without recursion."""
    root: list[Any] = []
    current = root
    for _ in range(depth - 1):
        inner: list[Any] = []
        current.append(inner)
        current = inner
    if leaf is not None:
        current.append(leaf)
    return root


def nested_dict(depth: int, leaf: Any = None) -> dict[str, Any]:
    """``{"a": {"a": ... {"a": leaf}}}``, ``depth`` dicts deep."""
    root: dict[str, Any] = {}
    current = root
    for _ in range(depth - 1):
        inner: dict[str, Any] = {}
        current["a"] = inner
        current = inner
    current["a"] = leaf
    return root


def bottom(tree: list[Any]) -> list[Any]:
    """The innermost list of :func:`nested_list`."""
    while tree and isinstance(tree[0], list):
        tree = tree[0]
    return tree


def cyclic_list(*items: Any) -> list[Any]:
    """A list of ``items`` that also contains itself."""
    out = list(items)
    out.append(out)
    return out


# -- Hostile objects ------------------------------------------------------------------------


def _boom(name: str) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise DunderBoom(f"{type(self).__name__}.{name} raised on purpose")

    method.__name__ = name
    return method


class RaisingGetattribute:
    """Every attribute read raises."""

    __getattribute__ = _boom("__getattribute__")


class RaisingGetattr:
    """Reading a missing attribute raises something other than AttributeError."""

    __getattr__ = _boom("__getattr__")


class RaisingDictProperty:
    """``obj.__dict__`` raises."""

    @property
    def __dict__(self) -> Any:  # type: ignore[override]
        raise DunderBoom("RaisingDictProperty.__dict__ raised on purpose")


class RaisingRepr:
    """``repr`` and ``str`` raise."""

    __repr__ = _boom("__repr__")
    __str__ = _boom("__str__")


class RaisingEq:
    """``==`` raises (it stays hashable)."""

    __eq__ = _boom("__eq__")
    __hash__ = object.__hash__


class RaisingHash:
    """``hash`` raises."""

    __hash__ = _boom("__hash__")  # type: ignore[assignment]


class RaisingLen:
    """``len`` raises."""

    __len__ = _boom("__len__")


class RaisingIter:
    """``iter`` raises."""

    __iter__ = _boom("__iter__")


class RaisingBool:
    """``bool`` raises."""

    __bool__ = _boom("__bool__")


#: Each hostile class by the dunder that raises.
HOSTILE_CLASSES: dict[str, type] = {
    "getattribute": RaisingGetattribute,
    "getattr": RaisingGetattr,
    "dict_property": RaisingDictProperty,
    "repr": RaisingRepr,
    "eq": RaisingEq,
    "hash": RaisingHash,
    "len": RaisingLen,
    "iter": RaisingIter,
    "bool": RaisingBool,
}


class HostileCallable(RaisingGetattr):
    """A callable object whose missing attributes (``__name__``, ``__wrapped__``) raise."""

    def __call__(self, x: Any) -> Any:
        return x * 2


class RaisingStr(str):
    """A ``str`` whose methods raise: ``explain`` gets it as text."""

    splitlines = _boom("splitlines")
    split = _boom("split")
    strip = _boom("strip")
    replace = _boom("replace")
    __getitem__ = _boom("__getitem__")  # type: ignore[assignment]
    __iter__ = _boom("__iter__")  # type: ignore[assignment]


class BadStrError(Exception):
    """An exception whose ``str`` raises."""

    __str__ = _boom("__str__")


class BadReprError(Exception):
    """An exception whose ``repr`` and ``__getattribute__`` of odd names raise."""

    __repr__ = _boom("__repr__")

    def __getattr__(self, name: str) -> Any:
        raise DunderBoom(f"BadReprError.{name} raised on purpose")


class NonStrError(Exception):
    """An exception whose ``__str__`` returns no str."""

    def __str__(self) -> Any:
        return 42


# -- What a call must leave unchanged -------------------------------------------------------


class GlobalNames:
    """The globals that ``fn``'s code names (and the code nested in it), looked up afresh
    each time the runner takes a picture, so that a rebinding shows."""

    def __init__(self, fn: Any) -> None:
        fn = _innermost(fn)
        code = getattr(fn, "__code__", None) if isinstance(fn, types.FunctionType) else None
        self.globals: dict[str, Any] = fn.__globals__ if code is not None else {}
        self.names: list[str] = sorted(_code_names(code)) if code is not None else []


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _innermost(fn: Any) -> Any:
    """The Python function under partials, bound methods and ``__wrapped__`` (at most 20)."""
    for _ in range(20):
        kind = type(fn)
        if kind is functools.partial:
            fn = fn.func
        elif kind is types.MethodType:
            fn = fn.__func__
        elif kind is types.FunctionType:
            wrapped = fn.__dict__.get("__wrapped__")
            if wrapped is None or wrapped is fn:
                return fn
            fn = wrapped
        else:
            try:
                fn = object.__getattribute__(fn, "__wrapped__")
            except Exception:  # noqa: BLE001 - no wrapped function to look through
                return fn
    return fn


def watched(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any], **more: Any) -> Any:
    """``state()`` for a call of ``fn``: its arguments, the function (closure, defaults and
    attributes), the globals its code names, and ``more``."""
    return lambda: {
        "args": args,
        "kwargs": kwargs,
        "fn": fn,
        "globals": GlobalNames(fn),
        **more,
    }


# -- check_pure and find_leaks: functions in user modules ------------------------------------

_PRELUDE = """\
import collections
import dataclasses
import functools
import io
import os
import random
import sys
import threading
import types
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import jaxpurity
from hostile_inputs import Boom, DEEP, bottom, cyclic_list, nested_dict, nested_list
"""

#: name -> (what is hostile, module source defining ``f`` and ``ARGS`` (and maybe ``KWARGS``,
#: and ``WATCH``: more objects that must be left unchanged)). ``INNER`` in a source is the
#: name of the tool that runs it.
CHECKED: dict[str, tuple[str, str]] = {
    # Recursion and self-reference.
    "recursive_global": (
        "recursive function naming itself through its global name",
        """
        def f(x, n=3):
            return x if n == 0 else f(x * 2, n - 1)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "recursive_deep": (
        "recursion 150 calls deep",
        """
        def f(x, n=150):
            return x if n == 0 else f(x + 1, n - 1)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "closure_self_stax": (
        "stax-style apply_fun naming itself through a closure cell, keeping apply_fun.states",
        """
        def serial():
            def apply_fun(x):
                apply_fun.states.append(x)
                return x * 2
            apply_fun.states = []
            return apply_fun
        f = serial()
        ARGS = (jnp.ones(2),)
        """,
    ),
    "closure_self_shapes": (
        "function in its own closure cell, storing shapes (no tracer) in its attribute",
        """
        def serial():
            def apply_fun(x):
                apply_fun.states.append(x.shape)
                return x * 2
            apply_fun.states = []
            return apply_fun
        f = serial()
        ARGS = (jnp.ones(2),)
        """,
    ),
    "own_default": (
        "function that is its own default argument",
        """
        def f(x, me=None):
            return x * 2 if me is f else x
        f.__defaults__ = (f,)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "mutual_recursion": (
        "mutually recursive functions through globals",
        """
        def even(x, n=4):
            return x if n == 0 else odd(x + 1, n - 1)
        def odd(x, n):
            return even(x * 2, n - 1)
        f = even
        ARGS = (jnp.ones(2),)
        """,
    ),
    "own_attribute": (
        "function counting its calls in its own attribute, read through its global name",
        """
        def f(x):
            f.calls += 1
            return x * f.calls
        f.calls = 0
        ARGS = (jnp.ones(2),)
        """,
    ),
    "dict_lambda": (
        "lambda held in a dict that it names (and the dict holds itself)",
        """
        TABLE = {"scale": 2.0}
        TABLE["f"] = lambda x: x * TABLE["scale"] * len(TABLE)
        TABLE["self"] = TABLE
        f = TABLE["f"]
        ARGS = (jnp.ones(2),)
        """,
    ),
    "wrapped_self": (
        "function whose __wrapped__ is itself",
        """
        def f(x):
            return x * 2
        f.__wrapped__ = f
        ARGS = (jnp.ones(2),)
        """,
    ),
    "wrapped_pair": (
        "two functions whose __wrapped__ point at each other",
        """
        def f(x):
            return x * 2
        def g(x):
            return x * 3
        f.__wrapped__ = g
        g.__wrapped__ = f
        ARGS = (jnp.ones(2),)
        """,
    ),
    "partial_wrapped_loop": (
        "functools.partial whose __wrapped__ (set on it) is itself",
        """
        def g(a, x):
            return a * x
        f = functools.partial(g, 2.0)
        f.__wrapped__ = f
        ARGS = (jnp.ones(2),)
        """,
    ),
    # Cyclic and deep state.
    "global_list_self": (
        "global list that contains itself",
        """
        L = [1]
        L.append(L)
        def f(x):
            return x * len(L)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "global_dict_self": (
        "global dict that contains itself",
        """
        D = {"k": 2}
        D["self"] = D
        def f(x):
            return x * D["k"]
        ARGS = (jnp.ones(2),)
        """,
    ),
    "global_tuple_list_cycle": (
        "global tuple holding a list that holds the tuple",
        """
        L = [1]
        T = (L,)
        L.append(T)
        def f(x):
            return x * len(T)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "global_deep_list": (
        "global list nested 5,000 deep",
        """
        DEEPLIST = nested_list(DEEP, 1)
        def f(x):
            return x * len(DEEPLIST)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "global_deep_dict": (
        "global dict nested 5,000 deep",
        """
        DEEPDICT = nested_dict(DEEP, 1)
        def f(x):
            return x * len(DEEPDICT)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "closure_deep_list": (
        "closure variable holding a list nested 5,000 deep",
        """
        def make():
            tree = nested_list(DEEP, 1)
            def f(x):
                return x * len(tree)
            return f
        f = make()
        ARGS = (jnp.ones(2),)
        """,
    ),
    "default_deep_list": (
        "default argument nested 5,000 deep",
        """
        def f(x, tree=nested_list(DEEP, 1)):
            return x * len(tree)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "arg_deep_list": (
        "argument: a list nested 5,000 deep with an array at the bottom",
        """
        def f(x, tree):
            return x * 2
        ARGS = (jnp.ones(2), nested_list(DEEP, jnp.ones(2)))
        """,
    ),
    "arg_deep_dict": (
        "argument: a dict nested 5,000 deep with an array at the bottom",
        """
        def f(x, tree):
            return x * 2
        ARGS = (jnp.ones(2), nested_dict(DEEP, jnp.ones(2)))
        """,
    ),
    "kwarg_deep_list": (
        "keyword argument nested 5,000 deep",
        """
        def f(x, tree=None):
            return x * 2
        ARGS = (jnp.ones(2),)
        KWARGS = {"tree": nested_list(DEEP, 1.0)}
        """,
    ),
    "arg_cyclic_list": (
        "argument: a list that contains itself",
        """
        def f(x, tree):
            return x * 2
        ARGS = (jnp.ones(2), cyclic_list(jnp.ones(2)))
        """,
    ),
    "arg_cyclic_dict": (
        "argument: a dict that contains itself",
        """
        TREE = {"w": jnp.ones(2)}
        TREE["self"] = TREE
        def f(x, tree):
            return x * 2
        ARGS = (jnp.ones(2), TREE)
        """,
    ),
    "arg_self_object": (
        "argument: an object whose attribute points back to itself",
        """
        class Obj:
            pass
        O = Obj()
        O.me = O
        O.w = jnp.ones(2)
        def f(x, o):
            return x * o.w
        ARGS = (jnp.ones(2), O)
        """,
    ),
    "global_self_object": (
        "global object whose attribute points back to itself",
        """
        class Obj:
            pass
        O = Obj()
        O.me = O
        O.w = 2.0
        def f(x):
            return x * O.w
        ARGS = (jnp.ones(2),)
        """,
    ),
    "class_cyclic_dict": (
        "class with a cyclic __dict__ (K.me is K, K.table holds itself)",
        """
        class K:
            scale = 2.0
        K.me = K
        K.table = {}
        K.table["self"] = K.table
        def f(x):
            return x * K.scale
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_cyclic_list": (
        "stores the tracer in a global list that contains itself",
        """
        L = []
        L.append(L)
        def f(x):
            L.append(x)
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_deep_global": (
        "stores the tracer at the bottom of a global nested 5,000 deep",
        """
        DEEPLIST = nested_list(DEEP)
        BOTTOM = bottom(DEEPLIST)
        def f(x):
            BOTTOM.append(x)
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_deep_only_path": (
        "stores the tracer 5,000 lists deep, reached only through the global's nesting",
        """
        DEEPLIST = nested_list(DEEP)
        def f(x):
            tree = DEEPLIST
            while tree:
                tree = tree[0]
            tree.append(x)
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    # Leaks into modules, classes and odd holders.
    "leak_string_namespace": (
        "stores the tracer in a SimpleNamespace held by sys.modules['string']",
        """
        import string
        NS = types.SimpleNamespace()
        sys.modules["string"].ns = NS
        def f(x):
            sys.modules["string"].ns.t = x
            return x * 2
        ARGS = (jnp.ones(2),)
        WATCH = {"string": string}
        """,
    ),
    "leak_string_new_attr": (
        "sets a new attribute of the standard-library module string to the tracer",
        """
        import string
        def f(x):
            sys.modules["string"].leaked = x
            return x * 2
        ARGS = (jnp.ones(2),)
        WATCH = {"string": string}
        """,
    ),
    "leak_functools_attr": (
        "sets an attribute of functools to the tracer",
        """
        def f(x):
            functools.leaked = x
            return x * 2
        ARGS = (jnp.ones(2),)
        WATCH = {"functools": functools}
        """,
    ),
    "leak_numpy_new_attr": (
        "sets a new attribute of the third-party module numpy to the tracer",
        """
        def f(x):
            np.leaked = x
            return x * 2
        ARGS = (jnp.ones(2),)
        WATCH = {"numpy": np}
        """,
    ),
    "leak_numpy_pi": (
        "overwrites numpy.pi with the tracer",
        """
        def f(x):
            np.pi = x
            return x * 2
        ARGS = (jnp.ones(2),)
        WATCH = {"numpy": np}
        """,
    ),
    "leak_stdlib_class_attr": (
        "sets an attribute of string.Template (a standard-library class) to the tracer",
        """
        import string
        def f(x):
            string.Template.leaked = x
            return x * 2
        ARGS = (jnp.ones(2),)
        WATCH = {"Template": string.Template}
        """,
    ),
    "leak_class_attr": (
        "stores the tracer in a class attribute",
        """
        class Cache:
            value = None
        def f(x):
            Cache.value = x
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_builtins_module": (
        "sets builtins.leaked to the tracer",
        """
        import builtins
        def f(x):
            builtins.leaked = x
            return x * 2
        ARGS = (jnp.ones(2),)
        WATCH = {"builtins": builtins}
        """,
    ),
    "leak_builtins_dict": (
        "stores the tracer in the module's __builtins__ dict",
        """
        def f(x):
            __builtins__["leaked"] = x
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_sys_modules": (
        "stores the tracer in sys.modules",
        """
        def f(x):
            sys.modules["jaxpurity_hostile_leak"] = x
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_raising_repr_object": (
        "stores the tracer on an object whose repr raises",
        """
        from hostile_inputs import RaisingRepr
        OBJ = RaisingRepr()
        def f(x):
            OBJ.t = x
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_raising_getattr_object": (
        "stores the tracer on an object whose __getattr__ raises",
        """
        from hostile_inputs import RaisingGetattr
        OBJ = RaisingGetattr()
        def f(x):
            OBJ.t = x
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_raising_dict_object": (
        "stores the tracer on an object whose __dict__ property raises",
        """
        from hostile_inputs import RaisingDictProperty
        OBJ = RaisingDictProperty()
        def f(x):
            OBJ.t = x
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_raising_eq_key": (
        "stores the tracer in a dict under a key whose == raises",
        """
        from hostile_inputs import RaisingEq
        KEY = RaisingEq()
        D = {}
        def f(x):
            D[KEY] = x
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_slots_object": (
        "stores the tracer in a __slots__ attribute",
        """
        class S:
            __slots__ = ("t",)
        OBJ = S()
        def f(x):
            OBJ.t = x
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_frozen_dataclass": (
        "stores the tracer in a frozen dataclass through object.__setattr__",
        """
        @dataclasses.dataclass(frozen=True)
        class Frozen:
            a: int = 0
        FROZEN = Frozen()
        def f(x):
            object.__setattr__(FROZEN, "a", x)
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_mutable_default": (
        "appends the tracer to a mutable default argument",
        """
        def f(x, cache=[]):
            cache.append(x)
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_function_attr": (
        "stores the tracer in its own function attribute",
        """
        def f(x):
            f.last = x
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_nonlocal": (
        "rebinds a closure variable to the tracer (nonlocal)",
        """
        def make():
            last = None
            def f(x):
                nonlocal last
                last = x
                return x * 2
            return f
        f = make()
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_deque": (
        "appends the tracer to a global collections.deque",
        """
        Q = collections.deque(maxlen=3)
        def f(x):
            Q.append(x)
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_object_array": (
        "stores the tracer in a NumPy object array",
        """
        ARR = np.empty(2, dtype=object)
        def f(x):
            ARR[0] = x
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "leak_in_exception": (
        "raises an exception holding the tracer",
        """
        def f(x):
            raise Boom(x)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "writes_environ": (
        "sets an environment variable",
        """
        def f(x):
            os.environ["JAXPURITY_HOSTILE"] = "set by f"
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "flips_jax_config": (
        "switches jax_enable_x64 on while it runs",
        """
        def f(x):
            jax.config.update("jax_enable_x64", True)
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "draws_numpy_random": (
        "draws from the global NumPy generator",
        """
        def f(x):
            return x * np.random.rand()
        ARGS = (jnp.ones(2),)
        """,
    ),
    "seeds_python_random": (
        "reseeds Python's global random generator",
        """
        def f(x):
            random.seed(1234)
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "consumes_iterator": (
        "takes the next item of a global iterator",
        """
        IT = iter([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
        def f(x):
            return x * next(IT)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "consumes_generator": (
        "takes the next item of a global generator",
        """
        GEN = (float(i) for i in range(100))
        def f(x):
            return x * next(GEN)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "reads_file": (
        "reads a line of a global open file (moves its position)",
        """
        PATH = os.path.join(os.environ.get("TMPDIR", "/tmp"), "hostile_lines.txt")
        with open(PATH, "w") as handle:
            handle.write("1\\n2\\n3\\n4\\n5\\n6\\n")
        FILE = open(PATH)
        def f(x):
            return x * float(FILE.readline() or 0)
        ARGS = (jnp.ones(2),)
        """,
    ),
    # Odd callables.
    "builtin_len": (
        "fn is the builtin len",
        """
        f = len
        ARGS = ([jnp.ones(2), jnp.ones(3)],)
        """,
    ),
    "builtin_print": (
        "fn is the builtin print",
        """
        f = print
        ARGS = (jnp.ones(2),)
        """,
    ),
    "builtin_float": (
        "fn is the builtin float (concretizes a tracer)",
        """
        f = float
        ARGS = (jnp.ones(()),)
        """,
    ),
    "partial_of_partials": (
        "functools.partial of a functools.partial",
        """
        def g(a, b, x):
            return a * b * x
        f = functools.partial(functools.partial(g, 2.0), 3.0)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "bound_jitted_method": (
        "bound method of a method jitted with static self",
        """
        class Model:
            def __init__(self):
                self.k = 2.0
            @functools.partial(jax.jit, static_argnums=0)
            def apply(self, x):
                return x * self.k
        f = Model().apply
        ARGS = (jnp.ones(2),)
        """,
    ),
    "bound_jitted_method_plain_self": (
        "bound method of @jax.jit on a method whose self is no pytree",
        """
        class Model:
            def __init__(self):
                self.k = 2.0
            @jax.jit
            def apply(self, x):
                return x * self.k
        f = Model().apply
        ARGS = (jnp.ones(2),)
        """,
    ),
    "jit_of_jit": (
        "jax.jit of jax.jit",
        """
        def g(x):
            return x * 2
        f = jax.jit(jax.jit(g))
        ARGS = (jnp.ones(2),)
        """,
    ),
    "jit_of_partial": (
        "jax.jit of a functools.partial",
        """
        def g(a, x):
            return a * x
        f = jax.jit(functools.partial(g, 3.0))
        ARGS = (jnp.ones(2),)
        """,
    ),
    "callable_object": (
        "a callable object",
        """
        class Scale:
            def __init__(self):
                self.k = 2.0
            def __call__(self, x):
                return x * self.k
        f = Scale()
        ARGS = (jnp.ones(2),)
        """,
    ),
    "callable_hostile_getattr": (
        "a callable object whose missing attributes (__name__, __wrapped__) raise",
        """
        from hostile_inputs import HostileCallable
        f = HostileCallable()
        ARGS = (jnp.ones(2),)
        """,
    ),
    "staticmethod_object": (
        "a bare staticmethod object",
        """
        def g(x):
            return x * 2
        f = staticmethod(g)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "classmethod_bound": (
        "a bound classmethod",
        """
        class C:
            k = 2.0
            @classmethod
            def apply(cls, x):
                return x * cls.k
        f = C.apply
        ARGS = (jnp.ones(2),)
        """,
    ),
    "coroutine_function": (
        "an async def function (returns a coroutine)",
        """
        async def f(x):
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "generator_function": (
        "a generator function",
        """
        def f(x):
            yield x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "namedtuple_class": (
        "a NamedTuple class as the function",
        """
        class Point(NamedTuple):
            x: Any
        f = Point
        ARGS = (jnp.ones(2),)
        """,
    ),
    # JAX-specific functions.
    "relu_custom_jvp": (
        "jax.nn.relu, a custom_jvp function",
        """
        f = jax.nn.relu
        ARGS = (jnp.ones(2),)
        """,
    ),
    "custom_vjp": (
        "a user custom_vjp function",
        """
        @jax.custom_vjp
        def f(x):
            return x * 2
        def f_fwd(x):
            return f(x), None
        def f_bwd(res, g):
            return (g * 2,)
        f.defvjp(f_fwd, f_bwd)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "checkpoint_norm": (
        "jnp.linalg.norm (custom_jvp inside) under jax.checkpoint",
        """
        f = jax.checkpoint(jnp.linalg.norm)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "grad_checkpoint_norm": (
        "grad of jnp.linalg.norm under jax.checkpoint",
        """
        f = jax.grad(jax.checkpoint(jnp.linalg.norm))
        ARGS = (jnp.ones(2),)
        """,
    ),
    "io_callback_checkpoint": (
        "io_callback under jax.checkpoint, appending to a global list",
        """
        from jax.experimental import io_callback
        SEEN = []
        def record(v):
            SEEN.append(float(v.sum()))
            return v
        def inner(x):
            return io_callback(record, jax.ShapeDtypeStruct(x.shape, x.dtype), x) * x
        f = jax.checkpoint(inner)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "io_callback_checkpoint_grad": (
        "grad of io_callback under jax.checkpoint",
        """
        from jax.experimental import io_callback
        SEEN = []
        def record(v):
            SEEN.append(float(v.sum()))
            return v
        def inner(x):
            return io_callback(record, jax.ShapeDtypeStruct(x.shape, x.dtype), x) * x
        def f(x):
            return jax.grad(lambda y: jax.checkpoint(inner)(y).sum())(x)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "np_save_tracer": (
        "np.save of its argument into a global buffer (TracerArrayConversionError under jit)",
        """
        BUF = io.BytesIO()
        def f(x):
            np.save(BUF, x)
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "donate_argnums": (
        "a jit wrapper that donates its argument",
        """
        f = jax.jit(lambda x: x * 2, donate_argnums=0)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "static_unhashable": (
        "static_argnums given an unhashable list",
        """
        f = jax.jit(lambda x, n: x * len(n), static_argnums=1)
        ARGS = (jnp.ones(2), [1, 2])
        """,
    ),
    "static_raising_hash": (
        "static_argnums given an object whose hash raises",
        """
        from hostile_inputs import RaisingHash
        f = jax.jit(lambda x, n: x * 2, static_argnums=1)
        ARGS = (jnp.ones(2), RaisingHash())
        """,
    ),
    "static_raising_eq": (
        "static_argnums given an object whose == raises",
        """
        from hostile_inputs import RaisingEq
        f = jax.jit(lambda x, n: x * 2, static_argnums=1)
        ARGS = (jnp.ones(2), RaisingEq())
        """,
    ),
    "returns_set": (
        "returns a set holding the tracer",
        """
        def f(x):
            return {x}
        ARGS = (jnp.ones(2),)
        """,
    ),
    "returns_deque": (
        "returns a collections.deque (no pytree) of the tracer",
        """
        def f(x):
            return collections.deque([x * 2])
        ARGS = (jnp.ones(2),)
        """,
    ),
    "returns_generator": (
        "returns a generator that yields the tracer",
        """
        def f(x):
            return (x * i for i in range(2))
        ARGS = (jnp.ones(2),)
        """,
    ),
    "returns_closure": (
        "returns a lambda closing over the tracer",
        """
        def f(x):
            return lambda: x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "returns_mixed_keys": (
        "returns a dict with int and str keys (unsortable pytree keys)",
        """
        def f(x):
            return {1: x, "a": x * 2}
        ARGS = (jnp.ones(2),)
        """,
    ),
    "returns_object": (
        "returns a SimpleNamespace holding the tracer",
        """
        def f(x):
            return types.SimpleNamespace(v=x * 2)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "returns_deep": (
        "returns the tracer 5,000 lists deep",
        """
        def f(x):
            return nested_list(DEEP, x * 2)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "returns_cyclic": (
        "returns a list holding the tracer and itself",
        """
        def f(x):
            return cyclic_list(x * 2)
        ARGS = (jnp.ones(2),)
        """,
    ),
    "returns_string": (
        "returns a str",
        """
        def f(x):
            return "done"
        ARGS = (jnp.ones(2),)
        """,
    ),
    "new_ref_closure": (
        "adds into a jax.new_ref it closes over",
        """
        R = jax.new_ref(jnp.zeros(2))
        def f(x):
            R[...] += x
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "new_ref_argument": (
        "writes into a jax.new_ref passed as an argument",
        """
        def f(x, r):
            r[...] = x
            return x * 2
        ARGS = (jnp.ones(2), jax.new_ref(jnp.zeros(2)))
        """,
    ),
    "key_new_style": (
        "a new-style PRNG key argument",
        """
        def f(k):
            return jax.random.normal(k, (2,))
        ARGS = (jax.random.key(0),)
        """,
    ),
    "key_raw_uint32": (
        "a raw uint32 PRNG key argument",
        """
        def f(k):
            return jax.random.normal(k, (2,))
        ARGS = (jax.random.PRNGKey(0),)
        """,
    ),
    "sharded_array": (
        "an argument sharded with NamedSharding",
        """
        from jax.sharding import NamedSharding, PartitionSpec
        MESH = jax.make_mesh((1,), ("x",))
        def f(x):
            return x * 2
        ARGS = (jax.device_put(jnp.ones(4), NamedSharding(MESH, PartitionSpec("x"))),)
        """,
    ),
    "wrong_arity": (
        "more positional arguments than fn takes",
        """
        def f(x):
            return x * 2
        ARGS = (jnp.ones(2), 2.0, 3.0)
        """,
    ),
    "unknown_kwarg": (
        "a keyword argument fn does not take",
        """
        def f(x):
            return x * 2
        ARGS = (jnp.ones(2),)
        KWARGS = {"bogus": 1.0}
        """,
    ),
    "kwarg_named_fn": (
        "fn takes a keyword argument named fn (the tool's own parameter name)",
        """
        def f(x, fn=0.0):
            return x * fn
        ARGS = (jnp.ones(2),)
        KWARGS = {"fn": 2.0}
        """,
    ),
    "not_callable": (
        "fn is an int",
        """
        f = 3
        ARGS = (jnp.ones(2),)
        """,
    ),
    "fn_none": (
        "fn is None",
        """
        f = None
        ARGS = (jnp.ones(2),)
        """,
    ),
    # The tool inside the checked function.
    "same_tool_in_thread": (
        "the checked function runs the same tool in a thread and joins it",
        """
        def g(x):
            return x + 1
        def f(x):
            out = []
            tool = getattr(jaxpurity, INNER)
            worker = threading.Thread(target=lambda: out.append(tool(g, jnp.ones(2))))
            worker.start()
            worker.join()
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "same_tool_inside": (
        "the checked function calls the same tool",
        """
        def g(x):
            return x + 1
        def f(x):
            getattr(jaxpurity, INNER)(g, jnp.ones(2))
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
    "same_tool_inside_eager": (
        "the checked function calls the same tool on its argument when not traced",
        """
        def g(x):
            return x + 1
        def f(x):
            if not isinstance(x, jax.core.Tracer):
                getattr(jaxpurity, INNER)(g, x)
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    ),
}

#: Odd argument values, passed to ``f(x, y)`` which does not use ``y`` (name -> expression).
UNUSED_VALUES: dict[str, str] = {
    "object_array": "np.array([1, 'a', None], dtype=object)",
    "structured_array": "np.zeros(3, dtype=[('a', 'f4'), ('b', 'i4')])",
    "str": "'abc'",
    "bytes": "b'abc'",
    "none": "None",
    "ellipsis": "...",
    "generator": "(i for i in range(3))",
    "iterator": "iter([1, 2, 3])",
    "file": "open(os.devnull)",
    "lock": "threading.Lock()",
    "module": "np",
    "class": "collections.OrderedDict",
    "builtin": "len",
    "int_beyond_int64": "2 ** 70",
}

#: Odd argument values that ``f`` uses: name -> (expression, body of ``f(x, y)``).
USED_VALUES: dict[str, tuple[str, str]] = {
    "zero_d_array": ("np.array(3.0)", "return x * y"),
    "nan_array": ("np.array([np.nan, 1.0])", "return x * y"),
    "int_beyond_int64": ("2 ** 70", "return x * y"),
    "complex": ("1 + 2j", "return x * y"),
    "bfloat16": ("jnp.ones(2, dtype=jnp.bfloat16)", "return x * y"),
    "object_array": ("np.array([1.0, 2.0], dtype=object)", "return x * y"),
    "structured_array": ("np.zeros(2, dtype=[('a', 'f4'), ('b', 'i4')])", "return x * y['a']"),
    "int64_min": ("np.int64(-(2 ** 63))", "return x * y"),
    "uint64_max": ("np.uint64(2 ** 64 - 1)", "return x * y"),
    "large_array": ("np.ones(1_000_000, np.float32)", "return x * y.sum()"),
}

_PLACEMENTS: dict[str, str] = {
    "arg": """
        OBJ = {cls}()
        def f(x, obj):
            return x * 2
        ARGS = (jnp.ones(2), OBJ)
        """,
    "global": """
        OBJ = {cls}()
        def f(x):
            OBJ
            return x * 2
        ARGS = (jnp.ones(2),)
        """,
    "closure": """
        def make(obj):
            def f(x):
                obj
                return x * 2
            return f
        OBJ = {cls}()
        f = make(OBJ)
        ARGS = (jnp.ones(2),)
        """,
}


def _checked_build(tool: str, body: str) -> Callable[[], Setup]:
    source = _PRELUDE + f"INNER = {tool!r}\n" + textwrap.dedent(body)

    def build() -> Setup:
        module = user_module(source)
        fn, args = module.f, module.ARGS
        kwargs = getattr(module, "KWARGS", {})
        more = dict(getattr(module, "WATCH", {}))
        api = getattr(_jp(), tool)
        return Setup(
            call=lambda: api(fn, *args, **kwargs),
            state=watched(fn, args, kwargs, module=module, **more),
            reference=lambda: jax.jit(fn)(*args, **kwargs),
        )

    return build


def _add_checked() -> None:
    for tool in ("check_pure", "find_leaks"):
        for name, (hostile, body) in CHECKED.items():
            wrong = _DEEP_CYCLE if "deep" in name and "leak" not in name else None
            _add(tool, name, hostile, _checked_build(tool, body), wrong)
        for name, expression in UNUSED_VALUES.items():
            body = f"def f(x, y):\n    return x * 2\nARGS = (jnp.ones(2), {expression})\n"
            _add(
                tool,
                f"unused_{name}",
                f"argument: {name} ({expression})",
                _checked_build(tool, body),
            )
        for name, (expression, line) in USED_VALUES.items():
            body = f"def f(x, y):\n    {line}\nARGS = (jnp.ones(2), {expression})\n"
            _add(tool, f"used_{name}", f"argument used: {expression}", _checked_build(tool, body))
        for dunder, cls in HOSTILE_CLASSES.items():
            for place, body in _PLACEMENTS.items():
                source = f"from hostile_inputs import {cls.__name__}\n" + textwrap.dedent(
                    body
                ).format(cls=cls.__name__)
                _add(
                    tool,
                    f"dunder_{dunder}_{place}",
                    f"{place}: an object whose {dunder} raises, which f does not use",
                    _checked_build(tool, source),
                )


_add_checked()


def _call_inside(tool: str, transform: str) -> Callable[[], Setup]:
    def build() -> Setup:
        api = getattr(_jp(), tool)
        x = jnp.ones(2)

        def g(y: Any) -> Any:
            return y * 2

        wrap = {"jit": jax.jit, "vmap": jax.vmap, "grad": jax.grad}[transform]
        inner = wrap(lambda y: api(g, y) and y.sum())
        return Setup(call=lambda: inner(x), state=lambda: {"args": (x,)})

    return build


for _tool in ("check_pure", "find_leaks"):
    for _transform in ("jit", "vmap", "grad"):
        _add(
            _tool,
            f"inside_{_transform}",
            f"{_tool} called inside jax.{_transform}",
            _call_inside(_tool, _transform),
        )


# -- count_traces -------------------------------------------------------------------------------


def _counted(
    make: Callable[[], tuple[Any, Callable[[Any], Any], list[tuple[Any, ...]]]],
    max_traces: Any = None,
) -> Callable[[], Setup]:
    """A counter of ``fn`` (as ``wrap(count_traces(fn))``) called with each argument tuple."""

    def build() -> Setup:
        fn, wrap, calls = make()

        def call() -> Any:
            counter = wrap(_jp().count_traces(fn, max_traces=max_traces))
            return [counter(*args) for args in calls]

        def reference() -> Any:
            jitted = wrap(fn)
            return [jitted(*args) for args in calls]

        return Setup(call=call, state=watched(fn, tuple(calls), {}), reference=reference)

    return build


def _module_fn(body: str) -> Callable[[], Any]:
    def make() -> Any:
        return user_module(_PRELUDE + textwrap.dedent(body)).f

    return make


_RECURSIVE = _module_fn(
    """
    def f(x, n=3):
        return x if n == 0 else f(x * 2, n - 1)
    """
)
_DOUBLE = _module_fn(
    """
    def f(x, *rest):
        return x * 2
    """
)
_JIT_DOUBLE = _module_fn(
    """
    def _g(x, *rest):
        return x * 2
    f = jax.jit(_g)
    """
)
_STATIC_SECOND = _module_fn(
    """
    def _g(x, s):
        return x * 2
    f = jax.jit(_g, static_argnums=1)
    """
)


def _ones(*shapes: int) -> list[tuple[Any, ...]]:
    return [(jnp.ones(n),) for n in shapes]


_COUNT_CASES: list[tuple[str, str, Callable[[], Any], Any]] = [
    ("not_callable", "fn is an int", lambda: (3, jax.jit, _ones(2)), None),
    ("fn_none_decorator", "fn is None (the decorator form), then called", None, None),
    ("max_traces_bool", "max_traces=True", lambda: (_DOUBLE(), jax.jit, _ones(2)), True),
    ("max_traces_zero", "max_traces=0", lambda: (_DOUBLE(), jax.jit, _ones(2)), 0),
    ("max_traces_negative", "max_traces=-1", lambda: (_DOUBLE(), jax.jit, _ones(2)), -1),
    ("max_traces_float", "max_traces=1.5", lambda: (_DOUBLE(), jax.jit, _ones(2)), 1.5),
    ("max_traces_str", "max_traces='2'", lambda: (_DOUBLE(), jax.jit, _ones(2)), "2"),
    ("max_traces_huge", "max_traces=10**100", lambda: (_DOUBLE(), jax.jit, _ones(2)), 10**100),
    (
        "max_traces_numpy",
        "max_traces=np.int64(1) exceeded",
        lambda: (_DOUBLE(), jax.jit, _ones(2, 3)),
        np.int64(1),
    ),
    (
        "recursive",
        "recursive function via its global name",
        lambda: (_RECURSIVE(), jax.jit, _ones(2, 3)),
        1,
    ),
    (
        "deep_argument",
        "count_traces(jax.jit) given an argument nested 5,000 deep, past max_traces",
        lambda: (
            _JIT_DOUBLE(),
            lambda c: c,
            [
                (jnp.ones(2), nested_list(DEEP, jnp.ones(2))),
                (jnp.ones(3), nested_list(DEEP, jnp.ones(2))),
            ],
        ),
        1,
    ),
    (
        "deep_dict_argument",
        "count_traces(jax.jit) given a dict nested 5,000 deep",
        lambda: (_JIT_DOUBLE(), lambda c: c, [(jnp.ones(2), nested_dict(DEEP, jnp.ones(2)))]),
        None,
    ),
    (
        "cyclic_argument",
        "count_traces(jax.jit) given a list that contains itself",
        lambda: (_JIT_DOUBLE(), lambda c: c, [(jnp.ones(2), cyclic_list(jnp.ones(2)))]),
        None,
    ),
    (
        "eager_deep_argument",
        "an eager call of the counter with an argument nested 5,000 deep",
        lambda: (_DOUBLE(), lambda c: c, [(jnp.ones(2), nested_list(DEEP, jnp.ones(2)))]),
        None,
    ),
    (
        "eager_cyclic_argument",
        "an eager call of the counter with a list that contains itself",
        lambda: (_DOUBLE(), lambda c: c, [(jnp.ones(2), cyclic_list(jnp.ones(2)))]),
        None,
    ),
    (
        "jitted_deep_static",
        "count_traces(jax.jit) with a 5,000-deep tuple as a static argument, past max_traces",
        lambda: (
            _STATIC_SECOND(),
            lambda c: c,
            [
                (jnp.ones(2), tuple(nested_list(DEEP, 1))),
                (jnp.ones(2), tuple(nested_list(DEEP, 2))),
            ],
        ),
        1,
    ),
    (
        "jitted_static_raising_repr",
        "count_traces(jax.jit) with static arguments whose repr raises, past max_traces",
        lambda: (
            _STATIC_SECOND(),
            lambda c: c,
            [(jnp.ones(2), RaisingRepr()), (jnp.ones(2), RaisingRepr())],
        ),
        1,
    ),
    (
        "jitted_static_raising_eq",
        "count_traces(jax.jit) with a static argument whose == raises, called twice",
        lambda: (_STATIC_SECOND(), lambda c: c, [(jnp.ones(2), RaisingEq())] * 2),
        None,
    ),
    (
        "jitted_static_unhashable",
        "count_traces(jax.jit) with an unhashable static argument",
        lambda: (_STATIC_SECOND(), lambda c: c, [(jnp.ones(2), [1, 2])]),
        None,
    ),
    (
        "jitted_static_nan",
        "count_traces(jax.jit) with static nan (never equal to itself), past max_traces",
        lambda: (_STATIC_SECOND(), lambda c: c, [(jnp.ones(2), float("nan"))] * 2),
        1,
    ),
    (
        "jitted_static_cyclic",
        "count_traces(jax.jit) with static self-referencing objects, past max_traces",
        lambda: (
            _STATIC_SECOND(),
            lambda c: c,
            [(jnp.ones(2), _self_object()), (jnp.ones(2), _self_object())],
        ),
        1,
    ),
    ("builtin_len", "fn is the builtin len", lambda: (len, jax.jit, [([jnp.ones(2)],)]), None),
    (
        "partial_of_partials",
        "functools.partial of a partial",
        lambda: (
            functools.partial(functools.partial(lambda a, b, x: a * b * x, 2.0), 3.0),
            jax.jit,
            _ones(2),
        ),
        None,
    ),
    (
        "staticmethod",
        "a bare staticmethod object",
        lambda: (staticmethod(_DOUBLE()), jax.jit, _ones(2)),
        None,
    ),
    (
        "hostile_callable",
        "a callable object whose missing attributes raise",
        lambda: (HostileCallable(), jax.jit, _ones(2)),
        None,
    ),
    (
        "generator_function",
        "a generator function",
        lambda: (_module_fn("def f(x):\n    yield x\n")(), jax.jit, _ones(2)),
        None,
    ),
    (
        "twice",
        "count_traces applied to a count_traces, past max_traces",
        lambda: (_jp().count_traces(_DOUBLE(), max_traces=1), jax.jit, _ones(2, 3)),
        1,
    ),
    (
        "under_vmap",
        "the counter under jax.vmap, past max_traces",
        lambda: (_DOUBLE(), jax.vmap, _ones(2, 3)),
        1,
    ),
    (
        "under_grad",
        "the counter under jax.grad of a sum",
        lambda: (
            _module_fn("def f(x):\n    return (x * 2).sum()\n")(),
            jax.grad,
            _ones(2, 3),
        ),
        1,
    ),
    (
        "retrace_many_leaves",
        "past max_traces with 2,000 argument leaves that all change",
        lambda: (
            _DOUBLE(),
            jax.jit,
            [
                ({str(i): jnp.ones(1) for i in range(2000)},),
                ({str(i): jnp.ones(2) for i in range(2000)},),
            ],
        ),
        1,
    ),
]


def _self_object() -> Any:
    obj = types.SimpleNamespace()
    obj.me = obj
    return obj


def _decorator_form() -> Setup:
    x = jnp.ones(2)
    return Setup(call=lambda: _jp().count_traces(None)(x), state=lambda: {"args": (x,)})


for _name, _hostile, _make, _max in _COUNT_CASES:
    if _make is None:
        _add("count_traces", _name, _hostile, _decorator_form)
    else:
        _add("count_traces", _name, _hostile, _counted(_make, _max))


def _count_in_threads() -> Setup:
    fn = _DOUBLE()
    x = jnp.ones(2)

    def call() -> Any:
        import threading

        counter = jax.jit(_jp().count_traces(fn, max_traces=1))
        errors: list[BaseException] = []

        def work() -> None:
            try:
                counter(x)
            except BaseException as error:  # noqa: BLE001 - re-raised below
                errors.append(error)

        workers = [threading.Thread(target=work) for _ in range(8)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        if errors:
            raise errors[0]
        return counter

    return Setup(call=call, state=watched(fn, (x,), {}))


_add("count_traces", "threads", "eight threads call one counted jit at once", _count_in_threads)


# -- The drop-in control flow ----------------------------------------------------------------

_LAX: dict[str, Callable[..., Any]] = {
    "cond": lax.cond,
    "switch": lax.switch,
    "fori_loop": lax.fori_loop,
    "while_loop": lax.while_loop,
    "scan": lax.scan,
}


def _ident(*x: Any) -> Any:
    return x[0] if len(x) == 1 else x


def _raise(*_: Any) -> Any:
    raise Boom("the user's branch raised on purpose")


def _drop_in(
    tool: str, make: Callable[[], tuple[tuple[Any, ...], dict[str, Any]]]
) -> Callable[[], Setup]:
    def build() -> Setup:
        args, kwargs = make()

        def reference() -> Any:
            if tool == "collect":
                fn, n = args
                return lax.scan(lambda i, _: (i + 1, fn(i)), jnp.int32(0), None, length=n)[1]
            plain = {k: v for k, v in kwargs.items() if k != "like"}
            return _LAX[tool](*args, **plain)

        return Setup(
            call=lambda: getattr(_jp(), tool)(*args, **kwargs),
            state=lambda: {"args": args, "kwargs": kwargs},
            reference=reference,
        )

    return build


def _deep_out(depth: int, leaf: Any) -> Callable[..., Any]:
    return lambda *_: nested_list(depth, leaf)


def _cases(tool: str, cases: list[tuple[str, str, Callable[[], Any]]]) -> None:
    for name, hostile, make in cases:
        _add(tool, name, hostile, _drop_in(tool, make), _DEEP_CYCLE if "deep" in name else None)


def one() -> Any:
    """``jnp.float32(1)``, made when an input is built (no JAX array exists at import)."""
    return jnp.float32(1)


_cases(
    "cond",
    [
        (
            "cyclic_operand",
            "operand: a list that contains itself",
            lambda: ((True, _ident, _ident, cyclic_list(one())), {}),
        ),
        (
            "deep_operand",
            "operand nested 5,000 deep",
            lambda: ((True, _ident, _ident, nested_list(DEEP, one())), {}),
        ),
        (
            "deep_operand_keyword",
            "operand= nested 5,000 deep",
            lambda: ((True, _ident, _ident), {"operand": nested_list(DEEP, one())}),
        ),
        (
            "like_deep",
            "like= nested 5,000 deep, branches returning the same",
            lambda: (
                (True, _deep_out(DEEP, one()), _deep_out(DEEP, one())),
                {"like": nested_list(DEEP, jax.ShapeDtypeStruct((), jnp.float32))},
            ),
        ),
        (
            "like_cyclic",
            "like= a list that contains itself",
            lambda: ((True, lambda: [one()], lambda: [one()]), {"like": cyclic_list(one())}),
        ),
        (
            "deep_mismatch",
            "branches return 5,000-deep structures whose leaf dtypes differ",
            lambda: ((True, _deep_out(DEEP, one()), _deep_out(DEEP, jnp.int32(1))), {}),
        ),
        (
            "deep_structure_mismatch",
            "branches return 5,000-deep and 4,999-deep structures",
            lambda: ((True, _deep_out(DEEP, one()), _deep_out(DEEP - 1, one())), {}),
        ),
        ("branch_raises", "true_fun raises", lambda: ((True, _raise, _ident, one()), {})),
        ("branch_not_callable", "true_fun is an int", lambda: ((True, 3, _ident, one()), {})),
        ("pred_none", "pred is None", lambda: ((None, _ident, _ident, one()), {})),
        ("pred_huge_int", "pred is 2**70", lambda: ((2**70, _ident, _ident, one()), {})),
        ("pred_nan", "pred is float nan", lambda: ((float("nan"), _ident, _ident, one()), {})),
        (
            "pred_raising_bool",
            "pred is an object whose bool raises",
            lambda: ((RaisingBool(), _ident, _ident, one()), {}),
        ),
        (
            "pred_raising_getattribute",
            "pred is an object whose every attribute read raises",
            lambda: ((RaisingGetattribute(), _ident, _ident, one()), {}),
        ),
        (
            "mismatch_raising_repr",
            "branches return a hostile-repr object and a number",
            lambda: ((True, lambda: RaisingRepr(), lambda: one()), {}),
        ),
        (
            "operand_raising_repr",
            "operand: an object whose repr raises (not a JAX type)",
            lambda: ((True, _ident, _ident, RaisingRepr()), {}),
        ),
        (
            "returns_string",
            "both branches return a str",
            lambda: ((True, lambda: "a", lambda: "b"), {}),
        ),
        (
            "like_string",
            "like= a str",
            lambda: ((True, lambda: one(), lambda: one()), {"like": "float32"}),
        ),
        (
            "operand_and_operands",
            "both *operands and operand= given",
            lambda: ((True, _ident, _ident, one()), {"operand": one()}),
        ),
        (
            "mismatch_many_leaves",
            "branches return dicts of 5,000 leaves that all differ in dtype",
            lambda: (
                (
                    True,
                    lambda: {str(i): jnp.float32(i) for i in range(5000)},
                    lambda: {str(i): jnp.int32(i) for i in range(5000)},
                ),
                {},
            ),
        ),
    ],
)

_cases(
    "switch",
    [
        (
            "index_out_of_range",
            "index 5 with two branches",
            lambda: ((5, [_ident, _ident], one()), {}),
        ),
        ("index_negative", "index -1", lambda: ((-1, [_ident, _ident], one()), {})),
        ("index_huge", "index 2**70", lambda: ((2**70, [_ident, _ident], one()), {})),
        ("index_nan", "index float nan", lambda: ((float("nan"), [_ident, _ident], one()), {})),
        ("index_none", "index None", lambda: ((None, [_ident, _ident], one()), {})),
        ("index_str", "index '0'", lambda: (("0", [_ident, _ident], one()), {})),
        (
            "index_vector",
            "index a vector",
            lambda: ((jnp.array([0, 1]), [_ident, _ident], one()), {}),
        ),
        ("branches_empty", "no branches", lambda: ((0, [], one()), {})),
        (
            "branches_generator",
            "branches a generator",
            lambda: ((0, (b for b in [_ident, _ident]), one()), {}),
        ),
        ("branches_dict", "branches a dict", lambda: ((0, {0: _ident, 1: _ident}, one()), {})),
        ("branches_string", "branches a str", lambda: ((0, "ab", one()), {})),
        (
            "branches_cyclic",
            "branches a list that contains itself",
            lambda: ((0, cyclic_list(_ident), one()), {}),
        ),
        ("branch_not_callable", "second branch an int", lambda: ((0, [_ident, 3], one()), {})),
        ("branch_raises", "the chosen branch raises", lambda: ((0, [_raise, _ident], one()), {})),
        (
            "cyclic_operand",
            "operand: a list that contains itself",
            lambda: ((0, [_ident, _ident], cyclic_list(one())), {}),
        ),
        (
            "deep_operand",
            "operand nested 5,000 deep",
            lambda: ((0, [_ident, _ident], nested_list(DEEP, one())), {}),
        ),
        (
            "deep_mismatch",
            "branches return 5,000-deep structures whose leaves differ",
            lambda: ((0, [_deep_out(DEEP, one()), _deep_out(DEEP, jnp.int32(1))]), {}),
        ),
        (
            "index_raising_getattribute",
            "index an object whose every attribute read raises",
            lambda: ((RaisingGetattribute(), [_ident, _ident], one()), {}),
        ),
    ],
)


def _body(i: Any, c: Any) -> Any:
    return c


_cases(
    "fori_loop",
    [
        ("bounds_str", "lower and upper as str", lambda: (("0", "3", _body, one()), {})),
        ("upper_huge", "upper 2**70", lambda: ((0, 2**70, _body, one()), {})),
        ("upper_nan", "upper float nan", lambda: ((0, float("nan"), _body, one()), {})),
        ("upper_none", "upper None", lambda: ((0, None, _body, one()), {})),
        ("body_not_callable", "body_fun an int", lambda: ((0, 3, 3, one()), {})),
        ("body_raises", "body_fun raises", lambda: ((0, 3, _raise, one()), {})),
        (
            "cyclic_init",
            "init_val: a list that contains itself",
            lambda: ((0, 3, _body, cyclic_list(one())), {}),
        ),
        (
            "deep_init",
            "init_val nested 5,000 deep",
            lambda: ((0, 3, _body, nested_list(DEEP, one())), {}),
        ),
        (
            "deep_carry_changes",
            "body_fun changes the dtype at the bottom of a 5,000-deep carry",
            lambda: (
                (0, 3, lambda i, c: nested_list(DEEP, jnp.int32(1)), nested_list(DEEP, one())),
                {},
            ),
        ),
        (
            "body_returns_hostile",
            "body_fun returns an object whose repr raises",
            lambda: ((0, 3, lambda i, c: RaisingRepr(), one()), {}),
        ),
        ("unroll_str", "unroll='yes'", lambda: ((0, 3, _body, one()), {"unroll": "yes"})),
        ("unroll_negative", "unroll=-1", lambda: ((0, 3, _body, one()), {"unroll": -1})),
    ],
)

_cases(
    "while_loop",
    [
        (
            "cond_returns_str",
            "cond_fun returns a str",
            lambda: ((lambda c: "yes", _ident, one()), {}),
        ),
        (
            "cond_returns_vector",
            "cond_fun returns a vector",
            lambda: ((lambda c: jnp.ones(2) > 0, _ident, one()), {}),
        ),
        (
            "cond_returns_none",
            "cond_fun returns None",
            lambda: ((lambda c: None, _ident, one()), {}),
        ),
        (
            "cond_returns_raising_bool",
            "cond_fun returns an object whose bool raises",
            lambda: ((lambda c: RaisingBool(), _ident, one()), {}),
        ),
        ("cond_not_callable", "cond_fun an int", lambda: ((3, _ident, one()), {})),
        ("body_raises", "body_fun raises", lambda: ((lambda c: c < 3, _raise, one()), {})),
        (
            "cyclic_init",
            "init_val: a list that contains itself",
            lambda: ((lambda c: False, _ident, cyclic_list(one())), {}),
        ),
        (
            "deep_init",
            "init_val nested 5,000 deep",
            lambda: ((lambda c: False, _ident, nested_list(DEEP, one())), {}),
        ),
        (
            "deep_carry_changes",
            "body_fun changes the dtype at the bottom of a 5,000-deep carry",
            lambda: (
                (
                    lambda c: False,
                    lambda c: nested_list(DEEP, jnp.int32(1)),
                    nested_list(DEEP, one()),
                ),
                {},
            ),
        ),
    ],
)

_cases(
    "scan",
    [
        (
            "returns_scalar",
            "f returns a number, not a pair",
            lambda: ((lambda c, x: 3.0, one(), jnp.ones(3)), {}),
        ),
        (
            "returns_triple",
            "f returns a triple",
            lambda: ((lambda c, x: (c, x, x), one(), jnp.ones(3)), {}),
        ),
        ("f_not_callable", "f an int", lambda: ((3, one(), jnp.ones(3)), {})),
        ("f_raises", "f raises", lambda: ((_raise, one(), jnp.ones(3)), {})),
        (
            "xs_mismatched_lengths",
            "xs leaves of lengths 3 and 4",
            lambda: ((lambda c, x: (c, x), one(), (jnp.ones(3), jnp.ones(4))), {}),
        ),
        ("xs_scalar", "xs a 0-d leaf", lambda: ((lambda c, x: (c, x), one(), jnp.float32(1)), {})),
        ("length_negative", "length=-1", lambda: ((lambda c, x: (c, c), one()), {"length": -1})),
        ("length_huge", "length=2**70", lambda: ((lambda c, x: (c, c), one()), {"length": 2**70})),
        ("length_str", "length='3'", lambda: ((lambda c, x: (c, c), one()), {"length": "3"})),
        ("no_xs_no_length", "xs None and no length", lambda: ((lambda c, x: (c, c), one()), {})),
        (
            "xs_generator",
            "xs a generator",
            lambda: ((lambda c, x: (c, x), one(), (jnp.ones(1) for _ in range(3))), {}),
        ),
        (
            "xs_cyclic",
            "xs: a list that contains itself",
            lambda: ((lambda c, x: (c, x), one(), cyclic_list(jnp.ones(3))), {}),
        ),
        ("xs_string", "xs a str", lambda: ((lambda c, x: (c, x), one(), "abc"), {})),
        (
            "deep_init",
            "init nested 5,000 deep",
            lambda: ((lambda c, x: (c, x), nested_list(DEEP, one()), jnp.ones(3)), {}),
        ),
        (
            "deep_carry_changes",
            "f changes the dtype at the bottom of a 5,000-deep carry",
            lambda: (
                (
                    lambda c, x: (nested_list(DEEP, jnp.int32(1)), x),
                    nested_list(DEEP, one()),
                    jnp.ones(3),
                ),
                {},
            ),
        ),
        (
            "reverse_str",
            "reverse='yes'",
            lambda: ((lambda c, x: (c, x), one(), jnp.ones(3)), {"reverse": "yes"}),
        ),
        (
            "unroll_zero",
            "unroll=0",
            lambda: ((lambda c, x: (c, x), one(), jnp.ones(3)), {"unroll": 0}),
        ),
    ],
)


def _i(i: Any) -> Any:
    return i


_cases(
    "collect",
    [
        ("n_huge", "n=2**70", lambda: ((_i, 2**70), {})),
        ("n_uint64_max", "n=np.uint64 max", lambda: ((_i, np.uint64(2**64 - 1)), {})),
        ("n_negative_zero_float", "n=-0.0", lambda: ((_i, -0.0), {})),
        ("n_bool", "n=True", lambda: ((_i, True), {})),
        ("n_none", "n=None", lambda: ((_i, None), {})),
        ("n_str", "n='3'", lambda: ((_i, "3"), {})),
        ("n_int8_negative", "n=np.int8(-1)", lambda: ((_i, np.int8(-1)), {})),
        ("fn_not_callable", "fn an int", lambda: ((3, 3), {})),
        ("fn_raises", "fn raises", lambda: ((_raise, 3), {})),
        ("fn_raises_n0", "fn raises, n=0 (only its shape is traced)", lambda: ((_raise, 0), {})),
        ("returns_none_n0", "fn returns None, n=0", lambda: ((lambda i: None, 0), {})),
        ("returns_str", "fn returns a str", lambda: ((lambda i: "row", 3), {})),
        ("returns_str_n0", "fn returns a str, n=0", lambda: ((lambda i: "row", 0), {})),
        (
            "returns_cyclic",
            "fn returns a list that contains itself",
            lambda: ((lambda i: cyclic_list(i), 3), {}),
        ),
        (
            "returns_deep",
            "fn returns a row nested 5,000 deep",
            lambda: ((lambda i: nested_list(DEEP, i), 3), {}),
        ),
        (
            "returns_deep_n0",
            "fn returns a row nested 5,000 deep, n=0",
            lambda: ((lambda i: nested_list(DEEP, i), 0), {}),
        ),
        (
            "returns_hostile",
            "fn returns an object whose repr raises",
            lambda: ((lambda i: RaisingRepr(), 3), {}),
        ),
    ],
)


# -- Stateful --------------------------------------------------------------------------------


def _step(state: Any, *args: Any) -> Any:
    return None, state


def _stateful(
    make: Callable[[], tuple[Any, Any, dict[str, Any], tuple[Any, ...]]],
) -> Callable[[], Setup]:
    def build() -> Setup:
        fn, init, options, args = make()

        def call() -> Any:
            stateful = _jp().Stateful(fn, init, **options)
            return stateful(*args), stateful.state

        def reference() -> Any:
            return (jax.jit(fn) if options.get("jit", True) else fn)(init, *args)

        return Setup(
            call=call,
            state=lambda: {"fn": fn, "init_state": init, "args": args},
            reference=reference,
        )

    return build


_STATEFUL_CASES: list[tuple[str, str, Callable[[], Any]]] = [
    (
        "cyclic_state",
        "init_state: a list that contains itself",
        lambda: (_step, cyclic_list(one()), {}, ()),
    ),
    (
        "deep_state",
        "init_state nested 5,000 deep",
        lambda: (_step, nested_list(DEEP, one()), {}, ()),
    ),
    (
        "deep_dict_state",
        "init_state: a dict nested 5,000 deep",
        lambda: (_step, nested_dict(DEEP, one()), {}, ()),
    ),
    ("string_leaf", "init_state holds a str", lambda: (_step, {"a": "x"}, {}, ())),
    ("none_state", "init_state None", lambda: (_step, None, {}, ())),
    (
        "hostile_leaf",
        "init_state holds an object whose repr raises",
        lambda: (_step, [RaisingRepr()], {}, ()),
    ),
    ("huge_int_leaf", "init_state holds 2**70", lambda: (_step, 2**70, {}, ())),
    (
        "mixed_keys",
        "init_state: a dict with int and str keys",
        lambda: (_step, {1: one(), "a": one()}, {}, ()),
    ),
    ("generator_state", "init_state a generator", lambda: (_step, (i for i in range(3)), {}, ())),
    ("fn_not_callable", "fn an int", lambda: (3, one(), {}, ())),
    ("jit_str", "jit='yes'", lambda: (_step, one(), {"jit": "yes"}, ())),
    ("returns_not_pair", "fn returns a number", lambda: (lambda s: 3.0, one(), {}, ())),
    ("fn_raises", "fn raises", lambda: (_raise, one(), {}, ())),
    (
        "deep_state_changes",
        "fn changes the dtype at the bottom of a 5,000-deep state",
        lambda: (
            lambda s: (None, nested_list(DEEP, jnp.int32(1))),
            nested_list(DEEP, one()),
            {},
            (),
        ),
    ),
    (
        "eager_deep_state_changes",
        "jit=False; fn changes the bottom of a 5,000-deep state",
        lambda: (
            lambda s: (None, nested_list(DEEP, jnp.int32(1))),
            nested_list(DEEP, one()),
            {"jit": False},
            (),
        ),
    ),
]

for _name, _hostile, _make in _STATEFUL_CASES:
    _add("Stateful", _name, _hostile, _stateful(_make), _DEEP_CYCLE if "deep" in _name else None)


def _stateful_inside_jit() -> Setup:
    x = jnp.ones(())

    def call() -> Any:
        stateful = _jp().Stateful(lambda s, v: (s, s + v), jnp.zeros(()))
        return jax.jit(lambda v: stateful(v))(x)

    return Setup(call=call, state=lambda: {"args": (x,)})


_add("Stateful", "inside_jit", "a Stateful called inside jax.jit", _stateful_inside_jit)


# -- dataclass -------------------------------------------------------------------------------


def _dataclass_case(
    make: Callable[[], Any], then: Callable[[Any], Any] | None = None
) -> Callable[[], Setup]:
    def build() -> Setup:
        cls = make()

        def call() -> Any:
            out = _jp().dataclass(cls)
            return then(out) if then is not None else out

        def reference() -> Any:
            out = dataclasses.dataclass(frozen=True)(make())
            return then(out) if then is not None else out

        # Decorating changes the class; a decorator that raises should leave it as it was.
        # Where more follows (``then``), the class was decorated before that step raised.
        if_raised = (lambda: {"class": cls}) if then is None else None
        return Setup(call=call, state=dict, reference=reference, state_if_raised=if_raised)

    return build


def _class(body: str, name: str = "C") -> Callable[[], Any]:
    def make() -> Any:
        return getattr(user_module(_PRELUDE + textwrap.dedent(body)), name)

    return make


class _RaisingMeta(type):
    def __setattr__(cls, name: str, value: Any) -> None:
        raise DunderBoom(f"{cls.__name__}: setting {name} raised on purpose")


class _Color(enum.Enum):
    RED = 1


class _Pair(NamedTuple):
    a: Any
    b: Any


_DATACLASS_CASES: list[tuple[str, str, Callable[[], Any], Callable[[Any], Any] | None]] = [
    ("function", "a function, not a class", lambda: _ident, None),
    ("instance", "an instance, not a class", lambda: types.SimpleNamespace(), None),
    ("none", "None", lambda: None, None),
    (
        "field_named_replace",
        "a field named replace",
        _class("class C:\n    replace: int = 0\n"),
        None,
    ),
    (
        "field_init_false",
        "a field with init=False",
        _class("class C:\n    a: int = dataclasses.field(default=0, init=False)\n"),
        None,
    ),
    ("mutable_default", "a list as a default", _class("class C:\n    a: list = []\n"), None),
    ("builtin_int", "the builtin int", lambda: int, None),
    ("enum", "an Enum class", lambda: _Color, None),
    ("namedtuple", "a NamedTuple class", lambda: _Pair, None),
    (
        "slots_with_defaults",
        "a class with __slots__",
        _class("class C:\n    __slots__ = ('a',)\n    a: int\n"),
        lambda cls: cls(a=1).replace(a=2),
    ),
    (
        "raising_metaclass",
        "a class whose metaclass __setattr__ raises",
        lambda: _RaisingMeta("C", (), {"__annotations__": {"a": int}}),
        None,
    ),
    (
        "applied_twice",
        "jaxpurity.dataclass applied to its own result",
        _class("class C:\n    a: Any = 0\n"),
        lambda cls: _jp().dataclass(cls),
    ),
    (
        "unhashable_static",
        "a static field given an unhashable list",
        _class("class C:\n    a: Any = jaxpurity.static_field(default=0)\n"),
        lambda cls: cls(a=[1, 2]),
    ),
    (
        "raising_eq_static",
        "a static field holding an object whose == raises, flattened and compared",
        _class("class C:\n    a: Any = jaxpurity.static_field(default=0)\n    w: Any = 1.0\n"),
        lambda cls: jax.tree.map(lambda v: v, cls(a=RaisingEq())) == cls(a=RaisingEq()),
    ),
    (
        "cyclic_field_value",
        "an instance whose field holds itself, flattened",
        _class("class C:\n    a: Any = None\n"),
        lambda cls: jax.tree_util.tree_leaves(_cyclic_instance(cls)),
    ),
    (
        "many_fields",
        "a class with 3,000 fields",
        lambda: type("C", (), {"__annotations__": {f"f{i}": int for i in range(3000)}}),
        None,
    ),
    (
        "cyclic_class_dict",
        "a class whose __dict__ holds itself",
        lambda: _cyclic_class(),
        None,
    ),
    (
        "replace_unknown",
        "replace() with 1,000 unknown fields",
        _class("class C:\n    a: Any = 0\n"),
        lambda cls: cls().replace(**{f"x{i}": i for i in range(1000)}),
    ),
]


def _cyclic_instance(cls: Any) -> Any:
    outer = cls(a=[])
    outer.a.append(outer)
    return outer


def _cyclic_class() -> Any:
    cls = type("C", (), {"__annotations__": {"a": int}, "a": 0})
    cls.me = cls
    return cls


for _name, _hostile, _make, _then in _DATACLASS_CASES:
    _add("dataclass", _name, _hostile, _dataclass_case(_make, _then))


# -- explain ---------------------------------------------------------------------------------


def _explain(make: Callable[[], Any], **kwargs: Any) -> Callable[[], Setup]:
    def build() -> Setup:
        error = make()
        return Setup(
            call=lambda: _jp().explain(error, **kwargs),
            state=lambda: {"error": error, "kwargs": kwargs},
        )

    return build


def _garbage() -> str:
    return bytes(range(256)).decode("latin-1") * 40_000


def _cyclic_cause() -> BaseException:
    first, second = ValueError("first"), TypeError("second")
    first.__cause__, second.__cause__ = second, first
    return first


def _deep_chain() -> BaseException:
    error: BaseException = ValueError("root")
    for i in range(DEEP):
        outer = ValueError(f"layer {i}")
        outer.__cause__ = error
        error = outer
    return error


def _deep_group() -> BaseException:
    group = getattr(builtins, "ExceptionGroup", None)  # Python 3.11 and newer
    error: BaseException = ValueError("root")
    for _ in range(DEEP):
        if group is None:
            error.__context__, error = error, ValueError("context")
        else:
            error = group("group", [error])
    return error


def _caught_recursion() -> BaseException:
    def down(n: int) -> int:
        return down(n + 1)

    try:
        down(0)
    except RecursionError as error:
        return error
    raise AssertionError("unreachable")


def _notes_not_list() -> BaseException:
    error = ValueError("ConcretizationTypeError")
    error.__notes__ = 5  # type: ignore[attr-defined]
    return error


_EXPLAIN_CASES: list[tuple[str, str, Callable[[], Any], dict[str, Any]]] = [
    ("empty", "an empty string", lambda: "", {}),
    ("none", "None", lambda: None, {}),
    ("bytes", "bytes", lambda: b"TracerBoolConversionError: Attempted boolean conversion", {}),
    ("ten_mb", "a 10 MB string", lambda: "x" * 10_000_000, {}),
    (
        "ten_mb_error_tail",
        "10 MB of text ending in a known error",
        lambda: "y" * 10_000_000 + "\nTracerBoolConversionError: x",
        {},
    ),
    ("hundred_thousand_lines", "100,000 lines", lambda: "line of text\n" * 100_000, {}),
    ("binary_garbage", "10 MB of every byte decoded as latin-1", _garbage, {}),
    ("a_run_bang", "'a' * 100000 + '!'", lambda: "a" * 100_000 + "!", {}),
    ("space_run", "100,000 spaces then x", lambda: " " * 100_000 + "x", {}),
    ("colon_run", "100,000 colons", lambda: ":" * 100_000, {}),
    ("traceback_run", "'Traceback' 20,000 times on one line", lambda: "Traceback" * 20_000, {}),
    (
        "traceback_headers",
        "10,000 traceback headers",
        lambda: "Traceback (most recent call last):\n" * 10_000,
        {},
    ),
    (
        "file_lines",
        "50,000 traceback File lines",
        lambda: '  File "x.py", line 1, in f\n' * 50_000,
        {},
    ),
    ("error_prefix_run", "'Error: ' 50,000 times", lambda: "Error: " * 50_000, {}),
    ("pytest_prefix_lines", "100,000 'E   ' lines", lambda: "E   x\n" * 100_000, {}),
    ("ansi_garbage", "100,000 broken ANSI escapes", lambda: "\x1b[" * 100_000 + "m", {}),
    (
        "nested_parens",
        "100,000 nested parentheses after an error name",
        lambda: "ConcretizationTypeError: " + "(" * 100_000 + ")" * 100_000,
        {},
    ),
    (
        "chained_errors_run",
        "10,000 'The above exception was the direct cause' sections",
        lambda: (
            "ValueError: x\n\nThe above exception was the direct cause of the following "
            "exception:\n\n" * 10_000
        ),
        {},
    ),
    (
        "surrogates",
        "lone surrogates",
        lambda: "\ud800\udfff" * 1000 + " TracerBoolConversionError",
        {},
    ),
    ("nul_bytes", "NUL characters", lambda: "\x00" * 100_000, {}),
    ("lang_unknown", "lang='xx'", lambda: "TracerBoolConversionError: x", {"lang": "xx"}),
    ("lang_none", "lang=None", lambda: "TracerBoolConversionError: x", {"lang": None}),
    ("lang_int", "lang=5", lambda: "TracerBoolConversionError: x", {"lang": 5}),
    (
        "lang_path_like",
        "lang='../../etc'",
        lambda: "TracerBoolConversionError: x",
        {"lang": "../../etc"},
    ),
    (
        "str_subclass_raising",
        "a str subclass whose methods raise",
        lambda: RaisingStr("TracerBoolConversionError: x"),
        {},
    ),
    ("exception_str_raises", "an exception whose __str__ raises", lambda: BadStrError("x"), {}),
    (
        "exception_repr_getattr_raise",
        "an exception whose repr and __getattr__ raise",
        lambda: BadReprError("x"),
        {},
    ),
    (
        "exception_str_not_str",
        "an exception whose __str__ returns an int",
        lambda: NonStrError("x"),
        {},
    ),
    ("exception_class", "an exception class, not an instance", lambda: ValueError, {}),
    ("cyclic_cause", "two exceptions each the other's __cause__", _cyclic_cause, {}),
    ("deep_cause_chain", "a __cause__ chain 5,000 deep", _deep_chain, {}),
    ("deep_exception_group", "an ExceptionGroup nested 5,000 deep", _deep_group, {}),
    (
        "caught_recursion_error",
        "a RecursionError with a 1,000-frame traceback",
        _caught_recursion,
        {},
    ),
    ("keyboard_interrupt", "a KeyboardInterrupt instance", lambda: KeyboardInterrupt(), {}),
    ("notes_not_list", "an exception whose __notes__ is an int", _notes_not_list, {}),
    (
        "args_tracer_free_huge",
        "an exception with a 10 MB argument",
        lambda: ValueError("z" * 10_000_000),
        {},
    ),
]

for _name, _hostile, _make, _kwargs in _EXPLAIN_CASES:
    _add("explain", _name, _hostile, _explain(_make, **_kwargs))


# -- lint ------------------------------------------------------------------------------------

_JITTED = "import jax\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n"


def _lint(make: Callable[[str], tuple[tuple[Any, ...], dict[str, Any]]]) -> Callable[[], Setup]:
    def build() -> Setup:
        args, kwargs = make(user_dir())
        return Setup(
            call=lambda: _jp().lint(*args, **kwargs),
            state=lambda: {"args": args, "kwargs": kwargs},
        )

    return build


def _write(folder: str, name: str, content: str | bytes) -> str:
    path = os.path.join(folder, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def _fifo(folder: str) -> str:
    path = os.path.join(folder, "x.py")
    os.mkfifo(path)
    return path


def _symlink_loop(folder: str) -> str:
    a, b = os.path.join(folder, "a.py"), os.path.join(folder, "b.py")
    os.symlink(b, a)
    os.symlink(a, b)
    return a


def _unreadable(folder: str) -> str:
    path = _write(folder, "x.py", _JITTED)
    os.chmod(path, 0)
    return path


def _pyproject(folder: str, toml: str | bytes) -> str:
    _write(folder, "pyproject.toml", toml)
    return _write(folder, "src/x.py", _JITTED)


def _source(text: Any, **kwargs: Any) -> Callable[[str], Any]:
    return lambda folder: ((), {"source": text, **kwargs})


def _paths(make: Callable[[str], Any], **kwargs: Any) -> Callable[[str], Any]:
    return lambda folder: ((make(folder),), kwargs)


_TEN_MB = "# " + "a" * 998 + "\n"
_LINT_CASES: list[tuple[str, str, Callable[[str], Any]]] = [
    ("fifo_path", "a FIFO named x.py, given as the path", _paths(_fifo)),
    ("fifo_in_folder", "a folder holding a FIFO named x.py", lambda d: ((_fifo(d) and d,), {})),
    (
        "cookie_rot13",
        "coding cookie rot13 (not a text encoding)",
        _paths(lambda d: _write(d, "x.py", "# -*- coding: rot13 -*-\n" + _JITTED)),
    ),
    (
        "cookie_uu",
        "coding cookie uu_codec",
        _paths(lambda d: _write(d, "x.py", "# coding: uu_codec\n" + _JITTED)),
    ),
    (
        "cookie_zlib",
        "coding cookie zlib_codec",
        _paths(lambda d: _write(d, "x.py", "# coding: zlib_codec\n" + _JITTED)),
    ),
    (
        "cookie_unknown",
        "coding cookie naming no codec",
        _paths(lambda d: _write(d, "x.py", "# coding: nosuchcodec\n" + _JITTED)),
    ),
    (
        "cookie_utf16",
        "coding cookie utf-16 on UTF-8 bytes",
        _paths(lambda d: _write(d, "x.py", "# coding: utf-16\n" + _JITTED)),
    ),
    (
        "invalid_utf8",
        "invalid UTF-8 bytes",
        _paths(lambda d: _write(d, "x.py", b"x = '\xff\xfe\xfa'\n" + _JITTED.encode())),
    ),
    ("nul_byte", "a NUL byte", _paths(lambda d: _write(d, "x.py", _JITTED + "\x00\n"))),
    (
        "ten_mb_file",
        "a 10 MB file of comments and one jitted function",
        _paths(lambda d: _write(d, "x.py", _JITTED + _TEN_MB * 10_000)),
    ),
    (
        "parens_2000_file",
        "2,000 nested parentheses",
        _paths(lambda d: _write(d, "x.py", "x = " + "(" * 2000 + "1" + ")" * 2000 + "\n")),
    ),
    (
        "sum_50000_file",
        "a + a + ... 50,000 terms in a jitted function",
        _paths(
            lambda d: _write(
                d,
                "x.py",
                "import jax\n@jax.jit\ndef f(a):\n    return " + "+".join(["a"] * 50_000) + "\n",
            )
        ),
    ),
    ("symlink_loop", "a symlink loop named a.py", _paths(_symlink_loop)),
    (
        "symlink_loop_in_folder",
        "a folder holding a symlink loop",
        lambda d: ((_symlink_loop(d) and d,), {}),
    ),
    (
        "directory_named_py",
        "a directory named x.py",
        _paths(lambda d: os.path.dirname(_write(d, "x.py/inner.py", _JITTED))),
    ),
    ("unreadable", "chmod 000 file (as root, still readable)", _paths(_unreadable)),
    ("empty_paths", "no paths and no source", lambda d: ((), {})),
    ("nonexistent", "a path that does not exist", lambda d: ((os.path.join(d, "missing.py"),), {})),
    ("path_int", "a path given as an int", lambda d: ((3,), {})),
    (
        "path_bytes",
        "a path given as bytes",
        lambda d: ((os.fsencode(_write(d, "x.py", _JITTED)),), {}),
    ),
    (
        "path_and_source",
        "both a path and source=",
        lambda d: ((_write(d, "x.py", _JITTED),), {"source": _JITTED}),
    ),
    ("select_str", "select='JP1' (a str, not a list)", _source(_JITTED, select="JP1")),
    ("select_none_list", "select=[None]", _source(_JITTED, select=[None])),
    ("select_ints", "select=[1, 2]", _source(_JITTED, select=[1, 2])),
    ("ignore_str", "ignore='JP130' (a str)", _source(_JITTED, ignore="JP130")),
    ("ignore_none", "ignore=None", _source(_JITTED, ignore=None)),
    ("ignore_ints", "ignore=[1]", _source(_JITTED, ignore=[1])),
    ("wrappers_str", "wrappers='mylib.jit' (a str)", _source(_JITTED, wrappers="mylib.jit")),
    ("wrappers_none", "wrappers=None", _source(_JITTED, wrappers=None)),
    ("wrappers_ints", "wrappers=[1]", _source(_JITTED, wrappers=[1])),
    (
        "select_str_paths",
        "select='JP1' with a path",
        _paths(lambda d: _write(d, "x.py", _JITTED), select="JP1"),
    ),
    (
        "ignore_none_paths",
        "ignore=None with a path",
        _paths(lambda d: _write(d, "x.py", _JITTED), ignore=None),
    ),
    (
        "wrappers_ints_paths",
        "wrappers=[1] with a path",
        _paths(lambda d: _write(d, "x.py", _JITTED), wrappers=[1]),
    ),
    ("source_bytes", "source= bytes", _source(_JITTED.encode())),
    ("source_int", "source=5", _source(5)),
    ("source_syntax_error", "source= with a syntax error", _source("def f(:\n")),
    ("source_empty", "source=''", _source("")),
    ("source_nul", "source= with a NUL character", _source(_JITTED + "\x00")),
    ("source_surrogate", "source= with a lone surrogate", _source(_JITTED + "# \ud800\n")),
    (
        "source_sum_2000",
        "a + a + ... 2,000 terms",
        _source("import jax\n@jax.jit\ndef f(a):\n    return " + "+".join(["a"] * 2000) + "\n"),
    ),
    (
        "source_sum_50000",
        "a + a + ... 50,000 terms",
        _source("import jax\n@jax.jit\ndef f(a):\n    return " + "+".join(["a"] * 50_000) + "\n"),
    ),
    (
        "source_attribute_chain",
        "an attribute chain 50,000 long in a jitted function",
        _source("import jax\n@jax.jit\ndef f(a):\n    return a" + ".b" * 50_000 + "\n"),
    ),
    (
        "source_not_chain",
        "'not not ... x' 2,000 deep in a jitted function",
        _source("import jax\n@jax.jit\ndef f(a):\n    return " + "not " * 2000 + "a\n"),
    ),
    (
        "source_call_chain",
        "f(f(...)) 190 deep in a jitted function",
        _source(
            "import jax\n@jax.jit\ndef f(a):\n    return " + "g(" * 190 + "a" + ")" * 190 + "\n"
        ),
    ),
    (
        "source_if_else_chain",
        "'a if a else ...' 2,000 deep",
        _source("import jax\n@jax.jit\ndef f(a):\n    return " + "a if a else " * 2000 + "a\n"),
    ),
    (
        "source_nested_defs",
        "functions nested 99 deep under jax.jit",
        _source(
            "import jax\n@jax.jit\n"
            + "".join(" " * i + f"def f{i}(x):\n" for i in range(99))
            + " " * 99
            + "return x\n"
        ),
    ),
    (
        "source_nested_lambdas",
        "lambda: lambda: ... 1,000 deep passed to jax.jit",
        _source("import jax\nf = jax.jit(" + "lambda: " * 1000 + "0)\n"),
    ),
    (
        "source_many_functions",
        "5,000 jitted functions calling the one before",
        _source(
            "import jax\n"
            + "".join(
                f"@jax.jit\ndef f{i}(x):\n    return f{i - 1}(x) if {i} else x\n"
                for i in range(5000)
            )
        ),
    ),
    (
        "source_recursive_calls",
        "a jitted function calling 2,000 helpers in a chain",
        _source(
            "import jax\n@jax.jit\ndef f(x):\n    return h0(x)\n"
            + "".join(f"def h{i}(x):\n    return h{i + 1}(x)\n" for i in range(2000))
            + "def h2000(x):\n    print(x)\n    return x\n"
        ),
    ),
    (
        "source_noqa_flood",
        "100,000 noqa comments",
        _source(_JITTED + "x = 1  # noqa: JP130, JP999\n" * 100_000),
    ),
    (
        "source_long_line",
        "a 1,000,000-character line",
        _source(_JITTED + "x = '" + "a" * 1_000_000 + "'\n"),
    ),
    (
        "pyproject_broken",
        "pyproject.toml that is not TOML",
        _paths(lambda d: _pyproject(d, "[tool.jaxpurity.lint\nselect = [")),
    ),
    (
        "pyproject_select_int",
        "[tool.jaxpurity.lint] select = 5",
        _paths(lambda d: _pyproject(d, "[tool.jaxpurity.lint]\nselect = 5\n")),
    ),
    (
        "pyproject_select_str",
        "[tool.jaxpurity.lint] select = 'JP1'",
        _paths(lambda d: _pyproject(d, "[tool.jaxpurity.lint]\nselect = 'JP1'\n")),
    ),
    (
        "pyproject_unknown_code",
        "[tool.jaxpurity.lint] select = ['XX9']",
        _paths(lambda d: _pyproject(d, "[tool.jaxpurity.lint]\nselect = ['XX9']\n")),
    ),
    (
        "pyproject_tool_str",
        "pyproject.toml with tool = 'x'",
        _paths(lambda d: _pyproject(d, "tool = 'x'\n")),
    ),
    (
        "pyproject_jaxpurity_int",
        "pyproject.toml with [tool] jaxpurity = 3",
        _paths(lambda d: _pyproject(d, "[tool]\njaxpurity = 3\n")),
    ),
    (
        "pyproject_lint_list",
        "pyproject.toml with [tool.jaxpurity] lint = [1]",
        _paths(lambda d: _pyproject(d, "[tool.jaxpurity]\nlint = [1]\n")),
    ),
    (
        "pyproject_invalid_utf8",
        "pyproject.toml of invalid UTF-8",
        _paths(lambda d: _pyproject(d, b"[tool.jaxpurity.lint]\nselect = ['\xff']\n")),
    ),
    (
        "pyproject_directory",
        "a directory named pyproject.toml",
        _paths(
            lambda d: (os.makedirs(os.path.join(d, "pyproject.toml")), _write(d, "x.py", _JITTED))[
                1
            ]
        ),
    ),
]

#: A clear error for these must not say that the path does not exist: it does.
_EXISTING = {"fifo_path", "symlink_loop", "unreadable", "directory_named_py"}
#: A clear error for these must name the argument that is not a list, not one character.
_NOT_A_LIST = {"select_str", "ignore_str", "wrappers_str", "select_str_paths"}
for _name, _hostile, _make in _LINT_CASES:
    _wrong = "no such file" if _name in _EXISTING else None
    _wrong = r"'[A-Za-z0-9.]' is no" if _name in _NOT_A_LIST else _wrong
    _add("lint", _name, _hostile, _lint(_make), _wrong)


# -- raises ----------------------------------------------------------------------------------


def _raises(
    expected: Any,
    block: Callable[[], Any],
    match: Any = None,
    environ: dict[str, str] | None = None,
) -> Callable[[], Setup]:
    def build() -> Setup:
        if environ:
            os.environ.update({k: v.format(tmp=user_dir()) for k, v in environ.items()})

        def call() -> Any:
            with _jp().raises(expected, match=match) as info:
                block()
            return info

        return Setup(call=call, state=lambda: {"expected": expected, "match": match})

    return build


def _raiser(error: BaseException) -> Callable[[], Any]:
    def block() -> Any:
        raise error

    return block


_RAISES_CASES: list[tuple[str, str, Callable[[], Setup]]] = [
    (
        "type_as_str",
        "exc_type given as the str 'TypeError'",
        _raises("TypeError", _raiser(TypeError("x"))),
    ),
    ("empty_tuple", "exc_type an empty tuple", _raises((), _raiser(TypeError("x")))),
    (
        "str_raises",
        "the block raises an exception whose __str__ raises",
        _raises(BadStrError, _raiser(BadStrError("x"))),
    ),
    (
        "str_not_str",
        "the block raises an exception whose __str__ returns an int",
        _raises(NonStrError, _raiser(NonStrError("x"))),
    ),
    (
        "str_not_str_match",
        "match= on an exception whose __str__ returns an int",
        _raises(NonStrError, _raiser(NonStrError("x")), match="4"),
    ),
    (
        "huge_message",
        "a 1,000,000-line message",
        _raises(ValueError, _raiser(ValueError("line\n" * 1_000_000))),
    ),
    (
        "invalid_regex",
        "match='(' (an invalid regex)",
        _raises(ValueError, _raiser(ValueError("x")), match="("),
    ),
    (
        "catastrophic_regex",
        "match='(a+)+$' against 'a' * 40 + '!'",
        _raises(ValueError, _raiser(ValueError("a" * 40 + "!")), match="(a+)+$"),
    ),
    ("match_int", "match=5", _raises(ValueError, _raiser(ValueError("5")), match=5)),
    (
        "keyboard_interrupt",
        "the block raises KeyboardInterrupt, expecting ValueError",
        _raises(ValueError, _raiser(KeyboardInterrupt())),
    ),
    (
        "system_exit",
        "the block raises SystemExit, expecting ValueError",
        _raises(ValueError, _raiser(SystemExit(3))),
    ),
    (
        "log_is_directory",
        "$JAXPURITY_CAUGHT_LOG names a directory",
        _raises(ValueError, _raiser(ValueError("x")), environ={"JAXPURITY_CAUGHT_LOG": "{tmp}"}),
    ),
    (
        "log_missing_folder",
        "$JAXPURITY_CAUGHT_LOG inside a folder that does not exist",
        _raises(
            ValueError,
            _raiser(ValueError("x")),
            environ={"JAXPURITY_CAUGHT_LOG": "{tmp}/no/such/log.jsonl"},
        ),
    ),
    (
        "exception_cycle",
        "the block raises an exception whose cause chain is a cycle",
        _raises(ValueError, lambda: _raise_cycle()),
    ),
]


def _raise_cycle() -> Any:
    error = _cyclic_cause()
    raise error


for _name, _hostile, _build in _RAISES_CASES:
    _add("raises", _name, _hostile, _build)


def tools() -> list[str]:
    """The tools with inputs, in the order they were added."""
    return list(dict.fromkeys(h.tool for h in INPUTS))


def iter_inputs(tool: str | None = None, id_part: str | None = None) -> Iterator[Hostile]:
    """The inputs of ``tool`` (all when None) whose id contains ``id_part``."""
    for hostile in INPUTS:
        if (tool is None or hostile.tool == tool) and (id_part is None or id_part in hostile.id):
            yield hostile


assert len({h.id for h in INPUTS}) == len(INPUTS), "duplicate hostile input ids"
