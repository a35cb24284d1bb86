"""JP203 numpy-on-traced: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP203 NumPy on a tracer
import jax
import numpy as np

@jax.jit
def standardize(x):
    x = np.asarray(x)  # expect: JP203
    return (x - x.mean()) / x.std()
