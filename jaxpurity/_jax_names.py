"""The names JAX gives its tracers and traces, and what a user calls each: data, no JAX import.

JAX's leak checker and its errors print these class names, and
:mod:`jaxpurity._jax_compat` reads them off live tracers; :func:`jaxpurity.explain`
matches them in pasted text without importing JAX, so the table lives here,
once, and both derive from it. Like every private JAX name, each entry says the
versions it was seen on; ``tests/test_jax_compat.py`` checks it on every tested JAX.
"""

from __future__ import annotations

__all__ = [
    "AD_SENSITIVE_PREFIX",
    "AD_SENSITIVE_PRIMITIVES",
    "CONSUMING_PRIMITIVES",
    "GRAD_VMAP",
    "HOST_CALLBACK_PRIMITIVES",
    "LOOPS",
    "LOOP_PRIMITIVES",
    "PRINTED_TRACER",
    "RANDOM_PRIMITIVES",
    "REMAT_PRIMITIVES",
    "SHARD_MAP",
    "STATIC_ARGUMENT_HOLDERS",
    "STRUCTURE_HOLDERS",
    "TRACED_FOR_API",
    "TRACER_TRANSFORMATIONS",
    "trace_names",
    "traced_for_names",
    "tracer_names",
]

#: What a user calls the transformation that made each kind of tracer, for the tracers
#: that do not record it themselves (JAX records it on jaxpr tracers only, see
#: :func:`jaxpurity._jax_compat.traced_for`). grad and vjp hand the function a
#: ``LinearizeTracer`` from JAX 0.7.0 on (``jax_use_direct_linearize``), a ``JVPTracer``
#: over a ``JaxprTracer`` before (0.4.35, 0.6.2); jvp a ``JVPTracer``; vmap a
#: ``BatchTracer``; jit and the loop and branch bodies a ``DynamicJaxprTracer``. Each
#: trace class is named like its tracer without the final "r" (``BatchTrace``): JAX's
#: leak checker prints those.
TRACER_TRANSFORMATIONS: dict[str, str] = {
    "DynamicJaxprTracer": "jit",
    "JaxprTracer": "grad",
    "JVPTracer": "jvp/grad",
    "LinearizeTracer": "grad",
    "BatchTracer": "vmap",
    # shard_map on JAX 0.4.35: under its replication check (check_rep), and outside jit.
    "RewriteTracer": "shard_map",
    "ShardMapTracer": "shard_map",
}

#: JAX's own names for what a jaxpr tracer was traced for (see
#: :func:`jaxpurity._jax_compat.traced_for`), in the words of the API a user called,
#: where they differ. JAX 0.10.2 says "while_body"
#: and "checkpoint / remat"; 0.4.35 says "while_loop" and "checkpoint". Before 0.7.0
#: fori_loop runs as a scan or a while_loop, so it never says "fori_loop" there.
TRACED_FOR_API: dict[str, str] = {
    "while_body": "while_loop",
    "while_cond": "while_loop",
    "checkpoint / remat": "checkpoint",
}

#: How a tracer reads when it is formatted into a string (an f-string, ``str(x)``): 0.4.35
#: writes ``Traced<ShapedArray(float32[2])>with<DynamicJaxprTrace(level=1/0)>``; 0.12.0.1
#: ``JitTracer(float32[2])``, ``VmapTracer(aval=...)``, ``GradTracer(primal=...)``. A regular
#: expression.
PRINTED_TRACER = r"\bTraced<|\b[A-Z][A-Za-z]*Tracer[(<]"

#: The names of the primitives of loops (seen on 0.4.35 and 0.12.0.1; ``fori_loop`` is one
#: of them) and of ``jax.checkpoint`` (``remat2`` on both).
LOOP_PRIMITIVES = frozenset({"scan", "while"})
REMAT_PRIMITIVES = frozenset({"remat2", "checkpoint", "remat"})
#: The primitives that use a jax.random key (seen on 0.4.35 and 0.12.0.1; a raw key is
#: wrapped, ``random_wrap``, at each use).
RANDOM_PRIMITIVES = frozenset({"random_bits", "random_split", "random_fold_in", "random_wrap"})
#: Those that consume a typed key: JAX's key-reuse checker refuses a second use of the key.
CONSUMING_PRIMITIVES = frozenset({"random_bits", "random_split"})
#: The primitives that call back to Python while a program runs: jax.debug.print is
#: ``debug_callback`` on 0.4.35 and ``debug_print`` on 0.12.0.1; jax.debug.callback is
#: ``debug_callback`` on both.
HOST_CALLBACK_PRIMITIVES = frozenset(
    {"debug_callback", "debug_print", "pure_callback", "io_callback"}
)

#: What differentiation can treat otherwise than the eager run, besides the callbacks: a
#: ``while`` loop (no reverse mode), ``jax.checkpoint`` (run again in the backward pass), a
#: rule of the user's (``custom_jvp_call``, ``custom_vjp_call``, ... : the prefix), and the
#: operations of a Ref (seen on 0.4.35 and 0.12.0.1; ``get``/``swap``/``addupdate``).
AD_SENSITIVE_PRIMITIVES = frozenset(
    {"while", *REMAT_PRIMITIVES, "get", "swap", "addupdate", "new_ref", "mutable_array"}
)
AD_SENSITIVE_PREFIX = "custom_"

#: The transformations whose tracers leak out of a loop body.
LOOPS = frozenset({"scan", "while_loop", "fori_loop"})
#: The transformations of differentiation and batching.
GRAD_VMAP = frozenset({"grad", "jvp/grad", "vmap"})
#: The class JAX wraps an unhashable argument of a static position in (``nondiff_argnums``
#: of ``custom_jvp``/``custom_vjp``), ``jax._src.util.Unhashable`` on 0.4.35 and 0.12.0.1: a
#: tracer held by one is an array passed in such a position.
STATIC_ARGUMENT_HOLDERS = frozenset({"Unhashable"})
#: The class of a pytree's structure (``jax.tree_util.PyTreeDef``), which holds what is not a
#: leaf: a tracer held by one was stored where a pytree keeps static data (a plain attribute
#: of a Flax NNX module, a static field), and JAX's caches keep the structure.
STRUCTURE_HOLDERS = frozenset({"PyTreeDef"})
#: The transformations that run one function on every device.
SHARD_MAP = frozenset({"shard_map", "pmap"})


def traced_for_names(transformations: frozenset[str]) -> list[str]:
    """Every name JAX may record as "traced for" (on any version) for these transformations.

    Example:
      >>> traced_for_names(LOOPS)
      ['fori_loop', 'scan', 'while_body', 'while_cond', 'while_loop']
    """
    aliases = {name for name, api in TRACED_FOR_API.items() if api in transformations}
    return sorted(aliases | set(transformations))


def tracer_names(transformations: frozenset[str]) -> list[str]:
    """The tracer classes that come from these transformations.

    Example:
      >>> tracer_names(GRAD_VMAP)
      ['BatchTracer', 'JVPTracer', 'JaxprTracer', 'LinearizeTracer']
    """
    return sorted(t for t, api in TRACER_TRANSFORMATIONS.items() if api in transformations)


def trace_names(transformations: frozenset[str]) -> list[str]:
    """The trace classes (as JAX's leak checker prints them) of these transformations.

    Example:
      >>> trace_names(GRAD_VMAP)
      ['BatchTrace', 'JVPTrace', 'JaxprTrace', 'LinearizeTrace']
    """
    return [name.removesuffix("r") for name in tracer_names(transformations)]
