"""Probe: JAX's own key-reuse checker (``jax.debug_key_reuse``) on the traced call.

A key used twice draws the same numbers twice: no comparison of runs can see it, since
every run draws the same. JAX's checker, on while a function is traced, raises
``KeyReuseError`` where one key is consumed twice (drawn from twice, or drawn from and then
split). It follows typed keys (:func:`jax.random.key`); a raw ``uint32[..., 2]`` key among
the arguments (:func:`jax.random.PRNGKey`) is given to the trace as the typed key it holds,
so that its uses are followed too. Only a program that uses keys is traced again.
"""

from __future__ import annotations

import contextlib
from typing import Any

import jax
import numpy as np

from jaxpurity._jax_compat import is_ref
from jaxpurity.checks._problems import problem
from jaxpurity.checks._program import constant_keys_consumed, draws_random
from jaxpurity.checks._tracing import uncached_tracing
from jaxpurity.checks.probes.evidence import Evidence
from jaxpurity.checks.probes.session import Session
from jaxpurity.checks.probes.trace import Trace

__all__ = ["key_reuse"]


def key_reuse(session: Session, trace: Trace) -> Evidence:
    """Trace the call again with the key-reuse checker on; a key used twice is a finding, and
    so is a key the program holds as a constant and consumes: every call uses it again."""
    found = Evidence()
    if trace.split is None or not draws_random(trace.program.jaxpr):
        return found
    name = session.call.name
    for key in constant_keys_consumed(trace.program.jaxpr):
        found.add(problem("constant-key", name=name, label=_where(session, key)))
    leaves, tree = jax.tree_util.tree_flatten((trace.split.args, trace.split.kwargs))
    fn = trace.split.traceable(session.counted)

    def called(*xs: Any) -> list[Any]:
        args, kwargs = jax.tree_util.tree_unflatten(tree, xs)
        return fn(*args, **kwargs)

    typed = [_typed_key(x) for x in leaves]
    raw_keys = any(a is not b for a, b in zip(typed, leaves, strict=True))
    attempts = [typed, leaves] if raw_keys else [leaves]
    for inputs in attempts:  # with raw keys given as typed ones first, then as they are
        try:
            with jax.debug_key_reuse(True), uncached_tracing(), contextlib.redirect_stdout(None):
                jax.jit(called).trace(*inputs)
        except jax.errors.KeyReuseError as error:
            said = " ".join(str(error).strip().splitlines()[:1])
            found.add(problem("key-reuse", name=name, said=said))
            return found
        except Exception:  # noqa: BLE001 - the typed key does not fit the code: try as given
            continue
        return found
    return found


def _typed_key(x: Any) -> Any:
    """A raw threefry key (``uint32[..., 2]``) as the typed key it holds; anything else as is."""
    if is_ref(x) or getattr(x, "dtype", None) != np.uint32 or np.shape(x)[-1:] != (2,):
        return x
    try:
        return jax.random.wrap_key_data(x)
    except Exception:  # noqa: BLE001 - not a key of the default implementation
        return x


def _where(session: Session, key: Any) -> str:
    """How the report names a constant key: the global or closure variable that holds it."""
    for binding in session.call.bindings:
        if binding.get() is key:
            return binding.label
    return "a key it closes over"
