"""How long jaxpurity.explain takes on large pasted text, and whether that grows linearly.

Each input is made at 1 MB and at 5 MB, and both are timed in this one run, beside a pass of
Python's own over the same text (``text.split()``, which every reader of the text pays for), so
that the figures are ratios on whatever machine runs it:

    python benchmarks/explain.py            # 1 MB and 5 MB of each kind of input
    python benchmarks/explain.py --mb 2 10  # other sizes (0.01 0.05: a slow reader's scale)
    python benchmarks/explain.py --port     # the paste box's port too, where node is installed

The kinds: a CI log of real pasted errors from the corpora, one after another; blank lines; one
character repeated; one line of spaces that ends in a word; traceback frame lines, as Python and
as IPython print them (what the frame readers walk); JAX error names without messages; traceback
headers on one line; and a traceback followed by what a CI log prints after it: lines of one
space, empty lines, output lines, and output lines up to a second traceback.

``--port`` times ``docs/_static/explain_box.js`` (the paste box's port of explain) in node on
the same inputs, with the knowledge the docs build gives it (this needs the ``docs`` extra).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import jaxpurity  # noqa: E402
from scorers.explain import load_corpus  # noqa: E402

_IPYTHON_FRAME = "/venv/lib/jax/_src/core.py in error(x)\n   11 x = 1\n--> 12 raise x\n"
_FRAME = '  File "/venv/lib/python3.12/site-packages/jax/_src/core.py", line 12, in error\n    x\n'
_TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 30, in <module>\n'
    "    state = step(state, batch)\n"
    "jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array with "
    "shape bool[].\n"
)
_OUTPUT = "epoch 3 step 1700/5000 loss 0.4127 accuracy 0.8812 lr 3.0e-04 time 0.21 s\n"


def inputs(megabytes: float) -> dict[str, str]:
    """Each kind of input, ``megabytes`` long."""
    size = int(megabytes * 1_000_000)

    def fill(unit: str, length: int = size) -> str:
        return (unit * (length // len(unit) + 1))[:length]

    def after_traceback(unit: str) -> str:
        return _TRACEBACK + fill(unit, size - len(_TRACEBACK))

    half = size // 2 - len(_TRACEBACK)
    log = "\n\n".join(case["text"] for case in load_corpus("dev"))
    return {
        "pasted errors": fill(log),
        "blank lines": fill("\n"),
        "one character": fill("a"),
        "spaces, a word": fill(" ", size - 1) + "x",
        "frame lines": fill(_FRAME),
        "IPython frames": fill("Traceback (most recent call last)\n" + _IPYTHON_FRAME * 50),
        "error names": fill("ConcretizationTypeError TracerBoolConversionError "),
        "headers, 1 line": fill("Traceback (most recent call last) "),
        "tb, space lines": after_traceback(" \n"),
        "tb, empty lines": after_traceback("\n"),
        "tb, output": after_traceback(_OUTPUT),
        "tb, output, tb": (_TRACEBACK + fill(_OUTPUT, half)) * 2,
    }


def seconds(function, text: str) -> float:
    """The best of three runs of ``function(text)``."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        function(text)
        best = min(best, time.perf_counter() - start)
    return best


# Runs explain_box.js in node on each file named on its command line: the best of three, in s.
_NODE = """
const fs = require("fs");
const [script, knowledge, ...files] = process.argv.slice(1);
global.window = {JAXPURITY_KNOWLEDGE: JSON.parse(fs.readFileSync(knowledge, "utf8"))};
global.document = {addEventListener() {}};
eval(fs.readFileSync(script, "utf8"));
const times = files.map((file) => {
  const text = fs.readFileSync(file, "utf8");
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const start = process.hrtime.bigint();
    window.jaxpurityExplain(text);
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e9);
  }
  return best;
});
console.log(JSON.stringify(times));
"""


def port_seconds(texts: list[str]) -> list[float]:
    """The paste box's time on each text, the best of three runs of it in node."""
    sys.path.insert(0, str(ROOT / "docs" / "sphinxext"))
    from explain_box import knowledge  # the docs build's extension: needs Sphinx

    with tempfile.TemporaryDirectory() as folder:
        knows = Path(folder, "knowledge.json")
        knows.write_text(json.dumps(knowledge("en")), encoding="utf-8")
        files = []
        for i, text in enumerate(texts):
            files.append(Path(folder, f"{i}.txt"))
            files[-1].write_text(text, encoding="utf-8")
        script = ROOT / "docs" / "_static" / "explain_box.js"
        command = ["node", "-e", _NODE, str(script), str(knows), *map(str, files)]
        run = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(run.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, nargs=2, default=(1, 5), metavar=("SMALL", "LARGE"))
    parser.add_argument("--port", action="store_true", help="time explain_box.js in node too")
    args = parser.parse_args(argv)
    small, large = args.mb
    if args.port and shutil.which("node") is None:
        parser.error("--port needs node on the PATH")
    header = (
        f"{'input':<16} {'explain, ' + f'{large:g}' + ' MB':>16} {'x split()':>10} "
        f"{f'{large:g} MB / {small:g} MB':>14}"
    )
    print(header + (f" {'port, ' + f'{large:g}' + ' MB':>14} {'growth':>7}" if args.port else ""))
    texts_small, texts_large = inputs(small), inputs(large)
    port = {}
    if args.port:
        names = list(texts_large)
        times = port_seconds([texts_large[n] for n in names] + [texts_small[n] for n in names])
        port = {n: (times[i], times[i] / times[i + len(names)]) for i, n in enumerate(names)}
    for name, text in texts_large.items():
        took = seconds(jaxpurity.explain, text)
        baseline = seconds(str.split, text)
        growth = took / seconds(jaxpurity.explain, texts_small[name])
        row = f"{name:<16} {took:>14.2f} s {took / baseline:>9.1f}x {growth:>13.1f}x"
        if name in port:
            row += f" {port[name][0]:>12.2f} s {port[name][1]:>6.1f}x"
        print(row)
    print(f"(linear growth is {large / small:.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
