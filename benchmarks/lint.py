"""How fast jaxpurity lint checks files, that its time grows linearly, and what its cache saves.

    python benchmarks/lint.py [PATH ...]
    python benchmarks/lint.py --cache [--baseline DIR] [--jobs N] [PATH ...]

The first checks the given files and folders (by default this repository's package, tests
and gallery) and prints files per second and lines per second, the best of a few runs,
beside the time Python takes only to parse the same files (which no AST linter can beat).
Then it checks generated modules of 5,000 to 40,000 lines, each twice the one before,
and prints how the time grows: twice the lines should take about twice the time.

``--cache`` times the command line as a user runs it, each run a fresh ``python -m
jaxpurity lint`` process, side by side in one run, a few rounds in turn: with
``--no-cache``; cold (an empty cache folder, which the run fills); warm (the same folder
again, nothing changed); and, with ``--baseline DIR``, the jaxpurity package in DIR (a
copy of another commit: ``git archive <commit> jaxpurity | tar -x -C DIR``), cold too
(an empty cache folder of its own) where it has a cache, else as it runs by default.
It prints the best and the median of each, and checks that all of this checkout's runs
print the same findings (and says how the baseline's differ).
``--jobs N`` is passed on to this checkout's runs.
"""

from __future__ import annotations

import argparse
import ast
import os
import statistics
import subprocess
import sys
import tempfile
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


def command_line(paths: list[Path], options: list[str], package: Path = ROOT) -> tuple[float, str]:
    """One run of ``python -m jaxpurity lint`` in a fresh process, with the jaxpurity package
    of ``package``: its wall time, and what it printed on standard output."""
    environment = {**os.environ, "PYTHONPATH": str(package.resolve())}
    command = [sys.executable, "-m", "jaxpurity", "lint", "--no-config", *options]
    files = [str(path.resolve()) for path in paths]
    # From a folder of no package: python -m puts the current folder first on sys.path, where
    # a checkout's jaxpurity would come before the one asked for.
    with tempfile.TemporaryDirectory() as elsewhere:
        start = time.perf_counter()
        done = subprocess.run(
            [*command, *files], env=environment, cwd=elsewhere, capture_output=True, text=True
        )
        seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    return seconds, done.stdout


def cache_section(
    paths: list[Path], baseline: Path | None, jobs: int | None, rounds: int = REPEATS
) -> None:
    """Cold, warm and no-cache runs (and the baseline's), side by side, in turn, ``rounds``
    times; with a baseline, each round's ratio of this checkout's runs to the baseline's."""
    files = list(python_files(paths))
    lines = sum(f.read_bytes().count(b"\n") for f in files)
    print(f"{len(files)} files, {lines} lines, in {', '.join(str(p) for p in paths)}")
    extra = ["--jobs", str(jobs)] if jobs else []
    for package in [ROOT] if baseline is None else [ROOT, baseline]:
        where = subprocess.run(
            [sys.executable, "-c", "import jaxpurity; print(jaxpurity.__file__)"],
            env={**os.environ, "PYTHONPATH": str(package.resolve())},
            cwd=tempfile.gettempdir(),
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert Path(where).is_relative_to(package.resolve()), (package, where)
    times: dict[str, list[float]] = {}
    outputs: dict[str, set[str]] = {}
    cached_baseline = baseline is not None and _knows_cache_dir(baseline)
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as folder:
            runs = {
                "no cache": (["--no-cache", *extra], ROOT),
                "cold": (["--cache-dir", str(Path(folder, "new")), *extra], ROOT),
                "warm": (["--cache-dir", str(Path(folder, "new")), *extra], ROOT),
            }
            if baseline is not None and cached_baseline:
                # Its cold run too: a cache of its own, empty (the tree's default one would
                # be warm from the second round on).
                runs["baseline cold"] = (["--cache-dir", str(Path(folder, "old"))], baseline)
            elif baseline is not None:
                runs["baseline"] = ([], baseline)
            for name, (options, package) in runs.items():
                seconds, printed = command_line(paths, options, package)
                times.setdefault(name, []).append(seconds)
                outputs.setdefault(name, set()).add(printed)
    print(f"python -m jaxpurity lint, {rounds} rounds (seconds: best, median):")
    for name, measured in times.items():
        print(f"  {name:10} {min(measured):6.2f} {statistics.median(measured):6.2f}")
    base = next((name for name in times if name.startswith("baseline")), None)
    for name in ["no cache", "cold"] if base else []:
        ratios = [ours / theirs for ours, theirs in zip(times[name], times[base], strict=True)]
        print(
            f"  {name} / {base}, per round: median {statistics.median(ratios):.3f} "
            f"({min(ratios):.3f} to {max(ratios):.3f})"
        )
    own = {
        text for name, texts in outputs.items() if not name.startswith("baseline") for text in texts
    }
    print("the same findings in every run" if len(own) == 1 else "THE FINDINGS DIFFER")
    theirs = {
        text for name, texts in outputs.items() if name.startswith("baseline") for text in texts
    }
    if theirs and len(own) == 1:
        if theirs == own:
            print("the baseline printed the same findings")
        else:
            ours, old = (
                set(next(iter(own)).splitlines()),
                set().union(*(t.splitlines() for t in theirs)),
            )
            there, here = len(old - ours), len(ours - old)
            print(f"the baseline's findings differ: {there} only there, {here} only here")


def _knows_cache_dir(package: Path) -> bool:
    """Whether the jaxpurity of ``package`` has a cache (``lint --cache-dir``)."""
    done = subprocess.run(
        [sys.executable, "-m", "jaxpurity", "lint", "--help"],
        env={**os.environ, "PYTHONPATH": str(package.resolve())},
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
    )
    return "--cache-dir" in done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--cache", action="store_true", help="time cold, warm and no-cache runs")
    parser.add_argument("--baseline", type=Path, help="with --cache: a copy of jaxpurity to time")
    parser.add_argument("--jobs", type=int, help="with --cache: passed on to this checkout")
    parser.add_argument("--rounds", type=int, default=REPEATS, help="with --cache: how many")
    args = parser.parse_args()
    paths = args.paths or [ROOT / "jaxpurity", ROOT / "tests", ROOT / "gallery"]
    if args.cache:
        cache_section(paths, args.baseline, args.jobs, args.rounds)
        return
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
