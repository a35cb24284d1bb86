"""``jaxpurity lint``: find impure JAX code in source files, without importing or running them.

:func:`lint` checks source text or files and folders, and returns a
:class:`Finding` per problem, each linking the page of the site that explains
it. How it finds the code JAX traces is :mod:`jaxpurity.linter.analysis._module`; the
rules and their checks are the families of :mod:`jaxpurity.linter.rules`,
gathered in :mod:`jaxpurity.linter._rules` and run by :mod:`jaxpurity.linter._checker`.
A ``# noqa`` comment silences every finding on its line, ``# noqa: JP101,JP2``
the listed codes (or prefixes). Settings come from ``[tool.jaxpurity.lint]``
(:mod:`jaxpurity.linter._config`).

Complexity: each file is parsed once, and every step after that is linear in
the size of its syntax tree (the modules above say why), so checking is linear
in the size of the input.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import importlib.util
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from jaxpurity.linter._checker import check
from jaxpurity.linter._config import LintConfig, find_config
from jaxpurity.linter._finding import UNPARSABLE, Finding
from jaxpurity.linter._rules import rule, selected
from jaxpurity.linter._run import run
from jaxpurity.linter.analysis._known_transforms import with_jit_wrappers
from jaxpurity.linter.analysis._module import ModuleAnalysis
from jaxpurity.linter.analysis._names import Names
from jaxpurity.linter.analysis._package import Entry, Package

__all__ = [
    "check_file",
    "findings_in",
    "lint",
    "lint_paths",
    "lint_source",
    "python_files",
]

_NOQA = re.compile(r"#\s*noqa(?::[\s]*(?P<codes>[A-Z]+[0-9]*(?:[\s,]+[A-Z]+[0-9]*)*))?", re.I)
# Folders never searched for files: hidden ones (.git, .venv, .tox), caches, installed packages.
_SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "site-packages"})


def lint(
    *paths: str | os.PathLike[str],
    source: str | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    wrappers: Iterable[str] = (),
    config: bool = True,
) -> list[Finding]:
    """Find impure JAX code, statically: nothing is imported or run.

    It finds the functions JAX traces (decorated with or passed to ``jax.jit``,
    ``vmap``, ``grad``, ``pmap``, ``shard_map``, ``checkpoint``, ``eqx.filter_jit``,
    ``nnx.jit`` or ``hk.transform``, bodies of ``lax.scan``, ``fori_loop``,
    ``while_loop``, ``cond``, ``switch`` and ``map``, and the functions they call in
    the same module) and reports, in them, what the site's pages show breaking:
    globals and outer containers changed, ``self`` assigned, NumPy randomness,
    ``print`` of a tracer, Python ``if`` on a traced value, and more
    (``jaxpurity lint --explain`` lists every rule, and what each cannot see).
    Nothing is reported inside ``with pytest.raises(...)``, ``self.assertRaises(...)``
    (and its ``Regex`` kin) or ``np.testing.assert_raises(...)``: code that a test
    expects to fail.

    Args:
      *paths: Files and folders to check (folders recursively, without hidden folders
        and virtual environments).
      source: Python source to check instead of files.
      select: Codes or prefixes to check (``["JP1", "JP201"]``); default: those of the
        configuration, or every rule on by default (JP122 is off unless named by its code).
      ignore: Codes or prefixes not to check, added to the configuration's.
      wrappers: Qualified names of your own wrappers of ``jax.jit``, added to the
        configuration's.
      config: Read ``[tool.jaxpurity.lint]`` from the nearest pyproject.toml of each
        file (not for ``source``).

    Returns:
      The findings, by file, line and column.

    Raises:
      FileNotFoundError: A path does not exist.
      ValueError: A code or prefix matches no rule, both or neither of ``paths`` and
        ``source`` are given, or a configuration is invalid.

    Example:
      >>> findings = lint(source='''
      ... import jax
      ...
      ... @jax.jit
      ... def step(x):
      ...     print("x =", x)
      ...     return x * 2
      ... ''')
      >>> for finding in findings:
      ...     print(finding.line, finding.code, finding.topic)
      6 JP130 print_vs_debug_print
    """
    if (source is None) == (not paths):
        raise ValueError("lint: give paths to check, or source=, not both")
    if source is not None:
        codes = selected(select, ignore)
        return lint_source(source, "<string>", codes, frozenset(wrappers))
    # One process: a pool would start this program's main module again in each worker,
    # which a script that calls lint() without a __main__ guard cannot bear.
    return lint_paths(
        paths, select=select, ignore=ignore, wrappers=wrappers, config=config, jobs=1
    )[0]


def lint_paths(
    paths: Iterable[str | os.PathLike[str]],
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    wrappers: Iterable[str] = (),
    config: bool = True,
    jobs: int | None = None,
    progress: bool = False,
) -> tuple[list[Finding], int]:
    """:func:`lint` for files and folders: the findings, and how many files were checked.

    The files are checked as one package: traced code that calls a function of another
    module traces it there too (:mod:`jaxpurity.linter._run`). ``jobs``: how many
    processes check files (default: one per core, for more than a few dozen files);
    ``progress``: show how far it got on standard error, for more than a few hundred files.
    """
    select = None if select is None else tuple(select)
    ignore, wrappers = tuple(ignore), tuple(wrappers)
    configs: dict[Path, LintConfig] = {}
    settings: dict[LintConfig, tuple[frozenset[str], frozenset[str]]] = {}
    tasks: list[tuple[str, frozenset[str], frozenset[str]]] = []
    for path in python_files(paths):
        found = find_config(path.parent, configs) if config else LintConfig()
        if found not in settings:
            try:
                codes = selected(found.select if select is None else select, found.ignore + ignore)
            except ValueError as error:
                where = f" (in {found.path})" if found.path else ""
                raise ValueError(f"{error}{where}") from None
            settings[found] = (codes, frozenset(found.wrappers + wrappers))
        tasks.append((str(path), *settings[found]))
    roots = [Path(p) for p in paths if Path(p).is_dir()]
    return run(tasks, roots, check_file, jobs=jobs, progress=progress), len(tasks)


def check_file(
    path: str,
    codes: frozenset[str],
    jit_wrappers: frozenset[str],
    package: Package | None = None,
    entries: Iterable[Entry] = (),
) -> tuple[list[Finding], list[Entry]]:
    """The findings in one file, less those that ``# noqa`` silences, and how its traced
    code reaches functions of the other modules of ``package``."""
    try:
        text = importlib.util.decode_source(Path(path).read_bytes())
    except (OSError, SyntaxError, UnicodeDecodeError) as error:
        return [_unchecked(path, 1, 1, f"cannot read it: {error}")], []
    return _check_source(text, path, codes, jit_wrappers, package, entries)


def python_files(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """The Python files of ``paths``: each file given, and the ``.py`` files under each
    folder, in sorted order, without hidden folders, caches and virtual environments.

    Raises:
      FileNotFoundError: A path does not exist.
    """
    seen: set[Path] = set()
    for given in paths:
        path = Path(given)
        if path.is_file():
            candidates: Iterable[Path] = [path]
        elif path.is_dir():
            candidates = _walk(path)
        else:
            raise FileNotFoundError(f"{str(given)!r}: no such file or folder")
        for candidate in candidates:
            key = candidate.resolve()
            if key not in seen:
                seen.add(key)
                yield candidate


def _walk(folder: Path) -> Iterator[Path]:
    for root, folders, files in os.walk(folder):
        folders[:] = sorted(
            name
            for name in folders
            if not name.startswith(".")
            and name not in _SKIPPED_FOLDERS
            and not (Path(root, name) / "pyvenv.cfg").exists()
        )
        for name in sorted(files):
            if name.endswith(".py"):
                yield Path(root, name)


def lint_source(
    source: str, path: str, codes: frozenset[str], jit_wrappers: frozenset[str] = frozenset()
) -> list[Finding]:
    """The findings of ``codes`` in one module's ``source``, named ``path`` in them, less
    those that a ``# noqa`` comment silences.

    Example:
      >>> source = "import jax\\nf = jax.jit(lambda x: float(x))  # noqa: JP202\\n"
      >>> lint_source(source, "f.py", frozenset({"JP202"}))
      []
    """
    return _check_source(source, path, codes, jit_wrappers)[0]


def _check_source(
    source: str,
    path: str,
    codes: frozenset[str],
    jit_wrappers: frozenset[str],
    package: Package | None = None,
    entries: Iterable[Entry] = (),
) -> tuple[list[Finding], list[Entry]]:
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as error:
        reason = f"cannot parse it: {error.msg}"
        return [_unchecked(path, error.lineno or 1, error.offset or 1, reason)], []
    except (ValueError, RecursionError) as error:  # null bytes; nesting deeper than the parser's
        return [_unchecked(path, 1, 1, f"cannot parse it: {error}")], []
    lines = source.splitlines()
    silenced = _noqa(lines)
    outgoing: list[Entry] = []
    found = findings_in(tree, path, codes, jit_wrappers, lines, package, entries, outgoing)
    return [f for f in found if not _is_silenced(silenced.get(f.line), f.code)], outgoing


def findings_in(
    tree: ast.Module,
    path: str,
    codes: frozenset[str],
    jit_wrappers: frozenset[str] = frozenset(),
    lines: list[str] | None = None,
    package: Package | None = None,
    entries: Iterable[Entry] = (),
    outgoing: list[Entry] | None = None,
) -> list[Finding]:
    """The findings of ``codes`` in a parsed module, by line and column; ``lines`` (its
    source) turns byte offsets into columns on lines that are not ASCII. ``# noqa`` is not
    read here (flake8 reads it itself). With a ``package``, what its other modules' traced
    code does here (``entries``) is followed, and how this module's reaches them is added
    to ``outgoing``."""
    try:
        with _no_garbage_collection():
            names = Names(tree, package.package_of(path) if package else None)
            known = with_jit_wrappers(jit_wrappers)
            analysis = ModuleAnalysis(tree, names, known, package, path, entries)
            hits = check(analysis)
    except RecursionError:
        return [_unchecked(path, 1, 1, "an expression is nested too deeply to check")]
    if outgoing is not None:
        outgoing += analysis.outgoing
    findings: dict[tuple[int, int, str], Finding] = {}
    for hit in hits:
        if hit.code not in codes:
            continue
        line = getattr(hit.node, "lineno", 1)
        col = _column(lines or [], line, getattr(hit.node, "col_offset", 0))
        found = rule(hit.code)
        message = found.message.format(**hit.fields)
        finding = Finding(path, line, col, hit.code, message, found.topic, found.url)
        findings.setdefault((line, col, hit.code), finding)
    return [findings[key] for key in sorted(findings)]


@contextlib.contextmanager
def _no_garbage_collection() -> Iterator[None]:
    """Python's cyclic garbage collector off while one module is checked: its full passes
    over a heap that grows with the module would make a large module's check superlinear.
    What the check leaves is collected after it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _unchecked(path: str, line: int, col: int, reason: str) -> Finding:
    return Finding(
        path, line, col, UNPARSABLE, f"{reason}; nothing in this file was checked", None, None
    )


def _noqa(lines: list[str]) -> dict[int, frozenset[str]]:
    """Each line with a ``# noqa``: the codes and prefixes it silences; empty for all."""
    silenced: dict[int, frozenset[str]] = {}
    for number, text in enumerate(lines, start=1):
        if "noqa" not in text.lower():
            continue
        match = _NOQA.search(text)
        if match:
            codes = match.group("codes")
            silenced[number] = frozenset(
                re.split(r"[\s,]+", codes.upper().strip()) if codes else ()
            )
    return silenced


def _is_silenced(codes: frozenset[str] | None, code: str) -> bool:
    if codes is None:
        return False
    return not codes or any(code.startswith(prefix) for prefix in codes)


def _column(lines: list[str], line: int, offset: int) -> int:
    """The 1-based column of a UTF-8 byte ``offset`` on ``line``."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    if text.isascii():
        return offset + 1
    return len(text.encode()[:offset].decode(errors="ignore")) + 1
