"""Score check_pure, find_leaks and jaxpurity lint on the state corpus (issue 40), by halves.

The corpus (``tests/data/state_corpus.py``, the half to work from, and
``tests/data/state_corpus_heldout.py``, the held-out half) holds bugs about the state of
Flax NNX modules, Equinox modules and ``jax.new_ref`` Refs, each a module reduced from a
public thread. Run, with Flax, Equinox and optax installed (the suite does not install
them; without them this says so and exits 2):

    python scorers/state.py                  # both halves: each case, then the totals
    python scorers/state.py --half worked    # one half (worked, held-out)
    python scorers/state.py --tools lint     # some tools only (check_pure, find_leaks, lint)
    python scorers/state.py --check          # and each case's check(): its label holds here

What counts, as in ``scorers/check_pure.py`` and ``scorers/lint.py``:

* ``check_pure`` (runtime): an impure case is flagged when it reports a problem or a
  warning, with a right kind when one of them is among the case's ``kinds``; a look-alike
  is a false alarm when it reports a problem (its warnings are shown, not counted).
* ``find_leaks`` (runtime): flagged when it returns a leak. It raises what the traced call
  raises: that is shown as ``raised``, and counts as not flagged.
* ``jaxpurity lint`` (static, every rule on, JP122 too): flagged when it reports anything in
  the case's module; for an impure case, also whether a finding lands on a ``# BUG`` line.

Each runtime tool gets the case's ``make()`` from a freshly imported module, on the CPU.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
import types
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "data")]

NEEDS = ("flax", "equinox", "optax")
TOOLS = ("check_pure", "find_leaks", "lint")


def _missing() -> list[str]:
    return [name for name in NEEDS if importlib.util.find_spec(name) is None]


def _halves() -> dict[str, list]:
    from state_corpus import CASES as WORKED
    from state_corpus import held_out
    from state_corpus_heldout import CASES as HELD

    drawn = held_out([*WORKED, *HELD])
    if drawn != {case.id for case in HELD}:
        raise SystemExit(f"the draw does not give state_corpus_heldout.py's cases: {drawn}")
    return {"worked": WORKED, "held-out": HELD}


def _check_pure(case) -> dict:
    from state_corpus import loaded

    from scorers.check_pure import run

    with loaded(case) as module:
        kinds, warned, error = run(types.SimpleNamespace(make=module.make))
    found = kinds | warned
    flagged = bool(found) if case.impure else bool(kinds)
    shown = ", ".join([*sorted(kinds), *(f"warning:{w}" for w in sorted(warned))])
    return {
        "flagged": flagged and error is None,
        "right": bool(found & set(case.kinds)),
        "error": error,
        "shown": shown or "nothing",
    }


def _find_leaks(case) -> dict:
    from state_corpus import loaded

    import jaxpurity
    from scorers.check_pure import _quiet, _summary

    with loaded(case) as module:
        fn, args, kwargs = module.make()
        try:
            with _quiet():
                leaks = jaxpurity.find_leaks(fn, *args, **kwargs)
        except Exception as error:  # noqa: BLE001 - what the traced call raised is a result
            return {"flagged": False, "error": None, "shown": f"raised {_summary(error)}"}
    shown = "; ".join(leak.where for leak in leaks) or "no leak"
    return {"flagged": bool(leaks), "error": None, "shown": f"{len(leaks)}: {shown}"}


def _lint(case) -> dict:
    from lint_recall_corpus import Case as LintCase

    from scorers.lint import findings_in, marked_lines

    as_lint = LintCase(
        case.id, case.source, case.impure, case.what, case.why, {f"{case.id}.py": case.code}
    )
    found = findings_in(as_lint)
    on_bug = {(path, line) for path, line, _ in found} & marked_lines(as_lint)
    shown = " ".join(f"{code}@{line}" for _, line, code in found) or "-"
    return {"flagged": bool(found), "on_bug": bool(on_bug), "error": None, "shown": shown}


SCORERS = {"check_pure": _check_pure, "find_leaks": _find_leaks, "lint": _lint}


def _verdict(case, result: dict) -> str:
    if result["error"] is not None:
        return "CRASHED"
    if case.impure:
        return "flagged" if result["flagged"] else "missed"
    return "FALSE ALARM" if result["flagged"] else "clean"


def _totals(half: str, rows: list, tools: list[str]) -> None:
    impure = [r for r in rows if r[0].impure]
    pure = [r for r in rows if not r[0].impure]
    print(f"\n{half}: {len(impure)} impure, {len(pure)} look-alikes")
    for tool in tools:
        caught = sum(r[1][tool]["flagged"] for r in impure)
        alarms = sum(r[1][tool]["flagged"] for r in pure)
        crashed = sum(r[1][tool]["error"] is not None for r in rows)
        extra = ""
        if tool == "check_pure":
            extra = f", {sum(r[1][tool]['right'] for r in impure)} with a right kind"
        if tool == "lint":
            extra = f", {sum(r[1][tool]['on_bug'] for r in impure)} on a # BUG line"
        print(
            f"  {tool:10} impure flagged {caught}/{len(impure)}{extra}; "
            f"look-alikes flagged {alarms}/{len(pure)}; crashed {crashed}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("worked", "held-out", "both"), default="both")
    parser.add_argument("--tools", nargs="+", choices=TOOLS, default=list(TOOLS))
    parser.add_argument("--check", action="store_true", help="run each case's check() too")
    args = parser.parse_args(argv)
    missing = _missing()
    if missing:
        print(f"the state corpus needs {', '.join(missing)}: pip install {' '.join(NEEDS)}")
        return 2
    import equinox
    import flax
    import jax

    halves = _halves()
    chosen = list(halves) if args.half == "both" else [args.half]
    print(f"JAX {jax.__version__}, Flax {flax.__version__}, Equinox {equinox.__version__}")
    results: dict[str, list] = {}
    for half in chosen:
        rows = []
        for case in halves[half]:
            start = time.perf_counter()
            outcome = {tool: SCORERS[tool](case) for tool in args.tools}
            rows.append((case, outcome, time.perf_counter() - start))
        results[half] = rows
    for half, rows in results.items():
        print(f"\n== {half} half")
        for case, outcome, seconds in rows:
            label = "impure" if case.impure else "look-alike"
            print(f"{case.id} ({case.source}, {case.library}) {label}, {seconds:.1f} s")
            if case.impure:
                print(f"  expected: {', '.join(case.kinds)}: {case.what}")
            if args.check:
                from state_corpus import run_check

                print(f"  check(): {run_check(case)}")
            for tool in args.tools:
                result = outcome[tool]
                error = result["error"]
                shown = f"crashed: {error}" if error is not None else result["shown"]
                print(f"  {tool:10} {_verdict(case, result):11} {shown}"[:400])
    for half, rows in results.items():
        _totals(half, rows, args.tools)
    return 0


if __name__ == "__main__":
    sys.exit(main())
