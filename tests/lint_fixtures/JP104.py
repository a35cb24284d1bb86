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

# %% fine: an NNX GraphDef kept from a checkpointed scan body: a structure, no tracer
import jax
from flax import nnx

def run_layers(graphdef, params, state, x, policy):
    updated_graphdef = [graphdef]

    def layer_fn(carry, scanned):
        current_params, current_state = scanned
        layer = nnx.merge(graphdef, current_params, current_state)
        new_carry = layer(carry)
        new_graphdef, updated_params, updated_state = nnx.split(layer, nnx.Param, ...)
        updated_graphdef[0] = new_graphdef
        return new_carry, nnx.State.merge(updated_params, updated_state)

    layer_fn = jax.checkpoint(layer_fn, policy=policy)
    carry, states = jax.lax.scan(layer_fn, x, (params, state))
    return carry, nnx.merge(updated_graphdef[0], states)
