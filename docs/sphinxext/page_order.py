"""Order the gallery's sections and pages as ``jaxpurity._pages.SECTIONS`` lists them.

``sphinx_gallery_conf`` names these sort keys: ``subsection_order`` is
:func:`section_key` and ``within_subsection_order`` is :class:`PageOrder`.
A script that the table does not list fails the build, naming the script.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from jaxpurity._pages import SECTIONS, topic_of

_FOLDERS = [section.folder for section in SECTIONS]
_TOPICS = [topic for section in SECTIONS for topic in section.topics]


def section_key(folder: str) -> int:
    """Sort key for gallery section folders (``../gallery/<folder>``): the table's order."""
    name = Path(folder).name
    if name not in _FOLDERS:
        raise ExtensionError(
            f"gallery folder {name!r} is no section of jaxpurity._pages.SECTIONS; "
            f"add it there (sections: {_FOLDERS})"
        )
    return _FOLDERS.index(name)


class PageOrder:
    """Sort key for the scripts in one section (``src_dir``): the table's reading order."""

    def __init__(self, src_dir: str = "") -> None:
        self.src_dir = src_dir

    def __call__(self, filename: str) -> int:
        try:
            return _TOPICS.index(topic_of(f"{Path(self.src_dir).name}/{filename}"))
        except KeyError as error:
            raise ExtensionError(
                f"{Path(self.src_dir).name}/{filename}: add its topic to "
                f"jaxpurity._pages.SECTIONS ({error.args[0]})"
            ) from None


def setup(app: Sphinx) -> dict[str, Any]:
    return {"parallel_read_safe": True, "parallel_write_safe": True}
