"""One JAX transformation applied to a function, as the source writes it: a layer.

``jax.jit(jax.vmap(functools.partial(f, 2)))`` applies three layers to ``f``,
from the outermost in: a :class:`Layer` for each transformation (its name, its
entry of the table of known transformations, and the options of its call) and a
:class:`Partial` for the ``functools.partial`` between them. A function's
decorators are layers too (``Func.layers``); the module's transformations
(:mod:`jaxpurity.linter.analysis._applied_transforms`) find them, and say which
parameters each one traces. Its own module, so that a function
(:mod:`jaxpurity.linter.analysis._functions`) records its layers without
importing what finds them.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jaxpurity.linter.analysis._known_transforms import Transform

__all__ = ["Layer", "Layers", "Partial"]


@dataclass(frozen=True)
class Layer:
    """One transformation applied to a function: its name, and the options of that call
    (``args`` holds the call's positional arguments, the function included); ``given_none``:
    the positions to which the call of its result, right where it is made, passes a literal
    ``None`` (``jax.vmap(f, in_axes=(0, None))(x, None)``): an empty pytree, never traced."""

    name: str
    transform: Transform
    args: tuple[ast.expr, ...]
    keywords: dict[str, ast.expr]
    given_none: frozenset[int] = frozenset()

    def option(self, keyword: str, position: int | None = None) -> ast.expr | None:
        """The value given to an option of the transformation, by keyword or position."""
        if keyword in self.keywords:
            return self.keywords[keyword]
        if position is not None and position < len(self.args):
            return self.args[position]
        return None


@dataclass(frozen=True)
class Partial:
    """``functools.partial`` between a transformation and the function: what it binds."""

    count: int
    names: frozenset[str]


#: The transformations and partials applied to a function, from the outermost in.
Layers = tuple[Layer | Partial, ...]
