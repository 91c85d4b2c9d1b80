"""Shared helpers of the sub-commands: common flags, error reporting, output formats, progress.

Nothing heavy is imported at module level (start-up time matters for a command line).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..errors import IN_MEMORY, RecevalError
from ..policies import POLICY_TABLE
from ..report.tables import fmt_value, render  # noqa: F401  (re-exported for the commands)

# Output formats: one set of names for every sub-command (each offers the ones it can write).
# table = the terminal table (box-drawn with rich when installed), plain = plain text.
OUTPUT_FORMATS = ("table", "plain", "markdown", "latex", "csv", "json", "html")
FORMAT_ALIASES = {"text": "table", "rich": "table", "txt": "plain", "md": "markdown",
                  "tex": "latex", "htm": "html"}
FORMATS = ("table", "plain", "markdown", "latex", "csv", "json")  # evaluate's
FILE_FORMATS = ("trec", "csv", "tsv", "parquet", "jsonl")


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the examples in descriptions as written."""


class UsageError(RecevalError):
    """The command line was used wrongly (exit code 2, as argparse's usage errors)."""


def add_debug_flags(parser: argparse.ArgumentParser, *, quiet: bool = True) -> None:
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback on errors")
    if quiet:
        parser.add_argument("-Q", "--quiet", action="store_true",
                            help="no progress bar or notes on stderr")


def add_force_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--force", action="store_true",
                        help="write the output even over one of the input files")


def digits(text: str) -> int:
    """argparse type of --digits: an integer from 0 to 17 (float64 has 17 significant digits)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of decimals, got {text!r}") \
            from None
    if not 0 <= value <= 17:
        raise argparse.ArgumentTypeError(f"must be between 0 and 17, got {value}")
    return value


def _int_at_least(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
    return value


def positive_int(text: str) -> int:
    """argparse type of counts that must be at least 1."""
    return _int_at_least(text, 1)


def nonnegative_int(text: str) -> int:
    """argparse type of whole numbers >= 0 (random seeds)."""
    return _int_at_least(text, 0)


def output_format(choices: Sequence[str]) -> Callable[[str], str]:
    """argparse type of --format: one of ``choices`` (names shared by every sub-command;
    ``text``, ``md``, ``tex`` ... accepted as aliases)."""
    def parse(text: str) -> str:
        name = FORMAT_ALIASES.get(text.lower(), text.lower())
        if name not in choices:
            raise argparse.ArgumentTypeError(
                f"invalid choice: {text!r} (choose from {', '.join(choices)})")
        return name

    return parse


def add_format_flag(parser: argparse.ArgumentParser, choices: Sequence[str], *,
                    default: str | None = None, help: str | None = None) -> None:
    default = default or choices[0]
    parser.add_argument("--format", type=output_format(choices), default=default,
                        metavar="{" + ",".join(choices) + "}",
                        help=help or f"output format (default {default})")


def add_output_flags(parser: argparse.ArgumentParser, *, formats: Sequence[str] = FORMATS) -> None:
    add_format_flag(parser, formats)
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the output to FILE instead of stdout")
    add_force_flag(parser)
    parser.add_argument("--digits", type=digits, default=4,
                        help="decimals shown in table / markdown / latex output (default 4)")


def protect_inputs(args: argparse.Namespace, outputs: Sequence[Any],
                   inputs: Sequence[Any]) -> None:
    """Refuse (:class:`UsageError`, exit 2) to write an output over an input file (the same
    file by path, symlink or hard link) unless ``--force``."""
    from ..io.output import same_file

    if getattr(args, "force", False):
        return
    for out in outputs:
        for inp in inputs:
            if out and inp and os.path.exists(inp) and same_file(out, inp):
                raise UsageError(
                    f"the output {os.fspath(out)!r} is the input file {os.fspath(inp)!r}; "
                    "refusing to overwrite it (choose another output, or pass --force)."
                )


def input_paths(args: argparse.Namespace, *names: str) -> list[str]:
    """The input files named by ``args`` (attributes ``names``; lists flattened)."""
    out: list[str] = []
    for n in names:
        v = getattr(args, n, None)
        if isinstance(v, (list, tuple)):
            out += [x for x in v if x]
        elif v:
            out.append(v)
    return out


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
    for p in POLICY_TABLE.values():  # None: not given (a preset's policy, or the default)
        g.add_argument(p.flag, dest=p.name, choices=p.values, default=None, help=p.cli_help)


def policies_from(args: argparse.Namespace) -> dict[str, str]:
    """The policies given on the command line, by keyword."""
    return {name: getattr(args, name) for name in POLICY_TABLE
            if getattr(args, name, None) is not None}


def read_inputs(args: argparse.Namespace) -> tuple[Any, Any]:
    """Read --run and --truth with the column and format flags."""
    from ..io.files import read_run, read_truth

    with keywords_as(format="truth_format", user_col="truth_user_col",
                     item_col="truth_item_col"):
        truth = read_truth(args.truth, format=args.truth_format,
                           user_col=args.truth_user_col or args.user_col,
                           item_col=args.truth_item_col or args.item_col, rel_col=args.rel_col)
    with keywords_as(format="run_format"):
        run = read_run(args.run, format=args.run_format, user_col=args.user_col,
                       item_col=args.item_col, score_col=args.score_col,
                       rank_col=args.rank_col)
    check_not_empty(truth, args.truth, "truth")
    check_not_empty(run, args.run, "run")
    return run, truth


@contextlib.contextmanager
def keywords_as(**renames: str) -> Iterator[None]:
    """Errors raised inside name a library keyword (``format=``) that this command line
    fills from a flag of another name: rename the keyword to the flag's dest
    (``truth_format=``), which :func:`cli_message` then writes as the flag."""
    try:
        yield
    except RecevalError as exc:
        message = str(exc.args[0]) if exc.args else str(exc)
        pattern = re.compile(r"(?<![\w.@(,=\-])(" + "|".join(map(re.escape, renames)) + r")=")
        renamed = pattern.sub(lambda m: renames[m.group(1)] + "=", message)
        if renamed == message:
            raise
        try:
            new = type(exc)(renamed, *exc.args[1:])
        except Exception:  # an error class with another signature: keep it as it is
            raise exc from None
        raise new from exc


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


# Python parameter names whose CLI flag is not the flag of the same dest
PARAM_FLAGS = {"n_resamples": "--resamples", "rng": "--seed", "n_folds": "--folds"}


class FlagNames(dict):
    """Python parameter name -> the sub-command's flag; ``switches``: the parameters whose
    flag takes no value (``store_true``: ``strict=True`` is ``--strict``)."""

    switches: set[str]


def flag_names(parser: argparse.ArgumentParser | None) -> FlagNames:
    """Python parameter name -> the sub-command's flag (from its options and their dests)."""
    out = FlagNames(PARAM_FLAGS)
    out.switches = set()
    if parser is None:
        return out
    for action in parser._actions:
        longs = [o for o in action.option_strings if o.startswith("--")]
        flag = (longs or action.option_strings or [None])[0]
        if flag and action.dest not in ("help", "version") and action.dest not in out:
            out[action.dest] = flag
            if isinstance(action, argparse._StoreTrueAction):
                out.switches.add(action.dest)
    return out


def cli_message(message: str, flags: dict[str, str]) -> str:
    """A receval error message as the command line says it: one line, parameters named by
    their flags (``at='x'`` -> ``--at 'x'``)."""
    message = " ".join(message.split())
    if "stream" in flags:  # the library's advice to evaluate without blocks, as a flag
        message = message.replace(IN_MEMORY, f"evaluate it without {flags['stream']}")
    for dest in sorted(getattr(flags, "switches", ())):  # an on/off flag takes no value
        message = re.sub(rf"(?<![\w.@(,=\-]){re.escape(dest)}=(True|False)\b",
                         lambda m, d=dest: flags[d] if m.group(1) == "True"
                         else f"without {flags[d]}", message)
    names = sorted((n for n in flags if n), key=len, reverse=True)
    if not names:
        return message
    pattern = re.compile(r"(?<![\w.@(,=\-])(" + "|".join(map(re.escape, names)) + r")=(?!=)")
    return pattern.sub(lambda m: flags[m.group(1)] + " ", message)


def run_command(args: argparse.Namespace, parser: argparse.ArgumentParser | None = None) -> int:
    """Run ``args.func(args)``; turn errors into one line on stderr: exit code 2 for usage
    errors, 1 for anything else (bad input, a missing file or extra, and, as the last resort, an
    unexpected exception). A traceback only with ``--debug``."""
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
    except Exception as exc:
        if getattr(args, "debug", False):
            raise
        flags = flag_names(parser)
        if isinstance(exc, RecevalError) or isinstance(exc, (ValueError, ImportError)):
            msg = str(exc)
        elif isinstance(exc, KeyError):
            msg = str(exc.args[0]) if exc.args else repr(exc)
        elif isinstance(exc, OSError):
            msg = f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc)
        else:  # a bug: still one line, and how to see (and report) it
            msg = (f"unexpected {type(exc).__name__}: {exc}. This is a bug in receval; please "
                   "report it with the traceback that --debug shows")
        quiet = isinstance(exc, UsageError) or msg.endswith("--debug shows")
        error(cli_message(msg or type(exc).__name__, flags)
              + ("" if quiet else " (use --debug for the traceback)"))
        return 2 if isinstance(exc, UsageError) else 1


# ---- output -------------------------------------------------------------------------------
def emit(text: str, output: str | None) -> None:
    """Print ``text`` (with a final newline) to stdout or write it to ``output`` (atomically:
    a failure leaves the previous file as it was)."""
    text = text + ("\n" if not text.endswith("\n") else "")
    if output:
        from ..io.output import write_text

        write_text(output, text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


def terminal_width(output: str | None = None) -> int | None:
    """The width to fit a table printed to the terminal: ``$COLUMNS`` or the terminal's
    width; None (no limit) when the output goes to a file or a pipe."""
    if output:
        return None
    if os.environ.get("COLUMNS", "").isdigit() or sys.stdout.isatty():
        return max(20, shutil.get_terminal_size().columns)
    return None


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


def trec_score_column(args: argparse.Namespace, run_data: Any) -> dict[str, str]:
    """``{"score_col": "score"}`` for a run read from a TREC file (``qid``/``docno`` columns,
    where the rank column is informational and the score orders), unless a column was named."""
    cols = list(getattr(run_data, "columns", []))
    if "qid" in cols and "docno" in cols and args.score_col is None and args.rank_col is None:
        return {"score_col": "score"}
    return {}
