"""How traced code crosses between one module and the other modules of the package.

Out of the module: traced code calls an imported function (``utils.helper(x)``) or a
method of an instance of an imported class (``stimuli.set_currents(x)``), and the module
applies transformations to imported functions (``jax.jit(utils.step)``).
:class:`Crossings` writes each as an :class:`~jaxpurity.linter.analysis._package.Entry`
of the function reached (:meth:`Crossings.call`, :meth:`Crossings.transformed`; the
layers of transformations as source text). Into the module: the function that an entry
of another module names (:meth:`Crossings.function`), and the layers it was given, read
back (:meth:`Crossings.layers`). The analysis of the module
(:class:`~jaxpurity.linter.analysis._module.ModuleAnalysis`) traces what enters, and
:mod:`jaxpurity.linter._lint` carries the entries between modules.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from jaxpurity.linter.analysis._applied_transforms import AppliedTransforms
from jaxpurity.linter.analysis._calls import arguments, made_in_trace
from jaxpurity.linter.analysis._functions import Func
from jaxpurity.linter.analysis._known_transforms import Transform
from jaxpurity.linter.analysis._layers import Layer, Layers, Partial
from jaxpurity.linter.analysis._names import Names
from jaxpurity.linter.analysis._package import Entry, LayerText, Package, Target
from jaxpurity.linter.analysis._taint import Taint

__all__ = ["Crossings"]


class Crossings:
    """The crossings of one module's traced code into the other modules of the package,
    and theirs into it.

    Args:
      names: The module's :class:`~jaxpurity.linter.analysis._names.Names`.
      applied: The transformations it applies
        (:class:`~jaxpurity.linter.analysis._applied_transforms.AppliedTransforms`), with
        its functions and the known transformations.
      package: The package being linted; None for a module linted alone, which crosses
        nowhere.
      file: The module's path, as the package knows it.
    """

    def __init__(
        self, names: Names, applied: AppliedTransforms, package: Package | None, file: str
    ) -> None:
        self.names = names
        self.applied = applied
        self.functions = applied.functions
        self.package = package
        self.file = file

    def call(self, caller: Func, call: ast.Call, taint: Taint) -> Entry | None:
        """The entry of a call from traced code to a function of another module of the
        package: an imported function (``utils.helper(x)``) or a method of an instance of an
        imported class (``stimuli.set_currents(x)``); None for any other call."""
        found = self.target(call.func, caller)
        if found is None:
            return None
        target, shift = found
        given = arguments(call, taint, shift, caller.traced_params)
        if shift:
            given = replace(given, made_here=made_in_trace(call.func, caller, self.functions))
        return Entry(
            target,
            frozenset(caller.kinds),
            caller.root,
            self._dotted(caller),
            caller.depth + 1,
            call=given,
        )

    def transformed(self) -> list[Entry]:
        """The entries of the transformations this module applies to functions of other
        modules."""
        entries = []
        for node, layers, scope in self.applied.elsewhere:
            found = self.target(node, scope)
            if found is not None:
                target, shift = found
                texts = tuple(_layer_text(layer) for layer in layers)
                entries.append(Entry(target, frozenset(), "", "", 0, layers=texts, shift=shift))
        return entries

    def target(self, node: ast.expr, scope: Func) -> tuple[Target, int] | None:
        """The function of another module of the package that ``node`` names, and how many
        of its leading parameters are bound."""
        if self.package is None:
            return None
        if isinstance(node, ast.Call):  # Decoder()(z): an instance's __call__
            made: ast.ClassDef | str | None = None
            if isinstance(node.func, (ast.Name, ast.Attribute)):
                made = self._imported_class(node.func, scope)
            target = self.package.target(f"{made}.__call__") if made else None
            return (target, 1) if target is not None else None
        head = node
        while isinstance(head, ast.Attribute):
            head = head.value
        if not isinstance(head, ast.Name):
            return None
        if head.id in self.names.imported and head.id not in scope.local:
            target = self.package.target(self.names.qualified(node) or "")
            return (target, 0) if target is not None else None
        if isinstance(node, ast.Attribute) and node.value is head:
            made = self.functions.instance_of(head, scope)
            if isinstance(made, str):
                target = self.package.target(f"{made}.{node.attr}")
                return (target, 1) if target is not None else None
        if isinstance(node, ast.Name):
            made = self.functions.instance_of(node, scope)
            if isinstance(made, str):
                target = self.package.target(f"{made}.__call__")
                return (target, 1) if target is not None else None
        return None

    def _imported_class(self, node: ast.Name | ast.Attribute, scope: Func) -> str | None:
        """The qualified name of an imported class that ``node`` names (capitalised, as
        classes are named); None for anything else."""
        head: ast.expr = node
        while isinstance(head, ast.Attribute):
            head = head.value
        if not isinstance(head, ast.Name) or head.id not in self.names.imported:
            return None
        if head.id in scope.local:
            return None
        qualified = self.names.qualified(node) or ""
        return qualified if qualified.rpartition(".")[2][:1].isupper() else None

    def _dotted(self, func: Func) -> str:
        """A function's name as another module reads it: ``train.step``."""
        module = self.package.module_of(self.file) if self.package else None
        return f"{module.rpartition('.')[2]}.{func.name}" if module else func.name

    def function(self, path: str) -> Func | None:
        """The function of this module at ``"helper"`` or ``"Class.method"``, or at
        ``"@12:name"``: the function named ``name`` whose ``def`` (or first decorator, or
        ``lambda``) is on line 12, nested ones too, as a running function knows its own."""
        if path.startswith("@"):
            line, _, name = path[1:].partition(":")
            return next((f for f in self.functions.funcs if _defined_at(f, int(line), name)), None)
        head, _, method = path.partition(".")
        top_level = self.functions.top_level
        if not method:
            candidates = top_level.defs.get(head)
            return candidates[-1] if candidates else None
        cls = top_level.classes.get(head)
        return self.functions.method(cls, method) if cls is not None else None

    def layers(self, entry: Entry) -> Layers | None:
        """The transformations and partials an entry applies, read back from their source
        text; None when one is a transformation not known here, or none is one."""
        layers = tuple(_layer(text, self.applied.known) for text in entry.layers)
        known = [layer for layer in layers if layer is not None]
        if len(known) == len(layers) and any(isinstance(layer, Layer) for layer in known):
            return tuple(known)
        return None


def _layer_text(layer: Layer | Partial) -> LayerText:
    """A layer as source text, to send to another module."""
    if isinstance(layer, Partial):
        keywords = tuple((name, "None") for name in sorted(layer.names))
        return LayerText("functools.partial", ("None",) * layer.count, keywords, partial=True)
    return LayerText(
        layer.name,
        tuple(ast.unparse(a) for a in layer.args),
        tuple((k, ast.unparse(v)) for k, v in layer.keywords.items()),
    )


def _defined_at(func: Func, line: int, name: str) -> bool:
    """Whether ``func`` is named ``name`` and starts on ``line``: at its ``def`` or its first
    decorator (where Python's ``co_firstlineno`` says a function starts)."""
    node = func.node
    own = getattr(node, "name", "<lambda>" if isinstance(node, ast.Lambda) else None)
    decorators = [d.lineno for d in getattr(node, "decorator_list", [])]
    return own == name and line in (func.line, *decorators[:1])


def _layer(text: LayerText, known: dict[str, Transform]) -> Layer | Partial | None:
    """A layer read back from its source text; None for a transformation not known here."""
    if text.partial:
        return Partial(len(text.args), frozenset(k for k, _ in text.keywords))
    transform = known.get(text.name)
    if transform is None:
        return None
    parse = _expression
    keywords = {k: parse(v) for k, v in text.keywords}
    return Layer(text.name, transform, tuple(parse(a) for a in text.args), keywords)


def _expression(text: str) -> ast.expr:
    """An expression from its source text (a Python None where it cannot be read)."""
    try:
        return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return ast.Constant(None)
