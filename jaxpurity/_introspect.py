"""Look inside a function: the wrappers around it, its arguments by name, the state it reaches.

A user hands jaxpurity a function in many forms: a plain function, a
:func:`jax.jit` of it, a bound method (jitted or not), a
:func:`functools.partial`, a callable object. :func:`wrappers` walks from the
outside in, and every other helper here (and every caller in jaxpurity) reads
the layers from it.
"""

from __future__ import annotations

import collections
import ctypes
import dis
import functools
import gc
import inspect
import sys
import types
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from jaxpurity._jax_compat import is_jit_wrapper

__all__ = [
    "EMPTY_CELL",
    "MISSING",
    "arguments",
    "attributes_set",
    "cell_value",
    "code_names",
    "is_user_code",
    "is_user_object",
    "jit_layer",
    "library_jit",
    "named_arguments",
    "own_attributes",
    "qualname",
    "reachable_code",
    "scope_functions",
    "slot_names",
    "strip_jit",
    "unwrap",
    "wrappers",
    "wraps",
]

#: The top-level packages whose code and state are not the user's.
_LIBRARIES = frozenset({"jax", "jaxlib", "numpy", "jaxpurity", *sys.stdlib_module_names})
_MAX_LAYERS = 100  # a wrapper chain longer than this is a cycle (``__wrapped__`` to itself)


def _call_method(fn: Any) -> Any:
    """The ``__call__`` function of a callable object's class; None for functions and classes."""
    if isinstance(fn, (types.FunctionType, type)):
        return None
    call = inspect.getattr_static(type(fn), "__call__", None)
    return call if isinstance(call, types.FunctionType) else None


def wrappers(fn: Any) -> Iterator[Any]:
    """``fn``, then each layer inside it, down to the code that runs when it is called.

    The layers are looked through in this order: a :func:`functools.partial`
    (to its ``func``), a bound method (to its function), anything with
    ``__wrapped__`` (:func:`functools.wraps`, :func:`jax.jit`), and a
    callable object (to its class's ``__call__``).

    Example:
      >>> import functools, jax
      >>> def scale(x, k):
      ...     return x * k
      >>> layers = list(wrappers(functools.partial(jax.jit(scale), k=2)))
      >>> [type(layer).__name__ for layer in layers][0], layers[-1] is scale
      ('partial', True)
    """
    for _ in range(_MAX_LAYERS):
        yield fn
        kind = type(fn)  # not isinstance, which reads __class__: a hostile object's may raise
        if issubclass(kind, functools.partial):
            fn = fn.func
        elif issubclass(kind, types.MethodType):
            fn = fn.__func__
        elif (inner := _wrapped(fn)) is not None:
            fn = inner
        elif _call_method(fn) is not None:
            fn = _call_method(fn)
        else:
            return


def wraps(fn: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """:func:`functools.wraps`, or no change where reading ``fn``'s name and the rest raises
    (a hostile ``__getattr__``): JAX's errors then name the wrapper, not ``fn``.

    Example:
      >>> def f(x):
      ...     return x
      >>> wraps(f)(lambda x: x).__name__
      'f'
    """

    def wrap(wrapper: Callable[..., Any]) -> Callable[..., Any]:
        try:
            return functools.wraps(fn)(wrapper)
        except Exception:  # noqa: BLE001 - a hostile object: its names cannot be read
            return wrapper

    return wrap


def _wrapped(fn: Any) -> Any:
    """``fn.__wrapped__``; None where it has none, or reading it raises (a hostile object)."""
    try:
        return getattr(fn, "__wrapped__", None)
    except Exception:  # noqa: BLE001 - a hostile __getattr__ wraps nothing
        return None


def unwrap(fn: Any) -> Any:
    """The Python function whose code runs when ``fn`` is called (the last of :func:`wrappers`).

    Example:
      >>> import jax
      >>> def f(x):
      ...     return x
      >>> unwrap(jax.jit(f)) is f
      True
    """
    *_, innermost = wrappers(fn)
    return innermost


def jit_layer(fn: Any) -> Any:
    """The :func:`jax.jit` wrapper whose cache answers a call of ``fn``, looked for through
    :func:`functools.partial` and bound methods; None where there is none.

    Example:
      >>> import functools, jax
      >>> def scale(x, k):
      ...     return x * k
      >>> jitted = jax.jit(scale)
      >>> jit_layer(functools.partial(jitted, k=2)) is jitted, jit_layer(scale)
      (True, None)
    """
    for layer in wrappers(fn):
        if is_jit_wrapper(layer):
            return layer
        if not isinstance(layer, (functools.partial, types.MethodType)):
            return None
    return None


def library_jit(fn: Any) -> Any:
    """The :func:`jax.jit` wrapper that another library's jit keeps inside the object it
    returns (Flax's ``nnx.jit``, Equinox's ``eqx.filter_jit``): an object that wraps a
    function (its ``__wrapped__``) and holds a jit wrapper. Looked for through partials and
    bound methods; None where ``fn`` is no such object (a callable object of the user's that
    keeps a jitted function is none: calling it runs its Python code).

    Example:
      >>> import jax
      >>> class MyJit:
      ...     def __init__(self, fn):
      ...         self.__wrapped__, self.compiled = fn, jax.jit(fn)
      ...     def __call__(self, *args):
      ...         return self.compiled(*args)
      >>> class Trainer:
      ...     def __init__(self):
      ...         self.step = jax.jit(abs)
      ...     def __call__(self, x):
      ...         return self.step(x)
      >>> mine = MyJit(abs)
      >>> library_jit(mine) is mine.compiled, library_jit(jax.jit(abs)), library_jit(Trainer())
      (True, None, None)
    """
    for layer in wrappers(fn):
        if isinstance(layer, (functools.partial, types.MethodType)):
            continue
        if is_jit_wrapper(layer) or isinstance(layer, (types.FunctionType, type)):
            return None  # jax's own jit, or the user's code
        if _wrapped(layer) is None:
            return None  # a callable object: its __call__ runs
        try:
            held = [*own_attributes(layer).values()]
            held += [getattr(layer, name, None) for name in slot_names(type(layer))]
        except Exception:  # noqa: BLE001 - a hostile object: no library's jit
            return None
        return next((value for value in held if is_jit_wrapper(value)), None)
    return None


def strip_jit(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The function inside any :func:`jax.jit` wrappers, so that tracing runs its body.

    What a bound method or a :func:`functools.partial` binds is kept: for
    ``obj.update`` where ``update`` is a jitted method, the result is the
    body of ``update`` bound to ``obj``. Other wrappers (a
    :func:`functools.wraps` decorator, a callable object) are kept as they
    are, with whatever jit is inside them.

    Example:
      >>> import functools, jax
      >>> def scale(x, k):
      ...     return x * k
      >>> stripped = strip_jit(functools.partial(jax.jit(scale), k=2))
      >>> stripped.func is scale, stripped.keywords
      (True, {'k': 2})
    """
    binders: list[Any] = []  # the partials and bound methods met on the way in
    stripped = False
    core: Any = fn
    for layer in wrappers(fn):
        core = layer
        if isinstance(layer, (functools.partial, types.MethodType)):
            binders.append(layer)
        elif is_jit_wrapper(layer):
            stripped = True
        else:
            break
    if not stripped:
        return fn
    for binder in reversed(binders):
        if isinstance(binder, types.MethodType):
            core = types.MethodType(core, binder.__self__)
        else:
            core = functools.partial(core, *binder.args, **binder.keywords)
    return core


def qualname(obj: Any) -> str:
    """The name a user gave a function or class: ``"step"``, ``"Accumulator.update"``.

    Functions and classes are looked through (:func:`unwrap`), and the
    ``outer.<locals>.`` part of a nested name is left out.

    Example:
      >>> import jax
      >>> def outer():
      ...     def step(x):
      ...         return x
      ...     return step
      >>> qualname(jax.jit(outer()))
      'step'
    """
    inner = unwrap(obj)
    name = getattr(inner, "__qualname__", None) or getattr(inner, "__name__", None) or repr(obj)
    return str(name).rsplit("<locals>.", 1)[-1]


def arguments(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[tuple[str, Any]]:
    """Name each argument of a call ``fn(*args, **kwargs)`` by its parameter.

    Falls back to positions (``"0"``, ``"1"``) where ``fn`` has no signature.

    Args:
      fn: The function being called.
      args: The positional arguments.
      kwargs: The keyword arguments.

    Returns:
      ``(name, value)`` pairs in the order of the parameters, defaults
      included; a ``*args`` parameter contributes ``args[0]``, ``args[1]``, ...

    Example:
      >>> def f(x, *rest, flag=True):
      ...     pass
      >>> arguments(f, (1, 2, 3), {"flag": False})
      [('x', 1), ('rest[0]', 2), ('rest[1]', 3), ('flag', False)]
      >>> arguments(f, (1,), {})
      [('x', 1), ('flag', True)]
    """
    try:
        bound = inspect.signature(fn).bind_partial(*args, **kwargs)
    except Exception:  # noqa: BLE001 - no signature, or one a hostile __getattr__ breaks
        return [(str(i), a) for i, a in enumerate(args)] + list(kwargs.items())
    bound.apply_defaults()
    named: list[tuple[str, Any]] = []
    for name, value in bound.arguments.items():
        kind = bound.signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            named += [(f"{name}[{i}]", v) for i, v in enumerate(value)]
        elif kind is inspect.Parameter.VAR_KEYWORD:
            named += list(value.items())
        else:
            named.append((name, value))
    return named


def named_arguments(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[tuple[str, Any]]:
    """The call's arguments by name, with what bound methods, partials and objects bind.

    Example:
      >>> import functools
      >>> class Model:
      ...     def apply(self, x, scale):
      ...         return x * scale
      >>> model = Model()
      >>> [name for name, _ in named_arguments(functools.partial(model.apply, 1), (2,), {})]
      ['scale', 'x', 'self']
    """
    named = arguments(fn, args, kwargs)
    for layer in wrappers(fn):
        kind = type(layer)  # not isinstance, which reads __class__: a hostile object's may raise
        if issubclass(kind, functools.partial):
            named += arguments(layer.func, layer.args, dict(layer.keywords))
        elif issubclass(kind, types.MethodType):
            named.append((_first_parameter(layer.__func__), layer.__self__))
        elif _call_method(layer) is not None and _wrapped(layer) is None:
            named.append((_first_parameter(_call_method(layer)), layer))  # a callable object
    return named


def _first_parameter(fn: Callable[..., Any]) -> str:
    try:
        return next(iter(inspect.signature(fn).parameters), "self")
    except Exception:  # noqa: BLE001 - no signature, or one a hostile __getattr__ breaks
        return "self"


class _Missing:
    """The type of :data:`MISSING`."""

    def __repr__(self) -> str:
        return "<missing>"


#: The one marker for "no value here", where None is a value: a global, dict key or attribute
#: that is not there (read with ``.get(name, MISSING)``), or an optional argument not given.
MISSING: Any = _Missing()

#: What :func:`cell_value` returns for an empty closure cell. It is not :data:`MISSING`: the
#: variable exists (assigned later, as a function defined before its helper), and it is put
#: back by emptying its cell, where a missing global is put back by removing the name.
EMPTY_CELL = object()


def cell_value(cell: types.CellType) -> Any:
    """The cell's contents, or :data:`EMPTY_CELL` for an empty cell."""
    try:
        return cell.cell_contents
    except ValueError:
        return EMPTY_CELL


def code_names(code: types.CodeType) -> set[str]:
    """Every global or attribute name used by ``code`` and the functions defined in it.

    Example:
      >>> def f(x):
      ...     return helper(x).total
      >>> sorted(code_names(f.__code__))
      ['helper', 'total']
    """
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= code_names(const)
    return names


def attributes_set(code: types.CodeType) -> set[str]:
    """The attribute names that ``code`` and the functions defined in it set or delete.

    Example:
      >>> def f(config, x):
      ...     config.last = x
      >>> sorted(attributes_set(f.__code__))
      ['last']
    """
    names = {
        i.argval
        for i in dis.get_instructions(code)
        if i.opname in ("STORE_ATTR", "DELETE_ATTR") and isinstance(i.argval, str)
    }
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= attributes_set(const)
    return names


def is_user_code(obj: Any) -> bool:
    """Whether a function or class is the user's code rather than JAX's, NumPy's or Python's."""
    top = (getattr(obj, "__module__", None) or "").partition(".")[0]
    return top not in _LIBRARIES


def is_user_object(value: Any) -> bool:
    """Whether ``value`` is an instance of the user's own class: its attributes are user state.

    Example:
      >>> class Model:
      ...     __module__ = "my_project.models"  # as if defined there (not in jaxpurity)
      >>> is_user_object(Model()), is_user_object(Model), is_user_object([])
      (True, False, False)
    """
    kind = type(value)  # not isinstance, which reads __class__: a hostile object's may raise
    if issubclass(kind, (type, types.ModuleType, types.FunctionType, types.MethodType)):
        return False
    return is_user_code(kind)


def scope_functions(fn: Callable[..., Any]) -> list[types.FunctionType]:
    """``fn``'s own function and the user functions it reaches in one step.

    That is: the unwrapped function, the functions in its closure and the
    functions that it names as globals, leaving out library code (JAX, NumPy,
    the standard library) whose state is not the user's.
    """
    root = unwrap(fn)
    if not isinstance(root, types.FunctionType):
        return []
    found = [root]
    values = [cell_value(c) for c in root.__closure__ or ()]
    values += [root.__globals__.get(n) for n in code_names(root.__code__)]
    for value in values:
        inner = unwrap(value) if callable(value) else None
        if isinstance(inner, types.FunctionType) and is_user_code(inner) and inner not in found:
            found.append(inner)
    return found


_MAX_FUNCTIONS = 300  # user functions followed from one call, so that a huge program stays quick


def _user_module(value: Any) -> bool:
    top = str(getattr(value, "__name__", "")).partition(".")[0]
    return isinstance(value, types.ModuleType) and top not in _LIBRARIES


def _held(value: Any) -> list[Any]:
    """What the walk goes on to from a value: the layers of a callable, and what each binds
    (a partial's arguments, a bound method's ``self``), a user object's class, a class's
    methods, the items of a list, tuple or dict."""
    found: list[Any] = []
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)[:_MAX_FUNCTIONS]
    if isinstance(value, dict):
        return list(value.values())[:_MAX_FUNCTIONS]
    if isinstance(value, type):
        if not is_user_code(value):
            return []
        for attr in vars(value).values():
            found.append(getattr(attr, "__func__", attr))  # staticmethod, classmethod
            if isinstance(attr, property):
                found += [attr.fget, attr.fset, attr.fdel]
        return found
    if is_user_object(value):
        found.append(type(value))
    if callable(value):
        for layer in wrappers(value):
            found.append(layer)
            if isinstance(layer, functools.partial):
                found += [*layer.args, *layer.keywords.values()]
            elif isinstance(layer, types.MethodType):
                found.append(layer.__self__)
    return found


def _next_from(
    value: Any,
    root: Any,
    functions: list[types.FunctionType],
    modules: list[types.ModuleType],
) -> list[Any]:
    """One step of :func:`reachable_code`: note ``value`` if it is user code or a user module,
    and say what the walk goes on to from it."""
    if isinstance(value, types.FunctionType):
        # The root is the user's whatever its module says (a check of jaxpurity's own code)
        if value is not root and not is_user_code(value):
            return []
        functions.append(value)
        names = code_names(value.__code__)
        found = [cell_value(c) for c in value.__closure__ or ()]
        found += [value.__globals__.get(n) for n in names]
        found += [*(value.__defaults__ or ()), *(value.__kwdefaults__ or {}).values()]
        for module in modules:
            found += [vars(module).get(n) for n in names]
        return found
    if _user_module(value):
        modules.append(value)
        return [vars(value).get(n) for f in list(functions) for n in code_names(f.__code__)]
    return _held(value)


def reachable_code(
    fn: Callable[..., Any], values: Iterable[Any] = ()
) -> tuple[list[types.FunctionType], list[types.ModuleType]]:
    """The user functions that calling ``fn`` can run, and the user modules they name.

    From ``fn``'s own function and the functions among ``values`` (its
    arguments), the walk follows, again and again: a function's closure, the
    globals and defaults it names, and the code defined in it; a partial's
    function and arguments; a bound method's function and ``self``; a user
    object's class, and a user class's methods; the items of lists, tuples and
    dicts held there; the attributes a function names on a user module. Library
    code (JAX, NumPy, the standard library) is not followed: its state is not the
    user's. What it finds is what a check must put back: every global, closure
    variable and module attribute that code can rebind.

    Example:
      >>> import jax
      >>> def helper(x):
      ...     return x + 1
      >>> helper.__module__ = "my_project.layers"  # as if defined there (not in jaxpurity)
      >>> def step(xs):
      ...     return jax.lax.scan(lambda c, x: (helper(c), x), 0.0, xs)
      >>> [f.__name__ for f in reachable_code(step)[0]]
      ['step', 'helper']
    """
    root = unwrap(fn)
    functions: list[types.FunctionType] = []
    modules: list[types.ModuleType] = []
    seen: set[int] = set()  # every value the walk has gone into: each once, cycles included
    queue = collections.deque([root, fn, *values])
    while queue and len(functions) < _MAX_FUNCTIONS:
        value = queue.popleft()
        if value is None or id(value) in seen:
            continue
        seen.add(id(value))
        try:
            queue.extend(_next_from(value, root, functions, modules))
        except Exception:  # noqa: BLE001 - one whose introspection raises (a hostile
            continue  # __getattribute__) is not followed: it holds no code of the user's
    return functions, modules


#: CPython's ``PyObject_GenericGetDict``: the dict an object's attributes live in, found where
#: Python keeps it (never through a ``__dict__`` its class defines), made if it has none yet.
_instance_dict = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object, ctypes.c_void_p)(
    ("PyObject_GenericGetDict", ctypes.pythonapi)
)


def own_attributes(value: Any, *, make: bool = False) -> dict[str, Any]:
    """The dict that holds ``value``'s own attributes, itself, found with no code of its class
    run: past a ``__getattr__`` that hands attribute reads on to something else (a Flax NNX
    ``Variable``, to its array), a ``__getattribute__`` that raises, and a ``__dict__`` that
    the class defines over the real one (a property, a class attribute).

    Where ``value`` holds no attribute, a new empty dict: its own is not made (Python 3.10 to
    3.12 would show it to :func:`gc.get_referents`) unless ``make``, to put attributes in.

    Example:
      >>> class Point:
      ...     def __init__(self):
      ...         self.x = 1
      >>> class Hidden:
      ...     __dict__ = property()  # reading hidden.__dict__ raises
      >>> hidden = Hidden()
      >>> hidden.y = 2
      >>> own_attributes(Point()), own_attributes(hidden), own_attributes(3)
      ({'x': 1}, {'y': 2}, {})
    """
    kind = type(value)
    if issubclass(kind, type):
        return {}  # a class's namespace is read with vars(), and never changed in place
    if not make and len(held := gc.get_referents(value)) <= 1 and all(h is kind for h in held):
        return {}  # it refers to its class alone: no attribute, and no dict of them
    try:
        return _instance_dict(ctypes.py_object(value), None)  # wrapped: ctypes reads no dunder
    except AttributeError:  # no dict of its own
        return {}


def slot_names(cls: type) -> tuple[str, ...]:
    """The attribute names of the slots ``cls``'s instances hold values in, over its MRO (a
    ``__x`` slot of class ``C`` is ``_C__x``).

    Example:
      >>> class Pair:
      ...     __slots__ = ("a", "__b")
      >>> slot_names(Pair)
      ('a', '_Pair__b')
    """
    names: list[str] = []
    for klass in cls.__mro__:
        declared = vars(klass).get("__slots__", ())
        for name in [declared] if isinstance(declared, str) else declared:
            if not isinstance(name, str) or name in ("__dict__", "__weakref__"):
                continue
            if name.startswith("__") and not name.endswith("__"):
                name = f"_{klass.__name__.lstrip('_')}{name}"
            if name not in names:
                names.append(name)
    return tuple(names)
