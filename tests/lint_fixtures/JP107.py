"""JP107 mutable-default: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP107 a list as a default
import jax

@jax.jit
def mix(x, weights=[0.5, 0.5]):  # expect: JP107
    return x * weights[0]

# %% fine: an immutable default, and a list made on every call
import jax

@jax.jit
def mix(x, weights=(0.5, 0.5), scale=None):
    terms = []
    terms.append(x * weights[0])
    return sum(terms) * (1.0 if scale is None else scale)
