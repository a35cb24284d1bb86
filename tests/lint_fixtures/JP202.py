"""JP202 traced-conversion: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP202 conversions
import jax

@jax.jit
def f(x, n):
    return float(x) + int(n) + x.item() + len(x.tolist())  # expect: JP202

# %% fine: int() of values that custom_vjp's nondiff_argnames and jit's static_argnames keep static
import functools
import jax
import jax.numpy as jnp

def cost_estimate(q, sparsity):
    flops = q.shape[0] * q.shape[1] * sparsity
    return int(flops)

@functools.partial(jax.custom_vjp, nondiff_argnames=("sparsity",))
def attention(q, sparsity):
    cost = cost_estimate(q, sparsity)
    return q * cost

@functools.partial(jax.jit, static_argnames=("blocks",))
def blocked(x, blocks):
    return x.reshape(int(blocks), -1)

@jax.jit
def forward(q, sparsity, blocks):
    return attention(q, sparsity), blocked(q, blocks=blocks)

# %% finds: JP202 float() under jax.grad alone, which would drop the derivative
import jax

def func(x):
    return x if float(x) >= 0.0 else -x  # expect: JP202

print(jax.grad(func)(3.0))

# %% finds: JP202 int() of a concrete table indexed by a traced index, and of a primitive's result
import jax
import jax.numpy as jnp
from jax.extend.core import Primitive

grad_indices = jnp.array([0, 0, 1, 0, 1])
double_p = Primitive("double")

def lookup(i):
    return int(grad_indices[i])  # expect: JP202

jax.lax.map(lookup, jnp.arange(5))

@jax.jit
def doubled(x):
    return int(double_p.bind(x))  # expect: JP202

# %% finds: JP202 a Python tuple indexed by a loop index from jnp.arange, in a Haiku module under jit
import haiku as hk
import jax
import jax.numpy as jnp

class Decoder(hk.Module):
    def __call__(self, x):
        strides = (1, 2, 2)
        for i in jnp.arange(3)[::-1]:
            x = hk.Conv2D(8, 3, stride=strides[i])(x)  # expect: JP202
        return x

decoder = hk.transform(lambda x: Decoder()(x))

@jax.jit
def decode(params, rng, x):
    return decoder.apply(params, rng, x)

# %% fine: a Python tuple indexed by NumPy's arange and by a static argument
import functools
import haiku as hk
import jax
import numpy as np

class Decoder(hk.Module):
    def __call__(self, x):
        strides = (1, 2, 2)
        for i in np.arange(3)[::-1]:
            x = hk.Conv2D(8, 3, stride=strides[i])(x)
        return x

decoder = hk.transform(lambda x: Decoder()(x))

@functools.partial(jax.jit, static_argnums=3)
def decode(params, rng, x, k):
    sizes = [1, 2, 3]
    return decoder.apply(params, rng, x) * sizes[k]

# %% fine: a debug-only branch under a module flag, closed as the module is written
import logging
import jax

_DEBUG = False
VERBOSE = 0

@jax.jit
def step(x):
    if _DEBUG:
        logging.info("x = %f", float(x))
    if VERBOSE and x.ndim:
        print(int(x))
    return x * 2

# %% finds: JP202 under a flag the module leaves open, or one a function changes
import jax

CHECK = True
TRACE = False

def enable():
    global TRACE
    TRACE = True

@jax.jit
def step(x):
    if CHECK:
        float(x)  # expect: JP202
    if TRACE:
        int(x)  # expect: JP202
    return x

# %% finds: JP202 Python sequences from the module, a parameter and self, indexed by a traced index
from typing import Sequence

import jax
import jax.numpy as jnp

SIZES = (1, 2, 4)

class Stack:
    def __init__(self, widths=(8, 16, 32)):
        self.widths = widths
        self.names = ["a", "b", "c"]

    def __call__(self, x, layers: Sequence[jax.Array]):
        for i in jnp.arange(3):
            x = x * SIZES[i] + self.widths[i]  # expect: JP202
            x = layers[i] @ x  # expect: JP202
            print(self.names[i])  # expect: JP202
        return x

stack = Stack()

@jax.jit
def run(x, layers):
    return stack(x, layers)

# %% fine: Python sequences indexed by Python ints, and arrays indexed by traced ones
import jax
import jax.numpy as jnp

SIZES = (1, 2, 4)

class Stack:
    def __init__(self, widths=(8, 16, 32)):
        self.widths = widths
        self.table = jnp.array(widths)

    def __call__(self, x, i):
        for k in range(3):
            x = x * SIZES[k] + self.widths[k]
        return x * self.table[i] + jnp.asarray(SIZES)[i]

stack = Stack()

@jax.jit
def run(x, i):
    return stack(x, i)

# %% finds: JP202 a NumPy table indexed by a traced index in a vmapped function
import jax
import jax.numpy as jnp
import numpy as np

table = np.arange(10)

def lookup(i):
    return table[i] + 1  # expect: JP202

values = jax.vmap(lookup)(jnp.arange(3))
