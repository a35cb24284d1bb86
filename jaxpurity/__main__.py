"""Command line: ``jaxpurity explain "<error text>"`` and ``jaxpurity lint PATH...``
(or ``python -m jaxpurity ...``).

``explain`` reads the error from the argument, from a file (``--file log.txt``,
or an argument that names an existing file), or from standard input (``-`` or
nothing). It answers in English or Simplified Chinese (``--lang zh_CN``); by
default in the language of the locale (``$LANG``). Exit status: 0 when the
error is recognised, 1 when it is not, 2 for a usage error.

``lint`` checks Python files and folders for impure JAX code, without running
them (:func:`jaxpurity.lint`), and prints one ``path:line:col: JPxxx message
(page URL)`` line per finding, or JSON or SARIF (``--format``). Exit status: 0
when it finds nothing, 1 when it finds something, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from jaxpurity import __version__
from jaxpurity._languages import LANGUAGES, from_locale, language
from jaxpurity.linter._report import FORMATS

if TYPE_CHECKING:
    from jaxpurity.linter._rules import Rule

# Each command imports only its own tool, when it runs: ``jaxpurity lint`` never loads
# explain's table, ``jaxpurity explain`` loads only the lint report's formats (for --help),
# not the linter, and neither imports JAX.

__all__ = ["main"]


def _prog() -> str:
    """How the user called us: the ``jaxpurity`` console script, or ``python -m jaxpurity``."""
    return "jaxpurity" if Path(sys.argv[0]).stem == "jaxpurity" else "python -m jaxpurity"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=_prog(),
        description="Tools for impure functions and leaked tracers in JAX.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    explain_cmd = commands.add_parser(
        "explain",
        help="say what a JAX error means, why it happened, and how to fix it",
        description="Explain a JAX error: the scenario, the cause, the fix, and the "
        "page of the jaxpurity site to read. Exits 0 when the error is recognised "
        "and 1 when it is not. Set JAXPURITY_DOCS_URL to link another copy of the site.",
    )
    explain_cmd.add_argument(
        "text",
        nargs="?",
        default="-",
        help="the error: a traceback, a 'Type: message' line or the message alone, or the "
        "path of a file (a log) that holds it; '-' or nothing reads it from standard input",
    )
    explain_cmd.add_argument(
        "-f",
        "--file",
        type=Path,
        help="read the error from this file (a saved traceback or a CI log)",
    )
    explain_cmd.add_argument(
        "--lang",
        type=_language,
        default=None,
        metavar="{" + ",".join(LANGUAGES) + "}",
        help="answer in English (en) or Simplified Chinese (zh_CN), linking that edition of "
        "the site; default: the language of the locale ($LANGUAGE, $LC_ALL, $LC_MESSAGES, "
        "$LANG), English unless it is Simplified Chinese",
    )
    _add_lint(commands)
    return parser


def _add_lint(commands: argparse._SubParsersAction) -> None:
    lint_cmd = commands.add_parser(
        "lint",
        help="find impure JAX code in Python files, without running them",
        description="Find impure JAX code in Python files, without importing or running "
        "them: globals and containers changed in traced functions, print of tracers, NumPy "
        "randomness, Python if on traced values, and more; each finding links the page of "
        "the jaxpurity site that explains it. Settings come from [tool.jaxpurity.lint] in "
        "the nearest pyproject.toml. Exits 0 when it finds nothing, 1 when it finds "
        "something, 2 for a usage error.",
    )
    lint_cmd.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files and folders to check (folders recursively, without hidden folders and "
        "virtual environments); default: the current folder",
    )
    lint_cmd.add_argument(
        "--format",
        choices=sorted(FORMATS),
        default="text",
        help="text: path:line:col: JPxxx message (page URL); json: a list of findings; "
        "sarif: SARIF 2.1.0, for code-scanning tools (default: text)",
    )
    lint_cmd.add_argument(
        "--select",
        type=_codes,
        metavar="CODES",
        help="check only these codes or prefixes, comma-separated (JP1,JP201), instead of "
        "those of the configuration",
    )
    lint_cmd.add_argument(
        "--ignore",
        type=_codes,
        default=[],
        metavar="CODES",
        help="do not check these codes or prefixes, comma-separated (added to the configuration's)",
    )
    lint_cmd.add_argument(
        "--wrappers",
        type=_codes_as_written,
        default=[],
        metavar="NAMES",
        help="your own wrappers of jax.jit, comma-separated qualified names (mylib.jit), "
        "read as jax.jit",
    )
    lint_cmd.add_argument("--no-config", action="store_true", help="do not read pyproject.toml")
    lint_cmd.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the cache of results (.jaxpurity_cache/ at the root of "
        "the tree, kept so that a second run over unchanged files reads them back)",
    )
    lint_cmd.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help="keep the cache in DIR (default: .jaxpurity_cache in the nearest folder above "
        "the paths that holds a pyproject.toml or .git, else in their common folder)",
    )
    lint_cmd.add_argument(
        "--jobs",
        type=_jobs,
        metavar="N",
        help="check files in up to N processes, when 48 files or more are not in the cache; "
        "1 checks them in this process (default: one per core, at most 8)",
    )
    lint_cmd.add_argument(
        "--explain",
        nargs="?",
        const="all",
        metavar="CODE",
        help="say what a rule finds, the page that explains it and what it cannot see "
        "(every rule without CODE), and exit",
    )


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number of processes, 1 or more")
    return jobs


def _codes(text: str) -> list[str]:
    return [part.strip().upper() for part in text.split(",") if part.strip()]


def _codes_as_written(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _describe(found: Rule) -> str:
    cannot_see = textwrap.fill(
        f"what it cannot see: {found.cannot_see}", 88, initial_indent="  ", subsequent_indent="    "
    )
    described = f"{found.code} {found.name}: {found.title}\n  page: {found.url}\n{cannot_see}"
    if found.opt_in:
        opt_in = f"{found.opt_in} Turn it on with select = [{found.code!r}]."
        described += "\n" + textwrap.fill(opt_in, 88, initial_indent="  ", subsequent_indent="    ")
    return described


def _lint(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from jaxpurity.linter._lint import lint_paths
    from jaxpurity.linter._report import report
    from jaxpurity.linter._rules import RULES, rule

    if args.explain is not None:
        try:
            chosen = RULES if args.explain == "all" else (rule(args.explain.upper()),)
        except KeyError as error:
            parser.error(f"lint --explain: {error.args[0]}")
        print("\n\n".join(_describe(found) for found in chosen))
        return 0
    try:
        findings, files = lint_paths(
            args.paths or ["."],
            select=args.select,
            ignore=args.ignore,
            wrappers=args.wrappers,
            config=not args.no_config,
            jobs=args.jobs,
            progress=args.format == "text" and sys.stderr.isatty(),
            cache=not args.no_cache,
            cache_dir=args.cache_dir,
            note=lambda text: print(f"jaxpurity lint: {text}", file=sys.stderr),
        )
    except (FileNotFoundError, ValueError) as error:
        parser.error(f"lint: {error}")
    if findings or args.format != "text":
        print(report(findings, args.format))
    if args.format == "text":
        where = len({f.path for f in findings})
        summary = f"{len(findings)} finding(s) in {where} of {files} file(s) checked"
        print(
            f"jaxpurity lint: {summary if findings else f'no findings in {files} file(s)'}",
            file=sys.stderr,
        )
    return 1 if findings else 0


def _language(text: str) -> str:
    try:
        return language(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _read(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    if args.file is not None:
        if args.text != "-":
            parser.error("explain: give the error as text or with --file, not both")
        return _read_file(parser, args.file)
    text: str = args.text
    if text == "-":
        if sys.stdin.isatty():
            print("Paste the error, then press Ctrl-D (Ctrl-Z Enter on Windows).", file=sys.stderr)
        return sys.stdin.read()
    if "\n" not in text and len(text) < 4096 and os.path.isfile(text):
        return _read_file(parser, Path(text))
    return text


def _read_file(parser: argparse.ArgumentParser, path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        parser.error(f"explain: cannot read {str(path)!r}: {error.strerror or error}")


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    if args.command == "lint":
        return _lint(parser, args)
    from jaxpurity.explainer._explain import explain

    text = _read(parser, args)
    if not text.strip():
        parser.error("explain: no error text given; pass it as an argument or on standard input")
    explanation = explain(text, lang=args.lang or from_locale())
    print(explanation)
    return 0 if explanation.recognised else 1


def console() -> None:
    """The ``jaxpurity`` console script."""
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped reading (``jaxpurity explain ... | head``): stop quietly, as
        # other command-line tools do, and keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 0
    sys.exit(status)


if __name__ == "__main__":
    console()
