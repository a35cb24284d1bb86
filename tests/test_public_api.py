"""The public surface: documented, with runnable examples, listed in the API page."""

import inspect
import subprocess
import sys
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


# Each snippet uses one tool the way a user or another tool does, in a fresh process.
_TEXT_TOOLS = {
    "import jaxpurity": "import jaxpurity",
    "jaxpurity.lint": (
        "import jaxpurity\nassert jaxpurity.lint(source='import jax\\nprint(1)\\n') == []"
    ),
    "jaxpurity.explain": (
        "import jaxpurity\n"
        "assert jaxpurity.explain('TracerBoolConversionError: Attempted boolean').recognised"
    ),
    "jaxpurity.explain in Chinese": (
        "import jaxpurity\n"
        "e = jaxpurity.explain('TracerBoolConversionError: x', lang='zh_CN')\n"
        "assert e.recognised and '详见' in str(e), e"
    ),
    "the flake8 plugin": (
        "import ast\nfrom jaxpurity.linter._flake8 import Plugin\n"
        "tree = ast.parse('import jax\\n@jax.jit\\ndef f(x):\\n    print(x)\\n')\n"
        "assert [r[2][:5] for r in Plugin(tree, 'a.py').run()] == ['JP130']"
    ),
    "jaxpurity lint on the command line": (
        "from jaxpurity.__main__ import main\n"
        "assert main(['lint', '--no-config', '--no-cache', 'jaxpurity/_pages.py']) == 0"
    ),
    "jaxpurity explain on the command line": (
        "from jaxpurity.__main__ import main\n"
        "assert main(['explain', '--lang', 'en', 'TracerBoolConversionError: x']) == 0"
    ),
}


@pytest.mark.parametrize("tool", _TEXT_TOOLS)
def test_the_tools_that_read_text_import_no_jax(tool):
    """import jaxpurity is lazy, and the linter and explain on text never pay for JAX."""
    code = _TEXT_TOOLS[tool] + "\nimport sys\nprint(sorted(m for m in sys.modules if m == 'jax'))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]", f"{tool} imported JAX"


def test_a_public_name_is_imported_on_first_use_and_kept():
    code = (
        "import sys, jaxpurity\n"
        "assert 'jaxpurity.checks._purity' not in sys.modules\n"
        "check_pure = jaxpurity.check_pure\n"
        "assert 'jaxpurity.checks._purity' in sys.modules and 'jax' in sys.modules\n"
        "assert vars(jaxpurity)['check_pure'] is check_pure\n"
        "try:\n    jaxpurity.no_such_name\nexcept AttributeError as e:\n    print(e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "module 'jaxpurity' has no attribute 'no_such_name'"


def test_using_jaxpurity_late_leaves_the_callers_jitted_functions_compiled():
    """Imported after the user's code has run (a notebook), jaxpurity's modules change no
    JAX setting that keys jit's caches: the user's functions do not compile again, and a
    check still sees what they answer from their cache (0.12's jax.extend.core did that)."""
    code = (
        "import jax, jax.numpy as jnp\n"
        "double = jax.jit(lambda x: 2 * x)\n"
        "double(jnp.ones(2))\n"
        "import jaxpurity\n"
        "for name in jaxpurity.__all__:\n"
        "    getattr(jaxpurity, name)\n"
        "jaxpurity.check_pure(lambda x: x + 1, jnp.ones(2))\n"
        "jaxpurity.find_leaks(lambda x: x + 1, jnp.ones(2))\n"
        "from jaxpurity._jax_compat import jit_cache_misses\n"
        "with jit_cache_misses(double) as missed:\n"
        "    double(jnp.ones(2))\n"
        "print('compiled again' if missed() else 'answered from its cache')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "answered from its cache"
