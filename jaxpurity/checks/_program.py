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

from jaxpurity._jax_compat import jaxprs_in, user_callback_name
from jaxpurity._jax_names import LOOP_PRIMITIVES, REMAT_PRIMITIVES

__all__ = [
    "EFFECTFUL_CALLBACKS",
    "PURE_CALLBACKS",
    "debug_callbacks_in_loops",
    "debug_callbacks_in_remat",
    "donates",
    "effectful_callbacks",
    "unused_callbacks",
]

#: Callbacks that jit treats as pure functions, so that it may remove an unused one.
PURE_CALLBACKS = frozenset({"pure_callback"})
#: Callbacks whose effects are the point: each call of the program may answer differently.
EFFECTFUL_CALLBACKS = frozenset({"io_callback"})


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
