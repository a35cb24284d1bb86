"""JP132 f-string-debug-print: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP132 an f-string in jax.debug.print
import jax

@jax.jit
def show(x):
    jax.debug.print(f"x = {x}")  # expect: JP132
    return x

# %% fine: the value passed to jax.debug.print, and an f-string of static values
import jax

@jax.jit
def show(x):
    jax.debug.print("x = {}", x)
    jax.debug.print(f"shape {x.shape}: {{}}", x)
    return x
