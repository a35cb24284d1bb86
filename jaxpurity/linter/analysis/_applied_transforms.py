"""The JAX transformations a module applies: to which of its functions, with what options.

A function is transformed when it is decorated with a known transformation
(:data:`jaxpurity.linter.analysis._known_transforms.TRANSFORMS`: ``@jax.jit``,
``@functools.partial(jax.jit, static_argnums=0)``) or passed to one
(``jax.jit(f)``, ``jax.vmap(lambda x: ...)``, ``lax.scan(body, ...)``,
``jax.jit(self.method)``, ``jax.jit(functools.partial(f, lr=0.1))``, nested
as in ``jax.jit(jax.vmap(f))``). :meth:`AppliedTransforms.applications` finds
each such application, with the layers of transformations and
``functools.partial`` between the call and the function; :func:`seeds` says
which parameters one layer traces. :meth:`AppliedTransforms.jitted` reads a call
of a jitted function (``step(x)`` after ``step = jax.jit(f, ...)``): where its
arguments go, and which are static or donated. Each call and decorator is
read once.
"""

from __future__ import annotations

import ast
import bisect
import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from jaxpurity.linter.analysis._functions import Func, Functions
from jaxpurity.linter.analysis._known_transforms import NONDIFF, PARTIAL, STATIC_OPTIONS, Transform
from jaxpurity.linter.analysis._layers import Layer, Layers, Partial
from jaxpurity.linter.analysis._names import Names

__all__ = ["Jitted", "AppliedTransforms", "parameters", "seeds"]

# jax.jit and jax.pmap (and wrappers read as them): their static_argnums, donate_argnums.
_JIT_SEEDS = frozenset({"static", "pmap"})


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


class AppliedTransforms:
    """The transformations that a module applies to its functions.

    Args:
      functions: The module's :class:`~jaxpurity.linter.analysis._functions.Functions`.
      names: Its :class:`~jaxpurity.linter.analysis._names.Names`.
      known: The known transformations, by qualified name, with the project's own jit
        wrappers (:func:`jaxpurity.linter.analysis._known_transforms.with_jit_wrappers`).

    Example:
      >>> from jaxpurity.linter.analysis._known_transforms import TRANSFORMS
      >>> tree = ast.parse("import jax\\ndef f(x, n):\\n    return x\\ng = jax.jit(jax.vmap(f))")
      >>> names = Names(tree)
      >>> found = AppliedTransforms(Functions(tree, names), names, TRANSFORMS)
      >>> [(f.name, [layer.name for layer in layers]) for f, layers, _ in found.applications()]
      [('f', ['jax.jit', 'jax.vmap'])]
    """

    def __init__(self, functions: Functions, names: Names, known: dict[str, Transform]) -> None:
        self.functions = functions
        self.names = names
        self.known = known
        #: The functions not of this module that transformations are applied to (an
        #: imported one, ``jax.jit(utils.step)``), each with the layers and the scope.
        self.elsewhere: list[tuple[ast.expr, Layers, Func]] = []
        # The calls of a call's result in the scope being read (``jax.vmap(f)(x)``), by the
        # id of the inner call.
        self._called: dict[int, ast.Call] = {}

    def is_transform_call(self, node: ast.AST) -> bool:
        """Whether ``node`` is a call of a transformation (``jax.jit(f)``)."""
        return isinstance(node, ast.Call) and self.names.qualified(node.func) in self.known

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
                transform = self.known.get(name or "")
                if transform is not None:
                    stack.extend(_function_arguments(transform, node))
                elif name in PARTIAL and node.args:
                    stack.append(node.args[0])
                continue
            target = self.functions.resolve(node, scope, call.lineno)
            if target is not None:
                found.append(target[0])
        return found

    def jitted(self, call: ast.Call, scope: Func) -> Jitted | None:
        """What ``call`` calls, when it is a jitted function of this module; else None."""
        callee = call.func
        if isinstance(callee, (ast.Name, ast.Attribute)):
            named = callee.id if isinstance(callee, ast.Name) else callee.attr
            if named not in self._jit_names:
                return None  # no name the module jits: most calls
        where = scope
        if isinstance(callee, ast.Call) and self.is_transform_call(callee):
            made: ast.Call | None = callee
        elif isinstance(callee, (ast.Name, ast.Attribute)):
            made, where = self.binding(callee, scope, call.lineno)
            if made is None:
                target = self.functions.resolve(callee, scope, call.lineno)
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
        transform = self.known[name]
        if transform.seeds not in _JIT_SEEDS or not made.args:
            return None
        function, shift, bound = made.args[0], 0, set()
        if isinstance(function, ast.Call) and self.names.qualified(function.func) in PARTIAL:
            if not function.args:
                return None
            shift, bound = len(function.args) - 1, {k.arg for k in function.keywords}
            function = function.args[0]
        target = self.functions.resolve(function, where, made.lineno)
        if target is None:
            return None
        params = [p for p in target[0].positional[target[1] + shift :] if p not in bound]
        keywords = {k.arg: k.value for k in made.keywords if k.arg}
        return Jitted(target[0], Layer(name, transform, tuple(made.args), keywords), params)

    @functools.cached_property
    def _jit_names(self) -> frozenset[str]:
        """The names a jitted function of the module may be called by: those bound to a
        transformation call (``step = jax.jit(f)``), and those of the functions that a
        jit-like decorator transforms (read after :meth:`applications`)."""
        bound = {name for func in self.functions.funcs for name in func.bound}
        decorated = {
            func.name
            for func in self.functions.funcs
            if any(layer.transform.seeds in _JIT_SEEDS for layer in func.layers)
        }
        return frozenset(bound | decorated)

    def binding(self, node: ast.expr, scope: Func, line: int) -> tuple[ast.Call | None, Func]:
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

    def applications(self) -> Iterator[tuple[Func, Layers, int]]:
        """Each transformation applied to a function of the module, scope by scope in source
        order: the function, the layers applied to it, and how many of its leading
        parameters are already bound (1 for a bound method). Records, as it goes, each
        function's decorators (``Func.layers``) and the transformation calls assigned to
        names (``Func.bound``)."""
        consumed: set[int] = set()  # transformation calls read as a layer of an outer one
        for scope in list(self.functions.funcs):
            self._called = {
                id(call.func): call
                for call in scope.of(ast.Call)
                if isinstance(call.func, ast.Call)
            }
            defs: list[ast.FunctionDef | ast.AsyncFunctionDef] = [
                *scope.of(ast.FunctionDef),
                *scope.of(ast.AsyncFunctionDef),
            ]
            for node in defs:
                layers = [self._decorator(d) for d in node.decorator_list]
                applied = tuple(layer for layer in layers if layer is not None)
                func = self.functions.func_of(node)
                func.static = self._static(node, func, applied)
                func.donated = {
                    name
                    for layer in applied
                    for name in parameters(
                        layer, func.positional, "donate_argnums", "donate_argnames"
                    )
                    or ()
                }
                if applied:
                    func.layers = applied
                    yield func, applied, 0
            for call in scope.of(ast.Call):
                if self.is_transform_call(call) and id(call) not in consumed:
                    yield from self._apply(call, (), scope, call.lineno, consumed)
            for assign in scope.of(ast.Assign):
                target = assign.targets[0]
                if (
                    len(assign.targets) == 1
                    and isinstance(target, ast.Name)
                    and isinstance(assign.value, ast.Call)
                    and self.is_transform_call(assign.value)
                ):
                    scope.bound.setdefault(target.id, []).append((assign.lineno, assign.value))

    def _static(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, func: Func, layers: tuple[Layer, ...]
    ) -> set[str]:
        """The parameters that ``node``'s decorators keep out of the trace (see
        :attr:`Func.static`), as far as their options are written out."""
        static: set[str] = set()
        for layer in layers:
            options = STATIC_OPTIONS.get(layer.transform.seeds)
            if options is not None:
                static |= parameters(layer, func.positional, *options) or set()
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            if call is None:
                continue
            name = self.names.qualified(call.func)
            if name in PARTIAL and call.args:
                name = self.names.qualified(call.args[0])
            if name in NONDIFF:
                keywords = {k.arg: k.value for k in call.keywords if k.arg}
                layer = Layer(name, Transform("nondiff"), (), keywords)
                static |= parameters(layer, func.positional, *NONDIFF[name]) or set()
        return static

    def _decorator(self, decorator: ast.expr) -> Layer | None:
        """The transformation a decorator applies: ``@jax.jit``, ``@jax.jit(...)`` (where
        JAX takes options first), ``@functools.partial(jax.jit, ...)``; else None."""
        call = decorator if isinstance(decorator, ast.Call) else None
        name = self.names.qualified(call.func if call else decorator)
        if call is not None and name in PARTIAL and call.args:
            name = self.names.qualified(call.args[0])
        elif call is not None and call.args:
            return None  # jax.jit(f) as a decorator would jit the result of f
        transform = self.known.get(name or "")
        if transform is None or name is None:
            return None
        keywords = {k.arg: k.value for k in (call.keywords if call else []) if k.arg}
        return Layer(name, transform, (), keywords)

    def _apply(
        self, node: ast.expr, layers: Layers, scope: Func, line: int, consumed: set[int]
    ) -> Iterator[tuple[Func, Layers, int]]:
        if isinstance(node, ast.Call):
            name = self.names.qualified(node.func)
            transform = self.known.get(name or "")
            if transform is not None and name is not None:
                consumed.add(id(node))
                keywords = {k.arg: k.value for k in node.keywords if k.arg}
                given_none = _given_none_at(self._called.get(id(node))) if not layers else set()
                layer = Layer(name, transform, tuple(node.args), keywords, frozenset(given_none))
                for function in _function_arguments(transform, node):
                    yield from self._apply(function, (*layers, layer), scope, line, consumed)
            elif name in PARTIAL and node.args and layers:
                bound = frozenset(k.arg for k in node.keywords if k.arg)
                partial = Partial(len(node.args) - 1, bound)
                yield from self._apply(node.args[0], (*layers, partial), scope, line, consumed)
            return
        target = self.functions.resolve(node, scope, line)
        if target is not None and layers:
            yield target[0], layers, target[1]
        elif target is None and layers:
            made = self._partial_named(node, scope, line)
            if made is not None and id(made) not in consumed:
                consumed.add(id(made))  # (once: `f = partial(f, ...)` names itself)
                yield from self._apply(made, layers, scope, made.lineno, consumed)
            else:
                self.elsewhere.append((node, layers, scope))

    def _partial_named(self, node: ast.expr, scope: Func, line: int) -> ast.Call | None:
        """The ``functools.partial`` call that the name ``node`` was last given before
        ``line`` (``body = partial(self.step, x=x)``), in the scope that binds it."""
        if not isinstance(node, ast.Name):
            return None
        owner: Func | None = scope
        while owner is not None and node.id not in owner.local:
            owner = owner.parent
        if owner is None:
            return None
        found: ast.Call | None = None
        for assign in owner.of(ast.Assign):
            if (
                assign.lineno <= line
                and len(assign.targets) == 1
                and isinstance(assign.targets[0], ast.Name)
                and assign.targets[0].id == node.id
            ):
                value = assign.value
                found = None
                if (
                    isinstance(value, ast.Call)
                    and self.names.qualified(value.func) in PARTIAL
                    and value.args
                ):
                    found = value
        return found


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


def _given_none_at(call: ast.Call | None) -> set[int]:
    """The positions at which ``call`` passes a literal ``None``, before any ``*args``."""
    found: set[int] = set()
    for index, argument in enumerate(call.args if call is not None else []):
        if isinstance(argument, ast.Starred):
            break
        if isinstance(argument, ast.Constant) and argument.value is None:
            found.add(index)
    return found


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


def _given_none(entries: ast.Tuple | ast.List, parameters: list[str]) -> set[str]:
    """The parameters whose entry in a per-argument option (``in_axes``, ``in_specs``) is
    ``None``: a vmap passes them whole, a shard_map as Python values."""
    return {
        parameters[i]
        for i, entry in enumerate(entries.elts)
        if i < len(parameters) and isinstance(entry, ast.Constant) and entry.value is None
    }


def seeds(layer: Layer, func: Func, shift: int, bound: set[str]) -> tuple[set[str], set[str]]:
    """The parameters of ``func`` that ``layer`` traces, and those a vmap passes whole."""
    visible = [p for p in func.positional[shift:] if p not in bound]
    everything = (set(visible) | set(func.kwonly) | {func.vararg or ""}) - bound - {""}
    which = layer.transform.seeds
    if which == "all":
        return everything, set()
    if which in ("static", "pmap"):
        numbers = "static_argnums" if which == "static" else "static_broadcasted_argnums"
        static = parameters(layer, visible, numbers, "static_argnames")
        if static is None:
            return set(), set()  # computed statics: which are static is unknown
        return everything - static, set()
    if which == "in_axes":
        axes = layer.option("in_axes", 1)
        if isinstance(axes, (ast.Tuple, ast.List)):
            whole = _given_none(axes, visible)
            return everything - whole, whole
        if isinstance(axes, ast.Constant) and axes.value is None:
            return set(), set(visible)
        return everything, set()
    if which == "in_specs":
        specs = layer.option("in_specs", 2)
        if isinstance(specs, (ast.Tuple, ast.List)):
            return everything - _given_none(specs, visible), set()
        return everything, set()
    if which == "argnums":
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
