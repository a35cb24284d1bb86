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
    jit_layer,
    library_jit,
    named_arguments,
    qualname,
    reachable_code,
    scope_functions,
    strip_jit,
    unwrap,
)
from jaxpurity._jax_compat import (
    is_jit_wrapper,
    jit_donated_argument_names,
    jit_static_argument_names,
)
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
    are kept, and its ``donate_argnums`` and ``donate_argnames`` known.

    Attributes:
      fn: The function as the user passed it; a jit wrapper answers from its
        cache through it.
      jitted: The :func:`jax.jit` wrapper whose cache answers a call of ``fn``,
        looked for through partials and bound methods; None where there is none.
      given: The arguments as the user passed them, ``(args, kwargs)``.
      body: What jit traces: ``fn`` with its jit wrappers looked through, and
        what a bound method or a partial binds kept.
      args: The positional arguments as jit passes them to ``body`` (``self``
        first, for a jitted method).
      kwargs: The keyword arguments.
      static: The positions and names of the arguments jit keeps whole.
      donated: The parameters a jit wrapper ``fn`` donates (``donate_argnums``).
      name: The name messages give the function.
      named: Every argument by name, with what partials, bound methods and
        callable objects bind (:func:`jaxpurity._introspect.named_arguments`).
      defaults: The parameters the call leaves out, with the default each gets.
      innermost: The Python function whose code runs (the last of the wrappers).
      parameters: The arguments by the parameters of ``innermost`` (``self``
        included), where it is a Python function.
      functions: ``innermost`` and the user functions it reaches in one step:
        the code whose reads jit bakes in.
      reachable: Every user function the call can run, however deep
        (:func:`jaxpurity._introspect.reachable_code`): the code whose writes
        the check puts back.
      bindings: The globals, closure variables and module attributes the
        reachable functions can rebind.

    Example:
      >>> import functools, jax
      >>> @functools.partial(jax.jit, static_argnames="n")
      ... def tile(x, n):
      ...     return x * n
      >>> call = BoundCall.of(tile, (1.0,), {"n": 3})
      >>> call.body is tile.__wrapped__, call.static
      (True, frozenset({'n'}))
      >>> call.name, call.named
      ('tile', (('x', 1.0), ('n', 3)))
    """

    fn: Callable[..., Any]
    jitted: Any
    given: tuple[tuple[Any, ...], dict[str, Any]]
    body: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    static: frozenset[int | str]
    donated: frozenset[str]
    name: str
    named: tuple[tuple[str, Any], ...]
    defaults: dict[str, Any]
    innermost: Any
    parameters: tuple[tuple[str, Any], ...]
    functions: tuple[types.FunctionType, ...]
    reachable: tuple[types.FunctionType, ...]
    bindings: tuple[Binding, ...]

    @classmethod
    def of(cls, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> BoundCall:
        """Bind the call ``fn(*args, **kwargs)``."""
        wrapper: Any = fn
        jit_args = args
        if isinstance(fn, types.MethodType) and is_jit_wrapper(fn.__func__):
            wrapper, jit_args = fn.__func__, (fn.__self__, *args)
        jitted = jit_layer(wrapper)
        static = jit_static_argument_names(jitted) if jitted is not None else None
        donated = jit_donated_argument_names(jitted) if jitted is not None else None
        body = strip_jit(wrapper)
        bound = _bind(body, jit_args, kwargs)
        innermost = unwrap(body)
        named = named_arguments(body, jit_args, kwargs)
        reachable, modules = reachable_code(body, [value for _, value in named])
        parameters = []
        if isinstance(innermost, types.FunctionType):
            parameters = [(name, value) for name, value in named if name in _own(innermost)]
        return cls(
            fn=fn,
            jitted=jitted,
            given=(args, kwargs),
            body=body,
            args=jit_args,
            kwargs=kwargs,
            static=_static_places(bound, jit_args, kwargs, static or frozenset()),
            donated=donated or frozenset(),
            name=qualname(body),
            named=tuple(named),
            defaults=_defaults_used(bound),
            innermost=innermost,
            parameters=tuple(parameters),
            functions=tuple(scope_functions(body)),
            reachable=tuple(reachable),
            bindings=tuple(bindings(reachable, modules, getattr(innermost, "__module__", None))),
        )

    def split(self) -> SplitCall:
        """The call split for tracing, with the static arguments kept whole (and, where
        ``fn`` is another library's jit, its Python numbers)."""
        library = library_jit(self.fn) is not None
        return SplitCall.of(self.args, self.kwargs, self.static, arrays_only=library)


def _own(fn: types.FunctionType) -> frozenset[str]:
    """The names of ``fn``'s own parameters (its ``__wrapped__`` not followed: it may loop)."""
    try:
        return frozenset(inspect.signature(fn, follow_wrapped=False).parameters)
    except Exception:  # noqa: BLE001 - no signature, or one a hostile __getattr__ breaks
        return frozenset()


def _bind(
    body: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> inspect.BoundArguments | None:
    """The call's arguments bound to ``body``'s parameters; None where that fails."""
    try:
        return inspect.signature(body).bind_partial(*args, **kwargs)
    except Exception:  # noqa: BLE001 - no signature, or one a hostile __getattr__ breaks
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
