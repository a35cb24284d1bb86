"""A banner on every page that names the JAX and jaxlib the outputs were captured with."""

from __future__ import annotations

from typing import Any

import jax
import jaxlib
from sphinx.application import Sphinx
from sphinx.config import Config


def add_banner(app: Sphinx, config: Config) -> None:
    """Set furo's ``announcement`` unless ``conf.py`` set one.

    The versions come first: they are what the banner is for.
    """
    config.html_theme_options.setdefault(
        "announcement",
        f"<strong>JAX {jax.__version__}</strong> (jaxlib {jaxlib.__version__}, on CPU) "
        f"produced every error and output on this site, at build time.",
    )


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", add_banner)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
