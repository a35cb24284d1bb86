"""jaxpurity.raises: shows the expected error, fails on every kind of drift."""

import json
import re

import jax
import jax.numpy as jnp
import pytest

import jaxpurity
from jaxpurity._capture import CAUGHT_LOG_ENV


def _cond_mismatch():
    jax.lax.cond(True, lambda: jnp.zeros(3), lambda: jnp.zeros(2))


def test_raises_prints_type_and_message_and_continues(capsys):
    with jaxpurity.raises(TypeError) as info:
        _cond_mismatch()
    printed = capsys.readouterr().out
    assert isinstance(info.value, TypeError)
    assert info.type is TypeError
    assert printed.startswith("TypeError: ")
    # The printed text is JAX's own message, not a summary of it.
    assert str(info.value).splitlines()[0] in printed


def test_raises_accepts_a_matching_pattern_and_subclasses(capsys):
    with jaxpurity.raises(Exception, match=r"\w+") as info:
        _cond_mismatch()
    assert isinstance(info.value, TypeError)
    assert capsys.readouterr().out.startswith("TypeError: ")


def test_raises_fails_when_nothing_is_raised():
    with pytest.raises(AssertionError, match="expected TypeError, but the block raised nothing"):
        with jaxpurity.raises(TypeError):
            jnp.zeros(3) + 1


def test_raises_fails_on_another_type_and_chains_it():
    # The case of a gallery page that says ValueError where JAX raises TypeError.
    with pytest.raises(
        AssertionError, match="expected ValueError, but the block raised TypeError"
    ) as failure:
        with jaxpurity.raises(ValueError):
            _cond_mismatch()
    assert isinstance(failure.value.__cause__, TypeError)


def test_raises_fails_when_the_pattern_does_not_match():
    with pytest.raises(AssertionError, match="matching 'no such words'") as failure:
        with jaxpurity.raises(TypeError, match="no such words"):
            _cond_mismatch()
    assert isinstance(failure.value.__cause__, TypeError)


def test_raises_accepts_a_tuple_of_types(capsys):
    with jaxpurity.raises((ValueError, TypeError)):
        _cond_mismatch()
    with pytest.raises(AssertionError, match="expected KeyError or ValueError"):
        with jaxpurity.raises((KeyError, ValueError)):
            _cond_mismatch()


@pytest.mark.parametrize("bad", [TypeError(), "TypeError", int, (), (TypeError, 3)])
def test_raises_rejects_what_is_not_an_exception_class(bad):
    with pytest.raises(TypeError, match="exception class or a tuple"):
        with jaxpurity.raises(bad):
            pass


def test_raises_lets_keyboard_interrupt_through():
    with pytest.raises(KeyboardInterrupt):
        with jaxpurity.raises(ValueError):
            raise KeyboardInterrupt


def test_raises_removes_the_machines_paths(capsys):
    @jax.jit
    def branch_in_python(x):
        return x if x > 0 else -x

    with jaxpurity.raises(jax.errors.TracerBoolConversionError) as info:
        branch_in_python(1.0)  # JAX names this file by its absolute path
    assert __file__ in str(info.value)
    printed = capsys.readouterr().out
    assert "test_capture.py" in printed
    assert __file__ not in printed
    assert not re.search(r"(^|\s)/\S+/", printed)


def test_raises_shortens_very_long_messages(capsys):
    with jaxpurity.raises(ValueError):
        raise ValueError("\n".join(f"line {i}" for i in range(100)))
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "ValueError: line 0"
    assert printed[-1] == "[... 60 more lines]"


def test_raises_records_to_the_log_the_docs_build_names(tmp_path, monkeypatch, capsys):
    log = tmp_path / "caught.jsonl"
    monkeypatch.setenv(CAUGHT_LOG_ENV, str(log))
    with jaxpurity.raises(TypeError) as info:
        _cond_mismatch()
    (entry,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert entry["type"] == "TypeError"
    assert entry["message"] == jaxpurity.clean_paths(str(info.value)).strip()


@pytest.mark.parametrize(
    ("where", "error"),
    [
        (lambda tmp: tmp, IsADirectoryError),
        (lambda tmp: tmp / "no" / "such" / "caught.jsonl", FileNotFoundError),
    ],
    ids=["a folder", "in a missing folder"],
)
def test_raises_names_the_log_variable_where_it_cannot_record(tmp_path, monkeypatch, where, error):
    # The docs build sets the variable to gather the error index: an error silently left
    # out would make the index wrong, so a log that cannot be written fails, and says why.
    monkeypatch.setenv(CAUGHT_LOG_ENV, str(where(tmp_path)))
    with pytest.raises(error, match=rf"\${CAUGHT_LOG_ENV} names .* set it to a file in an"):
        with jaxpurity.raises(ValueError):
            raise ValueError("x")


@pytest.mark.parametrize(
    ("match", "error", "says"),
    [
        ("(", ValueError, r"raises\(match='\('\): not a valid regular expression .*re.escape"),
        (5, TypeError, r"match=\.\.\.\) takes a regular expression as a str \(or None\), not int"),
    ],
    ids=["invalid pattern", "not a str"],
)
def test_raises_names_a_bad_match_before_the_block_runs(match, error, says):
    ran = []
    with pytest.raises(error, match=says):
        with jaxpurity.raises(ValueError, match=match):
            ran.append(True)
    assert ran == []


def test_raises_takes_a_compiled_pattern(capsys):
    with jaxpurity.raises(ValueError, match=re.compile(r"went \w+")):
        raise ValueError("it went wrong")
    assert capsys.readouterr().out == "ValueError: it went wrong\n"


@pytest.mark.parametrize(
    ("text", "cleaned"),
    [
        ('File "/home/ana/project/gallery/page.py", line 3', 'File "page.py", line 3'),
        (
            "at /root/.venv/lib/python3.11/site-packages/jax/_src/core.py:10",
            "at jax/_src/core.py:10",
        ),
        (
            "see https://docs.jax.dev/en/latest/errors.html",
            "see https://docs.jax.dev/en/latest/errors.html",
        ),
        ("f at C:\\Users\\ana\\page.py:4", "f at page.py:4"),
        ("ratio 1/2 and and/or", "ratio 1/2 and and/or"),
        ("got <function f at 0x7f3a2c1b9e40> here", "got <function f> here"),
    ],
    ids=["posix path", "site-packages", "url", "windows path", "slashes", "address"],
)
def test_clean_paths(text, cleaned):
    assert jaxpurity.clean_paths(text) == cleaned


def test_printed_collects_trace_time_and_run_time_output_then_shows_it(capsys):
    @jax.jit
    def f(x):
        print("tracing")
        jax.debug.print("x = {}", x)
        return x

    with jaxpurity.printed() as out:
        f(1.0)
        f(2.0)
        assert capsys.readouterr().out == ""  # collected, not shown yet
    assert out.lines == ["tracing", "x = 1.0", "x = 2.0"]
    assert capsys.readouterr().out == out.text


def test_printed_waits_for_callbacks_that_print_after_the_call_returned():
    @jax.jit
    def f(x):
        jax.debug.print("late {}", x)
        return x

    with jaxpurity.printed(echo=False) as out:
        for i in range(5):
            f(float(i))  # no effects_barrier here: printed() waits
    assert sorted(out.lines) == [f"late {i}.0" for i in range(5)]


def test_printed_shows_what_the_block_printed_when_it_raises(capsys):
    with pytest.raises(ValueError, match="boom"):
        with jaxpurity.printed(echo=False):
            print("before the error")
            raise ValueError("boom")
    assert capsys.readouterr().out == "before the error\n"
