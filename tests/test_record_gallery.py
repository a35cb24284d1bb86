"""tests/record_gallery.py: what counts as a change in what a gallery page caught."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_gallery import comparable, differences  # noqa: E402

LEAK = (
    "Leaked trace MainTrace(1,DynamicJaxprTrace). Leaked tracer(s):\n"
    "This DynamicJaxprTracer was created on line global_counter.py:{line}:8 (scale)\n"
    "<DynamicJaxprTracer {a}> is referred to by <list {b}>[0]\n"
    "<list {b}> is referred to by metrics.history\n"
    "This BatchTracer with object id {a} was created on line"
)


def _record(folder: Path, **message_fields: object) -> dict[str, list[str]]:
    log = folder / "state_and_leaks" / "global_counter.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text(json.dumps({"type": "Exception", "message": LEAK.format(**message_fields)}))
    return comparable(folder)


def test_line_numbers_and_object_ids_do_not_count(tmp_path: Path) -> None:
    before = _record(tmp_path / "a", line=108, a=140128078230320, b=140128096935680)
    after = _record(tmp_path / "b", line=131, a=140694543857072, b=140694543708416)
    assert differences(before, after) == []


def test_a_changed_reference_chain_counts(tmp_path: Path) -> None:
    before = _record(tmp_path / "a", line=108, a=1401, b=1402)
    log = tmp_path / "b" / "state_and_leaks" / "global_counter.jsonl"
    log.parent.mkdir(parents=True)
    message = LEAK.format(line=108, a=1401, b=1402).replace("metrics.history", "metrics.seen")
    log.write_text(json.dumps({"type": "Exception", "message": message}))
    diff = differences(before, comparable(tmp_path / "b"))
    assert "+<list ID> is referred to by metrics.seen" in diff, diff
