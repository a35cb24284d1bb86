"""Tests for tests/lane.py, the backend lane, run here on the CPU as CI's smoke test of it.

The team runs the lane by hand on an accelerator; these run each of its steps for real,
on a page and on a small suite, in processes of their own, as the lane's user does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LANE = ROOT / "tests" / "lane.py"


def _lane(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    return subprocess.run(
        [sys.executable, str(LANE), *args], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_the_lane_runs_pages_and_tests_and_records_what_passed(tmp_path):
    out = tmp_path / "out"
    pages = _lane("pages", str(out), "--only", "global_config")
    assert pages.returncode == 0, pages.stdout + pages.stderr
    suite = tmp_path / "test_small.py"
    suite.write_text(
        textwrap.dedent(
            """
            import pytest

            def test_passes():
                pass

            def test_fails():
                assert False

            def test_skips():
                pytest.skip("a reason")

            @pytest.mark.slow
            def test_slow():
                pass
            """
        )
    )
    fast = _lane("tests", str(out), "--part", "fast", "--", str(suite), "-p", "no:cacheprovider")
    assert fast.returncode == 1, fast.stdout + fast.stderr  # test_fails failed
    record = tmp_path / "record.json"
    table = _lane("table", str(out), "--record", str(record))
    assert table.returncode == 0, table.stderr
    run = json.loads(record.read_text())
    assert run["backend"] == "cpu" and run["pages"] == {
        "ran": 1,
        "passed": 1,
        "failed": [],
        "skipped": {},
    }
    assert {k: run["tests"][k] for k in ("passed", "failed", "skipped")} == {
        "passed": 1,
        "failed": 1,
        "skipped": 1,
    }  # the slow test is the other part's
    # JUnit names the test by its file's path from pytest's root folder, which depends on
    # where the checkout and the temporary folder lie.
    [failure] = run["tests"]["failures"]
    assert failure.endswith("test_small::test_fails"), failure
    assert "| cpu |" in table.stdout and f"failed: {failure}" in table.stdout


def test_a_failing_page_is_its_rows_result_and_the_run_goes_on(tmp_path, monkeypatch):
    sys.path.insert(0, str(LANE.parent))
    import lane

    broken = tmp_path / "gallery" / "section"
    broken.mkdir(parents=True)
    (broken / "bad.py").write_text("print('before')\nraise ValueError('the page broke')\n")
    monkeypatch.setattr(lane, "ROOT", tmp_path)
    result = lane._run_page("section/bad", lambda *args: None)
    assert result["status"] == "failed" and "ValueError: the page broke" in result["error"]
    assert result["output"] == "before\n"


def test_a_page_whose_needs_are_missing_is_skipped_with_the_reason(tmp_path, monkeypatch):
    sys.path.insert(0, str(LANE.parent))
    import lane

    reason = "needs flax, which is not installed"
    monkeypatch.setattr(lane, "missing", lambda topic: reason if topic == "global_config" else None)
    [result] = lane.run_pages(tmp_path, only=["global_config"])
    assert result == {"page": "state_and_leaks/global_config", "status": "skipped", "why": reason,
                      "seconds": 0.0}  # fmt: skip
    record = lane.summary(tmp_path)["pages"]
    assert record == {"ran": 0, "passed": 0, "failed": [], "skipped": {result["page"]: reason}}


def test_the_where_this_was_run_table_puts_the_cpu_first_then_backend_and_jax():
    import ran_on  # docs/sphinxext, which conftest puts on the path

    run = {"device": "d", "python": "3.12", "date": "2026-12-06", "commit": "abc"}
    records = [
        run | {"backend": "tpu", "jax": "0.10.2"},
        run | {"backend": "cpu", "jax": "0.12.0.1"},
        run | {"backend": "cpu", "jax": "0.6.2"},
    ]
    assert [(row[0], row[2]) for row in ran_on.rows(records)] == [
        ("cpu", "0.6.2"),
        ("cpu", "0.12.0.1"),
        ("tpu", "0.10.2"),
    ]
    assert ran_on.rows(records)[0][4:7] == ["-", "-", "-"]  # a run without pages or tests
