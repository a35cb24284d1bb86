"""Open in Colab, read from the built HTML and notebooks (no browser): ``tox -e e2e``.

Every example page of both editions links Colab once, at the notebook the repository's
``notebooks`` branch holds: the site's ``_notebooks/`` folder, which the Pages workflow pushes
there (``docs/sphinxext/colab.py``). The test checks that each link names a notebook the build
wrote, the same file as the page's Jupyter download, whose first cell installs jaxpurity and
is on no page and in no downloaded script. Every notebook installs one commit: the one the site
was built from, which this checkout holds (HEAD, or before it where the site is older).
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import zipfile

import pytest

if os.environ.get("JAXPURITY_E2E") != "1":
    pytest.skip("runs with `tox -e e2e` (JAXPURITY_E2E=1)", allow_module_level=True)

from _site import ROOT, SITE
from colab import BRANCH, NOTEBOOKS, SOURCE, install_cell, installed_revision

from jaxpurity._pages import PAGES

COLAB_LINK = re.compile(r'href="(https://colab\.research\.google\.com/[^"]+)"')
DOWNLOAD_PATTERN = r'class="[^"]*sphx-glr-download-{kind}[^"]*".*?href="(?P<href>[^"]+)"'
EXAMPLES = [f"{edition}{page}" for edition in ("", "zh_CN/") for page in PAGES.values()]
PREFIX = f"https://colab.research.google.com/github/{SOURCE.removeprefix('https://github.com/')}"


def download(path: str, kind: str) -> bytes:
    """The file behind one of the page's download buttons (``jupyter`` or ``python``)."""
    pattern = DOWNLOAD_PATTERN.format(kind=kind)
    match = re.search(pattern, (SITE / path).read_text(encoding="utf-8"), re.S)
    assert match, f"{path}: no {kind} download"
    return ((SITE / path).parent / html.unescape(match["href"])).read_bytes()


def first_cell(notebook: bytes) -> tuple[str, str]:
    """A notebook's first cell: its type and its text."""
    first = json.loads(notebook)["cells"][0]
    return first["cell_type"], "".join(first["source"])


def git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def every_notebook() -> dict[str, bytes]:
    """Each notebook the site gives a reader, in both editions: published for Colab,
    downloaded, and in the zips of a page's downloads."""
    found = {p.relative_to(SITE).as_posix(): p.read_bytes() for p in SITE.rglob("*.ipynb")}
    for archive in SITE.rglob("*.zip"):
        with zipfile.ZipFile(archive) as zipped:
            for name in zipped.namelist():
                if name.endswith(".ipynb"):
                    found[f"{archive.relative_to(SITE).as_posix()}:{name}"] = zipped.read(name)
    return found


NOTEBOOK_CELLS = {where: first_cell(notebook) for where, notebook in every_notebook().items()}
# The revision the site's notebooks install: the first published one's.
FIRST_PUBLISHED = f"{NOTEBOOKS}/" + next(iter(PAGES.values())).replace(".html", ".ipynb")
BUILT_FROM = installed_revision(NOTEBOOK_CELLS[FIRST_PUBLISHED][1]) or ""


def test_every_notebook_installs_the_commit_the_site_was_built_from():
    assert len(NOTEBOOK_CELLS) > len(PAGES), "no zip of the notebooks"
    others = {
        where: text
        for where, (_, text) in NOTEBOOK_CELLS.items()
        if installed_revision(text) != BUILT_FROM
    }
    assert not others, f"{FIRST_PUBLISHED} installs {BUILT_FROM!r}, but: {others}"
    # A whole commit hash that this checkout holds, HEAD or one before it: not a branch
    # (main moves on after the site is built), not a commit only a fork has.
    assert re.fullmatch(r"[0-9a-f]{40}", BUILT_FROM), BUILT_FROM
    assert git("cat-file", "-t", BUILT_FROM).stdout.strip() == "commit", BUILT_FROM
    assert git("merge-base", "--is-ancestor", BUILT_FROM, "HEAD").returncode == 0, BUILT_FROM


@pytest.mark.parametrize("path", EXAMPLES)
def test_colab_opens_the_notebook_the_build_published(path: str):
    text = (SITE / path).read_text(encoding="utf-8")
    (link,) = COLAB_LINK.findall(text)
    assert link.startswith(f"{PREFIX}/blob/{BRANCH}/"), link
    published = SITE / NOTEBOOKS / link.removeprefix(f"{PREFIX}/blob/{BRANCH}/")
    assert published.is_file(), f"{path}: Colab would open {link}, which the build did not write"
    assert published.relative_to(SITE / NOTEBOOKS).as_posix() == path.removeprefix(
        "zh_CN/"
    ).replace(".html", ".ipynb")
    assert published.read_bytes() == download(path, "jupyter"), "not the page's own notebook"


@pytest.mark.parametrize("path", EXAMPLES)
def test_install_cell_is_in_the_notebook_only(path: str):
    assert first_cell(download(path, "jupyter")) == ("code", install_cell(BUILT_FROM))
    assert "%pip" not in (SITE / path).read_text(encoding="utf-8")
    assert b"%pip" not in download(path, "python")  # `python script.py` must run


def test_every_published_notebook_has_its_page():
    folder = SITE / NOTEBOOKS
    published = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert published == {page.replace(".html", ".ipynb") for page in PAGES.values()}
