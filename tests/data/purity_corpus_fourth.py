"""A fourth corpus of impure and pure JAX functions, collected from threads check_pure never saw.

Two helpers collected it on 2026-12-06, one per area (:mod:`purity_corpus_fourth_a`: state
and side effects; :mod:`purity_corpus_fourth_b`: transformations and compiled code), without
having seen check_pure's code or its score on any case, from public threads that no other
file of this repository cited; each label comes from the thread's discussion. The format is
that of :mod:`purity_corpus_unseen`. Its score as collected, before anything was changed for
it, is in the closing note of the change that added it.

:data:`HELD_OUT` is half of each label, by a rule fixed before any case was looked at: within
each group (impure, pure), the case ids sorted by ``hashlib.sha256(id.encode()).hexdigest()``,
the first half, rounded down. A change to check_pure is made from the other half; the held-out
half says whether it holds.
"""

from __future__ import annotations

from purity_corpus_fourth_a import CASES as STATE_CASES
from purity_corpus_fourth_b import CASES as COMPILED_CASES
from purity_corpus_unseen import _first_half_by_hash

__all__ = ["CASES", "HELD_OUT"]

CASES = [*STATE_CASES, *COMPILED_CASES]

HELD_OUT: frozenset[str] = frozenset(
    _first_half_by_hash([case.id for case in CASES if case.impure])
    + _first_half_by_hash([case.id for case in CASES if not case.impure])
)
