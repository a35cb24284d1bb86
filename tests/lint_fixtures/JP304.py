"""JP304 where-nan-gradient: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP304 jnp.where guarding a sqrt under grad
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

# %% fine: the double where
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

# %% fine: jnp.where choosing between formulas, on another value than the unsafe one's
import jax
import jax.numpy as jnp

def log1mexp(x):
    return jnp.where(x > -0.7, jnp.log(-jnp.expm1(x)), jnp.log1p(-jnp.exp(x)))

def halve_above(x, y):
    return jnp.where(x > 2, x / 2, 0.0) + jnp.where(y > 0, jnp.log(x), 0.0)

jax.grad(log1mexp)(-1.0)
jax.grad(halve_above)(3.0, 1.0)
