"""Tests for jaxpurity/linter/analysis/_package.py and _run.py: traced code followed across
the modules of a package, the same findings from one process or many (a pool only where it
pays), and progress on a terminal.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from jaxpurity.linter import _run
from jaxpurity.linter._lint import lint_paths
from jaxpurity.linter.analysis._package import Package, Target


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def found(folder: Path, **options) -> set[tuple[str, int, str]]:
    findings, _ = lint_paths([folder], config=False, **options)
    return {(Path(f.path).relative_to(folder).as_posix(), f.line, f.code) for f in findings}


def test_a_helper_of_another_module_is_traced_through_its_caller(tmp_path):
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/helpers.py": """
                def log_value(v):
                    print("value", v)
                    return v

                def unused(v):
                    print("value", v)
                """,
            "pkg/train.py": """
                import jax
                from pkg.helpers import log_value

                @jax.jit
                def step(x):
                    return log_value(x * 2)
                """,
        },
    )
    assert found(tmp_path) == {("pkg/helpers.py", 2, "JP130")}
    (finding,) = lint_paths([tmp_path], config=False)[0]
    assert "(jax.jit, through train.step)" in finding.message


def test_relative_imports_and_a_transformation_of_another_module(tmp_path):
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "",
            "pkg/sub/layers.py": """
                def body(carry, x):
                    if carry > 0:
                        carry = carry - x
                    return carry, None
                """,
            "pkg/sub/model.py": """
                import jax
                from .layers import body
                from .. import sub

                def run(xs):
                    return jax.lax.scan(body, 0.0, xs)
                """,
        },
    )
    assert found(tmp_path) == {("pkg/sub/layers.py", 2, "JP201")}


def test_a_method_of_an_imported_class_called_on_a_closed_over_instance(tmp_path):
    write(
        tmp_path,
        {
            "sim/stimulus.py": """
                class Stimuli:
                    def __init__(self):
                        self.currents = None

                    def set_currents(self, currents):
                        self.currents = currents
                        return self
                """,
            "sim/run.py": """
                import jax
                from sim.stimulus import Stimuli

                stimuli = Stimuli()

                @jax.jit
                def simulate(current):
                    return stimuli.set_currents(current * 2).currents
                """,
        },
    )
    assert found(tmp_path) == {("sim/stimulus.py", 6, "JP105")}


def test_an_instance_called_across_modules_runs_its_call_method(tmp_path):
    """``Decoder()(z)`` and ``rng()`` in traced code run ``__call__`` of a class of another
    module: what it does with a tracer is seen there. An object the traced code makes
    itself lives for one trace (what it sets on ``self`` does not outlive it); one made
    outside the trace keeps a tracer."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/layers.py": """
                import jax

                class Decoder:
                    def __call__(self, z):
                        if z > 0:
                            return z
                        return -z

                class Rng:
                    def __init__(self, key):
                        self.key = key

                    def __call__(self):
                        self.key, sub = jax.random.split(self.key)
                        return sub
                """,
            "pkg/train.py": """
                import jax
                from pkg.layers import Decoder, Rng

                kept = Rng(jax.random.PRNGKey(0))

                @jax.jit
                def step(z, key):
                    rng = Rng(key)
                    return Decoder()(z) + jax.random.normal(rng()) + kept()
                """,
        },
    )
    assert found(tmp_path) == {("pkg/layers.py", 5, "JP201"), ("pkg/layers.py", 14, "JP105")}


def test_static_arguments_stay_static_across_modules(tmp_path):
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/ops.py": """
                import jax.numpy as jnp

                def window(x, size):
                    if size > 2:
                        return jnp.zeros(size)
                    return x[:size]
                """,
            "pkg/use.py": """
                import functools
                import jax
                from pkg import ops

                @functools.partial(jax.jit, static_argnames=("size",))
                def f(x, size):
                    return ops.window(x, size)

                g = jax.jit(ops.window, static_argnums=1)
                """,
        },
    )
    assert found(tmp_path) == set()


def test_the_package_names_modules_by_init_files_and_by_the_folders_given(tmp_path):
    write(tmp_path, {"src/pkg/__init__.py": "", "src/pkg/mod.py": "", "scripts/run.py": ""})
    files = sorted(tmp_path.rglob("*.py"))
    package = Package(files, [tmp_path])
    mod = str(tmp_path / "src/pkg/mod.py")
    assert package.target("pkg.mod.f") == Target(mod, "f")
    assert package.target("src.pkg.mod.C.m") == Target(mod, "C.m")
    assert package.target("scripts.run.main") == Target(str(tmp_path / "scripts/run.py"), "main")
    assert package.target("pkg.mod.C.m.x") is None
    assert package.package_of(mod) == "pkg"
    assert package.package_of(str(tmp_path / "src/pkg/__init__.py")) == "pkg"


def test_many_processes_give_the_findings_of_one(tmp_path):
    files = {
        f"pkg/m{i:03}.py": f"import jax\nfrom pkg import m{(i + 1) % 60:03} as nxt\n"
        for i in range(60)
    }
    for i in range(60):
        files[f"pkg/m{i:03}.py"] += textwrap.dedent(
            f"""
            def helper{i}(v):
                print(v)
                return nxt.helper{(i + 1) % 60}(v) if v is None else v

            @jax.jit
            def step{i}(x):
                if x > 0:
                    x = -x
                return helper{i}(x)
            """
        )
    files["pkg/__init__.py"] = ""
    write(tmp_path, files)
    serial, count = lint_paths([tmp_path], config=False, jobs=1)
    parallel, _ = lint_paths([tmp_path], config=False, jobs=2)
    assert count == 61 and serial == parallel
    assert {f.code for f in serial} == {"JP130", "JP201"}


def test_progress_is_shown_for_a_big_tree_and_cleared(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_run, "PROGRESS_FROM", 2)
    write(tmp_path, {f"m{i}.py": "x = 1\n" for i in range(3)})
    lint_paths([tmp_path], config=False, jobs=1, progress=True)
    shown = capsys.readouterr().err
    assert "jaxpurity lint: 3/3 files" in shown and shown.endswith("\r\x1b[K")
    lint_paths([tmp_path], config=False, jobs=1)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("rounds", [1, 3])
def test_calls_are_followed_as_many_modules_deep_as_there_are_rounds(tmp_path, monkeypatch, rounds):
    monkeypatch.setattr(_run, "ROUNDS", rounds)
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "import jax\nfrom pkg.b import g\n\n@jax.jit\ndef f(x):\n    return g(x)\n",
            "pkg/b.py": "from pkg.c import h\n\ndef g(x):\n    return h(x)\n",
            "pkg/c.py": "def h(x):\n    print(x)\n    return x\n",
        },
    )
    assert found(tmp_path) == ({("pkg/c.py", 2, "JP130")} if rounds == 3 else set())


def test_a_pool_starts_only_for_a_round_of_many_files_not_in_the_cache(tmp_path, monkeypatch):
    def no_pool(self):
        raise AssertionError("a pool was started")

    write(tmp_path, {f"m{i:02}.py": "x = 1\n" for i in range(_run.POOL_FROM)})
    lint_paths([tmp_path], config=False, jobs=1, cache=True)  # every file now in the cache
    monkeypatch.setattr(_run._Checker, "_pool", no_pool)
    assert lint_paths([tmp_path], config=False, jobs=8, cache=True) == ([], _run.POOL_FROM)
    write(tmp_path, {"m00.py": "x = 2\n"})  # one file to check: in this process
    assert lint_paths([tmp_path], config=False, jobs=8, cache=True) == ([], _run.POOL_FROM)
    assert _run.default_jobs() >= 1
