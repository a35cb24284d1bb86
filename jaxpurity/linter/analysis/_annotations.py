"""What a function's annotations say of its parameters: a container, not an array; static fields.

An annotation is a promise the linter reads: a parameter annotated as a
container (``Tuple[jax.Array, jax.Array]``, ``Sequence[int]``, ``dict``), as a
class of the module, or as an Optional or Union of those, is a pytree whose
truth is static, not an array (:meth:`Annotations.containers`); and a parameter
annotated with a class of the module that declares static pytree fields
(``pad: int = struct.field(pytree_node=False)``) has attributes that are Python
values under any transformation (:meth:`Annotations.static_fields`). Each class
of the module is read once.
"""

from __future__ import annotations

import ast

from jaxpurity.linter.analysis._functions import DEFS, FUNCTION_NODES, Func
from jaxpurity.linter.analysis._names import Names

__all__ = ["Annotations"]

# Annotations of containers: a parameter so annotated is a pytree, whose truth is static.
_ABSTRACT = "Sequence MutableSequence Mapping MutableMapping Iterable Collection".split()
_CONTAINER_TYPES = frozenset(
    [
        *"tuple list dict set frozenset".split(),
        *("collections.OrderedDict", "collections.defaultdict", "collections.deque"),
        *(f"collections.abc.{name}" for name in _ABSTRACT),
        *(
            f"typing.{name}"
            for name in [
                *_ABSTRACT,
                *"Tuple List Dict Set FrozenSet NamedTuple DefaultDict OrderedDict Deque".split(),
            ]
        ),
    ]
)


class Annotations:
    """What the annotations of a module's functions say, with its classes read once.

    Args:
      classes: The module's classes, by name.
      names: Its :class:`~jaxpurity.linter.analysis._names.Names`.

    Example:
      >>> tree = ast.parse(
      ...     "import flax.struct\\n"
      ...     "class Grid:\\n    pad: int = flax.struct.field(pytree_node=False)\\n"
      ...     "def f(grid: Grid, xs: tuple, n):\\n    return grid.pad"
      ... )
      >>> annotations = Annotations({"Grid": tree.body[1]}, Names(tree))
      >>> f = Func(tree.body[2], None, "f")
      >>> annotations.static_fields(f), sorted(annotations.containers(f))
      ({'grid': frozenset({'pad'})}, ['grid', 'xs'])
    """

    def __init__(self, classes: dict[str, ast.ClassDef], names: Names) -> None:
        self.classes = classes
        self.names = names
        self._fields = self._static_fields()
        #: Whether a class of the module declares a static field.
        self.has_static_fields = bool(self._fields)
        #: The attributes that every class of the module that declares them declares
        #: static (``data_axis_for_name``, with ``field(metadata={"pytree_node": False})``):
        #: a Python value on any object, whether or not its class is known where it is read.
        self.static_attributes = self._static_attributes()

    def static_fields(self, func: Func) -> dict[str, frozenset[str]]:
        """The parameters that ``func`` reads (its own, or those of the functions it is
        defined in) annotated with a class of the module that declares static fields, and
        those fields: ``grid: Grid``, with ``pad: int = struct.field(pytree_node=False)``
        in ``Grid``, makes ``grid.pad`` a Python value under any transformation."""
        found: dict[str, frozenset[str]] = {}
        hidden: set[str] = set()
        scope: Func | None = func
        while scope is not None and isinstance(scope.node, FUNCTION_NODES):
            args = scope.node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                cls = self._annotated_class(arg.annotation)
                if arg.arg not in hidden and arg.arg not in found and cls in self._fields:
                    found[arg.arg] = self._fields[cls]
            hidden |= scope.local
            scope = scope.parent
        return found

    def _annotated_class(self, annotation: ast.expr | None, depth: int = 0) -> str | None:
        """The class of the module that an annotation names (``Grid``, ``"Grid"``,
        ``Optional[Grid]``, ``Grid | None``); else None."""
        if annotation is None or depth > 8:
            return None
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                written = ast.parse(annotation.value, mode="eval").body
            except (SyntaxError, ValueError, RecursionError):
                return None
            return self._annotated_class(written, depth + 1)
        options: list[ast.expr] = [annotation]
        if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            options = [annotation.left, annotation.right]
        elif isinstance(annotation, ast.Subscript) and self.names.qualified(annotation.value) in (
            "typing.Optional",
            "typing.Union",
        ):
            index = annotation.slice
            options = index.elts if isinstance(index, ast.Tuple) else [index]
        named = [o for o in options if not (isinstance(o, ast.Constant) and o.value is None)]
        if len(named) != 1:
            return None
        if named[0] is not annotation:
            return self._annotated_class(named[0], depth + 1)
        if isinstance(annotation, ast.Name) and annotation.id in self.classes:
            return annotation.id
        return None

    def _static_fields(self) -> dict[str, frozenset[str]]:
        """The static fields of each class of the module (see :func:`_is_static_field`),
        with those of its bases in the module."""
        classes = self.classes
        own = {
            name: {
                statement.target.id
                for statement in cls.body
                if isinstance(statement, ast.AnnAssign)
                and isinstance(statement.target, ast.Name)
                and _is_static_field(statement.value, self.names)
            }
            for name, cls in classes.items()
        }

        def inherited(name: str, depth: int) -> set[str]:
            fields = set(own[name])
            for base in classes[name].bases:
                if depth < 8 and isinstance(base, ast.Name) and base.id in own:
                    if base.id != name:
                        fields |= inherited(base.id, depth + 1)
            return fields

        fields = {name: frozenset(inherited(name, 0)) for name in classes}
        return {name: found for name, found in fields.items() if found}

    def class_static_fields(self, name: str) -> frozenset[str]:
        """The static fields of the module's class ``name``, its bases' in the module too."""
        return self._fields.get(name, frozenset())

    def class_fields(self, name: str, depth: int = 0) -> list[str]:
        """The fields of the module's class ``name`` in the order a dataclass's ``__init__``
        takes them: those of its bases in the module first, then its own annotated ones."""
        cls = self.classes.get(name)
        if cls is None or depth > 8:
            return []
        fields: list[str] = []
        for base in cls.bases:
            if isinstance(base, ast.Name) and base.id != name:
                fields += [f for f in self.class_fields(base.id, depth + 1) if f not in fields]
        for statement in cls.body:
            if (
                isinstance(statement, ast.AnnAssign)
                and isinstance(statement.target, ast.Name)
                and "ClassVar" not in ast.unparse(statement.annotation)
                and statement.target.id not in fields
            ):
                fields.append(statement.target.id)
        return fields

    def _static_attributes(self) -> frozenset[str]:
        """The names declared static in some class of the module and as another field in
        none (a field of the same name that is an array in another class would be both)."""
        static: set[str] = set()
        other: set[str] = set()
        for cls in self.classes.values():
            for statement in cls.body:
                if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                    is_static = _is_static_field(statement.value, self.names)
                    (static if is_static else other).add(statement.target.id)
        return frozenset(static - other)

    def containers(self, func: Func) -> set[str]:
        """The parameters of ``func`` that hold containers: its ``*args`` (a tuple), and
        those annotated as containers, classes of the module, or an Optional or Union of
        those."""
        found = {func.vararg} if func.vararg else set()
        if isinstance(func.node, DEFS):
            args = func.node.args
            found |= {
                a.arg
                for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]
                if a.annotation is not None and self._no_array_type(a.annotation)
            }
        return found

    def _no_array_type(self, annotation: ast.expr, depth: int = 0) -> bool:
        """Whether an annotation says that a value is no array: a container (``tuple``,
        ``Tuple[jax.Array, jax.Array]``, ``Sequence[int]``, ``dict``), a class of the module,
        None, or an Optional or Union (``X | Y``) of those; a string is read as the
        annotation it holds."""
        if depth > 8:
            return False
        if isinstance(annotation, ast.Constant):
            if isinstance(annotation.value, str):
                try:
                    written = ast.parse(annotation.value, mode="eval").body
                except (SyntaxError, ValueError, RecursionError):
                    return False
                return self._no_array_type(written, depth + 1)
            return annotation.value is None
        if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            return all(
                self._no_array_type(side, depth + 1) for side in (annotation.left, annotation.right)
            )
        if isinstance(annotation, ast.Subscript):
            name = self.names.qualified(annotation.value)
            if name in ("typing.Optional", "typing.Union"):
                index = annotation.slice
                options = index.elts if isinstance(index, ast.Tuple) else [index]
                return all(self._no_array_type(option, depth + 1) for option in options)
            return name in _CONTAINER_TYPES
        if isinstance(annotation, ast.Name) and annotation.id in self.classes:
            return True
        return self.names.qualified(annotation) in _CONTAINER_TYPES


def _is_static_field(value: ast.expr | None, names: Names) -> bool:
    """Whether a class attribute's value declares a static pytree field:
    ``static_field()`` (jax_md), ``field(pytree_node=False)`` (flax.struct),
    ``field(static=True)`` (equinox), ``field(metadata={"static": True})`` or
    ``field(metadata=dict(static=True))`` (dataclasses, chex), and
    ``field(metadata={"pytree_node": False})`` (penzai's ``struct.Struct``)."""
    if not isinstance(value, ast.Call):
        return False
    function = (names.qualified(value.func) or "").rpartition(".")[2]
    if function == "static_field":
        return True
    if function != "field":
        return False
    options = {k.arg: k.value for k in value.keywords if k.arg}
    metadata = options.get("metadata")
    if isinstance(metadata, ast.Dict):
        pairs = zip(metadata.keys, metadata.values, strict=True)
        metadata_static = any(
            isinstance(k, ast.Constant)
            and (
                (k.value == "static" and _is(v, True))
                or (k.value == "pytree_node" and _is(v, False))
            )
            for k, v in pairs
        )
    elif isinstance(metadata, ast.Call) and names.qualified(metadata.func) == "dict":
        metadata_static = any(
            (k.arg == "static" and _is(k.value, True))
            or (k.arg == "pytree_node" and _is(k.value, False))
            for k in metadata.keywords
        )
    else:
        metadata_static = False
    return (
        _is(options.get("pytree_node"), False)
        or _is(options.get("static"), True)
        or metadata_static
    )


def _is(node: ast.expr | None, value: bool) -> bool:
    """Whether ``node`` is the literal ``True`` or ``False``."""
    return isinstance(node, ast.Constant) and node.value is value
