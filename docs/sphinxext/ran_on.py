"""The "Where this was run" page's table: one row per run of the backend lane.

``tests/lane.py`` runs every gallery page and the whole suite on whatever
backend JAX sees, and ``lane.py table OUT --record docs/ran_on/NAME.json``
keeps what it found. ``.. ran-on::`` shows every record in ``docs/ran_on/``,
CPU first, then by backend and JAX version, so the page shows only runs that
happened. Its column names are interface text (:data:`editions.UI` holds
their Chinese); the cells are data, in neither edition's catalog.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from editions import language_of, say
from sphinx.application import Sphinx

# One run, as a line of the list: a list wraps on a phone, where a table of nine columns
# scrolls out of a keyboard's reach. editions.UI holds its Chinese.
RUN = (
    "{backend} ({device}), JAX {jax}, Python {python}: {pages} pages passed; "
    "{passed} tests passed, {failed} failed; {date}. {note}"
)
FIELDS = ("backend", "device", "jax", "python", "pages", "passed", "failed", "date", "note")


def rows(records: list[dict[str, Any]], lang: str = "en") -> list[list[str]]:
    """Each run's fields (:data:`FIELDS`), the CPU first, then by backend and JAX; a
    record's note (``{"en": ..., "zh_CN": ...}``) in the edition's ``lang``.

    Example:
      >>> run = {"backend": "tpu", "device": "TPU v5 lite", "jax": "0.10.2", "python": "3.11.7",
      ...        "date": "2026-12-06", "commit": "a5d2e2e", "pages": {"ran": 28, "passed": 28},
      ...        "tests": {"passed": 3300, "failed": 0, "skipped": 41}}
      >>> rows([run])
      [['tpu', 'TPU v5 lite', '0.10.2', '3.11.7', '28/28', '3300', '0', '2026-12-06 (a5d2e2e)', '']]
    """

    def order(record: dict[str, Any]) -> tuple:
        version = tuple(int(part) for part in record["jax"].split(".")[:3])
        return (record["backend"] != "cpu", record["backend"], version)

    table = []
    for r in sorted(records, key=order):
        pages, tests = r.get("pages"), r.get("tests")
        table.append(
            [
                r["backend"],
                r["device"],
                r["jax"],
                r["python"],
                f"{pages['passed']}/{pages['ran']}" if pages else "-",
                str(tests["passed"]) if tests else "-",
                str(tests["failed"]) if tests else "-",
                f"{r['date']} ({r['commit']})",
                r.get("note", {}).get(lang, ""),
            ]
        )
    return table


class RanOn(Directive):
    """``.. ran-on::``: the backend lane's records in ``docs/ran_on/``, one line each."""

    def run(self) -> list[nodes.Node]:
        env = self.state.document.settings.env
        folder = Path(env.srcdir) / "ran_on"
        records = []
        for path in sorted(folder.glob("*.json")):
            env.note_dependency(str(path))
            records.append(json.loads(path.read_text(encoding="utf-8")))
        if not records:
            raise self.error(f"ran-on: no record in {folder}: run tests/lane.py (its docstring)")
        lang = language_of(env.app)
        runs = nodes.bullet_list(classes=["ran-on"])
        for cells in rows(records, lang):
            line = say(lang, RUN, **dict(zip(FIELDS, cells, strict=True))).strip()
            runs += nodes.list_item("", nodes.paragraph(text=line))
        return [runs]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("ran-on", RanOn)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
