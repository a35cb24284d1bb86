"""JP110 trace-time-read: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP110 the clock and the environment
import os
import time
import jax

@jax.jit
def stamp(x):
    seed = int(os.environ["SEED"])  # expect: JP110
    return x + time.time() + seed + float(os.getenv("BIAS", "0"))  # expect: JP110
