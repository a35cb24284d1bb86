"""Checking a tree of files: rounds across modules, a process pool, and progress on a terminal.

:func:`run` checks every file once, each on its own (in a process pool when the
machine has more than one core and there are more than :data:`POOL_FROM` files),
and collects how each module's traced code reaches functions of the others
(:class:`~jaxpurity.linter.analysis._package.Entry`). A module that such code reaches is
checked again with what reaches it, and so on, for :data:`ROUNDS` rounds at most:
each round follows calls one module further, as the analysis of one module
follows them :data:`~jaxpurity.linter.analysis._functions.MAX_CALL_DEPTH` calls deep. Only
the modules that something new reaches are read and checked again, so the work is
the size of the tree times at most :data:`ROUNDS`, and in practice little more than
once. The findings are each file's from its last check, in the order of the files:
the same, with one process or many.

On a terminal, a tree of more than :data:`PROGRESS_FROM` files shows how many are
checked so far on standard error, on one line that is cleared at the end.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from jaxpurity.linter._finding import Finding
from jaxpurity.linter.analysis._package import Entry, Package

__all__ = ["POOL_FROM", "PROGRESS_FROM", "ROUNDS", "run"]

#: How many rounds of checks follow calls across modules, the first one included.
ROUNDS = 3
#: The fewest files worth a process pool: below, starting one costs more than it saves.
POOL_FROM = 48
#: The fewest files for which a terminal shows progress.
PROGRESS_FROM = 200

#: A file to check: its path, the codes to report, and the project's own wrappers of jax.jit.
Task = tuple[str, frozenset[str], frozenset[str]]
#: What checking one file gives: its findings, and how its traced code reaches others.
Result = tuple[list[Finding], list[Entry]]
Check = Callable[[str, frozenset[str], frozenset[str], Package, Iterable[Entry]], Result]


def run(
    tasks: list[Task],
    roots: list[Path],
    check: Check,
    *,
    jobs: int | None = None,
    progress: bool = False,
) -> list[Finding]:
    """The findings of ``tasks``, checked as one package (``roots``: the folders given),
    by ``check(path, codes, jit_wrappers, package, entries)``; ``jobs``: how many processes
    (default: one per core); ``progress``: show it on standard error."""
    package = Package([Path(path) for path, _, _ in tasks], roots)
    workers = _workers(jobs, len(tasks))
    shown = _Progress(len(tasks)) if progress and len(tasks) > PROGRESS_FROM else None
    results: dict[str, list[Finding]] = {}
    applied: dict[str, frozenset[Entry]] = {}
    todo = [(task, frozenset[Entry]()) for task in tasks]
    pool = None
    if workers > 1:
        # Spawned, not forked: the caller may hold threads (JAX's, when lint() runs in a
        # process that imported JAX), which a fork would copy in a broken state.
        pool = concurrent.futures.ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_set_package,
            initargs=(package,),
        )
    try:
        for round_number in range(1, ROUNDS + 1):
            reached: dict[str, set[Entry]] = {}
            if shown is not None:
                shown.start(round_number, len(todo))
            for (task, _), (findings, outgoing) in zip(
                todo, _checked(pool, workers, check, package, todo), strict=True
            ):
                results[task[0]] = findings
                for entry in outgoing:
                    reached.setdefault(entry.target.file, set()).add(entry)
                if shown is not None:
                    shown.advance()
            todo = []
            for task in tasks:
                new = frozenset(reached.get(task[0], ())) | applied.get(task[0], frozenset())
                if new != applied.get(task[0], frozenset()):
                    applied[task[0]] = new
                    todo.append((task, new))
            if not todo:
                break
    finally:
        if pool is not None:
            pool.shutdown()
        if shown is not None:
            shown.clear()
    return [finding for path, _, _ in tasks for finding in results[path]]


def _workers(jobs: int | None, files: int) -> int:
    """How many processes check ``files`` files."""
    if jobs is not None:
        return max(1, jobs)
    cores = os.cpu_count() or 1
    return min(cores, 8) if cores > 1 and files >= POOL_FROM else 1


def _checked(
    pool: concurrent.futures.ProcessPoolExecutor | None,
    workers: int,
    check: Check,
    package: Package,
    todo: list[tuple[Task, frozenset[Entry]]],
) -> Iterator[Result]:
    """The results of ``todo``, in its order, from the pool or from this process."""
    ordered = [(task, sorted(entries, key=repr)) for task, entries in todo]
    if pool is None or len(todo) < 2:
        for (path, codes, jit_wrappers), entries in ordered:
            yield check(path, codes, jit_wrappers, package, entries)
        return
    chunk = max(1, min(16, len(todo) // (4 * workers)))
    yield from pool.map(_call, [(check, task, e) for task, e in ordered], chunksize=chunk)


# The package being checked, in a worker process (sent once, when the worker starts).
_PACKAGE: Package | None = None


def _set_package(package: Package) -> None:
    global _PACKAGE
    _PACKAGE = package


def _call(arguments: tuple[Check, Task, list[Entry]]) -> Result:
    """One check, in a worker process."""
    check, (path, codes, jit_wrappers), entries = arguments
    assert _PACKAGE is not None
    return check(path, codes, jit_wrappers, _PACKAGE, entries)


class _Progress:
    """How many files are checked, on one line of standard error, redrawn ten times a second
    at most."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.count = 0
        self.round = 1
        self.shown = 0.0

    def start(self, round_number: int, count: int) -> None:
        self.round, self.count, self.done = round_number, count, 0
        self._draw(force=True)

    def advance(self) -> None:
        self.done += 1
        self._draw(force=self.done == self.count)

    def _draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.shown < 0.1:
            return
        self.shown = now
        if self.round == 1:
            text = f"jaxpurity lint: {self.done}/{self.count} files"
        else:
            text = f"jaxpurity lint: following calls across modules, {self.done}/{self.count}"
        sys.stderr.write(f"\r{text}\x1b[K")
        sys.stderr.flush()

    def clear(self) -> None:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()
