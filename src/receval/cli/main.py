"""Argument parsing and dispatch of the ``receval`` command.

Exit codes: 0 success, 1 bad input (one line on stderr naming the file, line or column, the
value and the fix; a traceback only with ``--debug``), 2 bad usage (argparse's usage errors, and
an output that would overwrite an input without ``--force``).
"""

from __future__ import annotations

import argparse
import importlib
import sys

# sub-command modules, in help order; missing optional ones are simply absent
COMMANDS = ("evaluate", "trec", "compare", "metrics", "explain", "split", "demo", "online",
            "diff")

DESCRIPTION = """\
Offline evaluation of recommender systems and ranked retrieval.

examples:
  receval evaluate --run run.parquet --truth test.csv -m ndcg@10 -m map@100,mrr
  receval trec qrels.txt bm25.run -m map -m ndcg_cut.10 -m P.5 -q
  receval metrics --verbose
  receval explain ndcg@10 --run run.csv --truth test.csv --user 42
"""


def _version() -> str:
    from .._version import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="receval", description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"receval {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"receval.cli.{name}_cmd")
        except ImportError as exc:
            if getattr(exc, "name", None) == f"receval.cli.{name}_cmd":
                continue  # optional command not installed
            raise
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``) and run the sub-command."""
    from .common import run_command

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help / --version (0) and usage errors (2)
        return int(exc.code) if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    return run_command(args, subparser(parser, args.command))


def subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser | None:
    """The parser of sub-command ``name``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices.get(name)
    return None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
