"""
Every vmap row and every scan step gets the same random numbers
===============================================================

Noise drawn inside :func:`jax.vmap` comes out identical in every row, and
noise drawn inside :func:`jax.lax.scan` repeats at every step, with no error
at all. This page shows why (one key closed over is one draw, traced once),
the fixes (split the key into one per row; carry the key through the loop
and split it at every step), and what ``jax.debug_key_reuse`` can catch:
the loop, but not the ``vmap``. Random numbers frozen by ``numpy.random``
under ``jit``, and one key used twice in straight-line code, are on
:doc:`frozen_randomness`.
"""

# %%
# The code people write
# ---------------------
#
# A batch of four measurements, each to get its own noise. The jitted
# function takes a key, as :mod:`jax.random` asks, and the per-example
# function that :func:`jax.vmap` maps over the batch draws the noise from
# that key, which it closes over. (Without ``jit`` every line of this page
# does the same; ``jit`` only makes it faster.)

import jax
import jax.numpy as jnp

import jaxpurity

STEPS = 4  # the length of every loop on this page


@jax.jit
def add_noise(key, batch):
    return jax.vmap(lambda x: x + jax.random.normal(key, x.shape))(batch)


batch = jnp.zeros((4, 3))
noisy = add_noise(jax.random.key(0), batch)
print(noisy)

# %%
# What JAX does: every row is the same
# ------------------------------------
#
# It raises nothing, and the four rows, which were meant to be four
# independent draws, are one draw four times:

rows = {tuple(row) for row in noisy.tolist()}
print(len(rows), "distinct row(s) out of", noisy.shape[0])
assert len(rows) == 1, noisy

# %%
# The same happens in a loop. A random walk written with
# :func:`jax.lax.scan`, whose body draws each step from the walk's key,
# takes the same step every time:


@jax.jit
def random_walk(key):
    def step(position, _):
        delta = jax.random.normal(key)
        return position + delta, delta

    return jax.lax.scan(step, 0.0, None, length=STEPS)[1]


steps = random_walk(jax.random.key(0))
print("steps:", [round(s, 4) for s in steps.tolist()])
assert len(set(steps.tolist())) == 1, steps

# %%
# Why
# ---
#
# A :mod:`jax.random` function is a pure function of its key: the same key
# gives the same numbers, every time. Neither ``vmap`` nor ``scan`` calls
# your Python function once per row or once per step. Each traces it once
# and builds one program from that trace; the key inside is a constant of
# that program, the same for every row and every step.
#
# ``vmap`` goes one step further: only values that come from a batched
# argument get a batch dimension. The key is not one of them, so the draw
# is not batched at all. It is made once, with the shape of *one* row, and
# broadcast against the batch. Each row above is exactly one unbatched
# draw:

one_draw = jax.random.normal(jax.random.key(0), (3,))
print("one draw:", [round(v, 4) for v in one_draw.tolist()])
assert (noisy == one_draw).all(), (noisy, one_draw)

# %%
# The fix for ``vmap``: one key per row
# -------------------------------------
#
# Split the key into as many keys as there are rows with
# :func:`jax.random.split`, and map over the keys together with the data.
# Each row now draws from a key of its own.


def add_noise_with(row_key, x):
    return x + jax.random.normal(row_key, x.shape)


@jax.jit
def add_noise_fixed(key, batch):
    row_keys = jax.random.split(key, batch.shape[0])
    return jax.vmap(add_noise_with)(row_keys, batch)


noisy = add_noise_fixed(jax.random.key(0), batch)
print(noisy)
assert len({tuple(row) for row in noisy.tolist()}) == 4, noisy

# %%
# It holds under :func:`jax.grad`: a noisy square differentiated with
# respect to the weight, one gradient per row, with the keys passed as an
# argument that ``grad`` leaves alone (keys have no derivative). Each row's
# gradient, ``2 * (w + noise)``, differs, because each row's noise does.


def noisy_square(w, row_key):
    return (w + jax.random.normal(row_key)) ** 2


row_keys = jax.random.split(jax.random.key(0), 4)
grads = jax.jit(jax.vmap(jax.grad(noisy_square), in_axes=(None, 0)))(1.0, row_keys)
print("per-row gradients:", [round(g, 4) for g in grads.tolist()])
assert len(set(grads.tolist())) == 4, grads

# %%
# The fix for ``scan``: carry the key, split it every step
# --------------------------------------------------------
#
# A loop needs a new key at every step, so the key becomes part of the
# carry, like any other state that changes from step to step: the body
# splits it into a key for later and a subkey to use now, draws with the
# subkey, and returns the new key.


@jax.jit
def random_walk_fixed(key):
    def step(carry, _):
        position, key = carry
        key, subkey = jax.random.split(key)
        delta = jax.random.normal(subkey)
        return (position + delta, key), delta

    return jax.lax.scan(step, (0.0, key), None, length=STEPS)[1]


steps = random_walk_fixed(jax.random.key(0))
print("steps:", [round(s, 4) for s in steps.tolist()])
assert len(set(steps.tolist())) == 4, steps

# %%
# Two other ways give the same guarantee. Split all the keys up front and
# feed them to ``scan`` as its input sequence, one per step; or keep one key
# and derive each step's key from the step number with
# :func:`jax.random.fold_in`.


@jax.jit
def random_walk_keys_in(key):
    def step(position, step_key):
        delta = jax.random.normal(step_key)
        return position + delta, delta

    return jax.lax.scan(step, 0.0, jax.random.split(key, STEPS))[1]


@jax.jit
def random_walk_fold_in(key):
    def step(position, i):
        delta = jax.random.normal(jax.random.fold_in(key, i))
        return position + delta, delta

    return jax.lax.scan(step, 0.0, jnp.arange(STEPS))[1]


keys_in = random_walk_keys_in(jax.random.key(0))
folded = random_walk_fold_in(jax.random.key(0))
print("keys as xs:", [round(s, 4) for s in keys_in.tolist()])
print("fold_in:   ", [round(s, 4) for s in folded.tolist()])
assert len(set(keys_in.tolist())) == 4 and len(set(folded.tolist())) == 4

# %%
# A near miss: splitting, but carrying the old key
# ------------------------------------------------
#
# The split alone does not help. A body that splits, and then returns the
# key it was *given*, hands the same key to every step, so every step
# splits it the same way and draws the same subkey:


@jax.jit
def random_walk_stale(key):
    def step(carry, _):
        position, key = carry
        new_key, subkey = jax.random.split(key)  # new_key is never used
        delta = jax.random.normal(subkey)
        return (position + delta, key), delta

    return jax.lax.scan(step, (0.0, key), None, length=STEPS)[1]


stale = random_walk_stale(jax.random.key(0))
print("steps:", [round(s, 4) for s in stale.tolist()])
assert len(set(stale.tolist())) == 1, stale

# %%
# What ``jax.debug_key_reuse`` catches: the loops
# -----------------------------------------------
#
# JAX can check for keys used twice (:doc:`frozen_randomness` introduces
# the checker). Inside ``jax.debug_key_reuse(True)``, or with the
# ``jax_debug_key_reuse`` flag on, it reads the traced program: a random
# function *consumes* its key, and a key consumed twice raises
# :class:`jax.errors.KeyReuseError`. For a loop it knows that the body runs
# many times, so a body that consumes a key from outside the loop is reuse,
# though the body uses it only once.
#
# The check is made while JAX *traces*. Turn it on before a function is
# first called (in tests, set the flag once at the start): on JAX 0.6.2
# and older, a jitted function that has run already is not traced, nor
# checked, again. The walks above have all run, so the page traces them
# afresh with :func:`jax.eval_shape`, which traces a function without
# compiling or running it. JAX prints the loop's whole program after the
# first line of the error; the page shows that first line.

with jax.debug_key_reuse(True), jaxpurity.printed(echo=False) as said:
    with jaxpurity.raises(jax.errors.KeyReuseError, match=r"scan body function"):
        jax.eval_shape(random_walk, jax.random.key(0))
print(said.lines[0])

# %%
# The near miss is caught too: the body consumes the key of its carry, and
# returns no fresh key in its place. JAX 0.4.35 says that in so many words
# ("consumed inputs don't match sourced outputs"); newer versions notice
# that the carried key never changes, and word it like the closed-over key.

with jax.debug_key_reuse(True), jaxpurity.printed(echo=False) as said:
    with jaxpurity.raises(jax.errors.KeyReuseError, match=r"scan body function"):
        jax.eval_shape(random_walk_stale, jax.random.key(0))
print(said.lines[0])

# %%
# :func:`jax.lax.fori_loop` and :func:`jax.lax.while_loop` bodies are
# checked the same way. The three fixed loops pass:

with jax.debug_key_reuse(True):
    shapes = [
        jax.eval_shape(walk, jax.random.key(0))
        for walk in (random_walk_fixed, random_walk_keys_in, random_walk_fold_in)
    ]
print("checker on, traced without error:", [s.shape for s in shapes])
assert [s.shape for s in shapes] == [(STEPS,)] * 3, shapes

# %%
# What it cannot catch: the closed-over key under ``vmap``
# --------------------------------------------------------
#
# The batch with identical rows passes the checker. As *Why* showed, that
# program draws once and broadcasts the result, and one draw from one key
# is no reuse. The checker sees what the program does, not what you meant.
# Here the same ``vmap`` is written afresh under the checker, so that it is
# traced (and checked) for sure, and the rows still come out the same:

with jax.debug_key_reuse(True):
    key = jax.random.key(0)
    same_rows = jax.vmap(lambda x: x + jax.random.normal(key, x.shape))(batch)
distinct = len({tuple(row) for row in same_rows.tolist()})
print("checker on, distinct rows:", distinct)
assert distinct == 1, same_rows

# %%
# ``jax.random.key`` or ``jax.random.PRNGKey``
# --------------------------------------------
#
# Every key on this page is a *typed* key, made with
# :func:`jax.random.key`: one key is a scalar of a key dtype, and four keys
# have shape ``(4,)``. A legacy key from :func:`jax.random.PRNGKey` is a
# ``uint32`` array of two words, so four of them have shape ``(4, 2)``.
# ``vmap`` maps over the first axis either way, and both give one row per
# key.

legacy_keys = jax.random.split(jax.random.PRNGKey(0), 4)
print("typed: ", row_keys.shape, row_keys.dtype)
print("legacy:", legacy_keys.shape, legacy_keys.dtype)
legacy_rows = jax.jit(jax.vmap(add_noise_with))(legacy_keys, batch)
assert row_keys.shape == (4,) and legacy_keys.shape == (4, 2)
assert len({tuple(row) for row in legacy_rows.tolist()}) == 4, legacy_rows

# %%
# The checker follows typed keys only. The walk that closes over its key,
# caught above, passes without a word when the key is a legacy one, and
# repeats its step just the same. Prefer :func:`jax.random.key`.

with jax.debug_key_reuse(True):
    steps = random_walk(jax.random.PRNGKey(0))  # a new key type: a new trace, checked
print("legacy key, checker on, distinct steps:", len(set(steps.tolist())))
assert len(set(steps.tolist())) == 1, steps

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
NO_FLOAT_ARGUMENT = "its one argument is a key: nothing to differentiate"
FIXES = {
    "add_noise_with": "the function of one row that add_noise_fixed maps",
    "add_noise_fixed": {"args": (jax.random.key(0), batch), "wrt": 1},
    "noisy_square": {"args": (1.0, jax.random.key(1))},
    "random_walk_fixed": {"args": (jax.random.key(0),), "not": {"grad": NO_FLOAT_ARGUMENT}},
    "random_walk_keys_in": {"args": (jax.random.key(0),), "not": {"grad": NO_FLOAT_ARGUMENT}},
    "random_walk_fold_in": {"args": (jax.random.key(0),), "not": {"grad": NO_FLOAT_ARGUMENT}},
}
# sphinx_gallery_end_ignore
