"""The public surface: documented, with runnable examples, listed in the API page."""

import inspect
from pathlib import Path

import pytest

import jaxpurity

ROOT = Path(__file__).resolve().parents[1]
API_PAGE = (ROOT / "docs" / "api.rst").read_text()


@pytest.mark.parametrize("name", jaxpurity.__all__)
def test_public_name_is_importable_documented_and_on_the_api_page(name):
    obj = getattr(jaxpurity, name)
    doc = inspect.getdoc(obj) or ""
    assert doc.strip(), f"jaxpurity.{name} has no docstring"
    assert f":: {name}\n" in API_PAGE, f"jaxpurity.{name} is missing from docs/api.rst"


@pytest.mark.parametrize(
    "name", [n for n in jaxpurity.__all__ if inspect.isfunction(getattr(jaxpurity, n))]
)
def test_public_function_has_a_runnable_example(name):
    assert ">>> " in inspect.getdoc(getattr(jaxpurity, name)), f"jaxpurity.{name} has no example"


def test_all_is_sorted_and_complete():
    assert list(jaxpurity.__all__) == sorted(jaxpurity.__all__)
    public = {n for n in dir(jaxpurity) if not n.startswith("_")}  # imported or not yet
    modules = {n for n in public if inspect.ismodule(getattr(jaxpurity, n))}
    hooks = set(jaxpurity._PROTOCOL_HOOKS)  # for IPython's %load_ext and pytest's -p
    assert hooks <= public
    assert public - modules - hooks == set(jaxpurity.__all__)


def test_package_ships_py_typed():
    assert (Path(jaxpurity.__file__).parent / "py.typed").exists()
