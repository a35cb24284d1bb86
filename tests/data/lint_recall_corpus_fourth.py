"""A fourth corpus for the recall of ``jaxpurity lint``, from threads no other file cited.

Like :mod:`lint_recall_corpus`, every entry of :data:`CASES` is the code under test of
one public thread (``owner/repo#number``), reduced to what the thread shows and kept as
source text: the linter reads source and runs nothing. An impure case is code that the
thread says misbehaves under a transformation; a look-alike is pure code of the same
shape that the thread shows working, most often the fix from the same thread. In an
impure case, the line or lines that the thread blames end with the comment ``# BUG``,
so that a scorer can check that a finding lands on them; a look-alike has no marker.

The corpus was collected on 2026-12-06 by a helper that had not seen the linter's output
on any case and did not read the linter or its scorers: the labels, and the lines
marked, come from what each thread says (``why``), not from running any tool. Every
source is one that no other file of this repository cited when it was collected (each
was checked with ``grep`` over the repository's ``.py``, ``.json``, ``.md`` and ``.rst``
files before it was used). Where a thread shows only part of the code, ``why`` says what
was filled in and from where.

It is data: nothing here is imported by the package, and the sources are strings.
"""

from __future__ import annotations

from lint_recall_corpus import Case, _case
from lint_recall_corpus_unseen import _first_half_by_hash

CASES: list[Case] = [
    # -- Python control flow on traced values, and its fixes ----------------------------------
    _case(
        "python_if_in_spu_compiled_function",
        "secretflow/secretflow#1219",
        True,
        "Python if on traced arguments of a function compiled for a device",
        "calculate_test branches with if x > y on its two arguments; secretflow compiles it "
        "for the SPU device through jax.xla_computation, where the arguments are traced, and "
        "the compile fails with TracerBoolConversionError on that line. The reporter's "
        "branches are reduced here to the values their working rewrite selects (1 or 0).",
        main="""
        import secretflow as sf


        def calculate_test(x, y):
            if x > y:  # BUG
                t = 1
            else:
                t = 0
            return t


        sf.init(["alice", "bob"], address="local")
        alice, bob = sf.PYU("alice"), sf.PYU("bob")
        spu = sf.SPU(sf.utils.testing.cluster_def(["alice", "bob"]))

        x = alice(lambda: 3.0)()
        y = bob(lambda: 2.0)()
        t = spu(calculate_test)(x.to(spu), y.to(spu))
        print(sf.reveal(t))
        """,
    ),
    _case(
        "lax_select_in_spu_compiled_function",
        "secretflow/secretflow#1219",
        False,
        "comparison and lax.select on traced arguments (look-alike of a Python if)",
        "After reading the TracerBoolConversionError docs, the reporter rewrote the if as "
        "pred = jnp.greater(x, y); t = lax.select(pred, 1, 0), which compiled for the SPU and "
        "ran; the thread then only asks how to put more complex logic in the branches.",
        main="""
        import jax.numpy as jnp
        import secretflow as sf
        from jax import lax


        def calculate_test(x, y):
            pred = jnp.greater(x, y)
            t = lax.select(pred, 1, 0)
            return t


        sf.init(["alice", "bob"], address="local")
        alice, bob = sf.PYU("alice"), sf.PYU("bob")
        spu = sf.SPU(sf.utils.testing.cluster_def(["alice", "bob"]))

        x = alice(lambda: 3.0)()
        y = bob(lambda: 2.0)()
        t = spu(calculate_test)(x.to(spu), y.to(spu))
        print(sf.reveal(t))
        """,
    ),
    _case(
        "python_if_in_triangular_lr_schedule",
        "google/flax#1903",
        True,
        "Python if on the step inside a schedule called from a jitted train step",
        "The Flax learning-rate HOWTO's create_triangular_schedule returns a function that "
        "branches with if cycle_step < top on the step; the PR that replaced it says the "
        "schedule did not play well with jit, because jit cannot trace an if/else that "
        "depends on the input, and the reviewer notes the old HOWTO did not actually work. "
        "The schedule is the HOWTO's; the jitted train_step taking the schedule as a static "
        "argument and calling it on state.step is the one the same PR put in the guide.",
        main="""
        import functools

        import jax
        import jax.numpy as jnp
        import optax


        def create_triangular_schedule(lr_min, lr_max, steps_per_cycle):
            top = (steps_per_cycle + 1) // 2

            def learning_rate_fn(step):
                cycle_step = step % steps_per_cycle
                if cycle_step < top:  # BUG
                    lr = lr_min + cycle_step / top * (lr_max - lr_min)
                else:
                    lr = lr_max - ((cycle_step - top) / top) * (lr_max - lr_min)
                return lr

            return learning_rate_fn


        @functools.partial(jax.jit, static_argnums=2)
        def train_step(state, batch, learning_rate_fn):
            def loss_fn(params):
                logits = CNN().apply({"params": params}, batch["image"])
                one_hot = jax.nn.one_hot(batch["label"], 10)
                loss = jnp.mean(optax.softmax_cross_entropy(logits, one_hot))
                return loss, logits

            grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
            (_, logits), grads = grad_fn(state.params)
            new_state = state.apply_gradients(grads=grads)
            metrics = compute_metrics(logits, batch["label"])
            lr = learning_rate_fn(state.step)
            metrics["learning_rate"] = lr
            return new_state, metrics


        learning_rate_fn = create_triangular_schedule(3e-3, 3e-2, steps_per_epoch // 4)
        state, metrics = train_step(state, batch, learning_rate_fn)
        """,
    ),
    _case(
        "optax_join_schedules_in_jitted_step",
        "google/flax#1903",
        False,
        "schedule built from optax pieces, called on the traced step in a jitted step",
        "The PR replaced the triangular schedule with the ImageNet example's warmup plus "
        "cosine schedule, built from optax.linear_schedule, optax.cosine_decay_schedule and "
        "optax.join_schedules; the guide's doctest calls it on state.step inside the jitted "
        "train_step. The Python max() runs on config integers while building the schedule, "
        "not on a traced value.",
        main="""
        import functools

        import jax
        import jax.numpy as jnp
        import optax


        def create_learning_rate_fn(config, base_learning_rate, steps_per_epoch):
            warmup_fn = optax.linear_schedule(
                init_value=0.0,
                end_value=base_learning_rate,
                transition_steps=config.warmup_epochs * steps_per_epoch,
            )
            cosine_epochs = max(config.num_epochs - config.warmup_epochs, 1)
            cosine_fn = optax.cosine_decay_schedule(
                init_value=base_learning_rate, decay_steps=cosine_epochs * steps_per_epoch
            )
            schedule_fn = optax.join_schedules(
                schedules=[warmup_fn, cosine_fn],
                boundaries=[config.warmup_epochs * steps_per_epoch],
            )
            return schedule_fn


        @functools.partial(jax.jit, static_argnums=2)
        def train_step(state, batch, learning_rate_fn):
            def loss_fn(params):
                logits = CNN().apply({"params": params}, batch["image"])
                one_hot = jax.nn.one_hot(batch["label"], 10)
                loss = jnp.mean(optax.softmax_cross_entropy(logits, one_hot))
                return loss, logits

            grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
            (_, logits), grads = grad_fn(state.params)
            new_state = state.apply_gradients(grads=grads)
            metrics = compute_metrics(logits, batch["label"])
            lr = learning_rate_fn(state.step)
            metrics["learning_rate"] = lr
            return new_state, metrics


        learning_rate_fn = create_learning_rate_fn(config, config.learning_rate, steps_per_epoch)
        state, metrics = train_step(state, batch, learning_rate_fn)
        """,
    ),
    _case(
        "numpyro_cond_on_sampled_cluster",
        "pyro-ppl/numpyro#1028",
        False,
        "cond on a sampled value inside a model and guide (look-alike of a Python if)",
        "The PR that added numpyro.contrib.control_flow.cond uses, as its doctest, a model and "
        "guide that choose the distribution of x with cond(cluster > 0, ...) on the sampled "
        "cluster, and fits them with SVI; the reviewers approved it and the doctest runs.",
        main="""
        import numpyro
        import numpyro.distributions as dist
        from jax import random
        from numpyro.contrib.control_flow import cond
        from numpyro.infer import SVI, Trace_ELBO


        def model():
            cluster = numpyro.sample("cluster", dist.Normal())

            cond(
                cluster > 0,
                lambda _: numpyro.sample("x", dist.Normal(20.0)),
                lambda _: numpyro.sample("x", dist.Normal(0.0)),
                None,
            )


        def guide():
            m1 = numpyro.param("m1", 10.0)
            s1 = numpyro.param("s1", 0.1, constraint=dist.constraints.positive)
            m2 = numpyro.param("m2", 10.0)
            s2 = numpyro.param("s2", 0.1, constraint=dist.constraints.positive)

            cluster = numpyro.sample("cluster", dist.Normal())

            cond(
                cluster > 0,
                lambda _: numpyro.sample("x", dist.Normal(m1, s1)),
                lambda _: numpyro.sample("x", dist.Normal(m2, s2)),
                None,
            )


        svi = SVI(model, guide, numpyro.optim.Adam(1e-2), Trace_ELBO(num_particles=100))
        params, losses = svi.run(random.PRNGKey(0), num_steps=2500)
        """,
    ),
    # -- host computation on traced values --------------------------------------------------
    _case(
        "pot_emd_inside_grad_loss",
        "PythonOT/POT#625",
        True,
        "library call that converts traced arrays to NumPy inside a differentiated loss",
        "loss_fn passes jax.numpy weights and costs to ot.emd and is differentiated with "
        "jax.grad; POT's backend converts the inputs to NumPy, so the call raises "
        "TracerArrayConversionError, and the reporter notes the same failure under vmap and "
        "jit. The issue is labelled a bug.",
        main="""
        import jax.numpy as jnp
        import ot as pot
        from jax import grad, random

        key = random.PRNGKey(0)
        B = 10

        key, subkey = random.split(key)
        x = random.normal(subkey, (B, 1))
        key, subkey = random.split(key)
        y = random.normal(subkey, (B, 1))


        def loss_fn(x, y):
            costs = jnp.linalg.norm(x[:, None] - y[None, :], axis=-1) ** 2

            pi = pot.emd(jnp.ones(B) / B, jnp.ones(B) / B, costs)  # BUG

            return jnp.sum(pi * costs)


        g = grad(loss_fn)(x, y)
        print(g)
        """,
    ),
    # -- closure state mutated under a framework's jit ------------------------------------------
    _case(
        "plain_array_updated_in_brainpy_jit",
        "brainpy/BrainPy#195",
        True,
        "closed-over array that is not a tracked Variable, updated inside bm.jit",
        "f updates a.value where a is a plain array made by bm.zeros outside the function; "
        "under bm.jit this raises 'JaxArray created outside of the jit function cannot be "
        "updated in JIT mode. You should mark it as brainpy.math.Variable instead', and "
        "before the PR the failed call also left a tracer inside the array. The PR's snippet "
        "makes a a Variable and then rebinds it to bm.zeros(1); b is the Variable it updates.",
        main="""
        import brainpy.math as bm

        a = bm.zeros(1)
        b = bm.Variable(bm.zeros(1))


        @bm.jit
        def f():
            a.value += 1  # BUG
            b.value += 1


        f()
        print(a)
        """,
    ),
]

# The held-out split, fixed by the lead before any case was scored (the rule of
# lint_recall_corpus_unseen): within each label, sort the ids by
# hashlib.sha256(id.encode()).hexdigest() and hold out the first half, rounded down.
HELD_OUT: frozenset[str] = frozenset(
    _first_half_by_hash([case.id for case in CASES if case.impure])
    + _first_half_by_hash([case.id for case in CASES if not case.impure])
)

__all__ = ["CASES", "HELD_OUT"]
