"""JP112 dropped-method-effect: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP112 an NNX optimizer updated in place under plain jax.jit (google/flax#4695)
import jax
from flax import nnx


def loss_fn(model, x, y):
    return ((model(x) - y) ** 2).mean()


@jax.jit
def train_step(model, optimizer, x, y):
    grads = nnx.grad(loss_fn)(model, x, y)
    optimizer.update(model, grads)  # expect: JP112


def reset_all(counters):
    counters.reset()  # expect: JP112


reset = jax.vmap(reset_all)

# %% fine: NNX's own jit, a result used, the object returned, a helper's call, a Ref
import jax
import optax
from flax import nnx

tx = optax.sgd(0.1)


@nnx.jit
def nnx_step(model, optimizer, grads):
    optimizer.update(model, grads)


@jax.jit
def optax_step(params, opt_state, grads):
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


@jax.jit
def returned(model, optimizer, grads):
    optimizer.update(model, grads)
    return model, optimizer


def helper(optimizer, model, grads):
    optimizer.update(model, grads)


@jax.jit
def log_sum(x, seen: jax.Ref):
    seen.addupdate(..., x.sum())
    return x

# %% fine: NNX variables made mutable references by default (flax's examples/nnx_toy_examples)
import jax
from flax import nnx

nnx.var_defaults(hijax=True)


@jax.jit
def hijax_step(model, optimizer, grads):
    optimizer.update(model, grads)


# %% fine: the same default, set on the test that defines the step (flax's mutable_array_test)
import jax
from flax import nnx


@nnx.var_defaults(hijax=True)
def test_optimize():
    @jax.jit
    def train_step(model, optimizer, grads):
        optimizer.update(model, grads)
