"""JP121 key-reuse: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP121 one key twice, in a loop, and in a comprehension
import jax

def samples(key):
    a = jax.random.normal(key)
    b = jax.random.normal(key)  # expect: JP121
    for _ in range(3):
        c = jax.random.uniform(key)  # expect: JP121
    d = [jax.random.normal(k) for k in jax.random.split(b)]
    e = [jax.random.normal(c) for _ in range(3)]  # expect: JP121
    return a, b, c, d, e

# %% finds: JP121 an outer key in a comprehension, not the comprehension's own key of its name
import jax

def draws(rng):
    rngs = jax.random.split(rng, 3)
    xs = [jax.random.normal(rng, (2,)) for rng in rngs]
    ys = [jax.random.normal(k) for k, n in zip(rngs, range(3))]
    zs = [jax.random.normal(rng) for _ in rngs]  # expect: JP121
    pairs = [(jax.random.normal(k), jax.random.uniform(k)) for k in rngs]  # expect: JP121
    return xs, ys, zs, pairs

def after(rng):
    rngs = jax.random.split(rng, 3)
    xs = [jax.random.normal(rng) for rng in rngs]
    return xs, jax.random.normal(rng)  # expect: JP121

# %% fine: an explicit key, split and used once each
import jax

@jax.jit
def f(x, key):
    key, subkey = jax.random.split(key)
    noise = jax.random.normal(subkey, x.shape)
    for i in range(3):
        step_key = jax.random.fold_in(key, i)
        noise = noise + jax.random.normal(step_key, x.shape)
    return x + noise

# %% fine: a key used on one path only, before a return
import jax

def momentum(key, blocks):
    if blocks:
        keys = jax.random.split(key, len(blocks))
        return [jax.random.normal(k) for k in keys]
    return jax.random.normal(key)

# %% fine: keys split into names that are assigned again before any read: no draw is used twice
import jax

def evaluate(seed, n_devices, steps, evaluator, params):
    key, key_e = jax.random.split(jax.random.PRNGKey(seed))
    eval_keys = jax.random.split(key_e, n_devices)
    for _ in range(steps):
        key_e, *eval_keys = jax.random.split(key_e, n_devices + 1)
        evaluator(params, eval_keys)
    return key

def predictions(rng_key):
    policy_rng, value_rng = jax.random.split(rng_key, 2)
    policy_rng, value_rng = jax.random.split(rng_key, 2)
    return jax.random.normal(policy_rng), jax.random.uniform(value_rng)

# %% finds: JP121 a key split into names that are read, then split again
import jax

def evaluate(seed, n_devices, evaluator, params):
    key_e = jax.random.PRNGKey(seed)
    eval_keys = jax.random.split(key_e, n_devices)
    evaluator(params, eval_keys)
    key_e, *eval_keys = jax.random.split(key_e, n_devices + 1)  # expect: JP121
    return evaluator(params, eval_keys)

# %% finds: JP121 a key returned after a draw from it: the caller uses it again
import jax

def random_rotations(key, images):
    key, subkey = jax.random.split(key)
    turns = jax.random.randint(key, (len(images),), 0, 4)
    return turns, key  # expect: JP121

def setup(key, n):
    first_keys = jax.random.split(key, n)
    return first_keys, key  # expect: JP121

def body(carry):
    key, x = carry
    return key, x + jax.random.normal(key)  # expect: JP121

# %% fine: a key split before it is returned, and a new key returned
import jax

def step(carry):
    key, x = carry
    key, subkey = jax.random.split(key)
    return key, x + jax.random.normal(subkey)

def fresh(seed, x):
    key = jax.random.key(seed)
    noise = jax.random.normal(jax.random.fold_in(key, 1))
    noise = x + noise
    return noise, jax.random.key(seed + 1)

# %% finds: JP121 one key given to an initializer in every round of a comprehension
import jax
import jax.numpy as jnp

def batched_kernel(kernel_init, rng, shape, n):
    return jnp.stack([kernel_init(rng, shape) for _ in range(n)])  # expect: JP121

# %% fine: a key per round, and a round's own number given with the key
import jax
import jax.numpy as jnp

def batched_kernel(kernel_init, rng, shape, n):
    per_key = [kernel_init(k, shape) for k in jax.random.split(rng, n)]
    per_round = [kernel_init(jax.random.fold_in(rng, i), shape) for i in range(n)]
    numbered = [kernel_init(rng, shape, index=i) for i in range(n)]
    return jnp.stack(per_key + per_round + numbered)

# %% fine: one key for two permutations, on purpose: one order keeps two arrays paired
import jax
import jax.numpy as jnp

def paired(indexes, values):
    rng_key = jax.random.PRNGKey(0)
    indexes1 = jax.random.permutation(rng_key, indexes)
    values1 = jax.random.permutation(rng_key, values)
    return indexes1, values1

# %% finds: JP121 a key used for a permutation and for another draw
import jax

def mixed(values):
    key = jax.random.PRNGKey(0)
    order = jax.random.permutation(key, values)
    noise = jax.random.normal(key, values.shape)  # expect: JP121
    again = jax.random.permutation(key, values)  # expect: JP121
    return order, noise, again

# %% finds: JP121 one key for the permutation of every epoch: the same order each time
import jax

def epochs(data, n):
    key = jax.random.PRNGKey(0)
    for _ in range(n):
        order = jax.random.permutation(key, data.shape[0])  # expect: JP121
        data = data[order]
    return data
