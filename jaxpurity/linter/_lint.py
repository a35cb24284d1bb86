"""``jaxpurity lint``: find impure JAX code in source files, without importing or running them.

:func:`lint` checks source text or files and folders, and returns a
:class:`Finding` per problem, each linking the page of the site that explains
it. How it finds the code JAX traces is :mod:`jaxpurity.linter.analysis._module`; the
rules and their checks are the families of :mod:`jaxpurity.linter.rules`,
gathered in :mod:`jaxpurity.linter._rules` and run by :mod:`jaxpurity.linter._checker`.
A ``# noqa`` comment silences every finding on its line, ``# noqa: JP101,JP2``
the listed codes (or prefixes). Settings come from ``[tool.jaxpurity.lint]``
(:mod:`jaxpurity.linter._config`); a tree's results are kept in a cache
(:mod:`jaxpurity.linter._cache`).

It answers on any input: a file it cannot read or parse (a syntax error, bytes that
are not text in the encoding it declares, a coding cookie that names no text
encoding, a NUL byte, nesting deeper than Python's parser goes) is one ``JP000``
finding that says why, and anything under a folder that is not a regular file (a
FIFO, a socket, a symlink loop) is skipped with a note.

Complexity: each file is parsed once, and every step after that is linear in
the size of its syntax tree (the modules above say why), so checking is linear
in the size of the input.
"""

from __future__ import annotations

import ast
import contextlib
import errno
import gc
import importlib.util
import io
import os
import re
import stat
import tokenize
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from jaxpurity.linter._cache import Cache, content_digest, default_folder
from jaxpurity.linter._checker import check
from jaxpurity.linter._config import LintConfig, find_config
from jaxpurity.linter._finding import UNPARSABLE, Finding
from jaxpurity.linter._rules import DEFAULT, rule, selected
from jaxpurity.linter._run import Checked, run
from jaxpurity.linter.analysis._known_transforms import with_jit_wrappers
from jaxpurity.linter.analysis._module import ModuleAnalysis
from jaxpurity.linter.analysis._names import Names
from jaxpurity.linter.analysis._package import Entry, LayerText, Package, Target, real_path

__all__ = [
    "check_file",
    "findings_in",
    "lint",
    "lint_paths",
    "lint_source",
    "lint_traced",
    "python_files",
]

_NOQA = re.compile(r"#\s*noqa(?::[\s]*(?P<codes>[A-Z]+[0-9]*(?:[\s,]+[A-Z]+[0-9]*)*))?", re.I)
# Folders never searched for files: hidden ones (.git, .venv, .tox), caches, installed packages.
_SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "site-packages"})
# How each option's values are written, for the errors that say how to pass them.
_EXAMPLES = {
    "select": ("codes", "select=['JP1']"),
    "ignore": ("codes", "ignore=['JP111']"),
    "wrappers": ("qualified names", "wrappers=['mylib.jit']"),
}


def lint(
    *paths: str | os.PathLike[str],
    source: str | bytes | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    wrappers: Iterable[str] = (),
    config: bool = True,
    cache: bool = True,
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
    Code a test expects to fail (under ``pytest.raises``, ``assertRaises`` and its kin) is
    not reported. A file that cannot be read or parsed is one ``JP000`` finding that says
    why; what is not a regular file (a FIFO, a symlink loop) is skipped, with a warning.

    Args:
      *paths: Files and folders to check (folders recursively, without hidden folders and
        virtual environments).
      source: Python source to check instead of files: a str, or bytes decoded as Python
        decodes a file (a UTF-8 BOM or a ``# -*- coding: ... -*-`` cookie, else UTF-8).
      select: Codes or prefixes to check (``["JP1", "JP201"]``); default (None): those of
        the configuration, or every rule on by default (JP122 is off unless named by its
        code).
      ignore: Codes or prefixes not to check, added to the configuration's.
      wrappers: Qualified names of your own wrappers of ``jax.jit``, added to the
        configuration's.
      config: Read ``[tool.jaxpurity.lint]`` from the nearest pyproject.toml of each
        file (not for ``source``).
      cache: Keep each file's results in ``.jaxpurity_cache/`` at the root of the tree,
        and read them back while the file, the settings and what the package's other
        modules send it are unchanged (not for ``source``). The findings are the same
        either way; ``cache=False`` (as in CI) leaves the folder alone.

    Returns:
      The findings, by file, line and column.

    Raises:
      FileNotFoundError: A path does not exist.
      TypeError: ``select``, ``ignore`` or ``wrappers`` is not a list of strings, a
        path is not a str or a path, or ``source`` is neither str nor bytes.
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
    if source is not None and paths:
        raise ValueError("lint: give paths to check or source=, not both")
    if source is None and not paths:
        raise ValueError("lint: give the files or folders to check, or source= with Python code")
    if source is not None:
        codes = selected(_select(select), _listed(ignore, "ignore"))
        jit_wrappers = frozenset(_listed(wrappers, "wrappers"))
        if isinstance(source, (bytes, bytearray, memoryview)):
            text = _decoded(bytes(source))
            if not isinstance(text, str):
                return [_unchecked("<string>", *text)]
            source = text
        if not isinstance(source, str):
            raise TypeError(
                f"lint: source= must be Python source, a str (or bytes, decoded as Python "
                f"decodes a file), not {type(source).__name__}"
            )
        return lint_source(source, "<string>", codes, jit_wrappers)
    notes: list[str] = []
    # One process: a pool would start this program's main module again in each worker,
    # which a script that calls lint() without a __main__ guard cannot bear.
    findings = lint_paths(
        paths,
        select=select,
        ignore=ignore,
        wrappers=wrappers,
        config=config,
        jobs=1,
        cache=cache,
        note=notes.append,
    )[0]
    for note in notes:
        warnings.warn(f"jaxpurity lint: {note}", stacklevel=2)
    return findings


def lint_paths(
    paths: Iterable[str | bytes | os.PathLike[str]],
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    wrappers: Iterable[str] = (),
    config: bool = True,
    jobs: int | None = None,
    progress: bool = False,
    cache: bool = False,
    cache_dir: str | os.PathLike[str] | None = None,
    note: Callable[[str], None] | None = None,
) -> tuple[list[Finding], int]:
    """:func:`lint` for files and folders: the findings, and how many files were checked.

    The files are checked as one package: traced code that calls a function of another
    module traces it there too (:mod:`jaxpurity.linter._run`). ``jobs``: how many
    processes check files (default: :func:`~jaxpurity.linter._run.default_jobs`);
    ``progress``: show how far it got on standard error, for more than a few hundred
    files; ``cache``: read and keep results in ``cache_dir`` (default:
    :func:`~jaxpurity.linter._cache.default_folder`); ``note``: what to do with a note
    on a path skipped (default: a warning).
    """
    select = _select(select)
    ignore, wrappers = _listed(ignore, "ignore"), _listed(wrappers, "wrappers")
    given = [_path(p) for p in paths]
    configs: dict[Path, LintConfig] = {}
    settings: dict[LintConfig, tuple[frozenset[str], frozenset[str]]] = {}
    tasks: list[tuple[str, frozenset[str], frozenset[str]]] = []
    folders: dict[Path, LintConfig] = {}  # each folder's settings, by its path as found
    for path in python_files(given, note):
        if path.parent not in folders:
            folders[path.parent] = find_config(path.parent, configs) if config else LintConfig()
        found = folders[path.parent]
        if found not in settings:
            try:
                codes = selected(found.select if select is None else select, found.ignore + ignore)
            except ValueError as error:
                where = f" (in {found.path})" if found.path else ""
                raise ValueError(f"{error}{where}") from None
            settings[found] = (codes, frozenset(found.wrappers + wrappers))
        tasks.append((str(path), *settings[found]))
    roots = [Path(p) for p in given if Path(p).is_dir()]
    kept = None
    if cache and tasks:
        kept = Cache.open(Path(cache_dir) if cache_dir is not None else default_folder(given))
    findings = run(tasks, roots, check_file, jobs=jobs, progress=progress, cache=kept)
    if kept is not None:
        kept.save()
    return findings, len(tasks)


def _select(value: object) -> tuple[str, ...] | None:
    """``select`` as a tuple of strings; None (every rule on by default) for None."""
    return None if value is None else _listed(value, "select")


def _listed(value: object, option: str) -> tuple[str, ...]:
    """An option's list of strings (codes, or qualified names) as a tuple.

    Raises:
      TypeError: Not a list of strings: a string, None, or a list holding something else.
    """
    what, example = _EXAMPLES[option]
    fix = f"pass a list of {what}, e.g. {example}"
    if value is None:
        raise TypeError(f"lint: {option} must be a list of {what}, not None: {fix}, or omit it")
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"lint: {option} must be a list of {what}, not {_shown(value)}: {fix}")
    items = tuple(value)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(
                f"lint: {option} must be a list of {what} (strings), but it holds "
                f"{_shown(item)}: {fix}"
            )
    return items


def _shown(value: object) -> str:
    """A value as an error names it: ``the str 'JP1'``, ``the int 1``, ``None``."""
    if value is None:
        return "None"
    text = repr(value)
    return f"the {type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


def _path(given: object) -> str | os.PathLike[str]:
    """A path as given: a str or a path-like object (bytes are decoded as file names are)."""
    if isinstance(given, bytes):
        return os.fsdecode(given)
    if isinstance(given, str):
        return given
    if isinstance(given, os.PathLike):
        return os.fsdecode(os.fspath(given))
    raise TypeError(
        f"lint: each path must be a str or a path-like object (such as pathlib.Path), not "
        f"{_shown(given)}"
    )


def check_file(
    path: str,
    codes: frozenset[str],
    jit_wrappers: frozenset[str],
    package: Package | None = None,
    entries: Iterable[Entry] = (),
) -> Checked:
    """The findings in one file, less those that ``# noqa`` silences; how its traced code
    reaches functions of the other modules of ``package``; the digest of the content
    checked; and what the check asked ``package`` (see :class:`~jaxpurity.linter._run.Checked`)."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        reason = f"cannot read it: {error.strerror or error}"
        return Checked([_unchecked(path, 1, 1, reason)], [], None, {})
    digest = content_digest(data)
    text = _decoded(data)
    if not isinstance(text, str):
        return Checked([_unchecked(path, *text)], [], digest, {})
    recording = package.recording() if package is not None else None
    findings, outgoing = _check_source(text, path, codes, jit_wrappers, recording, entries)
    asked = recording.asked if recording is not None and recording.asked else {}
    return Checked(findings, outgoing, digest, asked)


def _decoded(data: bytes) -> str | tuple[int, int, str]:
    """Python source bytes as text, decoded as Python decodes a file (a UTF-8 BOM or a
    coding cookie on one of the first two lines, else UTF-8; newlines made ``\\n``); or,
    when they cannot be, the line, column and reason of a ``JP000`` finding.

    Example:
      >>> _decoded("# -*- coding: latin-1 -*-\\nx = 'é'\\n".encode("latin-1"))[-8:]
      "x = 'é'\\n"
      >>> _decoded(b"# -*- coding: rot13 -*-\\nx = 1\\n")[2][:72]
      "cannot parse it: its coding cookie names 'rot13', which is not a text en"
    """
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:  # an unknown codec, a BOM with another cookie, bad UTF-8
        if "invalid or missing encoding declaration" in str(error):
            return _not_text(data, "utf-8")
        return 1, 1, f"cannot parse it: {error.msg}; write a coding cookie Python knows, or none"
    try:
        return importlib.util.decode_source(data)
    except UnicodeDecodeError:
        return _not_text(data, encoding)
    except LookupError:  # rot13, zlib_codec, uu_codec: codecs, but not of text
        return (
            _cookie_line(data),
            1,
            f"cannot parse it: its coding cookie names {encoding!r}, which is not a text "
            f"encoding (Python cannot run the file either); name a text encoding such as "
            f"utf-8, or remove the cookie",
        )
    except (SyntaxError, ValueError, TypeError) as error:  # what else a codec may raise
        return 1, 1, f"cannot parse it: it cannot be decoded as {encoding}: {error}"


def _not_text(data: bytes, encoding: str) -> tuple[int, int, str]:
    """Where bytes are not text in ``encoding``, and what to do."""
    try:
        data.decode(encoding)
    except UnicodeDecodeError as error:
        start = error.start
    else:  # pragma: no cover - the caller saw an error
        start = 0
    line = data.count(b"\n", 0, start) + 1
    column = start - (data.rfind(b"\n", 0, start) + 1) + 1
    byte = data[start : start + 1].hex()
    return (
        line,
        column,
        f"cannot parse it: byte 0x{byte} is not {encoding} text; save the file as "
        f"{encoding}, or declare its encoding with a coding cookie "
        f"('# -*- coding: latin-1 -*-' on its first line)",
    )


def _cookie_line(data: bytes) -> int:
    """The line of a coding cookie: the first, or the second after a first line that is
    only a comment or blank (as Python looks for it)."""
    first = data.split(b"\n", 1)[0]
    return 1 if b"coding" in first else 2


def python_files(
    paths: Iterable[str | os.PathLike[str]], note: Callable[[str], None] | None = None
) -> Iterator[Path]:
    """The Python files of ``paths``: each file given, and the ``.py`` files under each
    folder, in sorted order, without hidden folders, caches and virtual environments.
    What is not a regular file (a FIFO, a socket, a device, a symlink loop or to nothing)
    is skipped, and ``note`` (default: a warning) says so.

    Raises:
      FileNotFoundError: A path does not exist.
    """
    seen: set[Path] = set()
    folders: dict[str, str] = {}  # each folder's real path
    for given in paths:
        path = Path(given)
        kind = _kind(path)
        if kind == "missing":
            raise FileNotFoundError(f"{str(given)!r}: no such file or folder")
        if kind == "folder":
            candidates: Iterable[Path] = _walk(path, note)
        elif kind == "file":
            candidates = [path]
        else:
            _note(note, f"{str(given)!r} skipped: {kind}")
            continue
        for candidate in candidates:
            key = real_path(candidate, folders)
            if key not in seen:
                seen.add(key)
                yield candidate


def _kind(path: Path) -> str:
    """``"file"`` (a regular file), ``"folder"``, ``"missing"``, or why ``path`` is neither,
    such as ``"not a regular file (a FIFO)"``."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "a symlink to nothing" if os.path.islink(path) else "missing"
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "a symlink loop (following it never reaches a file)"
        return f"cannot be read ({error.strerror or error})"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    kinds = {
        stat.S_ISFIFO: "a FIFO",
        stat.S_ISSOCK: "a socket",
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
    }
    what = next((name for test, name in kinds.items() if test(mode)), "of another kind")
    return f"not a regular file ({what}); only regular files are read"


def _note(note: Callable[[str], None] | None, text: str) -> None:
    if note is None:
        warnings.warn(f"jaxpurity lint: {text}", stacklevel=3)
    else:
        note(text)


def _walk(folder: Path, note: Callable[[str], None] | None) -> Iterator[Path]:
    def unlisted(error: OSError) -> None:
        _note(note, f"{error.filename!r} skipped: cannot list it ({error.strerror or error})")

    for root, folders, files in os.walk(folder, onerror=unlisted):
        folders[:] = sorted(
            name
            for name in folders
            if not name.startswith(".")
            and name not in _SKIPPED_FOLDERS
            and not (Path(root, name) / "pyvenv.cfg").exists()
        )
        for name in sorted(files):
            if name.endswith(".py"):
                path = Path(root, name)
                kind = _kind(path)
                if kind == "file":
                    yield path
                elif kind != "missing":  # gone since the folder was listed: nothing to say
                    _note(note, f"{str(path)!r} skipped: {kind}")


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


def lint_traced(
    source: str, path: str, line: int, name: str, static: Iterable[str] = ()
) -> list[Finding]:
    """The findings of the rules on by default in one module's ``source``, where the function
    named ``name`` that starts on ``line`` is traced as ``jax.jit`` traces it, its parameters
    ``static`` kept out of the trace: what :func:`jaxpurity.check_pure` knows of a function
    it checks, which the source alone may not say (nothing there jits it).

    Example:
      >>> source = "def f(x, mode):\\n    if mode == 'id':\\n        return x\\n    return float(x)"
      >>> [f.code for f in lint_traced(source + "\\n", "f.py", 1, "f", static=["mode"])]
      ['JP202']
    """
    keep = tuple(sorted(static))
    jit = LayerText("jax.jit", keywords=(("static_argnames", repr(keep)),) if keep else ())
    entry = Entry(Target(path, f"@{line}:{name}"), frozenset(), "jax.jit", "", 0, layers=(jit,))
    return _check_source(source, path, DEFAULT, frozenset(), None, [entry])[0]


def _check_source(
    source: str,
    path: str,
    codes: frozenset[str],
    jit_wrappers: frozenset[str],
    package: Package | None = None,
    entries: Iterable[Entry] = (),
) -> tuple[list[Finding], list[Entry]]:
    nul = source.find("\0")
    if nul >= 0:
        line = source.count("\n", 0, nul) + 1
        column = nul - (source.rfind("\n", 0, nul) + 1) + 1
        reason = "cannot parse it: it holds a NUL character, which Python source cannot; remove it"
        return [_unchecked(path, line, column, reason)], []
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as error:
        reason = f"cannot parse it: {error.msg}"
        return [_unchecked(path, error.lineno or 1, error.offset or 1, reason)], []
    except RecursionError:
        reason = (
            "cannot parse it: it nests expressions deeper than Python's parser goes "
            "(RecursionError); split the expression into smaller ones"
        )
        return [_unchecked(path, 1, 1, reason)], []
    except UnicodeEncodeError as error:  # a str with a lone surrogate: no file holds one
        line = source.count("\n", 0, error.start) + 1
        character = f"U+{ord(source[error.start]):04X}"
        reason = f"cannot parse it: it holds {character}, a lone surrogate, which is not text"
        return [_unchecked(path, line, 1, reason)], []
    except ValueError as error:  # what else the parser refuses
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
        reason = (
            "an expression is nested too deeply to check (RecursionError); split it into "
            "smaller ones"
        )
        return [_unchecked(path, 1, 1, reason)]
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
    return len(text.encode(errors="surrogatepass")[:offset].decode(errors="ignore")) + 1
