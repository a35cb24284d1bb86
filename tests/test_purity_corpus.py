"""check_pure on real impure and pure functions, and what it leaves behind (nothing).

tests/data/purity_corpus.py holds functions reduced from public bug reports, each with its
source, its label, and an independent check (JAX and NumPy only) that shows the label is right;
tests/data/purity_corpus_fresh.py is a second corpus in the same format, collected later.
``python scorers/check_pure.py`` prints the scores and the misses. Here: the labels of both
corpora hold on this JAX; on the first corpus, the scores do not fall below what was measured,
and after every check the caller's arguments, bound object and the function's globals are as
they were, with no tracer inside, compared by a deep walk of its own (not by jaxpurity's
snapshot). The fresh corpus's scores are reported, not asserted: its floors are set once
check_pure has been changed for it.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import jax
import numpy as np
import pytest

import jaxpurity

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))
from purity_corpus import CASES  # noqa: E402
from purity_corpus_fresh import CASES as FRESH_CASES  # noqa: E402

JAX = jax.__version__
LABELLED = [*CASES, *FRESH_CASES]
IMPURE = [c for c in CASES if c.impure]
PURE = [c for c in CASES if not c.impure]
# Right kinds among impure cases when check_pure was last changed (closing notes): 35 of 37.
MISSED_AT_MOST = 2


def _ids(cases: list[Any]) -> list[str]:
    return [c.id for c in cases]


@pytest.mark.parametrize("case", LABELLED, ids=_ids(LABELLED))
def test_the_label_holds_on_this_jax(case):
    if "." in JAX and not any(JAX.startswith(v) for v in case.versions):
        pytest.skip(f"{case.id} was seen on JAX {case.versions}, not {JAX}")
    assert case.check(), f"{case.id} ({case.source}) does not behave as labelled on JAX {JAX}"


def _report(case):
    fn, args, kwargs = case.make()
    report = jaxpurity.check_pure(fn, *args, **kwargs)
    return report, {p.kind for p in [*report.problems, *report.warnings]}


def test_impure_functions_are_flagged_with_the_right_kind():
    missed = [c.id for c in IMPURE if not (_report(c)[1] & set(c.kinds))]
    assert len(missed) <= MISSED_AT_MOST, missed


@pytest.mark.parametrize("case", PURE, ids=_ids(PURE))
def test_pure_functions_pass(case):
    report, _ = _report(case)
    assert report.ok, str(report)


# -- Nothing is left changed ------------------------------------------------------------------

_SKIP = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type, types.MethodType)


def _state(value: Any, depth: int = 0, seen: set[int] | None = None) -> Any:
    """A deep, comparable picture of ``value``: structure, array values, object attributes."""
    seen = set() if seen is None else seen
    if isinstance(value, jax.core.Tracer):
        return ("TRACER", type(value).__name__)
    if isinstance(value, (jax.Array, np.ndarray, np.generic)):
        return ("array", np.asarray(value).tolist())
    if isinstance(value, (bool, int, float, complex, str, bytes, type(None))):
        return value
    if isinstance(value, _SKIP) or depth > 6 or id(value) in seen:
        return ("ref", id(value))
    seen.add(id(value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_state(v, depth + 1, seen) for v in value])
    if isinstance(value, dict):
        return ("dict", [(repr(k), _state(v, depth + 1, seen)) for k, v in value.items()])
    if isinstance(value, (set, frozenset)):
        return ("set", sorted(map(repr, value)))
    attrs = getattr(value, "__dict__", None)
    if isinstance(attrs, dict):
        return (type(value).__name__, [(k, _state(v, depth + 1, seen)) for k, v in attrs.items()])
    return ("ref", id(value))


def _reachable(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """What the call can reach: its arguments, a bound object, the globals its code names."""
    roots: dict[str, Any] = {"args": args, "kwargs": kwargs}
    inner = fn
    for _ in range(10):
        if isinstance(inner, types.MethodType):
            roots["self"] = inner.__self__
            inner = inner.__func__
        elif getattr(inner, "__wrapped__", None) is not None:
            inner = inner.__wrapped__
        else:
            break
    code = getattr(inner, "__code__", None)
    if code is not None:
        namespace = inner.__globals__
        roots["globals"] = {n: namespace[n] for n in code.co_names if n in namespace}
        cells = [c.cell_contents for c in inner.__closure__ or () if _filled(c)]
        roots["closure"] = cells
    return _state(roots)


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def _holds_tracer(picture: Any) -> bool:
    if isinstance(picture, tuple) and picture[:1] == ("TRACER",):
        return True
    if isinstance(picture, (list, tuple)):
        return any(map(_holds_tracer, picture))
    return False


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_check_pure_leaves_arguments_objects_and_globals_as_they_were(case):
    fn, args, kwargs = case.make()
    before = _reachable(fn, args, kwargs)
    jaxpurity.check_pure(fn, *args, **kwargs)
    after = _reachable(fn, args, kwargs)
    assert not _holds_tracer(after), f"{case.id}: a tracer is left where the caller can reach"
    assert after == before, f"{case.id}: the check changed what the call can reach"


@pytest.mark.parametrize("case", IMPURE, ids=_ids(IMPURE))
def test_find_leaks_leaves_arguments_objects_and_globals_as_they_were(case):
    fn, args, kwargs = case.make()
    before = _reachable(fn, args, kwargs)
    try:
        jaxpurity.find_leaks(fn, *args, **kwargs)
    except Exception:  # noqa: BLE001 - some cases raise under a trace; the state must hold anyway
        pass
    after = _reachable(fn, args, kwargs)
    assert not _holds_tracer(after), f"{case.id}: a tracer is left where the caller can reach"
    assert after == before, f"{case.id}: find_leaks changed what the call can reach"
