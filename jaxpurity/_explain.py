"""Say what a JAX error means, why it happened, and how to fix it."""

from __future__ import annotations

import builtins
import ntpath  # its basename splits at "/" and at "\\": paths from any system
import re
import textwrap
import types
from dataclasses import dataclass

from jaxpurity._pages import page

__all__ = ["Explanation", "explain"]

# Text that names which transformation a leaked tracer came from. JAX 0.10.2 says
# "traced for scan / while_body / while_cond / fori_loop"; JAX 0.4.35 says
# "traced for scan / while_loop / while_cond" (fori_loop runs as scan or while_loop).
# The leak checker of JAX 0.10.2 says "... at file.py:3 for scan."; that of 0.4.35 does
# not name the transformation, so its loop leaks go to the jit page.
_LOOP = r"\bfor (?:scan|while_loop|while_body|while_cond|fori_loop)\b"
# grad/vjp leak a LinearizeTracer (0.10.2) or JaxprTracer (0.4.35); jvp a JVPTracer;
# vmap a BatchTracer. The leak checker names the trace: "Leaked trace BatchTrace",
# "Leaked trace MainTrace(2,JVPTrace)". (DynamicJaxprTracer, from jit, does not match.)
_GRAD_VMAP = (
    r"\bwrapped in an? (?:JVPTracer|LinearizeTracer|JaxprTracer|BatchTracer)\b"
    r"|\bLeaked trace (?:MainTrace\(\d+, ?)?(?:JVPTrace|LinearizeTrace|JaxprTrace|BatchTrace)\b"
)
_UNEXPECTED_TRACER = r"\bEncountered an unexpected tracer\b"
_LEAKED_TRACE = r"(?m)^Leaked trace \w"
# float(), int(), bool() or an index on a tracer: the messages of ConcretizationTypeError
# and of its subclasses TracerBoolConversionError and TracerIntegerConversionError.
_CONCRETE = r"\bAbstract tracer value encountered where concrete value is expected\b"
_BOOL = r"\bAttempted boolean conversion of traced array\b"
_INDEX = r"\bThe __index__\(\) method was called on traced array\b"

# How to tell such an error on a *leaked* tracer (used after its trace ended) from one
# inside a trace. JAX 0.4.35 says only where the tracer was made once its trace is over:
_DEAD_TRACE = re.compile(r"\bThis DynamicJaxprTracer was created on line\b")
# JAX 0.10.2 words both alike: "... while tracing the function f at file.py:3 for jit."
# There the traceback decides: a leaked tracer is used after the traced function returned,
# so no frame of it is running (JAX hides only its own frames, so a traced function of
# JAX's own, such as a jitted jax.numpy function, tells nothing).
_TRACED_FUNCTION = re.compile(
    r"The error occurred while tracing the function (?P<name>\S+) at (?P<file>.+?):"
    r"(?P<line>\d+) for "
)
_JAX_SOURCE = re.compile(r"(?:^|[/\\])jax[/\\]_src[/\\]")
# A frame line of a traceback printed by Python.
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line \d+, in (?P<name>\S+)', re.M)


@dataclass(frozen=True)
class _Known:
    """One error that :func:`explain` recognises: how to spot it, and what to say."""

    error: str  # the exception's class name
    topic: str  # key of jaxpurity._pages.PAGES
    patterns: tuple[str, ...]  # regexes that spot the message when the class is unknown
    scenario: str
    cause: str
    fix: str
    # A regex the message must also contain; tells apart errors of one class.
    only_if: str | None = None
    # Only for an error on a leaked tracer (see _leaked_use); such entries win over the others.
    leaked: bool = False


# First match wins, so an entry with ``only_if`` comes before the catch-all of its class.
# jaxpurity's TypeMismatchError is routed by the first line of its message, which names
# the API or the thing that mismatched ("jaxpurity.switch: the branches ...",
# "jaxpurity.fori_loop: body_fun output ... init_val", "Stateful(step): the new state ...").
_KNOWN: tuple[_Known, ...] = (
    _Known(
        error="ConcretizationTypeError",
        topic="leak_from_loop_body",
        patterns=(_CONCRETE, _BOOL, _INDEX),
        only_if=_LOOP,
        leaked=True,
        scenario="Code called float(), int() or bool() (or `if`) on a value that a scan, "
        "while_loop or fori_loop body had saved outside itself (in a list, a global or an "
        "attribute).",
        cause="The value is a tracer left over from the body's trace, which has ended: it "
        "has a shape and a dtype but no value, so it cannot become a Python number. It is "
        "not a setting that needs to be static.",
        fix="Return what you need from the body: put it in the carry, or in scan's "
        "per-step output (`carry, y = body(carry, x)`), and convert the loop's result.",
    ),
    _Known(
        error="ConcretizationTypeError",
        topic="global_counter",
        patterns=(_CONCRETE, _BOOL, _INDEX),
        leaked=True,
        scenario="Code called float(), int() or bool() (or `if`) on a value that a jitted "
        "function had saved outside itself (in a global, a list or an attribute).",
        cause="The value is a tracer left over from a trace that has ended: it has a shape "
        "and a dtype but no value, so it cannot become a Python number. It is not a "
        "setting that needs to be static.",
        fix="Return the value from the function instead of storing it, and convert the "
        "returned array (float(f(x))). jaxpurity.find_leaks(f, x) names the variable that "
        "holds the tracer and the line that stored it.",
    ),
    _Known(
        error="UnexpectedTracerError",
        topic="leak_from_loop_body",
        patterns=(_UNEXPECTED_TRACER,),
        only_if=_LOOP,
        scenario="A scan, while_loop or fori_loop body saved a value outside itself "
        "(in a list, a global or an attribute), and later code used it.",
        cause="JAX traces a loop body once, with tracers standing in for the carry and the "
        "step's inputs; a tracer stored outside the body outlives that trace and is dead "
        "by the time it is used.",
        fix="Return what you need from the body: put it in the carry, or in scan's "
        "per-step output (`carry, y = body(carry, x)`), and read it from the loop's result.",
    ),
    _Known(
        error="UnexpectedTracerError",
        topic="leak_from_grad_vmap",
        patterns=(_UNEXPECTED_TRACER,),
        only_if=_GRAD_VMAP,
        scenario="A function under jax.grad, jax.vjp, jax.jvp or jax.vmap saved an "
        "intermediate value outside itself, and later code used it.",
        cause="grad and vmap call your function with tracers instead of arrays; one stored "
        "in a global, a list or an attribute outlives the transformation.",
        fix="Return the value instead: get side results out of grad with "
        "jax.value_and_grad or has_aux=True, and return extra outputs from the vmapped "
        "function.",
    ),
    _Known(
        error="UnexpectedTracerError",
        topic="global_counter",
        patterns=(_UNEXPECTED_TRACER,),
        scenario="A jitted function stored a value in a global, a list or an attribute "
        "(a counter, a cache, self.x), and later code used it.",
        cause="While jit traces a function its values are tracers; a tracer saved outside "
        "the function outlives the trace, and Python side effects run only once, when "
        "the function is traced.",
        fix="Make the function pure: pass the state in as an argument and return the new "
        "state (`count, y = step(count, x)`). Wrap the call in `with jax.checking_leaks():` "
        "to be shown the line that leaks.",
    ),
    _Known(
        error="Exception",
        topic="leak_from_loop_body",
        patterns=(_LEAKED_TRACE,),
        only_if=_LOOP,
        scenario="jax.checking_leaks() (or JAX_CHECK_TRACER_LEAKS) caught a scan, "
        "while_loop or fori_loop body keeping a reference to one of its tracers.",
        cause="Something outside the loop body (a list, a global, an attribute) still "
        "holds a tracer after JAX finished tracing the body.",
        fix="Return what you need from the body through the carry or scan's per-step "
        "output instead of storing it; the message lists what holds the tracer.",
    ),
    _Known(
        error="Exception",
        topic="leak_from_grad_vmap",
        patterns=(_LEAKED_TRACE,),
        only_if=_GRAD_VMAP,
        scenario="jax.checking_leaks() (or JAX_CHECK_TRACER_LEAKS) caught a function "
        "under grad, jvp or vmap keeping a reference to one of its tracers.",
        cause="Something outside the function (a list, a global, an attribute) still "
        "holds a tracer after the transformation finished.",
        fix="Return the value instead of storing it (has_aux=True for grad, an extra "
        "output for vmap); the message lists what holds the tracer.",
    ),
    _Known(
        error="Exception",
        topic="global_counter",
        patterns=(_LEAKED_TRACE,),
        scenario="jax.checking_leaks() (or JAX_CHECK_TRACER_LEAKS) caught a jitted "
        "function keeping a reference to one of its tracers.",
        cause="Something outside the function (a list, a global, an attribute of self) "
        "still holds a tracer after jit finished tracing it.",
        fix="Make the function pure: pass state in and return the new state instead of "
        "storing it; the message lists what holds the tracer.",
    ),
    _Known(
        error="TracerBoolConversionError",
        topic="python_control_flow",
        patterns=(_BOOL,),
        scenario="A jitted function used `if`, `while`, `and`/`or` or `assert` on a value "
        "computed from its arguments.",
        cause="Python needs a real True or False to choose a branch, but under jit the "
        "value is a tracer, which has a shape and dtype but no value yet.",
        fix="Choose values with jnp.where, branches with jax.lax.cond or jax.lax.switch, "
        "and loop with jax.lax.while_loop; if the argument is a setting, not data, mark "
        "it static (static_argnames=...).",
    ),
    _Known(
        error="TracerIntegerConversionError",
        topic="python_control_flow",
        patterns=(_INDEX,),
        scenario="A jitted function used a traced value as a Python int: a list or tuple "
        "index, range(n), or a size.",
        cause="Python asks the value for an int (`__index__`), but under jit it is a "
        "tracer with no value yet.",
        fix="Index an array instead of a list (jnp.asarray(items)[i]), loop with "
        "jax.lax.fori_loop instead of range(n), or mark the argument static "
        "(static_argnames=...).",
    ),
    _Known(
        error="TracerArrayConversionError",
        topic="python_control_flow",
        patterns=(
            r"\bThe numpy\.ndarray conversion method __array__\(\) was called on traced array\b",
        ),
        scenario="A transformed function passed a traced value to NumPy (np.asarray, "
        "np.sin, ...) or another library that needs a concrete array.",
        cause="NumPy needs real numbers, and a tracer cannot become a numpy.ndarray "
        "while JAX is tracing.",
        fix="Use jax.numpy instead of numpy inside jit, grad and vmap; run unavoidable "
        "host code through jax.pure_callback, and print with jax.debug.print.",
    ),
    _Known(
        error="ConcretizationTypeError",
        topic="static_arguments",
        patterns=(_CONCRETE,),
        scenario="A jitted function needed a concrete Python value (a size for "
        "jnp.arange, a float() or int()) from a traced argument.",
        cause="Under jit, arguments are tracers: JAX knows their shape and dtype but not "
        "their value, so anything needed while tracing cannot depend on them.",
        fix="Mark the argument static (jax.jit(f, static_argnames=...)) when it is a "
        "setting such as a size, or rewrite so that only shapes, not values, decide "
        "what the code does.",
    ),
    _Known(
        error="TypeError",
        topic="static_arguments",
        patterns=(r"\bShapes must be 1D sequences of concrete values of integer type\b",),
        scenario="A jitted function built an array whose shape comes from an argument, "
        "such as jnp.zeros(n).",
        cause="jit compiles for fixed shapes, but the size is a traced argument whose "
        "value is unknown while tracing.",
        fix="Mark the size argument static: jax.jit(f, static_argnames='n'), so each "
        "new size compiles once; or pass an array of the right shape instead.",
    ),
    _Known(
        error="NonConcreteBooleanIndexError",
        topic="boolean_masks",
        patterns=(r"\bArray boolean indices must be concrete\b",),
        scenario="A jitted function indexed an array with a boolean mask, as in x[x > 0].",
        cause="The result's length is the number of True entries, which is unknown "
        "while tracing; jit needs every shape fixed in advance.",
        fix="Keep the shape fixed: jnp.where(mask, x, 0), reductions with where= "
        "(jnp.sum(x, where=mask)), or jnp.nonzero(mask, size=k, fill_value=...) with a "
        "static bound k.",
    ),
    _Known(
        error="KeyReuseError",
        topic="frozen_randomness",
        patterns=(
            r"\bPreviously-consumed key passed to\b",
            r"\bargument \d+ is already consumed\b",
            r"\bleads to key reuse when repeatedly executed\b",
        ),
        scenario="With key-reuse checking on (jax.debug_key_reuse(True) or the "
        "jax_debug_key_reuse config), a PRNG key was used twice.",
        cause="JAX random numbers are a pure function of the key: reusing a key, also "
        "across the steps of a loop, repeats the same 'random' numbers.",
        fix="Split before every use: `key, sub = jax.random.split(key)`, draw with sub "
        "and keep key for later; in loops carry the key and split it every step.",
    ),
    _Known(
        error="TypeMismatchError",
        topic="cond_branch_types",
        patterns=(),
        only_if=r"\A[^\n]*\b(?:cond|switch|branch|branches)\b",
        scenario="jaxpurity's cond or switch found branches that return different types.",
        cause="cond and switch have one output, so every branch must return the same "
        "pytree with the same shape and dtype at each leaf; the message lists each "
        "leaf that differs, by its path.",
        fix="Follow the message's 'How to fix' line for each leaf: usually cast with "
        ".astype(...), write 0.0 rather than 0, or build placeholders with "
        "jnp.zeros_like.",
    ),
    _Known(
        error="TypeMismatchError",
        topic="loop_carry_types",
        patterns=(),
        only_if=r"\A[^\n]*\b(?:scan|fori_loop|while_loop|carry|state|init_val)\b",
        scenario="A loop body or a Stateful step returned a carry (state) of another "
        "type than the one it was given; jaxpurity checked it.",
        cause="The carry feeds the next step, so its pytree structure, shapes and "
        "dtypes must stay the same (under jit, a state that changes type would also "
        "recompile on every call); the message lists each leaf that changed.",
        fix="Follow the message's 'How to fix' line for each leaf: usually give the "
        "initial value its final dtype (jnp.asarray(0, jnp.float32), not 0) or cast "
        "the update with .astype(init.dtype).",
    ),
    _Known(
        error="RetraceError",
        topic="static_arguments",
        patterns=(r"\bwas traced \d+ times, more than max_traces=\d+",),
        scenario="A function wrapped in jaxpurity.count_traces(max_traces=...) was traced "
        "more times than allowed.",
        cause="jit traces and compiles again whenever an argument's shape, dtype or weak "
        "type changes, a static argument takes a new value, or a new object is passed as "
        "a static argument; the message names each argument that changed.",
        fix="Follow the message's 'To avoid the retrace' line: keep shapes and dtypes "
        "fixed (pad or bucket), pass arrays rather than Python scalars, and keep static "
        "arguments to a few values (a number that is data can be passed as an array "
        "instead; a size or an axis must stay static).",
    ),
    _Known(
        error="TypeError",
        topic="cond_branch_types",
        patterns=(
            # JAX 0.10.2
            r"\b(?:cond|switch) branches must have equal output types\b",
            r"\b(?:cond|switch) branch outputs must have the same pytree structure\b",
            # JAX 0.4.35
            r"\btrue_fun and false_fun output must have (?:identical types|same type structure)\b",
            r"\bbranch \d+ and \d+ outputs must have (?:identical types|same type structure)\b",
        ),
        scenario="jax.lax.cond or jax.lax.switch was given branches that return different types.",
        cause="cond and switch have one output, so every branch must return the same "
        "pytree with the same shape and dtype at each leaf: 0 and 0.0, or a float "
        "and an int32 array, do not match.",
        fix="Make every branch return the same structure: cast with .astype(...), "
        "write 0.0 rather than 0, and build placeholders with jnp.zeros_like.",
    ),
    _Known(
        error="TypeError",
        topic="loop_carry_types",
        patterns=(r"\b(?:scan|while_loop) body function carry input and carry output must have\b",),
        scenario="A scan, while_loop or fori_loop body returned a carry whose shape, "
        "dtype or pytree structure differs from the initial carry.",
        cause="The carry feeds the next step, so its type must stay fixed; the usual "
        "trips are an integer start (jnp.int32(0)) updated with floats, or a carry "
        "that grows.",
        fix="Start the carry with the type it will have (0.0 or jnp.zeros(shape)), "
        "cast updates with .astype(init.dtype), and keep the same tuple or dict "
        "structure.",
    ),
    _Known(
        error="TypeError",
        topic="inplace_updates",
        patterns=(r"\bJAX arrays are immutable and do not support in-place item assignment\b",),
        scenario="Code assigned into a JAX array, as in x[i] = v or x[i] += v.",
        cause="JAX arrays are immutable values, so they cannot be changed in place.",
        fix="Build an updated copy: x = x.at[i].set(v) (or .add, .multiply, .min, "
        ".max); under jit XLA performs it in place when it can.",
    ),
)

_COMPILED = {p: re.compile(p) for k in _KNOWN for p in (*k.patterns, k.only_if) if p}

# The "Name: message" line of an exception in pasted text (any module path before
# the name; pytest prefixes "E   "). Only names that end in Error or Exception count,
# so message lines that happen to contain a colon are not mistaken for a header.
_HEADER = re.compile(
    r"^(?:E +)?(?:\w+\.)*(?P<name>\w*(?:Error|Exception))(?::[ \t]?|[ \t]*$)", re.M
)
_TRACEBACK = "Traceback (most recent call last):"
_WIDTH = 88


@dataclass(frozen=True)
class Explanation:
    """What :func:`explain` says about an error.

    Attributes:
      error: The error's class name, such as ``"UnexpectedTracerError"``.
      scenario: One line: what the code was doing when the error happened.
      cause: Why JAX raises it.
      fix: What to change.
      topic: The gallery topic (a key of ``jaxpurity._pages.PAGES``), or None.
      page: The site path of the gallery page about it, or None.
      recognised: False when :func:`explain` does not know the error; then
        ``scenario``, ``cause`` and ``fix`` are empty and ``page`` is None.
    """

    error: str
    scenario: str
    cause: str
    fix: str
    topic: str | None
    page: str | None
    recognised: bool

    def __str__(self) -> str:
        if not self.recognised:
            names = {k.error for k in _KNOWN}
            by_name = ", ".join(sorted(n for n in names if _distinctive(n)))
            by_text = " and ".join(sorted(n for n in names if not _distinctive(n)))
            lines = [
                f"Error: {self.error or 'unknown'}",
                "Not recognised: jaxpurity.explain has no entry for this error, so it "
                "cannot say what caused it.",
                f"It knows {by_name}, and some messages of {by_text}.",
            ]
        else:
            lines = [
                f"Error: {self.error}",
                f"Scenario: {self.scenario}",
                f"Cause: {self.cause}",
                f"Fix: {self.fix}",
                f"Read more: {self.page}",
            ]
        return "\n".join(textwrap.fill(line, _WIDTH, subsequent_indent="  ") for line in lines)


def _distinctive(name: str) -> bool:
    """Whether a class name identifies an error by itself (``TypeError`` does not)."""
    return not hasattr(builtins, name)


# One frame of a traceback: the file, the function's name, and its first line (None when
# read from printed text, which shows the line running instead).
_Frame = tuple[str, str, int | None]


@dataclass(frozen=True)
class _Error:
    """One error of a chain: its class names (most derived first), message and traceback."""

    names: list[str]
    message: str
    frames: list[_Frame] | None  # None when no traceback is known


def _parse(block: str, *, traceback: bool) -> _Error:
    """One error in pasted text: the class name (if shown), message and traceback frames."""
    header = _HEADER.search(block)
    above = block if header is None else block[: header.start()]
    frames = [(m["file"], m["name"], None) for m in _FRAME.finditer(above)] if traceback else None
    if header is None:
        return _Error([], block.strip(), frames)
    return _Error([header.group("name")], block[header.end() :].strip(), frames)


def _frames(tb: types.TracebackType | None) -> list[_Frame] | None:
    """The frames a raised exception passed through, from where it was caught down."""
    if tb is None:
        return None
    frames = []
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append((code.co_filename, code.co_name, code.co_firstlineno))
        tb = tb.tb_next
    return frames


def _chain(error: BaseException | str) -> list[_Error]:
    """``error`` and the errors it was raised from.

    The raised error comes first, then its cause, and so on. For an exception
    the names are its classes, most derived first. In a traceback, each error
    starts at its own "Traceback" line and the raised one is last.
    """
    if isinstance(error, str):
        blocks = error.split(_TRACEBACK)
        return [
            _parse(block, traceback=i > 0)
            for i, block in reversed(list(enumerate(blocks)))
            if block.strip()
        ]
    chain, seen = [], set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        names = [cls.__name__ for cls in type(current).__mro__]
        chain.append(_Error(names, str(current), _frames(current.__traceback__)))
        current = current.__cause__ or (
            None if current.__suppress_context__ else current.__context__
        )
    return chain


def _leaked_use(error: _Error) -> bool:
    """Whether the error came from using a tracer after its trace had ended (a leaked one)."""
    if _DEAD_TRACE.search(error.message):
        return True
    traced = _TRACED_FUNCTION.search(error.message)
    if traced is None or error.frames is None or _JAX_SOURCE.search(traced["file"]):
        return False
    file, line = ntpath.basename(traced["file"]), int(traced["line"])
    running = [
        first == line if first is not None else name == traced["name"]
        for path, name, first in error.frames
        if ntpath.basename(path) == file
    ]
    return not any(running)


def _found(pattern: str | None, message: str) -> bool:
    return pattern is None or _COMPILED[pattern].search(message) is not None


def _match(entries: list[_Known], names: list[str], message: str) -> _Known | None:
    """The first entry for an error: by class name first, then by its message."""
    for name in names:
        if not _distinctive(name):
            continue
        for known in entries:
            if known.error == name and _found(known.only_if, message):
                return known
    for known in entries:
        if any(_found(p, message) for p in known.patterns) and _found(known.only_if, message):
            return known
    return None


_ABOUT_LEAKS = [k for k in _KNOWN if k.leaked]
_OTHERS = [k for k in _KNOWN if not k.leaked]


def _lookup(error: _Error) -> tuple[str, _Known] | None:
    """The error's class name and its entry; one about leaks when it used a leaked tracer.

    An entry about a leaked tracer covers the ConcretizationTypeError family,
    so the class is named by the error, or else by the entry its message has
    without the leak.
    """
    known = _match(_ABOUT_LEAKS, error.names, error.message) if _leaked_use(error) else None
    usual = _match(_OTHERS, error.names, error.message)
    if known is None:
        return None if usual is None else (usual.error, usual)
    if error.names:
        return error.names[0], known
    return (usual or known).error, known


def explain(error: BaseException | str) -> Explanation:
    """Explain a JAX error: the scenario, the cause, the fix, and the page to read.

    Pass the exception itself, or its text as printed (a whole traceback, a
    ``Type: message`` line, or only the message). An exception is recognised by
    its class (and its base classes); text by the class name in its
    ``Type: message`` line, or else by wording that JAX's messages contain. When
    the raised error is unknown but was raised from a known one (``raise ... from
    err``, or a chained traceback), the known one is explained.

    A ``ConcretizationTypeError`` (from ``float()``, ``int()``, ``bool()``) on a
    tracer that leaked out of an earlier trace is explained as the leak it is,
    not as an argument to make static, where the error shows that the trace
    had ended: JAX 0.4.35's message says so; with JAX 0.10.2 the traceback
    does (the traced function it names is not running), so pass the
    exception or the whole traceback rather than the message alone.

    Args:
      error: The exception, or the text of one.

    Returns:
      An :class:`Explanation`; ``print`` it for a readable summary. For an error
      it does not know, ``recognised`` is False and it says so rather than guess.

    Raises:
      TypeError: ``error`` is neither an exception nor a string.

    Example:
      >>> import jax
      >>> import jaxpurity
      >>> @jax.jit
      ... def relu(x):
      ...     return x if x > 0 else 0.0
      >>> try:
      ...     relu(1.0)
      ... except Exception as err:
      ...     explanation = jaxpurity.explain(err)
      >>> explanation.error, explanation.page
      ('TracerBoolConversionError', 'examples/control_flow/python_control_flow.html')
      >>> print(explanation)  # doctest: +ELLIPSIS
      Error: TracerBoolConversionError
      Scenario: A jitted function used `if`, `while`, `and`/`or` or `assert` on a value...
      ...
      Read more: examples/control_flow/python_control_flow.html
      >>> jaxpurity.explain("ValueError: my own mistake").recognised
      False
    """
    if not isinstance(error, (BaseException, str)):
        raise TypeError(
            f"explain() takes an exception or its text (a str), not {type(error).__name__}; "
            "for example explain(err) inside `except Exception as err:`, or explain(str(err))"
        )
    chain = _chain(error)
    for raised in chain:
        found = _lookup(raised)
        if found is not None:
            name, known = found
            return Explanation(
                error=name,
                scenario=known.scenario,
                cause=known.cause,
                fix=known.fix,
                topic=known.topic,
                page=page(known.topic),
                recognised=True,
            )
    names = chain[0].names if chain else []
    return Explanation(
        error=names[0] if names else "",
        scenario="",
        cause="",
        fix="",
        topic=None,
        page=None,
        recognised=False,
    )
