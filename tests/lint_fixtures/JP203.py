"""JP203 numpy-on-traced: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP203 NumPy on a tracer
import jax
import numpy as np

@jax.jit
def standardize(x):
    x = np.asarray(x)  # expect: JP203
    return (x - x.mean()) / x.std()

# %% fine: NumPy in a branch that only NumPy arrays reach (isinstance), never a tracer
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

@partial(jax.jit, out_shardings=None)
def concatenate(x):
    if isinstance(x[0], np.ndarray):
        return np.concatenate(x)
    return jnp.concatenate(x)
