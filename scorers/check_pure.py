"""Score jaxpurity.check_pure on the corpus of real impure and pure functions.

tests/data/purity_corpus.py holds functions reduced from public bug reports, each with its
source, its label (impure, with the kinds of problem, or pure), and an independent check that
uses only JAX and NumPy to show the label is right. Run:

    python scorers/check_pure.py            # the scores
    python scorers/check_pure.py --misses   # and every case check_pure gets wrong

An impure case scores when check_pure reports a problem (or a warning) of one of its kinds; a
pure case when it reports no problem (a warning about a value read at trace time is allowed).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "data")]

from purity_corpus import CASES  # noqa: E402

import jaxpurity  # noqa: E402


def run(case):
    """``(kinds of problems, kinds of warnings, error)`` of check_pure on a fresh copy."""
    fn, args, kwargs = case.make()
    try:
        report = jaxpurity.check_pure(fn, *args, **kwargs)
    except Exception as error:  # noqa: BLE001 - a crash is a result to report
        return set(), set(), error
    return {p.kind for p in report.problems}, {w.kind for w in report.warnings}, None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = [(case, *run(case)) for case in CASES]
    seconds = time.perf_counter() - start
    impure = [r for r in rows if r[0].impure]
    pure = [r for r in rows if not r[0].impure]
    flagged = [r for r in impure if r[1] | r[2]]
    right_kind = [r for r in impure if (r[1] | r[2]) & set(r[0].kinds)]
    passed = [r for r in pure if not r[1] and r[3] is None]
    warned = [r for r in pure if r[2]]
    print(f"corpus: {len(rows)} functions from bug reports ({seconds:.1f} s)")
    print(f"impure: {len(flagged)}/{len(impure)} flagged, {len(right_kind)} with a right kind")
    print(f"pure: {len(passed)}/{len(pure)} passed ({len(warned)} with a warning)")
    print(f"crashed: {sum(r[3] is not None for r in rows)}")
    if args.misses:
        for case, kinds, warnings, error in rows:
            found = kinds | warnings
            if error is not None:
                print(f"  {case.id} ({case.source}): crashed {type(error).__name__}: {error}"[:300])
            elif case.impure and not (found & set(case.kinds)):
                print(f"  {case.id} ({case.source}): expected {case.kinds}, got {sorted(found)}")
            elif not case.impure and kinds:
                print(f"  {case.id} ({case.source}): pure, got {sorted(kinds)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
