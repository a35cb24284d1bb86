"""A family of ``jaxpurity lint`` rules: its rules, as data, and the checks that find them.

Each module of :mod:`jaxpurity.linter.rules` makes one :class:`Family`: the
:class:`Rule` entries of its codes (code, message, page, what it cannot see)
and its checks, each registered with what it looks at: the nodes of one type
in a traced function, each call in one, each traced function as a whole, or
each scope of the module, traced or not. The checker
(:mod:`jaxpurity.linter._checker`) visits every node once and hands it to the
checks registered for its type, so no family walks a traced function itself;
the rule table (:mod:`jaxpurity.linter._rules`) gathers the families' rules.

A family module imports only data and syntax helpers at run time: reading the
rule table (the reports, ``--explain``) loads no part of the analysis.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from jaxpurity._pages import url

if TYPE_CHECKING:
    from jaxpurity.linter._context import ScopeContext, TracedFunction

__all__ = ["SAME_MODULE", "Family", "Rule"]

#: What a rule on traced functions cannot see when only another module traces them: said
#: once, in the ``cannot_see`` of each rule it holds for.
SAME_MODULE = (
    "It sees the functions of one module: a function traced only from another module, "
    "or by a wrapper it does not know (add it to `wrappers`), is not checked."
)

_Check = TypeVar("_Check", bound=Callable[..., None])


@dataclass(frozen=True)
class Rule:
    """One rule of ``jaxpurity lint``.

    Attributes:
      code: ``JP`` and three digits, such as ``"JP101"``.
      name: A short name in kebab case, such as ``"global-assignment"``.
      title: What it finds, in a few words.
      message: The one-line message, a template with ``{fields}`` the checker fills.
      topic: The gallery page that explains it (a key of ``jaxpurity._pages.PAGES``).
      cannot_see: What it misses: the cases it cannot see from the source alone.
      opt_in: Empty for a rule on by default; for a rule that only ``select`` turns on
        (``select = ["JP122"]``), why: its measured precision on real code.
      needs_value: It reports code that needs the value of a tracer, where JAX raises one of
        its tracer errors (``ConcretizationTypeError``, ...): inside a ``try`` that catches
        one, the code expects a tracer and goes on without the value, and is not reported.
    """

    code: str
    name: str
    title: str
    message: str
    topic: str
    cannot_see: str
    opt_in: str = ""
    needs_value: bool = False

    @property
    def url(self) -> str:
        """The address of the page that explains it."""
        return url(self.topic)


class Family:
    """Some rules of one kind of bug, and the checks that find them.

    Register a check with one of the decorators below. A check reports with the
    context's ``hit(node, code, **fields)``, where ``fields`` fill the rule's message
    (``{how}``, how JAX traces the function, is filled for a traced function's checks).

    Args:
      *rules: The family's rules, in code order.

    Example:
      >>> family = Family(Rule("JP999", "x", "X", "x ({how})", "global_counter", "None."))
      >>> @family.on(ast.If, ast.While)
      ... def _test(fn, node):
      ...     pass
      >>> [rule.code for rule in family.rules], list(family.node_checks)
      (['JP999'], [<class 'ast.If'>, <class 'ast.While'>])
    """

    def __init__(self, *rules: Rule) -> None:
        self.rules = rules
        #: The checks of each node of a traced function, by node type: ``check(fn, node)``.
        self.node_checks: dict[type[ast.AST], list[Callable[[TracedFunction, Any], None]]] = {}
        #: The checks of each call in a traced function: ``check(fn, call, name)``.
        self.call_checks: list[Callable[[TracedFunction, ast.Call, str], None]] = []
        #: The checks of each traced function as a whole, before its nodes: ``check(fn)``.
        self.function_checks: list[Callable[[TracedFunction], None]] = []
        #: The checks of each scope of the module, traced or not: ``check(scope)``.
        self.scope_checks: list[Callable[[ScopeContext], None]] = []

    def on(self, *kinds: type[ast.AST]) -> Callable[[_Check], _Check]:
        """Register ``check(fn, node)`` for each node of these types in a traced function
        (not calls: see :meth:`on_call`)."""
        if ast.Call in kinds:
            raise ValueError("register the checks of calls with Family.on_call")

        def register(check: _Check) -> _Check:
            for kind in kinds:
                self.node_checks.setdefault(kind, []).append(check)
            return check

        return register

    def on_call(self, check: _Check) -> _Check:
        """Register ``check(fn, call, name)`` for each call in a traced function; ``name`` is
        the qualified name of what it calls (``"jax.numpy.sum"`` for ``jnp.sum``), or ``""``."""
        self.call_checks.append(check)
        return check

    def on_function(self, check: _Check) -> _Check:
        """Register ``check(fn)`` for each traced function, once, before its nodes."""
        self.function_checks.append(check)
        return check

    def on_scope(self, check: _Check) -> _Check:
        """Register ``check(scope)`` for each scope of the module (each function, lambda and
        the module's own code), traced or not."""
        self.scope_checks.append(check)
        return check
