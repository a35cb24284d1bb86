"""The cache of ``jaxpurity lint``: a second run over an unchanged tree reads each file's results.

As ruff and mypy do, ``jaxpurity lint`` keeps what it found in a folder,
``.jaxpurity_cache/`` at the root of the linted tree (the nearest folder at or
above the folders given that holds a ``pyproject.toml`` or ``.git``; else their
common folder), with a ``.gitignore`` of ``*`` inside, so that git never sees
it. ``--cache-dir`` puts it elsewhere, and ``--no-cache`` (``cache=False`` in
:func:`jaxpurity.lint`) leaves it alone.

What one check of one file gives (its findings, and the entries its traced code
sends to other modules) is kept under a key made of everything it depends on:

- the file's content (a BLAKE2 digest of its bytes);
- the configuration it was checked with: the codes selected, and the project's own
  wrappers of ``jax.jit``;
- the linter itself: one cache file per :func:`linter_fingerprint`, a digest of
  jaxpurity's version, Python's version, the site the findings link
  (``$JAXPURITY_DOCS_URL``) and the source of every module the linter runs, so a
  developer who changes a rule starts a new cache;
- what the analysis of the package read from the other files: the file's own dotted
  name and package (from the ``__init__.py`` files and the folders given), the entries
  that the other modules' traced code sent it (:class:`~jaxpurity.linter.analysis.
  _package.Entry`, in the key), and each name it asked the package to resolve to a
  function of another module, with the answer (kept with the result, and asked again:
  a result is used only while every answer is the same).

So a file whose content and configuration are unchanged, in a package whose modules
reach it as before and whose names resolve as before, is not read again by the
analysis; an edited file is checked again, and so is each module that its traced code
reaches differently (the entries in their keys change), and no other. The rounds of
:mod:`jaxpurity.linter._run` replay from the cache as they ran.

Format: one compact JSON file per linter fingerprint (``lint-<fingerprint>.json``),
read once and written once per run, only when something new was checked: each file,
by its path from the cache's folder, with the results of its last few keys. It is
written to a temporary file and moved into place (``os.replace``), so a reader never
sees half of it. A cache file that cannot be read or does not hold what this module
writes is ignored, as is a result that does not decode; a folder that cannot be
written means no cache, never an error.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import secrets
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from jaxpurity import __version__
from jaxpurity.linter._finding import Finding
from jaxpurity.linter.analysis._package import Arguments, Entry, LayerText, Package, Target

__all__ = ["FOLDER", "Cache", "content_digest", "default_folder", "linter_fingerprint"]

#: The name of the cache's folder.
FOLDER = ".jaxpurity_cache"
# The version of the format below: a change makes every cache file unread.
_FORMAT = 1
# How many results each file keeps (the newest first), and how many cache files of other
# fingerprints the folder keeps (the newest first): a bound on the cache's size.
_KEEP_PER_FILE = 4
_KEEP_CACHE_FILES = 4
_GITIGNORE = "# Automatically created by jaxpurity lint.\n*\n"
_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by jaxpurity lint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)

#: A result as the cache keeps it: findings (without their path), entries, and the
#: names the check asked the package, with the answers (see the module's docstring).
_Record = dict[str, Any]


def content_digest(data: bytes) -> str:
    """The digest that keys a file's content.

    Example:
      >>> content_digest(b"x = 1\\n")[:12]
      '1de70bc15d42'
    """
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def linter_source_files() -> list[Path]:
    """The files whose source decides what the linter finds: every module of
    ``jaxpurity/linter/``, and the modules of jaxpurity it imports (the version, and the
    pages and languages that the findings link)."""
    package = Path(__file__).resolve().parents[1]
    shared = [package / name for name in ("__init__.py", "_pages.py", "_languages.py")]
    return shared + sorted((package / "linter").rglob("*.py"))


@functools.cache
def linter_fingerprint() -> str | None:
    """A digest of all that makes this linter what it is: jaxpurity's version, Python's,
    the site its findings link, and its own source; None when the source cannot be read
    (then nothing is cached)."""
    digest = hashlib.blake2b(digest_size=16)
    where = os.environ.get("JAXPURITY_DOCS_URL", "")
    header = [_FORMAT, __version__, sys.implementation.name, sys.version_info[:2], where]
    digest.update(json.dumps(header).encode())
    try:
        for path in linter_source_files():
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    except OSError:
        return None
    return digest.hexdigest()


def default_folder(paths: Iterable[str | os.PathLike[str]]) -> Path:
    """Where the cache of a run over ``paths`` goes: ``.jaxpurity_cache`` in the nearest
    folder at or above their common folder that holds a ``pyproject.toml`` or ``.git``
    (the project's root), else in their common folder.

    Example:
      >>> import tempfile
      >>> root = Path(tempfile.mkdtemp())
      >>> (root / "src").mkdir()
      >>> _ = (root / "pyproject.toml").write_text("")
      >>> default_folder([root / "src"]) == root / ".jaxpurity_cache"
      True
    """
    folders = []
    for given in paths:
        path = Path(os.path.abspath(given))
        folders.append(path if path.is_dir() else path.parent)
    common = Path(os.path.commonpath(folders)) if folders else Path.cwd()
    for candidate in (common, *common.parents):
        if (candidate / "pyproject.toml").is_file() or (candidate / ".git").exists():
            return candidate / FOLDER
    return common / FOLDER


class Cache:
    """The results of earlier checks, read from a cache folder, and the new ones to write.

    Args:
      folder: The cache's folder (made when the cache is first written).
      fingerprint: The linter's (:func:`linter_fingerprint`).

    Attributes:
      hits: How many checks this run took from the cache.
      misses: How many it could not.
    """

    def __init__(self, folder: Path, fingerprint: str) -> None:
        self.folder = Path(os.path.abspath(folder))
        self.file = self.folder / f"lint-{fingerprint}.json"
        self.hits = 0
        self.misses = 0
        self._files = self._read()
        self._used: dict[str, list[str]] = {}  # file id -> the keys used this run
        self._paths: dict[str, str] = {}  # file id -> the path this run calls it
        self._digests: dict[str, str | None] = {}
        self._ids: dict[str, str] = {}  # path -> file id (_id, asked 6 times a file)
        self._changed = False

    @classmethod
    def open(cls, folder: Path) -> Cache | None:
        """The cache in ``folder``; None when the linter's source cannot be read."""
        fingerprint = linter_fingerprint()
        return None if fingerprint is None else cls(folder, fingerprint)

    def _read(self) -> dict[str, dict[str, _Record]]:
        try:
            data = json.loads(self.file.read_bytes())
        except (OSError, ValueError, RecursionError):
            return {}
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            return {}
        files = data.get("files")
        if not isinstance(files, dict):
            return {}
        return {k: v for k, v in files.items() if isinstance(k, str) and isinstance(v, dict)}

    # -- keys ----------------------------------------------------------------------------

    def start(self, paths: Iterable[str]) -> None:
        """Learn the files of this run, so that an entry read back names its target as this
        run does."""
        self._paths.update((self._id(path), path) for path in paths)

    def _id(self, path: str) -> str:
        """A file's name in the cache: its path from the cache's folder's parent, whatever
        the folder the run started in."""
        if path not in self._ids:
            absolute = os.path.abspath(path)
            try:
                self._ids[path] = os.path.relpath(absolute, self.folder.parent)
            except ValueError:  # another drive, on Windows
                self._ids[path] = absolute
        return self._ids[path]

    def _digest(self, path: str) -> str | None:
        if path not in self._digests:
            try:
                self._digests[path] = content_digest(Path(path).read_bytes())
            except OSError:
                self._digests[path] = None
        return self._digests[path]

    def key(
        self,
        path: str,
        codes: frozenset[str],
        jit_wrappers: frozenset[str],
        package: Package,
        entries: Iterable[Entry],
    ) -> str | None:
        """The key of checking the file at ``path`` with ``codes`` and ``jit_wrappers``, in
        ``package``, reached by ``entries``; None when the file cannot be read."""
        digest = self._digest(path)
        if digest is None:
            return None
        reached = sorted(json.dumps(_entry_data(entry, self._id)) for entry in entries)
        parts = [
            digest,
            sorted(codes),
            sorted(jit_wrappers),
            package.module_of(path),
            package.package_of(path),
            reached,
        ]
        return content_digest(json.dumps(parts).encode())

    def digest_of(self, path: str) -> str | None:
        """The digest of the file's content that :meth:`key` read."""
        return self._digests.get(path)

    # -- results -------------------------------------------------------------------------

    def get(
        self, key: str, path: str, package: Package
    ) -> tuple[list[Finding], list[Entry]] | None:
        """The findings and entries of the check keyed ``key``, when the cache holds them
        and every name it asked ``package`` still gives the same answer; else None."""
        own = self._id(path)
        record = self._files.get(own, {}).get(key)
        if record is None:
            self.misses += 1
            return None
        try:
            for name, answer in record["a"]:
                now = package.target(_string(name))
                if _target_data(now, self._id) != answer:
                    self.misses += 1
                    return None
            findings = [_finding(path, data) for data in record["f"]]
            outgoing = [_entry(data, self._paths) for data in record["o"]]
        except (KeyError, TypeError, ValueError):  # not what this module writes: ignored
            del self._files[own][key]
            self._changed = True
            self.misses += 1
            return None
        self._used.setdefault(own, []).append(key)
        self.hits += 1
        return findings, outgoing

    def put(
        self,
        key: str,
        path: str,
        findings: Sequence[Finding],
        outgoing: Sequence[Entry],
        asked: dict[str, Target | None],
    ) -> None:
        """Keep the result of the check keyed ``key``."""
        own = self._id(path)
        record: _Record = {
            "f": [[f.line, f.col, f.code, f.message, f.topic, f.url] for f in findings],
            "o": [_entry_data(entry, self._id) for entry in outgoing],
            "a": [[name, _target_data(answer, self._id)] for name, answer in asked.items()],
        }
        self._files.setdefault(own, {})[key] = record
        self._used.setdefault(own, []).append(key)
        self._changed = True

    # -- writing -------------------------------------------------------------------------

    def save(self) -> None:
        """Write the cache, when this run checked anything new; a folder that cannot be
        written is left as it is."""
        if not self._changed:
            return
        kept: dict[str, dict[str, _Record]] = {}
        for own, records in self._files.items():
            used = self._used.get(own, [])
            if not used and not (self.folder.parent / own).exists():
                continue  # a file gone since
            order = list(dict.fromkeys([*reversed(used), *reversed(records)]))
            kept[own] = {key: records[key] for key in order[:_KEEP_PER_FILE] if key in records}
        text = json.dumps({"format": _FORMAT, "files": kept}, separators=(",", ":"))
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            for name, content in ((".gitignore", _GITIGNORE), ("CACHEDIR.TAG", _CACHEDIR_TAG)):
                if not (self.folder / name).exists():
                    _write(self.folder / name, content)
            _write(self.file, text)
            self._forget_old()
        except OSError:
            return
        self._changed = False

    def _forget_old(self) -> None:
        """Remove the cache files of other fingerprints but the newest few."""
        others = [p for p in self.folder.glob("lint-*.json") if p != self.file]
        others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
        for old in others[_KEEP_CACHE_FILES - 1 :]:
            old.unlink(missing_ok=True)


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` at once: into a temporary file beside it (made with the
    permissions the umask leaves, as any file), then moved over it."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


# -- what a result holds, as JSON ------------------------------------------------------------


def _string(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"not a string: {value!r}")
    return value


def _optional(value: object) -> str | None:
    return None if value is None else _string(value)


def _int(value: object) -> int:
    if type(value) is not int:
        raise TypeError(f"not an int: {value!r}")
    return value


def _pairs(value: object) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list):
        raise TypeError(f"not a list: {value!r}")
    return tuple((_string(k), _string(v)) for k, v in value)


def _finding(path: str, data: list[object]) -> Finding:
    line, col, code, message, topic, url = data
    return Finding(
        path,
        _int(line),
        _int(col),
        _string(code),
        _string(message),
        _optional(topic),
        _optional(url),
    )


def _target_data(target: Target | None, id_of: Any) -> list[str] | None:
    return None if target is None else [id_of(target.file), target.path]


def _entry_data(entry: Entry, id_of: Any) -> list[object]:
    """An :class:`~jaxpurity.linter.analysis._package.Entry` as JSON, its target's file by
    its name in the cache (``id_of``)."""
    call = entry.call
    return [
        id_of(entry.target.file),
        entry.target.path,
        sorted(entry.kinds),
        entry.root,
        entry.through,
        entry.depth,
        None
        if call is None
        else [
            list(call.positional),
            call.starred,
            [list(k) for k in call.keywords],
            call.double_star,
            call.shift,
            call.made_here,
        ],
        [[t.name, list(t.args), [list(k) for k in t.keywords], t.partial] for t in entry.layers],
        entry.shift,
    ]


def _entry(data: list[Any], paths: dict[str, str]) -> Entry:
    """An entry back from :func:`_entry_data`, its target's file as this run names it."""
    file, path, kinds, root, through, depth, call, layers, shift = data
    arguments = None
    if call is not None:
        positional, starred, keywords, double_star, call_shift, made_here = call
        if not isinstance(made_here, bool):
            raise TypeError(f"not a bool: {made_here!r}")
        arguments = Arguments(
            tuple(_optional(p) for p in positional),
            _optional(starred),
            _pairs(keywords),
            _optional(double_star),
            _int(call_shift),
            made_here,
        )
    texts = []
    for name, args, keywords, partial in layers:
        if not isinstance(partial, bool):
            raise TypeError(f"not a bool: {partial!r}")
        texts.append(
            LayerText(_string(name), tuple(_string(a) for a in args), _pairs(keywords), partial)
        )
    return Entry(
        Target(paths[_string(file)], _string(path)),
        frozenset(_string(kind) for kind in kinds),
        _string(root),
        _string(through),
        _int(depth),
        arguments,
        tuple(texts),
        _int(shift),
    )
