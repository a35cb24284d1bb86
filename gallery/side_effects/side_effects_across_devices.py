"""
print inside shard_map runs once, not once per device
=====================================================

A function under ``shard_map`` runs on every device, yet a ``print`` in it
prints once, and shows a tracer the size of one device's block. This page
shows why (``shard_map`` traces the function once, for all devices), what
runs once per device instead (:func:`jax.debug.print` and
:func:`jax.debug.callback`), and the leak that follows from keeping a
block in a global, caught, with its fix. It runs on four devices: four
accelerators where the machine has them, else four CPU devices that XLA
splits the host into (beside one GPU or one TPU chip, too).
"""

# %%
# Four devices, and where ``shard_map`` lives
# -------------------------------------------
#
# The page needs four devices. A machine with four accelerators uses them;
# one with fewer (a laptop, one GPU, one TPU chip) uses four CPU devices,
# which XLA makes when its flag asks. XLA reads the flag once, when JAX
# starts: so set it before ``import jax`` (in a notebook, before the kernel
# imports JAX). A flag already there is kept, and JAX keeps its CPU beside
# an accelerator.

import os

DEVICE_COUNT_FLAG = "--xla_force_host_platform_device_count"
if DEVICE_COUNT_FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {DEVICE_COUNT_FLAG}=4".strip()

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

import jaxpurity

devices = jax.devices() if jax.device_count() >= 4 else jax.devices("cpu")
assert len(devices) >= 4, (
    f"this page needs 4 devices, and JAX sees {len(devices)}: set "
    f"XLA_FLAGS={DEVICE_COUNT_FLAG}=4 before JAX starts "
    "(restart a notebook kernel that had imported JAX already)"
)

# %%
# ``shard_map`` moved: it is ``jax.shard_map`` from JAX 0.6.1 on, and
# ``jax.experimental.shard_map.shard_map`` before (where its ``check_vma``
# argument is called ``check_rep``). This page uses neither argument.

if hasattr(jax, "shard_map"):
    shard_map = jax.shard_map
else:  # JAX 0.4.35 to 0.6.0
    from jax.experimental.shard_map import shard_map

mesh = Mesh(np.array(devices[:4]), ("d",))
print(mesh.devices.size, mesh.devices.flat[0].platform, "devices; mesh axes:", dict(mesh.shape))

# %%
# The code people write
# ---------------------
#
# Eight numbers split over the four devices, two each. Each device sums its
# block, and a ``print`` is there to see what each device gets. The
# function is jitted, and called twice with different data.
# :func:`jaxpurity.printed` collects what the calls print, to count it.


def block_sum(x):
    print("print: x =", x)
    return jnp.sum(x, keepdims=True)


sums = jax.jit(shard_map(block_sum, mesh=mesh, in_specs=P("d"), out_specs=P("d")))
x = jnp.arange(8.0)
with jaxpurity.printed() as out:
    first = sums(x)
    second = sums(x + 10)
print("sums:", first.tolist(), second.tolist())
assert first.tolist() == [1.0, 5.0, 9.0, 13.0] and second.tolist() == [21.0, 25.0, 29.0, 33.0]

# %%
# What JAX does: one ``print``, for four devices and two calls
# ------------------------------------------------------------
#
# The sums are right, and the ``print`` ran once: not once per device, not
# once per call. What it printed is a tracer of shape ``[2]``, one device's
# block, not numbers.

print_lines = [line for line in out.lines if line.startswith("print:")]
print(f"{len(print_lines)} print line(s) for 4 devices and 2 calls")
assert len(print_lines) == 1 and len(out.lines) == 1, out.lines
assert "float32[2]" in out.lines[0], out.lines

# %%
# Why
# ---
#
# ``shard_map`` runs one program on every device (SPMD: single program,
# multiple data). To build that program it traces your function once,
# with a tracer standing for one device's block, here two of the eight
# numbers; every device then runs the same compiled program on its own
# block. Python's ``print`` runs during that single trace, and is no part of
# the program. Under ``jit`` the compiled program is cached, so the second
# call does not trace, and prints nothing. (:doc:`print_vs_debug_print`
# shows the same split on one device.)
#
# Without ``jit``, ``shard_map`` still calls the function once, but with
# every device's block at once: ``print`` runs once and shows all four
# blocks, in one value.

with jaxpurity.printed() as out:
    shard_map(block_sum, mesh=mesh, in_specs=P("d"), out_specs=P("d"))(x)
print_lines = [line for line in out.lines if line.startswith("print:")]
blocks_shown = out.text.count("mesh coordinates")
print(f"{len(print_lines)} print line(s), showing {blocks_shown} blocks")
assert len(print_lines) == 1 and blocks_shown == 4, out.text

# %%
# Once per device: ``jax.debug.print``
# ------------------------------------
#
# :func:`jax.debug.print` is part of the program, so every device runs it,
# on its own block, on every call. :func:`jax.lax.axis_index` gives the
# device's position along the mesh axis, to tell the lines apart. The four
# devices print in no fixed order, so the page sorts the lines before it
# checks them.


def block_sum_debug(x):
    jax.debug.print("device {i}: x = {x}", i=jax.lax.axis_index("d"), x=x)
    return jnp.sum(x, keepdims=True)


sums_debug = jax.jit(shard_map(block_sum_debug, mesh=mesh, in_specs=P("d"), out_specs=P("d")))
with jaxpurity.printed(echo=False) as out:
    sums_debug(x)
print("\n".join(sorted(out.lines)))
expected = [f"device {i}: x = [{2 * i:.1f} {2 * i + 1:.1f}]".replace(".0", ".") for i in range(4)]
assert sorted(out.lines) == expected, out.lines

# %%
# ``ordered=True``, which keeps the order of the prints on one device, is
# refused when there is more than one device: no single order runs across
# them.

with jaxpurity.raises(
    ValueError, match=r"ordered effects are not supported for more than 1 device"
):
    jax.jit(
        shard_map(
            lambda x: jax.debug.print("{}", x, ordered=True) or x,
            mesh=mesh,
            in_specs=P("d"),
            out_specs=P("d"),
        )
    )(x)

# %%
# ``jax.debug.callback`` runs any Python function the same way, once per
# device and call: here it records each device's block in a list, which a
# plain ``append`` inside the function could not do.

seen = []


def record(device, block):
    seen.append((int(device), block.tolist()))


def block_sum_logged(x):
    jax.debug.callback(record, jax.lax.axis_index("d"), x)
    return jnp.sum(x, keepdims=True)


logged = jax.jit(shard_map(block_sum_logged, mesh=mesh, in_specs=P("d"), out_specs=P("d")))
logged(x)
logged(x + 10)
jax.effects_barrier()
print(sorted(seen))
assert sorted(seen) == sorted(
    [(i, [2.0 * i, 2.0 * i + 1]) for i in range(4)]
    + [(i, [2.0 * i + 10, 2.0 * i + 11]) for i in range(4)]
), seen

# %%
# :func:`jax.pmap`, the older way to run on every device, traces once too:
# one ``print``, and one ``jax.debug.print`` line per device (the mesh's
# four: ``pmap`` would take the accelerator's, one on a single chip).


def scaled(v):
    print("print:", v)
    jax.debug.print("debug.print: {}", v)
    return 2 * v


with jaxpurity.printed(echo=False) as out:
    jax.pmap(scaled, devices=list(mesh.devices.flat))(jnp.arange(4.0))
print("\n".join(sorted(out.lines)))
assert sum(line.startswith("print:") for line in out.lines) == 1, out.lines
assert sorted(line for line in out.lines if line.startswith("debug")) == [
    f"debug.print: {v}" for v in ("0.0", "1.0", "2.0", "3.0")
], out.lines

# %%
# A block kept in a global leaks
# ------------------------------
#
# To look at a device's block after the call, one might keep it in a
# global. Inside the function it is a tracer, and it stays one: the first
# use after the call fails.

last_block = None


def block_sum_keep(x):
    global last_block
    last_block = x
    return jnp.sum(x, keepdims=True)


jax.jit(shard_map(block_sum_keep, mesh=mesh, in_specs=P("d"), out_specs=P("d")))(x)
with jaxpurity.raises(jax.errors.UnexpectedTracerError, match=r"unexpected tracer"):
    last_block + 1

# %%
# JAX 0.4.35 names the tracer ``RewriteTracer`` (the class ``shard_map``
# used to check replication); newer versions say that the function was
# "traced for shard_map". Either way the tracer stood for one block, of
# no device in particular: there is no single value it could have had.
#
# The fix: return the blocks
# --------------------------
#
# Return what you want to see as another output. ``out_specs`` says how the
# blocks come back: ``P("d")`` puts them side by side, so the result is the
# whole array, sharded over the devices as it was.


def block_sum_and_block(x):
    return jnp.sum(x, keepdims=True), x


with_blocks = jax.jit(
    shard_map(block_sum_and_block, mesh=mesh, in_specs=P("d"), out_specs=(P("d"), P("d")))
)
totals, blocks = with_blocks(x)
print("sums:", totals.tolist(), " blocks:", blocks.tolist())
print("devices holding the blocks:", len(blocks.sharding.device_set))
assert totals.tolist() == [1.0, 5.0, 9.0, 13.0] and blocks.tolist() == x.tolist()
assert len(blocks.sharding.device_set) == 4

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them,
# on the devices of its process (one, or the four of the newest JAX's test env).
FIXES = {
    "sums_debug": {"args": (x,)},
    "logged": {"args": (x,)},
    "block_sum_and_block": "the function of one block that with_blocks maps",
    "with_blocks": {"args": (x,)},
}
# sphinx_gallery_end_ignore
