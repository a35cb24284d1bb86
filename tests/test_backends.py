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
from typing import Any

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


@pytest.fixture
def no_cpu_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """JAX as ``JAX_PLATFORMS=cuda`` leaves it: ``jax.devices("cpu")`` finds none (simulated:
    no GPU here, so this is untested on a real one)."""
    import jax

    devices = jax.devices

    def without_cpu(backend: Any = None) -> Any:
        if backend == "cpu":
            raise RuntimeError("Unknown backend cpu")  # JAX's own words on 0.4.35 and 0.12
        return devices(backend)

    monkeypatch.setattr(jax, "devices", without_cpu)
    monkeypatch.setenv("JAX_PLATFORMS", "cuda")


@pytest.mark.parametrize("api", ["check_pure", "find_leaks", "printed"])
def test_without_a_cpu_device_the_checks_and_printed_say_what_to_set(
    no_cpu_device: None, api: str
) -> None:
    import jax.numpy as jnp

    import jaxpurity

    calls = {
        "check_pure": lambda: jaxpurity.check_pure(jnp.sin, jnp.ones(2)),
        "find_leaks": lambda: jaxpurity.find_leaks(jnp.sin, jnp.ones(2)),
        "printed": lambda: jaxpurity.printed().__enter__(),
    }
    with pytest.raises(RuntimeError) as error:
        calls[api]()
    said = str(error.value)
    assert said.startswith("JAX_PLATFORMS=cuda leaves JAX no CPU device")
    assert f"jaxpurity.{api}" in said and "set JAX_PLATFORMS=cuda,cpu" in said
    assert "Unknown backend cpu" in str(error.value.__cause__)
