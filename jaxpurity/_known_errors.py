"""The JAX errors that :func:`jaxpurity.explain` knows: how to spot each one, and what to say.

This module is data: one :class:`KnownError` per error (and per page that
explains it), in the order the matcher (:mod:`jaxpurity._explain`) tries them.
To teach ``explain`` a new error, add an entry here with the page that shows
it (a topic of :mod:`jaxpurity._pages`) and a test in ``tests/test_explain.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jaxpurity._jax_compat import GRAD_VMAP, LOOPS, trace_names, traced_for_names, tracer_names

__all__ = ["DEAD_TRACE", "KNOWN_ERRORS", "TRACED_FUNCTION", "KnownError"]

# Text that names which transformation a leaked tracer came from, derived from the one
# table of tracer and trace names (jaxpurity._jax_compat). JAX 0.10.2 says "traced for
# scan / while_body / while_cond / fori_loop"; JAX 0.4.35 says "traced for scan /
# while_loop / while_cond" (fori_loop runs as scan or while_loop). The leak checker of
# JAX 0.10.2 says "... at file.py:3 for scan."; that of 0.4.35 does not name the
# transformation, so its loop leaks go to the jit page.
_LOOP = rf"\bfor (?:{'|'.join(traced_for_names(LOOPS))})\b"
# grad/vjp leak a LinearizeTracer (0.10.2) or JaxprTracer (0.4.35); jvp a JVPTracer;
# vmap a BatchTracer. The leak checker names the trace: "Leaked trace BatchTrace",
# "Leaked trace MainTrace(2,JVPTrace)". (DynamicJaxprTracer, from jit, does not match.)
_GRAD_VMAP = (
    rf"\bwrapped in an? (?:{'|'.join(tracer_names(GRAD_VMAP))})\b"
    rf"|\bLeaked trace (?:MainTrace\(\d+, ?)?(?:{'|'.join(trace_names(GRAD_VMAP))})\b"
)
_UNEXPECTED_TRACER = r"\bEncountered an unexpected tracer\b"
_LEAKED_TRACE = r"(?m)^Leaked trace \w"
# float(), int(), bool() or an index on a tracer: the messages of ConcretizationTypeError
# and of its subclasses TracerBoolConversionError and TracerIntegerConversionError.
_CONCRETE = r"\bAbstract tracer value encountered where concrete value is expected\b"
_BOOL = r"\bAttempted boolean conversion of traced array\b"
_INDEX = r"\bThe __index__\(\) method was called on traced array\b"

# How to tell such an error on a *leaked* tracer (used after its trace ended) from one
# inside a trace. JAX 0.4.35 says only where the tracer was made once its trace is over:
DEAD_TRACE = re.compile(r"\bThis DynamicJaxprTracer was created on line\b")
# JAX 0.10.2 words both alike: "... while tracing the function f at file.py:3 for jit."
# There the traceback decides: a leaked tracer is used after the traced function returned,
# so no frame of it is running (JAX hides only its own frames, so a traced function of
# JAX's own, such as a jitted jax.numpy function, tells nothing).
TRACED_FUNCTION = re.compile(
    r"The error occurred while tracing the function (?P<name>\S+) at (?P<file>.+?):"
    r"(?P<line>\d+) for "
)


@dataclass(frozen=True)
class KnownError:
    """One error that :func:`jaxpurity.explain` recognises: how to spot it, and what to say."""

    error: str  # the exception's class name
    topic: str  # key of jaxpurity._pages.PAGES
    patterns: tuple[str, ...]  # regexes that spot the message when the class is unknown
    scenario: str
    cause: str
    fix: str
    # A regex the message must also contain; tells apart errors of one class.
    only_if: str | None = None
    # Only for an error on a leaked tracer (see _leaked_use); such entries win over the others.
    leaked: bool = False


# First match wins, so an entry with ``only_if`` comes before the catch-all of its class.
# jaxpurity's TypeMismatchError is routed by the first line of its message, which names
# the API or the thing that mismatched ("jaxpurity.switch: the branches ...",
# "jaxpurity.fori_loop: body_fun output ... init_val", "Stateful(step): the new state ...").
KNOWN_ERRORS: tuple[KnownError, ...] = (
    KnownError(
        error="ConcretizationTypeError",
        topic="leak_from_loop_body",
        patterns=(_CONCRETE, _BOOL, _INDEX),
        only_if=_LOOP,
        leaked=True,
        scenario="Code called float(), int() or bool() (or `if`) on a value that a scan, "
        "while_loop or fori_loop body had saved outside itself (in a list, a global or an "
        "attribute).",
        cause="The value is a tracer left over from the body's trace, which has ended: it "
        "has a shape and a dtype but no value, so it cannot become a Python number. It is "
        "not a setting that needs to be static.",
        fix="Return what you need from the body: put it in the carry, or in scan's "
        "per-step output (`carry, y = body(carry, x)`), and convert the loop's result.",
    ),
    KnownError(
        error="ConcretizationTypeError",
        topic="global_counter",
        patterns=(_CONCRETE, _BOOL, _INDEX),
        leaked=True,
        scenario="Code called float(), int() or bool() (or `if`) on a value that a jitted "
        "function had saved outside itself (in a global, a list or an attribute).",
        cause="The value is a tracer left over from a trace that has ended: it has a shape "
        "and a dtype but no value, so it cannot become a Python number. It is not a "
        "setting that needs to be static.",
        fix="Return the value from the function instead of storing it, and convert the "
        "returned array (float(f(x))). jaxpurity.find_leaks(f, x) names the variable that "
        "holds the tracer and the line that stored it.",
    ),
    KnownError(
        error="UnexpectedTracerError",
        topic="leak_from_loop_body",
        patterns=(_UNEXPECTED_TRACER,),
        only_if=_LOOP,
        scenario="A scan, while_loop or fori_loop body saved a value outside itself "
        "(in a list, a global or an attribute), and later code used it.",
        cause="JAX traces a loop body once, with tracers standing in for the carry and the "
        "step's inputs; a tracer stored outside the body outlives that trace and is dead "
        "by the time it is used.",
        fix="Return what you need from the body: put it in the carry, or in scan's "
        "per-step output (`carry, y = body(carry, x)`), and read it from the loop's result.",
    ),
    KnownError(
        error="UnexpectedTracerError",
        topic="leak_from_grad_vmap",
        patterns=(_UNEXPECTED_TRACER,),
        only_if=_GRAD_VMAP,
        scenario="A function under jax.grad, jax.vjp, jax.jvp or jax.vmap saved an "
        "intermediate value outside itself, and later code used it.",
        cause="grad and vmap call your function with tracers instead of arrays; one stored "
        "in a global, a list or an attribute outlives the transformation.",
        fix="Return the value instead: get side results out of grad with "
        "jax.value_and_grad or has_aux=True, and return extra outputs from the vmapped "
        "function.",
    ),
    KnownError(
        error="UnexpectedTracerError",
        topic="global_counter",
        patterns=(_UNEXPECTED_TRACER,),
        scenario="A jitted function stored a value in a global, a list or an attribute "
        "(a counter, a cache, self.x), and later code used it.",
        cause="While jit traces a function its values are tracers; a tracer saved outside "
        "the function outlives the trace, and Python side effects run only once, when "
        "the function is traced.",
        fix="Make the function pure: pass the state in as an argument and return the new "
        "state (`count, y = step(count, x)`). Wrap the call in `with jax.checking_leaks():` "
        "to be shown the line that leaks.",
    ),
    KnownError(
        error="Exception",
        topic="leak_from_loop_body",
        patterns=(_LEAKED_TRACE,),
        only_if=_LOOP,
        scenario="jax.checking_leaks() (or JAX_CHECK_TRACER_LEAKS) caught a scan, "
        "while_loop or fori_loop body keeping a reference to one of its tracers.",
        cause="Something outside the loop body (a list, a global, an attribute) still "
        "holds a tracer after JAX finished tracing the body.",
        fix="Return what you need from the body through the carry or scan's per-step "
        "output instead of storing it; the message lists what holds the tracer.",
    ),
    KnownError(
        error="Exception",
        topic="leak_from_grad_vmap",
        patterns=(_LEAKED_TRACE,),
        only_if=_GRAD_VMAP,
        scenario="jax.checking_leaks() (or JAX_CHECK_TRACER_LEAKS) caught a function "
        "under grad, jvp or vmap keeping a reference to one of its tracers.",
        cause="Something outside the function (a list, a global, an attribute) still "
        "holds a tracer after the transformation finished.",
        fix="Return the value instead of storing it (has_aux=True for grad, an extra "
        "output for vmap); the message lists what holds the tracer.",
    ),
    KnownError(
        error="Exception",
        topic="global_counter",
        patterns=(_LEAKED_TRACE,),
        scenario="jax.checking_leaks() (or JAX_CHECK_TRACER_LEAKS) caught a jitted "
        "function keeping a reference to one of its tracers.",
        cause="Something outside the function (a list, a global, an attribute of self) "
        "still holds a tracer after jit finished tracing it.",
        fix="Make the function pure: pass state in and return the new state instead of "
        "storing it; the message lists what holds the tracer.",
    ),
    KnownError(
        error="TracerBoolConversionError",
        topic="python_control_flow",
        patterns=(_BOOL,),
        scenario="A jitted function used `if`, `while`, `and`/`or` or `assert` on a value "
        "computed from its arguments.",
        cause="Python needs a real True or False to choose a branch, but under jit the "
        "value is a tracer, which has a shape and dtype but no value yet.",
        fix="Choose values with jnp.where, branches with jax.lax.cond or jax.lax.switch, "
        "and loop with jax.lax.while_loop; if the argument is a setting, not data, mark "
        "it static (static_argnames=...).",
    ),
    KnownError(
        error="TracerIntegerConversionError",
        topic="python_control_flow",
        patterns=(_INDEX,),
        scenario="A jitted function used a traced value as a Python int: a list or tuple "
        "index, range(n), or a size.",
        cause="Python asks the value for an int (`__index__`), but under jit it is a "
        "tracer with no value yet.",
        fix="Index an array instead of a list (jnp.asarray(items)[i]), loop with "
        "jax.lax.fori_loop instead of range(n), or mark the argument static "
        "(static_argnames=...).",
    ),
    KnownError(
        error="TracerArrayConversionError",
        topic="python_control_flow",
        patterns=(
            r"\bThe numpy\.ndarray conversion method __array__\(\) was called on traced array\b",
        ),
        scenario="A transformed function passed a traced value to NumPy (np.asarray, "
        "np.sin, ...) or another library that needs a concrete array.",
        cause="NumPy needs real numbers, and a tracer cannot become a numpy.ndarray "
        "while JAX is tracing.",
        fix="Use jax.numpy instead of numpy inside jit, grad and vmap; run unavoidable "
        "host code through jax.pure_callback, and print with jax.debug.print.",
    ),
    KnownError(
        error="ConcretizationTypeError",
        topic="static_arguments",
        patterns=(_CONCRETE,),
        scenario="A jitted function needed a concrete Python value (a size for "
        "jnp.arange, a float() or int()) from a traced argument.",
        cause="Under jit, arguments are tracers: JAX knows their shape and dtype but not "
        "their value, so anything needed while tracing cannot depend on them.",
        fix="Mark the argument static (jax.jit(f, static_argnames=...)) when it is a "
        "setting such as a size, or rewrite so that only shapes, not values, decide "
        "what the code does.",
    ),
    KnownError(
        error="TypeError",
        topic="static_arguments",
        patterns=(r"\bShapes must be 1D sequences of concrete values of integer type\b",),
        scenario="A jitted function built an array whose shape comes from an argument, "
        "such as jnp.zeros(n).",
        cause="jit compiles for fixed shapes, but the size is a traced argument whose "
        "value is unknown while tracing.",
        fix="Mark the size argument static: jax.jit(f, static_argnames='n'), so each "
        "new size compiles once; or pass an array of the right shape instead.",
    ),
    KnownError(
        error="NonConcreteBooleanIndexError",
        topic="boolean_masks",
        patterns=(r"\bArray boolean indices must be concrete\b",),
        scenario="A jitted function indexed an array with a boolean mask, as in x[x > 0].",
        cause="The result's length is the number of True entries, which is unknown "
        "while tracing; jit needs every shape fixed in advance.",
        fix="Keep the shape fixed: jnp.where(mask, x, 0), reductions with where= "
        "(jnp.sum(x, where=mask)), or jnp.nonzero(mask, size=k, fill_value=...) with a "
        "static bound k.",
    ),
    KnownError(
        error="KeyReuseError",
        topic="frozen_randomness",
        patterns=(
            r"\bPreviously-consumed key passed to\b",
            r"\bargument \d+ is already consumed\b",
            r"\bleads to key reuse when repeatedly executed\b",
        ),
        scenario="With key-reuse checking on (jax.debug_key_reuse(True) or the "
        "jax_debug_key_reuse config), a PRNG key was used twice.",
        cause="JAX random numbers are a pure function of the key: reusing a key, also "
        "across the steps of a loop, repeats the same 'random' numbers.",
        fix="Split before every use: `key, sub = jax.random.split(key)`, draw with sub "
        "and keep key for later; in loops carry the key and split it every step.",
    ),
    KnownError(
        error="TypeMismatchError",
        topic="cond_branch_types",
        patterns=(),
        only_if=r"\A[^\n]*\b(?:cond|switch|branch|branches)\b",
        scenario="jaxpurity's cond or switch found branches that return different types.",
        cause="cond and switch have one output, so every branch must return the same "
        "pytree with the same shape and dtype at each leaf; the message lists each "
        "leaf that differs, by its path.",
        fix="Follow the message's 'How to fix' line for each leaf: usually cast with "
        ".astype(...), write 0.0 rather than 0, or build placeholders with "
        "jnp.zeros_like.",
    ),
    KnownError(
        error="TypeMismatchError",
        topic="loop_carry_types",
        patterns=(),
        only_if=r"\A[^\n]*\b(?:scan|fori_loop|while_loop|carry|state|init_val)\b",
        scenario="A loop body or a Stateful step returned a carry (state) of another "
        "type than the one it was given; jaxpurity checked it.",
        cause="The carry feeds the next step, so its pytree structure, shapes and "
        "dtypes must stay the same (under jit, a state that changes type would also "
        "recompile on every call); the message lists each leaf that changed.",
        fix="Follow the message's 'How to fix' line for each leaf: usually give the "
        "initial value its final dtype (jnp.asarray(0, jnp.float32), not 0) or cast "
        "the update with .astype(init.dtype).",
    ),
    KnownError(
        error="RetraceError",
        topic="static_arguments",
        patterns=(r"\bwas traced \d+ times, more than max_traces=\d+",),
        scenario="A function wrapped in jaxpurity.count_traces(max_traces=...) was traced "
        "more times than allowed.",
        cause="jit traces and compiles again whenever an argument's shape, dtype or weak "
        "type changes, a static argument takes a new value, or a new object is passed as "
        "a static argument; the message names each argument that changed.",
        fix="Follow the message's 'To avoid the retrace' line: keep shapes and dtypes "
        "fixed (pad or bucket), pass arrays rather than Python scalars, and keep static "
        "arguments to a few values (a number that is data can be passed as an array "
        "instead; a size or an axis must stay static).",
    ),
    KnownError(
        error="TypeError",
        topic="cond_branch_types",
        patterns=(
            # JAX 0.10.2
            r"\b(?:cond|switch) branches must have equal output types\b",
            r"\b(?:cond|switch) branch outputs must have the same pytree structure\b",
            # JAX 0.4.35
            r"\btrue_fun and false_fun output must have (?:identical types|same type structure)\b",
            r"\bbranch \d+ and \d+ outputs must have (?:identical types|same type structure)\b",
        ),
        scenario="jax.lax.cond or jax.lax.switch was given branches that return different types.",
        cause="cond and switch have one output, so every branch must return the same "
        "pytree with the same shape and dtype at each leaf: 0 and 0.0, or a float "
        "and an int32 array, do not match.",
        fix="Make every branch return the same structure: cast with .astype(...), "
        "write 0.0 rather than 0, and build placeholders with jnp.zeros_like.",
    ),
    KnownError(
        error="TypeError",
        topic="loop_carry_types",
        patterns=(r"\b(?:scan|while_loop) body function carry input and carry output must have\b",),
        scenario="A scan, while_loop or fori_loop body returned a carry whose shape, "
        "dtype or pytree structure differs from the initial carry.",
        cause="The carry feeds the next step, so its type must stay fixed; the usual "
        "trips are an integer start (jnp.int32(0)) updated with floats, or a carry "
        "that grows.",
        fix="Start the carry with the type it will have (0.0 or jnp.zeros(shape)), "
        "cast updates with .astype(init.dtype), and keep the same tuple or dict "
        "structure.",
    ),
    KnownError(
        error="TypeError",
        topic="inplace_updates",
        patterns=(r"\bJAX arrays are immutable and do not support in-place item assignment\b",),
        scenario="Code assigned into a JAX array, as in x[i] = v or x[i] += v.",
        cause="JAX arrays are immutable values, so they cannot be changed in place.",
        fix="Build an updated copy: x = x.at[i].set(v) (or .add, .multiply, .min, "
        ".max); under jit XLA performs it in place when it can.",
    ),
)
