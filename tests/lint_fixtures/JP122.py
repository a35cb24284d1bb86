"""JP122 shared-key: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP122 a closed-over key under vmap and in scan, and an unbatched key
import jax

@jax.jit
def add_noise(key, batch):
    return jax.vmap(lambda x: x + jax.random.normal(key, x.shape))(batch)  # expect: JP122

def walk(key):
    def step(position, _):
        delta = jax.random.normal(key)  # expect: JP122
        return position + delta, delta
    return jax.lax.scan(step, 0.0, None, length=4)

def row_noise(key, x):
    return x + jax.random.normal(key, x.shape)  # expect: JP122

jax.vmap(row_noise, in_axes=(None, 0))(jax.random.key(0), jax.numpy.ones((3, 2)))

# %% fine: keys per row and per step
import jax

@jax.jit
def f(key, batch):
    row_keys = jax.random.split(key, batch.shape[0])
    rows = jax.vmap(lambda k, x: x + jax.random.normal(k, x.shape))(row_keys, batch)

    def step(carry, i):
        position, key = carry
        key, subkey = jax.random.split(key)
        return (position + jax.random.normal(jax.random.fold_in(subkey, i)), key), None

    return rows, jax.lax.scan(step, (0.0, key), jax.numpy.arange(4))

# %% finds: JP122 one key for every leaf of a tree map
import jax
from jax import random, tree_util

def noisy_gradients(grads, rng, std):
    noise = lambda g: g + std * random.normal(rng, g.shape)  # expect: JP122
    return tree_util.tree_map(noise, grads)

def init(key, shapes):
    return jax.tree.map(lambda s: jax.random.uniform(key, s.shape), shapes)  # expect: JP122

# %% fine: a key per leaf, and one permutation for every leaf of a batch
import jax

def noisy_gradients(grads, rng):
    leaves, treedef = jax.tree.flatten(grads)
    keys = jax.tree.unflatten(treedef, list(jax.random.split(rng, len(leaves))))
    return jax.tree.map(lambda g, k: g + jax.random.normal(k, g.shape), grads, keys)

def shuffle(batch, key):
    return jax.tree.map(lambda x: jax.random.permutation(key, x), batch)

# %% fine: an argument vmap passes whole that the call gives a literal None
import jax

def sample(state, rng_key, query_value):
    if query_value is None:
        query_value = jax.random.uniform(rng_key)
    return state * query_value

def sample_batch(state, query_values):
    return jax.vmap(sample, in_axes=(None, None, 0))(state, None, query_values)

# %% finds: JP122 a key made from a constant in a loop body given through a name bound to a partial
import functools
import jax
from jax import random

class Matcher:
    def _body(self, i, obj, x, sigmas):
        noise = random.normal(random.PRNGKey(0), x.shape)  # expect: JP122
        return obj + sigmas[i] * noise.mean()

    @functools.partial(jax.jit, static_argnums=0)
    def step(self, x, sigmas):
        body = functools.partial(self._body, x=x, sigmas=sigmas)
        return jax.lax.fori_loop(0, 3, body, 0.0)

# %% fine: a key made from a constant outside any loop body, and one folded in with the step
import jax
from jax import random

@jax.jit
def init(x):
    return x + random.normal(random.PRNGKey(0), x.shape)

def body(i, carry):
    key = random.fold_in(random.PRNGKey(0), i)
    return carry + random.normal(key, carry.shape)

out = jax.lax.fori_loop(0, 3, body, jax.numpy.zeros(2))
