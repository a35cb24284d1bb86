"""The rules of ``jaxpurity lint``: code, message, the page that explains it, what it cannot see.

Knowledge is data: this table is read by the checker
(:mod:`jaxpurity.linter._checks`), the reports (text, JSON, SARIF), the command
line's ``--explain``, and the site. Each rule links the gallery page that shows
the bug it finds, through the page table of :mod:`jaxpurity._pages`, which
``explain`` uses too. A message is a template: the checker fills in the names
(``{how}`` is how JAX traces the function, such as ``jax.jit``).

Codes: ``JP1xx`` state that outlives a trace (globals, containers, ``self``,
caches, settings, randomness, prints); ``JP2xx`` Python control flow and
array use on traced values; ``JP3xx`` what costs or breaks in compiled code.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from jaxpurity._pages import PAGES, url

__all__ = ["DEFAULT", "RULES", "Rule", "rule", "selected"]


@dataclass(frozen=True)
class Rule:
    """One rule of ``jaxpurity lint``.

    Attributes:
      code: ``JP`` and three digits, such as ``"JP101"``.
      name: A short name in kebab case, such as ``"global-assignment"``.
      title: What it finds, in a few words.
      message: The one-line message, a template with ``{fields}`` the checker fills.
      topic: The gallery page that explains it (a key of ``jaxpurity._pages.PAGES``).
      cannot_see: What it misses: the cases it cannot see from the source alone.
      opt_in: Empty for a rule on by default; for a rule that only ``select`` turns on
        (``select = ["JP122"]``), why: its measured precision on real code.
    """

    code: str
    name: str
    title: str
    message: str
    topic: str
    cannot_see: str
    opt_in: str = ""

    @property
    def url(self) -> str:
        """The address of the page that explains it."""
        return url(self.topic)


_SAME_MODULE = (
    "It sees the functions of one module: a function traced only from another module, "
    "or by a wrapper it does not know (add it to `wrappers`), is not checked."
)

RULES: tuple[Rule, ...] = (
    Rule(
        "JP101",
        "global-assignment",
        "A global or nonlocal name assigned in a traced function",
        "`{name}` is assigned through `{declared}` in a function JAX traces ({how}): the "
        "assignment runs while tracing, not on every call",
        "global_counter",
        "Under jax.grad or jax.vmap alone, which run the body on every call, it reports only "
        "an assignment of a traced value. A name that only tests read (in assert statements, "
        "assert*() calls and blocks that expect an error), never a traced function, is taken "
        "for a trace counter or flag kept on purpose, and not reported unless it is given a "
        "traced value. A nonlocal of a traced function, assigned by a helper that it defines "
        "and calls, is made anew on every trace, and not reported. " + _SAME_MODULE,
    ),
    Rule(
        "JP102",
        "global-container-mutation",
        "A module-level or closure container changed in a traced function",
        "`{name}` is changed in a function JAX traces ({how}): this runs while tracing, not on "
        "every call, and a traced value stored there leaks",
        "global_counter",
        "It knows a container by its literal or constructor ([], {}, set(), dict(), "
        "defaultdict(), ...) at module level or in an enclosing function; one made by "
        "another function, passed in, or changed through a method it does not list, is not "
        "seen. One that a traced function makes (`env = {}`) and a helper of it changes is "
        "made anew on every trace, and not reported. " + _SAME_MODULE,
    ),
    Rule(
        "JP103",
        "loop-body-leak",
        "An outer container changed from a loop or branch body",
        "`{name}` is changed from a loop or branch body ({how}): the body runs once, while JAX "
        "traces it, and what it stores is a tracer",
        "leak_from_loop_body",
        "The same containers as JP102, given a traced value or a JAX array; a value that holds "
        "no tracer (a shape, a count, a string) is bookkeeping at trace time, and not "
        "reported. A body passed to a loop through a variable or another module is not seen.",
    ),
    Rule(
        "JP104",
        "grad-vmap-leak",
        "A traced value stored outside a function under grad or vmap",
        "a traced value is stored in `{name}` from a function under {how}: it is still a "
        "tracer after the transformation returns",
        "leak_from_grad_vmap",
        "It reports values derived from the differentiated or mapped arguments; a value "
        "stored through a helper of another module is not seen, nor one stored in a "
        "container that the transformed function makes itself (`env = {}`), which lives "
        "for one call.",
    ),
    Rule(
        "JP105",
        "self-assignment",
        "An attribute of self changed in a traced method",
        "`self.{name}` is changed in a method JAX traces ({how}): the object keeps a tracer, "
        "and the calls that reuse the trace skip the change",
        "leak_through_self",
        "It sees assignments to `self` in the traced method and in the methods it calls on "
        "`self`; Flax NNX methods, whose transformations carry such state, are not checked, "
        "nor an object changed through another name.",
    ),
    Rule(
        "JP106",
        "cached-array",
        "functools.lru_cache or cache on a traced function that returns arrays",
        "`{decorator}` caches the arrays of a function JAX traces ({how}): the first call inside "
        "a trace caches a tracer, and later callers get it",
        "memoization_caches",
        "It knows an array result by a jax.numpy, jax.lax, jax.random or jax.nn call in the "
        "return statement, or an Array annotation; a cache filled by hand is JP102's. "
        + _SAME_MODULE,
    ),
    Rule(
        "JP107",
        "mutable-default",
        "A mutable default argument on a traced function",
        "the default of `{name}` is a mutable {kind} in a function JAX traces ({how}): it is "
        "state that jit reads once, while tracing; pass it as an argument",
        "global_config",
        "It sees list, dict and set literals and constructors; any other mutable object as a "
        "default is not seen. Its page is the one on settings read at trace time: a default "
        "is one more global setting, read once per trace.",
    ),
    Rule(
        "JP110",
        "trace-time-read",
        "The clock or the environment read in a traced function",
        "`{call}` is read while JAX traces ({how}): the compiled function keeps that value on "
        "every call",
        "global_config",
        "It knows time.*, datetime's now()/today() and os.environ/os.getenv; other host "
        "state (a file, a database, a config library) is not seen.",
    ),
    Rule(
        "JP111",
        "rebound-global-read",
        "A module-level setting read in a traced function and changed after it ran",
        "`{name}` is a module-level setting that the module assigns again (line {line}) after "
        "calling a traced function: jit keeps the value it read when it traced ({how})",
        "global_config",
        "It reports a module-level name given a constant again after the def of a traced "
        "function that reads it, when that function (or one that calls or transforms it) "
        "runs both before the new value and after it, reusing its trace; and names assigned "
        "through `global` in a function. Runs are ordered by their lines in the file. A "
        "setting changed from another module, or held in an object's attribute, is not seen.",
    ),
    Rule(
        "JP120",
        "host-randomness",
        "NumPy or Python randomness in a traced function",
        "`{call}` draws while JAX traces ({how}): every call returns the same numbers; take a "
        "jax.random key as an argument",
        "frozen_randomness",
        "It knows numpy.random, Python's random and generators made at module level by "
        "numpy.random.default_rng or random.Random; a generator passed in is not seen. "
        + _SAME_MODULE,
    ),
    Rule(
        "JP121",
        "key-reuse",
        "One jax.random key used twice",
        "key `{name}` was already used on line {line}: the same key gives the same numbers; "
        "split it and use each key once",
        "frozen_randomness",
        "It follows a key held in a local name, within one function, through its branches "
        "and loops; a key passed to a function of your own, or held in an attribute or a "
        "container, is not followed.",
    ),
    Rule(
        "JP122",
        "shared-key",
        "A key shared by every row of a vmap or every step of a loop",
        "`{name}` is {source} ({how}): every {unit} draws the same numbers; {fix}",
        "keys_in_vmap_and_scan",
        "It sees a key read from outside the vmapped function or loop body, or a vmapped "
        "argument with in_axes=None; a key shared through a helper, or split into too few "
        "keys, is not seen.",
        opt_in="Off by default: on real code 1 of its 3 findings was a bug. One key for "
        "every row is often meant: common random numbers across a population, or one draw "
        "of which a single row is used, and the source looks the same as the bug.",
    ),
    Rule(
        "JP130",
        "print-traced",
        "print of a traced value",
        "print of a traced value ({how}): it runs while JAX traces and shows a tracer; use "
        "jax.debug.print",
        "print_vs_debug_print",
        "It reports print calls whose arguments derive from traced arguments; a print of a "
        "value computed from module-level arrays, or a logging call, is not reported, nor a "
        "tree that jax.tree.map builds with a function returning Python values (an `is None` "
        "or isinstance test, a shape).",
    ),
    Rule(
        "JP131",
        "print-on-devices",
        "print of a traced value under shard_map or pmap",
        "print of a traced value on several devices ({how}): it runs once, while JAX traces, "
        "not once per device; use jax.debug.print",
        "side_effects_across_devices",
        "The same prints as JP130, under shard_map or pmap.",
    ),
    Rule(
        "JP132",
        "f-string-debug-print",
        "An f-string with a traced value given to jax.debug.print",
        "the f-string given to jax.debug.print is filled in while JAX traces ({how}), with a "
        'tracer in it; pass the value as an argument: jax.debug.print("{{}}", x)',
        "callbacks",
        "It sees an f-string written in the call; a message formatted earlier is not seen.",
    ),
    Rule(
        "JP133",
        "dropped-pure-callback",
        "A jax.pure_callback whose result is unused",
        "the result of jax.pure_callback is unused, so jit removes the call ({how}); for a "
        "side effect, use jax.debug.callback",
        "callbacks",
        "It sees a pure_callback whose result is not assigned; one assigned to a name that "
        "is never used is not seen.",
    ),
    Rule(
        "JP201",
        "traced-condition",
        "Python if, while or assert on a traced value",
        "Python `{statement}` on a traced value ({how}): JAX cannot choose while tracing; use "
        "jnp.where, jax.lax.cond or jax.lax.while_loop",
        "python_control_flow",
        "It follows values computed from traced arguments in the function; a traced value "
        "read from a module-level array or returned by a function of another module is not "
        "followed. Parameters with defaults count as Python values, and parameters annotated "
        "as containers as pytrees, not arrays; so does a helper's parameter given a name that "
        "the caller also assigns a Python value (`size = None`).",
    ),
    Rule(
        "JP202",
        "traced-conversion",
        "bool(), int(), float(), .item() or .tolist() of a traced value",
        "`{call}` of a traced value ({how}): it needs the value, which does not exist while "
        "JAX traces",
        "python_control_flow",
        "The same values as JP201.",
    ),
    Rule(
        "JP203",
        "numpy-on-traced",
        "A NumPy function on a traced value",
        "NumPy's `{call}` on a traced value ({how}): NumPy needs concrete values; use jax.numpy",
        "python_control_flow",
        "The same values as JP201; NumPy functions that only read a shape or a dtype are allowed.",
    ),
    Rule(
        "JP204",
        "range-over-traced",
        "range() over a traced value",
        "range() over a traced value ({how}): the number of steps must be known while JAX "
        "traces; use jax.lax.fori_loop, or make it a static argument",
        "python_control_flow",
        "The same values as JP201.",
    ),
    Rule(
        "JP205",
        "traced-flag",
        "A traced argument used as a flag",
        "Python `{statement}` on `{name}`, an argument JAX traces ({how}): a flag must be a "
        "static argument (static_argnames)",
        "static_arguments",
        "It reports a traced argument tested as it is (`if flag:`, `if mode == 'a':`); a flag "
        "inside a container is JP201's. An argument annotated as a container "
        "(`Tuple[jax.Array, jax.Array]`, `Sequence`, `dict`) or a class of the module, and "
        "`*args`, is a pytree whose truth is static: not reported. An annotation `bool` or "
        "`int` does not make an argument static, and is no exception.",
    ),
    Rule(
        "JP206",
        "traced-shape",
        "A traced value used as a shape, size or axis",
        "{what} is traced ({how}): shapes and axes must be known while JAX traces; make it a "
        "static argument, or read it from an array's .shape",
        "static_arguments",
        "It knows the axis=, shape=, size= and length= arguments and the shape arguments of "
        "jnp.zeros, ones, empty, full, arange, eye, linspace, reshape, broadcast_to, tile "
        "and the jax.random samplers.",
    ),
    Rule(
        "JP207",
        "boolean-mask",
        "A boolean mask or nonzero of a traced value",
        "{what} ({how}): the size of the result depends on the data; use jnp.where, or give size=",
        "boolean_masks",
        "It sees a mask written as a comparison, or a name assigned one; a boolean array "
        "from elsewhere, used as an index, is not seen.",
    ),
    Rule(
        "JP208",
        "traced-slice",
        "A slice with traced bounds",
        "slice with traced bounds ({how}): slice bounds must be known while JAX traces; use "
        "jax.lax.dynamic_slice",
        "dynamic_slicing",
        "The same values as JP201.",
    ),
    Rule(
        "JP209",
        "item-assignment",
        "Item assignment on a JAX array",
        "item assignment on the JAX array `{name}`: JAX arrays are immutable; write "
        "`{name} = {name}.at[...].set(...)`",
        "inplace_updates",
        "It knows an array by its assignment from a jax.numpy, jax.lax or jax.random call in "
        "the same function; an array passed in as an argument is not seen.",
    ),
    Rule(
        "JP210",
        "discarded-update",
        "The result of .at[...].set() discarded",
        "the result of `.at[...].{method}()` is discarded: it returns a new array and leaves "
        "`{name}` as it was",
        "inplace_updates",
        "It sees the update as a statement of its own; one whose result is assigned to a "
        "name never used is not seen.",
    ),
    Rule(
        "JP211",
        "unhashable-static",
        "A list, dict, set or mutable dataclass passed as a static argument",
        "`{name}` is a static argument of `{function}`, and {what} is not hashable: jit "
        "raises ValueError; pass a tuple or a frozen dataclass",
        "static_objects",
        "It sees literals and dataclasses of the same module built in the call; an object "
        "made elsewhere, or one that hashes by identity and changes later, is not seen.",
    ),
    Rule(
        "JP301",
        "jit-in-loop",
        "jax.jit of a new function inside a loop",
        "{transform} of a new {what} inside a loop: every iteration traces and compiles "
        "again; make the function once, before the loop",
        "retracing_storms",
        "It sees a lambda, a functools.partial or a function defined in the loop, wrapped in "
        "the loop; a new function made by a factory call, or a static argument that changes "
        "on every call, is not seen.",
    ),
    Rule(
        "JP302",
        "donated-read",
        "An argument read after it was donated to a jitted function",
        "`{name}` was donated to `{function}` on line {line}: its buffer is deleted; use "
        "the result, and rebind the name (`{name} = {function}({name}, ...)`)",
        "buffer_donation",
        "It follows local names within one function or module, through branches and loops; "
        "an alias of the donated array, or a pytree passed through a helper, is not "
        "followed. Reading .is_deleted() is allowed.",
    ),
    Rule(
        "JP303",
        "reverse-through-loop",
        "A loop of traced length under reverse-mode differentiation",
        "`{loop}` {why} under {reverse}: reverse-mode differentiation cannot go through it; "
        "give it a static trip count, or use jax.lax.scan over a fixed maximum with a mask",
        "differentiating_loops",
        "It sees while_loop and fori_loop in the function that jax.grad (or vjp, jacrev, "
        "hessian) differentiates, when they touch a differentiated argument; a loop in a "
        "helper it calls is not seen.",
    ),
    Rule(
        "JP304",
        "where-nan-gradient",
        "jnp.where guarding a sqrt, log or division under jax.grad",
        "`{call}` in a jnp.where that guards it ({how}): jnp.where differentiates both sides, "
        "so the side not picked still gives a nan gradient; guard the input too, with a "
        "second jnp.where",
        "nan_gradients",
        "It sees a sqrt, log, arcsin, arccos, reciprocal or division inside jnp.where whose "
        "condition compares the very value that function is given, up to a sign or abs "
        "(`x > 0` with jnp.log(x), `x != 0` with 1 / x); a condition on another expression "
        "(a switch between formulas), a mask computed before or elsewhere "
        "(jnp.mean(..., where=mask)), log1p and expm1 forms, or jnp.linalg.norm at zero is "
        "not seen.",
    ),
)

_BY_CODE = {r.code: r for r in RULES}
assert len(_BY_CODE) == len(RULES) and all(r.topic in PAGES for r in RULES)

#: The codes of the rules on by default: all but those with an ``opt_in`` reason.
DEFAULT = frozenset(r.code for r in RULES if not r.opt_in)


def rule(code: str) -> Rule:
    """The rule of ``code``.

    Example:
      >>> rule("JP101").topic
      'global_counter'
    """
    try:
        return _BY_CODE[code]
    except KeyError:
        raise KeyError(f"no jaxpurity lint rule {code!r}; known: {', '.join(_BY_CODE)}") from None


def selected(select: Iterable[str] | None, ignore: Iterable[str]) -> frozenset[str]:
    """The codes that ``select`` and ``ignore`` (codes or prefixes such as ``"JP1"``) leave.

    ``select=None`` selects every rule on by default (:data:`DEFAULT`). A rule that is
    off by default (``Rule.opt_in``) is checked only when ``select`` names its code: a
    prefix (``"JP1"``) selects the rules of that prefix that are on by default.

    Raises:
      ValueError: A code or prefix matches no rule.

    Example:
      >>> sorted(selected(["JP10"], ignore=["JP102", "JP103", "JP104", "JP105", "JP106"]))
      ['JP101', 'JP107']
      >>> "JP122" in selected(None, ignore=[]), "JP122" in selected(["JP122"], ignore=[])
      (False, True)
    """
    chosen = set(_matching(select, "select")) if select is not None else set(DEFAULT)
    return frozenset(chosen - set(_matching(ignore, "ignore")))


def _matching(prefixes: Iterable[str], option: str) -> Iterable[str]:
    if isinstance(prefixes, str):
        raise TypeError(f"{option} must be a list of codes, such as [{prefixes!r}], not a str")
    for prefix in prefixes:
        written = str(prefix).strip().upper()
        codes = [code for code in _BY_CODE if code.startswith(written)]
        if not codes or not written:
            raise ValueError(
                f"{option}: {prefix!r} is no jaxpurity lint rule or prefix of one; the rules "
                f"are {', '.join(_BY_CODE)} (jaxpurity lint --explain lists them)"
            )
        yield from (code for code in codes if code == written or code in DEFAULT)
