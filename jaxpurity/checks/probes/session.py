"""The harness every probe of :func:`jaxpurity.check_pure` runs the user's function through.

A :class:`Session` holds the bound call and the state each run starts from: the
arguments, put back after every run; the random number generators and the
:func:`jax.new_ref <jax.ref.new_ref>` arrays, reset before every run. It counts how
often the body runs traced and eagerly, runs it on copies of the caller's arrays where
its program donates them (:mod:`jaxpurity.checks._copies`), and records the effects of
one run (:meth:`Session.effects`) for the probes that compare modes.
"""

from __future__ import annotations

import collections
import contextlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from jaxpurity._capture import printed
from jaxpurity._introspect import wraps
from jaxpurity.checks._call import BoundCall
from jaxpurity.checks._copies import arrays_copied
from jaxpurity.checks._outcomes import Outcome, run
from jaxpurity.checks._process import Holder
from jaxpurity.checks._restore import Restored, new_ref_arrays, random_generators
from jaxpurity.checks._snapshot import Snapshot, same_array

__all__ = ["Effects", "Session"]

_ITEMS = re.compile(r"^(\d+) item\(s\)")


@dataclass
class Effects:
    """What one run did besides returning: the lines it printed (``jax.debug.print`` and
    callbacks included) and the places in the state it reaches that it changed."""

    printed: list[str] = field(default_factory=list)
    #: Each place changed, with how many items a list holds afterwards (None for a value).
    changed: dict[str, int | None] = field(default_factory=dict)

    def differ(self, other: Effects) -> bool:
        """Whether the two runs printed other lines (in any order) or changed other places."""
        return (
            collections.Counter(self.printed) != collections.Counter(other.printed)
            or self.changed != other.changed
        )

    def __str__(self) -> str:
        said = [f"printed {len(self.printed)} line(s)"]
        if self.changed:
            places = ", ".join(
                p if n is None else f"{p} ({n} item(s))" for p, n in self.changed.items()
            )
            said.append(f"changed {places}")
        return " and ".join(said)


class Session:
    """The checked call, and the state every run of it starts from.

    Attributes:
      call: The bound call.
      scope: Everything the call reaches, as it was before the check (put back at its end).
      inputs: The arguments, put back after each run.
      rngs: NumPy's and Python's generators and the ones the call holds: a trace that
        moves one draws numbers jit would bake in.
      refs: The :func:`jax.new_ref <jax.ref.new_ref>` arrays the call reaches.
      restored: The generators and Refs, reset before each run.
      counts: How often the body ran, by stage (``"trace"``, ``"run"``).
      copy: Whether eager runs get copies of the caller's arrays (set once the trace shows
        a donating call).
      holders: The dicts and lists that held a tracer that escaped the watched trace.
    """

    def __init__(self, call: BoundCall, scope: Snapshot) -> None:
        self.call = call
        self.scope = scope
        self.inputs = Snapshot(call.named, [])
        self.rngs = random_generators(call)
        self.refs = new_ref_arrays(call)
        self.restored: list[Restored] = [*self.rngs, *self.refs]
        self.counts = collections.Counter[str]()
        self.holders: list[Holder] = []  # what held a leaked tracer: emptied when the check ends
        self.stage = "trace"
        self.copy = False
        body = call.body

        @wraps(body)
        def counted(*a: Any, **k: Any) -> Any:
            self.counts[self.stage] += 1
            return body(*a, **k)

        self.counted = counted

    def reset(self) -> None:
        """Put the generators and Refs back as they were when the check began."""
        for r in self.restored:
            r.reset()

    def run(self, thunk: Callable[[], Any]) -> Outcome:
        """``thunk()`` from the generators' and Refs' first state: what it returned or raised."""
        self.reset()
        return run(thunk)

    def run_eagerly(self, fn: Callable[..., Any] | None = None) -> Outcome:
        """``fn`` (by default the counted body) on the call's arguments, without jit; on copies
        of the caller's arrays where :attr:`copy`."""
        fn = self.counted if fn is None else fn
        with arrays_copied(self.call, self.copy) as (args, kwargs):
            return self.run(lambda: fn(*args, **kwargs))

    def run_as_passed(self, replaced: dict[int, Any] | None = None) -> tuple[Outcome, list[Any]]:
        """The function as the user passed it (another library's jit runs its own program), on
        copies of the caller's arrays (it may donate what it is given), with the positional
        arguments of ``replaced`` swapped in: what it returned or raised, and the value it
        returned (in a list, empty where it raised). The caller restores :attr:`inputs`."""
        returned: list[Any] = []

        def kept(*args: Any, **kwargs: Any) -> Any:
            returned.append(self.call.fn(*args, **kwargs))
            return returned[0]

        with arrays_copied(self.call) as (args, kwargs):
            args = tuple((replaced or {}).get(i, a) for i, a in enumerate(args))
            return self.run(lambda: kept(*args, **kwargs)), returned

    @contextlib.contextmanager
    def effects(self) -> Iterator[Effects]:
        """Record what the block prints and changes; put the state back as it was after it."""
        found = Effects()
        before = Snapshot(self.call.named, self.call.bindings)
        self.reset()  # every run starts from the Refs' first values: compared from those
        refs = [(r, np.asarray(r.get())) for r in self.refs]
        try:
            with printed(echo=False) as out:
                yield found
            found.printed = out.lines
            for change in before.changes():
                items = _ITEMS.match(change.after)
                found.changed[change.path] = int(items.group(1)) if items else None
            for r, value in refs:  # a Ref's contents change in place
                if not same_array(np.asarray(r.get()), value):
                    found.changed[r.label] = None
        finally:
            before.restore()
            self.reset()
