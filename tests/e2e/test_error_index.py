"""The built error index agrees with ``jaxpurity.explain`` on every error the site captured.

The docs build logs each error a gallery page catches (docs/examples/_captured). For each one,
the index has an entry under its class whose wording is the error's, normalised as the index
normalises it; ``jaxpurity.explain`` sends the reader to the page that entry names first, and
the entry lists the page that shows the error. Every link of every entry leads to a page of the
site. Runs with the end-to-end tests (``tox -e e2e``), after the site is built.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

if os.environ.get("JAXPURITY_E2E") != "1":
    pytest.skip("runs with `tox -e e2e` (JAXPURITY_E2E=1)", allow_module_level=True)

from _site import SITE, offline_tab
from error_index import headline, oldest_record, pair_versions

import jaxpurity
from jaxpurity._capture import read_caught
from jaxpurity._pages import NEEDS, page, topic_of

CAPTURED = Path(__file__).resolve().parents[2] / "docs" / "examples" / "_captured"

# Each entry: its class (the heading above it), its wording's lines without the "JAX x.y:"
# marks, the gallery pages it is explained on (first) and shown on, as paths from the site's root.
ENTRIES_JS = """() => Array.from(document.querySelectorAll("ul.error-entries > li"), (li) => {
  const path = (a) => new URL(a.getAttribute("href"), document.baseURI).pathname.slice(1);
  const heading = li.closest("section").querySelector("h3").textContent;
  const lines = Array.from(li.querySelectorAll(":scope > .line-block .line"), (line) =>
    line.textContent.replace(/^JAX [\\d.]+:\\s*/, "").trim());
  const entry = {type: heading.replace(/[^\\w.]/g, ""), lines, explained: [], shown: []};
  let part = null;
  for (const child of li.children) {
    const label = child.tagName === "P" ? child.querySelector("strong") : null;
    if (label) part = label.textContent.startsWith("Explained") ? "explained" : "shown";
    const links = Array.from(child.querySelectorAll("a[href]"), path);
    if (part) entry[part].push(...links.filter((link) => link.startsWith("examples/")));
  }
  return entry;
})"""

ERRORS = read_caught(CAPTURED)


@pytest.fixture(scope="module")
def entries(browser, base_url: str):
    with offline_tab(browser, base_url) as tab:
        tab.goto("errors.html")
        yield tab.evaluate(ENTRIES_JS)


def test_the_site_captured_errors():
    assert len(ERRORS) >= 20, f"only {len(ERRORS)} captured errors in {CAPTURED}"


def test_every_link_of_every_entry_leads_to_a_page_of_the_site(entries):
    assert len(entries) >= 20
    links = {link for entry in entries for link in entry["explained"] + entry["shown"]}
    assert all(entry["shown"] for entry in entries)
    assert [link for link in sorted(links) if not (SITE / link).is_file()] == []


@pytest.mark.parametrize(
    "error", ERRORS, ids=[f"{e['page']}-{e['type']}-{i}" for i, e in enumerate(ERRORS)]
)
def test_explain_sends_each_captured_error_to_the_page_its_entry_names_first(entries, error):
    kind = list(headline(error["type"], error["message"]))
    (entry,) = [
        e
        for e in entries
        if e["type"] == error["type"]
        and any(e["lines"][i : i + len(kind)] == kind for i in range(len(e["lines"])))
    ] or [None]
    assert entry is not None, f"{error['type']} from {error['page']} is missing from the index"
    assert f"examples/{error['page']}.html" in entry["shown"]
    explanation = jaxpurity.explain(f"{error['type']}: {error['message']}")
    if not explanation.recognised:
        assert entry["explained"] == []
        return
    assert page(explanation.topic) in entry["explained"]


# -- Each error the gallery caught, in the newest JAX's words and in the oldest's ----------------
# Each error the build's JAX raised on a page (docs/examples/_captured), paired with the same
# mistake's error on the oldest supported JAX (docs/captured/jax-<version>,
# tests/record_gallery.py), leads explain to the same page in both wordings.

OLDEST_VERSION, OLDEST = oldest_record(CAPTURED.parents[1])


# The sentence that names the argument a traced value came from (JAX 0.2.1 on).
_ARGUMENT = re.compile(
    r"This concrete value was not available in Python because it depends on the value of the "
    r"argument [^\n]*"
)


def _explain(error: dict[str, str]) -> jaxpurity.Explanation:
    return jaxpurity.explain(f"{error['type']}: {error['message']}")


PAIRED = [(new, old) for new, old in pair_versions(ERRORS, OLDEST) if new and old]
# The errors explain sends to a page in the newest wording: the others have no page to agree on.
BOTH = [(new, old) for new, old in PAIRED if _explain(new).recognised]


def test_every_gallery_page_was_recorded_on_both_jax_versions():
    # A page that needs more than the oldest JAX has (jax.new_ref, Flax) is not run there.
    newest = {e["page"] for e in ERRORS}
    assert newest - {p for p in newest if topic_of(p) in NEEDS} == {e["page"] for e in OLDEST}
    assert len(PAIRED) >= 40, f"only {len(PAIRED)} of {len(ERRORS)} errors paired"
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
