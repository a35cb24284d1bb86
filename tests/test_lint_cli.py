"""Tests for `jaxpurity lint` on the command line (jaxpurity/__main__.py), the flake8 plugin
(jaxpurity/linter/_flake8.py) and the pre-commit hook (.pre-commit-hooks.yaml)."""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from lint_cases import source

from jaxpurity import __main__ as cli
from jaxpurity.linter._config import tomllib
from jaxpurity.linter._flake8 import Plugin
from jaxpurity.linter._rules import RULES, rule

ROOT = Path(__file__).resolve().parents[1]
BUGGY = source(
    """
    import jax

    @jax.jit
    def step(x):
        print(x)
        return x * 2
    """
)
CLEAN = "import jax\n\n\n@jax.jit\ndef step(x):\n    return x * 2\n"


def run(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    """The command line in this process: exit status, standard output and error."""
    try:
        status = cli.main(argv)
    except SystemExit as exit_:  # argparse's usage errors
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "buggy.py").write_text(BUGGY)
    (tmp_path / "clean.py").write_text(CLEAN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_lint_prints_each_finding_and_exits_1(project, capsys):
    status, out, err = run(["lint", "buggy.py", "clean.py"], capsys)
    assert status == 1
    assert out.splitlines() == [
        f"buggy.py:5:5: JP130 {rule('JP130').message.format(how='jax.jit')} ({rule('JP130').url})"
    ]
    assert "1 finding(s) in 1 of 2 file(s) checked" in err


def test_lint_exits_0_when_it_finds_nothing_and_checks_the_current_folder_by_default(
    project, capsys
):
    status, out, err = run(["lint", "clean.py"], capsys)
    assert (status, out) == (0, "")
    assert "no findings in 1 file(s)" in err
    status, out, err = run(["lint"], capsys)  # both files of the folder
    assert status == 1 and out.startswith("buggy.py:5:5: JP130")
    assert "1 finding(s) in 1 of 2 file(s) checked" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["lint", "missing.py"],
        ["lint", "--select", "JP9", "buggy.py"],
        ["lint", "--format", "xml", "buggy.py"],
        ["lint", "--explain", "JP999"],
    ],
)
def test_lint_exits_2_for_usage_errors(project, capsys, argv):
    status, _, err = run(argv, capsys)
    assert status == 2
    assert "usage: " in err and "error:" in err


def test_lint_writes_json_and_sarif(project, capsys):
    status, out, _ = run(["lint", "--format", "json", "buggy.py", "clean.py"], capsys)
    assert status == 1
    assert [(f["path"], f["line"], f["code"]) for f in json.loads(out)] == [
        ("buggy.py", 5, "JP130")
    ]
    status, out, _ = run(["lint", "--format", "sarif", "clean.py"], capsys)
    assert status == 0
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["results"] == []


def test_lint_select_ignore_and_wrappers(project, capsys):
    assert run(["lint", "--ignore", "jp130", "buggy.py"], capsys)[0] == 0
    assert run(["lint", "--select", "JP2", "buggy.py"], capsys)[0] == 0
    (project / "mine.py").write_text(BUGGY.replace("@jax.jit", "@mylib.jit"))
    assert run(["lint", "mine.py"], capsys)[0] == 0
    assert run(["lint", "--wrappers", "mylib.jit", "mine.py"], capsys)[0] == 1


def test_lint_reads_the_settings_unless_told_not_to(project, capsys):
    (project / "pyproject.toml").write_text('[tool.jaxpurity.lint]\nignore = ["JP130"]\n')
    assert run(["lint", "buggy.py"], capsys)[0] == 0
    assert run(["lint", "--no-config", "buggy.py"], capsys)[0] == 1


def test_lint_explain_says_each_rule_s_page_and_what_it_cannot_see(capsys):
    status, out, _ = run(["lint", "--explain", "jp111"], capsys)
    found = rule("JP111")
    assert status == 0
    first, page, *cannot_see = out.splitlines()
    assert (first, page) == (f"JP111 {found.name}: {found.title}", f"  page: {found.url}")
    assert (
        " ".join(line.strip() for line in cannot_see) == f"what it cannot see: {found.cannot_see}"
    )
    assert all(len(line) <= 88 for line in cannot_see)
    status, out, _ = run(["lint", "--explain"], capsys)
    assert status == 0 and [line[:5] for line in out.splitlines() if line.startswith("JP")] == [
        r.code for r in RULES
    ]


def test_lint_explain_says_that_a_rule_is_off_by_default_and_how_to_turn_it_on(capsys):
    status, out, _ = run(["lint", "--explain", "JP122"], capsys)
    said = " ".join(line.strip() for line in out.splitlines())
    assert status == 0
    assert f"{rule('JP122').opt_in} Turn it on with select = ['JP122']." in said


# -- the flake8 plugin ----------------------------------------------------------------------


def test_the_plugin_yields_what_flake8_reads():
    (line, col, message, kind), *rest = Plugin(ast.parse(BUGGY), "buggy.py").run()
    assert rest == [] and kind is Plugin
    assert (line, col) == (5, 4)  # flake8 counts columns from 0
    assert message.startswith("JP130 print of a traced value (jax.jit)")
    assert message.endswith(f"({rule('JP130').url})")
    assert Plugin.name == "jaxpurity" and Plugin.version


def test_the_plugin_reads_the_wrappers_of_the_settings(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jaxpurity.lint]\nwrappers = ["mylib.jit"]\n')
    script = tmp_path / "mine.py"
    script.write_text(BUGGY.replace("@jax.jit", "@mylib.jit"))
    assert [m[:5] for _, _, m, _ in Plugin(ast.parse(script.read_text()), str(script)).run()] == [
        "JP130"
    ]


def test_the_plugin_is_registered_with_flake8():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["flake8.extension"] == {
        "JP": "jaxpurity.linter._flake8:Plugin"
    }


@pytest.mark.skipif(importlib.util.find_spec("flake8") is None, reason="flake8 not installed")
def test_flake8_reports_the_findings_and_honours_noqa(tmp_path):
    installed = any(
        e.name == "JP" and e.value == "jaxpurity.linter._flake8:Plugin"
        for e in importlib.metadata.entry_points(group="flake8.extension")
    )
    if not installed:  # imported from the source tree: load it through local-plugins
        (tmp_path / "setup.cfg").write_text(
            "[flake8:local-plugins]\nextension =\n    JP = jaxpurity.linter._flake8:Plugin\n"
            f"paths = {ROOT}\n"
        )
    (tmp_path / "buggy.py").write_text(BUGGY)
    (tmp_path / "silenced.py").write_text(BUGGY.replace("print(x)", "print(x)  # noqa: JP130"))
    # The same import path as this process, made absolute: flake8 runs in tmp_path.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(Path(p).resolve()) for p in sys.path)}
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "JP", "buggy.py", "silenced.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [
        f"buggy.py:5:5: JP130 {rule('JP130').message.format(how='jax.jit')} ({rule('JP130').url})"
    ]


# -- the pre-commit hook --------------------------------------------------------------------


def test_the_pre_commit_hook_runs_the_console_script_on_python_files():
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "jaxpurity-lint"
    assert hook["language"] == "python" and hook["types"] == ["python"]
    script, command = hook["entry"].split()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["scripts"][script] == "jaxpurity.__main__:console"
    assert command == "lint"


@pytest.mark.parametrize(("format", "shown"), [("text", True), ("json", False), ("sarif", False)])
def test_progress_shows_on_a_terminal_in_text_only(tmp_path, capsys, monkeypatch, format, shown):
    from jaxpurity.linter import _run

    monkeypatch.setattr(_run, "PROGRESS_FROM", 2)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    for i in range(3):
        (tmp_path / f"m{i}.py").write_text(CLEAN, encoding="utf-8")
    status, _, err = run(["lint", "--no-config", "--format", format, str(tmp_path)], capsys)
    assert status == 0 and ("3/3 files" in err) == shown


def test_no_progress_when_standard_error_is_not_a_terminal(tmp_path, capsys, monkeypatch):
    from jaxpurity.linter import _run

    monkeypatch.setattr(_run, "PROGRESS_FROM", 2)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    for i in range(3):
        (tmp_path / f"m{i}.py").write_text(CLEAN, encoding="utf-8")
    _, _, err = run(["lint", "--no-config", str(tmp_path)], capsys)
    assert err == "jaxpurity lint: no findings in 3 file(s)\n"


def test_a_path_skipped_is_noted_on_standard_error(tmp_path, capsys):
    os.symlink(tmp_path / "b.py", tmp_path / "a.py")
    os.symlink(tmp_path / "a.py", tmp_path / "b.py")
    (tmp_path / "ok.py").write_text(CLEAN, encoding="utf-8")
    status, out, err = run(["lint", "--no-config", "--no-cache", str(tmp_path)], capsys)
    assert status == 0 and out == ""
    assert f"jaxpurity lint: '{tmp_path / 'a.py'}' skipped: a symlink loop" in err
    assert err.endswith("jaxpurity lint: no findings in 1 file(s)\n")
