"""Every private JAX name jaxpurity touches, and every JAX difference between versions.

No other module imports ``jax._src`` or reads a private attribute of a JAX
object: they call the functions here. Each entry says the JAX versions it was
checked on and the public API that replaces it where JAX has one. A JAX
upgrade that renames one of them fails in ``tests/test_jax_compat.py``, which
exercises each entry, with the entry's name in the failure.

Checked on: JAX 0.4.35 (the oldest supported), 0.6.2 (the newest for Python
3.10), 0.10.2 (the newest for Python 3.11) and 0.12.0.1.

The table of the class names JAX gives its tracers and traces is beside it, in
:mod:`jaxpurity._jax_names`: plain data, which :func:`jaxpurity.explain` reads
without importing JAX. :mod:`jaxpurity.checks._leaks`, :mod:`jaxpurity.checks._problems`
and the known errors all derive from that one table.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import jax

# Private modules. No public API turns the leak checker off for one block, or changes the
# trace context for one block: jax.config.update does it for the whole process. Nor does one
# drop a single entry of JAX's trace caches: jax.clear_caches() empties them for everyone.
from jax._src import config as _config  # checked on 0.4.35, 0.6.2, 0.10.2, 0.12.0.1
from jax._src import core as _core  # checked on 0.4.35, 0.6.2, 0.10.2, 0.12.0.1
from jax._src import dispatch as _dispatch  # checked on 0.4.35, 0.6.2, 0.10.2, 0.12.0.1
from jax._src import linear_util as _linear_util  # checked on 0.4.35, 0.6.2, 0.10.2, 0.12.0.1
from jax._src import source_info_util as _source_info  # checked on 0.4.35, 0.10.2, 0.12.0.1
from jax._src import util as _util  # checked on 0.4.35, 0.6.2, 0.10.2, 0.12.0.1

from jaxpurity._jax_names import TRACED_FOR_API, TRACER_TRANSFORMATIONS

__all__ = [
    "OpaqueTraceState",
    "Ref",
    "Tracer",
    "cached_by_caller",
    "can_drop_traces",
    "config_values",
    "eager_programs",
    "forget_eager_programs",
    "forget_traces",
    "fresh_trace_context",
    "has_compiled",
    "hide_from_source_info",
    "is_jit_wrapper",
    "is_leak_error",
    "is_ref",
    "jaxprs_in",
    "jit_cache_misses",
    "jit_donated_argument_names",
    "jit_static_argument_names",
    "leak_checker_off",
    "leak_checker_on",
    "restore_config",
    "trace_in_progress",
    "traced_for",
    "static_data",
    "transformation_of",
    "user_callback_name",
]

# ----------------------------------------------------------------- tracers and traces

#: The base class of every tracer. Public (``jax.core.Tracer``) on every checked version,
#: although JAX has moved most other names of ``jax.core`` to ``jax._src.core``.
Tracer: type = jax.core.Tracer

#: JAX's record of which trace is running, as a library keeps it on its objects to refuse a
#: change from another trace (Flax NNX: each object's ``_pytree__state``). Made by
#: ``jax.extend.core.get_opaque_trace_state`` (``jax.core`` before 0.12); the type is private.
#: Checked on 0.4.35, 0.6.2, 0.10.2, 0.12.0.1.
OpaqueTraceState: type = _core.OpaqueTraceState


def traced_for(tracer: Any) -> str | None:
    """JAX's own record of what traced the code that made ``tracer``, or None.

    Private: ``tracer._debug_info.traced_for``, on jaxpr tracers only
    ("jit", "scan", "while_body", ...). Checked on 0.4.35, 0.6.2, 0.10.2,
    0.12.0.1. No public API says it.
    """
    name = getattr(getattr(tracer, "_debug_info", None), "traced_for", None)
    return name if isinstance(name, str) else None


def transformation_of(tracer: Any) -> str:
    """What traced the code that made ``tracer``, named after its API.

    ``"jit"``, ``"scan"``, ``"while_loop"``, ``"fori_loop"``, ``"cond"``,
    ``"grad"``, ``"vmap"``, ...: a tracer from a loop body names the loop,
    not the ``jit`` around it.

    Example:
      >>> import jax
      >>> seen = []
      >>> _ = jax.vmap(lambda x: seen.append(x) or x)(jax.numpy.ones(2))
      >>> transformation_of(seen[0])
      'vmap'
    """
    name = traced_for(tracer)
    if name is not None:
        return TRACED_FOR_API.get(name, name)
    kind = type(tracer).__name__
    return TRACER_TRANSFORMATIONS.get(kind, kind)


def trace_in_progress() -> bool:
    """Whether some JAX trace is going on now (even with no tracer in sight).

    Private: ``jax._src.core.trace_state_clean``; public as
    ``jax.core.trace_state_clean`` up to JAX 0.4.x only. Checked on 0.4.35,
    0.6.2, 0.10.2, 0.12.0.1. No public replacement.
    """
    return not _core.trace_state_clean()


# ----------------------------------------------------------------- config for one block


@contextlib.contextmanager
def leak_checker_off() -> Iterator[None]:
    """Within the block, JAX's leak checker (``jax_check_tracer_leaks``) is off.

    Private: the ``jax._src.config.check_tracer_leaks`` State used as a
    context manager (for this thread only). Checked on 0.4.35, 0.6.2,
    0.10.2, 0.12.0.1. Public: ``jax.checking_leaks()`` turns it *on*;
    ``jax.config.update`` switches it for the whole process.
    """
    with _config.check_tracer_leaks(False):
        yield


@contextlib.contextmanager
def leak_checker_on() -> Iterator[None]:
    """Within the block, JAX's leak checker is on, as in ``jax.checking_leaks()``.

    Private: as :func:`leak_checker_off`. Public: ``jax.checking_leaks()``, the
    same switch; this one pairs with :func:`leak_checker_off` in one place.
    """
    with _config.check_tracer_leaks(True):
        yield


def is_leak_error(error: BaseException) -> bool:
    """Whether ``error`` is what JAX's leak checker raises at the end of a trace.

    JAX raises a plain ``Exception`` whose message starts ``Leaked trace``
    (0.4.35: ``Leaked trace MainTrace(2,DynamicJaxprTrace)``; 0.12.0.1:
    ``Leaked trace DynamicJaxprTrace``) or, on older versions, ``Leaked level``
    or ``Leaked sublevel``. Checked on 0.4.35, 0.12.0.1. No public error class.
    """
    return type(error) is Exception and str(error).startswith(LEAK_ERROR_STARTS)


#: How the messages of JAX's leak checker begin (see :func:`is_leak_error`).
LEAK_ERROR_STARTS = ("Leaked trace", "Leaked level", "Leaked sublevel")


@contextlib.contextmanager
def fresh_trace_context(token: str) -> Iterator[None]:
    """Within the block, JAX's trace caches miss, unless a block with the same ``token`` ran.

    JAX keys its caches of traced bodies by the *trace context*, the config
    values that can change a trace. ``jax_hlo_source_file_canonicalization_regex``
    is one of them, and it only strips matches from file names in a compiled
    program's metadata: set to a regex that matches nothing, it changes no
    program but gives the block a context of its own.

    Private: the ``jax._src.config.hlo_source_file_canonicalization_regex``
    State used as a context manager. Checked on 0.4.35, 0.6.2, 0.10.2,
    0.12.0.1. Public: ``jax.config.update`` sets it for the whole process.
    """
    with _config.hlo_source_file_canonicalization_regex(_NO_MATCH + token):
        yield


#: What :func:`fresh_trace_context` puts before its token: a regex that matches nothing.
_NO_MATCH = "(?!)"


def _is_jax_code(obj: Any) -> bool:
    """Whether ``obj`` is JAX's own: a function of ``jax`` or ``jaxlib``, a jaxpr, a primitive.

    A :func:`functools.partial`, a bound method and a wrapper (``__wrapped__``)
    are looked through. Anything else (the user's functions, other libraries',
    Python's) counts as not JAX's.
    """
    for _ in range(10):
        inner = getattr(obj, "func", None) if isinstance(obj, functools.partial) else None
        inner = inner or getattr(obj, "__func__", None) or getattr(obj, "__wrapped__", None)
        if inner is None or inner is obj:
            break
        obj = inner
    module = getattr(obj, "__module__", None)
    return isinstance(module, str) and module.partition(".")[0] in {"jax", "jaxlib"}


def _trace_caches() -> tuple[list[Any], list[Any]]:
    """JAX's caches that a trace context keys: ``linear_util.cache``'s, and the C++ ones.

    The first list holds ``linear_util.cache``'s dicts (a ``WeakKeyDictionary``
    from each traced function to a dict whose keys end with the trace context);
    the second, the ``weakref_lru_cache`` objects, whose ``cache_keys()`` are
    ``(weakref to the function, trace context, args, kwargs)``.

    Private: ``jax._src.util._caches`` (JAX 0.10.2 and newer: every cache, a
    ``linear_util.cache`` as a function whose ``cache_clear`` is its dict's
    ``clear``) or ``jax._src.util._weakref_lru_caches`` and
    ``jax._src.linear_util.cache_clearing_funs`` (0.4.35, 0.6.2). Checked on
    0.4.35, 0.6.2, 0.10.2, 0.12.0.1. No public API lists JAX's caches;
    ``jax.clear_caches()`` empties them all.
    """
    registry = getattr(_util, "_caches", None)
    if registry is not None:
        caches = list(registry.keys())
        clears = [getattr(c, "cache_clear", None) for c in caches]
        weak = [c for c in caches if type(c).__name__ == "WeakrefLRUCache"]
    else:
        clears = list(_linear_util.cache_clearing_funs)  # type: ignore[attr-defined]  # JAX < 0.10
        weak = list(_util._weakref_lru_caches)  # type: ignore[attr-defined]  # JAX < 0.10
    dicts = [getattr(c, "__self__", None) for c in clears]
    return [d for d in dicts if isinstance(d, weakref.WeakKeyDictionary)], weak


def _fresh_position() -> int:
    """Where :func:`fresh_trace_context`'s value sits in a trace context (found by trying it).

    Private: ``jax._src.config.trace_context()``. Checked on 0.4.35, 0.6.2,
    0.10.2, 0.12.0.1.
    """
    with fresh_trace_context("probe"):
        context = _config.trace_context()
    return next(i for i, v in enumerate(context) if v == _NO_MATCH + "probe")


def _cached_functions() -> Iterator[tuple[Any, Any, str | None]]:
    """``(cache, function, fresh)`` for each entry of JAX's C++ trace caches whose function lives.

    ``fresh`` is the value :func:`fresh_trace_context` gave the trace context
    the entry was made in, or None outside any such block. Reading the keys
    takes JAX about 10 microseconds an entry.
    """
    at = _fresh_position()
    for cache in _trace_caches()[1]:
        for ref, context, *_ in cache.cache_keys():
            fn = ref()
            if fn is not None:
                # A cache that no trace context keys has None there.
                value = context[at] if isinstance(context, tuple) and len(context) > at else None
                fresh = isinstance(value, str) and value.startswith(_NO_MATCH)
                yield cache, fn, value if fresh else None


def can_drop_traces() -> bool:
    """Whether JAX's C++ trace caches can drop one function's entries (JAX 0.10.2 and newer).

    Where they cannot, :func:`forget_traces` leaves those entries, and each
    check keeps what JAX keeps for one trace. Private: as :func:`forget_traces`.
    """
    try:
        return all(hasattr(cache, "evict_weakref") for cache in _trace_caches()[1])
    except Exception:  # noqa: BLE001 - a JAX whose caches look otherwise
        return False


def cached_by_caller() -> frozenset[tuple[int, int]] | None:
    """The functions JAX's C++ trace caches hold entries for, made outside any fresh context.

    Returns ``(id(cache), id(function))`` pairs, for :func:`forget_traces`'s
    ``keep``: taken before a check, they say which functions the caller's
    code has entries for. None where the caches cannot be read.
    Private: as :func:`forget_traces`.
    """
    try:
        return frozenset((id(c), id(fn)) for c, fn, fresh in _cached_functions() if fresh is None)
    except Exception:  # noqa: BLE001 - a JAX whose caches look otherwise
        return None


def forget_traces(
    token: str, *, keep: frozenset[tuple[int, int]] | None, of_jax_too: bool = False
) -> bool:
    """Drop what JAX's trace caches hold for code traced within ``fresh_trace_context(token)``.

    Entries for JAX's own functions are kept (unless ``of_jax_too``): a later
    block with the same token reuses them, so they do not pile up, and what
    they answer is JAX's code, which has no side effects to miss. Entries for
    any other code (a loop body or an inner jit function of the user's) are
    dropped, so that a later block traces that code again:

    * from ``linear_util.cache``'s dicts, one entry at a time;
    * from a C++ ``weakref_lru_cache``, with ``evict_weakref`` (JAX 0.10.2
      and newer), which drops every entry the cache holds for the function:
      so only for a function not in ``keep`` (:func:`cached_by_caller`, taken
      before the check; None: none is dropped), whose every entry the check
      made. The entries the caller's code made are never dropped (unless
      another thread makes one while the check runs).

    Returns:
      Whether no entry for code other than JAX's is left under ``token``.
      When False, ``token`` must not be used again: those entries would
      answer a later block.

    Private: the caches of :func:`_trace_caches`, their ``cache_keys()`` and
    ``evict_weakref``. Checked on 0.4.35, 0.6.2 (no ``evict_weakref``: an
    entry in a C++ cache stays), 0.10.2, 0.12.0.1. No public API drops one
    entry; ``jax.clear_caches()`` drops everyone's.
    """
    value = _NO_MATCH + token
    try:
        dicts, _ = _trace_caches()
        for functions in dicts:
            for fn, entries in list(functions.items()):
                if of_jax_too or not _is_jax_code(fn):
                    for key in [k for k in list(entries) if _holds(k[-1], value)]:
                        del entries[key]
        made = {
            (id(cache), id(fn)): (cache, fn)
            for cache, fn, fresh in _cached_functions()
            if fresh == value and (of_jax_too or not _is_jax_code(fn))
        }
        left = False
        for pair, (cache, fn) in made.items():
            jax_code = _is_jax_code(fn)
            # The caller's entries for JAX's own code may go too: retracing JAX's code later
            # costs time, and runs none of the caller's code.
            callers = keep is None or (pair in keep and not (of_jax_too and jax_code))
            if callers or not hasattr(cache, "evict_weakref"):
                left = left or not jax_code
            else:
                cache.evict_weakref(fn)
    except Exception:  # noqa: BLE001 - a JAX whose caches look otherwise: assume entries are left
        return False
    return not left


def _holds(context: tuple[Any, ...], value: str) -> bool:
    return any(isinstance(v, str) and v == value for v in context)


def eager_programs() -> frozenset[int] | int:
    """What JAX's cache of eagerly run primitives holds now, for :func:`forget_eager_programs`.

    The ids of the programs (jaxprs of loops and conds) in its keys where the
    cache lists them (of the versions checked, 0.12.0.1 only): the cache holds them, so their
    ids stay theirs. Else the cache's size. Private:
    ``jax._src.dispatch.xla_primitive_callable``, a ``util.cache``. Checked
    on 0.4.35, 0.6.2, 0.10.2, 0.12.0.1.
    """
    cache = _dispatch.xla_primitive_callable
    keys = getattr(cache, "cache_keys", None)
    if keys is None:
        return int(cache.cache_info().currsize)
    return frozenset(id(program) for key in keys() for program in _programs_in(key))


def forget_eager_programs(before: frozenset[int] | int, loops_ran: bool = True) -> bool:
    """Empty JAX's cache of eagerly run primitives if it took a loop or cond since ``before``.

    JAX compiles a ``lax.scan``, ``while_loop`` or ``cond`` run outside
    ``jit`` once per body program, and its cache keeps the program and the
    compiled code (about 0.8 MB for a small scan on CPU) for the life of the
    process: a new body, as each new trace of it makes, adds an entry
    (``jax/_src/dispatch.py`` says so). JAX cannot drop one entry, so the
    whole cache is emptied: later eager operations compile again, once each.
    Where the cache does not list its keys (0.4.35, 0.6.2 and 0.10.2), it is
    emptied when it grew and ``loops_ran`` says that a loop or cond may have run
    eagerly in the block (the caller knows: the program it traced holds one). Emptied
    on any growth, as it was, the cache started each check empty, so each check
    compiled every eager operation again (68 compiles for the training step of
    ``what_fixes_cost`` on 0.10.2).

    Returns:
      Whether the cache was emptied.
    """
    now = eager_programs()
    if isinstance(now, int):
        grew = loops_ran and now > before  # type: ignore[operator]
    else:
        grew = bool(now - before)  # type: ignore[operator]
    if grew:
        _dispatch.xla_primitive_callable.cache_clear()
    return grew


def _programs_in(key: Any) -> list[Any]:
    """The jaxprs (a loop's body, a cond's branches) in a key of JAX's eager primitive cache."""
    params = key[-1] if isinstance(key, tuple) and key and isinstance(key[-1], dict) else {}
    return [program for value in params.values() for program in jaxprs_in(value)]


def config_values() -> dict[str, Any]:
    """Every JAX flag's current value, to put back later with :func:`restore_config`.

    ``jax.config.values``: an attribute, not documented. Checked on 0.4.35,
    0.6.2, 0.10.2, 0.12.0.1.
    """
    return dict(jax.config.values)


def restore_config(values: dict[str, Any]) -> None:
    """Set every JAX flag back to its value in ``values`` (from :func:`config_values`)."""
    for name, value in values.items():
        if jax.config.values.get(name) != value:
            jax.config.update(name, value)


def hide_from_source_info(path: str) -> None:
    """JAX skips the frames of the file ``path``, as it skips its own, in source locations.

    Where JAX records which line an operation came from (the compiled program's
    locations, the lines its errors quote), a frame of ``path`` is never the one
    named. Public: ``jax.extend.source_info_util.register_exclusion``, the same
    function; but importing ``jax.extend`` imports Pallas on JAX 0.12, whose
    settings join the trace context that keys jit's caches, so that every function
    jitted before it compiles again. Private: ``jax._src.source_info_util``, which
    ``import jax`` has loaded. Checked on 0.4.35, 0.10.2, 0.12.0.1.
    """
    _source_info.register_exclusion(path)


# ----------------------------------------------------------------- jit wrappers


def is_jit_wrapper(fn: Any) -> bool:
    """Whether ``fn`` is what :func:`jax.jit` returns (it has a compile cache and a body).

    Private: the ``_cache_size`` method of jit wrappers. Checked on 0.4.35,
    0.6.2, 0.10.2, 0.12.0.1. No public test (``jax.stages.Wrapped`` is a
    typing Protocol, not a class to check against).
    """
    try:
        return callable(getattr(fn, "_cache_size", None)) and hasattr(fn, "__wrapped__")
    except Exception:  # noqa: BLE001 - a hostile __getattr__: no jit wrapper, which has none
        return False


def _cache_size(fn: Any) -> int:
    size = fn._cache_size()
    return int(size)


@contextlib.contextmanager
def jit_cache_misses(fn: Any) -> Iterator[Callable[[], bool]]:
    """Tell whether calls of the jit wrapper ``fn`` in the block traced and compiled.

    Yields a function that says whether ``fn``'s compile cache grew since
    the block began: a call that misses the cache traces and compiles, and
    adds one program. :func:`has_compiled` says whether ``fn`` has a
    program at all.

    Private: ``fn._cache_size()``. Checked on 0.4.35, 0.6.2, 0.10.2,
    0.12.0.1. Public, but process-wide and not per function:
    ``jax.config.jax_explain_cache_misses`` logs misses.

    Example:
      >>> import jax, jax.numpy as jnp
      >>> double = jax.jit(lambda x: 2 * x)
      >>> with jit_cache_misses(double) as missed:
      ...     _ = double(jnp.ones(2))
      >>> missed()
      True
      >>> with jit_cache_misses(double) as missed:
      ...     _ = double(jnp.zeros(2))  # the same type: answered from the cache
      >>> missed()
      False
    """
    before = _cache_size(fn)
    yield lambda: _cache_size(fn) > before


def has_compiled(fn: Any) -> bool:
    """Whether the jit wrapper ``fn`` holds at least one compiled program (``_cache_size``)."""
    return _cache_size(fn) > 0


def _jit_info(fn: Any) -> Any:
    """What :func:`jax.jit` was told about a wrapper (its ``PjitInfo``); None where unknown.

    Private: ``fn._jit_info`` on JAX 0.6.2 and newer; on 0.4.35, the cell
    ``jit_info`` of the closure of the wrapper's ``eval_shape`` (looked through
    its ``functools.wraps``). Checked on 0.4.35, 0.6.2, 0.10.2, 0.12.0.1.
    """
    info = getattr(fn, "_jit_info", None)
    if info is not None:
        return info
    shape = inspect.unwrap(getattr(fn, "eval_shape", None) or (lambda: None))
    code = getattr(shape, "__code__", None)
    if code is None or "jit_info" not in code.co_freevars:
        return None
    return shape.__closure__[code.co_freevars.index("jit_info")].cell_contents


def _argument_names(fn: Any, numbers: str, names: str) -> frozenset[str] | None:
    """The parameters that a wrapper's ``<numbers>`` and ``<names>`` (of its PjitInfo) name."""
    info = _jit_info(fn)
    signature = getattr(info, "fun_signature", None)
    if info is None or signature is None:
        return None
    params = list(signature.parameters)
    positions = getattr(info, numbers, ())
    by_position = {params[i] for i in positions if -len(params) <= i < len(params)}
    return frozenset(by_position | set(getattr(info, names, ())))


def jit_static_argument_names(fn: Any) -> frozenset[str] | None:
    """The parameters a :func:`jax.jit` wrapper takes as static, by name; None where unknown.

    Private: the wrapper's ``PjitInfo`` (:func:`_jit_info`): its
    ``fun_signature``, ``static_argnums`` and ``static_argnames``. Checked on
    0.4.35, 0.6.2, 0.10.2, 0.12.0.1. No public API says which arguments a
    wrapper treats as static.
    """
    return _argument_names(fn, "static_argnums", "static_argnames")


def jit_donated_argument_names(fn: Any) -> frozenset[str] | None:
    """The parameters a :func:`jax.jit` wrapper donates (``donate_argnums``), by name.

    Private: as :func:`jit_static_argument_names`, its ``donate_argnums`` and
    ``donate_argnames``. Checked on 0.4.35, 0.12.0.1. Public, but only by
    tracing the function: ``jax.jit(f).trace(...).args_info``.
    """
    return _argument_names(fn, "donate_argnums", "donate_argnames")


# ----------------------------------------------------------------- traced programs


def jaxprs_in(value: Any) -> list[Any]:
    """The jaxprs in an equation's parameter (a scan or while body, cond branches).

    Reads ``eqns``, ``outvars`` and a ClosedJaxpr's ``jaxpr``: documented
    ("Understanding jaxprs") but not a stable API. Checked on 0.4.35, 0.6.2,
    0.10.2, 0.12.0.1. :mod:`jaxpurity.checks._program` reads programs with it.
    """
    if isinstance(value, (tuple, list)):
        return [j for item in value for j in jaxprs_in(item)]
    inner = value
    for _ in range(3):  # a ClosedJaxpr holds a Jaxpr
        if hasattr(inner, "eqns") and hasattr(inner, "outvars"):
            return [inner]
        inner = getattr(inner, "jaxpr", None)
    return []


def user_callback_name(eqn: Any) -> str | None:
    """The name of the function a ``debug_callback`` equation calls; None for JAX's own.

    Private: ``jax.debug.callback`` binds a ``_flat_callback`` closure whose cell
    ``callback`` holds the user's function (debug.print's is a partial of a JAX
    function). Checked on 0.4.35, 0.6.2, 0.10.2, 0.12.0.1.
    """
    flat = eqn.params.get("callback")
    code = getattr(flat, "__code__", None)
    if code is None or "callback" not in code.co_freevars:
        return None
    user = flat.__closure__[code.co_freevars.index("callback")].cell_contents
    if _is_jax_code(user):
        return None
    return getattr(getattr(user, "func", user), "__name__", None)  # a functools.partial's too


def static_data(tree: Any) -> list[Any]:
    """The static data of every node of a pytree (its aux data: what ``jit`` does not trace).

    A pytree class whose flatten puts an array (or a function closing over
    one) in its aux data hands ``jit`` a tracer that it keeps in the output's
    structure, past the trace. Reads ``PyTreeDef.node_data()`` and
    ``children()``: public methods, not documented. Checked on 0.4.35, 0.12.0.1.
    """
    found: list[Any] = []
    stack = [jax.tree_util.tree_structure(tree)]
    while stack:
        treedef = stack.pop()
        data = treedef.node_data()  # type: ignore[attr-defined]
        if data is not None and data[1] is not None:
            found.append(data[1])
        stack.extend(treedef.children())  # type: ignore[attr-defined]
    return found


# ----------------------------------------------------------------- newer public API

#: The type of :func:`jax.new_ref <jax.ref.new_ref>` arrays (public, JAX 0.7+), or None where
#: JAX has none (0.4.35, 0.6.2).
Ref: type | None = getattr(jax, "Ref", None)


def is_ref(value: Any) -> bool:
    """Whether ``value`` is a :func:`jax.new_ref <jax.ref.new_ref>` array (none before JAX 0.7)."""
    return Ref is not None and issubclass(type(value), Ref)
