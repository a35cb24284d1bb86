"""The backend lane: every page and the whole suite on whatever backend JAX sees, and a table.

CI has no accelerator, so the team runs this on one (the TPU machine) by hand,
and CI runs it on the CPU. Only one program at a time may hold a TPU chip,
so each step is one process: the pages run in this one, one after another as
sphinx-gallery runs them (each in a fresh namespace, JAX's flags and caches
reset between pages, as the docs build does), and the suite runs in one
pytest process, no xdist. Nothing here pins ``JAX_PLATFORMS``: JAX picks the
accelerator it sees, and keeps the CPU beside it.

``python tests/lane.py pages OUT``
    runs every gallery page; writes ``OUT/pages.json`` (each page's result,
    seconds, output and the errors it caught).
``python tests/lane.py tests OUT --part fast|slow [--label NAME] [-- PYTEST_ARGS]``
    runs the suite's fast or slow tests (``@pytest.mark.slow``: the corpora,
    the memory tests, the fix matrix); writes ``OUT/tests-<NAME>.xml``. The
    two parts split the suite into calls of under 10 minutes on a TPU chip.
    The memory tests measure the host's memory in CPU processes of their own,
    so they may run beside the pages, with ``JAX_PLATFORMS=cpu``.
``python tests/lane.py table OUT [--record FILE]``
    prints a table of what ran and passed, and writes the record that the
    site's "Where this was run" page shows (``docs/ran_on/``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import runpy
import subprocess
import sys
import tempfile
import time
import traceback
import xml.etree.ElementTree as ET
from datetime import date
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "docs" / "sphinxext"))
# The across-devices page shards over four host CPU devices where the accelerator has fewer:
# XLA reads the flag once, when JAX starts (conf.py sets it the same way for the site).
_DEVICE_COUNT_FLAG = "--xla_force_host_platform_device_count"
if _DEVICE_COUNT_FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_DEVICE_COUNT_FLAG}=4".strip()
os.environ.setdefault("MPLBACKEND", "agg")

from jaxpurity._capture import CAUGHT_LOG_ENV  # noqa: E402
from jaxpurity._pages import SECTIONS, missing  # noqa: E402

PARTS = {"fast": "not slow", "slow": "slow"}
_COLUMNS = ("backend", "device", "JAX", "Python", "pages passed", "tests passed, failed, skipped")


def run_pages(out: Path, only: list[str] | None = None) -> list[dict]:
    """Run each gallery page in this process, as the docs build does; one result per page."""
    from jax_reset import reset_jax

    results = []
    for section in SECTIONS:
        for topic in section.topics:
            page = f"{section.folder}/{topic}"
            if only and not any(name in page for name in only):
                continue
            why = missing(topic)
            results.append({"page": page, "status": "skipped", "why": why, "seconds": 0.0})
            if not why:
                results[-1] = _run_page(page, reset_jax)
            print(f"{results[-1]['status']:>6} {results[-1]['seconds']:6.1f} s  {page}", flush=True)
    (out / "pages.json").write_text(json.dumps({"run": _where(), "pages": results}, indent=1))
    return results


def _run_page(page: str, reset) -> dict:
    script = ROOT / "gallery" / f"{page}.py"
    output = io.StringIO()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as workdir:
        caught = Path(workdir) / "caught.jsonl"
        os.environ[CAUGHT_LOG_ENV] = str(caught)
        cwd = os.getcwd()
        os.chdir(workdir)  # as a reader who downloaded the script runs it
        reset({}, str(script))
        error = None
        try:
            with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
                runpy.run_path(str(script), run_name="__main__")
                import jax

                jax.effects_barrier()  # the page's callbacks print before its output is read
        except BaseException as exc:  # noqa: BLE001 - a page's failure is this row's result
            if isinstance(exc, KeyboardInterrupt):
                raise
            error = "".join(traceback.format_exception(exc)[-12:])
        finally:
            os.chdir(cwd)
            os.environ.pop(CAUGHT_LOG_ENV, None)
            reset({}, str(script), "after")
            _close_figures()
        lines = caught.read_text().splitlines() if caught.exists() else []
    return {
        "page": page,
        "status": "failed" if error else "passed",
        "seconds": round(time.perf_counter() - start, 1),
        "error": error,
        "caught": [json.loads(line) for line in lines],
        "output": output.getvalue()[-20_000:],
    }


def _close_figures() -> None:
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


def run_tests(out: Path, part: str, pytest_args: list[str], label: str | None = None) -> int:
    """Run the suite's ``part`` in one pytest process, reporting to ``OUT/tests-<label>.xml``
    (the label is the part's name unless given: a part split over calls needs one each)."""
    label = label or part
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "-m",
        PARTS[part],
        f"--junitxml={out / f'tests-{label}.xml'}",
        *pytest_args,
    ]
    returncode = subprocess.call(command, cwd=ROOT)
    # Only now: asking JAX for its devices opens the chip, which pytest needed to itself.
    (out / f"tests-{label}.json").write_text(json.dumps(_where()))
    return returncode


def _where() -> dict:
    """Where this runs: the backend JAX picked, its devices, the versions, the date."""
    import jax

    device = jax.devices()[0]
    return {
        "backend": jax.default_backend(),
        "device": getattr(device, "device_kind", str(device)),
        "device_count": jax.device_count(),
        "jax": version("jax"),
        "jaxlib": version("jaxlib"),
        "python": platform.python_version(),
        "date": date.today().isoformat(),
        "commit": os.environ.get("LANE_COMMIT") or _commit(),
    }


def _commit() -> str:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
    except OSError:  # no git where the lane runs: a copy of the tree, not a clone
        return "unknown"
    return done.stdout.strip() or "unknown"


def summary(out: Path) -> dict:
    """One record of a lane run: where, the pages ran and passed, the tests by outcome."""
    pages_file = out / "pages.json"
    pages = json.loads(pages_file.read_text()) if pages_file.exists() else None
    record = dict(pages["run"]) if pages else {}
    if pages:
        results = [r for r in pages["pages"] if r["status"] != "skipped"]
        record["pages"] = {
            "ran": len(results),
            "passed": sum(r["status"] == "passed" for r in results),
            "failed": [r["page"] for r in results if r["status"] != "passed"],
            "skipped": {r["page"]: r["why"] for r in pages["pages"] if r["status"] == "skipped"},
        }
    tests = {"passed": 0, "failed": 0, "skipped": 0, "failures": []}
    for report in sorted(out.glob("tests-*.xml")):
        record = record or json.loads(report.with_suffix(".json").read_text())
        for case in ET.parse(report).iter("testcase"):
            key = _outcome(case)
            tests[key] += 1
            if key == "failed":
                tests["failures"].append(f"{case.get('classname')}::{case.get('name')}")
    if any(out.glob("tests-*.xml")):
        record["tests"] = tests
    return record


def _outcome(case: ET.Element) -> str:
    """A JUnit test case's outcome: an error in its set-up or teardown fails it, as a
    failure does (pytest reports a test whose teardown raised as passed, plus an error)."""
    tags = {child.tag for child in case}
    if tags & {"failure", "error"}:
        return "failed"
    return "skipped" if "skipped" in tags else "passed"


def table(records: list[dict]) -> str:
    """The records as a Markdown table, one row each."""
    rows = ["| " + " | ".join((*_COLUMNS, "date")) + " |", "|" + " --- |" * (len(_COLUMNS) + 1)]
    for r in records:
        pages = f"{r['pages']['passed']}/{r['pages']['ran']}" if "pages" in r else "not run"
        t = r.get("tests")
        tests = f"{t['passed']}, {t['failed']}, {t['skipped']}" if t else "not run"
        rows.append(
            f"| {r['backend']} | {r['device']} | {r['jax']} | {r['python']} | {pages} | {tests} "
            f"| {r['date']} |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    pages = steps.add_parser("pages", help="run every gallery page in this process")
    pages.add_argument("out", type=Path)
    pages.add_argument("--only", nargs="*", help="pages whose name holds one of these")
    tests = steps.add_parser("tests", help="run one part of the suite in one pytest process")
    tests.add_argument("out", type=Path)
    tests.add_argument("--part", choices=sorted(PARTS), required=True)
    tests.add_argument("--label", help="name of the report, when a part is split over calls")
    tab = steps.add_parser("table", help="print what ran and passed; write the record")
    tab.add_argument("out", type=Path)
    tab.add_argument("--record", type=Path, help="write the run's record here (docs/ran_on/)")
    tab.add_argument("--note", help="what the numbers alone do not say (a part cut short)")
    tab.add_argument("--note-zh", help="the note in Chinese, for the site's Chinese edition")
    argv = sys.argv[1:] if argv is None else argv
    # What follows "--" is pytest's.
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    args.out.mkdir(parents=True, exist_ok=True)
    if args.step == "pages":
        results = run_pages(args.out, args.only)
        return int(any(r["status"] == "failed" for r in results))
    if args.step == "tests":
        return run_tests(args.out, args.part, argv[cut + 1 :], args.label)
    notes = {"en": args.note, "zh_CN": args.note_zh}
    if bool(args.note) != bool(args.note_zh):
        parser.error("--note and --note-zh go together: the site shows the note in both editions")
    record = summary(args.out) | ({"note": notes} if args.note else {})
    print(table([record]))
    failed = record.get("pages", {}).get("failed", []) + record.get("tests", {}).get("failures", [])
    for name in failed:
        print("failed:", name)
    if args.record:
        args.record.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
