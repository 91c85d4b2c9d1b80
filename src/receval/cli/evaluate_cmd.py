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
    "receval evaluate --engine spark --run s3://b/run.parquet --truth s3://b/test.parquet "
    "-m ndcg@10 --spark-master yarn --spark-conf spark.executor.memory=8g --strategy auto",
]
SPARK_STRATEGIES = ("auto", "lists", "cogroup", "mapInArrow")  # receval.spark.engine.STRATEGIES
#: flags of the Spark engine (attribute, flag), refused without --engine spark
SPARK_FLAGS = (("spark_master", "--spark-master"), ("spark_conf", "--spark-conf"),
               ("buckets", "--buckets"), ("strategy", "--strategy"))
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
    add_debug_flags(p)
    p.set_defaults(func=run)


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
    protect_inputs(args, [args.output], [args.run, args.truth])
    res = evaluate_files(args)
    digits = args.digits
    if args.per_user:
        headers = ["user"] + list(res.metrics)
        rows = [[u] + [float(v) for v in row]
                for u, row in zip(res.user_ids.tolist(), res.values.tolist(), strict=True)]
        text = render(headers, rows, args.format, digits=digits,
                      width=terminal_width(args.output))
    elif args.format == "json":
        text = res.to_json(indent=2)  # the document EvalResult.from_json / rv.load_report read
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
    emit(text, args.output)
    return 0
