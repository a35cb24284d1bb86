"""jaxpurity: find and fix impure functions and leaked tracers in JAX.

The whole public API is re-exported here; each private module holds one idea.
"""

from jaxpurity._capture import ExceptionInfo, Printed, clean_paths, printed, raises
from jaxpurity.checks._leaks import Leak, find_leaks
from jaxpurity.checks._problems import Problem, PurityReport
from jaxpurity.checks._purity import check_pure
from jaxpurity.checks._traces import RetraceError, count_traces
from jaxpurity.control._collect import collect
from jaxpurity.control._dropins import cond, fori_loop, scan, switch, while_loop
from jaxpurity.control._state import Stateful, dataclass, static_field
from jaxpurity.control._typediff import TypeMismatchError
from jaxpurity.explainer._explain import Explanation, explain
from jaxpurity.explainer._install import install, uninstall
from jaxpurity.explainer._install import load_ipython_extension as load_ipython_extension
from jaxpurity.explainer._install import pytest_runtest_logreport as pytest_runtest_logreport
from jaxpurity.explainer._install import unload_ipython_extension as unload_ipython_extension
from jaxpurity.linter._lint import Finding, lint

__version__ = "0.1.0"

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

# Hooks that tools look up on the package itself, not part of the Python API:
# ``%load_ext jaxpurity`` (IPython) and ``pytest -p jaxpurity``.
_PROTOCOL_HOOKS = ("load_ipython_extension", "unload_ipython_extension", "pytest_runtest_logreport")
