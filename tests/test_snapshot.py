"""The snapshot: an object's own attributes are recorded and put back, however its class hides
its ``__dict__``, and without running the class's code."""

from __future__ import annotations

import gc
from typing import Any

import jax
import jax.numpy as jnp
import pytest

import jaxpurity
from jaxpurity.checks._snapshot import Snapshot

READS: list[str] = []  # each read of a hidden __dict__ (user code the snapshot must not run)


class _DictProperty:
    @property
    def __dict__(self) -> Any:  # type: ignore[override]
        READS.append("__dict__")
        raise RuntimeError("__dict__ is not to be read")


class _RaisingGetattribute:
    def __getattribute__(self, name: str) -> Any:
        READS.append(name)
        raise RuntimeError(f"{name} is not to be read")


class _ClassLevelDict:
    __dict__ = {"not": "its own"}  # a class attribute over the real one


HIDERS = [_DictProperty, _RaisingGetattribute, _ClassLevelDict]


def _attribute(obj: Any, name: str) -> Any:
    """What the instance itself holds under ``name`` (its own dict, past its class's code)."""
    return object.__getattribute__(obj, name)


@pytest.mark.parametrize("hider", HIDERS, ids=lambda c: c.__name__)
def test_snapshot_puts_back_the_attributes_of_an_object_that_hides_its_dict(hider):
    READS.clear()
    obj = hider()
    object.__setattr__(obj, "kept", hider)  # its one attribute is its class, which it refers to
    snapshot = Snapshot([("obj", obj)], [])
    object.__setattr__(obj, "kept", 2)
    object.__setattr__(obj, "added", 3)
    assert [change.path for change in snapshot.changes()] == ["obj.kept", "obj.added"]
    snapshot.restore()
    assert _attribute(obj, "kept") is hider
    with pytest.raises(AttributeError):
        _attribute(obj, "added")
    assert READS == [], "the class's own code ran"


@pytest.mark.parametrize("hider", HIDERS, ids=lambda c: c.__name__)
def test_snapshot_makes_no_dict_for_an_object_that_hides_an_empty_one(hider):
    obj = hider()
    snapshot = Snapshot([("obj", obj)], [])
    assert snapshot.changes() == []
    snapshot.restore()
    assert gc.get_referents(obj) == [hider]  # Python 3.10 to 3.12 would show a dict made


HIDDEN: Any = None  # set by the test: pytest's collection would read a hostile one's attributes


def _stores_a_tracer_on_the_hidden(x: jax.Array) -> jax.Array:
    HIDDEN.t = x
    return x * 2


# Not _RaisingGetattribute: check_pure's trace-time-read probe reads its __class__, and raises.
@pytest.mark.timeout(60)
@pytest.mark.parametrize("hider", [_DictProperty, _ClassLevelDict], ids=lambda c: c.__name__)
def test_check_pure_leaves_no_tracer_on_an_object_that_hides_its_dict(hider, monkeypatch):
    monkeypatch.setitem(globals(), "HIDDEN", hider())
    jaxpurity.check_pure(_stores_a_tracer_on_the_hidden, jnp.ones(2))
    with pytest.raises(AttributeError):
        _attribute(HIDDEN, "t")
