"""jaxpurity: find and fix impure functions and leaked tracers in JAX.

The whole public API is re-exported here; each private module holds one idea.
"""

from jaxpurity._capture import ExceptionInfo, Printed, clean_paths, printed, raises
from jaxpurity._collect import collect
from jaxpurity._control import cond, fori_loop, scan, switch, while_loop
from jaxpurity._explain import Explanation, explain
from jaxpurity._install import install, uninstall
from jaxpurity._install import load_ipython_extension as load_ipython_extension
from jaxpurity._install import pytest_runtest_logreport as pytest_runtest_logreport
from jaxpurity._install import unload_ipython_extension as unload_ipython_extension
from jaxpurity._leaks import Leak, find_leaks
from jaxpurity._lint import Finding, lint
from jaxpurity._problems import Problem, PurityReport
from jaxpurity._purity import check_pure
from jaxpurity._state import Stateful, dataclass, static_field
from jaxpurity._traces import RetraceError, count_traces
from jaxpurity._typediff import TypeMismatchError

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
