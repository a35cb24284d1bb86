"""A second corpus for the recall of ``jaxpurity lint``, collected from threads it has not seen.

Like :mod:`lint_recall_corpus`, every entry of :data:`CASES` is the code under test of
one public thread (``owner/repo#number``), reduced to what the thread shows and kept as
source text: the linter reads source and runs nothing. An impure case is code that the
thread says misbehaves under a transformation; a look-alike is pure code of the same
shape that the thread shows working, most often the fix from the same thread. In an
impure case, the line or lines that the thread blames end with the comment ``# BUG``,
so that a scorer can check that a finding lands on them; a look-alike has no marker.

The corpus was collected in December 2026 by a helper who had not seen the linter's
output on any case, and who did not read the linter: the labels, and the lines marked,
come from what each thread says (``why``), not from running any tool. Every source is one
that no other file of this repository cited when it was collected. The score of
``jaxpurity lint`` on it as collected, before anything was changed for it, is in the
closing note of the change that added this file.

:data:`HELD_OUT` names half of the cases of each label, chosen by a rule fixed before
any case was looked at (see below): they are for checking a change to the linter, not
for making it.

It is data: nothing here is imported by the package, and the sources are strings.
"""

from __future__ import annotations

import hashlib

from lint_recall_corpus import Case, _case


def _first_half_by_hash(ids: list[str]) -> list[str]:
    """The first half (rounded down) of ``ids``, sorted by the SHA-256 hex digest of each id."""
    ordered = sorted(ids, key=lambda id: hashlib.sha256(id.encode()).hexdigest())
    return ordered[: len(ordered) // 2]


CASES: list[Case] = [
    # -- conversions of traced values: bool, int, float, indices, NumPy, host objects ------
    _case(
        "not_of_traced_adaptation_rate",
        "mlysy/pfjax#3",
        True,
        "Python not of a traced value",
        "mwg_adapt computes (not delta) * low_acc on the traced adaptation amount: under the "
        "jitted parameter update this raises the error that traced values cannot be used in "
        "boolean functions; the reporter replaced it with jnp.sign arithmetic.",
        pfjax__mcmc="""
        import jax
        import jax.numpy as jnp
        from jax import lax, random


        def full_loglik(model, y_meas, x_state, theta):
            n_obs = y_meas.shape[0]
            ll_init = model.meas_lpdf(y_curr=y_meas[0], x_curr=x_state[0], theta=theta)
            ll_step = jax.vmap(
                lambda t: model.state_lpdf(x_curr=x_state[t], x_prev=x_state[t - 1], theta=theta)
                + model.meas_lpdf(y_curr=y_meas[t], x_curr=x_state[t], theta=theta)
            )(jnp.arange(1, n_obs))
            return ll_init + jnp.sum(ll_step)


        def param_mwg_update(model, prior, key, theta, x_state, y_meas, rw_sd, theta_order):
            def fun(carry, i):
                key, *subkeys = random.split(carry["key"], num=3)
                theta_curr = carry["theta_curr"]
                theta_prop = theta_curr.at[i].set(
                    theta_curr[i] + rw_sd[i] * random.normal(key=subkeys[0])
                )
                lp_prop = full_loglik(model, y_meas, x_state, theta_prop) + prior.lpdf(theta_prop)
                lrate = lp_prop - carry["lp_curr"]
                acc = random.bernoulli(key=subkeys[1], p=jnp.minimum(1.0, jnp.exp(lrate)))
                res = {
                    "theta_curr": theta_curr.at[i].set(
                        theta_prop[i] * acc + theta_curr[i] * (1 - acc)
                    ),
                    "lp_curr": lp_prop * acc + carry["lp_curr"] * (1 - acc),
                    "accept": acc,
                    "key": key,
                }
                return res, res

            init = {
                "theta_curr": theta,
                "lp_curr": full_loglik(model, y_meas, x_state, theta) + prior.lpdf(theta),
                "accept": jnp.array(True),
                "key": key,
            }
            last, full = lax.scan(fun, init, theta_order)
            return last["theta_curr"], full["accept"]


        def mwg_adapt(rw_sd, accept_rate, n_iter, adapt_max=0.01, adapt_rate=0.5):
            targ_acc = 0.44  # target acceptance rate
            delta = jnp.power(n_iter, -adapt_rate)
            delta = jnp.maximum(delta, adapt_max)
            low_acc = jnp.less(accept_rate, targ_acc)
            return jnp.exp(jnp.log(rw_sd) - delta * low_acc + (not delta) * low_acc)  # BUG
        """,
        examples__mcmc="""
        import jax
        import jax.numpy as jnp

        import pfjax.mcmc as mcmc


        def param_update(model, prior, key, theta, x_state, y_meas, rw_adapt, n_accept, n_iter):
            theta_order = jnp.arange(theta.size)
            theta, accept = mcmc.param_mwg_update(
                model, prior, key, theta, x_state, y_meas, rw_adapt, theta_order
            )
            n_accept = n_accept + accept
            accept_rate = (1.0 * n_accept) / n_iter
            rw_adapt = mcmc.mwg_adapt(rw_adapt, accept_rate, n_iter)
            return theta, rw_adapt, n_accept


        param_update = jax.jit(param_update, static_argnums=(0, 1))
        """,
    ),
    _case(
        "python_if_on_traced_ellipticity",
        "pmelchior/scarlet2#47",
        True,
        "Python if on a traced value in a module's __call__",
        "GaussianMorphology chose its fast path with if abs(self.ellipticity).sum() == 0; the "
        "ellipticity is a fitted parameter, traced in the filter_jit-compiled fitting step, "
        "which raised ConcretizationTypeError in the PR; the PR's 'fixes jit tracing error' "
        "tests self.ellipticity is None instead.",
        scarlet2__morphology="""
        import equinox as eqx
        import jax.numpy as jnp
        import jax.scipy

        from .bbox import Box
        from .module import Module


        class Morphology(Module):
            bbox: Box = eqx.field(static=True, init=False)

            def normalize(self, x):
                return x / x.max()


        class ProfileMorphology(Morphology):
            center: jnp.array
            size: float
            ellipticity: (None, jnp.array)

            def __init__(self, center, size, ellipticity=None, bbox=None):
                self.center = center
                self.size = size
                if ellipticity is None:
                    self.ellipticity = jnp.zeros((2,))
                else:
                    self.ellipticity = ellipticity
                super().__post_init__()
                self.bbox = bbox

            @property
            def g(self):
                e = self.ellipticity
                g_factor = 1 / (1.0 + jnp.sqrt(1.0 - (e[0] ** 2 + e[1] ** 2)))
                return self.ellipticity * g_factor

            def __call__(self):
                _Y = jnp.arange(self.bbox.shape[-2], dtype=float) - self.center[-2]
                _X = jnp.arange(self.bbox.shape[-1], dtype=float) - self.center[-1]
                g1, g2 = self.g
                __X = ((1 - g1) * _X[None, :] - g2 * _Y[:, None]) / jnp.sqrt(1 - (g1**2 + g2**2))
                __Y = (-g2 * _X[None, :] + (1 + g1) * _Y[:, None]) / jnp.sqrt(1 - (g1**2 + g2**2))
                R2 = (__Y**2 + __X**2) / self.size**2
                return self.normalize(self.f(R2))


        class GaussianMorphology(ProfileMorphology):
            def f(self, R2):
                return jnp.exp(-R2 / 2)

            def __call__(self):
                # faster circular 2D Gaussian: outer product of 2 1D Gaussian evals
                if abs(self.ellipticity).sum() == 0:  # BUG
                    _Y = jnp.arange(self.bbox.shape[-2]) + self.bbox.origin[-2] - self.center[-2]
                    _X = jnp.arange(self.bbox.shape[-1]) + self.bbox.origin[-1] - self.center[-1]
                    f = lambda x, s: 0.5 * (
                        1
                        - jax.scipy.special.erfc((0.5 - x) / jnp.sqrt(2) / s)
                        + 1
                        - jax.scipy.special.erfc((0.5 + x) / jnp.sqrt(2) / s)
                    )
                    return self.normalize(jnp.outer(f(_Y, self.size), f(_X, self.size)))
                else:
                    return super().__call__()
        """,
        scarlet2__scene="""
        import equinox as eqx


        @eqx.filter_jit
        def _make_step(model, observations, optim, opt_state):
            def loss_fn(model):
                pred = model()
                return -sum(obs.log_likelihood(pred) for obs in observations)

            loss, grads = eqx.filter_value_and_grad(loss_fn)(model)
            updates, opt_state = optim.update(grads, opt_state, model)
            return eqx.apply_updates(model, updates), loss, opt_state
        """,
    ),
    _case(
        "int_of_index_in_lax_map",
        "jax-ml/jax#1575",
        True,
        "int() of a traced value in a map body",
        "argnums must be a Python int; wrapping a lookup as int(grad_indices[i]) works "
        "eagerly but fails inside lax.map, where i and the lookup are traced.",
        main="""
        import jax
        import jax.numpy as np


        def f(x, y):
            return 2 * x + 3 * y


        inp = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
        grad_indices = np.array([0, 0, 1, 0, 1])


        def partialf(i):
            idx = int(grad_indices[i])  # BUG
            grad_result = jax.grad(f, argnums=idx)(inp[i], inp[i])
            return grad_result


        grad_result = jax.lax.map(partialf, np.arange(5))
        """,
    ),
    _case(
        "jnp_arange_as_loop_index_in_haiku",
        "EiffL/Quarks2CosmosDataChallenge#6",
        True,
        "jnp array of constants used as a Python index in a module",
        "The Decoder looped over jnp.arange(5)[::-1] and indexed its Python tuples with the "
        "result: under jit the loop index is traced and the indexing raises "
        "TracerIntegerConversionError; the merged fix iterates over a NumPy arange.",
        quarks2cosmos__models__vae="""
        import haiku as hk
        import jax.numpy as jnp
        from tensorflow_probability.substrates import jax as tfp

        from quarks2cosmos.models.convdae import BlockGroup

        tfd = tfp.distributions


        class Decoder(hk.Module):
            def __init__(self, blocks_per_group=(2, 2, 2, 2, 2), bn_config=None,
                         bottleneck=False, channels_per_group=(32, 64, 128, 128, 32),
                         use_projection=(True, True, True, True, True), name=None):
                super().__init__(name=name)
                self.bn_config = dict(bn_config or {})
                self.channels_per_group = channels_per_group
                self.blocks_per_group = blocks_per_group
                self.use_projection = use_projection
                self.bottleneck = bottleneck

            def __call__(self, inputs, is_training=False, test_local_stats=False):
                net = hk.Linear(3 * 3 * 32)(inputs)
                net = net.reshape([-1, 3, 3, 32])
                strides = (1, 2, 2, 2, 2)
                for i in jnp.arange(5)[::-1]:
                    net = BlockGroup(
                        channels=self.channels_per_group[i],  # BUG
                        num_blocks=self.blocks_per_group[i],  # BUG
                        stride=strides[i],  # BUG
                        bn_config=self.bn_config,
                        bottleneck=self.bottleneck,
                        use_projection=self.use_projection[i],  # BUG
                        transpose=True,
                        name="up_block_group_%d" % (i),
                    )(net, is_training, test_local_stats)
                net = hk.Conv2DTranspose(
                    output_channels=1, kernel_shape=5, stride=2, padding="SAME", name="final_conv"
                )(net)
                net = jnp.pad(net[..., 0], [[0, 0], [3, 2], [3, 2]])
                return tfd.Independent(
                    tfd.MultivariateNormalDiag(net, scale_identity_multiplier=1.0),
                    reinterpreted_batch_ndims=1,
                )
        """,
        main="""
        import haiku as hk
        import jax

        from quarks2cosmos.models.vae import Decoder

        decoder = hk.transform_with_state(lambda z, is_training: Decoder()(z, is_training))


        @jax.jit
        def decode(params, state, rng, z):
            dist, state = decoder.apply(params, state, rng, z, False)
            return dist.mean(), state
        """,
    ),
    _case(
        "python_list_indexed_by_traced_index",
        "jax-ml/jax#2304",
        True,
        "Python list indexed with a traced value",
        "Inside jit, idx is traced and mylist is a Python list, so mylist[idx] fails; the "
        "suggested fix (convert the list to an array before the call) worked for the "
        "reporter.",
        main="""
        import jax.numpy as jnp
        from jax import jit


        @jit
        def f(idx, mylist):
            return mylist[idx]  # BUG


        mylist = [jnp.ones(3), jnp.zeros(3), jnp.full(3, 2.0)]
        f(1, mylist)
        """,
    ),
    _case(
        "python_list_indexed_in_vmap_body",
        "jax-ml/jax#4309",
        True,
        "Python list indexed with a batched value",
        "innerLoop unpacks j, i = newMap[n] from a Python list of index pairs; under vmap n is "
        "a BatchTracer and the lookup fails with 'list indices must be integers or slices'.",
        main="""
        import jax.numpy as np
        from jax import ops, vmap


        def getFeature(featData, cc, x, wl, wi, dn, resMap, st, en, numwin):
            resMap = resMap.conj().T
            newMap = []
            for j in range(0, (len(resMap[:, 0]) - 1)):
                for i in range(0, (len(resMap[0]) - 1)):
                    newMap.append([j, i])

            def innerLoop(n):
                Stacked = np.zeros((7, en - st))
                j, i = newMap[n]  # BUG
                Stacked = ops.index_update(Stacked, ops.index[0, :], x[resMap[j, i], st:en])
                Stacked = ops.index_update(
                    Stacked, ops.index[1, :], x[resMap[j, i + 1], st - 1 : en - 1]
                )
                return Stacked

            return vmap(innerLoop)(np.arange(len(newMap)))
        """,
    ),
    _case(
        "arange_of_traced_bound_in_vmap",
        "jax-ml/jax#5454",
        True,
        "jnp.arange with a traced bound",
        "innerRange(i) works on Python ints, but under vmap over bounds i is traced and "
        "jnp.arange(i) raises 'Abstract tracer value encountered': the length would depend "
        "on a value.",
        main="""
        import jax.numpy as jnp
        import numpy as np
        from jax import vmap


        def testSimpleRangeInVMap(parts):
            def innerRange(i):
                inds = jnp.arange(i)  # BUG
                selected = parts[inds]
                p = jnp.sum(selected, axis=0)
                return p

            print(innerRange(3))
            bounds = jnp.array([3, 4], dtype="int32")
            res = vmap(innerRange)(bounds)
            return res


        parts = jnp.array(np.random.randn(40, 2))
        print(testSimpleRangeInVMap(parts))
        """,
    ),
    _case(
        "numpy_cos_in_learning_rate_schedule",
        "netket/netket#908",
        True,
        "NumPy call on a traced step count",
        "A learning-rate schedule written with np.cos fails inside NetKet's jitted "
        "apply_gradient, where optax calls it with the traced step count; the reporter "
        "notes that it runs once the jit is removed.",
        netket__driver="""
        from functools import partial

        import jax
        import optax


        class AbstractVariationalDriver:
            def __init__(self, optimizer, state):
                self._optimizer = optimizer
                self.state = state
                self._optimizer_state = optimizer.init(state.parameters)

            def update_parameters(self, dp):
                self._optimizer_state, self.state.parameters = apply_gradient(
                    self._optimizer.update, self._optimizer_state, dp, self.state.parameters
                )


        @partial(jax.jit, static_argnums=0)
        def apply_gradient(optimizer_fun, optimizer_state, dp, params):
            updates, new_optimizer_state = optimizer_fun(dp, optimizer_state, params)
            new_params = optax.apply_updates(params, updates)
            return new_optimizer_state, new_params
        """,
        run="""
        from math import pi

        import numpy as np
        import optax

        from netket.driver import AbstractVariationalDriver

        eta = 0.01


        def schedule(n):
            restart = 100
            return (1 + np.cos(pi * (n % restart) / restart)) * eta  # BUG


        op = optax.sgd(schedule)
        gs = AbstractVariationalDriver(op, variational_state)
        """,
    ),
    _case(
        "numpy_sqrt_of_traced_distance",
        "jaxleyverse/jaxley#603",
        True,
        "NumPy reduction of a traced value",
        "np.sqrt(np.sum(param * np.asarray(...))) breaks inside jit, which is why .distance() "
        "failed in a jitted simulation; the fix uses jnp.sqrt and jnp.sum.",
        main="""
        import jax.numpy as jnp
        import numpy as np
        from jax import jit


        @jit
        def mytest(param):
            return np.sqrt(np.sum(param * np.asarray([3.0, 4.0])))  # BUG


        mytest(jnp.ones((1,)))
        """,
    ),
    _case(
        "timedelta_of_traced_sim_time",
        "climate-analytics-lab/jax-gcm#76",
        True,
        "Python datetime arithmetic on a traced value",
        "physical_tendencies builds timedelta(seconds=state.sim_time) to get the model date; "
        "inside the jitted time integration sim_time is a traced array, so constructing the "
        "timedelta throws, as the issue reports.",
        jcm__date="""
        from datetime import datetime

        import jax.numpy as jnp
        import tree_math


        @tree_math.struct
        class DateData:
            tyear: jnp.ndarray

            def __init__(self, model_time=None) -> None:
                self.tyear = (
                    fraction_of_year_elapsed(model_time)
                    if model_time is not None
                    else jnp.zeros((1))
                )


        def fraction_of_year_elapsed(dt):
            start_of_year = datetime(dt.year, 1, 1)
            end_of_year = datetime(dt.year + 1, 1, 1)
            elapsed_time = (dt - start_of_year).total_seconds()
            total_time = (end_of_year - start_of_year).total_seconds()
            return elapsed_time / total_time
        """,
        jcm__model="""
        from datetime import timedelta

        import dinosaur
        import jax
        from dinosaur.primitive_equations import State
        from dinosaur.time_integration import ExplicitODE

        from jcm.date import DateData
        from jcm.physics import get_physical_tendencies
        from jcm.physics_data import PhysicsData


        def convert_tendencies_to_equation(dynamics, physics_terms, reference_date):
            def physical_tendencies(state):
                model_time = reference_date + timedelta(seconds=state.sim_time)  # BUG
                data = PhysicsData(
                    dynamics.coords.nodal_shape[1:],
                    dynamics.coords.nodal_shape[0],
                    date=DateData(model_time),
                )
                _state = state.asdict()
                _state.pop("sim_time")
                state = State(**_state)
                return get_physical_tendencies(state, dynamics, physics_terms, data)

            return ExplicitODE.from_functions(physical_tendencies)


        class SpeedyModel:
            def __init__(self, primitive, physics_terms, dt, start_date, inner_steps, outer_steps):
                speedy_forcing = convert_tendencies_to_equation(
                    primitive, physics_terms, reference_date=start_date
                )
                equations = dinosaur.time_integration.compose_equations([primitive, speedy_forcing])
                self.step_fn = dinosaur.time_integration.imex_rk_sil3(equations, dt)
                self.inner_steps = inner_steps
                self.outer_steps = outer_steps

            def unroll(self, state):
                integrate_fn = jax.jit(
                    dinosaur.time_integration.trajectory_from_step(
                        self.step_fn, outer_steps=self.outer_steps, inner_steps=self.inner_steps
                    )
                )
                return integrate_fn(state)
        """,
    ),
    _case(
        "action_space_from_traced_model",
        "google-deepmind/mujoco#1291",
        True,
        "traced array converted by a host object in a jitted constructor",
        "Building gymnasium.spaces.Box from mjx_model.actuator_ctrlrange inside a jitted "
        "__init__ fails: the MJX model's fields are jax arrays, traced there, and Box tries "
        "to materialise them; the maintainer points to the MuJoCo model's host array.",
        main="""
        import gymnasium
        import jax
        import mujoco
        import numpy as np
        from mujoco import mjx


        class MJXHalfCheetahEnv:
            def __init__(self, xml_path):
                self.model = mujoco.MjModel.from_xml_path(xml_path)
                self.mjx_model = mjx.put_model(self.model)
                self.mjx_data = mjx.make_data(self.mjx_model)
                self.action_space = gymnasium.spaces.Box(
                    low=self.mjx_model.actuator_ctrlrange.T[0],  # BUG
                    high=self.mjx_model.actuator_ctrlrange.T[1],  # BUG
                    dtype=np.float32,
                )


        @jax.jit
        def jit_test():
            env = MJXHalfCheetahEnv("half_cheetah.xml")
            return env.mjx_data.qpos


        jit_test()
        """,
    ),
    _case(
        "neighbor_list_allocated_inside_jit",
        "jax-md/jax-md#161",
        True,
        "allocation that needs concrete values, called under jit",
        "The failing line was neighbor_list_fn.allocate(positions) inside the jitted "
        "real_space: allocation sizes the buffer from the data and cannot be traced; "
        "nbrs.update can (the maintainer's answer), and the reporter confirms the fix.",
        main="""
        from jax import jit
        from jax_md import partition, space

        box = 31.289
        displacement_fn, shift_fn = space.periodic(box)
        neighbor_list_fn = partition.neighbor_list(displacement_fn, box, 4.0)


        def real_space(positions, Qlocal, box, kappa):
            # --- build neighborlist ---
            neighbor = neighbor_list_fn.allocate(positions)  # BUG
            return pme_real_pairs(positions, Qlocal, neighbor.idx, box, kappa)


        jitted_pme_real_energy = jit(real_space)
        """,
    ),
    # -- boolean masks and discarded functional updates ------------------------------------
    _case(
        "comparison_mask_at_set_in_jit",
        "jax-ml/jax#21994",
        True,
        "comparison mask as an .at[] index",
        "x.at[x < 5].set(0) and x.at[:4, jnp.mod(x[0], 2) == 0].set(0) error under jit, "
        "because a boolean mask of traced values has no static size; jnp.where does the same "
        "and compiles.",
        main="""
        import jax
        import jax.numpy as jnp


        def f(x):
            return x.at[x < 5].set(0)  # BUG


        def f2(x):
            return x.at[:4, jnp.mod(x[0], 2) == 0].set(0)  # BUG


        x = jnp.arange(10)
        print(jax.jit(f)(x))
        x2 = jnp.reshape(jnp.arange(100), shape=(10, 10))
        print(jax.jit(f2)(x2))
        """,
    ),
    _case(
        "boolean_mask_at_set_in_attention",
        "probml/probml-notebooks#70",
        True,
        "comparison mask as an .at[] index, reached through modules",
        "sequence_mask wrote X.at[~mask].set(value) with a mask compared against the traced "
        "valid lengths: boolean indices are not jit compatible, so the attention layers "
        "failed in the jitted training step; the PR uses jnp.where.",
        d2l__attention="""
        import math

        import jax.numpy as jnp
        from flax import linen as nn


        def sequence_mask(X, valid_len, value=0):
            maxlen = X.shape[1]
            mask = jnp.arange((maxlen), dtype=jnp.float32)[None, :] < valid_len[:, None]
            X = X.at[~mask].set(value)  # BUG
            return X


        def masked_softmax(X, valid_lens):
            if valid_lens is None:
                return nn.softmax(X, axis=-1)
            else:
                shape = X.shape
                if valid_lens.ndim == 1:
                    valid_lens = jnp.repeat(valid_lens, shape[1])
                else:
                    valid_lens = valid_lens.reshape(-1)
                X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
                return nn.softmax(X.reshape(shape), axis=-1)


        class DotProductAttention(nn.Module):
            dropout: float

            @nn.compact
            def __call__(self, queries, keys, values, valid_lens=None, deterministic=True):
                d = queries.shape[-1]
                scores = queries @ (keys.swapaxes(1, 2)) / math.sqrt(d)
                attention_weights = masked_softmax(scores, valid_lens)
                dropout_layer = nn.Dropout(self.dropout, deterministic=deterministic)
                return dropout_layer(attention_weights) @ values


        class MultiHeadAttention(nn.Module):
            num_hiddens: int
            num_heads: int
            dropout: float

            @nn.compact
            def __call__(self, queries, keys, values, valid_lens):
                queries = nn.Dense(self.num_hiddens)(queries)
                if valid_lens is not None:
                    valid_lens = jnp.repeat(valid_lens, self.num_heads, axis=0)
                return DotProductAttention(self.dropout)(queries, keys, values, valid_lens)
        """,
        d2l__train="""
        import jax


        @jax.jit
        def train_step(state, key, X, X_valid_len, Y):
            def loss_fn(params):
                out = state.apply_fn(
                    {"params": params}, X, X, X, X_valid_len, rngs={"dropout": key}
                )
                return ((out - Y) ** 2).mean()

            loss, grads = jax.value_and_grad(loss_fn)(state.params)
            return state.apply_gradients(grads=grads), loss
        """,
    ),
    _case(
        "at_set_result_discarded_in_observation",
        "apirrone/Open_Duck_Playground#24",
        True,
        "functional update whose result is discarded",
        "_get_obs called accelerometer.at[0].set(accelerometer[0] + 1.3) without assigning "
        "the result, so the +1.3 offset was never applied during training, while inference "
        "(NumPy, in place) applied it: the PR explains .at[].set returns a new array.",
        playground__open_duck_mini_v2__joystick="""
        from typing import Any

        import jax
        import jax.numpy as jp
        from mujoco import mjx
        from mujoco_playground._src import mjx_env

        from playground.open_duck_mini_v2 import base as open_duck_mini_v2_base


        class Joystick(open_duck_mini_v2_base.OpenDuckMiniV2Env):
            def step(self, state: mjx_env.State, action: jax.Array) -> mjx_env.State:
                data = mjx_env.step(self.mjx_model, state.data, action, self.n_substeps)
                contact = self.get_feet_contacts(data)
                obs = self._get_obs(data, state.info, contact)
                return state.replace(data=data, obs=obs)

            def _get_obs(
                self, data: mjx.Data, info: dict[str, Any], contact: jax.Array
            ) -> mjx_env.Observation:
                gyro = self.get_gyro(data)
                info["rng"], noise_rng = jax.random.split(info["rng"])
                noisy_gyro = (
                    gyro
                    + (2 * jax.random.uniform(noise_rng, shape=gyro.shape) - 1)
                    * self._config.noise_config.level
                    * self._config.noise_config.scales.gyro
                )

                accelerometer = self.get_accelerometer(data)
                # accelerometer[0] += 1.3 # TODO testing
                accelerometer.at[0].set(accelerometer[0] + 1.3)  # BUG

                info["rng"], noise_rng = jax.random.split(info["rng"])
                noisy_accelerometer = (
                    accelerometer
                    + (2 * jax.random.uniform(noise_rng, shape=accelerometer.shape) - 1)
                    * self._config.noise_config.level
                    * self._config.noise_config.scales.accelerometer
                )
                state = jp.hstack([noisy_gyro, noisy_accelerometer, info["command"], contact])
                return {"state": state}
        """,
    ),
    # -- keys reused, or made from constants -----------------------------------------------
    _case(
        "advi_key_used_then_split",
        "jax-ml/jax#181",
        True,
        "key given to a jitted step, then split for the next step",
        "The ADVI example passed rng to the jitted update (which splits it inside for the "
        "samples) and then did old, rng = random.split(rng): mattjj flags the unused split "
        "output, since update may itself split the same key; the example was changed to "
        "draw from PRNGKey(t).",
        main="""
        from functools import partial

        import jax.numpy as np
        import jax.scipy.stats.norm as norm
        from jax import grad, jit, random, vmap
        from jax.experimental import minmax


        def diag_gaussian_sample(mean, log_std, rng):
            return mean + np.exp(log_std) * random.normal(rng, mean.shape)


        def diag_gaussian_logpdf(x, mean, log_std):
            return np.sum(vmap(norm.logpdf)(x, mean, np.exp(log_std)))


        def elbo(params, logprob, rng):
            mean, log_std = params
            sample = diag_gaussian_sample(mean, log_std, rng)
            return logprob(sample) - diag_gaussian_logpdf(sample, mean, log_std)


        def rng_map(f, rng, num_samples, *args, **kwargs):
            rngs = np.array(random.split(rng, num_samples))
            return vmap(partial(f, *args, **kwargs))(rngs)


        def batch_elbo(params, logprob, num_samples, rng):
            return np.mean(rng_map(elbo, rng, num_samples, params, logprob))


        def funnel_log_density(params):
            mean, log_stddev = params[0], params[1]
            return norm.logpdf(mean, 0, np.exp(log_stddev)) + norm.logpdf(log_stddev, 0, 1.35)


        num_samples = 20


        def objective(params, rng):
            return -batch_elbo(params, funnel_log_density, num_samples, rng)


        opt_init, opt_update = minmax.momentum(0.1, mass=0.9)
        opt_state = opt_init((np.zeros(2), np.zeros(2)))


        @jit
        def update(i, opt_state, rng):
            params = minmax.get_params(opt_state)
            return opt_update(i, grad(objective)(params, rng), opt_state)


        rng = random.PRNGKey(0)
        for t in range(100):
            opt_state = update(t, opt_state, rng)  # BUG
            old, rng = random.split(rng)  # BUG
        """,
    ),
    _case(
        "key_used_then_split_in_sampler",
        "aesara-devs/aesara#1344",
        True,
        "key drawn from, then split and kept",
        "The JAX sample functions drew the sample with rng['jax_state'] and then stored "
        "split(rng_key, num=1)[0] as the next state: the issue says to split before using "
        "the key, so as not to rely on the internals of split; PR #1345 does.",
        aesara__link__jax__dispatch__random="""
        from functools import singledispatch

        import jax

        import aesara.tensor.random.basic as aer


        @singledispatch
        def jax_sample_fn(op):
            name = op.name
            raise NotImplementedError(f"No JAX implementation for the given distribution: {name}")


        @jax_sample_fn.register(aer.BetaRV)
        @jax_sample_fn.register(aer.PoissonRV)
        def jax_sample_fn_generic(op):
            name = op.name
            jax_op = getattr(jax.random, name)

            def sample_fn(rng, size, dtype, *parameters):
                rng_key = rng["jax_state"]
                sample = jax_op(rng_key, *parameters, shape=size, dtype=dtype)  # BUG
                rng["jax_state"] = jax.random.split(rng_key, num=1)[0]  # BUG
                return (rng, sample)

            return sample_fn


        @jax_sample_fn.register(aer.NormalRV)
        def jax_sample_fn_loc_scale(op):
            name = op.name
            jax_op = getattr(jax.random, name)

            def sample_fn(rng, size, dtype, *parameters):
                rng_key = rng["jax_state"]
                loc, scale = parameters
                sample = loc + jax_op(rng_key, size, dtype) * scale  # BUG
                rng["jax_state"] = jax.random.split(rng_key, num=1)[0]  # BUG
                return (rng, sample)

            return sample_fn
        """,
    ),
    _case(
        "one_key_for_every_control_factor",
        "infer-actively/pymdp#430",
        True,
        "one key drawn from in a function mapped over a tree",
        "sample_action draws jr.categorical(rng_key, ...) for every control factor through "
        "jtu.tree_map with the same key, so the factors' stochastic actions are fully "
        "dependent; the issue proposes splitting one key per factor.",
        pymdp__control="""
        import jax.random as jr
        import jax.tree_util as jtu

        from pymdp.maths import log_stable


        def sample_action(q_pi, policies, num_controls, action_selection="deterministic",
                          alpha=16.0, rng_key=None):
            marginal = get_marginals(q_pi, policies, num_controls)
            if action_selection == "deterministic":
                selected_policy = jtu.tree_map(lambda x: x.argmax(-1), marginal)
            elif action_selection == "stochastic":
                logits = lambda x: alpha * log_stable(x)
                selected_policy = jtu.tree_map(
                    lambda x: jr.categorical(rng_key, logits(x)), marginal  # BUG
                )
            return selected_policy
        """,
    ),
    _case(
        "constant_key_in_fori_loop_body",
        "gchq/coreax#375",
        True,
        "key made from a constant in a loop body under a jitted method",
        "_noise_conditional_loop_body perturbs the inputs with random.normal(PRNGKey(0), ...) "
        "inside a fori_loop of a jitted training step: the issue (and the TODO left in the "
        "code) notes the same perturbation is drawn on every call.",
        coreax__score_matching="""
        from functools import partial

        import jax
        from jax import jit, random
        from jax.lax import fori_loop


        class SlicedScoreMatching:
            def _noise_conditional_loop_body(
                self, i, obj, state, params, x, random_vectors, sigmas
            ):
                # Perturb the inputs with Gaussian noise
                x_perturbed = x + sigmas[i] * random.normal(random.PRNGKey(0), x.shape)  # BUG
                obj = (
                    obj
                    + sigmas[i] ** 2
                    * self._loss(lambda x_: state.apply_fn({"params": params}, x_))(
                        x_perturbed, random_vectors
                    ).mean()
                )
                return obj

            @jit
            def _noise_conditional_train_step(self, state, x, random_vectors, sigmas):
                def loss(params):
                    body = partial(
                        self._noise_conditional_loop_body,
                        state=state,
                        params=params,
                        x=x,
                        random_vectors=random_vectors,
                        sigmas=sigmas,
                    )
                    return fori_loop(0, self.num_noise_models, body, 0.0)

                val, grads = jax.value_and_grad(loss)(state.params)
                state = state.apply_gradients(grads=grads)
                return state, val
        """,
    ),
    _case(
        "batch_key_reused_every_epoch",
        "gchq/coreax#373",
        True,
        "key reused across loop iterations",
        "In match(), idx = random.randint(batch_key, ...) is drawn with the same batch_key on "
        "every epoch, so every epoch trains on the same minibatch; the issue asks to split "
        "the key each time.",
        coreax__score_matching="""
        from functools import partial

        import jax.numpy as jnp
        from jax import random
        from tqdm import tqdm

        from coreax.networks import ScoreNetwork, create_train_state


        class SlicedScoreMatching:
            def match(self, x):
                x = jnp.atleast_2d(x)
                num_points, data_dimension = x.shape
                score_network = ScoreNetwork(self.hidden_dim, data_dimension)
                if self.noise_conditioning:
                    gammas = self.gamma ** jnp.arange(self.num_noise_models)
                    sigmas = self.sigma * gammas
                    train_step = partial(self._noise_conditional_train_step, sigmas=sigmas)
                else:
                    train_step = self._train_step

                random_key_1, random_key_2 = random.split(self.random_key)
                random_vectors = self.random_generator(
                    random_key_1, (num_points, self.num_random_vectors, data_dimension)
                )
                state = create_train_state(
                    score_network, self.learning_rate, data_dimension, self.optimiser,
                    random_key_2,
                )
                _, random_key_4 = random.split(random_key_2)
                batch_key = random.PRNGKey(random_key_4[-1])

                for i in tqdm(range(self.num_epochs)):
                    idx = random.randint(batch_key, (self.batch_size,), 0, num_points)  # BUG
                    state, val = train_step(state, x[idx, :], random_vectors[idx, :])
                    if i % 10 == 0:
                        tqdm.write(f"{i:>6}/{self.num_epochs}: loss {val:<.5f}")

                return lambda x_: state.apply_fn({"params": state.params}, x_)
        """,
    ),
    # -- state kept on closures, objects and static fields across traces -------------------
    _case(
        "closure_iteration_counter_in_optimizer",
        "pmelchior/scarlet2#24",
        True,
        "closure variable read while tracing, changed between calls",
        "The step-size transformation reads the loop counter it from the enclosing fit(); "
        "_make_step is filter_jit-compiled once with the optimizer as a static argument, so "
        "the iteration number never changes inside it (PR #27 passes it as an argument).",
        scarlet2__module="""
        import jax.numpy as jnp


        def relative_step(x, it, factor=0.1, minimum=1e-6):
            return jnp.maximum(minimum, factor * jnp.linalg.norm(x))
        """,
        scarlet2__scene="""
        import equinox as eqx
        import jax
        import optax
        import optax._src.base as base


        class Scene(eqx.Module):
            def fit(self, observations, max_iter=100, **kwargs):
                parameters = self.get_parameters(return_info=True)
                stepsizes = {name: info["stepsize"] for name, (p, info) in parameters.items()}
                steps = eqx.tree_at(
                    lambda model: tuple(getattr(model, n) for n in stepsizes),
                    self,
                    replace=tuple(stepsizes.values()),
                )
                it = 0

                def scale_by_stepsize() -> base.GradientTransformation:
                    def init_fn(params):
                        del params
                        return base.EmptyState()

                    def update_fn(updates, state, params):
                        updates = jax.tree_util.tree_map(
                            lambda u, s, p: -s * u if not callable(s) else -s(p, it) * u,  # BUG
                            updates,
                            steps,
                            params,
                        )
                        return updates, state

                    return base.GradientTransformation(init_fn, update_fn)

                optim = optax.chain(optax.scale_by_adam(**kwargs), scale_by_stepsize())
                scene = self
                opt_state = optim.init(scene)
                for step in range(max_iter):
                    scene, loss, opt_state = _make_step(scene, observations, optim, opt_state)
                    it += 1
                return scene


        @eqx.filter_jit
        def _make_step(model, observations, optim, opt_state):
            def loss_fn(model):
                pred = model()
                return -sum(obs.log_likelihood(pred) for obs in observations)

            loss, grads = eqx.filter_value_and_grad(loss_fn)(model)
            updates, opt_state = optim.update(grads, opt_state, model)
            model_ = eqx.apply_updates(model, updates)
            return model_, loss, opt_state
        """,
    ),
    _case(
        "static_self_mutated_after_call",
        "jax-ml/jax#28418",
        True,
        "static self changed after the first call",
        "A method jitted with self static, whose hash follows self.a: after obj.a = 2 the "
        "output is sometimes the stale one (no retrace) and sometimes fresh; without __hash__ "
        "jit never sees the change.",
        main="""
        from functools import partial

        import jax


        class MyClass:
            def __init__(self):
                self.a = 1

            @partial(jax.jit, static_argnums=0)  # BUG
            def f(self):
                print("tracing")
                return self.a + 1

            def __hash__(self):
                return hash(self.a)


        obj = MyClass()
        print(obj.f())
        obj.a = 2  # BUG
        print(obj.f())
        """,
    ),
    _case(
        "array_in_static_module_field",
        "patrick-kidger/equinox#746",
        True,
        "jax array held in a static field",
        "A Module whose data: jax.Array field is marked static works on the first call and "
        "raises a ValueError on the second, when filter_jit must hash and compare the static "
        "array; equinox#798 later calls static arrays an error on the user's side.",
        main="""
        import equinox as eqx
        import jax
        import jax.numpy as np
        import jax.random as jr


        class Data(eqx.Module):
            data: jax.Array = eqx.field(static=True)  # BUG

            def __init__(self, seed):
                self.data = jr.uniform(jr.PRNGKey(seed), (10, 10))


        class Model(eqx.Module):
            foo: jax.Array

            def __init__(self, foo):
                self.foo = np.array(foo)


        @eqx.filter_jit
        @eqx.filter_value_and_grad
        def loss_fn(model, data):
            return np.sum(model.foo - data.data)


        model = Model(1.0)
        data0, data1 = Data(0), Data(1)
        loss, grads = loss_fn(model, data0)
        loss, grads = loss_fn(model, data1)
        """,
    ),
    _case(
        "traced_values_in_static_field_under_vmap",
        "patrick-kidger/equinox#312",
        True,
        "tracer stored in a static field from a vmapped function",
        "make_ensample builds StaticModule from traced slices inside filter_vmap and stores "
        "it in a field marked static: the tracers end up in the treedef and the next "
        "filter_vmap raises UnexpectedTracerError.",
        main="""
        import equinox as eqx
        import jax
        import jax.numpy as jnp


        class StaticModule(eqx.Module):
            a: float
            b: float
            c: float


        class Mod(eqx.Module):
            arr: jax.Array
            static: StaticModule = eqx.static_field()


        arrs = jnp.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        statics = jnp.asarray([[1.0, 2.0, 3.0], [-1.0, -2.0, -3.0]])


        @eqx.filter_vmap(in_axes=(0, 0))
        def make_ensample(arr, static):
            stat_mod = StaticModule(a=static[0], b=static[1], c=static[2])
            return Mod(arr=arr, static=stat_mod)  # BUG


        @eqx.filter_vmap(in_axes=(0, None))
        def evaluate_ensample(mod: Mod, c: int):
            adds = jnp.asarray([mod.static.a, mod.static.b, mod.static.c])
            new_arr = mod.arr + adds + c
            return eqx.tree_at(lambda _: _.arr, mod, new_arr)


        ensample = make_ensample(arrs, statics)
        outputs = evaluate_ensample(ensample, 1)
        """,
    ),
    # -- compilation: jit made per call, donation ------------------------------------------
    _case(
        "jit_defined_in_svi_step",
        "pyro-ppl/numpyro#2",
        True,
        "jit created inside a method on every call; handler state written while tracing",
        "SVI.step defined and jitted a new inner function on each call, so it was compiled "
        "every step; precompiling and caching it instead gave static results (the seed "
        "handler splits the key it keeps on self, which happens only while tracing).",
        numpyro__handlers="""
        from jax import random


        class seed(Messenger):
            def __init__(self, fn, rng):
                self.rng = rng
                super(seed, self).__init__(fn)

            def process_message(self, msg):
                if msg["type"] == "sample":
                    msg["kwargs"]["random_state"] = self.rng
                    _, self.rng = random.split(self.rng)  # BUG
        """,
        numpyro__svi="""
        from jax import grad, jit, random
        from jax.experimental import optimizers
        from jax.random import PRNGKey

        from numpyro.handlers import seed


        class SVI(object):
            def __init__(self, model, guide, opt_init, opt_update, loss, init_rng=PRNGKey(0)):
                self.model = seed(model, init_rng)
                _, subkey = random.split(init_rng)
                self.guide = seed(guide, subkey)
                self.opt_init = opt_init
                self.opt_update = opt_update
                self.loss = loss

            def step(self, i, *args, **kwargs):
                @jit  # BUG
                def jitted(i, opt_state, *args, **kwargs):
                    params = optimizers.get_params(opt_state)
                    loss = self.loss(params, self.model, self.guide, args, kwargs)
                    grads = grad(self.loss)(params, self.model, self.guide, args, kwargs)
                    opt_state = self.opt_update(i, grads, opt_state)
                    return loss, opt_state

                opt_state = kwargs.pop("opt_state")
                if opt_state is None:
                    opt_state = self.init_state(*args, **kwargs)
                return jitted(i, opt_state, *args, **kwargs)
        """,
        numpyro__examples__minipyro="""
        from jax.experimental import optimizers

        from numpyro.svi import SVI, elbo


        def main(args):
            opt_init, opt_update = optimizers.adam(args.learning_rate)
            svi = SVI(model, guide, opt_init, opt_update, elbo)
            opt_state = None
            for i in range(args.num_steps):
                loss, opt_state = svi.step(i, data, opt_state=opt_state)
        """,
    ),
    _case(
        "jit_of_local_closure_per_call",
        "f0uriest/interpax#99",
        True,
        "jit of a function defined inside the caller",
        "approx_df defined a local closure over its static arguments and returned "
        "jit(fun)(x, f): a new function, so a new compilation, on every call (every "
        "Interpolator1D built); the PR jits module-level helpers instead.",
        interpax___fd_derivs="""
        import jax.numpy as jnp
        from jax import jit


        def approx_df(x, f, method="cubic", axis=-1, **kwargs):
            # close over static args to deal with non-jittable kwargs
            def fun(x, f):
                return _approx_df(x, f, method, axis, **kwargs)

            return jit(fun)(x, f)  # BUG


        def _approx_df(x, f, method, axis, c=0, bc_type="not-a-knot"):
            if method == "cubic":
                out = _cubic1(x, f, axis)
            elif method == "cardinal":
                out = _cardinal(x, f, axis, c=c)
            else:
                out = _cardinal(x, f, axis, c=0)
            return out


        def _cubic1(x, f, axis):
            dx = jnp.diff(x)
            df = jnp.diff(f, axis=axis)
            dxi = jnp.where(dx == 0, 0, 1 / dx)
            if df.ndim > dxi.ndim:
                dxi = jnp.expand_dims(dxi, tuple(range(1, df.ndim)))
                dxi = jnp.moveaxis(dxi, 0, axis)
            df = dxi * df
            fx = jnp.concatenate(
                [
                    jnp.take(df, jnp.array([0]), axis, mode="wrap"),
                    1
                    / 2
                    * (
                        jnp.take(df, jnp.arange(0, df.shape[axis] - 1), axis, mode="wrap")
                        + jnp.take(df, jnp.arange(1, df.shape[axis]), axis, mode="wrap")
                    ),
                    jnp.take(df, jnp.array([-1]), axis, mode="wrap"),
                ],
                axis=axis,
            )
            return fx


        def _cardinal(x, f, axis, c=0):
            dx = x[2:] - x[:-2]
            df = jnp.take(f, jnp.arange(2, f.shape[axis]), axis, mode="wrap") - jnp.take(
                f, jnp.arange(0, f.shape[axis] - 2), axis, mode="wrap"
            )
            dxi = jnp.where(dx == 0, 0, 1 / dx)
            df = dxi * df
            fx0 = jnp.take(f, jnp.array([1]), axis, mode="wrap") - jnp.take(
                f, jnp.array([0]), axis, mode="wrap"
            )
            fx1 = jnp.take(f, jnp.array([-1]), axis, mode="wrap") - jnp.take(
                f, jnp.array([-2]), axis, mode="wrap"
            )
            return (1 - c) * jnp.concatenate([fx0, df, fx1], axis=axis)
        """,
        interpax___spline="""
        import equinox as eqx
        import jax.numpy as jnp

        from interpax._fd_derivs import approx_df


        class Interpolator1D(eqx.Module):
            x: jnp.ndarray
            f: jnp.ndarray
            derivs: dict
            method: str = eqx.field(static=True)

            def __init__(self, x, f, method="cubic", **kwargs):
                x, f = map(jnp.asarray, (x, f))
                axis = kwargs.get("axis", 0)
                fx = kwargs.pop("fx", None)
                self.x = x
                self.f = f
                self.method = method
                if fx is None:
                    fx = approx_df(x, f, method, axis, **kwargs)
                self.derivs = {"fx": fx}
        """,
    ),
    _case(
        "donated_array_passed_twice",
        "jax-ml/jax#9635",
        True,
        "donated array also passed as another argument",
        "f = jit(add, donate_argnums=(0,)) called as f(x, x) hung on TPU and GPU (now an "
        "error): the donated buffer is read through the second argument; mattjj: to keep "
        "a copy, don't donate.",
        main="""
        import jax
        import jax.numpy as jnp


        def add(x, y):
            return x + y


        f = jax.jit(add, donate_argnums=(0,))
        x = jnp.zeros((10,), jnp.float32)

        f(x, x)  # BUG
        """,
    ),
    # -- pure look-alikes ------------------------------------------------------------------
    _case(
        "none_check_instead_of_traced_test",
        "pmelchior/scarlet2#47",
        False,
        "Python if on a static attribute in a module's __call__",
        "The PR's 'fixes jit tracing error': the fast path is chosen by self.ellipticity is "
        "None, a question about the module's structure, not about a traced value.",
        scarlet2__morphology="""
        import equinox as eqx
        import jax.numpy as jnp
        import jax.scipy

        from .bbox import Box
        from .module import Module


        class Morphology(Module):
            bbox: Box = eqx.field(static=True, init=False)

            def normalize(self, x):
                return x / x.max()


        class ProfileMorphology(Morphology):
            center: jnp.array
            size: float
            ellipticity: (None, jnp.array)

            def __init__(self, center, size, ellipticity=None, bbox=None):
                self.center = center
                self.size = size
                self.ellipticity = ellipticity
                super().__post_init__()
                self.bbox = bbox

            def __call__(self):
                _Y = jnp.arange(self.bbox.shape[-2], dtype=float) - self.center[-2]
                _X = jnp.arange(self.bbox.shape[-1], dtype=float) - self.center[-1]
                if self.ellipticity is None:
                    R2 = _Y[:, None] ** 2 + _X[None, :] ** 2
                else:
                    e1, e2 = self.ellipticity
                    g_factor = 1 / (1.0 + jnp.sqrt(1.0 - (e1**2 + e2**2)))
                    g1, g2 = self.ellipticity * g_factor
                    __X = ((1 - g1) * _X[None, :] - g2 * _Y[:, None]) / jnp.sqrt(
                        1 - (g1**2 + g2**2)
                    )
                    __Y = (-g2 * _X[None, :] + (1 + g1) * _Y[:, None]) / jnp.sqrt(
                        1 - (g1**2 + g2**2)
                    )
                    R2 = __Y**2 + __X**2
                R2 /= self.size**2
                return self.normalize(self.f(R2))


        class GaussianMorphology(ProfileMorphology):
            def f(self, R2):
                return jnp.exp(-R2 / 2)

            def __call__(self):
                # faster circular 2D Gaussian: outer product of 2 1D Gaussian evals
                if self.ellipticity is None:
                    _Y = jnp.arange(self.bbox.shape[-2]) + self.bbox.origin[-2] - self.center[-2]
                    _X = jnp.arange(self.bbox.shape[-1]) + self.bbox.origin[-1] - self.center[-1]
                    f = lambda x, s: 0.5 * (
                        1
                        - jax.scipy.special.erfc((0.5 - x) / jnp.sqrt(2) / s)
                        + 1
                        - jax.scipy.special.erfc((0.5 + x) / jnp.sqrt(2) / s)
                    )
                    return self.normalize(jnp.outer(f(_Y, self.size), f(_X, self.size)))
                else:
                    return super().__call__()
        """,
        scarlet2__scene="""
        import equinox as eqx


        @eqx.filter_jit
        def _make_step(model, observations, optim, opt_state):
            def loss_fn(model):
                pred = model()
                return -sum(obs.log_likelihood(pred) for obs in observations)

            loss, grads = eqx.filter_value_and_grad(loss_fn)(model)
            updates, opt_state = optim.update(grads, opt_state, model)
            return eqx.apply_updates(model, updates), loss, opt_state
        """,
    ),
    _case(
        "numpy_arange_loop_index_in_haiku",
        "EiffL/Quarks2CosmosDataChallenge#6",
        False,
        "NumPy array of constants used as a Python index in a module",
        "The merged fix: the Decoder loops over onp.arange(5)[::-1], plain NumPy integers "
        "that are never traced, so indexing its tuples works under jit.",
        quarks2cosmos__models__vae="""
        import haiku as hk
        import jax.numpy as jnp
        import numpy as onp

        from quarks2cosmos.models.convdae import BlockGroup


        class Decoder(hk.Module):
            def __init__(self, blocks_per_group=(2, 2, 2, 2, 2), bn_config=None,
                         bottleneck=False, channels_per_group=(32, 64, 128, 128, 32),
                         use_projection=(True, True, True, True, True), name=None):
                super().__init__(name=name)
                self.bn_config = dict(bn_config or {})
                self.channels_per_group = channels_per_group
                self.blocks_per_group = blocks_per_group
                self.use_projection = use_projection
                self.bottleneck = bottleneck

            def __call__(self, inputs, is_training=False, test_local_stats=False):
                net = hk.Linear(3 * 3 * 32)(inputs)
                net = net.reshape([-1, 3, 3, 32])
                strides = (1, 2, 2, 2, 2)
                for i in onp.arange(5)[::-1]:
                    net = BlockGroup(
                        channels=self.channels_per_group[i],
                        num_blocks=self.blocks_per_group[i],
                        stride=strides[i],
                        bn_config=self.bn_config,
                        bottleneck=self.bottleneck,
                        use_projection=self.use_projection[i],
                        transpose=True,
                        name="up_block_group_%d" % (i),
                    )(net, is_training, test_local_stats)
                return jnp.pad(net[..., 0], [[0, 0], [3, 2], [3, 2]])
        """,
        main="""
        import haiku as hk
        import jax

        from quarks2cosmos.models.vae import Decoder

        decoder = hk.transform_with_state(lambda z, is_training: Decoder()(z, is_training))


        @jax.jit
        def decode(params, state, rng, z):
            return decoder.apply(params, state, rng, z, False)
        """,
    ),
    _case(
        "array_indexed_by_traced_index",
        "jax-ml/jax#2304",
        False,
        "jnp array indexed with a traced value",
        "The working version: the list is converted to an array before the call, and "
        "indexing a traced array with a traced index is fine inside jit.",
        main="""
        import jax.numpy as jnp
        from jax import jit


        @jit
        def f(idx, myarray):
            return myarray[idx]


        mylist = [jnp.ones(3), jnp.zeros(3), jnp.full(3, 2.0)]
        f(1, jnp.asarray(mylist))
        """,
    ),
    _case(
        "jnp_reduction_with_numpy_constant",
        "jaxleyverse/jaxley#603",
        False,
        "jnp reduction of a traced value times a NumPy constant",
        "The PR's working form: jnp.sqrt and jnp.sum on the traced parameter; the "
        "np.asarray of a constant list stays, and is fine inside jit.",
        main="""
        import jax.numpy as jnp
        import numpy as np
        from jax import jit


        @jit
        def mytest(param):
            return jnp.sqrt(jnp.sum(param * np.asarray([3.0, 4.0])))


        mytest(jnp.ones((1,)))
        """,
    ),
    _case(
        "action_space_from_host_model",
        "google-deepmind/mujoco#1291",
        False,
        "host model arrays converted in a jitted constructor",
        "The maintainer's fix, which the reporter confirms works: build the Box from the "
        "MuJoCo model's NumPy actuator_ctrlrange, not from the MJX model's jax arrays.",
        main="""
        import gymnasium
        import jax
        import mujoco
        import numpy as np
        from mujoco import mjx


        class MJXHalfCheetahEnv:
            def __init__(self, xml_path):
                self.model = mujoco.MjModel.from_xml_path(xml_path)
                self.mjx_model = mjx.put_model(self.model)
                self.mjx_data = mjx.make_data(self.mjx_model)
                self.action_space = gymnasium.spaces.Box(
                    low=self.model.actuator_ctrlrange.T[0],
                    high=self.model.actuator_ctrlrange.T[1],
                    dtype=np.float32,
                )


        @jax.jit
        def jit_test():
            env = MJXHalfCheetahEnv("half_cheetah.xml")
            return env.mjx_data.qpos


        jit_test()
        """,
    ),
    _case(
        "neighbor_list_updated_inside_jit",
        "jax-md/jax-md#161",
        False,
        "neighbor list allocated outside, updated inside jit",
        "The maintainer's pattern: allocate once outside jit, pass the list in, call "
        "nbrs.update inside the jitted step and return it, then check did_buffer_overflow.",
        main="""
        from jax import jit


        @jit
        def update_fn(state, nbrs):
            state = step_fn(state, neighbor=nbrs)
            nbrs = nbrs.update(state.position)
            return state, nbrs


        nbrs = neighbor_fn.allocate(state.position)
        state, nbrs = update_fn(state, nbrs)
        print(nbrs.did_buffer_overflow)
        """,
    ),
    _case(
        "where_instead_of_comparison_mask",
        "jax-ml/jax#21994",
        False,
        "jnp.where with a comparison mask",
        "The issue's working counterparts: jnp.where(x < 5, 0, x) and the .at[:4].set of a "
        "jnp.where compile under jit (no error).",
        main="""
        import jax
        import jax.numpy as jnp


        def g(x):
            return jnp.where(x < 5, 0, x)


        def g2(x):
            return x.at[:4].set(jnp.where(jnp.mod(x[0], 2) == 0, 0, x[:4]))


        x = jnp.arange(10)
        print(jax.jit(g)(x))
        x2 = jnp.reshape(jnp.arange(100), shape=(10, 10))
        print(jax.jit(g2)(x2))
        """,
    ),
    _case(
        "where_mask_in_attention",
        "probml/probml-notebooks#70",
        False,
        "jnp.where mask reached through modules",
        "The PR's sequence_mask: jnp.where(~mask, value, X) with the same mask, which works "
        "in the jitted training step.",
        d2l__attention="""
        import math

        import jax.numpy as jnp
        from flax import linen as nn


        def sequence_mask(X, valid_len, value=0):
            maxlen = X.shape[1]
            mask = jnp.arange((maxlen), dtype=jnp.float32)[None, :] < valid_len[:, None]
            X = jnp.where(~mask, value, X)
            return X


        def masked_softmax(X, valid_lens):
            if valid_lens is None:
                return nn.softmax(X, axis=-1)
            else:
                shape = X.shape
                if valid_lens.ndim == 1:
                    valid_lens = jnp.repeat(valid_lens, shape[1])
                else:
                    valid_lens = valid_lens.reshape(-1)
                X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
                return nn.softmax(X.reshape(shape), axis=-1)


        class DotProductAttention(nn.Module):
            dropout: float

            @nn.compact
            def __call__(self, queries, keys, values, valid_lens=None, deterministic=True):
                d = queries.shape[-1]
                scores = queries @ (keys.swapaxes(1, 2)) / math.sqrt(d)
                attention_weights = masked_softmax(scores, valid_lens)
                dropout_layer = nn.Dropout(self.dropout, deterministic=deterministic)
                return dropout_layer(attention_weights) @ values
        """,
        d2l__train="""
        import jax


        @jax.jit
        def train_step(state, key, X, X_valid_len, Y):
            def loss_fn(params):
                out = state.apply_fn(
                    {"params": params}, X, X, X, X_valid_len, rngs={"dropout": key}
                )
                return ((out - Y) ** 2).mean()

            loss, grads = jax.value_and_grad(loss_fn)(state.params)
            return state.apply_gradients(grads=grads), loss
        """,
    ),
    _case(
        "advi_key_from_step_index",
        "jax-ml/jax#181",
        False,
        "key made from the step index inside jit, cloned on purpose",
        "The example as merged: the jitted objective makes its key from the step index t, "
        "and the plotting callback rebuilds the same key on purpose, to show exactly the "
        "samples the objective used.",
        main="""
        from functools import partial

        import jax.numpy as np
        import jax.scipy.stats.norm as norm
        from jax import grad, jit, random, vmap
        from jax.experimental import minmax


        def diag_gaussian_sample(rng, mean, log_std):
            return mean + np.exp(log_std) * random.normal(rng, mean.shape)


        def diag_gaussian_logpdf(x, mean, log_std):
            return np.sum(vmap(norm.logpdf)(x, mean, np.exp(log_std)))


        def elbo(logprob, rng, params):
            mean, log_std = params
            sample = diag_gaussian_sample(rng, mean, log_std)
            return logprob(sample) - diag_gaussian_logpdf(sample, mean, log_std)


        def batch_elbo(logprob, rng, params, num_samples):
            rngs = random.split(rng, num_samples)
            vectorized_elbo = vmap(partial(elbo, logprob), in_axes=(0, None))
            return np.mean(vectorized_elbo(rngs, params))


        def funnel_log_density(params):
            return norm.logpdf(params[0], 0, np.exp(params[1])) + norm.logpdf(params[1], 0, 1.35)


        num_samples = 40


        @jit
        def objective(params, t):
            rng = random.PRNGKey(t)
            return -batch_elbo(funnel_log_density, rng, params, num_samples)


        def callback(params, t):
            print("Iteration {} lower bound {}".format(t, objective(params, t)))
            # Here we clone the rng used in computing the objective
            # so that we can show exactly the same samples.
            rngs = random.split(random.PRNGKey(t), num_samples)
            return vmap(diag_gaussian_sample, in_axes=(0, None, None))(rngs, *params)


        opt_init, opt_update = minmax.momentum(step_size=0.1, mass=0.9)
        opt_state = opt_init((np.zeros(2), np.zeros(2)))


        @jit
        def update(i, opt_state):
            params = minmax.get_params(opt_state)
            gradient = grad(objective)(params, i)
            return opt_update(i, gradient, opt_state)


        for t in range(100):
            opt_state = update(t, opt_state)
            params = minmax.get_params(opt_state)
            callback(params, t)
        """,
    ),
    _case(
        "key_split_before_use_in_sampler",
        "aesara-devs/aesara#1345",
        False,
        "key split first, the subkey drawn from",
        "The merged fix: each sample function splits rng['jax_state'] into the next state "
        "and a sampling key, draws from the sampling key only, and stores the other.",
        aesara__link__jax__dispatch__random="""
        from functools import singledispatch

        import jax

        import aesara.tensor.random.basic as aer


        @singledispatch
        def jax_sample_fn(op):
            name = op.name
            raise NotImplementedError(f"No JAX implementation for the given distribution: {name}")


        @jax_sample_fn.register(aer.BetaRV)
        @jax_sample_fn.register(aer.PoissonRV)
        def jax_sample_fn_generic(op):
            name = op.name
            jax_op = getattr(jax.random, name)

            def sample_fn(rng, size, dtype, *parameters):
                rng_key = rng["jax_state"]
                rng_key, sampling_key = jax.random.split(rng_key, 2)
                sample = jax_op(sampling_key, *parameters, shape=size, dtype=dtype)
                rng["jax_state"] = rng_key
                return (rng, sample)

            return sample_fn


        @jax_sample_fn.register(aer.NormalRV)
        def jax_sample_fn_loc_scale(op):
            name = op.name
            jax_op = getattr(jax.random, name)

            def sample_fn(rng, size, dtype, *parameters):
                rng_key = rng["jax_state"]
                rng_key, sampling_key = jax.random.split(rng_key, 2)
                loc, scale = parameters
                sample = loc + jax_op(sampling_key, size, dtype) * scale
                rng["jax_state"] = rng_key
                return (rng, sample)

            return sample_fn
        """,
    ),
    _case(
        "one_key_per_epoch_from_split",
        "gchq/coreax#373",
        False,
        "keys split up front, one per loop iteration",
        "After the issue, match() splits batch_key into num_epochs keys and draws each "
        "epoch's minibatch indices from its own key.",
        coreax__score_matching="""
        from functools import partial

        import jax.numpy as jnp
        from jax import random
        from tqdm import tqdm

        from coreax.networks import ScoreNetwork, create_train_state


        class SlicedScoreMatching:
            def match(self, x):
                x = jnp.atleast_2d(x)
                num_points, data_dimension = x.shape
                score_network = ScoreNetwork(self.hidden_dim, data_dimension)
                if self.noise_conditioning:
                    gammas = self.gamma ** jnp.arange(self.num_noise_models)
                    sigmas = self.sigma * gammas
                    train_step = partial(self._noise_conditional_train_step, sigmas=sigmas)
                else:
                    train_step = self._train_step

                generator_key, state_key, batch_key = random.split(self.random_key, 3)
                random_vectors = self.random_generator(
                    generator_key, (num_points, self.num_random_vectors, data_dimension)
                )
                state = create_train_state(
                    state_key, score_network, self.learning_rate, data_dimension, self.optimiser
                )
                loop_keys = random.split(batch_key, self.num_epochs)

                for i in tqdm(range(self.num_epochs)):
                    idx = random.randint(loop_keys[i], (self.batch_size,), 0, num_points)
                    state, val = train_step(state, x[idx, :], random_vectors[idx, :])
                    if i % 10 == 0:
                        tqdm.write(f"{i:>6}/{self.num_epochs}: loss {val:<.5f}")

                return lambda x_: state.apply_fn({"params": state.params}, x_)
        """,
    ),
    _case(
        "iteration_passed_to_jitted_step",
        "pmelchior/scarlet2#27",
        False,
        "loop counter passed into the jitted step",
        "The fix for #24: the iteration number is an argument of _make_step and reaches the "
        "step-size transformation through the params argument of update, so it changes "
        "inside the compiled step.",
        scarlet2__scene="""
        import equinox as eqx
        import jax
        import jax.numpy as jnp
        import optax
        import optax._src.base as base


        class Scene(eqx.Module):
            def fit(self, observations, max_iter=100, **kwargs):
                parameters = self.get_parameters(return_info=True)
                stepsizes = {name: info["stepsize"] for name, (p, info) in parameters.items()}
                steps = eqx.tree_at(
                    lambda model: tuple(getattr(model, n) for n in stepsizes),
                    self,
                    replace=tuple(stepsizes.values()),
                )
                it = jnp.array(0)

                def scale_by_stepsize() -> base.GradientTransformation:
                    def init_fn(params):
                        del params
                        return base.EmptyState()

                    def update_fn(updates, state, params):
                        params, it = params
                        updates = jax.tree_util.tree_map(
                            lambda u, s, p: -s * u if not callable(s) else -s(p, it) * u,
                            updates,
                            steps,
                            params,
                        )
                        return updates, state

                    return base.GradientTransformation(init_fn, update_fn)

                optim = optax.chain(optax.scale_by_adam(**kwargs), scale_by_stepsize())
                scene = self
                opt_state = optim.init(scene)
                for step in range(max_iter):
                    scene, loss, opt_state = _make_step(scene, observations, optim, opt_state, it)
                    it += 1
                return scene


        @eqx.filter_jit
        def _make_step(model, observations, optim, opt_state, it):
            def loss_fn(model):
                pred = model()
                return -sum(obs.log_likelihood(pred) for obs in observations)

            loss, grads = eqx.filter_value_and_grad(loss_fn)(model)
            updates, opt_state = optim.update(grads, opt_state, [model, it])
            model_ = eqx.apply_updates(model, updates)
            return model_, loss, opt_state
        """,
    ),
    _case(
        "jitted_helpers_at_module_level",
        "f0uriest/interpax#99",
        False,
        "module-level jitted helpers called from a plain function",
        "The PR's version: approx_df no longer jits a local closure; the helpers it calls "
        "are decorated once at module level, so building interpolators reuses one "
        "compilation per shape.",
        interpax___fd_derivs="""
        import equinox as eqx
        import jax.numpy as jnp


        def approx_df(x, f, method="cubic", axis=-1, **kwargs):
            if method == "cubic":
                out = _cubic1(x, f, axis)
            elif method == "cardinal":
                out = _cardinal(x, f, axis, c=kwargs.get("c", 0))
            else:
                out = _cardinal(x, f, axis, c=0)
            return out


        @eqx.filter_jit
        def _cubic1(x, f, axis):
            dx = jnp.diff(x)
            df = jnp.diff(f, axis=axis)
            dxi = jnp.where(dx == 0, 0, 1 / dx)
            df = dxi * df
            return jnp.concatenate(
                [
                    jnp.take(df, jnp.array([0]), axis, mode="wrap"),
                    1
                    / 2
                    * (
                        jnp.take(df, jnp.arange(0, df.shape[axis] - 1), axis, mode="wrap")
                        + jnp.take(df, jnp.arange(1, df.shape[axis]), axis, mode="wrap")
                    ),
                    jnp.take(df, jnp.array([-1]), axis, mode="wrap"),
                ],
                axis=axis,
            )


        @eqx.filter_jit
        def _cardinal(x, f, axis, c=0):
            dx = x[2:] - x[:-2]
            df = jnp.take(f, jnp.arange(2, f.shape[axis]), axis, mode="wrap") - jnp.take(
                f, jnp.arange(0, f.shape[axis] - 2), axis, mode="wrap"
            )
            dxi = jnp.where(dx == 0, 0, 1 / dx)
            return (1 - c) * dxi * df
        """,
        interpax___spline="""
        import equinox as eqx
        import jax.numpy as jnp

        from interpax._fd_derivs import approx_df


        class Interpolator1D(eqx.Module):
            x: jnp.ndarray
            f: jnp.ndarray
            derivs: dict
            method: str = eqx.field(static=True)

            def __init__(self, x, f, method="cubic", **kwargs):
                x, f = map(jnp.asarray, (x, f))
                axis = kwargs.get("axis", 0)
                fx = kwargs.pop("fx", None)
                self.x = x
                self.f = f
                self.method = method
                if fx is None:
                    fx = approx_df(x, f, method, axis, **kwargs)
                self.derivs = {"fx": fx}
        """,
    ),
]


# The held-out split, fixed before any case was collected: within each label (impure,
# look-alike), sort the ids by hashlib.sha256(id.encode()).hexdigest() and hold out the
# first half, rounded down.
HELD_OUT: frozenset[str] = frozenset(
    _first_half_by_hash([case.id for case in CASES if case.impure])
    + _first_half_by_hash([case.id for case in CASES if not case.impure])
)

__all__ = ["CASES", "HELD_OUT"]
