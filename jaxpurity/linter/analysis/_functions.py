"""A module's functions, read from its tree: their own nodes and names, and what a name refers to.

:class:`Functions` splits a module among its functions (each ``def``, each
``lambda``, and the module's own code), in one preorder walk: every node
belongs to exactly one :class:`Func`, which keeps its own nodes by type, the
names it binds and those it declares ``global`` or ``nonlocal``, and the
functions and classes it defines. :meth:`Functions.resolve` then says which
function of the module a name, a lambda or ``self.method`` refers to where it
is written (by dictionary and bisection look-ups), and :meth:`Functions.outer`
which scope a free name belongs to. A :class:`Func` also records how JAX traces
it, which :mod:`jaxpurity.linter.analysis._module` fills in.
"""

from __future__ import annotations

import ast
import bisect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from jaxpurity.linter.analysis._layers import Layer
from jaxpurity.linter.analysis._names import Names
from jaxpurity.linter.analysis._syntax import COMPREHENSIONS

if TYPE_CHECKING:
    from jaxpurity.linter.analysis._taint import Taint

__all__ = ["DEFS", "FUNCTION_NODES", "MAX_CALL_DEPTH", "Func", "Functions"]

#: How many calls deep, within one module, a traced function's callees are followed.
MAX_CALL_DEPTH = 3
#: The nodes of a ``def``.
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: The nodes of a function: a ``def`` or a ``lambda``.
FUNCTION_NODES = (*DEFS, ast.Lambda)
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
        see :class:`~jaxpurity.linter.analysis._known_transforms.Transform`); empty when not traced.
      direct: The kinds of the transformations applied to it directly (not inherited
        from a caller or an enclosing function).
      traced_params: Its parameters that receive tracers.
      array_params: Those of them taken for arrays: all that a transformation traces, and
        those a call gives a traced value, unless that value may be a Python value (see
        :meth:`~jaxpurity.linter.analysis._taint.Taint.may_be_python`).
      unbatched: Parameters that a ``vmap`` passes whole to every row (``in_axes=None``).
      differentiated: Parameters that a reverse-mode transformation (``jax.grad``)
        differentiates; ``reverse`` names the first such transformation.
      callers: The traced functions of the module that call it.
      layers: The transformations its decorators apply.
      static: Its parameters that its decorators keep out of the trace: the static arguments
        of a ``jax.jit`` decorator and the ``nondiff_argnums`` of ``custom_vjp``; a tracer
        a caller passes there is an error of its own, so they are never taken for traced.
      donated: Its parameters that a ``jax.jit`` decorator's ``donate_argnums`` or
        ``donate_argnames`` give up: the caller no longer holds them.
      bound: The transformation calls assigned to each of its names
        (``step = jax.jit(f)``), as (line, call).
      self_outside: For a method, whether some way JAX reaches it gives it a ``self`` made
        outside the trace (a transformation applied to the method, ``jax.jit(self.step)``,
        or an instance from untraced code); ``self_inside``: whether some way gives it one
        made by the traced code itself (``impl = Iteration(); impl(x)`` in a traced
        function), made anew on every trace.
      root: The transformation it is traced by (``"jax.jit"``), directly or through
        ``through``, the traced function that calls it or defines it.
      taint: After analysis, which of its values are traced.
      depth: How many calls from a transformed function it is reached through
        (:data:`MAX_CALL_DEPTH` + 1 while it is not reached).
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
    static: set[str] = field(default_factory=set)
    donated: set[str] = field(default_factory=set)
    bound: dict[str, list[tuple[int, ast.Call]]] = field(default_factory=dict)
    self_outside: bool = False
    self_inside: bool = False
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
    def is_traced(self) -> bool:
        """Whether JAX traces it: a transformation reaches it, directly or through a caller."""
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
class _Owner:
    """A marker on the walk's stack: the nodes after it belong to ``func``."""

    func: Func


class Functions:
    """The functions of one module, the module's own code among them, and what a reference
    names.

    Args:
      tree: The parsed module.
      names: Its :class:`~jaxpurity.linter.analysis._names.Names`.

    Attributes:
      top_level: The module's own code, as a function: the outermost scope.
      funcs: Every function: ``top_level``, then each ``def`` and ``lambda`` in source order.

    Example:
      >>> tree = ast.parse("def f(x):\\n    g = lambda y: y\\n    return g(x)\\nf(1)")
      >>> functions = Functions(tree, Names(tree))
      >>> [(func.name, func.line, sorted(func.local)) for func in functions.funcs]
      [('<module>', 1, ['f']), ('f', 1, ['g', 'x']), ('<lambda>', 2, ['y'])]
    """

    def __init__(self, tree: ast.Module, names: Names) -> None:
        self.names = names
        self.top_level = Func(tree, None, "<module>")
        self.funcs: list[Func] = [self.top_level]
        self._by_node: dict[int, Func] = {}
        self._methods: dict[int, dict[str, Func]] = {}
        self._instance_memo: dict[int, dict[str, ast.ClassDef | str]] = {}
        self._collect(tree)
        for func in self.funcs:
            self._find_locals(func)

    def func_of(self, node: ast.AST) -> Func:
        """The function whose ``def`` or ``lambda`` is ``node``."""
        return self._by_node[id(node)]

    def methods(self, cls: ast.ClassDef) -> list[Func]:
        """The methods defined in a class's body."""
        return list(self._methods.get(id(cls), {}).values())

    # -- splitting the module into functions --------------------------------------------

    def _collect(self, tree: ast.Module) -> None:
        """Split the module's nodes among their functions, in one preorder walk. The walk
        switches owner at a function's body, and back after it, with markers on its stack
        (one tuple per node would cost a third of the time)."""
        methods: dict[int, ast.ClassDef] = {}  # a def directly in a class body -> the class
        owner = self.top_level
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
            if kind in FUNCTION_NODES:
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
        assert isinstance(node, FUNCTION_NODES)
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
        if isinstance(func.node, FUNCTION_NODES) and func.node.args.kwarg:
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

    # -- what a reference names -----------------------------------------------------------

    def resolve(self, node: ast.expr, scope: Func, line: int) -> tuple[Func, int] | None:
        """The function that ``node`` (a name, a lambda, ``self.method``, ``Class.method``)
        refers to where it is written, and how many leading parameters are already bound
        (1 for a bound method); None when it is not a function of this module. An instance
        of a class of the module (``factor``, after ``factor = Factor()``; ``Factor()``) is
        called through its ``__call__``."""
        if isinstance(node, ast.Lambda):
            lam = self._by_node.get(id(node))
            return (lam, 0) if lam else None
        if isinstance(node, ast.Call):
            cls = self._class_named(node.func, scope)
            if isinstance(cls, ast.ClassDef):
                method = self._method(cls, "__call__")
                return (method, 1) if method else None
            return None
        if isinstance(node, ast.Name):
            found: Func | None = scope
            while found is not None:
                candidates = found.defs.get(node.id)
                if candidates:
                    return _latest(candidates, line), 0
                if node.id in found.local:
                    made = self._instances(found).get(node.id)
                    if isinstance(made, ast.ClassDef):
                        method = self._method(made, "__call__")
                        return (method, 1) if method else None
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
            cls = self.top_level.classes.get(node.value.id)
            if cls is not None and node.value.id not in scope.local:
                method = self._method(cls, node.attr)
                return (method, 0) if method else None
            made = self.instance_of(node.value, scope)
            if isinstance(made, ast.ClassDef):
                method = self._method(made, node.attr)
                return (method, 1) if method else None
        return None

    def instance_of(self, node: ast.Name, scope: Func) -> ast.ClassDef | str | None:
        """The class that the name ``node`` holds an instance of, where it is read in
        ``scope``: a parameter annotated with a class, or a name assigned a call of one
        (``stimuli = Stimuli(...)``), in ``scope`` or a scope around it. A class of this
        module is its ``ClassDef``; one imported is its qualified name; None when unknown."""
        found: Func | None = scope
        while found is not None:
            if node.id in found.local:
                return self._instances(found).get(node.id)
            found = found.parent
        return None

    def _instances(self, scope: Func) -> dict[str, ast.ClassDef | str]:
        """The names of ``scope`` bound to instances of a class, found once per scope (a
        name bound to two classes, or to a class and something else, is left out)."""
        key = id(scope)
        if key not in self._instance_memo:
            found: dict[str, ast.ClassDef | str | None] = {}
            if isinstance(scope.node, DEFS):
                args = scope.node.args
                for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                    if arg.annotation is not None:
                        found[arg.arg] = self._class_named(arg.annotation, scope)
            for assign in scope.of(ast.Assign):
                if len(assign.targets) == 1 and isinstance(assign.targets[0], ast.Name):
                    name = assign.targets[0].id
                    made = (
                        self._class_named(assign.value.func, scope)
                        if isinstance(assign.value, ast.Call)
                        else None
                    )
                    found[name] = made if found.get(name, made) == made else None
            self._instance_memo[key] = {k: v for k, v in found.items() if v is not None}
        return self._instance_memo[key]

    def _class_named(self, node: ast.expr, scope: Func) -> ast.ClassDef | str | None:
        """The class an annotation or a called name refers to: a class of the module, or
        the qualified name of an imported one (capitalised, as classes are named)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except (SyntaxError, ValueError, RecursionError):
                return None
        if isinstance(node, ast.Name):
            owner: Func | None = scope
            while owner is not None:
                if node.id in owner.classes:
                    return owner.classes[node.id]
                if node.id in owner.local and owner is not self.top_level:
                    return None
                owner = owner.parent
        qualified = self.names.qualified(node)
        last = (qualified or "").rpartition(".")[2]
        if qualified and "." in qualified and last[:1].isupper():
            return qualified
        return None

    def method(self, cls: ast.ClassDef, name: str) -> Func | None:
        """The method ``name`` of a class of the module, or of a base class in the module."""
        return self._method(cls, name)

    def _method(self, cls: ast.ClassDef, name: str, depth: int = 0) -> Func | None:
        """``name`` in ``cls`` or in a base class defined in this module."""
        found = self._methods.get(id(cls), {}).get(name)
        if found is None and depth < 8:
            for base in cls.bases:
                parent = self.top_level.classes.get(base.id) if isinstance(base, ast.Name) else None
                if parent is not None and parent is not cls:
                    found = self._method(parent, name, depth + 1)
                    if found:
                        break
        return found

    def outer(self, func: Func, root: str) -> Func | None:
        """The scope that a free name of ``func`` belongs to: an enclosing function, or the
        module (where names of imports are left out); None for a builtin or an undefined one."""
        scope = func.parent
        while scope is not None:
            if root in scope.local:
                if scope is self.top_level and root in self.names.imported:
                    return None
                return scope
            scope = scope.parent
        return None


def _outer_parts(node: ast.AST) -> list[ast.AST]:
    """The parts of a ``def`` or ``lambda`` that run where it is defined."""
    assert isinstance(node, FUNCTION_NODES)
    args = node.args
    parts: list[ast.AST] = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    if not isinstance(node, ast.Lambda):
        parts = [*node.decorator_list, *parts]
        annotations = [a.annotation for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
        parts += [a for a in [*annotations, node.returns] if a is not None]
    return parts


def _children(node: ast.AST) -> list[ast.AST]:
    """The child nodes of ``node`` that can hold names (what ``ast.iter_child_nodes``
    gives, without operators and contexts), in order. The fields read are found once per
    node type: not those that hold operators, contexts or plain values (see
    :data:`_NOT_NODES`)."""
    kind = type(node)
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELDS[kind] = tuple(f for f in kind._fields if f not in _NOT_NODES)
    children = []
    for name in fields:
        value = getattr(node, name, None)
        if type(value) is list:
            children += [
                v for v in value if isinstance(v, ast.AST) and not isinstance(v, _NO_NAMES)
            ]
        elif isinstance(value, ast.AST) and not isinstance(value, _NO_NAMES):
            children.append(value)
    return children


# The fields of a node that never hold a node that can hold names: operators, contexts,
# and plain values (a name's ``id``, an attribute's ``attr``, an import's ``module``, ...).
_NOT_NODES = frozenset(
    "ctx op ops id attr arg name module level type_comment is_async kind conversion simple".split()
)
# The fields to read of each node type (see _children), found when first needed.
_FIELDS: dict[type, tuple[str, ...]] = {}


def _latest(candidates: list[Func], line: int) -> Func:
    """The last definition at or before ``line``, or the first one after it."""
    index = bisect.bisect_right([c.line for c in candidates], line)
    return candidates[max(index - 1, 0)]
