"""The diagnostics are total: on functions and arguments they have never seen, generated here
by Hypothesis, check_pure and find_leaks return (a report, a list of leaks, or a clear error),
within seconds, and leave what the call can reach as it was, with no tracer in it.

Each generated function is a module of its own, written to a file and imported, so that it has
source for the checks to read, and globals of its own: a few lines drawn from the pure ones
(``sin``, a ``cond``, a ``scan``, a ``jax.debug.print``, a recursive helper, ...) and the impure
ones (a global list appended to, a global counter, ``print``, NumPy's generator, an attribute
set on an argument, a closed-over key drawn from twice). A function with no impure line must
pass; one with an impure line must not (each of these impure lines is one check_pure sees).
The arguments are arrays, numbers, objects, dicts, and containers that hold themselves.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys
import time
from pathlib import Path
from typing import Any

import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jaxpurity

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_purity_corpus import _holds_tracer, reachable  # noqa: E402

#: Lines of a function body (four spaces in), each keeping ``x`` an array of its shape.
PURE = {
    "sin": "x = jnp.sin(x)",
    "scale": "x = x * 2.0",
    "where": "x = jnp.where(x > 0, x, -x)",
    "cond": "x = lax.cond(x.sum() > 0, lambda v: v + 1.0, lambda v: v - 1.0, x)",
    "scan": "x = lax.scan(lambda c, _: (c * 0.5, None), x, None, length=3)[0]",
    "debug_print": 'jax.debug.print("x = {}", x)',
    "recursion": "x = halve(x, 2)",
    "read_object": "x = x * getattr(obj, 'scale', 1.0)",
}
IMPURE = {
    "append_global": "LOG.append(x)",
    "count_global": "COUNT += 1\n    x = x * COUNT",
    "print": "print('tracing')",
    "numpy_random": "x = x + np.random.normal()",
    "set_attribute": "LOG.append(x) if obj is None or isinstance(obj, (list, dict)) else "
    "object.__setattr__(obj, 'last', x)",
    "key_twice": "x = x + jax.random.normal(KEY, ()) + jax.random.normal(KEY, ())",
}
MODULE = """\
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

LOG = []
COUNT = 0
KEY = jax.random.key(0)


def halve(x, n):
    return x if n == 0 else halve(x * 0.5, n - 1)


def f(x, obj):
    global COUNT
    {body}
    return x
"""

_modules = itertools.count()


class Settings:
    """A plain object argument: jit passes it whole, as a static argument."""

    def __init__(self, scale: float) -> None:
        self.scale = scale


def _module(lines: list[str], folder: Path) -> Any:
    """A new module whose ``f`` runs ``lines``, imported from a file of its own."""
    name = f"generated_{next(_modules)}"
    path = folder / f"{name}.py"
    path.write_text(MODULE.format(body="\n    ".join(lines) or "pass"), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cyclic(scale: float) -> list[Any]:
    held: list[Any] = [scale]
    held.append(held)
    return held


bodies = st.lists(st.sampled_from(sorted(PURE) + sorted(IMPURE)), min_size=0, max_size=4)
arrays = st.lists(st.floats(-4, 4, allow_nan=False, width=32), min_size=1, max_size=3).map(
    lambda xs: jnp.asarray(np.array(xs, np.float32))
)
objects = st.one_of(
    st.floats(0.5, 2, width=32).map(Settings),
    st.floats(0.5, 2).map(lambda s: {"scale": s}),
    st.floats(0.5, 2).map(_cyclic),
    st.none(),
)

# Few examples, the same on every run (each check traces and runs the function a few times,
# about a second); with JAXPURITY_EXPLORE=N set, N random ones instead.
FEW = settings(
    max_examples=int(os.environ.get("JAXPURITY_EXPLORE") or 12),
    derandomize=os.environ.get("JAXPURITY_EXPLORE") is None,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _answers(api: str, fn: Any, x: Any, obj: Any) -> tuple[Any, float]:
    """What the tool answered (a report, a list, or the error it raised) and how long it took."""
    start = time.perf_counter()
    try:
        with jaxpurity.printed(echo=False):
            answer = getattr(jaxpurity, api)(fn, x, obj)
    except Exception as error:  # noqa: BLE001 - a clear error is an answer too; checked below
        answer = error
    return answer, time.perf_counter() - start


def _is_clear_error(error: BaseException) -> bool:
    """An error the tool raised on purpose, saying what was wrong: a cycle in an argument."""
    return isinstance(error, TypeError) and str(error).startswith("jaxpurity")


@pytest.mark.timeout(300)
@pytest.mark.parametrize("api", ["check_pure", "find_leaks"])
@FEW
@given(names=bodies, x=arrays, obj=objects)
def test_the_diagnostics_answer_in_seconds_and_leave_no_harm(api, names, x, obj, tmp_path):
    module = _module([{**PURE, **IMPURE}[n] for n in names], tmp_path)
    before = reachable(module.f, (x, obj), {})
    answer, seconds = _answers(api, module.f, x, obj)
    after = reachable(module.f, (x, obj), {})
    assert seconds < 30, f"{api} took {seconds:.1f} s on {names}"
    if isinstance(answer, BaseException):
        assert _is_clear_error(answer), f"{api} crashed on {names}, {obj!r}: {answer!r}"
    elif api == "check_pure":
        assert isinstance(answer, jaxpurity.PurityReport)
        str(answer)  # the report can be written out
    else:
        assert isinstance(answer, list)
    assert not _holds_tracer(after), f"{api} left a tracer where the caller can reach: {names}"
    assert after == before, f"{api} changed what the call can reach: {names}"


@pytest.mark.timeout(300)
@FEW
@given(names=bodies, x=arrays, scale=st.floats(0.5, 2, width=32))
def test_check_pure_passes_pure_lines_and_flags_impure_ones(names, x, scale, tmp_path):
    module = _module([{**PURE, **IMPURE}[n] for n in names], tmp_path)
    with jaxpurity.printed(echo=False):
        report = jaxpurity.check_pure(module.f, x, Settings(scale))
    impure = [n for n in names if n in IMPURE]
    if impure:
        assert report.problems, f"{impure} not found:\n{report}"
    else:
        assert report.ok, f"pure lines {names} reported:\n{report}"
