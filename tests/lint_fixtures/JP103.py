"""JP103 loop-body-leak: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP103 module-level list in a scan body
import jax
partial_sums = []

def add_step(total, x):
    total = total + x
    partial_sums.append(total)  # expect: JP103
    return total, None

jax.lax.scan(add_step, 0.0, jax.numpy.arange(4.0))

# %% finds: JP103 a list of the enclosing function, in a fori_loop body
from jax import lax

def run(x):
    seen = []

    def body(i, carry):
        seen.append(carry)  # expect: JP103
        return carry + i

    return lax.fori_loop(0, 3, body, x)

# %% finds: JP103 a JAX array made in a while_loop body, and a traced item of a pair
import jax
import jax.numpy as jnp
buffers = []
seen = {}

def body(carry):
    buffers.append(jnp.zeros(3))  # expect: JP103
    seen["last"] = (carry.shape, carry)  # expect: JP103
    return carry - 1

jax.lax.while_loop(lambda c: c > 0, body, 3)

# %% finds: JP103 a counter in a closed-over list, updated from a while_loop body
from jax import lax

u = [0]

def body_fun(val):
    u[0] += 1  # expect: JP103
    return val + 1

lax.while_loop(lambda j: j < 10, body_fun, 0)

# %% fine: shapes, counts and names kept from a loop body while it is traced
import jax
import jax.numpy as jnp
shapes, sizes, log = [], {}, []

def body(carry, x):
    new = carry + x
    if len(shapes) < 2:
        shapes.append([jnp.shape(leaf) for leaf in jax.tree.leaves(new)])
    shapes.append(jax.tree.map(jnp.shape, new))
    sizes[len(shapes)] = (new.shape, new.ndim, new.dtype, len(x))
    log.append("traced body")
    return new, None

carry, _ = jax.lax.scan(body, jnp.zeros(2), jnp.ones((4, 2)))
carry = carry.reshape(shapes[-1][0])
