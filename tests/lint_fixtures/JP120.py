"""JP120 host-randomness: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP120 NumPy, random and a module-level generator
import random
import jax
import numpy as np
rng = np.random.default_rng(0)

@jax.jit
def noisy(x):
    a = np.random.normal()  # expect: JP120
    b = random.random()  # expect: JP120
    return x + a + b + rng.normal()  # expect: JP120

# %% fine: NumPy randomness outside traced code, and NumPy on shapes
import jax
import numpy as np

noise = np.random.normal(size=3)

@jax.jit
def f(x):
    return x + np.zeros(np.shape(x)) + np.prod(x.shape)
