"""What a rule's check sees: the module, a traced function, or a scope, and where to report.

The checker (:mod:`jaxpurity.linter._checker`) hands each check of a family
(:mod:`jaxpurity.linter._family`) one of these contexts: :class:`Module`, what
the checks know of the module as a whole; :class:`TracedFunction`, one function
that JAX traces, with what :class:`~jaxpurity.linter.analysis._taint.Taint`
knows of its tracers and arrays; :class:`ScopeContext`, one scope of the module,
traced or not. A check reports a :class:`Hit` through its context's ``hit``.

The contexts live apart from the checker, which imports the rule table, so that
the families can name them (under ``TYPE_CHECKING``) without an import cycle:
this module imports the analysis, never a rule.

What several families need is found here, once: the calls of jitted functions
in a scope, the flow of names spent in it (:mod:`jaxpurity.linter.analysis._flow`), and
the bodies of ``with`` blocks that a test expects to raise (``pytest.raises``,
``self.assertRaises*``, ``np.testing.assert_raises``), where nothing is
reported: that code is meant to fail. What one family needs of the whole module
or of one function, it finds itself, once (:meth:`Module.memo`,
:meth:`TracedFunction.memo`).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar, cast

from jaxpurity.linter.analysis._applied_transforms import Jitted
from jaxpurity.linter.analysis._arrays import TRACER_ERRORS
from jaxpurity.linter.analysis._flow import Event, Spent, spent_uses
from jaxpurity.linter.analysis._functions import Func
from jaxpurity.linter.analysis._known_transforms import CACHED
from jaxpurity.linter.analysis._module import ModuleAnalysis
from jaxpurity.linter.analysis._names import Names
from jaxpurity.linter.analysis._syntax import Blocks, blocks, line_blocks
from jaxpurity.linter.analysis._taint import Taint

__all__ = ["Hit", "Module", "ScopeContext", "TracedFunction"]


_T = TypeVar("_T")
_TRY: tuple[type[ast.stmt], ...] = (ast.Try, *([ast.TryStar] if hasattr(ast, "TryStar") else []))

# Contexts whose body a test expects to raise (besides the assertRaises* methods). Not
# jaxpurity.raises: a page shows a reader's bug with it, and the bug is what lint must find.
_EXPECTED_ERRORS = frozenset(
    {"pytest.raises", "numpy.testing.assert_raises", "numpy.testing.assert_raises_regex"}
)


@dataclass(frozen=True)
class Hit:
    """One finding of a check: the node it is at, the rule's code, and the message's fields."""

    node: ast.AST
    code: str
    fields: dict[str, object] = field(default_factory=dict)


class Module:
    """What the checks know of the module as a whole.

    Attributes:
      analysis: The module analysed: its functions, which of them JAX traces, and their
        traced values.
      names: What its names stand for.
      func: The module's own code, as a function (the outermost scope).
      expected_errors: The bodies of ``with pytest.raises(...)`` and its kin: code there is
        meant to fail.
    """

    def __init__(self, analysis: ModuleAnalysis) -> None:
        self.analysis = analysis
        self.names: Names = analysis.names
        self.func = analysis.top_level
        self.expected_errors: Blocks = blocks(
            node
            for scope in analysis.funcs
            for node in scope.of(ast.With)
            if any(_expects_error(item.context_expr, self.names) for item in node.items)
        )
        #: The bodies of ``try`` statements that catch one of JAX's tracer errors
        #: (``except jax.errors.ConcretizationTypeError``): code there expects a tracer, and
        #: the rules that need a value (``Rule.needs_value``) do not report it.
        attempts: list[ast.Try] = [
            node  # type: ignore[misc]
            for scope in analysis.funcs
            for kind in _TRY
            for node in scope.of(kind)
        ]
        self.tracer_guarded: Blocks = line_blocks(
            (node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno)
            for node in attempts
            if any(_catches_tracer_error(h.type, self.names) for h in node.handlers)
        )
        #: The branches that a constant flag of the module closes (``if DEBUG:`` after
        #: ``DEBUG = False``): code that never runs as the module is written.
        self.unreached: Blocks = _closed_branches(analysis)
        self._memo: dict[Callable[[Module], object], object] = {}

    def memo(self, make: Callable[[Module], _T]) -> _T:
        """``make(self)``, made once for the module: what one family needs to know of it."""
        if make not in self._memo:
            self._memo[make] = make(self)
        return cast(_T, self._memo[make])


class TracedFunction:
    """One traced function, as the checks of its nodes see it.

    Attributes:
      func: The function, and how JAX traces it (``func.kinds``, ``func.how``).
      taint: Which of its values are traced, and which are arrays.
      module: The module around it.
      names: What the module's names stand for.
      cached: Whether its Python body does not run again on every call: jit's cache,
        and the bodies of lax loops and branches, traced once.
      not_only_grad: Whether it runs under a transformation other than ``grad``, which
        runs the body on every call.
    """

    def __init__(self, func: Func, module: Module) -> None:
        assert func.taint is not None
        self.func = func
        self.taint: Taint = func.taint
        self.module = module
        self.names = module.names
        self.cached = bool(func.kinds & CACHED)
        self.not_only_grad = bool(func.kinds - {"grad"})
        self.hits: list[Hit] = []
        self._reported: set[tuple[str, str]] = set()
        self._memo: dict[Callable[[TracedFunction], object], object] = {}

    def hit(self, node: ast.AST, code: str, once: str | None = None, **fields: object) -> None:
        """Report ``code`` at ``node``, with the message's ``fields`` (``how`` is this
        function's); ``once``: report it once per function for this key (a name)."""
        if once is not None:
            if (code, once) in self._reported:
                return
            self._reported.add((code, once))
        fields.setdefault("how", self.func.how)
        self.hits.append(Hit(node, code, fields))

    def holds_tracer(self, node: ast.expr | None) -> bool:
        """Whether ``node`` holds (or builds from) a tracer."""
        return self.taint.holds_tracer(node)

    def is_array(self, node: ast.expr | None) -> bool:
        """Whether ``node`` is surely a traced array."""
        return self.taint.is_array(node)

    def shows_tracer(self, node: ast.expr) -> bool:
        """Whether ``node`` surely holds a tracer: a traced name (an argument, or a pytree of
        tracers), surely a traced array, or a string formatted from one; not the result of a
        function that may return a Python value made from tracers (a string, a shape)."""
        if isinstance(node, ast.JoinedStr):
            return any(
                isinstance(v, ast.FormattedValue) and self.shows_tracer(v.value)
                for v in node.values
            )
        if isinstance(node, ast.Name):
            return self.taint.holds_tracer(node)
        return self.taint.is_array(node)

    def memo(self, make: Callable[[TracedFunction], _T]) -> _T:
        """``make(self)``, made once for this function: what one family needs to know of it."""
        if make not in self._memo:
            self._memo[make] = make(self)
        return cast(_T, self._memo[make])

    def outer(self, name: str) -> Func | None:
        """The scope that a free name of this function belongs to (see
        :meth:`~jaxpurity.linter.analysis._functions.Functions.outer`)."""
        return self.module.analysis.functions.outer(self.func, name)

    def resolve(self, node: ast.expr, line: int) -> tuple[Func, int] | None:
        """The function of the module that ``node``, written here on ``line``, refers to (see
        :meth:`~jaxpurity.linter.analysis._functions.Functions.resolve`)."""
        return self.module.analysis.functions.resolve(node, self.func, line)


class ScopeContext:
    """One scope of the module (a function, a lambda, or the module's own code), traced or
    not, as the checks of whole scopes see it.

    Attributes:
      func: The scope.
      module: The module around it.
      names: What the module's names stand for.
    """

    def __init__(self, func: Func, module: Module) -> None:
        self.func = func
        self.module = module
        self.names = module.names
        self.hits: list[Hit] = []

    def hit(self, node: ast.AST, code: str, **fields: object) -> None:
        """Report ``code`` at ``node``, with the message's ``fields``."""
        self.hits.append(Hit(node, code, fields))

    @functools.cached_property
    def jitted_calls(self) -> list[tuple[ast.Call, Jitted]]:
        """The calls of the module's jitted functions here, each with what it calls."""
        jitted = self.module.analysis.applied.jitted
        calls = []
        for call in self.func.of(ast.Call):
            called = jitted(call, self.func)
            if called is not None:
                calls.append((call, called))
        return calls

    def spent_uses(self, events: Callable[[ast.AST], Iterable[Event]]) -> list[Spent]:
        """The uses of names already spent, through this scope's statements in order
        (:func:`~jaxpurity.linter.analysis._flow.spent_uses`), with ``events`` the spending and
        reading of one statement; none for a lambda, which has no statements."""
        body = getattr(self.func.node, "body", None)
        if not isinstance(body, list):
            return []
        return spent_uses(body, events, budget=4 * len(self.func.nodes))

    def resolve(self, node: ast.expr, line: int) -> tuple[Func, int] | None:
        """The function of the module that ``node``, written here on ``line``, refers to."""
        return self.module.analysis.functions.resolve(node, self.func, line)


def _catches_tracer_error(node: ast.expr | None, names: Names) -> bool:
    """Whether an ``except`` clause's type names one of JAX's tracer errors."""
    options = node.elts if isinstance(node, ast.Tuple) else [node] if node else []
    return any(names.qualified(option) in TRACER_ERRORS for option in options)


def _closed_branches(analysis: ModuleAnalysis) -> Blocks:
    """The branches of ``if`` statements whose test a constant flag of the module decides:
    the body when it is false, the ``else`` when it is true."""
    flags = analysis.flags()
    ranges: list[tuple[int, int]] = []
    if not flags:
        return line_blocks(ranges)
    for scope in analysis.funcs:
        for node in scope.of(ast.If):
            truth = _truth(node.test, flags, scope)
            closed = node.body if truth is False else node.orelse if truth else []
            if closed:
                ranges.append((closed[0].lineno, closed[-1].end_lineno or closed[-1].lineno))
    return line_blocks(ranges)


def _truth(test: ast.expr, flags: dict[str, bool], scope: Func) -> bool | None:
    """The truth of ``test`` when constant flags decide it; else None."""
    if isinstance(test, ast.Name):
        return flags.get(test.id) if test.id not in scope.local else None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _truth(test.operand, flags, scope)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        truths = [_truth(value, flags, scope) for value in test.values]
        decisive = isinstance(test.op, ast.Or)  # True decides an or, False an and
        if decisive in truths:
            return decisive
        return None if None in truths else not decisive
    return None


def _expects_error(node: ast.expr, names: Names) -> bool:
    """``pytest.raises(...)``, ``self.assertRaises(...)`` (``assertRaisesRegex``, ...),
    ``np.testing.assert_raises(...)``: a context that fails unless its body raises."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Attribute) and node.func.attr.startswith("assertRaises"):
        return True
    return names.qualified(node.func) in _EXPECTED_ERRORS
