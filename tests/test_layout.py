"""How text is laid out in each language: colons, brackets, lists, and wrapping by columns."""

from __future__ import annotations

import pytest

from jaxpurity._layout import bracketed, colon, join, width, wrap


def test_chinese_labels_and_brackets_are_full_width_and_english_ones_are_not():
    assert "错误" + colon("zh_CN") + "TypeError" == "错误：TypeError"
    assert "Error" + colon("en") + "TypeError" == "Error: TypeError"
    assert "错误" + bracketed("ValueError", "zh_CN") + "的条目" == "错误（ValueError）的条目"
    assert "this error" + bracketed("ValueError", "en") == "this error (ValueError)"


@pytest.mark.parametrize(
    ("items", "english", "chinese"),
    [
        ([], "", ""),
        (["A"], "A", "A"),
        (["A", "B"], "A and B", "A 以及 B"),
        (["A", "B", "C"], "A, B and C", "A、B 以及 C"),
    ],
)
def test_a_list_is_joined_as_each_language_writes_it(items, english, chinese):
    assert join(items, "en") == english
    assert join(items, "zh_CN") == chinese


def test_a_chinese_character_takes_two_columns():
    assert width("tracer") == 6
    assert width("泄漏的 tracer") == 6 + 1 + 6
    assert width("（：）") == 6


def test_a_line_breaks_between_chinese_characters_and_never_inside_an_identifier():
    text = "原因：" + "很长的说明" * 4 + "，请把它标记为静态（static_argnames=...），再运行 self.x"
    lines = wrap(text, 40).splitlines()

    assert all(width(line) <= 40 for line in lines), lines
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # nothing lost
    for words in ("static_argnames=...", "self.x"):
        assert any(words in line for line in lines), lines


def test_no_line_starts_with_a_closing_mark_or_ends_with_an_opening_one():
    # At 11 columns "（" would end the first line and "，" start the second.
    assert wrap("一二三四五（六）", 11).splitlines() == ["一二三四五", "  （六）"]
    assert wrap("一二三四五，六", 10).splitlines() == ["一二三四", "  五，六"]


def test_a_piece_longer_than_a_line_gets_a_line_of_its_own_whole():
    url = (
        "https://jaxpurity.readthedocs.io/en/latest/zh_CN/examples/control_flow/boolean_masks.html"
    )
    assert wrap(f"详见 {url} 这一页", 30).splitlines() == ["详见", f"  {url}", "  这一页"]


def test_english_breaks_at_spaces_only():
    text = "Mark it static with static_argnames=('n',) or pass it as jax-friendly data."
    lines = wrap(text, 30).splitlines()
    assert " ".join(line.strip() for line in lines) == text
    assert all(width(line) <= 30 for line in lines), lines
