"""Shared fixtures: run a function with and without jit on every device, compare pytrees.

* ``run`` (a parameter): ``run(fn, *args)`` puts ``args`` on one device
  with :func:`jax.device_put` and calls ``fn`` directly or through :func:`jax.jit`.
  A test that takes it runs once per (device, jit) pair that ``jax.devices()`` offers.
* ``assert_same_tree`` (fixture): asserts two pytrees have the same structure,
  shapes, dtypes, weak types and values.
* ``x64`` (fixture): the test runs with 64-bit types on (``float64`` stays ``float64``).
* ``docs/sphinxext`` is put on the import path, for the tests of the docs build's extensions.
* ``slow`` marker: the corpora, the memory tests and the fix matrix (tests/lane.py runs them apart).
* On an accelerator, each test waits for its callbacks, and the processes tests start use the CPU.
* ``gpu`` marker: a test marked ``@pytest.mark.gpu`` runs where JAX sees a GPU and
  is skipped elsewhere; the ``gpu_devices`` fixture lists the GPUs.
* A run whose ``JAX_PLATFORMS`` leaves out ``cpu`` stops before collecting, saying why
  (:func:`jaxpurity._platforms.missing_cpu_platform`).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
# The repository's jaxpurity, whose doctests pytest collects from jaxpurity/, and not a copy
# that tox installed: this file imports it before collection starts, and a module imported
# from the copy would not match its doctests' file (pytest's "import file mismatch").
sys.path.insert(0, str(ROOT))
from jaxpurity._platforms import missing_cpu_platform  # noqa: E402

# The docs build's extensions (tests/test_error_index.py and others import them by name).
sys.path.insert(0, str(ROOT / "docs" / "sphinxext"))

# The linter's fixtures are data that tests/test_lint_rules.py reads, bugs on purpose: not
# modules to import for their doctests.
collect_ignore = ["lint_fixtures"]


def _gpus() -> list[jax.Device]:
    try:
        return jax.devices("gpu")
    except RuntimeError:
        return []


def pytest_configure(config: pytest.Config) -> None:
    # Before anything asks JAX for its devices: collection does (the ``run`` parameters).
    # Many tests (check_pure's, printed()'s, the gallery's) print through jax.debug.print.
    why = missing_cpu_platform(os.environ.get("JAX_PLATFORMS", ""), "the test suite")
    if why is not None:
        raise pytest.UsageError(why)
    config.addinivalue_line(
        "markers", "gpu: needs a GPU; skipped where jax.devices('gpu') finds none"
    )
    config.addinivalue_line(
        "markers",
        "slow: the corpora, the memory tests, the fix matrix; the backend lane (tests/lane.py) "
        "runs them apart, in a call of their own",
    )
    # One program at a time may hold a TPU chip, and this one does: the Pythons that tests
    # start (a script, a kernel, a process of its own to measure memory) run on the CPU.
    if jax.default_backend() != "cpu":
        os.environ["JAX_PLATFORMS"] = "cpu"


# Doctests that show what only newer Pythons have: BaseException.add_note is Python 3.11+.
_NEEDS_NOTES = {"jaxpurity.explainer._install.install"}


# An id that holds an object's address differs from process to process, and pytest-xdist
# (``pytest -n``) refuses a run whose workers collected different tests.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    addressed = [item.nodeid for item in items if _ADDRESS.search(item.nodeid)]
    if addressed:
        raise pytest.UsageError(
            f"test ids must be the same in every process, but {addressed[0]} holds an address: "
            "give its parametrize ids= (a name, not the object's repr)"
        )
    if sys.version_info < (3, 11):
        no_notes = pytest.mark.skip(reason="exception notes (add_note) need Python 3.11+")
        for item in items:
            if item.name in _NEEDS_NOTES:
                item.add_marker(no_notes)
    if _gpus():
        return
    skip = pytest.mark.skip(reason="needs a GPU, and JAX sees none here")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _callbacks_done_within_the_test() -> Iterator[None]:
    """On an accelerator a test's ``jax.debug.print`` may run after the test returned,
    and land in pytest's report outside any test's capture: wait for it inside."""
    yield
    if jax.default_backend() != "cpu":
        try:
            jax.effects_barrier()
        except Exception:  # noqa: BLE001 - a callback's own error, which its test saw already:
            pass  # JAX's effect tokens keep it until the next effect, for every later barrier


@pytest.fixture
def gpu_devices() -> list[jax.Device]:
    """The GPUs JAX can use here (empty on a CPU-only machine or with JAX_PLATFORMS=cpu)."""
    return _gpus()


@dataclass(frozen=True)
class Runner:
    """Calls a function on one device, with or without :func:`jax.jit`."""

    device: jax.Device
    jit: bool

    def __call__(self, fn: Callable[..., Any], *args: Any) -> Any:
        args = jax.device_put(args, self.device)
        return (jax.jit(fn) if self.jit else fn)(*args)

    def __str__(self) -> str:
        return f"{self.device.platform}{self.device.id}-{'jit' if self.jit else 'eager'}"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test that takes ``run`` runs once per (device, jit) pair: ``run(fn, *args)`` is
    ``fn(*args)`` on that device, eagerly or under ``jax.jit``."""
    if "run" in metafunc.fixturenames:
        runners = [Runner(d, jit) for d in jax.devices() for jit in (False, True)]
        metafunc.parametrize("run", runners, ids=str)


def _assert_same_tree(actual: Any, expected: Any) -> None:
    assert jax.tree_util.tree_structure(actual) == jax.tree_util.tree_structure(expected)
    for a, e in zip(
        jax.tree_util.tree_leaves(actual), jax.tree_util.tree_leaves(expected), strict=True
    ):
        assert (a.shape, a.dtype) == (e.shape, e.dtype)
        assert getattr(a, "weak_type", False) == getattr(e, "weak_type", False)
        np.testing.assert_array_equal(np.asarray(a), np.asarray(e))


@pytest.fixture
def assert_same_tree() -> Callable[[Any, Any], None]:
    """``assert_same_tree(actual, expected)``: same structure, dtypes, weak flags and values."""
    return _assert_same_tree


@pytest.fixture
def x64() -> Iterator[None]:
    """Run the test with 64-bit types on (``jax.enable_x64`` is newer than JAX 0.4.35)."""
    if hasattr(jax, "enable_x64"):
        context = jax.enable_x64(True)
    else:
        from jax.experimental import enable_x64

        context = enable_x64(True)
    with context:
        yield
