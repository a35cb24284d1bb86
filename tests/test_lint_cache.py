"""Tests for jaxpurity/linter/_cache.py: a second run over an unchanged tree reads each file's
results back, gives the same findings as a run without the cache, and checks again exactly
the files an edit reaches; a cache it cannot read or write changes nothing."""

from __future__ import annotations

import errno
import json
import os
import textwrap
from pathlib import Path

import pytest

from jaxpurity.__main__ import main
from jaxpurity.linter import _cache, _lint
from jaxpurity.linter._cache import Cache, default_folder
from jaxpurity.linter._lint import lint_paths
from jaxpurity.linter.analysis._package import Arguments, Entry, LayerText, Package, Target

# A package whose traced code crosses modules both ways: train.step calls utils.helper (a
# print of a tracer there) and train.make jits model.Model.apply (a Python if on a tracer
# there); other.py is on its own.
PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/train.py": """
        import jax
        from pkg import utils
        from pkg.model import Model

        @jax.jit
        def step(x):
            return utils.helper(x * 2)

        def make():
            return jax.jit(Model.apply, static_argnums=2)
        """,
    "pkg/utils.py": """
        def helper(v):
            print(v)
            return v
        """,
    "pkg/model.py": """
        class Model:
            def apply(self, x, n):
                if x > 0:
                    return x
                return -x
        """,
    "pkg/other.py": """
        import jax

        @jax.jit
        def f(x):
            print(x)
            return x
        """,
}


# What a cold run checks: every file, then again those that train.py's traced code reaches.
COLD = ["__init__.py", "model.py", "other.py", "train.py", "utils.py", "model.py", "utils.py"]


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


@pytest.fixture
def checks(monkeypatch):
    """The files checked (not read from the cache), in the order checked."""
    checked: list[str] = []
    check_file = _lint.check_file

    def counted(path, *args, **kwargs):
        checked.append(Path(path).name)
        return check_file(path, *args, **kwargs)

    monkeypatch.setattr(_lint, "check_file", counted)
    return checked


def lint(folder: Path, **options) -> list[tuple[str, int, str, str]]:
    findings, _ = lint_paths([folder], config=False, jobs=1, **options)
    return [(Path(f.path).name, f.line, f.code, f.message) for f in findings]


def test_a_warm_run_reads_every_file_back_and_finds_what_a_run_without_the_cache_finds(
    tmp_path, checks
):
    write(tmp_path, PACKAGE)
    uncached = lint(tmp_path)
    assert {(name, code) for name, _, code, _ in uncached} == {
        ("utils.py", "JP130"),
        ("model.py", "JP201"),
        ("other.py", "JP130"),
    }
    checks.clear()
    assert lint(tmp_path, cache=True) == uncached  # cold
    # Every file, then again the two that train.py's traced code reaches.
    assert checks == COLD
    checks.clear()
    assert lint(tmp_path, cache=True) == uncached  # warm
    assert checks == []


def test_an_edit_changes_the_findings_of_that_file_and_of_the_modules_it_reaches(tmp_path, checks):
    write(tmp_path, PACKAGE)
    before = lint(tmp_path, cache=True)
    train = tmp_path / "pkg" / "train.py"
    train.write_text(train.read_text().replace("utils.helper(x * 2)", "x * 2"))
    checks.clear()
    after = lint(tmp_path, cache=True)
    # Only train.py is checked: utils.py, no longer reached, is as the first round found it
    # (in the cache), and model.py is reached as before.
    assert checks == ["train.py"]
    assert after == lint(tmp_path)  # the same as without the cache
    assert set(before) - set(after) == {f for f in before if f[0] == "utils.py"} != set()
    assert set(after) <= set(before)

    utils = tmp_path / "pkg" / "utils.py"
    train.write_text(train.read_text().replace("return x * 2", "return utils.helper(x * 2)"))
    utils.write_text("def helper(v):\n    v = v + 1\n    print(v)\n    return v\n")
    checks.clear()
    edited = lint(tmp_path, cache=True)
    # train.py is back as it was first (in the cache); utils.py alone, then as reached.
    assert checks == ["utils.py", "utils.py"]
    assert edited == lint(tmp_path)
    assert [f[:3] for f in edited if f[0] == "utils.py"] == [("utils.py", 3, "JP130")]


def test_a_new_module_that_a_name_now_resolves_to_is_followed(tmp_path, checks):
    """What the package answers when a module's analysis asks what a name is (here:
    pkg.extra.helper, first no module of the package) is part of the key."""
    write(tmp_path, PACKAGE)
    train = tmp_path / "pkg" / "train.py"
    train.write_text(
        train.read_text() + "\nfrom pkg import extra\n\n@jax.jit\ndef g(x):\n"
        "    return extra.helper(x)\n"
    )
    assert ("extra.py", "JP130") not in {(n, c) for n, _, c, _ in lint(tmp_path, cache=True)}
    write(tmp_path, {"pkg/extra.py": "def helper(v):\n    print(v)\n    return v\n"})
    checks.clear()
    assert lint(tmp_path, cache=True) == lint(tmp_path)
    assert "train.py" in checks and ("extra.py", 2, "JP130") in {
        (n, line, c) for n, line, c, _ in lint(tmp_path, cache=True)
    }


def test_the_settings_are_part_of_the_key(tmp_path):
    write(tmp_path, PACKAGE)
    lint(tmp_path, cache=True)
    assert lint(tmp_path, cache=True, select=["JP2"]) == lint(tmp_path, select=["JP2"])
    script = tmp_path / "pkg" / "other.py"
    script.write_text("import mylib\n\n@mylib.jit\ndef f(x):\n    print(x)\n    return x\n")
    lint(tmp_path, cache=True)
    wrapped = lint(tmp_path, cache=True, wrappers=["mylib.jit"])
    assert ("other.py", 5, "JP130") in {(n, line, c) for n, line, c, _ in wrapped}


def test_a_corrupt_cache_file_is_ignored_and_written_again(tmp_path, checks):
    write(tmp_path, PACKAGE)
    expected = lint(tmp_path, cache=True)
    (cache_file,) = (tmp_path / ".jaxpurity_cache").glob("lint-*.json")
    for corrupt in (b"\x00not json{", b'{"format": 1, "files": [1]}', b"[" * 100_000):
        cache_file.write_bytes(corrupt)
        checks.clear()
        assert lint(tmp_path, cache=True) == expected
        assert checks == COLD
    checks.clear()
    assert lint(tmp_path, cache=True) == expected and checks == []  # written again


def test_a_record_that_does_not_decode_is_ignored(tmp_path, checks):
    write(tmp_path, PACKAGE)
    expected = lint(tmp_path, cache=True)
    (cache_file,) = (tmp_path / ".jaxpurity_cache").glob("lint-*.json")
    data = json.loads(cache_file.read_text())
    for records in data["files"].values():
        for record in records.values():
            record["f"] = [["one", 2]]
            record["o"] = [{"not": "an entry"}]
    cache_file.write_text(json.dumps(data))
    checks.clear()
    assert lint(tmp_path, cache=True) == expected
    assert checks == COLD


def test_a_read_only_folder_means_no_cache_and_no_error(tmp_path, checks, monkeypatch):
    write(tmp_path, PACKAGE)
    expected = lint(tmp_path)
    if os.geteuid() == 0:  # root writes where the mode says not to: a read-only file system

        def read_only(path, text):
            raise OSError(errno.EROFS, "Read-only file system", str(path))

        monkeypatch.setattr(_cache, "_write", read_only)
    tmp_path.chmod(0o555)
    try:
        assert lint(tmp_path, cache=True) == expected
        checks.clear()
        assert lint(tmp_path, cache=True) == expected
        assert checks == COLD  # nothing was kept
        assert not list(tmp_path.glob(".jaxpurity_cache/lint-*.json"))
    finally:
        tmp_path.chmod(0o755)


def test_a_cache_dir_that_cannot_be_made_means_no_cache_and_no_error(tmp_path, checks):
    write(tmp_path, PACKAGE)
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, where the cache's folder would go")
    expected = lint(tmp_path)
    assert lint(tmp_path, cache=True, cache_dir=blocker / "cache") == expected
    checks.clear()
    assert lint(tmp_path, cache=True, cache_dir=blocker / "cache") == expected
    assert checks == COLD  # nothing was kept


def test_the_cache_folder_keeps_git_out_and_sits_at_the_projects_root(tmp_path):
    write(tmp_path, {**PACKAGE, "pyproject.toml": ""})
    lint_paths([tmp_path / "pkg"], config=False, cache=True)
    folder = tmp_path / ".jaxpurity_cache"
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert default_folder([tmp_path / "pkg" / "train.py"]) == folder
    assert [p.name for p in folder.glob("lint-*.json")] != []
    assert not list(folder.glob("*.tmp"))  # written through a temporary file, then moved


def test_the_command_line_options(tmp_path, capsys):
    write(tmp_path, PACKAGE)
    assert main(["lint", "--no-config", "--no-cache", str(tmp_path)]) == 1
    assert not (tmp_path / ".jaxpurity_cache").exists()
    elsewhere = tmp_path / "elsewhere"
    assert main(["lint", "--no-config", "--cache-dir", str(elsewhere), str(tmp_path / "pkg")]) == 1
    assert list(elsewhere.glob("lint-*.json")) and not (tmp_path / ".jaxpurity_cache").exists()
    capsys.readouterr()
    for jobs in ("0", "two"):
        with pytest.raises(SystemExit):
            main(["lint", "--jobs", jobs, str(tmp_path)])
        assert "give a whole number of processes, 1 or more" in capsys.readouterr().err


def test_lint_of_source_text_never_writes_a_cache(tmp_path, monkeypatch):
    import jaxpurity

    monkeypatch.chdir(tmp_path)
    assert jaxpurity.lint(source="import jax\nprint(1)\n") == []
    assert list(tmp_path.iterdir()) == []


def test_a_change_to_the_linters_source_makes_a_new_cache(tmp_path, monkeypatch):
    rule = tmp_path / "rule.py"
    rule.write_text("RULE = 1\n")
    monkeypatch.setattr(_cache, "linter_source_files", lambda: [rule])
    _cache.linter_fingerprint.cache_clear()
    try:
        before = _cache.linter_fingerprint()
        rule.write_text("RULE = 2\n")
        _cache.linter_fingerprint.cache_clear()
        assert _cache.linter_fingerprint() != before
    finally:
        _cache.linter_fingerprint.cache_clear()


def test_the_fingerprint_covers_every_module_the_linter_runs():
    """A module of jaxpurity that the linter imports but the fingerprint does not read would
    let a change to it leave stale results."""
    import subprocess
    import sys

    code = (
        "import sys; from jaxpurity.linter import _lint\n"
        "print(*sorted(m.__file__ for n, m in sys.modules.items() "
        "if n.startswith('jaxpurity') and getattr(m, '__file__', None)), sep='\\n')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = {Path(p).resolve() for p in done.stdout.split()}
    assert loaded <= {p.resolve() for p in _cache.linter_source_files()}


def test_an_entry_reads_back_as_it_was_written(tmp_path):
    files = {str(tmp_path / "a.py"): "a", str(tmp_path / "b.py"): "b"}
    entries = [
        Entry(
            Target(str(tmp_path / "b.py"), "Model.apply"),
            frozenset({"jit", "vmap"}),
            "jax.jit",
            "train.step",
            2,
            call=Arguments(("array", None, "traced"), "traced", (("n", "array"),), None, 1),
        ),
        Entry(
            Target(str(tmp_path / "a.py"), "helper"),
            frozenset(),
            "",
            "",
            0,
            layers=(
                LayerText("jax.jit", ("f",), (("static_argnums", "(0, 1)"),)),
                LayerText("functools.partial", ("None",), (("n", "None"),), partial=True),
            ),
            shift=1,
        ),
    ]
    ids = {path: name for path, name in files.items()}
    paths = {name: path for path, name in files.items()}
    for entry in entries:
        data = json.loads(json.dumps(_cache._entry_data(entry, ids.__getitem__)))
        assert _cache._entry(data, paths) == entry


def test_a_result_is_not_used_where_the_package_answers_a_name_differently(tmp_path):
    write(tmp_path, PACKAGE)
    paths = sorted(str(p) for p in tmp_path.rglob("*.py"))
    package = Package([Path(p) for p in paths], [tmp_path])
    cache = Cache(tmp_path / "cache", "fingerprint")
    cache.start(paths)
    train = str(tmp_path / "pkg" / "train.py")
    key = cache.key(train, frozenset({"JP130"}), frozenset(), package, [])
    assert key is not None
    asked = {"pkg.utils.helper": Target(str(tmp_path / "pkg" / "utils.py"), "helper")}
    cache.put(key, train, [], [], asked)
    assert cache.get(key, train, package) == ([], [])
    without_utils = Package([Path(p) for p in paths if not p.endswith("utils.py")], [tmp_path])
    assert cache.get(key, train, without_utils) is None
