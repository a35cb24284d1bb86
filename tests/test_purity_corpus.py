"""check_pure on real impure and pure functions, and what it leaves behind (nothing).

tests/data/purity_corpus.py holds functions reduced from public bug reports, each with its
source, its label, and an independent check (JAX and NumPy only) that shows the label is right;
tests/data/purity_corpus_fresh.py is a second corpus in the same format, collected later.
``python scorers/check_pure.py`` prints the scores and the misses. Here: the labels of both
corpora hold on this JAX; check_pure flags every impure case with its labelled kind and passes
every pure one (both corpora score in full: 67 of 67 impure, 27 of 27 pure), and after every
check (on both corpora, and on functions that store a tracer only through code they call)
what the call can reach is as it was, with no tracer inside, compared by a deep walk of its
own (not by jaxpurity's snapshot). The fresh corpus was scored once as collected (22/30
impure, 10/11 pure, 0 crashed) and has since joined the development corpus.
"""

from __future__ import annotations

import functools
import sys
import types
from pathlib import Path
from typing import Any

import jax
import numpy as np
import pytest

import jaxpurity

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))
from purity_corpus import CASES  # noqa: E402
from purity_corpus_fresh import CASES as FRESH_CASES  # noqa: E402

# Minutes, not seconds: the backend lane (tests/lane.py) runs these in a call of their own.
pytestmark = pytest.mark.slow

JAX = jax.__version__
LABELLED = [*CASES, *FRESH_CASES]
# The fresh corpus joined the development corpus once scored as collected (22/30, 10/11).
IMPURE = [c for c in LABELLED if c.impure]


def _ids(cases: list[Any]) -> list[str]:
    return [c.id for c in cases]


@pytest.mark.parametrize("case", LABELLED, ids=_ids(LABELLED))
def test_the_label_holds_on_this_jax(case):
    if "." in JAX and not any(JAX.startswith(v) for v in case.versions):
        pytest.skip(f"{case.id} was seen on JAX {case.versions}, not {JAX}")
    assert case.check(), f"{case.id} ({case.source}) does not behave as labelled on JAX {JAX}"


# -- Nothing is left changed ------------------------------------------------------------------

_SKIP = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type, types.MethodType)


def _state(value: Any, depth: int = 0, seen: set[int] | None = None) -> Any:
    """A deep, comparable picture of ``value``: structure, array values, object attributes."""
    seen = set() if seen is None else seen
    if isinstance(value, jax.core.Tracer):
        return ("TRACER", type(value).__name__)
    if isinstance(value, jax.Array) and jax.dtypes.issubdtype(value.dtype, jax.dtypes.prng_key):
        return ("key", np.asarray(jax.random.key_data(value)).tolist())
    if isinstance(value, (jax.Array, np.ndarray, np.generic)):
        return ("array", np.asarray(value).tolist())
    if isinstance(value, (bool, int, float, complex, str, bytes, type(None))):
        return value
    if isinstance(value, _SKIP) or depth > 6 or id(value) in seen:
        return ("ref", id(value))
    seen.add(id(value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_state(v, depth + 1, seen) for v in value])
    if isinstance(value, dict):
        return ("dict", [(repr(k), _state(v, depth + 1, seen)) for k, v in value.items()])
    if isinstance(value, (set, frozenset)):
        return ("set", sorted(map(repr, value)))
    attrs = getattr(value, "__dict__", None)
    if isinstance(attrs, dict):
        return (type(value).__name__, [(k, _state(v, depth + 1, seen)) for k, v in attrs.items()])
    return ("ref", id(value))


_LIBRARIES = {"jax", "jaxlib", "numpy", "jaxpurity", *sys.stdlib_module_names}


def _users(value: Any) -> bool:
    return str(getattr(value, "__module__", "") or "").partition(".")[0] not in _LIBRARIES


def _names(code: types.CodeType) -> set[str]:
    """The global names ``code`` and every function defined in it name."""
    found = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found |= _names(const)
    return found


def reachable(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """What the call can reach, however deep: its arguments, and, from every user function it
    can run (its own, the ones its globals, closures, defaults, partials, bound objects and
    arguments hold, again and again), the globals that code names and its closure variables.

    A walk of its own, not jaxpurity's (``_introspect.reachable_code``), so that the two check
    each other.
    """
    roots: dict[str, Any] = {"args": args, "kwargs": kwargs}
    try:
        queue: list[Any] = [fn, *jax.tree_util.tree_leaves((args, kwargs))]
    except (RecursionError, SystemError):  # a cyclic or very deep argument: walked below
        queue = [fn, *args, *kwargs.values()]
    seen: set[int] = set()
    while queue:
        value = queue.pop()
        if id(value) in seen or value is None:
            continue
        seen.add(id(value))
        if isinstance(value, types.MethodType):
            roots[f"self of {value.__func__.__qualname__}"] = value.__self__
            queue += [value.__func__, value.__self__]
        elif isinstance(value, functools.partial):
            queue += [value.func, *value.args, *value.keywords.values()]
        elif isinstance(value, types.FunctionType) and _users(value):
            namespace = value.__globals__
            module = namespace.get("__name__")
            for name in _names(value.__code__) & namespace.keys():
                roots[f"global {module}.{name}"] = namespace[name]
                queue.append(namespace[name])
            cells = [c.cell_contents for c in value.__closure__ or () if _filled(c)]
            roots[f"closure of {value.__qualname__} {id(value)}"] = cells
            queue += [*cells, *(value.__defaults__ or ())]
        elif getattr(value, "__wrapped__", None) is not None:
            queue.append(value.__wrapped__)
        elif isinstance(value, (list, tuple)):
            queue += list(value)
        elif isinstance(value, dict):
            queue += list(value.values())
        elif isinstance(value, types.ModuleType):
            if value.__name__.partition(".")[0] not in _LIBRARIES:
                public = {k: v for k, v in vars(value).items() if not k.startswith("__")}
                roots[f"module {value.__name__}"] = public
                queue += list(public.values())
        elif isinstance(value, type) and _users(value):
            queue += [getattr(v, "__func__", v) for v in vars(value).values()]
        elif _users(type(value)) and isinstance(getattr(value, "__dict__", None), dict):
            queue += [type(value), *vars(value).values()]
    return _state(roots)


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def _holds_tracer(picture: Any) -> bool:
    if isinstance(picture, tuple) and picture[:1] == ("TRACER",):
        return True
    if isinstance(picture, (list, tuple)):
        return any(map(_holds_tracer, picture))
    return False


@pytest.mark.parametrize("case", LABELLED, ids=_ids(LABELLED))
def test_check_pure_finds_the_labelled_kind_and_leaves_everything_as_it_was(case):
    # One check a case (it is the suite's slowest work, run in four envs): what it reports,
    # and what it leaves where the caller can reach.
    fn, args, kwargs = case.make()
    before = reachable(fn, args, kwargs)
    report = jaxpurity.check_pure(fn, *args, **kwargs)
    after = reachable(fn, args, kwargs)
    if case.impure:
        found = {p.kind for p in [*report.problems, *report.warnings]}
        assert found & set(case.kinds), f"{case.id}: wanted one of {case.kinds}:\n{report}"
    else:
        assert report.ok, f"{case.id} is pure:\n{report}"
    assert not _holds_tracer(after), f"{case.id}: a tracer is left where the caller can reach"
    assert after == before, f"{case.id}: the check changed what the call can reach"


@pytest.mark.parametrize("case", IMPURE, ids=_ids(IMPURE))
def test_find_leaks_leaves_arguments_objects_and_globals_as_they_were(case):
    fn, args, kwargs = case.make()
    before = reachable(fn, args, kwargs)
    try:
        jaxpurity.find_leaks(fn, *args, **kwargs)
    except Exception:  # noqa: BLE001 - some cases raise under a trace; the state must hold anyway
        pass
    after = reachable(fn, args, kwargs)
    assert not _holds_tracer(after), f"{case.id}: a tracer is left where the caller can reach"
    assert after == before, f"{case.id}: find_leaks changed what the call can reach"


# -- Nothing is left behind where only nested code wrote ---------------------------------------
# Each function below stores its tracer only through code it calls: a function defined inside
# it, a loop body, a lambda under vmap, a helper of another module, a closure cell, a dict item,
# an attribute of an object it reaches; and each is called through a helper, one step further.
# jaxpurity once put back only the globals of the checked function and of the functions it
# names itself.

_SAVED: Any = None
_SAVED_BY_LAMBDA: list[Any] = []
_CACHE: dict[str, Any] = {}


class _Config:
    last: Any = None


_CONFIG = _Config()
_HELPERS = types.ModuleType("user_helpers")  # a module of the user's, other than this one
exec(  # noqa: S102 - the helper is defined in that module, so that its globals are that module's
    "saved = None\ndef keep(x):\n    global saved\n    saved = x\n    return x\n",
    vars(_HELPERS),
)


def _in_nested_function(x):
    def remember(y):
        global _SAVED
        _SAVED = y

    remember(x)
    return x * 2


def _in_scan_body(x):
    def body(carry, _):
        global _SAVED
        _SAVED = carry
        return carry + 1.0, None

    return jax.lax.scan(body, x, None, length=3)[0]


_remember_in_lambda = lambda y: (_SAVED_BY_LAMBDA.append(y), y * 2)[1]  # noqa: E731


def _in_lambda_under_vmap(xs):
    return jax.vmap(_remember_in_lambda)(xs)


def _in_helper_of_another_module(x):
    return _HELPERS.keep(x) * 2


def _make_closure_writer():
    box = None

    def write(y):
        nonlocal box
        box = y
        return y

    return write


_write_cell = _make_closure_writer()


def _in_closure_cell_of_a_helper(x):
    return _write_cell(x) * 2


def _put_in_cache(y):
    _CACHE["last"] = y


def _in_dict_item(x):
    _put_in_cache(x)
    return x * 2


def _set_config(y):
    _CONFIG.last = y


def _in_attribute_of_a_reached_object(x):
    _set_config(x)
    return x * 2


NESTED_WRITERS = [
    _in_nested_function,
    _in_scan_body,
    _in_lambda_under_vmap,
    _in_helper_of_another_module,
    _in_closure_cell_of_a_helper,
    _in_dict_item,
    _in_attribute_of_a_reached_object,
]


@pytest.mark.parametrize("tool", ["check_pure", "find_leaks"])
@pytest.mark.parametrize("fn", NESTED_WRITERS, ids=[f.__name__ for f in NESTED_WRITERS])
def test_no_tracer_stays_where_only_nested_code_wrote(fn, tool):
    def checked(x):
        return fn(x)

    x = jax.numpy.ones(2)
    before = reachable(checked, (x,), {})
    assert not _holds_tracer(before)
    found = getattr(jaxpurity, tool)(checked, x)
    after = reachable(checked, (x,), {})
    assert not _holds_tracer(after), f"{tool}: a tracer stays where {fn.__name__} wrote"
    assert after == before, f"{tool} changed what {fn.__name__} can reach"
    problems = [] if tool == "find_leaks" else found.problems
    leaks = found if tool == "find_leaks" else [p for p in problems if p.kind == "leaked-tracer"]
    assert leaks, f"{tool} did not see the tracer {fn.__name__} stored"
