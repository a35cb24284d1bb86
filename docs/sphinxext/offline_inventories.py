"""Intersphinx inventories written from the installed packages, for a build with no network.

Each intersphinx mapping in ``conf.py`` tries the real inventory first and
falls back to a local file ``_inventories/<name>.inv``. Offline (as in CI)
every real inventory fails, and a mapping with no inventory at all is a
warning, an error under ``-W``. This extension writes the fallbacks before
intersphinx reads them: one entry for each public name of the modules that
``offline_inventories`` (in ``conf.py``) lists, pointing at the URL the real
documentation uses for it, so the links work online too.
"""

from __future__ import annotations

import builtins
import inspect
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError

# One entry: (object name, Sphinx role, URI relative to the project's documentation).
Entry = tuple[str, str, str]


def _role(obj: object) -> str | None:
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    return "function" if callable(obj) else None


def _public(module_name: str) -> Iterator[tuple[str, str]]:
    module = __import__(module_name, fromlist=["_"])
    for name in sorted(getattr(module, "__all__", None) or dir(module)):
        if not name.startswith("_") and (role := _role(getattr(module, name, None))):
            yield f"{module_name}.{name}", role


def python_entries(modules: tuple[str, ...]) -> Iterator[Entry]:
    """The builtins, and the public names of ``modules`` of the standard library."""
    for name in sorted(dir(builtins)):
        role = _role(getattr(builtins, name))
        if name.startswith("_") or role is None:
            continue
        page = "exceptions" if role == "exception" else "functions"
        yield name, role, f"library/{page}.html#{name}"
    for module in modules:
        yield module, "module", f"library/{module}.html#module-{module}"
        for name, role in _public(module):
            yield name, role, f"library/{module}.html#{name}"


def jax_entries(modules: tuple[str, ...]) -> Iterator[Entry]:
    """The public names of ``modules`` of JAX, and of ``jax.errors``."""
    for module in modules:
        for name, role in _public(module):
            if role != "module":
                yield name, role, f"_autosummary/{name}.html#{name}"
    for name, role in _public("jax.errors"):
        yield name, role, f"errors.html#{name}"


def numpy_entries(modules: tuple[str, ...]) -> Iterator[Entry]:
    """The public names of ``modules`` of NumPy."""
    for module in modules:
        for name, role in _public(module):
            if role != "module":
                yield name, role, f"reference/generated/{name}.html#{name}"


# The projects this extension can write an inventory for: how each lays out its pages,
# and which installed package gives its version.
_PROJECTS: dict[str, tuple[Callable[[tuple[str, ...]], Iterator[Entry]], Callable[[], str]]] = {
    "python": (python_entries, lambda: sys.version.split()[0]),
    "jax": (jax_entries, lambda: __import__("jax").__version__),
    "numpy": (numpy_entries, lambda: __import__("numpy").__version__),
}


def write_inventory(path: Path, project: str, version: str, entries: Iterator[Entry]) -> None:
    """Write a Sphinx inventory (version 2) with one line per entry."""
    lines = "".join(f"{obj} py:{role} 1 {uri} -\n" for obj, role, uri in entries)
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {project}\n# Version: {version}\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header.encode() + zlib.compress(lines.encode()))


def write_fallbacks(app: Sphinx, config: Config) -> None:
    """Write ``_inventories/<name>.inv`` under the source folder for each configured project."""
    for name, modules in config.offline_inventories.items():
        if name not in _PROJECTS:
            raise ExtensionError(
                f"offline_inventories: no inventory writer for {name!r}; known: {sorted(_PROJECTS)}"
            )
        entries, version = _PROJECTS[name]
        path = Path(app.srcdir) / "_inventories" / f"{name}.inv"
        write_inventory(path, name, version(), entries(tuple(modules)))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("offline_inventories", {}, "env", types=[dict])
    # Before intersphinx loads the inventories (on builder-inited).
    app.connect("config-inited", write_fallbacks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
