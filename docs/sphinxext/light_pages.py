"""Pages load only the styles and scripts that their content uses.

Sphinx links every stylesheet and script an extension adds from every page. sphinx-gallery's
four stylesheets and its tags script (21 KB) serve only the pages that hold its markup (the
examples, the gallery's index pages, a paste of its thumbnails); :func:`drop_unused_gallery_assets`
unlinks them from the others (the API page, the glossary, the search page). Each extension that
adds a file for a few pages only links it there itself (``explain_box``: ``known_errors.js``).
"""

from __future__ import annotations

import posixpath
from typing import Any

from sphinx.application import Sphinx

#: What sphinx-gallery links from every page, for its own markup (classes ``sphx-glr-*``).
GALLERY_ASSETS = (
    "sg_gallery.css",
    "sg_gallery-binder.css",
    "sg_gallery-dataframe.css",
    "sg_gallery-rendered-html.css",
    "sg-tags.js",
)
GALLERY_MARKUP = "sphx-glr"


def uses_gallery_markup(body: str) -> bool:
    """Whether a page's body holds sphinx-gallery's markup.

    Example:
      >>> uses_gallery_markup('<div class="sphx-glr-thumbnails">'), uses_gallery_markup("<p>")
      (True, False)
    """
    return GALLERY_MARKUP in body


def drop_unused_gallery_assets(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Unlink sphinx-gallery's stylesheets and script from a page without its markup.

    The lists are the builder's own (``_static/sg_gallery.css``), which it restores after
    each page.
    """
    if uses_gallery_markup(context.get("body", "")):
        return
    for key in ("css_files", "script_files"):
        if key in context:
            context[key][:] = [
                asset
                for asset in context[key]
                if posixpath.basename(str(asset.filename)) not in GALLERY_ASSETS
            ]


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", drop_unused_gallery_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
