"""Tests for jaxpurity/linter/_lint.py and _config.py: lint() over source text, files and
folders; noqa comments; [tool.jaxpurity.lint] settings; files it cannot check; and the
linter's layout (its imports)."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from lint_cases import found, source

import jaxpurity
from jaxpurity._pages import url
from jaxpurity.linter._config import read_config
from jaxpurity.linter._lint import python_files

PRINT = """
import jax

@jax.jit
def step(x):
    print(x)
    return x * 2
"""


def write(path, text=PRINT):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source(text))
    return path


def test_a_finding_says_where_what_and_which_page():
    (finding,) = jaxpurity.lint(source=source(PRINT))
    assert (finding.path, finding.line, finding.col, finding.code) == ("<string>", 5, 5, "JP130")
    assert finding.topic == "print_vs_debug_print" and finding.url == url("print_vs_debug_print")
    assert str(finding) == (f"<string>:5:5: JP130 {finding.message} ({finding.url})")


def test_lint_checks_files_and_folders_but_not_hidden_folders_caches_and_venvs(tmp_path):
    write(tmp_path / "pkg" / "a.py")
    write(tmp_path / "pkg" / "sub" / "b.py")
    write(tmp_path / "pkg" / "notes.txt")
    write(tmp_path / "pkg" / ".hidden" / "c.py")
    write(tmp_path / "pkg" / "__pycache__" / "d.py")
    write(tmp_path / "pkg" / "venv" / "e.py")
    (tmp_path / "pkg" / "venv" / "pyvenv.cfg").write_text("home = /usr\n")
    given = write(tmp_path / "script.txt")
    paths = [tmp_path / "pkg", given, tmp_path / "pkg" / "a.py"]
    checked = [p.relative_to(tmp_path).as_posix() for p in python_files(paths)]
    assert checked == ["pkg/a.py", "pkg/sub/b.py", "script.txt"]
    findings = jaxpurity.lint(*paths)
    assert [(f.path, f.code) for f in findings] == [(str(tmp_path / p), "JP130") for p in checked]


def test_lint_refuses_a_missing_path_and_wrong_arguments(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        jaxpurity.lint(tmp_path / "missing.py")
    with pytest.raises(ValueError, match="give paths to check or source=, not both"):
        jaxpurity.lint(tmp_path, source="x = 1")
    with pytest.raises(ValueError, match="give the files or folders to check, or source="):
        jaxpurity.lint()
    with pytest.raises(ValueError, match="'JP9' is no jaxpurity lint rule"):
        jaxpurity.lint(source="x = 1", select=["JP9"])


@pytest.mark.parametrize(
    ("comment", "silenced"),
    [
        ("# noqa", True),
        ("# NOQA", True),
        ("# noqa: JP130", True),
        ("# noqa:JP13", True),
        ("# noqa: E501, JP130", True),
        ("# noqa: JP101", False),
        ("# a comment about noqa elsewhere", False),
    ],
)
def test_noqa_silences_all_or_the_listed_codes(comment, silenced):
    snippet = PRINT.replace("print(x)", f"print(x)  {comment}")
    assert found(snippet) == (set() if silenced else {(5, "JP130")})


def test_select_and_ignore_choose_the_rules():
    snippet = PRINT.replace("print(x)", "print(x)\n    if x > 0:\n        x = -x")
    assert found(snippet) == {(5, "JP130"), (6, "JP201")}
    assert found(snippet, select=["JP2"]) == {(6, "JP201")}
    assert found(snippet, ignore=["JP13"]) == {(6, "JP201")}


def test_settings_come_from_the_nearest_pyproject_with_the_table(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.jaxpurity.lint]\nignore = ["JP130"]\n')
    write(tmp_path / "inner" / "pyproject.toml", "[tool.other]\nx = 1\n")
    write(
        tmp_path / "inner" / "deep" / "pyproject.toml", '[tool.jaxpurity.lint]\nselect = ["JP1"]\n'
    )
    write(tmp_path / "inner" / "a.py")
    write(tmp_path / "inner" / "deep" / "b.py")
    codes = {f.path.split("/")[-1]: f.code for f in jaxpurity.lint(tmp_path)}
    assert codes == {"b.py": "JP130"}  # a.py: ignored by the outer table; b.py: selected
    assert [f.code for f in jaxpurity.lint(tmp_path / "inner" / "a.py", config=False)] == ["JP130"]
    # Arguments add to the settings: ignore= to the file's ignore, select= replaces its select.
    assert jaxpurity.lint(tmp_path / "inner" / "deep", ignore=["JP13"]) == []
    assert jaxpurity.lint(tmp_path / "inner" / "deep", select=["JP2"]) == []


def test_wrappers_of_the_settings_are_read_as_jax_jit(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.jaxpurity.lint]\nwrappers = ["mylib.compile"]\n')
    script = write(
        tmp_path / "a.py",
        PRINT.replace("import jax", "import mylib").replace("@jax.jit", "@mylib.compile"),
    )
    assert [f.code for f in jaxpurity.lint(script)] == ["JP130"]
    assert jaxpurity.lint(script, config=False) == []
    assert [f.code for f in jaxpurity.lint(script, config=False, wrappers=["mylib.compile"])] == [
        "JP130"
    ]


@pytest.mark.parametrize(
    ("table", "error"),
    [
        ('[tool.jaxpurity.lint]\nselekt = ["JP1"]\n', "has no setting 'selekt'; the settings are"),
        ('[tool.jaxpurity.lint]\nignore = "JP101"\n', "ignore must be a list of strings"),
        ("[tool.jaxpurity.lint\n", "not valid TOML"),
    ],
)
def test_a_wrong_setting_is_named_with_its_file(tmp_path, table, error):
    pyproject = write(tmp_path / "pyproject.toml", table)
    with pytest.raises(ValueError, match=error) as info:
        read_config(pyproject)
    assert str(pyproject) in str(info.value)


def test_a_code_that_matches_no_rule_in_the_settings_names_the_file(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.jaxpurity.lint]\nselect = ["JP9"]\n')
    write(tmp_path / "a.py")
    with pytest.raises(ValueError, match=r"'JP9' is no jaxpurity lint rule.*pyproject\.toml"):
        jaxpurity.lint(tmp_path)


def test_a_file_it_cannot_parse_or_read_is_a_finding_not_a_crash(tmp_path):
    broken = write(tmp_path / "broken.py", "def f(:\n    pass\n")
    binary = tmp_path / "binary.py"
    binary.write_bytes(b"x = '\xff\xfe'\n")
    nulls = tmp_path / "nulls.py"
    nulls.write_bytes(b"x = 1\x00\n")
    findings = jaxpurity.lint(broken, binary, nulls)
    assert [(f.path.split("/")[-1], f.code, f.line) for f in findings] == [
        ("broken.py", "JP000", 1),
        ("binary.py", "JP000", 1),
        ("nulls.py", "JP000", 1),
    ]
    assert all("nothing in this file was checked" in f.message for f in findings)
    assert findings[0].topic is None and findings[0].url is None
    assert str(findings[0]).startswith(f"{broken}:1:")


@pytest.mark.parametrize("terms", [500, 3000])
def test_a_deep_expression_is_checked_or_reported_never_a_crash(terms):
    # Python's parser may run out of stack on it (as 3.12 does at 3000 terms): a finding.
    deep = "import jax\n@jax.jit\ndef f(x):\n    return " + " + ".join(["x"] * terms) + "\n"
    assert all(f.code == "JP000" for f in jaxpurity.lint(source=deep))


def test_checks_that_run_out_of_stack_are_a_finding(monkeypatch):
    def too_deep(analysis):
        raise RecursionError

    monkeypatch.setattr(jaxpurity.linter._lint, "check", too_deep)
    (finding,) = jaxpurity.lint(source="x = 1\n")
    assert finding.code == "JP000" and "nested too deeply to check" in finding.message


@pytest.mark.parametrize("codec", ["rot13", "uu_codec", "zlib_codec", "hex_codec"])
def test_a_coding_cookie_of_no_text_encoding_is_unparsable_not_a_crash(tmp_path, codec):
    cookie = tmp_path / "x.py"
    cookie.write_bytes(f"# -*- coding: {codec} -*-\n".encode() + source(PRINT).encode())
    (finding,) = jaxpurity.lint(cookie)
    assert (finding.code, finding.line) == ("JP000", 1)
    assert f"coding cookie names {codec!r}, which is not a text encoding" in finding.message
    assert "name a text encoding such as utf-8" in finding.message


def test_bytes_that_are_not_utf_8_are_unparsable_at_the_first_bad_byte(tmp_path):
    late = tmp_path / "late.py"
    late.write_bytes(source(PRINT).encode() + b"s = '\xff'\n")
    (finding,) = jaxpurity.lint(late)
    assert (finding.code, finding.line, finding.col) == ("JP000", 7, 6)
    assert "byte 0xff is not utf-8 text" in finding.message and "coding cookie" in finding.message


def test_a_nul_byte_is_unparsable_where_it_is(tmp_path):
    nul = tmp_path / "nul.py"
    nul.write_bytes(source(PRINT).encode() + b"x = 1\x00\n")
    (finding,) = jaxpurity.lint(nul)
    assert (finding.code, finding.line, finding.col) == ("JP000", 7, 6)
    assert "NUL character" in finding.message


def test_an_expression_nested_deeper_than_the_parser_goes_is_unparsable_with_a_note():
    deep = "import jax\n@jax.jit\ndef f(a):\n    print(a)\n    return " + "+".join(["a"] * 50_000)
    try:
        ast.parse(deep)
    except RecursionError:  # Python 3.11 and newer: the parser stops
        (finding,) = jaxpurity.lint(source=deep)
        assert finding.code == "JP000" and "(RecursionError)" in finding.message
    else:  # Python 3.10's parser takes it: then the file is checked, not skipped
        (finding,) = jaxpurity.lint(source=deep)
        assert (finding.code, finding.line) == ("JP130", 4)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_like_a_module_is_skipped_with_a_note_not_read(tmp_path):
    os.mkfifo(tmp_path / "x.py")
    write(tmp_path / "ok.py")
    with pytest.warns(UserWarning, match=r"x\.py' skipped: not a regular file \(a FIFO\)"):
        findings = jaxpurity.lint(tmp_path, cache=False)
    assert [Path(f.path).name for f in findings] == ["ok.py"]
    with pytest.warns(UserWarning, match="a FIFO"):
        assert jaxpurity.lint(tmp_path / "x.py", cache=False) == []


def test_a_symlink_loop_is_skipped_with_a_note(tmp_path):
    os.symlink(tmp_path / "b.py", tmp_path / "a.py")
    os.symlink(tmp_path / "a.py", tmp_path / "b.py")
    with pytest.warns(UserWarning, match="a symlink loop") as noted:
        assert jaxpurity.lint(tmp_path, cache=False) == []
    assert len(noted) == 2
    with pytest.warns(UserWarning, match="a symlink loop"):
        assert jaxpurity.lint(tmp_path / "a.py", cache=False) == []


def test_a_folder_named_like_a_module_is_searched_as_a_folder(tmp_path):
    write(tmp_path / "x.py" / "inner.py")
    for given in (tmp_path, tmp_path / "x.py"):
        found = jaxpurity.lint(given, cache=False)
        assert [(Path(f.path).name, f.code) for f in found] == [("inner.py", "JP130")]


@pytest.mark.parametrize("option", ["select", "ignore", "wrappers"])
@pytest.mark.parametrize("value", ["JP1", None, [1], ["JP1", None]])
def test_options_that_are_not_lists_of_strings_are_a_type_error_that_says_the_fix(
    tmp_path, option, value
):
    if option == "select" and value is None:
        assert jaxpurity.lint(source=source(PRINT), select=None)  # the default rules
        return
    example = {"select": "select=['JP1']", "ignore": "ignore=['JP111']"}.get(
        option, "wrappers=['mylib.jit']"
    )
    for call in (
        lambda: jaxpurity.lint(source=source(PRINT), **{option: value}),
        lambda: jaxpurity.lint(write(tmp_path / "a.py"), **{option: value}),
    ):
        with pytest.raises(TypeError, match=f"^lint: {option} must be a list of") as error:
            call()
        assert "pass a list of" in str(error.value) and example in str(error.value)


def test_source_as_bytes_is_decoded_as_python_decodes_a_file():
    latin = ("# -*- coding: latin-1 -*-\n" + source(PRINT) + "s = 'é'\n").encode("latin-1")
    assert [(f.line, f.code) for f in jaxpurity.lint(source=latin)] == [(6, "JP130")]
    assert [f.code for f in jaxpurity.lint(source=source(PRINT).encode())] == ["JP130"]
    (finding,) = jaxpurity.lint(source=b"# -*- coding: rot13 -*-\nx = 1\n")
    assert finding.code == "JP000" and "not a text encoding" in finding.message
    with pytest.raises(TypeError, match="source= must be Python source, a str .or bytes"):
        jaxpurity.lint(source=5)


def test_a_path_that_is_neither_text_nor_a_path_is_a_type_error():
    with pytest.raises(TypeError, match="each path must be a str or a path-like object"):
        jaxpurity.lint(3)


@pytest.mark.parametrize(
    ("table", "error"),
    [
        ("tool = 'x'\n", r"tool must be a table \(\[tool\]\), not str 'x'"),
        ("[tool]\njaxpurity = 3\n", r"tool.jaxpurity must be a table"),
        ("[tool.jaxpurity]\nlint = [1]\n", r"tool.jaxpurity.lint must be a table"),
        ("[tool.jaxpurity.lint]\nselect = 5\n", "select must be a list of strings"),
        ("[tool.jaxpurity.lint]\nwrappers = [1]\n", "wrappers must be a list of strings"),
    ],
)
def test_settings_of_the_wrong_type_are_named_with_the_file_and_key(tmp_path, table, error):
    pyproject = write(tmp_path / "pyproject.toml", table)
    with pytest.raises(ValueError, match=error) as info:
        jaxpurity.lint(write(tmp_path / "a.py"), cache=False)
    assert str(pyproject) in str(info.value)


def test_a_pyproject_that_is_not_utf_8_is_named(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_bytes(b"[tool.jaxpurity.lint]\nselect = ['\xff']\n")
    with pytest.raises(ValueError, match="not UTF-8 text, as TOML must be") as info:
        jaxpurity.lint(write(tmp_path / "a.py"), cache=False)
    assert str(pyproject) in str(info.value)


def test_columns_count_characters_on_lines_that_are_not_ascii():
    snippet = PRINT.replace("print(x)", 'é = "ü"; print(x)')
    (finding,) = jaxpurity.lint(source=source(snippet))
    assert finding.col == 14  # after 'é = "ü"; ' (9 characters, 11 bytes) and the indent


def test_a_module_of_20000_lines_is_checked_in_one_go():
    """Linear, without a clock: every step is linear, so a module this size finishes (a
    quadratic pass would take hours here). benchmarks/lint.py measures files/s."""
    blocks = [
        f"@jax.jit\ndef step{i}(x, n):\n    y = x * {i}\n    if y > 0:\n        y = -y\n"
        f"    z = [y + k for k in range(3)]\n    print(z)\n    return jnp.stack(z)\n\n"
        for i in range(2250)
    ]
    module = "import jax\nimport jax.numpy as jnp\n\n" + "".join(blocks)
    assert module.count("\n") > 20000
    findings = jaxpurity.lint(source=module)
    assert [f.code for f in findings] == ["JP201", "JP130"] * 2250


# -- the layout -------------------------------------------------------------------------------

LINTER = Path(jaxpurity.__file__).parent / "linter"


def _linter_imports() -> dict[str, set[str]]:
    """Each module of jaxpurity.linter, and the modules of jaxpurity.linter it imports,
    those under TYPE_CHECKING and inside functions included."""
    names = {
        ".".join(("jaxpurity", *p.relative_to(LINTER.parent).with_suffix("").parts)).removesuffix(
            ".__init__"
        ): p
        for p in LINTER.rglob("*.py")
    }
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        imported = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    imported.add(full if full in names else node.module)
            elif isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
        graph[name] = {other for other in imported if other in names and other != name}
    return graph


def test_no_import_cycle_runs_through_the_linter():
    graph = _linter_imports()
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, "import cycle: " + " -> ".join((*path, name))
        if name not in done:
            for other in sorted(graph[name]):
                visit(other, (*path, name))
            done.add(name)

    for name in sorted(graph):
        visit(name, ())


def test_the_analysis_imports_neither_a_rule_nor_the_driver():
    for name, imported in _linter_imports().items():
        if name.startswith("jaxpurity.linter.analysis"):
            outside = {i for i in imported if not i.startswith("jaxpurity.linter.analysis")}
            assert outside <= {"jaxpurity.linter"}, f"{name} imports {sorted(outside)}"
