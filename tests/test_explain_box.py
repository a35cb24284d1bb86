"""The paste box's data: it answers as explain does, in explain's words and punctuation."""

from __future__ import annotations

import pytest
from explain_box import knowledge

from jaxpurity._languages import translate
from jaxpurity.explainer._explain import not_recognised


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_the_box_says_not_recognised_in_explains_own_sentence(lang):
    said = knowledge(lang)["not_recognised"]
    box = said["named"].replace("{error}", "ValueError")  # as explain_box.js fills it in

    assert box.startswith(not_recognised("ValueError", lang))
    assert said["unnamed"].startswith(not_recognised("", lang))


def test_the_chinese_box_writes_full_width_brackets_and_colons_and_no_english_joins():
    data = knowledge("zh_CN")
    named = data["not_recognised"]["named"].replace("{error}", "ValueError")

    assert "没有这个错误（ValueError）的条目" in named
    # No space between; {index} is where explain_box.js puts its link to the error index.
    assert named.endswith("。{index}列出了本站展示的每一种错误，以及讲解它的页面。")
    assert data["index_text"] == "错误索引"
    assert data["colon"] == "："
    assert data["labels"]["Error"] + data["colon"] == "错误："
    assert data["labels"] == {label: translate(label, "zh_CN") for label in data["labels"]}
    assert not [text for text in data["text"].values() if " and " in text]


def test_the_english_box_writes_a_space_after_its_colon_and_between_sentences():
    data = knowledge("en")
    named = data["not_recognised"]["named"].replace("{error}", "ValueError")

    assert "no entry for this error (ValueError), so" in named
    assert "caused it. The {index} lists every error" in named
    assert data["index_text"] == "error index"
    assert data["labels"]["Error"] + data["colon"] == "Error: "


def test_the_box_names_pages_by_the_titles_it_is_given():
    titles = {"examples/compiled_code/retracing_storms.html": "It compiles again"}
    data = knowledge("en", titles)
    assert data["titles"] == titles
    assert data["error_index"] == "errors.html"
    assert knowledge("en")["titles"] == {}  # without a build: the script names pages by path
