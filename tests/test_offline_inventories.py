"""Tests for docs/sphinxext/offline_inventories.py: inventories Sphinx reads, with real URLs."""

import io

import pytest
from offline_inventories import jax_entries, python_entries, write_inventory
from sphinx.util.inventory import InventoryFile


def _read(path):
    with open(path, "rb") as stream:
        return InventoryFile.load(
            io.BytesIO(stream.read()),
            "https://docs.jax.dev/en/latest/",
            lambda base, uri: base + uri,
        )


def test_written_inventory_is_read_back_by_sphinx(tmp_path):
    path = tmp_path / "jax.inv"
    write_inventory(path, "jax", "0.0", jax_entries(("jax.lax",)))
    inventory = _read(path)
    entry = inventory["py:function"]["jax.lax.cond"]
    uri = entry[2] if isinstance(entry, tuple) else entry.uri
    assert uri == "https://docs.jax.dev/en/latest/_autosummary/jax.lax.cond.html#jax.lax.cond"
    assert "jax.errors.UnexpectedTracerError" in inventory["py:exception"]


def test_python_entries_cover_builtins_and_the_listed_modules():
    entries = {name: (role, uri) for name, role, uri in python_entries(("functools",))}
    assert entries["print"] == ("function", "library/functions.html#print")
    assert entries["ValueError"] == ("exception", "library/exceptions.html#ValueError")
    assert entries["functools.partial"][1] == "library/functools.html#functools.partial"


def test_an_unknown_project_is_refused_by_name(tmp_path):
    from offline_inventories import write_fallbacks
    from sphinx.errors import ExtensionError

    class App:
        srcdir = tmp_path

    class Config:
        offline_inventories = {"scipy": ("scipy",)}

    with pytest.raises(ExtensionError, match="no inventory writer for 'scipy'"):
        write_fallbacks(App(), Config())
