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
