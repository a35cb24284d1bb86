"""Tests for jaxpurity/explainer/_install.py: the note on JAX errors, where each error happens.

Each place is a real process: a script run with ``python``, an IPython kernel driven through
jupyter_client (as Jupyter does), and a pytest run with ``-p jaxpurity``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import pytest

import jaxpurity
from jaxpurity._pages import url

ROOT = Path(__file__).resolve().parents[1]
IF_ON_TRACER = "jax.jit(lambda x: 1 if x > 0 else 0)(1.0)"
NOTE = "jaxpurity: A jitted function used `if`"
PAGE = url("python_control_flow")
COND_MISMATCH = "jax.lax.cond(True, lambda: jax.numpy.zeros(3), lambda: jax.numpy.zeros(2))"


def _env() -> dict[str, str]:
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=ROOT,
        timeout=300,
    )


def test_a_script_shows_the_note_under_an_uncaught_jax_error():
    result = _python(f"import jax, jaxpurity\njaxpurity.install()\n{IF_ON_TRACER}\n")
    assert result.returncode == 1
    assert "TracerBoolConversionError" in result.stderr
    assert NOTE in result.stderr and PAGE in result.stderr, result.stderr


def test_a_script_shows_the_note_under_a_plain_type_error_from_lax():
    result = _python(f"import jax, jaxpurity\njaxpurity.install()\n{COND_MISMATCH}\n")
    assert result.returncode == 1
    assert "TypeError" in result.stderr
    assert url("cond_branch_types") in result.stderr, result.stderr


def test_no_note_without_install_and_none_on_an_unknown_error():
    plain = _python(f"import jax\n{IF_ON_TRACER}\n")
    unknown = _python("import jaxpurity\njaxpurity.install()\nraise ValueError('mine')\n")
    assert "jaxpurity:" not in plain.stderr
    assert "ValueError: mine" in unknown.stderr and "jaxpurity:" not in unknown.stderr


def test_an_error_in_a_thread_gets_the_note():
    code = f"""
    import threading, jax, jaxpurity
    jaxpurity.install()
    thread = threading.Thread(target=lambda: {IF_ON_TRACER})
    thread.start(); thread.join()
    """
    result = _python(code)
    assert NOTE in result.stderr, result.stderr


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception notes need Python 3.11+")
def test_a_caught_jax_error_carries_the_note_and_uninstall_removes_it():
    jaxpurity.install()
    try:
        with pytest.raises(jax.errors.TracerBoolConversionError) as info:
            jax.jit(lambda x: 1 if x > 0 else 0)(1.0)
    finally:
        jaxpurity.uninstall()
    notes = [n for n in info.value.__notes__ if n.startswith("jaxpurity")]
    assert notes == [jaxpurity.explain(info.value).note]
    assert notes[0].endswith(PAGE)
    with pytest.raises(jax.errors.TracerBoolConversionError) as again:
        jax.jit(lambda x: 1 if x > 0 else 0)(1.0)
    assert not any(n.startswith("jaxpurity") for n in getattr(again.value, "__notes__", []))


def test_install_twice_then_uninstall_leaves_the_hooks_as_they_were():
    import threading

    hooks = (sys.excepthook, threading.excepthook, jax.errors.UnexpectedTracerError.__init__)
    jaxpurity.install()
    jaxpurity.install()
    jaxpurity.uninstall()
    assert (sys.excepthook, threading.excepthook, jax.errors.UnexpectedTracerError.__init__) == (
        hooks
    )
    assert "__init__" not in vars(jax.errors.KeyReuseError)  # it inherits one, as before


def test_load_ext_in_an_ipython_kernel_shows_the_note():
    manager = pytest.importorskip("jupyter_client.manager")
    pytest.importorskip("ipykernel")
    try:  # a kernel talks over local TCP ports; some sandboxes open none (the TPU machine)
        socket.socket().close()
    except OSError as error:
        pytest.skip(f"a Jupyter kernel needs a TCP socket, and this machine opens none: {error}")
    km, kc = manager.start_new_kernel(kernel_name="python3", env=_env(), cwd=str(ROOT))
    try:
        outputs = []

        def collect(message):
            if message["msg_type"] in ("error", "stream"):
                outputs.append(message["content"])

        for code in ("%load_ext jaxpurity", f"import jax\n{IF_ON_TRACER}"):
            reply = kc.execute_interactive(code, timeout=120, output_hook=collect)
        assert reply["content"]["status"] == "error"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    text = "\n".join("\n".join(out.get("traceback", [])) + out.get("text", "") for out in outputs)
    assert "TracerBoolConversionError" in text
    assert NOTE in text and PAGE in text, text


def test_pytest_plugin_adds_the_explanation_to_the_failure_report(tmp_path):
    (tmp_path / "test_user.py").write_text(
        f"import jax\n\ndef test_relu():\n    {IF_ON_TRACER}\n\ndef test_other():\n"
        "    assert 1 == 2\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "jaxpurity", "-p", "no:cacheprovider", "-q"],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=tmp_path,
        timeout=300,
    )
    assert result.returncode == 1
    out = result.stdout
    assert out.count("jaxpurity ---") == 1, out  # one section: test_other's failure has none
    assert "Error: TracerBoolConversionError" in out and PAGE in out, out
