"""A corpus for the recall of ``jaxpurity lint``: impure JAX code reduced from public bug reports.

Every entry of :data:`CASES` is the code under test of one thread (cited as
``owner/repo#number``), reduced to what the thread shows, as source text: the linter
reads source and runs nothing. An impure case is code that the thread says misbehaves
under a transformation because of state, randomness, host I/O or host values (a leaked
tracer, a value frozen at trace time, a key that draws the same numbers, a callback
that never runs, a conversion that needs a value); a pure case is a look-alike that the
thread shows working, often the fix from the same thread. ``why`` says what the thread
says. A case is one module, or several (``files``): a package whose modules call each
other, as the reported code did.

The corpus was collected for the issue that asked ``jaxpurity lint`` to find more
(recall on real impure code), from threads that no other corpus of this repository
cites, and scored once as collected, before the linter was changed for it: read the
scores in ``CONTRIBUTING.md``. ``python scorers/lint.py`` prints them.

It is data: nothing here is imported by the package, and the sources are strings.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

__all__ = ["CASES", "Case"]


@dataclass(frozen=True)
class Case:
    """One thread's code.

    Attributes:
      id: A short unique name.
      source: The thread, ``owner/repo#number``.
      impure: Whether the thread shows the code misbehaving (True) or working (False).
      kind: What goes wrong (or what a look-alike resembles), in a few words.
      why: What the thread says.
      files: The modules, by path (``"main.py"`` for a single module).
    """

    id: str
    source: str
    impure: bool
    kind: str
    why: str
    files: dict[str, str] = field(default_factory=dict)


def _case(id: str, source: str, impure: bool, kind: str, why: str, **files: str) -> Case:
    """A case whose ``files`` are given as keywords (``main=...``, ``pkg__model=...`` for
    ``pkg/model.py``), each source dedented."""
    paths = {
        name.replace("__", "/") + ".py": textwrap.dedent(text).lstrip("\n")
        for name, text in files.items()
    }
    return Case(id, source, impure, kind, why, paths)


CASES: list[Case] = [
    # -- iterators and generators advanced under a trace -----------------------------------
    _case(
        "iterator_in_fori_loop",
        "jax-ml/jax#3567",
        True,
        "iterator advanced in a loop body",
        "next(train_iterator) in a fori_loop body under jit gives the same batch on every "
        "step: the body is traced once.",
        main="""
        import jax
        import optax
        from jax import lax

        optimizer = optax.adam(1e-3)
        train_iterator = iter(batches)


        def loss(params, batch):
            return ((params["w"] * batch["x"] - batch["y"]) ** 2).mean()


        @jax.jit
        def run_epoch(params_and_states):
            def loop_fun(idx, params_and_states):
                params, opt_state = params_and_states
                batch = next(train_iterator)
                grads = jax.grad(loss)(params, batch)
                updates, opt_state = optimizer.update(grads, opt_state)
                return optax.apply_updates(params, updates), opt_state

            return lax.fori_loop(0, train_num_batches, loop_fun, params_and_states)
        """,
    ),
    _case(
        "generator_in_scan",
        "probml/dynamax#130",
        True,
        "generator advanced in a scan body",
        "A minibatch generator advanced inside lax.scan silently returns its first value "
        "at every step; the maintainers moved the loop over batches to Python.",
        main="""
        import jax
        import jax.numpy as jnp
        import jax.random as jr
        from jax import lax


        def sample_minibatches(key, dataset, batch_size):
            n = len(dataset)
            perm = jr.permutation(key, n)
            for idx in range(0, n, batch_size):
                yield dataset[perm[idx : idx + batch_size]]


        def run_sgd(loss_fn, params, dataset, batch_size, num_iters, key, optimizer):
            opt_state = optimizer.init(params)
            loss_grad_fn = jax.value_and_grad(loss_fn)
            batches = sample_minibatches(key, dataset, batch_size)

            def train_step(carry, _):
                params, opt_state = carry
                batch = next(batches)
                loss, grads = loss_grad_fn(params, batch)
                updates, opt_state = optimizer.update(grads, opt_state)
                params = jax.tree.map(lambda p, u: p + u, params, updates)
                return (params, opt_state), loss

            (params, _), losses = lax.scan(train_step, (params, opt_state), None, length=num_iters)
            return params, losses
        """,
    ),
    _case(
        "dataloader_iterated_in_jit",
        "BirkhoffG/jax-dataloader#2",
        True,
        "iterator advanced in a jitted function",
        "A data loader iterated inside a jitted function (made static to pass it in) gives "
        "one batch, read while tracing; the maintainer: the loader is not meant to be jitted.",
        main="""
        from functools import partial

        import jax


        @partial(jax.jit, static_argnames=["train_loader"])
        def first_batch_stats(train_loader):
            train_iter = iter(train_loader)
            xtr, ytr = next(train_iter)
            return xtr.mean(), ytr.mean()
        """,
    ),
    # -- state written through objects and containers a traced function reaches ------------
    _case(
        "closed_over_list_in_while_loop",
        "jax-ml/jax#1708",
        True,
        "closed-over list changed in a loop body",
        "u[0] += 1 in a while_loop body runs once, while tracing: the maintainers point to "
        "tracing and functional updates.",
        main="""
        from jax import lax

        u = [0]


        def body_fun(val):
            u[0] += 1
            return val + 1


        def cond_fun(j):
            return j < 10


        lax.while_loop(cond_fun, body_fun, 0)
        print("xla", u)
        """,
    ),
    _case(
        "closed_over_list_under_remat",
        "jax-ml/jax#4663",
        True,
        "closed-over list changed under checkpoint",
        "seq[0] += 1 in a remat'ed function, called twice inside jit, raised an internal "
        "KeyError, now an escaped tracer error: a side effect on a closed-over list.",
        main="""
        import jax
        import jax.numpy as jnp


        def f():
            seq = [jnp.zeros([])]

            def g():
                seq[0] += 1
                return seq[0]

            jax.remat(g)()
            jax.remat(g)()


        jax.jit(f)()
        """,
    ),
    _case(
        "stimuli_set_on_closed_over_object",
        "jaxleyverse/jaxley#74",
        True,
        "attribute of a closed-over object set under jit(vmap)",
        "simulate() calls stimuli.set_currents(...) on a closed-over object under "
        "jit(vmap(...)); a later un-jitted loss raises UnexpectedTracerError, gone without jit.",
        sim__stimulus="""
        class Stimuli:
            def __init__(self, stimuli):
                self.stimuli = stimuli
                self.currents = None

            def set_currents(self, currents):
                self.currents = currents
                return self
        """,
        sim__run="""
        import jax.numpy as jnp
        from jax import jit, vmap

        from sim.stimulus import Stimuli
        from sim.solver import solve

        stimuli = Stimuli([0, 1])


        def simulate(mem_params, image):
            new_current = jnp.zeros((199, 784))
            new_current = new_current.at[80:, :].set(image * jnp.ones((784,)))
            stims = stimuli.set_currents(new_current)
            return solve(mem_params, stims)


        jitted_sim = jit(vmap(simulate, in_axes=(None, 0)))


        def loss(mem_params, image, label):
            s = simulate(mem_params, image)
            return jnp.abs(s[0, -1] - label)
        """,
        sim__solver="""
        import jax.numpy as jnp


        def solve(mem_params, stims):
            return jnp.cumsum(stims.currents * mem_params, axis=0)
        """,
    ),
    _case(
        "stimulate_static_cell",
        "jaxleyverse/jaxley#217",
        True,
        "static argument changed by a method under jit",
        "cell_copy.stimulate(current) inside a function jitted with the cell static changes "
        "the cell while tracing; the fix (#219) returns the stimuli instead.",
        cells__cell="""
        class Cell:
            def __init__(self):
                self.externals = []

            def stimulate(self, current):
                self.externals.append(current)
        """,
        cells__experiment="""
        import jax.numpy as jnp
        from jax import jit

        from cells.cell import Cell


        def step_current(i_amp, n):
            return jnp.zeros(n).at[10:].set(i_amp)


        def simulate(i_amp, cell_copy: Cell):
            current = step_current(i_amp, 200)
            cell_copy.stimulate(current)
            return jnp.cumsum(current)


        jitted_simulate = jit(simulate, static_argnums=(1,))
        """,
    ),
    _case(
        "list_argument_written_under_vmap",
        "jax-ml/jax#17415",
        True,
        "argument list written under vmap",
        "h writes l[0] in a list it is given; under jit the change shows, under "
        "vmap(h, (None, 0)) inside jit it is lost: mutate-and-return is the supported way.",
        main="""
        import jax
        from jax import numpy as jnp


        def h(l, x):
            l[0] = 9999


        def f2():
            l = [0]
            jax.vmap(h, (None, 0))(l, jnp.array([1, 2]))
            return l


        f2 = jax.jit(f2)
        """,
    ),
    _case(
        "input_dict_written_in_train_step",
        "AI-Hypercomputer/maxdiffusion#470",
        True,
        "argument dict written in a jitted step",
        "train_step writes data[k] = v[:n] into its input dict under jit; review: in-place "
        "mutation of an input violates purity, build a new dict (done).",
        main="""
        import functools

        import jax


        def train_step(state, data, rng, config):
            _, new_rng, noise_rng = jax.random.split(rng, num=3)
            for k, v in data.items():
                data[k] = v[: config.global_batch_size_to_train_on, :]
            noise = jax.random.normal(noise_rng, data["latents"].shape)
            loss = ((state.apply_fn(state.params, data["latents"] + noise)) ** 2).mean()
            return state, loss, new_rng


        def make_step(config):
            return jax.jit(functools.partial(train_step, config=config), donate_argnums=(0,))
        """,
    ),
    _case(
        "optimizer_updated_in_place_in_jit",
        "jax-ml/jax#7748",
        True,
        "argument object changed by a method under jit",
        "train_step relies on optimizer.update mutating the optimizer pytree it is given; "
        "shoyer: in-place updates of inputs under jit are undefined behaviour.",
        opt__optimizer="""
        import jax


        class Optimizer:
            def __init__(self, tx, params):
                self.tx = tx
                self.opt_state = tx.init(params)

            def update(self, grads, params):
                updates, self.opt_state = self.tx.update(grads, self.opt_state, params)
                return jax.tree.map(lambda p, u: p + u, params, updates)
        """,
        opt__train="""
        import jax

        from opt.optimizer import Optimizer


        @jax.jit
        def train_step(params, x, y, optimizer: Optimizer):
            grads = jax.grad(lambda p: ((p * x - y) ** 2).mean())(params)
            params = optimizer.update(grads, params)
            return params, optimizer
        """,
    ),
    _case(
        "jitted_method_reads_mutable_self",
        "PlasmaControl/DESC#310",
        True,
        "jitted bound method of a changing object",
        "jax.jit of a method compiles self in: updating the objective's target or weight "
        "later is not seen by the jitted compute, so the PR re-jits after each change.",
        main="""
        import jax
        import jax.numpy as jnp


        class Objective:
            def __init__(self, target, weight):
                self.target = target
                self.weight = weight
                self.compute = jax.jit(self._compute)

            def _compute(self, x):
                return self.weight * (jnp.sum(x) - self.target)

            def set_target(self, target):
                self.target = target


        objective = Objective(1.0, 2.0)
        objective.compute(jnp.ones(3))
        objective.set_target(3.0)
        objective.compute(jnp.ones(3))
        """,
    ),
    _case(
        "step_counter_on_self_in_compiled_step",
        "bayesflow-org/bayesflow#223",
        True,
        "attribute of self incremented in a compiled step",
        "self.current_step += 1 in a train step that Keras compiles with JAX is not "
        "tracked: it must be a variable updated with assign.",
        main="""
        import keras


        class ConsistencyModel(keras.Model):
            def __init__(self, network, total_steps):
                super().__init__()
                self.network = network
                self.total_steps = total_steps
                self.current_step = 0

            def train_step(self, data):
                self.current_step += 1
                loss = self.compute_loss(data, self.current_step / self.total_steps)
                return {"loss": loss}
        """,
    ),
    # -- keys reused ---------------------------------------------------------------------
    _case(
        "key_reused_through_integrator",
        "blackjax-devs/blackjax#53",
        True,
        "key given to a helper and carried on",
        "In expand_once the key is given to trajectory_integrator and also returned in the "
        "loop state, where it is split again; the thread shows the same numbers reappear.",
        main="""
        import jax
        import jax.numpy as jnp


        def dynamic_expansion(trajectory_integrator, max_num_expansions):
            def expand(rng_key, initial_proposal, initial_trajectory):
                def do_keep_expanding(loop_state):
                    _, _, _, step = loop_state
                    return step < max_num_expansions

                def expand_once(loop_state):
                    rng_key, proposal, trajectory, step = loop_state
                    rng_key, direction_key = jax.random.split(rng_key)
                    direction = jnp.where(jax.random.bernoulli(direction_key), 1, -1)
                    new_proposal, new_trajectory = trajectory_integrator(
                        rng_key, trajectory, direction
                    )
                    return (rng_key, new_proposal, new_trajectory, step + 1)

                return jax.lax.while_loop(
                    do_keep_expanding,
                    expand_once,
                    (rng_key, initial_proposal, initial_trajectory, 0),
                )

            return expand
        """,
    ),
    _case(
        "key_sequence_on_self_in_jit",
        "jax-ml/jax#1133",
        True,
        "key split and stored on self",
        "PRNGKeySequence.next_key splits self._key and stores it: mattjj shows that under "
        "jit the side effect breaks, and the sequence repeats its keys.",
        main="""
        from jax import jit, random


        class PRNGKeySequence:
            def __init__(self, key):
                self._key = key

            def next_key(self):
                self._key, subkey = random.split(self._key)
                return subkey


        seq = PRNGKeySequence(random.PRNGKey(0))


        @jit
        def f(x):
            return x + random.normal(seq.next_key(), ())


        print(f(1.0))
        print(f(1.0))
        """,
    ),
    _case(
        "one_key_two_draws",
        "jax-ml/jax#2009",
        True,
        "one key drawn from twice",
        "a = uniform(key); b = uniform(key) gives a == b, a foot gun nearly every new user "
        "hits (the issue proposes a key generator).",
        main="""
        import jax

        key = jax.random.PRNGKey(0)
        a = jax.random.uniform(key, (10, 10))
        b = jax.random.uniform(key, (10, 10))
        """,
    ),
    _case(
        "subkey_unused_key_drawn",
        "AakashKumarNain/TF_JAX_tutorials#4",
        True,
        "key drawn from and carried; seed made again in a loop",
        "randint(key) after key, subkey = split(key) leaves subkey unused and draws from the "
        "key that is split again later; and PRNGKey(0) made in every round repeats numbers.",
        main="""
        import jax
        from jax import random


        def random_rotations(key, images, batch_size):
            key, subkey = random.split(key)
            rotate = random.randint(key, shape=[batch_size], minval=0, maxval=2)
            rotated = jax.vmap(lambda image, r: jax.numpy.rot90(image, k=r))(images, rotate)
            return rotated, key


        for _ in range(3):
            key = random.PRNGKey(0)
            print(random.normal(key))
        """,
    ),
    _case(
        "same_key_split_twice",
        "dunnolab/xland-minigrid#42",
        True,
        "one key split twice",
        "ruleset_rng and reset_rng are both split from rng (not _rng1, _rng2): the same keys; "
        "the maintainer: a typo.",
        main="""
        import jax


        def make_states(rng, config):
            rng, _rng1, _rng2 = jax.random.split(rng, num=3)
            ruleset_rng = jax.random.split(rng, num=config.num_envs_per_device)
            reset_rng = jax.random.split(rng, num=config.num_envs_per_device)
            return rng, ruleset_rng, reset_rng
        """,
    ),
    _case(
        "constant_key_in_traced_method",
        "p-doom/jasmine#239",
        True,
        "key made from a constant in a traced method",
        "mask_and_encode splits jax.random.key(0) when training: the author notes the same "
        "key is made on every step, so every step masks the same patches.",
        model__tokenizer="""
        import jax
        import jax.numpy as jnp
        from flax import nnx


        class TokenizerMAE(nnx.Module):
            def __init__(self, patch_size, mask_prob, rngs):
                self.patch_size = patch_size
                self.mask_prob = mask_prob
                self.encoder = nnx.Linear(patch_size, 64, rngs=rngs)

            def mask_and_encode(self, videos, rng, training=True):
                if training:
                    _rng_prob, _rng_mask = jax.random.split(jax.random.key(0), 2)
                    mask_prob = jax.random.uniform(_rng_prob, minval=0.0, maxval=self.mask_prob)
                    mask = jax.random.bernoulli(_rng_mask, mask_prob, videos.shape[:3])
                    videos = jnp.where(mask[..., None], 0.0, videos)
                return self.encoder(videos)
        """,
        model__train="""
        import jax
        from flax import nnx

        from model.tokenizer import TokenizerMAE


        @nnx.jit
        def train_step(model: TokenizerMAE, optimizer, inputs):
            def loss_fn(model):
                latents = model.mask_and_encode(inputs["videos"], inputs["rng"], training=True)
                return (latents**2).mean()

            loss, grads = nnx.value_and_grad(loss_fn)(model)
            optimizer.update(grads)
            return loss
        """,
    ),
    _case(
        "one_key_for_every_gradient_leaf",
        "jax-ml/jax#3646",
        True,
        "closed-over key drawn from in a function mapped over a tree",
        "The DP-SGD example added noise to every parameter's gradient with one key: mattjj "
        "calls the reuse an insidious bug.",
        main="""
        from jax import grad, random, tree_util, vmap


        def private_grad(params, batch, rng, l2_norm_clip, noise_multiplier, batch_size):
            clipped_grads = vmap(grad(loss), (None, 0))(params, batch)
            sum_ = lambda n: n.sum(0)
            std_dev = l2_norm_clip * noise_multiplier
            noise_ = lambda n: n + std_dev * random.normal(rng, n.shape)
            normalize_ = lambda n: n / batch_size
            aggregated = tree_util.tree_map(sum_, clipped_grads)
            noised = tree_util.tree_map(noise_, aggregated)
            return tree_util.tree_map(normalize_, noised)
        """,
    ),
    _case(
        "one_key_for_inputs_and_noise",
        "thomaspinder/GPJax#191",
        True,
        "one key drawn from twice",
        "The examples drew x and the noise in y from the same key, sorting x to hide the "
        "correlation; the PR splits the key.",
        main="""
        import jax.numpy as jnp
        import jax.random as jr

        key = jr.PRNGKey(123)
        n = 100
        noise = 0.3
        x = jr.uniform(key=key, minval=-3.0, maxval=3.0, shape=(n,)).sort().reshape(-1, 1)
        f = lambda x: jnp.sin(4 * x) + jnp.cos(2 * x)
        signal = f(x)
        y = signal + jr.normal(key, shape=signal.shape) * noise
        """,
    ),
    _case(
        "constant_key_in_dropout",
        "jax-ml/jax#170",
        True,
        "key made from a constant in a traced function",
        "A user made Dropout work by writing rng = PRNGKey(seed) in apply_fun: mattjj, "
        "that drops the same units every time.",
        main="""
        import jax.numpy as np
        from jax import grad, jit, random


        def Dropout(rate, mode="train"):
            def init_fun(rng, input_shape):
                return input_shape, ()

            def apply_fun(params, inputs, **kwargs):
                rng = random.PRNGKey(0)
                keep = random.bernoulli(rng, rate, inputs.shape)
                return np.where(keep, inputs / rate, 0)

            return init_fun, apply_fun


        init_fun, apply_fun = Dropout(0.4)


        @jit
        def update(params, inputs, targets):
            loss = lambda p: ((apply_fun(p, inputs) - targets) ** 2).sum()
            return grad(loss)(params)
        """,
    ),
    _case(
        "one_key_for_every_batch_element_init",
        "google/flax#2665",
        True,
        "one key given to an initializer for every batch element",
        "Batched DenseGeneral initialised every batch element with the same key, so their "
        "kernels were equal; the PR splits the key per element.",
        main="""
        import jax
        import jax.numpy as jnp
        import numpy as np


        def make_kernel_init(kernel_init, n_batch_dims):
            def kernel_init_wrap(rng, shape, dtype=jnp.float32):
                size_batch_dims = int(np.prod(shape[:n_batch_dims]))
                flat_shape = (int(np.prod(shape[n_batch_dims:-1])), shape[-1])
                kernel = jnp.concatenate(
                    [kernel_init(rng, flat_shape, dtype) for _ in range(size_batch_dims)],
                    axis=0,
                )
                return jnp.reshape(kernel, shape)

            return kernel_init_wrap


        init = make_kernel_init(jax.nn.initializers.lecun_normal(), 1)
        kernel = init(jax.random.PRNGKey(0), (4, 3, 2))
        """,
    ),
    # -- host randomness, host I/O and host NumPy on traced values ------------------------
    _case(
        "numpy_generator_argument_in_jit",
        "scipy/scipy#24412",
        True,
        "NumPy generator drawn from in a jitted function",
        "With jax_jit=True, a function that draws from the rng it is given returns the "
        "same variates on every call: the draw happens while tracing.",
        main="""
        import jax
        import numpy as np


        def get_random_value(a, rng):
            return a * 0 + rng.random()


        get_random_value_jit = jax.jit(get_random_value, static_argnames=["rng"])
        rng = np.random.default_rng(34982345)
        """,
    ),
    _case(
        "numpy_array_of_samples_in_model",
        "pyro-ppl/numpyro#570",
        True,
        "NumPy array built from traced samples",
        "A NumPyro model builds np.array([[pos, eff, sig, mean_time]]) from sampled values "
        "and prints them: under MCMC the samples are tracers, and the model fails.",
        main="""
        import numpy as np
        import numpyro
        import numpyro.distributions as dist
        from numpyro.infer import MCMC, NUTS


        def model(MRT=None):
            eff = numpyro.sample("eff", dist.Normal(0.5, 0.1))
            pos = numpyro.sample("pos", dist.Normal(10, 0.1))
            sig = numpyro.sample("sig", dist.Normal(1, 0.2))
            mean_time = numpyro.sample("mt", dist.Normal(10.0, 4))
            sigma = numpyro.sample("sigma", dist.Exponential(1.0))
            print(mean_time)
            array = np.array([[pos, eff, sig, mean_time]], dtype=float)
            mrt = tpm(np.arange(0, 100), array)
            numpyro.sample("obs", dist.Normal(mrt, sigma), obs=MRT)


        mcmc = MCMC(NUTS(model), num_warmup=500, num_samples=1000)
        """,
    ),
    _case(
        "jnp_save_in_jit",
        "jax-ml/jax#3766",
        True,
        "array saved to disk while tracing",
        "jax.numpy.save of a tensor inside a jitted function fails with a conversion "
        "error: saving is a side effect (io_callback exists for it).",
        main="""
        import jax
        import jax.numpy as jnp


        @jax.jit
        def step(x):
            y = jnp.tanh(x) * 2
            jnp.save("intermediate.npy", y)
            return y.sum()
        """,
    ),
    _case(
        "np_save_of_activations_in_step",
        "rowanz/merlot_reserve#16",
        True,
        "NumPy save of traced activations",
        "Saving a layer's activations with np.save inside the jitted fine-tuning step fails "
        "with a conversion error; the reporter turned to a host callback.",
        main="""
        import jax
        import numpy as np


        @jax.jit
        def finetune_step(state, batch):
            def loss_fn(params):
                hidden, logits = state.apply_fn({"params": params}, batch["inputs"])
                np.save("layer11.npy", hidden)
                return ((logits - batch["labels"]) ** 2).mean()

            loss, grads = jax.value_and_grad(loss_fn)(state.params)
            return state.apply_gradients(grads=grads), loss
        """,
    ),
    _case(
        "np_save_in_simulation_loop",
        "jax-md/jax-md#30",
        True,
        "NumPy save inside a jitted loop",
        "Storing intermediate positions with np.save from the jitted simulation won't work "
        "inside jit: save between jitted chunks, or keep a buffer.",
        main="""
        import jax
        import numpy as np
        from jax import lax


        def simulate(apply_fn, state, steps):
            def body(i, state):
                state = apply_fn(state)
                np.save(f"positions_{i}.npy", state.position)
                return state

            return jax.jit(lambda s: lax.fori_loop(0, steps, body, s))(state)
        """,
    ),
    _case(
        "float_of_jitted_result",
        "quantumlib/OpenFermion#1396",
        True,
        "float() of a traced value",
        "compute_objective_batched is decorated with @jax.jit and returned float(...) of its "
        "result: a ConcretizationTypeError while tracing (the PR uses typing.cast).",
        main="""
        import jax
        import jax.numpy as jnp


        @jax.jit
        def compute_objective_batched(chi, zeta, eri, penalty_param=0.0):
            eri_thc = jnp.einsum("pm,qm,mn,rn,sn->pqrs", chi, chi, zeta, chi, chi)
            deri = eri - eri_thc
            res = 0.5 * jnp.sum(jnp.abs(deri) ** 2)
            return float(res + penalty_param * jnp.sum(zeta**2))
        """,
    ),
    _case(
        "float_under_grad",
        "jax-ml/jax#2783",
        True,
        "float() of a value under grad",
        "float(x) under jax.grad raises (int(x) works): float would act as a silent "
        "stop_gradient, so JAX refuses it (mattjj).",
        main="""
        from jax import grad


        def func(x):
            return x if float(x) >= 0.0 else -x


        print(grad(func)(3.0))
        """,
    ),
    # -- callbacks that carry effects ------------------------------------------------------
    _case(
        "progress_bar_in_pure_callback",
        "brainpy/BrainPy#682",
        True,
        "side effect in a pure_callback whose result is unused",
        "The runner's progress bar stayed at 0%: it was updated through jax.pure_callback, "
        "which jit may remove when its result is unused; a debug callback fixed it.",
        runner__runner="""
        import jax
        from tqdm import tqdm


        class DSRunner:
            def __init__(self, target, num_steps):
                self.target = target
                self._pbar = tqdm(total=num_steps)

            def _update_bar(self, *args):
                self._pbar.update()

            def _step_func(self, state, i):
                jax.pure_callback(self._update_bar, None, i)
                return self.target.update(state, i), None

            def run(self, state, indices):
                return jax.jit(lambda s: jax.lax.scan(self._step_func, s, indices))(state)
        """,
    ),
    # -- pure look-alikes ----------------------------------------------------------------
    _case(
        "debug_callback_progress_bar",
        "patrick-kidger/diffrax#356",
        False,
        "progress bar updated by debug callbacks from a while_loop body",
        "The MWE, whose callbacks keep a tqdm bar in a closed-over dict and update it from "
        "a while_loop body, works as expected.",
        main="""
        import jax
        import jax.lax as lax
        from tqdm import tqdm


        @jax.jit
        def main(t0, t1):
            pbars = {}

            def define_progressbar():
                pbars[0] = tqdm(total=100)

            def update_progressbar(t, t0, t1):
                pbars[0].n = round((t - t0) / (t1 - t0) * 100, 1)

            def close_progressbar():
                pbars[0].close()

            def cond_fun(t):
                return t < t1

            def body_fun(t):
                jax.debug.callback(update_progressbar, t=t, t0=t0, t1=t1)
                return t + 0.1

            jax.debug.callback(define_progressbar)
            lax.while_loop(cond_fun, body_fun, t0)
            jax.debug.callback(close_progressbar)


        main(0.0, 100.0)
        """,
    ),
    _case(
        "save_through_io_callback",
        "OpenSourceEconomics/dcegm#76",
        False,
        "arrays saved from a jitted function through io_callback",
        "Saving arrays to disk inside the jitted backward induction goes through "
        "jax.experimental.io_callback, the supported way for side effects.",
        main="""
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax.experimental import io_callback


        def save_period(period, endog_grid, policy, value):
            np.save(f"endog_grid_{period}.npy", endog_grid)
            np.save(f"policy_{period}.npy", policy)
            np.save(f"value_{period}.npy", value)


        @jax.jit
        def backward_induction(params, grids):
            value = jnp.zeros_like(grids)
            for period in range(5):
                endog_grid = grids * params["beta"] ** period
                policy = endog_grid / (1 + params["r"])
                value = jnp.log(policy) + params["beta"] * value
                io_callback(save_period, None, period, endog_grid, policy, value)
            return value
        """,
    ),
    _case(
        "shapes_appended_from_scan_body",
        "pyro-ppl/numpyro#2248",
        False,
        "scan body appending static shapes to an outer list",
        "The scan wrapper appends the carry's shapes to carry_shapes from the body: "
        "trace-time bookkeeping, no behaviour change (the PR only makes it a list).",
        main="""
        import jax
        import jax.numpy as jnp
        from jax import lax


        def scan_wrapper(f, init, xs, length):
            carry_shapes = []

            def body_fn(wrapped_carry, x):
                i, carry = wrapped_carry
                new_carry, y = f(carry, x)
                carry_shapes.append([jnp.shape(x) for x in jax.tree.flatten(new_carry)[0]])
                return (i + 1, new_carry), y

            (_, last_carry), ys = lax.scan(body_fn, (0, init), xs, length=length)
            return last_carry, ys, carry_shapes
        """,
    ),
    _case(
        "trace_counter_print",
        "patrick-kidger/equinox#645",
        False,
        "print of a constant in a jitted function",
        "print('COMPILE') in a jitted function marks each trace on purpose (the thread is "
        "about how often filter_jit traces, not about the print).",
        main="""
        import chex
        import jax


        @jax.jit
        @chex.assert_max_traces(1)
        def f(x, i):
            print("COMPILE")
            return x * 2


        for i in range(10):
            print(f(2.0 * i, i))
        """,
    ),
    _case(
        "nnx_jit_updates_in_place",
        "google/flax#5489",
        False,
        "optimizer and metrics updated in place under nnx.jit",
        "The @nnx.jit run_step that updates the optimizer and metrics in place works; "
        "the thread's errors come from splitting the model by hand under jax.jit.",
        main="""
        import jax
        import jax.numpy as jnp
        from flax import nnx


        @nnx.jit
        def run_step(model, optimizer, metrics, x, y):
            def loss_fn(m):
                predictions = m(x)
                return jnp.mean((predictions - y) ** 2)

            loss, grads = nnx.value_and_grad(loss_fn)(model)
            optimizer.update(grads)
            metrics.update(loss=loss)
            return loss
        """,
    ),
    _case(
        "debug_print_of_argument",
        "jax-ml/jax#17319",
        False,
        "debug print of an argument in a jitted function",
        "jax.debug.print of the argument inside jit prints every call; the surprise was "
        "float32 rounding of time.time(), not the function.",
        main="""
        import time

        import jax


        @jax.jit
        def print_t(t):
            jax.debug.print("t {t}", t=t)
            return t


        for _ in range(5):
            t = time.time()
            print("outside of jit", t)
            print_t(t)
        """,
    ),
    _case(
        "keys_split_then_used_once",
        "dunnolab/xland-minigrid#42",
        False,
        "keys split from distinct subkeys",
        "The fix the maintainer agreed to: each batch of keys is split from its own subkey.",
        main="""
        import jax


        def make_states(rng, config):
            rng, _rng1, _rng2 = jax.random.split(rng, num=3)
            ruleset_rng = jax.random.split(_rng1, num=config.num_envs_per_device)
            reset_rng = jax.random.split(_rng2, num=config.num_envs_per_device)
            return rng, ruleset_rng, reset_rng
        """,
    ),
    _case(
        "one_key_per_gradient_leaf",
        "jax-ml/jax#3646",
        False,
        "a key per gradient leaf",
        "The fixed DP-SGD example splits the key into one per parameter before adding noise.",
        main="""
        from jax import grad, random, tree_util, vmap


        def private_grad(params, batch, rng, l2_norm_clip, noise_multiplier, batch_size):
            clipped_grads = vmap(grad(loss), (None, 0))(params, batch)
            clipped_grads_flat, grads_treedef = tree_util.tree_flatten(clipped_grads)
            aggregated = [g.sum(0) for g in clipped_grads_flat]
            rngs = random.split(rng, len(aggregated))
            noised = [
                (g + l2_norm_clip * noise_multiplier * random.normal(r, g.shape)) / batch_size
                for r, g in zip(rngs, aggregated)
            ]
            return tree_util.tree_unflatten(grads_treedef, noised)
        """,
    ),
    _case(
        "mask_key_from_argument",
        "p-doom/jasmine#239",
        False,
        "mask drawn from the key the step is given",
        "What the author meant to write: split the rng the training step passes in, a new "
        "key every step.",
        model__tokenizer="""
        import jax
        import jax.numpy as jnp
        from flax import nnx


        class TokenizerMAE(nnx.Module):
            def __init__(self, patch_size, mask_prob, rngs):
                self.mask_prob = mask_prob
                self.encoder = nnx.Linear(patch_size, 64, rngs=rngs)

            def mask_and_encode(self, videos, rng, training=True):
                if training:
                    _rng_prob, _rng_mask = jax.random.split(rng, 2)
                    mask_prob = jax.random.uniform(_rng_prob, minval=0.0, maxval=self.mask_prob)
                    mask = jax.random.bernoulli(_rng_mask, mask_prob, videos.shape[:3])
                    videos = jnp.where(mask[..., None], 0.0, videos)
                return self.encoder(videos)
        """,
        model__train="""
        from flax import nnx

        from model.tokenizer import TokenizerMAE


        @nnx.jit
        def train_step(model: TokenizerMAE, optimizer, inputs):
            def loss_fn(model):
                latents = model.mask_and_encode(inputs["videos"], inputs["rng"], training=True)
                return (latents**2).mean()

            loss, grads = nnx.value_and_grad(loss_fn)(model)
            optimizer.update(grads)
            return loss
        """,
    ),
    _case(
        "stimuli_returned_not_stored",
        "jaxleyverse/jaxley#219",
        False,
        "stimuli built and returned inside the jitted function",
        "The PR's data_stimulate builds the stimuli inside the jitted function and returns "
        "them, changing no object: the supported way to change data every batch.",
        main="""
        import jax.numpy as jnp
        from jax import jit


        def data_stimulate(current, data_stimuli):
            stimuli = [] if data_stimuli is None else list(data_stimuli)
            stimuli.append(current)
            return stimuli


        def provide_data(i_amps):
            data_stimuli = None
            data_stimuli = data_stimulate(jnp.full(200, i_amps[0]), data_stimuli)
            data_stimuli = data_stimulate(jnp.full(200, i_amps[1]), data_stimuli)
            return data_stimuli


        def simulate(i_amps):
            data_stimuli = provide_data(i_amps)
            return jnp.cumsum(jnp.stack(data_stimuli), axis=1)


        jitted_simulate = jit(simulate)
        """,
    ),
]
