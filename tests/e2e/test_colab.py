"""Open in Colab, read from the built HTML and notebooks (no browser): ``tox -e e2e``.

Every example page of both editions links Colab once, at the notebook the repository's
``notebooks`` branch holds: the site's ``_notebooks/`` folder, which the Pages workflow pushes
there (``docs/sphinxext/colab.py``). The test checks that each link names a notebook the build
wrote, the same file as the page's Jupyter download, whose first cell installs jaxpurity and
is on no page and in no downloaded script.
"""

from __future__ import annotations

import html
import json
import os
import re

import pytest

if os.environ.get("JAXPURITY_E2E") != "1":
    pytest.skip("runs with `tox -e e2e` (JAXPURITY_E2E=1)", allow_module_level=True)

from _site import SITE
from colab import BRANCH, INSTALL_CELL, NOTEBOOKS, SOURCE

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
    notebook = json.loads(download(path, "jupyter"))
    first = notebook["cells"][0]
    assert (first["cell_type"], "".join(first["source"])) == ("code", INSTALL_CELL)
    assert "%pip" not in (SITE / path).read_text(encoding="utf-8")
    assert b"%pip" not in download(path, "python")  # `python script.py` must run


def test_every_published_notebook_has_its_page():
    folder = SITE / NOTEBOOKS
    published = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert published == {page.replace(".html", ".ipynb") for page in PAGES.values()}
