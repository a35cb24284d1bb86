"""Tests for docs/sphinxext/notebook_markdown.py: the gallery's reST, as Markdown for Jupyter."""

from __future__ import annotations

import ast
import io
import json
import re
import zipfile
from pathlib import Path

import pytest
from notebook_markdown import (
    code,
    convert_notebook,
    doc_target,
    refresh_zip,
    to_markdown,
)

from jaxpurity._pages import PAGES, script, topic_of, url

ROOT = Path(__file__).resolve().parents[1]
# What a role or a reST inline literal looks like; none may be left after the conversion.
RAW = re.compile(r":(?:\w+:)?\w+:`[^`]+`|``[^`\s][^`]*``")
API = {
    ("func", "jax.jit"): "https://docs.jax.dev/en/latest/_autosummary/jax.jit.html#jax.jit",
    ("mod", "jax.random"): "https://docs.jax.dev/en/latest/jax.random.html#module-jax.random",
    ("class", "jax.errors.UnexpectedTracerError"): "https://jax.example/UnexpectedTracerError",
}


def api_url(role: str, target: str) -> str | None:
    return API.get((role, target))


def title_of(docname: str) -> str:
    """A gallery page's title, from its script's docstring (what the build's titles hold)."""
    source = (ROOT / script(topic_of(docname))).read_text(encoding="utf-8")
    docstring = ast.get_docstring(ast.parse(source)) or ""
    return docstring.strip().splitlines()[0]


def convert(text: str, docname: str = "examples/control_flow/python_control_flow") -> str:
    return to_markdown(text, docname, title_of, api_url=api_url)


# Real lines of the gallery, each with its script.
def test_func_role_becomes_a_link_to_the_api_page_with_parentheses():
    # gallery/control_flow/python_control_flow.py, the docstring
    text = "inside :func:`jax.jit`. A loop over a fixed ``range(5)`` works, by unrolling"
    assert convert(text) == (
        f"inside [`jax.jit()`]({API['func', 'jax.jit']}). A loop over a fixed `range(5)` "
        "works, by unrolling"
    )


def test_func_role_without_parentheses_when_sphinx_adds_none():
    text = "Under\n:func:`jax.jit` it runs"  # python_control_flow.py, first cell
    out = to_markdown(text, "examples/control_flow/python_control_flow", title_of, False, api_url)
    assert out == f"Under\n[`jax.jit`]({API['func', 'jax.jit']}) it runs"


def test_tilde_keeps_the_last_name_and_links_the_full_one():
    text = "# The :class:`~jax.errors.UnexpectedTracerError` fires where"  # global_counter.py
    url_ = API["class", "jax.errors.UnexpectedTracerError"]
    assert convert(text) == f"# The [`UnexpectedTracerError`]({url_}) fires where"


def test_name_no_inventory_knows_stays_inline_code():
    # loop_carry_types.py: "raise :class:`jaxpurity.TypeMismatchError`"
    assert convert("raise :class:`jaxpurity.TypeMismatchError`") == (
        "raise `jaxpurity.TypeMismatchError`"
    )


def test_module_role_links_the_module():
    text = "fix (explicit :mod:`jax.random` keys, split and passed along)"  # frozen_randomness.py
    assert convert(text) == (
        f"fix (explicit [`jax.random`]({API['mod', 'jax.random']}) keys, split and passed along)"
    )


def test_doc_role_becomes_a_link_to_the_hosted_page_with_its_title():
    # static_arguments.py: ":doc:`python_control_flow` covers this error"
    out = convert(
        ":doc:`python_control_flow` covers this error", "examples/control_flow/static_arguments"
    )
    assert out == (
        f"[{title_of('examples/control_flow/python_control_flow')}]"
        f"({url('python_control_flow')}) covers this error"
    )


def test_doc_role_to_another_section_and_with_its_own_title():
    docname = "examples/tools/what_fixes_cost"
    out = convert("(see :doc:`the loops <../control_flow/python_control_flow>`)", docname)
    assert out == f"(see [the loops]({url('python_control_flow')}))"


def test_admonition_becomes_a_block_quote_headed_by_its_name():
    text = "Before.\n\n.. tip::\n   Use :func:`jax.jit`\n   once.\n\n   Then train.\n\nAfter."
    assert convert(text) == (
        "Before.\n\n> **Tip**\n>\n> Use [`jax.jit()`]("
        + API["func", "jax.jit"]
        + ")\n> once.\n>\n> Then train.\n\nAfter."
    )


def test_seealso_with_its_text_on_the_directive_line():
    assert convert(".. seealso:: ``jax.lax.scan``\n") == "> **See also**\n>\n> `jax.lax.scan`\n\n"


def test_code_span_with_a_backtick_inside():
    assert code("a`b") == "`` a`b ``"
    assert convert("``a`b``") == "`` a`b ``"


def test_doc_target_resolves_relative_and_absolute_names():
    assert doc_target("examples/tools/a", "../control_flow/b") == "examples/control_flow/b"
    assert doc_target("examples/tools/a", "/errors") == "errors"


def test_unknown_page_is_a_clear_error():
    with pytest.raises(KeyError, match="no gallery page"):
        to_markdown("text", "examples/tools/no_such_page", title_of)


def _text_blocks(path: Path) -> str:
    """The reST a gallery script holds: its docstring and its comment lines."""
    source = path.read_text(encoding="utf-8")
    docstring = ast.get_docstring(ast.parse(source)) or ""
    comments = [line[2:] for line in source.splitlines() if line.startswith("# ")]
    return docstring + "\n" + "\n".join(comments)


@pytest.mark.parametrize("topic", sorted(PAGES))
def test_every_gallery_page_leaves_no_raw_role(topic: str):
    text = _text_blocks(ROOT / script(topic))
    assert RAW.search(text), f"{topic}: no role to convert; the test would check nothing"
    docname = PAGES[topic].removesuffix(".html")
    out = to_markdown(text, docname, title_of, api_url=api_url)
    assert RAW.findall(out) == []


def test_convert_notebook_touches_markdown_cells_only():
    notebook = {
        "nbformat": 4,
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["Use ", ":func:`jax.jit`"]},
            {"cell_type": "code", "metadata": {}, "source": ["x = ``1``"], "outputs": []},
        ],
    }
    out = convert_notebook(notebook, "examples/tools/debugging_workflow", title_of, True)
    assert out["cells"][0]["source"] == ["Use `jax.jit()`"]
    assert out["cells"][1] == notebook["cells"][1]
    assert notebook["cells"][0]["source"] == ["Use ", ":func:`jax.jit`"]  # not changed in place


def test_refresh_zip_takes_the_files_as_they_are_now(tmp_path: Path):
    (tmp_path / "a.ipynb").write_text(json.dumps({"cells": []}))
    archive = tmp_path / "notebooks.zip"
    with zipfile.ZipFile(archive, "w") as zipf:
        zipf.write(tmp_path / "a.ipynb", "a.ipynb")
    assert refresh_zip(archive) is False  # nothing changed: the zip is left as it was
    (tmp_path / "a.ipynb").write_text(json.dumps({"cells": [1]}))
    assert refresh_zip(archive) is True
    with zipfile.ZipFile(io.BytesIO(archive.read_bytes())) as zipf:
        assert json.loads(zipf.read("a.ipynb")) == {"cells": [1]}
