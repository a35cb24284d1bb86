"""JP209 item-assignment: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP209 item assignment on a JAX array, traced or not
import jax.numpy as jnp

def histogram(samples, bins=4):
    counts = jnp.zeros(bins, dtype=jnp.int32)
    for s in samples:
        counts[s] += 1  # expect: JP209
    return counts

# %% fine: NumPy arrays and lists assigned by item
import numpy as np
import jax.numpy as jnp

counts = np.zeros(4)
counts[0] += 1
parts = jnp.split(jnp.arange(4), 2)
parts[0] = jnp.zeros(2)
rows = [1, 2]
rows[0] = 3
x = jnp.zeros(3)
x = x.at[0].set(1.0)
