"""explain knows each wording of the errors the site covers, from JAX 0.1.49 to today.

tests/data/jax_error_wordings.json lists, for each error family, every wording found in JAX's
git history (jax-ml/jax, ``git log -S`` and ``git tag --contains``), with its first and last
release, the commit that introduced it, and an example as it printed (seen in a public issue
or JAX's docstrings, or rebuilt from the message's template). Each example must lead to a page
of its family; a few fragments are too generic to name one page, and are listed with why.

The same is checked on what the gallery really caught: each error the build's JAX raised on
a page (docs/examples/_captured, written by the docs build), paired with the same mistake's
error on the oldest supported JAX (docs/captured/jax-<version>, tests/record_gallery.py), must
lead explain to the same page in both wordings.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from error_index import oldest_record, pair_versions

import jaxpurity
from jaxpurity._capture import read_caught

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


DOCS = Path(__file__).resolve().parents[1] / "docs"
OLDEST_VERSION, OLDEST = oldest_record(DOCS)
NEWEST = read_caught(DOCS / "examples" / "_captured")


# The sentence that names the argument a traced value came from (JAX 0.2.1 on).
_ARGUMENT = re.compile(
    r"This concrete value was not available in Python because it depends on the value of the "
    r"argument [^\n]*"
)


def _explain(error: dict[str, str]) -> jaxpurity.Explanation:
    return jaxpurity.explain(f"{error['type']}: {error['message']}")


PAIRED = [(new, old) for new, old in pair_versions(NEWEST, OLDEST) if new and old]
# The errors explain sends to a page in the newest wording: the others have no page to agree on.
BOTH = [(new, old) for new, old in PAIRED if _explain(new).recognised]


def test_every_gallery_page_was_recorded_on_both_jax_versions():
    if not NEWEST:
        pytest.skip("no docs/examples/_captured: build the docs first (tox -e docs)")
    assert {e["page"] for e in NEWEST} == {e["page"] for e in OLDEST}
    assert len(PAIRED) >= 40, f"only {len(PAIRED)} of {len(NEWEST)} errors paired"
    assert len(BOTH) >= 40, f"explain knows only {len(BOTH)} of the {len(PAIRED)} paired"


@pytest.mark.parametrize(
    "new, old",
    BOTH,
    ids=[f"{new['page']}-{new['type']}-{i}" for i, (new, old) in enumerate(BOTH)],
)
def test_explain_sends_the_oldest_wording_where_it_sends_the_newest(new, old):
    if _ARGUMENT.search(new["message"]) and not _ARGUMENT.search(old["message"]):
        # JAX 0.4.35 names no keyword argument (normalize=True): its message is the newest
        # without that sentence, and must go where the newest would go without it.
        new = {**new, "message": _ARGUMENT.sub("", new["message"])}
    assert _explain(old).topic == _explain(new).topic, (
        f"on JAX {OLDEST_VERSION}: {old['type']}: {old['message'].splitlines()[0]!r}"
    )
