"""JP102 global-container-mutation: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP102 module-level list under jit
import jax
history = []

@jax.jit
def scale(x):
    y = x * 3.0
    history.append(y)  # expect: JP102
    return y

# %% finds: JP102 a dict used as a cache, and an attribute of a module-level object
import types
import jax
import jax.numpy as jnp
cache = {}
metrics = types.SimpleNamespace()

@jax.jit
def window(x):
    n = x.shape[0]
    if n not in cache:
        cache[n] = jnp.hanning(n)  # expect: JP102
    metrics.last = x  # expect: JP102
    return x * cache[n]

# %% finds: JP102 and JP210 outside the blocks where a test expects an error, not inside
import unittest
import jax
import jaxpurity
import numpy as np
import pytest
registry = []

class MutationTest(unittest.TestCase):
    def test_refused(self):
        @jax.jit
        def f(x):
            with self.assertRaisesRegex(ValueError, "trace"):
                registry.append(x)
            registry.append(x)  # expect: JP102
            return x

        with self.assertRaises(ValueError):
            @jax.jit
            def g(x):
                registry.append(x)
            g(1.0)

def test_update_refused(x):
    with pytest.raises(TypeError):
        x.at[0].set(1.0)
    with np.testing.assert_raises(TypeError):
        x.at[1].set(1.0)
    with jaxpurity.raises(TypeError):  # a page's bug, shown failing
        x.at[2].set(1.0)  # expect: JP210

# %% finds: JP102, JP103, JP104 on containers that outlive the trace, not on one made per trace
import jax

history = []

def make_step():
    seen = []

    @jax.jit
    def step(x):
        seen.append(x)  # expect: JP102
        history.append(x)  # expect: JP102
        return x

    return step

@jax.jit
def per_call(x):
    env = {}

    def write(k, v):
        env[k] = env.get(k, 0) + v

    write(0, x)
    return env[0]

def forward(x):
    env = {}

    def write(k, v):
        env[k] = v

    write(0, x)
    return env[0]

@jax.jit
def under_jit(x):
    losses, sums = [], []

    def loss(w):
        value = (w * x).sum()
        losses.append(value)  # expect: JP102
        return value

    def body(c, row):
        sums.append(c)  # expect: JP103
        return c + row, None

    jax.lax.scan(body, 0.0, x)
    return jax.grad(loss)(x)

def logged(x):
    losses = []

    def loss(w):
        value = (w * x).sum()
        losses.append(value)  # expect: JP104
        return value

    return jax.grad(loss)(x), losses

jax.vjp(forward, 1.0)

# %% fine: a local list appended to and then stacked
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    parts = []
    for i in range(3):
        parts.append(x * i)
    return jnp.stack(parts)

# %% fine: an optimizer's update and a config update
import jax
opt = make_optimizer()

@jax.jit
def step(grads, state):
    jax.config.update("jax_enable_x64", False)
    updates, state = opt.update(grads, state)
    return updates, state

# %% fine: JP102 a host callback's function appends on the host, with concrete values
import jax
from jax.experimental import io_callback
appended = []

@jax.jit
def logs(x):
    jax.debug.callback(lambda v: appended.append(int(v)), x.sum().astype(int))
    io_callback(lambda v: appended.append(v), None, x, ordered=True)
    jax.debug.callback(callback=lambda v: appended.append(v), x=x)
    return x * 2
