"""The type of one pytree leaf as JAX sees it: shape, dtype, and whether it is weak.

Arrays, tracers, ``ShapeDtypeStruct`` s and Python scalars all have one.
Every jaxpurity module that names a leaf's type (in a mismatch, a retrace, a
leak) reads it here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxpurity._jax_compat import Tracer

__all__ = [
    "LeafType",
    "describe_leaf",
    "is_extended",
    "is_tracer",
    "leaf_type",
    "safe_repr",
    "shape_dtype_structs",
]


@dataclass(frozen=True)
class LeafType:
    """The type of one pytree leaf, as JAX sees it while tracing.

    Attributes:
      shape: The array shape; ``()`` for a scalar.
      dtype: The dtype after JAX canonicalises it (``float32`` unless x64 is on);
        a NumPy dtype, or JAX's own dtype for a typed PRNG key (``key<fry>``).
      weak: Whether the type is weak, that is it came from a Python scalar
        and takes its dtype from whatever it is combined with.
    """

    shape: tuple[int, ...]
    dtype: Any
    weak: bool

    def __str__(self) -> str:
        text = f"{self.dtype.name}[{','.join(map(str, self.shape))}]"
        if self.weak:
            origin = "a Python scalar" if self.shape == () else "built from a Python scalar"
            text += f" (weak: {origin})"
        return text


def is_tracer(x: Any) -> bool:
    """Whether ``x`` is a JAX tracer (by type: a tracer's own ``__class__`` is not consulted).

    Example:
      >>> import jax
      >>> seen = []
      >>> _ = jax.jit(lambda x: seen.append(x) or x)(1.0)
      >>> is_tracer(seen[0]), is_tracer(1.0)
      (True, False)
    """
    return issubclass(type(x), Tracer)


def is_extended(dtype: Any) -> bool:
    """Whether ``dtype`` is one of JAX's own dtypes, such as a typed PRNG key's ``key<fry>``."""
    return jax.dtypes.issubdtype(dtype, jax.dtypes.extended)


def safe_repr(x: Any) -> str:
    """``repr(x)``, or where that raises, a few words that say so: never an error.

    Example:
      >>> class Hostile:
      ...     def __repr__(self):
      ...         raise RuntimeError("no")
      >>> safe_repr([1]), safe_repr(Hostile())
      ('[1]', 'an object of type Hostile whose repr raises')
    """
    text = _repr(x)
    return f"an object of type {type(x).__name__} whose repr raises" if text is None else text


def _repr(x: Any) -> str | None:
    """``repr(x)``; None where it raises (or returns no str)."""
    try:
        text = repr(x)
    except Exception:  # noqa: BLE001 - a user's broken __repr__ must not replace our message
        return None
    return text if isinstance(text, str) else None


def _attribute(x: Any, name: str) -> Any:
    """``x.name``, or None where reading it fails in any way (a hostile ``__getattribute__``)."""
    try:
        return getattr(x, name, None)
    except Exception:  # noqa: BLE001 - an object whose attributes raise has no JAX type
        return None


def leaf_type(x: Any) -> LeafType:
    """The :class:`LeafType` of an array, tracer, ``ShapeDtypeStruct`` or Python scalar.

    Nothing is computed or put on a device: only the type is read.

    Args:
      x: One pytree leaf.

    Returns:
      Its shape, dtype and weak-typedness.

    Raises:
      TypeError: ``x`` is not an array-like value (for example a string).

    Example:
      >>> import jax.numpy as jnp
      >>> str(leaf_type(jnp.zeros((2, 3), jnp.float16)))
      'float16[2,3]'
      >>> str(leaf_type(0))
      'int32[] (weak: a Python scalar)'
      >>> leaf_type(True).weak
      False
    """
    # By type(x), not isinstance: isinstance reads x.__class__, which a hostile object
    # may make raise; and its attributes are read through _attribute, for the same reason.
    cls = type(x)
    if issubclass(cls, (bool, np.bool_)):
        return LeafType((), np.dtype(bool), False)
    if issubclass(cls, (int, float, complex)) and not issubclass(cls, np.generic):
        return LeafType((), np.dtype(jnp.result_type(x)), True)
    shape, dtype = _attribute(x, "shape"), _attribute(x, "dtype")
    if shape is not None and dtype is not None:
        if not is_extended(dtype):  # a PRNG key dtype stays as it is
            dtype = np.dtype(jax.dtypes.canonicalize_dtype(dtype))  # float64 -> float32 sans x64
        return LeafType(tuple(shape), dtype, bool(_attribute(x, "weak_type")))
    text = _repr(x)
    what = f"an object of type {cls.__name__} whose repr raises" if text is None else text
    what += "" if text is None else f" (type {cls.__name__})"
    raise TypeError(
        f"{what} is not an array or a Python scalar, so it has no JAX type; only arrays, "
        "numbers and pytrees of them can flow through JAX"
    )


def describe_leaf(x: Any) -> str:
    """The type of ``x`` written the way jaxpurity messages write it.

    Args:
      x: One pytree leaf (see :func:`leaf_type`).

    Returns:
      A short text such as ``"float32[3]"`` or ``"int32[] (weak: a Python scalar)"``.

    Example:
      >>> import jax
      >>> describe_leaf(jax.ShapeDtypeStruct((3,), "float32"))
      'float32[3]'
      >>> describe_leaf(1.5)
      'float32[] (weak: a Python scalar)'
    """
    return str(leaf_type(x))


def shape_dtype_structs(tree: Any) -> Any:
    """Replace every leaf of ``tree`` by a ``jax.ShapeDtypeStruct`` of its type.

    The weak flag is kept, so the result traces exactly like ``tree`` does
    (for example as the argument of :func:`jax.eval_shape`).

    Args:
      tree: A pytree of arrays, tracers, ``ShapeDtypeStruct`` s or Python scalars.

    Returns:
      The same pytree with ``ShapeDtypeStruct`` leaves.

    Example:
      >>> import jax.numpy as jnp
      >>> shape_dtype_structs({"w": jnp.ones(2), "n": 3})  # doctest: +NORMALIZE_WHITESPACE
      {'n': ShapeDtypeStruct(shape=(), dtype=int32, weak_type=True),
       'w': ShapeDtypeStruct(shape=(2,), dtype=float32)}
    """

    def to_struct(x: Any) -> jax.ShapeDtypeStruct:
        t = leaf_type(x)
        return jax.ShapeDtypeStruct(t.shape, t.dtype, weak_type=t.weak)

    return jax.tree_util.tree_map(to_struct, tree)
