"""How fast jaxpurity lint checks files, and that its time grows linearly with the input.

    python benchmarks/lint.py [PATH ...]

checks the given files and folders (by default this repository's package, tests and
gallery) and prints files per second and lines per second, the best of a few runs,
beside the time Python takes only to parse the same files (which no AST linter can beat).
Then it checks generated modules of 5,000 to 40,000 lines, each twice the one before,
and prints how the time grows: twice the lines should take about twice the time.
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jaxpurity.linter._lint import lint_paths, lint_source, python_files  # noqa: E402
from jaxpurity.linter._rules import RULES  # noqa: E402

REPEATS = 3
EVERY_RULE = frozenset(rule.code for rule in RULES)


def best(fn) -> float:
    """The shortest of REPEATS timings of ``fn()``, in seconds."""
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def generated(blocks: int) -> str:
    """A module of ``blocks`` jitted functions of 9 lines each, a scan body among them."""
    body = (
        "@jax.jit\ndef step{i}(x, n):\n    y = x * {i}\n    if y > 0:\n        y = -y\n"
        "    z = [y + k for k in range(3)]\n"
        "    zs = jax.lax.scan(lambda c, v: (c + v, v), 0.0, y)\n"
        "    return jnp.stack(z), zs\n\n"
    )
    return "import jax\nimport jax.numpy as jnp\n\n" + "".join(
        body.format(i=i) for i in range(blocks)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path)
    paths = parser.parse_args().paths or [ROOT / "jaxpurity", ROOT / "tests", ROOT / "gallery"]
    files = list(python_files(paths))
    texts = [f.read_text(encoding="utf-8", errors="replace") for f in files]
    lines = sum(text.count("\n") for text in texts)
    checked = best(lambda: lint_paths(paths, config=False))
    parsed = best(lambda: [ast.parse(text) for text in texts])
    print(f"{len(files)} files, {lines} lines, in {', '.join(str(p) for p in paths)}")
    print(
        f"jaxpurity lint: {checked:.2f} s, {len(files) / checked:.0f} files/s, "
        f"{lines / checked:.0f} lines/s (parsing alone: {parsed:.2f} s)"
    )
    print("generated modules (lines, seconds, seconds per 1,000 lines):")
    for blocks in (555, 1110, 2220, 4440):
        module = generated(blocks)
        seconds = best(lambda m=module: lint_source(m, "generated.py", EVERY_RULE))
        size = module.count("\n")
        print(f"  {size:>6} {seconds:7.2f} {1000 * seconds / size:7.3f}")


if __name__ == "__main__":
    main()
