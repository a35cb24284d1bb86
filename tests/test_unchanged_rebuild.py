"""Tests for docs/sphinxext/unchanged_rebuild.py: a rebuild writes a file only where it changed.

The whole rebuild is measured by ``benchmarks/docs_rebuild.py`` (no file written, within 5 s).
"""

import os
from pathlib import Path

from unchanged_rebuild import _WrittenOnChange, replace_if_changed

OLD = 1_000_000_000  # a modification time long past, in nanoseconds: a write would change it


def test_a_file_is_copied_only_where_its_bytes_differ(tmp_path: Path):
    new, target = tmp_path / "new.css", tmp_path / "out" / "basic.css"
    new.write_text("a { }")
    assert replace_if_changed(new, target)  # missing: written
    os.utime(target, ns=(OLD, OLD))
    assert not replace_if_changed(new, target)  # the same bytes: left alone
    assert target.stat().st_mtime_ns == OLD
    new.write_text("b { }")
    assert replace_if_changed(new, target)
    assert target.read_text() == "b { }"


def test_a_page_that_is_no_document_is_written_only_where_its_text_changed(tmp_path: Path):
    page = _WrittenOnChange(tmp_path / "genindex.html")
    page.write_text("<p>index</p>\n", encoding="utf-8")
    os.utime(page, ns=(OLD, OLD))
    page.write_text("<p>index</p>\n", encoding="utf-8")
    assert page.stat().st_mtime_ns == OLD
    page.write_text("<p>another</p>\n", encoding="utf-8")
    assert page.read_text(encoding="utf-8") == "<p>another</p>\n"
