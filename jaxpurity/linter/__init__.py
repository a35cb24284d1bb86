"""jaxpurity lint: find impure JAX code in the source, without importing or running it.

The driver, here: :func:`jaxpurity.lint` (``_lint``) finds the files and parses
each once; ``_run`` checks a tree as one package, in rounds across its modules;
``_checker`` hands each node of a module to the rule families, each check with
its context (``_context``: the module, a traced function, a scope); ``_rules``
gathers the families' rules into the table, in code order (``_family``: what a
family is). ``_config`` reads ``[tool.jaxpurity.lint]``, ``_finding`` is a
finding, ``_report`` writes text, JSON and SARIF, and ``_flake8`` is the flake8
plugin.

``analysis/``: what the linter knows of a module before any rule looks at it
(which functions JAX traces, which values hold tracers, and how traced code
crosses into the package's other modules); it imports no rule. ``rules/``: one
module per family, each with its rules (data) and their checks, which see the
analysis only through their contexts.

Read ``_lint.py`` first, then ``analysis/_module.py``, then a family such as
``rules/state.py``. No module here imports JAX. The public names are re-exported
by :mod:`jaxpurity`; the modules here are private.
"""
