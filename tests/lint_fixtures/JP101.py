"""JP101 global-assignment: the code it must flag, and the look-alikes it must leave alone."""

# %% finds: JP101 global under jit
import jax
counter = 0

@jax.jit
def step(x):
    global counter
    counter += 1  # expect: JP101
    return x * counter

# %% finds: JP101 nonlocal in a scan body
import jax

def run(xs):
    total = 0

    def body(carry, x):
        nonlocal total
        total = total + 1  # expect: JP101
        return carry, x

    return jax.lax.scan(body, 0.0, xs)

# %% finds: JP101 nonlocal of a function outside the trace, not of one made per trace
import jax

@jax.jit
def per_trace(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v

    def body(carry, row):
        nonlocal total
        total = total + 1  # expect: JP101
        return carry + row, None

    add(x)
    add(x * 2)
    jax.lax.scan(body, 0.0, x)
    return total

# %% finds: JP101 a counter that the code reads, a traced value, a count never checked
import jax
calls = 0
steps = 0
last = None
traces = 0

@jax.jit
def step(x):
    global calls, steps, last, traces
    calls += 1  # expect: JP101
    steps = steps + 1  # expect: JP101
    last = x  # expect: JP101
    traces += 1  # expect: JP101
    return x * steps

def test_step():
    step(1.0)
    assert calls == 1 and steps == 1 and last is not None
    print("calls:", calls)

# %% fine: a counter under grad alone, which runs on every call
import jax
calls = []
count = 0

def loss(w):
    global count
    count += 1
    calls.append("called")
    return (w**2).sum()

jax.grad(loss)(1.0)

# %% fine: trace counters and flags that only tests check
import unittest
import jax
import jax.numpy as jnp
import pytest
traces = 0

@jax.jit
def double(x):
    global traces
    traces = traces + 1
    return 2 * x

def test_one_trace():
    double(1.0)
    double(2.0)
    assert traces == 1

def test_body_ran_and_leaked():
    ran, made = False, None

    @jax.jit
    def f(x):
        nonlocal ran, made
        ran = True
        made = object()
        return x

    f(1.0)
    assert ran and made is not None
    with pytest.raises(RuntimeError):
        made.use()

class RetraceTest(unittest.TestCase):
    def test_new_shape_retraces(self):
        n = 0

        @jax.jit
        def f(x):
            nonlocal n
            n += 1
            return x + 1

        f(jnp.ones(2))
        self.assertEqual(n, 1)
        f(jnp.ones(3))
        self.assertEqual(n, 2)

# %% fine: trace-time output read right after jax.eval_shape, which traces on every call
import functools
import jax

def to_dot(fun):
    @functools.wraps(fun)
    def wrapped_fun(*args):
        dot_out = ""

        def dot_extractor_fn(*inner_args):
            nonlocal dot_out
            dot_out = render(fun)(*inner_args)

        jax.eval_shape(dot_extractor_fn, *args)
        return dot_out

    return wrapped_fun

# %% finds: JP101 a tracer kept through nonlocal under jax.eval_shape
import jax
import jax.numpy as jnp

def leak(x):
    kept = None

    def inner(y):
        nonlocal kept
        kept = jnp.sin(y)  # expect: JP101
        return y

    jax.eval_shape(inner, x)
    return kept
