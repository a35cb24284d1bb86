"""JP201 traced-condition: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP201 if, while, assert and a conditional expression on arrays
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

# %% finds: JP201 on an elementwise test, not on tests of the dtype (jnp.iscomplexobj)
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

# %% finds: JP201 on a comprehension's items of a traced array, not on its own i from a range
import jax

def body(i, v):
    axis = tuple(i for i in range(3) if i != 1)
    rows = [row for row in v if row.sum() > 0]  # expect: JP201
    later = [k for k in range(3) if i > k]  # expect: JP201
    return v.sum(axis=axis) + len(rows) + len(later)

jax.lax.fori_loop(0, 3, body, jax.numpy.ones((3, 3)))

# %% finds: JP201 in a helper given a traced size, not the static size its result replaces
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

# %% fine: static fields of pytree classes, in slices, ranges, tests and prints
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

# %% fine: helpers given only static values: shapes, ndim, len, constants, static arguments
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

# %% fine: tests that tracing knows: None, isinstance, shape, ndim, dtype, len
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

# %% fine: a pytree argument's attributes and items tested in an if
import jax

@jax.jit
def train_step(state, batch):
    if state.dynamic_scale:
        state = state.replace(step=state.step + 1)
    if batch["label"] is not None and batch["kind"] == "train":
        state = state.replace(step=state.step + 2)
    return state

# %% fine: the fixes of the control-flow pages
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

# %% fine: shard_map arguments whose in_specs entry is None stay Python values
import functools
import jax
from jax.sharding import PartitionSpec as P

def attention(mesh, query, key, cp_size, load_balanced):
    @functools.partial(
        jax.shard_map,
        mesh=mesh,
        in_specs=(P("data"), P("data"), None, None),
        out_specs=P("data"),
    )
    def wrap(query, key, cp_size, load_balanced):
        if cp_size > 1 and load_balanced:
            key = key[::-1]
        return query * key

    return wrap(query, key, cp_size, load_balanced)

def scaled(mesh, x, factor):
    def body(x, factor):
        if factor > 1:
            return x * factor
        return x

    return jax.shard_map(body, mesh, (P("data"), None), P("data"))(x, factor)

# %% fine: Python if, bool(), int() and range() on values under jax.grad alone, which runs on values
import jax

def piecewise(x):
    if x > 0:
        y = x * int(x)
    else:
        y = -x
    for _ in range(int(x)):
        y = y * 0.5
    return y * bool(x < 10)

slope = jax.grad(piecewise)(3.0)

# %% finds: JP201 on what a jitted function returns, a primitive's result and a call of an instance
import jax
from jax import lax

class Factor:
    def __call__(self, t):
        if t > 0:  # expect: JP201
            return t
        return -t

factor = Factor()

@jax.jit
def positive(x):
    if jax.jit(lax.gt)(x, 0.0):  # expect: JP201
        return x
    return factor(x)

# %% finds: JP201 on jnp values of constants, staged inside a jitted function with no arguments
import jax
import jax.numpy as jnp

table = jnp.array([1.0, 2.0, 3.0])

@jax.jit
def make():
    a = jnp.arange(3)
    if a.sum() > 1:  # expect: JP201
        a = a * 2
    while table[0] > 0:  # expect: JP201
        a = a - 1
    return a

# %% fine: jnp values of constants where they are concrete: under vmap alone, at compile time
import jax
import jax.numpy as jnp

table = jnp.array([1.0, 2.0, 3.0])

def row(x):
    if jnp.arange(3).sum() > 1 and table[0] > 0:
        return x
    return -x

rows = jax.vmap(row)(jnp.ones(3))

@jax.jit
def step(x):
    with jax.ensure_compile_time_eval():
        n = jnp.arange(3).sum()
        if n > 1 and table.sum() > 0:
            x = x * 2
    if table is not None:
        x = x + 1
    return x

# %% fine: shapes from broadcast_shapes and jnp.shape, Python values whatever they are given
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

@jax.jit
def broadcast(*args):
    shape = lax.broadcast_shapes(*map(jnp.shape, args))
    if shape[0] > 1 and jnp.shape(args[0])[-1] > 2:
        return args
    both = jnp.broadcast_shapes(args[0].shape, np.shape(args[1]))
    while len(both) > 1 and both[-1] > 2:
        both = both[:-1]
    return args

def helper(x, axis):
    if jnp.shape(x)[axis] > 1:
        return x
    return x

@jax.jit
def k(x, a):
    return helper(x, a)

# %% fine: a static field declared with field(metadata={"pytree_node": False}), read in a loop
import dataclasses
import functools
import jax

@dataclasses.dataclass
class View:
    axis_for_name: dict = dataclasses.field(metadata={"pytree_node": False})
    data: jax.Array

def step(views, names):
    axes = []
    for view in views:
        if names[0] in view.axis_for_name:
            axis = view.axis_for_name[names[0]]
            assert axis >= 0
            axes.append(axis)
    return jax.vmap(functools.partial(step, names=names[1:]), in_axes=(axes,))(views)

def run(views, names):
    return jax.vmap(functools.partial(step, names=names))(views)

# %% fine: a test inside a try that catches JAX's tracer error, and a branch a module flag closes
import jax

DEBUG = False

def dropout(rate, x):
    try:
        if rate < 0 or rate >= 1:
            raise ValueError("rate must be in [0, 1).")
        if rate == 0.0:
            return x
    except jax.errors.ConcretizationTypeError:
        pass
    return x * rate

@jax.jit
def step(rate, x):
    if DEBUG:
        if x.sum() > 0:
            print("positive")
    return dropout(rate, x)
