"""What :func:`jaxpurity.check_pure` reports: the problems it finds, each in plain words.

Each kind of problem has a function here that writes its message, with the
fix and the page of the site that explains it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from jaxpurity._jax_names import GRAD_VMAP, LOOPS, SHARD_MAP
from jaxpurity._naming import LRU_CACHE, short_repr
from jaxpurity._pages import page
from jaxpurity.checks._leaks import Leak
from jaxpurity.checks._outcomes import Outcome
from jaxpurity.checks._restore import Restored
from jaxpurity.checks._trace_reads import Read
from jaxpurity.checks._watch import Watch

__all__ = [
    "Problem",
    "PurityReport",
    "dropped_callback_problem",
    "leak_problem",
    "lost_mutation_problem",
    "loop_callback_problem",
    "mismatch_problem",
    "print_problem",
    "random_problem",
    "read_problem",
    "stale_cache_problem",
    "stale_program_problem",
    "state_problem",
]


@dataclass(frozen=True)
class Problem:
    """One impurity that :func:`check_pure` found.

    Attributes:
      kind: A short name: ``"leaked-tracer"``, ``"global-assignment"``,
        ``"closure-assignment"``, ``"container-mutation"``,
        ``"argument-mutation"``, ``"trace-time-print"``,
        ``"frozen-randomness"``, ``"jit-eager-mismatch"``, ``"stale-result"``,
        ``"lost-mutation"``, ``"dropped-callback"`` or ``"trace-time-read"``.
      message: What happened and how to fix it, in plain words.
      page: The site path of the gallery page that explains it.
      severity: ``"error"``: it is wrong now; ``"warning"``: it goes wrong when
        something changes (a setting read at trace time, changed later).
    """

    kind: str
    message: str
    page: str
    severity: str = "error"

    def __str__(self) -> str:
        label = self.kind if self.severity == "error" else f"{self.severity}: {self.kind}"
        return f"[{label}] {self.message}\n  See {self.page}."


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
    """

    function: str
    problems: list[Problem] = field(default_factory=list)
    traces: int = 0
    runs: int = 0
    warnings: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no problem was found (warnings aside)."""
        return not self.problems

    def __str__(self) -> str:
        ran = f"traced {self.traces} times, run eagerly {self.runs} time(s)"
        if self.ok:
            lines = [f"check_pure(`{self.function}`): no impurity found ({ran})."]
        else:
            lines = [f"check_pure(`{self.function}`): {len(self.problems)} problem(s) ({ran}):"]
        found = [*self.problems, *self.warnings]
        lines += [f"{i}. " + str(p).replace("\n", "\n   ") for i, p in enumerate(found, 1)]
        return "\n".join(lines)


_NAMED_CACHE = re.compile(r"`[^`]*(?:cache|memo)[^`]*`", re.IGNORECASE)


def _leak_topic(leak: Leak) -> str:
    """The page about where this leak came from: a cache, a loop, grad/vmap, shard_map, self."""
    if LRU_CACHE in leak.where or _NAMED_CACHE.search(leak.where):
        return "memoization_caches"
    if leak.transformation in LOOPS:
        return "leak_from_loop_body"
    if leak.transformation in GRAD_VMAP:
        return "leak_from_grad_vmap"
    if leak.transformation in SHARD_MAP:
        return "side_effects_across_devices"
    return "leak_through_self" if leak.root == "argument" else "global_counter"


def leak_problem(leak: Leak) -> Problem:
    topic = _leak_topic(leak)
    return Problem(
        "leaked-tracer",
        f"{leak}\nA tracer is only valid inside its trace; using it later raises "
        "UnexpectedTracerError. Return the value from the function instead of storing it.",
        page(topic),
    )


_STATE_ADVICE = {
    "global-assignment": "Pass the state in and return its new value instead.",
    "closure-assignment": "Pass the state in and return its new value instead.",
    "container-mutation": "Return the new entries from the function and update the container "
    "outside it (or keep the state in a pytree you pass in and return).",
    "argument-mutation": "Return the new values (for example a new object built with "
    "dataclasses.replace) instead of setting attributes on the argument.",
}


def state_problem(name: str, watch: Watch, change: str) -> Problem:
    verb = {
        "global-assignment": "rebinds",
        "closure-assignment": "rebinds",
    }.get(watch.kind, "changes")
    return Problem(
        watch.kind,
        f"`{name}` {verb} {watch.label} while it is traced: {change}. Under jit this runs "
        "once per trace, not once per call, so the value is wrong from the second call on. "
        + _STATE_ADVICE[watch.kind],
        page("leak_through_self" if watch.kind == "argument-mutation" else "global_counter"),
    )


def print_problem(name: str, text: str) -> Problem:
    return Problem(
        "trace-time-print",
        f"`{name}` printed {short_repr(text.rstrip())} while it was traced. print runs once per "
        "trace (showing tracers, not values), and never on later calls of the compiled "
        "function. Use jax.debug.print('x = {}', x) to print values on every call.",
        page("print_vs_debug_print"),
    )


def random_problem(name: str, rng: Restored) -> Problem:
    return Problem(
        "frozen-randomness",
        f"`{name}` drew numbers from {rng.label} while it was traced. Under jit they are drawn "
        "once, at trace time, and baked into the compiled function as constants: every call "
        "returns the same 'random' numbers. Take a jax.random key as an argument and draw "
        "with jax.random (split the key for each call).",
        page("frozen_randomness"),
    )


def lost_mutation_problem(name: str, root: str, path: str, before: str, after: str) -> Problem:
    """The function changes an argument when run eagerly, and under jit the change is lost."""
    where = "leak_through_self" if "." in path else "global_counter"
    return Problem(
        "lost-mutation",
        f"`{name}` changes `{path}` (of {root}) when it runs eagerly ({before} -> {after}), "
        "but under jit it does not: jit passes the function its pytree arguments rebuilt from "
        "their leaves, so what the function writes into them lands on a copy, and the change "
        "is lost (or seen only while it is traced). Return the new value instead (a new dict, "
        "or an object built with dataclasses.replace), and use the returned value.",
        page(where),
    )


def dropped_callback_problem(name: str, primitive: str, count: int) -> Problem:
    """A callback whose result nothing uses: jit may remove it as dead code."""
    return Problem(
        "dropped-callback",
        f"`{name}` calls jax.{primitive} {count} time(s) in its traced program, and nothing uses "
        "the result: jit treats pure_callback as a pure function and removes an unused one as "
        "dead code, so its side effect (a print, a progress bar, a log) does not happen, or "
        "happens a different number of times. For a side effect use jax.debug.callback, or "
        "jax.experimental.io_callback(..., ordered=True) when the order matters.",
        page("callbacks"),
    )


def loop_callback_problem(name: str, callback: str) -> Problem:
    """A ``jax.debug.callback`` in a loop body: JAX does not promise how often it runs."""
    return Problem(
        "dropped-callback",
        f"`{name}` calls jax.debug.callback({callback}) in a loop body. JAX runs debug "
        "callbacks for their side effect but does not promise how many times under a "
        "transformation: under grad, a callback in a scan body can be moved out of the loop "
        "and run once instead of once per step (jax-ml/jax#16637). Use it to look at values, "
        "not to count steps or change Python state; return what you need from the loop, or "
        "use jax.experimental.io_callback(..., ordered=True) for an effect that must happen "
        "once per step.",
        page("callbacks"),
        "warning",
    )


def read_problem(name: str, read: Read) -> Problem:
    """A Python value read while the function is traced: jit bakes it into the program.

    A read off a static argument (``read.kind == "stale-result"``) is a different hazard, and
    links the static-objects page: jit keeps the argument as a cache key, so changing it in
    place makes the cache answer with the program compiled for the old value.
    """
    if read.kind == "stale-result":
        return Problem(
            "stale-result",
            f"`{name}` reads {read.label} ({read.value}) while it is traced: {read.why}",
            page("static_objects"),
            read.severity,
        )
    return Problem(
        "trace-time-read",
        f"`{name}` reads {read.label} ({read.value}) while it is traced: {read.why} Pass it in "
        "as an argument (static_argnames for one that chooses which code runs), or call the "
        "jitted function's clear_cache() after changing it.",
        page("global_config"),
        read.severity,
    )


def mismatch_problem(name: str, eager: Outcome, fresh: Outcome, cause: str) -> Problem:
    """``jax.jit(fn)`` and ``fn`` give different results on the same inputs."""
    return Problem(
        "jit-eager-mismatch",
        f"`{name}` gives different results under jit and eagerly on the same inputs: "
        f"eagerly it {eager}, but jax.jit({name}) {fresh}. Something in it depends on "
        f"Python state or on whether it is traced.{cause}",
        page("global_config"),
    )


def stale_cache_problem(name: str, cached: Outcome, fresh: Outcome, cause: str) -> Problem:
    """A jit wrapper's cached program answers differently from a fresh trace."""
    return Problem(
        "stale-result",
        f"`{name}` under jit answers from a stale program: called as you jitted it, it "
        f"ran the program its jit cache holds for these argument types and {cached}, "
        f"but a fresh trace now {fresh}. That program was traced when the Python state "
        "it reads (a global, a closure variable, a setting) had other values; jit "
        "reuses it as long as the argument types stay the same. Pass such values in as "
        "arguments (static_argnames for those that choose which code runs), or call "
        f"the jitted function's clear_cache() after changing them.{cause}",
        page("global_config"),
    )


def stale_program_problem(name: str, first: Outcome, fresh: Outcome, cause: str) -> Problem:
    """The program compiled from the first trace disagrees with a fresh trace now."""
    return Problem(
        "stale-result",
        f"`{name}`'s compiled result goes stale: calling the program compiled from its "
        f"first trace again {first}, but a fresh trace now {fresh}. jit reuses the first "
        "trace as long as the argument types stay the same, so it keeps answering with "
        f"values read at trace time. Pass such values in as arguments.{cause}",
        page("global_config"),
    )
