"""What a probe of :func:`jaxpurity.check_pure` returns: the problems it found, and its warnings."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from jaxpurity.checks._problems import Problem

__all__ = ["KIND_ORDER", "Evidence", "in_report_order"]


@dataclass
class Evidence:
    """The problems a probe found that are wrong now, and its warnings (wrong once something
    changes, or in a mode the function may not be used in)."""

    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    def add(self, *found: Problem) -> None:
        """File each problem by its severity."""
        for p in found:
            (self.problems if p.severity == "error" else self.warnings).append(p)


#: The order of kinds in a report: what was wrong first (a tracer that escaped, state the
#: trace changed), then what the runs show. The four kinds of state a trace changes share a
#: place, and keep the order in which they were found.
KIND_ORDER: tuple[frozenset[str], ...] = tuple(
    frozenset(kinds)
    for kinds in (
        {"trace-error", "mode-mismatch"},
        {"leaked-tracer"},
        {"remat-mutation"},
        {"global-assignment", "closure-assignment", "container-mutation", "argument-mutation"},
        {"trace-time-print"},
        {"frozen-randomness"},
        {"lost-mutation"},
        {"dropped-callback"},
        {"callback-count"},
        {"key-reuse"},
        {"hidden-state"},
        {"retracing"},
        {"trace-time-read"},
        {"jit-eager-mismatch"},
        {"stale-result"},
    )
)


def _rank(p: Problem) -> int:
    return next((i for i, kinds in enumerate(KIND_ORDER) if p.kind in kinds), len(KIND_ORDER))


def in_report_order(found: Iterable[Problem]) -> list[Problem]:
    """``found`` sorted by :data:`KIND_ORDER`, each kind in the order found, each once."""
    unique: list[Problem] = []
    for p in found:
        if p not in unique:
            unique.append(p)
    return sorted(unique, key=_rank)
