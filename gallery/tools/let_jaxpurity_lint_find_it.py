"""
Let jaxpurity lint find it before you run it
============================================

:func:`jaxpurity.check_pure` and :func:`jaxpurity.find_leaks` need the
function, example arguments and a run. Many of the bugs on this site can be
seen in the source alone: a ``global`` inside a jitted function, a ``print``
of a tracer, ``numpy.random`` under :func:`jax.jit`, a Python ``if`` on a
traced argument. :func:`jaxpurity.lint`, and ``jaxpurity lint`` on the command
line, reads Python files without importing or running them, finds the
functions JAX traces, and reports in them what the pages show breaking, each
finding with the page that explains it. It is fast enough to run before every
commit, as a pre-commit hook or a flake8 plugin.
"""

# %%
# The site's scenarios, as source
# -------------------------------
#
# The linter takes files and folders, or source text. Here is the code of
# the first pages of this site, as their readers wrote it: a global counter
# (:doc:`../state_and_leaks/global_counter`), an attribute of ``self``
# (:doc:`../state_and_leaks/leak_through_self`), a list filled in a scan body
# (:doc:`../state_and_leaks/leak_from_loop_body`), a ``print``
# (:doc:`../side_effects/print_vs_debug_print`), NumPy noise
# (:doc:`../side_effects/frozen_randomness`) and an ``if`` on traced values
# (:doc:`../control_flow/python_control_flow`).

import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import jaxpurity

SCENARIOS = {
    "global_counter": """
        import jax

        counter = 0

        @jax.jit
        def step(x):
            global counter
            counter += 1
            return x * counter
    """,
    "leak_through_self": """
        import functools
        import jax

        class RunningMean:
            @functools.partial(jax.jit, static_argnums=0)
            def update(self, x):
                self.total = self.total + x.sum()
                return self.total
    """,
    "leak_from_loop_body": """
        import jax

        partial_sums = []

        def add_step(total, x):
            total = total + x
            partial_sums.append(total)
            return total, None

        final, _ = jax.lax.scan(add_step, 0.0, jax.numpy.arange(4.0))
    """,
    "print_vs_debug_print": """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def normalize(x):
            print("x =", x)
            return x / jnp.linalg.norm(x)
    """,
    "frozen_randomness": """
        import jax
        import numpy as np

        @jax.jit
        def add_noise(x):
            return x + np.random.normal()
    """,
    "python_control_flow": """
        import jax

        @jax.jit
        def leaky_relu(x):
            if x > 0:
                return x
            return 0.1 * x
    """,
}

# %%
# :func:`jaxpurity.lint` returns a list of :class:`jaxpurity.Finding`: where
# (line and column), the rule's code, a message, and the page. Each scenario
# gets one finding, and its page is the scenario's own.

for topic, code in SCENARIOS.items():
    (finding,) = jaxpurity.lint(source=textwrap.dedent(code).lstrip())
    print(f"{topic}:\n  line {finding.line}: {finding.code} {finding.message}")
    assert finding.topic == topic, finding

# %%
# A finding prints as the linters of Python print theirs, file, line and
# column first, so that editors and CI logs link it, and ends with the
# address of its page:

print(finding)
assert str(finding).startswith("<string>:5:8: JP201 ") and finding.url in str(finding)

# %%
# It knows what tracing knows
# ---------------------------
#
# A finding must be right far more often than not, or people stop reading
# them. The fixes of those pages are not flagged, nor is Python code that
# runs fine while JAX traces: a list appended to inside the function and
# stacked, :func:`jax.debug.print`, an explicit key split before each draw,
# a static argument in an ``if``, a test of ``.shape`` or ``is None``.

FIXED = """
import functools
import jax
import jax.numpy as jnp

@jax.jit
def pure_step(count, x):
    count = count + 1
    return x * count, count

@functools.partial(jax.jit, static_argnames="normalize")
def f(x, key, mask=None, normalize=False):
    parts = []
    for i in range(x.shape[0]):
        parts.append(x[i] * i)
    jax.debug.print("x = {}", x)
    key, subkey = jax.random.split(key)
    y = jnp.stack(parts) + jax.random.normal(subkey, x.shape)
    if mask is None or x.ndim > 1:
        y = jnp.where(y > 0, y, 0.1 * y)
    if normalize:
        y = y / y.sum()
    return y
"""
print("findings in the fixed code:", jaxpurity.lint(source=FIXED))
assert jaxpurity.lint(source=FIXED) == []

# %%
# Some code is impure on purpose: a counter of traces, while you look for a
# retrace. A noqa comment that names the code, at the end of the line as
# below, silences that finding, as with flake8; a bare noqa comment silences
# every finding of its line.

COUNTED = """
import jax
traces = 0

@jax.jit
def step(x):
    global traces
    # It counts the traces, on purpose.
    traces += 1  # noqa: JP101
    return x * 2
"""
print("with noqa:", jaxpurity.lint(source=COUNTED))
assert jaxpurity.lint(source=COUNTED) == []

# %%
# A test that counts traces does it on purpose too. When only ``assert``
# statements (or ``self.assertEqual`` and its kin) read the counter, and no
# traced function does, the linter takes it for a trace counter and says
# nothing. Nor does it report code inside ``pytest.raises`` or
# ``self.assertRaises``: a test expects that code to fail.

TESTED = """
import jax

def test_one_trace():
    traces = 0

    @jax.jit
    def step(x):
        nonlocal traces
        traces += 1
        return x * 2

    step(1.0)
    step(2.0)
    assert traces == 1
"""
print("in a test:", jaxpurity.lint(source=TESTED))
assert jaxpurity.lint(source=TESTED) == []

# %%
# On the command line
# -------------------
#
# ``jaxpurity lint PATH...`` checks files and folders (folders recursively,
# without hidden folders and virtual environments), prints one line per
# finding, and exits with status 1 when it finds something, 0 when it does
# not. Here it checks a file holding the NumPy noise of above.

folder = Path(tempfile.mkdtemp())
(folder / "noise.py").write_text(textwrap.dedent(SCENARIOS["frozen_randomness"]).lstrip())
# sphinx_gallery_start_ignore
# The site is built from a source checkout: give the command this jaxpurity.
import os

python_path = os.environ.get("PYTHONPATH")
package_root = str(Path(jaxpurity.__file__).resolve().parent.parent)
os.environ["PYTHONPATH"] = os.pathsep.join([package_root, python_path or ""])
# sphinx_gallery_end_ignore
command = [sys.executable, "-m", "jaxpurity", "lint", "noise.py"]
result = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False)
print(result.stdout, end="")
print("exit status:", result.returncode)
assert result.returncode == 1 and result.stdout.startswith("noise.py:6:16: JP120 "), result

# %%
# ``--format json`` writes the same findings as a list of objects, and
# ``--format sarif`` as SARIF 2.1.0, which code-scanning tools such as
# GitHub's read; ``--select`` and ``--ignore`` take codes or prefixes
# (``--ignore JP1``), and ``--explain JP120`` says what a rule finds, its
# page, and what it cannot see.

command = [sys.executable, "-m", "jaxpurity", "lint", "--format", "json", "noise.py"]
result = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False)
# sphinx_gallery_start_ignore
if python_path is None:
    del os.environ["PYTHONPATH"]
else:
    os.environ["PYTHONPATH"] = python_path
# sphinx_gallery_end_ignore
(entry,) = json.loads(result.stdout)
print(json.dumps(entry, indent=2))
assert entry["code"] == "JP120" and entry["topic"] == "frozen_randomness", entry

# %%
# Before every commit
# -------------------
#
# The repository ships a pre-commit hook. In a project's
# ``.pre-commit-config.yaml``:
#
# .. code-block:: yaml
#
#    repos:
#      - repo: https://github.com/jaxpurity/jaxpurity
#        rev: v0.1.0  # a release of jaxpurity
#        hooks:
#          - id: jaxpurity-lint
#
# With jaxpurity installed, ``flake8`` reports the same codes (the package
# registers a flake8 plugin), under flake8's own ``--select`` and noqa
# comments. Settings live in the project's ``pyproject.toml``; ``wrappers``
# names your own wrappers of :func:`jax.jit`, which the linter then reads as
# :func:`jax.jit`:
#
# .. code-block:: toml
#
#    [tool.jaxpurity.lint]
#    ignore = ["JP111"]
#    wrappers = ["mylib.compile"]
#
# The rules, and what each cannot see
# -----------------------------------
#
# The linter sees one module at a time, and no value: a function traced
# only from another module, a container passed in as an argument, a shape
# that is wrong only for some inputs, escape it. Each rule says what it
# misses, and links the page that explains what it finds;
# ``jaxpurity lint --explain`` lists them. One rule is off by default:
# JP122, one key shared by every row of a :func:`jax.vmap`, was right on 1
# of its 3 findings on real code, because a key shared on purpose (common
# random numbers across a population) reads the same as the bug;
# ``select = ["JP122"]`` turns it on.

command = [sys.executable, "-m", "jaxpurity", "lint", "--explain"]
# sphinx_gallery_start_ignore
os.environ["PYTHONPATH"] = os.pathsep.join([package_root, python_path or ""])
# sphinx_gallery_end_ignore
result = subprocess.run(command, capture_output=True, text=True, check=False)
# sphinx_gallery_start_ignore
if python_path is None:
    del os.environ["PYTHONPATH"]
else:
    os.environ["PYTHONPATH"] = python_path
# sphinx_gallery_end_ignore
print(result.stdout, end="")
codes = [line.split()[0] for line in result.stdout.splitlines() if line.startswith("JP")]
assert result.returncode == 0 and len(codes) == len(set(codes)) >= 30, result

# sphinx_gallery_start_ignore
# The fixes of this page, and where each must hold: tests/test_fixes_hold.py runs them.
FIXES = {}  # the linter reads code and runs none: the fixes are on the pages it links
# sphinx_gallery_end_ignore
