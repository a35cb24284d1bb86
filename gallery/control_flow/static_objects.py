"""
My config object breaks jit as a static argument, or jit ignores my changes to it
=================================================================================

A settings object passed to :func:`jax.jit` through ``static_argnames`` is
looked up in jit's cache of compiled programs by its hash and ``==``. A
``dict``, a ``list`` or an ordinary ``@dataclass`` has no hash, and jit raises
``ValueError: Non-hashable static arguments are not supported``. An object
that hashes by identity is accepted, and then a change made to it after the
first call is silently ignored: jit keeps running the old program. This page
shows both, why, and the fixes that hold: frozen (immutable) settings, numbers
passed as traced arguments, or the whole object made a pytree.
"""

# %%
# The code people write
# ---------------------
#
# A small layer with its settings gathered in one object: which activation to
# use, and a scale. The activation picks which code runs, so the object is
# passed as a static argument (see :doc:`static_arguments` for why a setting
# must be static). The first try is a plain :func:`dataclasses.dataclass`.

import dataclasses

import jax
import jax.numpy as jnp

import jaxpurity

ACTIVATIONS = {"tanh": jnp.tanh, "relu": jax.nn.relu}


@dataclasses.dataclass
class Config:
    activation: str
    scale: float


def layer(x, config):
    return ACTIVATIONS[config.activation](x) * config.scale


layer_jit = jax.jit(layer, static_argnames="config")
x = jnp.array([-1.0, 0.5, 2.0])
print("without jit:", layer(x, Config("relu", 2.0)).tolist())

# %%
# What JAX does: ``ValueError`` for an unhashable object
# ------------------------------------------------------
#
# Under ``jit`` the same call fails before anything is traced.

with jaxpurity.raises(ValueError, match=r"Non-hashable static arguments"):
    layer_jit(x, config=Config("relu", 2.0))

# %%
# A ``dict`` of settings, the other common shape of a config, fails the same
# way, and so does a ``list``, here the bounds of a clip (as would a JAX or
# NumPy array).


def layer_from_dict(x, config):
    return ACTIVATIONS[config["activation"]](x) * config["scale"]


def clipped(x, bounds):
    return jnp.clip(x, bounds[0], bounds[1])


with jaxpurity.raises(ValueError, match=r"unhashable type: 'dict'"):
    jax.jit(layer_from_dict, static_argnames="config")(x, {"activation": "relu", "scale": 2.0})
with jaxpurity.raises(ValueError, match=r"unhashable type: 'list'"):
    jax.jit(clipped, static_argnames="bounds")(x, bounds=[0, 1])

# %%
# Why
# ---
#
# ``jit`` keeps one compiled program per distinct call signature: the shapes
# and dtypes of the traced arguments, plus the static arguments themselves,
# compared by ``hash()`` and ``==``. So a static value must be hashable, and
# two values that compare equal must mean the same program. A ``dict`` and a
# ``list`` have no hash, and :func:`dataclasses.dataclass` with its default
# ``eq=True`` removes the class's hash, because its ``==`` compares fields that
# can change:

print("Config.__hash__:", Config.__hash__)
assert Config.__hash__ is None

# %%
# The trap: an object that hashes by identity
# -------------------------------------------
#
# An ordinary class (or ``@dataclass(eq=False)``) is hashable: it hashes by
# identity, and ``==`` is ``is``. jit accepts it, and the first call is right.


class MutableConfig:
    def __init__(self, activation, scale):
        self.activation = activation
        self.scale = scale


config = MutableConfig("relu", 2.0)
print("scale 2:", layer_jit(x, config=config).tolist())

# %%
# Now change the scale and call again. To jit it is the same object, so the
# same cache entry: the program traced with ``scale == 2.0`` runs, and the new
# scale is ignored, with no error and no warning.

config.scale = 3.0
stale = layer_jit(x, config=config)
print("scale 3, under jit:", stale.tolist())
print("scale 3, without jit:", layer(x, config).tolist())
assert stale.tolist() == [0.0, 1.0, 4.0], stale  # still the scale-2.0 result
assert layer(x, config).tolist() == [0.0, 1.5, 6.0]

# %%
# A value-based hash: still a gamble after a change
# --------------------------------------------------
#
# Give the class ``__hash__`` and ``__eq__`` over its fields, and a change
# also changes its hash, while jit's cache still holds the object under the
# old one. Whether jit then finds the old entry depends on how its cache
# looks keys up, which differs between versions: JAX 0.4.35, 0.6.2 and
# 0.12.0.1 miss it and trace again, JAX 0.10.2 hands back the old program.
# :func:`jaxpurity.count_traces` shows which happened here.


class ValueConfig(MutableConfig):
    def _key(self):
        return (self.activation, self.scale)

    def __hash__(self):
        return hash(self._key())

    def __eq__(self, other):
        return isinstance(other, ValueConfig) and self._key() == other._key()


counted = jaxpurity.count_traces(layer)
counted_jit = jax.jit(counted, static_argnames="config")
value_config = ValueConfig("relu", 2.0)
before = counted_jit(x, config=value_config)
value_config.scale = 3.0
after = counted_jit(x, config=value_config)
retraced = counted.traces == 2
print("before:", before.tolist(), " after:", after.tolist(), " traces:", counted.traces)
print(f"JAX {jax.__version__} traced again after the change:", retraced)
assert after.tolist() == ([0.0, 1.5, 6.0] if retraced else [0.0, 1.0, 4.0]), after

# %%
# But the hash and ``==`` decide what counts as "the same settings". One that
# leaves out a field the function reads, here an ``__eq__`` that only
# compares the activation's name, makes every scale look alike, and jit hands
# back the program of the first one it saw:


class NamedConfig(MutableConfig):
    def __hash__(self):
        return hash(self.activation)

    def __eq__(self, other):
        return isinstance(other, NamedConfig) and self.activation == other.activation


named_jit = jax.jit(layer, static_argnames="config")
first = named_jit(x, config=NamedConfig("relu", 2.0))
second = named_jit(x, config=NamedConfig("relu", 5.0))
print("scale 2:", first.tolist(), " scale 5:", second.tolist())
assert second.tolist() == first.tolist() == [0.0, 1.0, 4.0], second

# %%
# Mutating an object that is used as a key of a hash table is a bug in any
# Python program; jit's cache is such a table. The fixes below remove the
# mutation, or the need for a key.
#
# The fix: frozen settings
# ------------------------
#
# ``@dataclass(frozen=True)`` gives a hash and an ``==`` over all fields, and
# forbids assignment, so a cached program can never go stale. A new setting
# is a new object (:func:`dataclasses.replace`), which jit compiles once. A
# tuple, or a :class:`typing.NamedTuple`, works the same way in place of a
# ``dict`` or a ``list``: ``bounds=(0, 1)`` for the clip above.


@dataclasses.dataclass(frozen=True)
class FrozenConfig:
    activation: str
    scale: float


frozen = FrozenConfig("relu", 2.0)
print("scale 2:", layer_jit(x, config=frozen).tolist())
bigger = dataclasses.replace(frozen, scale=3.0)
print("scale 3:", layer_jit(x, config=bigger).tolist())
assert layer_jit(x, config=bigger).tolist() == [0.0, 1.5, 6.0]
clip = jax.jit(clipped, static_argnames="bounds")(x, bounds=(0, 1))
print("clip to (0, 1):", clip.tolist())
assert clip.tolist() == [0.0, 0.5, 1.0]

# %%
# The static settings reach ``jax.grad`` and ``jax.vmap`` unchanged when the
# jitted function is called inside them:

grad = jax.grad(lambda x: layer_jit(x, config=frozen).sum())(x)
rows = jax.vmap(lambda row: layer_jit(row, config=frozen))(jnp.stack([x, -x]))
print("grad:", grad.tolist(), " vmap:", rows.tolist())
assert grad.tolist() == [0.0, 2.0, 2.0]
assert rows.tolist() == [[0.0, 1.0, 4.0], [2.0, 0.0, 0.0]]

# %%
# ``jax.tree_util.register_static`` (in every supported JAX, since 0.4.15)
# registers a class as a pytree with no leaves, so that its instances can be
# passed without ``static_argnames``. It applies the same rule: the class
# must hash and compare by value, and its instances should be immutable.

# %%
# The fix for numbers: pass them as data
# --------------------------------------
#
# Each new scale above still compiles a new program. A number that only
# feeds arithmetic need not be static at all. Make the settings object a
# pytree: its numeric fields become traced leaves, and only the fields that
# choose code stay static. :func:`jaxpurity.dataclass` does this, with
# :func:`jaxpurity.static_field` for the static part; it makes the class
# frozen, and rejects an unhashable static field when the object is built.


@jaxpurity.dataclass
class LayerConfig:
    scale: float
    activation: str = jaxpurity.static_field(default="relu")


traced_count = jaxpurity.count_traces(layer)
traced_jit = jax.jit(traced_count)  # no static_argnames: the config is an argument
outputs = [traced_jit(x, LayerConfig(scale)) for scale in (2.0, 3.0, 5.0)]
print("three scales:", [out.tolist() for out in outputs], " traces:", traced_count.traces)
assert traced_count.traces == 1, traced_count
assert outputs[1].tolist() == [0.0, 1.5, 6.0]

# %%
# A new activation is a new static value, so it traces once more:

tanh_out = traced_jit(x, LayerConfig(2.0, activation="tanh"))
print("tanh:", [round(v, 4) for v in tanh_out.tolist()], " traces:", traced_count.traces)
assert traced_count.traces == 2

# %%
# Because the scale is now a leaf, ``jax.grad`` can differentiate with respect
# to it, and ``jax.vmap`` can map over several configs at once:

config_grad = jax.grad(lambda c: traced_jit(x, c).sum())(LayerConfig(2.0))
scales = LayerConfig(jnp.array([1.0, 2.0, 3.0]))
per_scale = jax.vmap(lambda c: traced_jit(x, c))(scales)
print("d/d scale:", config_grad.scale, " vmap over scales:", per_scale[:, 2].tolist())
assert float(config_grad.scale) == 2.5
assert per_scale[:, 2].tolist() == [2.0, 4.0, 6.0]

# %%
# :func:`jaxpurity.check_pure` finds a program that went stale when a static
# object changed, as it finds one traced before a global setting changed:
# :doc:`../state_and_leaks/global_config` shows it.

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {
    "FrozenConfig": {
        "fn": layer_jit,
        "args": (x,),
        "static": {"config": FrozenConfig("relu", 2.0)},
    },
    "clipped": {"args": (x,), "static": {"bounds": (0, 1)}},
    "LayerConfig": {"fn": layer, "args": (x, LayerConfig(2.0)), "wrt": 1},
    "traced_count": "count_traces on layer, counting: no fix of its own",
    "traced_jit": "layer, jitted and counted: the fix is layer with a LayerConfig",
}
# sphinx_gallery_end_ignore
