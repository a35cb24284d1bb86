"""Tests for docs/sphinxext/page_order.py: the gallery follows jaxpurity._pages.SECTIONS."""

import pytest
from page_order import PageOrder, section_key
from sphinx.errors import ExtensionError

from jaxpurity._pages import SECTIONS


def test_sections_sort_in_the_order_of_the_table():
    folders = [f"../gallery/{s.folder}" for s in reversed(SECTIONS)]
    assert [f.rsplit("/", 1)[1] for f in sorted(folders, key=section_key)] == [
        s.folder for s in SECTIONS
    ]


@pytest.mark.parametrize("section", SECTIONS, ids=lambda s: s.folder)
def test_pages_sort_in_reading_order(section):
    key = PageOrder(f"/somewhere/gallery/{section.folder}")
    files = sorted((f"{t}.py" for t in section.topics), key=key)
    assert files == [f"{t}.py" for t in section.topics]


def test_a_script_missing_from_the_table_fails_the_build_naming_it():
    with pytest.raises(ExtensionError, match=r"tools/new_page\.py: add its topic"):
        PageOrder("/somewhere/gallery/tools")("new_page.py")
    with pytest.raises(ExtensionError, match="gallery folder 'extra' is no section"):
        section_key("../gallery/extra")
