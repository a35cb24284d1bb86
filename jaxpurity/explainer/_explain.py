"""Say what a JAX error means, why it happened, and how to fix it: the matcher.

What ``explain`` knows is data in :mod:`jaxpurity.explainer.known_errors`; how pasted
text is read is :mod:`jaxpurity.explainer._pasted`. This module picks the entry: for
each error of a chain, the raised one first, the first entry whose class name
or wording matches, whose conditions hold, and which fits whether the error
was raised on a leaked tracer.
"""

from __future__ import annotations

import builtins
import functools
import ntpath  # its basename splits at "/" and at "\\": paths from any system
import re
from dataclasses import dataclass
from urllib.parse import quote

from jaxpurity._languages import language, translate
from jaxpurity._layout import bracketed, colon, join, wrap
from jaxpurity._pages import PAGES, page, url
from jaxpurity.explainer._pasted import ErrorBlock, is_jax_machinery, read_error, squeeze
from jaxpurity.explainer.known_errors import (
    DEAD_TRACE,
    KNOWN_ERRORS,
    TRACED_FUNCTION,
    KnownError,
    Wording,
)

__all__ = ["Explanation", "anchor", "distinctive", "explain", "not_recognised", "site_url"]

_WIDTH = 88  # columns of a terminal; a Chinese character takes two
# Only the errors nearest the raised one are read: a chain is short, and a long log of
# many tracebacks ends with the one that matters.
_MAX_BLOCKS = 16
# A file of JAX's internals (jax/_src/). JAX hides its own frames from tracebacks, so a traced
# function of its own (a loop's scanned_fun, jnp.tile jitted whole) is missing from them even
# while it runs: its absence does not show that the tracer leaked.
_JAX_INTERNAL_PATH = re.compile(r"(?:^|[/\\])jax[/\\]_src[/\\]")


@dataclass(frozen=True)
class Explanation:
    """What :func:`explain` says about an error.

    Attributes:
      error: The error's class name, such as ``"UnexpectedTracerError"``.
      scenario: One line: what the code was doing when the error happened.
      cause: Why JAX raises it.
      fix: What to change.
      topic: The gallery topic (a key of ``jaxpurity._pages.PAGES``), or None.
      page: The site path of the gallery page about it, or None.
      recognised: False when :func:`explain` does not know the error; then
        ``scenario``, ``cause`` and ``fix`` are empty and ``page`` is None.
      url: The full address of the page on the hosted site (the base can be
        set with ``$JAXPURITY_DOCS_URL``), or None.
      language: The language it is written in: ``"en"``, or ``"zh_CN"``, whose
        ``url`` leads to the Chinese edition of the page.
      see_also: The topics of the pages for the other causes that the same text
        can have, where it does not say which (a leak whose holder it does not
        name, a conversion error whose detail line is cut off); often empty.
    """

    error: str
    scenario: str
    cause: str
    fix: str
    topic: str | None
    page: str | None
    recognised: bool
    url: str | None = None
    language: str = "en"
    see_also: tuple[str, ...] = ()

    @property
    def note(self) -> str:
        """One line for an error's notes: the cause in brief and the page to read."""
        if not self.recognised:
            return ""
        _ = self._in_language
        return f"jaxpurity: {self.scenario} {_('See')} {self.url}"

    def _in_language(self, text: str) -> str:
        # A literal given to it as `_("...")` is a message of the package's catalog, as the
        # entries' scenario, cause and fix are (locale/package_catalog.py extracts them).
        return translate(text, self.language)

    def __str__(self) -> str:
        _ = self._in_language
        said = colon(self.language)
        if not self.recognised:
            names = {name for k in KNOWN_ERRORS for name in k.errors}
            lines = [
                f"{_('Error')}{said}{self.error or _('unknown')}",
                f"{_('Not recognised')}{said}{not_recognised('', self.language)}",
                _("It knows {known}, and some messages of {worded}.").format(
                    known=join(sorted(n for n in names if distinctive(n)), self.language),
                    worded=join(sorted(n for n in names if not distinctive(n)), self.language),
                ),
            ]
        else:
            lines = [
                f"{_('Error')}{said}{self.error}",
                f"{_('Scenario')}{said}{self.scenario}",
                f"{_('Cause')}{said}{self.cause}",
                f"{_('Fix')}{said}{self.fix}",
            ]
        text = "\n".join(wrap(line, _WIDTH) for line in lines)
        if not self.recognised:
            # Where to look next: the error index (every message the site shows, with its
            # page) and the site's search, for the error's name. Each address whole.
            search = site_url("search.html", self.language)
            if self.error:
                search += f"?q={quote(self.error)}"
            text += f"\n{_('Error index')}{said}{site_url('errors.html', self.language)}"
            text += f"\n{_('Search the site')}{said}{search}"
            return text
        # Each address whole, so that a terminal makes it a link.
        text += f"\n{_('Read more')}{said}{self.url}"
        for topic in self.see_also:
            text += f"\n{_('See also')}{said}{url(topic, self.language)}"
        return text


def site_url(path: str, lang: str = "en") -> str:
    """The address of a page of the site at ``path`` from its root, in ``lang``'s edition.

    The same base and edition folder as the gallery pages' addresses
    (:func:`jaxpurity._pages.url`, which ``$JAXPURITY_DOCS_URL`` points elsewhere).

    Example:
      >>> site_url("errors.html")  # doctest: +ELLIPSIS
      'https://.../errors.html'
      >>> site_url("search.html", "zh_CN")  # doctest: +ELLIPSIS
      'https://.../zh_CN/search.html'
    """
    topic = next(iter(PAGES))
    return url(topic, lang).removesuffix(page(topic)) + path


def not_recognised(error: str, lang: str) -> str:
    """What :func:`explain` says of an error it does not know, named ``error`` (or "").

    The site's paste box says the same, in the same words.

    Example:
      >>> not_recognised("ValueError", "en")
      'jaxpurity.explain has no entry for this error (ValueError), so it cannot say what caused it.'
      >>> not_recognised("ValueError", "zh_CN")
      'jaxpurity.explain 没有这个错误（ValueError）的条目，所以说不出它的原因。'
    """
    _ = functools.partial(translate, lang=lang)
    return _(
        "jaxpurity.explain has no entry for this error{error}, so it cannot say what caused it."
    ).format(error=bracketed(error, lang) if error else "")


def distinctive(name: str) -> bool:
    """Whether a class name identifies an error by itself (``TypeError`` does not)."""
    return not hasattr(builtins, name)


@functools.cache
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


_LITERAL_ESCAPES = frozenset("()[]{}.*+?|^$\\/'\"-:<>=!#%&,;@`~ ")


@functools.cache
def anchor(wording: Wording) -> str:
    r"""Words the message must contain for the wording to be there, without whitespace.

    For a regular expression, its longest run of literal characters outside any
    group, class or alternative; "" when it has none. A search for these is
    fast (a substring test), so the regular expression runs only on messages
    that may match it.

    Example:
      >>> anchor(Wording(r"branch \d+ output must have (?:identical|same) types", "", True))
      'outputmusthave'
    """
    if not wording.regex:
        return squeeze(wording.text)
    runs, run, depth, i, text = [], "", 0, 0, wording.text
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            escaped = text[i + 1]
            if depth == 0 and escaped in _LITERAL_ESCAPES:
                run += escaped
            else:
                runs.append(run)
                run = ""
            i += 2
            continue
        if char in "?*+{":  # the character before is optional or repeated
            run = run[:-1]
            runs.append(run)
            run = ""
            if char == "{":
                i = text.find("}", i) + 1 or len(text)
                continue
        elif char == "[":
            runs.append(run)
            run = ""
            i = text.find("]", i + 2) + 1 or len(text)
            continue
        elif char in "()":
            runs.append(run)
            run = ""
            depth += 1 if char == "(" else -1
        elif char == "|" and depth == 0:
            return ""  # alternatives at the top: no run is certain
        elif depth == 0 and char not in ".^$":
            run += char
        else:
            runs.append(run)
            run = ""
        i += 1
    runs.append(run)
    return squeeze(max(runs, key=lambda r: len(squeeze(r))))


def _has(wording: Wording, block: ErrorBlock) -> bool:
    words = anchor(wording)
    if words and not block.contains(words):
        return False
    if wording.regex:
        return _regex(wording.text).search(block.text) is not None
    return True


@functools.cache
def _call_of(name: str) -> re.Pattern[str]:
    """A call of the function ``name`` in a line of code (``name(``, not ``obj.name(``)."""
    return re.compile(rf"(?<![\w.]){re.escape(name)}\(")


def _called_back(found: re.Match[str], block: ErrorBlock) -> bool:
    """Whether the function that ``when`` names in its group ``called`` (if any) was called
    back: a line the traceback shows calls it, and it is not running.

    Then it returned, after the trace it was named by, what that trace had made: it keeps
    what it computes, as a cache does. Or, for an error jit raised before the call, the
    user's code called it by name (``step(x, config)``), not as one of a module's
    functions (``jnp.sin(obj)``).
    """
    name = found.groupdict().get("called")
    if name is None:
        return True
    if block.frames is None or any(function == name for _, function, _ in block.frames):
        return False
    return any(_call_of(name).search(line) for line in block.code)


def _holds(known: KnownError, block: ErrorBlock) -> bool:
    """Whether the entry's conditions hold for the error (its wording aside)."""
    if known.no_error and block.names:
        return False
    if known.when is not None:
        found = _regex(known.when).search(block.text)
        if found is None or not _called_back(found, block):
            return False
    if known.raised_in is not None and (
        block.raised is None or _regex(known.raised_in).search(block.raised) is None
    ):
        return False
    return known.unless is None or _regex(known.unless).search(block.text) is None


def _worded(known: KnownError, block: ErrorBlock) -> bool:
    """Whether the error's text says what the entry is about: a wording, or its condition."""
    if known.wordings:
        return any(_has(w, block) for w in known.wordings)
    return known.when is not None  # then _holds checks it


def _match(entries: list[KnownError], block: ErrorBlock, *, worded: bool) -> KnownError | None:
    """The first entry for an error: by its class name first, then by its wording.

    With ``worded``, only an entry whose wording (or condition) the text has:
    a class name alone, as in a traceback's header line, is not enough.
    """
    for name in block.names:
        if distinctive(name):
            for known in entries:
                if name in known.errors and _holds(known, block):
                    if not worded or _worded(known, block):
                        return known
    for known in entries:
        if any(_has(w, block) for w in known.wordings) and _holds(known, block):
            return known
    return None


def _on_leaked_tracer(block: ErrorBlock) -> bool:
    """Whether the error came from using a tracer after its trace had ended (a leaked one).

    JAX 0.4.35 says so. With JAX 0.10.2 the traceback decides: the message
    names the function being traced, and a leaked tracer is used after that
    function returned, so no frame of it is running. An exception's traceback
    has every frame of the user's code. A pasted one is often cut short: there
    the function must be absent from frames of its own file that are shown,
    and no line shown may call it (``f(x)``). A grad or vmap tracer's message
    names no traced function: there the traceback shows whether any
    transformation was running (:func:`_outside_every_transformation`).
    """
    traced = None
    # A quick test: each wording read here names a Tracer or the tracing.
    if "Tracer" in block.squeezed or "tracing" in block.squeezed:
        if _regex(DEAD_TRACE).search(block.text):
            return True
        traced = _regex(TRACED_FUNCTION).search(block.text)
    if traced is None:
        return _outside_every_transformation(block)
    if block.frames is None or _JAX_INTERNAL_PATH.search(traced["file"]):
        return False
    file, line, name = ntpath.basename(traced["file"]), int(traced["line"]), traced["name"]
    same_file = [f for f in block.frames if ntpath.basename(f[0]) == file]
    if any(first is not None for _, _, first in block.frames):  # from an exception
        return not any(first == line for _, _, first in same_file)
    if not same_file or any(f_name == name for _, f_name, _ in same_file):
        return False
    return name.startswith("<") or not any(_call_of(name).search(line) for line in block.code)


def _outside_every_transformation(block: ErrorBlock) -> bool:
    """Whether JAX's conversion of a tracer raised with no transformation running.

    A grad or vmap tracer's message does not say whether its trace had ended
    (``float()`` inside the function reads as ``float()`` of one kept from it);
    the traceback does. JAX removes its own frames from an error that passes
    through one of its transformations (jit, grad, vmap), and with filtering off
    keeps them all, the transformation's among them (``jax/_src/api.py``); a
    tracer converted with none running was used after its trace had ended, and
    there the only frames of JAX's are the machinery that raises (``core.py``'s
    ``__float__`` and ``error``). JAX 0.4.35, 0.10.2 and 0.12.0.1 (live).
    """
    if block.frames is None:
        return False
    paths = [path for path, _, _ in block.frames if _JAX_INTERNAL_PATH.search(path)]
    return bool(paths) and all(is_jax_machinery(path) for path in paths)


_ABOUT_LEAKS = [k for k in KNOWN_ERRORS if k.leaked]
_OTHERS = [k for k in KNOWN_ERRORS if not k.leaked]


def _lookup(block: ErrorBlock, *, worded: bool, leaked: bool) -> tuple[str, KnownError] | None:
    """The error's class name and its entry; one about leaks when it used a leaked tracer.

    An entry about a leaked tracer covers the ConcretizationTypeError family,
    so the class is named by the error, or else by the entry its wording has
    without the leak.
    """
    known = _match(_ABOUT_LEAKS, block, worded=worded) if leaked else None
    usual = _match(_OTHERS, block, worded=worded)
    if known is None:
        if usual is None:
            return None
        return (_error_name(block, usual), usual)
    if block.names:
        return block.names[0], known
    return (usual or known).errors[0], known


def _error_name(block: ErrorBlock, known: KnownError) -> str:
    """The class name to show: the error's own, where the text names one the entry knows."""
    for name in block.names:
        if name in known.errors:
            return name
    if block.names and not known.no_error:
        return block.names[0]
    return known.errors[0] if known.errors else ""


def explain(error: BaseException | str, *, lang: str = "en") -> Explanation:
    """Explain a JAX error: the scenario, the cause, the fix, and the page to read.

    Pass the exception itself, or its text as printed: a whole traceback (from
    Python, IPython or Jupyter, pytest, a CI log), a ``Type: message`` line, the
    message alone, or only its tail. Colours, wrapped lines, ``E   `` and
    ``FilteredStackTrace:`` prefixes are read through. An error is recognised by
    its class, and by the wording of its message in any JAX version from 0.1 to
    0.12; printed output that shows a tracer is recognised as a ``print`` inside
    ``jit``. When the raised error is unknown but was raised from a known one
    (``raise ... from err``, or a chained traceback), the known one is explained.

    A ``ConcretizationTypeError`` (from ``float()``, ``int()``, ``bool()``) on a
    tracer that leaked out of an earlier trace is explained as the leak it is,
    not as an argument to make static, where the error shows that the trace
    had ended: JAX 0.4.35's message says so; with JAX 0.10.2 the traceback
    does (the traced function it names is not running), so pass the
    exception or the whole traceback rather than the message alone. A leak is
    sent to the page for where the tracer came from (a loop body, grad or
    vmap) or where it is stored (a cache, an object's attribute), as far as
    the message says.

    Args:
      error: The exception, or the text of one.
      lang: The language to answer in: ``"en"``, or ``"zh_CN"`` for Simplified
        Chinese, which links the Chinese edition of the page.

    Returns:
      An :class:`Explanation`; ``print`` it for a readable summary. For an error
      it does not know, ``recognised`` is False and it says so rather than guess.

    Raises:
      TypeError: ``error`` is neither an exception nor a string.

    Example:
      >>> import jax
      >>> import jaxpurity
      >>> @jax.jit
      ... def relu(x):
      ...     return x if x > 0 else 0.0
      >>> try:
      ...     relu(1.0)
      ... except Exception as err:
      ...     explanation = jaxpurity.explain(err)
      >>> explanation.error, explanation.page
      ('TracerBoolConversionError', 'examples/control_flow/python_control_flow.html')
      >>> print(explanation)  # doctest: +ELLIPSIS
      Error: TracerBoolConversionError
      Scenario: A jitted function used `if`, `while`, `and`/`or` or `assert` on a value...
      ...
      Read more: https://.../examples/control_flow/python_control_flow.html
      See also: https://.../examples/control_flow/static_arguments.html
      See also: https://.../examples/control_flow/boolean_masks.html
      >>> jaxpurity.explain("ValueError: my own mistake").recognised
      False
      >>> chinese = jaxpurity.explain("TracerBoolConversionError: ...", lang="zh_CN")
      >>> print(chinese.scenario[:10], chinese.url)  # doctest: +ELLIPSIS
      经过 jit 的函数 https://.../zh_CN/examples/control_flow/python_control_flow.html
    """
    if not isinstance(error, (BaseException, str)):
        raise TypeError(
            f"explain() takes an exception or its text (a str), not {type(error).__name__}; "
            "for example explain(err) inside `except Exception as err:`, or explain(str(err))"
        )
    lang = language(lang)
    chain = read_error(error)[:_MAX_BLOCKS]
    # An error whose text says what it is first, the raised one before its causes; then one
    # known by its class name alone. Pasted text often holds the message only once, in the
    # cause (JAX's "FilteredStackTrace"), and the raised error as a bare header line.
    leaked = [_on_leaked_tracer(block) for block in chain]
    found = next(
        (
            f
            for worded in (True, False)
            for block, was_leaked in zip(chain, leaked, strict=True)
            if (f := _lookup(block, worded=worded, leaked=was_leaked))
        ),
        None,
    )
    if found is not None:
        name, known = found
        return Explanation(
            error=name,
            scenario=translate(known.scenario, lang),
            cause=translate(known.cause, lang),
            fix=translate(known.fix, lang),
            topic=known.topic,
            page=page(known.topic),
            recognised=True,
            url=url(known.topic, lang),
            language=lang,
            see_also=known.see_also,
        )
    names = chain[0].names if chain else ()
    return Explanation(
        error=names[0] if names else "",
        scenario="",
        cause="",
        fix="",
        topic=None,
        page=None,
        recognised=False,
        language=lang,
    )
