"""The error index: each kind of error the gallery caught, where it is explained and shown.

While each example runs, :func:`log_caught_errors` points
:func:`jaxpurity.raises` at a log of that page's own
(``examples/_captured/<section>/<page>.jsonl``, rewritten on every run).
After the examples have run, :func:`write_error_index` reads the logs back
and writes ``examples/error_index.rst.inc``, which ``errors.rst`` includes:
a section per exception class, JAX's and jaxpurity's apart, with one entry
per kind of message (its :func:`headline`, the shapes, numbers and names that
vary from one call to the next replaced by placeholders). It writes each
edition's words into a file of its own (``error_index.zh_CN.rst.inc`` for the
Chinese), in every build, and the Chinese edition reads its file in place of
the English one (:func:`read_edition_index`): a build of one edition then
leaves the file the other edition reads as it was, and a rebuild with nothing
changed reads ``errors.rst`` again in neither.

The build fails when the index and :func:`jaxpurity.explain` disagree: the
page ``explain`` names for a captured error must itself show that kind of
message and be sent there by ``explain`` too.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
from pathlib import Path
from typing import Any

import jax
from docutils.utils import column_width
from editions import language_of, say
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from unchanged_rebuild import write_if_changed

import jaxpurity
from jaxpurity._capture import CAUGHT_LOG_ENV, read_caught
from jaxpurity._languages import EDITIONS, translate
from jaxpurity._pages import PAGES, page, script, topic_of


@dataclasses.dataclass(frozen=True)
class Placeholder:
    """A part of a message that varies between calls of one mistake, and what the index shows.

    Attributes:
      pattern: What it replaces.
      shown: What the index shows instead.
      example: A message (part) it replaces, for the legend and the tests.
    """

    pattern: re.Pattern[str]
    shown: str
    example: str


#: The placeholders, in the order they are replaced.
PLACEHOLDERS: tuple[Placeholder, ...] = (
    Placeholder(
        re.compile(r"(?<![\w/.-])[\w/.-]*\.py:\d+(?::\d+)?\b"),
        "<file>:<line>",
        "created on line /tmp/train.py:16:6",
    ),
    # "function <lambda> at <file>", "true_fun is branch1 at <file>", "was scale at <file>"
    Placeholder(re.compile(r"(?<!\S)\S+ at <file>"), "<function> at <file>", "step at train.py:3"),
    # jaxpurity's RetraceError
    Placeholder(
        re.compile(r"`[^`\s]+` was traced\b"), "`<function>` was traced", "`step` was traced"
    ),
    # jaxpurity's FrozenInstanceError
    Placeholder(
        re.compile(r"\bfield '\w+' of \w+"), "field '<name>' of <class>", "field 'total' of State"
    ),
    Placeholder(re.compile(r"\.replace\(\w+="), ".replace(<name>=", "obj.replace(total=...)"),
    # Python's own, for a frozen dataclass (an Equinox module)
    Placeholder(
        re.compile(r"\bassign to field '\w+'"),
        "assign to field '<name>'",
        "cannot assign to field 'w'",
    ),
    # "~int32[]" in a tracer's repr, "Ref{int32[]}" in a mutable array's
    Placeholder(
        re.compile(r"\b(?:bool|u?int\d*|float\d*|bfloat16|complex\d*|float8_\w+)\[[\d, ]*\]"),
        "<dtype>[<shape>]",
        "traced array with shape float32[128,10]",
    ),
    # Not a call such as "__index__()"
    Placeholder(
        re.compile(r"(?<![\w)\]])\((?:\d+, ?)*\d*,?\)"), "<shape>", "arr_shape=(3,) shape=()"
    ),
    Placeholder(re.compile(r"\b0x[0-9a-fA-F]+\b"), "<address>", "at 0x7f3a2c1b9e40"),
    # Counts, indices, object ids; a number may end a sentence
    Placeholder(
        re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?!\w|\.\d)"), "<n>", "traced 2 times, more than 1."
    ),
)

#: The classes whose first line only names the tracer: JAX's second line (its ``context``)
#: says what needed a concrete value ("The axis argument must be known statically."), so
#: it belongs to the kind of message.
TWO_LINE_HEADLINES = frozenset({"ConcretizationTypeError"})
# Lines that say where an error happened or where to read more: never a context line.
_WHERE = re.compile(r"(?:The error occurred while|This \w*Tracer\b|See https?:)")
# A message that names jaxpurity: one jaxpurity raises as a standard class
# ("jaxpurity.cond: the branches ...", "jaxpurity dataclasses are immutable").
_NAMES_JAXPURITY = re.compile(r"\bjaxpurity\b")

#: The two groups of the index, in the order they appear.
JAX_GROUP = "Errors from JAX"
JAXPURITY_GROUP = "Errors from jaxpurity"


#: Below this :func:`similarity`, two errors of one page and class are not one message
#: in two wordings. The least alike pair on JAX 0.4.35 and 0.10.2 is at 0.45 (cond's "true_fun
#: and false_fun output must have identical types" and "cond branches must have equal output
#: types"). Two messages of one page and class can be more alike than that (scan's and
#: while_loop's carry errors, 0.77): there the order decides (:data:`OFFSET_COST`).
MIN_SIMILARITY = 0.3
#: What pairing the k-th error of a class with the other JAX's (k+d)-th costs, per step d:
#: of two wordings about as alike, the one in the same place is the same mistake's.
OFFSET_COST = 0.1
# docs/captured/jax-<version>/: what the gallery caught on that JAX (tests/record_gallery.py).
_RECORD = re.compile(r"jax-(\d+(?:\.\d+)*)")


def _captured_dir(srcdir: str | os.PathLike[str]) -> Path:
    return Path(srcdir) / "examples" / "_captured"


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def oldest_record(srcdir: str | os.PathLike[str]) -> tuple[str, list[dict[str, str]]]:
    """The oldest JAX in ``docs/captured/`` and the errors the gallery caught on it.

    Raises:
      ExtensionError: ``docs/captured/`` holds no ``jax-<version>/`` record.
    """
    captured = Path(srcdir) / "captured"
    records = {
        match[1]: path
        for path in captured.glob("jax-*")
        if path.is_dir() and (match := _RECORD.fullmatch(path.name))
    }
    if not records:
        raise ExtensionError(
            f"no record of the oldest JAX's errors in {captured}/jax-<version>/: "
            "run `python tests/record_gallery.py` under the oldest supported JAX"
        )
    version = min(records, key=_version_key)
    return version, read_caught(records[version])


def log_caught_errors(gallery_conf: dict[str, Any], fname: str | None, when: str) -> None:
    """Before an example runs, point ``$JAXPURITY_CAUGHT_LOG`` at its log; after, unset it."""
    if when == "before" and fname is not None:
        topic = topic_of(fname)
        section = Path(script(topic)).parent.name
        log = _captured_dir(gallery_conf["src_dir"]) / section / f"{topic}.jsonl"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("")
        os.environ[CAUGHT_LOG_ENV] = str(log)
    else:
        os.environ.pop(CAUGHT_LOG_ENV, None)


def normalise(line: str) -> str:
    """One line of a message with its shapes, dtypes, numbers, files and names as placeholders.

    Example:
      >>> normalise("intermediate value with type float32[128,10] wrapped in a JitTracer")
      'intermediate value with type <dtype>[<shape>] wrapped in a JitTracer'
      >>> normalise("function <lambda> at global_counter.py:273 traced for jit")
      'function <function> at <file>:<line> traced for jit'
    """
    for placeholder in PLACEHOLDERS:
        line = placeholder.pattern.sub(placeholder.shown, line)
    return line.strip()


def headline(type_name: str, message: str) -> tuple[str, ...]:
    """The lines that say which kind of message this is, normalised: the first, or two.

    Example:
      >>> headline("KeyReuseError", "In jit, argument 0 is already consumed.\\nSee https://...")
      ('In jit, argument <n> is already consumed.',)
    """
    lines = message.splitlines() or [""]
    kept = [lines[0]]
    if type_name in TWO_LINE_HEADLINES and len(lines) > 1:
        context = lines[1].strip()
        if context and not _WHERE.match(context):
            kept.append(context)
    return tuple(normalise(line) for line in kept)


def similarity(type_name: str, one: str, other: str) -> float:
    """How alike two messages of one class read, 0 to 1, by their :func:`headline`."""
    return difflib.SequenceMatcher(
        None, " ".join(headline(type_name, one)), " ".join(headline(type_name, other))
    ).ratio()


Caught = dict[str, str]


def _align(newest: list[Caught], oldest: list[Caught]) -> list[tuple[Caught | None, Caught | None]]:
    """Pair two lists of one page's errors of one class, in order, the most alike together."""
    alike = [[similarity(n["type"], n["message"], o["message"]) for o in oldest] for n in newest]
    score = [
        [s - OFFSET_COST * abs(i - j) if s >= MIN_SIMILARITY else -1.0 for j, s in enumerate(row)]
        for i, row in enumerate(alike)
    ]
    # best[i][j]: the highest total similarity pairing newest[i:] with oldest[j:]
    best = [[0.0] * (len(oldest) + 1) for _ in range(len(newest) + 1)]
    for i in reversed(range(len(newest))):
        for j in reversed(range(len(oldest))):
            best[i][j] = max(best[i + 1][j], best[i][j + 1], best[i + 1][j + 1] + score[i][j])
    pairs: list[tuple[Caught | None, Caught | None]] = []
    i = j = 0
    while i < len(newest) and j < len(oldest):
        if score[i][j] >= 0 and best[i][j] == best[i + 1][j + 1] + score[i][j]:
            pairs.append((newest[i], oldest[j]))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            pairs.append((newest[i], None))
            i += 1
        else:
            pairs.append((None, oldest[j]))
            j += 1
    pairs += [(n, None) for n in newest[i:]] + [(None, o) for o in oldest[j:]]
    return pairs


def pair_versions(
    newest: list[Caught], oldest: list[Caught]
) -> list[tuple[Caught | None, Caught | None]]:
    """Each error the gallery caught on the newest JAX with the same error on the oldest.

    A page runs the same code on both, so one mistake's error is the one of the same page
    and class, in the same order, worded most alike (at least :data:`MIN_SIMILARITY`, and
    :data:`OFFSET_COST` less for each place it moved). An
    error that one JAX raises and the other does not is paired with ``None``.

    Example:
      >>> new = {"type": "KeyReuseError", "message": "In jit, argument 0 is already consumed."}
      >>> old = {**new, "message": "In pjit, argument 0 is already consumed."}
      >>> pair_versions([{**new, "page": "p"}], [{**old, "page": "p"}]) == [
      ...     ({**new, "page": "p"}, {**old, "page": "p"})
      ... ]
      True
    """
    keys = dict.fromkeys((e["page"], e["type"]) for e in [*newest, *oldest])
    return [
        pair
        for page_name, type_name in keys
        for pair in _align(
            [e for e in newest if (e["page"], e["type"]) == (page_name, type_name)],
            [e for e in oldest if (e["page"], e["type"]) == (page_name, type_name)],
        )
    ]


def group_of(type_name: str, message: str) -> str:
    """:data:`JAXPURITY_GROUP` for an error jaxpurity raised, else :data:`JAX_GROUP`.

    jaxpurity's are its own exception classes and the standard ones it raises with a
    message that names it (``dataclasses.FrozenInstanceError`` from
    :func:`jaxpurity.dataclass`); the rest the gallery caught came from JAX (which
    raises ``TypeError`` and ``ValueError`` as well as :mod:`jax.errors`).
    """
    own = isinstance(getattr(jaxpurity, type_name, None), type)
    first = (message.splitlines() or [""])[0]
    return JAXPURITY_GROUP if own or _NAMES_JAXPURITY.search(first) else JAX_GROUP


def qualified_name(type_name: str) -> str:
    """The class as a reader would import it: ``jax.errors.X``, ``jaxpurity.X``, ``TypeError``."""
    for module in (jax.errors, jaxpurity, dataclasses):
        if isinstance(getattr(module, type_name, None), type):
            return f"{module.__name__}.{type_name}"
    return type_name  # a builtin, such as TypeError


@dataclasses.dataclass
class Explained:
    """A page that :func:`jaxpurity.explain` names for a kind of message.

    Attributes:
      topic: The page's topic.
      scenario: ``explain``'s one line on what the code was doing.
      sent_from: The topics of the pages whose errors ``explain`` sends there.
    """

    topic: str
    scenario: str
    sent_from: set[str] = dataclasses.field(default_factory=set)


@dataclasses.dataclass
class Entry:
    """One kind of message: its wordings, the pages that explain it, and the pages that show it.

    Attributes:
      type: The exception's class name.
      headline: The normalised lines that name the kind of message (see :func:`headline`),
        as the newest JAX words it; as the oldest does if only the oldest raises it.
      wordings: JAX version -> the headlines that version's errors of this kind have, the
        newest version first; a version that does not raise it has none.
      explained_on: The pages :func:`jaxpurity.explain` names for it, in reading order;
        more than one where it tells the errors of this kind apart by more than the
        headline (where the leaked tracer came from). Empty if ``explain`` does not know it.
      shown_on: The topics of the pages that show it, in reading order.
    """

    type: str
    headline: tuple[str, ...]
    wordings: dict[str, list[tuple[str, ...]]] = dataclasses.field(default_factory=dict)
    explained_on: list[Explained] = dataclasses.field(default_factory=list)
    shown_on: list[str] = dataclasses.field(default_factory=list)

    def differs(self) -> bool:
        """Whether the versions word it differently, or only some raise it."""
        return len({tuple(kinds) for kinds in self.wordings.values()}) > 1


def _reading_order(topic: str) -> int:
    return list(PAGES).index(topic)


def _add_explained(entry: Entry, error: Caught) -> None:
    explanation = jaxpurity.explain(f"{error['type']}: {error['message']}")
    if explanation.recognised and explanation.topic is not None:
        explained = next((e for e in entry.explained_on if e.topic == explanation.topic), None)
        if explained is None:
            explained = Explained(explanation.topic, explanation.scenario)
            entry.explained_on = sorted(
                [*entry.explained_on, explained], key=lambda e: _reading_order(e.topic)
            )
        explained.sent_from.add(topic_of(error["page"]))


def error_index(
    errors: list[Caught], oldest: tuple[str, list[Caught]] | None = None
) -> dict[str, dict[str, list[Entry]]]:
    """The captured errors as group -> exception class -> entries, one per kind of message.

    Args:
      errors: What the gallery caught on the installed JAX, as :func:`read_caught` reads it.
      oldest: The oldest supported JAX's version and what the gallery caught on it (see
        :func:`oldest_record`): each entry gets both versions' wordings.

    Raises:
      ExtensionError: jaxpurity.explain sends a captured error to a page that does
        not show that kind of message, or that shows it but is not sent it.
    """
    newest_version = jax.__version__
    old_version, old_errors = oldest if oldest is not None else (newest_version, [])
    if old_version == newest_version:  # built on the oldest JAX: nothing to compare
        old_errors = []
    versions = [newest_version] + ([old_version] if old_errors else [])
    entries: dict[tuple[str, tuple[str, ...], bool], Entry] = {}
    pairs = pair_versions(errors, old_errors)
    # An error only the oldest JAX raises joins the entry with its wording, if there is one.
    for new, old in sorted(pairs, key=lambda pair: pair[0] is None):
        error = new or old
        assert error is not None
        kind = headline(error["type"], error["message"])
        key = (error["type"], kind, new is None)
        if new is None:
            key = next(
                (
                    other
                    for other, entry in entries.items()
                    if other[0] == error["type"] and kind in entry.wordings[old_version]
                ),
                key,
            )
        entry = entries.setdefault(
            key, Entry(error["type"], kind, {version: [] for version in versions})
        )
        for version, caught in ((newest_version, new), (old_version, old)):
            if caught is not None:
                wording = headline(caught["type"], caught["message"])
                if wording not in entry.wordings[version]:
                    entry.wordings[version].append(wording)
        shown = topic_of(error["page"])
        if shown not in entry.shown_on:
            entry.shown_on = sorted([*entry.shown_on, shown], key=_reading_order)
        _add_explained(entry, error)
    # The page explain names must show this kind of message, and explain must send its own
    # error of this kind there: not merely an error of the same class.
    wrong = [
        f"{entry.type} ({' / '.join(entry.headline)!r}): explain() names {explained.topic} "
        f"for the errors shown on {sorted(explained.sent_from)}, but "
        + (
            "that page does not show this message"
            if explained.topic not in entry.shown_on
            else "sends that page's own error of this kind elsewhere"
        )
        for entry in entries.values()
        for explained in entry.explained_on
        if explained.topic not in explained.sent_from
    ]
    if wrong:
        raise ExtensionError("error index and jaxpurity.explain disagree:\n" + "\n".join(wrong))
    index: dict[str, dict[str, list[Entry]]] = {JAX_GROUP: {}, JAXPURITY_GROUP: {}}
    for (type_name, _kind, _old_only), entry in sorted(
        entries.items(),
        key=lambda item: (item[0][0], item[0][2], [line.lower() for line in item[0][1]]),
    ):
        group = group_of(type_name, "\n".join(entry.headline))
        index[group].setdefault(type_name, []).append(entry)
    return {group: classes for group, classes in index.items() if classes}


def _code(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("`", "\\`")
    return f":code:`{escaped}`"


def _doc(topic: str) -> str:
    return f":doc:`/{page(topic).removesuffix('.html')}`"


def _title(text: str, underline: str) -> list[str]:
    # As wide as the title shows: a Chinese character takes two columns.
    return [text, underline * column_width(text), ""]


def legend(index: dict[str, dict[str, list[Entry]]], lang: str = "en") -> list[str]:
    """The placeholders the index shows, each with an example of what it stands for."""
    text = "\n".join(
        line
        for classes in index.values()
        for entries in classes.values()
        for entry in entries
        for kinds in entry.wordings.values()
        for kind in kinds
        for line in kind
    )
    used = {}
    for placeholder in PLACEHOLDERS:
        if placeholder.shown in text and placeholder.shown not in used:
            used[placeholder.shown] = placeholder.example
    lines = [
        say(
            lang,
            "The parts of a message that change from one call to the next are shown as "
            "placeholders:",
        ),
        "",
    ]
    lines += [
        "- " + say(lang, "{shown} for {example}", shown=_code(shown), example=_code(example))
        for shown, example in used.items()
    ]
    return [*lines, ""]


def _wordings(entry: Entry, lang: str) -> list[str]:
    """The entry's headline as a line block; each version's, marked, where they differ."""
    if not entry.differs():
        return [f"| {_code(line)}" for line in entry.headline]
    lines = []
    for version, kinds in entry.wordings.items():
        if not kinds:
            lines.append(
                "| "
                + say(
                    lang, "**JAX {version}:** raises no such error on these pages", version=version
                )
            )
        for kind in kinds:
            lines.append(f"| **JAX {version}:** {_code(kind[0])}")
            lines += [f"| {_code(line)}" for line in kind[1:]]
    return lines


def _entry(entry: Entry, lang: str) -> list[str]:
    first, *rest = _wordings(entry, lang)
    lines = [f"- {first}", *(f"  {line}" for line in rest), ""]
    if not entry.explained_on:
        explain = ":func:`jaxpurity.explain`"
        lines += [
            "  "
            + say(lang, "**Explained on:** no page; {explain} does not know it.", explain=explain),
            "",
        ]
    elif len(entry.explained_on) == 1:
        lines += [
            "  " + say(lang, "**Explained on:** {page}", page=_doc(entry.explained_on[0].topic)),
            "",
        ]
    else:
        lines += ["  " + say(lang, "**Explained on**, by what the code did:"), ""]
        lines += [f"  - {_doc(e.topic)}: {translate(e.scenario, lang)}" for e in entry.explained_on]
        lines.append("")
    shown = ", ".join(_doc(topic) for topic in entry.shown_on)
    newest, *older = entry.wordings
    if entry.wordings[newest]:
        return [*lines, "  " + say(lang, "**Shown on:** {pages}", pages=shown), ""]
    raised = say(
        lang,
        "**Raised on JAX {versions} by the code of:** {pages}",
        versions=", ".join(older),
        pages=shown,
    )
    return [*lines, f"  {raised}", ""]


def rst(index: dict[str, dict[str, list[Entry]]], lang: str = "en") -> str:
    """The index as reST, in ``lang``: a section per group and per class, an item per message."""
    lines = legend(index, lang)
    for group, classes in index.items():
        lines += _title(say(lang, group), "-")
        for type_name, entries in classes.items():
            kinds = "Raised as {name}; {count} kinds of message."
            if len(entries) == 1:
                kinds = "Raised as {name}; {count} kind of message."
            lines += _title(f"``{type_name}``", "~")
            name = f"``{qualified_name(type_name)}``"
            lines += [say(lang, kinds, name=name, count=str(len(entries))), ""]
            lines += [".. rst-class:: error-entries", ""]
            for entry in entries:
                lines += _entry(entry, lang)
    return "\n".join(lines)


def index_path(srcdir: str | os.PathLike[str], lang: str = "en") -> Path:
    """The file that holds the error index in ``lang``: the one ``errors.rst`` includes for
    English, ``examples/error_index.<lang>.rst.inc`` for another edition."""
    name = "error_index.rst.inc" if lang == "en" else f"error_index.{lang}.rst.inc"
    return Path(srcdir) / "examples" / name


def write_error_index(app: Sphinx) -> None:
    """Write the error index from the captured errors, in the words of every edition."""
    newest = read_caught(_captured_dir(app.srcdir))
    index = error_index(newest, oldest_record(app.srcdir))
    for lang in EDITIONS:
        # Rewrite only on change, so that an unchanged rebuild does not re-read errors.rst.
        write_if_changed(index_path(app.srcdir, lang), rst(index, lang).encode("utf-8"))


def read_edition_index(
    app: Sphinx, relative_path: Path, parent_docname: str, content: list[str]
) -> None:
    """In an edition other than English, include its own error index in place of the English."""
    lang = language_of(app)
    if lang == "en" or Path(app.srcdir, relative_path) != index_path(app.srcdir):
        return
    own = index_path(app.srcdir, lang)
    app.env.note_dependency(own)
    content[0] = own.read_text(encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    # After sphinx-gallery (priority 500) has run the examples.
    app.connect("builder-inited", write_error_index, priority=600)
    app.connect("include-read", read_edition_index)
    app.add_css_file("error_index.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
