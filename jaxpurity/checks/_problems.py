"""What :func:`jaxpurity.check_pure` reports: the problems it finds, each in plain words.

Knowledge is data: :data:`PROBLEMS` holds one :class:`ProblemTemplate` for
each message ``check_pure`` writes, with the kind of problem it reports, the
page of the site that explains it, its severity and the message itself: a
template that :func:`problem` fills with what the check saw, and that says
the fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from jax.errors import UnexpectedTracerError

from jaxpurity import explain  # the public entry: the checks use explain as a user does
from jaxpurity._jax_names import GRAD_VMAP, LOOPS, SHARD_MAP
from jaxpurity._naming import LRU_CACHE
from jaxpurity._pages import page, topic_of, url
from jaxpurity.checks._leaks import Leak

__all__ = [
    "PROBLEMS",
    "STATE_CAUSE",
    "Kind",
    "Problem",
    "ProblemTemplate",
    "PurityReport",
    "Severity",
    "TEMPLATES",
    "OR_CLEAR_CACHE",
    "eager_mismatch",
    "jax_leak_problem",
    "leak_template",
    "mode_mismatch",
    "problem",
    "trace_error",
]

#: The kinds of problem :func:`check_pure` reports (:attr:`Problem.kind`).
Kind = Literal[
    "leaked-tracer",
    "global-assignment",
    "closure-assignment",
    "container-mutation",
    "argument-mutation",
    "trace-time-print",
    "frozen-randomness",
    "jit-eager-mismatch",
    "stale-result",
    "lost-mutation",
    "remat-mutation",
    "dropped-callback",
    "trace-time-read",
    "trace-error",
    "mode-mismatch",
    "callback-count",
    "key-reuse",
    "hidden-state",
    "retracing",
]
#: ``"error"``: it is wrong now; ``"warning"``: it goes wrong when something changes.
Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """One impurity that :func:`check_pure` found.

    Attributes:
      kind: A short name, such as ``"global-assignment"``; :func:`check_pure` lists
        them all, with what each means.
      message: What happened and how to fix it, in plain words.
      page: The site path of the gallery page that explains it.
      severity: ``"error"``: it is wrong now; ``"warning"``: it goes wrong when
        something changes (a setting read at trace time, changed later).
    """

    kind: Kind
    message: str
    page: str
    severity: Severity = "error"

    @property
    def url(self) -> str:
        """The page's full address on the hosted site (``$JAXPURITY_DOCS_URL`` moves it), so
        that a terminal opens it."""
        return url(topic_of(self.page))

    def __str__(self) -> str:
        label = self.kind if self.severity == "error" else f"{self.severity}: {self.kind}"
        return f"[{label}] {self.message}\n  See {self.url}"


@dataclass(frozen=True)
class PurityReport:
    """What :func:`check_pure` found.

    Attributes:
      function: The checked function's name.
      problems: Every :class:`Problem` found that is wrong now (severity
        ``"error"``), in a fixed order of kinds.
      traces: How many times the function's Python body ran under a trace.
      runs: How many times it ran eagerly (without a trace).
      warnings: The problems that go wrong only when something changes
        (severity ``"warning"``): Python values read at trace time.

    A report has no truth value: ``if report:`` could mean "it is pure" as well as "it
    found something", so it raises a TypeError; ask ``report.ok``.

    Example:
      >>> report = PurityReport("f")
      >>> report.ok
      True
      >>> bool(report)
      Traceback (most recent call last):
      TypeError: a PurityReport has no truth value: `if report:` could mean 'it is pure' or 'it found something'; use report.ok (True when no problem was found) or report.problems
    """  # noqa: E501

    function: str
    problems: list[Problem] = field(default_factory=list)
    traces: int = 0
    runs: int = 0
    warnings: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no problem was found (warnings aside)."""
        return not self.problems

    def __bool__(self) -> bool:
        raise TypeError(
            "a PurityReport has no truth value: `if report:` could mean 'it is pure' or "
            "'it found something'; use report.ok (True when no problem was found) or "
            "report.problems"
        )

    def __str__(self) -> str:
        ran = f"traced {self.traces} times, run eagerly {self.runs} time(s)"
        found = [*self.problems, *self.warnings]
        counted = [f"{len(self.problems)} problem(s)"] if self.problems else []
        counted += [f"{len(self.warnings)} warning(s)"] if self.warnings else []
        if self.ok:
            lines = [f"check_pure(`{self.function}`): no impurity found ({ran})."]
            lines[0] = lines[0][:-1] + (f"; {counted[0]}:" if counted else ".")
        else:
            lines = [f"check_pure(`{self.function}`): {' and '.join(counted)} ({ran}):"]
        lines += [f"{i}. " + str(p).replace("\n", "\n   ") for i, p in enumerate(found, 1)]
        return "\n".join(lines)


@dataclass(frozen=True)
class ProblemTemplate:
    """One message :func:`check_pure` writes.

    Attributes:
      name: What it is about, in kebab case: ``"global-assignment"``,
        ``"leak-from-loop"``; the key of :data:`PROBLEMS`.
      kind: The kind of problem it reports (:attr:`Problem.kind`).
      topic: The gallery page that explains it (a key of ``jaxpurity._pages.PAGES``).
      message: The message, a template with ``{fields}`` the check fills.
      severity: ``"error"`` or ``"warning"`` (:attr:`Problem.severity`).
    """

    name: str
    kind: Kind
    topic: str
    message: str
    severity: Severity = "error"


_LEAK = (
    "{leak}\nA tracer is only valid inside its trace; using it later raises "
    "UnexpectedTracerError. Return the value from the function instead of storing it."
)
_REBOUND = (
    "`{name}` rebinds {label} while it is traced: {change}. Under jit this runs once per "
    "trace, not once per call, so the value is wrong from the second call on. Pass the state "
    "in and return its new value instead."
)
_CHANGED = (
    "`{name}` changes {label} while it is traced: {change}. Under jit this runs once per "
    "trace, not once per call, so the value is wrong from the second call on. "
)
_LOST = (
    "`{name}` changes `{path}` (of {root}) when it runs eagerly ({before} -> {after}), but "
    "under jit it does not: jit passes the function its pytree arguments rebuilt from their "
    "leaves, so what the function writes into them lands on a copy, and the change is lost "
    "(or seen only while it is traced). Return the new value instead (a new dict, or an "
    "object built with dataclasses.replace), and use the returned value."
)
_READ = (
    "`{name}` reads {label} ({value}) while it is traced: {why} Pass it in as an argument "
    "(static_argnames for one that chooses which code runs){or_clear}."
)
#: The end of a trace-time read's advice, for a jit wrapper (``{or_clear}``); none otherwise.
OR_CLEAR_CACHE = ", or call the jitted function's clear_cache() after changing it"

#: Added to a result's message when the check also saw the state change: the likely cause.
STATE_CAUSE = " The state changes listed above are the likely cause: each call saw different state."

TEMPLATES: tuple[ProblemTemplate, ...] = (
    # The function raised while it was traced: nothing else can be checked (trace_error).
    ProblemTemplate(
        "trace-error",
        "trace-error",
        "debugging_workflow",  # or the page explain() gives the error (trace_error)
        "`{name}` cannot be traced: jax.jit({name}) raises {error}: {said} {fix} Fix this "
        "first; then check again.",
    ),
    # One mode raises where another returns (mode_mismatch): its page is the one explain()
    # gives the error. Under jit it is wrong now; under vmap or grad, when used so.
    ProblemTemplate(
        "mode-mismatch",
        "mode-mismatch",
        "debugging_workflow",
        "`{name}` runs eagerly, but under {mode} it raises {error}: {said} {fix}",
    ),
    ProblemTemplate(
        "mode-mismatch-warning",
        "mode-mismatch",
        "debugging_workflow",
        "`{name}` runs eagerly, but under {mode} it raises {error}: {said} {fix}",
        "warning",
    ),
    ProblemTemplate(
        "eager-raises",
        "mode-mismatch",
        "debugging_workflow",
        "`{name}` runs under jax.jit, but run eagerly it raises {error}: {said} {fix}",
    ),
    ProblemTemplate(
        "mode-values",
        "mode-mismatch",
        "global_config",
        "`{name}` gives other results under {mode} than eagerly on the same inputs: eagerly it "
        "{eager}, but under {mode} it {other}. Something in it depends on Python state or on "
        "how it is traced; a pure function gives the same under every transformation.",
        "warning",
    ),
    ProblemTemplate(
        "callback-count",
        "callback-count",
        "callbacks",
        "`{name}` does other things under {mode} than run eagerly on the same inputs: eagerly "
        "it {eager}; under {mode} it {other}. JAX does not run a callback once per call under "
        "a transformation: under vmap, a cond whose predicate is batched runs both branches "
        "and their callbacks; under grad, a checkpointed function runs again in the backward "
        "pass, and a callback in a loop body may move out of the loop. Use callbacks to look "
        "at values, return what you need, and use jax.experimental.io_callback(..., "
        "ordered=True) for an effect that must happen once per call.",
        "warning",
    ),
    ProblemTemplate(
        "key-reuse",
        "key-reuse",
        "frozen_randomness",
        "`{name}` uses a jax.random key twice, as JAX's own key-reuse checker "
        "(jax.debug_key_reuse) sees: {said} The second use draws the same numbers as the "
        "first, or numbers tied to them. Split the key (jax.random.split) and use each new key "
        "once.",
    ),
    ProblemTemplate(
        "constant-key",
        "key-reuse",
        "frozen_randomness",
        "`{name}` draws from {label}, a typed jax.random key it does not take as an argument: "
        "every call consumes that same key again, so every call draws the same numbers, and "
        "JAX's key-reuse checker (jax.debug_key_reuse) refuses the second call. Take the key "
        "as an argument, split it outside, and pass a new key to each call.",
    ),
    ProblemTemplate(
        "hidden-state",
        "hidden-state",
        "global_config",
        "`{name}` answers differently when called again with the same inputs, under one jit: "
        "first it {first}, then it {second}. Its program reads state that its calls change "
        "({through}), so its result depends on how often it has run, which jit, vmap and grad "
        "do not track. Pass the state in and return its new value.",
        "warning",
    ),
    ProblemTemplate(
        "retracing",
        "retracing",
        "retracing_storms",
        "`{name}` compiles again when given the {argument} it returned, as a step is called "
        "in a loop: {changed}. Its jit keeps such a value as a constant of the program, so each "
        "call traces and compiles anew: right results, and every step pays a compile. To "
        "avoid it: {fix}.",
        "warning",
    ),
    ProblemTemplate(
        "hidden-ref-written",
        "container-mutation",
        "mutable_refs",
        "`{name}` writes {label}, a Ref (jax.new_ref) it does not take as an argument: each "
        "call changes state outside its arguments, eagerly and under jit alike, so its result "
        "and the caller's state depend on how often it has run, and under vmap a Ref that is "
        "not batched refuses per-row writes. Pass the Ref in as an argument, or keep the state "
        "in a pytree you pass in and return.",
        "warning",
    ),
    ProblemTemplate(
        "hidden-ref",
        "hidden-state",
        "mutable_refs",
        "`{name}` reads {label}, a Ref (jax.new_ref) it does not take as an argument: its "
        "result depends on state outside its arguments, which its own calls or other code "
        "change, and under vmap a Ref that is not batched refuses per-row writes. Pass the "
        "Ref in as an argument, or the value.",
        "warning",
    ),
    # A tracer stored where it outlives its trace, by where it came from (leak_template).
    ProblemTemplate("leak-into-cache", "leaked-tracer", "memoization_caches", _LEAK),
    ProblemTemplate("leak-from-loop", "leaked-tracer", "leak_from_loop_body", _LEAK),
    ProblemTemplate("leak-from-grad-vmap", "leaked-tracer", "leak_from_grad_vmap", _LEAK),
    ProblemTemplate("leak-across-devices", "leaked-tracer", "side_effects_across_devices", _LEAK),
    ProblemTemplate("leak-into-argument", "leaked-tracer", "leak_through_self", _LEAK),
    ProblemTemplate(
        "leak-seen-by-jax",
        "leaked-tracer",
        "global_counter",
        "`{name}` leaks a tracer that JAX's own leak checker (jax.checking_leaks()) sees when "
        "it runs eagerly: {said} Something still holds a tracer when its trace ends (a list "
        "local to the function that an inner jit function appends to, say); "
        "using it later raises UnexpectedTracerError. Return the value from the inner "
        "function instead of storing it.",
    ),
    ProblemTemplate(
        "remat-mutation",
        "remat-mutation",
        "leak_from_loop_body",
        "`{name}` stores a value from inside jax.checkpoint (remat) in a Python container, as "
        "JAX's own leak checker (jax.checking_leaks()) sees when it runs eagerly: {said} "
        "checkpoint traces the function it wraps on its own, even without jit, so what that "
        "function appends or assigns is a tracer of its trace, not a value, and the change is "
        "lost when the trace ends; under grad the function runs again in the backward pass. "
        "Return the value from the checkpointed function instead of storing it.",
    ),
    ProblemTemplate(
        "leak-into-result",
        "leaked-tracer",
        "static_objects",
        "{leak}\nA tracer is only valid inside its trace; using it later raises "
        "UnexpectedTracerError. Keep arrays in the pytree's children (fields that are pytree "
        "nodes), and build static data with NumPy or Python values, or under "
        "jax.ensure_compile_time_eval().",
    ),
    ProblemTemplate("leak-into-global", "leaked-tracer", "global_counter", _LEAK),
    # State the function reaches, changed while it is traced (checks._watch).
    ProblemTemplate("global-assignment", "global-assignment", "global_counter", _REBOUND),
    ProblemTemplate("closure-assignment", "closure-assignment", "global_counter", _REBOUND),
    ProblemTemplate(
        "container-mutation",
        "container-mutation",
        "global_counter",
        _CHANGED
        + "Return the new entries from the function and update the container outside it (or "
        "keep the state in a pytree you pass in and return).",
    ),
    ProblemTemplate(
        "argument-mutation",
        "argument-mutation",
        "leak_through_self",
        _CHANGED
        + "Return the new values (for example a new object built with dataclasses.replace) "
        "instead of setting attributes on the argument.",
    ),
    ProblemTemplate(
        "trace-time-print",
        "trace-time-print",
        "print_vs_debug_print",
        "`{name}` printed {printed} while it was traced. print runs once per trace (showing "
        "tracers, not values), and never on later calls of the compiled function. Use "
        "jax.debug.print('x = {{}}', x) to print values on every call.",
    ),
    ProblemTemplate(
        "printed-tracer",
        "trace-time-print",
        "print_vs_debug_print",
        "`{name}`'s compiled program printed {printed}: a tracer was formatted into the text "
        "while it was traced (an f-string or str(x) given to jax.debug.print), so every call "
        "prints the tracer, not its value. Pass the value as an argument and let "
        "jax.debug.print format it: jax.debug.print('x = {{}}', x).",
    ),
    ProblemTemplate(
        "frozen-randomness",
        "frozen-randomness",
        "frozen_randomness",
        "`{name}` drew numbers from {generator} while it was traced. Under jit they are drawn "
        "once, at trace time, and baked into the compiled function as constants: every call "
        "returns the same 'random' numbers. Take a jax.random key as an argument and draw "
        "with jax.random (split the key for each call).",
    ),
    # An argument the eager run changes and the jit run does not: a dict's entry, an attribute.
    ProblemTemplate("lost-mutation", "lost-mutation", "global_counter", _LOST),
    ProblemTemplate("lost-attribute-mutation", "lost-mutation", "leak_through_self", _LOST),
    # The same, in an object of a library whose objects are pytrees that change in place.
    ProblemTemplate(
        "lost-module-mutation",
        "lost-mutation",
        "nnx_and_equinox_state",
        "`{name}` changes `{path}` (of {root}, a {library} object) when it runs eagerly "
        "({before} -> {after}), but under jax.jit it does not: jit flattens the object into its "
        "arrays and hands the function a copy built from them, so what the function writes "
        "lands on the copy. Use the library's own jit (nnx.jit), which writes the new state "
        "back into the caller's objects; or split them (nnx.split), jit a function that merges "
        "them and returns their new state (nnx.state), and nnx.update the objects with it.",
    ),
    ProblemTemplate(
        "dropped-callback",
        "dropped-callback",
        "callbacks",
        "`{name}` calls jax.{primitive} {count} time(s) in its traced program, and nothing "
        "uses the result: jit treats pure_callback as a pure function and removes an unused "
        "one as dead code, so its side effect (a print, a progress bar, a log) does not "
        "happen, or happens a different number of times. For a side effect use "
        "jax.debug.callback, or jax.experimental.io_callback(..., ordered=True) when the "
        "order matters.",
    ),
    ProblemTemplate(
        "loop-callback",
        "dropped-callback",
        "callbacks",
        "`{name}` calls jax.debug.callback({callback}) in a loop body. JAX runs debug "
        "callbacks for their side effect but does not promise how many times under a "
        "transformation: under grad, a callback in a scan body can be moved out of the loop "
        "and run once instead of once per step (jax-ml/jax#16637). Use it to look at values, "
        "not to count steps or change Python state; return what you need from the loop, or "
        "use jax.experimental.io_callback(..., ordered=True) for an effect that must happen "
        "once per step.",
        "warning",
    ),
    ProblemTemplate(
        "remat-callback",
        "dropped-callback",
        "callbacks",
        "`{name}` calls jax.debug.callback({callback}) inside jax.checkpoint (remat). Under "
        "grad, JAX runs a checkpointed function's forward pass again in the backward pass, so "
        "the callback runs twice per call (jax-ml/jax#8907). Use it to look at values, not to "
        "count calls or change Python state; return what you need instead.",
        "warning",
    ),
    ProblemTemplate(
        "donated-argument",
        "argument-mutation",
        "buffer_donation",
        "`{name}` donates argument `{argument}` (donate_argnums): each call deletes the array "
        "you pass, which the function run eagerly never does, and reading it afterwards "
        "raises 'Array has been deleted'. Use the returned value in its place (params = "
        "step(params, ...)). The check ran on copies, so your array is alive.",
        "warning",
    ),
    # Python values read while traced (checks._trace_reads): jit bakes them in.
    ProblemTemplate("trace-time-read", "trace-time-read", "global_config", _READ, "warning"),
    ProblemTemplate("clock-read", "trace-time-read", "global_config", _READ),
    # An attribute read off an argument that jit keeps whole, as a key of its cache.
    ProblemTemplate(
        "static-read",
        "stale-result",
        "static_objects",
        "`{name}` reads {label} ({value}) while it is traced: {why}",
        "warning",
    ),
    # Results compared: eager against jit, the first program and the jit cache against a
    # fresh trace.
    ProblemTemplate(
        "jit-eager-mismatch",
        "jit-eager-mismatch",
        "global_config",
        "`{name}` gives different results under jit and eagerly on the same inputs: eagerly "
        "it {eager}, but jax.jit({name}) {fresh}. Something in it depends on Python state or "
        "on whether it is traced.{cause}",
    ),
    ProblemTemplate(
        "stale-cache",
        "stale-result",
        "global_config",
        "`{name}` under jit answers from a stale program: called as you jitted it, it ran the "
        "program its jit cache holds for these argument types and {cached}, but a fresh "
        "trace now {fresh}. That program was traced when the Python state it reads (a "
        "global, a closure variable, a setting) had other values; jit reuses it as long as "
        "the argument types stay the same. Pass such values in as arguments (static_argnames "
        "for those that choose which code runs), or call the jitted function's clear_cache() "
        "after changing them.{cause}",
    ),
    ProblemTemplate(
        "stale-program",
        "stale-result",
        "global_config",
        "`{name}`'s compiled result goes stale: calling the program compiled from its first "
        "trace again {first}, but a fresh trace now {fresh}. jit reuses the first trace as "
        "long as the argument types stay the same, so it keeps answering with values read at "
        "trace time. Pass such values in as arguments.{cause}",
    ),
)

#: The templates by name.
PROBLEMS: dict[str, ProblemTemplate] = {t.name: t for t in TEMPLATES}


def trace_error(name: str, error: BaseException) -> Problem:
    """The problem that ``error``, raised while ``name`` was traced, is: its page from
    :func:`jaxpurity.explain`, or the debugging workflow's for an error it does not know.
    Its kind is ``"trace-error"``, or ``"leaked-tracer"`` for JAX's UnexpectedTracerError.

    Example:
      >>> print(trace_error("step", ValueError("my own mistake")))  # doctest: +ELLIPSIS
      [trace-error] `step` cannot be traced: jax.jit(step) raises ValueError: my own mistake...
        See https://.../examples/tools/debugging_workflow.html
    """

    explanation = explain(error)
    fix = explanation.fix if explanation.recognised else "Read its traceback (jax.jit(fn)(...))."
    found = PROBLEMS["trace-error"]
    message = found.message.format(
        name=name, error=type(error).__name__, said=_said(error), fix=fix
    )
    # JAX itself caught a tracer leaking while it traced: that is the kind of problem it is
    kind: Kind = "leaked-tracer" if isinstance(error, UnexpectedTracerError) else found.kind
    return Problem(kind, message, page(explanation.topic or "debugging_workflow"))


def mode_mismatch(name: str, mode: str, error: BaseException, severity: Severity) -> Problem:
    """The problem that ``error``, raised under ``mode`` (``"jax.jit"``, ``"jax.vmap"``,
    ``"jax.vjp"``) by a function that runs eagerly, is: its page from :func:`jaxpurity.explain`.
    A leak JAX caught while it traced (UnexpectedTracerError) is a ``"leaked-tracer"``.

    Example:
      >>> error = ValueError("my own mistake")
      >>> print(mode_mismatch("step", "jax.vmap", error, "warning"))  # doctest: +ELLIPSIS
      [warning: mode-mismatch] `step` runs eagerly, but under jax.vmap it raises ValueError: ...
        See https://.../examples/tools/debugging_workflow.html
    """
    if isinstance(error, UnexpectedTracerError):
        return trace_error(name, error)
    explanation = explain(error)
    fix = explanation.fix if explanation.recognised else f"Read its traceback ({mode}(fn)(...))."
    template = PROBLEMS["mode-mismatch" if severity == "error" else "mode-mismatch-warning"]
    message = template.message.format(
        name=name, mode=mode, error=type(error).__name__, said=_said(error), fix=fix
    )
    return Problem(template.kind, message, page(explanation.topic or template.topic), severity)


def eager_mismatch(name: str, error: BaseException) -> Problem:
    """The problem of a function that runs under jit but raises ``error`` when run eagerly:
    its page from :func:`jaxpurity.explain`.

    Example:
      >>> print(eager_mismatch("step", ValueError("no host here")))  # doctest: +ELLIPSIS
      [mode-mismatch] `step` runs under jax.jit, but run eagerly it raises ValueError: ...
        See https://.../examples/tools/debugging_workflow.html
    """
    explanation = explain(error)
    fix = explanation.fix if explanation.recognised else "Read its traceback (fn(...))."
    template = PROBLEMS["eager-raises"]
    message = template.message.format(
        name=name, error=type(error).__name__, said=_said(error), fix=fix
    )
    return Problem(template.kind, message, page(explanation.topic or template.topic))


def _said(error: BaseException) -> str:
    """The error's first line, and JAX's line that names the function it was tracing."""
    lines = str(error).strip().splitlines()
    where = [line for line in lines[1:] if line.startswith("The error occurred while tracing")]
    return " ".join(line.strip().rstrip(".") + "." for line in lines[:1] + where[:1])


def jax_leak_problem(name: str, error: BaseException) -> Problem:
    """The problem that JAX's leak checker's ``error`` is: its first line and the line that
    names the function whose trace leaked; ``"remat-mutation"`` where that trace was
    ``jax.checkpoint``'s (JAX says "for checkpoint / remat").

    Example:
      >>> error = Exception("Leaked trace DynamicJaxprTrace. Leaked tracer(s):\\n\\n"
      ...     "The error occurred while tracing the function g at m.py:4 for checkpoint / remat.")
      >>> jax_leak_problem("f", error).kind
      'remat-mutation'
    """
    lines = str(error).strip().splitlines()
    where = [ln.split(". ")[0] for ln in lines if ln.startswith("The error occurred while tracing")]
    said = " ".join(line.strip().rstrip(".:") + "." for line in lines[:1] + where[:1])
    remat = any("for checkpoint" in line for line in where)
    return problem("remat-mutation" if remat else "leak-seen-by-jax", name=name, said=said)


def problem(template: str, /, **fields: object) -> Problem:
    """The problem that the template named ``template`` reports, its message filled in.

    Example:
      >>> print(problem("trace-time-print", name="step", printed="'tracing'"))  # doctest: +ELLIPSIS
      [trace-time-print] `step` printed 'tracing' while it was traced. print runs once per trace (showing tracers, not values), and never on later calls of the compiled function. Use jax.debug.print('x = {}', x) to print values on every call.
        See https://.../examples/side_effects/print_vs_debug_print.html
    """  # noqa: E501
    found = PROBLEMS[template]
    return Problem(found.kind, found.message.format(**fields), page(found.topic), found.severity)


_NAMED_CACHE = re.compile(r"`[^`]*(?:cache|memo)[^`]*`", re.IGNORECASE)


def leak_template(leak: Leak) -> str:
    """The template for a leak, by where it came from: a cache, a loop, grad/vmap, shard_map,
    an argument (``self``), or else a global."""
    if LRU_CACHE in leak.where or _NAMED_CACHE.search(leak.where):
        return "leak-into-cache"
    if leak.root == "result":
        return "leak-into-result"
    if leak.transformation in LOOPS:
        return "leak-from-loop"
    if leak.transformation in GRAD_VMAP:
        return "leak-from-grad-vmap"
    if leak.transformation in SHARD_MAP:
        return "leak-across-devices"
    return "leak-into-argument" if leak.root == "argument" else "leak-into-global"
