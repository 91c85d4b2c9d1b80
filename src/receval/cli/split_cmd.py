"""``receval split``: split an interaction file into train and test files."""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path
from typing import Any

METHODS = ("random", "temporal", "user-temporal", "leave-one-out", "kfold", "cold-start")
_READERS = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet",
            ".jsonl": "jsonl", ".ndjson": "jsonl"}

EPILOG = """examples:
  receval split ratings.csv -o out --method temporal --at 2023-06-01
  receval split ratings.csv -o out --method temporal --quantile 0.8
  receval split ratings.parquet -o out --method leave-one-out --min-user 5
  receval split ratings.csv -o out --method random --test-size 0.2 --per-user --seed 42
  receval split ratings.csv -o out --method kfold --folds 5 --by user
Writes OUT/train.<ext> and OUT/test.<ext> (k-fold: OUT/fold_<i>/train.<ext> ...) and prints
row counts and leakage counts (test rows older than train rows, test-only users and items).
"""


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``split`` subcommand to an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "split",
        help="split interactions into train and test files",
        description="Split an interaction table (CSV, TSV, Parquet or JSONL) into train and "
        "test tables with the same columns. Seeded and deterministic.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from .common import add_debug_flags, add_force_flag, positive_int

    p.add_argument("input", help="interaction file: .csv, .tsv, .parquet or .jsonl "
                   "(compressed or not)")
    p.add_argument("-o", "--output-dir", required=True, help="directory for the output files")
    p.add_argument("--method", choices=METHODS, default="random", help="split method (default: random)")
    m = p.add_argument_group("method options (each applies to the methods it names)")
    m.add_argument("--test-size", type=float,
                   help="random: fraction of rows (or of each user's rows) in test (default 0.2)")
    m.add_argument("--per-user", action="store_true", default=None,
                   help="random: split each user's rows")
    m.add_argument("--at", help="temporal: rows at or after this date/number go to test")
    m.add_argument("--quantile", type=float, help="temporal: cut at this quantile of timestamps")
    m.add_argument("--last-n", type=positive_int,
                   help="user-temporal: each user's last N rows to test")
    m.add_argument("--fraction", type=float,
                   help="user-temporal: each user's last fraction of rows to test")
    m.add_argument("--pick", choices=("last", "random"),
                   help="leave-one-out: which row (default: last)")
    m.add_argument("--min-train", type=int,
                   help="random --per-user, user-temporal, leave-one-out: rows each user keeps "
                        "in train (default 1)")
    m.add_argument("--folds", type=positive_int, help="kfold: number of folds (default 5)")
    m.add_argument("--by", choices=("interaction", "user", "user_interactions"),
                   help="kfold: what is dealt into folds (default interaction)")
    m.add_argument("--test-users", type=float,
                   help="cold-start: fraction (<1) or number (>=1) of users held out "
                        "(default 0.2)")
    m.add_argument("--seed", type=int,
                   help="random, leave-one-out --pick random, kfold, cold-start: random seed "
                        "(default 0)")
    p.add_argument("--min-user", type=int, default=1,
                   help="filter first: keep users with at least this many rows")
    p.add_argument("--min-item", type=int, default=1,
                   help="filter first: keep items with at least this many rows")
    p.add_argument("--iterate", action="store_true",
                   help="repeat the min-user/min-item filter until stable (k-core)")
    p.add_argument("--drop-cold", action="store_true",
                   help="after splitting, drop test rows whose user or item is not in train")
    p.add_argument("--user-col", default="user", help="user id column (default user)")
    p.add_argument("--item-col", default="item", help="item id column (default item)")
    p.add_argument("--timestamp-col", default="timestamp",
                   help="timestamp column of the temporal methods and of the leakage check "
                        "(default timestamp)")
    p.add_argument("--format", choices=("csv", "tsv", "parquet", "jsonl"),
                   help="file format of the outputs (default: the input's)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_force_flag(p)
    add_debug_flags(p, quiet=False)
    p.set_defaults(func=run)
    return p


# method option -> (methods it applies to, default)
METHOD_OPTIONS: dict[str, tuple[tuple[str, ...], Any]] = {
    "test_size": (("random",), 0.2),
    "per_user": (("random",), False),
    "at": (("temporal",), None),
    "quantile": (("temporal",), None),
    "last_n": (("user-temporal",), None),
    "fraction": (("user-temporal",), None),
    "pick": (("leave-one-out",), "last"),
    "min_train": (("random", "user-temporal", "leave-one-out"), 1),
    "folds": (("kfold",), 5),
    "by": (("kfold",), "interaction"),
    "test_users": (("cold-start",), 0.2),
    "seed": (("random", "leave-one-out", "kfold", "cold-start"), 0),
}


def _method_options(args: argparse.Namespace) -> None:
    """Refuse options that the chosen method does not use (a usage error), then fill in the
    defaults of the others."""
    from .common import UsageError

    for dest, (methods, default) in METHOD_OPTIONS.items():
        value = getattr(args, dest)
        if value is not None and args.method not in methods:
            flag = "--" + dest.replace("_", "-")
            raise UsageError(
                f"{flag} does not apply to --method {args.method}; it is an option of "
                f"{' and '.join('--method ' + m for m in methods)}. Remove it, or choose that "
                "method."
            )
        if value is None:
            setattr(args, dest, default)


def _kind(path: Path) -> str | None:
    """The table format of a path by its name (a compression ending looked through)."""
    from ..io.source import strip_compression_suffix

    return _READERS.get(Path(strip_compression_suffix(path.name)).suffix.lower())


def _read(path: Path) -> tuple[Any, str]:
    """The interaction table and its format: by the name, else sniffed from the data (the
    shared reader of :func:`receval.io.files.read_frame`)."""
    from ..errors import InputError
    from ..io.files import detect_format, read_frame

    kind = _kind(path) or detect_format(path)
    if kind not in _READERS.values():
        raise InputError(f"{path}: the input file reads as {kind}; split reads CSV, TSV, "
                         "Parquet or JSON Lines tables.")
    return read_frame(path, format=kind, role="input"), kind


def _write(df: Any, path: Path, kind: str) -> None:
    from ..io.output import atomic_path

    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        if kind == "csv":
            df.to_csv(tmp, index=False)
        elif kind == "tsv":
            df.to_csv(tmp, sep="\t", index=False)
        elif kind == "parquet":
            df.to_parquet(tmp, index=False)
        else:
            df.to_json(tmp, orient="records", lines=True, date_format="iso")


def _outputs(args: argparse.Namespace, kind: str) -> list[Path]:
    """Every file the split will write (k-fold: those of every fold)."""
    folders = ([Path(args.output_dir) / f"fold_{i + 1}" for i in range(args.folds)]
               if args.method == "kfold" else [Path(args.output_dir)])
    return [f / f"{part}.{kind}" for f in folders for part in ("train", "test")]


def _split(df: Any, args: argparse.Namespace) -> list[tuple[str, Any]]:
    from .. import split as S
    from ..errors import InputError

    cols = {"user_col": args.user_col, "item_col": args.item_col}
    ts = args.timestamp_col
    m = args.method
    if m == "random":
        out = S.random_split(df, test_size=args.test_size, per_user=args.per_user,
                             min_train=args.min_train, seed=args.seed, **cols)
    elif m == "temporal":
        at: Any = args.at
        if at is not None and _is_number(at) and not _is_datetime(df, ts):
            at = float(at)
        out = S.temporal_split(df, at=at, quantile=args.quantile, timestamp_col=ts, **cols)
    elif m == "user-temporal":
        out = S.user_temporal_split(df, last_n=args.last_n, fraction=args.fraction,
                                    min_train=args.min_train, timestamp_col=ts, **cols)
    elif m == "leave-one-out":
        out = S.leave_one_out(df, pick=args.pick, min_train=args.min_train, seed=args.seed,
                              timestamp_col=ts if ts in df.columns else None, **cols)
    elif m == "kfold":
        folds = S.kfold_split(df, n_folds=args.folds, by=args.by, seed=args.seed, **cols)
        return [(f"fold_{i + 1}", f) for i, f in enumerate(folds)]
    elif m == "cold-start":
        n = args.test_users
        n = int(n) if n >= 1 and float(n).is_integer() else n
        out = S.cold_start_split(df, test_users=n, seed=args.seed, **cols)
    else:  # pragma: no cover - argparse restricts the choices
        raise InputError(f"unknown method {m!r}")
    return [("", out)]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _is_datetime(df: Any, col: str) -> bool:
    import pandas as pd

    return col in df.columns and pd.api.types.is_datetime64_any_dtype(df[col])


def run(args: argparse.Namespace) -> int:
    """Run ``receval split``; returns 0. Bad input raises a receval error, which the command
    line turns into one line on stderr and exit code 1."""
    import pandas as pd

    from .. import split as S
    from ..errors import InputError
    from .common import protect_inputs

    _method_options(args)
    path = Path(args.input)
    kind = _kind(path)
    if kind is not None:  # refuse before reading: an output over the input is a usage error
        protect_inputs(args, _outputs(args, args.format or kind), [str(path)])
    df, kind = _read(path)
    out_kind = args.format or kind
    ts = args.timestamp_col
    if ts in df.columns and not (
        pd.api.types.is_numeric_dtype(df[ts]) or pd.api.types.is_datetime64_any_dtype(df[ts])
    ):
        try:
            with warnings.catch_warnings():  # format inference notes are not the user's problem
                warnings.simplefilter("ignore", UserWarning)
                df[ts] = pd.to_datetime(df[ts])
        except (ValueError, TypeError) as exc:
            raise InputError(
                f"timestamp column {ts!r} is neither numeric nor parseable as dates."
            ) from exc
    n_in = len(df)
    if args.min_user > 1 or args.min_item > 1:
        df = S.filter_min_interactions(df, min_user=args.min_user, min_item=args.min_item,
                                       iterate=args.iterate, user_col=args.user_col,
                                       item_col=args.item_col)
    parts = _split(df, args)
    summary: dict[str, Any] = {"input_rows": n_in, "rows_after_filter": len(df), "parts": {}}
    has_time = ts in df.columns
    for name, sp_ in parts:
        if args.drop_cold:
            sp_ = S.drop_cold(sp_, user_col=args.user_col, item_col=args.item_col)
        rep = S.check_leakage(sp_, user_col=args.user_col, item_col=args.item_col,
                              timestamp_col=ts if has_time else None, warn=False)
        folder = Path(args.output_dir) / name if name else Path(args.output_dir)
        _write(sp_.train, folder / f"train.{out_kind}", out_kind)
        _write(sp_.test, folder / f"test.{out_kind}", out_kind)
        summary["parts"][name or "split"] = rep.to_dict()

    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"read {summary['input_rows']} rows"
          + (f", {summary['rows_after_filter']} after filtering"
             if summary["rows_after_filter"] != summary["input_rows"] else ""))
    for name, rep in summary["parts"].items():
        problems = {k: v for k, v in rep.items() if k not in ("n_train", "n_test") and v}
        print(f"{name}: train {rep['n_train']} rows, test {rep['n_test']} rows")
        if problems:
            print("  leakage: " + ", ".join(f"{k}={v}" for k, v in problems.items()))
    print(f"wrote {args.output_dir}")
    return 0
