"""The Chinese edition (``build/html/zh_CN``) against the English one: ``tox -e e2e``.

Every page exists in both, the language switcher leads each page to its other
edition and back, the outputs are the same, the prose is Chinese, and a search
for Chinese words finds the pages. The pages of both editions are also loaded,
crawled and checked with axe-core by ``test_site.py`` and
``test_accessibility.py``, which take every page of ``build/html``.
"""

# The page fixture comes from test_site, and ruff sees each test's argument as redefining it.
# ruff: noqa: F811
from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

if os.environ.get("JAXPURITY_E2E") != "1":
    pytest.skip(
        "browser tests of the built site run with `tox -e e2e` (JAXPURITY_E2E=1)",
        allow_module_level=True,
    )

from _site import SITE
from bs4 import BeautifulSoup
from test_search import search
from test_site import context, page  # noqa: F401

import jaxpurity
from jaxpurity.explainer._explain import not_recognised

ZH = SITE / "zh_CN"
ENGLISH = sorted(
    p.relative_to(SITE).as_posix() for p in SITE.rglob("*.html") if ZH not in p.parents
)
EXAMPLES = [p for p in ENGLISH if re.fullmatch(r"examples/[^/]+/(?!index\.html)[^/]+\.html", p)]
# Where a page's text is not prose to translate: code, captured outputs (and the plots the
# examples drew), the API's docstrings (kept in English, api.rst says so), and the permalink
# marks.
NOT_PROSE = (
    "pre, code, .highlight, .sphx-glr-script-out, .sphx-glr-single-img, .sphx-glr-multi-img, "
    "dl.py, .docstring, .sig, .headerlink, script, style"
)
# The index of terms lists names and the first words of error messages, not prose.
PROSE_PAGES = [p for p in ENGLISH if p != "genindex.html"]
# Four English words in a row, outside code: prose left untranslated. Names and terms the
# glossary keeps in English come one or two at a time; JAX's own words, quoted, stay English.
ENGLISH_RUN = re.compile(r"\b[A-Za-z][a-z']+(?:[ \u00a0]+[A-Za-z][a-z']+){3,}\b")
QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"")
# Chinese searches, and a page each must list among its first results.
SEARCHES = [
    ("泄漏", "examples/state_and_leaks/"),
    ("全局变量", "examples/state_and_leaks/"),
    ("随机数", "examples/side_effects/frozen_randomness.html"),
    ("梯度", "examples/gradients/"),
    ("梯度是 nan", "examples/gradients/nan_gradients.html"),
    ("缓冲区捐赠", "examples/compiled_code/buffer_donation.html"),
]
FIRST_RESULTS = 3


def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _switcher(soup: BeautifulSoup) -> str:
    links = soup.select("nav.sidebar-languages a[hreflang]")
    assert len(links) == 1, f"{len(links)} language links"
    return links[0]["href"]


def _outputs(soup: BeautifulSoup) -> list[str]:
    """The text of every code block and captured output, in order."""
    return [pre.get_text() for pre in soup.select("article pre")]


def test_every_page_exists_in_both_editions():
    chinese = sorted(p.relative_to(ZH).as_posix() for p in ZH.rglob("*.html"))
    assert len(ENGLISH) > 30
    assert chinese == ENGLISH


@pytest.mark.parametrize("path", ENGLISH)
def test_the_switcher_leads_to_the_same_page_in_the_other_edition_and_back(path):
    english, chinese = SITE / path, ZH / path
    to_chinese = urljoin(english.as_uri(), _switcher(_soup(english)))
    back = urljoin(chinese.as_uri(), _switcher(_soup(chinese)))

    assert urlsplit(to_chinese).path == chinese.as_uri().removeprefix("file://")
    assert urlsplit(back).path == english.as_uri().removeprefix("file://")


@pytest.mark.parametrize("path", EXAMPLES)
def test_each_chinese_page_shows_the_outputs_of_its_english_page(path):
    english, chinese = _outputs(_soup(SITE / path)), _outputs(_soup(ZH / path))

    assert english, f"{path} shows no code or output"
    assert chinese == english


# A space the reader sees between inline markup and a full-width bracket: "<code>f</code> （"
# or "） <code>f</code>" (tests/test_catalogs.py checks the catalogs' reST; this, what the
# build made of it). Main's build before the catalogs were mended had 42.
SPACED_BRACKET = re.compile(
    r"</(?:code|em|strong|a|span)>[ \u00a0]+[（【「]|[）】」][ \u00a0]+<(?:code|em|a)\b"
)


@pytest.mark.parametrize("path", PROSE_PAGES)
def test_no_space_shows_between_markup_and_a_full_width_bracket(path):
    article = str(_soup(ZH / path).select_one("article"))
    spaced = [m.group(0) for m in SPACED_BRACKET.finditer(article)]
    assert not spaced, f"{len(spaced)} spaces before or after a full-width bracket: {spaced[:3]}"


@pytest.mark.parametrize("path", PROSE_PAGES)
def test_chinese_pages_have_no_english_prose(path):
    soup = _soup(ZH / path)
    article = soup.select_one("article")
    assert article is not None
    for element in article.select(NOT_PROSE):
        element.decompose()
    # A thumbnail's tooltip is its page's first paragraph, code and all: it must be Chinese.
    cards = article.select(".sphx-glr-thumbcontainer")
    alts = [image.get("alt", "") for card in cards for image in card.select("img")]
    tooltips = [card["tooltip"] for card in cards]
    text = QUOTED.sub(" ", " ".join(" ".join([article.get_text(" "), *alts]).split()))
    english = ENGLISH_RUN.findall(text)

    assert soup.html["lang"] == "zh-CN"
    assert re.search(r"[\u4e00-\u9fff]", text), "no Chinese on the page"
    assert not english, f"{len(english)} runs of English, first: {english[0]!r}"
    assert all(re.search(r"[\u4e00-\u9fff]", tip) for tip in tooltips), tooltips


def test_the_switcher_works_in_the_browser(page, base_url):
    page.goto(base_url + "examples/state_and_leaks/global_counter.html")
    page.click("nav.sidebar-languages a")
    assert page.url == base_url + "zh_CN/examples/state_and_leaks/global_counter.html"
    assert page.locator("html").get_attribute("lang") == "zh-CN"
    page.click("nav.sidebar-languages a")
    assert page.url == base_url + "examples/state_and_leaks/global_counter.html"


@pytest.mark.parametrize(("query", "expected"), SEARCHES)
def test_chinese_search_finds_the_page(page, base_url, query, expected):
    # search waits for the whole list: the first link can come before a better-ranked one.
    found = search(page, base_url, query, edition="zh_CN/")
    first = [path.removeprefix("zh_CN/") for path in found[:FIRST_RESULTS]]

    assert any(path.startswith(expected) for path in first), first


@pytest.mark.parametrize("path", ["index.html", "errors.html"])
def test_the_chinese_paste_box_answers_in_chinese_and_links_the_chinese_page(page, base_url, path):
    text = "jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array"
    expected = jaxpurity.explain(text, lang="zh_CN")
    page.goto(f"{base_url}zh_CN/{path}")
    box = page.locator(".explain-box").first
    assert box.locator("button").inner_text() == "解释这个错误"
    box.locator("textarea").fill(text)
    box.locator("button").click()
    result = box.locator(".explain-box-result")
    href = result.locator("a.explain-box-link").get_attribute("href")

    assert "场景：" in result.inner_text()
    # The knowledge marks code with backticks; the box shows it as code, without them.
    assert expected.scenario.replace("`", "") in result.inner_text()
    assert "`" not in result.inner_text()
    assert urlsplit(urljoin(page.url, href)).path == f"/zh_CN/{expected.page}"
    # The link is named by the Chinese page's title.
    title = result.locator("a.explain-box-link").inner_text()
    assert re.search(r"[\u4e00-\u9fff]", title) and not title.endswith(".html"), title

    box.locator("textarea").fill("RuntimeError: RESOURCE_EXHAUSTED: Out of memory")
    box.locator("button").click()
    # explain's own sentence, its punctuation full width: one template for both.
    unknown = not_recognised("RuntimeError", "zh_CN")
    assert result.inner_text().startswith(f"未能识别：{unknown}错误索引")
    assert "（RuntimeError）" in unknown
    # ... and "错误索引" links the error index.
    result.locator("a.explain-box-index").click()
    page.wait_for_load_state("load")
    assert urlsplit(page.url).path == "/zh_CN/errors.html"
