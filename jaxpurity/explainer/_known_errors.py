"""The JAX errors that :func:`jaxpurity.explain` knows: how to spot each one, and what to say.

This module is data: one :class:`KnownError` per error and page, in the order
the matcher (:mod:`jaxpurity.explainer._explain`) tries them; the first that matches
wins, so an entry with a ``when`` condition comes before the catch-all of its
class. Each :class:`Wording` is a fixed part of a message as some JAX version
printed it, with the versions it was seen in: JAX rewords its errors often, and
people paste messages from every version. To teach ``explain`` a new error,
add an entry here with the page that shows it (a topic of
:mod:`jaxpurity._pages`) and a test in ``tests/test_explain.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from jaxpurity._jax_names import (
    GRAD_VMAP,
    LOOPS,
    SHARD_MAP,
    trace_names,
    traced_for_names,
    tracer_names,
)

__all__ = ["DEAD_TRACE", "KNOWN_ERRORS", "TRACED_FUNCTION", "KnownError", "Wording"]


@dataclass(frozen=True)
class Wording:
    """A fixed part of an error message, and the versions it was seen in.

    "git history" means the first and last JAX releases whose source holds the
    words (``git log -S`` on jax-ml/jax, then ``git tag --contains``); "pasted
    in" names a public thread where someone pasted it. jax-v0.1.49 is the
    oldest release tagged in the repository.

    Attributes:
      text: The words, as printed. They are found whatever the whitespace
        around and inside them (a terminal may have wrapped the line), or,
        with ``regex``, a regular expression searched in the message with its
        whitespace collapsed to single spaces.
      seen: Where the wording was seen: JAX versions, and the source.
      regex: Whether ``text`` is a regular expression.
    """

    text: str
    seen: str
    regex: bool = False


@dataclass(frozen=True)
class KnownError:
    """One error that :func:`jaxpurity.explain` recognises: how to spot it, and what to say.

    Attributes:
      errors: The class names it is raised as; the first is the one named
        when the text names none. A name that only JAX uses (not ``TypeError``)
        recognises the error by itself.
      topic: The page that explains it (a key of ``jaxpurity._pages.PAGES``).
      wordings: The wordings that recognise it when its class is not known.
      when: A regular expression the message must also contain (searched
        with whitespace collapsed): it tells apart errors of one class.
      unless: A regular expression the message must not contain.
      raised_in: A regular expression searched in the code that raised the
        error (``ErrorBlock.raised``: ``"path in function"`` and the source
        line): the JAX or NumPy function that asked a tracer for its value tells
        what the value was for. An error with no traceback does not match.
      leaked: Only for an error on a leaked tracer, one used after its trace
        ended (see ``jaxpurity.explainer._explain``); such entries are tried first.
      no_error: Only for text that names no error at all (printed output).
      see_also: The pages for the other causes the same text can have, when it
        does not say which (a leak whose holder it does not name): the real
        errors of the corpora that the entry sends elsewhere.
    """

    errors: tuple[str, ...]
    topic: str
    wordings: tuple[Wording, ...]
    scenario: str
    cause: str
    fix: str
    when: str | None = None
    unless: str | None = None
    raised_in: str | None = None
    leaked: bool = False
    no_error: bool = False
    see_also: tuple[str, ...] = ()


def _any(*patterns: str) -> str:
    return "|".join(f"(?:{p})" for p in patterns)


# Where a leaked tracer came from, as the messages say it. Loops: JAX 0.10.2 says "traced
# for scan / while_body / while_cond / fori_loop"; 0.4.35 "traced for scan / while_loop";
# the leak checker of 0.10.2 "... at file.py:3 for scan."; older ones only name the
# function that made the tracer ("created on line scan.py:306 (scan_wrapper)").
_LOOP = _any(
    rf"\bfor (?:{'|'.join(traced_for_names(LOOPS))})\b",
    r"\bcreated on line \S+ \((?:scan|while_loop|fori_loop)\w*\)",
)
# grad/vjp make a LinearizeTracer (0.7+) or JVPTracer over a JaxprTracer (before); jvp a
# JVPTracer; vmap a BatchTracer. New messages say "wrapped in a BatchTracer"; the leak
# checker "Leaked trace BatchTrace" or "MainTrace(2,JVPTrace)"; tracer reprs before 0.4.36
# read "Traced<ShapedArray(...)>with<JVPTrace(level=2/1)>". (DynamicJaxprTracer and
# JaxprTrace, which jit used before omnistaging, do not count.)
_GRAD_VMAP = _any(
    rf"\bwrapped in an? (?:{'|'.join(tracer_names(GRAD_VMAP))})\b",
    r"\bLeaked (?:trace|level|sublevel) (?:MainTrace\(\d+, ?)?"
    rf"(?:{'|'.join(trace_names(GRAD_VMAP))})\b",
    r"\bwith<(?:JVPTrace|BatchTrace|LinearizeTrace)\(",
    r"\b(?:JVPTracer|BatchTracer|LinearizeTracer) (?:with object id \d+ )?was created on line\b",
)
# shard_map's tracers: "traced for shard_map" (JAX 0.6 on; pmap's too from 0.8), and before
# that the tracer classes of shard_map (0.4.35: RewriteTracer under its replication check,
# ShardMapTracer outside jit) or "traced for pmap".
_SHARD_MAP = _any(
    rf"\bfor (?:{'|'.join(traced_for_names(SHARD_MAP))})\b",
    rf"\bwrapped in an? (?:{'|'.join(tracer_names(SHARD_MAP))})\b",
)
# Every pattern here has a fixed start or bounded repeats (\w{0,40}, not \w*), so that no
# search backtracks over a long run of one character: explain stays linear in its input.

# A cache holds the tracer: functools.lru_cache, or a dict or attribute named like one.
_CACHE = _any(
    r"_lru_cache_wrapper", r"\bfunctools\.(?:lru_)?cache\b", r"is referred to by \S*?(?:cache|memo)"
)
# The leak checker's chain reaches an attribute of an object: "<Model 1407...>.last".
_OBJECT_ATTRIBUTE = (
    r"is referred to by <(?!(?:list|dict|tuple|set|frozenset|function|cell|frame|TracingEqn)\b)"
    r"\w+ \d+>\.\w"
)
# The function that leaked is a method: JAX names the traced function ("leaked was step"), then
# where the leaked value was made, by its qualified name on Python 3.11+ ("(Model.step)",
# "(main.<locals>.Model.step)"; a function nested in another reads "(main.<locals>.step)").
# JAX 0.10.2 and 0.12.0.1 (live); JAX 0.2.19 on word the two lines so.
_METHOD_LEAKED = (
    r"leaked was (?P<traced>\w{1,100}) at \S{1,300} traced for \w{1,40}\.[ -]{0,80}"
    r"The leaked intermediate value was created on line \S{1,300} "
    r"\((?:[\w<>]{1,100}\.){0,10}\w{1,100}\.(?P=traced)\)"
)

# How to tell an error on a *leaked* tracer (one used after its trace ended) from one inside
# a trace. JAX 0.4.35 says where the tracer was made only once its trace is over:
DEAD_TRACE = r"\bThis DynamicJaxprTracer was created on line\b"
# JAX 0.10.2 words both alike: "... while tracing the function f at file.py:3 for jit."
# There the traceback decides: a leaked tracer is used after the traced function returned,
# so no frame of it is running.
TRACED_FUNCTION = (
    r"The error occurred while tracing the function (?P<name>\S+) at (?P<file>\S+?):"
    r"(?P<line>\d+) for "
)

# float(), int() or complex() of a tracer.
_CONVERSION = Wording(
    r"The problem arose with the `(?:int|float|complex)` function",
    "JAX 0.2.0 to 0.12.0.1 (git history)",
    regex=True,
)
_CONCRETE = Wording(
    "Abstract tracer value encountered where concrete value is expected",
    "JAX 0.1.65 to 0.12.0.1 (git history)",
)
_BOOL = Wording(
    "Attempted boolean conversion of",
    "JAX 0.4.14 to 0.12.0.1 (git history)",
)
# Older wordings of bool() on a tracer, as a ConcretizationTypeError.
_BOOL_OLD = (
    Wording("The problem arose with the `bool` function", "JAX 0.2.10 to 0.4.12 (git history)"),
    Wording(
        "Abstract tracer value encountered where concrete value is expected (in `bool`)",
        "JAX 0.1.6x: pasted in jax-ml/jax#2833 (2020)",
    ),
    Wording("Abstract value passed to `bool`", "JAX 0.1.49 and older to 0.1.64 (git history)"),
)
_BOOL_WHEN = r"problem arose with the `bool` function|\(in `bool`\)|Abstract value passed to `bool`"
_INDEX = Wording(
    r"The __index__(?:\(\))? method was called on (?:traced array|the JAX Tracer object)",
    "JAX 0.2.10 to 0.4.12 (on the JAX Tracer object), 0.4.13 to 0.12.0.1 (on traced array)",
    regex=True,
)
# The jax.numpy functions whose result's size depends on the data (without size=): their
# names, as JAX's source and tracebacks have them, and as code and messages call them.
_SIZED_BY_DATA_NAMES = r"nonzero|argwhere|flatnonzero|unique\w{0,20}|compress|extract"
_SIZED_BY_DATA = rf"(?:jnp|jax\.numpy)\.(?:{_SIZED_BY_DATA_NAMES}|where)\b"
_SIZED_BY_DATA_ERROR = Wording(
    rf"(?:size argument of|arose in|arose for the \w+ argument of) {_SIZED_BY_DATA}",
    "JAX 0.2.1 (arose in), 0.2.13 (size argument of), 0.3.14 (arose for the first "
    "argument of) to 0.12.0.1; git history",
    regex=True,
)
_ARRAY_CONVERSION = (
    Wording(
        "The numpy.ndarray conversion method __array__() was called on",
        "JAX 0.1.68 to 0.12.0.1 (git history)",
    ),
    Wording(
        "Tracer can't be used with raw numpy functions",
        "JAX 0.1.49 and older to 0.1.67 (git history)",
    ),
)
# jit given an argument that is not an array, nor a pytree of arrays, and not static.
_NOT_AN_ARRAY = (
    Wording(
        r"Error interpreting argument to .{1,300}? as an abstract array",
        "JAX 0.4.35, 0.10.2, 0.12.0.1 (live); pasted in jax-ml/jax#23860 (2024)",
        regex=True,
    ),
    Wording(
        r"of type <class '[\w.]{1,200}'> is not a valid JAX type",
        "JAX before 0.4.30: pasted in jax-ml/jax#13914 (2023)",
        regex=True,
    ),
)
_SHAPES = Wording(
    "Shapes must be 1D sequences of concrete values of integer type",
    "JAX 0.1.49 and older to 0.12.0.1 (git history)",
)
# The shape JAX quotes after "got" holds no tracer (Traced<...>, JitTracer(...), JaxprTracer):
# a wrong shape, not a traced one.
_SHAPE_WITHOUT_TRACER = r"of integer type, got \((?![^)]{0,200}Trace)"
_NOT_AN_INTEGER = Wording(
    r"'\w*Tracer' object cannot be interpreted as an integer",
    "Python's own TypeError for range() or a size: pasted in jax-ml/jax#1629 (2019)",
    regex=True,
)
# What a traced value given where a Python number is needed raises: a conversion by float(),
# int(), bool() or __index__, or a shape of tracers.
_NEEDS_A_NUMBER = (_CONCRETE, _CONVERSION, _BOOL, *_BOOL_OLD, _INDEX, _NOT_AN_INTEGER, _SHAPES)
_NEEDS_A_NUMBER_ERRORS = (
    "ConcretizationTypeError",
    "TracerBoolConversionError",
    "TracerIntegerConversionError",
    "TypeError",
)
# Where the traceback shows the code that raised (ErrorBlock.raised: "path in function", then
# the line): a function in JAX's or NumPy's own source (its packages, which a folder of one's
# own named jax/ does not have: /home/me/jax/train.py is no JAX source).
_JAX_LIBRARY_PATH = (
    r"(?:^|[/\\])jax[/\\](?:_src|numpy|lax|ops|nn|scipy|image|interpreters|experimental)[/\\]"
)
_NUMPY_LIBRARY_PATH = r"(?:^|[/\\])numpy[/\\](?:core|_core|lib|linalg|fft|random|ma)[/\\]"
_IN_JAX = rf"{_JAX_LIBRARY_PATH}[^\n]{{0,300}} in "
_IN_JAX_OR_NUMPY = rf"(?:{_JAX_LIBRARY_PATH}|{_NUMPY_LIBRARY_PATH})[^\n]{{0,300}} in "
# Or the raising line transforms one of JAX's functions itself, so that every argument of it
# is traced, its settings too: jax.make_jaxpr(jax.lax.integer_pow)(x, 2), jax.jit(jnp.tile).
_JAX_FUNCTION_TRANSFORMED = (
    r"\b(?:jit|make_jaxpr|vmap|grad)\((?:jax\.)?(?:lax|numpy|jnp|nn|ops|random|image)\.\w{1,60}\)"
)
_DYNAMIC_SLICE = r"dynamic_(?:update_)?slice\w{0,20}"
_DONATED_TWICE = Wording(
    "Attempt to donate the same buffer twice",
    "XLA's runtime (PJRT): JAX 0.10.2 (live, a JaxRuntimeError); pasted in "
    "google-deepmind/optax#1059 (2024)",
)
# A setting, not data: the names people give a flag or a size. A traced value by such a name
# in `if`, bool() or int() is an argument that should be static (the static_arguments page's
# `if normalize:`), not data to branch on with lax.cond.
_SETTING_NAME = (
    r"(?:inference|deterministic|train|training|eval|evaluate|normalize|verbose|debug|reverse"
    r"|causal|mode|axis|axes|ndim|size|length|steps|(?:is|use|has|enable|with|return)_\w{1,30}"
    r"|(?:max|num|n)_\w{1,30}|\w{1,30}_(?:size|steps|mode|flag))"
)
# Where a message or a traceback names it: JAX's detail line (0.2.1 on: "depends on the value
# of the argument runner_state[0].dropout.inference.") or the line the traceback shows raising
# (`if inference:`, `if max_steps == 1:`, `while not self.training:`).
_SETTING_TRACED = _any(
    r"depends on the value of the argument [`']?(?:[\w'\"\]]{1,80}[.\[]){0,12}['\"]?"
    rf"{_SETTING_NAME}[`'\"\]]{{0,2}}(?![\w\[])",
    rf"\b(?:if|elif|while) (?:not )?(?:self\.|config\.|cfg\.)?{_SETTING_NAME}"
    r"(?: ?(?:==|!=|<=|>=|<|>|is not|is) ?[\w.'\"-]{1,40})? ?:",
)
_UNEXPECTED = (
    Wording("Encountered an unexpected tracer", "JAX 0.1.60 to 0.12.0.1 (git history)"),
    Wording(
        "Perhaps this tracer escaped through global state", "JAX 0.1.60 to 0.2.18 (git history)"
    ),
    Wording("to escape the scope of the transformation", "JAX 0.3.17 to 0.12.0.1 (git history)"),
    Wording(
        "Encountered unexpected tracer", "JAX 0.1.55 to 0.1.59, an AssertionError (git history)"
    ),
    Wording(
        r"Can't lift (?:sublevels \d+ to \d+|Traced<)",
        "JAX 0.1.49 and older to 0.4.35 (sublevels), to 0.1.59 (Traced); git history",
        regex=True,
    ),
    Wording("Different traces at same level", "JAX 0.1.49 and older to 0.4.35 (git history)"),
    Wording(
        "The tracer that caused this error was created on line", "JAX 0.2.9 to 0.2.18 (git history)"
    ),
    Wording(
        r"The function being traced when the (?:tracer|value) leaked was",
        "JAX 0.2.9 to 0.2.18 (tracer), 0.2.19 to 0.12.0.1 (value); git history",
        regex=True,
    ),
    Wording(
        "The leaked intermediate value was created on line", "JAX 0.2.19 to 0.12.0.1 (git history)"
    ),
    Wording(
        "To catch the leak earlier, try setting the environment variable JAX_CHECK_TRACER_LEAKS",
        "JAX 0.2.9 to 0.12.0.1 (git history)",
    ),
)
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
    "(`count, y = step(count, x)`). jaxpurity.find_leaks(f, x) names the variable that "
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
        wordings=(_CONCRETE, _BOOL, *_BOOL_OLD, _INDEX),
        when=when,
        leaked=True,
        scenario=f"Code called float(), int() or bool() (or `if`) on a value that {where} "
        "had saved outside itself (in a list, a global or an attribute).",
        cause="The value is a tracer left over from a trace that has ended: it has a shape "
        "and a dtype but no value, so it cannot become a Python number. It is not a "
        "setting that needs to be static.",
        fix=fix,
    )


def _unexpected(topic: str, scenario: str, cause: str, fix: str, when: str | None) -> KnownError:
    return KnownError(
        errors=("UnexpectedTracerError",),
        topic=topic,
        wordings=_UNEXPECTED,
        when=when,
        scenario=scenario,
        cause=cause,
        fix=fix,
    )


def _leak_checked(topic: str, what: str, fix: str, when: str | None) -> KnownError:
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


def _number_for_jax(
    when: str | None = None,
    raised_in: str | None = None,
    also: tuple[str, ...] = (),
    also_worded: tuple[Wording, ...] = (),
) -> KnownError:
    """A number needed from a traced value by a function of JAX's (or NumPy's) own.

    ``also`` and ``also_worded`` are more errors, and their wordings, that mean it here.
    """
    return KnownError(
        errors=(*_NEEDS_A_NUMBER_ERRORS, *also),
        topic="static_arguments",
        wordings=(*_NEEDS_A_NUMBER, *also_worded),
        when=when,
        unless=_SHAPE_WITHOUT_TRACER,
        raised_in=raised_in,
        scenario="A jitted function passed a value computed from its arguments to a JAX or "
        "NumPy function that needs a Python number there: a size (num_segments, "
        "num_classes, a shape, a length), an axis, or a count.",
        cause="Under jit every argument is a tracer, with a shape and dtype but no value, and "
        "the function needs the value while tracing, because it decides the result's shape.",
        fix="Mark the argument static (jax.jit(f, static_argnames='n')) so it stays a Python "
        "number, or pass a constant; JAX compiles once for each value it sees.",
    )


def _sized_by_data(when: str | None = None, raised_in: str | None = None) -> KnownError:
    """A number needed from traced data by a jax.numpy function whose result it sizes."""
    return KnownError(
        errors=_NEEDS_A_NUMBER_ERRORS,
        topic="boolean_masks",
        wordings=_NEEDS_A_NUMBER,
        unless=_SHAPE_WITHOUT_TRACER,
        when=when,
        raised_in=raised_in,
        scenario="A jitted function called a jax.numpy function whose result's size depends "
        "on the data (jnp.nonzero, jnp.where(mask), jnp.unique, jnp.compress, jnp.extract, "
        "jnp.argwhere) without size=.",
        cause="The number of results is the number of True (or distinct) entries, which is "
        "unknown while tracing; jit needs every shape fixed in advance, so the function asks "
        "for the traced data's value and fails.",
        fix="Pass a static bound: jnp.nonzero(mask, size=k, fill_value=...) (also "
        "jnp.unique, jnp.compress, jnp.argwhere); or keep the shape fixed with "
        "jnp.where(mask, x, 0) and reductions with where=.",
    )


_HAIKU = r"inside a Haiku transformed function"
_FLAX_MIXED = Wording(
    "Jax transforms and Flax models cannot be mixed", "Flax: pasted in google/flax#2887 (2023)"
)
_NNX_TRACE_LEVEL = Wording(
    r"Cannot (?:mutate|call|update) \w+ from a different trace level",
    "Flax NNX: pasted in google/flax#3997 and #4151 (2024)",
    regex=True,
)

_CALLBACK_VMAP_SCENARIO = (
    "jax.vmap went through a jax.pure_callback without vmap_method=, or through an "
    "ordered jax.experimental.io_callback."
)
_CALLBACK_VMAP_CAUSE = (
    "vmap must know how to batch your Python function: call it once per example, or once "
    "with the whole batch. An ordered io_callback promises one call after another, which a "
    "batch cannot keep."
)
_CALLBACK_VMAP_FIX = (
    "Pass vmap_method='sequential' (one call per example), 'expand_dims' or 'broadcast_all' "
    "(one call with the batch, which the function must handle) to jax.pure_callback; use an "
    "unordered io_callback, or jax.debug.callback, under vmap."
)

_DONATED_SCENARIO = (
    "Code used an array after passing it to a jax.jit function with donate_argnums (or "
    "donate_argnames), or after calling .delete() on it."
)
_DONATED_CAUSE = (
    "Donating an argument gives its memory to the function's outputs: XLA may write the "
    "result there, so JAX marks the argument deleted, and reading it or passing it again "
    "fails."
)
_DONATED_FIX = (
    "Rebind the name to the result (params = step(params, x)) and use only the new value; "
    "take what you need from the old one inside the function or before the call, or leave "
    "that argument out of donate_argnums."
)

KNOWN_ERRORS: tuple[KnownError, ...] = (
    # -- A tracer used after its trace ended, by float(), int(), bool() or `if` ------------
    _leaked_tracer_conversion("memoization_caches", "a cached function", _LEAK_FIX_CACHE, _CACHE),
    _leaked_tracer_conversion(
        "leak_from_loop_body", "a scan, while_loop or fori_loop body", _LEAK_FIX_LOOP, _LOOP
    ),
    _leaked_tracer_conversion(
        "leak_from_grad_vmap", "a function under grad or vmap", _LEAK_FIX_GRAD, _GRAD_VMAP
    ),
    _leaked_tracer_conversion(
        "leak_through_self", "a jitted method", _LEAK_FIX_SELF, _OBJECT_ATTRIBUTE
    ),
    replace(
        _leaked_tracer_conversion("global_counter", "a jitted function", _LEAK_FIX_GLOBAL),
        see_also=_OTHER_LEAKS,
    ),
    # -- Slicing with traced bounds ---------------------------------------------------------
    # Before the leak entries: JAX 0.12 appends where the tracer was made ("This VmapTracer
    # with object id 1407... was created on line"), which the leak checker's wording has too.
    KnownError(
        errors=("IndexError", "TypeError"),
        topic="dynamic_slicing",
        wordings=(
            Wording(
                "Array slice indices must have static start/stop/step",
                "JAX 0.1.49 and older to 0.8.1, and 0.12.0.1 (git history); pasted in "
                "jax-ml/jax#7222, AakashKumarNain/mistral_jax#1",
            ),
            Wording(
                "Slice entries must be static integers",
                "JAX 0.8.2 to 0.11.0 (git history), and 0.10.2",
            ),
        ),
        scenario="A jitted or vmapped function sliced an array with traced bounds, as in "
        "x[i:i + k] or x[:n] with i or n an argument (also x.at[i:i + k].set(...)).",
        cause="A slice's length comes from its start and stop, so with traced bounds its shape "
        "is unknown while tracing, and jit needs every shape fixed; NumPy slicing also "
        "shortens a slice that runs past the end, so even i:i + k has no fixed length.",
        fix="For a window of static size k at a traced start, use "
        "jax.lax.dynamic_slice_in_dim(x, i, k) (or x[jax.ds(i, k)] in JAX 0.9.1+), and "
        "lax.dynamic_update_slice to write; both clamp an out-of-range start. For a traced "
        "length, mask with jnp.where(jnp.arange(len(x)) < n, x, 0), or make n static.",
    ),
    # JAX's message names the function jit traced, and it is one of JAX's own: jax.jit(jnp.tile)
    # traces every argument, the settings too (JAX 0.4.35: "while tracing the function tile at
    # .../jax/_src/numpy/lax_numpy.py:4366 for jit"; JAX 0.6.2 calls the traced exponent of
    # jax.jit(jax.lax.integer_pow) a leak: "The function being traced when the value leaked was
    # integer_pow at .../jax/_src/lax/lax.py:924 traced for jit"). Not JAX's wrappers of a
    # loop's body ("scanned_fun at .../loops.py for scan"), which trace the user's code.
    _number_for_jax(
        when=r"(?:while tracing the function|being traced when the value leaked was) \S{1,200} "
        rf"at \S{{0,300}}?{_JAX_LIBRARY_PATH}\S{{0,300}} (?:traced )?for (?:jit|pjit|make_jaxpr)\b",
        also=("TracerArrayConversionError", "UnexpectedTracerError"),
        also_worded=(*_ARRAY_CONVERSION, *_UNEXPECTED),
    ),
    # -- UnexpectedTracerError: a leaked tracer used later -----------------------------------
    _unexpected(
        "leak_through_self",
        "A JAX transform (jax.jit, jax.vmap, lax.scan, ...) ran inside a Haiku transformed "
        "function, whose modules keep state between calls.",
        "Haiku modules store parameters and state in the hk.transform context; a raw JAX "
        "transform inside it traces that state, and the tracer outlives the transform.",
        "Use Haiku's own transforms inside modules (hk.jit, hk.vmap, hk.scan, hk.remat) "
        "instead of jax.* ones, or move the JAX transform outside hk.transform.",
        _HAIKU,
    ),
    _unexpected(
        "memoization_caches",
        "A cache (functools.lru_cache, a dict) kept a value computed while tracing, and "
        "later code used it.",
        "The cache outlives the trace, so it hands back a tracer that belonged to a trace "
        "that has ended.",
        _LEAK_FIX_CACHE,
        _CACHE,
    ),
    _unexpected(
        "leak_from_loop_body",
        "A scan, while_loop or fori_loop body saved a value outside itself (in a list, a "
        "global or an attribute), and later code used it.",
        "JAX traces a loop body once, with tracers standing in for the carry and the "
        "step's inputs; a tracer stored outside the body outlives that trace and is dead "
        "by the time it is used.",
        _LEAK_FIX_LOOP,
        _LOOP,
    ),
    _unexpected(
        "leak_from_grad_vmap",
        "A function under jax.grad, jax.vjp, jax.jvp or jax.vmap saved an intermediate "
        "value outside itself, and later code used it.",
        "grad and vmap call your function with tracers instead of arrays; one stored in a "
        "global, a list or an attribute outlives the transformation.",
        _LEAK_FIX_GRAD,
        _GRAD_VMAP,
    ),
    _unexpected(
        "leak_through_self",
        "A jitted method stored a value on an object (self.x = ...), and later code used it.",
        "While jit traces a method, its values are tracers; one stored on an object that "
        "outlives the call is dead once the trace has ended.",
        _LEAK_FIX_SELF,
        _any(_OBJECT_ATTRIBUTE, _METHOD_LEAKED),
    ),
    _unexpected(
        "side_effects_across_devices",
        "A function under shard_map or pmap stored a value in a global, a list or an "
        "attribute (one device's block, to look at later), and later code used it.",
        "shard_map and pmap trace the function once for every device, with a tracer "
        "standing for one device's block; a tracer kept outside the function outlives that "
        "trace, and never had one device's value.",
        "Return the value as another output (out_specs=(P('d'), P('d'))), or look at each "
        "device's block while it runs with jax.debug.print or jax.debug.callback.",
        _SHARD_MAP,
    ),
    replace(
        _unexpected(
            "global_counter",
            "A jitted function stored a value in a global, a list or an attribute (a counter, "
            "a cache, self.x), and later code used it.",
            "While jit traces a function its values are tracers; a tracer saved outside the "
            "function outlives the trace, and Python side effects run only once, when the "
            "function is traced.",
            "Make the function pure: pass the state in as an argument and return the new "
            "state (`count, y = step(count, x)`). Wrap the call in `with jax.checking_leaks():` "
            "to be shown the line that leaks.",
            None,
        ),
        see_also=_OTHER_LEAKS,
    ),
    # -- The leak checker (jax.checking_leaks, JAX_CHECK_TRACER_LEAKS) ----------------------
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
    # -- Module state across a transform in Flax -----------------------------------------------
    KnownError(
        errors=("JaxTransformError", "TraceContextError"),
        topic="leak_through_self",
        wordings=(_FLAX_MIXED, _NNX_TRACE_LEVEL),
        scenario="A Flax module (or an NNX object) was used across a raw JAX transform: "
        "jax.jit, jax.vmap or lax.scan around a bound module or its state.",
        cause="Flax objects hold state that belongs to one trace level; touching or "
        "mutating it from inside another trace would leak tracers into the object, so Flax "
        "refuses.",
        fix="Use Flax's lifted transforms (nn.jit, nn.vmap, nn.scan; nnx.jit, nnx.scan) or "
        "call the pure apply function (model.apply(variables, x)) inside the JAX transform.",
    ),
    # -- A traced value where a JAX or NumPy function needs a number: what the function is ----
    # The traceback's raising frame names the function that asked the tracer for its value
    # (JAX 0.10.2: jnp.compress's `if any(...)` raises in compress, jnp.where(mask) in
    # nonzero, segment_sum in _segment_update; pasted in jax-ml/jax#6350, #1629).
    _sized_by_data(raised_in=rf"{_IN_JAX}_?(?:{_SIZED_BY_DATA_NAMES}|where)(?:\n|$)"),
    # Or the text names one (the raising line, or the words around a pasted message).
    _sized_by_data(when=rf"(?:jnp|jax\.numpy)\.(?:{_SIZED_BY_DATA_NAMES})\b"),
    KnownError(
        errors=(*_NEEDS_A_NUMBER_ERRORS, "IndexError"),
        topic="dynamic_slicing",
        wordings=_NEEDS_A_NUMBER,
        unless=_SHAPE_WITHOUT_TRACER,
        raised_in=rf"{_IN_JAX}{_DYNAMIC_SLICE}(?:\n|$)|\b{_DYNAMIC_SLICE}\(",
        scenario="A jitted function called jax.lax.dynamic_slice (or dynamic_slice_in_dim, "
        "dynamic_update_slice) with a slice size computed from its arguments.",
        cause="dynamic_slice takes a traced start but a static size: the size is the result's "
        "shape, which jit must know while tracing.",
        fix="Keep the window's size a Python int (a constant, or a static argument) and let "
        "only the start be traced; for a traced length, slice the largest size and mask the "
        "rest with jnp.where(jnp.arange(k) < n, window, 0).",
    ),
    _number_for_jax(raised_in=_any(_IN_JAX_OR_NUMPY, _JAX_FUNCTION_TRANSFORMED)),
    # -- Python control flow and conversions on tracers -------------------------------------
    # A traced flag or size in `if` or int(): the fix is a static argument, not lax.cond.
    KnownError(
        errors=(
            "TracerBoolConversionError",
            "ConcretizationTypeError",
            "TracerIntegerConversionError",
        ),
        topic="static_arguments",
        wordings=(),
        when=_SETTING_TRACED,
        unless=_SIZED_BY_DATA,
        scenario="A jitted function used a setting it takes as an argument (a flag such as "
        "`inference` or `training`, or a size such as `max_steps`) in `if`, `while`, bool() "
        "or int().",
        cause="Under jit every argument is a tracer, flags and sizes too: it has a shape and "
        "dtype but no value, so Python cannot choose a branch or a size from it.",
        fix="Mark the setting static: jax.jit(f, static_argnames='inference'), or "
        "(Equinox, Flax) keep it in a static field, so that each value compiles its own "
        "program; use jax.lax.cond only when the condition really is data.",
    ),
    KnownError(
        errors=("TracerBoolConversionError",),
        topic="python_control_flow",
        see_also=("static_arguments", "boolean_masks"),
        wordings=(_BOOL,),
        scenario="A jitted function used `if`, `while`, `and`/`or` or `assert` on a value "
        "computed from its arguments.",
        cause="Python needs a real True or False to choose a branch, but under jit the "
        "value is a tracer, which has a shape and dtype but no value yet.",
        fix="Choose values with jnp.where, branches with jax.lax.cond or jax.lax.switch, "
        "and loop with jax.lax.while_loop; if the argument is a setting, not data, mark "
        "it static (static_argnames=...).",
    ),
    KnownError(
        errors=("ConcretizationTypeError",),
        topic="python_control_flow",
        wordings=_BOOL_OLD,
        when=_BOOL_WHEN,
        scenario="A jitted function used `if`, `while`, `and`/`or` or `assert` on a value "
        "computed from its arguments.",
        cause="Python needs a real True or False (the `bool` function) to choose a branch, "
        "but under jit the value is a tracer, which has no value yet.",
        fix="Choose values with jnp.where, branches with jax.lax.cond or jax.lax.switch, "
        "and loop with jax.lax.while_loop; if the argument is a setting, not data, mark "
        "it static (static_argnames=...).",
    ),
    KnownError(
        errors=("TracerIntegerConversionError",),
        topic="python_control_flow",
        see_also=("static_arguments",),
        wordings=(
            _INDEX,
            Wording(
                r"indices must be integers or slices, not \w*Tracer",
                "Python's TypeError for a list indexed with a tracer: pasted in jax-ml/jax#5853",
                regex=True,
            ),
            _NOT_AN_INTEGER,
        ),
        scenario="A jitted function used a traced value as a Python int: a list or tuple "
        "index, range(n), or a size.",
        cause="Python asks the value for an int (`__index__`), but under jit it is a tracer "
        "with no value yet.",
        fix="Index an array instead of a list (jnp.asarray(items)[i]), loop with "
        "jax.lax.fori_loop instead of range(n), or mark the argument static "
        "(static_argnames=...).",
    ),
    KnownError(
        errors=("TracerArrayConversionError",),
        topic="python_control_flow",
        see_also=("static_arguments",),
        wordings=_ARRAY_CONVERSION,
        scenario="A transformed function passed a traced value to NumPy (np.asarray, np.sin, "
        "...) or another library that needs a concrete array.",
        cause="NumPy needs real numbers, and a tracer cannot become a numpy.ndarray while "
        "JAX is tracing.",
        fix="Use jax.numpy instead of numpy inside jit, grad and vmap; run unavoidable host "
        "code through jax.pure_callback, and print with jax.debug.print.",
    ),
    # -- Sizes, shapes and static arguments ---------------------------------------------------
    KnownError(
        errors=("ConcretizationTypeError",),
        topic="boolean_masks",
        wordings=(_SIZED_BY_DATA_ERROR,),
        when=_SIZED_BY_DATA_ERROR.text,
        scenario="A jitted function called jnp.nonzero, jnp.argwhere, jnp.where(mask) or "
        "jnp.unique without size=, or indexed with a boolean mask.",
        cause="The number of results is the number of True entries, which is unknown while "
        "tracing; jit needs every shape fixed in advance.",
        fix="Pass a static bound: jnp.nonzero(mask, size=k, fill_value=...); or keep the "
        "shape fixed with jnp.where(mask, x, 0) and reductions with where=.",
    ),
    KnownError(
        errors=("TypeError",),
        topic="static_arguments",
        see_also=("dynamic_slicing",),
        # Not a shape that names no tracer ("got ((1000,), (1000, 1000))": a malformed shape,
        # pasted in jax-ml/jax#14199).
        unless=_SHAPE_WITHOUT_TRACER,
        wordings=(
            _SHAPES,
            Wording(
                r"parameters to jaxpr equations must have __hash__ and __eq__ methods\. In a call "
                r"to primitive \w{1,60}, the value of parameter \w{1,60} was not hashable: "
                r".{0,80}?Tracer",
                "JAX 0.10.2 and 0.12.0.1 (live: jax.jit(jax.lax.integer_pow)(x, 2))",
                regex=True,
            ),
            Wording(
                r"Unexpected type of axis argument: <class '[\w.]*Tracer'>",
                "JAX 0.1.49 and older to 0.2.8 (git history)",
                regex=True,
            ),
        ),
        scenario="A jitted function built an array whose shape (or axis) comes from an "
        "argument, such as jnp.zeros(n).",
        cause="jit compiles for fixed shapes, but the size is a traced argument whose value "
        "is unknown while tracing.",
        fix="Mark the size argument static: jax.jit(f, static_argnames='n'), so each new "
        "size compiles once; or pass an array of the right shape instead.",
    ),
    KnownError(
        errors=("TypeError",),
        topic="static_arguments",
        wordings=(
            Wording(
                r"unhashable type: '\w{0,40}Tracer'",
                "Python's TypeError for a tracer hashed: JAX 0.1.x static arguments of JAX's own "
                "jitted functions (random.randint's shape), pasted in jax-ml/jax#648 (2019); "
                "functools.lru_cache or a dict key in jit, JAX 0.10.2 (live)",
                regex=True,
            ),
        ),
        scenario="A jitted function passed a traced value where Python needs a hashable one: "
        "a static argument (a shape or size given to a function that jits with "
        "static_argnums), a dict key, or an argument of a functools.lru_cache function.",
        cause="A tracer cannot be hashed: it stands for any value of its shape and dtype, so "
        "it cannot pick a compiled program, a dict entry or a cache entry.",
        fix="Mark the argument static (jax.jit(f, static_argnames='n')) so it stays a Python "
        "value; key dicts and caches by Python values (shapes, settings), never by traced "
        "arrays.",
    ),
    # A setting jit cannot trace (a string, a function) passed as an ordinary argument wants
    # static_argnames. A function may be a jitted one (jnp.sin is a PjitFunction), a NumPy
    # ufunc, a partial, a builtin or a bound method (JAX 0.4.35 and 0.12.0.1, live). Not an
    # object of another class: that message comes as often from one handed to jax.numpy (a
    # library's variable class unwrapped: keras-team/keras#19186).
    KnownError(
        errors=("TypeError",),
        topic="static_arguments",
        wordings=_NOT_AN_ARRAY,
        when=r"of type <class '(?:str|int|float|bool|complex|NoneType|function|type|slice|method"
        r"|builtin_function_or_method|functools\.partial|numpy\.ufunc|jaxlib\.[\w.]{1,40}"
        r"\.PjitFunction)'>",
        scenario="A jitted function was called with an argument jit cannot trace, such as a "
        "string ('add', 'relu'), and it was not marked static.",
        cause="jit traces every argument not marked static as an array; a string or a function "
        "has no array form, so jit cannot make a tracer for it.",
        fix="Mark it static: jax.jit(f, static_argnames='mode'), so each value compiles its "
        "own program; pass numbers as arrays only when they are data.",
    ),
    KnownError(
        errors=("ValueError",),
        topic="static_objects",
        wordings=(
            Wording(
                "Non-hashable static arguments are not supported",
                "JAX 0.2.6 to 0.12.0.1 (git history); pasted in jax-ml/jax#7561, "
                "genjax-community/genjax#1179",
            ),
            Wording(
                r"Static argument \(index \d+\) of type [^\n]{0,80}? is non-hashable",
                "JAX 0.2.5, a warning; 0.2.6 on, in the error (git history)",
                regex=True,
            ),
        ),
        scenario="A value passed as a static argument of jit (static_argnums or "
        "static_argnames) cannot be hashed: a list, a dict, an array, or an object such as a "
        "plain @dataclass (whose __hash__ is None) or one holding a list.",
        cause="jit looks static arguments up in its compile cache by hash and equality, so "
        "each must be hashable, and equal values must mean the same program; a static object "
        "changed after a call is not seen (jit runs the program of its old value).",
        fix="Pass an immutable, value-hashed object: a tuple instead of a list or dict, a "
        "@dataclass(frozen=True) or NamedTuple instead of a config class. Pass arrays and "
        "numbers as ordinary traced arguments, or make the object a pytree "
        "(jaxpurity.dataclass, with static_field for the settings that choose code).",
    ),
    KnownError(
        errors=("ValueError",),
        topic="static_objects",
        wordings=(
            Wording(
                "static arguments should be comparable using __eq__",
                "JAX 0.4.35, 0.6.2, 0.10.2 and 0.12.0.1 (live: a static dataclass with a NumPy "
                "array field, called twice); pasted in jax-ml/jax#9290 (2022)",
            ),
        ),
        scenario="jit compared a static argument with the one it cached (on a later call) and "
        "the comparison raised: an object whose __eq__ compares an array field "
        "('The truth value of an array with more than one element is ambiguous'), or one "
        "that cannot be compared with the other's type.",
        cause="jit finds a compiled program by the static arguments' hash and then ==, which "
        "must return one bool; a dataclass's generated __eq__ compares its fields as a tuple, "
        "and an array field makes that comparison an array.",
        fix="Keep arrays out of static arguments: pass them as ordinary traced arguments (or "
        "make the object a pytree, with jaxpurity.dataclass, whose array fields are leaves); "
        "give a static object fields that compare as one bool (numbers, strings, tuples).",
    ),
    KnownError(
        errors=("NonConcreteBooleanIndexError",),
        topic="boolean_masks",
        wordings=(
            Wording(
                "Array boolean indices must be concrete", "JAX 0.1.76 to 0.12.0.1 (git history)"
            ),
            Wording("Array boolean indices must be static", "JAX 0.1.49 and older to 0.1.75 (git)"),
        ),
        scenario="A jitted function indexed an array with a boolean mask, as in x[x > 0].",
        cause="The result's length is the number of True entries, which is unknown while "
        "tracing; jit needs every shape fixed in advance.",
        fix="Keep the shape fixed: jnp.where(mask, x, 0), reductions with where= "
        "(jnp.sum(x, where=mask)), or jnp.nonzero(mask, size=k, fill_value=...) with a "
        "static bound k.",
    ),
    # float() of a grad or vmap tracer: JAX 0.4.35 and 0.10.2 name no traced function (that
    # line is jit's, and "While tracing the function ..." was jit's from 0.2.0 to 0.3.15),
    # whether the tracer is live or was logged and used after grad returned.
    KnownError(
        errors=("ConcretizationTypeError",),
        topic="leak_from_grad_vmap",
        see_also=("static_arguments",),
        wordings=(_CONVERSION,),
        when=_CONVERSION.text,
        unless=r"The error occurred while tracing the function|While tracing the function",
        scenario="Code called float(), int() or complex() on a value computed under jax.grad "
        "or jax.vmap: inside the function, or later, on a value it saved (a logged loss).",
        cause="Under grad and vmap every value computed from the arguments is a tracer, and "
        "one saved outside the function stays a tracer after the transformation returns: it "
        "has a shape and a dtype but no value to convert.",
        fix=f"{_LEAK_FIX_GRAD} To print a value inside the function, use jax.debug.print.",
    ),
    # The catch-all of the concretization family, after the errors whose messages carry the
    # same detail lines ("This concrete value was not available in Python ...").
    KnownError(
        errors=("ConcretizationTypeError",),
        topic="static_arguments",
        see_also=("python_control_flow", "boolean_masks", "dynamic_slicing"),
        wordings=(
            _CONCRETE,
            Wording(
                "which requires a concrete value", "JAX 0.1.49 and older to 0.1.64 (git history)"
            ),
            Wording(
                "JAX Tracer object cannot be interpreted as a float", "JAX 0.1.63 to 0.1.77 (git)"
            ),
            _CONVERSION,
            Wording(
                "concrete value was not available in Python because it depends on",
                "JAX 0.2.1 to 0.12.0.1 (git history)",
            ),
            Wording(
                "value became a tracer due to JAX operations on these lines",
                "JAX 0.2.0 to 0.12.0.1 (git history)",
            ),
            Wording(
                "try using `static_argnums` or applying `jit` to smaller subfunctions",
                "JAX 0.1.58 to 0.12.0.1 (git history)",
            ),
        ),
        scenario="A jitted function needed a concrete Python value (a size for jnp.arange, "
        "a float() or int()) from a traced argument.",
        cause="Under jit, arguments are tracers: JAX knows their shape and dtype but not "
        "their value, so anything needed while tracing cannot depend on them.",
        fix="Mark the argument static (jax.jit(f, static_argnames=...)) when it is a "
        "setting such as a size, or rewrite so that only shapes, not values, decide what "
        "the code does.",
    ),
    # A loop body that consumes a key from outside the loop, or carries one without a fresh
    # key in its place: the checker's rules for scan (fori_loop) and while_loop.
    KnownError(
        errors=("KeyReuseError",),
        topic="keys_in_vmap_and_scan",
        wordings=(
            Wording(
                r"(?:scan|while_loop) (?:body|cond) function leads to key reuse",
                "JAX 0.4.22 to 0.12.0.1 (git history)",
                regex=True,
            ),
            Wording(
                "because key constants are repeatedly consumed",
                "JAX 0.4.24 to 0.12.0.1 (git history)",
            ),
            Wording(
                "because consumed inputs don't match sourced outputs",
                "JAX 0.4.24 to 0.12.0.1 (git history)",
            ),
        ),
        when=r"(?:scan|while_loop) (?:body|cond) function leads to key reuse",
        scenario="With key-reuse checking on, the body of a lax.scan, fori_loop or "
        "while_loop drew random numbers from a key it closed over, or carried a key without "
        "returning a fresh one.",
        cause="A loop body is traced once and runs at every step: a key from outside the loop, "
        "or a carried key that comes back unchanged, gives the same numbers at every step.",
        fix="Carry the key and split it in the body (`key, sub = jax.random.split(key)`, "
        "return the new key), or pass jax.random.split(key, n) as the scan's xs, or use "
        "jax.random.fold_in(key, i) with the step number.",
    ),
    # -- Gradients: nan from jax_debug_nans, and reverse mode through loops --------------------
    KnownError(
        errors=("FloatingPointError",),
        topic="nan_gradients",
        wordings=(
            Wording(
                r"invalid value \((?:nan|inf)\) encountered in",
                "nan: JAX 0.1.49 and older to 0.12.0.1; inf (jax_debug_infs): 0.2.9 to 0.12.0.1 "
                "(git history); pasted in jax-ml/jax#7440, #22291, #25701",
                regex=True,
            ),
            Wording(
                "However, the de-optimized function did not produce invalid values",
                "JAX 0.3.7 to 0.12.0.1 (git history); on 0.4.35 and other releases before 0.5.1 "
                "also for a nan made op by op (jax-ml/jax#24955)",
            ),
        ),
        scenario="With jax_debug_nans on (jax.debug_nans(True), "
        "jax.config.update('jax_debug_nans', True) or JAX_DEBUG_NANS=True), an operation "
        "made a nan (or, with jax_debug_infs, an inf), in the forward pass or in the "
        "backward pass of jax.grad.",
        cause="The message names the first operation whose output was nan, and the "
        "traceback ends at the line of your code it came from. Under grad the usual source "
        "is a jnp.where or a mask that hides a bad input from the value but not from the "
        "gradient: both sides are differentiated, and 0 times the discarded side's infinite "
        "derivative is nan (sqrt or log at 0, the norm of a zero vector, x / 0).",
        fix="Keep bad inputs away from the unsafe function with a second where: "
        "jnp.where(ok, jnp.sqrt(jnp.where(ok, x, 1.0)), 0.0), and the same for log, "
        "division and norms. Where the message says the de-optimized function made no "
        "invalid values, run the step without jit (jax.disable_jit()) to find the operation; "
        "before JAX 0.5.1 that paragraph is printed even when the nan is real.",
    ),
    KnownError(
        errors=("ValueError", "NotImplementedError"),
        topic="differentiating_loops",
        wordings=(
            Wording(
                "Reverse-mode differentiation does not work for lax.while_loop",
                "JAX 0.1.64 to 0.12.0.1: '... lax.while_loop. Try using lax.scan, or "
                "lax.fori_loop with constant bounds.' to 0.1.66, '... or lax.fori_loop. Try using "
                "lax.scan instead.' 0.1.67 to 0.4.11, '... with dynamic start/stop values.' 0.4.12 "
                "on (git history); pasted in jax-ml/jax#4106, google-deepmind/mujoco#1207",
            ),
            Wording(
                "Forward-mode differentiation rule for 'while' not implemented",
                "JAX 0.1.57 and older, before while_loop had a JVP (git history): pasted in "
                "jax-ml/jax#1954 (2020)",
            ),
        ),
        scenario="jax.grad (or vjp, or value_and_grad) went through a lax.while_loop, or a "
        "lax.fori_loop whose start or stop is traced (an argument under jit, or a value "
        "computed from one).",
        cause="Reverse mode stores every step's intermediate values and walks back through "
        "them; a loop whose trip count is known only when it runs gives it no fixed-size "
        "place to store them, so JAX refuses. Forward mode (jax.jvp, jax.jacfwd) works.",
        fix="Give the loop a bound known while tracing: fori_loop with Python-int start and "
        "stop (it becomes a scan), or lax.scan over a static maximum number of steps with a "
        "mask (jnp.where(i < n, step(x), x)); use jax.checkpoint on the body if the stored "
        "steps take too much memory.",
    ),
    KnownError(
        errors=("KeyReuseError",),
        topic="frozen_randomness",
        wordings=(
            Wording("Previously-consumed key passed to", "JAX 0.4.26 to 0.12.0.1 (git history)"),
            Wording(
                r"argument \d+ is already consumed", "JAX 0.4.26 to 0.12.0.1 (git)", regex=True
            ),
            Wording("leads to key reuse when repeatedly executed", "JAX 0.4.22 to 0.12.0.1 (git)"),
        ),
        scenario="With key-reuse checking on (jax.debug_key_reuse(True) or the "
        "jax_debug_key_reuse config), a PRNG key was used twice.",
        cause="JAX random numbers are a pure function of the key: reusing a key, also "
        "across the steps of a loop, repeats the same 'random' numbers.",
        fix="Split before every use: `key, sub = jax.random.split(key)`, draw with sub and "
        "keep key for later; in loops carry the key and split it every step.",
    ),
    KnownError(
        errors=("ValueError",),
        topic="side_effects_across_devices",
        wordings=(
            Wording(
                "The following ordered effects are not supported for more than 1 device",
                "JAX 0.4.16 to 0.12.0.1 (git history)",
            ),
            Wording(
                "Ordered effects are not supported for more than 1 device",
                "JAX 0.3.17 to 0.4.15 (git history)",
            ),
            Wording(
                r"Ordered effects not supported (?:in `pmap`|in mesh computations)",
                "JAX 0.3.16 and older (git history)",
                regex=True,
            ),
        ),
        scenario="A function run on several devices (shard_map, pmap, or jit over sharded "
        "inputs) used jax.debug.print(..., ordered=True) or another ordered effect.",
        cause="An ordered effect must happen in one sequence, but each device runs the "
        "program on its own, and no single order exists across devices.",
        fix="Drop ordered=True and tell the lines apart instead (print "
        "jax.lax.axis_index('d') with the value, then sort), or return the values and "
        "print them after the call.",
    ),
    # -- Errors a compiled program cannot raise, made errors by checkify ------------------
    # checkify's Error.throw() raises JaxRuntimeError (a ValueError before 0.4.0), which is
    # not jax.errors.JaxRuntimeError, XLA's run-time error (out of memory, ...): only its
    # wordings are claimed. People paste the name of the error class that checkify keeps.
    KnownError(
        errors=(
            "JaxRuntimeError",
            "OOBError",
            "NaNError",
            "DivisionByZeroError",
            "FailedCheckError",
            "ValueError",
        ),
        topic="runtime_errors",
        wordings=(
            Wording(
                r"out-of-bounds indexing (?:for array of shape|at |while updating at )",
                "JAX 0.2.26 to 0.3.25 (at ..., while updating at ...), 0.4.0 to 0.12.0.1 (for "
                "array of shape); git history",
                regex=True,
            ),
            Wording("nan generated by primitive", "JAX 0.2.26 to 0.12.0.1 (git history)"),
            Wording(
                r"\(`check` failed\)|`check` failed at:|\(check failed at ",
                "JAX 0.3.0 to 0.4.8 (check failed at), 0.4.9 to 0.4.13 (`check` failed at:), "
                "0.4.14 to 0.12.0.1 ((`check` failed)); git history",
                regex=True,
            ),
            Wording(
                r"divided by zero at \S+:\d+ \(",
                "JAX 0.2.27 to 0.3.17: pasted in jax-ml/jax#11669 (2022)",
                regex=True,
            ),
        ),
        when=r"out-of-bounds indexing|nan generated by primitive|`check` failed|\(check failed "
        r"at |divided by zero at |(?:JaxRuntimeError|DivisionByZeroError): division by zero",
        scenario="checkify (jax.experimental.checkify) found an index out of bounds, a NaN, a "
        "division by zero or a failed checkify.check, and err.throw() raised it.",
        cause="A compiled program cannot raise: without checkify an index out of range is "
        "clamped (a read) or dropped (a write), and a NaN flows on silently. checkify adds the "
        "checks to the program and returns their result as a value, which throw() raises "
        "after the program ran.",
        fix="Fix the value the message names: clamp or validate indices before indexing "
        "(jnp.clip, or .at[i].get(mode='fill', fill_value=...) where out of range is "
        "expected), and keep inputs of log, sqrt and division in their domain. The message "
        "'at mapped index i' names the failing element of a vmap.",
    ),
    KnownError(
        errors=("ValueError",),
        topic="runtime_errors",
        wordings=(
            Wording(
                "Cannot abstractly evaluate a checkify.check",
                "JAX 0.3.2 to 0.12.0.1 (git history); pasted in jax-ml/jax#23867 (2024)",
            ),
        ),
        scenario="A function that calls checkify.check was run under jit (or scan, vmap, "
        "remat...) without checkify.checkify around it.",
        cause="checkify.check has no meaning inside a compiled program on its own: only "
        "checkify.checkify turns the check into an error value that leaves the program.",
        fix="Wrap the function: err, out = checkify.checkify(f)(x) (or "
        "jax.jit(checkify.checkify(f))), then err.throw() outside jit; use "
        "checkify.debug_check for a check that may be dropped when not checkified.",
    ),
    # -- Compiling again on every call -------------------------------------------------------
    KnownError(
        errors=("RuntimeError",),
        topic="retracing_storms",
        wordings=(
            Wording(
                "but 'no_tracing' is set",
                "JAX 0.4.32 to 0.12.0.1 (git history); pasted in jax-ml/jax#39302 (2026)",
            ),
        ),
        scenario="A call inside jax.no_tracing(True) (the jax_no_tracing config) needed a new "
        "trace: jit had not seen the function, or the arguments' types, before.",
        cause="jit reuses a compiled program only for the same function object and the same "
        "argument types (shape, dtype, weak type, static values); a jit or partial created in "
        "a loop, or an argument whose type changes, traces and compiles again.",
        fix="jit once, outside the loop; pass changing values as arguments, each with the "
        "same type every call (a Python float or a jnp.float32, not both), and pad inputs to a "
        "few fixed shapes; create arrays before entering the no_tracing block.",
    ),
    KnownError(
        errors=("AssertionError", "RuntimeError"),
        topic="retracing_storms",
        wordings=(
            Wording(
                r"Function '\w{1,200}' is traced > \d+ times!",
                "chex.assert_max_traces (chex's source); pasted in google-deepmind/chex#176",
                regex=True,
            ),
            Wording(
                r"can only be traced \d+ times\. However, it is has now been traced",
                "equinox.debug.assert_max_traces: pasted in patrick-kidger/equinox#817 (2024)",
                regex=True,
            ),
        ),
        scenario="A limit on the number of traces (chex.assert_max_traces or "
        "equinox.debug.assert_max_traces) failed: a jitted function was traced again.",
        cause="jit reuses a compiled program only for the same function object and the same "
        "argument types (shape, dtype, weak type, static values); a jit or partial created in "
        "a loop, or an argument whose type changes, traces and compiles again.",
        fix="jit once, outside the loop, and keep each argument's shape, dtype and weak type "
        "the same from call to call (a Python float or a jnp.float32, not both); turn on "
        "jax_explain_cache_misses to be told which argument changed.",
    ),
    KnownError(
        errors=("RetraceError",),
        topic="retracing_storms",
        wordings=(
            Wording("no argument changed: JAX traced again for another reason", "jaxpurity 0.1"),
        ),
        when=r"no argument changed: JAX traced again",
        scenario="A function wrapped in jaxpurity.count_traces(max_traces=...) was traced "
        "again with the same argument types: a new function object (a lambda or partial made in "
        "a loop) jitted on each call.",
        cause="jit's cache is keyed by the function object: jax.jit(...) or a partial or "
        "lambda created anew on every call misses the cache every time, however alike.",
        fix="Create the jitted function once (at module level, or before the loop) and call "
        "that, passing what changes as arguments.",
    ),
    KnownError(
        errors=(),
        topic="retracing_storms",
        wordings=(
            Wording(
                r"Finished tracing (?:\+ transforming )?\S{1,200} for (?:jit|pjit|pmap) in",
                "jax_log_compiles's log: 'Finished tracing + transforming f for pjit in' pasted "
                "in PlasmaControl/DESC#1191 (2024); 'Finished tracing f for jit in', JAX 0.10.2 "
                "(live)",
                regex=True,
            ),
            Wording(
                r"Compiling \S{1,200} with global shapes and types",
                "jax_log_compiles's log: pasted in PlasmaControl/DESC#1191 (2024); "
                "'Compiling jit(f) with global shapes and types', JAX 0.10.2 (live)",
                regex=True,
            ),
        ),
        no_error=True,
        scenario="JAX logged that it traced and compiled a jitted function (jax_log_compiles), "
        "as it does on a call that misses jit's cache.",
        cause="Every such line is a new trace and compilation: logged again and again for one "
        "function, it means the cache misses, usually because the function is a new object on "
        "each call (jitted, or a lambda or partial made, inside a loop) or its arguments' "
        "shapes, dtypes or static values keep changing.",
        fix="jit once, outside the loop; keep each argument's shape, dtype and weak type the "
        "same from call to call; turn on jax_explain_cache_misses to see what changed.",
    ),
    KnownError(
        errors=(),
        topic="retracing_storms",
        wordings=(
            Wording(
                "TRACING CACHE MISS at",
                "jax_explain_cache_misses's log: JAX 0.4.24 to 0.12.0.1 (git history); pasted "
                "in jax-ml/jax#22281 (2024)",
            ),
        ),
        no_error=True,
        scenario="JAX logged why a jitted call traced again (jax_explain_cache_misses).",
        cause="jit traced and compiled anew: a function it never saw (often one re-defined in "
        "a loop: 'seen another function defined on the same line'), or new argument types; "
        "the log names the argument and the change.",
        fix="jit once, outside the loop; keep each argument's shape, dtype and weak type the "
        "same from call to call, and static arguments to a few values.",
    ),
    # -- Callbacks: jax.pure_callback, jax.experimental.io_callback -----------------------------
    KnownError(
        errors=("ValueError", "NotImplementedError"),
        topic="callbacks",
        wordings=(
            Wording("Pure callbacks do not support JVP", "JAX 0.3.17 to 0.12.0.1 (git history)"),
            Wording("IO callbacks do not support JVP", "JAX 0.4.2 to 0.12.0.1 (git history)"),
            Wording(
                r"(?:JVP rule is|differentiation rules are) implemented only for id_tap, not "
                r"for call",
                "jax.experimental.host_callback.call, pure_callback's forerunner: JAX 0.2.9 to "
                "0.4.34 (git history); pasted in PennyLaneAI/pennylane#2163 (2022)",
                regex=True,
            ),
            Wording(
                r"(?:Pure|IO) callbacks do not support transpose",
                "JAX 0.3.17 (Pure), 0.4.2 (IO) to 0.12.0.1 (git history); pasted in "
                "jax-ml/jax#30401 (2025)",
                regex=True,
            ),
        ),
        scenario="jax.grad (or jvp, vjp) went through a jax.pure_callback or a "
        "jax.experimental.io_callback.",
        cause="JAX differentiates each operation it knows; a callback runs Python code it "
        "cannot see into, so it has no derivative rule.",
        fix="Give the callback a derivative with jax.custom_jvp (or jax.custom_vjp), "
        "computing the tangent with JAX or another callback; for a callback kept only for "
        "its side effect (logging), use jax.debug.callback, which grad goes through.",
    ),
    KnownError(
        errors=("NotImplementedError",),
        topic="callbacks",
        wordings=(
            Wording(
                r"vmap is only supported for the \w+ primitive when vmap_method is one of",
                "JAX 0.4.35 (for an unknown vmap_method) to 0.12.0.1; with none given, from "
                "0.6.0 (git history)",
                regex=True,
            ),
            Wording(
                r"IO effect not supported in vmap-of-(?:while|cond)",
                "JAX 0.4.2 to 0.12.0.1 (git history); pasted in jax-ml/jax#20628 (2024)",
                regex=True,
            ),
        ),
        scenario=_CALLBACK_VMAP_SCENARIO,
        cause=_CALLBACK_VMAP_CAUSE,
        fix=_CALLBACK_VMAP_FIX,
    ),
    KnownError(
        errors=("ValueError",),
        topic="callbacks",
        wordings=(
            Wording("Cannot `vmap` ordered IO callback", "JAX 0.4.2 to 0.12.0.1 (git history)"),
            Wording(
                "batching rules are implemented only for id_tap, not for call",
                "jax.experimental.host_callback.call under vmap: JAX 0.2.9 to 0.4.34 (git history)",
            ),
            Wording(
                "argument of jax.pure_callback was removed in JAX v0.6.0",
                "vectorized=: JAX 0.6.0 to 0.9.x (git history)",
            ),
        ),
        scenario=_CALLBACK_VMAP_SCENARIO,
        cause=_CALLBACK_VMAP_CAUSE,
        fix=_CALLBACK_VMAP_FIX,
    ),
    # -- Donated buffers (donate_argnums) -----------------------------------------------------
    KnownError(
        errors=("RuntimeError",),
        topic="buffer_donation",
        wordings=(
            Wording(
                r"\b(?:(?:Sharded|Global)?Device(?:Array|Value)|Array) has been deleted\b",
                "DeviceValue has been deleted.: JAX 0.1.49 to 0.1.75; DeviceArray ...: 0.1.76 to "
                "0.4.8 (a ValueError before 0.2.6); Array has been deleted.: 0.4.1 to 0.4.14; "
                "... with shape=float32[4].: 0.4.15 to 0.12.0.1 (git history); "
                "pasted in jax-ml/jax#16906 (2023)",
                regex=True,
            ),
            Wording(
                r"\w+\(\) called on (?:deleted or donated|invalid) buffer",
                "XLA's runtime reading a deleted array: BlockHostUntilReady() ... deleted or "
                "donated, JAX 0.4.35 to 0.12.0.1 (live); CopyToHostAsync() ... invalid, pasted "
                "in jax-ml/jax#3412 (2020)",
                regex=True,
            ),
        ),
        scenario=_DONATED_SCENARIO,
        cause=_DONATED_CAUSE,
        fix=_DONATED_FIX,
    ),
    KnownError(
        errors=("ValueError",),
        topic="buffer_donation",
        wordings=(
            Wording(
                r"[Bb]uffer has been deleted or donated",
                "XLA's runtime, for a deleted array passed to a jitted function: JAX 0.4.35 to "
                "0.10.2 (live); pasted in jax-ml/jax#9675 (JAX 0.5.2)",
                regex=True,
            ),
            Wording(
                "Donation requested for invalid buffer",
                "XLA's runtime, before 2023: pasted in jax-ml/jax#9237 and #12514 (2022)",
            ),
        ),
        scenario=_DONATED_SCENARIO,
        cause=_DONATED_CAUSE,
        fix=_DONATED_FIX,
    ),
    KnownError(
        errors=("JaxRuntimeError", "XlaRuntimeError", "ValueError"),
        topic="buffer_donation",
        wordings=(_DONATED_TWICE,),
        when=_DONATED_TWICE.text,  # of XLA's runtime errors, only this one
        scenario="A jitted function with donate_argnums was given one array twice among its "
        "donated arguments: the same array passed twice, or two leaves of a donated pytree "
        "that are one array (an optimizer state that holds the params themselves).",
        cause="Donating hands a buffer over to one output; XLA cannot hand the same buffer "
        "over twice, so it refuses to run the program.",
        fix="Pass distinct arrays: copy the one that is shared (jnp.copy(params) where the "
        "state is built), or donate only one of the two arguments.",
    ),
    KnownError(
        errors=("UserWarning",),
        topic="buffer_donation",
        wordings=(
            Wording(
                "Some donated buffers were not usable",
                "JAX 0.1.69 to 0.12.0.1 (git history); pasted in jax-ml/jax#9237 and #11036 (2022)",
            ),
            Wording(
                r"faq\.html#buffer-donation",
                "the warning's link (See an explanation at .../faq.html#buffer-donation), "
                "on jax.readthedocs.io and docs.jax.dev; pasted reworded with it in "
                "sgl-project/sglang-jax#230 (2025)",
                regex=True,
            ),
        ),
        scenario="A jax.jit function with donate_argnums was compiled, and JAX warned that "
        "it could not use some donated arguments.",
        cause="A donated buffer can only hold an output of the same size (before JAX 0.8.0: "
        "the same shape and dtype), and an argument the function does not use is dropped "
        "first; so nothing was reused, and the memory was not saved. Before jaxlib 0.3.24 "
        "the CPU backend could not donate at all ('Donation is not implemented for cpu').",
        fix="Donate only arguments that have an output of the same shape and dtype (the "
        "new params, the new optimizer state), return the updated value, and check with "
        "x.is_deleted() after the call.",
    ),
    # -- jaxpurity's own errors: routed by the first line, which names the API -----------
    KnownError(
        errors=("TypeMismatchError",),
        topic="cond_branch_types",
        wordings=(),
        when=r"(?:^|TypeMismatchError: )[^:]*\b(?:cond|switch|branch|branches)\b",
        scenario="jaxpurity's cond or switch found branches that return different types.",
        cause="cond and switch have one output, so every branch must return the same pytree "
        "with the same shape and dtype at each leaf; the message lists each leaf that "
        "differs, by its path.",
        fix="Follow the message's 'How to fix' line for each leaf: usually cast with "
        ".astype(...), or build placeholders with jnp.zeros_like.",
    ),
    KnownError(
        errors=("TypeMismatchError",),
        topic="loop_carry_types",
        wordings=(),
        when=r"(?:^|TypeMismatchError: )[^:]*\b(?:scan|fori_loop|while_loop|carry|state|init_val|"
        r"Stateful)\b",
        scenario="A loop body or a Stateful step returned a carry (state) of another type "
        "than the one it was given; jaxpurity checked it.",
        cause="The carry feeds the next step, so its pytree structure, shapes and dtypes must "
        "stay the same (under jit, a state that changes type would also recompile on every "
        "call); the message lists each leaf that changed.",
        fix="Follow the message's 'How to fix' line for each leaf: give the initial value "
        "its final dtype (jnp.zeros((), jnp.float32), not 0), and accumulate in a dtype wide "
        "enough for the sum before casting the result.",
    ),
    KnownError(
        errors=("RetraceError",),
        topic="static_arguments",
        wordings=(
            Wording(r"was traced \d+ times, more than max_traces=\d+", "jaxpurity 0.1", regex=True),
        ),
        scenario="A function wrapped in jaxpurity.count_traces(max_traces=...) was traced "
        "more times than allowed.",
        cause="jit traces and compiles again whenever an argument's shape, dtype or weak type "
        "changes, a static argument takes a new value, or a new object is passed as a static "
        "argument; the message names each argument that changed.",
        fix="Follow the message's 'To avoid the retrace' line: keep shapes and dtypes fixed "
        "(pad or bucket), pass arrays rather than Python scalars, and keep static arguments "
        "to a few values (a number that is data can be passed as an array instead; a size "
        "or an axis must stay static).",
    ),
    # -- Branch and carry types of lax's control flow --------------------------------------------
    KnownError(
        errors=("TypeError",),
        topic="cond_branch_types",
        wordings=(
            Wording(
                r"true_fun and false_fun outputs? must have (?:identical|same) t",
                "JAX 0.1.49 and older (outputs), 0.1.55 to 0.4.38 (output); git history",
                regex=True,
            ),
            Wording(
                r"true_fun output (?:and false_fun output )?must have (?:identical types|same "
                r"type structure)",
                "JAX 0.5.0 to 0.5.3 (git history)",
                regex=True,
            ),
            Wording(
                r"branch \d+ (?:and \d+ outputs|output(?: and branch \d+ output)?) must have "
                r"(?:identical types|same type structure)",
                "switch: 0.1.70 to 0.4.38 (branch 0 and 1 outputs), 0.5.0 to 0.5.3; git history",
                regex=True,
            ),
            Wording(
                r"\b(?:cond|switch) branches must have equal output types",
                "JAX 0.6.0 to 0.12.0.1 (git history)",
                regex=True,
            ),
            Wording(
                r"\b(?:cond|switch) branch outputs must have the same pytree structure",
                "JAX 0.6.0 to 0.12.0.1 (git history)",
                regex=True,
            ),
            Wording(
                r"but the corresponding output of (?:false_fun|branch \d+) has type",
                "the detail lines: JAX 0.6.0 to 0.12.0.1 (git history)",
                regex=True,
            ),
        ),
        scenario="jax.lax.cond or jax.lax.switch was given branches that return different types.",
        cause="cond and switch have one output, so every branch must return the same pytree "
        "with the same shape and dtype at each leaf: 0 and 0.0, or a float and an int32 "
        "array, do not match.",
        fix="Make every branch return the same structure and dtypes: cast with .astype(...), "
        "write the dtype explicitly (jnp.zeros((), jnp.float32)) rather than a bare 0, and "
        "build placeholders with jnp.zeros_like.",
    ),
    KnownError(
        errors=("TypeError", "RuntimeError"),
        topic="loop_carry_types",
        wordings=(
            Wording(
                r"body_fun output and input must have (?:identical types|same type structure)",
                "while_loop, fori_loop: JAX 0.1.55 to 0.4.31 (git history)",
                regex=True,
            ),
            Wording(
                r"scan carry output and input must have (?:identical types|same type structure)",
                "scan: JAX 0.1.49 and older to 0.4.6 (git history)",
                regex=True,
            ),
            Wording(
                r"carry input and carry output must have (?:equal types|the same pytree structure)",
                "scan, while_loop, fori_loop: JAX 0.4.7 to 0.12.0.1 (git history)",
                regex=True,
            ),
            Wording(
                "body function carry input and",
                "the start of the wording above, as a paste cut short shows it ('scan body "
                "function carry input and carr'): pasted in instadeepai/Mava#1184 (2024)",
            ),
            Wording(
                r"the input carry (?:component )?\S+ has type \S+ but the corresponding output "
                r"carry component has type",
                "the detail lines: JAX 0.4.7 to 0.12.0.1 (git history)",
                regex=True,
            ),
            Wording("body_fun output pytree structure must match init_val", "JAX 0.1.49 (git)"),
            Wording(
                "The parameter of condition and body, the result of the body, and init must "
                "all have the same shape",
                "XLA's RuntimeError for a while_loop carry: pasted in jax-ml/jax#1681 (2019)",
            ),
        ),
        scenario="A scan, while_loop or fori_loop body returned a carry whose shape, dtype "
        "or pytree structure differs from the initial carry.",
        cause="The carry feeds the next step, so its type must stay fixed; the usual trips "
        "are an integer start (jnp.int32(0)) updated with floats, or a carry that grows.",
        fix="Start the carry with the dtype it will have, written explicitly "
        "(jnp.zeros((), jnp.float32) or jnp.zeros(shape, dtype), not a bare 0 or 0.0), cast "
        "updates with .astype(init.dtype), and keep the same tuple or dict structure.",
    ),
    # -- Writing into an array ---------------------------------------------------------------------
    KnownError(
        errors=("TypeError", "ValueError"),
        topic="inplace_updates",
        wordings=(
            Wording(
                "JAX arrays are immutable and do not support in-place item assignment",
                "JAX 0.4.35 to 0.12.0.1 (git history)",
            ),
            Wording(
                r"(?:DeviceArray|ArrayImpl|Array|\b\w{0,40}Tracer)'>?' object does not support "
                r"item assignment",
                "JAX 0.1.49 and older to 0.4.34 (DeviceArray, then ArrayImpl; git history)",
                regex=True,
            ),
            Wording(
                "JAX 'Tracer' objects do not support item assignment",
                "JAX 0.1.49 and older to 0.2.19 (git history)",
            ),
            Wording(
                "assignment destination is read-only",
                "NumPy, writing into np.asarray() of a JAX array: pasted in jax-ml/jax#101 (2018)",
            ),
            Wording(
                "'_IndexUpdateHelper' object does not support item assignment",
                "x.at[i] = v: Python's TypeError on the class of x.at, JAX 0.1.64 to 0.12.0.1 "
                "(git history; raised by 0.4.35, 0.6.2 and 0.12.0.1)",
            ),
        ),
        scenario="Code assigned into a JAX array, as in x[i] = v, x[i] += v or x.at[i] = v.",
        cause="JAX arrays are immutable values, so they cannot be changed in place.",
        fix="Build an updated copy: x = x.at[i].set(v) (or .add, .multiply, .min, .max); "
        "under jit XLA performs it in place when it can.",
    ),
    # .set() called on the array itself, not on x.at[i]: only the update methods of x.at count
    # (an array has .min and .max of its own; other missing attributes are other mistakes).
    KnownError(
        errors=("AttributeError",),
        topic="inplace_updates",
        wordings=(
            Wording(
                r"(?:Tracer|ArrayImpl|DeviceArray)'?(?: object)? has no attribute "
                r"'?(?:set|add|subtract|multiply|mul|divide|power|apply)\b",
                "a tracer: 'DynamicJaxprTracer has no attribute set', JAX 0.1.49 and older to "
                "0.12.0.1 (git history: Tracer.__getattr__; raised by 0.4.35, 0.6.2 and "
                "0.12.0.1), pasted in AaltoML/BayesNewton#20 (2023); an array: Python's "
                "\"'ArrayImpl' object has no attribute 'set'\", raised by 0.4.35 to 0.12.0.1, "
                "and 'DeviceArray' object ... before 0.4.1 (the form pasted in jax-ml/jax#13826)",
                regex=True,
            ),
        ),
        scenario="Code called .set(v) (or .add, .multiply, ...) on a JAX array itself, as in "
        "x.set(v), rather than on x.at[i].",
        cause="A JAX array has no update methods of its own: .set, .add and the others belong to "
        "x.at[...], which says which elements to update and returns a new array.",
        fix="Index through .at first: x = x.at[i].set(v) (x.at[:].set(v) for every element); "
        "keep the result, since x itself never changes.",
    ),
    # -- Printed output that shows a tracer (no error at all) -----------------------------------
    KnownError(
        errors=("ValueError",),
        topic="print_vs_debug_print",
        wordings=(
            Wording(
                r"Unused (?:positional|keyword) arguments to `jax\.debug\.print`",
                "JAX 0.4.35, 0.10.2 and 0.12.0.1 (live: jax.debug.print('x %d', x)); pasted in "
                "google-deepmind/torax#1502 (2025)",
                regex=True,
            ),
        ),
        scenario="jax.debug.print was given a format string whose placeholders do not take "
        "all its arguments: a %-style string ('x = %d'), or fewer {} than values.",
        cause="jax.debug.print formats with str.format when the compiled function runs: only "
        "{} (or {name}) placeholders take values, and an argument no placeholder takes is an "
        "error.",
        fix="Write the format with braces, one per value: jax.debug.print('x = {} y = {:.3f}', "
        "x, y), or by name: jax.debug.print('x = {x}', x=x).",
    ),
    KnownError(
        errors=(),
        topic="print_vs_debug_print",
        see_also=("global_counter", "leak_from_grad_vmap", "leak_through_self"),
        wordings=(
            Wording(
                r"Traced<[^<>\n]{1,120}>with<",
                "Traced<ShapedArray(...)>with<...>: JAX 0.1.49 and older to 0.6.2 (git history)",
                regex=True,
            ),
            Wording(
                r"Traced<[^<>\n]{1,120}:\w{1,40}Trace\(",
                "Traced<ShapedArray(...):JaxprTrace(...)>: pasted in jax-ml/jax#196 (2019)",
                regex=True,
            ),
            Wording(
                r"\b(?:Jit|Jaxpr|Vmap|Grad|JVP|Batch|Linearize)Tracer[(<]",
                "JitTracer<...>: 0.7.0 to 0.8.1; JitTracer(...): 0.8.2 to 0.12.0.1 (git history)",
                regex=True,
            ),
        ),
        no_error=True,
        scenario="A print (or logging call) inside a jitted, vmapped or differentiated "
        "function showed a tracer instead of numbers.",
        cause="Python's print runs while JAX traces the function, once, when the values are "
        "tracers (placeholders with a shape and dtype); it does not run when the compiled "
        "function runs.",
        fix="Print run-time values with jax.debug.print('x = {}', x) (ordered=True keeps the "
        "order); or step through eagerly under jax.disable_jit().",
    ),
)
