"""The site's pages, in reading order: one table for every tool that links a page, and the site.

Each gallery page is a script ``gallery/<section>/<topic>.py``, built into
``examples/<section>/<topic>.html``. :data:`SECTIONS` lists the sections and
their pages in the order a reader meets them; the docs build takes its order
from here, and ``tests/test_pages.py`` checks that every script has an entry
and every entry a script. To add a page, add its topic here and its script in
``gallery/<section>/``.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from dataclasses import dataclass

from jaxpurity._languages import EDITIONS, language

__all__ = [
    "DOCS_URL",
    "NEEDS",
    "PAGES",
    "SECTIONS",
    "Section",
    "missing",
    "page",
    "script",
    "topic_of",
    "url",
]

#: Where the site is hosted; ``$JAXPURITY_DOCS_URL`` points the links elsewhere (a mirror,
#: a local build).
DOCS_URL = "https://jaxpurity.readthedocs.io/en/latest/"


@dataclass(frozen=True)
class Section:
    """One gallery section: its folder under ``gallery/``, and its pages in reading order."""

    folder: str
    topics: tuple[str, ...]


SECTIONS: tuple[Section, ...] = (
    Section(
        "state_and_leaks",
        (
            "global_counter",
            "mutable_refs",
            "leak_through_self",
            "nnx_and_equinox_state",
            "leak_from_loop_body",
            "leak_from_grad_vmap",
            "memoization_caches",
            "global_config",
        ),
    ),
    Section(
        "control_flow",
        (
            "python_control_flow",
            "cond_branch_types",
            "loop_carry_types",
            "static_arguments",
            "static_objects",
            "boolean_masks",
            "dynamic_slicing",
            "inplace_updates",
        ),
    ),
    Section("gradients", ("nan_gradients", "differentiating_loops")),
    Section(
        "side_effects",
        (
            "print_vs_debug_print",
            "callbacks",
            "frozen_randomness",
            "keys_in_vmap_and_scan",
            "side_effects_across_devices",
        ),
    ),
    Section("compiled_code", ("runtime_errors", "buffer_donation", "retracing_storms")),
    Section(
        "tools",
        (
            "debugging_workflow",
            "let_jaxpurity_find_it",
            "let_jaxpurity_lint_find_it",
            "what_fixes_cost",
        ),
    ),
)

#: The pages that need more than jaxpurity and the oldest JAX it supports: topic -> what
#: each imports (a module) or calls (a name of ``jax``). Where one is missing, the page's
#: script stops at its top saying so, and the tools that run every page (the fix matrix,
#: ``tests/record_gallery.py``, ``tests/lane.py``) skip it with :func:`missing`'s reason.
NEEDS: dict[str, tuple[str, ...]] = {
    "mutable_refs": ("jax.new_ref",),
    "nnx_and_equinox_state": ("flax", "equinox"),
}

_SECTION_OF = {topic: s.folder for s in SECTIONS for topic in s.topics}

#: topic -> path of its gallery page on the built site (relative to the site root).
PAGES: dict[str, str] = {t: f"examples/{folder}/{t}.html" for t, folder in _SECTION_OF.items()}


def _section(topic: str) -> str:
    try:
        return _SECTION_OF[topic]
    except KeyError:
        raise KeyError(
            f"no gallery page for topic {topic!r}; known: {sorted(_SECTION_OF)}"
        ) from None


def page(topic: str) -> str:
    """The site path of the gallery page for ``topic``.

    Example:
      >>> page("python_control_flow")
      'examples/control_flow/python_control_flow.html'
    """
    return f"examples/{_section(topic)}/{topic}.html"


def url(topic: str, lang: str = "en") -> str:
    """The full address of the page for ``topic`` on the hosted site, in the edition of ``lang``.

    The base is ``$JAXPURITY_DOCS_URL`` when it is set, else :data:`DOCS_URL`; the
    Chinese edition (``lang="zh_CN"``) is in its ``zh_CN/`` folder.

    Example:
      >>> url("python_control_flow")  # doctest: +ELLIPSIS
      'https://.../examples/control_flow/python_control_flow.html'
      >>> url("python_control_flow", "zh_CN")  # doctest: +ELLIPSIS
      'https://.../zh_CN/examples/control_flow/python_control_flow.html'
    """
    base = os.environ.get("JAXPURITY_DOCS_URL") or DOCS_URL
    return base.rstrip("/") + "/" + EDITIONS[language(lang)].folder + page(topic)


def script(topic: str) -> str:
    """The gallery script of ``topic``, relative to the repository root.

    Example:
      >>> script("global_counter")
      'gallery/state_and_leaks/global_counter.py'
    """
    return f"gallery/{_section(topic)}/{topic}.py"


def missing(topic: str) -> str | None:
    """Why the page of ``topic`` cannot run here (what :data:`NEEDS` names that is not
    installed), or ``None`` when it can.

    Example:
      >>> missing("global_counter") is None
      True
    """
    _section(topic)
    for need in NEEDS.get(topic, ()):
        name, _, attribute = need.partition(".")
        if importlib.util.find_spec(name) is None:
            return f"needs {name}, which is not installed"
        module = importlib.import_module(name)
        if attribute and not hasattr(module, attribute):
            which = " ".join(filter(None, (name, getattr(module, "__version__", ""))))
            return f"needs {need}, which {which} does not have"
    return None


def topic_of(path: str) -> str:
    """The topic of a page or script path: a site path, a script path, ``section/name``.

    Example:
      >>> topic_of("examples/control_flow/python_control_flow.html")
      'python_control_flow'
      >>> topic_of("gallery/state_and_leaks/global_counter.py")
      'global_counter'
      >>> topic_of("tools/debugging_workflow")
      'debugging_workflow'
    """
    parts = path.replace("\\", "/").split("/")
    topic = parts[-1].removesuffix(".html").removesuffix(".py")
    if topic not in _SECTION_OF or (len(parts) > 1 and parts[-2] != _SECTION_OF[topic]):
        raise KeyError(
            f"{path!r} is no gallery page of jaxpurity._pages.SECTIONS; known topics: "
            f"{sorted(_SECTION_OF)}"
        )
    return topic
