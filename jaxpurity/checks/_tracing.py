"""The tracing harness: trace a call once, as jit would, and see which tracers outlived it.

:func:`find_leaks` and :func:`check_pure` trace a user's call with
:func:`trace_once`. It splits the arguments into what ``jit`` traces (arrays
and Python numbers) and what it passes through (:class:`SplitCall`), gets
JAX's caches and its own leak checker out of the way, and returns the
tracers that are still alive once the trace has ended.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import itertools
import sys
import sysconfig
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np
from jax.experimental import checkify

from jaxpurity._introspect import cell_value, is_user_object, wraps
from jaxpurity._jax_compat import (
    Tracer,
    cached_by_caller,
    eager_programs,
    forget_eager_programs,
    forget_traces,
    fresh_trace_context,
    is_ref,
    leak_checker_off,
    static_data,
)
from jaxpurity._trees import not_a_tree, tree_problem
from jaxpurity.checks._process import Holder, holders_of

__all__ = [
    "ARRAYS",
    "SCALARS",
    "TRACEABLE",
    "RaisedWhileTraced",
    "is_traceable",
    "SplitCall",
    "array_leaves",
    "flatten_arguments",
    "leaves_of",
    "forgetting_traces",
    "Traced",
    "trace_once",
    "tracers_within",
    "uncached_tracing",
]

ARRAYS = (jax.Array, np.ndarray, np.generic)
SCALARS = (bool, int, float, complex)
#: The types of the leaves that jax.jit may trace (see :func:`is_traceable`).
TRACEABLE = (*ARRAYS, *SCALARS)


def is_traceable(leaf: Any) -> bool:
    """Whether jax.jit traces ``leaf``: an array or a number; any other leaf is passed through.

    A NumPy string, bytes or object (``np.str_("relu")``, an array of strings) is
    no JAX type: jit cannot trace it, so it is kept as a Python value. A
    :func:`jax.new_ref <jax.ref.new_ref>` array is an input of the program, as jit makes it.

    Example:
      >>> import numpy as np
      >>> is_traceable(np.float32(2.0)), is_traceable(np.str_("relu")), is_traceable("relu")
      (True, False, False)
    """
    kind = type(leaf)  # not isinstance, which reads __class__: a hostile object's may raise
    if issubclass(kind, (np.ndarray, np.generic)):
        return bool(leaf.dtype == np.bool_ or jax.numpy.issubdtype(leaf.dtype, np.number))
    return issubclass(kind, TRACEABLE) or is_ref(leaf)  # jit takes a Ref as an input


@dataclass
class SplitCall:
    """A call ``fn(*args, **kwargs)`` with its array leaves pulled out to be traced.

    ``args`` and ``kwargs`` have the call's structure, with each leaf that is
    not traced (an object, a string) replaced by None, an empty pytree. So
    :func:`jax.jit` gets the arguments where ``fn`` takes them, and its
    errors name them as they would for ``fn`` itself: ``x``, ``params['w']``.

    Example:
      >>> import jax.numpy as jnp
      >>> call = SplitCall.of((jnp.ones(2), "relu"), {"scale": 2.0})
      >>> call.args[1], call.kwargs
      (None, {'scale': 2.0})
      >>> call.rebuild((call.args, call.kwargs))[0][1]
      'relu'
    """

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    rebuild: Callable[[Any], tuple[tuple[Any, ...], dict[str, Any]]]
    flat: bool = False  # the traced leaves passed as one list (see flattened)

    @classmethod
    def of(
        cls,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        static: frozenset[int | str] = frozenset(),
        arrays_only: bool = False,
    ) -> SplitCall:
        """Split the call: arrays and Python numbers are traced, other leaves stay as they are.

        The arguments in ``static`` (positions, or names of keyword arguments)
        stay whole, as ``jit`` keeps its static arguments. With ``arrays_only``, Python
        numbers stay as they are too, as another library's jit keeps them (Equinox's
        ``filter_jit``, Flax's ``nnx.jit``: a module's ``inference: bool`` is no input).
        """
        marked = (
            tuple(_Kept(a) if i in static else a for i, a in enumerate(args)),
            {k: _Kept(v) if k in static else v for k, v in kwargs.items()},
        )
        raw, treedef = flatten_arguments(marked)
        kept = {i for i, x in enumerate(raw) if type(x) is _Kept}
        leaves = [x.value if type(x) is _Kept else x for x in raw]
        where = [
            i
            for i, x in enumerate(leaves)
            if is_traceable(x) and i not in kept and not (arrays_only and type(x) in SCALARS)
        ]

        def rebuild(traced: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
            full = list(leaves)
            for i, v in zip(where, jax.tree_util.tree_leaves(traced), strict=True):
                full[i] = v
            rebuilt: tuple[tuple[Any, ...], dict[str, Any]]
            rebuilt = jax.tree_util.tree_unflatten(treedef, full)
            return rebuilt

        kept = set(where)
        split_args, split_kwargs = jax.tree_util.tree_unflatten(
            treedef, [x if i in kept else None for i, x in enumerate(leaves)]
        )
        return cls(split_args, split_kwargs, rebuild)

    def traceable(
        self, fn: Callable[..., Any], static: list[Any] | None = None
    ) -> Callable[..., list[Any]]:
        """A new function of ``self.args`` and ``self.kwargs`` that calls ``fn`` and returns
        its array leaves; the static data of what ``fn`` returns is put in ``static``.

        It is a fresh object each time, so JAX's caches never skip its trace.
        It wraps ``fn`` (:func:`functools.wraps`): JAX's errors name ``fn``,
        its source line, and its parameters, found through ``__wrapped__``.
        """

        def leaves(out: Any) -> list[Any]:
            leaves = array_leaves(out)  # first: a result JAX cannot flatten is an error here
            if static is not None:
                static.extend(static_data(out))
            return leaves

        if self.flat:

            def flat_body(flat: list[Any]) -> list[Any]:
                a, k = self.rebuild(flat)
                return leaves(fn(*a, **k))

            return flat_body

        @wraps(fn)
        def body(*args: Any, **kwargs: Any) -> list[Any]:
            a, k = self.rebuild((args, kwargs))
            return leaves(fn(*a, **k))

        return body

    def flattened(self) -> SplitCall:
        """The same call with the traced leaves passed as one list, and no pytree around them.

        For :meth:`jax.jit(...).trace <jax.jit>`, which rebuilds the arguments'
        pytrees from placeholders to describe them: a pytree whose unflatten
        runs code (an ``__init__`` doing arithmetic) fails on those.
        """
        leaves = jax.tree_util.tree_leaves((self.args, self.kwargs))
        return SplitCall((leaves,), {}, self.rebuild, flat=True)


def flatten_arguments(tree: Any) -> tuple[list[Any], Any]:
    """``jax.tree_util.tree_flatten(tree)``, with a clear error for a reference cycle or a tree
    nested deeper than JAX's pytrees go.

    The tree is walked first (:func:`jaxpurity._trees.tree_problem`), not after JAX fails: on
    a dict that holds itself, JAX's recursion can leave the interpreter unable to recover.

    Example:
      >>> cycle = [1]
      >>> cycle.append(cycle)
      >>> flatten_arguments((cycle,))  # doctest: +ELLIPSIS
      Traceback (most recent call last):
      TypeError: jaxpurity: args holds a reference cycle: args[0][1] is args[0] again ...
    """
    if tree_problem(tree) is not None:
        args, kwargs = tree if _is_call(tree) else (tree, {})
        error = not_a_tree("jaxpurity", {"args": args, "kwargs": kwargs})
        if error is not None:
            raise error
    return jax.tree_util.tree_flatten(tree)


def _is_call(tree: Any) -> bool:
    """Whether ``tree`` is a call's ``(args, kwargs)``."""
    return type(tree) is tuple and len(tree) == 2 and type(tree[1]) is dict


def leaves_of(value: Any) -> list[Any] | None:
    """``jax.tree_util.tree_leaves(value)``; None for a value JAX cannot flatten (a reference
    cycle, a tree too deep), which is walked first, as :func:`flatten_arguments` does.

    Example:
      >>> cycle = {"a": 1.0}
      >>> cycle["self"] = cycle
      >>> leaves_of({"a": 1.0, "b": [2]}), leaves_of(cycle)
      ([1.0, 2], None)
    """
    if tree_problem(value) is not None:
        return None
    try:
        return jax.tree_util.tree_leaves(value)
    except Exception:  # noqa: BLE001 - a node whose flatten raises: no leaves to read
        return None


class _Kept:
    """A static argument, kept whole: one leaf, whatever pytree it is."""

    def __init__(self, value: Any) -> None:
        self.value = value


def array_leaves(tree: Any) -> list[Any]:
    """The leaves of ``tree`` that JAX can return from a traced function, and that say the same
    in every trace: not those of a :func:`jax.experimental.checkify.checkify` error, codes
    that each trace numbers anew (2 eagerly, 1 under jit, on JAX 0.4.35).

    Example:
      >>> import jax.numpy as jnp
      >>> array_leaves({"w": jnp.ones(2), "name": "relu", "n": 3})
      [3, Array([1., 1.], dtype=float32)]
    """
    if tree_problem(tree) is not None:  # walked first: see flatten_arguments
        result = "the function's result"
        error = not_a_tree("jaxpurity", {result: tree}, roots={result: "fn(...)"})
        if error is not None:
            raise error
    leaves = jax.tree_util.tree_leaves(tree, is_leaf=lambda x: isinstance(x, checkify.Error))
    return [x for x in leaves if is_traceable(x) or isinstance(x, Tracer)]


def _subclasses(cls: type) -> set[type]:
    found = {cls}
    sub: type
    for sub in cls.__subclasses__():
        found |= _subclasses(sub)
    return found


def _live_tracers(objects: list[Any] | None = None) -> list[Any]:
    """The tracers among ``objects``, by default every object the collector sees now (a hash
    lookup per object)."""
    kinds = _subclasses(Tracer)
    return [o for o in (gc.get_objects() if objects is None else objects) if type(o) in kinds]


def _collected_tracers() -> list[Any]:
    """The tracers alive once reference cycles are collected: those are garbage, not leaks."""
    gc.collect()
    return _live_tracers()


# Where objects made while the automatic collector is paused stay in generation 0: a collector
# with generations, as CPython's has been to 3.13 (3.14's is incremental; a free-threaded
# build's has none).
_YOUNG_STAY_YOUNG = sys.version_info < (3, 14) and not sysconfig.get_config_var("Py_GIL_DISABLED")


def _young_tracers() -> list[Any]:
    """The tracers in the collector's young generations, 0 and 1."""
    return _live_tracers(gc.get_objects(0) + gc.get_objects(1))


@contextlib.contextmanager
def _tracers_made_inside() -> Iterator[Callable[[], list[Any]]]:
    """While open, gives a function that returns the tracers made inside that are still alive.

    Reference cycles are collected first. Both the collection and the walk look only at the
    objects made inside, not the whole heap: in a process that holds a large heap (a test
    suite, a training script) the whole heap took most of a check's time. There are two ways.

    - If nothing is frozen, the objects alive before are frozen (:func:`gc.freeze`), out of
      the collector's sight, and unfrozen after.
    - If objects are frozen already, unfreezing would release them too. The program may have
      frozen them (a server about to fork), or the interpreter (Python 3.12 starts with
      some). So the young generations are collected on entry, and the automatic collector
      is paused inside, which keeps what the block makes in generation 0. After that, one
      collection of generation 0 and a walk of generations 0 and 1 are enough.
      - Where something collects an older generation inside (the traced code calls
        :func:`gc.collect`), the young tracers are noted just before, and looked for in the
        whole heap after.
      - Where the collector has no such generations, the whole heap is collected and walked,
        and the tracers alive on entry are left out.

    Example:
      >>> import jax
      >>> with _tracers_made_inside() as made_inside:
      ...     kept = []
      ...     _ = jax.jit(lambda x: kept.append(x) or x)(1.0)
      ...     [type(t).__name__ for t in made_inside()]
      ['DynamicJaxprTracer']
    """
    marker: list[Any] = []
    if not gc.get_freeze_count():
        gc.freeze()
        if not any(o is marker for o in gc.get_objects()):
            try:
                yield _collected_tracers
            finally:
                gc.unfreeze()
            return
        gc.unfreeze()  # this collector still shows what is frozen
    if not _YOUNG_STAY_YOUNG:
        before = {id(t): t for t in _live_tracers()}  # kept alive, so that no id is reused
        yield lambda: [t for t in _collected_tracers() if id(t) not in before]
        return
    # The ids of tracers made inside that a collection moved to the oldest generation. An id
    # stays theirs while they live, and the tracers alive on entry never had one of them.
    promoted: set[int] = set()

    def note_the_young(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] >= 1:
            promoted.update(id(t) for t in _young_tracers())

    def made_inside() -> list[Any]:
        if not promoted:
            gc.collect(0)
            return _young_tracers()
        promoted.update(id(t) for t in _young_tracers())
        return [t for t in _collected_tracers() if id(t) in promoted]

    collector_on = gc.isenabled()
    gc.collect(1)
    gc.disable()
    gc.callbacks.append(note_the_young)
    try:
        yield made_inside
    finally:
        gc.callbacks.remove(note_the_young)
        if collector_on:
            gc.enable()


class _FreshContext:
    """The trace context of :func:`uncached_tracing`: the same in every block, until retired."""

    def __init__(self) -> None:
        self._numbers = itertools.count()
        self.token = self._next()

    def _next(self) -> str:
        return f"jaxpurity-{next(self._numbers)}"

    def clean_up(self, keep: frozenset[tuple[int, int]] | None) -> None:
        """Drop the entries made for the user's code under the token; retire it if some stay."""
        if not forget_traces(self.token, keep=keep):
            retired, self.token = self.token, self._next()
            forget_traces(retired, keep=keep, of_jax_too=True)


_FRESH = _FreshContext()


@contextlib.contextmanager
def uncached_tracing() -> Iterator[None]:
    """Within the block, JAX's trace caches miss for the user's code: its loop bodies run again.

    JAX caches the jaxpr of each ``scan``, ``while_loop``, ``fori_loop`` and
    ``cond`` body, and of each inner :func:`jax.jit`, by the function and the
    *trace context* (the config values that can change a trace). After the
    first trace, a body's Python code does not run again in the process, so
    a side effect in it (a tracer appended to a list) cannot be seen. The
    block gets a trace context of its own
    (:func:`jaxpurity._jax_compat.fresh_trace_context`), which no trace of
    the caller's uses, so those lookups miss, while nothing in the programs
    changes. Cache entries made outside the block are neither used nor
    changed.

    Every block uses the same context, so that the entries JAX makes in it
    for its own functions (``jnp.sin``, the primitives) are made once and
    reused: memory stays flat however many checks run. Run the blocks within
    :func:`forgetting_traces`, which drops the entries made for the user's
    code, so that the next block traces that code again.
    """
    with fresh_trace_context(_FRESH.token):
        yield


@contextlib.contextmanager
def forgetting_traces() -> Iterator[Forgetting]:
    """When the block ends, JAX's caches forget the code :func:`uncached_tracing` traced in it.

    The entries are dropped (:func:`jaxpurity._jax_compat.forget_traces`)
    once the block's own objects (the wrappers traced, their programs) are
    gone, and with them the entries JAX keyed by those. Where an entry for
    the user's code cannot be dropped (JAX before 0.10.2 cannot evict from
    its C++ caches; nor is an entry dropped for a function the caller's code
    has traced too, since evicting drops them all), the context is retired
    and the next block gets a new one, and what JAX keeps under the retired
    one for its own functions is dropped. A loop or cond that the block ran
    outside ``jit`` (``check_pure``'s eager run) leaves a compiled program
    in JAX's cache of eager primitives; that cache is emptied
    (:func:`jaxpurity._jax_compat.forget_eager_programs`). Blocks run one at
    a time: callers hold :data:`jaxpurity.checks._guard.ONE_CHECK_AT_A_TIME`. A block that
    knows no loop or cond ran eagerly in it says so (``forgetting.loops_ran = False``): where
    JAX's cache cannot list what it holds, it is then kept.
    """
    keep, eager = cached_by_caller(), eager_programs()
    forgetting = Forgetting()
    try:
        yield forgetting
    finally:
        _FRESH.clean_up(keep)
        forget_eager_programs(eager, forgetting.loops_ran)


@dataclass
class Forgetting:
    """What a :func:`forgetting_traces` block knows of what it ran."""

    loops_ran: bool = True  # a loop or cond may have run outside jit: its programs are new


class RaisedWhileTraced(Exception):
    """The checked function raised ``error`` while :func:`trace_once` traced it: the user's
    bug (a check reports it), not the check's."""

    def __init__(self, error: Exception) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.error = error


def trace_once(fn: Callable[..., Any], call: SplitCall) -> Traced:
    """Trace ``fn`` on the split call once with :func:`jax.jit`; find the tracers it left.

    The trace runs under :func:`uncached_tracing`, so that loop bodies JAX
    traced before run again, and with JAX's own leak checker off (it would
    raise first), restored after. Where tracing the call as it is fails, it
    is tried once more with its leaves passed flat (:meth:`SplitCall.flattened`);
    if that fails too, the first error is raised, held in :class:`RaisedWhileTraced`.
    """
    with _tracers_made_inside() as made_inside:
        static: list[Any] = []
        with leak_checker_off(), uncached_tracing():
            try:
                traced = jax.jit(call.traceable(fn, static)).trace(*call.args, **call.kwargs)
            except Exception as error:
                flat = call.flattened()
                static.clear()
                try:
                    traced = jax.jit(flat.traceable(fn, static)).trace(*flat.args)
                except Exception:
                    raise RaisedWhileTraced(error) from None
                call = flat
        returned = tracers_within(static)
        del static
        kept = {id(t) for t in returned}
        escaped = [t for t in made_inside() if id(t) not in kept]
    return Traced(traced, escaped, returned, call, holders_of(escaped, [escaped, returned]))


@dataclass
class Traced:
    """What :func:`trace_once` found.

    Attributes:
      traced: The ``jax.stages.Traced`` of the call.
      escaped: The tracers made during the trace that are still alive after it
        (reference cycles collected first), outside what the call returned.
      returned: The tracers in the static data of what the call returned (a
        pytree's aux data, a static field): jit keeps them past the trace.
      call: The split call that was traced.
      holders: The dicts and lists that hold the escaped tracers, to be emptied of tracers
        when the check ends (:func:`jaxpurity.checks._process.empty`).
    """

    traced: Any
    escaped: list[Any]
    returned: list[Any]
    call: SplitCall
    holders: list[Holder]


_MAX_WALK = 10_000  # objects looked at for tracers in static data, so that a big one stays quick


def tracers_within(values: list[Any]) -> list[Any]:
    """The tracers that ``values`` hold, however deep: in containers, object attributes, the
    closures, defaults and partial arguments of functions.

    Example:
      >>> import jax
      >>> found = []
      >>> def f(x):
      ...     schedule = lambda step: x * step  # a function closing over a tracer
      ...     found.append(len(tracers_within([("schedule", schedule)])))
      ...     return x
      >>> _ = jax.jit(f)(1.0)
      >>> found
      [1]
    """
    found: list[Any] = []
    seen: set[int] = set()
    queue = list(values)
    while queue and len(seen) < _MAX_WALK:
        value = queue.pop()
        if id(value) in seen or isinstance(value, (str, bytes, int, float, type(None))):
            continue
        seen.add(id(value))
        if isinstance(value, Tracer):
            found.append(value)
        elif isinstance(value, (list, tuple, set, frozenset)):
            queue.extend(value)
        elif isinstance(value, dict):
            queue.extend(value.values())
        elif isinstance(value, functools.partial):
            queue.extend([value.func, *value.args, *value.keywords.values()])
        elif isinstance(value, types.FunctionType):
            queue.extend(cell_value(c) for c in value.__closure__ or ())
            queue.extend(value.__defaults__ or ())
        elif isinstance(value, types.MethodType):
            queue.extend([value.__func__, value.__self__])
        elif is_user_object(value) or dataclasses.is_dataclass(value):
            queue.extend(getattr(value, "__dict__", {}).values())
    return found
