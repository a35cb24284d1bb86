"""JP206 traced-shape: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP206 a traced axis and size
import jax
import jax.numpy as jnp

@jax.jit
def f(x, axis, n):
    total = jnp.sum(x, axis=axis)  # expect: JP206
    kernel = jnp.ones(n) / n  # expect: JP206
    return total, kernel, x.reshape(n, -1)  # expect: JP206

# %% fine: axes and sizes that jit keeps static, or that a shape gives
from functools import partial

import jax
import jax.numpy as jnp

@partial(jax.jit, static_argnames=("axis", "n"))
def f(x, axis, n):
    total = jnp.sum(x, axis=axis)
    kernel = jnp.ones(n) / n
    return total, kernel, x.reshape(x.shape[0], -1), jnp.zeros(x.shape[-1])
