"""The JAX transformations ``jaxpurity lint`` knows: which arguments are functions, which traced.

Knowledge is data: each :class:`Transform` says what kind of trace it makes
(compiled and cached like ``jit``, batched like ``vmap``, a loop body, ...),
where its function arguments are, and which parameters of those functions
receive tracers. :mod:`jaxpurity.linter.analysis._applied_transforms` finds where a
module applies them; the rules read the kinds. A project's own wrappers of
``jax.jit`` (the ``wrappers`` setting) join the table as ``jax.jit``
(:func:`with_jit_wrappers`).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CACHED",
    "DEVICES",
    "HOST_CALLBACKS",
    "NONDIFF",
    "PARTIAL",
    "PER_TRACE_CLASSES",
    "STAGED",
    "STATIC_OPTIONS",
    "TRANSFORMS",
    "Transform",
    "with_jit_wrappers",
]

#: Kinds whose Python body does not run again on every call: jit's cache, and the bodies
#: of lax loops and branches, traced once per loop or branch.
CACHED = frozenset({"jit", "pmap", "loop", "branch"})
#: Kinds whose Python body runs under a staging trace: there every jax.numpy or jax.lax
#: operation gives a tracer, on constants too (``jnp.arange(5)``), and so does an operation
#: on a concrete array (``table[0]``). Under ``vmap``, ``grad`` or Haiku's ``transform``
#: alone, operations on concrete values run at once and give concrete arrays.
STAGED = frozenset({"jit", "pmap", "loop", "branch", "shard_map", "checkpoint", "trace"})
#: Kinds that run one program on many devices.
DEVICES = frozenset({"pmap", "shard_map"})

#: The calls whose function (the first argument, or ``callback=``) runs on the host, on
#: concrete values: no trace runs it, whatever traces the code that passes it.
HOST_CALLBACKS = frozenset(
    {
        "jax.debug.callback",
        "jax.pure_callback",
        "jax.experimental.io_callback",
        "jax.experimental.host_callback.call",
        "jax.experimental.host_callback.id_tap",
    }
)

#: Classes whose instances only a transformed function can make (a Haiku module, made
#: inside ``hk.transform``): each trace makes its own, and what its methods set on ``self``
#: does not outlive the trace.
PER_TRACE_CLASSES = frozenset({"haiku.Module"})

#: ``functools.partial`` and its spellings.
PARTIAL = frozenset({"functools.partial", "partial"})

#: The options that make parameters static, by the ``seeds`` of a transformation: position
#: and name options (see :func:`jaxpurity.linter.analysis._applied_transforms.parameters`).
STATIC_OPTIONS = {
    "static": ("static_argnums", "static_argnames"),
    "pmap": ("static_broadcasted_argnums", "static_argnames"),
}
#: Decorators that are no transformation but keep some parameters out of the trace: the
#: ``nondiff_argnums``/``nondiff_argnames`` of ``custom_vjp`` and ``custom_jvp`` hold Python
#: values (hashable, compared as they are), whatever the caller's other arguments.
NONDIFF = {
    "jax.custom_vjp": ("nondiff_argnums", "nondiff_argnames"),
    "jax.custom_jvp": ("nondiff_argnums", "nondiff_argnames"),
}


@dataclass(frozen=True)
class Transform:
    """One JAX transformation, as the linter sees a call of it.

    Attributes:
      kind: ``"jit"`` (compiled, cached), ``"pmap"``, ``"vmap"``, ``"grad"``, ``"loop"``
        (a lax loop body), ``"branch"`` (a cond or switch branch), ``"shard_map"``,
        ``"checkpoint"``, ``"trace"`` (traced once per call, as ``make_jaxpr``), or
        ``"transform"`` (Haiku's, run with concrete values until jitted).
      functions: The function arguments, as (position, keyword) pairs.
      seeds: Which parameters of the function receive tracers: ``"all"``, ``"none"``
        (non-arrays stay Python values, as in ``eqx.filter_jit``), ``"static"`` (all but
        ``static_argnums``/``static_argnames``), ``"pmap"`` (all but
        ``static_broadcasted_argnums``), ``"in_axes"`` (all but those mapped with ``None``),
        ``"in_specs"`` (all but those whose ``in_specs`` entry is ``None``, which shard_map
        passes as they are), or ``"argnums"`` (the differentiated ones, the first by default).
      sequence: The function argument is a list of functions (``lax.switch``'s branches).
      reverse: It differentiates in reverse mode (``grad``, ``vjp``), which cannot go
        through a loop whose length is traced; its traced parameters are the
        differentiated ones.
      runs: The methods of what it returns that run the function (Haiku's ``apply`` and
        ``init``), each with how many arguments of its own it takes before the function's
        (``apply(params, rng, *args)``): code that calls them runs the function as it runs.
    """

    kind: str
    functions: tuple[tuple[int, str], ...] = ((0, "fun"),)
    seeds: str = "all"
    sequence: bool = False
    reverse: bool = False
    runs: tuple[tuple[str, int], ...] = ()


_JIT = Transform("jit", seeds="static")
_FILTERED = {
    "jit": Transform("jit", seeds="none"),
    "pmap": Transform("pmap", seeds="none"),
    "vmap": Transform("vmap", seeds="none"),
    "grad": Transform("grad", seeds="none"),
    "checkpoint": Transform("checkpoint", seeds="none"),
    "loop": Transform("loop", ((0, "f"),), seeds="none"),
    "shard_map": Transform("shard_map", seeds="none"),
}


_LAX = {
    "scan": Transform("loop", ((0, "f"),)),
    "fori_loop": Transform("loop", ((2, "body_fun"),)),
    "while_loop": Transform("loop", ((0, "cond_fun"), (1, "body_fun"))),
    "map": Transform("loop", ((0, "f"),)),
    "associative_scan": Transform("loop", ((0, "fn"),)),
    "cond": Transform("branch", ((1, "true_fun"), (2, "false_fun"))),
    "switch": Transform("branch", ((1, "branches"),), sequence=True),
}


#: Optax's optimizers call a learning-rate schedule with the step count, an array, inside
#: their ``update``, which a training step jits: the schedule runs under that trace.
_SCHEDULE = Transform("jit", ((0, "learning_rate"),))
_OPTAX_OPTIMIZERS = (
    "adabelief adadelta adafactor adagrad adam adamax adamaxw adamw adan amsgrad fromage lamb "
    "lars lion nadam nadamw noisy_sgd novograd optimistic_gradient_descent radam rmsprop sgd "
    "sign_sgd sm3 yogi scale_by_learning_rate"
)


def _lax(prefix: str, names: str) -> dict[str, Transform]:
    """The loop and branch functions of ``jax.lax`` that the module ``prefix`` mirrors."""
    return {f"{prefix}.{name}": _LAX[name] for name in names.split()}


#: Every transformation by qualified name (see :mod:`jaxpurity.linter.analysis._names`).
TRANSFORMS: dict[str, Transform] = {
    "jax.jit": _JIT,
    "jax.pmap": Transform("pmap", seeds="pmap"),
    "jax.vmap": Transform("vmap", seeds="in_axes"),
    "jax.grad": Transform("grad", seeds="argnums", reverse=True),
    "jax.value_and_grad": Transform("grad", seeds="argnums", reverse=True),
    "jax.jacrev": Transform("grad", seeds="argnums", reverse=True),
    "jax.hessian": Transform("grad", seeds="argnums", reverse=True),
    "jax.vjp": Transform("grad", reverse=True),
    "jax.jacfwd": Transform("grad", seeds="argnums"),
    "jax.jvp": Transform("grad"),
    "jax.linearize": Transform("grad"),
    "jax.checkpoint": Transform("checkpoint", seeds="static"),
    "jax.shard_map": Transform("shard_map", seeds="in_specs"),
    "jax.make_jaxpr": Transform("trace", seeds="static"),
    "jax.eval_shape": Transform("trace"),
    "jax.experimental.checkify.checkify": Transform("trace"),
    **_lax("jax.lax", " ".join(_LAX)),
    **_lax("jaxpurity", "scan fori_loop while_loop cond switch"),
    "jaxpurity.collect": Transform("loop", ((0, "fn"),)),
    "equinox.filter_jit": _FILTERED["jit"],
    "equinox.filter_pmap": _FILTERED["pmap"],
    "equinox.filter_vmap": _FILTERED["vmap"],
    "equinox.filter_grad": _FILTERED["grad"],
    "equinox.filter_value_and_grad": _FILTERED["grad"],
    "equinox.filter_checkpoint": _FILTERED["checkpoint"],
    "flax.nnx.jit": _FILTERED["jit"],
    "flax.nnx.pmap": _FILTERED["pmap"],
    "flax.nnx.vmap": _FILTERED["vmap"],
    "flax.nnx.grad": _FILTERED["grad"],
    "flax.nnx.value_and_grad": _FILTERED["grad"],
    "flax.nnx.remat": _FILTERED["checkpoint"],
    "flax.nnx.scan": _FILTERED["loop"],
    "flax.nnx.shard_map": _FILTERED["shard_map"],
    "haiku.transform": Transform("transform", seeds="none", runs=(("apply", 2), ("init", 1))),
    "haiku.transform_with_state": Transform(
        "transform", seeds="none", runs=(("apply", 3), ("init", 1))
    ),
    "haiku.vmap": Transform("vmap", seeds="in_axes"),
    "haiku.remat": Transform("checkpoint", seeds="static"),
    **_lax("haiku", "scan fori_loop while_loop map cond switch"),
    **{f"optax.{name}": _SCHEDULE for name in _OPTAX_OPTIMIZERS.split()},
    "optax.scale_by_schedule": Transform("jit", ((0, "step_size_fn"),)),
}


def with_jit_wrappers(jit_wrappers: frozenset[str] = frozenset()) -> dict[str, Transform]:
    """:data:`TRANSFORMS`, with a project's own wrappers of ``jax.jit`` (the ``wrappers``
    setting: qualified names) read as ``jax.jit``.

    Example:
      >>> with_jit_wrappers(frozenset({"mylib.jit"}))["mylib.jit"].kind
      'jit'
    """
    return {**TRANSFORMS, **dict.fromkeys(jit_wrappers, _JIT)}
