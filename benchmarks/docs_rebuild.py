"""How long a rebuild of the site with nothing changed takes, and what it writes.

Run from the repository root, in an environment with the docs extra, after a build
(``tox -e docs``)::

    python benchmarks/docs_rebuild.py             # 3 rounds
    python benchmarks/docs_rebuild.py --rounds 5

Each round runs the README's two build commands again (the English edition into
``build/html``, the Chinese one into ``build/html/zh_CN``) and times each. It prints
the median and the fastest wall-clock time of each edition and of both, against the
budget of 5 s for both, and every file under ``build/``, ``docs/examples`` and
``docs/generated`` that a round wrote (sphinx-gallery writes a script's page there
when it runs one). A rebuild with nothing changed should run no script and write
no file, so that a host or a watcher that looks at what changed sees nothing. It
exits with 1 when a round wrote a file.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET_S = 5.0
WATCHED = ("build", "docs/examples", "docs/generated")
EDITIONS = {
    "en": ["-b", "html", "-c", ".", "docs", "build/html"],
    "zh_CN": ["-b", "html", "-D", "language=zh_CN", "-c", ".", "docs", "build/html/zh_CN"],
}


def mtimes() -> dict[Path, int]:
    """Each watched file's modification time, in nanoseconds."""
    found = {}
    for folder in WATCHED:
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                found[path] = path.stat().st_mtime_ns
    return found


def rebuild(edition: str) -> float:
    """Rebuild one edition; the seconds it took. Stops the benchmark if the build fails."""
    env = {**os.environ, "JAX_PLATFORMS": os.environ.get("JAX_PLATFORMS", "cpu")}
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", *EDITIONS[edition]]
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"the {edition} build failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if not (ROOT / "build" / "html" / "index.html").is_file():
        sys.exit("no site in build/html: build it first (tox -e docs)")
    times: dict[str, list[float]] = {edition: [] for edition in EDITIONS}
    written: set[Path] = set()
    for _ in range(args.rounds):
        before = mtimes()
        for edition in EDITIONS:
            times[edition].append(rebuild(edition))
        after = mtimes()
        written |= {path for path, ns in after.items() if before.get(path) != ns}
    both = [sum(round_) for round_ in zip(*times.values(), strict=True)]
    for label, values in [*times.items(), ("both", both)]:
        print(f"{label:6s} median {statistics.median(values):5.2f} s, fastest {min(values):5.2f} s")
    verdict = "within" if statistics.median(both) <= BUDGET_S else "over"
    print(f"budget {BUDGET_S:.0f} s for both: {verdict}")
    print(f"files written: {len(written)}")
    for path in sorted(written):
        print(f"  {path.relative_to(ROOT)}")
    return 1 if written else 0


if __name__ == "__main__":
    sys.exit(main())
