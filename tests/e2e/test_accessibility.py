"""Accessibility of the built site, checked with axe-core in headless Chromium: ``tox -e e2e``.

axe-core runs in every page of ``build/html``, at a desktop width and at a phone width (390 px).
It runs again with ``a11y.js`` blocked, since the HTML the build writes must hold by itself. That
script sets four attributes of code blocks and nothing else, so the second run is needed only
where it set them differently from the build, and then without the colour rules, which those
attributes cannot change (``SCRIPT_BLIND``); elsewhere the page axe sees is the same page, and
its first result stands.
No page may have a violation that axe rates serious or critical, nor one of the moderate rules
that the site once broke and now keeps (``KEPT``). The terminal summary counts every violation,
of any impact, by rule. The banner that names the JAX version is checked on a phone as a reader
meets it: its whole message shows, and Tab never stops on it.

axe-core ``AXE_VERSION`` comes from PyPI, as the ``axe.min.js`` that the wheel of
axe-playwright-python (pinned in tox.ini's e2e env) carries; ``JAXPURITY_AXE`` names another
``axe.min.js`` of that version to use instead. The tests run only with ``JAXPURITY_E2E=1``, and a
missing or other axe-core is then an error, never a skip.
"""

from __future__ import annotations

import collections
import os
import re
from pathlib import Path

import pytest

if os.environ.get("JAXPURITY_E2E") != "1":
    pytest.skip(
        "browser tests of the built site run with `tox -e e2e` (JAXPURITY_E2E=1)",
        allow_module_level=True,
    )

from _site import block_external
from test_site import PAGES, VIEWPORT

# PyPI, not npm: CI lost every accessibility test to the npm registry's "self-signed certificate
# in certificate chain" in three sessions, five tries over two and a half minutes the last time.
AXE_VERSION = "4.12.1"  # what axe-playwright-python 0.1.8 bundles

PHONE = {"width": 390, "height": 844}
WIDTHS = {"desktop": VIEWPORT, "phone": PHONE}
# The site as it loads, and the site without the script that fits code blocks' Tab stops to the
# window (docs/_static/a11y.js): the build's HTML alone must pass too. The Chinese edition's
# pages are the English pages' markup with other words, so they are checked as they load only.
SCRIPTS = {"with a11y.js": True, "without a11y.js": False}
CHECKED = {
    "with a11y.js": PAGES,
    "without a11y.js": [p for p in PAGES if not p.startswith("zh_CN/")],
}
FAILING_IMPACTS = ("serious", "critical")
# Moderate rules the site broke on every page until the templates in docs/_templates named its
# landmarks and gave the search page a heading: they stay fixed.
KEPT = ("landmark-unique", "page-has-heading-one", "region")
# What a11y.js writes (its ADDED), on each code block, as the page holds it now: where the build's
# HTML alone gives the same, axe would check the very page it checked with the script.
SCRIPT_MARKS = """() => [...document.querySelectorAll("pre")].map((pre) =>
  ["tabindex", "role", "aria-label", "data-a11y-scrolls"].map((a) => pre.getAttribute(a)))"""
# The rules that the marks cannot change (colours, links told apart by colour): axe-core's
# slowest, more than half of a page's run (color-contrast alone 1.5 of 2.9 s on the landing page).
SCRIPT_BLIND = ("color-contrast", "link-in-text-block")

# axe-core's violations once the page has been laid out (a11y.js marks code blocks that scroll
# from a ResizeObserver, which reports before the first frame is drawn).
AXE_RUN = """async (skipped) => {
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const rules = Object.fromEntries(skipped.map((id) => [id, {enabled: false}]));
  const {violations} = await axe.run(document, {resultTypes: ["violations"], rules});
  return {
    version: axe.version,
    violations: violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(" ")),
    })),
  };
}"""

# Where the banner's text lies outside what the banner shows (a cut line, a box that scrolls).
BANNER_JS = """() => {
  const banner = document.querySelector(".announcement");
  const box = banner.getBoundingClientRect();
  const left = Math.max(box.left, 0), right = Math.min(box.right, window.innerWidth);
  const text = document.createRange();
  text.selectNodeContents(banner);
  const hidden = Array.from(text.getClientRects()).filter(
    (r) => r.width > 0 && (r.left < left - 0.5 || r.right > right + 0.5
                           || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5),
  );
  return {
    text: banner.innerText.trim(),
    hidden: hidden.map((r) => `${Math.round(r.left)}..${Math.round(r.right)} px`),
    scrolls: banner.scrollWidth > banner.clientWidth || banner.scrollHeight > banner.clientHeight,
  };
}"""

# The element that has the focus: inside the banner, inside the article, and how it starts.
FOCUS_JS = """() => {
  const el = document.activeElement;
  return {
    banner: el.closest(".announcement") !== null,
    main: el.closest("#furo-main-content") !== null,
    html: el.outerHTML.slice(0, 100),
  };
}"""
MAX_TABS = 60


def new_context(browser, base_url: str, width: str, a11y_js: bool = True):
    """A context at ``width`` ("desktop" or "phone", which is a touch screen) that stays offline.

    With ``a11y_js=False`` the pages load without ``a11y.js``.
    """
    phone = width == "phone"
    ctx = browser.new_context(
        viewport=WIDTHS[width], base_url=base_url, is_mobile=phone, has_touch=phone
    )
    block_external(ctx, base_url)
    if not a11y_js:
        ctx.route("**/_static/a11y.js*", lambda route: route.abort())
    return ctx


@pytest.fixture(scope="session")
def axe_script() -> Path:
    """axe-core's ``axe.min.js``: ``JAXPURITY_AXE``, else the one axe-playwright-python carries."""
    if os.environ.get("JAXPURITY_AXE"):
        script = Path(os.environ["JAXPURITY_AXE"])
        if not script.is_file():
            pytest.fail(f"JAXPURITY_AXE={script} is no file", pytrace=False)
    else:
        try:
            import axe_playwright_python
        except ImportError:
            pytest.fail(
                f"axe-core {AXE_VERSION} comes from PyPI's axe-playwright-python: run "
                "`tox -e e2e`, or `pip install axe-playwright-python==0.1.8`, or set "
                "JAXPURITY_AXE to an axe.min.js",
                pytrace=False,
            )
        script = Path(axe_playwright_python.__file__).with_name("axe.min.js")
    header = re.match(r"/\*! axe v(\S+)", script.read_text(encoding="utf-8")[:100])
    installed = header.group(1) if header else "no axe-core"
    assert installed == AXE_VERSION, f"{script} is axe-core {installed}, not {AXE_VERSION}"
    return script


def _laid_out(tab) -> None:
    """Wait until the page has been laid out (a11y.js's ResizeObserver has reported)."""
    tab.evaluate("() => new Promise((d) => requestAnimationFrame(() => requestAnimationFrame(d)))")


@pytest.fixture(scope="session")
def axe_results(
    browser, base_url: str, axe_script: Path, summary: list[str]
) -> dict[tuple[str, str, str], list[dict]]:
    """axe-core's violations on every page: (width, scripts, page) -> violations."""
    results = {}
    marks = {}  # (width, page) -> what a11y.js left on the code blocks
    for scripts, a11y_js in SCRIPTS.items():
        for width in WIDTHS:
            ctx = new_context(browser, base_url, width, a11y_js)
            tab = ctx.new_page()
            rerun = 0
            for path in CHECKED[scripts]:
                tab.goto(path, wait_until="load")
                if not a11y_js:
                    _laid_out(tab)
                    if tab.evaluate(SCRIPT_MARKS) == marks[width, path]:
                        results[width, scripts, path] = results[width, "with a11y.js", path]
                        continue
                    rerun += 1
                tab.add_script_tag(path=str(axe_script))
                run = tab.evaluate(AXE_RUN, [] if a11y_js else list(SCRIPT_BLIND))
                results[width, scripts, path] = run["violations"]
                if a11y_js:
                    marks[width, path] = tab.evaluate(SCRIPT_MARKS)
            ctx.close()
            by_rule = collections.Counter()
            for path in CHECKED[scripts]:
                for v in results[width, scripts, path]:
                    by_rule[f"{v['id']} ({v['impact']})"] += len(v["nodes"])
            counts = ", ".join(f"{rule} {n}" for rule, n in sorted(by_rule.items())) or "none"
            checked = (
                ""
                if a11y_js
                else f" (run again on the {rerun} pages where the script changed the code "
                "blocks, without the colour rules)"
            )
            summary.append(
                f"axe-core {AXE_VERSION}, {len(CHECKED[scripts])} pages at "
                f"{WIDTHS[width]['width']} px "
                f"{scripts}{checked}: {sum(by_rule.values())} violations ({counts})"
            )
    return results


@pytest.fixture
def phone_page(browser, base_url: str):
    ctx = new_context(browser, base_url, "phone")
    yield ctx.new_page()
    ctx.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize(
    ("path", "scripts"), [(path, scripts) for scripts in SCRIPTS for path in CHECKED[scripts]]
)
def test_page_has_no_serious_accessibility_violation(
    axe_results, path: str, width: str, scripts: str
):
    found = [
        f"{v['id']} ({v['impact']}): {v['help']}: " + "; ".join(v["nodes"][:5])
        for v in axe_results[width, scripts, path]
        if v["impact"] in FAILING_IMPACTS or v["id"] in KEPT
    ]
    where = f"{path} at {WIDTHS[width]['width']} px {scripts}"
    assert not found, f"{where}:\n" + "\n".join(found)


def test_banner_shows_its_whole_message_on_a_phone(phone_page):
    phone_page.goto("index.html")
    banner = phone_page.evaluate(BANNER_JS)
    version = r"\d+(?:\.\d+)+"  # 0.10.2, and 0.12.0.1 with its post-release number
    assert re.search(rf"JAX {version} \(jaxlib {version}", banner["text"]), banner["text"]
    assert not banner["hidden"], f"banner text outside the banner at 390 px: {banner}"
    assert not banner["scrolls"], f"the banner scrolls at 390 px: {banner}"


def test_tab_never_stops_on_the_banner(phone_page):
    phone_page.goto("index.html")
    stops = []
    while len(stops) < MAX_TABS and not (stops and stops[-1]["main"]):
        phone_page.keyboard.press("Tab")
        stops.append(phone_page.evaluate(FOCUS_JS))
    assert stops[-1]["main"], f"{MAX_TABS} presses of Tab never reached the article: {stops}"
    on_banner = [i + 1 for i, stop in enumerate(stops) if stop["banner"]]
    assert not on_banner, f"Tab stops on the banner (press {on_banner}): {stops}"
