"""jaxpurity: find and fix impure functions and leaked tracers in JAX.

The whole public API is re-exported here; each private module holds one idea.
"""

from jaxpurity._capture import ExceptionInfo, Printed, clean_paths, printed, raises
from jaxpurity._collect import collect
from jaxpurity._control import cond, fori_loop, scan, switch, while_loop
from jaxpurity._explain import Explanation, explain
from jaxpurity._leaks import Leak, find_leaks
from jaxpurity._purity import Problem, PurityReport, check_pure
from jaxpurity._state import Stateful, dataclass, static_field
from jaxpurity._traces import RetraceError, count_traces
from jaxpurity._typediff import TypeMismatchError

__version__ = "0.1.0"

__all__ = [
    "ExceptionInfo",
    "Explanation",
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
    "printed",
    "raises",
    "scan",
    "static_field",
    "switch",
    "while_loop",
]
