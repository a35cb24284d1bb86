"""Which functions of a module JAX traces, and which of their values are tracers, from the AST.

A function is traced when it is decorated with a transformation of
:data:`jaxpurity.linter._wrappers.TRANSFORMS` (``@jax.jit``,
``@functools.partial(jax.jit, static_argnums=0)``), passed to one
(``jax.jit(f)``, ``jax.vmap(lambda x: ...)``, ``lax.scan(body, ...)``,
``jax.jit(self.method)``, ``jax.jit(functools.partial(f, lr=0.1))``, nested
as in ``jax.jit(jax.vmap(f))``), called from a traced function of the same
module (to :data:`MAX_CALL_DEPTH` calls), or defined inside one and handed to
something (a lambda). Its traced parameters are those the transformation
turns into tracers: all but ``static_argnums``/``static_argnames`` for
``jit``, the mapped ones for ``vmap``, the differentiated ones for ``grad``,
none for ``eqx.filter_jit`` (which keeps Python values static), and, for a
function called from a traced one, those that receive traced arguments (taken
for arrays, unless the argument is a name that the caller also assigns a
Python value, such as ``size = None``).
Parameters with a default are not counted as traced: when a call leaves them
out, JAX sees the default, a Python value.

Complexity: the module is walked once to split its nodes among their
functions (each node belongs to exactly one) and once to find the
transformations. Traced functions are then analysed from a work list; a
function is analysed again only when what reaches it grows, at most
:data:`_MAX_VISITS` times, and each analysis is linear in that function's own
nodes (:class:`~jaxpurity.linter._taint.Taint`). Name look-ups are dictionary
and bisection look-ups. So the whole is linear in the size of the module.
"""

from __future__ import annotations

import ast
import bisect
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from jaxpurity.linter._arrays import TREE_MAPS
from jaxpurity.linter._names import Names
from jaxpurity.linter._syntax import COMPREHENSIONS, parameter_names
from jaxpurity.linter._taint import Taint
from jaxpurity.linter._wrappers import PARTIAL, Transform

__all__ = ["MAX_CALL_DEPTH", "Func", "Jitted", "Layer", "Scopes", "parameters"]

#: How many calls deep, within one module, a traced function's callees are followed.
MAX_CALL_DEPTH = 3
_MAX_VISITS = 4
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_FUNCTION_NODES = (*_DEFS, ast.Lambda)
# Nodes that carry no names: operators and load/store contexts, about a third of a tree.
_NO_NAMES = (ast.expr_context, ast.operator, ast.boolop, ast.cmpop, ast.unaryop)
_BINDERS = frozenset(
    {
        ast.Assign,
        ast.AugAssign,
        ast.AnnAssign,
        ast.NamedExpr,
        ast.For,
        ast.AsyncFor,
        ast.While,
        ast.With,
        ast.AsyncWith,
        *COMPREHENSIONS,
    }
)
_Node = TypeVar("_Node", bound=ast.AST)
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
# jax.jit and jax.pmap (and wrappers read as them): their static_argnums, donate_argnums.
_JIT_SEEDS = frozenset({"static", "pmap"})


@dataclass(eq=False)
class Func:
    """One function (or lambda) of a module, or the module itself, and how JAX traces it.

    Attributes:
      node: Its AST node (an ``ast.Module`` for the module).
      parent: The function it is defined in; None for the module.
      cls: The class it is a method of, or None.
      nodes: Its own nodes, in source order: not those of the functions inside it, but
        their decorators and defaults, which run here (operators and contexts such as
        ``ast.Add`` and ``ast.Load`` are left out).
      typed: The same nodes by type (``func.of(ast.Call)``), each list in source order.
      binders: The nodes that bind names (assignments, loops, ``with``, comprehensions) and
        the ``while`` loops, in source order.
      kinds: The kinds of trace it runs under (``"jit"``, ``"vmap"``, ``"loop"``, ...;
        see :class:`~jaxpurity.linter._wrappers.Transform`); empty when not traced.
      direct: The kinds of the transformations applied to it directly (not inherited
        from a caller or an enclosing function).
      traced_params: Its parameters that receive tracers.
      array_params: Those of them taken for arrays: all that a transformation traces, and
        those a call gives a traced value, unless that value may be a Python value (see
        :meth:`~jaxpurity.linter._taint.Taint.may_be_python`).
      unbatched: Parameters that a ``vmap`` passes whole to every row (``in_axes=None``).
      differentiated: Parameters that a reverse-mode transformation (``jax.grad``)
        differentiates; ``reverse`` names the first such transformation.
      callers: The traced functions of the module that call it.
      root: The transformation it is traced by (``"jax.jit"``), directly or through
        ``through``, the traced function that calls it or defines it.
      taint: After analysis, which of its values are traced.
    """

    node: ast.AST
    parent: Func | None
    name: str
    cls: ast.ClassDef | None = None
    positional: list[str] = field(default_factory=list)
    kwonly: list[str] = field(default_factory=list)
    vararg: str | None = None
    defaulted: set[str] = field(default_factory=set)
    self_name: str | None = None
    nodes: list[ast.AST] = field(default_factory=list)
    typed: dict[type, list[ast.AST]] = field(default_factory=dict)
    binders: list[ast.AST] = field(default_factory=list)
    children: list[Func] = field(default_factory=list)
    defs: dict[str, list[Func]] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    local: set[str] = field(default_factory=set)
    declared_global: set[str] = field(default_factory=set)
    declared_nonlocal: set[str] = field(default_factory=set)
    kinds: set[str] = field(default_factory=set)
    direct: set[str] = field(default_factory=set)
    traced_params: set[str] = field(default_factory=set)
    array_params: set[str] = field(default_factory=set)
    unbatched: set[str] = field(default_factory=set)
    differentiated: set[str] = field(default_factory=set)
    reverse: str = ""
    traced_free: set[str] = field(default_factory=set)
    callers: list[Func] = field(default_factory=list)
    layers: tuple[Layer, ...] = ()
    bound: dict[str, list[tuple[int, ast.Call]]] = field(default_factory=dict)
    root: str = ""
    through: str = ""
    taint: Taint | None = None
    depth: int = MAX_CALL_DEPTH + 1
    visits: int = 0
    queued: bool = False
    _free: set[str] | None = None

    @property
    def line(self) -> int:
        """The line of its ``def`` (or ``lambda``)."""
        return getattr(self.node, "lineno", 1)

    @property
    def traced(self) -> bool:
        """Whether JAX traces it."""
        return bool(self.kinds)

    @property
    def how(self) -> str:
        """How it is traced, for a message: ``jax.jit``, or ``jax.jit, through step``."""
        return f"{self.root}, through {self.through}" if self.through else self.root

    def of(self, kind: type[_Node]) -> list[_Node]:
        """Its own nodes of one type, in source order."""
        return self.typed.get(kind, [])  # type: ignore[return-value]

    def free_reads(self) -> set[str]:
        """The names it reads that are not its own (closure variables and globals)."""
        if self._free is None:
            self._free = {
                n.id
                for n in self.of(ast.Name)
                if isinstance(n.ctx, ast.Load) and n.id not in self.local
            }
        return self._free


@dataclass(frozen=True)
class Layer:
    """One transformation applied to a function: its name, and the options of that call
    (``args`` holds the call's positional arguments, the function included)."""

    name: str
    transform: Transform
    args: tuple[ast.expr, ...]
    keywords: dict[str, ast.expr]

    def option(self, keyword: str, position: int | None = None) -> ast.expr | None:
        """The value given to an option of the transformation, by keyword or position."""
        if keyword in self.keywords:
            return self.keywords[keyword]
        if position is not None and position < len(self.args):
            return self.args[position]
        return None


@dataclass(frozen=True)
class _Owner:
    """A marker on the walk's stack: the nodes after it belong to ``func``."""

    func: Func


@dataclass(frozen=True)
class _Bind:
    """``functools.partial`` between a transformation and the function: what it binds."""

    count: int
    names: frozenset[str]


@dataclass(frozen=True)
class Jitted:
    """A call of a function wrapped by ``jax.jit`` or ``jax.pmap`` (``step(x)`` after
    ``step = jax.jit(f, ...)``, or of a decorated ``f``): the function, the wrapper, and
    where the call's arguments go. (``eqx.filter_jit`` and ``nnx.jit`` handle static and
    donated arguments their own way, and are left out.)

    Attributes:
      func: The function jitted.
      layer: The ``jax.jit`` (or ``pmap``) applied to it, with its options.
      params: Its positional parameters as the jit sees them (after any
        ``functools.partial`` or bound ``self``).
      offset: How many of ``params`` the call does not pass (1 for ``self.method(...)``
        of a decorated method, whose jit sees ``self``).
    """

    func: Func
    layer: Layer
    params: list[str]
    offset: int = 0

    def options(self, numbers: str, names: str) -> set[str] | None:
        """The parameters an option pair names (``"static_argnums"``, ``"static_argnames"``);
        None when they are computed, not written out."""
        return parameters(self.layer, self.params, numbers, names)

    def arguments(self, call: ast.Call) -> list[tuple[ast.expr, str]]:
        """Each argument of ``call`` with the parameter it is passed to."""
        passed = []
        for index, argument in enumerate(call.args, start=self.offset):
            if isinstance(argument, ast.Starred):
                break
            if index < len(self.params):
                passed.append((argument, self.params[index]))
        passed += [(k.value, k.arg) for k in call.keywords if k.arg]
        return passed


class Scopes:
    """Every function of a module, which of them JAX traces, and their traced values.

    Args:
      tree: The parsed module.
      names: Its :class:`~jaxpurity.linter._names.Names`.
      transforms: The transformations to recognise, by qualified name
        (:func:`jaxpurity.linter._wrappers.jit_like`).

    Example:
      >>> from jaxpurity.linter._wrappers import TRANSFORMS
      >>> tree = ast.parse(
      ...     "import jax\\n"
      ...     "def helper(v):\\n    return v + 1\\n"
      ...     "@jax.jit\\ndef step(x, n):\\n    return helper(x * 2)\\n"
      ... )
      >>> scopes = Scopes(tree, Names(tree), TRANSFORMS)
      >>> [(f.name, sorted(f.traced_params), f.how) for f in scopes.traced()]
      [('helper', ['v'], 'jax.jit, through step'), ('step', ['n', 'x'], 'jax.jit')]
    """

    def __init__(self, tree: ast.Module, names: Names, transforms: dict[str, Transform]) -> None:
        self.names = names
        self.transforms = transforms
        self.module = Func(tree, None, "<module>")
        self.funcs: list[Func] = [self.module]
        self._by_node: dict[int, Func] = {}
        self._methods: dict[int, dict[str, Func]] = {}
        self._consumed: set[int] = set()
        self._queue: deque[Func] = deque()
        self._collect(tree)
        for func in self.funcs:
            self._find_locals(func)
        #: The functions mapped over pytrees that return Python values (see :class:`Taint`).
        self.static_functions = self._static_functions()
        self._fields = self._static_fields()
        self._discover()
        self._propagate()

    def traced(self) -> list[Func]:
        """The traced functions, in source order."""
        return sorted((f for f in self.funcs if f.traced), key=lambda f: f.line)

    def type_checked(self, func: Func) -> set[str]:
        """The names that ``func`` tests with ``isinstance(name, ...)``."""
        return {
            call.args[0].id
            for call in func.of(ast.Call)
            if call.args
            and isinstance(call.args[0], ast.Name)
            and self.names.qualified(call.func) == "isinstance"
        }

    def taint_of(
        self, func: Func, traced: Iterable[str], arrays: Iterable[str] | None = None
    ) -> Taint:
        """What in ``func`` derives from the names ``traced`` (:class:`Taint`, followed), of
        which ``arrays`` hold arrays (all of them when not given)."""
        taint = Taint(self.names, traced, self.static_functions, self.static_fields(func), arrays)
        taint.follow(func.binders, self.type_checked(func), self.containers(func))
        return taint

    def static_fields(self, func: Func) -> dict[str, frozenset[str]]:
        """The parameters that ``func`` reads (its own, or those of the functions it is
        defined in) annotated with a class of the module that declares static fields, and
        those fields: ``grid: Grid``, with ``pad: int = struct.field(pytree_node=False)``
        in ``Grid``, makes ``grid.pad`` a Python value under any transformation."""
        found: dict[str, frozenset[str]] = {}
        hidden: set[str] = set()
        scope: Func | None = func
        while scope is not None and isinstance(scope.node, _FUNCTION_NODES):
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
        if isinstance(annotation, ast.Name) and annotation.id in self.module.classes:
            return annotation.id
        return None

    def _static_fields(self) -> dict[str, frozenset[str]]:
        """The static fields of each class of the module (see :func:`_is_static_field`),
        with those of its bases in the module."""
        classes = self.module.classes
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

    def containers(self, func: Func) -> set[str]:
        """The parameters of ``func`` that hold containers: its ``*args`` (a tuple), and
        those annotated as containers, classes of the module, or an Optional or Union of
        those."""
        found = {func.vararg} if func.vararg else set()
        if isinstance(func.node, _DEFS):
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
        if isinstance(annotation, ast.Name) and annotation.id in self.module.classes:
            return True
        return self.names.qualified(annotation) in _CONTAINER_TYPES

    def methods(self, cls: ast.ClassDef) -> list[Func]:
        """The methods defined in a class's body."""
        return list(self._methods.get(id(cls), {}).values())

    def transformed(self, call: ast.Call, scope: Func) -> list[Func]:
        """The functions of the module that a transformation call applies to: ``f`` in
        ``jax.jit(f)``, ``lax.fori_loop(0, n, body, x)``, ``jax.jit(functools.partial(f,
        2))`` and ``jax.jit(jax.vmap(f))``."""
        found = []
        stack: list[ast.expr] = [call]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Call):
                name = self.names.qualified(node.func)
                transform = self.transforms.get(name or "")
                if transform is not None:
                    stack.extend(_function_arguments(transform, node))
                elif name in PARTIAL and node.args:
                    stack.append(node.args[0])
                continue
            target = self.resolve(node, scope, call.lineno)
            if target is not None:
                found.append(target[0])
        return found

    def is_transform_call(self, node: ast.AST) -> bool:
        """Whether ``node`` is a call of a transformation (``jax.jit(f)``)."""
        return isinstance(node, ast.Call) and self.names.qualified(node.func) in self.transforms

    # -- splitting the module into functions --------------------------------------------

    def _collect(self, tree: ast.Module) -> None:
        """Split the module's nodes among their functions, in one preorder walk. The walk
        switches owner at a function's body, and back after it, with markers on its stack
        (one tuple per node would cost a third of the time)."""
        methods: dict[int, ast.ClassDef] = {}  # a def directly in a class body -> the class
        owner = self.module
        stack: list[ast.AST | _Owner] = list(reversed(tree.body))
        while stack:
            node = stack.pop()
            if isinstance(node, _Owner):
                owner = node.func
                continue
            kind = type(node)
            owner.nodes.append(node)
            owner.typed.setdefault(kind, []).append(node)
            if kind in _BINDERS:
                owner.binders.append(node)
            if kind in _FUNCTION_NODES:
                func = self._new_func(node, owner, methods.pop(id(node), None))
                body = node.body if isinstance(node.body, list) else [node.body]  # type: ignore[attr-defined]
                stack.append(_Owner(owner))
                stack.extend(reversed(body))
                stack.append(_Owner(func))
                stack.extend(reversed(_outer_parts(node)))
            elif kind is ast.ClassDef:
                assert isinstance(node, ast.ClassDef)
                owner.classes[node.name] = node
                self._methods[id(node)] = {}
                for statement in node.body:
                    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        methods[id(statement)] = node
                stack.extend(reversed(node.body))
                stack.extend(reversed([*node.decorator_list, *node.bases]))
                stack.extend(reversed([k.value for k in node.keywords]))
            else:
                stack.extend(reversed(_children(node)))
        for func in self.funcs:
            for node in func.of(ast.Assign):
                if (
                    isinstance(node.value, ast.Lambda)
                    and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name)
                ):
                    func.defs.setdefault(node.targets[0].id, []).append(
                        self._by_node[id(node.value)]
                    )
            for candidates in func.defs.values():
                candidates.sort(key=lambda f: f.line)

    def _new_func(self, node: ast.AST, owner: Func, cls: ast.ClassDef | None) -> Func:
        assert isinstance(node, _FUNCTION_NODES)
        args = node.args
        positional = [a.arg for a in [*args.posonlyargs, *args.args]]
        kwonly = [a.arg for a in args.kwonlyargs]
        defaulted = set(positional[len(positional) - len(args.defaults) :] if args.defaults else [])
        defaulted |= {kwonly[i] for i, d in enumerate(args.kw_defaults) if d is not None}
        name = getattr(node, "name", "<lambda>")
        decorators = {self.names.qualified(d) for d in getattr(node, "decorator_list", [])}
        is_method = cls is not None and "staticmethod" not in decorators
        func = Func(
            node,
            owner,
            name,
            cls=cls if is_method else None,
            positional=positional,
            kwonly=kwonly,
            vararg=args.vararg.arg if args.vararg else None,
            defaulted=defaulted,
            self_name=positional[0] if is_method and positional else None,
        )
        self.funcs.append(func)
        self._by_node[id(node)] = func
        owner.children.append(func)
        if cls is not None and not isinstance(node, ast.Lambda):
            self._methods[id(cls)][name] = func
        elif not isinstance(node, ast.Lambda):
            owner.defs.setdefault(name, []).append(func)
        return func

    def _find_locals(self, func: Func) -> None:
        stored = set(func.positional) | set(func.kwonly)
        stored |= {func.vararg} if func.vararg else set()
        if isinstance(func.node, _FUNCTION_NODES) and func.node.args.kwarg:
            stored.add(func.node.args.kwarg.arg)
        stored |= {n.id for n in func.of(ast.Name) if not isinstance(n.ctx, ast.Load)}
        defs: list[ast.FunctionDef | ast.AsyncFunctionDef] = [
            *func.of(ast.FunctionDef),
            *func.of(ast.AsyncFunctionDef),
        ]
        stored |= {n.name for n in defs if self._by_node[id(n)].cls is None}
        stored |= {n.name for n in func.of(ast.ClassDef)}
        imports: list[ast.Import | ast.ImportFrom] = [
            *func.of(ast.Import),
            *func.of(ast.ImportFrom),
        ]
        for node in imports:
            stored |= {(a.asname or a.name).split(".")[0] for a in node.names}
        stored |= {n.name for n in func.of(ast.ExceptHandler) if n.name}
        for declaration in func.of(ast.Global):
            func.declared_global.update(declaration.names)
        for nonlocal_declaration in func.of(ast.Nonlocal):
            func.declared_nonlocal.update(nonlocal_declaration.names)
        func.local = stored - func.declared_global - func.declared_nonlocal

    def _static_functions(self) -> frozenset[str]:
        """The names of the functions given to ``jax.tree.map`` whose every ``return``
        gives a Python value, whatever the arguments (each definition of the name)."""
        mapped = {
            call.args[0].id
            for func in self.funcs
            for call in func.of(ast.Call)
            if call.args
            and isinstance(call.args[0], ast.Name)
            and self.names.qualified(call.func) in TREE_MAPS
        }
        verdict: dict[str, bool] = {}
        for func in self.funcs:
            if func.name not in mapped or not isinstance(func.node, _DEFS):
                continue
            taint = Taint(self.names, parameter_names(func.node))
            taint.follow(func.binders)
            returns = func.of(ast.Return)
            static = bool(returns) and not any(taint.is_traced(r.value) for r in returns)
            verdict[func.name] = verdict.get(func.name, True) and static
        return frozenset(name for name, static in verdict.items() if static)

    # -- what a reference names -----------------------------------------------------------

    def resolve(self, node: ast.expr, scope: Func, line: int) -> tuple[Func, int] | None:
        """The function that ``node`` (a name, a lambda, ``self.method``, ``Class.method``)
        refers to where it is written, and how many leading parameters are already bound
        (1 for a bound method); None when it is not a function of this module."""
        if isinstance(node, ast.Lambda):
            lam = self._by_node.get(id(node))
            return (lam, 0) if lam else None
        if isinstance(node, ast.Name):
            found: Func | None = scope
            while found is not None:
                candidates = found.defs.get(node.id)
                if candidates:
                    return _latest(candidates, line), 0
                if node.id in found.local:
                    return None
                found = found.parent
            return None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner: Func | None = scope
            while owner is not None and owner.self_name != node.value.id:
                owner = owner.parent
            if owner is not None and owner.cls is not None:
                method = self._method(owner.cls, node.attr)
                return (method, 1) if method else None
            cls = self.module.classes.get(node.value.id)
            if cls is not None and node.value.id not in scope.local:
                method = self._method(cls, node.attr)
                return (method, 0) if method else None
        return None

    def _method(self, cls: ast.ClassDef, name: str, depth: int = 0) -> Func | None:
        """``name`` in ``cls`` or in a base class defined in this module."""
        found = self._methods.get(id(cls), {}).get(name)
        if found is None and depth < 8:
            for base in cls.bases:
                parent = self.module.classes.get(base.id) if isinstance(base, ast.Name) else None
                if parent is not None and parent is not cls:
                    found = self._method(parent, name, depth + 1)
                    if found:
                        break
        return found

    def jitted(self, call: ast.Call, scope: Func) -> Jitted | None:
        """What ``call`` calls, when it is a jitted function of this module; else None."""
        callee = call.func
        where = scope
        if isinstance(callee, ast.Call) and self.is_transform_call(callee):
            made: ast.Call | None = callee
        elif isinstance(callee, (ast.Name, ast.Attribute)):
            made, where = self._binding(callee, scope, call.lineno)
            if made is None:
                target = self.resolve(callee, scope, call.lineno)
                if target is None:
                    return None
                layers = target[0].layers
                layer = next((la for la in layers if la.transform.seeds in _JIT_SEEDS), None)
                if layer is None:
                    return None
                return Jitted(target[0], layer, target[0].positional, offset=target[1])
        else:
            return None
        assert made is not None
        name = self.names.qualified(made.func) or ""
        transform = self.transforms[name]
        if transform.seeds not in _JIT_SEEDS or not made.args:
            return None
        function, shift, bound = made.args[0], 0, set()
        if isinstance(function, ast.Call) and self.names.qualified(function.func) in PARTIAL:
            if not function.args:
                return None
            shift, bound = len(function.args) - 1, {k.arg for k in function.keywords}
            function = function.args[0]
        target = self.resolve(function, where, made.lineno)
        if target is None:
            return None
        params = [p for p in target[0].positional[target[1] + shift :] if p not in bound]
        keywords = {k.arg: k.value for k in made.keywords if k.arg}
        return Jitted(target[0], Layer(name, transform, tuple(made.args), keywords), params)

    def _binding(self, node: ast.expr, scope: Func, line: int) -> tuple[ast.Call | None, Func]:
        """The transformation call last assigned to a name (``step = jax.jit(f)``), and the
        scope of that assignment."""
        if not isinstance(node, ast.Name):
            return None, scope
        found: Func | None = scope
        while found is not None:
            if node.id in found.bound:
                bindings = found.bound[node.id]
                index = bisect.bisect_right([b[0] for b in bindings], line)
                return bindings[max(index - 1, 0)][1], found
            if node.id in found.local:
                return None, scope
            found = found.parent
        return None, scope

    # -- finding the transformations ---------------------------------------------------------

    def _discover(self) -> None:
        for scope in list(self.funcs):
            defs: list[ast.FunctionDef | ast.AsyncFunctionDef] = [
                *scope.of(ast.FunctionDef),
                *scope.of(ast.AsyncFunctionDef),
            ]
            for node in defs:
                layers = [self._decorator(d) for d in node.decorator_list]
                applied = tuple(layer for layer in layers if layer is not None)
                if applied:
                    func = self._by_node[id(node)]
                    func.layers = applied
                    self._mark(func, applied, 0)
            for call in scope.of(ast.Call):
                if self.is_transform_call(call) and id(call) not in self._consumed:
                    self._apply(call, (), scope, call.lineno)
            for assign in scope.of(ast.Assign):
                target = assign.targets[0]
                if (
                    len(assign.targets) == 1
                    and isinstance(target, ast.Name)
                    and isinstance(assign.value, ast.Call)
                    and self.is_transform_call(assign.value)
                ):
                    scope.bound.setdefault(target.id, []).append((assign.lineno, assign.value))

    def _decorator(self, decorator: ast.expr) -> Layer | None:
        """The transformation a decorator applies: ``@jax.jit``, ``@jax.jit(...)`` (where
        JAX takes options first), ``@functools.partial(jax.jit, ...)``; else None."""
        call = decorator if isinstance(decorator, ast.Call) else None
        name = self.names.qualified(call.func if call else decorator)
        if call is not None and name in PARTIAL and call.args:
            name = self.names.qualified(call.args[0])
        elif call is not None and call.args:
            return None  # jax.jit(f) as a decorator would jit the result of f
        transform = self.transforms.get(name or "")
        if transform is None or name is None:
            return None
        keywords = {k.arg: k.value for k in (call.keywords if call else []) if k.arg}
        return Layer(name, transform, (), keywords)

    def _apply(
        self, node: ast.expr, layers: tuple[Layer | _Bind, ...], scope: Func, line: int
    ) -> None:
        if isinstance(node, ast.Call):
            name = self.names.qualified(node.func)
            transform = self.transforms.get(name or "")
            if transform is not None and name is not None:
                self._consumed.add(id(node))
                keywords = {k.arg: k.value for k in node.keywords if k.arg}
                layer = Layer(name, transform, tuple(node.args), keywords)
                for function in _function_arguments(transform, node):
                    self._apply(function, (*layers, layer), scope, line)
            elif name in PARTIAL and node.args and layers:
                bound = frozenset(k.arg for k in node.keywords if k.arg)
                self._apply(node.args[0], (*layers, _Bind(len(node.args) - 1, bound)), scope, line)
            return
        target = self.resolve(node, scope, line)
        if target is not None and layers:
            self._mark(target[0], layers, target[1])

    def _mark(self, func: Func, layers: tuple[Layer | _Bind, ...], shift: int) -> None:
        bound: set[str] = set()
        traced: set[str] = set()
        unbatched: set[str] = set()
        differentiated: set[str] = set()
        kinds: set[str] = set()
        for layer in reversed(layers):
            if isinstance(layer, _Bind):
                shift += layer.count
                bound |= layer.names
                continue
            kinds.add(layer.transform.kind)
            seeds, whole = _seeds(layer, func, shift, bound)
            traced |= seeds
            unbatched |= whole
            if layer.transform.reverse:
                differentiated |= seeds
                func.reverse = func.reverse or layer.name
        not_traced = func.defaulted | {func.self_name}
        outermost = next(layer for layer in layers if isinstance(layer, Layer))
        self._update(
            func,
            kinds,
            traced=traced - not_traced,
            arrays=traced - not_traced,
            unbatched=unbatched,
            differentiated=differentiated - not_traced,
            direct=kinds,
            root=outermost.name,
            depth=0,
        )

    # -- following values through traced functions ---------------------------------------------

    def _update(
        self,
        func: Func,
        kinds: Iterable[str],
        *,
        traced: Iterable[str] = (),
        arrays: Iterable[str] = (),
        free: Iterable[str] = (),
        unbatched: Iterable[str] = (),
        differentiated: Iterable[str] = (),
        direct: Iterable[str] = (),
        root: str,
        through: str = "",
        depth: int,
    ) -> None:
        changed = False
        for have, new in (
            (func.kinds, kinds),
            (func.traced_params, traced),
            (func.array_params, arrays),
            (func.traced_free, free),
            (func.unbatched, unbatched),
            (func.differentiated, differentiated),
            (func.direct, direct),
        ):
            added = set(new) - have
            if added:
                have |= added
                changed = True
        if not func.root or depth < func.depth:
            func.root, func.through = root, through
        func.depth = min(func.depth, depth)
        if changed and not func.queued:
            func.queued = True
            self._queue.append(func)

    def _propagate(self) -> None:
        while self._queue:
            func = self._queue.popleft()
            func.queued = False
            if func.visits >= _MAX_VISITS:
                continue
            func.visits += 1
            taint = self._analyse(func)
            if func.depth < MAX_CALL_DEPTH:
                for call in func.of(ast.Call):
                    if not self.is_transform_call(call):
                        self._follow_call(func, call, taint)
            for child in func.children:
                if child.traced or isinstance(child.node, ast.Lambda):
                    free = child.free_reads() & taint.traced
                    self._through(func, child, func.depth, free=free)
        for func in self.funcs:
            if func.traced:
                self._analyse(func)

    def _analyse(self, func: Func) -> Taint:
        func.taint = self.taint_of(
            func, func.traced_params | func.traced_free, func.array_params | func.traced_free
        )
        return func.taint

    def _follow_call(self, caller: Func, call: ast.Call, taint: Taint) -> None:
        target = self.resolve(call.func, caller, call.lineno)
        if target is None or target[0] is caller:
            return
        callee, shift = target
        params = callee.positional
        traced: set[str] = set()
        arrays: set[str] = set()
        for index, argument in enumerate(call.args, start=shift):
            if isinstance(argument, ast.Starred):
                if taint.is_traced(argument.value):
                    given = set(params[index:]) | ({callee.vararg} if callee.vararg else set())
                    traced |= given
                    arrays |= given
                break
            name = params[index] if index < len(params) else callee.vararg
            if name and taint.is_traced(argument):
                traced.add(name)
                if not taint.may_be_python(argument):
                    arrays.add(name)
        for keyword in call.keywords:
            if taint.is_traced(keyword.value):
                if keyword.arg is None:
                    given = set(params) | set(callee.kwonly)
                elif keyword.arg in params or keyword.arg in callee.kwonly:
                    given = {keyword.arg}
                else:
                    continue
                traced |= given
                if not taint.may_be_python(keyword.value):
                    arrays |= given
        traced.discard(callee.self_name or "")
        arrays.discard(callee.self_name or "")
        if caller not in callee.callers:
            callee.callers.append(caller)
        self._through(caller, callee, caller.depth + 1, traced=traced, arrays=arrays)

    def _through(self, caller: Func, func: Func, depth: int, **reached: Iterable[str]) -> None:
        """``func`` is traced as ``caller`` is, through it (called from it, or defined in
        it), with what reaches it (``traced`` parameters, ``free`` names)."""
        kinds, root, name = caller.kinds, caller.root, caller.name
        self._update(func, kinds, root=root, through=name, depth=depth, **reached)


def _outer_parts(node: ast.AST) -> list[ast.AST]:
    """The parts of a ``def`` or ``lambda`` that run where it is defined."""
    assert isinstance(node, _FUNCTION_NODES)
    args = node.args
    parts: list[ast.AST] = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    if not isinstance(node, ast.Lambda):
        parts = [*node.decorator_list, *parts]
        annotations = [a.annotation for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
        parts += [a for a in [*annotations, node.returns] if a is not None]
    return parts


def _is_static_field(value: ast.expr | None, names: Names) -> bool:
    """Whether a class attribute's value declares a static pytree field:
    ``static_field()`` (jax_md), ``field(pytree_node=False)`` (flax.struct),
    ``field(static=True)`` (equinox), ``field(metadata={"static": True})`` or
    ``field(metadata=dict(static=True))`` (dataclasses, chex)."""
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
            isinstance(k, ast.Constant) and k.value == "static" and _is(v, True) for k, v in pairs
        )
    elif isinstance(metadata, ast.Call) and names.qualified(metadata.func) == "dict":
        metadata_static = any(k.arg == "static" and _is(k.value, True) for k in metadata.keywords)
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


def _children(node: ast.AST) -> list[ast.AST]:
    """The child nodes of ``node`` that can hold names (what ``ast.iter_child_nodes``
    gives, without operators and contexts), in order."""
    children = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            children += [
                v for v in value if isinstance(v, ast.AST) and not isinstance(v, _NO_NAMES)
            ]
        elif isinstance(value, ast.AST) and not isinstance(value, _NO_NAMES):
            children.append(value)
    return children


def _latest(candidates: list[Func], line: int) -> Func:
    """The last definition at or before ``line``, or the first one after it."""
    index = bisect.bisect_right([c.line for c in candidates], line)
    return candidates[max(index - 1, 0)]


def _function_arguments(transform: Transform, call: ast.Call) -> Iterable[ast.expr]:
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    for position, keyword in transform.functions:
        positional = call.args[: position + 1]
        if position < len(call.args) and not any(isinstance(a, ast.Starred) for a in positional):
            function: ast.expr | None = call.args[position]
        else:
            function = keywords.get(keyword)
        if function is None:
            continue
        if transform.sequence and isinstance(function, (ast.List, ast.Tuple)):
            yield from function.elts
        else:
            yield function


def _ints(node: ast.expr | None) -> list[int] | None:
    """The integers of a literal ``1``, ``-1`` or ``(0, 2)``; None when not a literal."""
    elements = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
    values = []
    for element in elements:
        sign = 1
        if isinstance(element, ast.UnaryOp) and isinstance(element.op, ast.USub):
            sign, element = -1, element.operand
        if not isinstance(element, ast.Constant) or type(element.value) is not int:
            return None
        values.append(sign * element.value)
    return values


def _strings(node: ast.expr | None) -> list[str] | None:
    """The strings of a literal ``"a"`` or ``("a", "b")``; None when not a literal."""
    elements = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
    values = []
    for element in elements:
        if not isinstance(element, ast.Constant) or not isinstance(element.value, str):
            return None
        values.append(element.value)
    return values


def _seeds(layer: Layer, func: Func, shift: int, bound: set[str]) -> tuple[set[str], set[str]]:
    """The parameters of ``func`` that ``layer`` traces, and those a vmap passes whole."""
    visible = [p for p in func.positional[shift:] if p not in bound]
    everything = (set(visible) | set(func.kwonly) | {func.vararg or ""}) - bound - {""}
    seeds = layer.transform.seeds
    if seeds == "all":
        return everything, set()
    if seeds in ("static", "pmap"):
        numbers = "static_argnums" if seeds == "static" else "static_broadcasted_argnums"
        static = parameters(layer, visible, numbers, "static_argnames")
        if static is None:
            return set(), set()  # computed statics: which are static is unknown
        return everything - static, set()
    if seeds == "in_axes":
        axes = layer.option("in_axes", 1)
        if isinstance(axes, (ast.Tuple, ast.List)):
            whole = {
                visible[i]
                for i, axis in enumerate(axes.elts)
                if i < len(visible) and isinstance(axis, ast.Constant) and axis.value is None
            }
            return everything - whole, whole
        if isinstance(axes, ast.Constant) and axes.value is None:
            return set(), set(visible)
        return everything, set()
    if seeds == "argnums":
        argnums = layer.option("argnums", 1)
        indices = _ints(argnums) if argnums is not None else [0]
        if indices is None:
            return set(), set()
        return {visible[i] for i in indices if -len(visible) <= i < len(visible)}, set()
    return set(), set()


def parameters(layer: Layer, params: list[str], numbers: str, names: str) -> set[str] | None:
    """The parameters that ``layer``'s options ``numbers`` (positions, such as
    ``static_argnums``) and ``names`` (such as ``static_argnames``) name, among ``params``;
    None when an option is not written out as literals."""
    number_option, name_option = layer.option(numbers), layer.option(names)
    positions = _ints(number_option) if number_option is not None else []
    named = _strings(name_option) if name_option is not None else []
    if positions is None or named is None:
        return None
    return {params[i] for i in positions if -len(params) <= i < len(params)} | set(named)
