"""JP130 print-traced: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP130 print of a tracer, plain and formatted
import jax

@jax.jit
def normalize(x):
    print("x =", x)  # expect: JP130
    print(f"x = {x}")  # expect: JP130
    return x / x.sum()

# %% finds: JP130 print of trees mapped from tracers
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

# %% fine: jax.debug.print, and print of a shape
import jax

@jax.jit
def f(x):
    jax.debug.print("x = {}", x)
    print("tracing, shape", x.shape, x.dtype, len(x))
    return x

# %% fine: print of trees of Python values: identity and type tests, shapes, dtypes
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
