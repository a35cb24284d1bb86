"""The package's catalog of messages: extract them into a template, and compile the catalog.

``tox -e catalogs`` runs, after the site's catalogs::

    python locale/package_catalog.py extract build/gettext-package/jaxpurity.pot
    sphinx-intl update --pot-dir build/gettext-package --locale-dir jaxpurity/locale ...
    python locale/package_catalog.py compile

The first writes the template of the messages the package translates; the
second merges it into ``jaxpurity/locale/zh_CN/LC_MESSAGES/jaxpurity.po``, as
for the site's catalogs (a changed message is marked fuzzy, a new one is added
untranslated, one no longer said is dropped); the third compiles that catalog
into the ``.mo`` beside it, which :func:`jaxpurity._languages.translate` reads
and the wheel ships. ``compile`` writes what ``pybabel compile`` and
``sphinx-intl build`` would (Babel's ``write_mo``, fuzzy messages left out),
but every time: ``sphinx-intl build`` skips a ``.mo`` newer than its ``.po``,
and ``pybabel compile`` fails on a message that quotes a %-format ("a %-style
string ('x = %d')"), which its check takes for a format string.

What ``explain`` says is mostly data, not literals in the code: the scenario,
cause and fix of each entry of
:data:`jaxpurity.explainer.known_errors.KNOWN_ERRORS`, some of them put together
by a function (``f"... that {where} had saved ..."``), which no extractor of
source (``xgettext``, ``pybabel extract``) can read. So they are read from the
table itself, each with a comment that names its entry's page and class, for
the translators. The labels of an explanation ("Scenario", "Read more") are
literals, marked in the source as gettext marks them, ``_("...")``, and found
in the code of :mod:`jaxpurity.explainer._explain` (by its syntax tree, which
reads an f-string's ``_("...")`` on every Python). ``tests/test_languages.py``
checks that the catalog holds exactly these messages, each translated, and
that the ``.mo`` holds what the ``.po`` says.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import pkgutil
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jaxpurity import __version__  # noqa: E402
from jaxpurity._pages import page  # noqa: E402
from jaxpurity.explainer import known_errors  # noqa: E402
from jaxpurity.explainer.known_errors import KNOWN_ERRORS  # noqa: E402

#: The catalog's gettext domain: jaxpurity/locale/<language>/LC_MESSAGES/jaxpurity.po.
DOMAIN = "jaxpurity"
#: The folder of the package's catalogs, one per language.
LOCALE = ROOT / "jaxpurity" / "locale"
_EXPLAIN = ROOT / "jaxpurity" / "explainer" / "_explain.py"
_HEADER = """\
# The messages of the jaxpurity package: what jaxpurity.explain says.
# Copyright (C) YEAR, the jaxpurity team
# This file is distributed under the same license as the jaxpurity package.
# Update it with `tox -e catalogs` (README, "The Chinese edition")."""


@dataclass(frozen=True)
class Message:
    """One text the package translates, and where it is said.

    Attributes:
      text: The English text, the catalog's msgid.
      source: The file that says it, relative to the repository's root.
      comment: For the translators: the entry or the label it is.
    """

    text: str
    source: str
    comment: str


def _labels() -> list[str]:
    """The literals given to ``_()`` in ``_explain.py``, in the order of the source."""
    found = []
    for node in ast.walk(ast.parse(_EXPLAIN.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_":
            [text] = node.args  # one literal: a computed text could not be in the catalog
            assert isinstance(text, ast.Constant) and isinstance(text.value, str), ast.dump(text)
            found.append((node.lineno, node.col_offset, text.value))
    return list(dict.fromkeys(text for _, _, text in sorted(found)))


def _defining_files() -> dict[int, str]:
    """The file that defines each entry of the table, by the entry's id."""
    files = {}
    for module_info in pkgutil.iter_modules(known_errors.__path__):
        module = importlib.import_module(f"{known_errors.__name__}.{module_info.name}")
        source = Path(module.__file__ or "").relative_to(ROOT).as_posix()
        for name in getattr(module, "__all__", ()):
            group = getattr(module, name)
            if isinstance(group, tuple):
                files.update((id(known), source) for known in group)
    return files


def messages() -> list[Message]:
    """Every text the package translates, once for each place that says it, in the table's order."""
    found = []
    files = _defining_files()
    for known in KNOWN_ERRORS:
        section = page(known.topic).split("/")[1]
        source = files[id(known)]
        error = known.errors[0] if known.errors else "printed output, no error"
        for field in ("scenario", "cause", "fix"):
            text = getattr(known, field)
            found.append(Message(text, source, f"{section}/{known.topic} ({error}): {field}"))
    explain = _EXPLAIN.relative_to(ROOT).as_posix()
    label = "a label of an explanation (jaxpurity.explainer._explain.Explanation)"
    found += [Message(text, explain, label) for text in _labels()]
    return found


def write_template(path: Path) -> None:
    """Write the messages as a gettext template (.pot) at ``path``."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    # Not fuzzy: a catalog made from it compiles once every message is translated.
    template = Catalog(
        project="jaxpurity",
        version=__version__,
        copyright_holder="the jaxpurity team",
        msgid_bugs_address="https://github.com/jaxpurity/jaxpurity/issues",
        header_comment=_HEADER,
        fuzzy=False,
    )
    for message in messages():
        template.add(
            message.text, locations=[(message.source, None)], auto_comments=[message.comment]
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        write_po(file, template, width=-1)
    print(f"{len(template)} messages of the package in {path}")


def compile_catalogs() -> None:
    """Compile each language's ``.po`` of the package into the ``.mo`` beside it."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po in sorted(LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        with po.open("rb") as file:
            catalog = read_po(file)
        with po.with_suffix(".mo").open("wb") as file:
            write_mo(file, catalog)  # without the fuzzy messages
        done = [m for m in catalog if m.id and m.string and not m.fuzzy]
        print(f"{po.with_suffix('.mo').relative_to(ROOT)}: {len(done)} of {len(catalog)} messages")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    extract = commands.add_parser("extract", help="write the template of the messages")
    extract.add_argument("pot", type=Path, help=f"where to write it, such as {DOMAIN}.pot")
    commands.add_parser("compile", help="compile each language's .po into its .mo")
    args = parser.parse_args()
    if args.command == "extract":
        write_template(args.pot)
    else:
        compile_catalogs()


if __name__ == "__main__":
    main()
