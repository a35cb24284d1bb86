"""jaxpurity: find and fix impure functions and leaked tracers in JAX.

The whole public API is re-exported here; each private module holds one idea.
"""

from jaxpurity._capture import ExceptionInfo, clean_paths, raises

__version__ = "0.1.0"

__all__ = [
    "ExceptionInfo",
    "clean_paths",
    "raises",
]
