"""The errors of the pages in ``gallery/side_effects/``: printing, callbacks, keys, devices.

``print`` under a transform (output that shows a tracer: no error at all),
``jax.debug.print``'s format, callbacks under ``grad`` and ``vmap``, a PRNG key
used twice, and effects on several devices. Each group is tried where
:data:`jaxpurity.explainer.known_errors.KNOWN_ERRORS` puts it.
"""

from __future__ import annotations

from jaxpurity._jax_names import SHARD_MAP, traced_for_names, tracer_names
from jaxpurity.explainer.known_errors._shared import KnownError, Wording, any_of, unexpected_tracer

__all__ = [
    "CALLBACKS",
    "KEY_REUSE",
    "KEY_REUSE_IN_LOOPS",
    "ORDERED_EFFECTS_ACROSS_DEVICES",
    "PRINTING",
    "UNEXPECTED_TRACERS_ACROSS_DEVICES",
]

# shard_map's tracers: "traced for shard_map" (JAX 0.6 on; pmap's too from 0.8), and before
# that the tracer classes of shard_map (0.4.35: RewriteTracer under its replication check,
# ShardMapTracer outside jit) or "traced for pmap".
_SHARD_MAP = any_of(
    rf"\bfor (?:{'|'.join(traced_for_names(SHARD_MAP))})\b",
    rf"\bwrapped in an? (?:{'|'.join(tracer_names(SHARD_MAP))})\b",
)

_CALLBACK_VMAP_SCENARIO = (
    "jax.vmap went through a jax.pure_callback without vmap_method=, or through an "
    "ordered jax.experimental.io_callback."
)
_CALLBACK_VMAP_CAUSE = (
    "vmap must know how to batch your Python function: call it once per example, or once "
    "with the whole batch. An ordered io_callback promises one call after another, which a "
    "batch cannot keep."
)
_CALLBACK_VMAP_FIX = (
    "Pass vmap_method='sequential' (one call per example), 'expand_dims' or 'broadcast_all' "
    "(one call with the batch, which the function must handle) to jax.pure_callback; use an "
    "unordered io_callback, or jax.debug.callback, under vmap."
)

# What XLA's runtime says of a callback's result that does not match its declaration.
_CALLBACK_RESULT = Wording(
    r"Incorrect output (?:shape|dtype) for return value #\d+",
    "JAX 0.4.35 (XlaRuntimeError: INTERNAL: CpuCallback error), 0.10.2 and 0.12.0.1 "
    "(JaxRuntimeError: ... CpuCallback error calling callback), live; pasted in "
    "pymc-labs/pymc-marketing#1633 (2025)",
    regex=True,
)

#: UnexpectedTracerError: a tracer kept from a function under shard_map or pmap.
UNEXPECTED_TRACERS_ACROSS_DEVICES: tuple[KnownError, ...] = (
    unexpected_tracer(
        "side_effects_across_devices",
        "A function under shard_map or pmap stored a value in a global, a list or an "
        "attribute (one device's block, to look at later), and later code used it.",
        "shard_map and pmap trace the function once, for all devices, with a tracer "
        "standing for one device's block; a tracer kept outside the function outlives that "
        "trace, and never had one device's value.",
        "Return the value as another output (out_specs=(P('d'), P('d'))), or look at each "
        "device's block while it runs with jax.debug.print or jax.debug.callback.",
        _SHARD_MAP,
    ),
)

#: A key reused by a loop body.
KEY_REUSE_IN_LOOPS: tuple[KnownError, ...] = (
    # A loop body that consumes a key from outside the loop, or carries one without a fresh
    # key in its place: the checker's rules for scan (fori_loop) and while_loop.
    KnownError(
        errors=("KeyReuseError",),
        topic="keys_in_vmap_and_scan",
        wordings=(
            Wording(
                r"(?:scan|while_loop) (?:body|cond) function leads to key reuse",
                "JAX 0.4.22 to 0.12.0.1 (git history)",
                regex=True,
            ),
            Wording(
                "because key constants are repeatedly consumed",
                "JAX 0.4.24 to 0.12.0.1 (git history)",
            ),
            Wording(
                "because consumed inputs don't match sourced outputs",
                "JAX 0.4.24 to 0.12.0.1 (git history)",
            ),
        ),
        when=r"(?:scan|while_loop) (?:body|cond) function leads to key reuse",
        scenario="With key-reuse checking on, the body of a lax.scan, fori_loop or "
        "while_loop drew random numbers from a key it closed over, or carried a key without "
        "returning a fresh one.",
        cause="A loop body is traced once and runs at every step: a key from outside the loop, "
        "or a carried key that comes back unchanged, gives the same numbers at every step.",
        fix="Carry the key and split it in the body (`key, sub = jax.random.split(key)`, "
        "return the new key), or pass jax.random.split(key, n) as the scan's xs, or use "
        "jax.random.fold_in(key, i) with the step number.",
    ),
)

#: A key reused anywhere else.
KEY_REUSE: tuple[KnownError, ...] = (
    KnownError(
        errors=("KeyReuseError",),
        topic="frozen_randomness",
        wordings=(
            Wording("Previously-consumed key passed to", "JAX 0.4.26 to 0.12.0.1 (git history)"),
            Wording(
                r"argument \d+ is already consumed", "JAX 0.4.26 to 0.12.0.1 (git)", regex=True
            ),
            Wording("leads to key reuse when repeatedly executed", "JAX 0.4.22 to 0.12.0.1 (git)"),
        ),
        scenario="With key-reuse checking on (jax.debug_key_reuse(True) or the "
        "jax_debug_key_reuse config), a PRNG key was used twice.",
        cause="JAX random numbers are a pure function of the key: reusing a key, also "
        "across the steps of a loop, repeats the same 'random' numbers.",
        fix="Split before every use: `key, sub = jax.random.split(key)`, draw with sub and "
        "keep key for later; in loops carry the key and split it every step.",
    ),
)

#: An ordered effect on several devices.
ORDERED_EFFECTS_ACROSS_DEVICES: tuple[KnownError, ...] = (
    KnownError(
        errors=("ValueError",),
        topic="side_effects_across_devices",
        wordings=(
            Wording(
                "The following ordered effects are not supported for more than 1 device",
                "JAX 0.4.16 to 0.12.0.1 (git history)",
            ),
            Wording(
                "Ordered effects are not supported for more than 1 device",
                "JAX 0.3.17 to 0.4.15 (git history)",
            ),
            Wording(
                r"Ordered effects not supported (?:in `pmap`|in mesh computations)",
                "JAX 0.3.16 and older (git history)",
                regex=True,
            ),
        ),
        scenario="A function run on several devices (shard_map, pmap, or jit over sharded "
        "inputs) used jax.debug.print(..., ordered=True) or another ordered effect.",
        cause="An ordered effect must happen in one sequence, but each device runs the "
        "program on its own, and no single order exists across devices.",
        fix="Drop ordered=True and tell the lines apart instead (print "
        "jax.lax.axis_index('d') with the value, then sort), or return the values and "
        "print them after the call.",
    ),
)

#: Callbacks: jax.pure_callback, jax.experimental.io_callback.
CALLBACKS: tuple[KnownError, ...] = (
    KnownError(
        errors=("ValueError", "NotImplementedError"),
        topic="callbacks",
        wordings=(
            Wording("Pure callbacks do not support JVP", "JAX 0.3.17 to 0.12.0.1 (git history)"),
            Wording("IO callbacks do not support JVP", "JAX 0.4.2 to 0.12.0.1 (git history)"),
            Wording(
                r"(?:JVP rule is|differentiation rules are) implemented only for id_tap, not "
                r"for call",
                "jax.experimental.host_callback.call, pure_callback's forerunner: JAX 0.2.9 to "
                "0.4.34 (git history); pasted in PennyLaneAI/pennylane#2163 (2022)",
                regex=True,
            ),
            Wording(
                r"(?:Pure|IO) callbacks do not support transpose",
                "JAX 0.3.17 (Pure), 0.4.2 (IO) to 0.12.0.1 (git history); pasted in "
                "jax-ml/jax#30401 (2025)",
                regex=True,
            ),
        ),
        scenario="jax.grad (or jvp, vjp) went through a jax.pure_callback or a "
        "jax.experimental.io_callback.",
        cause="JAX differentiates each operation it knows; a callback runs Python code it "
        "cannot see into, so it has no derivative rule.",
        fix="Give the callback a derivative with jax.custom_jvp (or jax.custom_vjp), "
        "computing the tangent with JAX or another callback; for a callback kept only for "
        "its side effect (logging), use jax.debug.callback, which grad goes through.",
    ),
    KnownError(
        errors=("NotImplementedError",),
        topic="callbacks",
        wordings=(
            Wording(
                r"vmap is only supported for the \w+ primitive when vmap_method is one of",
                "JAX 0.4.35 (for an unknown vmap_method) to 0.12.0.1; with none given, from "
                "0.6.0 (git history)",
                regex=True,
            ),
            Wording(
                r"IO effect not supported in vmap-of-(?:while|cond)",
                "JAX 0.4.2 to 0.12.0.1 (git history); pasted in jax-ml/jax#20628 (2024)",
                regex=True,
            ),
        ),
        scenario=_CALLBACK_VMAP_SCENARIO,
        cause=_CALLBACK_VMAP_CAUSE,
        fix=_CALLBACK_VMAP_FIX,
    ),
    KnownError(
        errors=("ValueError",),
        topic="callbacks",
        wordings=(
            Wording("Cannot `vmap` ordered IO callback", "JAX 0.4.2 to 0.12.0.1 (git history)"),
            Wording(
                "batching rules are implemented only for id_tap, not for call",
                "jax.experimental.host_callback.call under vmap: JAX 0.2.9 to 0.4.34 (git history)",
            ),
            Wording(
                "argument of jax.pure_callback was removed in JAX v0.6.0",
                "vectorized=: JAX 0.6.0 to 0.9.x (git history)",
            ),
        ),
        scenario=_CALLBACK_VMAP_SCENARIO,
        cause=_CALLBACK_VMAP_CAUSE,
        fix=_CALLBACK_VMAP_FIX,
    ),
    # The callback's result checked against what it declared, when the compiled program runs:
    # XLA's runtime error quotes the callback's Python traceback, ending in this RuntimeError.
    KnownError(
        errors=("JaxRuntimeError", "XlaRuntimeError", "RuntimeError"),
        topic="callbacks",
        wordings=(_CALLBACK_RESULT,),
        when=_CALLBACK_RESULT.text,  # of XLA's runtime errors, only this one
        scenario="A jax.pure_callback (or io_callback) returned an array of another shape or "
        "dtype than the result_shape_dtypes it declared.",
        cause="JAX compiles the program around the declared result (jax.ShapeDtypeStruct), "
        "before the callback ever runs; when it runs, its output must match that declaration "
        "exactly, and under vmap it must hold the whole batch.",
        fix="Declare what the function really returns, jax.ShapeDtypeStruct(shape, dtype) for "
        "each output, and make it return exactly that: np.asarray(out, dtype=...) with the "
        "declared shape; check the shape under vmap with the vmap_method you chose.",
    ),
)

#: jax.debug.print's format, and printed output that shows a tracer (no error at all).
PRINTING: tuple[KnownError, ...] = (
    KnownError(
        errors=("ValueError",),
        topic="print_vs_debug_print",
        wordings=(
            Wording(
                r"Unused (?:positional|keyword) arguments to `jax\.debug\.print`",
                "JAX 0.4.35, 0.10.2 and 0.12.0.1 (live: jax.debug.print('x %d', x)); pasted in "
                "google-deepmind/torax#1502 (2025)",
                regex=True,
            ),
        ),
        scenario="jax.debug.print was given a format string whose placeholders do not take "
        "all its arguments: a %-style string ('x = %d'), or fewer {} than values.",
        cause="jax.debug.print formats with str.format when the compiled function runs: only "
        "{} (or {name}) placeholders take values, and an argument no placeholder takes is an "
        "error.",
        fix="Write the format with braces, one per value: jax.debug.print('x = {} y = {:.3f}', "
        "x, y), or by name: jax.debug.print('x = {x}', x=x).",
    ),
    # A format spec applied to a tracer ({x:.3f}): Python's TypeError from object.__format__,
    # which takes no spec. An f-string in print or logging inside jit, or a spec in
    # jax.debug.print's own format on JAX that formatted with the tracers (jax-ml/jax#23475).
    KnownError(
        errors=("TypeError",),
        topic="print_vs_debug_print",
        wordings=(
            Wording(
                r"unsupported format string passed to \w{0,40}Tracer\.__format__",
                "Python's TypeError for a format spec on a tracer: JAX 0.4.35, 0.10.2 and "
                "0.12.0.1 (live: f'{x:.3f}' under jit); pasted in jax-ml/jax#23475 (2024)",
                regex=True,
            ),
        ),
        scenario="A jitted function formatted a traced value with a format spec, as in "
        "print(f'loss {loss:.3f}') or a logging call.",
        cause="The f-string runs while JAX traces the function, when the value is a tracer (a "
        "placeholder with a shape and dtype) that has no number to format.",
        fix="Print run-time values with jax.debug.print, which formats them when the compiled "
        "function runs: jax.debug.print('loss {:.3f}', loss); or format the result outside "
        "jit: print(f'{float(loss):.3f}').",
    ),
    KnownError(
        errors=(),
        topic="print_vs_debug_print",
        see_also=("global_counter", "leak_from_grad_vmap", "leak_through_self"),
        wordings=(
            Wording(
                r"Traced<[^<>\n]{1,120}>with<",
                "Traced<ShapedArray(...)>with<...>: JAX 0.1.49 and older to 0.6.2 (git history)",
                regex=True,
            ),
            Wording(
                r"Traced<[^<>\n]{1,120}:\w{1,40}Trace\(",
                "Traced<ShapedArray(...):JaxprTrace(...)>: pasted in jax-ml/jax#196 (2019)",
                regex=True,
            ),
            Wording(
                r"\b(?:Jit|Jaxpr|Vmap|Grad|JVP|Batch|Linearize)Tracer[(<]",
                "JitTracer<...>: 0.7.0 to 0.8.1; JitTracer(...): 0.8.2 to 0.12.0.1 (git history)",
                regex=True,
            ),
        ),
        no_error=True,
        scenario="A print (or logging call) inside a jitted, vmapped or differentiated "
        "function showed a tracer instead of numbers.",
        cause="Python's print runs while JAX traces the function, once, when the values are "
        "tracers (placeholders with a shape and dtype); it does not run when the compiled "
        "function runs.",
        fix="Print run-time values with jax.debug.print('x = {}', x) (ordered=True keeps the "
        "order); or step through eagerly under jax.disable_jit().",
    ),
)
