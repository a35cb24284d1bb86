"""Keep state explicit: frozen pytree dataclasses, and a pure step function with a mutable face.

JAX transformations want pure functions: state goes in as an argument and
comes out as a result. :func:`dataclass` makes that state a readable, typed
pytree, and :class:`Stateful` hides the threading of it when all you want is
to call a step again and again from Python.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import functools
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar, cast

import jax
import jax.numpy as jnp
import numpy as np

from jaxpurity._introspect import qualname
from jaxpurity._jax_compat import trace_in_progress
from jaxpurity._leaftypes import is_tracer, leaf_type
from jaxpurity._naming import short_repr
from jaxpurity._pages import page
from jaxpurity._trees import FLATTEN_ERRORS, not_a_tree
from jaxpurity.control._through_lax import no_tree_error
from jaxpurity.control._typediff import check_carry, describe_value

__all__ = ["Stateful", "dataclass", "static_field"]

T = TypeVar("T")
StateT = TypeVar("StateT")

_STATIC = "static"  # The metadata key; newer JAX's register_dataclass reads it too.


def static_field(**kwargs: Any) -> Any:
    """A :func:`dataclass` field that is configuration, not data.

    A static field is not a pytree leaf: its value becomes part of the
    treedef (the aux data), so :func:`jax.jit` sees it as a Python constant
    and compiles again for each new value. Use it for small hashable settings
    such as a name, a flag or a shape; keep arrays in ordinary fields.

    Args:
      **kwargs: Passed to :func:`dataclasses.field` (``default``,
        ``default_factory``, ``repr``, ...); ``metadata`` is kept and
        extended.

    Returns:
      A :class:`dataclasses.Field` marked static.

    Example:
      >>> import jax, jax.numpy as jnp
      >>> import jaxpurity
      >>> @jaxpurity.dataclass
      ... class Layer:
      ...     w: jax.Array
      ...     activation: str = jaxpurity.static_field(default="relu")
      >>> jax.tree_util.tree_leaves(Layer(jnp.ones(2)))  # the static field is no leaf
      [Array([1., 1.], dtype=float32)]
    """
    metadata = {**(kwargs.pop("metadata", None) or {}), _STATIC: True}
    return dataclasses.field(metadata=metadata, **kwargs)


def _is_static(f: dataclasses.Field[Any]) -> bool:
    return bool(f.metadata.get(_STATIC, False))


def _check_static_hashable(obj: Any, names: tuple[str, ...]) -> None:
    """Reject an unhashable static value now, not later inside jit's cache lookup."""
    for name in names:
        value = getattr(obj, name)
        try:
            hash(value)
        except TypeError:
            kind = (
                "an array" if isinstance(value, (jax.Array, np.ndarray)) else type(value).__name__
            )
            raise TypeError(
                f"{type(obj).__name__}.{name} is a static_field(), so its value is part of "
                f"the treedef that jit caches on and must be hashable; got {kind}: "
                f"{short_repr(value)}. A mutable value changed in place would make jit "
                "reuse a stale trace. Use an immutable value (a tuple instead of a list, a "
                f"frozenset instead of a set), or, if '{name}' holds arrays, make it an "
                "ordinary field."
            ) from None


def dataclass(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen dataclass that JAX treats as a pytree.

    Ordinary fields are the pytree's children, so :func:`jax.jit`,
    :func:`jax.grad`, :func:`jax.vmap` and :func:`jax.tree.map` see through
    it, and :func:`jax.tree_util.keystr` names leaves by field (``.w``).
    Fields made with :func:`static_field` are aux data instead: part of the
    tree's structure, so they must be hashable and a new value makes jit
    compile again. Instances are immutable (assigning a field raises
    :class:`dataclasses.FrozenInstanceError`); ``obj.replace(field=value)``
    returns a changed copy.

    Args:
      cls: The class to decorate; write ``@jaxpurity.dataclass`` without
        parentheses.

    Returns:
      The same class, now a frozen dataclass registered with JAX.

    Raises:
      TypeError: ``cls`` is not a class, a field is named ``replace``, a
        field has ``init=False``, or (at construction) a static field's
        value is unhashable.
      ValueError: As :func:`dataclasses.dataclass` raises it (a mutable
        default, for example). Where decorating raises, the class is left as
        it was.

    Example:
      >>> import jax, jax.numpy as jnp
      >>> import jaxpurity
      >>> @jaxpurity.dataclass
      ... class Params:
      ...     w: jax.Array
      ...     b: jax.Array
      ...     activation: str = jaxpurity.static_field(default="tanh")
      >>> p = Params(w=jnp.ones(2), b=jnp.zeros(()))
      >>> [jax.tree_util.keystr(path) for path, _ in jax.tree_util.tree_leaves_with_path(p)]
      ['.w', '.b']
      >>> g = jax.grad(lambda p: (3.0 * p.w).sum() + p.b)(p)
      >>> g.w.tolist(), g.b.tolist(), g.activation
      ([3.0, 3.0], 1.0, 'tanh')
      >>> p.replace(b=jnp.ones(())).b.tolist()
      1.0
    """
    if not isinstance(cls, type):
        raise TypeError(
            f"jaxpurity.dataclass decorates a class, not {short_repr(cls)}; write "
            "@jaxpurity.dataclass (no parentheses) on the line above `class ...:`"
        )
    before = _ClassPicture(cls)
    try:
        return _decorate(cls)
    except BaseException:
        before.restore()
        raise


class _ClassPicture:
    """What decorating may change in a class, kept to put back if decorating raises.

    :func:`dataclasses.dataclass` sets attributes on the class as it goes
    (``__dataclass_params__`` first, then each field's default in place of its
    :func:`dataclasses.field`, whose ``name`` and ``type`` it fills in, then
    ``__init__``, ``__repr__``, ``__doc__``...), and may raise half-way (a
    mutable default); jaxpurity's own checks run after it.
    """

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.attributes = dict(vars(cls))
        self.fields = {
            id(value): (value, {slot: getattr(value, slot) for slot in _field_slots(value)})
            for value in self.attributes.values()
            if isinstance(value, dataclasses.Field)
        }

    def restore(self) -> None:
        """Put every attribute of the class, and every field it held, back as it was."""
        now = dict(vars(self.cls))
        for name in now.keys() - self.attributes.keys():
            with _unless_refused():
                type.__delattr__(self.cls, name)
        for name, value in self.attributes.items():
            if now.get(name, _ABSENT) is not value:
                with _unless_refused():
                    type.__setattr__(self.cls, name, value)
        for field, slots in self.fields.values():
            for slot, value in slots.items():
                with _unless_refused():
                    object.__setattr__(field, slot, value)


_ABSENT = object()


def _field_slots(field: dataclasses.Field[Any]) -> list[str]:
    return [slot for slot in type(field).__slots__ if hasattr(field, slot)]


@contextlib.contextmanager
def _unless_refused() -> Iterator[None]:
    """Put back what can be put back: an attribute Python refuses to set is left as it is."""
    try:
        yield
    except (AttributeError, TypeError):
        pass


def _decorate(cls: type[T]) -> type[T]:
    """:func:`dataclass`'s work on a class, which may raise half-way (the caller restores)."""
    cls = dataclasses.dataclass(frozen=True)(cls)
    fields = dataclasses.fields(cast(Any, cls))  # a dataclass now; mypy cannot tell
    for f in fields:
        if f.name == "replace":
            raise TypeError(
                f"{cls.__name__} has a field named 'replace', which would hide the "
                ".replace() method of jaxpurity.dataclass; rename the field"
            )
        if not f.init:
            raise TypeError(
                f"{cls.__name__}.{f.name} has init=False, but JAX rebuilds a pytree "
                "node by passing every field to __init__; drop init=False, or compute "
                "the value in a method or property instead"
            )
    names = tuple(f.name for f in fields)
    static = tuple(f.name for f in fields if _is_static(f))

    init = cls.__init__

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        _check_static_hashable(self, static)

    cls.__init__ = __init__  # type: ignore[method-assign]

    def replace(self: T, **changes: Any) -> T:
        """A copy of this object with the given fields changed."""
        unknown = sorted(set(changes) - set(names))
        if unknown:
            hints = [
                f"{name!r} (did you mean {close[0]!r}?)" if close else repr(name)
                for name in unknown
                for close in [difflib.get_close_matches(name, names, n=1)]
            ]
            raise TypeError(
                f"{type(self).__name__}.replace() got unknown field(s) {', '.join(hints)}; "
                f"the fields are: {', '.join(names)}"
            )
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]

    def _frozen(self: Any, name: str, *_: Any) -> None:
        raise dataclasses.FrozenInstanceError(
            f"cannot change field {name!r} of {type(self).__name__}: jaxpurity "
            f"dataclasses are immutable pytrees; make a changed copy with "
            f"obj = obj.replace({name}=...)"
        )

    cls.replace = replace  # type: ignore[attr-defined]
    cls.__setattr__ = _frozen  # type: ignore[method-assign]
    cls.__delattr__ = _frozen  # type: ignore[method-assign]
    jax.tree_util.register_dataclass(
        cls,
        data_fields=[f.name for f in fields if not _is_static(f)],
        meta_fields=list(static),
    )
    return cls


def _as_state(tree: Any, fn_name: str) -> Any:
    """``tree`` with every leaf a strongly typed JAX array of the same dtype.

    A Python ``0`` is a weakly typed int32 to jit, and ``n + jnp.int32(1)``
    turns it strong: a new type, so a new trace. Making every state leaf
    strong (the initial state once, each new state under the trace) keeps
    the state's type, and so jit's cache entry, stable.
    """

    def strong(x: Any) -> Any:
        try:
            t = leaf_type(x)
        except TypeError as err:
            raise _NotTraceable(x, err) from None
        return x if isinstance(x, jax.Array) and not t.weak else jnp.asarray(x, dtype=t.dtype)

    # tree_map, not tree_map_with_path, which recursed in Python on JAX 0.4.35 (a state
    # ~1,000 levels deep failed there): the path is found only for the message.
    try:
        return jax.tree_util.tree_map(strong, tree)
    except _NotTraceable as bad:
        raise TypeError(
            f"Stateful({fn_name}): init_state leaf {_path_of(tree, bad.leaf)} cannot be traced: "
            f"{bad.error}. Keep configuration out of the state (close over it, or use "
            "jaxpurity.static_field() in a @jaxpurity.dataclass state)"
        ) from None


class _NotTraceable(Exception):
    """A state leaf with no JAX type, and why."""

    def __init__(self, leaf: Any, error: TypeError) -> None:
        super().__init__(str(error))
        self.leaf, self.error = leaf, error


def _path_of(tree: Any, leaf: Any) -> str:
    """Where ``leaf`` is in ``tree`` (``['a'][0]``, or ``(root)``), as a message writes it."""
    try:
        pairs = jax.tree_util.tree_flatten_with_path(tree)[0]
    except Exception:  # noqa: BLE001 - only the message needs it
        return "(a leaf)"
    path = next((path for path, x in pairs if x is leaf), None)
    return "(a leaf)" if path is None else jax.tree_util.keystr(path) or "(root)"


class Stateful(Generic[StateT]):
    """A pure step function ``fn(state, *args) -> (out, new_state)`` you can just call.

    Calling the wrapper runs ``fn`` (under :func:`jax.jit` by default) with
    the current state, keeps the new state in :attr:`state` and returns
    ``out``: the convenience of a mutable object, with a pure function that
    JAX can trace, differentiate and compile inside.

    The state's type is checked on every trace: the new state must have the
    same tree structure, shapes and dtypes as the state passed in. A state
    whose type drifts would make jit trace and compile again (on every call,
    if it keeps drifting), so it raises :class:`jaxpurity.TypeMismatchError`
    naming each differing leaf instead.

    Every state leaf is kept a strongly typed JAX array. ``init_state`` is
    converted once: Python numbers and NumPy values become arrays of their
    default dtype (``0`` becomes a strong ``int32``, where jit alone would
    see a weakly typed one and retrace as soon as ``n + jnp.int32(1)`` made
    it strong). A new state leaf that is weak but of the right dtype (``return
    out, 0``) is made strong the same way. Pass an explicit dtype
    (``jnp.zeros((), jnp.int16)``) to choose another.

    A Stateful lives on the Python side: call it from ordinary Python code.
    Inside any transformation (:func:`jax.jit`, :func:`jax.vmap`,
    :func:`jax.grad`, :func:`jax.lax.scan`, ...) a call raises a
    :class:`TypeError` and leaves the state as it was: there its one Python
    state could not step once per call (under ``vmap``, once per example),
    so call the pure ``fn`` and thread the state yourself.

    Args:
      fn: The pure step function, ``fn(state, *args, **kwargs) -> (out,
        new_state)``. ``args`` and ``kwargs`` are traced: pass arrays and
        numbers, and close over configuration.
      init_state: The first state: a pytree of arrays or numbers, such as a
        :func:`dataclass` instance. :meth:`reset` returns to it.
      jit: Compile ``fn`` with :func:`jax.jit` (the default). With
        ``jit=False``, ``fn`` runs eagerly and is "traced" on every call.

    Raises:
      TypeError: ``fn`` is not callable, ``jit`` is not a bool, or an
        ``init_state`` leaf is not an array or number.

    Example:
      >>> import jax.numpy as jnp
      >>> import jaxpurity
      >>> def count(n, step):
      ...     return n, n + step
      >>> counter = jaxpurity.Stateful(count, 0)
      >>> [int(counter(1)) for _ in range(3)]
      [0, 1, 2]
      >>> int(counter.state), counter.trace_count
      (3, 1)
      >>> counter.reset()
      >>> int(counter.state)
      0

      A step whose state changes type is stopped at its first trace:

      >>> def grow(xs, x):
      ...     return xs.sum(), jnp.append(xs, x)
      >>> buffer = jaxpurity.Stateful(grow, jnp.zeros(2))
      >>> with jaxpurity.raises(jaxpurity.TypeMismatchError):  # doctest: +ELLIPSIS
      ...     buffer(1.0)
      TypeMismatchError: Stateful(grow): ...trace and compile fn again...
      ...float32[2] vs float32[3]
      ...
    """

    def __init__(
        self, fn: Callable[..., tuple[Any, StateT]], init_state: StateT, *, jit: bool = True
    ) -> None:
        if not callable(fn):
            raise TypeError(
                f"Stateful(fn, init_state): fn must be a callable "
                f"fn(state, *args) -> (out, new_state), not {short_repr(fn)}; "
                "did you swap fn and init_state?"
            )
        if not isinstance(jit, bool):
            raise TypeError(
                f"Stateful(..., jit=...): jit must be True or False, not {short_repr(jit)}"
            )
        self._fn = fn
        self._name = qualname(fn)
        try:
            state = _as_state(init_state, self._name)
        except FLATTEN_ERRORS:
            error = not_a_tree(f"Stateful({self._name})", {"init_state": init_state})
            if error is None:
                raise
            raise error from None
        self._init_state: StateT = state
        self._state: StateT = self._init_state
        self._trace_count = 0
        self._step = jax.jit(self._traced) if jit else self._traced

    def _traced(self, state: StateT, *args: Any, **kwargs: Any) -> tuple[Any, StateT]:
        self._trace_count += 1  # noqa: JP105 (a Python side effect on purpose: once per trace)
        result = self._fn(state, *args, **kwargs)
        if not (isinstance(result, (tuple, list)) and len(result) == 2):
            raise TypeError(
                f"Stateful({self._name}): fn must return a pair (out, new_state), "
                f"but it returned {describe_value(result)}; end it with "
                "`return out, new_state` (use `return None, new_state` if there is no output)"
            )
        out, new_state = result
        check_carry(
            state,
            new_state,
            what=(
                f"Stateful({self._name}): the new state has another type than the state passed in; "
                "a state whose type changes makes jit trace and compile fn again (on every "
                "call, if it keeps changing)"
            ),
            init_name="state passed in",
            carry_name="new state returned",
        )
        return out, _as_state(new_state, self._name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run one step: ``out, self.state = fn(self.state, *args, **kwargs)``; return ``out``.

        Raises:
          TypeError: ``fn`` did not return ``(out, new_state)``, or the call
            happened inside a JAX transformation (jit, vmap, grad, scan...:
            the new state would be a leaked tracer, or one step for a whole
            batch); the state is left as it was.
          jaxpurity.TypeMismatchError: the new state's type differs from the
            state passed in.
        """
        # Under vmap or grad a new state that does not depend on the arguments comes back
        # concrete: it would step once for the whole batch. So refuse before running.
        if trace_in_progress() or any(map(is_tracer, self._leaves(args, kwargs))):
            raise self._inside_a_transformation()
        try:
            out, new_state = self._step(self._state, *args, **kwargs)
        except FLATTEN_ERRORS:
            error = self._not_a_tree(args, kwargs)
            if error is None:
                raise
            raise error from None
        if any(map(is_tracer, jax.tree_util.tree_leaves(new_state))):  # a tracer closed over
            raise self._inside_a_transformation()
        self._state = new_state
        return out

    def _leaves(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """The leaves of the arguments, or the error for a cycle or a tree too deep for JAX."""
        try:
            return jax.tree_util.tree_leaves((args, kwargs))
        except FLATTEN_ERRORS:
            error = not_a_tree(f"Stateful({self._name})", {"args": args, "kwargs": kwargs})
            if error is None:
                raise
        raise error from None

    def _not_a_tree(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError | None:
        """Where a step failed to flatten a pytree: the error naming the state (too deep for
        jit where it names arguments by recursion, as JAX 0.4.35 does), or what fn returned,
        if it holds a cycle or is too deep (fn traced once more, its output checked first)."""
        step = functools.partial(self._fn, **kwargs)
        return no_tree_error(
            f"Stateful({self._name})",
            {"state": self._state},
            lambda types_of: types_of(step, self._state, *args),
            {"fn": step},
        )

    def _inside_a_transformation(self) -> TypeError:
        call = self._name if "<" not in self._name else "fn"
        return TypeError(
            f"Stateful({self._name}) was called inside a JAX transformation (jit, vmap, "
            "grad, scan, ...): its new state would be a tracer, and keeping it on the Python "
            "side would leak it (under vmap, it would step once for the whole batch). Inside "
            f"transformed code call the pure function and thread the state: "
            f"`out, state = {call}(state, ...)` (see {page('leak_through_self')})"
        )

    @property
    def state(self) -> StateT:
        """The current state."""
        return self._state

    @property
    def trace_count(self) -> int:
        """How many times ``fn`` has been traced (with ``jit=False``: called)."""
        return self._trace_count

    def reset(self) -> None:
        """Go back to the initial state (``trace_count`` is kept: nothing is retraced)."""
        self._state = self._init_state

    def __repr__(self) -> str:
        return f"Stateful({self._name}, trace_count={self._trace_count})"
