"""tox's inline plugin: let tox find every Python that pyenv has built.

pyenv's shims answer ``python3.12`` only when 3.12 is pyenv's chosen
version, so tox would not find the interpreters the test matrix needs
(``tox.ini`` says which JAX each Python gets). When tox starts, this puts
the ``bin`` folder of the newest build of each Python minor version pyenv
has in front of ``PATH``. Where there is no pyenv, it does nothing.

Run as a script, it checks that CI has the interpreters it needs, and says
which are missing: ``python toxfile.py 3.10 3.11 3.12``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tox.plugin import impl


def pyenv_bin_dirs() -> list[Path]:
    """The ``bin`` folder of the newest pyenv build of each minor version, newest first."""
    root = os.environ.get("PYENV_ROOT") or (Path.home() / ".pyenv")
    newest: dict[tuple[int, int], tuple[tuple[int, ...], Path]] = {}
    for build in (Path(root) / "versions").glob("*"):
        match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", build.name)
        if not match or not (build / "bin" / "python").exists():
            continue
        version = tuple(int(part) for part in match.groups())
        minor = (version[0], version[1])
        if minor not in newest or version > newest[minor][0]:
            newest[minor] = (version, build / "bin")
    return [path for _, (_, path) in sorted(newest.items(), reverse=True)]


@impl
def tox_add_core_config(core_conf: Any, state: Any) -> None:
    """Before tox looks for any interpreter, put pyenv's builds on ``PATH``."""
    put_pyenv_on_path()


def put_pyenv_on_path() -> None:
    """Put the ``bin`` folders of :func:`pyenv_bin_dirs` in front of ``PATH``."""
    extra = [str(path) for path in pyenv_bin_dirs()]
    path = os.environ.get("PATH", "").split(os.pathsep)
    os.environ["PATH"] = os.pathsep.join(extra + [entry for entry in path if entry not in extra])


def missing_interpreters(versions: list[str]) -> list[str]:
    """The versions (``"3.12"``) for which no working ``python3.12`` is on ``PATH``."""
    missing = []
    for version in versions:
        executable = shutil.which(f"python{version}")
        works = executable is not None and (
            subprocess.run([executable, "-c", "pass"], capture_output=True).returncode == 0
        )
        if not works:
            missing.append(version)
    return missing


if __name__ == "__main__":
    put_pyenv_on_path()
    missing = missing_interpreters(sys.argv[1:])
    if missing:
        sys.exit(
            f"CI needs Python {', '.join(missing)} and cannot find it: tox.ini runs the suite on "
            "the newest JAX each Python supports. Install it (for example `pyenv install "
            f"{missing[0]}`) or put a python{missing[0]} on PATH."
        )
    print(f"found Python {', '.join(sys.argv[1:])}")
