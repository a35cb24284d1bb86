"""JP207 boolean-mask: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP207 a boolean mask and nonzero
import jax
import jax.numpy as jnp

@jax.jit
def positives(x):
    mask = x > 0
    return x[x > 0].mean(), x[mask], jnp.nonzero(x)[0]  # expect: JP207

# %% fine: a mask given to jnp.where, and nonzero with a size
import jax
import jax.numpy as jnp

@jax.jit
def positives(x):
    mask = x > 0
    kept = jnp.where(mask, x, 0.0)
    return kept.sum() / mask.sum(), jnp.nonzero(x, size=3, fill_value=0)[0]

# %% finds: JP207 a comparison mask inside .at[...]
import jax
import jax.numpy as jnp

@jax.jit
def clip_low(x):
    return x.at[x < 5].set(0)  # expect: JP207

@jax.jit
def clip_even(x):
    return x.at[:4, jnp.mod(x[0], 2) == 0].set(0)  # expect: JP207

# %% finds: JP207 masks made by logical functions and astype(bool)
import jax
import jax.numpy as jnp

@jax.jit
def finite(x, y):
    bad = jnp.isnan(x) | jnp.isinf(y)
    keep = jnp.logical_and(x > 0, y > 0)
    x = x.at[bad].set(0.0)  # expect: JP207
    return x[keep], y[(x * y).astype(bool)]  # expect: JP207

# %% fine: the same masks given to jnp.where, and an integer index array
import jax
import jax.numpy as jnp

@jax.jit
def finite(x, y):
    bad = jnp.isnan(x) | jnp.isinf(y)
    order = jnp.argsort(x)
    return jnp.where(bad, 0.0, x), y[order], x.at[order].set(0.0)
