"""A rebuild with nothing changed rewrites no file of the site.

Sphinx's HTML builder writes some files on every build, whatever changed: the pages that are
no document (``genindex.html``, ``search.html``, ``py-modindex.html``), ``searchindex.js``,
``objects.inv``, ``.buildinfo``, and the static files it renders from templates
(``_static/basic.css``, ``documentation_options.js``, ``language_data.js``, ``pygments.css``,
sphinx-copybutton's ``copybutton.js``). This extension puts in its place a builder that writes
each of them only where its bytes change, so that a rebuild with nothing changed leaves every
file of ``build/html`` as it was, and a host or a test that looks at what changed sees nothing.

A document's page is written as Sphinx writes it: only when the document is outdated, and then
always, since Sphinx takes the page's modification time as the time it was last built. The
other parts of the build write only on change by themselves: Sphinx copies a static or
downloadable file only when it differs, sphinx-gallery rewrites nothing of an example that did
not change, and this site's extensions compare before they write.
"""

from __future__ import annotations

import filecmp
import io
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.util.display import progress_message
from sphinx.util.inventory import InventoryFile


class _WrittenOnChange(type(Path())):  # type: ignore[misc]
    """A path whose ``write_text`` leaves the file alone when it already holds the text."""

    def write_text(
        self,
        data: str,
        encoding: str | None = None,
        errors: str | None = None,
        newline: str | None = None,
    ) -> int:
        if newline is None and self.is_file():
            new = data.replace("\n", os.linesep).encode(encoding or "utf-8", errors or "strict")
            if self.read_bytes() == new:
                return len(data)
        return super().write_text(data, encoding, errors, newline)


def replace_if_changed(new: Path, target: Path) -> bool:
    """Copy the file ``new`` to ``target`` unless ``target`` holds the same bytes.

    Returns:
      Whether ``target`` was written.
    """
    if target.is_file() and filecmp.cmp(new, target, shallow=False):
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(new, target)
    return True


def write_if_changed(target: Path, data: bytes) -> bool:
    """Write ``data`` to ``target`` unless ``target`` already holds those bytes.

    The folder of ``target`` is made where it is missing.

    Returns:
      Whether ``target`` was written.
    """
    if target.is_file() and target.read_bytes() == data:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return True


def _take_over_furo_pygments(events: Any) -> Callable[[], str] | None:
    """Stop furo rewriting ``_static/pygments.css`` after every build; return what it writes.

    furo writes its own ``pygments.css`` (light and dark styles) over Sphinx's when the
    build finishes, whatever changed. Its listener is dropped and the builder writes furo's
    stylesheet in the place of Sphinx's, with the other static files.
    """
    try:
        import furo
    except ImportError:
        return None
    overwrite = getattr(furo, "_overwrite_pygments_css", None)
    stylesheet = getattr(furo, "get_pygments_stylesheet", None)
    listeners = events.listeners.get("build-finished", ())
    found = [listener for listener in listeners if listener.handler is overwrite]
    if not found or stylesheet is None:
        return None
    for listener in found:
        events.disconnect(listener.id)
    return stylesheet


class HTMLBuilder(StandaloneHTMLBuilder):
    """Sphinx's HTML builder, writing what it writes on every build only where it changed."""

    def init(self) -> None:
        super().init()  # loads the theme, and furo's listeners with it
        self._furo_stylesheet = _take_over_furo_pygments(self.events)

    def create_pygments_style_file(self) -> None:
        super().create_pygments_style_file()
        if self._furo_stylesheet is not None:
            path = self._static_dir / "pygments.css"
            path.write_text(self._furo_stylesheet(), encoding="utf-8")

    def get_output_path(self, page_name: str, /) -> Path:
        path = super().get_output_path(page_name)
        if page_name in self.env.all_docs:
            return path  # a document's page: its time says when it was built
        return _WrittenOnChange(path)

    def copy_static_files(self) -> None:
        """Copy and render the static files into an empty folder, then move over the changed."""
        static = self._static_dir
        with tempfile.TemporaryDirectory(prefix="jaxpurity-static-") as staging:
            self._static_dir = Path(staging)
            try:
                super().copy_static_files()
            finally:
                self._static_dir = static
            for new in sorted(Path(staging).rglob("*")):
                if new.is_file():
                    replace_if_changed(new, static / new.relative_to(staging))

    def write_buildinfo(self) -> None:
        """Write ``.buildinfo`` where it changed, or where a template is newer.

        Sphinx tells a reader that a template changed since the last build when the
        newest template is newer than this file.
        """
        path = self.outdir / ".buildinfo"
        with tempfile.TemporaryDirectory(prefix="jaxpurity-buildinfo-") as staging:
            new = Path(staging) / path.name
            self.build_info.dump(new)
            if not replace_if_changed(new, path) and self.templates:
                newest = self.templates.newest_template_mtime()
                if newest > path.stat().st_mtime:
                    shutil.copyfile(new, path)

    @progress_message("dumping object inventory")
    def dump_inventory(self) -> None:
        with tempfile.TemporaryDirectory(prefix="jaxpurity-inventory-") as staging:
            new = Path(staging) / "objects.inv"
            InventoryFile.dump(new, self.env, self)
            replace_if_changed(new, self.outdir / "objects.inv")

    def dump_search_index(self) -> None:
        if self.indexer is None:
            return
        with progress_message(f"dumping search index in {self.indexer.label()}"):
            self.indexer.prune(self.env.all_docs)
            text = io.StringIO()
            self.indexer.dump(text, self.indexer_format)
            path = self.outdir / self.searchindex_filename
            write_if_changed(path, text.getvalue().encode("utf-8"))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_builder(HTMLBuilder, override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
