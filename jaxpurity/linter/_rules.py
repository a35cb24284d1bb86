"""The rule table of ``jaxpurity lint``: every family's rules, in code order, read by every tool.

Knowledge is data: each family of :mod:`jaxpurity.linter.rules` declares its
rules (code, message, the page that explains it, what it cannot see) beside
the checks that find them, and this module gathers them into one table,
:data:`RULES`, which the linter, the reports (text, JSON, SARIF), the command
line's ``--explain``, the flake8 plugin and the site read; the checker
(:mod:`jaxpurity.linter._checker`) runs the families' checks in the order of
:data:`FAMILIES`. Each rule links the gallery page that shows the bug it
finds, through the page table of :mod:`jaxpurity._pages`, which ``explain``
uses too. A message is a template: the checker fills in the names (``{how}``
is how JAX traces the function, such as ``jax.jit``).

Codes: ``JP1xx`` state that outlives a trace (globals, containers, ``self``,
caches, settings, randomness, prints); ``JP2xx`` Python control flow and
array use on traced values; ``JP3xx`` what costs or breaks in compiled code.
Reading the table imports no part of the analysis: the families import it
only under ``TYPE_CHECKING``, to type their checks.
"""

from __future__ import annotations

from collections.abc import Iterable

from jaxpurity._pages import PAGES
from jaxpurity.linter._family import Family, Rule
from jaxpurity.linter.rules import (
    array_updates,
    differentiation,
    donation,
    printing,
    randomness,
    retracing,
    settings,
    shapes,
    state,
    static_arguments,
    traced_control_flow,
)

__all__ = ["DEFAULT", "FAMILIES", "RULES", "Rule", "rule", "selected"]

#: The rule families, in the order of their codes: the checker runs their checks in this
#: order.
FAMILIES: tuple[Family, ...] = (
    state.FAMILY,
    settings.FAMILY,
    randomness.FAMILY,
    printing.FAMILY,
    traced_control_flow.FAMILY,
    shapes.FAMILY,
    array_updates.FAMILY,
    static_arguments.FAMILY,
    retracing.FAMILY,
    donation.FAMILY,
    differentiation.FAMILY,
)

#: Every rule, in code order.
RULES: tuple[Rule, ...] = tuple(
    sorted((r for family in FAMILIES for r in family.rules), key=lambda r: r.code)
)

_BY_CODE = {r.code: r for r in RULES}
assert len(_BY_CODE) == len(RULES) and all(r.topic in PAGES for r in RULES)

#: The codes of the rules on by default: all but those with an ``opt_in`` reason.
DEFAULT = frozenset(r.code for r in RULES if not r.opt_in)


def rule(code: str) -> Rule:
    """The rule of ``code``.

    Example:
      >>> rule("JP101").topic
      'global_counter'
    """
    try:
        return _BY_CODE[code]
    except KeyError:
        raise KeyError(f"no jaxpurity lint rule {code!r}; known: {', '.join(_BY_CODE)}") from None


def selected(select: Iterable[str] | None, ignore: Iterable[str]) -> frozenset[str]:
    """The codes that ``select`` and ``ignore`` (codes or prefixes such as ``"JP1"``) leave.

    ``select=None`` selects every rule on by default (:data:`DEFAULT`). A rule that is
    off by default (``Rule.opt_in``) is checked only when ``select`` names its code: a
    prefix (``"JP1"``) selects the rules of that prefix that are on by default.

    Raises:
      ValueError: A code or prefix matches no rule.

    Example:
      >>> sorted(selected(["JP10"], ignore=["JP102", "JP103", "JP104", "JP105", "JP106"]))
      ['JP101', 'JP107', 'JP108', 'JP109']
      >>> "JP122" in selected(None, ignore=[]), "JP122" in selected(["JP122"], ignore=[])
      (False, True)
    """
    chosen = set(_matching(select, "select")) if select is not None else set(DEFAULT)
    return frozenset(chosen - set(_matching(ignore, "ignore")))


def _matching(prefixes: Iterable[str], option: str) -> Iterable[str]:
    if isinstance(prefixes, str):
        raise TypeError(f"{option} must be a list of codes, such as [{prefixes!r}], not a str")
    for prefix in prefixes:
        written = str(prefix).strip().upper()
        codes = [code for code in _BY_CODE if code.startswith(written)]
        if not codes or not written:
            raise ValueError(
                f"{option}: {prefix!r} is no jaxpurity lint rule or prefix of one; the rules "
                f"are {', '.join(_BY_CODE)} (jaxpurity lint --explain lists them)"
            )
        yield from (code for code in codes if code == written or code in DEFAULT)
