"""Command line: ``python -m jaxpurity explain "<error text>"``.

Exit status: 0 when the error is recognised, 1 when it is not, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys

from jaxpurity._explain import explain

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m jaxpurity",
        description="Tools for impure functions and leaked tracers in JAX.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    explain_cmd = commands.add_parser(
        "explain",
        help="say what a JAX error means, why it happened, and how to fix it",
        description="Explain a JAX error: the scenario, the cause, the fix, and the "
        "page of the jaxpurity site to read. Exits 0 when the error is recognised "
        "and 1 when it is not.",
    )
    explain_cmd.add_argument(
        "text",
        nargs="?",
        default="-",
        help="the error: a traceback, a 'Type: message' line or the message alone; "
        "'-' or nothing reads it from standard input",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    text = args.text
    if text == "-":
        if sys.stdin.isatty():
            print("Paste the error, then press Ctrl-D (Ctrl-Z Enter on Windows).", file=sys.stderr)
        text = sys.stdin.read()
    if not text.strip():
        parser.error("explain: no error text given; pass it as an argument or on standard input")
    explanation = explain(text)
    print(explanation)
    return 0 if explanation.recognised else 1


if __name__ == "__main__":
    sys.exit(main())
