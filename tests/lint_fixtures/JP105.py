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
