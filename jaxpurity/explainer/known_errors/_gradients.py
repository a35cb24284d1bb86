"""The errors of the pages in ``gallery/gradients/``: a nan in gradients, and grad through loops.

Each group is tried where :data:`jaxpurity.explainer.known_errors.KNOWN_ERRORS`
puts it.
"""

from __future__ import annotations

from jaxpurity.explainer.known_errors._shared import KnownError, Wording

__all__ = ["DEBUG_NANS", "REVERSE_MODE_THROUGH_LOOPS"]

#: A nan (or inf) caught by jax_debug_nans.
DEBUG_NANS: tuple[KnownError, ...] = (
    KnownError(
        errors=("FloatingPointError",),
        topic="nan_gradients",
        wordings=(
            Wording(
                r"invalid value \((?:nan|inf)\) encountered in",
                "nan: JAX 0.1.49 and older to 0.12.0.1; inf (jax_debug_infs): 0.2.9 to 0.12.0.1 "
                "(git history); pasted in jax-ml/jax#7440, #22291, #25701",
                regex=True,
            ),
            Wording(
                "However, the de-optimized function did not produce invalid values",
                "JAX 0.3.7 to 0.12.0.1 (git history); on 0.4.35 and other releases before 0.5.1 "
                "also for a nan made op by op (jax-ml/jax#24955)",
            ),
        ),
        scenario="With jax_debug_nans on (jax.debug_nans(True), "
        "jax.config.update('jax_debug_nans', True) or JAX_DEBUG_NANS=True), an operation "
        "made a nan (or, with jax_debug_infs, an inf), in the forward pass or in the "
        "backward pass of jax.grad.",
        cause="The message names the first operation whose output was nan, and the "
        "traceback ends at the line of your code it came from. Under grad the usual source "
        "is a jnp.where or a mask that hides a bad input from the value but not from the "
        "gradient: both sides are differentiated, and 0 times the discarded side's infinite "
        "derivative is nan (sqrt or log at 0, the norm of a zero vector, x / 0).",
        fix="Keep bad inputs away from the unsafe function with a second where: "
        "jnp.where(ok, jnp.sqrt(jnp.where(ok, x, 1.0)), 0.0), and the same for log, "
        "division and norms. Where the message says the de-optimized function made no "
        "invalid values, run the step without jit (jax.disable_jit()) to find the operation; "
        "before JAX 0.5.1 that paragraph is printed even when the nan is real.",
    ),
)

#: Reverse mode through a while_loop, or a fori_loop with traced bounds.
REVERSE_MODE_THROUGH_LOOPS: tuple[KnownError, ...] = (
    KnownError(
        errors=("ValueError", "NotImplementedError"),
        topic="differentiating_loops",
        wordings=(
            Wording(
                "Reverse-mode differentiation does not work for lax.while_loop",
                "JAX 0.1.64 to 0.12.0.1: '... lax.while_loop. Try using lax.scan, or "
                "lax.fori_loop with constant bounds.' to 0.1.66, '... or lax.fori_loop. Try using "
                "lax.scan instead.' 0.1.67 to 0.4.11, '... with dynamic start/stop values.' 0.4.12 "
                "on (git history); pasted in jax-ml/jax#4106, google-deepmind/mujoco#1207",
            ),
            Wording(
                "Forward-mode differentiation rule for 'while' not implemented",
                "JAX 0.1.57 and older, before while_loop had a JVP (git history): pasted in "
                "jax-ml/jax#1954 (2020)",
            ),
        ),
        scenario="jax.grad (or vjp, or value_and_grad) went through a lax.while_loop, or a "
        "lax.fori_loop whose start or stop is traced (an argument under jit, or a value "
        "computed from one).",
        cause="Reverse mode stores every step's intermediate values and walks back through "
        "them; a loop whose trip count is known only when it runs gives it no fixed-size "
        "place to store them, so JAX refuses. Forward mode (jax.jvp, jax.jacfwd) works.",
        fix="Give the loop a bound known while tracing: fori_loop with Python-int start and "
        "stop (it becomes a scan), or lax.scan over a static maximum number of steps with a "
        "mask (jnp.where(i < n, step(x), x)); use jax.checkpoint on the body if the stored "
        "steps take too much memory.",
    ),
)
