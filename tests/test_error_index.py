"""Tests for docs/sphinxext/error_index.py: rows from captured errors, checked against explain."""

import json
import os

import jax
import jax.numpy as jnp
import pytest
from error_index import error_index, log_caught_errors, table
from sphinx.errors import ExtensionError

import jaxpurity
from jaxpurity._capture import CAUGHT_LOG_ENV, read_caught


def _caught(page, type_, message):
    return {"type": type_, "message": message, "page": page}


BOOL = "Attempted boolean conversion of traced array with shape bool[].\nmore text"


def test_rows_group_by_type_and_first_line_and_name_the_explaining_page():
    rows = error_index(
        [
            _caught("control_flow/python_control_flow", "TracerBoolConversionError", BOOL),
            _caught("control_flow/python_control_flow", "TracerBoolConversionError", BOOL),
            _caught("tools/debugging_workflow", "ValueError", "not a JAX error"),
        ]
    )
    assert [(r["type"], r["pages"], r["explained_on"]) for r in rows] == [
        (
            "TracerBoolConversionError",
            ["control_flow/python_control_flow"],
            {"python_control_flow"},
        ),
        ("ValueError", ["tools/debugging_workflow"], set()),
    ]
    text = table(rows)
    assert ":doc:`/examples/control_flow/python_control_flow`" in text
    assert "not recognised by jaxpurity.explain" in text


def test_explain_naming_a_page_that_does_not_show_the_error_fails_the_build():
    wrong = _caught("tools/debugging_workflow", "TracerBoolConversionError", BOOL)
    with pytest.raises(ExtensionError, match="error index and jaxpurity.explain disagree"):
        error_index([wrong])


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
