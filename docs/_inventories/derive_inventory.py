"""Derive a Sphinx inventory from a project's documentation sources at a pinned commit.

JAX and NumPy ship no ``objects.inv`` that can be had offline, so this script reads the
reST sources of their docs from a git repository and writes the inventory their own Sphinx
build would write for the objects it documents:

* ``.. autosummary::`` with ``:toctree: DIR`` gives each listed name a page of its own,
  ``DIR/<module>.<name>.html#<module>.<name>`` (DIR relative to the page's folder);
* ``.. autoclass::``, ``.. autofunction::``, ``.. class::``, ``.. attribute::`` and the other
  object directives document the object on the page itself, ``<page>.html#<module>.<name>``;
* ``.. module::`` and ``.. automodule::`` give ``<page>.html#module-<module>``;
* each page is a ``std:doc`` entry, ``<page>.html``, shown with its first title;
* ``.. currentmodule::`` (and the module directives) set ``<module>`` for what follows;
  an entry marked ``:no-index:`` is left out, as Sphinx leaves it out.

The object type of a name that the sources do not state (an autosummary entry) is the one
autodoc gives the object of the installed package: module, exception, class, function, or data.
Run by hand, not by the build, and commit the output with the line it adds to ``README.md``::

    python docs/_inventories/derive_inventory.py jax /work/.mirror/jax-ml+jax/repo main
    python docs/_inventories/derive_inventory.py numpy /path/to/numpy/repo main
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import io
import itertools
import posixpath
import re
import subprocess
import sys
import warnings
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from sphinx.util import inspect as sphinx_inspect
from sphinx.util.inventory import InventoryFile

HERE = Path(__file__).resolve().parent

# Per project: its name in the inventory header, and the folder of its reST sources.
PROJECTS = {"jax": ("JAX", "docs"), "numpy": ("NumPy", "doc/source")}

# Object directives (with or without the ``py:`` domain prefix) and the type they give.
_OBJECT_DIRECTIVES = {
    "class": "class",
    "exception": "exception",
    "function": "function",
    "method": "method",
    "attribute": "attribute",
    "property": "property",
    "data": "data",
    "autoclass": None,  # class or exception: what the installed object is
    "autoexception": "exception",
    "autofunction": "function",
    "automethod": "method",
    "autoattribute": "attribute",
    "autoproperty": "property",
    "autodata": "data",
}
_DIRECTIVE = re.compile(r"^(?P<indent> *)\.\. +(?:py:)?(?P<name>[a-z]+):: *(?P<arg>.*)$")
_OPTION = re.compile(r"^ +:(?P<name>[\w-]+):(?P<value>.*)$")


class Entry(NamedTuple):
    """One inventory line: ``<name> <domain>:<objtype> 1 <uri> <dispname>``."""

    name: str
    objtype: str  # "py:function", "std:doc", ...
    uri: str
    dispname: str = "-"  # "-": the name


def objtype_of(name: str) -> str:
    """The type autodoc gives the installed object ``name``; ``data`` if it cannot be imported."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            parent = obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:  # not installed, or an optional backend (Pallas, Triton) missing
            continue
        try:
            with warnings.catch_warnings():  # deprecated names still have their pages
                warnings.simplefilter("ignore")
                for part in parts[cut:]:
                    parent, obj = obj, getattr(obj, part)
        except AttributeError:
            return "data"
        break
    else:
        return "data"
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if inspect.isclass(parent):  # a member of a class, as autodoc's documenters sort them
        static = inspect.getattr_static(parent, parts[-1], None)
        if isinstance(static, property):
            return "property"
        return "method" if sphinx_inspect.isroutine(static) else "attribute"
    # As autodoc's FunctionDocumenter decides: through functools.partial and __wrapped__.
    routine = sphinx_inspect.isfunction(obj) or sphinx_inspect.isbuiltin(obj)
    return "function" if routine or sphinx_inspect.isroutine(obj) else "data"


def _full_name(module: str | None, name: str, top: str) -> str:
    name = name.lstrip("~").split("(")[0].strip()
    if module is None or name == top or name.startswith(top + "."):
        return name
    return f"{module}.{name}"


def _block(lines: list[str], start: int, indent: int) -> tuple[dict[str, str], list[str], int]:
    """The options and content lines of the directive at ``lines[start]``, and where it ends."""
    options: dict[str, str] = {}
    content: list[str] = []
    in_head = True  # options stand in the first paragraph, before a blank line
    i = start + 1
    while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > indent):
        line = lines[i].strip()
        in_head = in_head and bool(line)
        if in_head and (match := _OPTION.match(lines[i])):
            options[match["name"]] = match["value"].strip()
        elif line:
            content.append(line)
        i += 1
    return options, content, i


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _title(lines: list[str]) -> str | None:
    """The first section title of a page: a line underlined with ``=``, ``-`` or the like."""
    for line, under in itertools.pairwise(lines):
        text = line.strip()
        if text and not line.startswith(" ") and re.fullmatch(r"([=\-~*^#])\1+", under.strip()):
            return re.sub(r"``([^`]+)``", r"\1", text)
    return None


def page_entries(page: str, text: str, top: str) -> Iterator[Entry]:
    """The entries of one reST page; ``page`` is its path without suffix, ``top`` the package."""
    lines = text.splitlines()
    yield Entry(page, "std:doc", f"{page}.html", _title(lines) or "-")
    folder = posixpath.dirname(page)
    module: str | None = None
    classes: list[tuple[int, str]] = []  # (indent, full name) of the enclosing class directives
    i = 0
    while i < len(lines):
        match = _DIRECTIVE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, directive, arg = len(match["indent"]), match["name"], match["arg"].strip()
        options, content, end = _block(lines, i, indent)
        while classes and classes[-1][0] >= indent:
            classes.pop()
        if directive == "currentmodule":
            module = None if arg == "None" else arg
        elif directive in ("module", "automodule"):
            module = arg
            if "no-index" not in options and "noindex" not in options:
                yield Entry(arg, "py:module", f"{page}.html#module-{arg}")
        elif directive == "autosummary" and "toctree" in options:
            toctree = options["toctree"].strip().rstrip("/")
            for item in content:
                if not item.startswith(".."):
                    name = _full_name(module, item.split()[0], top)
                    uri = posixpath.normpath(posixpath.join(folder, toctree, f"{name}.html"))
                    yield Entry(name, f"py:{objtype_of(name)}", f"{uri}#{name}")
        elif directive in _OBJECT_DIRECTIVES:
            # Further signatures of the same directive follow on lines indented past it,
            # before its options: ``.. attribute:: int8`` then ``int16`` below it.
            names = [arg]
            j = i + 1
            while j < end and lines[j].strip() and not _OPTION.match(lines[j]):
                names.append(lines[j].strip())
                j += 1
            if arg and "no-index" not in options and "noindex" not in options:
                for sig in names:
                    bare = sig.lstrip("~").split("(")[0].strip()
                    if classes and "." not in bare:
                        name = f"{classes[-1][1]}.{bare}"
                    else:
                        name = _full_name(module, bare, top)
                    objtype = _OBJECT_DIRECTIVES[directive] or objtype_of(name)
                    yield Entry(name, f"py:{objtype}", f"{page}.html#{name}")
                    if objtype in ("class", "exception"):
                        classes.append((indent, name))
            # Nested directives (the methods of a class) are read on the next turns.
            end = j
        i = end


def derive(pages: Iterable[tuple[str, str]], top: str) -> list[Entry]:
    """The entries of all ``(page, text)`` pairs; the first page that documents a name wins."""
    seen: dict[tuple[str, str], Entry] = {}
    for page, text in pages:
        for entry in page_entries(page, text, top):
            seen.setdefault((entry.name, entry.objtype), entry)
    return sorted(seen.values())


def read(data: bytes, uri: str = "") -> dict[str, dict[str, str]]:
    """An ``objects.inv``'s entries as Sphinx reads them: objtype -> name -> URL under ``uri``."""
    if hasattr(InventoryFile, "loads"):  # Sphinx 8.2+
        tables = InventoryFile.loads(data, uri=uri).data
        return {kind: {name: item.uri for name, item in t.items()} for kind, t in tables.items()}
    # Sphinx 8.1, the last for Python 3.10: a dict of (project, version, uri, display name)
    tables = InventoryFile.load(io.BytesIO(data), uri, posixpath.join)
    return {kind: {name: item[2] for name, item in t.items()} for kind, t in tables.items()}


def dump(entries: Iterable[Entry], project: str, version: str) -> bytes:
    """A Sphinx inventory (version 2) holding ``entries``."""
    body = "".join(f"{e.name} {e.objtype} 1 {e.uri} {e.dispname}\n" for e in entries)
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {project}\n# Version: {version}\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    return header.encode() + zlib.compress(body.encode())


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"git -C {repo} {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def git_pages(repo: Path, commit: str, folder: str) -> Iterator[tuple[str, str]]:
    """``(page, text)`` of each ``.rst`` file under ``folder`` at ``commit`` (page: relative)."""
    for path in sorted(_git(repo, "ls-tree", "-r", "--name-only", commit, folder).splitlines()):
        # Templates (autosummary's, under _templates/) hold Jinja placeholders, no objects.
        if path.endswith(".rst") and "_templates" not in path.split("/"):
            page = posixpath.relpath(path[: -len(".rst")], folder)
            yield page, _git(repo, "show", f"{commit}:{path}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", choices=sorted(PROJECTS))
    parser.add_argument("repo", type=Path, help="a git clone (bare or not) of the project")
    parser.add_argument("rev", help="the commit, tag or branch to read the sources at")
    parser.add_argument("--out", type=Path, help="where to write (default: <project>.inv here)")
    args = parser.parse_args(argv)
    title, folder = PROJECTS[args.project]
    commit = _git(args.repo, "rev-parse", f"{args.rev}^{{commit}}").strip()
    date = _git(args.repo, "show", "-s", "--format=%cs", commit).strip()
    entries = derive(git_pages(args.repo, commit, folder), args.project)
    if not any(entry.objtype.startswith("py:") for entry in entries):
        sys.exit(f"no documented objects under {folder}/ at {commit}: is {args.repo} {title}?")
    out = args.out or HERE / f"{args.project}.inv"
    # The version shows in each link's tooltip: "(in JAX cec06d116c05, 2026-08-08)".
    out.write_bytes(dump(entries, title, f"{commit[:12]}, {date}"))
    print(f"{out.name}: {len(entries)} objects from {folder}/*.rst at {commit} ({date})")


if __name__ == "__main__":
    main()
