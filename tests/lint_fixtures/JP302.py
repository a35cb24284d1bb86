"""JP302 donated-read: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP302 a donated array read again
import jax

def sgd(params, x):
    return params - 0.1 * x

train_step = jax.jit(sgd, donate_argnums=0)
params = x = jax.numpy.zeros(4)
new_params = train_step(params, x)
print(new_params - params)  # expect: JP302
params = jax.numpy.zeros(4)
for _ in range(2):
    new_params = train_step(params, x)  # expect: JP302

# %% fine: a donated array rebound, and is_deleted()
import jax

step = jax.jit(lambda p, x: p - x, donate_argnums=0)
params = x = jax.numpy.zeros(4)
for _ in range(3):
    params = step(params, x)
old = jax.numpy.ones(4)
new = step(old, x)
assert old.is_deleted()
