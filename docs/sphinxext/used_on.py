"""The API page's "Used on" lists: each entry's gallery pages, as a list of links.

sphinx-gallery's ``.. minigallery::`` shows a thumbnail card, with the page's intro as a
tooltip, for each page that uses an object. On the API page the same cards came back under
entry after entry (94 pictures of 28 pages), and made it 650 KB. ``.. used-on:: jaxpurity.cond``
lists the same pages, read from the same record (sphinx-gallery's ``backreferences_all.json``),
as links named by the pages' titles, in the site's reading order. The links are ``:doc:``
references, so the Chinese edition shows its own titles.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from editions import language_of, say
from sphinx import addnodes
from sphinx.application import Sphinx

from jaxpurity._pages import PAGES, topic_of

LABEL = "Used on these pages:"  # editions.UI holds its Chinese


def pages_using(backreferences: dict[str, list[list[str]]], name: str) -> list[str]:
    """The docnames of the gallery pages that use ``name``, in reading order.

    Args:
      backreferences: sphinx-gallery's record: object name -> one
        ``[file name, source folder, target folder, intro, title]`` per page using it.
      name: The object's full name, ``jaxpurity.cond``.

    Example:
      >>> record = {"jaxpurity.cond": [["static_arguments.py", "", "/docs/examples/control_flow"],
      ...                              ["global_counter.py", "", "/docs/examples/state_and_leaks"]]}
      >>> pages_using(record, "jaxpurity.cond")
      ['examples/state_and_leaks/global_counter', 'examples/control_flow/static_arguments']
    """
    order = list(PAGES)
    topics = {topic_of(entry[0]) for entry in backreferences.get(name, [])}
    return [PAGES[topic].removesuffix(".html") for topic in sorted(topics, key=order.index)]


class UsedOn(Directive):
    """``.. used-on:: jaxpurity.cond``: the gallery pages that use the object, as links."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        env = self.state.document.settings.env
        conf = env.config.sphinx_gallery_conf
        record = Path(env.srcdir) / conf["backreferences_dir"] / "backreferences_all.json"
        backreferences = json.loads(record.read_text(encoding="utf-8")) if record.is_file() else {}
        docnames = pages_using(backreferences, self.arguments[0])
        if not docnames:
            return []
        items = nodes.bullet_list()
        for docname in docnames:
            link = addnodes.pending_xref(
                "", refdomain="std", reftype="doc", reftarget="/" + docname,
                refdoc=env.docname, refexplicit=False, refwarn=True,
            )  # fmt: skip
            link += nodes.inline("", docname, classes=["doc"])
            items += nodes.list_item("", nodes.paragraph("", "", link))
        label = nodes.paragraph("", "", nodes.strong("", say(language_of(env.app), LABEL)))
        return [nodes.container("", label, items, classes=["used-on"])]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("used-on", UsedOn)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
