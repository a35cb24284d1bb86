"""JP202 traced-conversion: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP202 conversions
import jax

@jax.jit
def f(x, n):
    return float(x) + int(n) + x.item() + len(x.tolist())  # expect: JP202
