"""explain in Chinese: every text translated, the code in it kept, the Chinese pages linked.

The package's Chinese is a gettext catalog, ``jaxpurity/locale/zh_CN/LC_MESSAGES/``:
the ``.po`` that translators edit and the ``.mo`` compiled from it, which
``explain`` reads. ``tox -e catalogs`` updates both (``locale/package_catalog.py``).
"""

from __future__ import annotations

import ast
import io
import re
import sys
from pathlib import Path

import jax
import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

import jaxpurity
import jaxpurity.__main__ as cli
from jaxpurity._languages import from_locale, language
from jaxpurity._pages import url
from jaxpurity.explainer.known_errors import KNOWN_ERRORS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "locale"))
import package_catalog  # noqa: E402

CATALOG = ROOT / "jaxpurity" / "locale" / "zh_CN" / "LC_MESSAGES" / "jaxpurity.po"
COMPILED = CATALOG.with_suffix(".mo")
with CATALOG.open("rb") as _file:
    PO = read_po(_file)
#: What explain says in Chinese, by its English: the catalog's translated messages.
MESSAGES = {m.id: m.string for m in PO if m.id and m.string and not m.fuzzy}

KNOWN_TEXTS = {text for k in KNOWN_ERRORS for text in (k.scenario, k.cause, k.fix)}
EXPLAIN_SOURCE = Path(jaxpurity.__file__).parent.joinpath("explainer", "_explain.py").read_text()
CHINESE = re.compile(r"[\u4e00-\u9fff]")
BACKTICKED = re.compile(r"`[^`]+`")


def _relu_error() -> BaseException:
    @jax.jit
    def relu(x):
        return x if x > 0 else 0.0

    try:
        relu(1.0)
    except Exception as err:
        return err
    raise AssertionError("relu did not raise")


def test_every_text_of_explain_has_its_chinese_and_every_chinese_a_text():
    strings = {
        node.value
        for node in ast.walk(ast.parse(EXPLAIN_SOURCE))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    assert KNOWN_TEXTS <= set(MESSAGES), sorted(KNOWN_TEXTS - set(MESSAGES))[:1]
    stale = set(MESSAGES) - KNOWN_TEXTS - strings
    assert not stale, f"translations of texts jaxpurity no longer says: {sorted(stale)[:1]}"
    untranslated = [en for en, zh in MESSAGES.items() if not CHINESE.search(zh)]
    assert not untranslated, untranslated[:1]


def test_the_catalog_holds_the_messages_of_the_table_and_labels_and_nothing_else():
    said = {message.text for message in package_catalog.messages()}
    held = {m.id for m in PO if m.id}
    assert said <= held, f"not in the catalog (tox -e catalogs): {sorted(said - held)[:1]}"
    assert held <= said, f"in the catalog, no longer said: {sorted(held - said)[:1]}"
    assert not PO.obsolete, f"obsolete messages left in the catalog: {list(PO.obsolete)[:1]}"


def test_no_message_of_the_catalog_is_fuzzy_or_untranslated():
    fuzzy = [m.id for m in PO if m.id and m.fuzzy]
    untranslated = [m.id for m in PO if m.id and not m.string]
    assert not fuzzy, f"{len(fuzzy)} fuzzy, first: {fuzzy[0]!r}"
    assert not untranslated, f"{len(untranslated)} untranslated, first: {untranslated[0]!r}"


def test_the_compiled_catalog_holds_what_the_po_says():
    with COMPILED.open("rb") as file:
        compiled = {m.id: m.string for m in read_mo(file) if m.id}
    assert compiled == MESSAGES, (
        f"{COMPILED.name} is out of date with {CATALOG.name}: run tox -e catalogs "
        f"(or python locale/package_catalog.py compile); "
        f"differs in {sorted(set(compiled.items()) ^ set(MESSAGES.items()))[:1]}"
    )


def test_the_extraction_reads_the_labels_in_f_strings_and_across_lines():
    labels = {m.text for m in package_catalog.messages() if m.source.endswith("_explain.py")}
    # Each in an f-string: f"{_('Error')}{said}{self.error}".
    assert {"Error", "Scenario", "Cause", "Fix", "See", "See also", "Read more"} <= labels
    # Two literals, one message.
    assert (
        "jaxpurity.explain has no entry for this error{error}, so it cannot say what caused it."
        in labels
    )


def test_the_chinese_keeps_the_code_of_the_english():
    changed = {
        en: (BACKTICKED.findall(en), BACKTICKED.findall(zh))
        for en, zh in MESSAGES.items()
        if sorted(BACKTICKED.findall(en)) != sorted(BACKTICKED.findall(zh))
    }
    assert not changed, next(iter(changed.items()))


def test_explain_answers_in_chinese_and_links_the_chinese_page():
    err = _relu_error()
    english = jaxpurity.explain(err)
    chinese = jaxpurity.explain(err, lang="zh_CN")

    assert (chinese.error, chinese.topic, chinese.page) == (
        english.error,
        english.topic,
        english.page,
    )
    assert chinese.scenario == MESSAGES[english.scenario]
    assert chinese.fix == MESSAGES[english.fix]
    assert chinese.url == english.url.replace("/examples/", "/zh_CN/examples/")
    assert chinese.language == "zh_CN"
    text = str(chinese)
    assert text.splitlines()[0] == "错误：TracerBoolConversionError"
    also = [f"另见：{url(topic, 'zh_CN')}" for topic in chinese.see_also]
    assert text.splitlines()[-1 - len(also) :] == [f"详见：{chinese.url}", *also]
    for label in ("\n场景：", "\n原因：", "\n修复："):
        assert label in text
    assert chinese.note == f"jaxpurity: {chinese.scenario} 详见 {chinese.url}"


def test_explain_says_in_chinese_that_it_does_not_know_an_error():
    text = str(jaxpurity.explain("RuntimeError: out of memory", lang="zh-CN"))

    assert text.startswith("错误：RuntimeError\n未能识别：")
    assert "UnexpectedTracerError" in text


@pytest.mark.parametrize(
    ("lang", "error", "match"),
    [
        ("fr", ValueError, r"lang='fr': jaxpurity answers in English \('en'\) and Simplified"),
        ("zh_TW", ValueError, r"'zh_CN'\) only"),
        (None, TypeError, r"lang must be a str such as 'en' or 'zh_CN', not NoneType"),
    ],
)
def test_explain_rejects_a_language_it_does_not_speak(lang, error, match):
    with pytest.raises(error, match=match):
        jaxpurity.explain("TypeError: x", lang=lang)


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh_CN"),
        ({"LANG": "en_US.UTF-8", "LC_ALL": "zh_CN.UTF-8"}, "zh_CN"),
        ({"LANGUAGE": "zh_CN:en", "LANG": "en_US.UTF-8"}, "zh_CN"),
        ({"LANGUAGE": "en:zh_CN", "LANG": "zh_CN.UTF-8"}, "en"),
        ({"LC_MESSAGES": "zh_SG.GB2312"}, "zh_CN"),
        ({"LANG": "zh_TW.UTF-8"}, "en"),  # Traditional Chinese: no edition yet
        ({"LANG": "C"}, "en"),
        ({}, "en"),
    ],
)
def test_the_locale_chooses_the_language(environ, expected):
    assert from_locale(environ) == expected


@pytest.mark.parametrize("spelling", ["zh_CN", "zh-CN", "zh", "ZH_cn", "zh-Hans", " zh_CN "])
def test_chinese_is_known_by_its_usual_spellings(spelling):
    assert language(spelling) == "zh_CN"


def _run_cli(argv, env, monkeypatch, capsys):
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.setenv(variable, env.get(variable, ""))
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    try:
        status = cli.main(argv)
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    return status, capsys.readouterr()


def test_cli_answers_in_the_language_asked_for_or_the_locales(monkeypatch, capsys):
    text = "".join(__import__("traceback").format_exception(_relu_error()))
    asked = _run_cli(["explain", "--lang", "zh_CN", text], {"LANG": "C.UTF-8"}, monkeypatch, capsys)
    by_locale = _run_cli(["explain", text], {"LANG": "zh_CN.UTF-8"}, monkeypatch, capsys)
    english = _run_cli(
        ["explain", "--lang", "en", text], {"LANG": "zh_CN.UTF-8"}, monkeypatch, capsys
    )

    chinese = str(jaxpurity.explain(text, lang="zh_CN")) + "\n"
    assert asked == (0, (chinese, ""))
    assert by_locale == (0, (chinese, ""))
    assert english == (0, (str(jaxpurity.explain(text)) + "\n", ""))


def test_cli_rejects_a_language_it_does_not_speak(monkeypatch, capsys):
    status, output = _run_cli(["explain", "--lang", "fr", "TypeError: x"], {}, monkeypatch, capsys)

    assert status == 2
    assert "argument --lang: lang='fr': jaxpurity answers in English" in output.err
