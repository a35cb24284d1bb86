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

# %% finds: JP203 NumPy's writers on a traced pytree and on an array
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

def simulate(apply_fn, state, steps):
    def body(i, state):
        state = apply_fn(state)
        np.save(f"positions_{i}.npy", state.position)  # expect: JP203
        return state

    return jax.jit(lambda s: lax.fori_loop(0, steps, body, s))(state)

@jax.jit
def step(x):
    y = jnp.tanh(x)
    jnp.save("y.npy", y)  # expect: JP203
    return y.sum()

# %% fine: NumPy's writers on what is known while tracing, and from a callback
import jax
import jax.numpy as jnp
import numpy as np

def save_on_host(y):
    np.save("y.npy", y)

@jax.jit
def step(x):
    np.save("shape.npy", x.shape)
    y = jnp.tanh(x)
    jax.debug.callback(save_on_host, y)
    return y.sum()

np.save("out.npy", step(jnp.ones(3)))

# %% fine: NumPy in a branch whose test keeps tracers out (hasattr, isinstance)
import jax
import numpy as np

@jax.jit
def shape_of(a, b, c):
    s = a.shape if hasattr(a, "shape") else np.asarray(a).shape
    if not isinstance(b, jax.Array):
        b = np.asarray(b)
    if isinstance(c, (int, float, np.ndarray)):
        c = np.asarray(c) * 2
    return s, b, c

# %% finds: JP203 NumPy in a learning-rate schedule that an optax optimizer calls on the step count
from math import pi

import numpy as np
import optax

def schedule(count):
    return 0.01 * (1 + np.cos(pi * (count % 100) / 100))  # expect: JP203

optimizer = optax.sgd(schedule)

# %% fine: the same schedule with jax.numpy, and one optax makes
import jax.numpy as jnp
import optax

def schedule(count):
    return 0.01 * (1 + jnp.cos(jnp.pi * (count % 100) / 100))

optimizer = optax.adam(learning_rate=schedule)
warmup = optax.adam(optax.linear_schedule(0.0, 0.01, 100))
