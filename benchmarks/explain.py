"""How long jaxpurity.explain takes on large pasted text, and whether that grows linearly.

Each input is made at 1 MB and at 5 MB, and both are timed in this one run, beside a pass of
Python's own over the same text (``text.split()``, which every reader of the text pays for), so
that the figures are ratios on whatever machine runs it:

    python benchmarks/explain.py            # 1 MB and 5 MB of each kind of input
    python benchmarks/explain.py --mb 2 10  # other sizes

The kinds: a CI log of real pasted errors from the corpora, one after another; blank lines; one
character repeated; traceback frame lines, as Python and as IPython print them (what the frame
readers walk); and JAX error names without messages.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import jaxpurity  # noqa: E402
from scorers.explain import load_corpus  # noqa: E402

_IPYTHON_FRAME = "/venv/lib/jax/_src/core.py in error(x)\n   11 x = 1\n--> 12 raise x\n"
_FRAME = '  File "/venv/lib/python3.12/site-packages/jax/_src/core.py", line 12, in error\n    x\n'


def inputs(megabytes: int) -> dict[str, str]:
    """Each kind of input, ``megabytes`` long."""
    size = megabytes * 1_000_000
    log = "\n\n".join(case["text"] for case in load_corpus("dev"))
    kinds = {
        "pasted errors": log,
        "blank lines": "\n",
        "one character": "a",
        "frame lines": _FRAME,
        "IPython frames": "Traceback (most recent call last)\n" + _IPYTHON_FRAME * 50,
        "error names": "ConcretizationTypeError TracerBoolConversionError ",
    }
    return {name: (unit * (size // len(unit) + 1))[:size] for name, unit in kinds.items()}


def seconds(function, text: str) -> float:
    """The best of three runs of ``function(text)``."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        function(text)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, nargs=2, default=(1, 5), metavar=("SMALL", "LARGE"))
    small, large = parser.parse_args(argv).mb
    print(
        f"{'input':<15} {'explain, ' + str(large) + ' MB':>16} {'x split()':>10} "
        f"{str(large) + ' MB / ' + str(small) + ' MB':>14}"
    )
    texts_small, texts_large = inputs(small), inputs(large)
    for name, text in texts_large.items():
        took = seconds(jaxpurity.explain, text)
        baseline = seconds(str.split, text)
        growth = took / seconds(jaxpurity.explain, texts_small[name])
        print(f"{name:<15} {took:>14.2f} s {took / baseline:>9.1f}x {growth:>13.1f}x")
    print(f"(linear growth is {large / small:.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
