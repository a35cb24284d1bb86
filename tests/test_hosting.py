"""The hosts' configurations build the site with the README's command, on the newest JAX's Python.

Neither Read the Docs nor GitHub Actions can run here, so this reads their files:
each must parse, run exactly the command the README gives for building the site,
and ask for the Python that tox.ini's ``[newest_jax]`` says the newest JAX needs.
CI's script must run the README's two commands too.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def readme_command(section: str) -> str:
    """The one shell command in the README's ``## <section>`` code block."""
    text = (ROOT / "README.md").read_text()
    match = re.search(rf"^## {section}\n.*?```bash\n(.*?)\n```", text, re.S | re.M)
    assert match, f"README.md has no bash block under '## {section}'"
    (command,) = match.group(1).strip().splitlines()
    return command


def jax_by_python() -> list:
    """tox.ini's ``[newest_jax]`` requirements, newest first (read by ``.ci/newest_jax.py``)."""
    spec = importlib.util.spec_from_file_location("newest_jax", ROOT / ".ci" / "newest_jax.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.jax_by_python(ROOT / "tox.ini")


def newest_jax_python() -> str:
    """The lowest Python version the newest JAX in tox.ini installs on (``"3.12"``)."""
    newest = jax_by_python()[0]
    (version,) = re.findall(r"python_version >= \"(\d+\.\d+)\"", str(newest.marker))
    return version


def test_read_the_docs_builds_with_the_readme_command() -> None:
    config = yaml.safe_load((ROOT / ".readthedocs.yaml").read_text())
    assert config["version"] == 2
    assert config["build"]["tools"]["python"] == newest_jax_python()
    commands = config["build"]["commands"]
    assert commands[0] == readme_command("Build the site")
    # Read the Docs serves what lands in $READTHEDOCS_OUTPUT/html: the README's build/html.
    assert commands[1:] == [
        'mkdir -p "$READTHEDOCS_OUTPUT" && cp -r build/html "$READTHEDOCS_OUTPUT/html"'
    ]


def test_github_pages_builds_with_the_readme_command_and_deploys_it() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text())
    build, deploy = workflow["jobs"]["build"]["steps"], workflow["jobs"]["deploy"]["steps"]
    python = [step for step in build if step.get("uses", "").startswith("actions/setup-python")]
    assert [step["with"]["python-version"] for step in python] == [newest_jax_python()]
    runs = [step["run"] for step in build if "run" in step]
    assert runs[0] == readme_command("Build the site")
    (upload,) = [s for s in build if s.get("uses", "").startswith("actions/upload-pages-artifact")]
    assert upload["with"]["path"] == "build/html"
    assert [step["uses"].split("@")[0] for step in deploy] == ["actions/deploy-pages"]
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}


def test_github_pages_pushes_the_notebooks_colab_opens() -> None:
    from colab import BRANCH, NOTEBOOKS

    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text())
    job = workflow["jobs"]["build"]
    (push,) = [step for step in job["steps"] if "git push" in step.get("run", "")]
    assert push["working-directory"] == f"build/html/{NOTEBOOKS}"
    assert f"git init -q -b {BRANCH}" in push["run"]
    assert push["run"].rstrip().endswith(f'.git" {BRANCH}')
    assert job["permissions"] == {"contents": "write"}


def test_ci_runs_the_readme_commands() -> None:
    script = (ROOT / ".ci" / "run").read_text().splitlines()
    assert readme_command("Build the site") in script
    assert readme_command("Run the tests") in script


def test_readme_table_says_what_tox_ini_installs() -> None:
    from_tox = {
        next(iter(requirement.specifier)).version: str(requirement.marker)
        for requirement in jax_by_python()
    }
    rows = re.findall(r"^\| ([\d., ]+) \| ([\d.]+)", (ROOT / "README.md").read_text(), re.M)
    from_readme = {jax: pythons.split(", ") for pythons, jax in rows}
    assert set(from_readme) == set(from_tox), (from_readme, from_tox)
    for jax, marker in from_tox.items():
        (lowest,) = re.findall(r"\d+\.\d+", marker)
        assert from_readme[jax][0] == lowest, f"README says JAX {jax} is for {from_readme[jax]}"
