"""What a call from traced code passes: its arguments, and the parameters they reach.

The analysis of a module (:class:`~jaxpurity.linter.analysis._module.ModuleAnalysis`)
follows traced code into the functions it calls, in the module and in the other modules
of the package (:mod:`jaxpurity.linter.analysis._crossings`). :func:`arguments` reads what
a call passes as the caller's taint sees it (which arguments hold tracers, which surely
arrays: an :class:`~jaxpurity.linter.analysis._package.Arguments`, a small value that can
cross to another module), and :func:`reached` which parameters of the callee that gives
tracers. :func:`made_in_trace` says whether the object whose method is called was made
by traced code (so that it lives for one trace), and :func:`parameters_given` pairs each
argument of a call with the parameter of the module's function it is passed to.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from jaxpurity.linter.analysis._applied_transforms import AppliedTransforms
from jaxpurity.linter.analysis._functions import Func, Functions
from jaxpurity.linter.analysis._package import Arguments
from jaxpurity.linter.analysis._taint import Taint

__all__ = ["arguments", "made_in_trace", "parameters_given", "reached"]

# The literals of containers, which pass a pytree to a function, never one array.
_CONTAINERS = (
    ast.Tuple,
    ast.List,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.DictComp,
    ast.SetComp,
    ast.GeneratorExp,
)


def arguments(call: ast.Call, taint: Taint, shift: int, params: Iterable[str] = ()) -> Arguments:
    """What ``call`` passes, as the caller's taint sees it; ``params``: the caller's
    traced parameters (one of them not known for an array is passed on as such)."""
    own = set(params)

    def flavor(node: ast.expr) -> str | None:
        """An array, unless it may be a Python value or a pytree: a name also assigned one
        (``size = None``), a parameter not known for an array, a tuple, list or dict of
        tracers, or a field of a pytree not surely an array, unless its class is of this
        module and says which fields are static (one of another module may declare it so:
        ``sys.matrix_inv_iterations``)."""
        if not taint.holds_tracer(node):
            return None
        if taint.may_be_python(node):
            return "traced"
        if isinstance(node, ast.Name) and not taint.is_array(node):
            if node.id in own or taint.is_item(node):
                return "traced"
        if isinstance(node, _CONTAINERS):
            return "traced"  # a tuple, list or dict of tracers: a pytree, no array
        if isinstance(node, ast.Attribute) and not taint.is_array(node):
            base = node.value
            if not (isinstance(base, ast.Name) and base.id in taint.static_fields):
                return "traced"
        return "array"

    positional: list[str | None] = []
    starred = None
    for argument in call.args:
        if isinstance(argument, ast.Starred):
            # The items of a traced tuple: static ones may be among them.
            starred = "traced" if taint.holds_tracer(argument.value) else None
            break
        positional.append(flavor(argument))
    keywords = []
    double_star = None
    for keyword in call.keywords:
        given = flavor(keyword.value)
        if keyword.arg is None:
            double_star = double_star or given
        elif given is not None:
            keywords.append((keyword.arg, given))
    return Arguments(tuple(positional), starred, tuple(keywords), double_star, shift)


def reached(callee: Func, given: Arguments) -> tuple[set[str], set[str]]:
    """The parameters of ``callee`` that a call gives tracers, and those of them that get
    arrays; never its static parameters nor ``self``."""
    params = callee.positional
    traced: set[str] = set()
    arrays: set[str] = set()

    def reach(names: set[str], flavor: str) -> None:
        traced.update(names)
        if flavor == "array":
            arrays.update(names)

    for index, flavor in enumerate(given.positional, start=given.shift):
        name = params[index] if index < len(params) else callee.vararg
        if name and flavor:
            reach({name}, flavor)
    if given.starred:
        start = given.shift + len(given.positional)
        reach(set(params[start:]) | ({callee.vararg} if callee.vararg else set()), given.starred)
    for name, flavor in given.keywords:
        if name in params or name in callee.kwonly:
            reach({name}, flavor)
    if given.double_star:
        reach(set(params) | set(callee.kwonly), given.double_star)
    excluded = callee.static | {callee.self_name or ""}
    return traced - excluded, arrays - excluded


def made_in_trace(node: ast.expr, caller: Func, functions: Functions) -> bool:
    """Whether the object whose method ``node`` calls from traced code was made by traced
    code: ``Iteration()(x)``; ``impl(x)`` or ``impl.step(x)`` with ``impl`` bound in a
    traced function; ``self.step(x)`` in a method whose ``self`` is such an object."""
    if isinstance(node, ast.Call):
        return True
    head = node.value if isinstance(node, ast.Attribute) else node
    if not isinstance(head, ast.Name):
        return False
    scope: Func | None = caller
    while scope is not None:
        if scope.self_name == head.id:
            return scope.self_inside and not scope.self_outside
        if head.id in scope.local:
            # made there by a class's call: not a parameter, which the caller gives
            given = head.id in {*scope.positional, *scope.kwonly, scope.vararg}
            made = functions.instance_of(head, scope) is not None
            return scope.is_traced and made and not given
        scope = scope.parent
    return False


def parameters_given(
    call: ast.Call, scope: Func, applied: AppliedTransforms
) -> list[tuple[Func, tuple[ast.expr, str]]]:
    """Each argument of ``call`` with the parameter of the module's function it is passed
    to (a jitted function, or any other)."""
    jitted = applied.jitted(call, scope)
    if jitted is not None:
        return [(jitted.func, pair) for pair in jitted.arguments(call)]
    target = applied.functions.resolve(call.func, scope, call.lineno)
    if target is None:
        return []
    callee, shift = target
    params = callee.positional[shift:]
    pairs = [
        (argument, params[i])
        for i, argument in enumerate(call.args)
        if i < len(params) and not isinstance(argument, ast.Starred)
    ]
    pairs += [(k.value, k.arg) for k in call.keywords if k.arg]
    return [(callee, pair) for pair in pairs]
