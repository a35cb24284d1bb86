"""JP208 traced-slice: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP208 and JP204 on a pytree's data field, and a helper given a traced bound
import dataclasses
import jax
from flax import struct

@struct.dataclass
class Grid:
    data: jax.Array
    start: jax.Array
    pad: int = struct.field(pytree_node=False)

def window(a, n):
    return a[:n]  # expect: JP208

def rows(a, n):
    return [a[i] for i in range(n)]  # expect: JP204

@jax.jit
def crop(grid: Grid, n):
    window(grid.data, grid.pad)
    rows(grid.data, grid.pad)
    print("cropping", grid.pad, n)  # expect: JP130
    return window(grid.data, grid.start) + rows(grid.data, n)[0]

# %% finds: JP208 a slice with a traced start
import jax

@jax.jit
def window(x, i):
    return x[i : i + 3]  # expect: JP208

# %% fine: a slice with static bounds, and dynamic_slice with a traced start
import jax

@jax.jit
def window(x, i):
    return x[1:4], x[: x.shape[0] // 2], jax.lax.dynamic_slice(x, (i,), (3,))
