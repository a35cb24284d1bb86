"""jaxpurity lint: find impure JAX code in the source, without importing or running it.

:func:`jaxpurity.lint` (``_lint``) parses each file once; ``_scope`` finds the
functions JAX traces (with ``_functions``, ``_transformations`` and
``_annotations``) and ``_taint`` their traced values; ``_checker`` hands each
node to the rule families of ``rules/``, one module per family, each with its
rules (data) and their checks, which ``_rules`` gathers into the table in code
order. ``_report`` writes text, JSON and SARIF, and ``_flake8`` is the flake8
plugin. Read ``_lint.py`` first, then a family such as ``rules/state.py``. No
module here imports JAX.

The public names are re-exported by :mod:`jaxpurity`; the modules here are private.
"""
