"""Tests for jaxpurity.explain and ``python -m jaxpurity explain``.

Every error is raised live by the installed JAX, so the tests follow JAX's real
wording on every supported version; nothing here is a pasted message.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import logging
import math
import os
import pathlib
import re
import subprocess
import sys
import traceback
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxpurity
import jaxpurity.__main__ as cli
from jaxpurity._layout import width
from jaxpurity._pages import page, url
from jaxpurity.control._state import Stateful
from jaxpurity.control._typediff import TypeMismatchError, check_same_types
from jaxpurity.explainer._explain import not_recognised

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _leak_from(transform: Callable[[Callable], object]) -> object:
    """Run ``transform(f)`` where ``f`` stores its argument; return what it stored."""
    store = []

    def f(x):
        store.append(x)
        return x * 2.0

    transform(f)
    return store[0]


def _use(leaked: object) -> None:
    """Use a leaked tracer the way user code does: inside a later jitted call."""
    jax.jit(lambda x: x * leaked)(2.0)


def _jit_leak() -> None:
    _use(_leak_from(lambda f: jax.jit(f)(1.0)))


def _jit_leak_through_self() -> None:
    class Model:
        def step(self, x):
            self.last = x
            return x

    model = Model()
    jax.jit(model.step)(1.0)
    _use(model.last)


def _jit_method_leak() -> None:
    class RunningSum:
        total = 0.0

        def add(self, x):
            self.total = self.total + x
            return self.total

    summer = RunningSum()
    jax.jit(summer.add)(1.0)
    _use(summer.total)


def _jit_method_leak_through_a_helper() -> None:
    class Trainer:  # in a function: its methods' qualified names read ...<locals>.Trainer.step
        def __init__(self):
            self.w = jnp.ones(3)

        def _update(self, x):
            self.w = self.w * x

        def step(self, x):
            self._update(x)  # the leaked value is made in _update, not in the traced step
            return x

    trainer = Trainer()
    jax.jit(trainer.step)(2.0)
    _use(trainer.w)


def _jit_on_a_method() -> None:
    class Model:
        def __init__(self):
            self.scale = 2.0

        @jax.jit
        def apply(self, x):  # jit traces self, the first argument
            return self.scale * x

    Model().apply(1.0)


def _scan_leak() -> None:
    _use(_leak_from(lambda f: jax.lax.scan(lambda c, x: (f(c), x), 0.0, jnp.arange(3.0))))


def _while_leak() -> None:
    _use(_leak_from(lambda f: jax.lax.while_loop(lambda c: c < 3.0, f, 1.0)))


def _fori_leak() -> None:
    _use(_leak_from(lambda f: jax.lax.fori_loop(0, 3, lambda i, c: f(c), 1.0)))


def _grad_leak() -> None:
    _use(_leak_from(lambda f: jax.grad(f)(1.0)))


def _jvp_leak() -> None:
    _use(_leak_from(lambda f: jax.jvp(f, (1.0,), (1.0,))))


def _vmap_leak() -> None:
    _use(_leak_from(lambda f: jax.vmap(f)(jnp.arange(3.0))))


def _checked_jit_leak() -> None:
    with jax.checking_leaks():
        _leak_from(lambda f: jax.jit(f)(1.0))


def _checked_scan_leak() -> None:
    with jax.checking_leaks():
        _leak_from(lambda f: jax.lax.scan(lambda c, x: (f(c), x), 0.0, jnp.arange(3.0)))


def _checked_vmap_leak() -> None:
    with jax.checking_leaks():
        _leak_from(lambda f: jax.vmap(f)(jnp.arange(3.0)))


def _checked_grad_leak() -> None:
    with jax.checking_leaks():
        _leak_from(lambda f: jax.grad(f)(1.0))


def _checked_vmap_leak_into_object() -> None:
    # The chain names the holder ("<Holder ...>.last"), which is what the fix changes: it
    # wins over the trace's kind (vmap).
    class Holder:
        last: object = None

    holder = Holder()

    def f(x: jax.Array) -> jax.Array:
        holder.last = x
        return x

    with jax.checking_leaks():
        jax.vmap(f)(jnp.arange(3.0))


def _python_if() -> None:
    jax.jit(lambda x: x if x > 0 else -x)(1.0)


def _traced_flag() -> None:
    jax.jit(lambda x, training: x * 0.5 if training else x)(1.0, True)


def _traced_flag_in_a_dict() -> None:
    jax.jit(lambda x, cfg: x if cfg["inference"] else -x)(1.0, {"inference": True})


def _lru_cache_of_a_tracer() -> None:
    @functools.lru_cache
    def window(n):
        return jnp.ones(n)

    jax.jit(lambda n: window(n))(3)


def _list_index() -> None:
    jax.jit(lambda i: [1.0, 2.0, 3.0][i])(1)


def _numpy_call() -> None:
    jax.jit(lambda x: np.asarray(x))(1.0)


def _traced_size() -> None:
    jax.jit(lambda n: jnp.arange(n))(3)


def _traced_float() -> None:
    jax.jit(lambda x: float(x))(1.0)


def _float_of_constant(x: jax.Array) -> jax.Array:
    return x * float(jnp.arange(3.0).sum())  # a tracer under jit, though no argument feeds it


def _traced_constant_float() -> None:
    jax.jit(_float_of_constant)(1.0)


def _float_in_a_jitted_step() -> None:
    @jax.jit
    def step(params, x):
        loss = jnp.sum(params * x)
        print("loss:", float(loss))  # JAX: it "depends on the values of the arguments params and x"
        return params - 0.1 * loss

    step(jnp.ones(3), jnp.ones(3))


def _float_of_a_traced_setting() -> None:
    jax.jit(lambda x, num_steps: x * float(num_steps))(1.0, 3)


def _retrace() -> None:
    counted = jax.jit(jaxpurity.count_traces(lambda x: x * 2, max_traces=1))
    counted(jnp.ones(2))
    counted(jnp.ones(3))


def _traced_shape() -> None:
    jax.jit(lambda n: jnp.zeros(n))(3)


def _non_hashable_static() -> None:
    jax.jit(lambda x, config: x * config["scale"], static_argnames="config")(1.0, {"scale": 2.0})


@dataclasses.dataclass(frozen=True)
class _Weights:
    """A static argument whose generated ``__eq__`` compares an array field."""

    values: np.ndarray

    def __hash__(self) -> int:
        return hash(self.values.tobytes())


def _static_array_field_compared() -> None:
    scaled = jax.jit(lambda x, weights: x * weights.values.sum(), static_argnums=1)
    scaled(1.0, _Weights(np.ones(3)))
    scaled(1.0, _Weights(np.ones(3)))  # jit compares it with the cached one: an array


def _traced_slice() -> None:
    jax.jit(lambda x, i: x[i : i + 2])(jnp.arange(5.0), 1)


def _vmapped_slice() -> None:
    # JAX 0.12 adds where the tracer was made ("This VmapTracer with object id ... was
    # created on line"), as the leak checker does: still the slicing page, not a leak.
    jax.vmap(lambda i: jnp.arange(5.0)[i : i + 2])(jnp.arange(2))


def _boolean_mask() -> None:
    jax.jit(lambda x: x[x > 0])(jnp.arange(3.0))


def _key_reused() -> None:
    with jax.debug_key_reuse(True):
        key = jax.random.key(0)
        jax.random.normal(key)
        jax.random.normal(key)


def _key_reused_in_jit() -> None:
    with jax.debug_key_reuse(True):
        jax.jit(lambda k: jax.random.normal(k) + jax.random.normal(k))(jax.random.key(0))


def _key_reused_in_scan() -> None:
    with jax.debug_key_reuse(True):
        jax.lax.scan(lambda k, x: (k, jax.random.normal(k)), jax.random.key(0), jnp.arange(3.0))


def _key_closed_over_in_scan() -> None:
    key = jax.random.key(0)
    with jax.debug_key_reuse(True):
        jax.lax.scan(lambda c, _: (c, jax.random.normal(key)), 0.0, None, length=3)


def _key_closed_over_in_while_loop() -> None:
    key = jax.random.key(0)
    with jax.debug_key_reuse(True):
        jax.lax.while_loop(lambda c: c < 3.0, lambda c: c + jax.random.uniform(key), 0.0)


def _shard_map(f, mesh, spec):
    """``jax.shard_map`` (JAX 0.6.1 on), or the experimental one before."""
    if hasattr(jax, "shard_map"):
        return jax.shard_map(f, mesh=mesh, in_specs=spec, out_specs=spec)
    from jax.experimental.shard_map import shard_map

    return shard_map(f, mesh=mesh, in_specs=spec, out_specs=spec)


def _shard_map_leak() -> None:
    from jax.sharding import Mesh, PartitionSpec

    mesh = Mesh(np.array(jax.devices()), ("d",))
    kept = []
    f = _shard_map(lambda x: kept.append(x) or x, mesh, PartitionSpec("d"))
    jax.jit(f)(jnp.arange(float(2 * len(jax.devices()))))
    kept[0] + 1


def _pmap_leak() -> None:
    kept = []
    jax.pmap(lambda x: kept.append(x) or x)(jnp.arange(float(len(jax.devices()))))
    kept[0] + 1


def _ordered_print_on_devices() -> None:
    # One device runs it fine (and the test is skipped); the newest suite has four.
    from jax.sharding import Mesh, PartitionSpec

    mesh = Mesh(np.array(jax.devices()), ("d",))
    f = _shard_map(lambda x: jax.debug.print("{}", x, ordered=True) or x, mesh, PartitionSpec("d"))
    jax.jit(f)(jnp.arange(float(2 * len(jax.devices()))))


def _cond_dtypes() -> None:
    jax.lax.cond(True, lambda x: x, lambda x: x.astype(jnp.int32), 1.0)


def _cond_structures() -> None:
    jax.lax.cond(True, lambda x: (x, x), lambda x: x, 1.0)


def _switch_shapes() -> None:
    jax.lax.switch(0, [lambda x: x, lambda x: x, lambda x: jnp.stack([x, x])], 1.0)


def _switch_structures() -> None:
    jax.lax.switch(0, [lambda x: x, lambda x: (x, x)], 1.0)


def _scan_carry_dtype() -> None:
    jax.lax.scan(lambda c, x: (c * 1.5, x), jnp.int32(0), jnp.arange(3.0))


def _scan_carry_structure() -> None:
    jax.lax.scan(lambda c, x: ((c, c), x), 0.0, jnp.arange(3.0))


def _while_carry_shape() -> None:
    jax.lax.while_loop(lambda c: c.sum() < 3.0, lambda c: jnp.stack([c, c]), 0.0)


def _fori_carry_dtype() -> None:
    jax.lax.fori_loop(0, 3, lambda i, c: c.astype(jnp.int32), 1.0)


def _fori_traced_bounds_carry_dtype() -> None:
    jax.jit(lambda n: jax.lax.fori_loop(0, n, lambda i, c: c.astype(jnp.int32), 1.0))(3)


def _item_assignment() -> None:
    x = jnp.zeros(3)
    x[0] = 1.0


def _item_assignment_in_jit() -> None:
    def f(x):
        x[0] += 1.0
        return x

    jax.jit(f)(jnp.zeros(3))


def _assignment_through_at() -> None:
    x = jnp.zeros(3)
    x.at[0] = 1.0  # type: ignore[index]


def _set_on_array() -> None:
    jnp.zeros(3).set(1.0)  # type: ignore[attr-defined]


def _set_on_tracer_in_jit() -> None:
    jax.jit(lambda x: x.set(1.0))(jnp.zeros(3))


def _add_on_tracer_in_vmap() -> None:
    jax.vmap(lambda x: x.add(1.0))(jnp.zeros(3))


def _checkify_index() -> None:
    from jax.experimental import checkify

    err, _ = checkify.checkify(lambda x: x[7], errors=checkify.index_checks)(jnp.arange(4.0))
    err.throw()


def _checkify_nan() -> None:
    from jax.experimental import checkify

    err, _ = checkify.checkify(jax.jit(jnp.log), errors=checkify.nan_checks)(-1.0)
    err.throw()


def _checkify_user_check_in_vmap() -> None:
    from jax.experimental import checkify

    def positive(x):
        checkify.check(x > 0, "x must be positive, got {}", x)
        return x

    err, _ = jax.vmap(checkify.checkify(positive))(jnp.array([1.0, -1.0]))
    err.throw()


def _check_without_checkify() -> None:
    from jax.experimental import checkify

    def positive(x):
        checkify.check(x > 0, "x must be positive")
        return x

    jax.jit(positive)(1.0)


def _no_tracing() -> None:
    f = jax.jit(lambda x: x + 1)
    x = jnp.ones(2)
    with jax.no_tracing(True):
        f(x)


def _retrace_new_lambda() -> None:
    counted = jaxpurity.count_traces(lambda x: x, max_traces=1)
    for _ in range(2):
        jax.jit(lambda x: counted(x))(1.0)


def _pure_callback_under_grad() -> None:
    jax.grad(lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct((), jnp.float32), x))(1.0)


def _io_callback_under_grad() -> None:
    from jax.experimental import io_callback

    jax.grad(lambda x: io_callback(np.sin, jax.ShapeDtypeStruct((), jnp.float32), x))(1.0)


def _pure_callback_under_vmap() -> None:  # raises from JAX 0.6.0; 0.4.35 loops and warns
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        jax.vmap(lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct((), x.dtype), x))(
            jnp.arange(3.0)
        )


def _ordered_io_callback_under_vmap() -> None:
    from jax.experimental import io_callback

    jax.vmap(lambda x: io_callback(np.sin, jax.ShapeDtypeStruct((), x.dtype), x, ordered=True))(
        jnp.arange(3.0)
    )


def _donated_then_read() -> None:
    x = jnp.zeros(3)
    jax.jit(lambda a: a + 1.0, donate_argnums=0)(x)
    x + 1.0


def _donated_twice() -> None:  # JaxRuntimeError on JAX 0.10.2 on; XlaRuntimeError before
    both = jax.jit(lambda a, b: (a + b, a - b), donate_argnums=(0, 1))
    x = jnp.zeros(3)
    both(x, x)


def _donated_then_passed_again() -> None:  # RuntimeError on JAX 0.12; ValueError before
    step = jax.jit(lambda a: a + 1.0, donate_argnums=0)
    x = jnp.zeros(3)
    step(x)
    step(x)


def _donated_and_passed_in_one_call() -> None:  # f(donate(a), a): the hang of jax-ml/jax#9635
    add = jax.jit(lambda a, b: a + b, donate_argnums=0)
    x = jnp.zeros(3)
    add(x, x)


def _callback_of_the_wrong_shape() -> None:  # the declared (3,), a result of (4,)
    declared = jax.ShapeDtypeStruct((3,), jnp.float32)
    step = jax.jit(lambda x: jax.pure_callback(lambda x: np.zeros(4, np.float32), declared, x))
    step(jnp.ones(3)).block_until_ready()


def _format_spec_on_a_tracer() -> None:
    @jax.jit
    def step(loss):
        print(f"loss {loss:.3f}")
        return loss

    step(1.0)


def _scan_body_returns_the_carry_alone() -> None:  # the loop_carry_types page's slip
    jax.lax.scan(lambda total, row: total + row, jnp.zeros(3), jnp.ones((4, 3)))


def _row_into_a_scalar_slot() -> None:  # the python_control_flow page's fori_loop port
    collect = jax.jit(
        lambda x: jax.lax.fori_loop(0, 5, lambda i, out: out.at[i].set(x + i), jnp.zeros((5,)))
    )
    collect(jnp.arange(3.0))


def _needs_new_ref() -> None:
    if not hasattr(jax, "new_ref"):
        pytest.skip(f"JAX {jax.__version__} has no jax.new_ref (JAX 0.7.2 and newer)")


def _shared_ref_written_under_vmap() -> None:  # the global_counter page's ref_step, mapped
    _needs_new_ref()

    def ref_step(ref, x):
        ref[...] += 1
        return x * ref[...]

    jax.vmap(jax.jit(ref_step), in_axes=(None, 0))(jax.new_ref(jnp.int32(0)), jnp.ones(2))


def _ref_returned_from_jit() -> None:
    _needs_new_ref()
    jax.jit(lambda ref: ref)(jax.new_ref(jnp.int32(0)))


# name -> (code that raises, the gallery topic explain must point to)
def _grad_of_traced_fori() -> None:
    loop = jax.jit(lambda x, n: jax.lax.fori_loop(0, n, lambda i, x: x * x, x))
    jax.grad(loop)(1.0, 5)


def _grad_of_while() -> None:
    jax.grad(lambda x: jax.lax.while_loop(lambda x: x < 10.0, lambda x: 2.0 * x, x))(1.0)


def _debug_nans_in_grad() -> None:
    with jax.debug_nans(True):
        jax.grad(lambda x: jnp.where(x > 0, jnp.sqrt(x), 0.0))(0.0)


def _debug_nans_in_jit() -> None:
    with jax.debug_nans(True):
        jax.jit(lambda x: jnp.log(x) * 2.0)(-1.0)


CASES: dict[str, tuple[Callable[[], None], str]] = {
    "jit_leak": (_jit_leak, "global_counter"),
    "jit_leak_through_self": (_jit_leak_through_self, "global_counter"),
    "jit_method_leak": (_jit_method_leak, "leak_through_self"),
    "jit_method_leak_through_a_helper": (_jit_method_leak_through_a_helper, "leak_through_self"),
    "jit_on_a_method": (_jit_on_a_method, "leak_through_self"),
    "scan_leak": (_scan_leak, "leak_from_loop_body"),
    "while_leak": (_while_leak, "leak_from_loop_body"),
    "fori_leak": (_fori_leak, "leak_from_loop_body"),
    "grad_leak": (_grad_leak, "leak_from_grad_vmap"),
    "jvp_leak": (_jvp_leak, "leak_from_grad_vmap"),
    "vmap_leak": (_vmap_leak, "leak_from_grad_vmap"),
    "checked_jit_leak": (_checked_jit_leak, "global_counter"),
    "checked_scan_leak": (_checked_scan_leak, "leak_from_loop_body"),
    "checked_vmap_leak": (_checked_vmap_leak, "leak_from_grad_vmap"),
    "checked_grad_leak": (_checked_grad_leak, "leak_from_grad_vmap"),
    "checked_vmap_leak_into_object": (_checked_vmap_leak_into_object, "leak_through_self"),
    "python_if": (_python_if, "python_control_flow"),
    "traced_flag": (_traced_flag, "static_arguments"),
    "traced_flag_in_a_dict": (_traced_flag_in_a_dict, "static_arguments"),
    "lru_cache_of_a_tracer": (_lru_cache_of_a_tracer, "static_arguments"),
    "list_index": (_list_index, "python_control_flow"),
    "numpy_call": (_numpy_call, "python_control_flow"),
    "traced_size": (_traced_size, "static_arguments"),
    "traced_float": (_traced_float, "python_control_flow"),
    "traced_constant_float": (_traced_constant_float, "python_control_flow"),
    "float_in_a_jitted_step": (_float_in_a_jitted_step, "python_control_flow"),
    "float_of_a_traced_setting": (_float_of_a_traced_setting, "static_arguments"),
    "retrace": (_retrace, "static_arguments"),
    "traced_shape": (_traced_shape, "static_arguments"),
    "non_hashable_static": (_non_hashable_static, "static_objects"),
    "static_array_field_compared": (_static_array_field_compared, "static_objects"),
    "traced_slice": (_traced_slice, "dynamic_slicing"),
    "vmapped_slice": (_vmapped_slice, "dynamic_slicing"),
    "boolean_mask": (_boolean_mask, "boolean_masks"),
    "key_reused": (_key_reused, "frozen_randomness"),
    "key_reused_in_jit": (_key_reused_in_jit, "frozen_randomness"),
    "key_reused_in_scan": (_key_reused_in_scan, "keys_in_vmap_and_scan"),
    "key_closed_over_in_scan": (_key_closed_over_in_scan, "keys_in_vmap_and_scan"),
    "key_closed_over_in_while_loop": (_key_closed_over_in_while_loop, "keys_in_vmap_and_scan"),
    "shard_map_leak": (_shard_map_leak, "side_effects_across_devices"),
    "pmap_leak": (_pmap_leak, "side_effects_across_devices"),
    "ordered_print_on_devices": (_ordered_print_on_devices, "side_effects_across_devices"),
    "cond_dtypes": (_cond_dtypes, "cond_branch_types"),
    "cond_structures": (_cond_structures, "cond_branch_types"),
    "switch_shapes": (_switch_shapes, "cond_branch_types"),
    "switch_structures": (_switch_structures, "cond_branch_types"),
    "scan_carry_dtype": (_scan_carry_dtype, "loop_carry_types"),
    "scan_carry_structure": (_scan_carry_structure, "loop_carry_types"),
    "while_carry_shape": (_while_carry_shape, "loop_carry_types"),
    "fori_carry_dtype": (_fori_carry_dtype, "loop_carry_types"),
    "fori_traced_bounds_carry_dtype": (_fori_traced_bounds_carry_dtype, "loop_carry_types"),
    "item_assignment": (_item_assignment, "inplace_updates"),
    "item_assignment_in_jit": (_item_assignment_in_jit, "inplace_updates"),
    "assignment_through_at": (_assignment_through_at, "inplace_updates"),
    "set_on_array": (_set_on_array, "inplace_updates"),
    "set_on_tracer_in_jit": (_set_on_tracer_in_jit, "inplace_updates"),
    "add_on_tracer_in_vmap": (_add_on_tracer_in_vmap, "inplace_updates"),
    "checkify_index": (_checkify_index, "runtime_errors"),
    "checkify_nan": (_checkify_nan, "runtime_errors"),
    "checkify_user_check_in_vmap": (_checkify_user_check_in_vmap, "runtime_errors"),
    "check_without_checkify": (_check_without_checkify, "runtime_errors"),
    "no_tracing": (_no_tracing, "retracing_storms"),
    "retrace_new_lambda": (_retrace_new_lambda, "retracing_storms"),
    "pure_callback_under_grad": (_pure_callback_under_grad, "callbacks"),
    "io_callback_under_grad": (_io_callback_under_grad, "callbacks"),
    "pure_callback_under_vmap": (_pure_callback_under_vmap, "callbacks"),
    "ordered_io_callback_under_vmap": (_ordered_io_callback_under_vmap, "callbacks"),
    "donated_then_read": (_donated_then_read, "buffer_donation"),
    "donated_then_passed_again": (_donated_then_passed_again, "buffer_donation"),
    "donated_twice": (_donated_twice, "buffer_donation"),
    "donated_and_passed_in_one_call": (_donated_and_passed_in_one_call, "buffer_donation"),
    "callback_of_the_wrong_shape": (_callback_of_the_wrong_shape, "callbacks"),
    "format_spec_on_a_tracer": (_format_spec_on_a_tracer, "print_vs_debug_print"),
    "scan_body_returns_the_carry_alone": (_scan_body_returns_the_carry_alone, "loop_carry_types"),
    "row_into_a_scalar_slot": (_row_into_a_scalar_slot, "python_control_flow"),
    "shared_ref_written_under_vmap": (_shared_ref_written_under_vmap, "mutable_refs"),
    "ref_returned_from_jit": (_ref_returned_from_jit, "mutable_refs"),
    "grad_of_traced_fori": (_grad_of_traced_fori, "differentiating_loops"),
    "grad_of_while": (_grad_of_while, "differentiating_loops"),
    "debug_nans_in_grad": (_debug_nans_in_grad, "nan_gradients"),
    "debug_nans_in_jit": (_debug_nans_in_jit, "nan_gradients"),
}

# The same error, handed to explain in each form a user may have it in.
FORMS: dict[str, Callable[[BaseException], BaseException | str]] = {
    "exception": lambda exc: exc,
    "message": str,
    "type_and_message": lambda exc: f"{type(exc).__name__}: {exc}",
    "traceback": lambda exc: "".join(traceback.format_exception(exc)),
}
# The forms that carry the traceback's frames and the lines they ran.
FORMS_WITH_FRAMES = ("exception", "traceback")


@functools.cache
def _raised(case: str) -> BaseException:
    """The exception that ``case`` raises with the installed JAX (raised once per run)."""
    trigger, _ = CASES[case]
    try:
        trigger()
    except Exception as exc:
        return exc
    pytest.skip(f"JAX {jax.__version__} raises nothing for {case}")


def _expected_topic(case: str, exc: BaseException) -> str:
    topic = CASES[case][1]
    if case == "checked_scan_leak" and not re.search(r"\bfor scan\b", str(exc)):
        # JAX 0.4.35's leak checker does not say which transformation leaked, so the
        # loop cannot be known from its message; the jit page is the honest answer.
        return "global_counter"
    if case.startswith("jit_method_leak") and sys.version_info < (3, 11):
        # The method is known by its qualified name ("created on line f.py:5 (RunningSum.add)"),
        # which Python 3.11 brought (co_qualname); before, JAX names the function alone.
        return "global_counter"
    return topic


# A traced value where one of JAX's own functions needs a number: its message alone reads like
# any other conversion error, so the function that raised it, in the traceback, says what the
# value was for. name -> (code that raises, the topic explain must point to)
def _segment_sum_of_traced_count() -> None:
    jax.jit(jax.ops.segment_sum)(jnp.ones(3), jnp.array([0, 1, 1]), 2)


def _one_hot_of_traced_classes() -> None:
    jax.jit(jax.nn.one_hot)(jnp.array([0, 1]), 3)


def _compress_without_size() -> None:
    jax.jit(lambda x: jnp.compress(x > 0, x))(jnp.ones(3))


def _where_of_a_mask_alone() -> None:
    jax.jit(lambda x: jnp.where(x > 0))(jnp.ones(3))


def _dynamic_slice_of_traced_size() -> None:
    jax.jit(lambda x, n: jax.lax.dynamic_slice(x, (0,), (n,)))(jnp.ones(4), 2)


RAISED_IN: dict[str, tuple[Callable[[], None], str]] = {
    "segment_sum": (_segment_sum_of_traced_count, "static_arguments"),
    "one_hot": (_one_hot_of_traced_classes, "static_arguments"),
    "compress": (_compress_without_size, "boolean_masks"),
    "where": (_where_of_a_mask_alone, "boolean_masks"),
    "dynamic_slice": (_dynamic_slice_of_traced_size, "dynamic_slicing"),
}


@pytest.mark.parametrize("form", ["exception", "traceback"])
@pytest.mark.parametrize("case", RAISED_IN)
def test_explain_reads_which_jax_function_asked_for_a_traced_value(case: str, form: str) -> None:
    trigger, topic = RAISED_IN[case]
    with pytest.raises(Exception) as info:
        trigger()

    explanation = jaxpurity.explain(FORMS[form](info.value))

    assert explanation.topic == topic, f"{type(info.value).__name__}: {info.value}"


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(
    "jitted",
    [
        lambda: jax.jit(jax.lax.integer_pow)(jnp.ones(2), 2),
        lambda: jax.jit(jnp.tile)(jnp.ones(2), 2),
    ],
    ids=["integer_pow", "tile"],
)
def test_explain_sends_a_jax_function_jitted_whole_to_static_arguments(jitted, form) -> None:
    # jit traces every argument of the function it is given, a JAX function's settings too
    # (JAX 0.4.35 names the JAX function it traced; 0.10.2 on, the primitive's parameter).
    with pytest.raises(Exception) as info:
        jitted()
    assert jaxpurity.explain(FORMS[form](info.value)).topic == "static_arguments"


@pytest.mark.parametrize("form", FORMS)
def test_explain_does_not_take_a_malformed_shape_for_a_traced_one(form: str) -> None:
    # "Shapes must be 1D sequences of concrete values" quotes the shape: here no tracer is in
    # it (a pure_callback's result shape given as two shapes, as pasted in jax-ml/jax#14199).
    spec = jax.ShapeDtypeStruct(((3,), (3, 3)), jnp.float32)
    with pytest.raises(TypeError, match="Shapes must be 1D") as info:
        jax.pure_callback(lambda x: x, spec, jnp.ones(3))
    assert not jaxpurity.explain(FORMS[form](info.value)).recognised


@pytest.mark.parametrize(
    "text",
    [
        "AssertionError: [Chex] Function '_wrapper' is traced > 1 times!",
        "<function f at 0x7f9a2b8e1ee0> can only be traced 1 times. However, it is has now been "
        "traced 2 times. Could not determine argument was responsible for re-tracing.",
    ],
    ids=["chex", "equinox"],
)
def test_explain_knows_the_trace_counters_of_chex_and_equinox(text: str) -> None:
    assert jaxpurity.explain(text).topic == "retracing_storms"


@pytest.mark.parametrize("form", FORMS)
def test_explain_sends_a_percent_format_of_debug_print_to_the_print_page(form: str) -> None:
    with pytest.raises(ValueError, match="jax.debug.print") as info:
        jax.jit(lambda x: jax.debug.print("x = %d", x))(1)
    assert jaxpurity.explain(FORMS[form](info.value)).topic == "print_vs_debug_print"


# A run of ASCII at the end or the start of a line: an identifier, a URL, a path, a word.
_ASCII_AT_END = re.compile(r"[!-~]+$")
_ASCII_AT_START = re.compile(r"^[!-~]+")
_ADDRESS_AT_END = re.compile(r"https?://\S+$")
_CHINESE_LABEL = re.compile(r"^[\u4e00-\u9fff]+：\S")
_ENGLISH_LABEL = re.compile(r"^[A-Z][a-z ]+: \S")


def _words_split_by_a_line_break(text: str, said: str) -> list[str]:
    """Where a line of ``text`` breaks inside a run of ASCII that ``said`` holds whole."""
    split = []
    lines = text.splitlines()
    for line, continued in zip(lines, lines[1:], strict=False):
        end, start = _ASCII_AT_END.search(line), _ASCII_AT_START.search(continued.strip())
        if continued.startswith("  ") and end and start and f"{end[0]} {start[0]}" not in said:
            split.append(f"{end[0]}⏎{start[0]}")
    return split


def _check_layout(text: str, said: str, lang: str, *, labelled: bool = True) -> None:
    """The layout of an explanation: labels (where each line has one), lists, widths and
    line breaks."""
    lines = text.splitlines()
    label = _ENGLISH_LABEL if lang == "en" else _CHINESE_LABEL
    starts = [line for line in lines if not line.startswith("  ")]
    assert not labelled or all(label.match(line) for line in starts), starts
    # Wider only for a piece that has no place to break, or an address kept whole at the end.
    wide = [line for line in lines if width(_ADDRESS_AT_END.sub("", line)) > 88]
    assert all(" " not in line.strip() for line in wide), wide
    assert _words_split_by_a_line_break(text, said) == []
    if lang != "en":
        assert " and " not in text and ": " not in text.replace("https:", ""), text


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_explain_lays_out_a_live_error_for_its_language(case: str, lang: str) -> None:
    explanation = jaxpurity.explain(_raised(case), lang=lang)
    said = " ".join([explanation.scenario, explanation.cause, explanation.fix])

    _check_layout(str(explanation), said, lang)


def test_explain_lays_out_in_chinese_a_live_error_it_does_not_know() -> None:
    @jax.jit
    def step(x):
        raise ValueError(f"my own check failed for {x.shape}")

    with pytest.raises(ValueError) as info:
        step(jnp.ones(3))
    explanation = jaxpurity.explain(info.value, lang="zh_CN")
    text = str(explanation)

    assert text.startswith("错误：ValueError\n未能识别：jaxpurity.explain 没有这个错误的条目")
    listed = text.replace("\n  ", "")  # a list breaks at 、, which keeps its place
    assert "、TracerBoolConversionError、" in listed and " 以及 ValueError" in listed
    _check_layout(text, "", "zh_CN", labelled=False)
    # The paste box names the error in the sentence, in full-width brackets.
    named = not_recognised(explanation.error, "zh_CN")
    assert "没有这个错误（ValueError）的条目" in named and " (" not in named


def test_the_layout_check_sees_a_split_identifier_and_a_half_width_colon() -> None:
    said = "标记为静态（static_argnames=...）"
    split = _words_split_by_a_line_break("标记为静态（static_argname\n  s=...）", said)
    assert split == ["static_argname⏎s=..."]
    with pytest.raises(AssertionError):
        _check_layout("错误: TypeError", "", "zh_CN")


def test_explain_names_the_other_pages_when_a_leak_does_not_say_where_it_was_kept() -> None:
    leak = "UnexpectedTracerError: Encountered an unexpected tracer."
    explanation = jaxpurity.explain(leak)

    assert explanation.topic == "global_counter"
    others = ("leak_through_self", "leak_from_loop_body", "memoization_caches")
    assert explanation.see_also == others
    assert [line for line in str(explanation).splitlines() if line.startswith("See also: ")] == [
        f"See also: {url(topic)}" for topic in others
    ]
    chinese = jaxpurity.explain(leak, lang="zh_CN")
    assert f"另见：{url('leak_through_self', 'zh_CN')}" in str(chinese)


def test_explain_adds_no_other_page_where_the_text_says_which() -> None:
    _, located = _raised("scan_leak"), jaxpurity.explain(_raised("scan_leak"))
    assert (located.topic, located.see_also) == ("leak_from_loop_body", ())
    assert "See also" not in str(located)


def test_every_other_page_is_a_page_that_is_not_the_entrys_own() -> None:
    from jaxpurity._pages import PAGES
    from jaxpurity.explainer.known_errors import KNOWN_ERRORS

    for known in KNOWN_ERRORS:
        assert set(known.see_also) <= set(PAGES) - {known.topic}, known.scenario
        assert len(set(known.see_also)) == len(known.see_also), known.scenario


def test_what_explain_says_agrees_with_the_pages_it_links() -> None:
    from jaxpurity.explainer.known_errors import KNOWN_ERRORS

    # The state fix unpacks a step's results in the order the pages' pure_step returns them.
    counter_page = (ROOT / "gallery" / "state_and_leaks" / "global_counter.py").read_text()
    unpacked = {m for k in KNOWN_ERRORS for m in re.findall(r"`(.{1,20}) = step\(count", k.fix)}
    assert unpacked == {"y, count"}, unpacked
    assert "y, count = pure_step(count, x)" in counter_page
    # shard_map traces once, for all devices, as the devices page shows.
    devices_page = (
        ROOT / "gallery" / "side_effects" / "side_effects_across_devices.py"
    ).read_text()
    traces = [k.cause for k in KNOWN_ERRORS if "pmap trace the function" in k.cause]
    assert traces and all("once, for all devices" in cause for cause in traces), traces
    assert "traces the function once, for all devices" in devices_page


# Each module of known_errors/ and the section of the site whose errors it holds.
SECTION_MODULES = {
    "state_and_leaks": "state_and_leaks",
    "control_flow": "control_flow",
    "control_flow_types": "control_flow",
    "gradients": "gradients",
    "side_effects": "side_effects",
    "compiled_code": "compiled_code",
}


@pytest.mark.parametrize(("module_name", "section"), SECTION_MODULES.items())
def test_each_known_error_is_in_a_module_of_its_pages_section(
    module_name: str, section: str
) -> None:
    import importlib

    module = importlib.import_module(f"jaxpurity.explainer.known_errors._{module_name}")
    topics = {k.topic for name in module.__all__ for k in getattr(module, name)}
    assert topics, module_name
    assert {page(topic).split("/")[1] for topic in topics} == {section}


def test_the_table_holds_every_group_of_the_sections_once_and_nothing_else() -> None:
    import importlib

    from jaxpurity.explainer.known_errors import KNOWN_ERRORS

    groups = [
        getattr(module, name)
        for module_name in SECTION_MODULES
        for module in [importlib.import_module(f"jaxpurity.explainer.known_errors._{module_name}")]
        for name in module.__all__
    ]
    in_groups = [id(known) for group in groups for known in group]
    assert sorted(in_groups) == sorted(id(known) for known in KNOWN_ERRORS)
    for group in groups:  # each group whole, in its own order
        start = KNOWN_ERRORS.index(group[0])
        assert KNOWN_ERRORS[start : start + len(group)] == group


@pytest.mark.parametrize("form", FORMS)
def test_explain_sends_a_string_argument_of_jit_to_static_arguments(form: str) -> None:
    with pytest.raises(TypeError, match="abstract array") as info:
        jax.jit(lambda x, op: x if op == "add" else -x)(1.0, "add")
    assert jaxpurity.explain(FORMS[form](info.value)).topic == "static_arguments"


@pytest.mark.parametrize(
    "function",
    [jnp.sin, np.sin, functools.partial(jnp.add, 1.0), max, _Weights(np.ones(2)).__repr__],
    ids=["jitted", "ufunc", "partial", "builtin", "method"],
)
def test_explain_sends_any_kind_of_function_given_to_jit_to_static_arguments(function) -> None:
    with pytest.raises(TypeError, match="abstract array") as info:
        jax.jit(lambda x, f: f(x))(1.0, function)  # fails before f is called
    assert jaxpurity.explain(info.value).topic == "static_arguments"


@dataclasses.dataclass
class _Config:
    scale: float = 2.0


@jax.jit
def _scaled(x, config):
    return x * config.scale


@pytest.mark.parametrize("form", FORMS)
def test_explain_sends_a_config_object_given_to_a_users_jit_to_static_objects(form: str) -> None:
    with pytest.raises(TypeError, match=r"argument to <function _scaled") as info:
        _scaled(jnp.ones(2), _Config())  # a plain config object, not marked static

    explanation = jaxpurity.explain(FORMS[form](info.value))

    if form in FORMS_WITH_FRAMES:
        # The traceback shows the call of _scaled, the user's jitted function.
        assert (explanation.error, explanation.topic) == ("TypeError", "static_objects")
        assert "pytree" in explanation.fix
    else:
        # jnp.sin(obj) says the same words of its own jitted function (the next test): the
        # message alone does not say whose function it was.
        assert not explanation.recognised


@pytest.mark.parametrize("form", FORMS)
def test_explain_does_not_claim_an_object_handed_to_jax_numpy(form: str) -> None:
    class Variable:  # a library's variable class, not unwrapped before jnp (keras#19186)
        pass

    with pytest.raises(TypeError) as info:
        jnp.sin(Variable())
    assert not jaxpurity.explain(FORMS[form](info.value)).recognised


_FRAME_IN = """Traceback (most recent call last):
  File "{path}", line 9, in {function}
    {line}
jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value is \
expected: traced array with shape int32[]
"""


@pytest.mark.parametrize(
    ("path", "function", "line", "topic"),
    [
        # JAX's source, in any layout: installed, a checkout, before jax/_src existed.
        (
            "/venv/lib/python3.11/site-packages/jax/_src/ops/scatter.py",
            "_segment_update",
            "num_segments = core.concrete_dim_or_error(num_segments)",
            "static_arguments",
        ),
        (
            "/home/me/jax/jax/_src/numpy/lax_numpy.py",
            "nonzero",
            "size = int(mask.sum())",
            "boolean_masks",
        ),
        (
            "/venv/lib/python3.7/site-packages/jax/numpy/lax_numpy.py",
            "unique",
            "ar = asarray(ar)",
            "boolean_masks",
        ),
        (
            "C:\\Python39\\Lib\\site-packages\\numpy\\core\\fromnumeric.py",
            "_wrapfunc",
            "return bound(*args, **kwds)",
            "static_arguments",
        ),
        # The user's own code: a folder of theirs named jax/ is no JAX source.
        ("/home/me/packages/jax/train.py", "step", "n = int(x)", "static_arguments"),
        (
            "/home/me/packages/jax/train.py",
            "step",
            "w = lax.dynamic_slice(x, (i,), (n,))",
            "dynamic_slicing",
        ),
        ("/home/me/packages/jax/train.py", "step", "idx = jnp.nonzero(mask)", "boolean_masks"),
    ],
)
def test_explain_routes_a_pasted_conversion_by_the_code_that_raised_it(
    path: str, function: str, line: str, topic: str
) -> None:
    text = _FRAME_IN.format(path=path, function=function, line=line)
    assert jaxpurity.explain(text).topic == topic


def test_explain_finds_a_jax_error_named_in_a_sentence() -> None:
    text = (
        "`jnp.compress` crashes with `TracerBoolConversionError` when called inside `jax.jit` "
        "without a `size` argument."
    )
    explanation = jaxpurity.explain(text)
    assert (explanation.error, explanation.topic) == ("TracerBoolConversionError", "boolean_masks")
    assert not jaxpurity.explain("We do not raise TracerBoolConversionErrors here.").recognised


def test_explain_goes_by_the_class_a_partial_paste_names_over_the_lines_of_its_family() -> None:
    message = str(_raised("python_if"))
    lines = message.splitlines()
    # The last lines of the message: where it was traced (a line the whole concretization
    # family shares) and the link that names the class.
    start = next(i for i, line in enumerate(lines) if "while tracing the function" in line)
    tail, link = "\n".join(lines[start:]), lines[-1]
    assert link.startswith("See https://")
    assert link.endswith("#jax.errors.TracerBoolConversionError")

    for text in (tail, link):
        explanation = jaxpurity.explain(text)
        assert (explanation.error, explanation.topic) == (
            "TracerBoolConversionError",
            "python_control_flow",
        ), text


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("case", CASES)
def test_explain_maps_live_error_to_its_page(case: str, form: str) -> None:
    exc = _raised(case)
    topic = _expected_topic(case, exc)

    explanation = jaxpurity.explain(FORMS[form](exc))

    assert explanation.recognised, f"{form} of {type(exc).__name__}: {exc}"
    assert (explanation.topic, explanation.page) == (topic, page(topic))
    name = type(exc).__name__
    if case == "non_hashable_static" and form == "message":
        # The ValueError's message alone names no class but the one it quotes as its reason
        # ("The error was:\nTypeError: unhashable type: 'dict'").
        name = "TypeError"
    if case in ("donated_twice", "donated_and_passed_in_one_call") and form == "message":
        # XLA's message names no class: explain names today's (XlaRuntimeError before 0.10.2).
        name = "JaxRuntimeError"
    if case == "callback_of_the_wrong_shape" and form != "exception":
        # XLA's message quotes the callback's traceback, whose last line is the error JAX
        # raised there ("RuntimeError: Incorrect output shape ..."): as text, the last error.
        name = "RuntimeError"
    assert explanation.error == name
    assert explanation.scenario and explanation.cause and explanation.fix
    text = str(explanation)
    assert text.startswith(f"Error: {name}\n")
    # The page, then the pages for the text's other causes, each address whole on its line.
    tail = [f"Read more: {url(topic)}", *(f"See also: {url(t)}" for t in explanation.see_also)]
    assert text.splitlines()[-len(tail) :] == tail
    assert explanation.url == url(topic) and explanation.url.startswith("https://")


def _float_of_jit_leak() -> None:
    float(_leak_from(lambda f: jax.jit(f)(1.0)))


def _bool_of_jit_leak() -> None:
    bool(_leak_from(lambda f: jax.jit(f)(1.0)))


def _float_of_scan_leak() -> None:
    float(_leak_from(lambda f: jax.lax.scan(lambda c, x: (f(c), x), 0.0, jnp.arange(3.0))))


def _bool_of_while_leak() -> None:
    bool(_leak_from(lambda f: jax.lax.while_loop(lambda c: c < 3.0, f, 1.0)))


# float() or bool() of a tracer that leaked earlier: JAX raises ConcretizationTypeError (or
# its subclass TracerBoolConversionError), as for a traced argument, but it is a leak.
LEAKED_USES: dict[str, tuple[Callable[[], None], str]] = {
    "float_of_jit_leak": (_float_of_jit_leak, "global_counter"),
    "bool_of_jit_leak": (_bool_of_jit_leak, "global_counter"),
    "float_of_scan_leak": (_float_of_scan_leak, "leak_from_loop_body"),
    "bool_of_while_leak": (_bool_of_while_leak, "leak_from_loop_body"),
}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("case", LEAKED_USES)
def test_explain_sends_float_or_bool_of_a_leaked_tracer_to_the_leak_pages(
    case: str, form: str
) -> None:
    trigger, topic = LEAKED_USES[case]
    with pytest.raises(jax.errors.ConcretizationTypeError) as info:
        trigger()
    exc, message = info.value, str(info.value)
    if not re.search(r"\bfor (?:scan|while_\w+)\b", message):
        topic = "global_counter"  # JAX 0.4.35 does not say which trace the tracer was from
    # JAX 0.4.35 says "This DynamicJaxprTracer was created on line ..." only for a tracer
    # whose trace ended; JAX 0.10.2's message alone reads as for a traced argument, and
    # only a traceback shows that the traced function is not running.
    said = "DynamicJaxprTracer was created on line" in message
    if form in ("message", "type_and_message") and not said:
        topic = "python_control_flow"  # float() or bool() of a value jit traces

    explanation = jaxpurity.explain(FORMS[form](exc))

    assert (explanation.topic, explanation.page) == (topic, page(topic))
    assert explanation.error == type(exc).__name__
    if topic in ("global_counter", "leak_from_loop_body"):
        assert "not a setting that needs to be static" in explanation.cause


def _float_of_what_a_method_left_on_its_object() -> None:
    class Counter:  # in a function: its methods' qualified names read ...<locals>.Counter.bump
        def bump(self, x):
            self.last = x * 2.0
            return x

    counter = Counter()
    jax.jit(lambda x: counter.bump(x))(1.0)  # jit traces the lambda; the method makes the value
    float(counter.last)


@pytest.mark.parametrize("form", FORMS)
def test_explain_sends_a_leak_made_in_a_method_to_the_self_page_by_its_qualified_name(
    form: str,
) -> None:
    with pytest.raises(jax.errors.ConcretizationTypeError) as info:
        _float_of_what_a_method_left_on_its_object()
    message = str(info.value)

    explanation = jaxpurity.explain(FORMS[form](info.value))

    if re.search(r"was created on line \S+ \([\w.<>]*\.Counter\.bump\)", message):
        # JAX 0.4.35 says where the dead tracer was made, by the method's qualified name
        # (Python 3.11+): a class's member, whatever function jit was tracing.
        assert explanation.topic == "leak_through_self"
    elif "DynamicJaxprTracer was created on line" in message or form in FORMS_WITH_FRAMES:
        # JAX 0.10.2 on names only the traced function: the traceback shows a leak, whose
        # holder the text does not name.
        assert explanation.topic == "global_counter"
        assert "leak_through_self" in explanation.see_also
    else:
        assert explanation.topic == "python_control_flow"  # the message alone: a live float()


@functools.lru_cache(maxsize=8)
def _rotary_table(n: int) -> jax.Array:
    return jnp.sin(jnp.arange(n) / 10.0)  # a tracer when first called under jit; the cache keeps it


def _leak_through_an_lru_cache() -> None:
    _rotary_table.cache_clear()
    jax.jit(lambda x: x * _rotary_table(x.shape[0]))(jnp.ones(4))
    jax.jit(lambda x: x + _rotary_table(4))(jnp.ones(4))  # the first trace's tracer, cached


def _leak_through_a_helper_into_a_list() -> None:
    kept = []

    def record(x):
        kept.append(x * 2.0)  # made in record, which is never called again
        return x

    jax.jit(lambda x: record(x))(1.0)
    _use(kept[0])


@pytest.mark.parametrize("form", FORMS)
def test_explain_sends_a_leak_from_a_function_called_back_to_the_cache_page(form: str) -> None:
    with pytest.raises(jax.errors.UnexpectedTracerError) as info:
        _leak_through_an_lru_cache()
    assert re.search(r"created on line \S+ \(_rotary_table\)", str(info.value))

    explanation = jaxpurity.explain(FORMS[form](info.value))

    if form in FORMS_WITH_FRAMES:
        # The traceback shows _rotary_table called after the trace that made the value ended,
        # and not running: it handed back that trace's value, so it keeps what it computes.
        assert (explanation.topic, explanation.see_also) == ("memoization_caches", ())
    else:
        # The message alone names where the value was made, not what kept it.
        assert explanation.topic == "global_counter"
        assert "memoization_caches" in explanation.see_also


@pytest.mark.parametrize("form", FORMS)
def test_explain_does_not_take_a_function_that_made_a_leak_for_a_cache(form: str) -> None:
    with pytest.raises(jax.errors.UnexpectedTracerError) as info:
        _leak_through_a_helper_into_a_list()
    if sys.version_info >= (3, 11):
        assert re.search(r"created on line \S+ \([\w.<>]*\.record\)", str(info.value))
    assert jaxpurity.explain(FORMS[form](info.value)).topic == "global_counter"


def test_explain_leaves_the_cause_of_a_traced_self_alone_as_jax_numpy_s_words() -> None:
    # With JAX's traceback filtering on, Python 3.10 sees its SimplifiedTraceback in the
    # cause's place, and the cause is lost: turned off, the chain is JAX's own.
    previous = jax.config.jax_traceback_filtering
    jax.config.update("jax_traceback_filtering", "off")
    try:
        with pytest.raises(TypeError, match=r"at path self\.") as info:
            _jit_on_a_method()
    finally:
        jax.config.update("jax_traceback_filtering", previous)
    # JAX 0.10.2 chains it as the context (raised while handling it), others as the cause.
    cause = info.value.__cause__ or info.value.__context__
    assert "does not have a dtype attribute" in str(cause)
    # jnp.sin(obj) raises the same words: alone they do not say that the object was self.
    assert not jaxpurity.explain(f"TypeError: {cause}").recognised


def _float_of_grad_leak() -> None:
    float(_leak_from(lambda f: jax.grad(f)(1.0)))


def _float_of_vmap_leak() -> None:
    float(_leak_from(lambda f: jax.vmap(f)(jnp.arange(3.0))))


def _float_inside_grad() -> None:
    jax.grad(lambda x: float(x) * x)(1.0)


def _float_inside_vmap() -> None:
    jax.vmap(lambda x: x * float(x))(jnp.arange(3.0))


def _math_exp_inside_vmap() -> None:  # math.exp calls float(): jnp.exp was meant
    jax.vmap(lambda x: math.exp(x))(jnp.arange(3.0))


# float() of a grad or vmap tracer, and whether the tracer had leaked: kept from the
# transformation and converted after it returned. The messages read the same on every tested
# JAX, and name no traced function (that line is jit's).
GRAD_VMAP_FLOATS: dict[str, tuple[Callable[[], None], bool]] = {
    "float_of_grad_leak": (_float_of_grad_leak, True),
    "float_of_vmap_leak": (_float_of_vmap_leak, True),
    "float_inside_grad": (_float_inside_grad, False),
    "float_inside_vmap": (_float_inside_vmap, False),
    "math_exp_inside_vmap": (_math_exp_inside_vmap, False),
}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("case", GRAD_VMAP_FLOATS)
def test_explain_tells_float_inside_grad_or_vmap_from_float_of_a_tracer_kept_from_them(
    case: str, form: str
) -> None:
    trigger, leaked = GRAD_VMAP_FLOATS[case]
    with pytest.raises(jax.errors.ConcretizationTypeError, match="`float` function") as info:
        trigger()

    explanation = jaxpurity.explain(FORMS[form](info.value))

    assert explanation.error == "ConcretizationTypeError"
    if leaked and form in FORMS_WITH_FRAMES:
        # The traceback shows no transformation running: JAX's conversion was called from the
        # user's code after grad or vmap returned, so the tracer had leaked.
        assert explanation.topic == "leak_from_grad_vmap"
        assert "has_aux" in explanation.fix
    else:
        # A conversion inside the running function (or, from the message alone, that reading
        # first, the leak under "See also"): nothing leaked, so no has_aux advice.
        assert explanation.topic == "python_control_flow"
        assert "leak_from_grad_vmap" in explanation.see_also
        assert "jnp.exp(x) instead of math.exp(x)" in explanation.fix
        assert "has_aux" not in explanation.fix


def test_explain_looks_through_an_error_raised_from_a_jax_error() -> None:
    try:
        try:
            _python_if()
        except Exception as jax_error:
            raise ValueError("while loading the model") from jax_error
    except ValueError as exc:
        wrapped = exc

    for form in ("exception", "traceback"):
        explanation = jaxpurity.explain(FORMS[form](wrapped))
        assert (explanation.error, explanation.topic) == (
            "TracerBoolConversionError",
            "python_control_flow",
        )
    # The wrapper's own message says nothing about JAX.
    assert not jaxpurity.explain(FORMS["type_and_message"](wrapped)).recognised


def test_explain_reads_pytest_style_error_lines() -> None:
    exc = _raised("jit_leak")
    pasted = "\n".join(f"E   {line}" for line in f"{type(exc).__name__}: {exc}".splitlines())

    explanation = jaxpurity.explain(pasted)

    assert (explanation.error, explanation.topic) == ("UnexpectedTracerError", "global_counter")


TYPE_MISMATCH_FORMS = ["exception", "type_and_message", "traceback"]  # forms that name the class


@pytest.mark.parametrize(
    ("what", "topic"),
    [
        ("cond branches return different types", "cond_branch_types"),
        ("switch branches return different types", "cond_branch_types"),
        ("the loop carry changed type", "loop_carry_types"),
    ],
)
@pytest.mark.parametrize("form", TYPE_MISMATCH_FORMS)
def test_explain_routes_type_mismatch_error_by_its_first_line(
    what: str, topic: str, form: str
) -> None:
    with pytest.raises(TypeMismatchError) as info:
        check_same_types(
            (jnp.float32(0), jnp.zeros(2)),
            (jnp.int32(0), jnp.zeros(2)),
            what=what,
            expected_name="first",
            actual_name="second",
        )

    explanation = jaxpurity.explain(FORMS[form](info.value))

    assert (explanation.error, explanation.topic) == ("TypeMismatchError", topic)


@pytest.mark.parametrize("form", TYPE_MISMATCH_FORMS)
def test_explain_sends_stateful_type_drift_to_the_carry_page(form: str) -> None:
    counter = Stateful(lambda n, x: (n, n + x), jnp.int32(0))
    with pytest.raises(TypeMismatchError) as info:
        counter(0.5)

    explanation = jaxpurity.explain(FORMS[form](info.value))

    assert (explanation.error, explanation.topic) == ("TypeMismatchError", "loop_carry_types")


# Calls of jaxpurity's control flow that its type check rejects.
CONTROL_FLOW_MISMATCHES: dict[str, tuple[Callable[[], object], str]] = {
    "cond": (
        lambda: jaxpurity.cond(True, lambda: 1.0, lambda: jnp.int32(1)),
        "cond_branch_types",
    ),
    "cond_like": (
        lambda: jaxpurity.cond(True, lambda: 0.5, lambda: 1.5, like=jnp.int32(0)),
        "cond_branch_types",
    ),
    "switch": (
        lambda: jaxpurity.switch(0, [lambda: 1.0, lambda: jnp.zeros(2)]),
        "cond_branch_types",
    ),
    "scan": (
        lambda: jaxpurity.scan(lambda c, x: (c * 1.5, x), jnp.int32(0), jnp.arange(2.0)),
        "loop_carry_types",
    ),
    "fori_loop": (
        lambda: jaxpurity.fori_loop(0, 3, lambda i, c: c.astype(jnp.int32), 1.0),
        "loop_carry_types",
    ),
    "while_loop": (
        lambda: jaxpurity.while_loop(lambda c: c < 3.0, lambda c: (c, c), 0.0),
        "loop_carry_types",
    ),
}


@pytest.mark.parametrize("form", TYPE_MISMATCH_FORMS)
@pytest.mark.parametrize("case", CONTROL_FLOW_MISMATCHES)
def test_explain_routes_jaxpurity_control_flow_errors(case: str, form: str) -> None:
    call, topic = CONTROL_FLOW_MISMATCHES[case]
    with pytest.raises(TypeMismatchError) as info:
        call()

    explanation = jaxpurity.explain(FORMS[form](info.value))

    assert (explanation.error, explanation.topic) == ("TypeMismatchError", topic)


def test_explain_says_plainly_when_it_does_not_know_a_live_jax_error() -> None:
    with pytest.raises(TypeError) as info:
        jnp.ones(2) + jnp.ones(3)

    for form, make in FORMS.items():
        explanation = jaxpurity.explain(make(info.value))
        assert not explanation.recognised
        assert explanation.page is None and explanation.topic is None
        assert explanation.error == ("" if form == "message" else "TypeError")
        assert "Not recognised" in str(explanation)
        assert "Read more" not in str(explanation)


def test_explain_knows_only_the_update_methods_missing_from_an_array() -> None:
    # A tracer has no attribute the user set on the array outside jit (jax-ml/jax#13826), and
    # an array lost .to_py(): neither is an in-place update, so neither is claimed.
    with pytest.raises(AttributeError) as info:
        jax.jit(lambda x: x.custom_attr)(jnp.zeros(3))
    with pytest.raises(AttributeError) as removed:
        jnp.zeros(3).to_py()  # type: ignore[attr-defined]

    for error in (info.value, removed.value):
        assert not jaxpurity.explain(error).recognised, str(error)
    assert jaxpurity.explain(info.value.args[0].replace("custom_attr", "set")).recognised


_BOOL_OF = (
    '  File "model.py", line 88, in __call__\n    {line}\n'
    "jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array "
    "with shape bool[]."
)


@pytest.mark.parametrize(
    ("line", "topic"),
    [
        ("if inference:", "static_arguments"),
        ("if max_steps == 1:", "static_arguments"),
        ("while not self.training:", "static_arguments"),
        ("if x > 0:", "python_control_flow"),
        ("if is_valid(x):", "python_control_flow"),
        ("if inference_scale > 0:", "python_control_flow"),
    ],
)
def test_explain_sends_a_traced_flag_or_size_in_an_if_to_the_static_arguments_page(
    line: str, topic: str
) -> None:
    # The line a pasted traceback shows raising: a setting's name means a static argument
    # (the static_arguments page's `if normalize:`); any other condition is data.
    assert jaxpurity.explain(_BOOL_OF.format(line=line)).topic == topic


def test_explain_knows_a_donation_warning_by_its_link_to_the_faq() -> None:
    # As pasted in sgl-project/sglang-jax#230: the warning reworded, its link JAX's.
    text = (
        "mlir.py:1233: UserWarning: Some donation buffers unavailable: int32[128].\n"
        "See documentation: https://docs.jax.dev/en/latest/faq.html#buffer-donation."
    )
    assert jaxpurity.explain(text).topic == "buffer_donation"


def test_explain_sends_jax_s_log_of_compilations_to_the_retracing_page(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with jax.log_compiles(True), caplog.at_level(logging.DEBUG, logger="jax"):
        jax.jit(lambda x: x * 3.0 + 1.0)(2.0)
    log = "\n".join(record.getMessage() for record in caplog.records)
    assert jaxpurity.explain(log).topic == "retracing_storms", log
    # As JAX 0.4 logged it, pasted in PlasmaControl/DESC#1191:
    old = "Finished tracing + transforming project for pjit in 0.0073757171630859375 sec"
    assert jaxpurity.explain(old).topic == "retracing_storms"


def test_explain_sends_an_old_jit_int_conversion_to_the_static_arguments_page() -> None:
    # JAX 0.2.0 to 0.3.15 named the jitted function as "While tracing the function ...";
    # without that line (0.4.35 on, names no function) it is a grad or vmap tracer, converted
    # inside the function as far as the message says (a leak shows in the traceback).
    message = (
        "jax.core.ConcretizationTypeError: Abstract tracer value encountered where concrete "
        "value is expected.\n\nThe problem arose with the `int` function. "
    )
    jit_line = "While tracing the function f at t.py:4, this value became a tracer due to JAX "
    assert jaxpurity.explain(message + jit_line).topic == "static_arguments"
    assert jaxpurity.explain(message).topic == "python_control_flow"


@pytest.mark.parametrize("text", ["", "something went wrong", "RuntimeError: out of memory"])
def test_explain_does_not_guess_for_unknown_text(text: str) -> None:
    explanation = jaxpurity.explain(text)

    assert not explanation.recognised
    assert explanation.page is None
    assert "Not recognised" in str(explanation)


def test_explain_rejects_what_is_not_an_error() -> None:
    with pytest.raises(TypeError, match=r"not int; for example explain\(err\)"):
        jaxpurity.explain(42)  # type: ignore[arg-type]


# The command line answers in the locale's language: these tests read English.
ENGLISH_LOCALE = {"LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "JAX_PLATFORMS": "cpu", **ENGLISH_LOCALE}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "jaxpurity", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


@pytest.mark.parametrize("how", ["argument", "stdin", "stdin_dash"])
def test_cli_explains_a_live_error(how: str) -> None:
    exc = _raised("python_if")
    text = "".join(traceback.format_exception(exc))
    args, stdin = {
        "argument": (["explain", text], ""),
        "stdin": (["explain"], text),
        "stdin_dash": (["explain", "-"], text),
    }[how]

    result = _cli(*args, stdin=stdin)

    assert result.returncode == 0, result.stderr
    assert result.stdout == str(jaxpurity.explain(exc)) + "\n"
    assert f"Read more: {url('python_control_flow')}" in result.stdout


def test_cli_exits_1_for_an_unknown_error() -> None:
    result = _cli("explain", "RuntimeError: out of memory")

    assert result.returncode == 1
    assert "Not recognised" in result.stdout


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_cli_links_the_error_index_and_the_search_for_an_unknown_error(lang: str) -> None:
    result = _cli("explain", "--lang", lang, "RuntimeError: out of memory")

    # The site's root in that edition, as the gallery pages' addresses have it.
    root = url("python_control_flow", lang).removesuffix(page("python_control_flow"))
    lines = result.stdout.splitlines()
    assert lines[-2].endswith(f"{root}errors.html"), result.stdout
    assert lines[-1].endswith(f"{root}search.html?q=RuntimeError"), result.stdout
    assert result.stdout == str(jaxpurity.explain("RuntimeError: out of memory", lang=lang)) + "\n"


def _main_exit_code(argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch) -> int:
    """Run the command line in this process (argparse exits through SystemExit)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    for variable, value in ENGLISH_LOCALE.items():
        monkeypatch.setenv(variable, value)
    try:
        return cli.main(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)


@pytest.mark.parametrize(
    "argv, stdin",
    [([], ""), (["explain"], "  \n"), (["no_such_command"], ""), (["explain", "a", "b"], "")],
)
def test_cli_exits_2_for_usage_errors(
    argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    assert _main_exit_code(argv, stdin, monkeypatch) == 2
    assert "usage: python -m jaxpurity" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--help"], ["explain", "--help"]])
def test_cli_help_describes_explain(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    assert _main_exit_code(argv, "", monkeypatch) == 0
    assert "explain" in capsys.readouterr().out


def test_cli_prints_its_version(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    assert _main_exit_code(["--version"], "", monkeypatch) == 0
    assert capsys.readouterr().out == f"python -m jaxpurity {jaxpurity.__version__}\n"


@pytest.mark.parametrize("how", ["path", "--file"])
def test_cli_reads_the_error_from_a_file(how: str, tmp_path: pathlib.Path) -> None:
    exc = _raised("python_if")
    log = tmp_path / "ci.log"
    log.write_text("collecting...\n" + "".join(traceback.format_exception(exc)) + "\n1 failed\n")
    args = ["explain", str(log)] if how == "path" else ["explain", "--file", str(log)]

    result = _cli(*args)

    assert result.returncode == 0, result.stderr
    assert f"Read more: {url('python_control_flow')}" in result.stdout


def test_cli_names_a_file_it_cannot_read(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    missing = tmp_path / "nope.log"
    assert _main_exit_code(["explain", "--file", str(missing)], "", monkeypatch) == 2
    assert "cannot read" in capsys.readouterr().err
    assert _main_exit_code(["explain", "text", "--file", str(missing)], "", monkeypatch) == 2


def test_console_script_is_installed_with_the_package() -> None:
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        scripts = distribution("jaxpurity").entry_points.select(group="console_scripts")
    except PackageNotFoundError:
        pytest.skip("jaxpurity is imported from the source tree, not installed")
    (script,) = [ep for ep in scripts if ep.name == "jaxpurity"]
    assert script.value == "jaxpurity.__main__:console"
    executable = pathlib.Path(sys.executable).with_name("jaxpurity")
    assert executable.exists(), f"no {executable}"
    exc = _raised("python_if")
    result = subprocess.run(
        [str(executable), "explain", "-"],
        input="".join(traceback.format_exception(exc)),
        capture_output=True,
        text=True,
        env={**os.environ, "JAX_PLATFORMS": "cpu"},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert f"Read more: {url('python_control_flow')}" in result.stdout


def test_cli_stops_quietly_when_the_reader_closes_the_pipe() -> None:
    # `jaxpurity explain ... | head -1`: the reader goes away after one line.
    env = {**os.environ, "JAX_PLATFORMS": "cpu", **ENGLISH_LOCALE}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    text = "jax.errors.UnexpectedTracerError: Encountered an unexpected tracer."
    cli = subprocess.Popen(
        [sys.executable, "-m", "jaxpurity", "explain", text],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )
    assert cli.stdout is not None and cli.stderr is not None
    cli.stdout.close()
    stderr = cli.stderr.read().decode()
    assert cli.wait(timeout=120) == 0, stderr
    assert "BrokenPipeError" not in stderr, stderr


def test_explain_leaves_xla_runtime_errors_that_checkify_did_not_raise_alone() -> None:
    # jax.errors.JaxRuntimeError is also XLA's run-time error: only checkify's wordings count.
    assert not jaxpurity.explain("JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory").recognised
    assert not jaxpurity.explain("ZeroDivisionError: division by zero").recognised
    assert jaxpurity.explain("JaxRuntimeError: division by zero").topic == "runtime_errors"


def test_explain_sends_a_logged_tracing_cache_miss_to_the_retracing_page() -> None:
    log = (
        "TRACING CACHE MISS at train.py:12:4 (<module>):\n  never seen function:\n"
        "    <lambda> id=140 defined at train.py:12\n  but seen another function defined on "
        "the same line; maybe the function is\n  being re-defined repeatedly, preventing caching?"
    )
    assert jaxpurity.explain(log).topic == "retracing_storms"


def test_a_retrace_with_no_changed_argument_points_to_the_retracing_page() -> None:
    try:
        _retrace_new_lambda()
    except jaxpurity.RetraceError as error:
        assert "retracing_storms.html" in str(error)
    else:
        pytest.fail("no RetraceError")


class _Hostile(RuntimeError):
    """A method that should not be needed raised: explain called what it need not call."""


def _refuse(self: object, *_: object) -> object:
    raise _Hostile("called on purpose")


class _TextWithRaisingMethods(str):
    """A str subclass whose methods raise: its text is all explain should read."""

    splitlines = split = strip = replace = _refuse  # type: ignore[assignment]
    __getitem__ = __iter__ = _refuse  # type: ignore[assignment]


class _ErrorWhoseGetattrRaises(Exception):
    """An exception whose missing attributes (``__notes__``) raise, and whose repr does."""

    __repr__ = _refuse  # type: ignore[assignment]

    def __getattr__(self, name: str) -> object:
        raise _Hostile(f"{name} read on purpose")


def test_explain_reads_a_str_subclass_as_its_text() -> None:
    text = _TextWithRaisingMethods("jax.errors.TracerBoolConversionError: Attempted boolean")
    assert jaxpurity.explain(text).error == "TracerBoolConversionError"


def test_explain_reads_an_exception_whose_getattr_raises() -> None:
    error = _ErrorWhoseGetattrRaises("x")
    assert not jaxpurity.explain(error).recognised
    # A note that is there is still read: here it says what the error is.
    error.__notes__ = ["Attempted boolean conversion of traced array with shape bool[]."]
    assert jaxpurity.explain(error).topic == "python_control_flow"


@dataclasses.dataclass(frozen=True)
class _FrozenModule:
    """As an Equinox module: a frozen dataclass, its state in fields."""

    count: jax.Array

    def bump(self) -> None:
        self.count = self.count + 1  # type: ignore[misc]  # the mistake explained


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_explain_sends_a_field_assigned_on_a_frozen_module_to_the_equinox_page(lang: str) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError) as info:
        jax.jit(lambda x: _FrozenModule(x).bump())(jnp.ones(2))
    explanation = jaxpurity.explain(info.value, lang=lang)
    assert explanation.recognised and explanation.topic == "nnx_and_equinox_state", str(explanation)
    assert "eqx.tree_at(lambda m: m.x, model, new_x)" in str(explanation)


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_explain_sends_an_nnx_object_changed_from_another_trace_to_its_page(lang: str) -> None:
    nnx = pytest.importorskip("flax.nnx", reason="needs Flax NNX (tox.ini: state_libraries)")
    model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))

    def closed_over_grad() -> object:
        return nnx.grad(lambda m: m(jnp.ones((1, 2))).sum())(model)

    def closed_over_write() -> None:
        model.kernel[...] = model.kernel[...] * 2

    for step in (closed_over_grad, closed_over_write):
        with pytest.raises(Exception, match="different trace level") as info:
            jax.jit(step)()
        explanation = jaxpurity.explain(info.value, lang=lang)
        assert explanation.topic == "nnx_and_equinox_state", (step.__name__, str(explanation))
        assert "copy=True" in str(explanation)
