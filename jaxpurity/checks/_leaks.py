"""Find the tracers that escaped a trace, and say in words where each one is stored.

:func:`find_leaks` traces a function once (:mod:`jaxpurity.checks._tracing`), then
looks for tracers that are still alive although every trace has ended, names
the place that holds each one (:mod:`jaxpurity.checks._locate`) and the line that
stored it (:mod:`jaxpurity.checks._source`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ParamSpec

from jaxpurity._jax_compat import transformation_of
from jaxpurity._jax_names import STATIC_ARGUMENT_HOLDERS, STRUCTURE_HOLDERS
from jaxpurity._leaftypes import describe_leaf
from jaxpurity.checks._call import BoundCall
from jaxpurity.checks._guard import ONE_CHECK_AT_A_TIME, require_plain_python
from jaxpurity.checks._locate import RETURNED, UNKNOWN, Locator, Place
from jaxpurity.checks._process import Holder, ProcessState, empty
from jaxpurity.checks._restore import random_generators
from jaxpurity.checks._snapshot import Snapshot
from jaxpurity.checks._source import store_line
from jaxpurity.checks._tracing import RaisedWhileTraced, SplitCall, forgetting_traces, trace_once

__all__ = ["Leak", "find_leaks", "trace_finding_leaks"]

P = ParamSpec("P")


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
        ``"argument"``, ``"result"`` (the static data of the returned value) or
        ``"unknown"``.
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


def trace_finding_leaks(
    call: BoundCall, body: Callable[..., Any] | None = None
) -> tuple[Any, SplitCall, list[Leak], list[Holder]]:
    """Trace the call once, as jit would, and find its leaks.

    ``body`` is what is traced: ``call.body`` (the default), or a function
    that wraps it (:func:`functools.wraps`).

    Returns:
      The ``jax.stages.Traced`` of the traced call, the split call (to run
      it), the leaks, and the dicts and lists that hold the escaped tracers
      (to empty of tracers when the check ends).
    """
    found = trace_once(body or call.body, call.split())
    locator = Locator(call)
    placed = locator.locate(found.escaped)
    if found.returned:  # it keeps its whole trace alive: the unnamed tracers are those
        placed = [(t, p) for t, p in placed if p is not UNKNOWN] + [(found.returned[0], RETURNED)]
    leaks = [_leak(call.name, tracer, place, locator) for tracer, place in placed]
    del placed
    caches = [Holder(cache, frozenset()) for cache in locator.caches]
    return found.traced, found.call, leaks, found.holders + caches


#: Where a tracer is stored that JAX holds as an argument of a static position.
NONDIFF_ARGUMENT = (
    "an array passed in nondiff_argnums (of a custom_jvp or custom_vjp function), which JAX "
    "keeps as static data of the function, not as a traced input: pass arrays as ordinary "
    "arguments and ignore their tangents"
)

#: Where a tracer is stored that a pytree keeps as static data, part of its structure.
PYTREE_STRUCTURE = (
    "the structure of a pytree, where it keeps what is not a leaf: a plain attribute of an "
    "object that is a pytree (a Flax NNX module's attribute that is no nnx.Variable, a static "
    "field), set to a traced value. JAX keeps the structure in its caches, and the next call "
    "raises UnexpectedTracerError: keep arrays in leaves (an nnx.Variable), or return them"
)


def _leak(function: str, tracer: Any, place: Place, locator: Locator) -> Leak:
    origin = transformation_of(tracer)
    try:
        kind = describe_leaf(tracer)
    except TypeError:
        kind = type(tracer).__name__
    # The path names each object it passes through by its class: "(an `Unhashable` object)"
    where = place.where
    if any(f"`{holder}` object" in where for holder in STATIC_ARGUMENT_HOLDERS):
        where = NONDIFF_ARGUMENT
    elif any(f"`{holder}` object" in where for holder in STRUCTURE_HOLDERS):
        where = f"{PYTREE_STRUCTURE} (found in {where})"
    return Leak(
        where=where,
        function=function,
        tracer=f"{kind} tracer (from {origin})",
        line=store_line(locator.codes, locator.methods, place.names),
        root=place.root.kind,
        transformation=origin,
    )


def find_leaks(fn: Callable[P, Any], /, *args: P.args, **kwargs: P.kwargs) -> list[Leak]:
    """Trace ``fn(*args, **kwargs)`` once and report every tracer that escaped.

    A tracer escapes ("leaks") when the function stores it somewhere that
    outlives the trace: a global, a closure variable, an attribute of an
    argument, a container reachable from any of those. JAX only notices when
    the stale tracer is used later (``UnexpectedTracerError``), or, under
    :obj:`jax.checking_leaks`, with a raw reference chain. This names the
    place in your words, says which function was traced, and points at the
    source line that stored it when it can find one.

    Arrays and Python numbers among the arguments are traced, as
    :func:`jax.jit` would trace them; any other leaf (an object, a string) is
    passed in unchanged. Bind arguments that must stay static (a size, a
    flag) with :func:`functools.partial`. A :func:`jax.jit` wrapper around
    ``fn`` is looked through, so that its body really runs, and so do the
    loop bodies and inner ``jit`` functions it calls, even where JAX cached
    their traces before.

    ``fn`` runs exactly once, under a trace, called as :func:`jax.jit` calls
    it (see :func:`check_pure`). When the leaks are found, everything ``fn``
    can reach is put back as it was, so no tracer is left where you can reach
    it. How, and how it keeps no memory, is in the project's
    ``CONTRIBUTING.md``: "How check_pure keeps out of the way".

    Args:
      fn: The function to check, or a :func:`jax.jit` of it.
      *args: Positional arguments for ``fn``.
      **kwargs: Keyword arguments for ``fn``.

    Returns:
      One :class:`Leak` per escaped tracer; an empty list means no leak.

    Raises:
      TypeError: ``fn`` is not a function, or it was called inside a
        transformation (``jit``, ``vmap``, ``grad``, a loop body): call it
        from plain Python.
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
    require_plain_python(fn, args, kwargs, "find_leaks")
    call = BoundCall.of(fn, args, kwargs)
    holders: list[Holder] = []
    with ONE_CHECK_AT_A_TIME, forgetting_traces():
        process = ProcessState.now()
        scope = Snapshot(call.named, call.bindings)
        rngs = random_generators(call)
        try:
            _, _, leaks, holders = trace_finding_leaks(call)
            return leaks
        except RaisedWhileTraced as raised:
            error = raised.error  # raised below, outside this handler: its chain stays JAX's
        finally:
            scope.restore()  # no tracer is left where the caller can reach it
            process.restore()
            empty(holders)
            for r in rngs:  # a generator the trace drew from is put back where it was
                if r.moved():
                    r.reset()
    raise error
