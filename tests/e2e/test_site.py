"""End-to-end tests of the built site, in headless Chromium: ``tox -e e2e``.

The site in ``build/html`` is served on 127.0.0.1 and every page is loaded in a browser:
no JavaScript errors, no broken internal link, image or anchor; the search finds the scenario
pages; each example's downloads work and the downloaded script, run with plain ``python``,
raises what the page shows; the copy button copies code only; captured output wraps instead of
scrolling sideways, in light and dark mode, at a wide and a narrow viewport.

The tests run only with ``JAXPURITY_E2E=1`` (``tox -e e2e`` sets it): a plain ``pytest`` run skips
this module. With it, a missing browser, Playwright or site is an error, never a skip.
``JAXPURITY_SITE`` points the tests at a site built elsewhere than ``build/html``.
"""

from __future__ import annotations

import ast
import collections
import concurrent.futures
import dataclasses
import html
import json
import os
import re
import subprocess
import sys
import time
import traceback
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

if os.environ.get("JAXPURITY_E2E") != "1":
    pytest.skip(
        "browser tests of the built site run with `tox -e e2e` (JAXPURITY_E2E=1)",
        allow_module_level=True,
    )

from _site import CHROMIUM, ROOT, SITE, block_external
from colab import installed_revision

from jaxpurity._capture import CAUGHT_LOG_ENV
from jaxpurity._pages import page as page_of

ARTIFACTS = ROOT / "artifacts"  # screenshots (gitignored)
VIEWPORT = {"width": 1280, "height": 900}

if not (SITE / "index.html").is_file():
    pytest.fail(f"no built site at {SITE}: run `tox -e docs` first", pytrace=False)
if not os.access(CHROMIUM, os.X_OK):
    pytest.fail(f"no Chromium at {CHROMIUM}: `apt-get install chromium`", pytrace=False)

# Every page on disk, and the gallery's example pages among them.
PAGES = sorted(p.relative_to(SITE).as_posix() for p in SITE.rglob("*.html"))
EXAMPLES = [
    p
    for p in PAGES
    if re.fullmatch(r"examples/[^/]+/[^/]+\.html", p)
    and Path(p).name not in ("index.html", "sg_execution_times.html")
]
# How an example page and its script show a caught error: "SomeError: message" at a line start.
ERROR_LINE = re.compile(r"^(\w+(?:Error|Exception|Warning))(?::|$)", re.MULTILINE)
# Code that sphinx-gallery runs and leaves out of the rendered page and of the notebook.
IGNORE_BLOCK = re.compile(
    r"[ \t]*# sphinx_gallery_start_ignore\n.*?# sphinx_gallery_end_ignore\n?", re.S
)
WIDTHS = (1280, 800)
SEARCHES = [
    ("UnexpectedTracerError", "global_counter"),
    ("TracerBoolConversionError", "python_control_flow"),
]
FIRST_RESULTS = 3
SCRIPT_TIMEOUT_S = 300

# Every href and src on the page (absolute) and every id an anchor can point at.
COLLECT_JS = """() => {
  const targets = [];
  for (const el of document.querySelectorAll("[href], [src]")) {
    for (const attr of ["href", "src"]) {
      const value = el.getAttribute(attr);
      if (value !== null) targets.push(new URL(value, document.baseURI).href);
    }
  }
  const ids = Array.from(document.querySelectorAll("[id]"), (el) => el.id);
  ids.push(...Array.from(document.querySelectorAll("a[name]"), (el) => el.name));
  return {targets, ids};
}"""

# Output blocks that are wider than their box, i.e. that would need a sideways scroll.
OVERFLOW_JS = """() => Array.from(
  document.querySelectorAll(".sphx-glr-script-out, .sphx-glr-script-out pre"),
  (el, i) => ({i, cls: el.className, scroll: el.scrollWidth, client: el.clientWidth}),
).filter((b) => b.scroll > b.client + 1)"""

# WCAG contrast ratio of each output block's text against the background it is drawn on.
CONTRAST_JS = """() => {
  const rgba = (css) => css.match(/[\\d.]+/g).map(Number);
  const luminance = (rgb) => {
    const [r, g, b] = rgb.map((c) => {
      c /= 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const background = (el) => {
    for (; el; el = el.parentElement) {
      const c = rgba(getComputedStyle(el).backgroundColor);
      if (c.length < 4 || c[3] > 0) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  return Array.from(document.querySelectorAll(".sphx-glr-script-out pre"), (pre) => {
    const fg = luminance(rgba(getComputedStyle(pre).color).slice(0, 3));
    const bg = luminance(background(pre));
    return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
  });
}"""
MIN_CONTRAST = 4.5  # WCAG AA for body text


# -- Fixtures: contexts and tabs of the one browser (conftest.py) ---------------------------------


@pytest.fixture(scope="session")
def context(browser, base_url: str):
    """A context at 1280x900 that may read and write the clipboard."""
    ctx = browser.new_context(viewport=VIEWPORT, base_url=base_url)
    block_external(ctx, base_url)
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url.rstrip("/"))
    yield ctx
    ctx.close()


@pytest.fixture(scope="session", params=["light", "dark"])
def theme(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(scope="session")
def themed_context(browser, base_url: str, theme: str):
    """A context whose pages load with furo's theme switch already set to ``theme``."""
    ctx = browser.new_context(viewport=VIEWPORT, base_url=base_url, color_scheme=theme)
    block_external(ctx, base_url)
    ctx.add_init_script(f"localStorage.setItem('theme', '{theme}');")
    yield ctx
    ctx.close()


@pytest.fixture
def page(context):
    tab = context.new_page()
    yield tab
    tab.close()


@pytest.fixture
def themed_page(themed_context):
    tab = themed_context.new_page()
    yield tab
    tab.close()


def site_path(url: str, base_url: str) -> str | None:
    """The file on the site that ``url`` names (``index.html`` for a folder); None if external."""
    if not url.startswith(base_url):
        return None
    path = unquote(urlsplit(url).path).lstrip("/")
    return path + "index.html" if path == "" or path.endswith("/") else path


@dataclasses.dataclass
class Visit:
    """What loading one page in the browser showed."""

    errors: list[str]  # console errors and uncaught exceptions
    failed_requests: list[str]  # requests that failed or got an HTTP error
    targets: list[str]  # every href and src, absolute
    ids: set[str]
    from_index: bool  # reached by following links from index.html


@pytest.fixture(scope="session")
def crawl(context, base_url: str, summary: list[str]) -> dict[str, Visit]:
    """Visit every page: first those reachable from index.html, then the rest of the files."""
    tab = context.new_page()
    errors: list[str] = []
    failed: list[str] = []
    # Every page links _static/favicon.svg, and favicon.ico sits at the root for what asks for
    # it unprompted: a 404 for either fails. Chromium fetches the icon after the load event,
    # though, and the next visit can cut that fetch short (ERR_ABORTED, 14 of 172 pages once):
    # that says nothing about the site.
    icons = ("/favicon.svg", "/favicon.ico")

    def on_console(msg) -> None:
        if msg.type == "error":
            errors.append(f"console: {msg.text} ({msg.location['url']})")

    def on_response(res) -> None:
        if res.status >= 400:
            failed.append(f"{res.url}: HTTP {res.status}")

    def on_request_failed(req) -> None:
        if req.failure == "net::ERR_ABORTED" and urlsplit(req.url).path.endswith(icons):
            return
        external = "" if req.url.startswith(base_url) else ", an external request (blocked)"
        failed.append(f"{req.url}: {req.failure}{external}")

    tab.on("console", on_console)
    tab.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    tab.on("response", on_response)
    tab.on("requestfailed", on_request_failed)

    visits: dict[str, Visit] = {}

    def visit(path: str, from_index: bool) -> list[str]:
        errors.clear()
        failed.clear()
        tab.goto(base_url + path, wait_until="load")
        found = tab.evaluate(COLLECT_JS)
        visits[path] = Visit(
            list(errors), list(failed), found["targets"], set(found["ids"]), from_index
        )
        return found["targets"]

    start = time.perf_counter()
    queue = collections.deque(["index.html"])
    seen = set(queue)
    while queue:
        for url in visit(queue.popleft(), from_index=True):
            target = site_path(url, base_url)
            if target and target.endswith(".html") and target not in seen:
                if (SITE / target).is_file():
                    seen.add(target)
                    queue.append(target)
    for path in PAGES:
        if path not in visits:
            visit(path, from_index=False)
    tab.close()
    reached = sum(v.from_index for v in visits.values())
    summary.append(
        f"visited {len(visits)} pages ({reached} reached from index.html, "
        f"{len(EXAMPLES)} example pages) in {time.perf_counter() - start:.1f} s"
    )
    return visits


@dataclasses.dataclass
class Download:
    """The file behind one of an example page's download buttons, as the server answered."""

    url: str
    status: int
    body: bytes


@dataclasses.dataclass
class Example:
    downloads: dict[str, Download]  # "py" and "ipynb"
    outputs: list[str]  # the text of each captured output block


@pytest.fixture(scope="session")
def examples(context, base_url: str) -> dict[str, Example]:
    """Each example page's captured output, and the files its download buttons link to."""
    tab = context.new_page()
    found = {}
    for path in EXAMPLES:
        tab.goto(base_url + path, wait_until="domcontentloaded")
        downloads = {}
        for kind, css in (("py", "python"), ("ipynb", "jupyter")):
            for link in tab.locator(f".sphx-glr-download-{css} a[href]").all():
                url = link.evaluate("a => a.href")
                response = context.request.get(url)
                downloads[kind] = Download(url, response.status, response.body())
        outputs = tab.locator(".sphx-glr-script-out pre").all_text_contents()
        found[path] = Example(downloads, outputs)
    tab.close()
    return found


@dataclasses.dataclass
class Run:
    name: str
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def run_script(source: bytes, name: str, tmp_dir: Path) -> Run:
    """Run a downloaded script with plain ``python`` in a fresh process, in its own folder."""
    script = tmp_dir / name
    script.write_bytes(source)
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    env.pop(CAUGHT_LOG_ENV, None)  # never append to the build's log of caught errors
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, script.name],
        cwd=tmp_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=SCRIPT_TIMEOUT_S,
    )
    return Run(name, proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - start)


@pytest.fixture(scope="session")
def script_runs(examples: dict[str, Example], tmp_path_factory, summary: list[str]):
    """Start every downloaded ``.py`` in the background (two at a time); page -> future Run."""
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)
    futures = {}
    for path, example in examples.items():
        script = example.downloads.get("py")
        if script and script.status == 200:
            name = Path(urlsplit(script.url).path).name
            futures[path] = pool.submit(
                run_script, script.body, name, tmp_path_factory.mktemp("run")
            )
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)
    done = [f.result() for f in futures.values() if not f.cancelled() and not f.exception()]
    if done:
        slowest = max(done, key=lambda r: r.seconds)
        summary.append(
            f"ran {len(done)} downloaded scripts: {sum(r.seconds for r in done):.1f} s in all, "
            f"slowest {slowest.name} {slowest.seconds:.1f} s"
        )


# -- Every page -----------------------------------------------------------------------------------


def test_every_example_page_is_reachable_from_the_index(crawl):
    unreachable = [p for p in EXAMPLES if not crawl[p].from_index]
    assert EXAMPLES, "the site has no example pages"
    assert not unreachable, f"example pages no link from index.html leads to: {unreachable}"


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_without_errors(crawl, path: str):
    visit = crawl[path]
    assert not visit.errors, f"{path}: JavaScript errors:\n" + "\n".join(visit.errors)
    assert not visit.failed_requests, f"{path}: failed requests:\n" + "\n".join(
        visit.failed_requests
    )


@pytest.mark.parametrize("path", PAGES)
def test_internal_links_and_images_resolve(crawl, base_url: str, path: str):
    broken = []
    for url in crawl[path].targets:
        target = site_path(url, base_url)
        if target is None:
            continue
        if not (SITE / target).is_file():
            broken.append(f"{url}: no such file")
            continue
        anchor = unquote(urlsplit(url).fragment)
        if anchor and target.endswith(".html") and anchor not in crawl[target].ids:
            broken.append(f"{url}: no id {anchor!r} on {target}")
    assert not broken, f"{path}: broken links:\n" + "\n".join(sorted(set(broken)))


# -- Search ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("query", "topic"), SEARCHES)
def test_search_finds_the_scenario_page(page, base_url: str, query: str, topic: str):
    page.goto(f"search.html?q={query}")
    # Sphinx writes the summary line only once every result is listed.
    summary = page.locator("#search-results p.search-summary")
    summary.filter(has_text=re.compile(r"\S")).wait_for(timeout=15_000)
    hrefs = page.locator("#search-results ul.search > li > a").evaluate_all(
        "links => links.map((a) => a.href)"
    )
    found = [site_path(url, base_url) for url in hrefs]
    assert page_of(topic) in found[:FIRST_RESULTS], (
        f"searching {query!r}: {summary.inner_text()!r}; first results: {found[:FIRST_RESULTS]}"
    )


# -- Downloads ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES)
def test_download_buttons_give_a_script_and_a_notebook(examples, script_runs, path: str):
    # script_runs: the downloaded scripts start running now, while the browser tests go on.
    files = examples[path].downloads
    assert set(files) == {"py", "ipynb"}, f"{path}: download buttons found: {sorted(files)}"
    for kind, download in files.items():
        assert download.status == 200, f"{download.url}: HTTP {download.status}"
        assert download.url.endswith(f".{kind}"), download.url
    ast.parse(files["py"].body.decode("utf-8"), filename=files["py"].url)
    notebook = json.loads(files["ipynb"].body)
    assert notebook["nbformat"] == 4, files["ipynb"].url
    install, *code = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    assert installed_revision(install), files["ipynb"].url  # test_colab.py: which revision
    assert code, f"{files['ipynb'].url}: no code cells"
    # The notebook holds the same code as the script, cell by cell, less the build's own
    # code between sphinx_gallery_start_ignore and sphinx_gallery_end_ignore, and less the
    # cell that installs jaxpurity first, for Colab.
    script = IGNORE_BLOCK.sub("", files["py"].body.decode("utf-8"))
    assert all(cell.strip() in script for cell in code), files["ipynb"].url


# -- Copy button ----------------------------------------------------------------------------------


def copy(tab, block) -> str:
    """Click ``block``'s copy button and return what landed on the clipboard."""
    tab.evaluate("navigator.clipboard.writeText('')")
    block.hover()
    block.locator("button.copybtn").click()
    tab.wait_for_function("async () => (await navigator.clipboard.readText()) !== ''")
    return tab.evaluate("navigator.clipboard.readText()")


@pytest.mark.parametrize("path", EXAMPLES)
def test_copy_button_copies_the_code_cell_only(page, path: str):
    page.goto(path)
    assert page.locator(".sphx-glr-script-out button.copybtn").count() == 0, (
        f"{path}: output blocks have a copy button"
    )
    # The first code cell that has captured output right after it.
    output = page.locator("div[class*='highlight-'] + .sphx-glr-script-out").first
    cell = output.locator("xpath=preceding-sibling::div[1]")
    expected = cell.locator("pre").inner_text().removesuffix("\n")
    copied = copy(page, cell.locator("div.highlight"))
    assert copied == expected
    assert ">>>" not in copied
    assert output.locator("pre").inner_text().strip() not in copied


def test_copy_button_drops_doctest_prompts_and_output(page):
    page.goto("api.html")
    blocks = page.locator("div.doctest div.highlight")
    assert blocks.count(), "api.html has no doctest examples"
    for block in blocks.all():
        text = block.locator("pre").inner_text()
        code = [line[4:] for line in text.splitlines() if line.startswith((">>> ", "... "))]
        output = [line for line in block.locator(".go").all_inner_texts() if line.strip()]
        copied = copy(page, block)
        lines = [line for line in copied.splitlines() if line.strip()]
        assert lines == [line for line in code if line.strip()], (
            f"copied:\n{copied}\n--- expected the code without prompts:\n" + "\n".join(code)
        )
        assert not any(line.startswith((">>> ", "... ")) for line in lines), copied
        assert not set(output) & set(lines), f"output copied: {set(output) & set(lines)}"


# -- Output wraps instead of scrolling ------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES)
def test_output_fits_without_scrolling_sideways(themed_page, theme: str, path: str):
    themed_page.goto(path)
    assert themed_page.evaluate("document.body.dataset.theme") == theme
    background = themed_page.evaluate(
        "getComputedStyle(document.body).backgroundColor.match(/\\d+/g).slice(0, 3).map(Number)"
    )
    assert (sum(background) / 3 < 128) == (theme == "dark"), f"{theme} mode, body {background}"
    assert themed_page.locator(".sphx-glr-script-out pre").count(), f"{path}: no captured output"
    for width in WIDTHS:
        themed_page.set_viewport_size({"width": width, "height": 900})
        wide = themed_page.evaluate(OVERFLOW_JS)
        assert not wide, f"{path} at {width}px, {theme}: output scrolls sideways: {wide}"


@pytest.mark.parametrize("path", EXAMPLES)
def test_output_text_contrasts_with_its_background(themed_page, theme: str, path: str):
    themed_page.goto(path)
    ratios = themed_page.evaluate(CONTRAST_JS)
    low = {i: round(r, 2) for i, r in enumerate(ratios) if r < MIN_CONTRAST}
    assert not low, f"{path}, {theme}: output blocks below contrast {MIN_CONTRAST}: {low}"


def test_screenshot_of_a_scenario_page(themed_page, theme: str):
    path = page_of("global_counter")
    themed_page.goto(path)
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"{Path(path).stem}-{theme}.png"
    themed_page.screenshot(path=shot, full_page=True)
    height = themed_page.evaluate("document.documentElement.scrollHeight")
    assert shot.stat().st_size and height > 900, f"{shot}: page only {height}px tall"


# -- Downloaded scripts run -----------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES)
def test_downloaded_script_raises_what_the_page_shows(examples, script_runs, path: str):
    assert path in script_runs, f"{path}: no .py download to run"
    run = script_runs[path].result()
    assert run.returncode == 0, f"{path}: script exited {run.returncode}:\n{run.stderr[-3000:]}"
    shown = collections.Counter(ERROR_LINE.findall("\n".join(examples[path].outputs)))
    printed = collections.Counter(ERROR_LINE.findall(run.stdout))
    assert printed == shown, f"{path}: page shows {dict(shown)}, script printed {dict(printed)}"


# -- The paste box runs explain in the browser ---------------------------------------------------

sys.path.insert(0, str(ROOT))
import jaxpurity  # noqa: E402
from scorers.explain import CORPORA, load_corpus  # noqa: E402

REAL_ERRORS = [case for name in sorted(CORPORA) for case in load_corpus(name)]
BOX_PAGES = ["index.html", "errors.html"]


def _python_answer(text: str) -> dict:
    explanation = jaxpurity.explain(text)
    if not explanation.recognised:
        return {"recognised": False, "topic": None, "error": explanation.error, "also": []}
    also = [page_of(topic) for topic in explanation.see_also]
    found = {"recognised": True, "topic": explanation.topic, "error": explanation.error}
    return {**found, "also": also}


def _box_answers(page, texts: list[str]) -> list[dict]:
    """What the paste box's port of explain says of each text, in the form of _python_answer."""
    page.goto("index.html")
    return page.evaluate(
        """(texts) => texts.map((text) => {
          const found = window.jaxpurityExplain(text);
          return {recognised: found.recognised, topic: found.topic || null, error: found.error,
                  also: found.see_also || []};
        })""",
        texts,
    )


def test_paste_box_agrees_with_explain_on_every_real_error(page, summary: list[str]):
    texts = [case["text"] for case in REAL_ERRORS]
    answers = _box_answers(page, texts)
    disagree = [
        f"{case['id']} ({case['source']}): box {box}, explain {python}"
        for case, box in zip(REAL_ERRORS, answers, strict=True)
        if box != (python := _python_answer(case["text"]))
    ]
    summary.append(f"paste box: {len(texts) - len(disagree)}/{len(texts)} real errors as explain")
    assert not disagree, "\n".join(disagree)


def _float_inside_vmap() -> None:
    import jax
    import jax.numpy as jnp

    jax.vmap(lambda x: x * float(x))(jnp.arange(3.0))


def _float_of_a_tracer_kept_from_grad() -> None:
    import jax

    kept = []

    def f(x):
        kept.append(x)
        return x * 2.0

    jax.grad(f)(1.0)
    float(kept[0])


# float() of a grad or vmap tracer: the same message inside the running transformation and
# after it returned (the tracer leaked); only the traceback's frames tell which
# (_explain.py's _outside_every_transformation). name -> (code that raises, the page).
LIVE_FLOATS = {
    "float_inside_vmap": (_float_inside_vmap, "python_control_flow"),
    "float_of_a_tracer_kept_from_grad": (_float_of_a_tracer_kept_from_grad, "leak_from_grad_vmap"),
}


def test_paste_box_agrees_with_explain_on_live_tracebacks_of_float_on_a_grad_or_vmap_tracer(page):
    texts = {}
    for name, (trigger, _) in LIVE_FLOATS.items():
        with pytest.raises(Exception, match="`float` function") as info:
            trigger()
        texts[name] = "".join(traceback.format_exception(info.value))
    answers = dict(zip(texts, _box_answers(page, list(texts.values())), strict=True))
    for name, text in texts.items():
        python = _python_answer(text)
        assert python["topic"] == LIVE_FLOATS[name][1], f"{name}: explain says {python}\n{text}"
        assert answers[name] == python, f"{name}: box {answers[name]}, explain {python}\n{text}"


@pytest.mark.parametrize("path", BOX_PAGES)
def test_paste_box_links_the_page_that_explains_a_pasted_error(page, base_url: str, path: str):
    cases = [c for c in REAL_ERRORS if c.get("expected_topic")][:: max(1, len(REAL_ERRORS) // 12)]
    page.goto(path)
    box = page.locator(".explain-box").first
    for case in cases:
        expected = jaxpurity.explain(case["text"])
        box.locator("textarea").fill(case["text"])
        box.locator("button").click()
        result = box.locator(".explain-box-result")
        if not expected.recognised:
            assert "Not recognised" in result.inner_text(), case["id"]
            continue
        # The knowledge marks code with backticks; the box shows it as code, without them.
        assert expected.scenario.replace("`", "") in result.inner_text(), case["id"]
        href = result.locator("a.explain-box-link").get_attribute("href")
        target = urlsplit(urljoin(base_url + path, href)).path.lstrip("/")
        assert target == expected.page, f"{case['id']}: box links {target}"
        assert (SITE / target).is_file(), target
        also = result.locator("a.explain-box-also")
        targets = [
            urlsplit(urljoin(base_url + path, also.nth(i).get_attribute("href"))).path.lstrip("/")
            for i in range(also.count())
        ]
        assert targets == [page_of(topic) for topic in expected.see_also], case["id"]
        assert all((SITE / target).is_file() for target in targets), targets


def test_paste_box_works_from_the_files_alone_with_no_server(browser):
    tab = browser.new_page()
    try:
        tab.goto((SITE / "errors.html").as_uri())
        box = tab.locator(".explain-box").first
        box.locator("textarea").fill(
            "jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array"
        )
        box.locator("textarea").press("Control+Enter")
        href = box.locator("a.explain-box-link").get_attribute("href")
    finally:
        tab.close()
    assert href.endswith(page_of("python_control_flow"))


def test_paste_box_says_plainly_when_it_does_not_know_an_error(page):
    page.goto("index.html")
    box = page.locator(".explain-box").first
    box.locator("textarea").fill("RuntimeError: RESOURCE_EXHAUSTED: Out of memory")
    box.locator("button").click()
    assert "Not recognised" in box.locator(".explain-box-result").inner_text()
    assert box.locator("label").get_attribute("for") == box.locator("textarea").get_attribute("id")
    # ... and links the error index, which lists every error the site shows.
    box.locator("a.explain-box-index").click()
    page.wait_for_load_state("load")
    assert urlsplit(page.url).path == "/errors.html"
    assert page.locator(".explain-box").count() == 1


def _title_of(path: str) -> str:
    """The page's title as its HTML file gives it (its ``<h1>``, without the pilcrow link)."""
    h1 = re.search(r"<h1>(.*?)<a class=\"headerlink\"", (SITE / path).read_text(), re.S)
    assert h1, path
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", h1[1])).split())


def test_paste_box_names_pages_by_title_and_shows_code_as_code(page):
    text = "jax.errors.UnexpectedTracerError: Encountered an unexpected tracer."
    expected = jaxpurity.explain(text)
    assert "`" in expected.fix  # the knowledge marks code with backticks
    page.goto("index.html")
    box = page.locator(".explain-box").first
    box.locator("textarea").fill(text)
    box.locator("button").click()
    result = box.locator(".explain-box-result")
    assert "`" not in result.inner_text()
    assert result.locator("code").count() >= expected.fix.count("`") // 2
    links = result.locator("a.explain-box-link, a.explain-box-also")
    named = [links.nth(i).inner_text() for i in range(links.count())]
    pages = [expected.page] + [page_of(topic) for topic in expected.see_also]
    assert named == [_title_of(path) for path in pages]
