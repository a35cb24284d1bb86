"""End-to-end tests of the downloaded notebooks: they read well in Jupyter, and they run.

Each example page's "Download Jupyter notebook" link is followed to its file on the built site.
Its markdown holds no raw Sphinx role or reST literal (``docs/sphinxext/notebook_markdown.py``
converts them), and executed top to bottom in a fresh Python kernel (nbclient and ipykernel),
it raises no uncaught error and prints the same caught errors as the page shows. Its first
cell, which installs jaxpurity from GitHub for Colab, is left out: the kernel imports the
jaxpurity under test, offline. The downloaded ``.py`` scripts are run by ``test_site.py``.

Like ``test_site.py``, these tests run only with ``JAXPURITY_E2E=1``; with it, missing nbclient
or ipykernel is an error, never a skip.
"""

from __future__ import annotations

import collections
import concurrent.futures
import html
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest

if os.environ.get("JAXPURITY_E2E") != "1":
    pytest.skip(
        "tests of the downloaded notebooks run with `tox -e e2e` (JAXPURITY_E2E=1)",
        allow_module_level=True,
    )

try:
    import nbformat
    from nbclient import NotebookClient
except ImportError as error:
    pytest.fail(
        f"executing the notebooks needs nbclient and ipykernel in the e2e env ({error}): "
        "`pip install nbclient ipykernel`",
        pytrace=False,
    )
from colab import installed_revision
from test_site import ERROR_LINE, EXAMPLES, SCRIPT_TIMEOUT_S, SITE

from jaxpurity._capture import CAUGHT_LOG_ENV

# What a Sphinx role or a reST inline literal looks like in markdown, outside fenced code.
RAW_REST = re.compile(r":(?:\w+:)?\w+:`[^`]+`|``[^`\s][^`]*``")
FENCED = re.compile(r"^```.*?^```[ \t]*$", re.M | re.S)
NOTEBOOK_LINK = re.compile(
    r'class="[^"]*sphx-glr-download-jupyter[^"]*".*?href="(?P<href>[^"]+\.ipynb)"', re.S
)
OUTPUT_BLOCK = re.compile(r'class="sphx-glr-script-out[ "].*?<pre>(?P<text>.*?)</pre>', re.S)
TAG = re.compile(r"<[^>]+>")


def downloaded_notebook(path: str) -> Path:
    """The file the page's "Download Jupyter notebook" link points at."""
    found = NOTEBOOK_LINK.search((SITE / path).read_text(encoding="utf-8"))
    assert found, f"{path}: no Jupyter notebook download link"
    notebook = (SITE / path).parent / html.unescape(found["href"])
    assert notebook.is_file(), f"{path}: the notebook link {found['href']} has no file"
    return notebook


def page_errors(path: str) -> collections.Counter[str]:
    """The caught errors the page's output blocks show, by exception name."""
    page = (SITE / path).read_text(encoding="utf-8")
    text = "\n".join(html.unescape(TAG.sub("", m["text"])) for m in OUTPUT_BLOCK.finditer(page))
    return collections.Counter(ERROR_LINE.findall(text))


def execute(notebook: Path, workdir: Path) -> tuple[dict[str, Any] | None, str, float]:
    """Run ``notebook`` in a fresh kernel in ``workdir``: (the run notebook or None, error, s)."""
    nb = nbformat.read(notebook, as_version=4)
    # The first cell installs jaxpurity from GitHub, for Colab (docs/sphinxext/colab.py). Here
    # it is left out, so that nothing goes online: the kernel imports the jaxpurity under test.
    install, *cells = nb.cells
    if not installed_revision(install.source):
        return None, f"the first cell installs no jaxpurity revision: {install.source[:200]!r}", 0.0
    nb.cells = cells
    client = NotebookClient(
        nb,
        timeout=SCRIPT_TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(workdir)}},
    )
    start = time.perf_counter()
    try:
        client.execute()
    except Exception as error:  # CellExecutionError, a timeout, a dead kernel: all failures
        return None, f"{type(error).__name__}: {error}", time.perf_counter() - start
    return nb, "", time.perf_counter() - start


def printed_errors(nb: dict[str, Any]) -> collections.Counter[str]:
    """The caught errors an executed notebook printed, by exception name."""
    text = "\n".join(
        "".join(output.get("text", ""))
        for cell in nb["cells"]
        if cell["cell_type"] == "code"
        for output in cell.get("outputs", [])
        if output["output_type"] == "stream"
    )
    return collections.Counter(ERROR_LINE.findall(text))


@pytest.fixture(scope="module")
def notebook_runs(tmp_path_factory, summary: list[str]):
    """Execute every downloaded notebook in the background (two at a time); page -> future."""
    os.environ["JAX_PLATFORMS"] = "cpu"  # the kernels inherit this environment
    os.environ.pop(CAUGHT_LOG_ENV, None)  # never append to the build's log of caught errors
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)
    futures = {
        path: pool.submit(execute, downloaded_notebook(path), tmp_path_factory.mktemp("nb"))
        for path in EXAMPLES
    }
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)
    times = [f.result()[2] for f in futures.values() if f.done() and not f.cancelled()]
    if times:
        summary.append(f"executed {len(times)} notebooks: {sum(times):.1f} s in all")


def test_every_example_page_has_a_notebook():
    assert len(EXAMPLES) >= 1, f"no example pages under {SITE}"
    missing = [p for p in EXAMPLES if not NOTEBOOK_LINK.search((SITE / p).read_text())]
    assert missing == []


@pytest.mark.parametrize("path", EXAMPLES)
def test_notebook_markdown_has_no_raw_rest(path: str):
    notebook = json.loads(downloaded_notebook(path).read_text(encoding="utf-8"))
    markdown = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown"]
    assert markdown, f"{path}: no markdown cells"
    raw = [hit for text in markdown for hit in RAW_REST.findall(FENCED.sub("", text))]
    assert raw == [], f"{path}: raw reST left in the notebook's markdown"
    # The roles became links: a page without any would mean the conversion dropped them.
    assert any("](http" in text for text in markdown), f"{path}: no link in the markdown"


@pytest.mark.parametrize("path", EXAMPLES)
def test_notebook_runs_and_prints_what_the_page_shows(notebook_runs, path: str):
    nb, error, _ = notebook_runs[path].result()
    assert nb is not None, f"{path}: the notebook failed:\n{error[-3000:]}"
    assert printed_errors(nb) == page_errors(path), path
