"""The state JAX users really hold: bugs about Flax NNX modules, Equinox modules and Refs.

Issue 40 asks whether the diagnostics see the state that JAX users hold today: an
``nnx.Module`` whose ``nnx.Variable`` s change in place, an ``eqx.Module`` (frozen, with
``eqx.nn.State`` threaded through it), a ``jax.new_ref`` ``Ref``. This corpus is its first
step: real cases from public threads, each reduced to a module that reproduces what the
thread shows, labelled from the thread, and scored as collected, before any tool changes.

How, when and by whom: collected in one sitting in December 2026 by a helper who had not
seen any tool's output on these cases, from threads (and one documentation page) that no
other file of ``tests/data/`` cited then. Every label comes from the thread's discussion:
an impure case is code the thread says misbehaves (``what`` says how, in one line); a
look-alike is the right way the thread or the library's documentation shows, which a
tool must leave alone. ``check()`` then shows, with JAX, Flax and Equinox alone (no
jaxpurity), that the label holds on the versions in :data:`SEEN_ON`. One thread was left
out because it no longer reproduces there: infer-actively/pymdp#247 (a field assigned on a
``copy`` of an ``eqx.Module`` raised FrozenInstanceError; on Equinox 0.13.8 it goes through).

Each case is one module, as source text (``code``): the thread's definitions, a
``make()`` that builds fresh state and returns ``(fn, args, kwargs)``, the call a runtime
tool checks, and a ``main()`` that calls it as the thread does. The linter reads the text;
the runtime tools import it, fresh for every run (:func:`loaded`). In an impure case the
lines the thread blames end with ``# BUG``. The module imports Flax or Equinox only
when a case is loaded: this file imports JAX alone.

The two halves. The corpus is split in two files by a seeded draw made once, after the
labels and before any tool ran: within each label, the ids sorted, then
``random.Random(DRAW_SEED).sample(ids, len(ids) // 2)`` (impure first, then look-alikes,
with the same generator) are held out, in ``state_corpus_heldout.py``; the others, the
half to work from, are here. :func:`held_out` makes the draw again from the ids of both
files; ``scorers/state.py`` checks that it names the held-out file's cases.

``python scorers/state.py`` scores each half with ``check_pure``, ``find_leaks`` and
``jaxpurity lint``; it needs Flax and Equinox, which the test suite does not install.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import io
import itertools
import random
import sys
import tempfile
import textwrap
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["CASES", "DRAW_SEED", "KINDS", "SEEN_ON", "Case", "held_out", "loaded"]

#: The versions on which every case's ``check()`` was seen to return True (Python 3.11).
SEEN_ON = {"jax": "0.10.2", "flax": "0.12.8", "equinox": "0.13.8", "optax": "0.2.8"}

#: The seed of the draw that made the two halves (issue 40).
DRAW_SEED = 40

#: The words for what an impure case does: check_pure's kinds, and one more.
KINDS: tuple[str, ...] = (
    "leaked-tracer",
    "container-mutation",
    "argument-mutation",
    "mode-mismatch",
    "trace-error",
    # Compiles again on every call (or for every new instance) though no shape changed.
    "retracing",
)


@dataclasses.dataclass(frozen=True)
class Case:
    """One thread's code.

    Attributes:
      id: A short unique name.
      source: The thread, ``owner/repo#number``, or a page's URL.
      library: ``"flax"``, ``"equinox"`` or ``"jax"`` (a Ref): whose state it holds.
      impure: Whether the thread shows the code misbehaving (True) or right (False).
      kinds: For an impure case, the words of :data:`KINDS` for what it does.
      what: In one line: what is wrong, or what right way a look-alike shows.
      why: What the thread says, and what ``check()`` saw where it differs.
      page: The site's page (a topic of ``jaxpurity._pages``) it belongs to, or None.
      code: The module, as source text.
      check: Returns True when the label holds, given the module freshly loaded.
    """

    id: str
    source: str
    library: str
    impure: bool
    kinds: tuple[str, ...]
    what: str
    why: str
    page: str | None
    code: str
    check: Callable[[Callable[[], types.ModuleType]], bool]


def _case(
    id: str,
    source: str,
    library: str,
    impure: bool,
    kinds: tuple[str, ...],
    what: str,
    why: str,
    page: str | None,
    code: str,
    check: Callable[[Callable[[], types.ModuleType]], bool],
) -> Case:
    if impure != bool(kinds) or set(kinds) - set(KINDS):
        raise ValueError(f"{id}: impure cases need kinds of KINDS, look-alikes none")
    return Case(
        id,
        source,
        library,
        impure,
        kinds,
        what,
        why,
        page,
        textwrap.dedent(code).lstrip("\n"),
        check,
    )


_loads = itertools.count()


@contextlib.contextmanager
def loaded(case: Case) -> Iterator[types.ModuleType]:
    """The case's module, imported fresh from a file of its own (so that tools can read
    its source), and removed with its file afterwards."""
    with tempfile.TemporaryDirectory(prefix="state_corpus_") as folder:
        path = Path(folder, f"{case.id}.py")
        path.write_text(case.code, encoding="utf-8")
        name = f"state_corpus_{case.id}_{next(_loads)}"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
            yield module
        finally:
            sys.modules.pop(name, None)


def run_check(case: Case) -> bool:
    """``case.check``, given a function that loads the case's module afresh each call."""
    with contextlib.ExitStack() as stack:
        return case.check(lambda: stack.enter_context(loaded(case)))


def held_out(cases: list[Case]) -> set[str]:
    """The ids the draw holds out of ``cases`` (both files together); see the docstring."""
    rng = random.Random(DRAW_SEED)
    held: set[str] = set()
    for impure in (True, False):
        ids = sorted(case.id for case in cases if case.impure == impure)
        held.update(rng.sample(ids, len(ids) // 2))
    return held


# -- Helpers for the checks ------------------------------------------------------------


def _raises(names: tuple[str, ...], call: Callable[[], Any]) -> str | None:
    """The error's text when ``call()`` raises an error whose class is named in ``names``."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            jax.block_until_ready(call())
    except Exception as error:  # noqa: BLE001 - matched by name: Flax's classes stay unimported
        if type(error).__name__ in names:
            return str(error)
        raise
    return None


def _traces(module: types.ModuleType, name: str, run: Callable[[], Any]) -> int:
    """How many times ``module.<name>`` (an ``eqx.filter_jit`` function) is traced by
    ``run()``: the same function, jitted again around a counter."""
    import equinox as eqx

    inner = getattr(module, name).__wrapped__
    count = [0]

    def counted(*args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return inner(*args, **kwargs)

    setattr(module, name, eqx.filter_jit(counted))
    run()
    return count[0]


def _same(a: Any, b: Any) -> bool:
    leaves_a, leaves_b = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    return len(leaves_a) == len(leaves_b) and all(
        np.allclose(np.asarray(x), np.asarray(y), atol=1e-5)
        for x, y in zip(leaves_a, leaves_b, strict=True)
    )


# ======================================================================================
# The half to work from
# ======================================================================================

# -- patrick-kidger/equinox#1062: a Python int field, changed by every step ------------


def _check_int_field(load: Callable[[], types.ModuleType]) -> bool:
    module = load()
    # Four steps of one shape, four traces: the int is static to filter_jit.
    return _traces(module, "_step", lambda: module.main(steps=4)) == 4


# -- patrick-kidger/equinox#686: a jax.jit wrapper made in __init__, a static field ----


def _check_jit_field(load: Callable[[], types.ModuleType]) -> bool:
    module = load()
    # The same shapes, two models: the second model's new jax.jit wrapper traces again.
    return _traces(module, "step", lambda: (module.train(), module.train())) == 2


# -- patrick-kidger/equinox#745: a Module holding an array, a nondiff_argnums argument --


def _check_nondiff_module(load: Callable[[], types.ModuleType]) -> bool:
    module = load()
    fun = module.Fun(jnp.array(1.0))
    eager = jax.grad(module.loss.__wrapped__, argnums=1)(fun, 1.0, 2.0)  # no jit: fine
    failed = _raises(("UnexpectedTracerError", "TypeError"), load().main)
    return bool(np.isfinite(eager)) and failed is not None


# -- google/flax#4760: BatchNorm in training mode, its module closed over by nnx.vmap ---


def _check_vmap_batchnorm(load: Callable[[], types.ModuleType]) -> bool:
    module = load()
    model = module.Model(rngs=module.nnx.Rngs(0))
    data = jnp.ones((4, 8, 1))
    model(data)
    model(data)  # eagerly, twice: fine
    failed = _raises(("UnexpectedTracerError", "TraceContextError"), load().main)
    evaluated = load()  # the thread: model.eval() makes the problem disappear
    model = evaluated.Model(rngs=evaluated.nnx.Rngs(0))
    model.eval()
    vmapped = evaluated.nnx.vmap(model, in_axes=1)
    vmapped(jnp.ones((4, 4, 8, 1)))
    vmapped(jnp.ones((4, 4, 8, 1)))
    return failed is not None


# -- Look-alikes ------------------------------------------------------------------------


def _check_stateful_docs(load: Callable[[], types.ModuleType]) -> bool:
    mean, var = load().main(steps=3)
    again, _ = load().main(steps=3)
    moved = not np.allclose(mean, 0.0) and not np.allclose(var, 1.0)
    return moved and _same(mean, again)


def _check_split_merge_scan(load: Callable[[], types.ModuleType]) -> bool:
    module = load()
    model = module.Model(4, 3, module.nnx.Rngs(0))
    before = module.nnx.state(model)
    eager = model.working(jnp.ones(4))
    jitted = jax.jit(model.working)(jnp.ones(4))
    return _same(eager, jitted) and _same(before, module.nnx.state(model))


def _check_ref_argument(load: Callable[[], types.ModuleType]) -> bool:
    return float(load().main()) == 2.0


def _check_ref_vmap(load: Callable[[], types.ModuleType]) -> bool:
    return bool((np.asarray(load().main()) == 1.0).all())


CASES: list[Case] = [
    _case(
        "eqx_int_field_recompiles",
        "patrick-kidger/equinox#1062",
        "equinox",
        True,
        ("retracing",),
        "a step counter kept as a Python int field: filter_jit compiles again for each value",
        "scarlet2's fitting step returned its module with an int field moved on by one; "
        "filter_jit treats non-array leaves as static, so 'jit is recompiling the _step "
        "function when the argument goes from MyModule(x=0)' to x=1 and on, every step; "
        "turning the ints into arrays made it fast. Seen: 4 steps, 4 traces.",
        "retracing_storms",
        """
        import equinox as eqx
        import jax
        import jax.numpy as jnp


        class MyModule(eqx.Module):
            x: int  # BUG
            value: jax.Array


        @eqx.filter_jit
        def _step(module):
            return MyModule(x=module.x + 1, value=module.value * 2.0)  # BUG


        def make():
            return _step, (MyModule(x=0, value=jnp.ones(3)),), {}


        def main(steps=4):
            module = MyModule(x=0, value=jnp.ones(3))
            for _ in range(steps):
                module = _step(module)
            return module
        """,
        _check_int_field,
    ),
    _case(
        "eqx_jit_wrapper_field_recompiles",
        "patrick-kidger/equinox#686",
        "equinox",
        True,
        ("retracing",),
        "a jax.jit wrapper made in __init__ is a static field: each new model compiles again",
        "'Why is this function recompiling?': after re-initialising the module, the "
        "filter_jit step compiles again 'due to the model argument', though the shapes "
        "are the same: the module stores jax.jit(fk_fn), a new object per instance, "
        "among its static leaves. Seen: two models, two traces of step.",
        "retracing_storms",
        """
        from typing import Callable

        import equinox as eqx
        import jax
        import jax.numpy as jnp
        import optax


        class ForwardKinematicTrajectory(eqx.Module):
            trajectory: eqx.Module
            scale_mixer: jax.Array
            forward: Callable

            def __init__(self, fk_fn: Callable):
                self.trajectory = eqx.nn.Linear(1, 3, key=jax.random.PRNGKey(0))
                self.scale_mixer = jnp.ones((3, 1))
                self.forward = jax.jit(fk_fn)  # BUG

            def __call__(self, data):
                return self.forward(self.trajectory(data) * self.scale_mixer)


        def fk(q):
            return jnp.cos(q).sum(axis=0)


        def loss(model, X, y):
            return jnp.mean(jnp.square(jax.vmap(model)(X) - y))


        @eqx.filter_jit
        def step(model, opt_state, X, y, loss_grad, opt):
            val, grads = loss_grad(model, X, y)
            updates, opt_state = opt.update(grads, opt_state, model)
            model = eqx.apply_updates(model, updates)
            return val, model, opt_state


        opt = optax.sgd(1e-2)
        loss_grad = eqx.filter_value_and_grad(loss)


        def train(steps=2):
            model = ForwardKinematicTrajectory(fk)
            opt_state = opt.init(eqx.filter(model, eqx.is_inexact_array))
            X, y = jnp.ones((8, 1)), jnp.zeros((8, 3))
            for _ in range(steps):
                val, model, opt_state = step(model, opt_state, X, y, loss_grad, opt)
            return val


        def make():
            model = ForwardKinematicTrajectory(fk)
            opt_state = opt.init(eqx.filter(model, eqx.is_inexact_array))
            X, y = jnp.ones((8, 1)), jnp.zeros((8, 3))
            return step, (model, opt_state, X, y, loss_grad, opt), {}


        def main():
            return train(), train()
        """,
        _check_jit_field,
    ),
    _case(
        "eqx_module_in_nondiff_argnums",
        "patrick-kidger/equinox#745",
        "equinox",
        True,
        ("leaked-tracer", "mode-mismatch"),
        "an eqx.Module holding an array goes through custom_jvp's nondiff_argnums, under grad",
        "grad of a jitted loss that scans a custom_jvp function, whose nondiff argument is "
        "an eqx.Module with an array field: 'leaked trace error ... It seems like params "
        "in the class Fun is leaked. It gave no error if I used a function'; an array "
        "must not be a nondiff argument (the same rule as jax-ml/jax#20889). Seen on JAX "
        "0.10.2: TypeError 'No constant handler for type: DynamicJaxprTracer' (the stale "
        "tracer), while grad of the loss without jit works.",
        None,
        """
        import functools as ft

        import equinox as eqx
        import jax
        import jax.numpy as jnp
        from jax import lax


        class Fun(eqx.Module):
            param: jax.Array

            def __call__(self, x):
                return self.param * jnp.sin(x)


        @ft.partial(jax.custom_jvp, nondiff_argnums=(0,))  # BUG
        def f(fun, x, y):
            return fun(x) * y


        @f.defjvp
        def f_jvp(fun, primals, tangents):
            x, y = primals
            x_dot, y_dot = tangents
            primal_out = f(fun, x, y)
            tangent_out = fun.param * jnp.cos(x) * y * x_dot + fun(x) * y_dot
            return primal_out, tangent_out


        @jax.jit
        def loss(fun, x, y):
            def body(carry, _):
                return f(fun, carry, y), None

            out, _ = lax.scan(body, x, None, length=2)
            return out


        def make():
            return loss, (Fun(jnp.array(1.0)), 1.0, 2.0), {}


        def main():
            fun = Fun(jnp.array(1.0))
            return jax.grad(loss, argnums=1)(fun, 1.0, 2.0)
        """,
        _check_nondiff_module,
    ),
    _case(
        "nnx_vmap_batchnorm_training",
        "google/flax#4760",
        "flax",
        True,
        ("leaked-tracer", "mode-mismatch"),
        "nnx.vmap of a model in training mode: BatchNorm writes batched statistics into the module",
        "nnx.vmap(model, in_axes=1) of a Conv + BatchNorm model: the first call works, the "
        "second raises UnexpectedTracerError; 'model.eval() # < if I do this the problem "
        "disappears': in training mode BatchNorm stores its running statistics, vmap "
        "tracers, on a module the vmapped call closes over. Seen on Flax 0.12.8: the first "
        "vmapped call already raises TraceContextError ('Cannot mutate BatchStat from a "
        "different trace level'); eagerly, and after model.eval(), it works.",
        "leak_from_grad_vmap",
        """
        import jax
        import jax.numpy as jnp
        from flax import nnx


        class Model(nnx.Module):
            def __init__(self, rngs: nnx.Rngs):
                self.conv = nnx.Conv(1, 5, kernel_size=3, rngs=rngs)
                self.bn = nnx.BatchNorm(5, rngs=rngs)

            def __call__(self, x):
                x = self.bn(self.conv(x))  # BUG
                return x


        def make():
            model = Model(rngs=nnx.Rngs(0))
            data = jax.random.normal(jax.random.key(0), (4, 4, 8, 1))
            return nnx.vmap(model, in_axes=1), (data,), {}


        def main():
            model = Model(rngs=nnx.Rngs(0))
            data = jax.random.normal(jax.random.key(0), (4, 4, 8, 1))
            vmapped_model = nnx.vmap(model, in_axes=1)  # BUG
            print(vmapped_model(data).shape)
            print(vmapped_model(data).shape)
        """,
        _check_vmap_batchnorm,
    ),
    # -- look-alikes --------------------------------------------------------------------
    _case(
        "eqx_batchnorm_state_threaded",
        "https://docs.kidger.site/equinox/examples/stateful/",
        "equinox",
        False,
        (),
        "eqx.nn.BatchNorm's state threaded in and out of a filter_jit step, vmapped with axis_name",
        "Equinox's stateful example: the model takes and returns an eqx.nn.State, the step "
        "vmaps it with axis_name='batch', in_axes=(0, None), out_axes=(0, None), and "
        "returns the new state with the model; 'we just need to thread the additional "
        "state object in and out of every call'. Seen: the running statistics move, the "
        "same on two fresh runs.",
        "global_counter",
        """
        import equinox as eqx
        import jax
        import jax.numpy as jnp
        import jax.random as jr
        import optax


        class Model(eqx.Module):
            norm: eqx.nn.BatchNorm
            linear: eqx.nn.Linear

            def __init__(self, key):
                self.norm = eqx.nn.BatchNorm(input_size=3, axis_name="batch")
                self.linear = eqx.nn.Linear(in_features=3, out_features=1, key=key)

            def __call__(self, x, state):
                x, state = self.norm(x, state)
                return self.linear(x), state


        def compute_loss(model, state, xs, ys):
            batch_model = jax.vmap(
                model, axis_name="batch", in_axes=(0, None), out_axes=(0, None)
            )
            pred_ys, state = batch_model(xs, state)
            return jnp.mean((pred_ys - ys) ** 2), state


        optim = optax.adam(1e-2)


        @eqx.filter_jit
        def make_step(model, state, opt_state, xs, ys):
            grads, state = eqx.filter_grad(compute_loss, has_aux=True)(model, state, xs, ys)
            updates, opt_state = optim.update(grads, opt_state)
            model = eqx.apply_updates(model, updates)
            return model, state, opt_state


        def make():
            model, state = eqx.nn.make_with_state(Model)(jr.PRNGKey(0))
            opt_state = optim.init(eqx.filter(model, eqx.is_inexact_array))
            xs, ys = jr.normal(jr.PRNGKey(1), (8, 3)), jnp.ones((8, 1))
            return make_step, (model, state, opt_state, xs, ys), {}


        def main(steps=3):
            step, (model, state, opt_state, xs, ys), _ = make()
            for _ in range(steps):
                model, state, opt_state = step(model, state, opt_state, xs, ys)
            return state.get(model.norm.ema_state_index)
        """,
        _check_stateful_docs,
    ),
    _case(
        "nnx_split_merge_in_scan",
        "google/flax#5291",
        "flax",
        False,
        (),
        "layers read (not changed) in jax.lax.scan through nnx.split and nnx.merge",
        "The thread's 'working' method: the stacked layers are split once into a graphdef "
        "and their parameters, and the jax.lax.scan body merges each step's parameters "
        "into a layer and applies it; nothing is written (the thread's other method, which "
        "closes over the module in nnx.scan, is refused by NNX though it only reads). "
        "Seen: jit and eager agree, the model's state is unchanged.",
        "leak_from_loop_body",
        """
        import jax
        import jax.numpy as jnp
        from flax import nnx


        class Model(nnx.Module):
            def __init__(self, features: int, layers: int, rngs: nnx.Rngs):
                def make_layer(r):
                    return nnx.Linear(features, features, rngs=r)

                self.layers = nnx.vmap(make_layer)(rngs.fork(split=layers))

            def working(self, x):
                layer_graph, layer_params = nnx.split(self.layers)

                def body(x, params):
                    return nnx.merge(layer_graph, params)(x), None

                y, _ = jax.lax.scan(body, x, layer_params)
                return y


        def make():
            model = Model(4, 3, nnx.Rngs(0))
            return model.working, (jnp.ones(4),), {}


        def main():
            model = Model(4, 3, nnx.Rngs(0))
            return jax.jit(model.working)(jnp.ones(4))
        """,
        _check_split_merge_scan,
    ),
    _case(
        "ref_argument_written_in_jit",
        "patrick-kidger/equinox#1056",
        "jax",
        False,
        (),
        "a Ref passed to a jitted function as an argument and added to in place",
        "The reporter's working version: 'It does work fine when using jax.jit': x[...] "
        "+= 1.0 on a mutable array passed as the argument (the segfault was eqx.filter_jit's "
        "and went away with JAX 0.7.2). Seen: two calls leave 2.0 in the Ref.",
        "global_counter",
        """
        import jax
        import jax.numpy as jnp


        @jax.jit
        def fun(x):
            x[...] += 1.0


        def make():
            return fun, (jax.new_ref(jnp.float32(0.0)),), {}


        def main():
            x = jax.new_ref(jnp.float32(0.0))
            fun(x)
            fun(x)
            return x[...]
        """,
        _check_ref_argument,
    ),
    _case(
        "ref_batched_under_vmap",
        "jax-ml/jax#39288",
        "jax",
        False,
        (),
        "a Ref passed to jax.vmap as a batched argument (in_axes=0) and written per row",
        "'Passing a Ref as a vmap-batched argument works with in_axes=0, including reading "
        "and writing it'; the thread's failures are JAX's, with in_axes=1. Seen: every "
        "row of the Ref holds its row of x.",
        "global_counter",
        """
        import jax
        import jax.numpy as jnp


        def f(r, x):
            r[...] = x


        def make():
            return jax.vmap(f), (jax.new_ref(jnp.zeros((2, 3))), jnp.ones((2, 3))), {}


        def main():
            ref = jax.new_ref(jnp.zeros((2, 3)))
            jax.vmap(f, in_axes=(0, 0))(ref, jnp.ones((2, 3)))
            return ref[...]
        """,
        _check_ref_vmap,
    ),
]
