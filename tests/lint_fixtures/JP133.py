"""JP133 dropped-pure-callback: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP133 a pure_callback whose result is dropped
import jax

def log(x):
    return x

@jax.jit
def step(x):
    jax.pure_callback(log, jax.ShapeDtypeStruct(x.shape, x.dtype), x)  # expect: JP133
    return 2 * x

# %% fine: a pure_callback whose result is used, and a debug callback for the effect
import jax

def log(x):
    return x

@jax.jit
def step(x):
    y = jax.pure_callback(log, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    jax.debug.callback(print, x)
    return 2 * y
