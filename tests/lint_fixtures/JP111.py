"""JP111 rebound-global-read: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP111 a setting changed between two runs of one trace
import jax
SCALE = 2.0
STEPS = 3

@jax.jit
def scaled(x):
    return x * SCALE  # expect: JP111

scaled(1.0)
SCALE = 0.5
scaled(1.0)

def body(i, x):
    return helper(x)

def helper(x):
    return jax.lax.cond(x > 0, lambda y: y * STEPS, lambda y: y, x)  # expect: JP111

fast = jax.jit(lambda x: jax.lax.fori_loop(0, 2, body, x))
fast(1.0)
STEPS = 4
fast(2.0)

# %% fine: settings changed when no trace made before runs again
import jax
dt = 0.1

def step(i, x):
    return x + dt
x = jax.lax.fori_loop(0, 10, step, 0.0)

dt = 0.2

def step(i, x):
    return x - dt
x = jax.lax.fori_loop(0, 10, step, x)

@jax.jit
def late(x):
    return x * dt
late(1.0)
late(2.0)

# %% fine: a module constant read under jit
import jax
SCALE = 2.0
SCALE_AGAIN = 1.0
SCALE_AGAIN = 3.0

@jax.jit
def f(x):
    return x * SCALE * SCALE_AGAIN

f(1.0)

# %% finds: JP111 a global set again through global after the trace ran
import jax
BATCH_SIZE = 1

@jax.jit
def make_batch(key):
    return jax.random.uniform(key, (BATCH_SIZE, 4))  # expect: JP111

def run(key, sizes):
    global BATCH_SIZE
    for size in sizes:
        make_batch(key)
        BATCH_SIZE = size

# %% fine: a global set through global before the first trace, as a test's set-up
import jax
BATCH_SIZE = 1
step = None

def gen_data(key):
    return jax.random.uniform(key, (BATCH_SIZE, 4))

def test_sharding():
    global BATCH_SIZE
    BATCH_SIZE = len(jax.devices()) * 2
    global step
    step = jax.value_and_grad(lambda x: (x**2).sum())
    data = jax.jit(gen_data)(jax.random.PRNGKey(0))
    assert data.shape[0] == BATCH_SIZE
