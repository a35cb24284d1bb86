"""Every private JAX name jaxpurity touches, and every JAX difference between versions.

No other module imports ``jax._src`` or reads a private attribute of a JAX
object: they call the functions here. Each entry says the JAX versions it was
checked on and the public API that replaces it where JAX has one. A JAX
upgrade that renames one of them fails in ``tests/test_jax_compat.py``, which
exercises each entry, with the entry's name in the failure.

Checked on: JAX 0.4.35 (the oldest supported), 0.6.2 (the newest for Python
3.10), 0.10.2 (the newest for Python 3.11) and 0.12.0.1.

The table of tracer classes and of the names JAX gives its traces is here too,
once: :mod:`jaxpurity._leaks`, :mod:`jaxpurity._purity` and the known errors
of :func:`jaxpurity.explain` all derive from it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import jax

# Private modules. No public API turns the leak checker off for one block, or changes the
# trace context for one block: jax.config.update does it for the whole process.
from jax._src import config as _config  # checked on 0.4.35, 0.6.2, 0.10.2, 0.12.0.1
from jax._src import core as _core  # checked on 0.4.35, 0.6.2, 0.10.2, 0.12.0.1

__all__ = [
    "GRAD_VMAP",
    "LOOPS",
    "LOOP_PRIMITIVES",
    "SHARD_MAP",
    "PURE_CALLBACKS",
    "Ref",
    "TRACER_TRANSFORMATIONS",
    "Tracer",
    "config_values",
    "debug_callbacks_in_loops",
    "fresh_trace_context",
    "has_compiled",
    "is_jit_wrapper",
    "jit_cache_misses",
    "jit_static_argument_names",
    "leak_checker_off",
    "restore_config",
    "trace_in_progress",
    "unused_callbacks",
    "trace_names",
    "traced_for",
    "traced_for_names",
    "tracer_names",
    "transformation_of",
]

# ----------------------------------------------------------------- tracers and traces

#: The base class of every tracer. Public (``jax.core.Tracer``) on every checked version,
#: although JAX has moved most other names of ``jax.core`` to ``jax._src.core``.
Tracer: type = jax.core.Tracer

#: What a user calls the transformation that made each kind of tracer, for the tracers
#: that do not record it themselves (JAX records it on jaxpr tracers only, see
#: :func:`traced_for`). grad and vjp hand the function a ``LinearizeTracer`` from JAX
#: 0.7.0 on (``jax_use_direct_linearize``), a ``JVPTracer`` over a ``JaxprTracer`` before
#: (0.4.35, 0.6.2); jvp a ``JVPTracer``; vmap a
#: ``BatchTracer``; jit and the loop and branch bodies a ``DynamicJaxprTracer``. Each
#: trace class is named like its tracer without the final "r" (``BatchTrace``): JAX's
#: leak checker prints those.
TRACER_TRANSFORMATIONS: dict[str, str] = {
    "DynamicJaxprTracer": "jit",
    "JaxprTracer": "grad",
    "JVPTracer": "jvp/grad",
    "LinearizeTracer": "grad",
    "BatchTracer": "vmap",
    # shard_map on JAX 0.4.35: under its replication check (check_rep), and outside jit.
    "RewriteTracer": "shard_map",
    "ShardMapTracer": "shard_map",
}

#: JAX's own names for what a jaxpr tracer was traced for (see :func:`traced_for`), in
#: the words of the API a user called, where they differ. JAX 0.10.2 says "while_body"
#: and "checkpoint / remat"; 0.4.35 says "while_loop" and "checkpoint". Before 0.7.0
#: fori_loop runs as a scan or a while_loop, so it never says "fori_loop" there.
_TRACED_FOR_API: dict[str, str] = {
    "while_body": "while_loop",
    "while_cond": "while_loop",
    "checkpoint / remat": "checkpoint",
}

#: The transformations whose tracers leak out of a loop body.
LOOPS = frozenset({"scan", "while_loop", "fori_loop"})
#: The transformations of differentiation and batching.
GRAD_VMAP = frozenset({"grad", "jvp/grad", "vmap"})
#: The transformations that run one function on every device.
SHARD_MAP = frozenset({"shard_map", "pmap"})


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
        return _TRACED_FOR_API.get(name, name)
    kind = type(tracer).__name__
    return TRACER_TRANSFORMATIONS.get(kind, kind)


def traced_for_names(transformations: frozenset[str]) -> list[str]:
    """Every name JAX may record as "traced for" (on any version) for these transformations.

    Example:
      >>> traced_for_names(LOOPS)
      ['fori_loop', 'scan', 'while_body', 'while_cond', 'while_loop']
    """
    aliases = {name for name, api in _TRACED_FOR_API.items() if api in transformations}
    return sorted(aliases | set(transformations))


def tracer_names(transformations: frozenset[str]) -> list[str]:
    """The tracer classes that come from these transformations.

    Example:
      >>> tracer_names(GRAD_VMAP)
      ['BatchTracer', 'JVPTracer', 'JaxprTracer', 'LinearizeTracer']
    """
    return sorted(t for t, api in TRACER_TRANSFORMATIONS.items() if api in transformations)


def trace_names(transformations: frozenset[str]) -> list[str]:
    """The trace classes (as JAX's leak checker prints them) of these transformations.

    Example:
      >>> trace_names(GRAD_VMAP)
      ['BatchTrace', 'JVPTrace', 'JaxprTrace', 'LinearizeTrace']
    """
    return [name.removesuffix("r") for name in tracer_names(transformations)]


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
    with _config.hlo_source_file_canonicalization_regex(f"(?!){token}"):  # "(?!)" matches nothing
        yield


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


# ----------------------------------------------------------------- jit wrappers


def is_jit_wrapper(fn: Any) -> bool:
    """Whether ``fn`` is what :func:`jax.jit` returns (it has a compile cache and a body).

    Private: the ``_cache_size`` method of jit wrappers. Checked on 0.4.35,
    0.6.2, 0.10.2, 0.12.0.1. No public test (``jax.stages.Wrapped`` is a
    typing Protocol, not a class to check against).
    """
    return callable(getattr(fn, "_cache_size", None)) and hasattr(fn, "__wrapped__")


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


def jit_static_argument_names(fn: Any) -> frozenset[str] | None:
    """The parameters a :func:`jax.jit` wrapper takes as static, by name; None where unknown.

    Private: ``fn._jit_info`` (its ``fun_signature``, ``static_argnums``
    and ``static_argnames``), on JAX 0.6.2 and newer; JAX 0.4.35 keeps it out of
    reach, so None there. Checked on 0.4.35, 0.6.2, 0.10.2, 0.12.0.1.
    No public API says which arguments a wrapper treats as static.
    """
    info = getattr(fn, "_jit_info", None)
    signature = getattr(info, "fun_signature", None)
    if info is None or signature is None:
        return None
    params = list(signature.parameters)
    by_position = {params[i] for i in info.static_argnums if -len(params) <= i < len(params)}
    return frozenset(by_position | set(info.static_argnames))


# ----------------------------------------------------------------- traced programs

#: Callbacks that jit treats as pure functions, so that it may remove an unused one.
PURE_CALLBACKS = frozenset({"pure_callback"})


def _jaxprs_in(value: Any) -> list[Any]:
    """The jaxprs in an equation's parameter (a scan or while body, cond branches)."""
    if isinstance(value, (tuple, list)):
        return [j for item in value for j in _jaxprs_in(item)]
    inner = value
    for _ in range(3):  # a ClosedJaxpr holds a Jaxpr
        if hasattr(inner, "eqns") and hasattr(inner, "outvars"):
            return [inner]
        inner = getattr(inner, "jaxpr", None)
    return []


#: The primitives of loops, whose body JAX may move code out of (under grad, say).
LOOP_PRIMITIVES = frozenset({"scan", "while"})


def _nested_jaxprs(program: Any) -> Iterator[tuple[Any, bool]]:
    """``program``'s jaxpr and every jaxpr nested in it, each with whether a loop body holds it.

    Reads a jaxpr's ``eqns``, ``params`` and each equation's ``primitive.name``:
    documented ("Understanding jaxprs") but not a stable API. Checked on 0.4.35,
    0.6.2, 0.10.2, 0.12.0.1.
    """
    stack = [(j, False) for j in _jaxprs_in(program)]
    while stack:
        jaxpr, in_loop = stack.pop()
        yield jaxpr, in_loop
        for eqn in jaxpr.eqns:
            inner = in_loop or eqn.primitive.name in LOOP_PRIMITIVES
            for param in eqn.params.values():
                stack.extend((j, inner) for j in _jaxprs_in(param))


def unused_callbacks(program: Any) -> dict[str, int]:
    """How many pure callbacks, by primitive name, have results that nothing uses.

    ``program`` is a jaxpr (or what ``jax.jit(f).trace(...).jaxpr`` gives).
    Nested jaxprs (loop bodies, branches) are read too. A result is unused
    when no later equation of its jaxpr reads it and the jaxpr does not
    return it (read from ``outvars`` and ``invars``, as :func:`_nested_jaxprs`).
    """
    found: dict[str, int] = {}
    for jaxpr, _ in _nested_jaxprs(program):
        used = {id(v) for v in jaxpr.outvars}
        for eqn in jaxpr.eqns:
            used.update(id(v) for v in eqn.invars)
        for eqn in jaxpr.eqns:
            name = eqn.primitive.name
            if name in PURE_CALLBACKS and not any(id(v) in used for v in eqn.outvars):
                found[name] = found.get(name, 0) + 1
    return found


def _user_callback_name(eqn: Any) -> str | None:
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
    function = getattr(user, "func", user)  # functools.partial
    module = getattr(function, "__module__", None) or ""
    if module.partition(".")[0] in {"jax", "jaxlib"}:
        return None
    return getattr(function, "__name__", None)


def debug_callbacks_in_loops(program: Any) -> list[str]:
    """The names of the user's ``jax.debug.callback`` functions that a loop body calls.

    ``program`` is a jaxpr, read with its nested jaxprs (as :func:`unused_callbacks`
    does). JAX's own debug callbacks (``jax.debug.print``) do not count.
    """
    found: list[str] = []
    for jaxpr, in_loop in _nested_jaxprs(program):
        if not in_loop:
            continue
        for eqn in jaxpr.eqns:
            if eqn.primitive.name == "debug_callback":
                name = _user_callback_name(eqn)
                if name and name not in found:
                    found.append(name)
    return found


# ----------------------------------------------------------------- newer public API

#: The type of :func:`jax.new_ref <jax.ref.new_ref>` arrays (public, JAX 0.7+), or None where
#: JAX has none (0.4.35, 0.6.2).
Ref: type | None = getattr(jax, "Ref", None)
