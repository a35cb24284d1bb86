"""No "Go to the end to download the full example code" note at the top of a gallery page.

sphinx-gallery opens each example page with that note, a link to the downloads at its end.
It came before the page's own first words, on the page and in every search snippet, and the
downloads are where a reader who scrolls finds them anyway. This transform takes it out of
the page (and so out of the search index); the downloads at the end stay. It works on both
editions, since it finds the note by its class, not its words.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

NOTE_CLASS = "sphx-glr-download-link-note"


class DropDownloadNote(SphinxTransform):
    """Remove sphinx-gallery's download note, and the ``only`` block it leaves empty."""

    default_priority = 850

    def apply(self, **kwargs: Any) -> None:
        for note in list(self.document.findall(nodes.note)):
            if NOTE_CLASS not in note["classes"]:
                continue
            parent = note.parent
            parent.remove(note)
            if isinstance(parent, addnodes.only) and not parent.children:
                parent.parent.remove(parent)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_transform(DropDownloadNote)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
