"""``receval diff --run RUN --truth TRUTH -m METRIC --a LIB --b LIB``: why two numbers differ."""

from __future__ import annotations

import argparse

from .common import (
    Formatter,
    add_column_flags,
    add_debug_flags,
    add_force_flag,
    add_format_flag,
    emit,
    example_epilog,
    protect_inputs,
    read_inputs,
    trec_score_column,
)

EXAMPLES = [
    "receval diff --run run.csv --truth test.csv -m ndcg@10 -m map@10 --a trec_eval --b rectools",
    "receval diff --run run.csv --truth test.csv -m ndcg@10 --a recbole --b lenskit "
    "--format markdown",
    "receval diff --run run.csv --truth test.csv -m map@20 --b rectools --format html -o diff.html",
]


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "diff", help="why a metric differs between two libraries' conventions",
        description="Evaluate the metrics under two convention sets (library presets, or "
                    "receval's defaults when omitted), then split each difference over the "
                    "conventions that differ: one at a time in order, and the order-free "
                    "Shapley attribution; list the users whose values change most and explain "
                    "the difference in a paragraph.",
        epilog=example_epilog(EXAMPLES), formatter_class=Formatter,
    )
    p.add_argument("--run", required=True, help="run file (user, item, score | rank)")
    p.add_argument("--truth", required=True, help="truth file (user, item[, relevance])")
    p.add_argument("-m", "--metric", action="append", dest="metrics", metavar="METRIC",
                   required=True, help="metric name (repeatable, or a comma list)")
    p.add_argument("--a", metavar="LIBRARY", help="first preset (default: receval's defaults)")
    p.add_argument("--b", metavar="LIBRARY", help="second preset (default: receval's defaults)")
    p.add_argument("--top", type=int, default=5, help="users listed per metric (default 5)")
    add_format_flag(p, ("table", "markdown", "html"),
                    help="output format: table (plain text), markdown or html (default table)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    add_force_flag(p)
    add_column_flags(p)
    add_debug_flags(p, quiet=False)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..compat import split_names
    from ..difference import diff

    protect_inputs(args, [args.output], [args.run, args.truth])
    run_data, truth = read_inputs(args)
    kwargs = trec_score_column(args, run_data)
    d = diff(run_data, truth, split_names(args.metrics), args.a, args.b, top=args.top,
             **kwargs)
    text = {"table": d.to_text, "markdown": d.to_markdown, "html": d.to_html}[args.format]()
    emit(text, args.output)
    return 0
