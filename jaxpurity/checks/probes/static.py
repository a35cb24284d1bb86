"""Probe: ``jaxpurity lint`` over the source of the checked function, as warnings.

Some impurities look the same in every run: a key drawn from twice draws the same numbers
each time, so no comparison of runs can tell. The linter reads them in the source. Here it
reads the module of the function ``check_pure`` checks, with that function traced as
``jax.jit`` traces it (the source may not say so) and its static arguments kept out of the
trace, and keeps what it finds in the functions the call can reach there. Each finding is
a warning, with its line: what the source says, not what a run showed. A finding of a kind
a run already showed is left out: the run's report says more.
"""

from __future__ import annotations

import functools
import inspect
import os
import types
import typing
from collections.abc import Collection
from typing import Any

from jaxpurity._introspect import is_user_code
from jaxpurity._jax_compat import jit_static_argument_names
from jaxpurity._pages import page
from jaxpurity.checks._call import BoundCall
from jaxpurity.checks._problems import Kind, Problem
from jaxpurity.checks._tracing import is_traceable, leaves_of
from jaxpurity.checks.probes.evidence import Evidence
from jaxpurity.linter._finding import UNPARSABLE, Finding
from jaxpurity.linter._lint import lint_traced
from jaxpurity.linter._rules import rule

__all__ = ["KIND_OF_RULE", "static_evidence"]

KINDS = frozenset(typing.get_args(Kind))

#: The kind of problem each rule of ``jaxpurity lint`` finds, in ``check_pure``'s words, for
#: the rules whose findings the runs cannot see as well (a rule named as a kind, such as
#: ``key-reuse``, is that kind). Left out: a traced value used where Python needs one (an
#: ``if``, ``int()``, NumPy, a shape), which makes the trace itself raise, with the call's
#: own static arguments, where the source cannot tell which arguments a call traces; rules
#: about grad or vmap applied elsewhere in the module, which the probes run themselves;
#: and rules about the caller's code (``jit-in-loop``, ``unhashable-static``).
KIND_OF_RULE: dict[str, Kind] = {
    "global-container-mutation": "container-mutation",
    "loop-body-leak": "container-mutation",
    "mutable-default": "container-mutation",
    "cached-array": "leaked-tracer",
    "self-assignment": "argument-mutation",
    "donated-read": "argument-mutation",
    "rebound-global-read": "trace-time-read",
    "host-randomness": "frozen-randomness",
    "print-traced": "trace-time-print",
    "print-on-devices": "trace-time-print",
    "f-string-debug-print": "trace-time-print",
    "dropped-pure-callback": "dropped-callback",
    "discarded-update": "lost-mutation",
}


def static_evidence(call: BoundCall, seen: Collection[str]) -> Evidence:
    """What lint finds in the checked function's module, in the functions the call reaches
    there; none of the kinds in ``seen`` (what the runs showed)."""
    found = Evidence()
    fn = call.innermost
    if not isinstance(fn, types.FunctionType) or not is_user_code(fn):
        return found  # JAX's, NumPy's or jaxpurity's own code: not the user's to fix
    read = _source(fn)
    if read is None:
        return found  # no source to read (a lambda from exec, a notebook cell gone)
    path, text = read
    spans = [span for f in call.reachable if (span := _span(f, path)) is not None]
    traced = _traced_parameters(call)
    static = [name for name in _parameters(fn) if name not in traced]
    line, name = fn.__code__.co_firstlineno, fn.__name__
    for finding in _lint_traced(text, path, line, name, tuple(static)):
        if finding.code == UNPARSABLE:
            return found  # a module lint cannot read says nothing of the function
        rule_name = rule(finding.code).name
        kind = typing.cast(Kind, rule_name) if rule_name in KINDS else KIND_OF_RULE.get(rule_name)
        if kind is None or kind in seen or not any(a <= finding.line <= b for a, b in spans):
            continue
        where = f"{os.path.basename(path)}:{finding.line}"
        message = f"jaxpurity lint reads at {where}: {finding.message} ({finding.code})."
        found.add(Problem(kind, message, page(rule(finding.code).topic), "warning"))
    return found


@functools.lru_cache(maxsize=16)
def _lint_traced(
    text: str, path: str, line: int, name: str, static: tuple[str, ...]
) -> tuple[Finding, ...]:
    """:func:`lint_traced`, kept for the last few functions checked: a function checked
    again is read once. The module's text is part of the key: an edited module is read
    again."""
    return tuple(lint_traced(text, path, line, name, static))


def _source(fn: types.FunctionType) -> tuple[str, str] | None:
    """The file ``fn`` was defined in, and its text; None where there is none to read."""
    try:
        path = inspect.getsourcefile(fn.__code__)  # its code: __wrapped__ is not followed
        if path is None or not os.path.isfile(path):
            return None
        with open(path, encoding="utf-8") as file:
            return path, file.read()
    except (OSError, TypeError, ValueError):  # ValueError: UnicodeDecodeError among them
        return None


def _span(fn: types.FunctionType, path: str) -> tuple[int, int] | None:
    """The first and last lines of ``fn``'s source, where it is in the file ``path``."""
    try:
        if inspect.getsourcefile(fn.__code__) != path:
            return None
        lines, first = inspect.getsourcelines(fn.__code__)
    except (OSError, TypeError, ValueError):
        return None
    return first, first + len(lines) - 1


def _parameters(fn: types.FunctionType) -> list[str]:
    try:
        return list(inspect.signature(fn, follow_wrapped=False).parameters)
    except Exception:  # noqa: BLE001 - no signature, or one a hostile __getattr__ breaks
        return []


def _traced_parameters(call: BoundCall) -> set[str]:
    """The parameters jit traces: those the call passes (not what a partial or a bound method
    binds, which the body holds), holding an array or a number, and not static."""
    try:
        bound = inspect.signature(call.body).bind_partial(*call.args, **call.kwargs)
    except Exception:  # noqa: BLE001 - no signature, or one a hostile __getattr__ breaks
        return set()
    kept = jit_static_argument_names(call.jitted) if call.jitted is not None else None
    return {n for n, v in bound.arguments.items() if n not in (kept or ()) and _traced(v)}


def _traced(value: Any) -> bool:
    """Whether jit traces an argument holding ``value``: it holds an array or a number."""
    return any(is_traceable(leaf) for leaf in leaves_of(value) or [])
