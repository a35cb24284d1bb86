"""Run every gallery script on the installed JAX, and keep what each one caught.

The site is built with the newest JAX, but readers run older ones, whose
errors read differently. This runs each page's script as a reader who
downloaded it would (``python script.py``, from a folder of its own), with
:func:`jaxpurity.raises` logging every error it catches, and compares those
errors with the record kept in ``docs/captured/jax-<version>/`` (one JSON
line per error, in the layout :func:`jaxpurity._capture.read_caught` reads).
The docs build's error index shows the recorded wordings beside the newest.

``python tests/record_gallery.py --check``
    fails, showing the difference, when a page caught something else than
    its record says (``tox -e gallery-oldest`` runs this on JAX 0.4.35);
``python tests/record_gallery.py --update``
    rewrites the record from this run.

Either way, each script's full output lands in ``artifacts/gallery-jax-<version>/``.
Source line numbers (``page.py:35``) are not compared, so that editing a page
above an example does not make its record stale, nor are object ids (the leak
checker's ``<list 140128096935680>``, a tracer's ``object id 1401...``), which
change from run to run.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from jaxpurity._capture import CAUGHT_LOG_ENV  # noqa: E402
from jaxpurity._pages import SECTIONS, missing  # noqa: E402

_LINE_NUMBER = re.compile(r"(\.py):\d+")
# Objects are named by id, which differs from run to run: by the leak checker
# (<list 140128096935680>), and by a tracer's message ("BatchTracer with object id 1401...").
_OBJECT_ID = re.compile(r"(<[\w.]+) \d+>")
_TRACER_ID = re.compile(r"(object id) \d+")


def record_dir(jax_version: str) -> Path:
    """Where the record of what the gallery caught on ``jax_version`` is kept."""
    return ROOT / "docs" / "captured" / f"jax-{jax_version}"


def run_page(folder: str, topic: str, out: Path, outputs: Path) -> tuple[str, int]:
    """Run one page's script in a folder of its own; its caught errors go to ``out``."""
    script = ROOT / "gallery" / folder / f"{topic}.py"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("")
    with tempfile.TemporaryDirectory() as workdir:
        shutil.copy(script, workdir)
        env = {**os.environ, CAUGHT_LOG_ENV: str(out), "JAX_PLATFORMS": "cpu"}
        env.pop("PYTHONPATH", None)
        done = subprocess.run(
            [sys.executable, script.name],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
    (outputs / f"{topic}.txt").write_text(done.stdout + done.stderr)
    return f"{folder}/{topic}", done.returncode


def comparable(directory: Path) -> dict[str, list[str]]:
    """Each page's caught errors as ``Type: message`` lines, without source line numbers."""
    pages = {}
    for log in sorted(directory.glob("*/*.jsonl")):
        entries = [json.loads(line) for line in log.read_text().splitlines()]
        pages[f"{log.parent.name}/{log.stem}"] = [
            _TRACER_ID.sub(
                r"\1 ID",
                _OBJECT_ID.sub(
                    r"\1 ID>", _LINE_NUMBER.sub(r"\1:N", f"{entry['type']}: {entry['message']}")
                ),
            )
            for entry in entries
        ]
    return pages


def differences(recorded: dict[str, list[str]], caught: dict[str, list[str]]) -> list[str]:
    """A unified diff of each page whose caught errors differ from its record."""
    lines = []
    for page in sorted(set(recorded) | set(caught)):
        before = "\n".join(recorded.get(page, ["(no record)"])).splitlines()
        after = "\n".join(caught.get(page, ["(not run)"])).splitlines()
        if before != after:
            lines += difflib.unified_diff(before, after, f"record {page}", f"caught {page}", n=1)
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="fail when a page differs")
    mode.add_argument("--update", action="store_true", help="rewrite the record")
    args = parser.parse_args()

    jax_version = version("jax")
    outputs = ROOT / "artifacts" / f"gallery-jax-{jax_version}"
    outputs.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        caught_dir = Path(scratch)
        jobs = [
            (s.folder, topic, caught_dir / s.folder / f"{topic}.jsonl", outputs)
            for s in SECTIONS
            for topic in s.topics
            if not missing(topic)
        ]
        for topic in [t for s in SECTIONS for t in s.topics if missing(t)]:
            print(f"JAX {jax_version}: skipped {topic}: it {missing(topic)}")
        with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
            results = list(pool.map(lambda job: run_page(*job), jobs))
        failed = [page for page, returncode in results if returncode != 0]
        if failed:
            print(f"JAX {jax_version}: these pages' scripts failed (output in {outputs}):")
            print("\n".join(f"  {page}" for page in failed))
            return 1
        record = record_dir(jax_version)
        if args.update:
            shutil.rmtree(record, ignore_errors=True)
            shutil.copytree(caught_dir, record)
            print(f"JAX {jax_version}: recorded {len(results)} pages in {record.relative_to(ROOT)}")
            return 0
        diff = differences(comparable(record), comparable(caught_dir))
    if diff:
        print("\n".join(diff))
        print(
            f"\nOn JAX {jax_version} the gallery caught other errors than "
            f"{record.relative_to(ROOT)} records. If the change is meant, rewrite the record "
            "with `tox -e gallery-oldest -- --update` and commit it."
        )
        return 1
    print(f"JAX {jax_version}: all {len(results)} pages caught what their record says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
