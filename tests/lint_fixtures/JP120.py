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

# %% finds: JP120 a NumPy generator given as a static argument
from functools import partial

import jax
import numpy as np

def jitter(a, rng):
    return a + rng.random()  # expect: JP120

jitter_jit = jax.jit(jitter, static_argnames=["rng"])

@partial(jax.jit, static_argnums=(1,))
def noisy(x, gen):
    return x + gen.normal(size=x.shape)  # expect: JP120

jitter_jit(1.0, rng=np.random.default_rng(0))

# %% fine: static arguments and methods of self that draw nothing on the host
from functools import partial

import jax

class Sampler:
    def uniform(self, key, shape):
        return jax.random.uniform(key, shape)

    @partial(jax.jit, static_argnums=(0, 3))
    def draw(self, key, x, config):
        return x * config.get("scale", 1.0) + self.uniform(key, x.shape)
