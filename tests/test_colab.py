"""Tests for docs/sphinxext/colab.py: the notebooks install the jaxpurity the site shows."""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from colab import (
    INSTALL_CELL,
    REVISION,
    ROOT,
    SOURCE,
    built_from,
    install_cell,
    installed_revision,
    pin_notebooks,
)

import jaxpurity
from jaxpurity._pages import PAGES


def git(folder: Path, *args: str) -> str:
    command = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t", *args]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()


def test_the_install_cell_pins_the_commit_checked_out():
    try:
        head = git(ROOT, "rev-parse", "HEAD")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the site pins the release's tag (next test)")
    assert REVISION == head
    assert INSTALL_CELL == f"%pip install git+{SOURCE}@{head}"  # not main's newest
    assert installed_revision(INSTALL_CELL) == head


def test_outside_a_checkout_of_its_own_the_cell_pins_the_release_tag(tmp_path: Path):
    tag = f"v{jaxpurity.__version__}"
    assert built_from(tmp_path) == tag  # an unpacked sdist: no repository
    # A folder inside another repository: that repository's commit is not jaxpurity's.
    git(tmp_path, "init", "-q")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "other")
    (tmp_path / "jaxpurity").mkdir()
    assert built_from(tmp_path / "jaxpurity") == tag
    assert built_from(tmp_path) == git(tmp_path, "rev-parse", "HEAD")


def test_a_cell_without_a_revision_pins_none():
    assert installed_revision(f"%pip install git+{SOURCE}") is None  # main's HEAD, when run
    assert installed_revision(install_cell("v0.1.0")) == "v0.1.0"
    assert installed_revision("%pip install git+https://github.com/someone/else@abc") is None


def _notebook(first: str) -> dict:
    """A notebook as sphinx-gallery writes one: ``first``, then the page's own cell."""
    cell = {"cell_type": "code", "execution_count": None, "metadata": {"collapsed": False}}
    cells = [{**cell, "outputs": [], "source": [text]} for text in (first, "import jax")]
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 0}


def test_a_notebook_an_earlier_build_wrote_installs_this_build_s_revision(tmp_path: Path):
    # sphinx-gallery writes a notebook only when its example runs again: the others keep the
    # cell of the build that ran them, main's HEAD or an older commit.
    stale, current, *_ = (tmp_path / page.replace(".html", ".ipynb") for page in PAGES.values())
    for path, first in ((stale, f"%pip install git+{SOURCE}"), (current, INSTALL_CELL)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(_notebook(first), indent=2), encoding="utf-8")
    archive = stale.with_suffix(".zip")
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.write(stale, stale.name)
    untouched = current.stat().st_mtime_ns
    config = SimpleNamespace(sphinx_gallery_conf={"gallery_dirs": "examples"})
    app = SimpleNamespace(srcdir=str(tmp_path), config=config)

    pin_notebooks(app, None)  # type: ignore[arg-type]

    assert json.loads(stale.read_text()) == _notebook(INSTALL_CELL)
    assert stale.read_text() == json.dumps(_notebook(INSTALL_CELL), indent=2)
    with zipfile.ZipFile(archive) as zipped:
        assert zipped.read(stale.name) == stale.read_bytes()  # the page's zip too
    assert current.stat().st_mtime_ns == untouched  # written only where it changes
