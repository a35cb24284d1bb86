"""The suite says what it needs from JAX's platforms before it collects anything.

jax.debug.print and jax.debug.callback run their Python on a CPU device, so a run with
``JAX_PLATFORMS=cuda`` (no CPU device) stops with the way to run on a GPU, instead of
failing some forty tests alike (``tests/conftest.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def _collect(platforms: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JAX_PLATFORMS": platforms}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", str(TESTS / "test_leaftypes.py")],
        capture_output=True,
        text=True,
        env=env,
        cwd=TESTS.parent,
        timeout=120,
    )


def test_a_run_without_a_cpu_platform_stops_and_says_how_to_run_on_a_gpu() -> None:
    proc = _collect("cuda")
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, proc.stdout + proc.stderr
    assert "JAX_PLATFORMS=cuda leaves JAX no CPU device" in proc.stderr
    assert "set JAX_PLATFORMS=cuda,cpu" in proc.stderr


def test_a_run_with_the_cpu_platform_collects() -> None:
    proc = _collect("cpu")
    assert proc.returncode == pytest.ExitCode.OK, proc.stdout + proc.stderr
    assert "test_leaftypes.py::" in proc.stdout
