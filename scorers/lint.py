"""Score jaxpurity lint: its recall on impure code from bug reports, and its precision on reviews.

    python scorers/lint.py                 # recall on tests/data/lint_recall_corpus.py
    python scorers/lint.py --cases         # and each case: flagged or not, with its codes
    python scorers/lint.py --reviews       # precision per rule, from tests/data/lint_reviews/
    python scorers/lint.py --reviews --checkouts DIR   # and lint DIR/<name> again

The recall corpus holds code reduced from public bug reports, impure or a pure
look-alike, each with its thread (``tests/data/lint_recall_corpus.py`` says how it was
collected). An impure case counts as flagged when the linter reports anything in its
code (the code is reduced to what the thread shows), a look-alike as a false alarm when
it reports anything. Every rule is on, JP122 included.

The reviews (``tests/data/lint_reviews/<repository>.json``) are the findings of the
linter on repositories no one here had read before, each labelled true or false by
reading the code, with ``before`` and ``after`` saying whether the linter reported it
before and after the change they were made for. ``--checkouts DIR`` lints
``DIR/<name>`` (each repository at the commit its file names) and lists what it
reports now that no review has labelled, and the labelled findings it no longer reports.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "data")]

from lint_recall_corpus import CASES, Case  # noqa: E402

from jaxpurity.linter._lint import lint_paths  # noqa: E402
from jaxpurity.linter._rules import RULES  # noqa: E402

REVIEWS = ROOT / "tests" / "data" / "lint_reviews"
EVERY_RULE = [rule.code for rule in RULES]


def codes_found(case: Case) -> list[str]:
    """The codes that jaxpurity lint reports in a case's code, written out as a package."""
    with tempfile.TemporaryDirectory() as folder:
        for path, text in case.files.items():
            target = Path(folder, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        findings, _ = lint_paths([folder], select=EVERY_RULE, config=False)
    return sorted(f.code for f in findings)


def score_corpus(show_cases: bool) -> None:
    rows = [(case, codes_found(case)) for case in CASES]
    impure = [(case, codes) for case, codes in rows if case.impure]
    pure = [(case, codes) for case, codes in rows if not case.impure]
    flagged = [case for case, codes in impure if codes]
    alarms = [case for case, codes in pure if codes]
    print(f"recall corpus: {len(rows)} cases from bug reports")
    print(f"impure: {len(flagged)}/{len(impure)} flagged")
    print(f"look-alikes: {len(alarms)}/{len(pure)} flagged (false alarms)")
    if show_cases:
        for case, codes in rows:
            verdict = (
                ("flagged" if codes else "missed")
                if case.impure
                else ("FALSE ALARM" if codes else "clean")
            )
            shown = " ".join(codes) if codes else "-"
            print(f"  {verdict:11} {case.id:40} {case.source:40} {shown}")


def score_reviews(checkouts: Path | None) -> None:
    files = sorted(REVIEWS.glob("*.json"))
    if not files:
        print(f"no reviews in {REVIEWS}")
        return
    totals: dict[str, dict[str, list[int]]] = {"before": {}, "after": {}}
    for path in files:
        review = json.loads(path.read_text(encoding="utf-8"))
        for stage in ("before", "after"):
            counts: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
            for finding in review["findings"]:
                if finding[stage]:
                    counts[finding["code"]][0] += finding["verdict"] == "true"
                    counts[finding["code"]][1] += 1
            shown = ", ".join(f"{c} {t}/{n}" for c, (t, n) in sorted(counts.items())) or "none"
            print(f"{review['repository']} {stage}: {shown}")
            for code, (true, total) in counts.items():
                entry = totals[stage].setdefault(code, [0, 0])
                entry[0] += true
                entry[1] += total
        if checkouts is not None:
            _recheck(review, checkouts / review["name"])
    for stage in ("before", "after"):
        true = sum(t for t, _ in totals[stage].values())
        total = sum(n for _, n in totals[stage].values())
        rules = ", ".join(f"{c} {t}/{n}" for c, (t, n) in sorted(totals[stage].items()))
        print(f"all {stage}: {true}/{total} true ({rules})")


def _recheck(review: dict, folder: Path) -> None:
    """What the linter reports now in a checkout, beside the review's labels."""
    if not folder.is_dir():
        print(f"  (no checkout at {folder})")
        return
    findings, _ = lint_paths([folder], config=False)
    now = {(Path(f.path).relative_to(folder).as_posix(), f.line, f.code) for f in findings}
    labelled = {(f["path"], f["line"], f["code"]) for f in review["findings"]}
    expected = {(f["path"], f["line"], f["code"]) for f in review["findings"] if f["after"]}
    for path, line, code in sorted(now - labelled):
        print(f"  not labelled: {path}:{line} {code}")
    for path, line, code in sorted(expected - now):
        print(f"  no longer reported: {path}:{line} {code}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", action="store_true", help="print each case of the corpus")
    parser.add_argument("--reviews", action="store_true", help="score the labelled reviews")
    parser.add_argument("--checkouts", type=Path, help="lint DIR/<name> for each review again")
    args = parser.parse_args(argv)
    if args.reviews:
        score_reviews(args.checkouts)
    else:
        score_corpus(args.cases)
    return 0


if __name__ == "__main__":
    sys.exit(main())
