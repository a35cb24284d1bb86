"""The runtime checks: run the user's function and watch what it does.

:func:`jaxpurity.check_pure` (``_purity``), :func:`jaxpurity.find_leaks`
(``_leaks``) and :func:`jaxpurity.count_traces` (``_traces``) trace and call the
function under test, and report in plain words what breaks under ``jit``,
``grad`` and ``vmap``. Read ``_purity.py`` first: it runs every pass in order.
``_call`` binds the checked call once, and every pass reads that record.
``_tracing`` is the harness that traces a call as ``jit`` would; ``_guard`` and
``_snapshot`` (the one walker of the state a call reaches, which ``_watch``
also reads) make sure a check leaves the caller's state as it found it.

The public names are re-exported by :mod:`jaxpurity`; the modules here are private.
"""
