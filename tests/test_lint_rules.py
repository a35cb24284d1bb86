"""Tests for jaxpurity/linter/_rules.py and _lint_checks.py: each rule finds its bug, and not
the look-alikes that are fine.

Every case is a snippet whose expected findings are marked ``# expect: JPxxx`` on their
line (tests/lint_cases.py); the test fails on a finding missing and on one too many. The
look-alikes come from the issue that asked for the linter (a local list appended to and
stacked, jax.debug.print, an explicit key, a static argument in an if, a module constant)
and from reading its findings on real code (a pytree's attribute tested in an if, an
optimizer's update method, a key split before a return; and, from a held-out review on 10
repositories, a comprehension's own variable, a dtype test, a static size given again
from a helper, a container made on every trace).
"""

from __future__ import annotations

import pytest
from lint_cases import expected, found, source

from jaxpurity._pages import PAGES
from jaxpurity.linter._rules import RULES, rule, selected

# -- each rule: code, snippet; the snippet's marks say what must be found -------------------

FINDS = {
    "JP101 global under jit": """
        import jax
        counter = 0

        @jax.jit
        def step(x):
            global counter
            counter += 1  # expect: JP101
            return x * counter
    """,
    "JP101 nonlocal in a scan body": """
        import jax

        def run(xs):
            total = 0

            def body(carry, x):
                nonlocal total
                total = total + 1  # expect: JP101
                return carry, x

            return jax.lax.scan(body, 0.0, xs)
    """,
    "JP101 nonlocal of a function outside the trace, not of one made per trace": """
        import jax

        @jax.jit
        def per_trace(x):
            total = 0.0

            def add(v):
                nonlocal total
                total = total + v

            def body(carry, row):
                nonlocal total
                total = total + 1  # expect: JP101
                return carry + row, None

            add(x)
            add(x * 2)
            jax.lax.scan(body, 0.0, x)
            return total
    """,
    "JP101 a counter that the code reads, a traced value, a count never checked": """
        import jax
        calls = 0
        steps = 0
        last = None
        traces = 0

        @jax.jit
        def step(x):
            global calls, steps, last, traces
            calls += 1  # expect: JP101
            steps = steps + 1  # expect: JP101
            last = x  # expect: JP101
            traces += 1  # expect: JP101
            return x * steps

        def test_step():
            step(1.0)
            assert calls == 1 and steps == 1 and last is not None
            print("calls:", calls)
    """,
    "JP102 module-level list under jit": """
        import jax
        history = []

        @jax.jit
        def scale(x):
            y = x * 3.0
            history.append(y)  # expect: JP102
            return y
    """,
    "JP102 a dict used as a cache, and an attribute of a module-level object": """
        import types
        import jax
        import jax.numpy as jnp
        cache = {}
        metrics = types.SimpleNamespace()

        @jax.jit
        def window(x):
            n = x.shape[0]
            if n not in cache:
                cache[n] = jnp.hanning(n)  # expect: JP102
            metrics.last = x  # expect: JP102
            return x * cache[n]
    """,
    "JP102 and JP210 outside the blocks where a test expects an error, not inside": """
        import unittest
        import jax
        import jaxpurity
        import numpy as np
        import pytest
        registry = []

        class MutationTest(unittest.TestCase):
            def test_refused(self):
                @jax.jit
                def f(x):
                    with self.assertRaisesRegex(ValueError, "trace"):
                        registry.append(x)
                    registry.append(x)  # expect: JP102
                    return x

                with self.assertRaises(ValueError):
                    @jax.jit
                    def g(x):
                        registry.append(x)
                    g(1.0)

        def test_update_refused(x):
            with pytest.raises(TypeError):
                x.at[0].set(1.0)
            with np.testing.assert_raises(TypeError):
                x.at[1].set(1.0)
            with jaxpurity.raises(TypeError):  # a page's bug, shown failing
                x.at[2].set(1.0)  # expect: JP210
    """,
    "JP103 module-level list in a scan body": """
        import jax
        partial_sums = []

        def add_step(total, x):
            total = total + x
            partial_sums.append(total)  # expect: JP103
            return total, None

        jax.lax.scan(add_step, 0.0, jax.numpy.arange(4.0))
    """,
    "JP103 a list of the enclosing function, in a fori_loop body": """
        from jax import lax

        def run(x):
            seen = []

            def body(i, carry):
                seen.append(carry)  # expect: JP103
                return carry + i

            return lax.fori_loop(0, 3, body, x)
    """,
    "JP103 a JAX array made in a while_loop body, and a traced item of a pair": """
        import jax
        import jax.numpy as jnp
        buffers = []
        seen = {}

        def body(carry):
            buffers.append(jnp.zeros(3))  # expect: JP103
            seen["last"] = (carry.shape, carry)  # expect: JP103
            return carry - 1

        jax.lax.while_loop(lambda c: c > 0, body, 3)
    """,
    "JP104 a loss logged under grad, a norm under vmap": """
        import jax
        import jax.numpy as jnp
        losses, norms = [], []

        def loss_fn(w):
            loss = jnp.mean(w**2)
            losses.append(loss)  # expect: JP104
            return loss

        def normalize(row):
            norm = jnp.linalg.norm(row)
            norms.append(norm)  # expect: JP104
            return row / norm

        jax.grad(loss_fn)(jnp.ones(2))
        jax.vmap(normalize)(jnp.ones((2, 2)))
    """,
    "JP102, JP103, JP104 on containers that outlive the trace, not on one made per trace": """
        import jax

        history = []

        def make_step():
            seen = []

            @jax.jit
            def step(x):
                seen.append(x)  # expect: JP102
                history.append(x)  # expect: JP102
                return x

            return step

        @jax.jit
        def per_call(x):
            env = {}

            def write(k, v):
                env[k] = env.get(k, 0) + v

            write(0, x)
            return env[0]

        def forward(x):
            env = {}

            def write(k, v):
                env[k] = v

            write(0, x)
            return env[0]

        @jax.jit
        def under_jit(x):
            losses, sums = [], []

            def loss(w):
                value = (w * x).sum()
                losses.append(value)  # expect: JP102
                return value

            def body(c, row):
                sums.append(c)  # expect: JP103
                return c + row, None

            jax.lax.scan(body, 0.0, x)
            return jax.grad(loss)(x)

        def logged(x):
            losses = []

            def loss(w):
                value = (w * x).sum()
                losses.append(value)  # expect: JP104
                return value

            return jax.grad(loss)(x), losses

        jax.vjp(forward, 1.0)
    """,
    "JP105 self assigned in a jitted method": """
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
    """,
    "JP105 jax.jit(self.method) in __init__": """
        import jax

        class Model:
            def __init__(self):
                self.step = jax.jit(self._step)

            def _step(self, x):
                self.last = x  # expect: JP105
                return x * 2
    """,
    "JP106 lru_cache of arrays, reached from jit": """
        import functools
        import jax
        import jax.numpy as jnp
        import numpy as np

        @functools.lru_cache  # expect: JP106
        def hann_window(n):
            return jnp.sin(np.pi * np.arange(n) / n) ** 2

        @jax.jit
        def taper(signal):
            return signal * hann_window(signal.shape[0])
    """,
    "JP107 a list as a default": """
        import jax

        @jax.jit
        def mix(x, weights=[0.5, 0.5]):  # expect: JP107
            return x * weights[0]
    """,
    "JP110 the clock and the environment": """
        import os
        import time
        import jax

        @jax.jit
        def stamp(x):
            seed = int(os.environ["SEED"])  # expect: JP110
            return x + time.time() + seed + float(os.getenv("BIAS", "0"))  # expect: JP110
    """,
    "JP111 a setting changed between two runs of one trace": """
        import jax
        SCALE = 2.0
        STEPS = 3

        @jax.jit
        def scaled(x):
            return x * SCALE  # expect: JP111

        scaled(1.0)
        SCALE = 0.5
        scaled(1.0)

        def body(i, x):
            return helper(x)

        def helper(x):
            return jax.lax.cond(x > 0, lambda y: y * STEPS, lambda y: y, x)  # expect: JP111

        fast = jax.jit(lambda x: jax.lax.fori_loop(0, 2, body, x))
        fast(1.0)
        STEPS = 4
        fast(2.0)
    """,
    "JP120 NumPy, random and a module-level generator": """
        import random
        import jax
        import numpy as np
        rng = np.random.default_rng(0)

        @jax.jit
        def noisy(x):
            a = np.random.normal()  # expect: JP120
            b = random.random()  # expect: JP120
            return x + a + b + rng.normal()  # expect: JP120
    """,
    "JP121 one key twice, in a loop, and in a comprehension": """
        import jax

        def samples(key):
            a = jax.random.normal(key)
            b = jax.random.normal(key)  # expect: JP121
            for _ in range(3):
                c = jax.random.uniform(key)  # expect: JP121
            d = [jax.random.normal(k) for k in jax.random.split(b)]
            e = [jax.random.normal(c) for _ in range(3)]  # expect: JP121
            return a, b, c, d, e
    """,
    "JP121 an outer key in a comprehension, not the comprehension's own key of its name": """
        import jax

        def draws(rng):
            rngs = jax.random.split(rng, 3)
            xs = [jax.random.normal(rng, (2,)) for rng in rngs]
            ys = [jax.random.normal(k) for k, n in zip(rngs, range(3))]
            zs = [jax.random.normal(rng) for _ in rngs]  # expect: JP121
            pairs = [(jax.random.normal(k), jax.random.uniform(k)) for k in rngs]  # expect: JP121
            return xs, ys, zs, pairs

        def after(rng):
            rngs = jax.random.split(rng, 3)
            xs = [jax.random.normal(rng) for rng in rngs]
            return xs, jax.random.normal(rng)  # expect: JP121
    """,
    "JP122 a closed-over key under vmap and in scan, and an unbatched key": """
        import jax

        @jax.jit
        def add_noise(key, batch):
            return jax.vmap(lambda x: x + jax.random.normal(key, x.shape))(batch)  # expect: JP122

        def walk(key):
            def step(position, _):
                delta = jax.random.normal(key)  # expect: JP122
                return position + delta, delta
            return jax.lax.scan(step, 0.0, None, length=4)

        def row_noise(key, x):
            return x + jax.random.normal(key, x.shape)  # expect: JP122

        jax.vmap(row_noise, in_axes=(None, 0))(jax.random.key(0), jax.numpy.ones((3, 2)))
    """,
    "JP130 print of a tracer, plain and formatted": """
        import jax

        @jax.jit
        def normalize(x):
            print("x =", x)  # expect: JP130
            print(f"x = {x}")  # expect: JP130
            return x / x.sum()
    """,
    "JP130 print of trees mapped from tracers": """
        import jax

        def scale(v):
            return 2 * v

        @jax.jit
        def f(tree):
            doubled = jax.tree.map(lambda v: v * 2, tree)
            positive = jax.tree_util.tree_map(lambda v: v > 0, tree)
            scaled = jax.tree.map(scale, tree)
            print(doubled, positive)  # expect: JP130
            print(scaled)  # expect: JP130
            return doubled
    """,
    "JP131 print under shard_map": """
        import jax
        from jax.experimental.shard_map import shard_map

        def block_sum(x):
            print(x)  # expect: JP131
            return x.sum(keepdims=True)

        sums = shard_map(block_sum, mesh=None, in_specs=None, out_specs=None)
    """,
    "JP132 an f-string in jax.debug.print": """
        import jax

        @jax.jit
        def show(x):
            jax.debug.print(f"x = {x}")  # expect: JP132
            return x
    """,
    "JP133 a pure_callback whose result is dropped": """
        import jax

        def log(x):
            return x

        @jax.jit
        def step(x):
            jax.pure_callback(log, jax.ShapeDtypeStruct(x.shape, x.dtype), x)  # expect: JP133
            return 2 * x
    """,
    "JP201 if, while, assert and a conditional expression on arrays": """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            if x > 0:  # expect: JP201
                x = -x
            while jnp.any(x < 0):  # expect: JP201
                x = x + 1
            assert x.sum() >= 0  # expect: JP201
            return x if x.max() > 1 else x * 2  # expect: JP201
    """,
    "JP201 on an elementwise test, not on tests of the dtype (jnp.iscomplexobj)": """
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def real_part(x):
            y = x * 2
            if jnp.iscomplexobj(y) or np.iscomplexobj(x):
                y = y.real
            if jnp.isrealobj(y) and not jnp.isscalar(y) and jnp.isdtype(y, "real floating"):
                y = y + 1
            if jnp.iscomplex(y).any():  # expect: JP201
                y = y.real
            return y if np.isrealobj(y) and np.isscalar(y) else -y
    """,
    "JP201 on a comprehension's items of a traced array, not on its own i from a range": """
        import jax

        def body(i, v):
            axis = tuple(i for i in range(3) if i != 1)
            rows = [row for row in v if row.sum() > 0]  # expect: JP201
            later = [k for k in range(3) if i > k]  # expect: JP201
            return v.sum(axis=axis) + len(rows) + len(later)

        jax.lax.fori_loop(0, 3, body, jax.numpy.ones((3, 3)))
    """,
    "JP201 in a helper given a traced size, not the static size its result replaces": """
        import functools
        import jax
        from mylib import on_shards

        def check(size, *arrays):
            if size >= arrays[0].shape[0]:
                return None
            return size

        def check_shards(size, *arrays):
            if size is None:
                return None
            if size >= arrays[0].shape[0]:
                return None
            return size

        def check_traced(size, *arrays):
            if size >= arrays[0].shape[0]:  # expect: JP201
                return None
            return size

        def grow(size, x):
            if size > 2:  # expect: JP201
                return size
            return size + x.sum()

        @functools.partial(jax.jit, static_argnames="size")
        def chunked(x, size):
            size = check(size, x)
            for _ in range(3):
                size = grow(size, x)
            return x

        @functools.partial(jax.jit, static_argnames="size")
        def sharded(x, size):
            if x.ndim == 0:
                size = None
            size = on_shards(functools.partial(check_shards, size))(x)
            size = check_shards(size, x)
            return x

        @jax.jit
        def traced_size(x, size):
            size = check_traced(size, x)
            return x
    """,
    "JP202 conversions": """
        import jax

        @jax.jit
        def f(x, n):
            return float(x) + int(n) + x.item() + len(x.tolist())  # expect: JP202
    """,
    "JP203 NumPy on a tracer": """
        import jax
        import numpy as np

        @jax.jit
        def standardize(x):
            x = np.asarray(x)  # expect: JP203
            return (x - x.mean()) / x.std()
    """,
    "JP204 range of a traced count": """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def iterate(x, n):
            for _ in range(n):  # expect: JP204
                x = 0.5 * jnp.cos(x)
            return x
    """,
    "JP205 a traced flag": """
        import jax
        import jax.numpy as jnp

        def summarize(x, normalize, mode):
            total = jnp.sum(x)
            if normalize:  # expect: JP205
                total = total / x.shape[0]
            if mode == "cap":  # expect: JP205
                total = jnp.minimum(total, 1.0)
            return total

        jax.jit(summarize)(jnp.ones(3), True, "cap")
    """,
    "JP205 flags annotated as bool or as an array, JP201 on the items of containers": """
        from typing import Optional, Tuple
        import jax

        @jax.jit
        def f(x, flag: bool, limit: jax.Array, scale: Optional[jax.Array]):
            if flag:  # expect: JP205
                x = -x
            if limit:  # expect: JP205
                x = x + limit
            if scale:  # expect: JP205
                x = x * scale
            return x

        @jax.jit
        def g(x, bounds: Tuple[jax.Array, jax.Array], scale: dict[str, jax.Array], *rest):
            if bounds[0] > 0 or rest[0]:  # expect: JP201
                x = -x
            return x if scale["s"] > 0 else -x  # expect: JP201
    """,
    "JP206 a traced axis and size": """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, axis, n):
            total = jnp.sum(x, axis=axis)  # expect: JP206
            kernel = jnp.ones(n) / n  # expect: JP206
            return total, kernel, x.reshape(n, -1)  # expect: JP206
    """,
    "JP207 a boolean mask and nonzero": """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def positives(x):
            mask = x > 0
            return x[x > 0].mean(), x[mask], jnp.nonzero(x)[0]  # expect: JP207
    """,
    "JP208 and JP204 on a pytree's data field, and a helper given a traced bound": """
        import dataclasses
        import jax
        from flax import struct

        @struct.dataclass
        class Grid:
            data: jax.Array
            start: jax.Array
            pad: int = struct.field(pytree_node=False)

        def window(a, n):
            return a[:n]  # expect: JP208

        def rows(a, n):
            return [a[i] for i in range(n)]  # expect: JP204

        @jax.jit
        def crop(grid: Grid, n):
            window(grid.data, grid.pad)
            rows(grid.data, grid.pad)
            print("cropping", grid.pad, n)  # expect: JP130
            return window(grid.data, grid.start) + rows(grid.data, n)[0]
    """,
    "JP208 a slice with a traced start": """
        import jax

        @jax.jit
        def window(x, i):
            return x[i : i + 3]  # expect: JP208
    """,
    "JP209 item assignment on a JAX array, traced or not": """
        import jax.numpy as jnp

        def histogram(samples, bins=4):
            counts = jnp.zeros(bins, dtype=jnp.int32)
            for s in samples:
                counts[s] += 1  # expect: JP209
            return counts
    """,
    "JP210 an update whose result is dropped": """
        import jax.numpy as jnp

        x = jnp.zeros(3)
        x.at[0].set(1.0)  # expect: JP210
    """,
    "JP211 unhashable static arguments": """
        import dataclasses
        import functools
        import jax

        @dataclasses.dataclass
        class Config:
            scale: float

        def layer(x, config):
            return x * config.scale

        layer_jit = jax.jit(layer, static_argnames="config")
        layer_jit(1.0, config=Config(2.0))  # expect: JP211
        layer_jit(1.0, config={"scale": 2.0})  # expect: JP211

        @functools.partial(jax.jit, static_argnums=1)
        def clip(x, bounds):
            return x

        clip(1.0, [0, 1])  # expect: JP211
    """,
    "JP301 jit of a new function in a loop": """
        import functools
        import jax

        def step(w, g, lr):
            return w - lr * g

        w = g = 1.0
        for lr in (0.1, 0.2):
            w = jax.jit(functools.partial(step, lr=lr))(w, g)  # expect: JP301
            w = jax.jit(lambda w, g: step(w, g, 0.1))(w, g)  # expect: JP301
    """,
    "JP302 a donated array read again": """
        import jax

        def sgd(params, x):
            return params - 0.1 * x

        train_step = jax.jit(sgd, donate_argnums=0)
        params = x = jax.numpy.zeros(4)
        new_params = train_step(params, x)
        print(new_params - params)  # expect: JP302
        params = jax.numpy.zeros(4)
        for _ in range(2):
            new_params = train_step(params, x)  # expect: JP302
    """,
    "JP303 loops of traced length under grad": """
        import jax
        from jax import lax

        @jax.jit
        def decay(rate, n):
            return lax.fori_loop(0, n, lambda i, x: x - rate * x, 1.0)  # expect: JP303

        def until(rate, threshold):
            step = lambda x: x - rate * x
            return lax.while_loop(lambda x: x > threshold, step, 1.0)  # expect: JP303

        jax.grad(decay)(0.5, 20)
        jax.grad(until)(0.5, 0.5)
    """,
    "JP304 jnp.where guarding a sqrt under grad": """
        import jax
        import jax.numpy as jnp

        def sqrt_or_zero(x):
            return jnp.where(x > 0, jnp.sqrt(x), 0.0)  # expect: JP304

        def safe_ratio(s, n):
            return jnp.where(n > 0, s / n, 0.0)  # expect: JP304

        def guards_up_to_a_sign(x, mask):
            a = jnp.where(x < 0, jnp.sqrt(-x), 0.0)  # expect: JP304
            b = jnp.where(jnp.abs(x) < 1, jnp.arcsin(x), 0.0)  # expect: JP304
            c = jnp.where(x == 0, 0.0, 1 / x)  # expect: JP304
            d = jnp.where((x - 1 > 0) & mask, jnp.log(x - 1), 0.0)  # expect: JP304
            return a + b + c + d

        jax.grad(sqrt_or_zero)(0.0)
        jax.grad(safe_ratio)(1.0, 0.0)
        jax.grad(guards_up_to_a_sign)(0.0, True)
    """,
}

# -- look-alikes: nothing to find -------------------------------------------------------------

FINE = {
    "a local list appended to and then stacked": """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            parts = []
            for i in range(3):
                parts.append(x * i)
            return jnp.stack(parts)
    """,
    "jax.debug.print, and print of a shape": """
        import jax

        @jax.jit
        def f(x):
            jax.debug.print("x = {}", x)
            print("tracing, shape", x.shape, x.dtype, len(x))
            return x
    """,
    "print of trees of Python values: identity and type tests, shapes, dtypes": """
        import operator
        import jax
        import jax.numpy as jnp
        import jax.tree_util as jtu

        def _is_missing(x):
            return isinstance(x, jax.ShapeDtypeStruct) or x is None

        @jax.jit
        def f(tree, other):
            missing = jtu.tree_map(lambda v: v is None, tree, is_leaf=lambda v: v is None)
            also = jax.tree.map(_is_missing, other)
            both = jax.tree.map(operator.and_, missing, also)
            shapes = jax.tree.map(jnp.shape, tree)
            kinds = jax.tree.map(lambda v: (type(v), v.dtype == jnp.float32, v.ndim), tree)
            print("missing:", both, shapes, kinds)
            return tree
    """,
    "static fields of pytree classes, in slices, ranges, tests and prints": """
        import dataclasses
        import chex
        import equinox as eqx
        import jax
        from flax import struct
        from jax_md import dataclasses as md_dataclasses

        @md_dataclasses.dataclass
        class Grid:
            data: jax.Array
            pad: int = md_dataclasses.static_field()
            dims: int = md_dataclasses.static_field()

        @struct.dataclass
        class Cells:
            data: jax.Array
            width: int = struct.field(pytree_node=False)

        class Model(eqx.Module):
            weight: jax.Array
            depth: int = eqx.field(static=True)

        @dataclasses.dataclass
        class Halo:
            data: jax.Array
            size: int = dataclasses.field(metadata={"static": True})

        @chex.dataclass
        class Folds:
            data: jax.Array
            factors: tuple = dataclasses.field(metadata=dict(static=True))

        class SubGrid(Grid):
            pass

        def extract(a, pad):
            return a[:pad], a[-pad:]

        @jax.jit
        def step(grid: Grid, cells: "Cells", model: Model, halo: Halo | None, folds: Folds):
            start, end = extract(grid.data, grid.pad)
            for i in range(grid.dims):
                start = start + i
            if cells.width > grid.pad:
                print(f"wide cells {cells.width} {folds.factors} {grid.data.shape}")
            for _ in range(model.depth):
                end = end * model.weight
            return start, end, halo.data[: halo.size]

        @jax.jit
        def sub(grid: SubGrid):
            return grid.data[: grid.pad]
    """,
    "helpers given only static values: shapes, ndim, len, constants, static arguments": """
        import functools
        import jax

        def window(a, n):
            return a[:n]

        def fold(data, count):
            for _ in range(count):
                data = data + 1
            if count > 2:
                print(f"folded {count} times, shape {data.shape}")
            return data

        @jax.jit
        def step(x):
            a = window(x, x.shape[0] // 2) + window(x, len(x))
            return fold(a, x.ndim) + fold(a, 3)

        @functools.partial(jax.jit, static_argnums=1)
        def repeat(x, n):
            return fold(window(x, n), n)
    """,
    "settings changed when no trace made before runs again": """
        import jax
        dt = 0.1

        def step(i, x):
            return x + dt
        x = jax.lax.fori_loop(0, 10, step, 0.0)

        dt = 0.2

        def step(i, x):
            return x - dt
        x = jax.lax.fori_loop(0, 10, step, x)

        @jax.jit
        def late(x):
            return x * dt
        late(1.0)
        late(2.0)
    """,
    "an explicit key, split and used once each": """
        import jax

        @jax.jit
        def f(x, key):
            key, subkey = jax.random.split(key)
            noise = jax.random.normal(subkey, x.shape)
            for i in range(3):
                step_key = jax.random.fold_in(key, i)
                noise = noise + jax.random.normal(step_key, x.shape)
            return x + noise
    """,
    "keys per row and per step": """
        import jax

        @jax.jit
        def f(key, batch):
            row_keys = jax.random.split(key, batch.shape[0])
            rows = jax.vmap(lambda k, x: x + jax.random.normal(k, x.shape))(row_keys, batch)

            def step(carry, i):
                position, key = carry
                key, subkey = jax.random.split(key)
                return (position + jax.random.normal(jax.random.fold_in(subkey, i)), key), None

            return rows, jax.lax.scan(step, (0.0, key), jax.numpy.arange(4))
    """,
    "a static argument in an if, a range and a shape": """
        import functools
        import jax
        import jax.numpy as jnp

        @functools.partial(jax.jit, static_argnames=("normalize", "n", "axis"))
        def f(x, normalize, n, axis):
            total = jnp.sum(x, axis=axis)
            if normalize:
                total = total / x.shape[axis]
            for _ in range(n):
                total = jnp.cos(total)
            return total + jnp.ones(n).sum()
    """,
    "a module constant read under jit": """
        import jax
        SCALE = 2.0
        SCALE_AGAIN = 1.0
        SCALE_AGAIN = 3.0

        @jax.jit
        def f(x):
            return x * SCALE * SCALE_AGAIN

        f(1.0)
    """,
    "tests that tracing knows: None, isinstance, shape, ndim, dtype, len": """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x, mask=None):
            if mask is None:
                mask = jnp.ones_like(x)
            if isinstance(x, tuple):
                x = x[0]
            if x.shape[0] > 1 and x.ndim == 2 and x.dtype == jnp.float32 and len(x) > 2:
                x = x[:2]
            for _ in range(x.shape[0]):
                x = x + 1
            return x * mask, int(x.shape[0]), float(x.size)
    """,
    "a pytree argument's attributes and items tested in an if": """
        import jax

        @jax.jit
        def train_step(state, batch):
            if state.dynamic_scale:
                state = state.replace(step=state.step + 1)
            if batch["label"] is not None and batch["kind"] == "train":
                state = state.replace(step=state.step + 2)
            return state
    """,
    "the truth of a container argument, which is static": """
        from collections.abc import Mapping
        from typing import Optional, Sequence, Tuple
        import jax
        import jax.numpy as jnp

        class Bounds:
            pass

        def clip(x, limit: Tuple[jax.Array, jax.Array], steps: "Sequence[jax.Array]", *rest):
            if limit:
                x = jnp.clip(x, limit[0], limit[1])
            if not steps or rest:
                return x
            return x + steps[0]

        @jax.jit
        def g(x, extra: Optional[Tuple[jax.Array, ...]], names: Mapping | None, b: Bounds):
            if extra and names:
                x = x + extra[0]
            if b:
                x = x * 2
            return x

        jax.vmap(clip)(jnp.ones(3), (jnp.zeros(3), jnp.ones(3)), [jnp.ones(3)])
    """,
    "an optimizer's update and a config update": """
        import jax
        opt = make_optimizer()

        @jax.jit
        def step(grads, state):
            jax.config.update("jax_enable_x64", False)
            updates, state = opt.update(grads, state)
            return updates, state
    """,
    "shapes, counts and names kept from a loop body while it is traced": """
        import jax
        import jax.numpy as jnp
        shapes, sizes, log = [], {}, []

        def body(carry, x):
            new = carry + x
            if len(shapes) < 2:
                shapes.append([jnp.shape(leaf) for leaf in jax.tree.leaves(new)])
            shapes.append(jax.tree.map(jnp.shape, new))
            sizes[len(shapes)] = (new.shape, new.ndim, new.dtype, len(x))
            log.append("traced body")
            return new, None

        carry, _ = jax.lax.scan(body, jnp.zeros(2), jnp.ones((4, 2)))
        carry = carry.reshape(shapes[-1][0])
    """,
    "a counter under grad alone, which runs on every call": """
        import jax
        calls = []
        count = 0

        def loss(w):
            global count
            count += 1
            calls.append("called")
            return (w**2).sum()

        jax.grad(loss)(1.0)
    """,
    "trace counters and flags that only tests check": """
        import unittest
        import jax
        import jax.numpy as jnp
        import pytest
        traces = 0

        @jax.jit
        def double(x):
            global traces
            traces = traces + 1
            return 2 * x

        def test_one_trace():
            double(1.0)
            double(2.0)
            assert traces == 1

        def test_body_ran_and_leaked():
            ran, made = False, None

            @jax.jit
            def f(x):
                nonlocal ran, made
                ran = True
                made = object()
                return x

            f(1.0)
            assert ran and made is not None
            with pytest.raises(RuntimeError):
                made.use()

        class RetraceTest(unittest.TestCase):
            def test_new_shape_retraces(self):
                n = 0

                @jax.jit
                def f(x):
                    nonlocal n
                    n += 1
                    return x + 1

                f(jnp.ones(2))
                self.assertEqual(n, 1)
                f(jnp.ones(3))
                self.assertEqual(n, 2)
    """,
    "state passed in and out, and an assignment to self outside the trace": """
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
    """,
    "caches that hold no tracer": """
        import functools
        import jax
        import jax.numpy as jnp
        import numpy as np

        @functools.lru_cache
        def window(n):
            with jax.ensure_compile_time_eval():
                return jnp.sin(np.pi * np.arange(n) / n) ** 2

        @functools.lru_cache
        def make_taper(n):
            return jax.jit(lambda s: s * np.hanning(n))

        @jax.jit
        def taper(signal):
            return signal * window(signal.shape[0])
    """,
    "NumPy randomness outside traced code, and NumPy on shapes": """
        import jax
        import numpy as np

        noise = np.random.normal(size=3)

        @jax.jit
        def f(x):
            return x + np.zeros(np.shape(x)) + np.prod(x.shape)
    """,
    "the fixes of the control-flow pages": """
        import jax
        import jax.numpy as jnp
        from jax import lax

        @jax.jit
        def f(x, i, n):
            y = jnp.where(x > 0, x, 0.1 * x)
            z = lax.cond(x.sum() > 0, lambda v: v, lambda v: -v, x)
            w = lax.dynamic_slice(x, (i,), (3,))
            total = lax.fori_loop(0, n, lambda k, c: c + k, 0)
            return y, z, w, total, jnp.nonzero(x, size=3), x.at[i].set(0.0), x[i]
    """,
    "NumPy arrays and lists assigned by item": """
        import numpy as np
        import jax.numpy as jnp

        counts = np.zeros(4)
        counts[0] += 1
        parts = jnp.split(jnp.arange(4), 2)
        parts[0] = jnp.zeros(2)
        rows = [1, 2]
        rows[0] = 3
        x = jnp.zeros(3)
        x = x.at[0].set(1.0)
    """,
    "hashable static arguments": """
        import dataclasses
        import jax

        @dataclasses.dataclass(frozen=True)
        class Config:
            scale: float

        def layer(x, config):
            return x * config.scale

        layer_jit = jax.jit(layer, static_argnames="config")
        layer_jit(1.0, config=Config(2.0))
        layer_jit(1.0, config=(1, 2))
    """,
    "jit once, before the loop": """
        import jax

        def step(w):
            return w * 2

        fast = jax.jit(step)
        w = 1.0
        for _ in range(3):
            w = fast(w)
            w = jax.jit(step)(w)
    """,
    "a donated array rebound, and is_deleted()": """
        import jax

        step = jax.jit(lambda p, x: p - x, donate_argnums=0)
        params = x = jax.numpy.zeros(4)
        for _ in range(3):
            params = step(params, x)
        old = jax.numpy.ones(4)
        new = step(old, x)
        assert old.is_deleted()
    """,
    "loops that reverse mode can differentiate": """
        import jax
        from jax import lax

        def decay(rate, n):
            return lax.fori_loop(0, 20, lambda i, x: x - rate * x, 1.0)

        def count(rate, n):
            return rate * lax.while_loop(lambda k: k < n, lambda k: k + 1, 0)

        jax.grad(decay)(0.5, 20)
        jax.jacfwd(decay)(0.5, 20)
        jax.grad(count)(0.5, 3)
    """,
    "the double where": """
        import jax
        import jax.numpy as jnp

        def sqrt_or_zero(x):
            safe = jnp.where(x > 0, x, 1.0)
            return jnp.where(x > 0, jnp.sqrt(safe), 0.0)

        def also_safe(x):
            return jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)

        def not_differentiated(x):
            return jnp.where(x > 0, jnp.sqrt(x), 0.0)

        jax.grad(sqrt_or_zero)(0.0)
        jax.grad(also_safe)(0.0)
        jax.jit(not_differentiated)(0.0)
    """,
    "jnp.where choosing between formulas, on another value than the unsafe one's": """
        import jax
        import jax.numpy as jnp

        def log1mexp(x):
            return jnp.where(x > -0.7, jnp.log(-jnp.expm1(x)), jnp.log1p(-jnp.exp(x)))

        def halve_above(x, y):
            return jnp.where(x > 2, x / 2, 0.0) + jnp.where(y > 0, jnp.log(x), 0.0)

        jax.grad(log1mexp)(-1.0)
        jax.grad(halve_above)(3.0, 1.0)
    """,
    "a key used on one path only, before a return": """
        import jax

        def momentum(key, blocks):
            if blocks:
                keys = jax.random.split(key, len(blocks))
                return [jax.random.normal(k) for k in keys]
            return jax.random.normal(key)
    """,
    "Flax NNX methods, which carry their own state": """
        from flax import nnx

        class Counter(nnx.Module):
            @nnx.jit
            def __call__(self, x):
                self.count = x
                return x
    """,
}


#: Every rule, those off by default (JP122) included.
EVERY_RULE = [r.code for r in RULES]


@pytest.mark.parametrize("snippet", FINDS.values(), ids=FINDS.keys())
def test_rule_finds_its_bug_and_nothing_else(snippet):
    marks = expected(snippet)
    assert marks, "a FINDS case must mark what it expects"
    assert found(snippet, select=EVERY_RULE) == marks


@pytest.mark.parametrize("snippet", FINE.values(), ids=FINE.keys())
def test_look_alike_is_not_flagged(snippet):
    assert found(snippet, select=EVERY_RULE) == set()


def test_a_rule_off_by_default_is_checked_only_when_its_code_is_selected():
    snippet = FINDS["JP122 a closed-over key under vmap and in scan, and an unbatched key"]
    assert [r.code for r in RULES if r.opt_in] == ["JP122"]
    assert found(snippet) == set()
    assert found(snippet, select=["JP1"]) == set()
    assert found(snippet, select=["JP122"]) == expected(snippet)


def test_every_rule_has_a_case():
    covered = {code for snippet in FINDS.values() for _, code in expected(snippet)}
    assert covered == {r.code for r in RULES}


def test_every_rule_links_a_page_of_the_table_and_says_what_it_cannot_see():
    for each in RULES:
        assert each.topic in PAGES, each
        assert each.url.endswith(PAGES[each.topic]), each
        assert each.cannot_see.endswith("."), each
        assert each.code.startswith("JP") and len(each.code) == 5, each


def test_findings_name_the_transformation_and_the_function_in_between():
    findings = {
        f.code: f.message
        for f in __import__("jaxpurity").lint(
            source=source(
                """
                import jax
                def helper(v):
                    print(v)
                @jax.jit
                def step(x):
                    return helper(x * 2)
                """
            )
        )
    }
    assert findings == {
        "JP130": "print of a traced value (jax.jit, through step): it runs while JAX traces "
        "and shows a tracer; use jax.debug.print"
    }


def test_rule_names_an_unknown_code():
    with pytest.raises(KeyError, match="no jaxpurity lint rule 'JP999'"):
        rule("JP999")


@pytest.mark.parametrize(
    ("select", "ignore", "expected_codes"),
    [
        (None, [], {r.code for r in RULES} - {"JP122"}),
        (["JP12"], [], {"JP120", "JP121"}),
        (["JP12", "JP122"], ["JP120"], {"JP121", "JP122"}),
        (["JP13"], [], {"JP130", "JP131", "JP132", "JP133"}),
        (["jp13"], ["JP131"], {"JP130", "JP132", "JP133"}),
        (["JP1", "JP2"], ["JP1"], {r.code for r in RULES if r.code.startswith("JP2")}),
    ],
)
def test_selected_reads_codes_and_prefixes(select, ignore, expected_codes):
    assert selected(select, ignore) == expected_codes


def test_selected_names_a_code_that_matches_no_rule():
    with pytest.raises(ValueError, match=r"ignore: 'JP9' is no jaxpurity lint rule"):
        selected(None, ["JP9"])
    with pytest.raises(TypeError, match=r"select must be a list of codes, such as \['JP1'\]"):
        selected("JP1", [])
