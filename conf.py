"""Sphinx configuration for the jaxpurity site.

Build with ``python -m sphinx -W --keep-going -b html -c . docs build/html``
(``tox -e docs`` does exactly that). Every script in ``gallery/`` runs during
the build; set ``JAXPURITY_EXAMPLE`` to a regex on the script path to run only
the matching ones (the others are rendered without outputs).
"""

from __future__ import annotations

import inspect
import os
import sys
import zlib
from pathlib import Path

# Before JAX is imported: use the CPU without probing for other backends, so
# no "Unable to initialize backend" lines reach the pages.
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("MPLBACKEND", "agg")

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

import jax  # noqa: E402
import jaxlib  # noqa: E402

import jaxpurity  # noqa: E402
from jaxpurity._capture import CAUGHT_LOG_ENV, read_caught  # noqa: E402

project = "jaxpurity"
author = "the jaxpurity team"
copyright = "2026, the jaxpurity team"
release = jaxpurity.__version__
JAX_VERSION = jax.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
    "sphinx_copybutton",
    "sphinx_gallery.gen_gallery",
]

exclude_patterns = ["_build", "examples/**/*.ipynb", "examples/**/*.py", "**/*.codeobj.json"]
templates_path: list[str] = []

# -- HTML ---------------------------------------------------------------------
html_theme = "furo"
html_title = "jaxpurity"
html_static_path = ["docs/_static"]
html_css_files = ["jaxpurity.css"]
html_theme_options = {
    "announcement": (
        f"Every error and output on this site was captured at build time with "
        f"<strong>JAX {JAX_VERSION}</strong> (jaxlib {jaxlib.__version__}) on CPU."
    ),
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
# Each mapping tries the real inventory first. Offline (as in CI) it falls back
# to a small inventory written here from the installed packages, pointing at
# the same URLs, so an offline build passes -W and links still work online.
INVENTORY_DIR = ROOT / "docs" / "_inventories"
PYTHON_MODULES = ("contextlib", "dataclasses", "functools", "random", "re", "time", "typing")
JAX_MODULES = ("jax", "jax.numpy", "jax.lax", "jax.random", "jax.tree_util", "jax.debug")
NUMPY_MODULES = ("numpy", "numpy.random")


def _role(obj: object) -> str | None:
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    return "function" if callable(obj) else None


def _public(module_name: str):
    module = __import__(module_name, fromlist=["_"])
    for name in sorted(getattr(module, "__all__", None) or dir(module)):
        if not name.startswith("_") and (role := _role(getattr(module, name, None))):
            yield f"{module_name}.{name}", role


def _python_entries():
    import builtins

    for name in sorted(dir(builtins)):
        role = _role(getattr(builtins, name))
        if name.startswith("_") or role is None:
            continue
        page = "exceptions" if role == "exception" else "functions"
        yield name, role, f"library/{page}.html#{name}"
    for module in PYTHON_MODULES:
        yield module, "module", f"library/{module}.html#module-{module}"
        for name, role in _public(module):
            yield name, role, f"library/{module}.html#{name}"


def _jax_entries():
    for module in JAX_MODULES:
        for name, role in _public(module):
            if role != "module":
                yield name, role, f"_autosummary/{name}.html#{name}"
    for name, role in _public("jax.errors"):
        yield name, role, f"errors.html#{name}"


def _numpy_entries():
    for module in NUMPY_MODULES:
        for name, role in _public(module):
            if role != "module":
                yield name, role, f"reference/generated/{name}.html#{name}"


def _write_inventory(name: str, version: str, entries) -> str:
    lines = "".join(f"{obj} py:{role} 1 {uri} -\n" for obj, role, uri in entries)
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {name}\n# Version: {version}\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    INVENTORY_DIR.mkdir(parents=True, exist_ok=True)
    path = INVENTORY_DIR / f"{name}.inv"
    path.write_bytes(header.encode() + zlib.compress(lines.encode()))
    return str(path)


import numpy  # noqa: E402

intersphinx_mapping = {
    "python": (
        "https://docs.python.org/3/",
        (None, _write_inventory("python", sys.version.split()[0], _python_entries())),
    ),
    "jax": (
        "https://docs.jax.dev/en/latest/",
        (None, _write_inventory("jax", JAX_VERSION, _jax_entries())),
    ),
    "numpy": (
        "https://numpy.org/doc/stable/",
        (None, _write_inventory("numpy", numpy.__version__, _numpy_entries())),
    ),
}
intersphinx_timeout = 5

# -- Gallery --------------------------------------------------------------------
# JAX's flags as they were before any example ran: restored before and after
# each one, so a flag one page turns on (x64, leak checking, disable_jit) does
# not leak into the next.
JAX_DEFAULTS = dict(jax.config.values)


CAPTURED_DIR = ROOT / "docs" / "examples" / "_captured"


def reset_jax(gallery_conf, fname, when) -> None:
    """Restore JAX's flags and caches around each example; log what it catches.

    Before an example runs, :func:`jaxpurity.raises` is pointed at a log of
    its own (rewritten on every run), which :func:`write_error_index` reads.
    """
    for name, value in JAX_DEFAULTS.items():
        if jax.config.values.get(name) != value:
            jax.config.update(name, value)
    jax.clear_caches()
    if when == "before" and fname is not None:
        (script,) = (ROOT / "gallery").glob(f"*/{fname}")
        log = CAPTURED_DIR / script.parent.name / f"{script.stem}.jsonl"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("")
        os.environ[CAUGHT_LOG_ENV] = str(log)
    else:
        os.environ.pop(CAUGHT_LOG_ENV, None)


SUBSECTIONS = ["state_and_leaks", "control_flow", "side_effects", "tools"]
# Pages in reading order: the founding scenario of each section first.
PAGE_ORDER = [
    "global_counter",
    "leak_through_self",
    "leak_from_loop_body",
    "leak_from_grad_vmap",
    "memoization_caches",
    "global_config",
    "python_control_flow",
    "cond_branch_types",
    "loop_carry_types",
    "static_arguments",
    "boolean_masks",
    "inplace_updates",
    "print_vs_debug_print",
    "frozen_randomness",
    "debugging_workflow",
    "let_jaxpurity_find_it",
]


def page_order(filename: str) -> tuple[int, str]:
    """Sort key for pages within a section: PAGE_ORDER first, others by name."""
    stem = Path(filename).stem
    return (PAGE_ORDER.index(stem) if stem in PAGE_ORDER else len(PAGE_ORDER), stem)


sphinx_gallery_conf = {
    "examples_dirs": "../gallery",
    "gallery_dirs": "examples",
    # Run every script, not only plot_*; JAXPURITY_EXAMPLE narrows it for a quick build.
    "filename_pattern": os.environ.get("JAXPURITY_EXAMPLE") or r".*\.py$",
    "subsection_order": [f"../gallery/{name}" for name in SUBSECTIONS],
    "within_subsection_order": "conf.page_order",
    "reset_modules": ("conf.reset_jax",),
    "reset_modules_order": "both",
    # An unexpected error in any example fails the build; none is "expected failing".
    "abort_on_example_error": False,
    "only_warn_on_example_error": False,
    "expected_failing_examples": [],
    "image_scrapers": (),
    "remove_config_comments": True,
    "doc_module": ("jaxpurity",),
    "backreferences_dir": "generated/backreferences",
    "show_signature": False,
    # The timing pages load jQuery and DataTables from CDNs: not on an offline site.
    "write_computation_times": False,
}


# -- Error index ------------------------------------------------------------------
ERROR_INDEX = ROOT / "docs" / "examples" / "error_index.rst.inc"


def captured_errors() -> list[dict[str, str]]:
    """Every error the gallery captured: type, message, page (``section/name``), explanation."""
    errors = []
    for error in read_caught(CAPTURED_DIR):
        explanation = jaxpurity.explain(f"{error['type']}: {error['message']}")
        errors.append(
            {**error, "explained_on": explanation.page if explanation.recognised else None}
        )
    return errors


def error_index(errors: list[dict[str, str]]) -> list[dict]:
    """One row per (exception, first line): the pages that show it and the one that explains it.

    Raises:
      ExtensionError: jaxpurity.explain sends a captured error to a page that
        does not show that exception: the index and ``explain`` must agree.
    """
    from sphinx.errors import ExtensionError

    shown_by_type: dict[str, set[str]] = {}
    rows: dict[tuple[str, str], dict] = {}
    for error in errors:
        shown_by_type.setdefault(error["type"], set()).add(error["page"])
        first_line = (error["message"].splitlines() or [""])[0]
        row = rows.setdefault(
            (error["type"], first_line),
            {"type": error["type"], "first_line": first_line, "pages": [], "explained_on": set()},
        )
        if error["page"] not in row["pages"]:
            row["pages"].append(error["page"])
        if error["explained_on"]:
            row["explained_on"].add(error["explained_on"])
    wrong = [
        f"{row['type']} ({row['first_line']!r}): explain() names {page}, "
        f"but it is shown on {sorted(shown_by_type[row['type']])}"
        for row in rows.values()
        for page in row["explained_on"]
        if page.removeprefix("examples/").removesuffix(".html") not in shown_by_type[row["type"]]
    ]
    if wrong:
        raise ExtensionError("error index and jaxpurity.explain disagree:\n" + "\n".join(wrong))
    return sorted(rows.values(), key=lambda row: (row["type"], row["first_line"]))


def _code(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("`", "\\`")
    return f":code:`{escaped}`" if text else ""


def write_error_index(app) -> None:
    """Write the table that docs/errors.rst includes, from the captured errors."""
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
    for row in error_index(captured_errors()):
        explained = ", ".join(
            f":doc:`/{page.removesuffix('.html')}`" for page in sorted(row["explained_on"])
        )
        shown = ", ".join(f":doc:`/examples/{page}`" for page in row["pages"])
        lines += [
            f"   * - ``{row['type']}``",
            f"     - {_code(row['first_line'])}",
            f"     - {explained or 'not recognised by jaxpurity.explain'}",
            f"     - {shown}",
        ]
    table = "\n".join(lines) + "\n"
    ERROR_INDEX.parent.mkdir(parents=True, exist_ok=True)
    # Rewrite only on change, so that an unchanged rebuild does not re-read errors.rst.
    if not ERROR_INDEX.exists() or ERROR_INDEX.read_text() != table:
        ERROR_INDEX.write_text(table)


def setup(app):
    # After sphinx-gallery (priority 500) has run the examples.
    app.connect("builder-inited", write_error_index, priority=600)
