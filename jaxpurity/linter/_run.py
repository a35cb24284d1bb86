"""Checking a tree of files: rounds across modules, the cache, a process pool, and progress.

:func:`run` checks every file once, each on its own, and collects how each
module's traced code reaches functions of the others
(:class:`~jaxpurity.linter.analysis._package.Entry`). A module that such code
reaches is checked again with what reaches it, and so on, for :data:`ROUNDS`
rounds at most: each round follows calls one module further, as the analysis of
one module follows them :data:`~jaxpurity.linter.analysis._functions.MAX_CALL_DEPTH`
calls deep. Only the modules that something new reaches are read and checked
again, so the work is the size of the tree times at most :data:`ROUNDS`, and in
practice little more than once. The findings are each file's from its last check,
in the order of the files: the same, with one process or many, with the cache or
without.

With a :class:`~jaxpurity.linter._cache.Cache`, each check is first looked up
there, by all it depends on; only the others run, and their results are kept. In
a round with at least :data:`POOL_FROM` files to check (not in the cache) and
more than one job (by default one per core, :func:`default_jobs`), they run in a
process pool: for fewer, starting the pool costs more than it saves.

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
from typing import NamedTuple

from jaxpurity.linter._cache import Cache
from jaxpurity.linter._finding import Finding
from jaxpurity.linter.analysis._package import Entry, Package, Target

__all__ = ["POOL_FROM", "PROGRESS_FROM", "ROUNDS", "Checked", "default_jobs", "run"]

#: How many rounds of checks follow calls across modules, the first one included.
ROUNDS = 3
#: The fewest files to check in a round (not in the cache) that a process pool is started
#: for: below, starting one costs more than it saves.
POOL_FROM = 48
#: The fewest files for which a terminal shows progress.
PROGRESS_FROM = 200
#: The most worker processes.
MAX_JOBS = 8

#: A file to check: its path, the codes to report, and the project's own wrappers of jax.jit.
Task = tuple[str, frozenset[str], frozenset[str]]


class Checked(NamedTuple):
    """What checking one file gives: its findings; how its traced code reaches the other
    modules; the digest of the content checked (None when it could not be read); and each
    name the check asked the package, with the answer (see :mod:`jaxpurity.linter._cache`)."""

    findings: list[Finding]
    outgoing: list[Entry]
    digest: str | None
    asked: dict[str, Target | None]


Check = Callable[[str, frozenset[str], frozenset[str], Package, Iterable[Entry]], Checked]


def default_jobs() -> int:
    """How many processes check files when ``jobs`` is not given: one per core this process
    may run on, at most :data:`MAX_JOBS`. Measured on flax (352 files, no cache), the
    command line took 5.0 s in one process and 3.8 s with 2 on 2 idle cores, 3.0 s with 4
    on 4, and 2.5 s with 8 on 13 (2.2 s with 12: little more to gain); on 2 cores busy with
    other work, the pool gains nothing."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(cores or 1, MAX_JOBS)


def run(
    tasks: list[Task],
    roots: list[Path],
    check: Check,
    *,
    jobs: int | None = None,
    progress: bool = False,
    cache: Cache | None = None,
) -> list[Finding]:
    """The findings of ``tasks``, checked as one package (``roots``: the folders given),
    by ``check(path, codes, jit_wrappers, package, entries)``; ``jobs``: how many
    processes at most (default: :func:`default_jobs`; 1 checks in this process);
    ``progress``: show it on standard error; ``cache``: where earlier results are looked
    up and new ones kept."""
    package = Package([Path(path) for path, _, _ in tasks], roots)
    if cache is not None:
        cache.start(path for path, _, _ in tasks)
    checker = _Checker(check, package, default_jobs() if jobs is None else max(1, jobs), cache)
    shown = _Progress(len(tasks)) if progress and len(tasks) > PROGRESS_FROM else None
    results: dict[str, list[Finding]] = {}
    applied: dict[str, frozenset[Entry]] = {}
    todo = [(task, frozenset[Entry]()) for task in tasks]
    try:
        for round_number in range(1, ROUNDS + 1):
            reached: dict[str, set[Entry]] = {}
            if shown is not None:
                shown.start(round_number, len(todo))
            for (task, _), (findings, outgoing) in zip(
                todo, checker.checked(todo, shown), strict=True
            ):
                results[task[0]] = findings
                for entry in outgoing:
                    reached.setdefault(entry.target.file, set()).add(entry)
            todo = []
            for task in tasks:
                new = frozenset(reached.get(task[0], ())) | applied.get(task[0], frozenset())
                if new != applied.get(task[0], frozenset()):
                    applied[task[0]] = new
                    todo.append((task, new))
            if not todo:
                break
    finally:
        checker.close()
        if shown is not None:
            shown.clear()
    return [finding for path, _, _ in tasks for finding in results[path]]


class _Checker:
    """The checks of one run: from the cache where it has them, else in this process or
    in a pool, started for the first round with enough files to check."""

    def __init__(self, check: Check, package: Package, jobs: int, cache: Cache | None) -> None:
        self.check = check
        self.package = package
        self.jobs = jobs
        self.cache = cache
        self.pool: concurrent.futures.ProcessPoolExecutor | None = None

    def checked(
        self, todo: list[tuple[Task, frozenset[Entry]]], shown: _Progress | None
    ) -> Iterator[tuple[list[Finding], list[Entry]]]:
        """The findings and entries of each of ``todo``, in its order."""
        ordered = [(task, sorted(entries, key=repr)) for task, entries in todo]
        known: dict[int, tuple[list[Finding], list[Entry]]] = {}
        keys: list[str | None] = [None] * len(ordered)
        if self.cache is not None:
            for index, ((path, codes, jit_wrappers), entries) in enumerate(ordered):
                key = self.cache.key(path, codes, jit_wrappers, self.package, entries)
                found = None if key is None else self.cache.get(key, path, self.package)
                if found is not None:
                    known[index] = found
                keys[index] = key
        missing = [index for index in range(len(ordered)) if index not in known]
        fresh = self._run([ordered[index] for index in missing])  # in the order of todo
        for index in range(len(ordered)):
            if index in known:
                result = known[index]
            else:
                done = next(fresh)
                result = (done.findings, done.outgoing)
                self._keep(keys[index], ordered[index][0][0], done)
            if shown is not None:
                shown.advance()
            yield result

    def _keep(self, key: str | None, path: str, done: Checked) -> None:
        """Keep a fresh result, when it is of the content that keyed it."""
        cache = self.cache
        if cache is not None and key is not None and done.digest == cache.digest_of(path):
            cache.put(key, path, done.findings, done.outgoing, done.asked)

    def _run(self, ordered: list[tuple[Task, list[Entry]]]) -> Iterator[Checked]:
        """The results of ``ordered``, in its order, from the pool or from this process."""
        if self.jobs > 1 and len(ordered) >= POOL_FROM:
            pool = self._pool()
            chunk = max(1, min(16, len(ordered) // (4 * self.jobs)))
            calls = [(self.check, task, entries) for task, entries in ordered]
            yield from pool.map(_call, calls, chunksize=chunk)
            return
        for (path, codes, jit_wrappers), entries in ordered:
            yield self.check(path, codes, jit_wrappers, self.package, entries)

    def _pool(self) -> concurrent.futures.ProcessPoolExecutor:
        if self.pool is None:
            # Spawned, not forked: the caller may hold threads (JAX's, when lint() runs in
            # a process that imported JAX), which a fork would copy in a broken state.
            self.pool = concurrent.futures.ProcessPoolExecutor(
                self.jobs,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_set_package,
                initargs=(self.package,),
            )
        return self.pool

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


# The package being checked, in a worker process (sent once, when the worker starts).
_PACKAGE: Package | None = None


def _set_package(package: Package) -> None:
    global _PACKAGE
    _PACKAGE = package


def _call(arguments: tuple[Check, Task, list[Entry]]) -> Checked:
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
