"""JP109 static-field-tracer: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP109 traced values stored in a static field under eqx.filter_vmap
import equinox as eqx
import jax
import jax.numpy as jnp

class StaticModule(eqx.Module):
    a: float
    b: float

class Mod(eqx.Module):
    arr: jax.Array
    static: StaticModule = eqx.static_field()

arrs = jnp.asarray([[1.0, 2.0], [4.0, 5.0]])
statics = jnp.asarray([[1.0, 2.0], [-1.0, -2.0]])

@eqx.filter_vmap(in_axes=(0, 0))
def make_ensemble(arr, static):
    made = StaticModule(a=static[0], b=static[1])
    return Mod(arr=arr, static=made)  # expect: JP109

ensemble = make_ensemble(arrs, statics)

# %% fine: static fields given Python values, and traced values given to leaves
import dataclasses
import equinox as eqx
import jax
import jax.numpy as jnp
from flax import struct

class Mod(eqx.Module):
    arr: jax.Array
    depth: int = eqx.field(static=True)

@struct.dataclass
class Grid:
    data: jax.Array
    pad: int = struct.field(pytree_node=False)

@jax.jit
def make(x, n: int = 2):
    grid = Grid(data=x * 2, pad=x.shape[0])
    return Mod(arr=x, depth=n), Grid(data=grid.data, pad=grid.pad + 1)

# %% finds: JP109 a JAX array given to a static field, by keyword and by position
import equinox as eqx
import jax
import jax.numpy as jnp

class Model(eqx.Module):
    weight: jax.Array
    table: jax.Array = eqx.field(static=True)

lookup = jnp.arange(10)
model = Model(weight=jnp.ones(3), table=lookup)  # expect: JP109
other = Model(jnp.ones(3), jnp.zeros(10))  # expect: JP109

# %% fine: Python values given to static fields, and arrays to leaves, by keyword and position
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

class Model(eqx.Module):
    weight: jax.Array
    sizes: tuple = eqx.field(static=True)

class Custom(eqx.Module):
    table: jax.Array = eqx.field(static=True)

    def __init__(self, n):
        self.table = tuple(range(n))

model = Model(jnp.ones(3), (1, 2))
other = Model(weight=jnp.zeros(2), sizes=tuple(np.arange(3).tolist()))
custom = Custom(jnp.ones(3))
