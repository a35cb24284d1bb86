"""The held-out half of the state corpus (issue 40): see :mod:`state_corpus`.

These cases were drawn out by the seeded draw that :mod:`state_corpus` describes, before
any tool ran on the corpus. They are for checking whether a change made from the other
half holds, not for making it: read their scores, not their code, when changing a tool.
"""

from __future__ import annotations

import types
from collections.abc import Callable

import jax.numpy as jnp
import numpy as np
from state_corpus import Case, _case, _raises, _same

__all__ = ["CASES"]


# -- patrick-kidger/equinox#1066: a field of a frozen Module assigned after __init__ ----


def _check_frozen_field(load: Callable[[], types.ModuleType]) -> bool:
    failed = _raises(("FrozenInstanceError",), load().main)
    module = load()  # the way out the thread names: eqx.tree_at, a new module
    model = module.Model(module.jax.random.PRNGKey(0))
    new = module.eqx.tree_at(
        lambda m: m.x, model, model.weight * jnp.ones(3), is_leaf=lambda x: x is None
    )
    return failed is not None and model.x is None and new.x is not None


# -- jax-ml/jax#26349: a Ref made and returned by a jitted function ---------------------


def _check_ref_returned(load: Callable[[], types.ModuleType]) -> bool:
    module = load()
    eager = module.new_counter.__wrapped__(jnp.int32(0))
    failed = _raises(("ValueError",), load().main)
    return type(eager).__name__ == "Ref" and failed is not None and "returned" in failed


# -- jax-ml/jax#25449: one Ref both closed over and passed as an argument ---------------


def _check_ref_twice(load: Callable[[], types.ModuleType]) -> bool:
    module = load()
    module.f.__wrapped__(module.x_ref)  # eagerly: both writes land
    eager_ok = np.asarray(module.x_ref[...]).tolist() == [1.0, 1.0, 0.0]
    failed = _raises(("ValueError",), load().main)
    return eager_ok and failed is not None and "closed over" in failed


# -- google/flax#4333: a Module mutated through a closure of an nnx.jit function --------


def _check_counter_closure(load: Callable[[], types.ModuleType]) -> bool:
    module = load()
    module.counter()  # eagerly: the count moves
    eager_ok = int(module.counter.count.value) == 1
    failed = _raises(("TraceContextError", "UnexpectedTracerError"), load().main)
    return eager_ok and failed is not None


# -- Look-alikes ------------------------------------------------------------------------


def _check_nested_vmap(load: Callable[[], types.ModuleType]) -> bool:
    module = load()
    fn, args, _ = module.make()
    eager_out, eager_state = fn(*args)
    jit_out, jit_state = module.eqx.filter_jit(fn)(*args)
    return eager_out.shape == (5, 4, 3) and _same(eager_out, jit_out)


def _check_counter_argument(load: Callable[[], types.ModuleType]) -> bool:
    return int(load().main()) == 2


def _check_train_step(load: Callable[[], types.ModuleType]) -> bool:
    losses, steps = load().main(steps=3)
    return steps == 3 and all(np.isfinite(losses))


def _check_split_rngs(load: Callable[[], types.ModuleType]) -> bool:
    shape, rows_differ = load().main()
    return shape == (3, 4, 4) and rows_differ


CASES: list[Case] = [
    _case(
        "eqx_frozen_field_assigned",
        "patrick-kidger/equinox#1066",
        "equinox",
        True,
        ("argument-mutation", "trace-error"),
        "a method assigns a field of its eqx.Module after __init__: Modules are frozen",
        "The reporter's method sets an attribute that __init__ left as None, and 'fails due "
        "to the immutability of equinox classes'; the answer is eqx.tree_at, which returns "
        "a new module (as in patrick-kidger/equinox#37: mutate out of place). Seen: "
        "dataclasses.FrozenInstanceError, eagerly too; tree_at gives a new module.",
        None,
        """
        import equinox as eqx
        import jax
        import jax.numpy as jnp


        class Model(eqx.Module):
            weight: jax.Array
            x: jax.Array | None

            def __init__(self, key):
                self.weight = jax.random.normal(key, (3,))
                self.x = None

            def function(self, inputs):
                self.x = self.weight * inputs  # BUG
                return self.x


        def make():
            model = Model(jax.random.PRNGKey(0))
            return model.function, (jnp.ones(3),), {}


        def main():
            model = Model(jax.random.PRNGKey(0))
            return model.function(jnp.ones(3))
        """,
        _check_frozen_field,
    ),
    _case(
        "ref_returned_from_jit",
        "jax-ml/jax#26349",
        "jax",
        True,
        ("mode-mismatch",),
        "a jitted function makes a Ref and returns it",
        "jax.jit(mutable_array)(a) gave a plain array: 'this should be an error because we "
        "don't allow returning a mutable array from a function' (mattjj: it raises with "
        "JAX_MUTABLE_ARRAY_CHECKS). Seen on JAX 0.10.2: ValueError '... returned a mutable "
        "array reference ..., but mutable array references cannot be returned', by "
        "default; eagerly the function returns a Ref.",
        "global_counter",
        """
        import jax
        import jax.numpy as jnp


        @jax.jit
        def new_counter(a):
            return jax.new_ref(a)  # BUG


        def make():
            return new_counter, (jnp.int32(0),), {}


        def main():
            return new_counter(jnp.int32(0))
        """,
        _check_ref_returned,
    ),
    _case(
        "ref_closed_over_and_passed",
        "jax-ml/jax#25449",
        "jax",
        True,
        ("mode-mismatch",),
        "the same Ref is an argument of a jitted function and closed over by it",
        "mattjj's checks for incorrect use of mutable array references under jit: 'that we "
        "don't pass in a mutable array as an argument that we also close over' (with the "
        "same Ref passed twice and a Ref returned). Seen on JAX 0.10.2: ValueError '... "
        "was both closed over and passed as the argument r', by default; eagerly both "
        "writes land.",
        "global_counter",
        """
        import jax
        import jax.numpy as jnp

        x_ref = jax.new_ref(jnp.zeros(3))


        @jax.jit
        def f(r):
            r[0] += 1.0
            x_ref[1] += 1.0  # BUG


        def make():
            return f, (x_ref,), {}


        def main():
            f(x_ref)  # BUG
            return x_ref[...]
        """,
        _check_ref_twice,
    ),
    _case(
        "nnx_counter_in_closure",
        "google/flax#4333",
        "flax",
        True,
        ("leaked-tracer", "container-mutation", "mode-mismatch"),
        "an nnx.jit function changes a Counter module it closes over",
        "Flax's transforms guide, 'Mutable Module cannot be passed by closure': a Counter "
        "that counts its calls, used from a closure of an nnx.jit function, 'we would be "
        "leaking the tracer. However Flax NNX will raise an error'; pass it as an argument. "
        "Seen on Flax 0.12.8: TraceContextError 'Cannot mutate Count from a different trace "
        "level'; eagerly the count moves.",
        "leak_through_self",
        """
        import jax.numpy as jnp
        from flax import nnx


        class Count(nnx.Variable):
            pass


        class Counter(nnx.Module):
            def __init__(self):
                self.count = Count(jnp.array(0))

            def __call__(self):
                self.count.value += 1


        counter = Counter()


        @nnx.jit
        def increment():
            counter()  # BUG


        def make():
            return increment, (), {}


        def main():
            increment()
            return counter.count.value
        """,
        _check_counter_closure,
    ),
    # -- look-alikes --------------------------------------------------------------------
    _case(
        "eqx_nested_vmap_axis_names",
        "patrick-kidger/equinox#935",
        "equinox",
        False,
        (),
        "BatchNorm under two vmaps, its axis_name a tuple of both axes, state unbatched",
        "'vmap over multiple dimensions with stateful model': the answer's model names both "
        "axes in BatchNorm's axis_name, and each vmap passes the state with in_axes None "
        "and returns it with out_axes None. Seen: outputs (5, 4, 3), eager and filter_jit "
        "agree.",
        None,
        """
        import equinox as eqx
        import jax
        import jax.numpy as jnp
        import jax.random as jr


        class Model(eqx.Module):
            norm: eqx.nn.BatchNorm
            linear: eqx.nn.Linear

            def __init__(self, key):
                name = ("outer_batch", "inner_batch")
                self.norm = eqx.nn.BatchNorm(input_size=2, axis_name=name)
                self.linear = eqx.nn.Linear(in_features=2, out_features=3, key=key)

            def __call__(self, x, state):
                x, state = self.norm(x, state)
                return self.linear(x), state


        def forward(model, state, batch):
            inner = jax.vmap(
                model, axis_name="inner_batch", in_axes=(0, None), out_axes=(0, None)
            )
            outer = jax.vmap(
                inner, axis_name="outer_batch", in_axes=(0, None), out_axes=(0, None)
            )
            return outer(batch, state)


        def make():
            model, state = eqx.nn.make_with_state(Model)(jr.PRNGKey(0))
            batch = jnp.arange(40.0).reshape(5, 4, 2)
            return forward, (model, state, batch), {}


        def main():
            fn, args, _ = make()
            out, state = eqx.filter_jit(fn)(*args)
            return out
        """,
        _check_nested_vmap,
    ),
    _case(
        "nnx_counter_as_argument",
        "google/flax#4333",
        "flax",
        False,
        (),
        "the Counter module passed to the nnx.jit function as an argument, changed there",
        "The same guide's way: Modules and Variables that a transformed function mutates "
        "are passed to it as arguments, and nnx.jit carries their changes out. Seen: two "
        "calls, count 2.",
        "leak_through_self",
        """
        import jax.numpy as jnp
        from flax import nnx


        class Count(nnx.Variable):
            pass


        class Counter(nnx.Module):
            def __init__(self):
                self.count = Count(jnp.array(0))

            def __call__(self):
                self.count.value += 1


        @nnx.jit
        def increment(counter):
            counter()


        def make():
            return increment, (Counter(),), {}


        def main():
            counter = Counter()
            increment(counter)
            increment(counter)
            return counter.count.value
        """,
        _check_counter_argument,
    ),
    _case(
        "nnx_jit_train_step",
        "google/flax#5116",
        "flax",
        False,
        (),
        "an nnx.jit train step that updates the model and optimizer it is given in place",
        "The reporter's nnx.jit step (model, optimizer, dropout's Rngs, sown "
        "intermediates, donated), the 'stateful' NNX way the thread compares with "
        "jax.jit + jax.grad; the thread is about memory, not correctness. Seen: three "
        "steps, the optimizer's step count 3, finite losses.",
        "leak_through_self",
        """
        import jax.numpy as jnp
        import optax
        from flax import nnx


        class Model(nnx.Module):
            def __init__(self, rngs):
                self.linear1 = nnx.Linear(in_features=4, out_features=4, rngs=rngs)
                self.dropout = nnx.Dropout(rate=0.5, rngs=rngs)
                self.linear2 = nnx.Linear(in_features=4, out_features=1, rngs=rngs)

            def __call__(self, x):
                x = self.linear1(x)
                self.sow(nnx.Intermediate, "after_linear1", x)
                x = self.dropout(x)
                x = nnx.relu(x)
                return self.linear2(x)


        @nnx.jit(donate_argnums=(0, 1))
        def train_step_nnx(model, opt, x, y):
            def _loss_fn(model):
                preds = model(x)
                return jnp.mean((preds - y) ** 2)

            loss, grads = nnx.value_and_grad(_loss_fn)(model)
            intermediates = nnx.pop(model, nnx.Intermediate)
            opt.update(model, grads)
            return loss, intermediates


        def make():
            model = Model(nnx.Rngs(0))
            opt = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
            return train_step_nnx, (model, opt, jnp.ones((8, 4)), jnp.zeros((8, 1))), {}


        def main(steps=3):
            model = Model(nnx.Rngs(0))
            opt = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
            x, y = jnp.ones((8, 4)), jnp.zeros((8, 1))
            losses = [float(train_step_nnx(model, opt, x, y)[0]) for _ in range(steps)]
            return losses, int(opt.step.value)
        """,
        _check_train_step,
    ),
    _case(
        "nnx_split_rngs_vmap",
        "google/flax#4153",
        "flax",
        False,
        (),
        "layers made under nnx.vmap from Rngs split by nnx.split_rngs: one key per layer",
        "cgarciae: since Flax 0.9.0 nnx.vmap no longer splits random state itself; "
        "'To get back the previous behavior the nnx.split_rngs API was introduced, you can "
        "use this to fix your example' (the three hidden layers below). Seen: a (3, 4, 4) "
        "kernel whose layers differ.",
        "keys_in_vmap_and_scan",
        """
        from flax import nnx


        @nnx.split_rngs(splits=3)
        @nnx.vmap(axis_size=3)
        def create_hidden_layers(rngs: nnx.Rngs):
            return nnx.Linear(
                in_features=4,
                out_features=4,
                bias_init=nnx.initializers.ones,
                rngs=rngs,
            )


        def make():
            return create_hidden_layers, (nnx.Rngs(0),), {}


        def main():
            layers = create_hidden_layers(nnx.Rngs(0))
            kernel = layers.kernel.value
            return kernel.shape, bool((kernel[0] != kernel[1]).any())
        """,
        _check_split_rngs,
    ),
]
