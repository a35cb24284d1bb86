"""Tests for docs/sphinxext/accessibility.py: code blocks that scroll on a phone are Tab stops."""

import re

from accessibility import PHONE_COLUMNS, mark_scrolling_code

LONG = "x = " + "1 + " * PHONE_COLUMNS + "1"


def _block(code: str, outer: str = "highlight-Python notranslate") -> str:
    return f'<div class="{outer}"><div class="highlight"><pre><span></span>{code}</pre></div></div>'


def test_each_scrolling_block_is_a_region_with_a_name_of_its_own():
    body = _block("short = 1") + _block(LONG) + _block(LONG)
    marked = mark_scrolling_code(body)
    names = re.findall(r'role="region" aria-label="([^"]*)"', marked)
    # numbered among all highlighted blocks, as a11y.js numbers them: the short one is block 1
    assert names == ["Code block 2, scrolls", "Code block 3, scrolls"]
    assert marked.count('tabindex="0"') == 2


def test_blocks_that_wrap_or_hold_a_link_stay_as_they_are():
    output = _block(LONG, outer="sphx-glr-script-out highlight-none notranslate")
    linked = _block(f'<a href="https://docs.jax.dev/">jax</a> {LONG}')
    assert mark_scrolling_code(output + linked) == output + linked
