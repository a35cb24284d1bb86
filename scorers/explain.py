"""Score jaxpurity.explain on the corpus of real pasted errors (tests/data/pasted_errors_*.json).

Each case is an error message someone pasted into a public issue or Q&A page, with its source,
and the page of the site that fixes it, labelled from the thread's discussion (``null`` when no
page covers it; ``unrelated`` when it is not about impure code or tracers at all). Run:

    python scorers/explain.py                     # the scores on the development corpus
    python scorers/explain.py --corpus heldout    # on the held-out corpus
    python scorers/explain.py --misses            # and every case explain gets wrong
    python scorers/explain.py --file tests/data/heldout/pasted_errors_issue39_heldout.json
                                                  # one corpus file alone (a collection's half)

The development corpus (tests/data/pasted_errors_*.json) is what explain's knowledge was
checked against while it was written. The held-out corpus (tests/data/heldout/) was collected
separately, by someone who did not see explain's code or the development corpus, and is only
scored: a change to explain is never made to pass one of its cases. Once explain's misses on a
held-out corpus have been read, it has taught explain, and it joins the development corpus
(``pasted_errors_retired_heldout_N.json``, without the cases from a thread the corpus already
has); a new collection takes its place.

In scope: the cases a page covers; a case scores when explain recognises it and names that page.
Unrelated: explain must recognise none of them. Not covered (a JAX error no page covers):
reported, not scored. Reported beside the score, never in it: how many in-scope cases have
their page among the pages explain adds under "See also" (the other causes of the same text).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import jaxpurity  # noqa: E402

DATA = ROOT / "tests" / "data"


CORPORA = {"dev": "pasted_errors_*.json", "heldout": "heldout/pasted_errors_*.json"}


def load_corpus(name: str = "dev") -> list[dict]:
    """Every case of the corpus ``name`` (``"dev"`` or ``"heldout"``), in file order."""
    cases = []
    for path in sorted(DATA.glob(CORPORA[name])):
        cases += load_file(path)
    return cases


def load_file(path: str | Path) -> list[dict]:
    """The cases of one corpus file, such as one half of a collection."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def score(cases: list[dict]) -> dict:
    """The scores, and the cases explain got wrong, by group."""
    groups: dict[str, list] = {"in_scope": [], "unrelated": [], "not_covered": []}
    for case in cases:
        explanation = jaxpurity.explain(case["text"])
        if case.get("expected_topic"):
            ok = explanation.recognised and explanation.topic == case["expected_topic"]
            groups["in_scope"].append((case, explanation, ok))
        elif case.get("unrelated"):
            groups["unrelated"].append((case, explanation, not explanation.recognised))
        else:
            groups["not_covered"].append((case, explanation, None))
    return groups


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list the cases explain gets wrong")
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="dev")
    parser.add_argument("--file", help="score one corpus file alone instead (a path)")
    args = parser.parse_args(argv)
    cases = load_file(args.file) if args.file else load_corpus(args.corpus)
    label = Path(args.file).name if args.file else f"{args.corpus} corpus"
    start = time.perf_counter()
    groups = score(cases)
    seconds = time.perf_counter() - start
    in_scope, unrelated, not_covered = (
        groups["in_scope"],
        groups["unrelated"],
        groups["not_covered"],
    )
    right = sum(ok for _, _, ok in in_scope)
    also = sum(not ok and c["expected_topic"] in e.see_also for c, e, ok in in_scope)
    recognised = sum(e.recognised for _, e, _ in in_scope)
    false_alarms = sum(not ok for _, _, ok in unrelated)
    print(f"{label}: {len(cases)} real pasted errors ({seconds:.2f} s for all)")
    print(
        f"in scope: {right}/{len(in_scope)} right page ({right / max(len(in_scope), 1):.0%}), "
        f"{recognised}/{len(in_scope)} recognised"
    )
    print(f"  and {also} more with their page under 'See also' ({right + also}/{len(in_scope)})")
    print(f"unrelated: {false_alarms}/{len(unrelated)} wrongly recognised")
    print(
        f"not covered by any page: {sum(e.recognised for _, e, _ in not_covered)}"
        f"/{len(not_covered)} recognised (not scored)"
    )
    if args.misses:
        for name, rows in groups.items():
            for case, explanation, ok in rows:
                if ok is False:
                    got = explanation.topic if explanation.recognised else "not recognised"
                    print(
                        f"  [{name}] {case['id']} ({case['source']}): expected "
                        f"{case.get('expected_topic')}, got {got}"
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
