"""The examples in the docstrings of the docs build's extensions (docs/sphinxext/) run.

pytest collects doctests from ``jaxpurity`` only (``testpaths``); the extensions are no
package, so their examples run here, each module's as one test.
"""

import doctest
import importlib
from pathlib import Path

import pytest

EXTENSIONS = Path(__file__).resolve().parents[1] / "docs" / "sphinxext"
MODULES = sorted(p.stem for p in EXTENSIONS.glob("*.py"))


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_run(name):
    module = importlib.import_module(name)  # conftest puts docs/sphinxext on the path
    result = doctest.testmod(module)
    assert result.failed == 0
    has_examples = ">>>" in (EXTENSIONS / f"{name}.py").read_text()
    assert bool(result.attempted) == has_examples, "an example that doctest does not see"
