"""Tests for jaxpurity/linter/analysis/ (_module.py, with _functions, _applied_transforms,
_known_transforms, _annotations, _names and _taint): which functions JAX traces, by which
transformation, and which of their values hold tracers.
"""

from __future__ import annotations

import ast

import pytest
from lint_cases import source

from jaxpurity.linter.analysis._functions import MAX_CALL_DEPTH
from jaxpurity.linter.analysis._known_transforms import TRANSFORMS, with_jit_wrappers
from jaxpurity.linter.analysis._module import ModuleAnalysis
from jaxpurity.linter.analysis._names import Names


def analysis_of(snippet: str, wrappers: frozenset[str] = frozenset()) -> ModuleAnalysis:
    tree = ast.parse(source(snippet))
    return ModuleAnalysis(tree, Names(tree), with_jit_wrappers(wrappers))


def traced_params(snippet: str, wrappers: frozenset[str] = frozenset()) -> dict[str, list[str]]:
    """Each traced function of the snippet, by name: its traced parameters."""
    found = analysis_of(snippet, wrappers).traced_functions()
    return {f.name: sorted(f.traced_params) for f in found}


# -- how a function comes to be traced: (snippet, {name: traced parameters}) ---------------

DISCOVERY = {
    "decorated with jax.jit": (
        """
        import jax
        @jax.jit
        def f(x, y):
            return x
        """,
        {"f": ["x", "y"]},
    ),
    "decorated with jit imported from jax": (
        """
        from jax import jit
        @jit
        def f(x):
            return x
        """,
        {"f": ["x"]},
    ),
    "passed to jax.jit, and wrapped again in a loop of calls": (
        """
        import jax
        def f(x):
            return x
        fast = jax.jit(f)
        """,
        {"f": ["x"]},
    ),
    "functools.partial(jax.jit, static_argnums=...) as a decorator": (
        """
        import functools
        import jax
        @functools.partial(jax.jit, static_argnums=(1, -1))
        def f(x, n, mode, flag):
            return x
        """,
        {"f": ["mode", "x"]},
    ),
    "partial imported from functools, with static_argnames": (
        """
        from functools import partial
        import jax
        @partial(jax.jit, static_argnames=("mode",))
        def f(x, mode):
            return x
        """,
        {"f": ["x"]},
    ),
    "jax.jit with options first, as newer JAX takes them": (
        """
        import jax
        @jax.jit(static_argnames="n")
        def f(x, n):
            return x
        """,
        {"f": ["x"]},
    ),
    "statics computed at run time: none of the parameters is known to be traced": (
        """
        import jax
        STATIC = (1,)
        def f(x, n):
            return x
        g = jax.jit(f, static_argnums=STATIC)
        """,
        {"f": []},
    ),
    "a lambda under jax.vmap, with in_axes None": (
        """
        import jax
        jax.vmap(lambda x, k: x + k, in_axes=(0, None))
        """,
        {"<lambda>": ["x"]},
    ),
    "jax.grad and value_and_grad: the differentiated arguments": (
        """
        import jax
        def loss(w, x):
            return w * x
        def other(w, x):
            return w * x
        jax.grad(loss)
        jax.value_and_grad(other, argnums=(0, 1))
        """,
        {"loss": ["w"], "other": ["w", "x"]},
    ),
    "jax.pmap, checkpoint and remat": (
        """
        import jax
        def a(x, n):
            return x
        def b(x):
            return x
        def c(x):
            return x
        jax.pmap(a, static_broadcasted_argnums=1)
        jax.checkpoint(b)
        jax.remat(c)
        """,
        {"a": ["x"], "b": ["x"], "c": ["x"]},
    ),
    "shard_map, under both of its names": (
        """
        import jax
        from jax.experimental.shard_map import shard_map
        def a(x):
            return x
        def b(x):
            return x
        shard_map(a, mesh=None, in_specs=None, out_specs=None)
        jax.shard_map(b, mesh=None, in_specs=None, out_specs=None)
        """,
        {"a": ["x"], "b": ["x"]},
    ),
    "a module-level alias of shard_map": (
        """
        import jax
        shard_map = jax.shard_map
        def a(x):
            return x
        shard_map(a, mesh=None, in_specs=None, out_specs=None)
        """,
        {"a": ["x"]},
    ),
    "eqx.filter_jit, nnx.jit and hk.transform: traced, Python values stay static": (
        """
        import equinox as eqx
        import haiku as hk
        from flax import nnx
        @eqx.filter_jit
        def a(model, x):
            return x
        @nnx.jit
        def b(model, x):
            return x
        def c(x):
            return x
        hk.transform(c)
        """,
        {"a": [], "b": [], "c": []},
    ),
    "a learning-rate schedule that an optax optimizer calls with the step count": (
        """
        import optax
        def schedule(count):
            return 0.1 / (1 + count)
        def step_size(count):
            return -0.1
        tx = optax.chain(optax.adam(learning_rate=schedule), optax.scale_by_schedule(step_size))
        constant = optax.sgd(0.1)
        """,
        {"schedule": ["count"], "step_size": ["count"]},
    ),
    "the bodies of lax loops and branches": (
        """
        from jax import lax
        def scan_body(c, x):
            return c, x
        def fori_body(i, c):
            return c
        def cond_fun(c):
            return c
        def body_fun(c):
            return c
        def yes(x):
            return x
        def no(x):
            return x
        def case(x):
            return x
        def mapped(x):
            return x
        lax.scan(scan_body, 0, None, length=3)
        lax.fori_loop(0, 3, fori_body, 0)
        lax.while_loop(cond_fun, body_fun, 0)
        lax.cond(True, yes, no, 1)
        lax.switch(0, [case], 1)
        lax.map(mapped, None)
        """,
        {
            "scan_body": ["c", "x"],
            "fori_body": ["c", "i"],
            "cond_fun": ["c"],
            "body_fun": ["c"],
            "yes": ["x"],
            "no": ["x"],
            "case": ["x"],
            "mapped": ["x"],
        },
    ),
    "keyword arguments of lax loops": (
        """
        import jax
        def body(i, c):
            return c
        jax.lax.fori_loop(0, 3, body_fun=body, init_val=0)
        """,
        {"body": ["c", "i"]},
    ),
    "jax.jit(self.method): self is bound": (
        """
        import jax
        class Model:
            def __init__(self):
                self.fast = jax.jit(self.step, static_argnums=1)
            def step(self, x, n):
                return x
        """,
        {"step": ["x"]},
    ),
    "functools.partial around the function: bound arguments are Python values": (
        """
        import functools
        import jax
        def f(w, g, lr):
            return w
        def h(a, b):
            return a
        jax.jit(functools.partial(f, lr=0.1))
        jax.jit(functools.partial(h, 1))
        """,
        {"f": ["g", "w"], "h": ["b"]},
    ),
    "nested transformations": (
        """
        import jax
        def f(x, n):
            return x
        jax.jit(jax.vmap(f, in_axes=(0, None)), static_argnums=1)
        """,
        {"f": ["x"]},
    ),
    "a parameter with a default is a Python value unless passed": (
        """
        import jax
        @jax.jit
        def f(x, bins=4, *, scale=1.0, mode):
            return x
        """,
        {"f": ["mode", "x"]},
    ),
    "a decorator that is not a transformation is passed through": (
        """
        import functools
        import jax
        @functools.wraps(print)
        @jax.jit
        def f(x):
            return x
        """,
        {"f": ["x"]},
    ),
}


@pytest.mark.parametrize(("snippet", "expected"), DISCOVERY.values(), ids=DISCOVERY.keys())
def test_finds_the_traced_functions_and_their_traced_parameters(snippet, expected):
    assert traced_params(snippet) == expected


def test_a_name_defined_twice_is_the_definition_before_the_reference():
    found = analysis_of(
        """
        import jax
        @jax.jit
        def f(x, n):
            return x
        def f(x, n):
            return x
        g = jax.jit(f, static_argnames="n")
        """
    )
    first, second = found.traced_functions()
    assert sorted(first.traced_params) == ["n", "x"]
    assert sorted(second.traced_params) == ["x"]


def test_callees_are_traced_to_a_bounded_depth_with_the_arguments_they_get():
    chain = "\n".join(
        f"def f{i}(v, s):\n    return f{i + 1}(v * 2, s.shape)" for i in range(MAX_CALL_DEPTH + 1)
    )
    snippet = f"import jax\n{chain}\ndef f{MAX_CALL_DEPTH + 1}(v, s):\n    return v\njax.jit(f0)"
    traced = analysis_of(snippet).traced_functions()
    found = {f.name: (sorted(f.traced_params), f.depth) for f in traced}
    assert found == {f"f{i}": (["v"] if i else ["s", "v"], i) for i in range(MAX_CALL_DEPTH + 1)}


def test_a_method_called_on_self_is_traced_and_self_is_not():
    found = traced_params(
        """
        import functools
        import jax
        class Model:
            @functools.partial(jax.jit, static_argnums=0)
            def __call__(self, x):
                return self.helper(x)
            def helper(self, y):
                return y
        """
    )
    assert found == {"__call__": ["x"], "helper": ["y"]}


def test_a_nested_function_reads_the_traced_values_of_the_one_around_it():
    found = analysis_of(
        """
        import jax
        @jax.jit
        def f(x, n):
            y = x * 2
            def body(i, out):
                return out + y
            return jax.lax.fori_loop(0, 3, body, x)
        """
    )
    body = next(f for f in found.traced_functions() if f.name == "body")
    assert body.traced_free == {"y"}
    assert {"jit", "loop"} <= body.kinds and body.direct == {"loop"}


def test_extra_wrappers_are_read_as_jax_jit():
    snippet = """
        import mylib
        @mylib.jit(static_argnames="n")
        def f(x, n):
            return x
        """
    assert traced_params(snippet) == {}
    assert traced_params(snippet, frozenset({"mylib.jit"})) == {"f": ["x"]}


def test_every_transformation_of_the_table_is_one_the_rules_know():
    kinds = {t.kind for t in TRANSFORMS.values()}
    assert kinds == {
        "jit",
        "pmap",
        "vmap",
        "grad",
        "loop",
        "branch",
        "shard_map",
        "checkpoint",
        "trace",
        "transform",
    }
    assert all(
        t.seeds in ("all", "none", "static", "pmap", "in_axes", "in_specs", "argnums")
        for t in TRANSFORMS.values()
    )


# -- names and taint ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("imports", "written", "qualified"),
    [
        ("import jax.numpy as jnp", "jnp.sum", "jax.numpy.sum"),
        ("from jax import lax", "lax.scan", "jax.lax.scan"),
        ("from jax import numpy as np", "np.asarray", "jax.numpy.asarray"),
        ("import numpy as np", "np.asarray", "numpy.asarray"),
        ("import equinox as eqx", "eqx.filter_jit", "equinox.filter_jit"),
        ("from jax.experimental.pjit import pjit", "pjit", "jax.jit"),
        ("import jax", "jax.remat", "jax.checkpoint"),
        ("", "my_jit", "my_jit"),
    ],
)
def test_names_resolve_import_aliases(imports, written, qualified):
    names = Names(ast.parse(imports))
    assert names.qualified(ast.parse(written, mode="eval").body) == qualified


def test_taint_follows_values_but_not_what_tracing_knows():
    found = analysis_of(
        """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x, table):
            y = x + 1
            shape = x.shape
            n = len(x)
            is_none = x is None
            for i, row in enumerate(x):
                pass
            for a, b in zip(x, range(3)):
                pass
            m = jnp.sum(y)
            entry = table["w"]
            return m
        """
    )
    f = found.traced_functions()[0]
    assert f.taint is not None
    assert f.taint.tracer_names == {"x", "table", "y", "row", "a", "m", "entry"}
    # A dict's item under jit is a leaf, an array; a loop's tuple target is left out.
    assert f.taint.arrays == {"x", "table", "y", "m", "entry"}


def test_a_comprehension_binds_its_own_variables_from_its_iterable():
    found = analysis_of(
        """
        import jax
        @jax.jit
        def f(x, i):
            from_range = [i for i in range(3)]
            from_x = [i for i in x]
            reads_i = [i + j for j in range(3)]
            from_zip = {k: i for k, i in zip(range(3), range(3))}
            return from_range, from_x, reads_i, from_zip
        """
    )
    f = found.traced_functions()[0]
    assert f.taint is not None
    assert f.taint.tracer_names == {"x", "i", "from_x", "reads_i"}


def test_a_name_read_in_the_value_that_assigns_it_again_holds_its_value_from_before():
    found = traced_params(
        """
        import functools
        import jax
        def check(size, *arrays):
            return size
        def grow(size, *arrays):
            return size
        @functools.partial(jax.jit, static_argnames="size")
        def f(x, size):
            size = check(size, x)
            return x
        @functools.partial(jax.jit, static_argnames="size")
        def g(x, size):
            while x.sum() > 0:
                size = grow(size, x)
            return x
        """
    )
    # In a loop, the read sees the round before: grow's result, traced.
    assert found == {"f": ["x"], "check": ["arrays"], "g": ["x"], "grow": ["arrays", "size"]}


def test_a_name_also_assigned_a_python_value_is_no_array_in_the_function_it_is_passed_to():
    found = analysis_of(
        """
        import jax
        import mylib
        def given_size(size, x):
            return x
        def given_n(n, x):
            return x
        @jax.jit
        def f(x, n):
            size = None
            if x.ndim:
                size = mylib.size_of(x)
            return given_size(size, x), given_n(n, x)
        """
    )
    traced = found.traced_functions()
    params = {f.name: (sorted(f.traced_params), sorted(f.array_params)) for f in traced}
    assert params["given_size"] == (["size", "x"], ["x"])
    assert params["given_n"] == (["n", "x"], ["n", "x"])
