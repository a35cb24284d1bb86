"""explain knows each wording of the errors the site covers, from JAX 0.1.49 to today.

tests/data/jax_error_wordings.json lists, for each error family, every wording found in JAX's
git history (jax-ml/jax, ``git log -S`` and ``git tag --contains``), with its first and last
release, the commit that introduced it, and an example as it printed (seen in a public issue
or JAX's docstrings, or rebuilt from the message's template). Each example must lead to a page
of its family; a few fragments are too generic to name one page, and are listed with why.

The same is checked on what the gallery really caught, once the site is built, in
tests/e2e/test_error_index.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import jaxpurity

WORDINGS = json.loads(
    (Path(__file__).resolve().parent / "data" / "jax_error_wordings.json").read_text()
)
LEAKS = {
    "global_counter",
    "leak_through_self",
    "leak_from_loop_body",
    "leak_from_grad_vmap",
    "memoization_caches",
}
# family -> the pages one of its messages may lead to (None: no page covers it).
PAGES_OF = {
    "UnexpectedTracerError": LEAKS,
    "leak_checker": LEAKS,
    # float() of a tracer: a traced argument under jit, or a value under grad or vmap.
    "ConcretizationTypeError": {
        "python_control_flow",
        "static_arguments",
        "boolean_masks",
        "leak_from_grad_vmap",
    },
    "cond_branch_mismatch": {"cond_branch_types"},
    "loop_carry_mismatch": {"loop_carry_types"},
    "item_assignment": {"inplace_updates"},
    "boolean_mask": {"boolean_masks"},
    "static_arguments": {"static_arguments"},
    "static_objects": {"static_objects"},
    "dynamic_slicing": {"dynamic_slicing"},
    "tracer_repr": {"print_vs_debug_print"},
    "KeyReuseError": {"frozen_randomness", "keys_in_vmap_and_scan"},
    "donation": {"buffer_donation"},
}
# Examples too generic to name their family's page: what explain says of each, and why.
TOO_GENERIC = {
    "traced array with shape int32[].": (None, "the repr of any tracer, in many messages"),
    "traced array with shape int32[3]": (None, "the repr of any tracer, in many messages"),
    "DynamicJaxprTrace(level=1/0)": (None, "the name of a trace, not an error"),
    "DynamicJaxprTrace": (None, "the name of a trace, not an error"),
    "The error occured while tracing the function f at t.py:5 for jit.": (
        None,
        "JAX adds this line to several kinds of error, not only to one page's",
    ),
    "When the tracer was created, the final 5 stack frames (most recent last) excluding "
    "JAX-internal frames were:": (None, "a line of stack frames, not the error"),
    "When the value was created, the final 5 stack frames (most recent last) excluding "
    "JAX-internal frames were:": (None, "a line of stack frames, not the error"),
    "TypeError: lower and upper arguments to fori_loop must have equal types, got int32 and "
    "int64": (None, "a fori_loop bounds dtype mismatch: no page covers it"),
    "ConcretizationTypeError: Abstract tracer value encountered where concrete value is "
    "expected: traced array with shape int32[].": (
        "static_arguments",
        "jnp.nonzero without size= shows only in the detail lines this example leaves out; "
        "the rest reads as any traced size",
    ),
}
EXAMPLES = [w for w in WORDINGS if w.get("example")]


def test_the_history_covers_every_family_from_the_oldest_release():
    assert {w["family"] for w in WORDINGS} == set(PAGES_OF)
    assert len(EXAMPLES) >= 100
    assert any(w["first_release"] == "jax-v0.1.49" for w in WORDINGS)
    assert all(w["introduced_in"] and w["source_path"] for w in WORDINGS)


@pytest.mark.parametrize(
    "wording",
    EXAMPLES,
    ids=[f"{w['family']}-{w['first_release']}-{i}" for i, w in enumerate(EXAMPLES)],
)
def test_each_wording_leads_to_a_page_of_its_family(wording):
    example = wording["example"]
    explanation = jaxpurity.explain(example)
    pages = PAGES_OF[wording["family"]]
    if example in TOO_GENERIC:
        assert explanation.topic == TOO_GENERIC[example][0], example
        return
    if pages is None:
        assert not explanation.recognised, f"{example!r} is {explanation.topic}"
        return
    assert explanation.recognised, (
        f"{wording['first_release']}..{wording['last_release']}: {example!r}"
    )
    assert explanation.topic in pages, f"{example!r} -> {explanation.topic}"
