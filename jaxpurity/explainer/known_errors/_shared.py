r"""What the sections of the table share: the classes of an entry, and wordings of many pages.

:class:`KnownError` is one error and the page that explains it; :class:`Wording`
is a fixed part of its message as some JAX version printed it. The wordings here
are those of more than one page: the concretization family (a tracer where
Python or JAX needs a concrete value: ``float()``, ``bool()``, ``__index__``, a
shape), which a leaked tracer and a live one both raise, and
``UnexpectedTracerError``, whatever held the tracer.
:data:`DEAD_TRACE` and :data:`TRACED_FUNCTION` are the matcher's: they tell it
whether an error was raised on a leaked tracer.

Every pattern of the table has a fixed start or bounded repeats (``\w{0,40}``,
not ``\w*``), so that no search backtracks over a long run of one character:
``explain`` stays linear in its input.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ARRAY_CONVERSION",
    "BOOL",
    "BOOL_OLD",
    "CONCRETE",
    "CONVERSION",
    "DEAD_TRACE",
    "INDEX",
    "NEEDS_A_NUMBER",
    "NEEDS_A_NUMBER_ERRORS",
    "NOT_AN_ARRAY",
    "NOT_AN_INTEGER",
    "SHAPES",
    "SHAPE_WITHOUT_TRACER",
    "TRACED_FUNCTION",
    "UNEXPECTED",
    "KnownError",
    "Wording",
    "any_of",
    "unexpected_tracer",
]


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
        with whitespace collapsed): it tells apart errors of one class. Where
        its first match has a group named ``called``, the function that group
        names must also be called back: called in a line the traceback shows
        (``name(``, not ``obj.name(``), and not running (it returned a value
        made in an earlier trace; or jit refused its arguments before the call).
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


def any_of(*patterns: str) -> str:
    """A regular expression that matches any of ``patterns``.

    Example:
      >>> any_of("scan", "while_loop")
      '(?:scan)|(?:while_loop)'
    """
    return "|".join(f"(?:{p})" for p in patterns)


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

# The concretization family: a tracer where Python or JAX needs a concrete value. A live
# tracer raises these inside a trace, and a leaked one after it; the entries of many pages
# tell them apart by the code that raised or the words around the message.
# float(), int() or complex() of a tracer.
CONVERSION = Wording(
    r"The problem arose with the `(?:int|float|complex)` function",
    "JAX 0.2.0 to 0.12.0.1 (git history)",
    regex=True,
)
CONCRETE = Wording(
    "Abstract tracer value encountered where concrete value is expected",
    "JAX 0.1.65 to 0.12.0.1 (git history)",
)
BOOL = Wording(
    "Attempted boolean conversion of",
    "JAX 0.4.14 to 0.12.0.1 (git history)",
)
# Older wordings of bool() on a tracer, as a ConcretizationTypeError.
BOOL_OLD = (
    Wording("The problem arose with the `bool` function", "JAX 0.2.10 to 0.4.12 (git history)"),
    Wording(
        "Abstract tracer value encountered where concrete value is expected (in `bool`)",
        "JAX 0.1.6x: pasted in jax-ml/jax#2833 (2020)",
    ),
    Wording("Abstract value passed to `bool`", "JAX 0.1.49 and older to 0.1.64 (git history)"),
)
INDEX = Wording(
    r"The __index__(?:\(\))? method was called on (?:traced array|the JAX Tracer object)",
    "JAX 0.2.10 to 0.4.12 (on the JAX Tracer object), 0.4.13 to 0.12.0.1 (on traced array)",
    regex=True,
)
# A tracer given to NumPy (np.asarray, np.sin): TracerArrayConversionError.
ARRAY_CONVERSION = (
    Wording(
        "The numpy.ndarray conversion method __array__() was called on",
        "JAX 0.1.68 to 0.12.0.1 (git history)",
    ),
    Wording(
        "Tracer can't be used with raw numpy functions",
        "JAX 0.1.49 and older to 0.1.67 (git history)",
    ),
)
SHAPES = Wording(
    "Shapes must be 1D sequences of concrete values of integer type",
    "JAX 0.1.49 and older to 0.12.0.1 (git history)",
)
# The shape JAX quotes after "got" holds no tracer (Traced<...>, JitTracer(...), JaxprTracer):
# a wrong shape, not a traced one.
SHAPE_WITHOUT_TRACER = r"of integer type, got \((?![^)]{0,200}Trace)"
NOT_AN_INTEGER = Wording(
    r"'\w*Tracer' object cannot be interpreted as an integer",
    "Python's own TypeError for range() or a size: pasted in jax-ml/jax#1629 (2019)",
    regex=True,
)
# What a traced value given where a Python number is needed raises: a conversion by float(),
# int(), bool() or __index__, or a shape of tracers.
NEEDS_A_NUMBER = (CONCRETE, CONVERSION, BOOL, *BOOL_OLD, INDEX, NOT_AN_INTEGER, SHAPES)
NEEDS_A_NUMBER_ERRORS = (
    "ConcretizationTypeError",
    "TracerBoolConversionError",
    "TracerIntegerConversionError",
    "TypeError",
)
# jit given an argument that is not an array, nor a pytree of arrays, and not static: a string,
# a function (static_arguments), a method's `self` (leak_through_self).
NOT_AN_ARRAY = Wording(
    r"Error interpreting argument to .{1,300}? as an abstract array",
    "JAX 0.4.35, 0.10.2, 0.12.0.1 (live); pasted in jax-ml/jax#23860 (2024)",
    regex=True,
)
# UnexpectedTracerError, whoever held the tracer.
UNEXPECTED = (
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


def unexpected_tracer(
    topic: str, scenario: str, cause: str, fix: str, when: str | None
) -> KnownError:
    """An UnexpectedTracerError, where ``when`` (None: anything) finds who kept the tracer."""
    return KnownError(
        errors=("UnexpectedTracerError",),
        topic=topic,
        wordings=UNEXPECTED,
        when=when,
        scenario=scenario,
        cause=cause,
        fix=fix,
    )
