"""What an extension works out of each document as it is read, kept in the environment.

Sphinx pickles its environment between builds and reads again only the documents that
changed, so a value worked out from a document's doctree is kept there, by docname: set when
the document is read, dropped when it is read again or removed, merged from the processes of
a parallel read. An environment built before the extension kept it holds none, and then every
document is read again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment


def keep_per_document(
    app: Sphinx, name: str, read: Callable[[Sphinx, nodes.document], Any | None]
) -> None:
    """Keep ``read(app, doctree)`` of each document in ``env.<name>[docname]``.

    ``read`` returning None keeps nothing for the document (a builder it does not apply to).
    """

    def kept(env: BuildEnvironment) -> dict[str, Any]:
        return env.__dict__.setdefault(name, {})

    def on_read(app: Sphinx, doctree: nodes.document) -> None:
        value = read(app, doctree)
        if value is not None:
            kept(app.env)[app.env.docname] = value

    def on_purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
        kept(env).pop(docname, None)

    def on_merge(
        app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment
    ) -> None:
        kept(env).update(getattr(other, name, {}))

    def outdated(
        app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
    ) -> list[str]:
        return [] if hasattr(env, name) else sorted(env.found_docs)

    app.connect("doctree-read", on_read)
    app.connect("env-purge-doc", on_purge)
    app.connect("env-merge-info", on_merge)
    app.connect("env-get-outdated", outdated)
