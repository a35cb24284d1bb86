"""Tests for docs/sphinxext/download_note.py: no download note at the top of a gallery page."""

from pathlib import Path

from sphinx.application import Sphinx

# sphinx-gallery's note, as it writes it at the top of each example's reST.
NOTE = """
.. only:: html

    .. note::
        :class: sphx-glr-download-link-note

        :ref:`Go to the end <sphx_glr_download_page>`
        to download the full example code.

"""


def test_the_note_goes_and_the_downloads_at_the_end_stay(tmp_path: Path):
    src, out = tmp_path / "src", tmp_path / "html"
    src.mkdir()
    (src / "conf.py").write_text('extensions = ["download_note"]\n')
    (src / "index.rst").write_text(
        "Page\n====\n" + NOTE + "First words.\n\n.. note::\n\n   A note of the page's own.\n\n"
        ".. _sphx_glr_download_page:\n\nDownload the script.\n"
    )
    Sphinx(src, src, out, out / ".doctrees", "html", status=None, warningiserror=True).build()
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "Go to the end" not in html
    assert "sphx-glr-download-link-note" not in html
    assert "A note of the page" in html  # other notes stay
    assert "Download the script." in html
