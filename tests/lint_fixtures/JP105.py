"""JP105 self-assignment: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP105 self assigned in a jitted method
import functools
import jax

class RunningMean:
    def __init__(self):
        self.total = 0.0
        self.seen = []

    @functools.partial(jax.jit, static_argnums=0)
    def update(self, x):
        self.total = self.total + x.sum()  # expect: JP105
        self.seen.append(x)  # expect: JP105
        return self.total

# %% finds: JP105 jax.jit(self.method) in __init__
import jax

class Model:
    def __init__(self):
        self.step = jax.jit(self._step)

    def _step(self, x):
        self.last = x  # expect: JP105
        return x * 2

# %% fine: state passed in and out, and an assignment to self outside the trace
import jax

@jax.jit
def mean_step(total, count, x):
    total = total + x.sum()
    count = count + x.size
    return total / count, total, count

class FixedRunningMean:
    def __init__(self):
        self.total, self.count = 0.0, 0

    def update(self, x):
        mean, self.total, self.count = mean_step(self.total, self.count, x)
        return mean

# %% fine: Flax NNX methods, which carry their own state
from flax import nnx

class Counter(nnx.Module):
    @nnx.jit
    def __call__(self, x):
        self.count = x
        return x

# %% finds: JP105 a counter on self updated in a jitted method, and a key made there
import functools
import jax

class Engine:
    def __init__(self):
        self.calls = 0
        self.rng = None

    @functools.partial(jax.jit, static_argnums=0)
    def generate(self, x):
        self.calls += 1  # expect: JP105
        if self.rng is None:
            self.rng = jax.random.PRNGKey(0)  # expect: JP105
        return x * 2

# %% fine: static values set on self in a traced method: a cached jitted function, axis names
import functools
import jax
import jax.numpy as jnp

class DecodeEngine:
    def __init__(self, abstract_outputs):
        self.abstract_outputs = abstract_outputs
        self._compiled_initialize_fn = None

    def init_decode_state(self, rng):
        if self._compiled_initialize_fn is None:

            @jax.jit
            def initialize():
                return jax.tree_util.tree_map(
                    lambda x: jnp.zeros(x.shape, x.dtype), self.abstract_outputs
                )

            self._compiled_initialize_fn = initialize
        state = self._compiled_initialize_fn()
        self.axis_names = jax.tree_util.tree_map(
            lambda x: tuple(x.logical_axes) if hasattr(x, "logical_axes") else (), state
        )
        self.mesh_axes = ("data", "model")
        return state

    def shapes(self, rng):
        return jax.eval_shape(self.init_decode_state, rng)

    def start(self, rng):
        return jax.jit(self.init_decode_state)(rng)

# %% fine: attributes set on an object that the traced code makes itself, and on a Haiku module
import haiku as hk
import jax

class Iteration:
    def __init__(self, depth):
        self.depth = depth

    def __call__(self, x):
        self.representations = x * 2
        self.heads = {}
        self.heads["out"] = x
        return self.representations

@jax.jit
def model(x):
    impl = Iteration(2)

    def body(i, carry):
        return impl(carry)

    carry = jax.lax.fori_loop(0, 3, body, x)
    return impl(carry)

class Block(hk.Module):
    def __call__(self, x):
        self.last = x
        return x

def forward(x):
    return Block()(x)

forward_fn = hk.transform(forward)

# %% finds: JP105 an object the caller passes in, not one the traced code makes
import functools
import jax

class Cell:
    def __init__(self):
        self.externals = []

    def stimulate(self, current):
        self.externals.append(current)  # expect: JP105

@functools.partial(jax.jit, static_argnums=1)
def simulate(amp, cell: Cell):
    cell.stimulate(amp * 2)
    return amp
