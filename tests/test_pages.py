"""Tests for jaxpurity/_pages.py: the table of pages and the gallery's scripts agree."""

from pathlib import Path

import pytest

from jaxpurity._pages import NEEDS, PAGES, SECTIONS, missing, page, script, topic_of

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "gallery").glob("*/*.py"))


def test_every_gallery_script_has_an_entry_in_the_table():
    assert SCRIPTS, "no gallery scripts found"
    listed = {script(topic) for topic in PAGES}
    missing = [s for s in SCRIPTS if s not in listed]
    assert not missing, f"scripts with no entry in jaxpurity._pages.SECTIONS: {missing}"


@pytest.mark.parametrize("topic", sorted(PAGES))
def test_every_page_in_the_table_has_a_gallery_script(topic):
    assert (ROOT / script(topic)).is_file()


#: A page holds one idea, in about ten screens (house style; issue 26 cut 167-491 to this).
MAX_SCRIPT_LINES = 330


@pytest.mark.parametrize("topic", sorted(PAGES))
def test_every_page_script_is_at_most_330_lines(topic):
    lines = len((ROOT / script(topic)).read_text().splitlines())
    assert lines <= MAX_SCRIPT_LINES, (
        f"{script(topic)} has {lines} lines: cut it to {MAX_SCRIPT_LINES} (link another page "
        "rather than repeat its demo)"
    )


def test_every_section_is_a_gallery_folder_and_no_topic_is_in_two():
    folders = sorted(p.name for p in (ROOT / "gallery").iterdir() if p.is_dir())
    assert sorted(s.folder for s in SECTIONS) == folders
    topics = [t for s in SECTIONS for t in s.topics]
    assert len(topics) == len(set(topics)) == len(PAGES)


@pytest.mark.parametrize("topic", sorted(PAGES))
def test_page_script_and_topic_of_agree(topic):
    assert PAGES[topic] == page(topic)
    assert topic_of(page(topic)) == topic_of(script(topic)) == topic
    section, name = page(topic).removeprefix("examples/").removesuffix(".html").split("/")
    assert topic_of(f"{section}/{name}") == topic


def test_page_names_an_unknown_topic():
    with pytest.raises(KeyError, match="no gallery page for topic 'nope'"):
        page("nope")


def test_topic_of_refuses_a_page_in_the_wrong_section():
    with pytest.raises(KeyError, match="'tools/global_counter' is no gallery page"):
        topic_of("tools/global_counter")


def test_what_a_page_needs_is_named_for_pages_of_the_table():
    assert set(NEEDS) <= set(PAGES)
    with pytest.raises(KeyError, match="no gallery page for topic 'nope'"):
        missing("nope")


def test_missing_says_which_need_is_not_installed(monkeypatch):
    monkeypatch.setitem(NEEDS, "global_config", ("jaxpurity", "no_such_module_here"))
    assert missing("global_config") == "needs no_such_module_here, which is not installed"
    monkeypatch.setitem(NEEDS, "global_config", ("jaxpurity.no_such_name",))
    version = __import__("jaxpurity").__version__
    assert missing("global_config") == (
        f"needs jaxpurity.no_such_name, which jaxpurity {version} does not have"
    )
    monkeypatch.setitem(NEEDS, "global_config", ("jaxpurity.explain", "pytest"))
    assert missing("global_config") is None
