"""Tests for jaxpurity/checks/_program.py: what a traced program shows, read from its jaxpr."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from jaxpurity.checks import _program


def _announce(c):
    return None


def _program_of(fn, *args):
    return jax.jit(fn).trace(*args).jaxpr


def test_unused_pure_callbacks_and_debug_callbacks_in_loops_are_found():
    def body(c, _):
        jax.debug.callback(_announce, c)  # the user's: counts
        jax.debug.print("c = {}", c)  # JAX's own: does not
        jax.pure_callback(lambda v: v, jax.ShapeDtypeStruct((), jnp.float32), c)  # unused
        return jnp.sin(c), None

    def run(x):
        jax.debug.callback(_announce, x)  # outside the loop: does not count
        return lax.scan(body, x, xs=None, length=3)[0]

    program = _program_of(run, 1.0)
    assert _program.unused_callbacks(program) == {"pure_callback": 1}
    assert _program.debug_callbacks_in_loops(program) == ["_announce"]
    assert _program.debug_callbacks_in_remat(program) == []


def test_a_debug_callback_in_a_checkpoint_is_found_with_and_without_grad():
    def checkpointed(x):
        @jax.checkpoint
        def layer(y):
            jax.debug.callback(_announce, y)
            return jnp.sin(y)

        return layer(x)

    assert _program.debug_callbacks_in_remat(_program_of(checkpointed, 1.0)) == ["_announce"]
    assert _program.debug_callbacks_in_remat(_program_of(jax.grad(checkpointed), 1.0)) == [
        "_announce"
    ]
    assert _program.debug_callbacks_in_remat(_program_of(jnp.sin, 1.0)) == []
