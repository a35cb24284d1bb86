"""The errors of ``gallery/control_flow/`` that are about types and writes, not traced values.

The types of ``cond``'s branches and of a loop's carry, and writes into an
array (the section's traced values are in
:mod:`~jaxpurity.explainer.known_errors._control_flow`). Each group is tried where
:data:`jaxpurity.explainer.known_errors.KNOWN_ERRORS` puts it.
"""

from __future__ import annotations

from jaxpurity.explainer.known_errors._shared import KnownError, Wording

__all__ = ["ARRAY_WRITES", "BRANCH_AND_CARRY_TYPES"]

#: Branch and carry types of lax's control flow.
BRANCH_AND_CARRY_TYPES: tuple[KnownError, ...] = (
    KnownError(
        errors=("TypeError",),
        topic="cond_branch_types",
        wordings=(
            Wording(
                r"true_fun and false_fun outputs? must have (?:identical|same) t",
                "JAX 0.1.49 and older (outputs), 0.1.55 to 0.4.38 (output); git history",
                regex=True,
            ),
            Wording(
                r"true_fun output (?:and false_fun output )?must have (?:identical types|same "
                r"type structure)",
                "JAX 0.5.0 to 0.5.3 (git history)",
                regex=True,
            ),
            Wording(
                r"branch \d+ (?:and \d+ outputs|output(?: and branch \d+ output)?) must have "
                r"(?:identical types|same type structure)",
                "switch: 0.1.70 to 0.4.38 (branch 0 and 1 outputs), 0.5.0 to 0.5.3; git history",
                regex=True,
            ),
            Wording(
                r"\b(?:cond|switch) branches must have equal output types",
                "JAX 0.6.0 to 0.12.0.1 (git history)",
                regex=True,
            ),
            Wording(
                r"\b(?:cond|switch) branch outputs must have the same pytree structure",
                "JAX 0.6.0 to 0.12.0.1 (git history)",
                regex=True,
            ),
            Wording(
                r"but the corresponding output of (?:false_fun|branch \d+) has type",
                "the detail lines: JAX 0.6.0 to 0.12.0.1 (git history)",
                regex=True,
            ),
        ),
        scenario="jax.lax.cond or jax.lax.switch was given branches that return different types.",
        cause="cond and switch have one output, so every branch must return the same pytree "
        "with the same shape and dtype at each leaf: 0 and 0.0, or a float and an int32 "
        "array, do not match.",
        fix="Make every branch return the same structure and dtypes: cast with .astype(...), "
        "write the dtype explicitly (jnp.zeros((), jnp.float32)) rather than a bare 0, and "
        "build placeholders with jnp.zeros_like.",
    ),
    KnownError(
        errors=("TypeError", "RuntimeError"),
        topic="loop_carry_types",
        wordings=(
            Wording(
                r"body_fun output and input must have (?:identical types|same type structure)",
                "while_loop, fori_loop: JAX 0.1.55 to 0.4.31 (git history)",
                regex=True,
            ),
            Wording(
                r"scan carry output and input must have (?:identical types|same type structure)",
                "scan: JAX 0.1.49 and older to 0.4.6 (git history)",
                regex=True,
            ),
            Wording(
                r"carry input and carry output must have (?:equal types|the same pytree structure)",
                "scan, while_loop, fori_loop: JAX 0.4.7 to 0.12.0.1 (git history)",
                regex=True,
            ),
            Wording(
                "body function carry input and",
                "the start of the wording above, as a paste cut short shows it ('scan body "
                "function carry input and carr'): pasted in instadeepai/Mava#1184 (2024)",
            ),
            Wording(
                r"the input carry (?:component )?\S+ has type \S+ but the corresponding output "
                r"carry component has type",
                "the detail lines: JAX 0.4.7 to 0.12.0.1 (git history)",
                regex=True,
            ),
            Wording("body_fun output pytree structure must match init_val", "JAX 0.1.49 (git)"),
            Wording(
                "The parameter of condition and body, the result of the body, and init must "
                "all have the same shape",
                "XLA's RuntimeError for a while_loop carry: pasted in jax-ml/jax#1681 (2019)",
            ),
        ),
        scenario="A scan, while_loop or fori_loop body returned a carry whose shape, dtype "
        "or pytree structure differs from the initial carry.",
        cause="The carry feeds the next step, so its type must stay fixed; the usual trips "
        "are an integer start (jnp.int32(0)) updated with floats, or a carry that grows.",
        fix="Start the carry with the dtype it will have, written explicitly "
        "(jnp.zeros((), jnp.float32) or jnp.zeros(shape, dtype), not a bare 0 or 0.0), cast "
        "updates with .astype(init.dtype), and keep the same tuple or dict structure.",
    ),
    # scan's body must return (carry, per-step output); returning the new carry alone is the
    # other common slip of the loop_carry_types page.
    KnownError(
        errors=("TypeError",),
        topic="loop_carry_types",
        wordings=(
            Wording(
                "scan body output must be a pair",
                "JAX 0.4.35 ('got ShapedArray(float32[3])'), 0.10.2 and 0.12.0.1 ('got "
                "float32[3]'), live",
            ),
        ),
        scenario="A jax.lax.scan body returned only the new carry, not the pair (carry, "
        "output) that scan expects.",
        cause="scan calls body(carry, x) and reads its result as two parts: the carry for the "
        "next step, and this step's output, which scan stacks along a new first axis.",
        fix="Return a pair: `return new_carry, y` (or `return new_carry, None` when no step has "
        "an output), and read both from the loop: `carry, ys = lax.scan(body, init, xs)`.",
    ),
)

#: Writing into an array.
ARRAY_WRITES: tuple[KnownError, ...] = (
    KnownError(
        errors=("TypeError", "ValueError"),
        topic="inplace_updates",
        wordings=(
            Wording(
                "JAX arrays are immutable and do not support in-place item assignment",
                "JAX 0.4.35 to 0.12.0.1 (git history)",
            ),
            Wording(
                r"(?:DeviceArray|ArrayImpl|Array|\b\w{0,40}Tracer)'>?' object does not support "
                r"item assignment",
                "JAX 0.1.49 and older to 0.4.34 (DeviceArray, then ArrayImpl; git history)",
                regex=True,
            ),
            Wording(
                "JAX 'Tracer' objects do not support item assignment",
                "JAX 0.1.49 and older to 0.2.19 (git history)",
            ),
            Wording(
                "assignment destination is read-only",
                "NumPy, writing into np.asarray() of a JAX array: pasted in jax-ml/jax#101 (2018)",
            ),
            Wording(
                "'_IndexUpdateHelper' object does not support item assignment",
                "x.at[i] = v: Python's TypeError on the class of x.at, JAX 0.1.64 to 0.12.0.1 "
                "(git history; raised by 0.4.35, 0.6.2 and 0.12.0.1)",
            ),
        ),
        scenario="Code assigned into a JAX array, as in x[i] = v, x[i] += v or x.at[i] = v.",
        cause="JAX arrays are immutable values, so they cannot be changed in place.",
        fix="Build an updated copy: x = x.at[i].set(v) (or .add, .multiply, .min, .max); "
        "under jit XLA performs it in place when it can.",
    ),
    # .set() called on the array itself, not on x.at[i]: only the update methods of x.at count
    # (an array has .min and .max of its own; other missing attributes are other mistakes).
    KnownError(
        errors=("AttributeError",),
        topic="inplace_updates",
        wordings=(
            Wording(
                r"(?:Tracer|ArrayImpl|DeviceArray)'?(?: object)? has no attribute "
                r"'?(?:set|add|subtract|multiply|mul|divide|power|apply)\b",
                "a tracer: 'DynamicJaxprTracer has no attribute set', JAX 0.1.49 and older to "
                "0.12.0.1 (git history: Tracer.__getattr__; raised by 0.4.35, 0.6.2 and "
                "0.12.0.1), pasted in AaltoML/BayesNewton#20 (2023); an array: Python's "
                "\"'ArrayImpl' object has no attribute 'set'\", raised by 0.4.35 to 0.12.0.1, "
                "and 'DeviceArray' object ... before 0.4.1 (the form pasted in jax-ml/jax#13826)",
                regex=True,
            ),
        ),
        scenario="Code called .set(v) (or .add, .multiply, ...) on a JAX array itself, as in "
        "x.set(v), rather than on x.at[i].",
        cause="A JAX array has no update methods of its own: .set, .add and the others belong to "
        "x.at[...], which says which elements to update and returns a new array.",
        fix="Index through .at first: x = x.at[i].set(v) (x.at[:].set(v) for every element); "
        "keep the result, since x itself never changes.",
    ),
    # A row written into one element: x.at[i].set(row) where x was preallocated for scalars,
    # the fori_loop port of a loop that collects its steps on the python_control_flow page.
    KnownError(
        errors=("ValueError",),
        topic="python_control_flow",
        see_also=("inplace_updates",),
        wordings=(
            Wording(
                "Cannot broadcast to shape with fewer dimensions",
                "jnp.broadcast_to, under x.at[i].set(v): JAX 0.4.35, 0.10.2 and 0.12.0.1 (live: "
                "'arr_shape=(3,) shape=()')",
            ),
        ),
        scenario="Code wrote a value into a slot of an array that is too small for it, as in "
        "out.at[i].set(row) in a loop that collects one row per step into a buffer "
        "preallocated as jnp.zeros((n,)).",
        cause="x.at[i].set(v) broadcasts v to the shape of x[i]; a row cannot shrink to one "
        "element. The buffer's shape was written for scalar steps.",
        fix="Collect the steps with jax.lax.scan (or jaxpurity.collect), which stacks each "
        "step's output whatever its shape; or preallocate the buffer with the step's shape: "
        "jnp.zeros((n, *row.shape)).",
    ),
)
