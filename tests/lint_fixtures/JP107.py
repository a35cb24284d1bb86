"""JP107 mutable-default: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP107 a list as a default
import jax

@jax.jit
def mix(x, weights=[0.5, 0.5]):  # expect: JP107
    return x * weights[0]
