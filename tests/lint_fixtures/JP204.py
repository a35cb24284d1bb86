"""JP204 range-over-traced: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP204 range of a traced count
import jax
import jax.numpy as jnp

@jax.jit
def iterate(x, n):
    for _ in range(n):  # expect: JP204
        x = 0.5 * jnp.cos(x)
    return x

# %% fine: range over a static count and a shape, and fori_loop over a traced one
from functools import partial

import jax
import jax.numpy as jnp

@partial(jax.jit, static_argnames="n")
def iterate(x, n, m):
    for _ in range(n):
        x = 0.5 * jnp.cos(x)
    for i in range(x.shape[0]):
        x = x.at[i].add(1.0)
    return jax.lax.fori_loop(0, m, lambda _, y: 0.5 * jnp.cos(y), x)
