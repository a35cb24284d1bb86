"""explain: map a JAX error, as people paste it, to the page of the site that fixes it.

:func:`jaxpurity.explain` (``_explain``, the matcher) reads the exception or the
pasted text (``_pasted``) and tries the known errors in order: ``known_errors/``,
data only, one module per section of the site, assembled in its ``__init__``.
``_install`` adds the note where errors happen: a script, Jupyter, pytest.
Read ``_explain.py`` first. Reading text imports no JAX. What it says in Chinese
is in the package's gettext catalog (``jaxpurity/locale/``), which
:func:`jaxpurity._languages.translate` reads when Chinese is first asked for.

The public names are re-exported by :mod:`jaxpurity`; the modules here are private.
"""
