"""JP305 jit-per-call: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP305 a method that jits a new closure and calls it once, on every call
import jax
from jax import jit

class Trainer:
    def __init__(self, loss):
        self.loss = loss

    def step(self, params, batch):
        @jit  # expect: JP305
        def update(params, batch):
            return params - 0.1 * jax.grad(self.loss)(params, batch)

        return update(params, batch)

    def evaluate(self, params, batch):
        return jax.jit(lambda p: self.loss(p, batch))(params)  # expect: JP305

    def predict(self, params, x):
        forward = jax.jit(lambda p, x: p * x)  # expect: JP305
        return forward(params, x)

# %% fine: jitted once and kept, returned, or called in a loop; a plain function; a test
import jax

class Trainer:
    def __init__(self, loss):
        self.loss = loss
        self._update = jax.jit(lambda p, b: p - 0.1 * jax.grad(loss)(p, b))

    def step(self, params, batch):
        return self._update(params, batch)

    def make_step(self):
        @jax.jit
        def update(params, batch):
            return params - 0.1 * jax.grad(self.loss)(params, batch)

        return update

    def fit(self, params, batches):
        update = jax.jit(lambda p, b: p - 0.1 * jax.grad(self.loss)(p, b))
        for batch in batches:
            params = update(params, batch)
        return params

def solve_once(loss, params, batch):
    return jax.jit(lambda p: loss(p, batch))(params)

class TestTrainer:
    def test_step(self):
        assert jax.jit(lambda x: x * 2)(1.0) == 2.0
