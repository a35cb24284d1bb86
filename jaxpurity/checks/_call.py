"""The checked call, bound once: the body jit traces, its arguments by name, what it reaches.

:func:`jaxpurity.check_pure` and :func:`jaxpurity.find_leaks` bind the user's
call once, as a :class:`BoundCall`, and hand that record down to each pass:
the snapshot reads its arguments and bindings, the watch and the restore what
those hold, the trace its split, the locator its names. No pass looks through
the wrappers or binds the arguments again.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jaxpurity._introspect import (
    arguments,
    named_arguments,
    qualname,
    scope_functions,
    strip_jit,
    unwrap,
)
from jaxpurity._jax_compat import is_jit_wrapper, jit_static_argument_names
from jaxpurity.checks._snapshot import Binding, bindings
from jaxpurity.checks._tracing import SplitCall

__all__ = ["BoundCall"]


@dataclass(frozen=True)
class BoundCall:
    """A call ``fn(*args, **kwargs)`` as :func:`jax.jit` makes it, and what every pass reads.

    A bound method whose function is jitted (``@jax.jit`` on a method) hands
    ``self`` to ``jit`` as its first argument: a registered pytree is then
    flattened and rebuilt like any argument, so what the body does to it
    lands on a copy. The wrapper's ``static_argnums`` and ``static_argnames``
    are kept (where JAX says them: 0.6.2 and newer).

    Attributes:
      fn: The function as the user passed it; a jit wrapper answers from its
        cache through it.
      given: The arguments as the user passed them, ``(args, kwargs)``.
      body: What jit traces: ``fn`` with its jit wrappers looked through, and
        what a bound method or a partial binds kept.
      args: The positional arguments as jit passes them to ``body`` (``self``
        first, for a jitted method).
      kwargs: The keyword arguments.
      static: The positions and names of the arguments jit keeps whole.
      name: The name messages give the function.
      named: Every argument by name, with what partials, bound methods and
        callable objects bind (:func:`jaxpurity._introspect.named_arguments`).
      defaults: The parameters the call leaves out, with the default each gets.
      innermost: The Python function whose code runs (the last of the wrappers).
      parameters: ``args`` and ``kwargs`` by the parameters of ``innermost``,
        where it is a Python function.
      functions: ``innermost`` and the user functions it reaches in one step.
      bindings: The globals and closure variables those functions can rebind.

    Example:
      >>> import functools, jax
      >>> @functools.partial(jax.jit, static_argnames="n")
      ... def tile(x, n):
      ...     return x * n
      >>> call = BoundCall.of(tile, (1.0,), {"n": 3})
      >>> call.body is tile.__wrapped__, call.static <= {"n"}  # empty where JAX does not say
      (True, True)
      >>> call.name, call.named
      ('tile', (('x', 1.0), ('n', 3)))
    """

    fn: Callable[..., Any]
    given: tuple[tuple[Any, ...], dict[str, Any]]
    body: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    static: frozenset[int | str]
    name: str
    named: tuple[tuple[str, Any], ...]
    defaults: dict[str, Any]
    innermost: Any
    parameters: tuple[tuple[str, Any], ...]
    functions: tuple[types.FunctionType, ...]
    bindings: tuple[Binding, ...]

    @classmethod
    def of(cls, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> BoundCall:
        """Bind the call ``fn(*args, **kwargs)``."""
        wrapper: Any = fn
        jit_args = args
        if isinstance(fn, types.MethodType) and is_jit_wrapper(fn.__func__):
            wrapper, jit_args = fn.__func__, (fn.__self__, *args)
        static = jit_static_argument_names(wrapper) if is_jit_wrapper(wrapper) else None
        body = strip_jit(wrapper)
        bound = _bind(body, jit_args, kwargs)
        innermost = unwrap(body)
        functions = tuple(scope_functions(body))
        parameters = (
            arguments(innermost, jit_args, kwargs)
            if isinstance(innermost, types.FunctionType)
            else []
        )
        return cls(
            fn=fn,
            given=(args, kwargs),
            body=body,
            args=jit_args,
            kwargs=kwargs,
            static=_static_places(bound, jit_args, kwargs, static or frozenset()),
            name=qualname(body),
            named=tuple(named_arguments(body, jit_args, kwargs)),
            defaults=_defaults_used(bound),
            innermost=innermost,
            parameters=tuple(parameters),
            functions=functions,
            bindings=tuple(bindings(functions)),
        )

    def split(self) -> SplitCall:
        """The call split for tracing, with the static arguments kept whole."""
        return SplitCall.of(self.args, self.kwargs, self.static)


def _bind(
    body: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> inspect.BoundArguments | None:
    """The call's arguments bound to ``body``'s parameters; None where that fails."""
    try:
        return inspect.signature(body).bind_partial(*args, **kwargs)
    except (TypeError, ValueError):
        return None


def _static_places(
    bound: inspect.BoundArguments | None,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    static: frozenset[str],
) -> frozenset[int | str]:
    """The positions and keyword names at which the call passes the static parameters."""
    keep: set[int | str] = {k for k in kwargs if k in static}
    if bound is not None:
        names = list(bound.arguments)
        keep |= {i for i, name in enumerate(names[: len(args)]) if name in static}
    return frozenset(keep)


def _defaults_used(bound: inspect.BoundArguments | None) -> dict[str, Any]:
    """The parameters the call leaves out, by name, with the default value each then gets."""
    if bound is None:
        return {}
    return {
        name: p.default
        for name, p in bound.signature.parameters.items()
        if name not in bound.arguments and p.default is not inspect.Parameter.empty
    }
