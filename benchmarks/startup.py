"""How long ``jaxpurity lint`` on one file and ``jaxpurity explain`` on a text take to start.

Run from the repository root::

    python benchmarks/startup.py            # 20 rounds
    python benchmarks/startup.py --rounds 50

Each round runs every command once, in turn, so that a busy machine slows them
all alike: ``python -c pass`` (the floor any Python tool pays), ``import
jaxpurity``, ``jaxpurity lint`` on a small file with a bug, ``jaxpurity
explain`` on a pasted error (in English, then in Chinese), and ``import jax``
for scale. It prints the median and the fastest wall-clock time of each, its
ratio to ``python -c pass``, and whether the command imported JAX (read from
``sys.modules`` in the same process, after the command ran). A linter that an
editor runs on every save, or a pre-commit hook, should not pay for JAX: the
budget is 150 ms for the lint and explain commands.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET_MS = 150.0
BUGGY = "import jax\n\n\n@jax.jit\ndef step(x):\n    print(x)\n    return x * 2\n"
ERROR = (
    "jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array "
    "with shape bool[]."
)
# Runs the command line in this process, then says whether JAX was imported.
IN_PROCESS = (
    "import sys\n"
    "from jaxpurity.__main__ import main\n"
    "try:\n"
    "    main({argv!r})\n"
    "finally:\n"
    "    print('JAX imported' if 'jax' in sys.modules else 'no JAX', file=sys.stderr)\n"
)


def commands(buggy: Path) -> dict[str, list[str]]:
    """Each command to time, by its label."""
    python = sys.executable
    cli = [python, "-m", "jaxpurity"]
    return {
        "python -c pass": [python, "-c", "pass"],
        "import jaxpurity": [python, "-c", "import jaxpurity"],
        "jaxpurity lint one_file.py": [*cli, "lint", "--no-config", str(buggy)],
        "jaxpurity explain TEXT": [*cli, "explain", "--lang", "en", ERROR],
        "jaxpurity explain --lang zh_CN TEXT": [*cli, "explain", "--lang", "zh_CN", ERROR],
        "import jax (for scale)": [python, "-c", "import jax"],
    }


def imports_jax(argv: list[str]) -> str:
    """Whether the command line with ``argv`` imports JAX, run once in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", IN_PROCESS.format(argv=argv)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    return done.stderr.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20, help="runs of each command (20)")
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as scratch:
        buggy = Path(scratch) / "one_file.py"
        buggy.write_text(BUGGY)
        timed = commands(buggy)
        seconds: dict[str, list[float]] = {label: [] for label in timed}
        for _ in range(rounds):
            for label, command in timed.items():
                start = time.perf_counter()
                subprocess.run(command, cwd=ROOT, capture_output=True, check=False)
                seconds[label].append(time.perf_counter() - start)
        jax_use = {
            "jaxpurity lint one_file.py": imports_jax(["lint", "--no-config", str(buggy)]),
            "jaxpurity explain TEXT": imports_jax(["explain", "--lang", "en", ERROR]),
            "jaxpurity explain --lang zh_CN TEXT": imports_jax(
                ["explain", "--lang", "zh_CN", ERROR]
            ),
        }
    floor = statistics.median(seconds["python -c pass"])
    print(f"{rounds} rounds, Python {sys.version.split()[0]}\n")
    print(f"| command | median ms | fastest ms | x python -c pass | JAX |\n|{' --- |' * 5}")
    for label, times in seconds.items():
        median = statistics.median(times)
        print(
            f"| {label} | {median * 1e3:.0f} | {min(times) * 1e3:.0f} | "
            f"{median / floor:.1f} | {jax_use.get(label, '')} |"
        )
    tools = [label for label in jax_use]
    worst = max(statistics.median(seconds[label]) * 1e3 for label in tools)
    verdict = "within" if worst <= BUDGET_MS else "OVER"
    print(f"\nslowest of lint and explain: {worst:.0f} ms, {verdict} the {BUDGET_MS:.0f} ms budget")


if __name__ == "__main__":
    main()
