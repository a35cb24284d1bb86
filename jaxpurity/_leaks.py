"""Find the tracers that escaped a trace, and say in words where each one is stored.

:func:`find_leaks` traces a function once, then looks for tracers that are
still alive although every trace has ended, and walks the garbage
collector's references up from each one to a name a user knows: a global, a
closure variable, an argument, a class attribute.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import gc
import inspect
import itertools
import ntpath  # its basename splits at "/" and at "\\": paths from any system
import sys
import textwrap
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np
from jax._src import config as _jax_config  # the check_tracer_leaks State, to switch it off

from jaxpurity._typediff import describe_leaf, is_tracer

__all__ = ["Leak", "find_leaks"]

ARRAYS = (jax.Array, np.ndarray, np.generic)
SCALARS = (bool, int, float, complex)
# Leaves that jax.jit traces; every other leaf is passed through as a Python value.
TRACEABLE = (*ARRAYS, *SCALARS)
_MAX_DEPTH = 12  # reference hops walked up from a tracer before giving up on a name
_MAX_WIDTH = 2000  # objects looked at per hop, so that a huge object graph stays quick
_MUTATORS = frozenset(
    "append extend insert add update setdefault appendleft extendleft __setitem__".split()
)
# What a user calls the transformation that made each kind of tracer, for the tracers
# that do not record it themselves (JAX records it on jaxpr tracers only).
_TRACER_ORIGIN = {
    "DynamicJaxprTracer": "jit",
    "JaxprTracer": "grad",
    "JVPTracer": "jvp/grad",
    "LinearizeTracer": "grad",
    "BatchTracer": "vmap",
}
# JAX's own names for what a jaxpr tracer was "traced for", in the words of the API a user
# called: JAX 0.10.2 says "while_body", JAX 0.4.35 "while_loop" (and fori_loop runs as one
# of scan or while_loop there).
_TRACED_FOR = {
    "while_body": "while_loop",
    "while_cond": "while_loop",
    "checkpoint / remat": "checkpoint",
}


@dataclass(frozen=True)
class Leak:
    """A tracer that outlived the trace that made it.

    Attributes:
      where: Where it is stored, from a name you know down to the tracer, for
        example ``"global `saved` (a list), item 0"`` or ``"closure variable
        `cache` of `step`"``.
      function: The traced function's qualified name.
      tracer: The tracer's type and the transformation that made it, for
        example ``"float32[3] tracer (from jit)"``.
      line: The source line that stored it, as ``"file.py:12: saved.append(x)"``,
        or None when it cannot be found.
      root: Where ``where`` starts: ``"global"``, ``"closure"``,
        ``"argument"`` or ``"unknown"``.
      transformation: What traced the code that made the tracer, named after
        its API: ``"jit"``, ``"scan"``, ``"while_loop"``, ``"fori_loop"``,
        ``"cond"``, ``"grad"``, ``"vmap"``, ... (a leak out of a loop body
        says the loop, not the ``jit`` around it).
    """

    where: str
    function: str
    tracer: str
    line: str | None
    root: str
    transformation: str

    def __str__(self) -> str:
        text = f"`{self.function}` leaked a {self.tracer} into {self.where}"
        return text if self.line is None else f"{text}\n  stored at {self.line}"


# ----------------------------------------------------------------- tracing


def is_jit(fn: Any) -> bool:
    """Whether ``fn`` is a :func:`jax.jit` wrapper (it has a compile cache and a body)."""
    return callable(getattr(fn, "_cache_size", None)) and hasattr(fn, "__wrapped__")


def strip_jit(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The function inside any :func:`jax.jit` wrappers, so that tracing runs its body.

    What a bound method or a :func:`functools.partial` binds is kept: for
    ``obj.update`` where ``update`` is a jitted method, the result is the
    body of ``update`` bound to ``obj``.
    """
    # A bound method first: it forwards attribute lookups to its function, so a bound
    # jitted method looks like a jit wrapper whose __wrapped__ has lost `self`.
    if isinstance(fn, types.MethodType):
        inner = strip_jit(fn.__func__)
        return fn if inner is fn.__func__ else types.MethodType(inner, fn.__self__)
    if isinstance(fn, functools.partial):
        inner = strip_jit(fn.func)
        return fn if inner is fn.func else functools.partial(inner, *fn.args, **fn.keywords)
    return strip_jit(fn.__wrapped__) if is_jit(fn) else fn


def unwrap(fn: Any) -> Any:
    """The Python function whose code runs when ``fn`` is called (through partials,
    bound methods, ``functools.wraps`` and ``jit`` wrappers, and callable objects)."""
    for _ in range(100):
        if isinstance(fn, functools.partial):
            fn = fn.func
        elif isinstance(fn, types.MethodType):
            fn = fn.__func__
        elif getattr(fn, "__wrapped__", None) is not None:
            fn = fn.__wrapped__
        elif not isinstance(fn, (types.FunctionType, type)) and isinstance(
            inspect.getattr_static(type(fn), "__call__", None), types.FunctionType
        ):
            fn = type(fn).__call__
        else:
            break
    return fn


def qualname(obj: Any) -> str:
    """The name a user gave a function or class: ``"step"``, ``"Accumulator.update"``.

    Functions and classes are looked through (:func:`unwrap`), and the
    ``outer.<locals>.`` part of a nested name is left out.
    """
    inner = unwrap(obj)
    name = getattr(inner, "__qualname__", None) or getattr(inner, "__name__", None) or repr(obj)
    return name.rsplit("<locals>.", 1)[-1]


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
    except (TypeError, ValueError):
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
    """The call's arguments by name, with what bound methods and partials bind (``self``)."""
    named = arguments(fn, args, kwargs)
    inner = fn
    for _ in range(100):
        if isinstance(inner, functools.partial):
            named += arguments(inner.func, inner.args, dict(inner.keywords))
            inner = inner.func
        elif isinstance(inner, types.MethodType):
            named.append((_first_parameter(inner.__func__), inner.__self__))
            inner = inner.__func__
        elif getattr(inner, "__wrapped__", None) is not None:
            inner = inner.__wrapped__
        else:
            if unwrap(inner) is not inner and not isinstance(inner, type):  # a callable object
                named.append((_first_parameter(unwrap(inner)), inner))
            break
    return named


def _first_parameter(fn: Callable[..., Any]) -> str:
    try:
        return next(iter(inspect.signature(fn).parameters), "self")
    except (TypeError, ValueError):
        return "self"


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


_EMPTY = object()


def cell_value(cell: types.CellType) -> Any:
    """The cell's contents, or a private sentinel for an empty cell."""
    try:
        return cell.cell_contents
    except ValueError:
        return _EMPTY


def code_names(code: types.CodeType) -> set[str]:
    """Every global or attribute name used by ``code`` and the functions defined in it."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= code_names(const)
    return names


def is_user_code(obj: Any) -> bool:
    """Whether a function or class is the user's code rather than JAX's, NumPy's or Python's."""
    top = (getattr(obj, "__module__", None) or "").partition(".")[0]
    return top not in {"jax", "jaxlib", "numpy", "jaxpurity"} and (
        top not in sys.stdlib_module_names
    )


@dataclass
class SplitCall:
    """A call ``fn(*args, **kwargs)`` with its array leaves pulled out to be traced.

    ``args`` and ``kwargs`` have the call's structure, with each leaf that is
    not traced (an object, a string) replaced by None, an empty pytree. So
    :func:`jax.jit` gets the arguments where ``fn`` takes them, and its
    errors name them as they would for ``fn`` itself: ``x``, ``params['w']``.
    """

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    rebuild: Callable[[Any], tuple[tuple[Any, ...], dict[str, Any]]]

    @classmethod
    def of(cls, args: tuple[Any, ...], kwargs: dict[str, Any]) -> SplitCall:
        """Split the call: arrays and Python numbers are traced, other leaves stay as they are."""
        leaves, treedef = jax.tree_util.tree_flatten((args, kwargs))
        where = [i for i, x in enumerate(leaves) if isinstance(x, TRACEABLE)]

        def rebuild(traced: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
            full = list(leaves)
            for i, v in zip(where, jax.tree_util.tree_leaves(traced), strict=True):
                full[i] = v
            return treedef.unflatten(full)

        kept = set(where)
        split = treedef.unflatten([x if i in kept else None for i, x in enumerate(leaves)])
        return cls(*split, rebuild)

    def traceable(self, fn: Callable[..., Any]) -> Callable[..., list[Any]]:
        """A new function of ``self.args`` and ``self.kwargs`` that calls ``fn`` and returns
        its array leaves.

        It is a fresh object each time, so JAX's caches never skip its trace.
        It wraps ``fn`` (:func:`functools.wraps`): JAX's errors name ``fn``,
        its source line, and its parameters, found through ``__wrapped__``.
        """

        @functools.wraps(fn)
        def body(*args: Any, **kwargs: Any) -> list[Any]:
            a, k = self.rebuild((args, kwargs))
            return array_leaves(fn(*a, **k))

        return body


def array_leaves(tree: Any) -> list[Any]:
    """The leaves of ``tree`` that JAX can return from a traced function."""
    return [
        x for x in jax.tree_util.tree_leaves(tree) if isinstance(x, (*TRACEABLE, jax.core.Tracer))
    ]


def _subclasses(cls: type) -> set[type]:
    found = {cls}
    for sub in cls.__subclasses__():
        found |= _subclasses(sub)
    return found


def _live_tracers() -> list[Any]:
    """Every tracer object alive now (a hash lookup per object: the heap can be large)."""
    kinds = _subclasses(jax.core.Tracer)
    return [o for o in gc.get_objects() if type(o) in kinds]


_FRESH = itertools.count()


@contextlib.contextmanager
def uncached_tracing() -> Iterator[None]:
    """Within the block, JAX's trace caches miss: every loop body and inner jit runs again.

    JAX caches the jaxpr of each ``scan``, ``while_loop``, ``fori_loop`` and
    ``cond`` body, and of each inner :func:`jax.jit`, by the function and the
    *trace context* (the config values that can change a trace). After the
    first trace, a body's Python code does not run again in the process, so
    a side effect in it (a tracer appended to a list) cannot be seen. One of
    those config values, ``jax_hlo_source_file_canonicalization_regex``,
    only strips matches from file names in a compiled program's metadata.
    Set to a regex that matches nothing (so nothing changes) and that no
    other trace has used, it makes every cache lookup in the block miss.
    Cache entries made outside the block are neither used nor changed. Each
    block adds entries of its own (one per function traced in it), which JAX
    keeps while the function lives: measured, about 60 KB per
    :func:`find_leaks` of a small ``scan`` on JAX 0.10.2.
    """
    never = f"(?!)jaxpurity-{next(_FRESH)}"  # "(?!)" matches no text at all
    with _jax_config.hlo_source_file_canonicalization_regex(never):
        yield


def trace_finding_leaks(
    fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, SplitCall, list[Leak]]:
    """Trace ``fn`` once with :func:`jax.jit`, and find the tracers that leaked from it.

    The trace runs under :func:`uncached_tracing`, so that loop bodies JAX
    traced before run again and their leaks are seen.

    Returns:
      The ``jax.stages.Traced`` of the traced call, the split call (to run
      it), and the leaks.
    """
    target = strip_jit(fn)
    call = SplitCall.of(args, kwargs)
    before = _live_tracers()  # held until the end, so that no id is reused
    # JAX's own checker would raise first: it is switched off, and restored after.
    with _jax_config.check_tracer_leaks(False), uncached_tracing():
        traced = jax.jit(call.traceable(target)).trace(*call.args, **call.kwargs)
    gc.collect()  # tracers that only a reference cycle keeps alive are garbage, not leaks
    old = {id(t) for t in before}
    new = [t for t in _live_tracers() if id(t) not in old]
    leaks = _Locator(target, named_arguments(target, args, kwargs), ignore=[before, new]).leaks(new)
    del before, new
    return traced, call, leaks


def find_leaks(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> list[Leak]:
    """Trace ``fn(*args, **kwargs)`` once and report every tracer that escaped.

    A tracer escapes ("leaks") when the function stores it somewhere that
    outlives the trace: a global, a closure variable, an attribute of an
    argument, a container reachable from any of those. JAX only notices when
    the stale tracer is used later (``UnexpectedTracerError``), or, under
    :func:`jax.checking_leaks`, with a raw reference chain. This names the
    place in your words, says which function was traced, and points at the
    source line that stored it when it can find one.

    Arrays and Python numbers among the arguments are traced, as
    :func:`jax.jit` would trace them; any other leaf (an object, a string) is
    passed in unchanged. Bind arguments that must stay static (a size, a
    flag) with :func:`functools.partial`. A :func:`jax.jit` wrapper around
    ``fn`` is looked through, so that its body really runs.

    ``fn`` runs exactly once, under a trace: its trace-time side effects
    happen once, as for one ``jit`` compilation, and nothing it changed is
    undone. The loop bodies and inner ``jit`` functions it calls run too,
    even where JAX cached their traces before: JAX's caches are bypassed for
    this one trace, not cleared (``jaxpurity._leaks.uncached_tracing`` says
    how). JAX's own leak checker (``jax_check_tracer_leaks``) is switched
    off during the trace and restored after. Call it from plain Python, not
    inside another trace or while other threads trace.

    Args:
      fn: The function to check, or a :func:`jax.jit` of it.
      *args: Positional arguments for ``fn``.
      **kwargs: Keyword arguments for ``fn``.

    Returns:
      One :class:`Leak` per escaped tracer; an empty list means no leak.

    Raises:
      Exception: Whatever ``fn`` raises while it is traced.

    Example:
      >>> import jax.numpy as jnp
      >>> seen = []
      >>> def remember(x):
      ...     seen.append(x)
      ...     return x * 2
      >>> [leak] = find_leaks(remember, jnp.ones(3))
      >>> leak.where
      'global `seen` (a list), item 0'
      >>> print(leak)  # doctest: +ELLIPSIS
      `remember` leaked a float32[3] tracer (from jit) into global `seen` (a list), item 0
        stored at ...:2: seen.append(x)
      >>> find_leaks(lambda x: x * 2, jnp.ones(3))
      []
    """
    return trace_finding_leaks(fn, args, kwargs)[2]


# ----------------------------------------------------------------- naming the place


@dataclass(frozen=True)
class _Step:
    """One hop from a container down to what it holds, in words."""

    text: str
    name: str | None = None  # the identifier the source would use for this hop
    key: Any = None  # a dict key: under an instance's ``__dict__`` it is an attribute


@dataclass(frozen=True)
class _Root:
    """Where a path starts: a name the user knows."""

    kind: str  # "global", "closure", "argument" ("unknown" when no path is found)
    text: str
    name: str | None
    weak: bool = False  # a closure of a function found elsewhere: keep looking above it


# Letters whose names start with a vowel sound ("em", "ex"): an `M` object, an `RNN`.
_VOWEL_LETTER_NAMES = frozenset("AEFHILMNORSX")


def _article(word: str) -> str:
    """``"an"`` before a vowel sound: by the first letter, or its name for a name read
    letter by letter (one letter, or all capitals: ``M``, ``MLP``)."""
    name = word.strip("`_")
    if len(name) == 1 or name.isupper():
        return "an" if name[:1].upper() in _VOWEL_LETTER_NAMES else "a"
    return "an" if name[:1].lower() in set("aeiou") else "a"


_CONTAINERS = (list, dict, set, tuple, frozenset)


LRU_CACHE = "a function cached with functools.lru_cache"


def _is_lru_cache(obj: Any) -> bool:
    return callable(obj) and hasattr(obj, "cache_info") and hasattr(obj, "__wrapped__")


def kind_of(obj: Any) -> str:
    """A few words for what ``obj`` is: ``"a list"``, ``"an `Accumulator` object"``."""
    if _is_lru_cache(obj):
        return LRU_CACHE
    if isinstance(obj, _CONTAINERS):
        name = type(obj).__name__
        return f"{_article(name)} {name}"
    if isinstance(obj, types.FunctionType):
        return f"a function `{qualname(obj)}`"
    if isinstance(obj, type):
        return f"a class `{qualname(obj)}`"
    name = f"`{qualname(type(obj))}`"
    return f"{_article(name)} {name} object"


def short_repr(value: Any, limit: int = 40) -> str:
    """``repr(value)``, cut to ``limit`` characters, and never an error."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide a finding
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _root_kind(child: Any) -> str:
    """What a root holds, as `` (a list)``; nothing when it holds the tracer itself."""
    return "" if is_tracer(child) else f" ({kind_of(child)})"


def _step_kind(child: Any) -> str:
    """What a step reaches, when it is an object whose attributes come next."""
    plain = (*_CONTAINERS, types.CellType, types.FrameType, types.TracebackType, types.FunctionType)
    return "" if is_tracer(child) or isinstance(child, plain) else f" ({kind_of(child)})"


def _collapse(steps: list[_Step]) -> list[_Step]:
    """Read ``__dict__`` then ``key 'total'`` as ``attribute `total```."""
    if len(steps) >= 2 and steps[0].text == "__dict__" and isinstance(steps[1].key, str):
        key = steps[1].key
        suffix = steps[1].text[len(f"key {key!r}") :]
        return [_Step(f"attribute `{key}`{suffix}", key), *steps[2:]]
    return steps


class _Locator:
    """Walks references up from leaked tracers to names a user knows."""

    def __init__(
        self,
        fn: Callable[..., Any],
        named_args: list[tuple[str, Any]],
        ignore: list[Any],
    ) -> None:
        self.fn_name = qualname(fn)
        self.scope = scope_functions(fn)
        self.module = getattr(unwrap(fn), "__module__", None)
        self.args = {id(v): (name, v) for name, v in named_args if not isinstance(v, TRACEABLE)}
        self.ignore = {id(x) for x in [*ignore, named_args, self.args]}
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
        self.ignore.update({id(self.visited), id(self.codes), id(self.methods)})

    def referrers(self, *objs: Any) -> list[Any]:
        found = gc.get_referrers(*objs)
        self.ignore.add(id(found))
        return [r for r in found if id(r) not in self.ignore and not is_tracer(r)]

    def leaks(self, tracers: list[Any]) -> list[Leak]:
        self.ignore.add(id(tracers))
        found = self.places(tracers)
        named = [self.leak(t, found[i]) for i, t in enumerate(tracers) if i in found]
        if named or not tracers:
            # A leaked tracer keeps its whole trace alive, and so every tracer the trace
            # made: those are reachable only through JAX's internals, and have no name.
            return named
        return [self.leak(tracers[0], None)]

    def leak(self, tracer: Any, found: tuple[_Root, list[_Step]] | None) -> Leak:
        if found is None:
            root, steps = _Root("unknown", "a place jaxpurity could not name", None), []
        else:
            root, steps = found
        where = ", ".join([root.text, *(s.text for s in steps if s.text)])
        names = [s.name for s in reversed(steps) if s.name] + [root.name] * bool(root.name)
        origin = transformation_of(tracer)
        try:
            kind = describe_leaf(tracer)
        except TypeError:
            kind = type(tracer).__name__
        return Leak(
            where=where,
            function=self.fn_name,
            tracer=f"{kind} tracer (from {origin})",
            line=_store_line(self.codes, self.methods, [n for n in names if n is not None]),
            root=root.kind,
            transformation=origin,
        )

    def places(self, tracers: list[Any]) -> dict[int, tuple[_Root, list[_Step]]]:
        """Breadth first from all tracers at once: one scan of the heap per level."""
        paths: dict[int, dict[int, list[_Step]]] = {id(t): {i: []} for i, t in enumerate(tracers)}
        done: dict[int, tuple[_Root, list[_Step]]] = {}
        weak: dict[int, tuple[_Root, list[_Step]]] = {}
        self.ignore.update({id(paths), id(done), id(weak)})
        frontier = list(tracers)
        for _ in range(_MAX_DEPTH):
            self.ignore.add(id(frontier))
            for node in frontier:
                if id(node) in self.args:
                    name, value = self.args[id(node)]
                    root = _Root("argument", f"argument `{name}`{_root_kind(value)}", name)
                    for i, steps in paths[id(node)].items():
                        done.setdefault(i, (root, steps))
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
                            if isinstance(hop, _Root):
                                (weak if hop.weak else done).setdefault(i, (hop, steps))
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
        return {**weak, **done}

    def hops(self, parent: Any, child: Any) -> list[_Root | tuple[Any, _Step]]:
        """How ``parent`` holds ``child``: as a named root, or as a step up to ``parent``."""
        if isinstance(parent, dict):
            keys = [k for k, v in list(parent.items()) if v is child]
            if id(parent) in self.modules:
                module = self.modules[id(parent)]
                of = "" if module == self.module else f" of module `{module}`"
                return [
                    _Root("global", f"global `{k}`{of}{_root_kind(child)}", str(k)) for k in keys
                ]
            return [(parent, _Step(f"key {k!r}{_step_kind(child)}", None, k)) for k in keys]
        if isinstance(parent, (list, tuple)):
            return [
                (parent, _Step(f"item {i}{_step_kind(child)}"))
                for i, v in enumerate(list(parent))
                if v is child
            ]
        if isinstance(parent, (set, frozenset)):
            return [(parent, _Step(f"an element of the set{_step_kind(child)}"))]
        if isinstance(parent, types.CellType):
            return self.cell_hops(parent, child)
        if isinstance(parent, types.FrameType):
            name = parent.f_code.co_name
            return [
                (parent, _Step(f"local variable `{k}` of a finished call of `{name}`"))
                for k, v in list(parent.f_locals.items())
                if v is child
            ]
        if isinstance(parent, types.TracebackType):
            return [(parent, _Step(""))]  # the frame below names the call
        if isinstance(parent, BaseException):
            what = "its traceback" if child is parent.__traceback__ else "its arguments"
            return [(parent, _Step(what))]
        if isinstance(parent, type):
            # A class keeps its attributes in a dict of its own (vars() gives a proxy of it).
            return [(parent, _Step("__dict__"))] if isinstance(child, dict) else []
        if _is_lru_cache(parent):
            return [(parent, _Step("one of its cached results"))]
        attrs = _attributes_holding(parent, child)
        self.add_methods(parent)
        if not attrs:
            return [(parent, _Step(f"inside {kind_of(parent)}"))]
        if attrs == ["__dict__"]:
            return [(parent, _Step("__dict__"))]  # read with the key below it, by _collapse
        return [(parent, _Step(f"attribute `{a}`{_step_kind(child)}", a)) for a in attrs]

    def cell_hops(self, cell: types.CellType, child: Any) -> list[_Root | tuple[Any, _Step]]:
        """A closure cell: name the variable after the functions that close over it."""
        owners = [
            f
            for t in self.referrers(cell)
            if isinstance(t, tuple)
            for f in self.referrers(t)
            if isinstance(f, types.FunctionType) and f.__closure__ is t
        ]
        hops: list[_Root | tuple[Any, _Step]] = []
        for f in owners:
            # By identity: cells compare by their contents, and a tracer's == is no bool.
            index = next(i for i, c in enumerate(f.__closure__) if c is cell)
            name = f.__code__.co_freevars[index]
            text = f"closure variable `{name}` of `{qualname(f)}`"
            self.codes.append(f.__code__)
            if f in self.scope:
                hops.append(_Root("closure", text + _root_kind(child), name))
            else:  # a function kept somewhere: name that place if there is one
                hops.append(_Root("closure", text + _root_kind(child), name, weak=True))
                hops.append((f, _Step(text + _step_kind(child), name)))
        return hops

    def add_methods(self, obj: Any) -> None:
        """Search the methods of ``obj``'s class, too, for the line that stored the tracer."""
        for klass in type(obj).__mro__:
            for value in list(vars(klass).values()):
                if isinstance(value, types.FunctionType) and is_user_code(value):
                    if value.__code__ not in self.codes + self.methods:
                        self.methods.append(value.__code__)


def transformation_of(tracer: Any) -> str:
    """What traced the code that made ``tracer``: ``"jit"``, ``"scan"``, ``"vmap"``, ..."""
    debug_info = getattr(tracer, "_debug_info", None)  # JAX's record, on jaxpr tracers
    traced_for = getattr(debug_info, "traced_for", None)
    if isinstance(traced_for, str):
        return _TRACED_FOR.get(traced_for, traced_for)
    return _TRACER_ORIGIN.get(type(tracer).__name__, type(tracer).__name__)


def _attributes_holding(obj: Any, child: Any) -> list[str]:
    """The attributes of ``obj`` whose value is ``child`` (``["__dict__"]`` for its dict)."""
    try:
        namespace = vars(obj)
    except TypeError:
        namespace = {}
    if namespace is child:
        return ["__dict__"]
    names = [k for k, v in list(namespace.items()) if v is child]
    for klass in type(obj).__mro__:
        for slot in vars(klass).get("__slots__", ()):
            if isinstance(slot, str) and getattr(obj, slot, None) is child:
                names.append(slot)
    return names


def _store_line(
    codes: list[types.CodeType], methods: list[types.CodeType], names: list[str]
) -> str | None:
    """The line that stored the tracer into something named ``names[0]`` (or the next name).

    First the first such line in ``codes`` (the traced function and the code it
    reaches), in order. Else a line in ``methods`` (of the objects on the way
    to the tracer), only when one method has one, or one of the methods that
    ``codes`` call by name does. None when unsure: no line beats a wrong one.
    """
    called = set().union(*(code_names(c) for c in codes))
    for name in names:
        for code in codes:
            found = _first_store(code, name)
            if found is not None:
                return found
        stores = {code: _first_store(code, name) for code in methods}
        candidates = [code for code, found in stores.items() if found is not None]
        calls = [code for code in candidates if code.co_name in called]
        for likely in (calls, candidates):
            if len(likely) == 1:
                return stores[likely[0]]
        if candidates:
            return None
    return None


def _first_store(code: types.CodeType, name: str) -> str | None:
    """``"file.py:12: source"`` for the first statement in ``code`` that stores into ``name``."""
    tree = _source_tree(code)
    if tree is None:
        return None
    filename, first, lines, root = tree
    found = [n.lineno for n in ast.walk(root) if _stores_into(n, name)]
    if not found:
        return None
    line = min(found)
    return f"{ntpath.basename(filename)}:{first + line - 1}: {lines[line - 1].strip()}"


@functools.lru_cache(maxsize=256)
def _source_tree(code: types.CodeType) -> tuple[str, int, list[str], ast.AST] | None:
    try:
        lines, first = inspect.getsourcelines(code)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return None
    return code.co_filename, max(first, 1), [line.rstrip("\n") for line in lines], tree


def _mentions(node: ast.AST, name: str) -> bool:
    """Whether an assignment target or method receiver is ``name`` or goes through it."""
    while True:
        if isinstance(node, ast.Name):
            return node.id == name
        if isinstance(node, ast.Attribute):
            if node.attr == name:
                return True
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, (ast.Tuple, ast.List)):
            return any(_mentions(e, name) for e in node.elts)
        elif isinstance(node, ast.Starred):
            node = node.value
        else:
            return False


def _is_literal(node: ast.AST | None) -> bool:
    """Whether an expression is a constant, or a container display of constants: no tracer."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(map(_is_literal, node.elts))
    if isinstance(node, ast.Dict):
        return all(map(_is_literal, [*node.keys, *node.values]))
    return False


def _stores_into(node: ast.AST, name: str) -> bool:
    """Whether a statement may store a tracer into ``name`` (storing a literal cannot)."""
    if isinstance(node, ast.Assign):
        return not _is_literal(node.value) and any(_mentions(t, name) for t in node.targets)
    if isinstance(node, ast.AnnAssign):  # `x: int` alone stores nothing
        value = node.value
        return value is not None and not _is_literal(value) and _mentions(node.target, name)
    if isinstance(node, ast.AugAssign):
        return _mentions(node.target, name)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _MUTATORS:
            literal = all(map(_is_literal, [*node.args, *(k.value for k in node.keywords)]))
            return not literal and _mentions(func.value, name)
        if isinstance(func, ast.Name) and func.id == "setattr" and len(node.args) >= 2:
            attr = node.args[1]
            return isinstance(attr, ast.Constant) and attr.value == name
    return False
