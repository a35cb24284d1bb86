"""Tests for jaxpurity/_jax_compat.py: each touchpoint on JAX's internals, on this JAX.

Every private JAX name jaxpurity uses lives in ``_jax_compat``; each test here exercises one of
them and names it in its failure, so that a JAX upgrade that renames one fails here, in one
place, with a clear message. ``tox -e oldest`` and ``tox -e newest`` run them on each version.
"""

from __future__ import annotations

import importlib.util

import jax
import jax.numpy as jnp
import pytest
from jax import lax

from jaxpurity import _jax_compat as compat
from jaxpurity import _jax_names as names

JAX = jax.__version_info__[:3]


def _tracer_from(transformation: str):
    """One tracer that ``transformation`` made, kept alive past its trace."""
    seen = []

    def keep(x):
        seen.append(x)
        return x

    if transformation == "jit":
        jax.jit(keep)(1.0)
    elif transformation == "grad":
        jax.grad(keep)(1.0)
    elif transformation == "jvp":
        jax.jvp(keep, (1.0,), (1.0,))
    elif transformation == "vmap":
        jax.vmap(keep)(jnp.ones(2))
    elif transformation == "scan":
        jax.jit(lambda xs: lax.scan(lambda c, x: (keep(c), x), 0.0, xs))(jnp.ones(2))
    elif transformation == "while_loop":
        jax.jit(lambda: lax.while_loop(lambda c: c < 3, lambda c: keep(c) + 1, 0))()
    elif transformation == "fori_loop":
        jax.jit(lambda: lax.fori_loop(0, 3, lambda i, c: keep(c), 0.0))()
    elif transformation == "cond":
        jax.jit(lambda p: lax.cond(p, keep, lambda x: x, 1.0))(True)
    (tracer,) = seen[:1]
    return tracer


# What transformation_of says for a tracer of each transformation. Before JAX 0.7.0
# (0.4.35 and 0.6.2 here) fori_loop with static bounds runs as a scan, so its tracers say
# "scan", and grad hands the function a JVPTracer; from 0.7.0 on (jax_use_direct_linearize
# on by default) grad hands it a LinearizeTracer.
EXPECTED = {
    "jit": "jit",
    "grad": "grad" if jax.config.values.get("jax_use_direct_linearize") else "jvp/grad",
    "jvp": "jvp/grad",
    "vmap": "vmap",
    "scan": "scan",
    "while_loop": "while_loop",
    "fori_loop": "fori_loop" if JAX >= (0, 7) else "scan",
    "cond": "cond",
}


@pytest.mark.parametrize("transformation", sorted(EXPECTED))
def test_tracer_is_the_base_class_of_every_tracer(transformation):
    tracer = _tracer_from(transformation)
    assert isinstance(tracer, compat.Tracer), (
        f"_jax_compat.Tracer: {type(tracer).__name__} from {transformation} is not a "
        "jax.core.Tracer on this JAX"
    )


@pytest.mark.parametrize("transformation", sorted(EXPECTED))
def test_transformation_of_names_the_api_the_user_called(transformation):
    tracer = _tracer_from(transformation)
    assert compat.transformation_of(tracer) == EXPECTED[transformation], (
        f"_jax_compat.transformation_of: a {type(tracer).__name__} from {transformation} "
        f"(traced_for={compat.traced_for(tracer)!r}); update TRACER_TRANSFORMATIONS or "
        "TRACED_FOR_API (jaxpurity/_jax_names.py) for this JAX"
    )


@pytest.mark.parametrize("transformation", ["grad", "jvp", "vmap"])
def test_tracer_table_knows_the_class_of_each_tracer_that_records_nothing(transformation):
    tracer = _tracer_from(transformation)
    assert compat.traced_for(tracer) is None
    assert type(tracer).__name__ in names.TRACER_TRANSFORMATIONS, (
        f"_jax_names.TRACER_TRANSFORMATIONS has no entry for {type(tracer).__name__}, "
        f"the tracer {transformation} makes on this JAX"
    )


def test_traced_for_reads_what_jax_recorded_on_a_jaxpr_tracer():
    assert compat.traced_for(_tracer_from("jit")) == "jit", (
        "_jax_compat.traced_for: tracer._debug_info.traced_for is gone or renamed"
    )
    assert compat.traced_for(object()) is None


def test_trace_and_tracer_names_are_derived_from_one_table():
    assert names.tracer_names(frozenset({"vmap"})) == ["BatchTracer"]
    assert names.trace_names(frozenset({"vmap"})) == ["BatchTrace"]
    assert "while_body" in names.traced_for_names(names.LOOPS)
    assert not set(names.tracer_names(names.GRAD_VMAP)) & {"DynamicJaxprTracer"}


def test_trace_in_progress_is_true_only_inside_a_trace():
    inside = []
    jax.jit(lambda x: inside.append(compat.trace_in_progress()) or x)(1.0)
    jax.vmap(lambda x: inside.append(compat.trace_in_progress()) or x)(jnp.ones(2))
    assert inside == [True, True], "_jax_compat.trace_in_progress: core.trace_state_clean"
    assert compat.trace_in_progress() is False


def test_leak_checker_off_silences_the_checker_for_the_block_only():
    saved = []

    def leaky():
        def leak(x):
            saved.append(x)
            return x

        return jax.jit(leak)  # a new function each time: no trace cache to hit

    with jax.checking_leaks():
        with compat.leak_checker_off():
            leaky()(1.0)  # no error: the checker is off here
        with pytest.raises(Exception, match="Leaked trace"):
            leaky()(1.0)  # the checker is on again after the block


def test_fresh_trace_context_makes_jax_trace_a_cached_body_again():
    runs = []

    def body(c, x):
        runs.append(1)
        return c + x, x

    def f(xs):
        return lax.scan(body, 0.0, xs)[0]

    xs = jnp.ones(3)
    jax.make_jaxpr(f)(xs)
    jax.make_jaxpr(f)(xs)
    cached = len(runs)
    with compat.fresh_trace_context("test-a"):
        jax.make_jaxpr(f)(xs)
    assert len(runs) == cached + 1, (
        "_jax_compat.fresh_trace_context: jax_hlo_source_file_canonicalization_regex no longer "
        "keys JAX's trace caches, so cached loop bodies are not traced again"
    )
    with compat.fresh_trace_context("test-a"):
        jax.make_jaxpr(f)(xs)  # the same token: the same context, cached
    assert len(runs) == cached + 1


def test_forget_eager_programs_empties_jax_eager_cache_after_an_eager_loop_only():
    # JAX compiles an eager lax.scan once per body program and keeps it for the process;
    # a body made anew each call makes a new program each time.
    def running_sums(xs):
        return lax.scan(lambda c, x: (c + x, c), 0.0, xs)[0]

    xs = jnp.arange(3.0)
    jnp.sin(xs) + 1.0
    before = compat.eager_programs()
    jnp.sin(xs) + 1.0  # compiled before: the cache takes nothing
    assert compat.forget_eager_programs(before) is False
    running_sums(xs)
    assert compat.forget_eager_programs(before) is True
    assert compat.forget_eager_programs(compat.eager_programs()) is False


def test_config_values_and_restore_config_put_every_flag_back():
    before = compat.config_values()
    assert before["jax_debug_nans"] is False, "_jax_compat.config_values: jax.config.values"
    jax.config.update("jax_debug_nans", True)
    try:
        assert compat.config_values()["jax_debug_nans"] is True
    finally:
        compat.restore_config(before)
    assert compat.config_values() == before


def test_is_jit_wrapper_tells_jit_apart_from_other_wrappers():
    import functools

    def f(x):
        return x

    @functools.wraps(f)
    def decorated(x):
        return f(x)

    assert compat.is_jit_wrapper(jax.jit(f)), "_jax_compat.is_jit_wrapper: jit's _cache_size"
    assert not compat.is_jit_wrapper(f)
    assert not compat.is_jit_wrapper(decorated)
    assert not compat.is_jit_wrapper(functools.partial(f))


def test_jit_cache_misses_and_has_compiled_follow_the_compile_cache():
    double = jax.jit(lambda x: 2 * x)
    assert not compat.has_compiled(double)
    with compat.jit_cache_misses(double) as missed:
        double(jnp.ones(2))
    assert missed(), "_jax_compat.jit_cache_misses: jit's _cache_size() did not grow"
    assert compat.has_compiled(double)
    with compat.jit_cache_misses(double) as missed:
        double(jnp.zeros(2))
    assert not missed()
    with compat.jit_cache_misses(double) as missed:
        double(jnp.zeros(3))
    assert missed()


def test_jit_static_argument_names_reads_argnums_and_argnames():
    def f(x, n, *, mode):
        return x

    wrapper = jax.jit(f, static_argnums=1, static_argnames="mode")
    assert compat.jit_static_argument_names(wrapper) == frozenset({"n", "mode"}), (
        "_jax_compat.jit_static_argument_names: jit's PjitInfo (_jit_info, or the jit_info "
        "cell of eval_shape's closure on 0.4.35)"
    )
    assert compat.jit_static_argument_names(jax.jit(f)) == frozenset()
    assert compat.jit_static_argument_names(f) is None


def test_jit_donated_argument_names_reads_donate_argnums_and_argnames():
    def step(params, grads, *, state):
        return params

    wrapper = jax.jit(step, donate_argnums=0, donate_argnames="state")
    assert compat.jit_donated_argument_names(wrapper) == frozenset({"params", "state"}), (
        "_jax_compat.jit_donated_argument_names: jit's PjitInfo donate_argnums/argnames"
    )
    assert compat.jit_donated_argument_names(jax.jit(step)) == frozenset()


def test_leak_checker_on_makes_jax_raise_what_is_leak_error_recognises():
    seen = []

    def remember(x):
        seen.append(x)
        return x

    with compat.leak_checker_on(), pytest.raises(Exception) as leaked:  # noqa: PT011
        jax.jit(remember)(1.0)
    assert compat.is_leak_error(leaked.value), (
        f"_jax_compat.is_leak_error: JAX's leak checker now says {str(leaked.value)[:80]!r}"
    )
    assert not jax.config.jax_check_tracer_leaks  # the block's switch only
    assert not compat.is_leak_error(ValueError("Leaked trace"))
    assert not compat.is_leak_error(Exception("something else"))


@jax.tree_util.register_pytree_node_class
class _WithAux:
    def __init__(self, value, meta):
        self.value, self.meta = value, meta

    def tree_flatten(self):
        return (self.value,), self.meta

    @classmethod
    def tree_unflatten(cls, meta, children):
        return cls(children[0], meta)


def test_static_data_reads_the_aux_data_of_every_node_and_not_the_leaves():
    x = jnp.ones(2)
    tree = {"out": _WithAux(x, ("max", 3)), "plain": [x]}
    data = compat.static_data(tree)
    assert ("max", 3) in data, "_jax_compat.static_data: PyTreeDef.node_data()/children()"
    assert ["out", "plain"] in data  # a dict's keys are its static data
    assert not any(d is x for d in data)


def _announce(c):
    return None


def test_jaxprs_in_and_user_callback_name_read_a_program():
    def body(c, _):
        jax.debug.callback(_announce, c)  # the user's: named
        jax.debug.print("c = {}", c)  # JAX's own: None
        return jnp.sin(c), None

    program = jax.jit(lambda x: lax.scan(body, x, xs=None, length=3)[0]).trace(1.0).jaxpr
    [scan] = [e for e in program.eqns if e.primitive.name == "scan"]
    [inner] = [j for value in scan.params.values() for j in compat.jaxprs_in(value)]
    names = [compat.user_callback_name(e) for e in inner.eqns if "callback" in e.primitive.name]
    # jax.debug.print: a debug_callback of JAX's own (None), or a primitive of its own
    assert [n for n in names if n is not None] == ["_announce"], (
        "_jax_compat.user_callback_name: the `callback` cell of debug_callback's closure"
    )


def test_ref_is_the_type_of_new_ref_arrays_where_jax_has_them():
    if not hasattr(jax, "new_ref"):  # JAX 0.4.35 and 0.6.2
        assert compat.Ref is None
        return
    assert compat.Ref is not None
    assert isinstance(jax.new_ref(jnp.zeros(2)), compat.Ref), "_jax_compat.Ref: jax.Ref"


def test_opaque_trace_state_is_the_type_of_jaxs_public_record_of_the_trace():
    import jax.extend.core

    made = getattr(jax.extend.core, "get_opaque_trace_state", None)  # 0.10 and newer
    record = (made or jax.core.get_opaque_trace_state)(convention="flax")
    assert type(record) is compat.OpaqueTraceState, "_jax_compat.OpaqueTraceState"


def test_hide_from_source_info_makes_jax_skip_the_frames_of_a_file(tmp_path):
    helper = tmp_path / "hidden_helper.py"
    helper.write_text("import jax.numpy as jnp\n\ndef sine(x):\n    return jnp.sin(x)\n")
    spec = importlib.util.spec_from_file_location("hidden_helper", helper)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def lowered() -> str:
        ir = jax.jit(lambda x: module.sine(x)).lower(1.0).compiler_ir("stablehlo")
        return ir.operation.get_asm(enable_debug_info=True)

    assert "hidden_helper.py" in lowered()
    compat.hide_from_source_info(str(helper))
    text = lowered()
    assert "hidden_helper.py" not in text and "test_jax_compat.py" in text, (
        "_jax_compat.hide_from_source_info: jax._src.source_info_util.register_exclusion "
        "is gone or no longer skips a file's frames"
    )
