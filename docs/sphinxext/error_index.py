"""The error index: each error the gallery caught, the pages showing it, the page explaining it.

While each example runs, :func:`log_caught_errors` points
:func:`jaxpurity.raises` at a log of that page's own
(``examples/_captured/<section>/<page>.jsonl``, rewritten on every run).
After the examples have run, :func:`write_error_index` reads the logs back
and writes the table that ``errors.rst`` includes. The build fails when
:func:`jaxpurity.explain` sends a captured error to a page that does not show
that exception: the index and ``explain`` must agree.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

import jaxpurity
from jaxpurity._capture import CAUGHT_LOG_ENV, read_caught
from jaxpurity._pages import page, script, topic_of


def _captured_dir(srcdir: str | os.PathLike[str]) -> Path:
    return Path(srcdir) / "examples" / "_captured"


def log_caught_errors(gallery_conf: dict[str, Any], fname: str | None, when: str) -> None:
    """Before an example runs, point ``$JAXPURITY_CAUGHT_LOG`` at its log; after, unset it."""
    if when == "before" and fname is not None:
        topic = topic_of(fname)
        section = Path(script(topic)).parent.name
        log = _captured_dir(gallery_conf["src_dir"]) / section / f"{topic}.jsonl"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("")
        os.environ[CAUGHT_LOG_ENV] = str(log)
    else:
        os.environ.pop(CAUGHT_LOG_ENV, None)


def error_index(errors: list[dict[str, str]]) -> list[dict[str, Any]]:
    """One row per (exception, first line): the pages that show it and the one that explains it.

    Raises:
      ExtensionError: jaxpurity.explain sends a captured error to a page that
        does not show that exception.
    """
    shown_by_type: dict[str, set[str]] = {}
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for error in errors:
        shown_by_type.setdefault(error["type"], set()).add(topic_of(error["page"]))
        first_line = (error["message"].splitlines() or [""])[0]
        row = rows.setdefault(
            (error["type"], first_line),
            {"type": error["type"], "first_line": first_line, "pages": [], "explained_on": set()},
        )
        if error["page"] not in row["pages"]:
            row["pages"].append(error["page"])
        explanation = jaxpurity.explain(f"{error['type']}: {error['message']}")
        if explanation.recognised:
            row["explained_on"].add(explanation.topic)
    wrong = [
        f"{row['type']} ({row['first_line']!r}): explain() names {topic}, "
        f"but it is shown on {sorted(shown_by_type[row['type']])}"
        for row in rows.values()
        for topic in row["explained_on"]
        if topic not in shown_by_type[row["type"]]
    ]
    if wrong:
        raise ExtensionError("error index and jaxpurity.explain disagree:\n" + "\n".join(wrong))
    return sorted(rows.values(), key=lambda row: (row["type"], row["first_line"]))


def _code(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("`", "\\`")
    return f":code:`{escaped}`" if text else ""


def _doc(topic: str) -> str:
    return f":doc:`/{page(topic).removesuffix('.html')}`"


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as the reST list-table that ``errors.rst`` includes."""
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 18 47 17 18",
        "",
        "   * - Exception",
        "     - First line, as JAX printed it",
        "     - Explained on",
        "     - Shown on",
    ]
    for row in rows:
        explained = ", ".join(_doc(topic) for topic in sorted(row["explained_on"]))
        shown = ", ".join(_doc(topic_of(shown_on)) for shown_on in row["pages"])
        lines += [
            f"   * - ``{row['type']}``",
            f"     - {_code(row['first_line'])}",
            f"     - {explained or 'not recognised by jaxpurity.explain'}",
            f"     - {shown}",
        ]
    return "\n".join(lines) + "\n"


def write_error_index(app: Sphinx) -> None:
    """Write ``examples/error_index.rst.inc`` from the captured errors."""
    text = table(error_index(read_caught(_captured_dir(app.srcdir))))
    path = Path(app.srcdir) / "examples" / "error_index.rst.inc"
    path.parent.mkdir(parents=True, exist_ok=True)
    # Rewrite only on change, so that an unchanged rebuild does not re-read errors.rst.
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def setup(app: Sphinx) -> dict[str, Any]:
    # After sphinx-gallery (priority 500) has run the examples.
    app.connect("builder-inited", write_error_index, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
