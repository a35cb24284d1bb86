"""JP131 print-on-devices: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP131 print under shard_map
import jax
from jax.experimental.shard_map import shard_map

def block_sum(x):
    print(x)  # expect: JP131
    return x.sum(keepdims=True)

sums = shard_map(block_sum, mesh=None, in_specs=None, out_specs=None)

# %% fine: jax.debug.print under shard_map, once per device
import jax
from jax.experimental.shard_map import shard_map

def block_sum(x):
    jax.debug.print("block {}", x)
    return x.sum(keepdims=True)

sums = shard_map(block_sum, mesh=None, in_specs=None, out_specs=None)
