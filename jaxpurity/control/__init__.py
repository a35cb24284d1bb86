"""The fixes as tools: drop-in control flow, ``collect``, and state you thread through it.

:func:`jaxpurity.cond`, :func:`jaxpurity.switch` (``_branches``) and the loops (``_loops``)
take :mod:`jax.lax`'s arguments and, where the branch or carry types differ,
name every leaf that differs (``_typediff``). :func:`jaxpurity.collect`
(``_collect``) stacks a Python loop's results with one scan, and
:func:`jaxpurity.dataclass` and :class:`jaxpurity.Stateful` (``_state``) keep
state explicit. Read ``_through_lax.py`` first: how every drop-in calls lax.

The public names are re-exported by :mod:`jaxpurity`; the modules here are private.
"""
