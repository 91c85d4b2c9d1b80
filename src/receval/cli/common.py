"""Shared helpers of the sub-commands: common flags, error reporting, output formats, progress.

Nothing heavy is imported at module level (start-up time matters for a command line).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..policies import POLICY_CHOICES
from ..report.tables import fmt_value, render  # noqa: F401  (re-exported for the commands)

FORMATS = ("table", "markdown", "csv", "json", "latex")
FILE_FORMATS = ("trec", "csv", "tsv", "parquet", "jsonl")

POLICY_FLAGS = POLICY_CHOICES  # one source of truth: receval.policies
POLICY_HELP = {
    "ties": "order of tied scores: id = item id ascending (default), average = expected value "
            "over tie orders, trec_eval = score as float32 then item id descending",
    "users": "users evaluated: truth (default; a user without a list scores 0), run, union, "
             "intersection",
    "empty_truth": "a user with no relevant truth item: skip (default, counted), zero, nan, error",
    "duplicates": "repeated (user, item) rows: error (default), first, max",
    "nan_scores": "NaN/inf scores: error (default), drop, last",
    "negative_rel": "relevance below 0: error (default), zero (judged non-relevant), drop "
                    "(unjudged)",
    "unjudged": "recommended items without a truth row: keep (default, non-relevant), remove "
                "(condensed lists: ir_measures judged_only, trec_eval -J)",
}


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the examples in descriptions as written."""


def add_debug_flags(parser: argparse.ArgumentParser, *, quiet: bool = True) -> None:
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback on errors")
    if quiet:
        parser.add_argument("-Q", "--quiet", action="store_true",
                            help="no progress bar or notes on stderr")


def add_output_flags(parser: argparse.ArgumentParser, *, formats: Sequence[str] = FORMATS) -> None:
    parser.add_argument("--format", choices=list(formats), default=formats[0],
                        help=f"output format (default {formats[0]})")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the output to FILE instead of stdout")
    parser.add_argument("--digits", type=int, default=4,
                        help="decimals shown in table / markdown / latex output (default 4)")


def add_column_flags(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("files and columns")
    g.add_argument("--run-format", choices=FILE_FORMATS,
                   help="format of the run file (default: from the extension)")
    g.add_argument("--truth-format", choices=FILE_FORMATS,
                   help="format of the truth file (default: from the extension)")
    g.add_argument("--user-col", help="user / query id column (default: user, user_id, qid, ...)")
    g.add_argument("--item-col", help="item / document id column (default: item, item_id, docno, "
                                      "...)")
    g.add_argument("--score-col", help="score column of the run, higher is better")
    g.add_argument("--rank-col", help="rank column of the run, 1 = best (instead of a score)")
    g.add_argument("--rel-col", help="relevance column of the truth (default: relevance, rel, "
                                     "label, rating; absent = every row relevant)")
    g.add_argument("--truth-user-col", help="user column of the truth when it differs")
    g.add_argument("--truth-item-col", help="item column of the truth when it differs")


def add_policy_flags(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("policies (see `receval metrics --verbose`)")
    for name, choices in POLICY_FLAGS.items():
        g.add_argument("--" + name.replace("_", "-"), dest=name, choices=choices,
                       default=None, help=POLICY_HELP[name])


def policies_from(args: argparse.Namespace) -> dict[str, str]:
    return {name: getattr(args, name) for name in POLICY_FLAGS
            if getattr(args, name, None) is not None}


def read_inputs(args: argparse.Namespace) -> tuple[Any, Any]:
    """Read --run and --truth with the column and format flags."""
    from ..io.files import read_run, read_truth

    truth = read_truth(args.truth, format=args.truth_format,
                       user_col=args.truth_user_col or args.user_col,
                       item_col=args.truth_item_col or args.item_col, rel_col=args.rel_col)
    run = read_run(args.run, format=args.run_format, user_col=args.user_col,
                   item_col=args.item_col, score_col=args.score_col, rank_col=args.rank_col)
    check_not_empty(truth, args.truth, "truth")
    check_not_empty(run, args.run, "run")
    return run, truth


def check_not_empty(table: Any, path: str, role: str) -> None:
    """An empty input file is almost always a mistake: say so, naming the file."""
    from ..errors import InputError

    n = table.num_rows if hasattr(table, "num_rows") else len(table)
    if n == 0:
        raise InputError(f"{path}: the {role} file has no rows; check the file (or the path).")


def metric_keys(values: Sequence[str] | None, default: Sequence[str] = ()) -> list[str]:
    """Canonical keys of ``-m`` values (repeatable, comma lists, any naming style)."""
    from ..metrics import canonical_keys

    return canonical_keys(list(values) if values else list(default))


# ---- errors -------------------------------------------------------------------------------
def error(message: str) -> None:
    print(f"receval: error: {message}", file=sys.stderr)


def run_command(args: argparse.Namespace) -> int:
    """Run ``args.func(args)``; turn expected errors into one line on stderr and exit code 1."""
    from ..errors import RecevalError

    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        error("interrupted")
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        except OSError:
            pass
        return 0
    except (RecevalError, ValueError, KeyError, OSError, ImportError) as exc:
        if getattr(args, "debug", False):
            raise
        msg = str(exc) if not isinstance(exc, KeyError) or isinstance(exc, RecevalError) \
            else str(exc.args[0]) if exc.args else repr(exc)
        if isinstance(exc, OSError) and not isinstance(exc, RecevalError):
            msg = f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc)
        error(" ".join(msg.split()) + " (use --debug for the traceback)")
        return 1


# ---- output -------------------------------------------------------------------------------
def emit(text: str, output: str | None) -> None:
    """Print ``text`` (with a final newline) to stdout or write it to ``output``."""
    if output:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text + ("\n" if not text.endswith("\n") else ""))
    else:
        sys.stdout.write(text + ("\n" if not text.endswith("\n") else ""))
        sys.stdout.flush()


def note(args: argparse.Namespace, message: str) -> None:
    """A note on stderr unless --quiet."""
    if not getattr(args, "quiet", False):
        print(f"receval: {message}", file=sys.stderr)


# ---- progress -----------------------------------------------------------------------------
class Progress:
    """A one-line progress bar on stderr, shown only on a terminal, after ``delay`` seconds."""

    def __init__(self, total: int | None, *, label: str = "rows", enabled: bool = True,
                 delay: float = 1.0, stream: Any = None) -> None:
        self.stream = stream or sys.stderr
        self.total = total
        self.label = label
        self.enabled = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.perf_counter()
        self.delay = delay
        self.shown = False

    def __call__(self, done: int) -> None:
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        if elapsed < self.delay:
            return
        self.shown = True
        if self.total:
            frac = min(done / self.total, 1.0)
            bar = "#" * int(30 * frac)
            text = f"\r[{bar:<30}] {100 * frac:5.1f}% {done:,} {self.label} {elapsed:6.1f}s"
        else:
            text = f"\r{done:,} {self.label} {elapsed:6.1f}s"
        self.stream.write(text)
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def example_epilog(lines: Sequence[str]) -> str:
    return "examples:\n" + "\n".join("  " + s for s in lines)


Handler = Callable[[argparse.Namespace], int]
