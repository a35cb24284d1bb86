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

#: Held by each check while it runs: a second thread's check waits for the first.
ONE_CHECK_AT_A_TIME = threading.RLock()


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
