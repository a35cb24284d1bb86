"""JP104 grad-vmap-leak: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP104 a loss logged under grad, a norm under vmap
import jax
import jax.numpy as jnp
losses, norms = [], []

def loss_fn(w):
    loss = jnp.mean(w**2)
    losses.append(loss)  # expect: JP104
    return loss

def normalize(row):
    norm = jnp.linalg.norm(row)
    norms.append(norm)  # expect: JP104
    return row / norm

jax.grad(loss_fn)(jnp.ones(2))
jax.vmap(normalize)(jnp.ones((2, 2)))
