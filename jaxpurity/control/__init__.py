"""The fixes as tools: drop-in control flow, ``collect``, and state you thread through it.

:func:`jaxpurity.cond`, :func:`jaxpurity.switch` and the loops (``_dropins``)
take :mod:`jax.lax`'s arguments and, where the branch or carry types differ,
name every leaf that differs (``_typediff``). :func:`jaxpurity.collect`
(``_collect``) stacks a Python loop's results with one scan, and
:func:`jaxpurity.dataclass` and :class:`jaxpurity.Stateful` (``_state``) keep
state explicit. Read ``_dropins.py`` first.

The public names are re-exported by :mod:`jaxpurity`; the modules here are private.
"""
