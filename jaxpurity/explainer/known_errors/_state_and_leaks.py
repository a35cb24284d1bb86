"""The errors of the pages in ``gallery/state_and_leaks/``: tracers that outlive their trace.

A tracer kept in a global, a list, an attribute or a cache, then used after its
trace ended: as a Python number (``float()``, ``bool()``, ``if``), as an
``UnexpectedTracerError``, or caught by the leak checker. Each goes to the page
for where the tracer was made (a loop body, ``grad`` or ``vmap``) or kept (a
cache, an object) as far as the message says, else to ``global_counter``, with
the other holders under "See also". And what the mutable array references of
``global_counter``'s fix refuse (a shared one under vmap, one returned from jit).
Each group is tried where
:data:`jaxpurity.explainer.known_errors.KNOWN_ERRORS` puts it.
"""

from __future__ import annotations

from dataclasses import replace

from jaxpurity._jax_names import GRAD_VMAP, LOOPS, trace_names, traced_for_names, tracer_names
from jaxpurity.explainer.known_errors._shared import (
    BOOL,
    BOOL_OLD,
    CONCRETE,
    INDEX,
    NOT_AN_ARRAY,
    KnownError,
    Wording,
    any_of,
    unexpected_tracer,
)

__all__ = [
    "CONVERSIONS_OF_LEAKED_TRACERS",
    "FLAX_MODULE_STATE",
    "FROZEN_FIELDS",
    "LEAK_CHECKER",
    "MUTABLE_ARRAY_REFERENCES",
    "SELF_TRACED_BY_JIT",
    "UNEXPECTED_TRACERS_ANYWHERE",
    "UNEXPECTED_TRACERS_BY_HOLDER",
]

# Where a leaked tracer came from, as the messages say it. Loops: JAX 0.10.2 says "traced
# for scan / while_body / while_cond / fori_loop"; 0.4.35 "traced for scan / while_loop";
# the leak checker of 0.10.2 "... at file.py:3 for scan."; older ones only name the
# function that made the tracer ("created on line scan.py:306 (scan_wrapper)").
_LOOP = any_of(
    rf"\bfor (?:{'|'.join(traced_for_names(LOOPS))})\b",
    r"\bcreated on line \S+ \((?:scan|while_loop|fori_loop)\w*\)",
)
# grad/vjp make a LinearizeTracer (0.7+) or JVPTracer over a JaxprTracer (before); jvp a
# JVPTracer; vmap a BatchTracer. New messages say "wrapped in a BatchTracer"; the leak
# checker "Leaked trace BatchTrace" or "MainTrace(2,JVPTrace)"; tracer reprs before 0.4.36
# read "Traced<ShapedArray(...)>with<JVPTrace(level=2/1)>". (DynamicJaxprTracer and
# JaxprTrace, which jit used before omnistaging, do not count.)
_GRAD_VMAP = any_of(
    rf"\bwrapped in an? (?:{'|'.join(tracer_names(GRAD_VMAP))})\b",
    r"\bLeaked (?:trace|level|sublevel) (?:MainTrace\(\d+, ?)?"
    rf"(?:{'|'.join(trace_names(GRAD_VMAP))})\b",
    r"\bwith<(?:JVPTrace|BatchTrace|LinearizeTrace)\(",
    r"\b(?:JVPTracer|BatchTracer|VmapTracer|LinearizeTracer) (?:with object id \d+ )?was created "
    r"on line\b",
)
# What a leak from jit or a loop says in a conversion's message (and a grad or vmap one never
# does): the traced function and its transformation (JAX 0.10.2 and 0.12.0.1), or that the
# tracer was jit's (0.4.35).
_JIT_OR_LOOP_TRACE = any_of(
    r"while tracing the function", r"\bDynamicJaxprTracer was created on line", _LOOP
)
# A cache holds the tracer: functools.lru_cache, or a dict or attribute named like one.
_CACHE = any_of(
    r"_lru_cache_wrapper", r"\bfunctools\.(?:lru_)?cache\b", r"is referred to by \S*?(?:cache|memo)"
)
# Or the function that made the leaked value ("created on line cache.py:3 (rope_table)", JAX
# 0.2.19 to 0.12.0.1; "This DynamicJaxprTracer was created on line", 0.3.24 to 0.4.35) is called
# back in the traceback: a line it shows calls it, and it is not running. It returned a value
# made in a trace that had ended, so it keeps what it computes: functools.lru_cache, or a memo
# of its own. (Named from its qualified name's last part; a cached method called as
# self.table() is not seen.) Live: JAX 0.4.35 and 0.12.0.1.
_CACHED_ORIGIN = (
    r"\bwas created on line \S{1,300} \((?:[\w<>]{1,100}\.){0,10}(?P<called>\w{1,100})\)"
)
# The leak checker's chain reaches an attribute of an object: "<Model 1407...>.last".
_OBJECT_ATTRIBUTE = (
    r"is referred to by <(?!(?:list|dict|tuple|set|frozenset|function|cell|frame|TracingEqn)\b)"
    r"\w+ \d+>\.\w"
)
# A method made the leaked value: JAX names where it was made by its qualified name on Python
# 3.11+, and only a class's member has a name of two parts with no "<locals>" between them
# ("(Model.step)", "(main.<locals>.Trainer._update)"; a function nested in another reads
# "(main.<locals>.step)"). Whichever function was being traced (the method, a helper method it
# called, a lambda calling the method), the method stored what it made on its object. The leak's
# origin ("The leaked intermediate value was created on line", JAX 0.2.19 to 0.12.0.1), or a
# dead tracer's ("This DynamicJaxprTracer was created on line", JAX 0.3.24 to 0.4.35); live.
_METHOD_MADE = r"\bwas created on line \S{1,300} \((?:[\w<>]{1,100}\.){0,10}\w{1,100}\.\w{1,100}\)"
_LEAKED_TRACE = (
    Wording(
        r"\bLeaked (?:trace|level|sublevel) \w",
        "trace: JAX 0.1.49 and older to 0.12.0.1; level: 0.2.19 to 0.2.27; sublevel: 0.1.49 and "
        "older to 0.2.27 (git history)",
        regex=True,
    ),
    Wording(
        r"\bThis \w{0,40}Tracer (?:with object id \d+ )?was created on line",
        "This Tracer: JAX 0.2.28 to 0.3.23; This DynamicJaxprTracer: 0.3.24 to 0.4.35; This "
        "BatchTracer with object id: 0.3.24 to 0.12.0.1 (git history)",
        regex=True,
    ),
    Wording(
        r"<\w*Tracer \d+> is referred to by",
        "the leak checker's reference chain: pasted in jax-ml/jax#13022 (2022), and JAX 0.12.0.1",
        regex=True,
    ),
)

_LEAK_FIX_LOOP = (
    "Return what you need from the body: put it in the carry, or in scan's per-step "
    "output (`carry, y = body(carry, x)`), and read it from the loop's result."
)
_LEAK_FIX_GRAD = (
    "Return the value instead: get side results out of grad with jax.value_and_grad "
    "or has_aux=True, and return extra outputs from the vmapped function."
)
_LEAK_FIX_SELF = (
    "Keep state out of `self` inside a transformed method: pass it in, return the new "
    "value, and build the updated object outside (a pytree dataclass, "
    "dataclasses.replace). In Flax, Haiku or Equinox use their own transforms and state "
    "APIs (nn.jit, hk.vmap, eqx.filter_jit) rather than raw jax.jit on a module's method."
)
_LEAK_FIX_CACHE = (
    "Do not cache what a traced function computes from its arguments: functools.lru_cache "
    "and dicts outlive the trace. Cache only values built from static arguments outside "
    "any trace, or let jit cache the compiled function for you."
)
_LEAK_FIX_GLOBAL = (
    "Make the function pure: pass the state in as an argument and return the new state "
    "(`y, count = step(count, x)`). jaxpurity.find_leaks(f, x) names the variable that "
    "holds the tracer and the line that stored it."
)


# Where a leak the text does not locate may have been kept: the pages for each holder.
_OTHER_LEAKS = ("leak_through_self", "leak_from_loop_body", "memoization_caches")


def _leaked_tracer_conversion(
    topic: str, where: str, fix: str, when: str | None = None
) -> KnownError:
    """float(), int() or bool() on a tracer that ``where`` saved outside itself (a leaked one)."""
    return KnownError(
        errors=(
            "ConcretizationTypeError",
            "TracerBoolConversionError",
            "TracerIntegerConversionError",
        ),
        topic=topic,
        wordings=(CONCRETE, BOOL, *BOOL_OLD, INDEX),
        when=when,
        leaked=True,
        scenario=f"Code called float(), int() or bool() (or `if`) on a value that {where} "
        "had saved outside itself (in a list, a global or an attribute).",
        cause="The value is a tracer left over from a trace that has ended: it has a shape "
        "and a dtype but no value, so it cannot become a Python number. It is not a "
        "setting that needs to be static.",
        fix=fix,
    )


def _leak_checked(topic: str, what: str, fix: str, when: str | None) -> KnownError:
    """The leak checker's error, where ``when`` (None: anything) finds who kept the tracer."""
    return KnownError(
        errors=("Exception",),
        topic=topic,
        wordings=_LEAKED_TRACE,
        when=when,
        scenario=f"jax.checking_leaks() (or JAX_CHECK_TRACER_LEAKS) caught {what} keeping a "
        "reference to one of its tracers.",
        cause="Something outside the traced code (a list, a global, an attribute, a cache) "
        "still holds a tracer after JAX finished tracing it; the message's reference "
        "chain lists what holds it, the last line naming the root.",
        fix=fix,
    )


_HAIKU = r"inside a Haiku transformed function"
_FLAX_MIXED = Wording(
    "Jax transforms and Flax models cannot be mixed", "Flax: pasted in google/flax#2887 (2023)"
)
_NNX_TRACE_LEVEL = Wording(
    r"Cannot (?:mutate|call|update) '?\w+'? from (?:a )?different trace level",
    "Flax NNX: pasted in google/flax#3997 and #4151 (2024); live on Flax 0.12.8 and 0.12.12",
    regex=True,
)
_NNX_GRAPH_NODE = Wording(
    "Cannot extract graph node from different trace level",
    "Flax NNX 0.12.8 and 0.12.12, live: nnx.grad of a model closed over by jax.jit",
)


#: float(), int(), bool() or `if` on a tracer used after its trace ended (tried only for an
#: error raised on a leaked tracer): by where it was kept, the catch-all last.
CONVERSIONS_OF_LEAKED_TRACERS: tuple[KnownError, ...] = (
    _leaked_tracer_conversion("memoization_caches", "a cached function", _LEAK_FIX_CACHE, _CACHE),
    _leaked_tracer_conversion(
        "memoization_caches", "a cached function", _LEAK_FIX_CACHE, _CACHED_ORIGIN
    ),
    _leaked_tracer_conversion(
        "leak_from_loop_body", "a scan, while_loop or fori_loop body", _LEAK_FIX_LOOP, _LOOP
    ),
    _leaked_tracer_conversion(
        "leak_from_grad_vmap", "a function under grad or vmap", _LEAK_FIX_GRAD, _GRAD_VMAP
    ),
    _leaked_tracer_conversion(
        "leak_through_self",
        "a jitted method",
        _LEAK_FIX_SELF,
        any_of(_OBJECT_ATTRIBUTE, _METHOD_MADE),
    ),
    # A leak whose message names no trace: grad names none, and vmap's tracer is named above
    # only where JAX says where it was made. Only the traceback shows that it leaked (see
    # jaxpurity.explainer._explain._outside_every_transformation).
    replace(
        _leaked_tracer_conversion(
            "leak_from_grad_vmap", "a function under grad or vmap", _LEAK_FIX_GRAD
        ),
        unless=_JIT_OR_LOOP_TRACE,
    ),
    replace(
        _leaked_tracer_conversion("global_counter", "a jitted function", _LEAK_FIX_GLOBAL),
        see_also=_OTHER_LEAKS,
    ),
)

#: UnexpectedTracerError: a leaked tracer used later, by what held it.
UNEXPECTED_TRACERS_BY_HOLDER: tuple[KnownError, ...] = (
    unexpected_tracer(
        "leak_through_self",
        "A JAX transform (jax.jit, jax.vmap, lax.scan, ...) ran inside a Haiku transformed "
        "function, whose modules keep state between calls.",
        "Haiku modules store parameters and state in the hk.transform context; a raw JAX "
        "transform inside it traces that state, and the tracer outlives the transform.",
        "Use Haiku's own transforms inside modules (hk.jit, hk.vmap, hk.scan, hk.remat) "
        "instead of jax.* ones, or move the JAX transform outside hk.transform.",
        _HAIKU,
    ),
    *(
        unexpected_tracer(
            "memoization_caches",
            "A cache (functools.lru_cache, a dict) kept a value computed while tracing, and "
            "later code used it.",
            "The cache outlives the trace, so it hands back a tracer that belonged to a trace "
            "that has ended.",
            _LEAK_FIX_CACHE,
            kept_by,
        )
        for kept_by in (_CACHE, _CACHED_ORIGIN)
    ),
    unexpected_tracer(
        "leak_from_loop_body",
        "A scan, while_loop or fori_loop body saved a value outside itself (in a list, a "
        "global or an attribute), and later code used it.",
        "JAX traces a loop body once, with tracers standing in for the carry and the "
        "step's inputs; a tracer stored outside the body outlives that trace and is dead "
        "by the time it is used.",
        _LEAK_FIX_LOOP,
        _LOOP,
    ),
    unexpected_tracer(
        "leak_from_grad_vmap",
        "A function under jax.grad, jax.vjp, jax.jvp or jax.vmap saved an intermediate "
        "value outside itself, and later code used it.",
        "grad and vmap call your function with tracers instead of arrays; one stored in a "
        "global, a list or an attribute outlives the transformation.",
        _LEAK_FIX_GRAD,
        _GRAD_VMAP,
    ),
    unexpected_tracer(
        "leak_through_self",
        "A jitted method stored a value on an object (self.x = ...), and later code used it.",
        "While jit traces a method, its values are tracers; one stored on an object that "
        "outlives the call is dead once the trace has ended.",
        _LEAK_FIX_SELF,
        any_of(_OBJECT_ATTRIBUTE, _METHOD_MADE),
    ),
)

#: UnexpectedTracerError, where the message does not say what held the tracer.
UNEXPECTED_TRACERS_ANYWHERE: tuple[KnownError, ...] = (
    replace(
        unexpected_tracer(
            "global_counter",
            "A jitted function stored a value in a global, a list or an attribute (a counter, "
            "a cache, self.x), and later code used it.",
            "While jit traces a function its values are tracers; a tracer saved outside the "
            "function outlives the trace, and Python side effects run only once, when the "
            "function is traced.",
            "Make the function pure: pass the state in as an argument and return the new "
            "state (`y, count = step(count, x)`). Wrap the call in `with jax.checking_leaks():` "
            "to be shown the line that leaks.",
            None,
        ),
        see_also=_OTHER_LEAKS,
    ),
)

#: The leak checker (jax.checking_leaks, JAX_CHECK_TRACER_LEAKS): by the holder, the catch-all
#: last.
LEAK_CHECKER: tuple[KnownError, ...] = (
    _leak_checked(
        "memoization_caches", "a cache (functools.lru_cache, a dict)", _LEAK_FIX_CACHE, _CACHE
    ),
    # The chain's holder before the trace's kind: the fix is to where the tracer was stored.
    _leak_checked("leak_through_self", "an object's attribute", _LEAK_FIX_SELF, _OBJECT_ATTRIBUTE),
    _leak_checked(
        "leak_from_loop_body", "a scan, while_loop or fori_loop body", _LEAK_FIX_LOOP, _LOOP
    ),
    _leak_checked(
        "leak_from_grad_vmap", "a function under grad, jvp or vmap", _LEAK_FIX_GRAD, _GRAD_VMAP
    ),
    replace(
        _leak_checked("global_counter", "a jitted function", _LEAK_FIX_GLOBAL, None),
        see_also=_OTHER_LEAKS,
    ),
)

#: Module state across a transform in Flax: a Linen module bound outside it, and an NNX object
#: changed or read from inside a trace that is not its own.
FLAX_MODULE_STATE: tuple[KnownError, ...] = (
    KnownError(
        errors=("JaxTransformError",),
        topic="leak_through_self",
        wordings=(_FLAX_MIXED,),
        scenario="A Flax module (or an NNX object) was used across a raw JAX transform: "
        "jax.jit, jax.vmap or lax.scan around a bound module or its state.",
        cause="Flax objects hold state that belongs to one trace level; touching or "
        "mutating it from inside another trace would leak tracers into the object, so Flax "
        "refuses.",
        fix="Use Flax's lifted transforms (nn.jit, nn.vmap, nn.scan; nnx.jit, nnx.scan) or "
        "call the pure apply function (model.apply(variables, x)) inside the JAX transform.",
    ),
    KnownError(
        errors=("TraceContextError", "ValueError"),
        topic="nnx_and_equinox_state",
        wordings=(_NNX_TRACE_LEVEL, _NNX_GRAPH_NODE),
        scenario="A Flax NNX object (a model, an optimizer, an Rngs) made outside a JAX "
        "transform was changed or differentiated inside it: closed over by a jax.jit or "
        "nnx.jit function, or used in a lax.scan body or under jax.grad.",
        cause="An NNX object belongs to the trace it was made in. A change from inside another "
        "trace would store tracers in it, so NNX refuses it.",
        fix="Pass the objects to nnx.jit (or nnx.grad, nnx.scan) as arguments, not by closure; "
        "or nnx.split them outside, nnx.merge(graphdef, state, copy=True) inside the jax "
        "transform, return nnx.state of the result, and nnx.update the objects with it.",
    ),
)

_FROZEN_FIELD = Wording(
    r"cannot assign to field '\w{1,100}'",
    "Python's dataclasses (frozen=True), live on 3.10 to 3.13; an Equinox module is one",
    regex=True,
)

#: A field of a frozen dataclass assigned after __init__: an Equinox module's state.
FROZEN_FIELDS: tuple[KnownError, ...] = (
    KnownError(
        errors=("FrozenInstanceError",),
        topic="nnx_and_equinox_state",
        wordings=(_FROZEN_FIELD,),
        scenario="A method assigned to a field of its own object (self.x = ...), and the "
        "object is a frozen dataclass: an Equinox module is one.",
        cause="The object cannot change after __init__. That is what keeps jit and grad "
        "right: a module is a pytree of its fields, and a field changed behind jit's back "
        "would be a tracer left in the object, or a change lost.",
        fix="Return the new value, or a new object that holds it, and use that: "
        "eqx.tree_at(lambda m: m.x, model, new_x) for an Equinox module, "
        "dataclasses.replace(obj, x=new_x) for a dataclass. Keep state that a layer updates "
        "(BatchNorm's statistics) in eqx.nn.State, passed in and returned.",
    ),
)

#: jit on a method, tracing `self`.
SELF_TRACED_BY_JIT: tuple[KnownError, ...] = (
    # A method decorated with @jax.jit (or jax.jit(Model.apply)) gets the object as its first
    # argument, and jit traces it: "Error interpreting argument to <function Model.apply at ...>
    # as an abstract array. The problematic value is of type <class '__main__.Model'> and was
    # passed to the function at path self." (JAX 0.4.35 and 0.12.0.1, live; its cause reads
    # "Cannot interpret value of type <class '__main__.Model'> as an abstract array; it does not
    # have a dtype attribute", which an object handed to jax.numpy raises too: only the path
    # says that it is `self`). This page starts from the recipe that marks self static, and
    # shows what it costs and the fixes that hold.
    KnownError(
        errors=("TypeError",),
        topic="leak_through_self",
        wordings=(NOT_AN_ARRAY,),
        when=r"\bat path self\.(?!\w)",
        scenario="A method jitted with jax.jit (@jax.jit on the method, or "
        "jax.jit(Model.apply)) was called, and jit tried to trace `self`, the object, as an "
        "array argument.",
        cause="jit traces every argument not marked static, `self` too, as an array or a "
        "pytree of arrays; a plain Python object is neither, so jit cannot make a tracer for "
        "it.",
        fix="Mark self static (functools.partial(jax.jit, static_argnums=0)) only for an "
        "object that never changes: jit hashes it by identity and keeps the program of its "
        "first values, and a method that assigns to self then leaks tracers. Better, make "
        "the object a pytree (jaxpurity.dataclass) so that self is traced, and return a new "
        "object instead of assigning to self.",
    ),
)

#: Mutable array references (jax.new_ref, JAX 0.7.2 and newer), the global_counter page's fix, and
#: what they refuse.
MUTABLE_ARRAY_REFERENCES: tuple[KnownError, ...] = (
    KnownError(
        errors=("Exception", "ValueError"),
        topic="mutable_refs",
        wordings=(
            Wording(
                r"performing a (?:set|swap|set/swap) operation with vmapped value on an "
                r"unbatched (?:mutable )?array reference",
                "JAX 0.10.2 and 0.12.0.1 (live: a Ref mapped with in_axes=None)",
                regex=True,
            ),
        ),
        scenario="A function under jax.vmap wrote a different value from each row into one "
        "shared mutable array reference (a jax.new_ref mapped with in_axes=None, or closed "
        "over).",
        cause="A Ref outside the vmap has one value, and every row of the batch writes its own: "
        "vmap has nowhere to put them.",
        fix="Give each row its own Ref: pass a batched Ref (jax.new_ref(jnp.zeros(batch))) as "
        "a mapped argument, or make the Ref inside the mapped function; or thread the state "
        "through the function's arguments and results.",
    ),
    KnownError(
        errors=("ValueError",),
        topic="mutable_refs",
        wordings=(
            Wording(
                "returned a mutable array reference",
                "JAX 0.10.2 and 0.12.0.1 (live: jax.jit(lambda ref: ref)(ref))",
            ),
        ),
        scenario="A jitted function returned a mutable array reference (a jax.new_ref, passed "
        "in or made inside).",
        cause="A Ref is state that jit reads and writes in place; it cannot leave the compiled "
        "function as a result.",
        fix="Return the value instead (ref[...]), and keep the Ref outside: the caller, who "
        "passed it in, still holds it, and sees every write.",
    ),
)
