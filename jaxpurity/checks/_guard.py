"""A diagnostic never harms: plain Python only, one check at a time, everything put back.

:func:`jaxpurity.check_pure` and :func:`jaxpurity.find_leaks` trace and run the
user's function. They refuse to run inside a JAX transformation, where their
own traces would mix with the caller's; they run one at a time in a process,
because they capture ``sys.stdout`` and patch ``os.environ``'s class and the
clock for a moment; and they record the state the function can reach
(:class:`jaxpurity.checks._snapshot.Snapshot`) so that they put it all back.
"""

from __future__ import annotations

import threading
from typing import Any

from jaxpurity._jax_compat import trace_in_progress
from jaxpurity._leaftypes import is_tracer
from jaxpurity._platforms import require_cpu_device
from jaxpurity.checks._tracing import flatten_arguments

__all__ = [
    "ONE_CHECK_AT_A_TIME",
    "require_plain_python",
]


_NO_THREADS: frozenset[int | None] = frozenset()


class _OneCheckAtATime:
    """Held by each check while it runs: a second thread's check waits for the first.

    Except where the second thread was started by the code being checked (a function that
    starts a thread calling ``check_pure`` and joins it): it would wait for the first check,
    which waits for it. Such a call is refused at once, with a clear error.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._depth = 0
        # The threads alive when the running check began; empty between checks, so that a
        # caller who freezes the collector's objects (gc.freeze) finds none of ours to free.
        self._threads_before: frozenset[int | None] = _NO_THREADS

    def __enter__(self) -> None:
        if not self._lock.acquire(blocking=False):
            if self._depth and threading.get_ident() not in self._threads_before:
                raise TypeError(
                    "jaxpurity: check_pure or find_leaks was called from a thread that the "
                    "function being checked started, while that check runs: checks run one at "
                    "a time, so this call would wait for the check that waits for it. Call it "
                    "from plain Python, not from the code being checked."
                )
            self._lock.acquire()
        if self._depth == 0:
            self._threads_before = frozenset(t.ident for t in threading.enumerate())
        self._depth += 1

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._threads_before = _NO_THREADS
        self._lock.release()


#: Held by each check while it runs (see :class:`_OneCheckAtATime`).
ONE_CHECK_AT_A_TIME = _OneCheckAtATime()


def require_plain_python(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any], api: str) -> None:
    """Raise a clear error for a call the check cannot make: a non-function, inside a trace,
    or with no CPU device for the host callbacks it watches through (``JAX_PLATFORMS=cuda``).

    Example:
      >>> import jax
      >>> def f(x):
      ...     require_plain_python(lambda y: y, (x,), {}, "check_pure")
      ...     return x
      >>> jax.jit(f)(1.0)
      Traceback (most recent call last):
      TypeError: jaxpurity.check_pure was called inside a JAX transformation (jit, grad, vmap, a loop body): it traces and runs the function itself, so call it from plain Python, outside jax.jit and the others, with example arrays...
    """  # noqa: E501
    if not callable(fn):
        raise TypeError(
            f"jaxpurity.{api}: fn must be a function (or a jax.jit of one), got {fn!r} "
            f"(type {type(fn).__name__}); pass the function itself, then its arguments: "
            f"jaxpurity.{api}(f, x)"
        )
    leaves, _ = flatten_arguments((args, kwargs))
    if trace_in_progress() or any(map(is_tracer, leaves)):
        raise TypeError(
            f"jaxpurity.{api} was called inside a JAX transformation (jit, grad, vmap, a loop "
            "body): it traces and runs the function itself, so call it from plain Python, "
            "outside jax.jit and the others, with example arrays"
        )
    require_cpu_device(f"jaxpurity.{api}")  # it watches the program through host callbacks
