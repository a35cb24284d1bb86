"""JP210 discarded-update: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP210 an update whose result is dropped
import jax.numpy as jnp

x = jnp.zeros(3)
x.at[0].set(1.0)  # expect: JP210

# %% fine: an update whose result is kept or returned
import jax.numpy as jnp

x = jnp.zeros(3)
x = x.at[0].set(1.0)

def bump(y):
    return y.at[1].add(2.0)
