"""jaxpurity lint on the gallery: every page's bug is flagged, no fix is.

Each scenario page tells one story in ``# %%`` cells under headings: "The code
people write" shows the bug, the cells after it ("What JAX does: ...") run it,
"Why" explains it, and the sections whose heading starts with "Fix" or "The
fix" fix it. This lints every script as a whole (a function written in one cell
is often jitted in the next) and sorts the findings into the sections of their
lines. The bug part, from "The code people write" to "Why" or the first fix,
must hold a finding of the page's own rule; no fix section may hold one. Pages
whose bug the source cannot show are listed below with the reason, and so are
the findings in fix sections that show something on purpose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

import jaxpurity
from jaxpurity._pages import SECTIONS, script
from jaxpurity.linter._rules import RULES

ROOT = Path(__file__).resolve().parents[1]
_HEADING = re.compile(r"^# (?P<title>\S.*)\n# -{3,}$", re.M)
_FIX = re.compile(r"^(The )?[Ff]ix")
_BUG = "The code people write"

#: Pages whose bug the linter cannot see in the source, and why.
NOT_IN_THE_SOURCE = {
    "cond_branch_types": "the branches' output types (float32[3] against a Python float) "
    "exist once JAX traces them; the source does not say what shape `x / total` has",
    "loop_carry_types": "the carry's dtype (int32, from `counts[0]`) and the body's (a float) "
    "come from values, which the source does not type",
    "runtime_errors": "the id out of range and the log of a negative number are data, known "
    "only when the compiled program runs",
}

#: Findings in a fix section that are right, and there on purpose: (topic, section, code).
ON_PURPOSE = {
    ("global_counter", "The fix on new JAX: jax.new_ref", "JP101"): "`ref_step` counts its "
    "traces in a global, to show that the Ref is read on every call while the body runs once",
    ("python_control_flow", "Fix: static_argnames", "JP101"): "a global counts the traces, "
    "to show one trace per static value",
    ("python_control_flow", "Fix: lax.fori_loop", "JP101"): "a global counts the traces, to "
    "show one trace for every trip count",
    ("static_arguments", "The fix: ``static_argnames``", "JP211"): "the page shows, caught by "
    "jaxpurity.raises, that a list as a static argument raises ValueError",
    # Where a fix breaks under a transformation, its page shows the break, caught, and the fix
    # that holds there (tests/test_fixes_hold.py checks both).
    ("frozen_randomness", "The fix: explicit ``jax.random`` keys", "JP122"): "the page maps "
    "over rows with one key held fixed, to show that every row draws the same noise",
    ("leak_from_loop_body", "Fix 2: put what you need in the carry", "JP303"): "the page shows, "
    "caught by jaxpurity.raises, that grad refuses the while_loop, and links the fix",
}

TOPICS = [(section.folder, topic) for section in SECTIONS for topic in section.topics]
#: Every rule, those off by default included: each page's bug is a true finding of its rule.
EVERY_RULE = [rule.code for rule in RULES]


@dataclass(frozen=True)
class Page:
    """A gallery script's sections (title, first line) and what the linter found in it."""

    topic: str
    sections: list[tuple[str, int]]
    findings: list[jaxpurity.Finding]

    def section_of(self, line: int) -> str:
        titles = [title for title, start in self.sections if start <= line]
        return titles[-1] if titles else ""

    def bug_part(self) -> list[str]:
        titles = [title for title, _ in self.sections]
        start = next((i for i, t in enumerate(titles) if t.startswith(_BUG)), None)
        if start is None:
            return []
        end = next(
            (
                i
                for i in range(start + 1, len(titles))
                if titles[i] == "Why" or _FIX.match(titles[i])
            ),
            len(titles),
        )
        return titles[start:end]


def page(topic: str) -> Page:
    path = ROOT / script(topic)
    text = path.read_text()
    sections = [
        (m.group("title"), text.count("\n", 0, m.start()) + 1) for m in _HEADING.finditer(text)
    ]
    found = jaxpurity.lint(path, select=EVERY_RULE, config=False, cache=False)
    return Page(topic, sections, found)


@pytest.fixture(scope="module")
def pages() -> dict[str, Page]:
    return {topic: page(topic) for _, topic in TOPICS}


@pytest.mark.parametrize("topic", [t for _, t in TOPICS])
def test_the_bug_of_each_page_is_flagged_with_the_page_s_own_rule(pages, topic):
    this = pages[topic]
    bug = this.bug_part()
    if not bug:
        assert topic not in NOT_IN_THE_SOURCE
        pytest.skip(f"{topic} tells no story of a bug (no '{_BUG}' section)")
    flagged = [f for f in this.findings if this.section_of(f.line) in bug and f.topic == topic]
    if topic in NOT_IN_THE_SOURCE:
        assert not flagged, f"{topic} is listed as not visible, but is flagged: {flagged}"
        return
    assert flagged, f"nothing of {topic} flagged in {bug}: {[str(f) for f in this.findings]}"


@pytest.mark.parametrize("topic", [t for _, t in TOPICS])
def test_no_fix_is_flagged(pages, topic):
    this = pages[topic]
    in_fixes = [
        (this.section_of(f.line), f.code, str(f))
        for f in this.findings
        if _FIX.match(this.section_of(f.line))
        and (topic, this.section_of(f.line), f.code) not in ON_PURPOSE
    ]
    assert not in_fixes, in_fixes


def test_the_lists_of_exceptions_name_real_pages_and_sections(pages):
    for topic in NOT_IN_THE_SOURCE:
        assert pages[topic].bug_part(), topic
    for topic, section, code in ON_PURPOSE:
        assert section in [title for title, _ in pages[topic].sections], (topic, section)
        assert any(
            f.code == code and pages[topic].section_of(f.line) == section
            for f in pages[topic].findings
        ), (topic, section, code)
