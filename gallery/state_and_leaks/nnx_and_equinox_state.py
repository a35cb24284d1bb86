"""
My Flax NNX or Equinox model does not update under jax.jit
==========================================================

Most JAX models keep their parameters and statistics in a Flax NNX module
or an Equinox module. Both are pytrees, so :func:`jax.jit` takes them as
arguments, and both break the habit of changing an object in place, in
different ways: an NNX training step compiled with plain :func:`jax.jit`
updates a copy and drops it without a word, and an Equinox module refuses
any assignment. This page shows each, why, and the fixes the libraries
give: ``nnx.jit``, or ``nnx.split`` and ``nnx.merge`` around
:func:`jax.jit`; ``eqx.tree_at``, and an ``eqx.nn.State`` threaded through
the step.
"""

# %%
# The code people write
# ---------------------
#
# A linear model and its SGD optimizer in Flax NNX, and a training step as
# NNX's guides write it: it takes the model and the optimizer, takes the
# gradient with ``nnx.grad``, and updates both in place. Here it is compiled
# with plain :func:`jax.jit`. (This page needs ``pip install flax equinox``;
# its first output says which versions built it.)

import dataclasses

import equinox as eqx
import flax
import jax
import jax.numpy as jnp
import optax
from flax import nnx

import jaxpurity

print("JAX", jax.__version__, "| Flax", flax.__version__, "| Equinox", eqx.__version__)

x = jnp.array([[1.0, 2.0], [3.0, 4.0]])
y = jnp.array([[1.0], [0.0]])


def loss_fn(model, x, y):
    return jnp.mean((model(x) - y) ** 2)


def new_model():
    model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))
    return model, nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)


def rounded(array):
    return [round(value, 4) for value in array.ravel().tolist()]


@jax.jit
def train_step(model, optimizer, x, y):
    grads = nnx.grad(loss_fn)(model, x, y)
    optimizer.update(model, grads)


# %%
# What JAX does: nothing, and it says nothing
# -------------------------------------------
#
# Two steps run without an error or a warning. The kernel is what it was,
# and the optimizer counted no step.

model, optimizer = new_model()
start = rounded(model.kernel[...])
for _ in range(2):
    train_step(model, optimizer, x, y)
print("kernel:", start, "->", rounded(model.kernel[...]))
print("optimizer steps:", int(optimizer.step[...]))
assert rounded(model.kernel[...]) == start and int(optimizer.step[...]) == 0

# %%
# Why: jit hands the step a copy
# ------------------------------
#
# An NNX module is a pytree: its leaves are the arrays of its variables.
# :func:`jax.jit` flattens each argument into those arrays, traces them, and
# builds a new module from the tracers for the function to use. The step
# updates that new module, and jit returns only what the function returns,
# here nothing; the copy is dropped. The same loss is true of any object
# that is a pytree: a change made inside reaches the caller only as a result.

print("leaves of the model:", [leaf.shape for leaf in jax.tree_util.tree_leaves(model)])

# %%
# Closing over the model instead, as flax#4695 did, does not pass a copy:
# the step would change the caller's objects from inside a trace, which is
# how tracers leak into them (:doc:`leak_through_self`). NNX refuses, while
# it traces the first call:

model, optimizer = new_model()


@jax.jit
def closed_over_step(x, y):
    grads = nnx.grad(loss_fn)(model, x, y)
    optimizer.update(model, grads)


with jaxpurity.raises(ValueError, match="different trace level"):
    closed_over_step(x, y)

# %%
# Fix 1: nnx.jit, with the objects as arguments
# ---------------------------------------------
#
# ``nnx.jit`` is :func:`jax.jit` that knows NNX objects: it splits the ones
# among its arguments into arrays and structure, runs the step, and writes
# the new arrays back into the caller's objects. They must be arguments:
# closed over, they raise as above.


@nnx.jit
def nnx_train_step(model, optimizer, x, y):
    loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
    optimizer.update(model, grads)
    return loss


model, optimizer = new_model()
for _ in range(2):
    nnx_train_step(model, optimizer, x, y)
trained = rounded(model.kernel[...])
print("kernel:", start, "->", trained, "| optimizer steps:", int(optimizer.step[...]))
assert trained != start and int(optimizer.step[...]) == 2

# %%
# Fix 2: split, jit a pure step, update
# -------------------------------------
#
# ``nnx.split`` turns the objects into their structure (a ``GraphDef``, held
# static) and their state (a pytree of arrays). A step that merges them
# inside and returns the new state is a pure function: plain :func:`jax.jit`
# compiles it, and :func:`jax.grad` and :func:`jax.vmap` take it as they take
# any function of arrays. ``copy=True`` makes the merged objects new ones:
# without it, they share the state's variables, so the step run without jit
# changes the state it was given, and under jit it does not (:func:`jaxpurity.check_pure`
# reports that as a ``lost-mutation``). ``nnx.update`` writes the state back
# when the loop is done; until then the caller's model is unchanged.


@jax.jit
def pure_train_step(graphdef, state, x, y):
    model, optimizer = nnx.merge(graphdef, state, copy=True)
    loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
    optimizer.update(model, grads)
    return loss, nnx.state((model, optimizer))


model, optimizer = new_model()
graphdef, state = nnx.split((model, optimizer))
for _ in range(2):
    loss, state = pure_train_step(graphdef, state, x, y)
nnx.update((model, optimizer), state)
merged = rounded(model.kernel[...])
print("kernel:", merged, "| same as fix 1:", merged == trained)
assert merged == trained and int(optimizer.step[...]) == 2

# %%
# An Equinox module refuses the assignment
# ----------------------------------------
#
# Equinox modules are frozen dataclasses: after ``__init__``, setting a field
# raises ``FrozenInstanceError``, inside :func:`jax.jit` or out. The step
# people write first sets the new weight on ``self``:


class Line(eqx.Module):
    weight: jax.Array

    def __call__(self, x):
        return x @ self.weight

    def sgd_step(self, x, y):
        grads = jax.grad(loss_fn)(self, x, y)
        self.weight = self.weight - 0.1 * grads.weight


line = Line(jnp.array([[0.5], [-0.5]]))
with jaxpurity.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'weight'"):
    line.sgd_step(x, y)

# %%
# The refusal is what keeps a module right under jit: an assignment there
# would leave a tracer in the object, or be lost as NNX's was. The fix
# returns a new module that holds the new weight, made with ``eqx.tree_at``,
# and the caller rebinds it. ``eqx.filter_jit`` traces the arrays of its
# arguments and holds the rest static.


@eqx.filter_jit
def line_step(line, x, y):
    grads = jax.grad(loss_fn)(line, x, y)
    return eqx.tree_at(lambda m: m.weight, line, line.weight - 0.1 * grads.weight)


new_line = line
for _ in range(2):
    new_line = line_step(new_line, x, y)
print("weight:", rounded(line.weight), "->", rounded(new_line.weight))
assert rounded(new_line.weight) != rounded(line.weight)

# %%
# State a layer keeps: eqx.nn.State, threaded
# -------------------------------------------
#
# Equinox keeps what a layer updates as it runs (BatchNorm's running mean
# and variance) outside the module, in an ``eqx.nn.State`` that goes in and
# comes out of each call. Forgetting the state that comes out is the bug:
# nothing raises, and the statistics never move.

batchnorm, bn_state = eqx.nn.make_with_state(eqx.nn.BatchNorm)(
    2, axis_name="batch", mode="batch", momentum=0.5
)
rows = jnp.array([[1.0, 10.0], [3.0, 30.0], [5.0, 50.0], [7.0, 70.0]])


@eqx.filter_jit
def bn_step(batchnorm, state, rows):
    normalize = jax.vmap(batchnorm, axis_name="batch", in_axes=(0, None), out_axes=(0, None))
    return normalize(rows, state)


for _ in range(2):
    _, forgotten = bn_step(batchnorm, bn_state, rows)
threaded = bn_state
for _ in range(2):
    _, threaded = bn_step(batchnorm, threaded, rows)
mean_of = lambda state: state.get(batchnorm.batch_state_index)[0].tolist()  # noqa: E731
print("running mean, state forgotten:", mean_of(bn_state), "| threaded:", mean_of(threaded))
assert mean_of(bn_state) == [0.0, 0.0] and mean_of(threaded) == [3.0, 30.0]

# %%
# With jaxpurity: check_pure
# --------------------------
#
# :func:`jaxpurity.check_pure` runs a function without jit and under jit, and
# compares what each run leaves in its arguments. On ``train_step`` it
# reports a ``lost-mutation`` for each array the step changes without jit
# and not under jit: the kernel, the bias and the optimizer's step count.
# The caller's model is as it was after the check.

model, optimizer = new_model()
with jaxpurity.printed(echo=False):
    report = jaxpurity.check_pure(train_step, model, optimizer, x, y)
print(len(report.problems), "problems:", sorted({problem.kind for problem in report.problems}))
print(report.problems[0])
assert {problem.kind for problem in report.problems} == {"lost-mutation"}, report
assert len(report.problems) == 3 and rounded(model.kernel[...]) == start, report

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
IN_PLACE = "it changes the caller's objects in place, which a result-comparing check cannot see"
FIXES = {
    "nnx_train_step": {
        "args": lambda: (*new_model(), x, y),
        "not": {how: IN_PLACE for how in ("jit", "nested", "grad", "vmap")},
    },
    "pure_train_step": {
        "args": lambda: (*nnx.split(new_model()), x, y),
        "wrt": 2,
        "in_axes": (None, 0, 0, 0),
    },
    "line_step": {"args": (Line(jnp.array([[0.5], [-0.5]])), x, y)},
    "bn_step": {
        "fn": lambda state, rows: bn_step(batchnorm, state, rows),
        "args": (bn_state, rows),
        "wrt": 1,
    },
}
# sphinx_gallery_end_ignore
