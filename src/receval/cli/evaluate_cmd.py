"""``receval evaluate --run RUN --truth TRUTH -m ndcg@10 ...``: a table of metric means."""

from __future__ import annotations

import argparse
import os
from typing import Any

from .common import (
    FORMATS,
    Formatter,
    Progress,
    add_column_flags,
    add_debug_flags,
    add_output_flags,
    add_policy_flags,
    check_not_empty,
    emit,
    example_epilog,
    keywords_as,
    metric_keys,
    note,
    policies_from,
    positive_int,
    protect_inputs,
    render,
    terminal_width,
)

EXAMPLES = [
    "receval evaluate --run run.parquet --truth test.parquet -m ndcg@10 -m map@100 -m mrr",
    "receval evaluate --run run.csv --truth test.csv -m ndcg@10,P@5,recall@100 --format markdown",
    "receval evaluate --run bm25.run --truth qrels.txt -m ndcg_cut.10 -m AP --ties trec_eval",
    "receval evaluate --run run.tsv --truth test.tsv --user-col uid --item-col iid "
    "--score-col pred -m hit_rate@10",
    "receval evaluate --run big.parquet --truth test.parquet -m ndcg@10 --stream  # grouped file",
    "receval evaluate --run run.csv --truth test.csv -m ndcg@10 --per-user --format csv -o u.csv",
    "receval evaluate --run run.csv --truth test.csv -m ndcg@10 --groups users.csv "
    "--group-col activity  # one row per group too",
    "receval evaluate --run run.csv --truth test.csv -m recall@20 --groups users.parquet "
    "--group-col country --group-col device --format json  # intersections",
    "receval evaluate --engine spark --run s3://b/run.parquet --truth s3://b/test.parquet "
    "-m ndcg@10 --spark-master yarn --spark-conf spark.executor.memory=8g --strategy auto",
]
SPARK_STRATEGIES = ("auto", "lists", "cogroup", "mapInArrow")  # receval.spark.engine.STRATEGIES
#: flags of the Spark engine (attribute, flag), refused without --engine spark
SPARK_FLAGS = (("spark_master", "--spark-master"), ("spark_conf", "--spark-conf"),
               ("buckets", "--buckets"), ("strategy", "--strategy"))
GROUP_FILE_FORMATS = ("csv", "tsv", "parquet", "jsonl")
#: flags that describe the --groups file, refused without it
GROUP_FLAGS = (("group_cols", "--group-col"), ("group_user_col", "--group-user-col"),
               ("groups_format", "--groups-format"))
STREAM_ROWS = 20_000_000  # Parquet runs with more rows are streamed in blocks of users
STREAM_BYTES = 512 << 20  # so are CSV / TSV runs larger than this


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "evaluate", help="evaluate a run against held-out truth",
        description="Evaluate a run file against a truth file and print the mean of every "
                    "metric (or one row per user with --per-user). Files: TREC run/qrels (plain "
                    "or .gz), CSV, TSV, Parquet, JSON Lines; the format comes from the extension. "
                    "Metric names in receval (ndcg@10(gain=exp)), trec_eval (ndcg_cut.10, P.5), "
                    "ir_measures (nDCG@10, AP, RR@10) or ranx (ndcg@10, mrr) style.",
        epilog=example_epilog(EXAMPLES), formatter_class=Formatter,
    )
    p.add_argument("--run", required=True, help="run file (user, item, score | rank)")
    p.add_argument("--truth", required=True, help="truth file (user, item[, relevance])")
    p.add_argument("-m", "--metric", action="append", dest="metrics", metavar="METRIC",
                   required=True, help="metric key (repeatable, or a comma list): ndcg@10, "
                   "map@100, mrr, precision@5(denominator=list), ...")
    p.add_argument("--per-user", action="store_true", help="one row per user")
    p.add_argument("--name", help="label of the run (default: the file name)")
    p.add_argument("--compat", metavar="LIBRARY",
                   help="metric names and policies as LIBRARY defines them (rectools, recbole, "
                        "trec_eval, ...; see `receval metrics --compat LIBRARY`)")
    p.add_argument("--strict", action="store_true",
                   help="with --compat: refuse names that reproduce a known library bug")
    add_output_flags(p, formats=FORMATS)
    add_column_flags(p)
    add_policy_flags(p)
    g = p.add_argument_group("large files")
    g.add_argument("--stream", action="store_true", default=None,
                   help="read the run (Parquet, CSV, TSV, JSON Lines or TREC) in blocks of whole users "
                        "(rows of a user must be contiguous); automatic for Parquet runs over "
                        "20M rows and CSV/TSV/TREC runs over 512 MiB")
    g.add_argument("--no-stream", action="store_false", dest="stream",
                   help="read the whole run at once")
    g.add_argument("--block-rows", type=positive_int, default=1_000_000,
                   help="rows per block when streaming (default 1000000)")
    g = p.add_argument_group("Spark engine (pip install 'receval[spark]')")
    g.add_argument("--engine", choices=("local", "spark"), default="local",
                   help="spark: read --run / --truth with Spark (any path Spark reads: "
                        "Parquet, CSV, JSON; s3://, hdfs://, ...) and evaluate there; the "
                        "flags below need it")
    g.add_argument("--spark-master", default=None, metavar="URL",
                   help="Spark master URL, e.g. local[4], spark://host:7077, yarn (default: "
                        "the spark-submit setting, else local[*])")
    g.add_argument("--spark-conf", action="append", default=[], metavar="KEY=VALUE",
                   type=key_value,
                   help="a Spark configuration entry, e.g. spark.executor.memory=8g "
                        "(repeatable)")
    g.add_argument("--buckets", type=positive_int, default=None,
                   help="user buckets of the Spark engine's bucketed strategies (default: "
                        "max(2 x default parallelism, truth rows / 250000)); with --strategy "
                        "auto it selects one")
    g.add_argument("--strategy", choices=SPARK_STRATEGIES, default=None,
                   help="how Spark hands each task its users: lists (per-user lists joined on "
                        "the user), cogroup (buckets, cogroup + applyInArrow, Spark 4), "
                        "mapInArrow (buckets, a sorted repartition), auto (default: lists; "
                        "with --buckets, cogroup where Spark has it, else mapInArrow); the "
                        "results are identical")
    add_group_flags(p)
    add_debug_flags(p)
    p.set_defaults(func=run)


def add_group_flags(parser: argparse.ArgumentParser) -> None:
    """``--groups FILE --group-col COL [--group-col COL2] [--group-user-col COL]``."""
    g = parser.add_argument_group("user groups (results per group, as if each group were "
                                  "evaluated alone)")
    g.add_argument("--groups", metavar="FILE",
                   help="a table of users and their group(s): CSV, TSV, Parquet or JSON Lines "
                        "(read as the run is: ids in CSV / TSV are text); adds one row per "
                        "group and metric to the output")
    g.add_argument("--group-col", action="append", dest="group_cols", metavar="COL",
                   help="the group column of --groups (repeatable: several columns form their "
                        "intersections, 'FR & mobile'; default: the one column besides the "
                        "user's)")
    g.add_argument("--group-user-col", metavar="COL",
                   help="the user column of --groups (default: user, user_id, qid, ...)")
    g.add_argument("--groups-format", choices=GROUP_FILE_FORMATS,
                   help="format of the --groups file (default: from the extension)")


def key_value(text: str) -> str:
    """A ``--spark-conf`` entry: ``KEY=VALUE`` with a non-empty key."""
    key, sep, _ = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected KEY=VALUE, e.g. spark.sql.shuffle.partitions=200")
    return text


def check_engine_flags(args: argparse.Namespace) -> None:
    """Spark-only flags need ``--engine spark``; ``--stream`` is the local engine's."""
    from .common import UsageError

    engine = getattr(args, "engine", "local")
    if engine != "spark":
        given = [flag for attr, flag in SPARK_FLAGS if getattr(args, attr, None)]
        if given:
            raise UsageError(f"{', '.join(given)} configure the Spark engine; add "
                             "--engine spark, or leave them out.")
    elif getattr(args, "stream", None):
        raise UsageError("--stream reads the run locally in blocks; with --engine spark, Spark "
                         "reads the files: leave --stream out.")


def check_group_flags(args: argparse.Namespace) -> None:
    """``--group-col``, ``--group-user-col`` and ``--groups-format`` describe the ``--groups``
    file; groups are the local engine's."""
    from .common import UsageError

    if getattr(args, "groups", None) is None:
        given = [flag for attr, flag in GROUP_FLAGS if getattr(args, attr, None)]
        if given:
            raise UsageError(f"{', '.join(given)} {'describe' if len(given) > 1 else 'describes'}"
                             " the --groups file; add --groups FILE, or leave "
                             f"{'them' if len(given) > 1 else 'it'} out.")
    elif getattr(args, "engine", "local") == "spark":
        raise UsageError("--groups is evaluated by the local engine only (the Spark engine "
                         "does not split its results by group yet): leave out --engine spark, "
                         "or evaluate without --groups.")


def read_group_file(args: argparse.Namespace) -> Any:
    """The :class:`~receval.io.groups.Membership` of the ``--groups`` file (None without it).

    The file is read as a run file is (:mod:`receval.io.files`: ids in CSV / TSV text, so they
    match the run's ids read from text), then :func:`receval.io.groups.read_groups` maps each
    listed user to the label of its ``--group-col`` column(s). Errors name the file and the
    flags."""
    path = getattr(args, "groups", None)
    if path is None:
        return None
    from ..errors import InputError
    from ..io.files import _read_table, detect_format
    from ..io.groups import read_groups
    from .common import UsageError

    try:
        with keywords_as(format="groups_format"):
            fmt = detect_format(path, args.groups_format, keyword="groups_format")
    except InputError as exc:
        raise InputError(f"--groups: {exc.args[0] if exc.args else exc}") from None
    if fmt == "trec":
        raise UsageError(f"--groups {path}: a groups file is a table (CSV, TSV, Parquet or "
                         "JSON Lines) of users and their groups, not a TREC file; pass "
                         "--groups-format with one of those.")
    try:
        table = _read_table(path, fmt, "groups", (args.group_user_col,),
                            keyword="groups_format")
    except InputError as exc:
        raise InputError(f"--groups: {exc.args[0] if exc.args else exc}") from None
    check_not_empty(table, path, "groups")
    if fmt in ("csv", "tsv"):
        table = _empty_labels_missing(table, args.group_user_col)
    cols = args.group_cols
    if cols:
        cols = [c.strip() for text in cols for c in text.split(",") if c.strip()]
    try:
        return read_groups(table, user_col=args.group_user_col,
                           group_col=(cols[0] if len(cols) == 1 else cols) if cols else None)
    except InputError as exc:
        message = str(exc.args[0]) if exc.args else str(exc)
        raise InputError(_group_message(message, path)) from None


def _empty_labels_missing(table: Any, user_col: str | None) -> Any:
    """An empty cell of a group column of a CSV / TSV file is a missing label (refused, naming
    the column), not a group named ``""``; the user column keeps its text as written."""
    from ..io.frames import USER_NAMES

    names = list(table.column_names) if hasattr(table, "column_names") else list(table.columns)
    if user_col is None:
        lower = {n.lower(): n for n in names}
        user_col = next((lower[c.lower()] for c in USER_NAMES if c.lower() in lower), None)
    if not hasattr(table, "column_names"):  # pandas (no pyarrow): empty cells are NaN already
        return table
    import pyarrow as pa
    import pyarrow.compute as pc

    for i, name in enumerate(names):
        column = table.column(i)
        if name == user_col or not (pa.types.is_string(column.type)
                                    or pa.types.is_large_string(column.type)):
            continue
        blank = pc.equal(column, "")
        if pc.any(blank).as_py():
            table = table.set_column(i, table.schema.field(i),
                                     pc.if_else(blank, pa.scalar(None, column.type), column))
    return table


def _group_message(message: str, path: str) -> str:
    """A message of :func:`receval.io.groups.read_groups` as the command line says it: the
    file named, and its keywords as the flags that fill them."""
    import re

    if message.startswith("groups:"):
        message = f"--groups {path}:" + message[len("groups:"):]
    message = message.replace("given as user_col", "given as --group-user-col")
    message = message.replace("groups has no such group column",
                              f"the --groups file {path} has no such column")
    message = message.replace("group_col=[...]", "--group-col COL --group-col COL2")
    message = message.replace("(a name, or a list of names for their intersections)",
                              "(repeat it for the intersections of several columns)")
    message = re.sub(r"(?<![\w.@(,=\-])user_col=(\.\.\.)?", "--group-user-col COL", message)
    return re.sub(r"(?<![\w.@(,=\-])group_col=", "--group-col ", message)


def group_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """``{"groups": membership}`` for ``--groups``, else nothing."""
    membership = read_group_file(args)
    return {} if membership is None else {"groups": membership}


def _should_stream(args: argparse.Namespace) -> bool:
    if args.stream is not None:
        return bool(args.stream)
    from ..io.files import detect_format

    try:
        fmt = detect_format(args.run, args.run_format, keyword="run_format")
        if fmt == "parquet":
            from ..io.files import count_rows

            return (count_rows(args.run, fmt) or 0) > STREAM_ROWS
        return fmt in ("csv", "tsv", "trec") and os.path.getsize(args.run) > STREAM_BYTES
    except Exception:
        return False


def evaluate_files(args: argparse.Namespace):
    """The EvalResult of the run and truth files named by ``args``: the metrics, policies and
    ``compat=`` go down as keyword arguments, and the engine resolves the preset's names."""
    compat = getattr(args, "compat", None)
    setup = {"compat": compat, "strict": getattr(args, "strict", False),
             **policies_from(args)}
    # without a preset, any naming style of receval's own keys; with one, the library's names
    metrics = list(args.metrics or []) if compat else metric_keys(args.metrics)
    name = args.name or os.path.basename(args.run)
    if getattr(args, "engine", "local") == "spark":
        from ..spark.session import evaluate_paths

        return evaluate_paths(
            args.run, args.truth, metrics, name=name, master=args.spark_master,
            conf=args.spark_conf, run_format=args.run_format, truth_format=args.truth_format,
            user_col=args.user_col, item_col=args.item_col, score_col=args.score_col,
            rank_col=args.rank_col, rel_col=args.rel_col, truth_user_col=args.truth_user_col,
            truth_item_col=args.truth_item_col, buckets=args.buckets,
            strategy=getattr(args, "strategy", None) or "auto",
            per_user="pandas" if args.per_user else None, **setup)
    setup.update(group_kwargs(args))
    if _should_stream(args):
        return _stream_files(args, metrics, setup, name)
    import receval as rv

    from .common import read_inputs

    run, truth = read_inputs(args)
    kwargs = {}
    if getattr(run, "columns", None) is not None and "qid" in list(run.columns) and \
            "docno" in list(run.columns):
        # TREC run: the score orders the list (trec_eval ignores the rank column)
        kwargs = {"rank_col": "rank"} if args.rank_col else {"score_col": "score"}
    return rv.evaluate(run, truth, metrics, name=name, **kwargs, **setup)


def _stream_files(args: argparse.Namespace, metrics: list, setup: dict[str, Any], name: str):
    """The run streamed in blocks of users against the packed truth."""
    from ..evaluate import stream_blocks
    from ..io.files import count_rows, detect_format

    ev = _packed_truth(args, metrics, setup)
    with keywords_as(format="run_format"):
        fmt = detect_format(args.run, args.run_format)
        bar = Progress(count_rows(args.run, fmt), enabled=not args.quiet)
        try:
            return stream_blocks(ev, args.run, format=fmt, name=name, user_col=args.user_col,
                                 item_col=args.item_col, score_col=args.score_col,
                                 rank_col=args.rank_col, block_rows=args.block_rows,
                                 progress=bar)
        finally:
            bar.close()


def _packed_truth(args: argparse.Namespace, metrics: list, setup: dict[str, Any]):
    """The Evaluator of the truth file; the truth table is freed once packed, and so is the
    memory pyarrow keeps from reading it."""
    import receval as rv

    from ..io.files import detect_format, read_truth

    with keywords_as(format="truth_format"):
        fmt = detect_format(args.truth, args.truth_format)
        truth = read_truth(args.truth, format=fmt,
                           user_col=args.truth_user_col or args.user_col,
                           item_col=args.truth_item_col or args.item_col, rel_col=args.rel_col)
    check_not_empty(truth, args.truth, "truth")
    truth = _one_chunk(truth)
    _release_arrow_memory()
    ev = rv.Evaluator(truth, metrics, user_col=args.user_col, item_col=args.item_col, **setup)
    del truth
    _release_arrow_memory()
    return ev


def _one_chunk(table: Any) -> Any:
    """A pyarrow Table with each column in one chunk (one column at a time: memory grows by a
    column at most), so that packing reads its columns in place instead of copying them;
    anything else as given."""
    if not type(table).__module__.startswith("pyarrow"):
        return table
    import pyarrow as pa

    for i in range(table.num_columns):
        column = table.column(i)
        if column.num_chunks > 1:
            try:
                table = table.set_column(i, table.schema.field(i), column.combine_chunks())
            except pa.ArrowInvalid:  # e.g. over 2 GiB of text in one string column
                pass
        del column
    return table


def _release_arrow_memory() -> None:
    """Hand the memory that pyarrow's pool keeps after frees back to the system (where pyarrow
    is loaded)."""
    import sys

    if "pyarrow" in sys.modules:
        sys.modules["pyarrow"].default_memory_pool().release_unused()


def run(args: argparse.Namespace) -> int:
    check_engine_flags(args)
    check_group_flags(args)
    protect_inputs(args, [args.output], [args.run, args.truth, getattr(args, "groups", None)])
    res = evaluate_files(args)
    digits = args.digits
    grouped = bool(res.group_stats)
    if grouped:
        _group_notes(args, res)
    if args.per_user:
        headers = ["user"] + (["group"] if grouped else []) + list(res.metrics)
        groups = res.group_of.tolist() if grouped and res.group_of is not None else None
        rows = [[u] + ([groups[i]] if groups is not None else []) + [float(v) for v in row]
                for i, (u, row) in enumerate(zip(res.user_ids.tolist(), res.values.tolist(),
                                                 strict=True))]
        text = render(headers, rows, args.format, digits=digits,
                      width=terminal_width(args.output))
    elif args.format == "json":
        text = res.to_json(indent=2)  # the document EvalResult.from_json / rv.load_report read
    elif grouped and args.format == "csv":
        text = _group_csv(res)
    else:
        headers = ["metric", "mean", "std", "se", "n", "skipped"]
        rows = [[r["metric"], float(r["mean"]), float(r["std"]), float(r["se"]), int(r["n"]),
                 int(r["skipped"])] for r in res.stats]
        footer = None
        if args.format == "table":
            from ..results.result import users_summary

            footer = f"users: {users_summary(res.counts)}"
        text = render(headers, rows, args.format, digits=digits, footer=footer,
                      width=terminal_width(args.output))
        if grouped:
            text += "\n\n" + _group_table(args, res)
    emit(text, args.output)
    return 0


#: columns of the per-group table (text formats); CSV and JSON carry every column
GROUP_TABLE = ["group", "metric", "mean", "ci_low", "ci_high", "n", "skipped", "users",
               "missing_from_run"]


def _group_table(args: argparse.Namespace, res: Any) -> str:
    """The per-group table (one row per group and metric, the 95% Student-t interval of the
    mean) under the summary, with the group counts as its footer in the terminal table."""
    frame = res.by_group
    rows = [[_cell(v) for v in row] for row in frame[GROUP_TABLE].itertuples(index=False)]
    info = res.info.get("groups", {})
    footer = "groups: " + _group_counts(info) if args.format == "table" else None
    text = render(list(GROUP_TABLE), rows, args.format, digits=args.digits, footer=footer,
                  width=terminal_width(args.output))
    if args.format in ("plain", "markdown"):
        text = f"by group ({_group_counts(info)}):\n\n" + text
    return text


def _cell(value: Any) -> Any:
    """A pandas / numpy value as the table writers take it (int, float or str)."""
    if hasattr(value, "item"):
        value = value.item()
    return value


def _group_counts(info: dict[str, Any]) -> str:
    columns = info.get("columns") or []
    sizes = info.get("sizes", {})
    return (f"{len(sizes)} group(s)"
            + (f" of {' & '.join(columns)}" if columns else "")
            + f", {sum(sizes.values())} users grouped, {info.get('ungrouped', 0)} evaluated "
            f"without a group, {info.get('listed_not_evaluated', 0)} listed not evaluated")


def _group_csv(res: Any) -> str:
    """One CSV table: the rows of all users (``group`` empty) and then each group's rows,
    every column of :attr:`~receval.EvalResult.by_group`."""
    from ..results.intervals import t_bounds

    frame = res.by_group
    headers = list(frame.columns)
    rows: list[list[Any]] = []
    for r in res.stats:
        n = int(r["n"])
        lo = hi = float("nan")
        if n > 1 and r["se"] == r["se"]:
            from ..results.groups import _mean_over_users

            if _mean_over_users(r["metric"]):
                lo, hi = (float(v) for v in t_bounds(r["mean"], r["se"], n, level=0.95))
        row = {"group": "", "metric": r["metric"], "mean": float(r["mean"]),
               "std": float(r["std"]), "se": float(r["se"]), "ci_low": lo, "ci_high": hi,
               "n": n, "skipped": int(r["skipped"]), "users": int(res.counts["evaluated"]),
               "missing_from_run": int(res.counts.get("missing_from_run", 0))}
        rows.append([row[h] for h in headers])
    rows += [[_cell(v) for v in row] for row in frame.itertuples(index=False)]
    return render(headers, rows, "csv")


def _group_notes(args: argparse.Namespace, res: Any) -> None:
    """Notes on stderr when the groups file and the run barely meet: no listed user evaluated
    (ids of two kinds, e.g. text against numbers?), or evaluated users without a group."""
    info = res.info.get("groups", {})
    listed = int(info.get("users_listed", 0))
    grouped = sum(info.get("sizes", {}).values())
    ungrouped = int(info.get("ungrouped", 0))
    if listed and not grouped:
        note(args, f"none of the {listed} users of --groups {args.groups} was evaluated: are "
                   "the ids the run's (text against numbers, another prefix)? Every evaluated "
                   "user is counted without a group.")
    elif ungrouped:
        note(args, f"{ungrouped} evaluated user(s) are in no group of --groups {args.groups}; "
                   "they count in the summary, in no group's row.")
