"""Run a call and keep what it returned or raised, and tell whether two such outcomes agree."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from jaxpurity._naming import short_repr
from jaxpurity.checks._tracing import array_leaves

__all__ = ["Outcome", "agree", "run"]


@dataclass(frozen=True)
class Outcome:
    """The array leaves a call returned, or the exception it raised."""

    values: list[np.ndarray] | None
    error: BaseException | None

    def __str__(self) -> str:
        if self.error is not None:
            lines = str(self.error).strip().split(". ")[0].splitlines()
            said = lines[0].rstrip(".") if lines else ""
            said = said if len(said) <= 80 else said[:77] + "..."
            return f"raised {type(self.error).__name__}" + (f" ({said})" if said else "")
        assert self.values is not None  # an outcome has values or an error
        shown = [_rounded(v) if v.size <= 6 else f"{v.dtype}{list(v.shape)}" for v in self.values]
        return f"returned {short_repr(shown[0] if len(shown) == 1 else shown)}"


def _rounded(v: np.ndarray) -> Any:
    """A small array as Python values, floats to 4 significant digits (0.5, not 0.49999997)."""
    if np.issubdtype(v.dtype, np.floating):
        return np.vectorize(lambda x: float(f"{x:.4g}"), otypes=[object])(v).tolist()
    return v.tolist()


def run(call: Callable[[], Any]) -> Outcome:
    try:
        values = [_as_numpy(x) for x in array_leaves(jax.block_until_ready(call()))]
    except Exception as error:  # noqa: BLE001 - a failing call is one of the outcomes compared
        return Outcome(None, error)  # a leaked tracer returned cannot be read: that, too
    return Outcome(values, None)


def _as_numpy(x: Any) -> np.ndarray:
    dtype = getattr(x, "dtype", None)
    if dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key):
        x = jax.random.key_data(x)
    return np.asarray(x)


def agree(a: Outcome, b: Outcome) -> bool:
    if a.error is not None or b.error is not None:
        return type(a.error) is type(b.error)
    assert a.values is not None and b.values is not None
    if len(a.values) != len(b.values):
        return False
    for x, y in zip(a.values, b.values, strict=True):
        if x.shape != y.shape:
            return False
        if np.issubdtype(x.dtype, np.inexact) or np.issubdtype(y.dtype, np.inexact):
            low = min(np.finfo(d).bits for d in (x.dtype, y.dtype) if np.issubdtype(d, np.inexact))
            rtol = 1e-2 if low <= 16 else 1e-4
            if not np.allclose(x, y, rtol=rtol, atol=rtol / 10, equal_nan=True):
                return False
        elif not np.array_equal(x, y):
            return False
    return True
