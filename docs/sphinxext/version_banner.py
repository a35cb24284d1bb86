"""A banner on every page that names the JAX and jaxlib the outputs were captured with."""

from __future__ import annotations

from typing import Any

import jax
import jaxlib
from editions import language_of, say
from sphinx.application import Sphinx
from sphinx.config import Config


def add_banner(app: Sphinx, config: Config) -> None:
    """Set furo's ``announcement`` unless ``conf.py`` set one.

    The versions come first: they are what the banner is for.
    """
    text = (
        "<strong>JAX {jax}</strong> (jaxlib {jaxlib}, on CPU) produced every error and output "
        "on this site, at build time."
    )
    banner = say(language_of(app), text, jax=jax.__version__, jaxlib=jaxlib.__version__)
    config.html_theme_options.setdefault("announcement", banner)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", add_banner)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
