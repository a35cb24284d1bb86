"""JP303 reverse-through-loop: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP303 loops of traced length under grad
import jax
from jax import lax

@jax.jit
def decay(rate, n):
    return lax.fori_loop(0, n, lambda i, x: x - rate * x, 1.0)  # expect: JP303

def until(rate, threshold):
    step = lambda x: x - rate * x
    return lax.while_loop(lambda x: x > threshold, step, 1.0)  # expect: JP303

jax.grad(decay)(0.5, 20)
jax.grad(until)(0.5, 0.5)

# %% fine: loops that reverse mode can differentiate
import jax
from jax import lax

def decay(rate, n):
    return lax.fori_loop(0, 20, lambda i, x: x - rate * x, 1.0)

def count(rate, n):
    return rate * lax.while_loop(lambda k: k < n, lambda k: k + 1, 0)

jax.grad(decay)(0.5, 20)
jax.jacfwd(decay)(0.5, 20)
jax.grad(count)(0.5, 3)
