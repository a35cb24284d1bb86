"""Open in Colab: each example page links its notebook, as the repository publishes it, in Colab.

Colab opens notebooks from GitHub (``colab.research.google.com/github/<owner>/<repo>/blob/
<branch>/<path>``), not from a web site. The English build copies each gallery notebook into
``_notebooks/`` of the built site (:data:`NOTEBOOKS`, the same path as the page, ``.ipynb``
for ``.html``), and the site's workflow (``.github/workflows/pages.yml``) pushes that folder to
the repository's ``notebooks`` branch (:data:`BRANCH`), where the links point. Both editions link
the same notebooks: sphinx-gallery writes them from the scripts, in English.

Each notebook's first cell installs jaxpurity from the repository (:data:`INSTALL_CELL`,
sphinx-gallery's ``first_notebook_cell``): Colab has JAX, not jaxpurity. The cell is in the
notebooks only, on no page and in no downloaded script.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from docutils import nodes
from editions import language_of, say
from sphinx.application import Sphinx

from jaxpurity._pages import PAGES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
#: ``https://github.com/<owner>/<repo>``: pyproject.toml's Source.
SOURCE = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Source"]
BRANCH = "notebooks"
NOTEBOOKS = "_notebooks"
INSTALL_CELL = f"%pip install git+{SOURCE}"
LABEL = "Open in Colab"  # editions.UI holds its Chinese


def colab_url(docname: str) -> str:
    """Where Colab opens the notebook of the gallery page ``docname``.

    Example:
      >>> colab_url("examples/state_and_leaks/global_counter")  # doctest: +ELLIPSIS
      'https://colab.research.google.com/github/.../blob/notebooks/examples/state_and_leaks/global_counter.ipynb'
    """
    repository = SOURCE.removeprefix("https://github.com/")
    return f"https://colab.research.google.com/github/{repository}/blob/{BRANCH}/{docname}.ipynb"


def add_colab_link(app: Sphinx, doctree: nodes.document) -> None:
    """Put "Open in Colab" first among a gallery page's downloads, at its end."""
    docname = app.env.docname
    if f"{docname}.html" not in PAGES.values():
        return
    for footer in doctree.findall(nodes.container):
        if "sphx-glr-footer-example" in footer["classes"]:
            text = say(language_of(app), LABEL)
            link = nodes.reference("", text, refuri=colab_url(docname))
            box = nodes.container("", nodes.paragraph("", "", link))
            box["classes"] = ["sphx-glr-download", "sphx-glr-download-colab"]
            footer.insert(0, box)


def publish_notebooks(app: Sphinx, exception: Exception | None) -> None:
    """Copy each gallery notebook to ``_notebooks/`` of the English site (where it changed)."""
    if exception is not None or app.builder.format != "html" or language_of(app) != "en":
        return
    for page in PAGES.values():
        source = Path(app.srcdir) / page.replace(".html", ".ipynb")
        target = Path(app.outdir) / NOTEBOOKS / source.relative_to(app.srcdir)
        if not source.is_file():
            continue
        if not target.is_file() or target.read_bytes() != source.read_bytes():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-read", add_colab_link)
    app.connect("build-finished", publish_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
