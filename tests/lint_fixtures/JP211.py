"""JP211 unhashable-static: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP211 unhashable static arguments
import dataclasses
import functools
import jax

@dataclasses.dataclass
class Config:
    scale: float

def layer(x, config):
    return x * config.scale

layer_jit = jax.jit(layer, static_argnames="config")
layer_jit(1.0, config=Config(2.0))  # expect: JP211
layer_jit(1.0, config={"scale": 2.0})  # expect: JP211

@functools.partial(jax.jit, static_argnums=1)
def clip(x, bounds):
    return x

clip(1.0, [0, 1])  # expect: JP211

# %% fine: hashable static arguments
import dataclasses
import jax

@dataclasses.dataclass(frozen=True)
class Config:
    scale: float

def layer(x, config):
    return x * config.scale

layer_jit = jax.jit(layer, static_argnames="config")
layer_jit(1.0, config=Config(2.0))
layer_jit(1.0, config=(1, 2))
