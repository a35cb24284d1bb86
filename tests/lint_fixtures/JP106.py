"""JP106 cached-array: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP106 lru_cache of arrays, reached from jit
import functools
import jax
import jax.numpy as jnp
import numpy as np

@functools.lru_cache  # expect: JP106
def hann_window(n):
    return jnp.sin(np.pi * np.arange(n) / n) ** 2

@jax.jit
def taper(signal):
    return signal * hann_window(signal.shape[0])

# %% fine: caches that hold no tracer
import functools
import jax
import jax.numpy as jnp
import numpy as np

@functools.lru_cache
def window(n):
    with jax.ensure_compile_time_eval():
        return jnp.sin(np.pi * np.arange(n) / n) ** 2

@functools.lru_cache
def make_taper(n):
    return jax.jit(lambda s: s * np.hanning(n))

@jax.jit
def taper(signal):
    return signal * window(signal.shape[0])
