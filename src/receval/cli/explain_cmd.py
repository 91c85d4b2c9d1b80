"""``receval explain METRIC --run RUN --truth TRUTH --user U``: one value, step by step."""

from __future__ import annotations

import argparse

from .common import (
    Formatter,
    add_column_flags,
    add_debug_flags,
    add_force_flag,
    add_format_flag,
    digits,
    emit,
    example_epilog,
    policies_from,
    protect_inputs,
    read_inputs,
    trec_score_column,
)

EXAMPLES = [
    "receval explain ndcg@10 --run run.csv --truth test.csv --user 42",
    "receval explain map@100 --run bm25.run --truth qrels.txt --user 301 --ties trec_eval",
    "receval explain mrr --run run.parquet --truth test.parquet --user alice --format markdown",
    "receval explain 'ndcg@5(gain=exp)' --run run.csv --truth test.csv --user 7 --format json",
]


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "explain", help="show how one metric value is made for one user, position by position",
        description="Recompute one metric for one user in plain steps: the list in tie-policy "
                    "order with relevance, gain, discount, contribution and running sum; the "
                    "ideal list and its DCG; P@k at each hit for AP; the first hit for MRR (each "
                    "metric shows its own steps; one without a rule shows its list and "
                    "receval's value). The result is checked against receval's evaluate (both "
                    "shown if they differ).",
        epilog=example_epilog(EXAMPLES), formatter_class=Formatter,
    )
    p.add_argument("metric", help="metric key in any style: ndcg@10, AP, RR@10, ndcg_cut.10")
    p.add_argument("--run", required=True, help="run file")
    p.add_argument("--truth", required=True, help="truth file")
    p.add_argument("--user", required=True, help="the user (or query) id")
    add_format_flag(p, ("table", "markdown", "json"))
    p.add_argument("--digits", type=digits, default=4, help="decimals in the tables (default 4)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    add_force_flag(p)
    add_column_flags(p)
    from .common import add_policy_flags

    add_policy_flags(p)
    add_debug_flags(p, quiet=False)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..explain import explain

    protect_inputs(args, [args.output], [args.run, args.truth])
    run_data, truth = read_inputs(args)
    kwargs = trec_score_column(args, run_data)
    ex = explain(args.metric, run_data, truth, args.user, **kwargs, **policies_from(args))
    if args.format == "json":
        import json

        emit(json.dumps(ex.to_dict(), indent=2), args.output)
    else:
        from .common import terminal_width

        emit(ex.to_text(args.format, args.digits, width=terminal_width(args.output)),
             args.output)
    return 0 if ex.agrees or ex.reference is None else 1
