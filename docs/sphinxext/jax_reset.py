"""Give every gallery example the JAX it would get in a fresh process: default flags, no caches.

sphinx-gallery runs all examples in the Sphinx process, one after another. A
page that turns a flag on (``jax_enable_x64``, leak checking, ``disable_jit``)
would otherwise change every page after it, and a page's traces would be
answered from another page's caches. :func:`reset_jax` runs before and after
each example (``reset_modules`` in ``sphinx_gallery_conf``, with
``reset_modules_order = "both"``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import jax

if TYPE_CHECKING:  # the TPU lane (tests/lane.py) resets with this where Sphinx is not installed
    from sphinx.application import Sphinx

from jaxpurity._jax_compat import config_values, restore_config

# JAX's flags as they were when the build started, before any example ran.
_DEFAULTS = config_values()


def reset_jax(gallery_conf: dict[str, Any], fname: str | None, when: str = "before") -> None:
    """Restore JAX's flags to their values at the start of the build, and clear its caches."""
    restore_config(_DEFAULTS)
    jax.clear_caches()


def setup(app: Sphinx) -> dict[str, Any]:
    # JAX runs in this process with threads of its own: forking it for a parallel read
    # (sphinx-build -j) can hang, so a parallel build is refused (an error under -W).
    return {"parallel_read_safe": False, "parallel_write_safe": True}
