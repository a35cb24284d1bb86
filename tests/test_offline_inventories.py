"""Tests for docs/_inventories/: the offline intersphinx inventories and the script deriving them.

``derive_inventory.py`` is read as JAX's and NumPy's Sphinx builds read their reST sources;
the stored ``*.inv`` files are checked for the pages the real sites have (the places where
a URL guessed from a name goes wrong) and for the source their README records.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

INVENTORIES = Path(__file__).resolve().parents[1] / "docs" / "_inventories"
_spec = importlib.util.spec_from_file_location(
    "derive_inventory", INVENTORIES / "derive_inventory.py"
)
assert _spec and _spec.loader
derive_inventory = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(derive_inventory)


def _uris(data: bytes) -> dict[tuple[str, str], str]:
    """(objtype, name) -> URI of an inventory, as Sphinx reads it."""
    return {
        (objtype, name): uri
        for objtype, table in derive_inventory.read(data).items()
        for name, uri in table.items()
    }


def _entries(page: str, text: str, top: str = "numpy") -> dict[str, tuple[str, str]]:
    return {e.name: (e.objtype, e.uri) for e in derive_inventory.page_entries(page, text, top)}


def test_autosummary_with_a_toctree_gives_each_name_a_page_beside_its_own():
    text = """Legacy
======

.. currentmodule:: numpy.random

.. autosummary::
   :toctree: generated/

   normal
   ~RandomState
   numpy.ndarray

.. autosummary::

   seed
"""
    entries = _entries("reference/random/legacy", text)
    page = "reference/random/generated"
    assert entries["numpy.random.normal"] == (
        "py:function",
        f"{page}/numpy.random.normal.html#numpy.random.normal",
    )
    # The type is the one autodoc gives the installed object; a full name stays as it is.
    assert entries["numpy.random.RandomState"][0] == "py:class"
    assert entries["numpy.ndarray"][1] == f"{page}/numpy.ndarray.html#numpy.ndarray"
    # Without :toctree: an autosummary writes no page: the name is documented elsewhere.
    assert "numpy.random.seed" not in entries
    assert entries["reference/random/legacy"] == ("std:doc", "reference/random/legacy.html")


def test_object_directives_document_on_their_page_and_no_index_is_left_out():
    text = """.. currentmodule:: numpy

.. autoclass:: numpy.floating

.. attribute:: int8
               int16
   :no-index:

.. attribute:: int32
               int64

   Aliases.

.. class:: Thing

   .. method:: spin(speed)

.. currentmodule:: jax.errors
.. autoclass:: UnexpectedTracerError
.. autoclass:: KeyReuseError
   :no-index:
"""
    entries = _entries("reference/arrays.scalars", text)
    page = "reference/arrays.scalars.html"
    assert entries["numpy.floating"] == ("py:class", f"{page}#numpy.floating")
    assert entries["numpy.int32"] == ("py:attribute", f"{page}#numpy.int32")
    assert entries["numpy.int64"] == ("py:attribute", f"{page}#numpy.int64")
    assert "numpy.int8" not in entries and "numpy.int16" not in entries
    assert entries["numpy.Thing.spin"] == ("py:method", f"{page}#numpy.Thing.spin")
    assert entries["jax.errors.UnexpectedTracerError"][0] == "py:exception"
    assert "jax.errors.KeyReuseError" not in entries


def test_modules_are_listed_at_their_module_anchor():
    entries = _entries("jax.numpy", ".. currentmodule:: jax.numpy\n\n.. automodule:: jax.numpy\n")
    assert entries["jax.numpy"] == ("py:module", "jax.numpy.html#module-jax.numpy")


def test_the_first_page_that_documents_a_name_wins():
    first = ".. currentmodule:: jax.errors\n.. autoclass:: UnexpectedTracerError\n"
    again = first.replace("Error\n", "Error\n   :no-index:\n")
    pages = [("errors", first), ("new_docs/101/errors", again), ("later", first)]
    entries = {e.name: e.uri for e in derive_inventory.derive(pages, "jax")}
    assert (
        entries["jax.errors.UnexpectedTracerError"]
        == "errors.html#jax.errors.UnexpectedTracerError"
    )


def test_a_derived_inventory_is_read_back_by_sphinx():
    Entry = derive_inventory.Entry
    entries = [
        Entry(
            "jax.ref.new_ref", "py:function", "_autosummary/jax.ref.new_ref.html#jax.ref.new_ref"
        ),
        Entry("errors", "std:doc", "errors.html", "Errors"),
    ]
    uris = _uris(derive_inventory.dump(entries, "JAX", "abc, 2026-08-08"))
    assert uris == {
        ("py:function", "jax.ref.new_ref"): entries[0].uri,
        ("std:doc", "errors"): "errors.html",
    }


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = tmp_path / "repo"
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "docs"], check=True)
    return repo


def test_the_script_reads_the_sources_at_a_commit_and_records_it(tmp_path, capsys):
    repo = _repo(
        tmp_path,
        {
            "docs/jax.rst": (
                ".. currentmodule:: jax\n\n.. autosummary::\n   :toctree: _autosummary\n\n   jit\n"
            ),
            "docs/_templates/autosummary/module.rst": ".. automodule:: {{ fullname }}\n",
        },
    )
    out = tmp_path / "jax.inv"
    derive_inventory.main(["jax", str(repo), "HEAD", "--out", str(out)])
    commit = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert f"# Version: {commit[:12]}, " in out.read_bytes().decode(errors="replace")
    uris = _uris(out.read_bytes())
    assert uris[("py:function", "jax.jit")] == "_autosummary/jax.jit.html#jax.jit"
    assert not [key for key in uris if "{{" in key[1]]  # templates are not pages
    assert commit in capsys.readouterr().out


def test_the_script_refuses_sources_with_no_objects_and_a_bad_revision(tmp_path):
    repo = _repo(tmp_path, {"docs/index.rst": "Welcome\n=======\n"})
    with pytest.raises(SystemExit, match="no documented objects under docs/"):
        derive_inventory.main(["jax", str(repo), "HEAD", "--out", str(tmp_path / "x.inv")])
    with pytest.raises(SystemExit, match="failed: .*nosuchrev"):
        derive_inventory.main(["jax", str(repo), "nosuchrev", "--out", str(tmp_path / "x.inv")])


@pytest.fixture(scope="module")
def stored() -> dict[str, dict[tuple[str, str], str]]:
    return {path.stem: _uris(path.read_bytes()) for path in INVENTORIES.glob("*.inv")}


@pytest.mark.parametrize(
    ("inventory", "objtype", "name", "uri"),
    [
        ("python", "py:class", "list", "library/stdtypes.html#list"),
        ("python", "py:class", "str", "library/stdtypes.html#str"),
        ("python", "py:function", "print", "library/functions.html#print"),
        ("python", "py:function", "sys.excepthook", "library/sys.html#sys.excepthook"),
        (
            "jax",
            "py:function",
            "jax.ref.new_ref",
            "_autosummary/jax.ref.new_ref.html#jax.ref.new_ref",
        ),
        ("jax", "py:class", "jax.ref.Ref", "_autosummary/jax.ref.Ref.html#jax.ref.Ref"),
        ("jax", "py:function", "jax.jit", "_autosummary/jax.jit.html#jax.jit"),
        (
            "jax",
            "py:exception",
            "jax.errors.UnexpectedTracerError",
            "errors.html#jax.errors.UnexpectedTracerError",
        ),
        ("jax", "std:doc", "errors", "errors.html"),
        ("numpy", "py:attribute", "numpy.int32", "reference/arrays.scalars.html#numpy.int32"),
        ("numpy", "py:class", "numpy.float32", "reference/arrays.scalars.html#numpy.float32"),
        (
            "numpy",
            "py:function",
            "numpy.random.normal",
            "reference/random/generated/numpy.random.normal.html#numpy.random.normal",
        ),
        (
            "numpy",
            "py:class",
            "numpy.ndarray",
            "reference/generated/numpy.ndarray.html#numpy.ndarray",
        ),
    ],
)
def test_stored_inventories_have_the_real_sites_pages(stored, inventory, objtype, name, uri):
    assert stored[inventory][(objtype, name)] == uri


@pytest.mark.parametrize(
    "name", ["jax.new_ref", "jax.Ref", "jax.debug_key_reuse", "jax.effects_barrier"]
)
def test_names_the_jax_docs_have_no_page_for_are_absent(stored, name):
    assert not [key for key in stored["jax"] if key[1] == name]


def test_the_readme_records_the_source_of_each_inventory():
    readme = (INVENTORIES / "README.md").read_text()
    for path in sorted(INVENTORIES.glob("*.inv")):
        assert f"`{path.name}`" in readme, f"README.md does not say where {path.name} comes from"
        version = re.search(rb"^# Version: ([^,\s]+)", path.read_bytes(), re.M)
        assert version, f"{path.name} has no Version line"
        if path.name == "python.inv":  # copied unchanged: the README holds its hash
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            assert digest in readme, f"{path.name} is not the file README.md describes"
        else:  # derived: the header holds the commit read
            assert version[1].decode() in readme, f"README.md does not name {path.name}'s commit"
