"""Count how often a function is traced, and say which argument caused each retrace."""

from __future__ import annotations

import functools
import numbers
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, ParamSpec, TypeVar, overload

import jax

from jaxpurity._introspect import arguments, qualname
from jaxpurity._jax_compat import (
    is_jit_wrapper,
    jit_cache_misses,
    jit_static_argument_names,
    trace_in_progress,
)
from jaxpurity._leaftypes import LeafType, is_tracer, leaf_type, safe_repr
from jaxpurity._naming import short_repr
from jaxpurity._pages import url
from jaxpurity._trees import FLATTEN_ERRORS, not_a_tree
from jaxpurity.checks._tracing import ARRAYS, SCALARS

__all__ = ["RetraceError", "TraceCounter", "count_traces", "what_changed"]

P = ParamSpec("P")
R = TypeVar("R")


class RetraceError(RuntimeError):
    """A function decorated with :func:`count_traces` was traced more than ``max_traces`` times.

    The message names the argument (and pytree leaf) whose change made JAX
    trace again: its shape, dtype or weak type, a static value, or the
    identity of a Python object, and says how to avoid the retrace. The
    advice for a static value depends on what it can be: a float is data
    (pass it as an array); an int may be data or a size, an axis or a shape
    (then it must stay static: keep its values few); a bool, a string or a
    tuple stays static.
    """


# ----------------------------------------------------------------- signatures


@dataclass(frozen=True)
class _Static:
    """A leaf that reaches the function as a Python value, not as an array.

    ``maybe_traced`` marks a Python scalar seen outside a trace (the
    ``count_traces(jax.jit(f))`` order) where the jit wrapper does not say
    which arguments are static (one whose PjitInfo cannot be read): ``jit`` may trace it as a
    weakly typed array or take it as a static argument.
    """

    value: Any
    maybe_traced: bool = False

    def same(self, other: _Static) -> bool:
        """Whether JAX's cache (which hashes and compares static values) sees no change."""
        if self.value is other.value:
            return True
        if _compares_by_identity(self.value):
            return False
        try:
            return bool(self.value == other.value)
        except Exception:  # noqa: BLE001 - an __eq__ that fails is "not equal" to the cache too
            return False

    def __str__(self) -> str:
        if _compares_by_identity(self.value):
            return f"<{type(self.value).__name__} object, id {id(self.value):#x}>"
        return short_repr(self.value)


def _compares_by_identity(value: Any) -> bool:
    return type(value).__eq__ is object.__eq__


# One argument leaf: an array type (for traced leaves and concrete arrays) or a static value.
_Leaf = LeafType | _Static


def _leaf(x: Any, *, static: bool | None) -> _Leaf:
    """The leaf as jit sees it; ``static``: whether its argument is static (None: unknown)."""
    if is_tracer(x) or isinstance(x, ARRAYS):
        return leaf_type(x)
    if static is False and isinstance(x, SCALARS):
        return leaf_type(x)  # jit traces a Python scalar as a weakly typed array
    return _Static(x, maybe_traced=static is None and isinstance(x, SCALARS))


_Signature = dict[str, tuple[Any, dict[str, _Leaf]]]

#: The structure recorded for an argument that JAX cannot flatten (a reference cycle, or a
#: tree nested too deep): it is kept whole, as one static value.
_UNFLATTENED = "<a pytree JAX cannot flatten>"


def _signature(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    *,
    static: Callable[[str], bool | None],
) -> _Signature:
    """Per argument: its pytree structure and its leaves by path.

    ``static(name)`` says whether an argument is static (None: unknown). An
    argument JAX cannot flatten is one static leaf: a function called inside a
    trace takes it as a Python value; :func:`jax.jit` fails on it, and
    :func:`_not_a_tree` then says which it is.
    """
    out: _Signature = {}
    for name, value in arguments(fn, args, kwargs):
        try:
            pairs, treedef = jax.tree_util.tree_flatten_with_path(value)
        except FLATTEN_ERRORS:
            out[name] = (_UNFLATTENED, {"": _Static(value)})
            continue
        is_static = static(name)
        out[name] = (
            treedef,
            {jax.tree_util.keystr(path): _leaf(x, static=is_static) for path, x in pairs},
        )
    return out


def _not_a_tree(fn: Callable[..., Any], signature: _Signature) -> TypeError | None:
    """Where a call failed to flatten a pytree: the error naming the argument, if one is."""
    unflattened = {
        f"argument `{name}`": leaves[""].value
        for name, (treedef, leaves) in signature.items()
        if isinstance(treedef, str) and treedef == _UNFLATTENED and isinstance(leaves[""], _Static)
    }
    roots = {f"argument `{name}`": name for name, _ in signature.items()}
    return not_a_tree(f"count_traces({qualname(fn)})", unflattened, roots=roots)


def _describe(leaf: _Leaf) -> str:
    if isinstance(leaf, LeafType):
        return f"an array {leaf}"
    if leaf.maybe_traced:
        return f"Python scalar {leaf} (traced as {leaf_type(leaf.value)} unless static)"
    return f"static value {leaf}"


@dataclass(frozen=True)
class _Change:
    """What changed in one argument leaf, and what kind of cause that is (a key of _FIXES)."""

    text: str
    cause: str
    sure: bool = True  # False: it may not have caused the retrace (a maybe-traced scalar)


def _static_cause(value: Any) -> str:
    """Which fix suits a changing static value: by what the value can be."""
    if isinstance(value, numbers.Number) and not isinstance(value, numbers.Integral):
        return "static number"  # a float is data: no shape, axis or size is one
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return "static int"  # data, or a shape, axis or size: either
    return "static setting"  # a flag, a mode, a tuple of sizes: it stays static


def _leaf_difference(old: _Leaf, new: _Leaf) -> _Change | None:
    """What changed in one leaf; None when nothing did."""
    if isinstance(old, _Static) and old.maybe_traced and not isinstance(new, _Static):
        old = leaf_type(old.value)
    if isinstance(new, _Static) and new.maybe_traced and not isinstance(old, _Static):
        new = leaf_type(new.value)
    if isinstance(old, LeafType) and isinstance(new, LeafType):
        for what, a, b in [
            ("shape", old.shape, new.shape),
            ("dtype", old.dtype, new.dtype),
            ("weak type", old.weak, new.weak),
        ]:
            if a != b:
                scalars = what == "dtype" and old.weak and new.weak  # 2 and then 2.0
                return _Change(f"{what} changed from {old} to {new}", "scalar" if scalars else what)
        return None
    if isinstance(old, _Static) and isinstance(new, _Static):
        if old.same(new):
            return None
        text = f"static value changed from {old} to {new}"
        if old.maybe_traced and new.maybe_traced:
            old_type, new_type = leaf_type(old.value), leaf_type(new.value)
            if old_type != new_type:
                return _leaf_difference(old_type, new_type)
            # A traced scalar's value does not cause a retrace; only a static one's does.
            return _Change(text, _static_cause(new.value), sure=False)
        if type(old.value) is type(new.value) and _compares_by_identity(new.value):
            return _Change(
                f"a different Python object (id {id(new.value):#x}) of type "
                f"{type(new.value).__name__}",
                "Python object",
            )
        return _Change(text, _static_cause(new.value))
    return _Change(f"changed from {_describe(old)} to {_describe(new)}", "kind")


def _differences(old: _Signature, new: _Signature) -> list[tuple[str, _Change]]:
    """``(argument, change)`` for each argument leaf whose change caused the retrace.

    Changes that may not have caused it (the value of a Python scalar that
    ``jit`` may have traced) are listed only when nothing else changed.
    """
    sure: list[tuple[str, _Change]] = []
    unsure: list[tuple[str, _Change]] = []
    for name in [*old, *(n for n in new if n not in old)]:
        if name not in old or name not in new:
            text = "is new in this call" if name not in old else "is missing"
            sure.append((name, _Change(text, "pytree structure")))
            continue
        (old_def, old_leaves), (new_def, new_leaves) = old[name], new[name]
        if old_def != new_def:
            text = f"pytree structure changed from {old_def} to {new_def}"
            sure.append((name, _Change(text, "pytree structure")))
            continue
        for path, leaf in new_leaves.items():
            change = _leaf_difference(old_leaves[path], leaf)
            if change is not None:
                (sure if change.sure else unsure).append((name + path, change))
    return sure or unsure


def what_changed(name: str, old: Any, new: Any, *, static: bool) -> tuple[list[str], list[str]]:
    """What differs between two values of the argument ``name`` that a jit keys its cache
    by, and how to avoid each, in :func:`count_traces`'s words; ``static``: whether its
    Python numbers are kept as constants.

    Example:
      >>> what_changed("state", {"step": 0}, {"step": 1}, static=True)[0]
      ["`state['step']` static value changed from 0 to 1"]
    """

    def signature(value: Any) -> _Signature:
        return _signature(lambda state: None, (value,), {}, static=lambda _: static)

    changes = _differences(signature(old), signature(new))
    said = [f"`{name}{arg.removeprefix('state')}` {change.text}" for arg, change in changes]
    return said, _fixes([(name + arg.removeprefix("state"), c) for arg, c in changes])


_FIXES = {
    "shape": "pad or bucket inputs to a few fixed shapes",
    "dtype": "cast inputs to one dtype before the call (x.astype(...))",
    "weak type": "pass arrays, not Python scalars (jnp.asarray(value, dtype))",
    "scalar": "pass {args} as the same kind of Python number on every call (2.0, not 2), or "
    "as an array (jnp.asarray(value, dtype))",
    "kind": "pass the same kind of value each call: always an array, or always the same "
    "static value",
    "static number": "pass {args} as an array instead of a static argument (a number that "
    "changes is data: a traced argument takes every value with one trace)",
    "static int": "if {args} only feeds arithmetic, pass it as an array instead of a static "
    "argument; if it sets a shape, an axis or a size it must stay static: keep its distinct "
    "values few (bucket sizes, for example round up to a power of two)",
    "static setting": "{args} must stay static (a flag, a mode or a shape): keep its distinct "
    "values few, one trace each",
    "Python object": "pass a hashable value object (a frozen dataclass), or the object's "
    "arrays as arguments, instead of a fresh object each call",
    "pytree structure": "keep the same containers and keys from call to call",
}


def _fixes(changes: list[tuple[str, _Change]]) -> list[str]:
    """One fix per kind of cause, naming the arguments it is about."""
    by_cause: dict[str, list[str]] = {}
    for arg, change in changes:
        by_cause.setdefault(change.cause, []).append(f"`{arg}`")
    return [_FIXES[cause].format(args=" and ".join(args)) for cause, args in by_cause.items()]


# ----------------------------------------------------------------- the counter


class TraceCounter(Generic[P, R]):
    """A function that counts its traces; made by :func:`count_traces`.

    Attributes:
      traces: How many times the function has been traced so far.
      signatures: One entry per trace: each argument leaf (``"x"``,
        ``"params['w']"``) mapped to its type (``"float32[3]"``) or static
        value (``"static value True"``).
      max_traces: The limit, or None for no limit.
    """

    def __init__(self, fn: Callable[P, R], max_traces: int | None) -> None:
        if not callable(fn):
            raise TypeError(
                f"count_traces: fn must be a function (or a jax.jit of one), got "
                f"{safe_repr(fn)} (type {type(fn).__name__}); use it as @count_traces, "
                "@count_traces(max_traces=2), or count_traces(f, max_traces=2)"
            )
        if max_traces is not None and (
            isinstance(max_traces, bool) or not isinstance(max_traces, numbers.Integral)
        ):
            raise TypeError(
                "count_traces: max_traces must be a positive int or None, got "
                f"{safe_repr(max_traces)} (type {type(max_traces).__name__})"
            )
        if max_traces is not None and max_traces < 1:
            raise ValueError(
                f"max_traces must be a positive int or None, not {safe_repr(max_traces)}"
            )
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._jitted = is_jit_wrapper(fn)
        self._static = jit_static_argument_names(fn) if self._jitted else None
        self.max_traces = max_traces
        self.traces = 0
        self.signatures: list[dict[str, str]] = []
        self._raw: list[_Signature] = []

    def __repr__(self) -> str:
        return f"<count_traces({qualname(self._fn)}): {self.traces} traces>"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else types.MethodType(self, obj)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        if self._jitted:
            return self._call_jitted(args, kwargs)
        try:
            leaves = jax.tree_util.tree_leaves((args, kwargs))
        except FLATTEN_ERRORS:  # a cycle, or a tree too deep: no argument JAX traced
            leaves = []
        if not (any(map(is_tracer, leaves)) or trace_in_progress()):
            return self._fn(*args, **kwargs)  # an eager call is no trace
        # Inside the trace, every Python value that reaches the body is static.
        signature = _signature(self._fn, args, kwargs, static=lambda name: True)
        if self.max_traces is not None and self.traces >= self.max_traces:
            raise RetraceError(self._message(signature, self.traces + 1))
        self._record(signature)
        return self._fn(*args, **kwargs)

    def _call_jitted(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> R:
        # jax.jit(f) calls f itself, so the body cannot be wrapped from here. A call
        # traces (and compiles) exactly when it misses the jit's cache, so count misses.
        signature = _signature(self._fn, args, kwargs, static=self._is_static)
        try:
            with jit_cache_misses(self._fn) as missed:
                out = self._fn(*args, **kwargs)
        except FLATTEN_ERRORS:
            error = _not_a_tree(self._fn, signature)
            if error is None:
                raise
            raise error from None
        if missed():
            if self.max_traces is not None and self.traces >= self.max_traces:
                raise RetraceError(self._message(signature, self.traces + 1))
            self._record(signature)
        return out

    def _is_static(self, name: str) -> bool | None:
        """Whether the jit wrapper takes argument ``name`` as static; None where unknown."""
        return None if self._static is None else name in self._static

    def _record(self, signature: _Signature) -> None:
        self.traces += 1
        self._raw.append(signature)
        self.signatures.append(
            {
                name + path: _describe(leaf)
                for name, (_, leaves) in signature.items()
                for path, leaf in leaves.items()
            }
        )

    def _message(self, signature: _Signature, n: int) -> str:
        name = qualname(self._fn)
        candidates = [(len(_differences(old, signature)), -i) for i, old in enumerate(self._raw)]
        _, minus_index = min(candidates)
        closest = -minus_index
        changes = _differences(self._raw[closest], signature)
        lines = [
            f"`{name}` was traced {n} times, more than max_traces={self.max_traces}. "
            f"Compared with trace {closest + 1}, the closest earlier one:"
        ]
        if changes:
            lines += [f"  argument `{arg}`: {change.text}" for arg, change in changes]
        else:
            lines.append(
                "  no argument changed: JAX traced again for another reason (a cleared cache, "
                "a new function object jitted on each call, such as a lambda or partial made "
                "in a loop, or a changed JAX config)"
            )
        fixes = _fixes(changes)
        if fixes:
            lines.append("To avoid the retrace: " + "; ".join(fixes) + ".")
        lines.append(f"See {url('static_arguments' if changes else 'retracing_storms')}")
        return "\n".join(lines)


@overload
def count_traces(fn: Callable[P, R], *, max_traces: int | None = None) -> TraceCounter[P, R]: ...


@overload
def count_traces(
    fn: None = None, *, max_traces: int | None = None
) -> Callable[[Callable[P, R]], TraceCounter[P, R]]: ...


def count_traces(
    fn: Callable[P, R] | None = None, *, max_traces: int | None = None
) -> TraceCounter[P, R] | Callable[[Callable[P, R]], TraceCounter[P, R]]:
    """Count how many times ``fn`` is traced; fail past ``max_traces``, naming the cause.

    Use it as ``@count_traces`` or ``@count_traces(max_traces=2)``. It works
    either way round with :func:`jax.jit`:

    * ``jax.jit(count_traces(f))``: the counter runs inside the traced body,
      so it counts every trace (by ``jit``, ``grad``, ``vmap``, ...) and
      raises *before* a trace past the limit goes on. Eager calls (no
      tracer among the arguments and no trace going on) are not counted.
    * ``count_traces(jax.jit(f))``: ``jit`` calls ``f`` directly, so the
      counter cannot sit in the body; it counts the calls that miss the jit's
      cache (each one traces and compiles) and raises *after* such a call.
      Calls made while an outer trace is going on do not use that cache and
      are not counted.

    Each trace's argument signature is kept in ``.signatures``. When a trace
    goes past ``max_traces``, :class:`RetraceError` compares it with the
    closest earlier trace and names each argument leaf that changed: its
    shape, dtype or weak type, a static value, or the identity of a Python
    object passed as a static argument.

    Args:
      fn: The function, or a :func:`jax.jit` function. Omit it to get a decorator.
      max_traces: Raise :class:`RetraceError` on any trace past this many;
        None (the default) only counts.

    Returns:
      A :class:`TraceCounter` that calls ``fn`` and has ``.traces`` and
      ``.signatures``; or, without ``fn``, a decorator that makes one.

    Raises:
      RetraceError: From a call, when it traces ``fn`` more than ``max_traces`` times.
      ValueError: ``max_traces`` is not a positive int.
      TypeError: From a call of a :func:`jax.jit` function, which failed to flatten an
        argument that holds a reference cycle or is nested too deep for JAX: it names
        the argument. (Called eagerly, a function that is not jitted takes any argument.)

    Example:
      >>> import jax, jax.numpy as jnp
      >>> @count_traces(max_traces=1)
      ... def double(x):
      ...     return 2 * x
      >>> f = jax.jit(double)
      >>> f(jnp.ones(3)).tolist(), f(jnp.zeros(3)).tolist()
      ([2.0, 2.0, 2.0], [0.0, 0.0, 0.0])
      >>> double.traces, double.signatures
      (1, [{'x': 'an array float32[3]'}])
      >>> try:
      ...     f(jnp.ones(4))
      ... except RetraceError as error:
      ...     print(error)
      `double` was traced 2 times, more than max_traces=1. Compared with trace 1, the closest earlier one:
        argument `x`: shape changed from float32[3] to float32[4]
      To avoid the retrace: pad or bucket inputs to a few fixed shapes.
      See https://.../examples/control_flow/static_arguments.html
    """  # noqa: E501
    if fn is None:

        def decorate(fn: Callable[P, R]) -> TraceCounter[P, R]:
            return count_traces(fn, max_traces=max_traces)

        return decorate
    return TraceCounter(fn, max_traces)
