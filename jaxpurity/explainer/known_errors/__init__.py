"""The JAX errors that :func:`jaxpurity.explain` knows: how to spot each one, and what to say.

This package is data, split as the site is: the errors that a page of
``gallery/<section>/`` shows are in the module of that section
(``_state_and_leaks``, ``_control_flow``, ``_gradients``, ``_side_effects``,
``_compiled_code``; ``_control_flow_types`` holds the control-flow section's
errors of types and writes), in groups of entries that belong together. ``_shared``
holds the :class:`KnownError` and :class:`Wording` classes and the wordings of
more than one page. Each :class:`Wording` is a fixed part of a message as some
JAX version printed it, with the versions it was seen in: JAX rewords its errors
often, and people paste messages from every version.

Here the groups are put in the order in which the matcher
(:mod:`jaxpurity.explainer._explain`) tries them, :data:`KNOWN_ERRORS`. The
first entry that matches wins, so this order is behaviour: where one text can
match two entries, the one that reads more of it (a ``when``, an ``unless``, the
code that raised) comes first, and the catch-all of a class comes last. Groups
of different sections interleave where their messages overlap; the comment on
each says why it comes where it does. To teach ``explain`` a new error, add an
entry to the group of its page's section, before the catch-all of its class
(a new group takes its place in this list too), with the page that shows it (a
topic of :mod:`jaxpurity._pages`) and a test in ``tests/test_explain.py``.
"""

from __future__ import annotations

from jaxpurity.explainer.known_errors import (
    _compiled_code,
    _control_flow,
    _control_flow_types,
    _gradients,
    _side_effects,
    _state_and_leaks,
)
from jaxpurity.explainer.known_errors._shared import (
    DEAD_TRACE,
    TRACED_FUNCTION,
    KnownError,
    Wording,
)

__all__ = ["DEAD_TRACE", "KNOWN_ERRORS", "TRACED_FUNCTION", "KnownError", "Wording"]

#: Every entry, in the order the matcher tries them.
KNOWN_ERRORS: tuple[KnownError, ...] = (
    # float(), int(), bool() or `if` on a tracer that leaked out of an earlier trace. The
    # matcher tries these only for an error raised on a leaked tracer, and before the others.
    *_state_and_leaks.CONVERSIONS_OF_LEAKED_TRACERS,
    # Errors whose message can carry a leak's words without being a leak, before the leaks.
    # JAX 0.12 appends to a slicing error where the tracer was made ("This VmapTracer with
    # object id 1407... was created on line"), which the leak checker's wording has too.
    *_control_flow.TRACED_SLICE_BOUNDS,
    # A function of JAX's own jitted whole (jax.jit(jnp.tile)): JAX 0.6.2 calls its traced
    # setting a leak ("The function being traced when the value leaked was integer_pow").
    *_control_flow.JAX_FUNCTION_TRACED,
    # UnexpectedTracerError: by what held the tracer (a Haiku module, a cache, a loop body,
    # grad or vmap, an object; a function on several devices), then the catch-all.
    *_state_and_leaks.UNEXPECTED_TRACERS_BY_HOLDER,
    *_side_effects.UNEXPECTED_TRACERS_ACROSS_DEVICES,
    *_state_and_leaks.UNEXPECTED_TRACERS_ANYWHERE,
    # The leak checker's Exception, and Flax's refusal to leak into a module.
    *_state_and_leaks.LEAK_CHECKER,
    *_state_and_leaks.FLAX_MODULE_STATE,
    *_state_and_leaks.FROZEN_FIELDS,
    # jit on a method, which traces `self`: before the entry for the other arguments jit cannot
    # trace (static_arguments, in SIZES_AND_STATIC_ARGUMENTS), which goes by their types.
    *_state_and_leaks.SELF_TRACED_BY_JIT,
    # The concretization family (a traced value where Python or JAX needs a concrete one):
    # by the function that needed it, then by what the code did with it, then float() of a
    # grad or vmap tracer (one that leaked, as the traceback shows, went to the leaks above);
    # last the family's catch-all, after the errors whose messages carry the same detail
    # lines ("This concrete value was not available in Python ...").
    *_control_flow.NUMBERS_FOR_JAX_FUNCTIONS,
    *_control_flow.CONTROL_FLOW_ON_TRACERS,
    *_control_flow.SIZES_AND_STATIC_ARGUMENTS,
    *_control_flow.CONVERSIONS_UNDER_GRAD_OR_VMAP,
    *_control_flow.CONCRETIZATION_CATCH_ALL,
    # Errors with messages of their own; where two entries share a class, the one with a
    # condition comes first: KeyReuseError in a loop body before the catch-all of the class,
    # and count_traces's RetraceError that names no argument (retracing_storms) before the one
    # that does (static_arguments, in jaxpurity's own errors).
    *_side_effects.KEY_REUSE_IN_LOOPS,
    *_gradients.DEBUG_NANS,
    *_gradients.REVERSE_MODE_THROUGH_LOOPS,
    *_side_effects.KEY_REUSE,
    *_side_effects.ORDERED_EFFECTS_ACROSS_DEVICES,
    *_compiled_code.CHECKIFY,
    *_compiled_code.RETRACING,
    *_side_effects.CALLBACKS,
    *_compiled_code.DONATED_BUFFERS,
    *_state_and_leaks.MUTABLE_ARRAY_REFERENCES,
    *_control_flow.JAXPURITY_OWN_ERRORS,
    *_control_flow_types.BRANCH_AND_CARRY_TYPES,
    *_control_flow_types.ARRAY_WRITES,
    # jax.debug.print's format, and printed output that shows a tracer (no error at all).
    *_side_effects.PRINTING,
)
