"""Score jaxpurity lint: its recall on impure code from bug reports, and its precision on reviews.

    python scorers/lint.py                 # recall on tests/data/lint_recall_corpus.py
    python scorers/lint.py --corpus unseen # on tests/data/lint_recall_corpus_unseen.py
    python scorers/lint.py --corpus fourth # on tests/data/lint_recall_corpus_fourth.py
    python scorers/lint.py --cases         # and each case: flagged or not, with its codes
    python scorers/lint.py --reviews       # precision per rule, from tests/data/lint_reviews/
    python scorers/lint.py --reviews --checkouts DIR   # and lint DIR/<name> again

The recall corpus holds code reduced from public bug reports, impure or a pure
look-alike, each with its thread (``tests/data/lint_recall_corpus.py`` says how it was
collected). An impure case counts as flagged when the linter reports anything in its
code (the code is reduced to what the thread shows), a look-alike as a false alarm when
it reports anything. Every rule is on, JP122 included. The unseen corpus marks the lines
each thread blames (``# BUG``): its score says too how many impure cases have a finding on
a marked line, and scores its two halves apart: the cases to work from, and the held-out
ones (``HELD_OUT``), kept for checking whether a change made from the first half holds;
so does the fourth corpus, collected on 2026-12-06.

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
from lint_recall_corpus_fourth import CASES as FOURTH  # noqa: E402
from lint_recall_corpus_fourth import HELD_OUT as FOURTH_HELD_OUT  # noqa: E402
from lint_recall_corpus_unseen import CASES as UNSEEN  # noqa: E402
from lint_recall_corpus_unseen import HELD_OUT  # noqa: E402

from jaxpurity.linter._lint import lint_paths  # noqa: E402
from jaxpurity.linter._rules import RULES  # noqa: E402

REVIEWS = ROOT / "tests" / "data" / "lint_reviews"
EVERY_RULE = [rule.code for rule in RULES]


CORPORA = {"dev": CASES, "unseen": UNSEEN, "fourth": FOURTH}
#: The corpora scored by halves too: the cases to work from, and the held-out ones.
HALVES = {"unseen": HELD_OUT, "fourth": FOURTH_HELD_OUT}
_MARK = "# BUG"


def findings_in(case: Case) -> list[tuple[str, int, str]]:
    """``(path, line, code)`` of each finding of jaxpurity lint in a case's code, written out
    as a package."""
    with tempfile.TemporaryDirectory() as folder:
        for path, text in case.files.items():
            target = Path(folder, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        findings, _ = lint_paths([folder], select=EVERY_RULE, config=False)
        return sorted(
            (Path(f.path).relative_to(folder).as_posix(), f.line, f.code) for f in findings
        )


def marked_lines(case: Case) -> set[tuple[str, int]]:
    """The ``(path, line)`` of each line the case marks as the bug (``# BUG``)."""
    return {
        (path, number)
        for path, text in case.files.items()
        for number, line in enumerate(text.splitlines(), 1)
        if line.rstrip().endswith(_MARK)
    }


def _score(rows: list[tuple[Case, list[tuple[str, int, str]]]], label: str) -> None:
    impure = [(case, found) for case, found in rows if case.impure]
    pure = [(case, found) for case, found in rows if not case.impure]
    flagged = [case for case, found in impure if found]
    alarms = [case for case, found in pure if found]
    print(f"{label}: {len(rows)} cases from bug reports")
    print(f"impure: {len(flagged)}/{len(impure)} flagged")
    marked = [(case, found) for case, found in impure if marked_lines(case)]
    if marked:
        on_line = [c for c, found in marked if {(p, n) for p, n, _ in found} & marked_lines(c)]
        print(f"impure: {len(on_line)}/{len(marked)} with a finding on a line marked {_MARK}")
    print(f"look-alikes: {len(alarms)}/{len(pure)} flagged (false alarms)")


def score_corpus(corpus: str, show_cases: bool) -> None:
    rows = [(case, findings_in(case)) for case in CORPORA[corpus]]
    _score(rows, f"recall corpus ({corpus})")
    held_out = HALVES.get(corpus, frozenset())
    if corpus in HALVES:
        for half, cases in (
            ("to work from", [r for r in rows if r[0].id not in held_out]),
            ("held out", [r for r in rows if r[0].id in held_out]),
        ):
            print()
            _score(cases, f"{corpus}, the half {half}")
    if show_cases:
        for case, found in rows:
            codes = sorted(code for _, _, code in found)
            verdict = (
                ("flagged" if codes else "missed")
                if case.impure
                else ("FALSE ALARM" if codes else "clean")
            )
            shown = " ".join(f"{code}@{line}" for _, line, code in found) or "-"
            held = "held-out" if case.id in held_out else ""
            print(f"  {verdict:11} {held:8} {case.id:40} {case.source:40} {shown}")


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
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="dev")
    parser.add_argument("--cases", action="store_true", help="print each case of the corpus")
    parser.add_argument("--reviews", action="store_true", help="score the labelled reviews")
    parser.add_argument("--checkouts", type=Path, help="lint DIR/<name> for each review again")
    args = parser.parse_args(argv)
    if args.reviews:
        score_reviews(args.checkouts)
    else:
        score_corpus(args.corpus, args.cases)
    return 0


if __name__ == "__main__":
    sys.exit(main())
