"""Score jaxpurity.check_pure on the corpora of real impure and pure functions.

tests/data/purity_corpus.py holds functions reduced from public bug reports, each with its
source, its label (impure, with the kinds of problem, or pure), and an independent check that
uses only JAX and NumPy to show the label is right. tests/data/purity_corpus_fresh.py is a
second corpus in the same format, collected later from other threads by someone who had not
seen check_pure's score on it. Run:

    python scorers/check_pure.py                   # the scores, on both corpora
    python scorers/check_pure.py --corpus fresh    # on one corpus: dev (the first), fresh,
                                                   # unseen, fourth (these two by halves too)
    python scorers/check_pure.py --misses          # and every case check_pure gets wrong
    python scorers/check_pure.py --cases           # and what it found on every case
    python scorers/check_pure.py --platform        # beside the checks JAX itself offers

An impure case scores when check_pure reports a problem (or a warning) of one of its kinds; a
pure case when it reports no problem (a warning about a value read at trace time is allowed).
tests/data/purity_corpus_unseen.py, collected later still, names kinds check_pure had no word
for when it was collected (its ``NEW_KINDS``); its score is given for each of its two halves
too: the cases to work from, and the held-out ones (``HELD_OUT``), kept for checking whether a
change made from the first half holds. tests/data/purity_corpus_fourth.py, collected on
2026-12-06, is scored the same way.

``--platform`` runs, on fresh state for each, the checks a careful user already has without
jaxpurity, written with plain JAX as that user would write them:

* ``leaks``: the call under ``jax.checking_leaks()``, once jitted and once eagerly. It flags
  the case when either run raises JAX's leaked-tracer error (``UnexpectedTracerError`` or
  "Leaked trace"); any other error is counted as an error, not a finding.
* ``differential``: the function eagerly, then ``jax.jit`` of it twice. It flags the case when
  the jitted result differs from the eager one, when the two jitted calls differ, or when a
  jitted call raises where the call before it did not. Results are compared leaf by leaf
  (``np.allclose``); the static (aux) data of a pytree is not compared, since it may hold
  functions, which compare by identity.
* ``no_tracing``: ``jax.jit`` of the function called once, then again with the same arguments
  under ``jax.no_tracing(True)``. It flags the case when the second call has to trace again
  (the function changed something its jit cache key depends on). JAX 0.10.2 and 0.12.0.1
  have ``jax.no_tracing``; on a JAX without it the check is reported as not available.

It prints, for each check and for their union, how many impure cases each flags and how many
pure cases each flags (false alarms), beside check_pure, and the cases only the platform
checks catch.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "data")]

import jax  # noqa: E402
import numpy as np  # noqa: E402
from purity_corpus import CASES as DEV_CASES  # noqa: E402
from purity_corpus_fourth import CASES as FOURTH_CASES  # noqa: E402
from purity_corpus_fourth import HELD_OUT as FOURTH_HELD_OUT  # noqa: E402
from purity_corpus_fresh import CASES as FRESH_CASES  # noqa: E402
from purity_corpus_unseen import CASES as UNSEEN_CASES  # noqa: E402
from purity_corpus_unseen import HELD_OUT  # noqa: E402

import jaxpurity  # noqa: E402

CORPORA = {
    "dev": DEV_CASES,
    "fresh": FRESH_CASES,
    "unseen": UNSEEN_CASES,
    "fourth": FOURTH_CASES,
    "all": [*DEV_CASES, *FRESH_CASES, *UNSEEN_CASES],
}
#: The corpora scored by halves too: the cases to work from, and the held-out ones.
HALVES = {"unseen": HELD_OUT, "fourth": FOURTH_HELD_OUT}


@contextlib.contextmanager
def _quiet():
    """What the case prints, and JAX's warnings about it, stay off the score's output."""
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
        with contextlib.suppress(Exception):
            jax.effects_barrier()


def _summary(error: BaseException) -> str:
    """The error and the last frames it passed through, in one line."""
    frames = traceback.extract_tb(error.__traceback__)[-3:]
    where = " <- ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(frames))
    message = " ".join(str(error).split())[:160]
    return f"{type(error).__name__}: {message} [at {where}]"


def run(case):
    """``(kinds of problems, kinds of warnings, error)`` of check_pure on a fresh copy."""
    fn, args, kwargs = case.make()
    try:
        with _quiet():
            report = jaxpurity.check_pure(fn, *args, **kwargs)
    except Exception as error:  # noqa: BLE001 - a crash is a result to report
        return set(), set(), error
    return {p.kind for p in report.problems}, {w.kind for w in report.warnings}, None


# -- The platform's own checks ----------------------------------------------------------------


def _call(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    with _quiet():
        return jax.block_until_ready(fn(*args, **kwargs))


def _is_leak(error: BaseException) -> bool:
    return isinstance(error, jax.errors.UnexpectedTracerError) or "leaked" in str(error).lower()


def leaks_check(case) -> tuple[bool, list[str]]:
    """``jax.checking_leaks()`` around a jitted call and around an eager call."""
    flagged, errors = False, []
    for jitted in (True, False):
        fn, args, kwargs = case.make()
        try:
            with jax.checking_leaks():
                _call(jax.jit(fn) if jitted else fn, args, kwargs)
        except Exception as error:  # noqa: BLE001 - the check's verdict
            if _is_leak(error):
                flagged = True
            else:
                errors.append(f"{'jit' if jitted else 'eager'}: {_summary(error)}")
    return flagged, errors


def _agree(a: Any, b: Any) -> bool:
    """The same leaves (values, not the static data, which may hold functions or arrays)."""
    leaves_a, leaves_b = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    if len(leaves_a) != len(leaves_b):
        return False
    for x, y in zip(leaves_a, leaves_b, strict=True):
        try:
            x, y = np.asarray(x), np.asarray(y)
            if x.shape != y.shape or not np.allclose(x, y, equal_nan=True):
                return False
        except Exception:  # noqa: BLE001 - not an array: compare as Python values
            if x is not y and x != y:
                return False
    return True


def differential_check(case) -> tuple[bool, list[str]]:
    """Eager against jit, then the jitted function twice, each on fresh state."""
    outcomes = []
    fn, args, kwargs = case.make()
    calls = [(fn, args, kwargs)]
    jfn, jargs, jkwargs = case.make()
    jitted = jax.jit(jfn)
    calls += [(jitted, jargs, jkwargs)] * 2
    for call, call_args, call_kwargs in calls:
        try:
            outcomes.append((True, _call(call, call_args, call_kwargs)))
        except Exception as error:  # noqa: BLE001 - the check's verdict
            outcomes.append((False, error))
    errors = [_summary(value) for ok, value in outcomes if not ok]
    flagged = False
    for (ok_before, before), (ok_after, after) in zip(outcomes, outcomes[1:], strict=False):
        if ok_before and not ok_after:
            flagged = True
        elif ok_before and ok_after and not _agree(before, after):
            flagged = True
    return flagged, errors


def no_tracing_check(case) -> tuple[bool | None, list[str]]:
    """A second jitted call with the same arguments under ``jax.no_tracing(True)``."""
    if not hasattr(jax, "no_tracing"):
        return None, ["jax.no_tracing is not in this JAX"]
    fn, args, kwargs = case.make()
    jitted = jax.jit(fn)
    try:
        _call(jitted, args, kwargs)
    except Exception as error:  # noqa: BLE001 - nothing to compare with
        return False, [_summary(error)]
    try:
        with jax.no_tracing(True):
            _call(jitted, args, kwargs)
    except Exception as error:  # noqa: BLE001 - the check's verdict
        if "no_tracing" in str(error):
            return True, []
        return False, [_summary(error)]
    return False, []


PLATFORM_CHECKS = {
    "leaks": leaks_check,
    "differential": differential_check,
    "no_tracing": no_tracing_check,
}


# -- Reports ----------------------------------------------------------------------------------


def _verdict(case, kinds, warnings_, error) -> str:
    found = kinds | warnings_
    if error is not None:
        return "crashed"
    if case.impure:
        if found & set(case.kinds):
            return "right kind"
        return "wrong kind" if found else "missed"
    return "false alarm" if kinds else "passed"


def print_scores(rows, seconds: float | None, label: str) -> None:
    impure = [r for r in rows if r[0].impure]
    pure = [r for r in rows if not r[0].impure]
    flagged = [r for r in impure if r[1] | r[2]]
    right_kind = [r for r in impure if (r[1] | r[2]) & set(r[0].kinds)]
    passed = [r for r in pure if not r[1] and r[3] is None]
    warned = [r for r in pure if r[2]]
    took = "" if seconds is None else f" ({seconds:.1f} s)"
    print(f"corpus ({label}): {len(rows)} functions from bug reports{took}, JAX {jax.__version__}")
    print(f"impure: {len(flagged)}/{len(impure)} flagged, {len(right_kind)} with a right kind")
    print(f"pure: {len(passed)}/{len(pure)} passed ({len(warned)} with a warning)")
    print(f"crashed: {sum(r[3] is not None for r in rows)}")


def print_misses(rows) -> None:
    for case, kinds, warnings_, error in rows:
        found = kinds | warnings_
        if error is not None:
            print(f"  {case.id} ({case.source}): crashed {_summary(error)}"[:400])
        elif case.impure and not (found & set(case.kinds)):
            print(f"  {case.id} ({case.source}): expected {case.kinds}, got {sorted(found)}")
        elif not case.impure and kinds:
            print(f"  {case.id} ({case.source}): pure, got {sorted(kinds)}")


def print_cases(rows) -> None:
    print(f"{'case':40} {'label':6} {'verdict':11} expected kinds -> check_pure's kinds")
    for case, kinds, warnings_, error in rows:
        label = "impure" if case.impure else "pure"
        found = sorted(kinds) + [f"warning:{w}" for w in sorted(warnings_)]
        expected = ", ".join(case.kinds) or "-"
        got = "crash" if error is not None else (", ".join(found) or "nothing")
        verdict = _verdict(case, kinds, warnings_, error)
        held = "held-out " if case.id in HELD_OUT else ""
        print(f"{case.id:40} {held}{label:6} {verdict:11} {expected} -> {got}")


def print_platform(rows) -> None:
    results = {}
    for case, kinds, warnings_, error in rows:
        checks = {name: check(case) for name, check in PLATFORM_CHECKS.items()}
        results[case.id] = (case, bool(kinds | warnings_) and error is None, checks)
    impure = [r for r in results.values() if r[0].impure]
    pure = [r for r in results.values() if not r[0].impure]

    def flags(checks, name):
        if name == "union":
            return any(checks[n][0] for n in PLATFORM_CHECKS)
        return bool(checks[name][0])

    available = {
        name: any(checks[name][0] is not None for _, _, checks in results.values())
        for name in PLATFORM_CHECKS
    }
    print(f"\n{'check':32} {'impure flagged':>16} {'pure flagged':>14} {'errors':>7}")
    by_check = [("check_pure", None), *[(n, n) for n in PLATFORM_CHECKS]]
    by_check.append(("platform union", "union"))
    for title, name in by_check:
        if name is None:
            caught = sum(found for _, found, _ in impure)
            alarms = sum(found for _, found, _ in pure)
            errs = sum(1 for r in rows if r[3] is not None)
        elif name != "union" and not available[name]:
            print(f"{title:32} {'n/a (not in this JAX)':>38}")
            continue
        else:
            caught = sum(flags(checks, name) for _, _, checks in impure)
            alarms = sum(flags(checks, name) for _, _, checks in pure)
            names = PLATFORM_CHECKS if name == "union" else [name]
            errs = sum(bool(checks[n][1]) for _, _, checks in results.values() for n in names)
        print(f"{title:32} {f'{caught}/{len(impure)}':>16} {f'{alarms}/{len(pure)}':>14} {errs:>7}")
    both = sum(found or flags(checks, "union") for _, found, checks in impure)
    print(f"{'check_pure or platform':32} {f'{both}/{len(impure)}':>16}")

    header = " ".join(f"{n:12}" for n in PLATFORM_CHECKS)
    print(f"\n{'case':40} {'label':6} {'check_pure':10} {header}")
    for case, found, checks in results.values():
        label = "impure" if case.impure else "pure"
        marks = []
        for name in PLATFORM_CHECKS:
            verdict, errors = checks[name]
            mark = "n/a" if verdict is None else ("FLAG" if verdict else "-")
            marks.append(f"{mark + (' (err)' if errors and verdict is not None else ''):12}")
        print(f"{case.id:40} {label:6} {'FLAG' if found else '-':10} " + " ".join(marks))

    only_platform = [c.id for c, found, checks in impure if flags(checks, "union") and not found]
    only_check_pure = [c.id for c, found, checks in impure if found and not flags(checks, "union")]
    neither = [c.id for c, found, checks in impure if not found and not flags(checks, "union")]
    print(f"\nimpure cases only the platform checks flag ({len(only_platform)}): {only_platform}")
    print(f"impure cases only check_pure flags ({len(only_check_pure)}): {only_check_pure}")
    print(f"impure cases nothing flags ({len(neither)}): {neither}")
    print("\nerrors the platform checks met (not counted as findings):")
    for case, _, checks in results.values():
        for name, (_, errors) in checks.items():
            for error in errors:
                print(f"  {case.id} [{name}] {error}"[:300])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="all")
    parser.add_argument("--misses", action="store_true", help="list the cases it gets wrong")
    parser.add_argument("--cases", action="store_true", help="what it found on every case")
    parser.add_argument("--platform", action="store_true", help="beside JAX's own checks")
    args = parser.parse_args(argv)
    cases = CORPORA[args.corpus]
    start = time.perf_counter()
    rows = [(case, *run(case)) for case in cases]
    seconds = time.perf_counter() - start
    print_scores(rows, seconds, args.corpus)
    if args.corpus in HALVES:
        for half, held in (("to work from", False), ("held out", True)):
            print()
            rows_in_half = [r for r in rows if (r[0].id in HALVES[args.corpus]) == held]
            print_scores(rows_in_half, None, half)
    if args.misses:
        print_misses(rows)
    if args.cases:
        print_cases(rows)
    if args.platform:
        print_platform(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
