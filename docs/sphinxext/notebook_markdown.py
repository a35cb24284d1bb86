"""Notebooks that read well in Jupyter: the reST that sphinx-gallery leaves in them, as Markdown.

sphinx-gallery turns each text block of a gallery script into a markdown cell. It converts
headings, links and code blocks, but leaves Sphinx's roles and reST's inline literals as they
are, so the downloaded notebooks show ``:func:`jax.jit``` and ````x````. Once every document
has been read (``env-updated``: the titles that ``:doc:`` shows are known then, and the
downloads are copied after it), :func:`rewrite_notebooks` rewrites each gallery notebook's
markdown cells with :func:`to_markdown`, and puts the new notebooks in the zips that hold them:

* a Python role, ``:func:`jax.jit```, becomes a Markdown link, ``[`jax.jit()`](...)``, to the
  API page the site links it to (JAX's, NumPy's, Python's through intersphinx; jaxpurity's own
  API page); its text is what the page shows (Sphinx's rules: ``~`` keeps the last name,
  ``text <target>`` keeps the text, ``:func:`` and ``:meth:`` get ``()`` when
  ``add_function_parentheses`` is on). A name no inventory knows stays inline code;
* ``:doc:`page``` becomes a Markdown link, with the page's title, to the page on the hosted
  site (:func:`jaxpurity._pages.url`), so that it works from a downloaded file;
* an inline literal ````x```` becomes ```x```;
* an admonition that sphinx-gallery leaves as reST (``.. tip::``, ``.. seealso::``, ...; it
  converts ``note`` and ``warning`` itself) becomes a block quote headed by its name in bold.

Files are written only when their text changes, so an unchanged build rewrites nothing.
"""

from __future__ import annotations

import io
import json
import posixpath
import re
import textwrap
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.ext.intersphinx import InventoryAdapter
from unchanged_rebuild import write_if_changed

from jaxpurity._pages import PAGES, topic_of, url

_INLINE = re.compile(
    r"``(?P<literal>[^`].*?)``"  # ``literal``
    r"|(?<![\w`]):(?:(?P<domain>\w+):)?(?P<role>\w+):`(?P<text>[^`]+)`(?!`)",  # :role:`text`
    re.S,
)
_FENCED = re.compile(r"(^```.*?^```[ \t]*$)", re.M | re.S)
_EXPLICIT_TITLE = re.compile(r"^(?P<title>.+?)\s*<(?P<target>[^<>]+)>$", re.S)
_PARENTHESISED = {"func", "meth"}  # the Python roles Sphinx shows with "()"
# An admonition: ".. name:: first line", then its indented body (blank lines included).
_ADMONITION = re.compile(
    r"^\.\. (?P<name>attention|caution|danger|error|hint|important|note|seealso|tip|warning)::"
    r"[ \t]*(?P<first>[^\n]*)\n(?P<body>(?:[ \t]*\n|[ \t]+[^\n]*\n?)*)",
    re.M,
)
_ADMONITION_TITLES = {"seealso": "See also"}

#: ``api_url(role, target)``: the address of a Python object's documentation, or None.
ApiUrl = Callable[[str, str], "str | None"]


def _no_api_url(role: str, target: str) -> str | None:
    return None


def code(text: str) -> str:
    """``text`` as a Markdown code span (fenced with two backticks if it holds one).

    Example:
      >>> code("x + 1"), code("a`b")
      ('`x + 1`', '`` a`b ``')
    """
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _python_target(text: str) -> str:
    """The object that a Python cross-reference ``:role:`text``` names.

    Example:
      >>> _python_target("~jax.lax.cond"), _python_target("cond <jax.lax.cond>")
      ('jax.lax.cond', 'jax.lax.cond')
    """
    explicit = _EXPLICIT_TITLE.match(text)
    target = explicit["target"] if explicit else text
    return target.removeprefix("!").lstrip(".~").removesuffix("()")


def _shown_name(role: str, text: str, parentheses: bool) -> str:
    """What Sphinx shows for a Python cross-reference ``:role:`text```."""
    explicit = _EXPLICIT_TITLE.match(text)
    if explicit:
        return explicit["title"]
    title = text.removeprefix("!").lstrip(".")
    if title.startswith("~"):
        title = title[1:].rpartition(".")[2]
    if role in _PARENTHESISED:
        title = title.removesuffix("()") + ("()" if parentheses else "")
    return title


def doc_target(docname: str, target: str) -> str:
    """The document that ``:doc:`target``` on ``docname`` names.

    Example:
      >>> doc_target("examples/tools/a", "../control_flow/b")
      'examples/control_flow/b'
      >>> doc_target("examples/tools/a", "/errors")
      'errors'
    """
    if target.startswith("/"):
        return target.lstrip("/")
    return posixpath.normpath(posixpath.join(posixpath.dirname(docname), target))


def _admonition(match: re.Match[str]) -> str:
    name = match["name"]
    body = textwrap.dedent(match["body"]).strip("\n")
    lines = [f"**{_ADMONITION_TITLES.get(name, name.capitalize())}**"]
    lines += [line for line in (match["first"].strip(), body) if line]
    quoted = "\n\n".join(lines).splitlines()
    return "\n".join(f"> {line}".rstrip() for line in quoted) + "\n\n"


def to_markdown(
    text: str,
    docname: str,
    title_of: Callable[[str], str],
    parentheses: bool = True,
    api_url: ApiUrl = _no_api_url,
) -> str:
    """The markdown of a notebook cell from ``docname``, with its roles and literals converted.

    Args:
      text: The cell's markdown, as sphinx-gallery wrote it.
      docname: The gallery page the notebook comes from (``examples/<section>/<topic>``).
      title_of: The title of a document, by docname (for ``:doc:`` without a title).
      parentheses: Whether ``:func:`` and ``:meth:`` get ``()`` (Sphinx's
        ``add_function_parentheses``).
      api_url: The address of a Python object's documentation, by role and name, or None
        where no inventory knows it (the name then stays inline code).

    Returns:
      The text with each role, inline literal and admonition in Markdown.

    Example:
      >>> page = "examples/tools/debugging_workflow"
      >>> to_markdown("Use :func:`~jax.lax.cond`, not ``if``.", page, str)
      'Use `cond()`, not `if`.'
      >>> to_markdown("In ``x.yaml``:\\n\\n```yaml\\nkey: ``v``\\n```\\n", page, str)
      'In `x.yaml`:\\n\\n```yaml\\nkey: ``v``\\n```\\n'
    """
    page_url = url(topic_of(docname))

    def convert(match: re.Match[str]) -> str:
        if match["literal"] is not None:
            return code(match["literal"])
        role, text = match["role"], match["text"]
        if role == "doc":
            explicit = _EXPLICIT_TITLE.match(text)
            target = doc_target(docname, explicit["target"] if explicit else text)
            title = explicit["title"] if explicit else title_of(target)
            link = posixpath.relpath(f"{target}.html", posixpath.dirname(docname))
            return f"[{title}]({urljoin(page_url, link)})"
        shown = code(_shown_name(role, text, parentheses))
        address = api_url(role, _python_target(text))
        return f"[{shown}]({address})" if address else shown

    # A fenced code block (sphinx-gallery writes one for ``.. code-block::``) is code: its
    # backquotes are not reST's.
    parts = _FENCED.split(text)
    return "".join(
        part if part.startswith("```") else _INLINE.sub(convert, _ADMONITION.sub(_admonition, part))
        for part in parts
    )


def convert_notebook(
    notebook: dict[str, Any],
    docname: str,
    title_of: Callable[[str], str],
    parentheses: bool,
    api_url: ApiUrl = _no_api_url,
) -> dict[str, Any]:
    """``notebook`` with every markdown cell converted by :func:`to_markdown`."""
    cells = []
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            text = "".join(cell["source"])
            source = to_markdown(text, docname, title_of, parentheses, api_url)
            cell = {**cell, "source": [source]}
        cells.append(cell)
    return {**notebook, "cells": cells}


def refresh_zip(path: Path) -> bool:
    """Rebuild a zip sphinx-gallery made from the files it holds, as they are on disk now.

    Each member is written as sphinx-gallery writes it (``ZipFile.write`` of the file
    next to the zip, under the same name), so a zip whose files did not change comes out
    the same. Returns whether the zip changed.
    """
    with zipfile.ZipFile(path) as old:
        names = old.namelist()
    new = io.BytesIO()
    with zipfile.ZipFile(new, mode="w") as zipf:
        for name in names:
            zipf.write(path.parent / name, name)
    return write_if_changed(path, new.getvalue())


def api_urls(env: BuildEnvironment, base: str) -> ApiUrl:
    """Where the site links each Python name: jaxpurity's own API page (``base`` + its
    document), else the intersphinx inventories (JAX, NumPy, Python)."""
    domain = env.get_domain("py")
    local = env.domaindata["py"]["objects"]
    inventory = InventoryAdapter(env).main_inventory

    def api_url(role: str, target: str) -> str | None:
        objtypes = domain.objtypes_for_role(role) or []
        entry = local.get(target)
        if entry is not None and entry.objtype in objtypes:
            return urljoin(base, f"{entry.docname}.html#{entry.node_id}")
        for objtype in objtypes:
            item = inventory.get(f"py:{objtype}", {}).get(target)
            if item is not None:
                return item.uri
        return None

    return api_url


def rewrite_notebooks(app: Sphinx, env: BuildEnvironment) -> None:
    """Convert the markdown of every gallery notebook, then refresh the zips that hold them."""
    gallery = Path(app.srcdir) / app.config.sphinx_gallery_conf["gallery_dirs"]
    parentheses = app.config.add_function_parentheses

    def title_of(docname: str) -> str:
        return env.titles[docname].astext()

    # The site's root: a gallery page's address less its path on the site.
    some_topic = next(iter(PAGES))
    api_url = api_urls(env, url(some_topic).removesuffix(PAGES[some_topic]))

    changed = False
    for page in PAGES.values():
        docname = page.removesuffix(".html")
        path = Path(app.srcdir) / f"{docname}.ipynb"
        if not path.is_file():
            continue
        notebook = json.loads(path.read_text(encoding="utf-8"))
        converted = convert_notebook(notebook, docname, title_of, parentheses, api_url)
        # Written as sphinx-gallery writes its notebooks.
        changed |= write_if_changed(path, json.dumps(converted, indent=2).encode("utf-8"))
    if changed:
        for archive in sorted(gallery.rglob("*.zip")):
            refresh_zip(archive)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("env-updated", rewrite_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
