"""Say which JAX this Python gets, and whether it is the newest there is.

tox.ini's ``[newest_jax]`` section is the one record of which Python gets
which JAX. The environments that want the newest JAX (docs, newest, e2e,
lint) ask for the first Python they find in a list that starts with the one
the newest JAX needs; this prints, before they run, what they got, so that a
build on an older Python says that it fell back.
"""

from __future__ import annotations

import configparser
import sys
from importlib.metadata import version
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.version import Version


def jax_by_python(tox_ini: Path) -> list[Requirement]:
    """The ``jax==`` requirements of ``[newest_jax]``, newest JAX first."""
    config = configparser.ConfigParser()
    config.read(tox_ini)
    lines = config["newest_jax"]["deps"].strip().splitlines()
    requirements = [Requirement(line.strip()) for line in lines if line.strip()]
    jax = [requirement for requirement in requirements if requirement.name == "jax"]
    return sorted(jax, key=lambda r: Version(next(iter(r.specifier)).version), reverse=True)


def main() -> None:
    table = jax_by_python(Path(__file__).resolve().parent.parent / "tox.ini")
    newest = table[0]
    python = ".".join(map(str, sys.version_info[:3]))
    installed = version("jax")
    wanted = Version(next(iter(newest.specifier)).version)
    if Version(installed) >= wanted:
        print(f"JAX {installed} on Python {python}: the newest JAX in tox.ini's [newest_jax].")
        return
    marker = newest.marker or Marker("python_version >= '0'")
    print(
        f"JAX {installed} on Python {python}: the newest JAX for this Python. The newest JAX, "
        f"{wanted}, needs {marker}, and tox found no such Python; install one (tox also "
        "finds pyenv's builds) to build and test with it."
    )


if __name__ == "__main__":
    main()
