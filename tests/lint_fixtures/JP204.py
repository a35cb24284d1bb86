"""JP204 range-over-traced: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP204 range of a traced count
import jax
import jax.numpy as jnp

@jax.jit
def iterate(x, n):
    for _ in range(n):  # expect: JP204
        x = 0.5 * jnp.cos(x)
    return x
