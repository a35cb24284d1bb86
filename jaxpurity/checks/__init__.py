"""The runtime checks: run the user's function and watch what it does.

:func:`jaxpurity.check_pure` (``_purity``), :func:`jaxpurity.find_leaks`
(``_leaks``) and :func:`jaxpurity.count_traces` (``_traces``) trace and call the
function under test, and report in plain words what breaks under ``jit``,
``grad`` and ``vmap``. Read ``_purity.py`` first: a short driver over the probes
of ``probes/`` (the watched trace, the compared runs, vmap and vjp, JAX's key-reuse
checker, lint), each of which returns evidence and none of which raises for what
the user's code or JAX does. ``_call`` binds the checked call once, and every probe
reads that record.
``_tracing`` is the harness that traces a call as ``jit`` would; ``_guard`` and
``_snapshot`` (the one walker of the state a call reaches, which ``_watch``
also reads) make sure a check leaves the caller's state as it found it.

The public names are re-exported by :mod:`jaxpurity`; the modules here are private.
"""
