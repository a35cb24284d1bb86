"""JP301 jit-in-loop: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP301 jit of a new function in a loop
import functools
import jax

def step(w, g, lr):
    return w - lr * g

w = g = 1.0
for lr in (0.1, 0.2):
    w = jax.jit(functools.partial(step, lr=lr))(w, g)  # expect: JP301
    w = jax.jit(lambda w, g: step(w, g, 0.1))(w, g)  # expect: JP301

# %% fine: jit once, before the loop
import jax

def step(w):
    return w * 2

fast = jax.jit(step)
w = 1.0
for _ in range(3):
    w = fast(w)
    w = jax.jit(step)(w)

# %% fine: one jit per heterogeneous group, its options read from the loop's variable
import jax
import jax.numpy as jnp

def stack_groups(params, shardings, layer_groups, scan_axis):
    for layer_name, num_layers in layer_groups:

        def stack_layers(*layers):
            return jax.tree_util.tree_map(lambda *xs: jnp.stack(xs, axis=scan_axis), *layers)

        compiled_stack = jax.jit(stack_layers, out_shardings=shardings[layer_name])
        params[layer_name] = compiled_stack(*[params[f"{layer_name}_{i}"] for i in range(num_layers)])
    return params

# %% fine: rounds that each build a new function, model or input shape, timing the compile
import time

import flax.linen as nn
import jax
import jax.numpy as jnp

for n in [10, 100, 1000]:
    x = jnp.ones((n, n))
    f = jax.jit(lambda v: v @ v)
    start = time.perf_counter()
    f(x).block_until_ready()
    print(n, time.perf_counter() - start)

for width in (8, 16):
    model = nn.Dense(width)
    apply = jax.jit(lambda p, v: model.apply(p, v))
    print(apply)

for activation in (jax.nn.relu, jax.nn.gelu):
    layer = jax.jit(lambda v: activation(v) * 2)
    print(layer(jnp.ones(3)))

for size in (4, 8):
    out = jax.jit(lambda v: v * 2)(jnp.zeros(size))

# %% finds: JP301 a new lambda each round, on batches of one shape, and one closing over data
import jax
import jax.numpy as jnp

def loss(params, batch):
    return jnp.mean((params * batch) ** 2)

def train(params, batches):
    for batch in batches:
        step = jax.jit(lambda p, b: p - 0.1 * jax.grad(loss)(p, b))  # expect: JP301
        params = step(params, batch)
        value = jax.jit(lambda p: loss(p, batch))(params)  # expect: JP301
    return params, value
