"""State that outlives a trace: globals, outer containers, ``self`` and caches changed in one.

A traced function's Python body runs while JAX traces it: once for ``jit``
and for the bodies of lax loops and branches, whose trace is reused. What it
assigns to a global (JP101), stores in a container that outlives the call
(JP102, JP103, JP104) or sets on ``self`` (JP105) is assigned once, not on
every call, and holds tracers; ``functools.lru_cache`` keeps the arrays of the
first call, tracers too (JP106). What it stores into an argument's container is
lost: the transformation passed a rebuilt copy (JP108), and so is what a method of the
argument called for its effect changes (JP112). A tracer given to a static
field of a pytree is part of its structure, and leaks out with it (JP109). A
container that the traced function makes itself (``env = {}``) is made anew on
every trace, and what a helper stores in it does not outlive the trace; a global
that only tests read is a trace counter kept on purpose. What the module as a
whole says of its containers and of the names tests read is found once per module
(:class:`_Facts`).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from jaxpurity.linter._family import SAME_MODULE, Family, Rule
from jaxpurity.linter.analysis._arrays import builds_array
from jaxpurity.linter.analysis._known_transforms import PER_TRACE_CLASSES
from jaxpurity.linter.analysis._names import Names, dotted
from jaxpurity.linter.analysis._syntax import flatten, is_container

if TYPE_CHECKING:
    from jaxpurity.linter._context import Module, ScopeContext, TracedFunction
    from jaxpurity.linter.analysis._functions import Func

__all__ = ["FAMILY"]

FAMILY = Family(
    Rule(
        "JP101",
        "global-assignment",
        "A global or nonlocal name assigned in a traced function",
        "`{name}` is assigned through `{declared}` in a function JAX traces ({how}): the "
        "assignment runs while tracing, not on every call",
        "global_counter",
        "Under jax.grad, jax.vmap or jax.eval_shape alone, which run the body on every call, "
        "it reports only an assignment of a tracer (a traced name or array), not the result "
        "of a function that may make a Python value of one (trace-time output on purpose). "
        "A name that only tests read (in assert statements, assert*() calls and blocks that "
        "expect an error), never a traced function, is taken for a trace counter or flag kept "
        "on purpose, and not reported unless it is given a traced value. A nonlocal of a "
        "traced function, assigned by a helper that it defines and calls, is made anew on "
        "every trace, and not reported. " + SAME_MODULE,
    ),
    Rule(
        "JP102",
        "global-container-mutation",
        "A module-level or closure container changed in a traced function",
        "`{name}` is changed in a function JAX traces ({how}): this runs while tracing, not on "
        "every call, and a traced value stored there leaks",
        "global_counter",
        "It knows a container by its literal or constructor ([], {}, set(), dict(), "
        "defaultdict(), ...) at module level or in an enclosing function; one made by "
        "another function, passed in, or changed through a method it does not list, is not "
        "seen. One that a traced function makes (`env = {}`) and a helper of it changes is "
        "made anew on every trace, and not reported. " + SAME_MODULE,
    ),
    Rule(
        "JP103",
        "loop-body-leak",
        "An outer container changed from a loop or branch body",
        "`{name}` is changed from a loop or branch body ({how}): the body runs once, while JAX "
        "traces it, and what it stores is a tracer",
        "leak_from_loop_body",
        "The same containers as JP102, given a traced value or a JAX array; a value that holds "
        "no tracer (a shape, a count, a string) is bookkeeping at trace time, and not "
        "reported. A body passed to a loop through a variable or another module is not seen.",
    ),
    Rule(
        "JP104",
        "grad-vmap-leak",
        "A traced value stored outside a function under grad or vmap",
        "a traced value is stored in `{name}` from a function under {how}: it is still a "
        "tracer after the transformation returns",
        "leak_from_grad_vmap",
        "It reports values derived from the differentiated or mapped arguments; a value "
        "stored through a helper of another module is not seen, nor one stored in a "
        "container that the transformed function makes itself (`env = {}`), which lives "
        "for one call.",
    ),
    Rule(
        "JP105",
        "self-assignment",
        "An attribute of self changed in a traced method",
        "`self.{name}` is changed in a method JAX traces ({how}): the object keeps a tracer, "
        "and the calls that reuse the trace skip the change",
        "leak_through_self",
        "It sees assignments to `self` in the traced method and in the methods it calls on "
        "`self`; Flax NNX methods, whose transformations carry such state, are not checked, "
        "nor an object changed through another name, nor one made anew on every trace: an "
        "object that the traced code makes and calls (`impl = Iteration(); impl(x)`), or a "
        "Haiku module.",
    ),
    Rule(
        "JP106",
        "cached-array",
        "functools.lru_cache or cache on a traced function that returns arrays",
        "`{decorator}` caches the arrays of a function JAX traces ({how}): the first call inside "
        "a trace caches a tracer, and later callers get it",
        "memoization_caches",
        "It knows an array result by a jax.numpy, jax.lax, jax.random or jax.nn call in the "
        "return statement, or an Array annotation; a cache filled by hand is JP102's. "
        + SAME_MODULE,
    ),
    Rule(
        "JP109",
        "static-field-array",
        "A traced value or a JAX array given to a static field of a pytree",
        "`{field}`, a static field of `{cls}`, is given {what}: a static field is part of the "
        "pytree's structure, not a leaf, so {why}; make the field a leaf (no static=True), "
        "or give it a Python value",
        "static_objects",
        "It sees a class of the module whose fields are declared static (eqx.field("
        "static=True), static_field(), struct.field(pytree_node=False), field(metadata="
        "{'static': True})), built by keyword or by position (without an __init__ of its "
        "own), given a traced name or array in traced code, or a JAX array anywhere (made "
        "there, or a name bound only to one); a class of another module, or a field set in "
        "an __init__ of the class's own, is not seen.",
    ),
    Rule(
        "JP108",
        "lost-mutation",
        "An argument's container changed in place by a function a transformation traces",
        "`{name}`, an argument, is changed in place in a function JAX transforms ({how}): the "
        "transformation passes it a rebuilt copy, so the caller's `{name}` stays as it was; "
        "return the new value",
        "global_counter",
        "It reports an item stored into a parameter (`batch[k] = v`) or `.append`, "
        "`.extend`, `.insert` or `.setdefault` called on it, in a function a transformation "
        "is applied to directly (not Flax NNX's, which carry such changes), when the "
        "function neither returns that parameter nor binds its name again. A helper called "
        "from traced code gets the caller's own object, and is not reported, nor a static "
        "argument, a donated one, one that jax.grad does not differentiate (passed as it is), "
        "`.update()` (optimizers have one too) or an attribute set on an argument; nor a "
        "mutable reference (`jax.new_ref`, an NNX `Variable(..., hijax=True)`, an argument "
        "annotated `jax.Ref` or written whole, `ref[...] = x`), whose write reaches the "
        "caller.",
    ),
    Rule(
        "JP112",
        "dropped-method-effect",
        "A method of an argument called for its effect in a function a transformation traces",
        "`{call}` is called for its effect on `{name}`, an argument, in a function JAX "
        "transforms ({how}): the transformation passes it a rebuilt copy (a Flax NNX model or "
        "optimizer is a pytree too), so the change never reaches the caller's `{name}`; use "
        "the library's own transformation (nnx.jit), or return the object and use it",
        "nnx_and_equinox_state",
        "It reports a method call on a parameter whose result is not used "
        "(`optimizer.update(model, grads)` as a statement), in a function a transformation is "
        "applied to directly (not Flax NNX's, which carry such changes), when the function "
        "neither returns that parameter nor binds its name again; not on a mutable reference, "
        "nor where nnx.var_defaults(hijax=True) makes NNX's variables references. "
        "The list and dict methods that store are JP108's. A helper called from traced code "
        "gets the caller's own object, and is not reported.",
    ),
)

# Methods that store into a container.
_STORES = frozenset(
    {"append", "extend", "insert", "add", "update", "setdefault", "appendleft", "extendleft"}
)
# The store methods of lists and dicts alone.
_CONTAINER_STORES = frozenset({"append", "extend", "insert", "setdefault"})
_ARRAY_ANNOTATIONS = frozenset({"jax.Array", "jax.numpy.ndarray", "chex.Array", "jaxtyping.Array"})


# -- the function itself: a cache of arrays ---------------------------------------------------


@FAMILY.on_function
def _cached_arrays(fn: TracedFunction) -> None:
    node = fn.func.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return
    for decorator in node.decorator_list:
        name = fn.names.qualified(decorator.func if isinstance(decorator, ast.Call) else decorator)
        if name in ("functools.lru_cache", "functools.cache") and _returns_arrays(fn, node):
            fn.hit(decorator, "JP106", decorator=dotted(decorator) or name)


def _returns_arrays(fn: TracedFunction, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    names = fn.names
    annotations = [a.annotation for a in [*node.args.posonlyargs, *node.args.args]]
    if any(_is_array_annotation(a, names) for a in [*annotations, node.returns]):
        return True
    blocks: list[ast.With | ast.AsyncWith] = [*fn.func.of(ast.With), *fn.func.of(ast.AsyncWith)]
    concrete = [
        (n.lineno, n.end_lineno or n.lineno)
        for n in blocks
        if any(
            names.qualified(item.context_expr.func) == "jax.ensure_compile_time_eval"
            for item in n.items
            if isinstance(item.context_expr, ast.Call)
        )
    ]
    return any(
        builds_array(n.value, names)
        and not any(start <= n.lineno <= end for start, end in concrete)
        for n in fn.func.of(ast.Return)
    )


# -- assignments and stores: globals, outer containers, self ----------------------------------


@FAMILY.on(ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)
def _assignment(
    fn: TracedFunction, node: ast.Assign | ast.AugAssign | ast.AnnAssign | ast.For | ast.AsyncFor
) -> None:
    targets: list[ast.expr]
    if isinstance(node, ast.Assign):
        targets, value = node.targets, node.value
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        targets, value = [node.target], node.iter
    elif node.value is not None:
        targets, value = [node.target], node.value
    else:
        return  # an annotation alone (``x: int``) assigns nothing
    # Under a transformation that runs the body on every call, only a tracer leaks.
    value_leaks = fn.shows_tracer(value)
    # An augmented assignment reads its target: ``self.n += 1`` updates ``self.n``.
    values = [node.target, value] if isinstance(node, ast.AugAssign) else [value]
    func = fn.func
    declared = func.declared_global | func.declared_nonlocal
    for target in targets:
        for element in flatten(target):
            if isinstance(element, ast.Name) and element.id in declared:
                if _local_of_the_trace(fn, element.id):
                    continue
                if value_leaks or (fn.cached and not _counted(fn, element.id, value)):
                    statement = "global" if element.id in func.declared_global else "nonlocal"
                    fn.hit(element, "JP101", once=element.id, name=element.id, declared=statement)
            elif isinstance(element, (ast.Attribute, ast.Subscript)):
                _store(fn, element, element.value, values, item=isinstance(element, ast.Subscript))


@FAMILY.on_call
def _static_field_tracer(fn: TracedFunction, node: ast.Call, name: str) -> None:
    """``Mod(arr=arr, static=made)`` in traced code, where ``static`` is a static field of
    ``Mod``, a class of the module, and ``made`` surely holds a tracer."""
    if not node.keywords and not node.args:
        return
    for field, value, cls in _static_fields_given(fn.module, fn.func, node):
        what = f"a traced value ({fn.func.how})"
        if fn.shows_tracer(value):
            fn.hit(value, "JP109", field=field, cls=cls, what=what, why=_LEAKS)
        elif fn.module.analysis.is_array_value(value, fn.func):
            fn.hit(value, "JP109", field=field, cls=cls, what="a JAX array", why=_UNHASHABLE)


@FAMILY.on_scope
def _static_field_array(scope: ScopeContext) -> None:
    """``Mod(table=jnp.ones(3))`` in code that no transformation traces, where ``table`` is
    a static field: jit cannot hash the array."""
    if scope.func.is_traced or not scope.module.analysis.annotations.has_static_fields:
        return  # (the check of traced code above; a module with no static field)
    for call in scope.func.of(ast.Call):
        for field, value, cls in _static_fields_given(scope.module, scope.func, call):
            if scope.module.analysis.is_array_value(value, scope.func):
                fields = dict(field=field, cls=cls, what="a JAX array", why=_UNHASHABLE)
                scope.hit(value, "JP109", **fields)


_LEAKS = "the tracer leaks out of the transformation with it"
_UNHASHABLE = "jit hashes and compares it on every call, and an array has no hash"


def _static_fields_given(
    module: Module, scope: Func, call: ast.Call
) -> list[tuple[str, ast.expr, str]]:
    """What ``call`` gives the static fields of a class of the module that it builds: each
    field, its value and the class's name. A class with an ``__init__`` of its own is left
    out (its fields are its business), and so is one its scope rebinds."""
    if not isinstance(call.func, ast.Name):
        return []
    if call.func.id in scope.local and scope is not module.func:
        return []
    cls = module.func.classes.get(call.func.id)
    annotations = module.analysis.annotations
    static = annotations.class_static_fields(call.func.id) if cls is not None else frozenset()
    if cls is None or not static or _own_init(cls):
        return []
    given = [(k.arg, k.value) for k in call.keywords if k.arg in static]
    fields = annotations.class_fields(cls.name)
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            break
        if index < len(fields) and fields[index] in static:
            given.append((fields[index], argument))
    return [(field, value, cls.name) for field, value in given if field]


def _own_init(cls: ast.ClassDef) -> bool:
    """Whether a class defines its own ``__init__`` (its fields then are its business)."""
    return any(
        isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
        and statement.name == "__init__"
        for statement in cls.body
    )


@FAMILY.on_call
def _store_call(fn: TracedFunction, node: ast.Call, name: str) -> None:
    if not isinstance(node.func, ast.Attribute):
        return
    receiver = node.func.value
    method = node.func.attr
    if (
        isinstance(receiver, ast.Name)
        and method not in _CONTAINER_STORES
        and _result_dropped(fn.func, node)
        and not fn.module.analysis.holds_reference(receiver, fn.func)
        and not fn.module.analysis.hijax_by_default(fn.func)
        and _lost_change(fn.func, receiver.id)
    ):
        call = f"{receiver.id}.{method}(...)"
        fn.hit(node, "JP112", once=receiver.id, call=call, name=receiver.id)
        return
    if method in _STORES:
        arguments = [*node.args, *(k.value for k in node.keywords)]
        _store(fn, node, receiver, arguments, item=False)


def _result_dropped(func: Func, call: ast.Call) -> bool:
    """Whether ``call`` is a statement of its own, its result unused."""
    return any(statement.value is call for statement in func.of(ast.Expr))


def _local_of_the_trace(fn: TracedFunction, name: str) -> bool:
    """Whether the nonlocal ``name`` is a local of a traced function that this one runs
    in the trace of (a helper it defines and calls): made anew on every trace, what the
    helper assigns to it does not outlive the trace."""
    if name not in fn.func.declared_nonlocal:
        return False
    owner = _owner(fn.func.parent, name)
    return owner is not None and owner.parent is not None and _in_trace_of(fn.func, owner)


def _counted(fn: TracedFunction, name: str, value: ast.expr) -> bool:
    """Whether assigning ``value`` (not traced) to the global or nonlocal ``name`` keeps
    a trace counter or flag that only tests check: no JAX array, which would be a
    tracer."""
    facts = fn.module.memo(_Facts)
    return not builds_array(value, fn.names) and facts.checked_by_tests(fn.func, name)


def _store(
    fn: TracedFunction, target: ast.expr, base: ast.expr, values: list[ast.expr], *, item: bool
) -> None:
    """A store of ``values`` into ``base`` (``base.attr = v``, ``base[k] = v``,
    ``base.append(v)``)."""
    func = fn.func
    value_traced = any(fn.holds_tracer(v) for v in values)
    self_name = func.self_name
    if self_name is None:
        method = _method(func)
        self_name = method.self_name if method else None
    root = base
    while isinstance(root, (ast.Attribute, ast.Subscript)):
        root = root.value
    if not isinstance(root, ast.Name):
        return
    if self_name is not None and root.id == self_name:
        _self_store(fn, target, base, value_traced, values)
        return
    path = dotted(base)
    analysis = fn.module.analysis
    if analysis.holds_reference(root, func):
        return  # a mutable reference: the documented way to write state under jit
    if base is root and _changes_container(target, item) and _lost_change(func, root.id):
        fn.hit(target, "JP108", once=root.id, name=root.id)
        return
    if root.id in func.local or path is None:
        return
    scope = fn.outer(root.id)
    if scope is None:
        return
    is_container = path in fn.module.memo(_Facts).containers(scope)
    if (item or isinstance(target, ast.Call)) and not is_container:
        return
    if is_container and _in_trace_of(func, scope):
        return  # made anew on every trace that changes it: it does not outlive one
    name = path if item or isinstance(target, ast.Call) else dotted(target) or path
    if func.kinds & {"loop", "branch"}:
        # A loop body always runs staged: a JAX array made there is a tracer too. What
        # holds none (a shape, a string) is bookkeeping at trace time; but an update of an
        # item (u[0] += 1) counts steps, and the body runs once.
        if (
            value_traced
            or any(builds_array(v, fn.names) for v in values)
            or (item and _updates(target, values))
        ):
            fn.hit(target, "JP103", name=name)
    elif fn.cached:
        fn.hit(target, "JP102", name=name)
    elif value_traced:
        fn.hit(target, "JP104", name=name)


def _changes_container(target: ast.expr, item: bool) -> bool:
    """Whether a store changes a list or a dict: an item stored, or one of their own
    store methods (not ``update`` or ``add``, which optimizers and metrics have too)."""
    if isinstance(target, ast.Call):
        return isinstance(target.func, ast.Attribute) and target.func.attr in _CONTAINER_STORES
    return item


def _lost_change(func: Func, name: str) -> bool:
    """Whether a change in place to the parameter ``name`` of ``func`` is lost: a
    transformation applied to ``func`` itself passes rebuilt containers (pytrees are
    flattened and made again), and ``func`` neither returns the parameter nor binds the
    name to a copy, so nothing carries the change back."""
    if (
        not func.direct
        or func.root.startswith("flax.nnx")  # NNX's transformations carry such changes
        or name not in {*func.positional, *func.kwonly}
        or name in func.static
        or name == func.self_name
        or name in func.donated  # given up: the caller holds it no longer
        or (func.direct == {"grad"} and name not in func.differentiated)
    ):
        return False  # (jax.grad passes the arguments it does not differentiate as they are)
    for node in func.of(ast.Name):
        if node.id == name and not isinstance(node.ctx, ast.Load):
            return False  # bound again: a copy, or another value
    return not any(
        isinstance(n, ast.Name) and n.id == name
        for r in func.of(ast.Return)
        if r.value is not None
        for n in ast.walk(r.value)
    )


def _updates(target: ast.expr, values: list[ast.expr]) -> bool:
    """Whether ``values`` read what ``target`` sets (``self.n + 1``, ``u[0] + 1``): an
    update, which counts or accumulates."""
    if not isinstance(target, (ast.Attribute, ast.Subscript)):
        return False
    written = ast.dump(target, annotate_fields=False).replace("Store()", "Load()")
    return any(
        type(node) is type(target)
        and ast.dump(node, annotate_fields=False).replace("Store()", "Load()") == written
        for value in values
        for node in ast.walk(value)
    )


def _method(func: Func) -> Func | None:
    """The method ``func`` is, or is defined in."""
    scope: Func | None = func
    while scope is not None and scope.self_name is None:
        scope = scope.parent
    return scope


def _self_store(
    fn: TracedFunction,
    target: ast.expr,
    base: ast.expr,
    value_traced: bool,
    values: list[ast.expr] | None = None,
) -> None:
    """``self.x = v`` where ``v`` is a tracer, makes an array, or updates ``self.x``
    (``self.n = self.n + 1``, ``self.n += 1``); ``self.x[k] = v`` and
    ``self.x.append(v)`` when the class makes ``self.x`` a list, dict or set (else
    ``update`` may be an optimizer's). A static value set once per trace (a jitted
    function cached on ``self``, a tuple of axis names) is the same on every trace."""
    if not (fn.cached or value_traced) or fn.func.root.startswith("flax.nnx"):
        return
    if (
        values is not None
        and not value_traced
        and isinstance(target, ast.Attribute)
        and not any(builds_array(v, fn.names) for v in values)
        and not _updates(target, values)
    ):
        return
    attribute = target if isinstance(target, ast.Attribute) else base
    while isinstance(attribute, (ast.Attribute, ast.Subscript)) and not (
        isinstance(attribute, ast.Attribute) and isinstance(attribute.value, ast.Name)
    ):
        attribute = attribute.value
    if not isinstance(attribute, ast.Attribute):
        return
    method = _method(fn.func)
    if method is not None and _made_per_trace(fn, method):
        return
    if attribute is not target and (
        method is None
        or method.cls is None
        or attribute.attr not in fn.module.memo(_Facts).self_containers(method.cls)
    ):
        return
    fn.hit(target, "JP105", name=attribute.attr)


def _made_per_trace(fn: TracedFunction, method: Func) -> bool:
    """Whether the object a traced method sets attributes on is made anew on every trace:
    JAX reaches the method only through objects that traced code makes (``impl =
    Iteration(...); impl(x)``), or its class is one whose instances only a transformed
    function makes (a Haiku module). What it keeps then does not outlive the trace."""
    if method.self_inside and not method.self_outside:
        return True
    cls = method.cls
    return cls is not None and any(
        fn.names.qualified(base) in PER_TRACE_CLASSES for base in cls.bases
    )


# -- what the module says of its containers and counters, found once ------------------------


class _Facts:
    """What the module as a whole says of its containers, and of the names that its tests
    read, found when first needed."""

    def __init__(self, module: Module) -> None:
        self.analysis = module.analysis
        self.names = module.names
        self.module = module.func
        self.expected_errors = module.expected_errors
        self._containers: dict[int, set[str]] = {}
        self._checked_by_tests: dict[tuple[int, str], bool] = {}
        self._self_containers: dict[int, set[str]] = {}

    def containers(self, scope: Func) -> set[str]:
        """The names and attribute paths that ``scope`` binds to a list, dict or set."""
        key = id(scope)
        if key not in self._containers:
            found = set()
            assignments: list[ast.Assign | ast.AnnAssign] = [
                *scope.of(ast.Assign),
                *scope.of(ast.AnnAssign),
            ]
            for node in assignments:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target, value in _pairs(targets, node.value):
                    path = dotted(target)
                    if path is not None and is_container(value, self.names):
                        found.add(path)
            self._containers[key] = found
        return self._containers[key]

    def self_containers(self, cls: ast.ClassDef) -> set[str]:
        """The attributes that a class's methods set to a list, dict or set (``self.x = []``)."""
        key = id(cls)
        if key not in self._self_containers:
            found = set()
            for method in self.analysis.functions.methods(cls):
                for node in method.of(ast.Assign):
                    if is_container(node.value, self.names):
                        found |= {
                            t.attr
                            for t in node.targets
                            if isinstance(t, ast.Attribute)
                            and isinstance(t.value, ast.Name)
                            and t.value.id == method.self_name
                        }
            self._self_containers[key] = found
        return self._self_containers[key]

    def checked_by_tests(self, func: Func, name: str) -> bool:
        """Whether ``name``, which ``func`` assigns through ``global`` or ``nonlocal``, is
        read only where a test checks it: in ``assert`` statements, ``assert*()`` calls
        (``self.assertEqual(n, 1)``) and blocks that expect an error, at least once, and never
        in a traced function (updates such as ``n = n + 1`` aside). A trace counter, or a flag
        that the body ran, counts traces on purpose."""
        owner = self.module if name in func.declared_global else _owner(func.parent, name)
        key = (id(owner), name)
        if key not in self._checked_by_tests:
            checked, unchecked = 0, 0
            for scope, read in self._reads.get(key, []):
                if id(read) in self._updates:
                    continue
                if not scope.is_traced and (
                    id(read) in self._asserted or self.expected_errors.contain(read.lineno)
                ):
                    checked += 1
                else:
                    unchecked += 1
            self._checked_by_tests[key] = checked > 0 and not unchecked
        return self._checked_by_tests[key]

    @functools.cached_property
    def _declared(self) -> set[str]:
        """The names that some function assigns through ``global`` or ``nonlocal``."""
        return {n for f in self.analysis.funcs for n in f.declared_global | f.declared_nonlocal}

    @functools.cached_property
    def _reads(self) -> dict[tuple[int, str], list[tuple[Func, ast.Name]]]:
        """The reads of each declared name, by the scope that binds it (the module for a
        global) and the name, each with the function it is read in."""
        declared = self._declared
        reads: dict[tuple[int, str], list[tuple[Func, ast.Name]]] = {}
        for scope in self.analysis.funcs:
            for node in scope.of(ast.Name):
                if node.id in declared and isinstance(node.ctx, ast.Load):
                    owner = self.module if node.id in scope.declared_global else None
                    owner = owner or _owner(scope, node.id)
                    reads.setdefault((id(owner), node.id), []).append((scope, node))
        return reads

    @functools.cached_property
    def _asserted(self) -> set[int]:
        """The declared names read in an ``assert`` statement or an ``assert*()`` call."""
        declared, found, seen = self._declared, set(), set()
        for scope in self.analysis.funcs:
            checks: list[ast.AST] = [*scope.of(ast.Assert)]
            checks += [c for c in scope.of(ast.Call) if _is_assert_call(c)]
            for check in checks:
                stack = [check]
                while stack:
                    node = stack.pop()
                    if id(node) in seen:
                        continue
                    seen.add(id(node))
                    if isinstance(node, ast.Name) and node.id in declared:
                        found.add(id(node))
                    stack.extend(ast.iter_child_nodes(node))
        return found

    @functools.cached_property
    def _updates(self) -> set[int]:
        """The reads of a declared name in an assignment to it (``n = n + 1``)."""
        declared, found = self._declared, set()
        for scope in self.analysis.funcs:
            for node in scope.of(ast.Assign):
                targets = {t.id for t in node.targets if isinstance(t, ast.Name)} & declared
                if targets:
                    found |= {
                        id(n)
                        for n in ast.walk(node.value)
                        if isinstance(n, ast.Name) and n.id in targets
                    }
        return found


def _in_trace_of(func: Func, scope: Func) -> bool:
    """Whether ``func`` runs inside the trace of ``scope``, a traced function that it is
    defined in, with no transformation in between: ``func`` and each function between
    them is a helper that ``scope`` calls (or another such helper), or a lambda it hands
    on, never transformed itself. A container that ``scope`` makes (``env = {}``) is
    then made anew on every trace, and what ``func`` stores in it does not outlive it."""
    if not scope.is_traced:
        return False
    stack, seen = [func], set()
    while stack:
        current = stack.pop()
        if current is scope or id(current) in seen:
            continue
        seen.add(id(current))
        if current.direct or current.parent is None or not _defined_in(current, scope):
            return False
        stack.extend(current.callers or [current.parent])
    return True


def _defined_in(func: Func, scope: Func) -> bool:
    """Whether ``func`` is defined in ``scope``, or in a function defined there."""
    parent = func.parent
    while parent is not None and parent is not scope:
        parent = parent.parent
    return parent is scope


def _owner(scope: Func | None, name: str) -> Func | None:
    """The scope, from ``scope`` up, that binds ``name``; the module when none does."""
    found = scope
    while found is not None and found.parent is not None and name not in found.local:
        found = found.parent
    return found


def _is_assert_call(node: ast.Call) -> bool:
    """``self.assertEqual(...)``, ``np.testing.assert_allclose(...)``, ``assert_equal(...)``."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return isinstance(name, str) and name.startswith("assert")


def _is_array_annotation(node: ast.expr | None, names: Names) -> bool:
    return node is not None and (names.qualified(node) or "") in _ARRAY_ANNOTATIONS


def _pairs(targets: Sequence[ast.expr], value: ast.expr | None) -> list[tuple[ast.expr, ast.expr]]:
    """Each target with the value it gets: ``a, b = [], {}`` pairs ``a`` with ``[]``."""
    pairs = []
    for target in targets:
        if (
            isinstance(target, ast.Tuple)
            and isinstance(value, ast.Tuple)
            and len(target.elts) == len(value.elts)
        ):
            pairs += list(zip(target.elts, value.elts, strict=True))
        elif value is not None:
            pairs.append((target, value))
    return pairs
