"""Which values in a traced function are tracers: the names derived from its traced inputs.

Under a JAX transformation an argument is a tracer, and so is everything
computed from it, except what is known while tracing: its ``.shape``,
``.ndim``, ``.dtype`` and ``.size``, ``len()`` of it, ``isinstance`` and ``is``
tests, tests of its dtype (``jnp.issubdtype``, ``jnp.iscomplexobj``),
``jax.tree.map`` of a function that returns such a value
(``jax.tree.map(lambda x: x is None, tree)`` is a tree of Python bools), and
the static fields of a pytree class (``grid.pad`` where ``pad`` is declared
``struct.field(pytree_node=False)``), which JAX keeps out of the trace.
:class:`Taint` follows assignments through one function, twice over its
statements so that values carried around a loop are seen, and then answers
whether an expression is traced, and whether it is surely an *array*. A
comprehension's variables are its own, not the function's names
(:func:`~jaxpurity.linter.analysis._syntax.comprehension_scopes`); and a name read in
the value of an assignment to it outside loops (``size = check(size, x)``)
holds what the assignments before it gave, not this one. Which functions give
arrays and which give Python values is data (:mod:`jaxpurity.linter.analysis._arrays`).

The second question matters because a traced argument is often a pytree: a
dict, a dataclass of arrays, a train state. ``if state.dynamic_scale:`` tests
an object (or a static field), which works; ``if x > 0:`` and ``if
jnp.any(x):`` test arrays, which fail. An array is a traced argument itself (of
a helper, unless the caller passes a name that it also assigns a Python value,
such as ``size = None``), what jax.numpy, jax.lax and array methods return from
traced values, arithmetic and comparisons on arrays, and names assigned only
arrays. A name that the function tests with ``isinstance`` is left out: the
code checks its type, so it may be a NumPy or Python value there. So is a
parameter annotated as a container (``Tuple[jax.Array, jax.Array]``,
``Sequence``, ``dict``) or as a class of the module, and ``*args``, a tuple: a
container, whose truth is static, though its items are arrays. Each pass is
linear in the function's size.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping

from jaxpurity.linter.analysis._arrays import (
    ARRAY_ATTRIBUTES,
    ARRAY_METHODS,
    ARRAY_MODULES,
    STATIC_ATTRIBUTES,
    STATIC_CALLS,
    STATIC_PARTS,
    TREE_MAPS,
    is_at,
)
from jaxpurity.linter.analysis._names import Names
from jaxpurity.linter.analysis._syntax import (
    COMPREHENSIONS,
    comprehension_scopes,
    names_in,
    parameter_names,
    position,
)

__all__ = ["Taint"]

_IDENTITY_TESTS = (ast.Is, ast.IsNot, ast.In, ast.NotIn)

# A name of the function, or a comprehension's variable: (id of the comprehension, name).
_Binding = str | tuple[int, str]


class Taint:
    """The names of one function that hold tracers, and whether an expression holds one.

    Args:
      names: The module's :class:`~jaxpurity.linter.analysis._names.Names`.
      tracer_names: The names known to hold tracers on entry (traced parameters, and the
        names of an enclosing traced function that hold tracers and that this one reads).
      static_functions: The names of the module's functions that return a Python value
        whatever their arguments (``def is_none(x): return x is None``).
      static_fields: For some names, their attributes that are Python values: parameters
        annotated with a class of the module that declares them static pytree fields
        (``grid.pad``, with ``pad: int = struct.field(pytree_node=False)``).
      arrays: Those of ``tracer_names`` that hold arrays on entry; all of them when not given.

    Example:
      >>> import ast
      >>> tree = ast.parse("def f(x, n):\\n    y = x * 2\\n    m = y.shape[0]")
      >>> taint = Taint(Names(tree), {"x"})
      >>> taint.follow(list(ast.walk(tree.body[0])))
      >>> sorted(taint.tracer_names)
      ['x', 'y']
    """

    def __init__(
        self,
        names: Names,
        tracer_names: Iterable[str],
        static_functions: Iterable[str] = (),
        static_fields: Mapping[str, frozenset[str]] | None = None,
        arrays: Iterable[str] | None = None,
    ) -> None:
        self.names = names
        #: The names that hold tracers (after :meth:`follow`, every one the function has).
        self.tracer_names = set(tracer_names)
        self.static_functions = frozenset(static_functions)
        self.static_fields = dict(static_fields or {})
        #: The names known to hold arrays (after :meth:`follow`).
        self.arrays = set(self.tracer_names if arrays is None else arrays)
        #: Parameters that hold containers of arrays (after :meth:`follow`).
        self.containers: set[str] = set()
        # The variables of comprehensions (see comprehension_scopes), each as the id of
        # its comprehension and its name: those traced, and those known to hold arrays.
        self._scopes: dict[int, dict[str, ast.expr]] = {}
        self._traced_variables: set[tuple[int, str]] = set()
        self._array_variables: set[tuple[int, str]] = set()
        # Where each traced name is first made traced, as (line, column) of the statement
        # ((0, 0): on entry); the reads of a name in the value of an assignment to it, by
        # id, with where that assignment starts (see _rebinding_reads).
        self._first_traced: dict[str, tuple[int, int]] = dict.fromkeys(self.tracer_names, (0, 0))
        self._rebinding: dict[int, tuple[int, int]] = {}
        # The names assigned a Python value somewhere (after follow; see may_be_python).
        self._python_names: set[str] = set()
        self._memo: dict[int, bool] | None = None
        self._array_memo: dict[int, bool] = {}

    def follow(
        self,
        nodes: list[ast.AST],
        type_checked: Iterable[str] = (),
        containers: Iterable[str] = (),
    ) -> None:
        """Add the names that ``nodes`` (one function's own nodes, or those of them that
        bind names, in source order) assign from traced values; then answer from a memo
        (the set no longer changes). ``type_checked``: the names the function tests with
        ``isinstance``, which are not taken for arrays. ``containers``: parameters that
        hold containers (annotated so, or ``*args``), not arrays, whose items are."""
        self._scopes = comprehension_scopes(nodes)
        self._rebinding = _rebinding_reads(nodes)
        for _ in range(2):
            for node in nodes:
                self._assign(node)
        self._memo = {}
        self.containers = set(containers)
        self._find_arrays(nodes, set(type_checked) | self.containers)

    def _find_arrays(self, nodes: list[ast.AST], not_arrays: set[str]) -> None:
        """The traced names bound only to arrays, with the traced inputs (whatever they are
        assigned later, as the taint is), less ``not_arrays``; and the names assigned a value
        that is not traced."""
        self.arrays -= not_arrays
        verdict: dict[_Binding, bool] = {}
        for _ in range(2):
            for node in nodes:
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and node.value:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    python = not self.holds_tracer(node.value)
                    for target in targets:
                        is_array = isinstance(target, ast.Name) and self._array(node.value, verdict)
                        for name in names_in(target):
                            verdict[name] = verdict.get(name, True) and is_array
                            if python:
                                self._python_names.add(name)
                for target, iterable in _iterations(node):
                    self._judge_items(target, iterable, verdict, node)
        arrays = {key for key, is_array in verdict.items() if is_array}
        self.arrays = (self.arrays | {k for k in arrays if isinstance(k, str)}) - not_arrays
        self._array_variables = {
            k for k in arrays if isinstance(k, tuple) and k[1] not in not_arrays
        }
        self._array_memo = {}

    def _judge_items(
        self,
        target: ast.expr,
        iterable: ast.expr,
        verdict: dict[_Binding, bool],
        binder: ast.AST,
    ) -> None:
        """Whether the names a loop target binds hold arrays: a name given the items of an
        array; a comprehension's target binds its own variables."""
        is_array = isinstance(target, ast.Name) and self._array(iterable, verdict)
        own = isinstance(binder, COMPREHENSIONS)
        for name in names_in(target):
            key: _Binding = (id(binder), name) if own else name
            verdict[key] = verdict.get(key, True) and is_array

    def may_be_python(self, node: ast.expr) -> bool:
        """Whether ``node`` is a name that the function also assigns a Python value
        (``chunk_size = None``): traced or not, it may hold one where it is read, and a
        function it is passed to cannot take it for an array; only after :meth:`follow`."""
        return (
            isinstance(node, ast.Name)
            and self._variable(node) is None
            and node.id in self._python_names
        )

    def is_array(self, node: ast.expr | None) -> bool:
        """Whether ``node`` is surely a traced array, not a pytree of them or a Python value
        (see the module's docstring); only after :meth:`follow`."""
        if node is None:
            return False
        key = id(node)
        if key not in self._array_memo:
            self._array_memo[key] = self._array(node, None)
        return self._array_memo[key]

    def _array(self, node: ast.expr, verdict: dict[_Binding, bool] | None) -> bool:
        if not self.holds_tracer(node):
            return False
        if isinstance(node, ast.Name):
            variable = self._variable(node)
            key: _Binding = node.id if variable is None else variable
            known = key in (self.arrays if variable is None else self._array_variables)
            if verdict is not None and key in verdict:
                return verdict[key] or known
            return known
        if isinstance(node, ast.Attribute):
            return node.attr in ARRAY_ATTRIBUTES and self._array(node.value, verdict)
        if isinstance(node, ast.Subscript):
            held = isinstance(node.value, ast.Name) and node.value.id in self.containers
            return held or self._array(node.value, verdict)
        if isinstance(node, ast.Call):
            name = self.names.qualified(node.func) or ""
            if name.startswith(ARRAY_MODULES) and name not in STATIC_CALLS:
                return True
            method = node.func
            return isinstance(method, ast.Attribute) and (
                (method.attr in ARRAY_METHODS and self._array(method.value, verdict))
                or (isinstance(method.value, ast.Subscript) and is_at(method.value))
            )
        if isinstance(node, ast.BinOp):
            if isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
                return False  # "%s" % x: a string
            return self._array(node.left, verdict) or self._array(node.right, verdict)
        if isinstance(node, ast.UnaryOp):
            return not isinstance(node.op, ast.Not) and self._array(node.operand, verdict)
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(isinstance(o, ast.Constant) and isinstance(o.value, str) for o in operands):
                return False
            return any(self._array(o, verdict) for o in operands)
        if isinstance(node, ast.IfExp):
            return self._array(node.body, verdict) and self._array(node.orelse, verdict)
        return False

    def _assign(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind(target, node.value, node)
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            self._bind(node.target, node.value, node)
        elif isinstance(node, ast.AugAssign):
            if isinstance(node.target, ast.Name) and self.holds_tracer(node.value):
                self._mark(node.target, node)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, item.context_expr, node)
        for target, iterable in _iterations(node):
            self._bind_items(target, iterable, node)

    def _mark(self, target: ast.expr, binder: ast.AST) -> None:
        """The names that ``target`` binds hold tracers, from ``binder``: a comprehension's
        own variables, or the function's names."""
        if isinstance(binder, COMPREHENSIONS):
            self._traced_variables.update((id(binder), name) for name in names_in(target))
            return
        where = position(binder)
        for name in names_in(target):
            self.tracer_names.add(name)
            self._first_traced[name] = min(where, self._first_traced.get(name, where))

    def _bind(self, target: ast.expr, value: ast.expr, binder: ast.AST) -> None:
        if (
            isinstance(target, (ast.Tuple, ast.List))
            and isinstance(value, (ast.Tuple, ast.List))
            and len(target.elts) == len(value.elts)
            and not any(isinstance(e, ast.Starred) for e in target.elts + value.elts)
        ):
            for element, part in zip(target.elts, value.elts, strict=True):
                self._bind(element, part, binder)
        elif (
            isinstance(target, (ast.Tuple, ast.List))
            and isinstance(value, ast.Call)
            and self.names.qualified(value.func) in STATIC_PARTS
            and not any(isinstance(e, ast.Starred) for e in target.elts)
        ):
            static = STATIC_PARTS[self.names.qualified(value.func) or ""]
            if self.holds_tracer(value):
                for index, element in enumerate(target.elts):
                    if index not in static:
                        self._mark(element, binder)
        elif self.holds_tracer(value):
            self._mark(target, binder)

    def _bind_items(self, target: ast.expr, iterable: ast.expr, binder: ast.AST) -> None:
        """Bind a loop target to the items of ``iterable``: ``enumerate``'s count and
        ``range``'s numbers are Python ints; ``zip`` pairs each target with its source."""
        if isinstance(iterable, ast.Call) and not iterable.keywords:
            function = self.names.qualified(iterable.func)
            parts = target.elts if isinstance(target, ast.Tuple) else None
            if function == "range":
                return
            if function == "enumerate" and parts and len(parts) == 2 and iterable.args:
                self._bind_items(parts[1], iterable.args[0], binder)
                return
            if function == "zip" and parts and len(parts) == len(iterable.args):
                for part, source in zip(parts, iterable.args, strict=True):
                    self._bind_items(part, source, binder)
                return
        if self.holds_tracer(iterable):
            self._mark(target, binder)

    def holds_tracer(self, node: ast.expr | None) -> bool:
        """Whether ``node`` holds (or builds from) a tracer while JAX traces the function."""
        if node is None:
            return False
        if self._memo is None:
            return self._holds_tracer(node)
        key = id(node)
        if key not in self._memo:
            self._memo[key] = self._holds_tracer(node)
        return self._memo[key]

    def _variable(self, node: ast.Name) -> tuple[int, str] | None:
        """The comprehension variable that ``node`` reads, as the id of its comprehension
        and its name; None for a name of the function."""
        bound = self._scopes.get(id(node))
        comprehension = bound.get(node.id) if bound else None
        return None if comprehension is None else (id(comprehension), node.id)

    def _holds_tracer(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            variable = self._variable(node)
            if variable is not None:
                return variable in self._traced_variables
            if node.id not in self.tracer_names:
                return False
            # A read in the value of an assignment to its name sees the value from before.
            rebinding = self._rebinding.get(id(node))
            return rebinding is None or self._first_traced[node.id] < rebinding
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.attr in self.static_fields.get(
                node.value.id, ()
            ):
                return False
            return node.attr not in STATIC_ATTRIBUTES and self.holds_tracer(node.value)
        if isinstance(node, ast.Subscript):
            return self.holds_tracer(node.value)
        if isinstance(node, ast.Call):
            function = self.names.qualified(node.func)
            if function in STATIC_CALLS:
                return False
            if function in TREE_MAPS and node.args and self._returns_static(node.args[0]):
                return False
            arguments = [*node.args, *(k.value for k in node.keywords)]
            if any(self.holds_tracer(a) for a in arguments):
                return True
            return isinstance(node.func, ast.Attribute) and self.holds_tracer(node.func.value)
        if isinstance(node, ast.Compare):
            if all(isinstance(op, _IDENTITY_TESTS) for op in node.ops):
                return False
            return any(self.holds_tracer(e) for e in [node.left, *node.comparators])
        if isinstance(node, ast.BinOp):
            return self.holds_tracer(node.left) or self.holds_tracer(node.right)
        if isinstance(node, (ast.UnaryOp, ast.Starred, ast.Await, ast.FormattedValue)):
            return self.holds_tracer(node.operand if isinstance(node, ast.UnaryOp) else node.value)
        if isinstance(node, ast.NamedExpr):
            return self.holds_tracer(node.value)
        if isinstance(node, ast.BoolOp):
            return any(self.holds_tracer(v) for v in node.values)
        if isinstance(node, ast.IfExp):
            return self.holds_tracer(node.body) or self.holds_tracer(node.orelse)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(self.holds_tracer(e) for e in node.elts)
        if isinstance(node, ast.Dict):
            return any(self.holds_tracer(v) for v in node.values)
        if isinstance(node, ast.JoinedStr):
            return any(self.holds_tracer(v) for v in node.values)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self.holds_tracer(node.elt)
        if isinstance(node, ast.DictComp):
            return self.holds_tracer(node.value)
        if isinstance(node, ast.Slice):
            return any(self.holds_tracer(p) for p in (node.lower, node.upper, node.step))
        return False

    def _returns_static(self, function: ast.expr) -> bool:
        """Whether ``function`` returns a Python value whatever it is given: a lambda whose
        body is one (``lambda x: x is None``), a function of
        :data:`~jaxpurity.linter.analysis._arrays.STATIC_CALLS` (``jnp.shape``), or one of
        ``static_functions``."""
        if isinstance(function, ast.Lambda):
            given = self.tracer_names | parameter_names(function)
            return not Taint(self.names, given, self.static_functions).holds_tracer(function.body)
        if isinstance(function, ast.Name) and function.id in self.static_functions:
            return True
        return self.names.qualified(function) in STATIC_CALLS


def _iterations(node: ast.AST) -> list[tuple[ast.expr, ast.expr]]:
    """The targets of a loop or a comprehension, each with the iterable it takes its
    values from; none for another node."""
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [(node.target, node.iter)]
    if isinstance(node, COMPREHENSIONS):
        return [(generator.target, generator.iter) for generator in node.generators]
    return []


def _rebinding_reads(nodes: list[ast.AST]) -> dict[int, tuple[int, int]]:
    """The reads of a name in the value of an assignment to it outside loops (``size`` in
    ``size = check(size, x)``), by id, each with where that assignment starts. Python
    evaluates the value first, and outside loops only what comes before in the source
    runs before, so such a read sees only the assignments before it. ``nodes`` are in
    source order; in a loop, the read may see the assignment's previous round."""
    found: dict[int, tuple[int, int]] = {}
    loop_ends: list[tuple[int, int]] = []  # where the loops around the node end
    for node in nodes:
        start = position(node)
        while loop_ends and loop_ends[-1] < start:
            loop_ends.pop()
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            loop_ends.append((node.end_lineno or node.lineno, node.end_col_offset or 0))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value and not loop_ends:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            assigned = {name for target in targets for name in names_in(target)}
            for read in ast.walk(node.value):
                if isinstance(read, ast.Name) and read.id in assigned:
                    found[id(read)] = start
    return found
