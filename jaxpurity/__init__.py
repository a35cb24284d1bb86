"""jaxpurity: find and fix impure functions and leaked tracers in JAX.

The whole public API is re-exported here, and each name is imported when it is
first used (PEP 562): ``import jaxpurity`` costs nothing, and the linter and the
text path of ``explain`` never import JAX. Each tool is a folder of private
modules: ``checks/`` (``check_pure``, ``find_leaks``, ``count_traces``),
``control/`` (the drop-in control flow, ``collect``, state), ``explainer/``
(``explain``) and ``linter/`` (``lint``).
"""

import importlib
import typing

if typing.TYPE_CHECKING:  # what the lazy table below imports, for type checkers and editors
    from jaxpurity._capture import ExceptionInfo, Printed, clean_paths, printed, raises
    from jaxpurity.checks._leaks import Leak, find_leaks
    from jaxpurity.checks._problems import Problem, PurityReport
    from jaxpurity.checks._purity import check_pure
    from jaxpurity.checks._traces import RetraceError, count_traces
    from jaxpurity.control._branches import cond, switch
    from jaxpurity.control._collect import collect
    from jaxpurity.control._loops import fori_loop, scan, while_loop
    from jaxpurity.control._state import Stateful, dataclass, static_field
    from jaxpurity.control._typediff import TypeMismatchError
    from jaxpurity.explainer._explain import Explanation, explain
    from jaxpurity.explainer._install import install, uninstall
    from jaxpurity.explainer._install import load_ipython_extension as load_ipython_extension
    from jaxpurity.explainer._install import pytest_runtest_logreport as pytest_runtest_logreport
    from jaxpurity.explainer._install import unload_ipython_extension as unload_ipython_extension
    from jaxpurity.linter._finding import Finding
    from jaxpurity.linter._lint import lint

__version__ = "0.1.0"

#: Each public name, and the private module that defines it.
_SOURCES: dict[str, str] = {
    "ExceptionInfo": "jaxpurity._capture",
    "Printed": "jaxpurity._capture",
    "clean_paths": "jaxpurity._capture",
    "printed": "jaxpurity._capture",
    "raises": "jaxpurity._capture",
    "Leak": "jaxpurity.checks._leaks",
    "find_leaks": "jaxpurity.checks._leaks",
    "Problem": "jaxpurity.checks._problems",
    "PurityReport": "jaxpurity.checks._problems",
    "check_pure": "jaxpurity.checks._purity",
    "RetraceError": "jaxpurity.checks._traces",
    "count_traces": "jaxpurity.checks._traces",
    "collect": "jaxpurity.control._collect",
    "cond": "jaxpurity.control._branches",
    "fori_loop": "jaxpurity.control._loops",
    "scan": "jaxpurity.control._loops",
    "switch": "jaxpurity.control._branches",
    "while_loop": "jaxpurity.control._loops",
    "Stateful": "jaxpurity.control._state",
    "dataclass": "jaxpurity.control._state",
    "static_field": "jaxpurity.control._state",
    "TypeMismatchError": "jaxpurity.control._typediff",
    "Explanation": "jaxpurity.explainer._explain",
    "explain": "jaxpurity.explainer._explain",
    "install": "jaxpurity.explainer._install",
    "uninstall": "jaxpurity.explainer._install",
    "Finding": "jaxpurity.linter._finding",
    "lint": "jaxpurity.linter._lint",
    # Hooks that tools look up on the package itself, not part of the Python API:
    # ``%load_ext jaxpurity`` (IPython) and ``pytest -p jaxpurity``.
    "load_ipython_extension": "jaxpurity.explainer._install",
    "unload_ipython_extension": "jaxpurity.explainer._install",
    "pytest_runtest_logreport": "jaxpurity.explainer._install",
}

_PROTOCOL_HOOKS = ("load_ipython_extension", "unload_ipython_extension", "pytest_runtest_logreport")

__all__ = [
    "ExceptionInfo",
    "Explanation",
    "Finding",
    "Leak",
    "Printed",
    "Problem",
    "PurityReport",
    "RetraceError",
    "Stateful",
    "TypeMismatchError",
    "check_pure",
    "clean_paths",
    "collect",
    "cond",
    "count_traces",
    "dataclass",
    "explain",
    "find_leaks",
    "fori_loop",
    "install",
    "lint",
    "printed",
    "raises",
    "scan",
    "static_field",
    "switch",
    "uninstall",
    "while_loop",
]


def __getattr__(name: str) -> typing.Any:
    """Import a public name from its module on first use, and keep it here."""
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module 'jaxpurity' has no attribute {name!r}")
    value = getattr(importlib.import_module(source), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_SOURCES})
