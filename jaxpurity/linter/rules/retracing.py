"""Retracing: a new function jitted where it runs again, traced and compiled again each time.

``jax.jit`` caches its compiled code on the function object: a lambda, a
``functools.partial`` or a function defined in a loop is a new object on every
iteration, so each iteration traces and compiles again (JP301). Looked for in
any code, traced or not. A method that defines a function, jits it and calls it
once does the same on every call of its own (JP305): the compiled code is thrown
away with the new function.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jaxpurity.linter._family import Family, Rule
from jaxpurity.linter.analysis._known_transforms import PARTIAL
from jaxpurity.linter.analysis._names import dotted
from jaxpurity.linter.analysis._syntax import (
    Blocks,
    blocks,
    names_in,
    parameter_names,
    walk_here,
)

if TYPE_CHECKING:
    from jaxpurity.linter._context import ScopeContext
    from jaxpurity.linter.analysis._functions import Func

__all__ = ["FAMILY"]

FAMILY = Family(
    Rule(
        "JP301",
        "jit-in-loop",
        "jax.jit of a new function inside a loop",
        "{transform} of a new {what} inside a loop: every iteration traces and compiles "
        "again; make the function once, before the loop",
        "retracing_storms",
        "It sees a lambda, a functools.partial or a function defined in the loop, wrapped in "
        "the loop; a new function made by a factory call, or a static argument that changes "
        "on every call, is not seen. It reports only where the rounds could share one "
        "compiled function: not a jit whose options read the loop's variable "
        "(`out_shardings=shardings[group]`), nor one of a function that reads a new "
        "function or model of each round (a lambda, def, partial, transformation or "
        "`Model(...)` bound in the loop, or taken from a list of them), nor one given "
        "arrays of a new shape each round (`jnp.ones(n)`), nor one in a loop that reads a "
        "clock (it times the compilation on purpose).",
    ),
    Rule(
        "JP305",
        "jit-per-call",
        "jax.jit of a new function, called once in the method that makes it",
        "{transform} of a {what} that the method `{function}` makes on every call and calls "
        "once: each call of `{function}` traces and compiles again, and throws the compiled "
        "code away; jit a function defined once, at module level, passing what it closed "
        "over as arguments (static_argnames for those that are no arrays)",
        "retracing_storms",
        "It sees a lambda, a functools.partial or a function defined in a method that is "
        "not traced, jitted there (called, decorated or bound to a name) and called once, "
        "outside any loop of it; not one the method returns or keeps (on `self`, in a "
        "global, in a container, or passed on), nor one called in a loop (compiled once "
        "for many calls), nor one in a test. A plain function that does the same is not "
        "reported, though it may be called again and again: most run once, to set up.",
    ),
)

# The kinds of transformation that compile and cache (see analysis/_known_transforms.py).
_JIT_KINDS = frozenset({"jit", "pmap"})
# The clocks a loop reads to time its rounds.
_CLOCKS = frozenset(
    {
        "time.time",
        "time.perf_counter",
        "time.monotonic",
        "time.process_time",
        "time.time_ns",
        "time.perf_counter_ns",
        "timeit.default_timer",
        "timeit.timeit",
        "timeit.repeat",
    }
)
# The array constructors whose first argument is the shape.
_MAKERS = frozenset("zeros ones empty full eye identity arange linspace".split())


@FAMILY.on_scope
def _jit_in_loops(scope: ScopeContext) -> None:
    func = scope.func
    loops: list[ast.For | ast.AsyncFor | ast.While] = [
        *func.of(ast.For),
        *func.of(ast.AsyncFor),
        *func.of(ast.While),
    ]
    if loops:
        bodies = blocks(loops)
        for call in func.of(ast.Call):
            _jit_in_loop(scope, call, loops, bodies)


def _jit_in_loop(
    scope: ScopeContext,
    node: ast.Call,
    loops: list[ast.For | ast.AsyncFor | ast.While],
    bodies: Blocks,
) -> None:
    known = scope.module.analysis.applied.known
    transform = known.get(scope.names.qualified(node.func) or "")
    if transform is None or transform.kind not in _JIT_KINDS or not node.args:
        return
    if not bodies.contain(node.lineno):
        return
    function = node.args[0]
    what = None
    reads: set[str] = set()
    if isinstance(function, ast.Lambda):
        what = "lambda"
        reads = _reads(function.body) - parameter_names(function)
    elif isinstance(function, ast.Call) and scope.names.qualified(function.func) in PARTIAL:
        what = "functools.partial"
        reads = _reads(function)
    elif isinstance(function, ast.Name):
        target = scope.resolve(function, node.lineno)
        if target is not None and bodies.share(target[0].line, node.lineno):
            what = "function defined in the loop"
            reads = target[0].free_reads()
    loop = _innermost(loops, node.lineno)
    if what is not None and loop is not None and not _per_round(scope, node, loop, reads):
        scope.hit(node, "JP301", transform=dotted(node.func), what=what)


@FAMILY.on_scope
def _jit_per_call(scope: ScopeContext) -> None:
    func = scope.func
    if func.cls is None or func.is_traced or func.name.startswith(("test", "setUp")):
        return  # a method is called again and again (``step``, ``update``); a test, once
    loops = blocks([*func.of(ast.For), *func.of(ast.AsyncFor), *func.of(ast.While)])
    known = scope.module.analysis.applied.known
    uses = _name_uses(func)
    for call in func.of(ast.Call):
        transform = known.get(scope.names.qualified(call.func) or "")
        if transform is None or transform.kind not in _JIT_KINDS or not call.args:
            continue
        what = _made_here(scope, call.args[0], call.lineno)
        if what is None or loops.contain(call.lineno):
            continue
        bound = _bound_name(func, call)
        if bound is None:
            once = _called_at_once(func, call)
        else:
            once = _called_once_only(func, uses.get(bound, []), loops)
        if once:
            scope.hit(call, "JP305", transform=dotted(call.func), what=what, function=func.name)
    for child in func.children:
        layer = next((x for x in child.layers if getattr(x, "transform", None)), None)
        if layer is None or layer.transform.kind not in _JIT_KINDS:
            continue
        if isinstance(child.node, ast.Lambda) or loops.contain(child.line):
            continue
        if _called_once_only(func, uses.get(child.name, []), loops):
            decorators = getattr(child.node, "decorator_list", [])
            scope.hit(
                decorators[0] if decorators else child.node,
                "JP305",
                transform=layer.name,
                what="function defined in it",
                function=func.name,
            )


def _made_here(scope: ScopeContext, function: ast.expr, line: int) -> str | None:
    """What the jitted ``function`` is, where the scope makes it anew on every call: a
    lambda, a ``functools.partial``, or a function the scope defines; else None."""
    if isinstance(function, ast.Lambda):
        return "lambda"
    if isinstance(function, ast.Call) and scope.names.qualified(function.func) in PARTIAL:
        return "functools.partial"
    if isinstance(function, ast.Name):
        target = scope.resolve(function, line)
        if target is not None and target[0].parent is scope.func:
            return "function defined in it"
    return None


def _name_uses(func: Func) -> dict[str, list[ast.Name]]:
    """Where ``func``'s own code reads each name (not the functions inside it)."""
    uses: dict[str, list[ast.Name]] = {}
    for node in func.of(ast.Name):
        if isinstance(node.ctx, ast.Load):
            uses.setdefault(node.id, []).append(node)
    return uses


def _bound_name(func: Func, call: ast.Call) -> str | None:
    """The one name that ``func`` binds the jit's result to (``step = jax.jit(f)``)."""
    for node in func.of(ast.Assign):
        if node.value is call and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            return node.targets[0].id
    return None


def _called_at_once(func: Func, call: ast.Call) -> bool:
    """Whether the jit's result is called where it is made: ``jax.jit(f)(x)``."""
    return any(inner.func is call for inner in func.of(ast.Call))


def _called_once_only(func: Func, uses: list[ast.Name], loops: Blocks) -> bool:
    """Whether a name is read once, to be called, outside any loop: no other use keeps it
    (returned, stored, passed on)."""
    if len(uses) != 1 or loops.contain(uses[0].lineno):
        return False
    return any(call.func is uses[0] for call in func.of(ast.Call))


def _innermost(
    loops: list[ast.For | ast.AsyncFor | ast.While], line: int
) -> ast.For | ast.AsyncFor | ast.While | None:
    """The innermost of ``loops`` whose body holds ``line``."""
    around = [
        loop
        for loop in loops
        if loop.body[0].lineno <= line <= (loop.body[-1].end_lineno or loop.body[-1].lineno)
    ]
    return max(around, key=lambda loop: loop.lineno, default=None)


def _per_round(
    scope: ScopeContext,
    node: ast.Call,
    loop: ast.For | ast.AsyncFor | ast.While,
    reads: set[str],
) -> bool:
    """Whether the loop's rounds could not share one compiled function, so that making it
    once before the loop would save nothing: each round gives the jit other options
    (``out_shardings=shardings[group]``), a new function or model to compile (one the
    function reads, bound in the loop to a lambda, a ``def``, a ``functools.partial``, a
    transformation or an object made by a class, or taken from a list of them), or
    arguments of a new shape (``jnp.ones(n)``); or the loop times its rounds, to measure
    the compilation on purpose."""
    bound = _bound_in(loop)
    options = [*node.args[1:], *(k.value for k in node.keywords)]
    if bound and set().union(*map(_reads, options)) & bound:
        return True
    if reads & _new_each_round(scope, loop):
        return True
    arguments = _arguments_in_loop(scope, node, loop)
    if any(_new_shape(scope, argument, bound, loop) for argument in arguments):
        return True
    return any(
        scope.names.qualified(call.func) in _CLOCKS
        for statement in loop.body
        for call in walk_here(statement)
        if isinstance(call, ast.Call)
    )


def _reads(node: ast.AST) -> set[str]:
    """The names read in ``node``."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _bound_in(loop: ast.For | ast.AsyncFor | ast.While) -> set[str]:
    """The names the loop binds anew in each round: its target, and those its body assigns
    or defines (not inside functions it defines)."""
    found = set(names_in(loop.target)) if isinstance(loop, (ast.For, ast.AsyncFor)) else set()
    for statement in loop.body:
        for node in walk_here(statement):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                found.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.add(node.name)
    return found


def _new_each_round(scope: ScopeContext, loop: ast.For | ast.AsyncFor | ast.While) -> set[str]:
    """The names the loop binds to a new function or model in each round."""
    found: set[str] = set()
    if isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.iter, (ast.List, ast.Tuple)):
        items = loop.iter.elts
        if items and all(isinstance(item, (ast.Name, ast.Attribute, ast.Lambda)) for item in items):
            found |= set(names_in(loop.target))  # for f in (relu, gelu): functions or models
    for statement in loop.body:
        for node in walk_here(statement):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.add(node.name)
            elif isinstance(node, ast.Assign) and _makes_function_or_model(scope, node.value):
                found |= {name for target in node.targets for name in names_in(target)}
    return found


def _makes_function_or_model(scope: ScopeContext, value: ast.expr) -> bool:
    """A lambda, a ``functools.partial``, a transformation, or an object made by a class
    (a capitalised callee: ``Model(config)``, ``nn.Dense(4)``)."""
    if isinstance(value, ast.Lambda):
        return True
    if not isinstance(value, ast.Call):
        return False
    name = scope.names.qualified(value.func) or ""
    if name in PARTIAL or name in scope.module.analysis.applied.known:
        return True
    last = name.rpartition(".")[2]
    return last[:1].isupper() and not last.isupper()


def _arguments_in_loop(
    scope: ScopeContext, node: ast.Call, loop: ast.For | ast.AsyncFor | ast.While
) -> list[ast.expr]:
    """What the jitted function is given in the loop: the arguments of the call of the jit
    (``jax.jit(f)(x)``), or of the calls of the name it is bound to (``g = jax.jit(f)``,
    then ``g(x)``)."""
    given: list[ast.expr] = []
    called = None
    for statement in loop.body:
        for inner in walk_here(statement):
            if isinstance(inner, ast.Assign) and inner.value is node:
                called = {name for target in inner.targets for name in names_in(target)}
    for statement in loop.body:
        for inner in walk_here(statement):
            if isinstance(inner, ast.Call) and (
                inner.func is node
                or (isinstance(inner.func, ast.Name) and inner.func.id in (called or ()))
            ):
                given += [*inner.args, *(k.value for k in inner.keywords)]
    return given


def _new_shape(
    scope: ScopeContext,
    argument: ast.expr,
    bound: set[str],
    loop: ast.For | ast.AsyncFor | ast.While,
) -> bool:
    """Whether ``argument`` gets a new shape in each round: an array made with a shape that
    reads a name the loop binds (``jnp.ones(n)``, ``np.random.randn(n, d)``), or a name the
    loop assigns such an array."""
    values = [argument]
    if isinstance(argument, ast.Name):
        values += [
            inner.value
            for statement in loop.body
            for inner in walk_here(statement)
            if isinstance(inner, ast.Assign)
            and any(argument.id in names_in(t) for t in inner.targets)
        ]
    for value in values:
        for call in ast.walk(value):
            if isinstance(call, ast.Call):
                shape = _shape_arguments(scope.names.qualified(call.func) or "", call)
                if any(_reads(part) & bound for part in shape):
                    return True
    return False


def _shape_arguments(name: str, call: ast.Call) -> list[ast.expr]:
    """The arguments of an array constructor that give its shape: all positional ones of
    jnp.zeros, ones, empty, full, eye, arange and of NumPy's randn and rand, the second of
    a jax.random sampler, and ``shape=`` or ``size=``."""
    shaped = [k.value for k in call.keywords if k.arg in ("shape", "size")]
    module, _, function = name.rpartition(".")
    if module in ("jax.numpy", "numpy") and function in _MAKERS:
        return shaped + call.args[:1]
    if module == "numpy.random" and function in ("randn", "rand"):
        return shaped + list(call.args)
    if module == "jax.random":
        return shaped + call.args[1:2]
    return shaped
