"""JP206 traced-shape: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP206 a traced axis and size
import jax
import jax.numpy as jnp

@jax.jit
def f(x, axis, n):
    total = jnp.sum(x, axis=axis)  # expect: JP206
    kernel = jnp.ones(n) / n  # expect: JP206
    return total, kernel, x.reshape(n, -1)  # expect: JP206
