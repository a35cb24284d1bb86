"""Where each scenario is explained on the site: one table for every tool that links a page."""

from __future__ import annotations

__all__ = ["PAGES", "page"]

# topic -> path of the gallery page on the built site (relative to the site root).
# The gallery script for "examples/<section>/<name>.html" is "gallery/<section>/<name>.py".
PAGES: dict[str, str] = {
    "global_counter": "examples/state_and_leaks/global_counter.html",
    "leak_through_self": "examples/state_and_leaks/leak_through_self.html",
    "leak_from_loop_body": "examples/state_and_leaks/leak_from_loop_body.html",
    "leak_from_grad_vmap": "examples/state_and_leaks/leak_from_grad_vmap.html",
    "memoization_caches": "examples/state_and_leaks/memoization_caches.html",
    "global_config": "examples/state_and_leaks/global_config.html",
    "cond_branch_types": "examples/control_flow/cond_branch_types.html",
    "loop_carry_types": "examples/control_flow/loop_carry_types.html",
    "python_control_flow": "examples/control_flow/python_control_flow.html",
    "static_arguments": "examples/control_flow/static_arguments.html",
    "boolean_masks": "examples/control_flow/boolean_masks.html",
    "inplace_updates": "examples/control_flow/inplace_updates.html",
    "print_vs_debug_print": "examples/side_effects/print_vs_debug_print.html",
    "frozen_randomness": "examples/side_effects/frozen_randomness.html",
    "debugging_workflow": "examples/tools/debugging_workflow.html",
    "let_jaxpurity_find_it": "examples/tools/let_jaxpurity_find_it.html",
}


def page(topic: str) -> str:
    """The site path of the gallery page for ``topic``.

    Example:
      >>> page("python_control_flow")
      'examples/control_flow/python_control_flow.html'
    """
    try:
        return PAGES[topic]
    except KeyError:
        raise KeyError(f"no gallery page for topic {topic!r}; known: {sorted(PAGES)}") from None
