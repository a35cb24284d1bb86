"""JP205 traced-flag: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP205 a traced flag
import jax
import jax.numpy as jnp

def summarize(x, normalize, mode):
    total = jnp.sum(x)
    if normalize:  # expect: JP205
        total = total / x.shape[0]
    if mode == "cap":  # expect: JP205
        total = jnp.minimum(total, 1.0)
    return total

jax.jit(summarize)(jnp.ones(3), True, "cap")

# %% finds: JP205 flags annotated as bool or as an array, JP201 on the items of containers
from typing import Optional, Tuple
import jax

@jax.jit
def f(x, flag: bool, limit: jax.Array, scale: Optional[jax.Array]):
    if flag:  # expect: JP205
        x = -x
    if limit:  # expect: JP205
        x = x + limit
    if scale:  # expect: JP205
        x = x * scale
    return x

@jax.jit
def g(x, bounds: Tuple[jax.Array, jax.Array], scale: dict[str, jax.Array], *rest):
    if bounds[0] > 0 or rest[0]:  # expect: JP201
        x = -x
    return x if scale["s"] > 0 else -x  # expect: JP201

# %% fine: a static argument in an if, a range and a shape
import functools
import jax
import jax.numpy as jnp

@functools.partial(jax.jit, static_argnames=("normalize", "n", "axis"))
def f(x, normalize, n, axis):
    total = jnp.sum(x, axis=axis)
    if normalize:
        total = total / x.shape[axis]
    for _ in range(n):
        total = jnp.cos(total)
    return total + jnp.ones(n).sum()

# %% fine: the truth of a container argument, which is static
from collections.abc import Mapping
from typing import Optional, Sequence, Tuple
import jax
import jax.numpy as jnp

class Bounds:
    pass

def clip(x, limit: Tuple[jax.Array, jax.Array], steps: "Sequence[jax.Array]", *rest):
    if limit:
        x = jnp.clip(x, limit[0], limit[1])
    if not steps or rest:
        return x
    return x + steps[0]

@jax.jit
def g(x, extra: Optional[Tuple[jax.Array, ...]], names: Mapping | None, b: Bounds):
    if extra and names:
        x = x + extra[0]
    if b:
        x = x * 2
    return x

jax.vmap(clip)(jnp.ones(3), (jnp.zeros(3), jnp.ones(3)), [jnp.ones(3)])
