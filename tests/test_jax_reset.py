"""Tests for docs/sphinxext/jax_reset.py: each example starts with JAX's default flags."""

import jax
from jax_reset import reset_jax


def test_a_flag_one_example_sets_is_back_to_its_default_for_the_next():
    assert jax.config.jax_debug_nans is False
    jax.config.update("jax_debug_nans", True)
    reset_jax({}, "one_page.py", "after")
    assert jax.config.jax_debug_nans is False


def test_caches_are_cleared_so_the_next_example_traces_again():
    traces = []

    @jax.jit
    def f(x):
        traces.append(1)
        return x

    f(1.0)
    f(1.0)
    reset_jax({}, "one_page.py", "before")
    f(1.0)
    assert len(traces) == 2
