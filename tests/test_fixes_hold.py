"""The fix matrix: every fix the gallery teaches, run where readers take it.

Each gallery page ends with a table, ``FIXES``, between
``# sphinx_gallery_start_ignore`` and ``# sphinx_gallery_end_ignore`` (so the
rendered page and the notebook leave it out, and the script keeps it). It
names the page's fixes and says where each one must hold:

``jit``
    ``jax.jit(fix)`` gives what the fix gives as the page calls it;
``nested``
    inside a bigger jitted function that calls it, the same;
``grad``
    ``jax.jit(jax.grad(...))`` of the sum of its float outputs, with respect
    to the float leaves of one argument, is finite and agrees with a central
    finite difference (so a ``nan``, an error, or a gradient that disagrees
    with the value, as a clamped read gives, all fail);
``vmap``
    ``jax.vmap`` over a batch of two examples (the page's and one with its
    float inputs halved) gives the two examples' results, with the settings
    (``"static"``) held static, closed over as readers should.

An entry is the name of a function of the page (or ``"fn"``, an expression), and a dict:
``"args"`` (a tuple, or a function that makes fresh ones, for state a call uses up),
``"static"`` (keyword settings), ``"breaks"`` (where JAX cannot hold it:
``{how: (exception or "differs", regex, instead)}``, where ``instead`` names the fix
on the page that holds there, or the page that shows it), ``"not"`` (where a check
does not apply, and why: ``{"grad": "its output is an int"}``), ``"needs"`` (a JAX
feature, ``"jax.new_ref"``: on a JAX without it the fix is reported as declared
missing, after checking that it is), ``"wrt"`` (the argument to differentiate,
default 0), ``"in_axes"`` (for ``vmap``, default 0 for every argument),
``"donates"`` (the arguments a donating fix gives away: the ``jit`` and ``nested``
cells donate them at the outermost ``jit``, where donation counts, and fail
when any of their leaves is still alive after the call, a donation dropped in silence),
``"change"`` (a function run between a first call, which compiles, and the
compared one: a setting that changes, and what the fix does about it), ``"same"``
(a reason the results are not compared, for a fix with an effect: a ticket
counter), ``"tol"``, and ``"check_pure"``: what :func:`jaxpurity.check_pure`
reports on the fix, ``{kind: a quote of the page's prose that explains it}``; a fix
without it must be reported ok, with no warning (``test_check_pure_is_quiet_on_the_fix``),
and the quote must stand in a text cell that names ``check_pure`` and the kind
(``test_what_check_pure_reports_on_a_fix_is_explained_on_its_page``).
Every check not in ``"breaks"`` or ``"not"`` must hold. An entry whose value is a string is
a function defined in a fix section that is not a fix itself (a helper), and the string says why.

The test reads a page without running its cells: it executes only the
statements that ``FIXES`` needs (imports, definitions, plain assignments, and
what those need in turn), in the page's order, in a module of its own. So the
matrix costs a few compiles per fix, not a run of the gallery. A page that
defines a function in a section whose heading starts with "Fix", "The fix" or
"With jaxpurity" and does not declare it fails
(``test_every_function_of_a_fix_section_is_declared``).

``python tests/test_fixes_hold.py`` prints the matrix, page by page, and the time
it takes on this JAX.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
import symtable
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import jaxpurity  # noqa: E402
from jaxpurity._pages import PAGES, SECTIONS, missing, script  # noqa: E402

# Minutes, not seconds: the backend lane (tests/lane.py) runs these in a call of their own.
pytestmark = pytest.mark.slow

TRANSFORMATIONS = ("jit", "nested", "grad", "vmap")
TOPICS = [topic for section in SECTIONS for topic in section.topics]
_ENTRY_KEYS = {
    "fn", "args", "static", "breaks", "not", "needs", "wrt", "in_axes", "change", "same", "tol",
    "check_pure", "donates",
}  # fmt: skip
_HEADING = re.compile(r"^# (?P<title>\S.*)\n# -{3,}$", re.M)
_FIX_SECTION = re.compile(r"^(The )?[Ff]ix|^With jaxpurity")
# Calls that make a function of a function: an assignment of one is a fix, as a def is.
_MAKES_A_FUNCTION = {
    "jit", "vmap", "grad", "value_and_grad", "partial", "checkpoint", "checkify", "Stateful",
    "count_traces", "shard_map", "pmap", "custom_jvp", "jacfwd", "pure_callback",
}  # fmt: skip


# -- Reading a page without running its cells -----------------------------------------------


def _bound(stmt: ast.stmt) -> set[str]:
    """The module names a top-level statement binds, or changes in place (``m.x = ...``)."""
    names: set[str] = set()

    def targets(node: ast.expr) -> None:
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                targets(element)
        elif isinstance(node, ast.Starred):
            targets(node.value)
        elif isinstance(node, (ast.Attribute, ast.Subscript)):
            base = node.value
            while isinstance(base, (ast.Attribute, ast.Subscript)):
                base = base.value
            if isinstance(base, ast.Name):
                names.add(base.id)

    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        for alias in stmt.names:
            names.add(alias.asname or alias.name.split(".")[0])
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        names.add(stmt.name)
    elif isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            targets(target)
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        targets(stmt.target)
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        targets(stmt.target)
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        for item in stmt.items:
            if item.optional_vars is not None:
                targets(item.optional_vars)
    for child in ast.iter_child_nodes(stmt):
        if isinstance(child, ast.stmt) and not isinstance(
            stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        ):
            names |= _bound(child)
    return names


def _replayable(stmt: ast.stmt) -> bool:
    """Whether the test may run a statement: a definition, not a cell's work."""
    if isinstance(stmt, (ast.If, ast.Try)):
        inner = [s for s in ast.iter_child_nodes(stmt) if isinstance(s, ast.stmt)]
        handlers = getattr(stmt, "handlers", [])
        inner += [s for h in handlers for s in h.body]
        return all(_replayable(s) for s in inner)
    return isinstance(
        stmt,
        (
            ast.Import,
            ast.ImportFrom,
            ast.FunctionDef,
            ast.AsyncFunctionDef,
            ast.ClassDef,
            ast.Assign,
            ast.AnnAssign,
            ast.Pass,
        ),
    )


class _DirectNames(ast.NodeVisitor):
    """The names a statement reads at module level, outside the bodies of nested scopes."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: ast.Name) -> None:
        self.names.add(node.id)

    def _scope(self, node: ast.AST, *outside: Any) -> None:
        for part in outside:
            for item in part if isinstance(part, list) else [part]:
                if item is not None:
                    self.visit(item)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._scope(node, node.decorator_list, node.args.defaults, node.args.kw_defaults)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._scope(node, node.args.defaults, node.args.kw_defaults)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._scope(node, node.decorator_list, node.bases, [k.value for k in node.keywords])


def _scope_globals(table: symtable.SymbolTable) -> set[str]:
    """The module names a function, lambda or class (and what it nests) reads or writes."""
    names = set()
    if table.get_type() != "module":
        names = {s.get_name() for s in table.get_symbols() if s.is_global()}
        if table.get_type() == "class":  # a class body's own names are the class's
            names |= {
                s.get_name()
                for s in table.get_symbols()
                if s.is_referenced() and not s.is_assigned() and not s.is_parameter()
            }
    for child in table.get_children():
        names |= _scope_globals(child)
    return names


@dataclasses.dataclass
class Page:
    """A page's source, parsed: its statements before ``FIXES``, and what each binds and reads."""

    topic: str
    path: Path
    tree: ast.Module
    fixes_at: int  # the index of the FIXES statement in tree.body

    @classmethod
    def read(cls, topic: str) -> Page:
        path = ROOT / script(topic)
        tree = ast.parse(path.read_text(), str(path))
        at = [
            i
            for i, stmt in enumerate(tree.body)
            if isinstance(stmt, ast.Assign)
            and [getattr(t, "id", None) for t in stmt.targets] == ["FIXES"]
        ]
        assert len(at) == 1, f"{script(topic)} must assign FIXES once, at module level"
        return cls(topic, path, tree, at[0])

    def uses(self) -> dict[int, set[str]]:
        """For each top-level statement, the module names it reads (its nested scopes too)."""
        table = symtable.symtable(self.path.read_text(), str(self.path), "exec")
        children = table.get_children()
        uses = {}
        for i, stmt in enumerate(self.tree.body):
            first = min([stmt.lineno, *[d.lineno for d in getattr(stmt, "decorator_list", [])]])
            direct = _DirectNames()
            direct.visit(stmt)
            names = set(direct.names)
            for child in children:
                if first <= child.get_lineno() <= stmt.end_lineno:
                    names |= _scope_globals(child)
            uses[i] = names
        return uses

    def needed(self) -> list[int]:
        """The statements FIXES needs, by index, in the page's order."""
        uses = self.uses()
        binders: dict[str, list[int]] = {}
        for i, stmt in enumerate(self.tree.body[: self.fixes_at]):
            for name in _bound(stmt):
                binders.setdefault(name, []).append(i)
        chosen: set[int] = set()
        todo = [*uses[self.fixes_at], *self.declared()]  # a key names a function of the page
        while todo:
            name = todo.pop()
            for i in binders.get(name, []):
                stmt = self.tree.body[i]
                if not _replayable(stmt):
                    kind = type(stmt).__name__
                    raise AssertionError(
                        f"{script(self.topic)}:{stmt.lineno}: FIXES needs `{name}`, and this "
                        f"{kind} statement binds it: the test cannot replay a cell's work. Give "
                        "what FIXES uses a plain definition of its own"
                    )
                if i not in chosen:
                    chosen.add(i)
                    todo.extend(uses[i])
        return sorted(chosen)

    def load(self) -> tuple[types.ModuleType, dict[str, Any]]:
        """Run the statements FIXES needs, and FIXES; return the module and the table."""
        module = types.ModuleType(f"gallery_{self.topic}")
        module.__file__ = str(self.path)
        body = [self.tree.body[i] for i in self.needed()] + [self.tree.body[self.fixes_at]]
        code = compile(ast.Module(body=body, type_ignores=[]), str(self.path), "exec")
        sys.modules[module.__name__] = module  # so that dataclasses and pickling find it
        exec(code, module.__dict__)  # noqa: S102 - the gallery's own code
        return module, module.__dict__["FIXES"]

    def fix_section_functions(self) -> dict[str, int]:
        """The functions defined in the page's fix sections: name -> line."""
        text = self.path.read_text()
        starts = [
            (text.count("\n", 0, m.start()) + 1, m.group("title")) for m in _HEADING.finditer(text)
        ]

        def section(line: int) -> str:
            titles = [title for start, title in starts if start <= line]
            return titles[-1] if titles else ""

        lines = text.splitlines()
        ignored, inside = set(), False  # the hidden plumbing, FIXES's helpers among it
        for number, line in enumerate(lines, 1):
            inside = (inside or "sphinx_gallery_start_ignore" in line) and (
                "sphinx_gallery_end_ignore" not in line
            )
            if inside:
                ignored.add(number)
        found = {}
        for stmt in self.tree.body[: self.fixes_at]:
            if not _FIX_SECTION.match(section(stmt.lineno)) or stmt.lineno in ignored:
                continue
            if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
                found[stmt.name] = stmt.lineno
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target, value = stmt.targets[0], stmt.value
                callee = value.func if isinstance(value, ast.Call) else None
                name = getattr(callee, "attr", getattr(callee, "id", None))
                if isinstance(target, ast.Name) and (
                    isinstance(value, ast.Lambda) or name in _MAKES_A_FUNCTION
                ):
                    found[target.id] = stmt.lineno
        return found

    def declared(self) -> dict[str, ast.expr]:
        """FIXES as written: its keys, each with its value's source node."""
        value = self.tree.body[self.fixes_at].value
        assert isinstance(value, ast.Dict), f"{script(self.topic)}: FIXES must be a dict literal"
        keys = []
        for key in value.keys:
            assert isinstance(key, ast.Constant) and isinstance(key.value, str), (
                f"{script(self.topic)}: every key of FIXES is a string, a function's name"
            )
            keys.append(key.value)
        return dict(zip(keys, value.values, strict=True))


# -- One fix, and what "holds" means for each transformation ---------------------------------


@dataclasses.dataclass
class Fix:
    """One entry of a page's FIXES, checked and completed."""

    topic: str
    name: str
    fn: Callable[..., Any]
    args: Callable[[], tuple]
    static: dict[str, Any]
    holds: tuple[str, ...]
    breaks: dict[str, tuple[Any, str, str]]
    not_applicable: dict[str, str]
    needs: str | None
    wrt: int
    in_axes: Any
    change: Callable[[], None] | None
    same: str | None
    tol: float
    donates: tuple[int, ...]
    reported: dict[str, str]  # what check_pure reports on it, each with where the page explains

    @classmethod
    def from_entry(cls, topic: str, name: str, entry: dict, module: types.ModuleType) -> Fix:
        unknown = set(entry) - _ENTRY_KEYS
        assert not unknown, f"{topic}: FIXES[{name!r}] has unknown keys {sorted(unknown)}"
        fn = entry["fn"] if "fn" in entry else getattr(module, name)
        args = entry.get("args", ())
        breaks = dict(entry.get("breaks", {}))
        not_applicable = dict(entry.get("not", {}))
        where = set(breaks) | set(not_applicable)
        assert where <= set(TRANSFORMATIONS), f"{topic}: FIXES[{name!r}] names {sorted(where)}"
        assert not set(breaks) & set(not_applicable), f"{topic}: FIXES[{name!r}]: breaks or not?"
        for how, why in not_applicable.items():
            assert isinstance(why, str) and why, f"{topic}: FIXES[{name!r}]['not'][{how!r}]: why?"
        reported = dict(entry.get("check_pure", {}))
        for kind, why in reported.items():
            assert isinstance(why, str) and why, f"{topic}: FIXES[{name!r}]['check_pure'][{kind!r}]"
        return cls(
            topic=topic,
            name=name,
            fn=fn,
            args=args if callable(args) else (lambda args=args: args),
            static=dict(entry.get("static", {})),
            holds=tuple(t for t in TRANSFORMATIONS if t not in where),
            breaks=breaks,
            not_applicable=not_applicable,
            needs=entry.get("needs"),
            wrt=entry.get("wrt", 0),
            in_axes=entry.get("in_axes", 0),
            change=entry.get("change"),
            same=entry.get("same"),
            tol=entry.get("tol", 1e-5),
            donates=tuple(entry.get("donates", ())),
            reported=reported,
        )

    def call(self, *args: Any) -> Any:
        return self.fn(*args, **self.static)

    def bound(self) -> Callable[..., Any]:
        """The fix with its settings held static (closed over), as a reader passes it on."""
        return functools.partial(self.fn, **self.static) if self.static else self.fn


def _inexact(leaf: Any) -> bool:
    return isinstance(leaf, float) or (
        hasattr(leaf, "dtype") and jnp.issubdtype(leaf.dtype, jnp.inexact)
    )


def _is_key(leaf: Any) -> bool:
    return hasattr(leaf, "dtype") and jnp.issubdtype(leaf.dtype, jax.dtypes.prng_key)


def _deleted(tree: Any) -> list[bool]:
    """Whether each array leaf of ``tree`` was deleted (given away by a donation)."""
    return [leaf.is_deleted() for leaf in jax.tree_util.tree_leaves(tree)]


def _twice(tree: Any) -> Any:
    """The outer function's own work on the fix's result: doubles every float."""
    return jax.tree_util.tree_map(lambda v: v * 2 if _inexact(v) else v, tree)


def _same(got: Any, want: Any, tol: float) -> str | None:
    """Why ``got`` and ``want`` differ, or None."""
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    if got_tree != want_tree:
        return f"structure {got_tree} != {want_tree}"
    for i, (a, b) in enumerate(zip(got_leaves, want_leaves, strict=True)):
        if _is_key(a) or _is_key(b):
            a, b = jax.random.key_data(a), jax.random.key_data(b)
        if hasattr(a, "shape") or hasattr(b, "shape"):
            a, b = np.asarray(a), np.asarray(b)
            if a.shape != b.shape:
                return f"leaf {i}: shape {a.shape} != {b.shape}"
            if not np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True):
                return f"leaf {i}: {a.tolist()} != {b.tolist()}"
        elif a != b:
            return f"leaf {i}: {a!r} != {b!r}"
    return None


def _floats_of(tree: Any) -> tuple[list, Callable[[list], Any]]:
    """The float leaves of ``tree``, and a function that puts others in their places."""
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    at = [i for i, leaf in enumerate(leaves) if _inexact(leaf)]

    def rebuild(floats: list) -> Any:
        new = list(leaves)
        for i, value in zip(at, floats, strict=True):
            new[i] = value
        return jax.tree_util.tree_unflatten(treedef, new)

    return [jnp.asarray(leaves[i]) for i in at], rebuild


def _total(out: Any) -> jax.Array:
    floats = [jnp.sum(v) for v in jax.tree_util.tree_leaves(out) if _inexact(v)]
    assert floats, "the fix returns no float: declare 'grad' under 'not', with the reason"
    return sum(floats[1:], floats[0])


def _halved(tree: Any) -> Any:
    return jax.tree_util.tree_map(lambda v: v * 0.5 if _inexact(v) else v, tree)


def _stack(a: Any, b: Any) -> Any:
    return jax.tree_util.tree_map(lambda u, v: jnp.stack([jnp.asarray(u), jnp.asarray(v)]), a, b)


def _run(fix: Fix, how: str) -> Any:
    """What ``how`` gives, beside what it should give; raises what JAX raised."""
    f = fix.bound()
    if how in ("jit", "nested"):
        outer = f if how == "jit" else (lambda *a: _twice(f(*a)))
        g = jax.jit(outer, donate_argnums=fix.donates)
        if fix.change is not None:
            g(*fix.args())  # compiled now; then the setting changes, and the fix reacts
            fix.change()
        args = fix.args()
        got = g(*args)
        alive = [i for i in fix.donates if not all(_deleted(args[i]))]
        if alive:
            return f"donated argument(s) {alive} still alive", "every donated argument deleted"
        want = fix.call(*fix.args())
        return got, (want if how == "jit" else _twice(want))
    if how == "grad":
        floats, _ = _floats_of(fix.args()[fix.wrt])
        assert floats, "the argument to differentiate has no float: set 'wrt', or declare 'not'"

        def loss(floats: list, others: list) -> jax.Array:
            _, rebuild = _floats_of(
                fix.args()[fix.wrt]
            )  # its other leaves fresh: a call may donate them
            return _total(fix.call(*others[: fix.wrt], rebuild(floats), *others[fix.wrt :]))

        def others() -> list:  # fresh for each call: state a call uses up (a Ref) is new
            args = list(fix.args())
            return args[: fix.wrt] + args[fix.wrt + 1 :]

        # As readers take it: jit(grad(...)), every other argument traced by jit.
        grads = jax.jit(jax.grad(loss))(floats, others())
        if not all(bool(jnp.isfinite(g).all()) for g in grads):
            return f"a gradient of {[g.tolist() for g in grads]}", "a finite gradient"
        rng = np.random.default_rng(0)
        direction = [jnp.asarray(rng.normal(size=np.shape(v)), jnp.result_type(v)) for v in floats]
        eps = 1e-2
        up = float(loss([v + eps * d for v, d in zip(floats, direction, strict=True)], others()))
        down = float(loss([v - eps * d for v, d in zip(floats, direction, strict=True)], others()))
        slope = (up - down) / (2 * eps)
        dot = sum(float(jnp.sum(g * d)) for g, d in zip(grads, direction, strict=True))
        allowed = 2e-2 * (abs(dot) + abs(slope)) + 1e-3 * (1 + abs(float(loss(floats, others()))))
        # The gradient along a random direction, against the finite difference along it.
        return dot, (dot if abs(dot - slope) <= allowed else slope)
    if how == "vmap":
        axes = fix.in_axes if isinstance(fix.in_axes, tuple) else None
        first = fix.args()
        axes = axes or (fix.in_axes,) * len(first)
        second = [
            _halved(b) if axis == 0 else a
            for a, b, axis in zip(first, fix.args(), axes, strict=True)
        ]
        batch = [
            _stack(a, b) if axis == 0 else a for a, b, axis in zip(first, second, axes, strict=True)
        ]
        got = jax.vmap(f, in_axes=axes)(*batch)
        one, two = fix.call(*first), fix.call(*second)
        return got, _stack(one, two)
    raise AssertionError(how)


def check(fix: Fix, how: str) -> str | None:
    """Why ``fix`` does not do under ``how`` what its page declares, or None."""
    if how in fix.not_applicable:
        return None
    expected = fix.breaks.get(how)
    try:
        with jaxpurity.printed(echo=False):
            got, want = _run(fix, how)
    except Exception as error:  # noqa: BLE001 - a declared break is an exception, any kind
        if expected is not None and expected[0] not in ("differs",):
            if isinstance(error, expected[0]) and re.search(expected[1], str(error)):
                return None
        return f"raised {type(error).__name__}: {str(error).splitlines()[0][:300]}"
    differs = None if fix.same is not None and how != "grad" else _same(got, want, fix.tol)
    if expected is None:
        return None if differs is None else f"gives another result: {differs}"
    if expected[0] == "differs":
        return None if differs is not None else "declared to differ, and gives the same result"
    return f"declared to raise {expected[0].__name__}, and raised nothing"


# -- The tests ---------------------------------------------------------------------------------


@functools.cache
def _page(topic: str) -> Page:
    return Page.read(topic)


@functools.cache
def _loaded(topic: str) -> tuple[types.ModuleType, dict[str, Any]]:
    if why := missing(topic):  # its imports would fail: jaxpurity._pages.NEEDS
        pytest.skip(f"{script(topic)} {why}")
    return _page(topic).load()


def _entries() -> list[tuple[str, str]]:
    """Every (page, fix) pair; a page without a FIXES table fails its declaration test."""
    entries = []
    for topic in TOPICS:
        try:
            entries += [(topic, name) for name in _page(topic).declared()]
        except AssertionError:
            continue
    return entries


def _missing_feature(fix: Fix) -> str | None:
    if fix.needs is None:
        return None
    obj: Any = sys.modules["jax"]
    for part in fix.needs.split(".")[1:]:
        if not hasattr(obj, part):
            return f"declared: needs {fix.needs}, which JAX {jax.__version__} does not have"
        obj = getattr(obj, part)
    return None


@pytest.mark.parametrize("topic", TOPICS)
def test_every_page_declares_its_fixes(topic):
    page = _page(topic)
    declared = page.declared()
    undeclared = {
        name: line for name, line in page.fix_section_functions().items() if name not in declared
    }
    assert not undeclared, (
        f"{script(topic)} defines these in fix sections and FIXES does not declare them: "
        + ", ".join(f"{name} (line {line})" for name, line in undeclared.items())
    )


@pytest.mark.parametrize(("topic", "name"), _entries())
def test_the_fix_holds_where_its_page_says(topic, name):
    module, table = _loaded(topic)
    entry = table[name]
    if isinstance(entry, str):
        assert entry, f"{topic}: FIXES[{name!r}] is a helper; say why it is not a fix"
        return
    fix = Fix.from_entry(topic, name, entry, module)
    missing = _missing_feature(fix)
    if missing:
        pytest.skip(missing)
    for how, (_, _, instead) in fix.breaks.items():
        if instead in table:
            other = Fix.from_entry(topic, instead, table[instead], module)
            assert how in other.holds, f"{name} breaks under {how}; {instead} must hold there"
        else:
            assert instead in PAGES, f"{name}: {instead!r} is no fix of {topic} and no page"
            doc = re.compile(r":doc:`[^`]*\b" + instead + r">?`")
            assert instead == topic or doc.search(page_text(topic)), (
                f"{name} breaks under {how}: the page must link {instead}"
            )
    failures = {how: why for how in TRANSFORMATIONS if (why := check(fix, how)) is not None}
    assert not failures, f"{topic}: {name}: " + "; ".join(f"{k}: {v}" for k, v in failures.items())


@pytest.mark.parametrize(("topic", "name"), _entries())
def test_check_pure_is_quiet_on_the_fix(topic, name):
    """check_pure on the fix, called as its page calls it: ok, no warning, unless FIXES
    declares what it reports, each kind with where the page explains it."""
    module, table = _loaded(topic)
    if isinstance(table[name], str):
        return
    fix = Fix.from_entry(topic, name, table[name], module)
    if _missing_feature(fix):
        pytest.skip(_missing_feature(fix))
    with jaxpurity.printed(echo=False):
        report = jaxpurity.check_pure(fix.bound(), *fix.args())
    found = {p.kind for p in [*report.problems, *report.warnings]}
    assert found == set(fix.reported), (
        f"{topic}: {name}: declared {sorted(fix.reported)}:\n{report}"
    )


def prose_cells(source: str) -> list[str]:
    """The text cells of a page script (the comment lines after each ``# %%``), each as
    one line of words, as a reader sees them."""
    cells: list[list[str]] = []
    cell: list[str] | None = None
    for line in source.splitlines():
        if line.startswith("# %%"):
            cell = []
            cells.append(cell)
        elif cell is not None and line.startswith("#"):
            cell.append(line[1:])
        else:
            cell = None
    return [" ".join(" ".join(lines).split()) for lines in cells]


def unexplained(cells: list[str], reported: dict[str, str]) -> list[str]:
    """The kinds of ``reported`` whose quote no text cell says beside ``check_pure`` and
    the kind's name (written ````kind````), each with what is wrong."""
    missing = []
    for kind, quote in reported.items():
        said = [cell for cell in cells if " ".join(quote.split()) in cell]
        if not any("check_pure" in cell and f"``{kind}``" in cell for cell in said):
            where = "no text cell says it" if not said else "its cell does not name both"
            missing.append(f"{kind}: {quote!r}: {where}")
    return missing


@pytest.mark.parametrize("topic", TOPICS)
def test_what_check_pure_reports_on_a_fix_is_explained_on_its_page(topic):
    """A kind that check_pure reports on a fix is explained where the reader reads the page:
    the FIXES entry quotes the prose that says why, beside check_pure and the kind's name."""
    try:
        module, table = _loaded(topic)
    except AssertionError:
        pytest.skip("no FIXES table: its declaration test fails")
    cells = prose_cells(page_text(topic))
    missing = {
        name: unexplained(cells, Fix.from_entry(topic, name, entry, module).reported)
        for name, entry in table.items()
        if not isinstance(entry, str)
    }
    missing = {name: kinds for name, kinds in missing.items() if kinds}
    assert not missing, (
        f"{topic}: say in the page's prose why check_pure reports these, naming "
        f"check_pure and ``kind``, and quote that sentence in FIXES: {missing}"
    )


def test_a_reported_kind_the_page_does_not_explain_is_found():
    source = "x = 1\n\n# %%\n# :func:`jaxpurity.check_pure` warns with a\n"
    source += "# ``trace-time-read``: the settings are globals.\n\nFIXES = {}\n"
    cells = prose_cells(source)
    assert cells == [
        ":func:`jaxpurity.check_pure` warns with a ``trace-time-read``: the settings are globals."
    ]
    assert unexplained(cells, {"trace-time-read": "the settings are globals"}) == []
    assert unexplained(cells, {"global-assignment": "the settings are globals"}) == [
        "global-assignment: 'the settings are globals': its cell does not name both"
    ]
    assert unexplained(cells, {"trace-time-read": "SCALE and MODE"}) == [
        "trace-time-read: 'SCALE and MODE': no text cell says it"
    ]


def test_a_function_of_a_fix_section_that_fixes_does_not_name_is_found(tmp_path):
    source = '"""A page\n======\n"""\n\n# %%\n# The fix\n# -------\n\n\ndef fixed(x):\n'
    source += "    return x\n\n\nFIXES = {}\n"
    path = tmp_path / "page.py"
    path.write_text(source)
    tree = ast.parse(source)
    assert Page("page", path, tree, len(tree.body) - 1).fix_section_functions() == {"fixed": 10}


def test_the_matrix_fails_a_fix_that_breaks_undeclared_or_holds_where_declared_broken():
    module = types.ModuleType("page")
    entry = {"fn": lambda x: float(x) * x, "args": (jnp.float32(2.0),)}
    breaks_under_jit = Fix.from_entry("page", "f", entry, module)
    assert check(breaks_under_jit, "jit").startswith("raised ConcretizationTypeError")
    entry = {"fn": lambda x: 2.0 * x, "args": (jnp.float32(2.0),)}
    holds = Fix.from_entry("page", "g", entry | {"breaks": {"jit": ("differs", "", "h")}}, module)
    assert check(holds, "jit") == "declared to differ, and gives the same result"
    assert check(holds, "vmap") is None


@pytest.mark.parametrize("topic", TOPICS)
def test_a_donating_fix_declares_what_it_donates(topic):
    """A fix made with ``jax.jit(..., donate_argnums=...)`` says so in FIXES, so that the
    matrix checks the donation happens where readers call it."""
    declared = _page(topic).declared()
    for stmt in _page(topic).tree.body:
        call = stmt.value if isinstance(stmt, ast.Assign) else None
        if not isinstance(call, ast.Call) or not isinstance(stmt.targets[0], ast.Name):
            continue
        name = stmt.targets[0].id
        for keyword in call.keywords:
            if keyword.arg == "donate_argnums" and name in declared:
                donated = ast.literal_eval(keyword.value)
                entry = ast.literal_eval(_donates_of(declared[name]))
                want = tuple(donated) if isinstance(donated, (tuple, list)) else (donated,)
                assert entry == want, f"{topic}: FIXES[{name!r}] must declare 'donates': {want}"


def _donates_of(entry: ast.expr) -> ast.expr:
    """The ``"donates"`` value of a FIXES entry as written, or ``None``."""
    if isinstance(entry, ast.Dict):
        for key, value in zip(entry.keys, entry.values, strict=True):
            if isinstance(key, ast.Constant) and key.value == "donates":
                return value
    return ast.Constant(None)


def test_the_matrix_fails_a_fix_whose_donation_is_dropped():
    module = types.ModuleType("page")
    # Its only output, a scalar, cannot take the donated float32[4]: JAX keeps the argument.
    loss = jax.jit(lambda p: jnp.sum(p * p), donate_argnums=0)
    entry = {"fn": loss, "args": lambda: (jnp.ones(4),), "donates": (0,)}
    dropped = Fix.from_entry("page", "loss", entry, module)
    with pytest.warns(UserWarning, match="Some donated buffers were not usable"):
        assert "donated argument(s) [0] still alive" in check(dropped, "jit")
    step = jax.jit(lambda p: p - 0.1 * p, donate_argnums=0)
    kept = Fix.from_entry("page", "step", entry | {"fn": step}, module)
    assert check(kept, "jit") is None and check(kept, "nested") is None


def page_text(topic: str) -> str:
    return (ROOT / script(topic)).read_text()


def matrix() -> list[tuple[str, str, dict[str, str]]]:
    """Every declared fix, and for each transformation: holds, breaks, or n/a."""
    rows = []
    for topic in TOPICS:
        if missing(topic):
            print(f"{topic:<28} skipped: it {missing(topic)}")
            continue
        module, table = _loaded(topic)
        for name, entry in table.items():
            if isinstance(entry, str):
                continue
            fix = Fix.from_entry(topic, name, entry, module)
            cells = {how: "holds" for how in fix.holds}
            cells |= {how: "breaks" for how in fix.breaks}
            cells |= {how: "n/a" for how in fix.not_applicable}
            rows.append((topic, name, cells))
    return rows


if __name__ == "__main__":
    start = time.perf_counter()
    rows, failed = matrix(), []
    for topic, name, cells in rows:
        module, table = _loaded(topic)
        fix = Fix.from_entry(topic, name, table[name], module)
        missing = _missing_feature(fix)
        marks = []
        for how in TRANSFORMATIONS:
            why = None if missing or cells[how] == "n/a" else check(fix, how)
            if why:
                failed.append(f"{topic}: {name}: {how}: {why}")
            marks.append("missing" if missing else "FAILS" if why else cells[how])
        print(f"{topic:<28} {name:<26} " + " ".join(f"{m:<7}" for m in marks))
    cells = [c for _, _, row in rows for c in row.values()]
    print(
        f"JAX {jax.__version__}: {len(rows)} fixes x {len(TRANSFORMATIONS)} transformations = "
        f"{len(cells)} cells: {cells.count('holds')} hold, {cells.count('breaks')} break as "
        f"their pages show, {cells.count('n/a')} do not apply; "
        f"{time.perf_counter() - start:.1f} s"
    )
    print("\n".join(failed))
    sys.exit(1 if failed else 0)
