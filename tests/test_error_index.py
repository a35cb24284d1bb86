"""Tests for docs/sphinxext/error_index.py: entries from captured errors, checked by explain."""

import json
import os
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from error_index import (
    JAX_GROUP,
    JAXPURITY_GROUP,
    PLACEHOLDERS,
    error_index,
    headline,
    index_path,
    log_caught_errors,
    normalise,
    oldest_record,
    pair_versions,
    rst,
)
from sphinx.errors import ExtensionError

import jaxpurity
from jaxpurity._capture import CAUGHT_LOG_ENV, read_caught

NEWEST = jax.__version__
OLD = "0.1.0"  # a label for the oldest record: any version but the installed one
RECORD = Path(__file__).resolve().parents[1] / "docs" / "captured" / "jax-0.4.35"


def _caught(page, type_, message):
    return {"type": type_, "message": message, "page": page}


BOOL = "Attempted boolean conversion of traced array with shape bool[].\nmore text"
FLOW = "control_flow/python_control_flow"


@pytest.mark.parametrize(
    "one, other",
    [
        ("traced array with shape float32[]", "traced array with shape float32[128,10]"),
        ("with type int32[3] wrapped", "with type float32[4] wrapped"),
        ("function <lambda> at a.py:273 traced", "function step at b.py:9 traced"),
        (
            "`decayed` was traced 2 times, more than 1",
            "`pure_step` was traced 5 times, more than 3",
        ),
    ],
)
def test_shapes_dtypes_numbers_and_function_names_normalise_alike(one, other):
    assert normalise(one) == normalise(other)
    assert normalise(one) != one


def test_every_placeholder_replaces_its_own_example():
    for placeholder in PLACEHOLDERS:
        assert placeholder.shown in normalise(placeholder.example), placeholder.example


def test_a_concretization_error_keeps_the_line_saying_what_needed_a_value():
    message = "Abstract tracer value ... int32[]\nThe axis argument must be known statically.\n"
    assert headline("ConcretizationTypeError", message)[1] == (
        "The axis argument must be known statically."
    )
    where = "Abstract tracer value\nThe error occurred while tracing the function f"
    assert len(headline("ConcretizationTypeError", where)) == 1


def test_one_entry_per_kind_of_message_whatever_its_shape():
    index = error_index(
        [
            _caught(FLOW, "TracerBoolConversionError", BOOL),
            _caught(FLOW, "TracerBoolConversionError", BOOL.replace("bool[]", "bool[3]")),
            _caught("control_flow/static_arguments", "TracerBoolConversionError", BOOL),
            _caught("tools/debugging_workflow", "ValueError", "not a JAX error"),
        ]
    )
    (entry,) = index[JAX_GROUP]["TracerBoolConversionError"]
    assert entry.shown_on == ["python_control_flow", "static_arguments"]
    assert [e.topic for e in entry.explained_on] == ["python_control_flow"]
    assert index[JAX_GROUP]["ValueError"][0].explained_on == []
    text = rst(index)
    assert "**Explained on:** :doc:`/examples/control_flow/python_control_flow`" in text
    assert "does not know it" in text
    assert "**JAX " not in text  # one JAX: no version marks


def test_jaxpurity_errors_are_kept_apart_from_jax_errors():
    index = error_index(
        [
            _caught(FLOW, "TracerBoolConversionError", BOOL),
            _caught("control_flow/static_arguments", "RetraceError", "`f` was traced 2 times"),
            _caught("control_flow/cond_branch_types", "TypeError", "jaxpurity.cond: pred is x"),
        ]
    )
    assert set(index[JAX_GROUP]) == {"TracerBoolConversionError"}
    assert set(index[JAXPURITY_GROUP]) == {"RetraceError", "TypeError"}
    assert "Raised as ``jaxpurity.RetraceError``" in rst(index)


def test_explain_naming_a_page_that_does_not_show_the_error_fails_the_build():
    wrong = _caught("tools/debugging_workflow", "TracerBoolConversionError", BOOL)
    with pytest.raises(ExtensionError, match="that page does not show this message"):
        error_index([wrong])


def test_explain_sending_the_explaining_pages_own_error_elsewhere_fails_the_build():
    # Two real leaks worded alike, each logged as if the other page had caught it: each
    # page shows the message, but explain sends neither page its own error.
    record = read_caught(RECORD)
    counter, loop = (
        next(e for e in record if e["page"] == f"state_and_leaks/{topic}")
        for topic in ("global_counter", "leak_from_loop_body")
    )
    swapped = [{**counter, "page": loop["page"]}, {**loop, "page": counter["page"]}]
    with pytest.raises(ExtensionError, match="sends that page's own error of this kind elsewhere"):
        error_index(swapped)


KEY = "In jit, argument 0 is already consumed."
CARRY = "scan body function carry input and carry output must have equal types, but they differ:"
OLD_CARRY = CARRY.replace("types,", "types (e.g. shapes and dtypes of arrays),")
PAIR = "scan body output must be a pair, got float32[3]."
GRAD = "Reverse-mode differentiation does not work for lax.while_loop with dynamic start/stop"


def test_each_error_pairs_with_the_same_mistakes_error_on_the_other_jax():
    loop = "control_flow/loop_carry_types"
    newest = [_caught(loop, "TypeError", CARRY), _caught(loop, "TypeError", PAIR)]
    oldest = [
        _caught(loop, "TypeError", GRAD),  # raised on the oldest JAX only
        _caught(loop, "TypeError", OLD_CARRY),
        _caught(loop, "TypeError", PAIR.replace("float32[3]", "ShapedArray(float32[3])")),
    ]
    pairs = pair_versions(newest, oldest)
    assert [(n and n["message"], o and o["message"]) for n, o in pairs] == [
        (None, GRAD),
        (CARRY, OLD_CARRY),
        (PAIR, oldest[2]["message"]),
    ]


def test_the_index_shows_both_wordings_marked_where_they_differ():
    random = "side_effects/frozen_randomness"
    index = error_index(
        [_caught(random, "KeyReuseError", KEY), _caught(FLOW, "TracerBoolConversionError", BOOL)],
        (
            OLD,
            [
                _caught(random, "KeyReuseError", KEY.replace("jit", "pjit")),
                _caught(FLOW, "TracerBoolConversionError", BOOL),
                _caught("gradients/differentiating_loops", "ValueError", GRAD),
            ],
        ),
    )
    (key,) = index[JAX_GROUP]["KeyReuseError"]
    assert key.wordings == {
        NEWEST: [("In jit, argument <n> is already consumed.",)],
        OLD: [("In pjit, argument <n> is already consumed.",)],
    }
    text = rst(index)
    assert f"**JAX {NEWEST}:** :code:`In jit, argument <n> is already consumed.`" in text
    assert f"**JAX {OLD}:** :code:`In pjit, argument <n> is already consumed.`" in text
    # Worded alike on both: shown once, unmarked.
    assert "- | :code:`Attempted boolean conversion of traced array" in text
    assert f"**JAX {NEWEST}:** raises no such error on these pages" in text
    assert f"**Raised on JAX {OLD} by the code of:**" in text


def test_the_oldest_record_is_the_lowest_version_in_docs_captured(tmp_path):
    with pytest.raises(ExtensionError, match="record_gallery.py"):
        oldest_record(tmp_path)
    for version in ("0.10.2", "0.4.35", "0.5.0"):
        (tmp_path / "captured" / f"jax-{version}" / "tools").mkdir(parents=True)
    log = tmp_path / "captured" / "jax-0.4.35" / "tools" / "demo.jsonl"
    log.write_text(json.dumps({"type": "TypeError", "message": "m"}) + "\n")
    assert oldest_record(tmp_path) == (
        "0.4.35",
        [{"type": "TypeError", "message": "m", "page": "tools/demo"}],
    )


def test_each_example_gets_a_log_of_its_own_that_raises_writes_to(tmp_path, capsys):
    conf = {"src_dir": str(tmp_path)}
    log_caught_errors(conf, "python_control_flow.py", "before")
    try:
        with jaxpurity.raises(jax.errors.TracerBoolConversionError):
            jax.jit(lambda x: 1 if x > 0 else 0)(jnp.ones(()))
    finally:
        log_caught_errors(conf, "python_control_flow.py", "after")
    assert CAUGHT_LOG_ENV not in os.environ
    log = tmp_path / "examples" / "_captured" / "control_flow" / "python_control_flow.jsonl"
    (entry,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert entry["type"] == "TracerBoolConversionError"
    assert read_caught(log.parents[1])[0]["page"] == "control_flow/python_control_flow"


def test_the_chinese_edition_writes_the_index_in_chinese_and_keeps_the_messages():
    index = error_index(
        [
            _caught(FLOW, "TracerBoolConversionError", BOOL),
            _caught("tools/debugging_workflow", "ValueError", "not a JAX error"),
        ]
    )
    english, chinese = rst(index), rst(index, "zh_CN")
    code = [line for line in english.splitlines() if "| :code:" in line]

    # The underline is as wide as the title shows: two columns a Chinese character.
    assert "来自 JAX 的错误\n" + "-" * 15 + "\n" in chinese
    assert "**讲解页面：** :doc:`/examples/control_flow/python_control_flow`" in chinese
    assert code
    assert all(line in chinese.splitlines() for line in code)  # JAX's words stay English
    assert "Explained on" not in chinese


def test_each_edition_reads_the_error_index_in_its_own_file(tmp_path):
    # The Chinese build includes its own file in place of the English one, so that a build of
    # one edition leaves the file the other reads as it was.
    assert index_path(tmp_path) == tmp_path / "examples" / "error_index.rst.inc"
    assert index_path(tmp_path, "zh_CN") == tmp_path / "examples" / "error_index.zh_CN.rst.inc"
