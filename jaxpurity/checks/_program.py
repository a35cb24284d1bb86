"""What a traced program shows: read from its jaxpr, nothing run.

:func:`check_pure` traces the function once (``jax.jit(...).trace``) and reads the
jaxpr it got, with the jaxprs nested in it (loop bodies, branches, checkpointed
functions, inner ``jit`` calls): the callbacks whose results nothing uses, and the
debug callbacks that a transformation may run another number of times.

A jaxpr's ``eqns``, each equation's ``primitive.name`` and ``params``, are
documented ("Understanding jaxprs") but not a stable API; the names of the
primitives are in :mod:`jaxpurity._jax_names`, with the versions they were seen on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jax

from jaxpurity._jax_compat import jaxprs_in, user_callback_name
from jaxpurity._jax_names import (
    AD_SENSITIVE_PREFIX,
    AD_SENSITIVE_PRIMITIVES,
    CONSUMING_PRIMITIVES,
    HOST_CALLBACK_PRIMITIVES,
    LOOP_PRIMITIVES,
    RANDOM_PRIMITIVES,
    REMAT_PRIMITIVES,
)

__all__ = [
    "EFFECTFUL_CALLBACKS",
    "HOST_CALLBACKS",
    "PURE_CALLBACKS",
    "debug_callbacks_in_loops",
    "calls_host",
    "differentiation_may_differ",
    "debug_callbacks_in_remat",
    "constant_keys_consumed",
    "donates",
    "draws_random",
    "effectful_callbacks",
    "has_loops_or_conds",
    "unused_callbacks",
]

#: Callbacks that jit treats as pure functions, so that it may remove an unused one.
PURE_CALLBACKS = frozenset({"pure_callback"})
#: Callbacks whose effects are the point: each call of the program may answer differently.
EFFECTFUL_CALLBACKS = frozenset({"io_callback"})
#: Every primitive that calls back to Python while the program runs.
HOST_CALLBACKS = HOST_CALLBACK_PRIMITIVES


def _nested_jaxprs(program: Any) -> Iterator[tuple[Any, frozenset[str]]]:
    """``program``'s jaxpr and every jaxpr nested in it, each with the primitives around it."""
    stack = [(j, frozenset[str]()) for j in jaxprs_in(program)]
    while stack:
        jaxpr, around = stack.pop()
        yield jaxpr, around
        for eqn in jaxpr.eqns:
            inner = around | {eqn.primitive.name}
            for param in eqn.params.values():
                stack.extend((j, inner) for j in jaxprs_in(param))


def _equations(program: Any) -> Iterator[Any]:
    for jaxpr, _ in _nested_jaxprs(program):
        yield from jaxpr.eqns


def effectful_callbacks(program: Any) -> list[str]:
    """The primitives in ``program`` (nested jaxprs too) that call the host for their effects
    (``io_callback``): each call may return something new, by design."""
    return sorted({e.primitive.name for e in _equations(program)} & EFFECTFUL_CALLBACKS)


def unused_callbacks(program: Any) -> dict[str, int]:
    """How many pure callbacks, by primitive name, have results that nothing uses.

    ``program`` is a jaxpr (or what ``jax.jit(f).trace(...).jaxpr`` gives).
    Nested jaxprs (loop bodies, branches) are read too. A result is unused
    when no later equation of its jaxpr reads it and the jaxpr does not
    return it (read from ``outvars`` and ``invars``).
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


def _debug_callbacks_within(program: Any, primitives: frozenset[str]) -> list[str]:
    found: list[str] = []
    for jaxpr, around in _nested_jaxprs(program):
        if around & primitives:
            for eqn in jaxpr.eqns:
                name = user_callback_name(eqn) if eqn.primitive.name == "debug_callback" else None
                if name and name not in found:
                    found.append(name)
    return found


def debug_callbacks_in_loops(program: Any) -> list[str]:
    """The names of the user's ``jax.debug.callback`` functions that a loop body calls.

    JAX's own debug callbacks (``jax.debug.print``) do not count.
    """
    return _debug_callbacks_within(program, LOOP_PRIMITIVES)


def debug_callbacks_in_remat(program: Any) -> list[str]:
    """The names of the user's ``jax.debug.callback`` functions inside a ``jax.checkpoint``.

    Under grad, JAX runs a checkpointed function's forward pass again in the
    backward pass, so each of them runs twice. JAX's own (``jax.debug.print``)
    do not count.
    """
    return _debug_callbacks_within(program, REMAT_PRIMITIVES)


def donates(program: Any) -> bool:
    """Whether ``program`` calls a jitted function that donates an argument (``donate_argnums``).

    Inside the trace the donation is dropped, but run eagerly that call deletes
    the array it is given: the caller's, unless each run gets copies
    (:func:`jaxpurity.checks._copies.arrays_copied`). The equation's
    ``donated_invars`` is read as on JAX 0.4.35 and 0.12.0.1.
    """
    return any(any(e.params.get("donated_invars", ())) for e in _equations(program))


def has_loops_or_conds(program: Any) -> bool:
    """Whether ``program`` holds a loop or a cond (nested jaxprs too): run outside jit, JAX
    compiles each body program anew and keeps it
    (:func:`jaxpurity._jax_compat.forget_eager_programs`)."""
    return any(e.primitive.name in LOOP_PRIMITIVES | {"cond"} for e in _equations(program))


def draws_random(program: Any) -> bool:
    """Whether ``program`` uses a jax.random key (nested jaxprs too)."""
    return any(e.primitive.name in RANDOM_PRIMITIVES for e in _equations(program))


def calls_host(program: Any) -> bool:
    """Whether ``program`` calls back to Python while it runs (a print, a callback): what a
    run does besides returning comes from those alone."""
    return any(e.primitive.name in HOST_CALLBACKS for e in _equations(program))


def constant_keys_consumed(program: Any) -> list[Any]:
    """The typed jax.random keys ``program`` holds as constants (closed over, not passed in)
    that it consumes (draws from or splits): every call consumes the same key again.

    ``program`` is what ``jax.jit(f).trace(...).jaxpr`` gives (a closed jaxpr). A key is
    followed into the functions the program calls (jax.random's own are jitted) by position;
    a key derived from one (``fold_in``, ``split``) is a new key, not followed.
    """
    jaxpr = getattr(program, "jaxpr", program)
    consts = getattr(program, "consts", [])
    keys = {
        id(var): const for var, const in zip(jaxpr.constvars, consts, strict=False) if _is_key(var)
    }
    return [keys[i] for i in _consumed(jaxpr, set(keys))]


def _is_key(var: Any) -> bool:
    dtype = getattr(getattr(var, "aval", None), "dtype", None)
    return dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)


def _consumed(jaxpr: Any, keys: set[int], depth: int = 0) -> set[int]:
    """Which of the vars ``keys`` (by id) the equations of ``jaxpr`` consume."""
    found: set[int] = set()
    if depth > 50:  # nested calls this deep are no jaxpr JAX builds: stop, as a walk must
        return found
    for eqn in jaxpr.eqns:
        held = [id(v) for v in eqn.invars if id(v) in keys]
        if not held:
            continue
        if eqn.primitive.name in CONSUMING_PRIMITIVES:
            found.update(held)
            continue
        for param in eqn.params.values():
            for inner in jaxprs_in(param):
                inner = getattr(inner, "jaxpr", inner)
                offset = len(eqn.invars) - len(inner.invars)  # a cond's index comes first
                if offset < 0:
                    continue
                by_inner = {
                    id(v): id(eqn.invars[i + offset])
                    for i, v in enumerate(inner.invars)
                    if id(eqn.invars[i + offset]) in keys
                }
                found.update(by_inner[i] for i in _consumed(inner, set(by_inner), depth + 1))
    return found


def differentiation_may_differ(program: Any) -> bool:
    """Whether ``program`` holds what differentiation can treat otherwise than the eager run:
    a callback, a ``while`` loop, a ``jax.checkpoint``, a derivative rule of the user's, a
    Ref. A program of JAX's other primitives differentiates as it runs: ``vjp`` of it returns
    what the eager run returns, and raises nowhere the eager run does not."""
    for eqn in _equations(program):
        name = eqn.primitive.name
        if name in HOST_CALLBACKS or name in AD_SENSITIVE_PRIMITIVES:
            return True
        if name.startswith(AD_SENSITIVE_PREFIX):
            return True
    return False
