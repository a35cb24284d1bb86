"""Open in Colab: each example page links its notebook, as the repository publishes it, in Colab.

Colab opens notebooks from GitHub (``colab.research.google.com/github/<owner>/<repo>/blob/
<branch>/<path>``), not from a web site. The English build copies each gallery notebook into
``_notebooks/`` of the built site (:data:`NOTEBOOKS`, the same path as the page, ``.ipynb``
for ``.html``), and the site's workflow (``.github/workflows/pages.yml``) pushes that folder to
the repository's ``notebooks`` branch (:data:`BRANCH`), where the links point. Both editions link
the same notebooks: sphinx-gallery writes them from the scripts, in English.

Each notebook's first cell installs jaxpurity from the repository (:data:`INSTALL_CELL`,
sphinx-gallery's ``first_notebook_cell``): Colab has JAX, not jaxpurity. The cell is in the
notebooks only, on no page and in no downloaded script. It installs the commit the site is
built from (:data:`REVISION`), not main's newest: the page a notebook comes from shows what
that commit's jaxpurity printed, and main may have moved on. sphinx-gallery writes a notebook
only when its example runs again, so :func:`pin_notebooks` sets the cell of every notebook
on each build, where an earlier commit's build left its own.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from docutils import nodes
from editions import language_of, say
from notebook_markdown import refresh_zip
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from unchanged_rebuild import replace_if_changed

import jaxpurity
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
LABEL = "Open in Colab"  # editions.UI holds its Chinese
_INSTALL = re.compile(rf"%pip install git\+{re.escape(SOURCE)}(?:@(?P<revision>\S+))?")


def built_from(root: Path = ROOT) -> str:
    """The revision of jaxpurity that a site built from ``root`` shows: what its notebooks install.

    The commit checked out there (``git rev-parse HEAD``, the whole hash: the Pages workflow
    builds a checkout of the commit it publishes). Where ``root`` is no checkout of its own
    (an unpacked sdist, or no git), the release's tag, ``v`` and the version. A build with
    uncommitted changes pins HEAD too: its notebooks install what was committed.
    """
    git = ["git", "-C", str(root), "rev-parse", "--show-toplevel", "HEAD"]
    try:
        top, commit = subprocess.run(
            git, capture_output=True, text=True, check=True
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError, ValueError):
        return f"v{jaxpurity.__version__}"
    if Path(top).resolve() != root.resolve():  # a repository that holds this one's files
        return f"v{jaxpurity.__version__}"
    return commit


def install_cell(revision: str) -> str:
    """The notebooks' first cell: install jaxpurity at ``revision`` (a commit or a tag).

    Example:
      >>> install_cell("v0.1.0")
      '%pip install git+https://github.com/jaxpurity/jaxpurity@v0.1.0'
    """
    return f"%pip install git+{SOURCE}@{revision}"


def installed_revision(cell: str) -> str | None:
    """The revision that a notebook cell installs (None where it pins none, or is no install).

    Example:
      >>> installed_revision(install_cell("v0.1.0")), installed_revision("import jax")
      ('v0.1.0', None)
    """
    found = _INSTALL.fullmatch(cell.strip())
    return None if found is None else found["revision"]


#: The commit (or tag) this build is made from, and the cell that installs it.
REVISION = built_from()
INSTALL_CELL = install_cell(REVISION)


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


def pin_notebooks(app: Sphinx, env: BuildEnvironment) -> None:
    """Make every gallery notebook's first cell :data:`INSTALL_CELL`, and refresh the zips.

    A notebook whose example did not run again in this build still installs the revision of
    the build that wrote it. Files are written only where their text changes.
    """
    changed = False
    for page in PAGES.values():
        path = Path(app.srcdir) / page.replace(".html", ".ipynb")
        if not path.is_file():
            continue
        notebook = json.loads(path.read_text(encoding="utf-8"))
        first = notebook["cells"][0] if notebook["cells"] else None
        if first is None or not _INSTALL.fullmatch("".join(first["source"]).strip()):
            continue
        if first["source"] != [INSTALL_CELL]:
            first["source"] = [INSTALL_CELL]  # as sphinx-gallery writes a code cell
            # Written as sphinx-gallery writes its notebooks.
            path.write_bytes(json.dumps(notebook, indent=2).encode("utf-8"))
            changed = True
    if changed:
        gallery = Path(app.srcdir) / app.config.sphinx_gallery_conf["gallery_dirs"]
        for archive in sorted(gallery.rglob("*.zip")):
            refresh_zip(archive)


def publish_notebooks(app: Sphinx, exception: Exception | None) -> None:
    """Copy each gallery notebook to ``_notebooks/`` of the English site (where it changed)."""
    if exception is not None or app.builder.format != "html" or language_of(app) != "en":
        return
    for page in PAGES.values():
        source = Path(app.srcdir) / page.replace(".html", ".ipynb")
        target = Path(app.outdir) / NOTEBOOKS / source.relative_to(app.srcdir)
        if source.is_file():
            replace_if_changed(source, target)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-read", add_colab_link)
    app.connect("env-updated", pin_notebooks)
    app.connect("build-finished", publish_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
