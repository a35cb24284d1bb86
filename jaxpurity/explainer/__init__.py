"""explain: map a JAX error, as people paste it, to the page of the site that fixes it.

:func:`jaxpurity.explain` (``_explain``, the matcher) reads the text or the
exception (``_pasted``) and tries the known errors (``_known_errors``, data
only) in order. ``_install`` adds its note where errors happen: a script,
Jupyter, pytest. Read ``_explain.py`` first. Reading text imports no JAX.

The public names are re-exported by :mod:`jaxpurity`; the modules here are private.
"""
