"""JP110 trace-time-read: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP110 the clock and the environment
import os
import time
import jax

@jax.jit
def stamp(x):
    seed = int(os.environ["SEED"])  # expect: JP110
    return x + time.time() + seed + float(os.getenv("BIAS", "0"))  # expect: JP110

# %% finds: JP110 an iterator from outside advanced in a loop body and under jit
import jax
from jax import lax

batches = iter(range(10))

def run(params, dataset, steps):
    stream = (row for row in dataset)

    def step(carry, _):
        return carry + next(stream), None  # expect: JP110

    return lax.scan(step, params, None, length=steps)

@jax.jit
def shift(x):
    return x + next(batches)  # expect: JP110

# %% fine: next() of what the traced function holds itself
import jax
from jax import lax

@jax.jit
def first_leaf_plus(params, xs):
    leaf = next(iter(params.values()))
    layers = iter(xs)

    def take():
        return next(layers)

    return leaf + take() + take()

# %% finds: JP110 a setter changes what a method jitted in __init__ read while tracing
import jax
import jax.numpy as jnp

class Objective:
    def __init__(self, target, weight):
        self.target = target
        self.weight = weight
        self.compute = jax.jit(self._compute)

    def _compute(self, x):
        return self.weight * (jnp.sum(x) - self.target)  # expect: JP110

    def set_target(self, target):
        self.target = target

# %% fine: a method jitted in __init__ reads what only __init__ sets
import jax
import jax.numpy as jnp

class Objective:
    def __init__(self, target, weight):
        self.target = target
        self.weight = weight
        self.history = []
        self.compute = jax.jit(self._compute)

    def _compute(self, x):
        return self.weight * (jnp.sum(x) - self.target)

    def record(self, value):
        self.last = value
        self.history.append(value)
