"""jaxpurity lint: find impure JAX code in the source, without importing or running it.

:func:`jaxpurity.lint` (``_lint``) parses each file once, finds the functions
JAX traces and their traced values (``_scope``, ``_taint``), and runs the rules
(``_rules``, data; their checks in ``_checks``). ``_report`` writes text, JSON
and SARIF, and ``_flake8`` is the flake8 plugin. Read ``_lint.py`` first. No
module here imports JAX.

The public names are re-exported by :mod:`jaxpurity`; the modules here are private.
"""
