"""JP108 lost-mutation: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP108 a list argument written under vmap, and an input dict under jit
import functools

import jax
import jax.numpy as jnp

def h(l, x):
    l[0] = 9999  # expect: JP108

def f():
    l = [0]
    jax.vmap(h, (None, 0))(l, jnp.array([1, 2]))
    return l

def train_step(state, data, config):
    for k, v in data.items():
        data[k] = v[: config.batch_size]  # expect: JP108
    loss = data["x"].sum()
    return state, loss

def make_step(config):
    return jax.jit(functools.partial(train_step, config=config), donate_argnums=(0,))

@jax.jit
def log_step(x, logs):
    logs.append(x.sum())  # expect: JP108
    return x + 1

# %% fine: changes returned or made on a copy, a helper's, a donated or undifferentiated argument
import functools

import jax

@jax.jit
def step(batch, stats):
    batch = dict(batch)
    batch["x"] = batch["x"] + 1
    stats["n"] = stats["n"] + 1
    return batch, stats

def fill(d):
    d["y"] = 2.0

@jax.jit
def outer(x):
    d = {}
    fill(d)
    return x + d["y"]

@functools.partial(jax.jit, donate_argnames=("state",))
def insert(state, value):
    state["cache"] = value
    return {"cache": state["cache"]}

def loss(params, batch):
    batch["x"] = batch["x"] * 2
    return (params * batch["x"]).sum()

grads = jax.grad(loss)

# %% fine: writes through mutable references, which reach the caller under plain jax.jit
import jax
import jax.numpy as jnp
from flax import nnx

v = nnx.Variable(jnp.array(0), hijax=True)
metrics = nnx.Variable({}, hijax=True)
counter = jax.new_ref(jnp.zeros(()))

@jax.jit
def inc(v):
    v[...] += 1

@jax.jit
def log(x, metrics: nnx.Variable, seen: jax.Ref):
    metrics["x_sum"] = jnp.sum(x)
    seen[0] = x[0]

@jax.jit
def count(ref, x):
    ref[...] = ref[...] + x
    return x

inc(v)
log(jnp.ones(3), metrics, counter)
count(counter, 1.0)
