"""The probes of :func:`jaxpurity.check_pure`: each runs the function one way and returns evidence.

``check_pure`` (``jaxpurity/checks/_purity.py``) is a short driver over these, in order:

* ``trace``: the function traced once, as ``jax.jit`` traces it, watched: the tracers
  that escape it, the state it changes, what it prints and reads, the numbers it draws,
  and what its program shows (callbacks, donation);
* ``runs``: the function run eagerly, through the program of that trace, under a fresh
  ``jax.jit`` and through the user's jit cache, with JAX's own leak checker on the eager
  run: results compared, and what the eager run changes that jit does not;
* ``batched``: the function under ``jax.vmap`` against its eager run: a mode that raises
  where the other returns, other values, or other effects (a callback run a different
  number of times);
* ``differentiated``: the function under ``jax.vjp`` and its pullback, the same way;
* ``keys``: JAX's key-reuse checker (``jax_debug_key_reuse``) on the traced call;
* ``static``: ``jaxpurity lint`` over the functions the call can reach, as warnings.

Each probe runs the function through the one harness (``session``), which resets the
state each run starts from and leaves the caller's as it was. A probe never raises for
what the user's code or JAX does: an exception from them is evidence.
"""
