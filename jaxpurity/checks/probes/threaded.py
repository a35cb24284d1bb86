"""Probe: the state a compiled step returns, passed back in, makes it compile again.

A step returns its new state for the next call: ``module = step(module)``. Where that state
holds a Python value the jit keeps as a constant (an ``int`` field of an Equinox module
under ``filter_jit``, a static field of a dataclass pytree) and the step changes it, every
call compiles again: the results are right, and each step pays a trace and a compile. One
call cannot show it, so where the user's function is another library's jit (Equinox's
``filter_jit``, Flax's ``nnx.jit``: :func:`jaxpurity._introspect.library_jit`), the probe
calls it as the user does, on copies of the arrays, then again with what it returned in
place of the argument of the same kind, and watches the compile cache of the
:func:`jax.jit` inside it. (A :func:`jax.jit` wrapper is not called: its programs live in a
cache JAX shares by function, which the check leaves as it found it.)
"""

from __future__ import annotations

from typing import Any

import jax

from jaxpurity._introspect import library_jit
from jaxpurity._jax_compat import jit_cache_misses
from jaxpurity.checks._problems import problem
from jaxpurity.checks._traces import what_changed
from jaxpurity.checks._tracing import ARRAYS
from jaxpurity.checks.probes.evidence import Evidence
from jaxpurity.checks.probes.session import Session

__all__ = ["threaded_state"]


def threaded_state(session: Session) -> Evidence:
    """Call the user's compiled function twice, the second time with the state it returned,
    and warn where the second call compiled again."""
    found = Evidence()
    call = session.call
    cache = library_jit(call.fn)
    given = call.given[0]
    same_args = len(call.args) == len(given) and all(
        a is b for a, b in zip(call.args, given, strict=True)
    )
    if cache is None or not same_args:  # no library's jit, or a method (self comes first)
        return found
    first, returned = session.run_as_passed()
    session.inputs.restore()
    if first.error is not None:
        return found
    for position, state in _returned_states(given, returned[0]):
        with jit_cache_misses(cache) as compiled:
            second, _ = session.run_as_passed({position: state})
        session.inputs.restore()
        if second.error is None and compiled():
            old = given[position]
            name = next((n for n, v in call.named if v is old), f"argument {position}")
            found.add(_retracing(call.name, name, old, state))
            break
    return found


def _returned_states(args: tuple[Any, ...], returned: Any) -> list[tuple[int, Any]]:
    """``(position, value)`` for each value the call returned that can be the argument at
    that position next time: the same type, its arrays of the same shapes and dtypes."""
    values = list(returned) if isinstance(returned, (tuple, list)) else [returned]
    found = []
    for position, arg in enumerate(args):
        state = next((v for v in values if _same_kind(arg, v)), None)
        if state is not None:
            found.append((position, state))
    return found


def _same_kind(old: Any, new: Any) -> bool:
    if type(old) is not type(new) or isinstance(old, jax.Array):
        return False  # an array returned for an array argument changes no constant
    try:
        old_leaves, new_leaves = jax.tree_util.tree_leaves(old), jax.tree_util.tree_leaves(new)
        if len(old_leaves) != len(new_leaves):
            return False
        pairs = zip(old_leaves, new_leaves, strict=True)
        arrays = [(a, b) for a, b in pairs if isinstance(a, ARRAYS)]
        return all(
            isinstance(b, ARRAYS) and (a.shape, a.dtype) == (b.shape, b.dtype) for a, b in arrays
        )
    except Exception:  # noqa: BLE001 - a pytree JAX cannot flatten, a hostile leaf: no state
        return False


def _retracing(name: str, argument: str, old: Any, state: Any) -> Any:
    said, fixes = what_changed(argument, old, state, static=True)
    changed = "; ".join(said) or "its Python values or structure"
    fix = "; ".join(fixes) or "keep what changes from call to call in arrays"
    return problem("retracing", name=name, argument=argument, changed=changed, fix=fix)
