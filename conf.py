"""Sphinx settings for the jaxpurity site; the build logic lives in ``docs/sphinxext/``.

Build with ``python -m sphinx -W --keep-going -b html -c . docs build/html``
(``tox -e docs`` does exactly that). Every script in ``gallery/`` runs during
the build; set ``JAXPURITY_EXAMPLE`` to a regex on the script path to run only
the matching ones (the others are rendered without outputs).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# Before JAX is imported: use the CPU without probing for other backends, so
# no "Unable to initialize backend" lines reach the pages.
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("MPLBACKEND", "agg")
# Four host CPU devices, for the pages that run code on several devices
# (side_effects/side_effects_across_devices). XLA reads the flag once, when JAX
# starts its CPU backend, and every page runs in this one process, so it is set
# here, before anything imports JAX; a page setting it itself would be too late.
# Flags already in XLA_FLAGS are kept, and a device count given there wins.
_DEVICE_COUNT_FLAG = "--xla_force_host_platform_device_count"
if _DEVICE_COUNT_FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = " ".join(
        filter(None, [os.environ.get("XLA_FLAGS"), f"{_DEVICE_COUNT_FLAG}=4"])
    )

ROOT = Path(__file__).resolve().parent
sys.path[:0] = [str(ROOT), str(ROOT / "docs" / "sphinxext")]

from colab import INSTALL_CELL  # noqa: E402

import jaxpurity  # noqa: E402

project = "jaxpurity"
author = "the jaxpurity team"
copyright = "2026, the jaxpurity team"
release = jaxpurity.__version__

extensions = [
    # docs/sphinxext/collector.py first: it sets Python's cycle collector for the whole build.
    "collector",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
    "sphinx_copybutton",
    "sphinx_gallery.gen_gallery",
    # docs/sphinxext/
    "accessibility",
    "colab",
    "download_note",
    "editions",
    "error_index",
    "explain_box",
    "jax_reset",
    "light_pages",
    "notebook_markdown",
    "page_order",
    "ran_on",
    "search_ranking",
    "search_weights",
    "searched_for",
    "thumbnails",
    "unchanged_rebuild",
    "used_on",
    "version_banner",
]

exclude_patterns = ["_build", "examples/**/*.ipynb", "examples/**/*.py", "**/*.codeobj.json"]
templates_path: list[str] = []

# -- HTML ---------------------------------------------------------------------
html_theme = "furo"
html_title = "jaxpurity"
html_static_path = ["docs/_static"]
html_css_files = ["jaxpurity.css"]
# The site's icon, linked from every page; favicon.ico (16 and 32 px, the same drawing) sits at
# the site's root for what asks for /favicon.ico without reading the page (a .py or .ipynb tab).
html_favicon = "docs/_static/favicon.svg"
html_extra_path = ["docs/_extra"]
html_theme_options: dict[str, str] = {}  # version_banner adds the JAX version banner
# furo's sidebar, with the language switcher (docs/_templates/sidebar/languages.html) under
# the search box.
html_sidebars = {
    "**": [
        "sidebar/brand.html",
        "sidebar/search.html",
        "sidebar/languages.html",
        "sidebar/scroll-start.html",
        "sidebar/navigation.html",
        "sidebar/scroll-end.html",
    ]
}

# The copy button copies code only: no ">>>" prompts, no captured output.
copybutton_selector = ":not(.sphx-glr-script-out) > div.highlight pre"
copybutton_prompt_text = r">>> |\.\.\. "
copybutton_prompt_is_regexp = True

# -- API reference ------------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = True
napoleon_numpy_docstring = False

# -- Intersphinx, with offline fallbacks ---------------------------------------
# Each mapping tries the real inventory first, then the copy kept in docs/_inventories/
# (the real Python one; JAX's and NumPy's derived from their doc sources: see its README).
intersphinx_mapping = {
    "python": ("https://docs.python.org/3/", (None, "_inventories/python.inv")),
    "jax": ("https://docs.jax.dev/en/latest/", (None, "_inventories/jax.inv")),
    "numpy": ("https://numpy.org/doc/stable/", (None, "_inventories/numpy.inv")),
}
intersphinx_timeout = 5

# -- Gallery --------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "../gallery",
    "gallery_dirs": "examples",
    # Run every script, not only plot_*; JAXPURITY_EXAMPLE narrows it for a quick build.
    "filename_pattern": os.environ.get("JAXPURITY_EXAMPLE") or r".*\.py$",
    # The order of jaxpurity._pages.SECTIONS.
    "subsection_order": "page_order.section_key",
    "within_subsection_order": "page_order.PageOrder",
    # Before and after each example: JAX's default flags and empty caches, and a
    # log of the errors the example catches, for the error index.
    "reset_modules": ("jax_reset.reset_jax", "error_index.log_caught_errors"),
    "reset_modules_order": "both",
    # An unexpected error in any example fails the build; none is "expected failing".
    "abort_on_example_error": False,
    "only_warn_on_example_error": False,
    "expected_failing_examples": [],
    "image_scrapers": ("matplotlib",),  # what_fixes_cost's plots
    "remove_config_comments": True,
    # Colab has JAX, not jaxpurity: each notebook installs it first (docs/sphinxext/colab.py).
    # The cell is in the notebooks only, not on the pages nor in the .py downloads.
    "first_notebook_cell": INSTALL_CELL,
    "doc_module": ("jaxpurity",),
    "backreferences_dir": "generated/backreferences",
    "show_signature": False,
    # The timing pages load jQuery and DataTables from CDNs: not on an offline site.
    "write_computation_times": False,
    # No "Total running time" line on the pages: its number changes with every run, so
    # no catalog could hold its translation (the Chinese edition, below).
    "min_reported_time": float("inf"),
}

# -- The Chinese edition ----------------------------------------------------------
# One catalog per page under locale/zh_CN/LC_MESSAGES/ (the README says how to update
# them); `-D language=zh_CN` builds the edition from them, after the English build, whose
# example outputs it reuses.
locale_dirs = ["../locale/"]
gettext_compact = False
gettext_location = False
gettext_uuid = False
