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
from collections.abc import Callable, Iterable, Mapping

from jaxpurity.linter.analysis._arrays import (
    ARRAY_ATTRIBUTES,
    ARRAY_METHODS,
    ARRAY_MODULES,
    FOLDED_ON_CONSTANTS,
    MAPS,
    NOT_TRACER_TYPES,
    STATIC_ATTRIBUTES,
    STATIC_CALLS,
    STATIC_PARTS,
    TRACER_ATTRIBUTES,
    TRACER_TYPES,
    is_at,
    makes_array,
)
from jaxpurity.linter.analysis._names import Names
from jaxpurity.linter.analysis._syntax import (
    COMPREHENSIONS,
    Blocks,
    blocks,
    comprehension_scopes,
    is_constant,
    names_in,
    parameter_names,
    position,
    walk_here,
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
        *,
        staged: bool = False,
        constants: Iterable[str] = (),
        results: Callable[[ast.Call], str | None] | None = None,
        static_attributes: Iterable[str] = (),
    ) -> None:
        self.names = names
        #: Whether the function runs under a staging trace (``jit``, a loop body, ...), where
        #: every jax.numpy or jax.lax operation gives a tracer, on constants too.
        self.staged = staged
        #: Names of concrete arrays that the function reads from outside (a module-level
        #: ``table = jnp.array(...)``): not tracers, but what is computed from them under a
        #: staging trace is (``table[i]``, ``table.sum()``).
        self.constants = frozenset(constants)
        #: What a call gives, where its function says (a jitted function, a primitive's
        #: ``bind``): ``"array"``, ``"value"`` (JAX values of unknown structure) or None.
        self.results = results
        #: Attributes that are static fields of every class of the module that declares
        #: them (``data_axis_for_name``, declared ``pytree_node=False``): Python values on
        #: any object, its class unknown.
        self.static_attributes = frozenset(static_attributes)
        # The reads of a name (by id) in a branch that a tracer never reaches: the name
        # tested there is no tracer (``else`` of ``hasattr(a, "shape")``); see _narrow.
        self._narrowed: set[int] = set()
        # The bodies of ``with jax.ensure_compile_time_eval():``, which run eagerly.
        self._eager: Blocks | None = None
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
        branches: Iterable[ast.If | ast.IfExp] = (),
    ) -> None:
        """Add the names that ``nodes`` (one function's own nodes, or those of them that
        bind names, in source order) assign from traced values; then answer from a memo
        (the set no longer changes). ``type_checked``: the names the function tests with
        ``isinstance``, which are not taken for arrays. ``containers``: parameters that
        hold containers (annotated so, or ``*args``), not arrays, whose items are.
        ``branches``: the function's ``if`` statements and expressions, whose tests may
        say that a name holds no tracer in one branch (``hasattr(a, "shape")``)."""
        self._scopes = comprehension_scopes(nodes)
        self._rebinding = _rebinding_reads(nodes)
        self._narrowed = _narrowed_reads(branches, self.names)
        eager: list[ast.With | ast.AsyncWith] = [
            node
            for node in nodes
            if isinstance(node, (ast.With, ast.AsyncWith))
            and any(
                isinstance(item.context_expr, ast.Call)
                and self.names.qualified(item.context_expr.func) == "jax.ensure_compile_time_eval"
                for item in node.items
            )
        ]
        self._eager = blocks(eager) if eager else None
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

    def is_item(self, node: ast.Name) -> bool:
        """Whether ``node`` reads a comprehension's own variable: an item of what it
        iterates (of a pytree, unless that is an array)."""
        return self._variable(node) is not None

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
            return node.attr in ARRAY_ATTRIBUTES and self._operand(node.value, verdict)
        if isinstance(node, ast.Subscript):
            held = isinstance(node.value, ast.Name) and node.value.id in self.containers
            return held or self._operand(node.value, verdict)
        if isinstance(node, ast.Call):
            name = self.names.qualified(node.func) or ""
            if makes_array(name):
                return True
            method = node.func
            if isinstance(method, ast.Attribute) and (
                (method.attr in ARRAY_METHODS and self._operand(method.value, verdict))
                or (isinstance(method.value, ast.Subscript) and is_at(method.value))
            ):
                return True
            return self.results is not None and self.results(node) == "array"
        if isinstance(node, ast.BinOp):
            if isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
                return False  # "%s" % x: a string
            return self._operand(node.left, verdict) or self._operand(node.right, verdict)
        if isinstance(node, ast.UnaryOp):
            return not isinstance(node.op, ast.Not) and self._operand(node.operand, verdict)
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(isinstance(o, ast.Constant) and isinstance(o.value, str) for o in operands):
                return False
            return any(self._operand(o, verdict) for o in operands)
        if isinstance(node, ast.IfExp):
            return self._array(node.body, verdict) and self._array(node.orelse, verdict)
        return False

    def _operand(self, node: ast.expr, verdict: dict[_Binding, bool] | None) -> bool:
        """Whether an operand makes what is computed from it an array: a traced array, or a
        concrete one from outside (what is computed from it is traced, see
        :meth:`_holds_tracer`)."""
        return self._constant(node) or self._array(node, verdict)

    def _constant(self, node: ast.expr) -> bool:
        """Whether ``node`` reads a concrete array from outside the function (see
        :attr:`constants`)."""
        return (
            isinstance(node, ast.Name)
            and node.id in self.constants
            and node.id not in self.tracer_names
            and self._variable(node) is None
        )

    def _staged_at(self, node: ast.AST) -> bool:
        """Whether operations at ``node`` are staged: the function runs under a staging
        trace, and ``node`` is not in a ``with jax.ensure_compile_time_eval():`` block."""
        if not self.staged:
            return False
        return self._eager is None or not self._eager.contain(getattr(node, "lineno", 0))

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
            if node.id not in self.tracer_names or id(node) in self._narrowed:
                return False
            # A read in the value of an assignment to its name sees the value from before.
            rebinding = self._rebinding.get(id(node))
            return rebinding is None or self._first_traced[node.id] < rebinding
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.attr in self.static_fields.get(
                node.value.id, ()
            ):
                return False
            if node.attr in STATIC_ATTRIBUTES or node.attr in self.static_attributes:
                return False
            if node.attr in ARRAY_ATTRIBUTES and self._constant(node.value):
                return self._staged_at(node)  # table.T: a transpose, staged
            return self.holds_tracer(node.value)
        if isinstance(node, ast.Subscript):
            if self._constant(node.value):
                # table[i]: traced when i is, and staged under jit whatever i is
                return self._staged_at(node) or self.holds_tracer(node.slice)
            return self.holds_tracer(node.value)
        if isinstance(node, ast.Call):
            return self._call_holds_tracer(node)
        if isinstance(node, ast.Compare):
            if all(isinstance(op, _IDENTITY_TESTS) for op in node.ops):
                return False
            operands = [node.left, *node.comparators]
            return any(self.holds_tracer(e) for e in operands) or self._staged_on_constant(
                node, operands
            )
        if isinstance(node, ast.BinOp):
            operands = [node.left, node.right]
            return any(self.holds_tracer(e) for e in operands) or self._staged_on_constant(
                node, operands
            )
        if isinstance(node, ast.UnaryOp):
            return self.holds_tracer(node.operand) or self._staged_on_constant(node, [node.operand])
        if isinstance(node, (ast.Starred, ast.Await, ast.FormattedValue)):
            return self.holds_tracer(node.value)
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

    def _call_holds_tracer(self, node: ast.Call) -> bool:
        """A call gives a tracer when it is given one (or is a method of one), and, under a
        staging trace, when it is a jax.numpy or jax.lax operation (on constants too), a
        method of a concrete array, or a call of a jitted function or a primitive."""
        function = self.names.qualified(node.func)
        if function in STATIC_CALLS:
            return False
        if function in MAPS and node.args and self._returns_static(node.args[0]):
            return False
        arguments = [*node.args, *(k.value for k in node.keywords)]
        if any(self.holds_tracer(a) for a in arguments):
            return True
        method = node.func
        if isinstance(method, ast.Attribute) and self.holds_tracer(method.value):
            return True
        if not self._staged_at(node):
            return False
        if function and function.startswith(ARRAY_MODULES):
            return not (function in FOLDED_ON_CONSTANTS and all(map(is_constant, arguments)))
        if isinstance(method, ast.Attribute) and self._constant(method.value):
            return True
        return self.results is not None and self.results(node) is not None

    def _staged_on_constant(self, node: ast.expr, operands: list[ast.expr]) -> bool:
        """Whether an operator on a concrete array from outside is staged (``table * 2``
        under ``jit`` is a tracer)."""
        return any(self._constant(o) for o in operands) and self._staged_at(node)

    def _returns_static(self, function: ast.expr) -> bool:
        """Whether ``function`` returns a Python value whatever it is given: a lambda whose
        body is one (``lambda x: x is None``), a function of
        :data:`~jaxpurity.linter.analysis._arrays.STATIC_CALLS` (``jnp.shape``), or one of
        ``static_functions``."""
        if isinstance(function, ast.Lambda):
            given = self.tracer_names | parameter_names(function)
            inner = Taint(
                self.names,
                given,
                self.static_functions,
                static_attributes=self.static_attributes,
            )
            return not inner.holds_tracer(function.body)
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


def _narrowed_reads(branches: Iterable[ast.If | ast.IfExp], names: Names) -> set[int]:
    """The reads of a name (by id) in a branch that its test keeps tracers out of: the
    ``else`` of ``hasattr(a, "shape")`` or ``isinstance(a, jax.Array)`` (every tracer has
    a shape, and is an Array), the body of ``isinstance(a, (int, np.ndarray))`` or of
    ``a is None``. Once the branch assigns the name again, from the line of that
    assignment on (its value too: ``b = np.asarray(b)``), it is left alone."""
    found: set[int] = set()
    for node in branches:
        body_free, else_free = _tracer_free(node.test, names)
        for free, branch in ((body_free, node.body), (else_free, node.orelse)):
            if not free:
                continue
            parts: list[ast.AST] = [*branch] if isinstance(branch, list) else [branch]
            inner = [n for part in parts for n in walk_here(part)]
            assigned: dict[str, int] = {}
            for n in inner:
                if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                    assigned[n.id] = min(n.lineno, assigned.get(n.id, n.lineno))
            found.update(
                id(n)
                for n in inner
                if isinstance(n, ast.Name)
                and n.id in free
                and (n.id not in assigned or n.lineno <= assigned[n.id])
                and isinstance(n.ctx, ast.Load)
            )
    return found


def _tracer_free(test: ast.expr, names: Names) -> tuple[set[str], set[str]]:
    """The names that hold no tracer where ``test`` is true, and where it is false."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        when_true, when_false = _tracer_free(test.operand, names)
        return when_false, when_true
    if isinstance(test, ast.BoolOp):
        parts = [_tracer_free(value, names) for value in test.values]
        if isinstance(test.op, ast.And):
            return set().union(*(true for true, _ in parts)), set()
        return set(), set().union(*(false for _, false in parts))
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and len(test.ops) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        if isinstance(test.ops[0], ast.Is):
            return {test.left.id}, set()
        if isinstance(test.ops[0], ast.IsNot):
            return set(), {test.left.id}
    if not (isinstance(test, ast.Call) and len(test.args) == 2 and not test.keywords):
        return set(), set()
    subject, kind = test.args
    if not isinstance(subject, ast.Name):
        return set(), set()
    function = names.qualified(test.func)
    if function == "hasattr":
        has_attr = isinstance(kind, ast.Constant) and kind.value in TRACER_ATTRIBUTES
        return set(), ({subject.id} if has_attr else set())
    if function != "isinstance":
        return set(), set()
    options = kind.elts if isinstance(kind, ast.Tuple) else [kind]
    qualified = [names.qualified(option) or "" for option in options]
    if qualified and all(name in NOT_TRACER_TYPES for name in qualified):
        return {subject.id}, set()
    if qualified and all(name in TRACER_TYPES for name in qualified):
        return set(), {subject.id}
    return set(), set()
