"""Tests for jaxpurity/explainer/_pasted.py: errors read as people paste them.

The errors are raised live by the installed JAX, then dressed the way tools print them:
colours, CRLF, IPython headers, pytest lines, wrapping, chaining, a tail with JAX's link.
"""

from __future__ import annotations

import textwrap
import traceback

import jax
import jax.numpy as jnp
import pytest

import jaxpurity
from jaxpurity._pages import page
from jaxpurity.explainer._pasted import read_error


def _raised() -> BaseException:
    try:
        jax.jit(lambda x: 1 if x > 0 else 0)(1.0)
    except jax.errors.TracerBoolConversionError as error:
        return error
    raise AssertionError("JAX raised nothing")


ERROR = _raised()
TRACEBACK = "".join(traceback.format_exception(ERROR))
LINE = f"jax.errors.TracerBoolConversionError: {ERROR}"
TOPIC = "python_control_flow"

DRESSED = {
    "ansi colours": "\x1b[0;31m" + LINE.replace(": ", "\x1b[0m: ", 1),
    "windows line ends": TRACEBACK.replace("\n", "\r\n"),
    "ipython header": "-" * 75
    + "\nTracerBoolConversionError                 Traceback (most recent call last)\n"
    + "Cell In[3], line 1\n----> 1 relu(1.0)\n\n"
    + LINE,
    "pytest E lines": "\n".join("E   " + line for line in LINE.splitlines()),
    "pytest FAILED line": f"FAILED tests/test_model.py::test_relu - {LINE.splitlines()[0]}",
    "filtered stack trace": f"jax._src.traceback_util.UnfilteredStackTrace: {LINE}",
    "wrapped at 40 columns": "\n".join(textwrap.wrap(LINE, 40)),
    "wrapped mid-word": "\n".join(LINE[i : i + 37] for i in range(0, len(LINE), 37)),
    "rich panel": "\n".join(f"│ {line:<100} │" for line in LINE.splitlines()),
    "class name mid-line": f"I get this when I run it: {LINE}",
    "markdown comment": "\n".join("# " + line for line in LINE.splitlines()),
}


@pytest.mark.parametrize("how", DRESSED)
def test_explain_reads_through_the_way_tools_print_errors(how):
    explanation = jaxpurity.explain(DRESSED[how])
    assert (explanation.topic, explanation.page) == (TOPIC, page(TOPIC)), how
    assert explanation.error == "TracerBoolConversionError", how


def test_only_the_tail_with_jax_s_link_is_enough():
    tail = str(ERROR).splitlines()[-1]
    assert "errors.html#jax.errors.TracerBoolConversionError" in tail
    assert jaxpurity.explain(tail).topic == TOPIC


def test_a_chained_traceback_is_read_raised_error_first():
    try:
        try:
            jax.jit(lambda x: 1 if x > 0 else 0)(1.0)
        except Exception as error:
            raise RuntimeError("while loading the model") from error
    except RuntimeError as outer:
        text = "".join(traceback.format_exception(outer))
    blocks = read_error(text)
    assert blocks[0].names == ("RuntimeError",)
    assert "TracerBoolConversionError" in blocks[1].names
    assert jaxpurity.explain(text).topic == TOPIC


def test_a_traceback_gives_its_frames_and_source_lines():
    (block,) = read_error(TRACEBACK)
    assert block.frames and all(line is None for _, _, line in block.frames)
    assert any("jax.jit(lambda x" in code for code in block.code)


def test_an_exception_whose_str_raises_is_still_read():
    class Broken(Exception):
        def __str__(self):
            raise RuntimeError("no str for you")

    (block,) = read_error(Broken())
    assert block.names[0] == "Broken"
    assert not jaxpurity.explain(Broken()).recognised


@pytest.mark.parametrize(
    "text",
    ["\n" * 200_000, " " * 500_000, "│" * 200_000, "a" * 500_000, "Error: " * 50_000],
    ids=["newlines", "spaces", "borders", "one word", "many headers"],
)
def test_hostile_input_is_read_without_error(text):
    assert not jaxpurity.explain(text).recognised


_OUTPUT = "epoch 3 step 1700/5000 loss 0.4127 accuracy 0.8812\n"


# A CI log: the traceback, then what the job printed after it. These took n * n steps (20,000
# lines of one space: 14 s; 100,000: minutes) until the note's "^\s*" stopped at its line end.
@pytest.mark.parametrize(
    "log",
    [
        TRACEBACK + " \n" * 100_000,
        TRACEBACK + "\n" * 100_000,
        TRACEBACK + "\t\n" * 100_000,
        TRACEBACK + _OUTPUT * 20_000,
        TRACEBACK + _OUTPUT * 10_000 + TRACEBACK + _OUTPUT * 10_000,
        "Traceback (most recent call last) " * 30_000 + "\n" + TRACEBACK,
    ],
    ids=["space lines", "empty lines", "tab lines", "output", "output between", "headers"],
)
def test_a_traceback_followed_by_a_long_log_is_read(log):
    explanation = jaxpurity.explain(log)
    assert (explanation.topic, explanation.error) == (TOPIC, "TracerBoolConversionError")


def test_jax_hidden_frames_note_is_not_an_error_of_the_chain():
    # Python 3.10 users paste JAX's SimplifiedTraceback as the cause of the real error.
    pasted = (
        "jax.errors.SimplifiedTraceback: For simplicity, JAX has removed its internal frames "
        "from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to "
        "include these.\n\nThe above exception was the direct cause of the following "
        "exception:\n\n" + TRACEBACK.split("\n\n")[-1]
    )
    blocks = read_error(pasted)
    assert [block.names for block in blocks] == [("TracerBoolConversionError",)], blocks
    assert jaxpurity.explain(pasted).topic == TOPIC


def _ipython_traceback(error: BaseException) -> str:
    """``error`` as IPython and Jupyter print it, by IPython's own formatter, without colours."""
    ultratb = pytest.importorskip("IPython.core.ultratb")
    try:
        formatter = ultratb.FormattedTB(mode="Context", theme_name="nocolor")
    except TypeError:  # IPython before 9 names its colours differently
        formatter = ultratb.FormattedTB(mode="Context", color_scheme="NoColor")
    return formatter.text(type(error), error, error.__traceback__)


def test_an_ipython_traceback_gives_the_function_that_raised():
    # A TracerBoolConversionError in compress's `if` up to JAX 0.10.2; JAX 0.12 says size=.
    with pytest.raises(jax.errors.JAXTypeError) as info:
        jax.jit(lambda x: jnp.compress(x > 0, x))(jnp.ones(3))
    text = _ipython_traceback(info.value)

    assert "in compress" in read_error(text)[0].raised
    assert jaxpurity.explain(text).topic == "boolean_masks"


def test_an_ipython_7_traceback_gives_the_function_that_raised():
    # IPython 7 and older print "path in function(args)" and mark the line that ran "-->".
    text = textwrap.dedent("""\
        ---------------------------------------------------------------------------
        ConcretizationTypeError                   Traceback (most recent call last)
        <ipython-input-4-8e3f1c2b7d10> in <module>
        ----> 1 total = jit_sum(data, ids, 3)

        /usr/local/lib/python3.7/dist-packages/jax/_src/ops/scatter.py in segment_sum(data, ...)
            345   if num_segments is None:
            346     num_segments = jnp.max(segment_ids) + 1
        --> 347   num_segments = int(num_segments)

        ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected
        """)
    block = read_error(text)[0]

    assert block.frames == (
        ("<ipython-input-4-8e3f1c2b7d10>", "<module>", None),
        ("/usr/local/lib/python3.7/dist-packages/jax/_src/ops/scatter.py", "segment_sum", None),
    )
    assert block.raised.endswith("in segment_sum\nnum_segments = int(num_segments)")
    assert jaxpurity.explain(text).topic == "static_arguments"
