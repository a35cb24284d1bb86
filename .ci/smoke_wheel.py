"""Install the built wheel into a fresh environment and check that it works there.

``python .ci/smoke_wheel.py DIST`` (``tox -e package`` runs it after building
the sdist and the wheel into ``DIST``): makes a new virtual environment, installs
the wheel as a user would (``pip install jaxpurity-*.whl``, which brings the
newest JAX for that Python), and, from an empty folder so that nothing from
the repository can be imported by mistake:

- runs every doctest of the installed package;
- runs the ``jaxpurity`` console script on a real JAX error (in English and Chinese,
  from the shipped catalog), and ``jaxpurity lint`` and flake8 (installed there, to
  load the plugin) on a file with a bug, and checks that lint and explain import no JAX
  (explain on an error it does not know, which it says and links the error index for);
- runs a failing test under ``pytest -p jaxpurity``, and the same error in IPython
  after ``%load_ext jaxpurity`` (IPython installed there), and finds the note in each;
- imports the package and uses a drop-in and a diagnostic.

It also checks that the sdist holds no tests, which need the repository.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
import venv
from pathlib import Path

SMOKE = """
import jax, jax.numpy as jnp, jaxpurity
assert jaxpurity.__file__.startswith(r"{site}"), jaxpurity.__file__
out = jaxpurity.cond(jnp.array(True), lambda x: x + 1.0, lambda x: x - 1.0, jnp.float32(2.0))
assert float(out) == 3.0, out
counter = []
def step(x):
    counter.append(x)
    return x * 2
report = jaxpurity.check_pure(step, jnp.ones(2))
assert not report.ok and counter == [], (report, counter)
try:
    jax.jit(lambda x: int(x))(1.0)
except Exception as error:
    assert jaxpurity.explain(error).recognised, error
print("jaxpurity", jaxpurity.__version__, "works with JAX", jax.__version__)
"""
# A JAX error that explain knows: an `if` on a traced value.
IF_ON_TRACED = "jax.jit(lambda x: 1 if x > 0 else 0)(1.0)"
# The note that install(), %load_ext and pytest -p add to it, and the page it links.
NOTE = "jaxpurity: A jitted function used `if`"
PAGE = "examples/control_flow/python_control_flow.html"
# Whether the command line, run in this process on argv, imported JAX.
IMPORTS_JAX = """
import sys
from jaxpurity.__main__ import main
main({argv!r})
assert "jax" not in sys.modules, "{argv} imported JAX"
"""
# What `jaxpurity lint`, and flake8 with its plugin, must flag (JP130, on line 5).
BUGGY = """import jax

@jax.jit
def step(x):
    print(x)
    return x * 2
"""


def run(*command: str | Path, cwd: Path) -> str:
    """Run ``command`` in ``cwd``; on failure, show its output and stop."""
    done = subprocess.run([str(part) for part in command], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, command))} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def main(dist: Path) -> None:
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        sys.exit(f"expected one wheel and one sdist in {dist}, found {wheels + sdists}")
    with tarfile.open(sdists[0]) as sdist:
        tests = [name for name in sdist.getnames() if "/tests/" in name]
    if tests:
        sys.exit(f"the sdist holds tests that need the repository: {tests[:3]} (MANIFEST.in)")

    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch)
        venv.create(home / "env", with_pip=True)
        python = home / "env" / "bin" / "python"
        run(python, "-m", "pip", "install", "-q", wheels[0], "pytest", cwd=home)
        package = Path(
            run(
                python,
                "-c",
                "import jaxpurity, os; print(os.path.dirname(jaxpurity.__file__))",
                cwd=home,
            ).strip()
        )
        flags = "doctest_optionflags=ELLIPSIS NORMALIZE_WHITESPACE"
        doctests = run(
            python,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--doctest-modules",
            "-o",
            flags,
            "--rootdir",
            home,
            package,
            cwd=home,
        )
        print(doctests.strip().splitlines()[-1], "(doctests of the installed wheel)")
        explained = run(
            home / "env" / "bin" / "jaxpurity",
            "explain",
            "jax.errors.UnexpectedTracerError: Encountered an unexpected tracer.",
            cwd=home,
        )
        assert "leak" in explained.lower(), explained
        print("console script:", explained.strip().splitlines()[0])
        chinese = run(
            home / "env" / "bin" / "jaxpurity",
            "explain",
            "--lang",
            "zh_CN",
            "jax.errors.UnexpectedTracerError: Encountered an unexpected tracer.",
            cwd=home,
        )
        assert "详见" in chinese and "/zh_CN/" in chinese, chinese
        print("console script in Chinese:", chinese.strip().splitlines()[0])
        (home / "buggy.py").write_text(BUGGY)
        linted = subprocess.run(
            [home / "env" / "bin" / "jaxpurity", "lint", "buggy.py"],
            cwd=home,
            capture_output=True,
            text=True,
        )
        assert linted.returncode == 1 and "buggy.py:5:5: JP130 " in linted.stdout, linted
        print("jaxpurity lint:", linted.stdout.splitlines()[0][:60], "...")
        # Quiet when it passes: each command's output is read here, not printed.
        for argv, said in (
            (["lint", "--no-config", "buggy.py"], "buggy.py:5:5: JP130 "),
            # An error explain does not know: it says so and links the error index.
            (["explain", "--lang", "en", "x"], "Error index: "),
        ):
            ran = subprocess.run(
                [python, "-c", IMPORTS_JAX.format(argv=argv)],
                cwd=home,
                capture_output=True,
                text=True,
            )
            assert ran.returncode == 0 and said in ran.stdout, (argv, ran.stdout, ran.stderr)
        print("jaxpurity lint and explain import no JAX; explain links the error index")
        run(python, "-m", "pip", "install", "-q", "flake8", cwd=home)
        flake8 = subprocess.run(
            [python, "-m", "flake8", "--select", "JP", "buggy.py"],
            cwd=home,
            capture_output=True,
            text=True,
        )
        assert flake8.returncode == 1 and "buggy.py:5:5: JP130 " in flake8.stdout, flake8
        print("flake8 plugin:", flake8.stdout.splitlines()[0][:60], "...")
        print(run(python, "-c", SMOKE.format(site=package), cwd=home).strip())
        (home / "test_user.py").write_text(f"import jax\n\ndef test_if():\n    {IF_ON_TRACED}\n")
        tested = subprocess.run(
            [python, "-m", "pytest", "-p", "jaxpurity", "-p", "no:cacheprovider", "-q"],
            cwd=home,
            capture_output=True,
            text=True,
        )
        assert tested.returncode == 1 and PAGE in tested.stdout, tested.stdout
        print("pytest -p jaxpurity: the failure report links", PAGE)
        run(python, "-m", "pip", "install", "-q", "ipython", cwd=home)
        shown = subprocess.run(
            [home / "env" / "bin" / "ipython", "--quick", "--colors=NoColor", "-c"]
            + [f"%load_ext jaxpurity\nimport jax\n{IF_ON_TRACED}"],
            cwd=home,
            capture_output=True,
            text=True,
        )
        assert NOTE in shown.stdout + shown.stderr, shown
        print("%load_ext jaxpurity: IPython shows the note")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(
            "usage: python .ci/smoke_wheel.py DIST  (the folder with the built sdist and wheel)"
        )
    main(Path(sys.argv[1]))
