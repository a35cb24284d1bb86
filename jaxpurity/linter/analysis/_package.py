"""The modules of the package being linted: what an import names, and how traced code crosses.

``jaxpurity lint`` reads each module alone, but traced code calls helpers of
other modules, transforms their functions and calls methods of their classes.
:class:`Package` knows the modules being linted by their dotted names (from their
``__init__.py`` files and from the folders given) and says which function of
which module a qualified name refers to (:meth:`Package.target`). A module's
analysis records each such crossing as an :class:`Entry`: the function reached,
how it is traced (the kinds, the transformation it is reached through, the call
depth), and what reaches it, either what a call passes (:class:`Arguments`: which
arguments are traced, which surely arrays) or the transformations applied to it
(written as source text, so that an entry is a small value that a process pool can
send and that two modules can compare). The linter then checks the reached module
again with its entries (:mod:`jaxpurity.linter._lint`), for a few rounds at most.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Arguments", "Entry", "LayerText", "Package", "Target", "real_path"]

#: What an argument is: "array" (surely one), "traced" (holds tracers), or None.
Flavor = str | None


@dataclass(frozen=True)
class Target:
    """A function of a module of the package: ``path`` is ``"helper"`` or
    ``"Class.method"`` in the module at ``file``."""

    file: str
    path: str


@dataclass(frozen=True)
class Arguments:
    """What a call passes to a function: the flavor of each positional argument, after
    ``shift`` parameters already bound (1 for a bound method); ``starred``: a traced
    ``*args`` from the position after the last; the traced keyword arguments, by name,
    with their flavor; ``double_star``: the flavor of a traced ``**kwargs``; ``made_here``:
    for a bound method, whether the traced caller made the object itself (``rng =
    JaxRNG(key); rng()``), so that it lives for one trace."""

    positional: tuple[Flavor, ...] = ()
    starred: Flavor = None
    keywords: tuple[tuple[str, str], ...] = ()
    double_star: Flavor = None
    shift: int = 0
    made_here: bool = False


@dataclass(frozen=True)
class LayerText:
    """A transformation (or a ``functools.partial``, with ``partial`` set) applied to a
    function of another module, as source text: its name, and its options."""

    name: str
    args: tuple[str, ...] = ()
    keywords: tuple[tuple[str, str], ...] = ()
    partial: bool = False


@dataclass(frozen=True)
class Entry:
    """How traced code of one module reaches a function of another.

    Attributes:
      target: The function reached.
      kinds: The kinds of trace it runs under (see
        :class:`~jaxpurity.linter.analysis._known_transforms.Transform`).
      root: The transformation it is traced by, for messages.
      through: The function of the other module it is reached through (its dotted name).
      depth: How many calls from a transformed function it is.
      call: What a call passes it; None for a transformation applied to it.
      layers: The transformations and partials applied to it, from the outermost in.
      shift: How many of its leading parameters the application binds (1 for a method).
    """

    target: Target
    kinds: frozenset[str]
    root: str
    through: str
    depth: int
    call: Arguments | None = None
    layers: tuple[LayerText, ...] = ()
    shift: int = 0


class Package:
    """The modules being linted, by their dotted names.

    Each file is known by the dotted name its ``__init__.py`` files give it
    (``pkg/sub/mod.py`` in a package ``pkg`` is ``pkg.sub.mod``), and by its path from each
    folder given (``src/pkg/mod.py`` linted as ``src`` is ``pkg.mod`` too), so that a
    folder of scripts without ``__init__.py`` files is a package as well.

    Args:
      files: The files being linted.
      roots: The folders given.

    Example:
      >>> package = Package([Path("pkg/__init__.py"), Path("pkg/utils.py")], [Path(".")])
      >>> package.target("pkg.utils.helper"), package.target("pkg.utils.Model.apply")
      (Target(file='pkg/utils.py', path='helper'), Target(file='pkg/utils.py', path='Model.apply'))
      >>> package.module_of("pkg/utils.py"), package.target("numpy.sum") is None
      ('pkg.utils', True)
    """

    def __init__(self, files: Iterable[Path], roots: Iterable[Path]) -> None:
        self._files: dict[str, str] = {}  # dotted name -> file
        self._names: dict[str, str] = {}  # file -> its own dotted name
        #: Each name :meth:`target` was asked, and its answer, in a :meth:`recording` copy.
        self.asked: dict[str, Target | None] | None = None
        folders = [Path(root).resolve() for root in roots]
        packages: dict[Path, tuple[str, ...]] = {}  # each folder's package, read once
        real_folders: dict[str, str] = {}
        for file in files:
            key = str(file)
            resolved = real_path(Path(file), real_folders)
            names = [_from_init_files(Path(file), resolved.parent, packages)]
            names += [_from_root(resolved, root) for root in folders]
            for name in names:
                if name:
                    self._files.setdefault(name, key)
                    self._names.setdefault(key, name)

    def module_of(self, file: str) -> str | None:
        """The dotted name of a file being linted."""
        return self._names.get(file)

    def package_of(self, file: str) -> str | None:
        """The package a module is in, for its relative imports (itself for an
        ``__init__.py``)."""
        name = self._names.get(file)
        if name is None:
            return None
        return name if Path(file).name == "__init__.py" else name.rpartition(".")[0]

    def target(self, qualified: str) -> Target | None:
        """The function of a module being linted that a qualified name refers to (a
        function, or a method of a class), or None."""
        found = None
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            file = self._files.get(".".join(parts[:cut]))
            if file is not None:
                rest = parts[cut:]
                found = Target(file, ".".join(rest)) if len(rest) <= 2 else None
                break
        if self.asked is not None:
            self.asked[qualified] = found
        return found

    def recording(self) -> Package:
        """This package, noting in :attr:`asked` each name that :meth:`target` is asked and
        what it answers: all that one module's analysis learns of the other modules' files,
        besides the entries that reach it (the cache keeps a module's results while the
        same names give the same answers).

        Example:
          >>> package = Package([Path("pkg/__init__.py"), Path("pkg/utils.py")], [Path(".")])
          >>> recording = package.recording()
          >>> _ = recording.target("pkg.utils.helper"), recording.target("numpy.sum")
          >>> recording.asked
          {'pkg.utils.helper': Target(file='pkg/utils.py', path='helper'), 'numpy.sum': None}
        """
        copy = object.__new__(Package)
        copy._files, copy._names, copy.asked = self._files, self._names, {}
        return copy


def real_path(path: Path, folders: dict[str, str]) -> Path:
    """``path.resolve()``, with each folder resolved once (``folders`` keeps them): a file
    that is no symlink is its real folder's child, one system call instead of one per part
    of the path.

    Example:
      >>> real_path(Path("/usr/../usr/bin"), {}) == Path("/usr/bin").resolve()
      True
    """
    if os.path.islink(path):
        return path.resolve()
    head, name = os.path.split(path)
    if head not in folders:
        folders[head] = os.path.realpath(head or os.curdir)
    return Path(folders[head], name)


def _from_init_files(file: Path, folder: Path, packages: dict[Path, tuple[str, ...]]) -> str | None:
    """The dotted name that ``__init__.py`` files give a module in ``folder`` (its real
    folder); None outside a package. ``packages`` keeps each folder's package."""
    parts = [*_package_parts(folder, packages)]
    if file.name != "__init__.py":
        parts.append(file.stem)
    return ".".join(parts) if len(parts) > 1 or file.name == "__init__.py" else None


def _package_parts(folder: Path, packages: dict[Path, tuple[str, ...]]) -> tuple[str, ...]:
    """The names of the packages that ``folder`` is in, itself included, from the
    outermost: the folders above it that hold an ``__init__.py``, up to the first that
    does not."""
    unknown = []
    while folder not in packages:
        if not (folder / "__init__.py").is_file():
            packages[folder] = ()
            break
        unknown.append(folder)
        if folder.parent == folder:
            packages[folder] = ()
            unknown.pop()
            break
        folder = folder.parent
    parts = packages[folder]
    for inner in reversed(unknown):
        parts = (*parts, inner.name)
        packages[inner] = parts
    return parts


def _from_root(file: Path, root: Path) -> str | None:
    """The dotted name of a module (its real path) by its path from a folder given (its
    real path); None outside it."""
    try:
        relative = file.relative_to(root)
    except ValueError:
        return None
    parts = list(relative.with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return ".".join(parts)


def layer_text(name: str, call: ast.Call | None, *, partial: bool = False) -> LayerText:
    """A transformation call (or a decorator's options) as source text."""
    if call is None:
        return LayerText(name, partial=partial)
    return LayerText(
        name,
        tuple(ast.unparse(a) for a in call.args),
        tuple((k.arg, ast.unparse(k.value)) for k in call.keywords if k.arg),
        partial,
    )
