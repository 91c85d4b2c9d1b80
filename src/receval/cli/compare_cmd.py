"""``receval compare RUN RUN... --truth T -m ndcg@10``: paired significance tests and a report."""

from __future__ import annotations

import argparse
import os
import sys

EXAMPLES = [
    "receval compare pop.csv knn.csv ease.csv --truth test.csv -m ndcg@10 -m recall@20",
    "receval compare a.run b.run --truth qrels.txt -m map -m ndcg_cut.10 --test permutation",
    "receval compare pop.csv knn.csv --truth test.csv -m ndcg@10 --baseline pop "
    "--correction bh --format latex",
    "receval compare pop.csv knn.csv --truth test.csv -m ndcg@10,coverage@10 --train train.csv "
    "--format html -o report.html",
]
REPORT_FORMATS = ("table", "plain", "markdown", "latex", "csv", "json", "html")
TESTS = ("t", "wilcoxon", "permutation", "bootstrap", "tukey")
CORRECTIONS = ("holm", "bonferroni", "bh", "by", "none")


def register(subparsers: argparse._SubParsersAction) -> None:
    from .common import (
        Formatter,
        add_column_flags,
        add_debug_flags,
        add_force_flag,
        add_format_flag,
        add_policy_flags,
        digits,
        positive_int,
    )
    from .common import example_epilog as _epilog

    p = subparsers.add_parser(
        "compare", help="compare runs with paired significance tests",
        description="Evaluate several runs against the same truth, test every pair (or every "
                    "run against --baseline) with a paired test over the per-user values, "
                    "correct for multiple comparisons and print a table whose superscripts name "
                    "the runs each value is significantly better than.",
        epilog=_epilog(EXAMPLES), formatter_class=Formatter,
    )
    p.add_argument("runs", nargs="+", metavar="RUN", help="run files (two or more)")
    p.add_argument("--truth", required=True, help="truth file (user, item[, relevance])")
    p.add_argument("-m", "--metric", action="append", dest="metrics", metavar="METRIC",
                   required=True, help="metric key (repeatable, or a comma list)")
    p.add_argument("--name", action="append", dest="names", metavar="NAME",
                   help="name of each run, in order (default: file names without extension)")
    p.add_argument("--baseline", help="compare every run with this one (a name) instead of "
                                      "all pairs")
    p.add_argument("--test", choices=TESTS, default="t",
                   help="paired test: t (default), wilcoxon, permutation (Fisher "
                        "randomization), bootstrap, tukey (Tukey HSD, all pairs)")
    p.add_argument("--correction", choices=CORRECTIONS, default="holm",
                   help="multiple-comparison correction (default holm; bh = Benjamini-Hochberg)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the permutation / bootstrap resampling (default 0)")
    p.add_argument("--resamples", type=positive_int, default=10000,
                   help="resamples of the permutation and bootstrap procedures (default 10000)")
    p.add_argument("--align-users", choices=("error", "intersection"), default="error",
                   dest="align_users",
                   help="runs evaluated on different users: error (default) or compare the "
                        "intersection")
    p.add_argument("--train", help="training interactions (user, item): enables beyond-accuracy "
                                   "metrics and the long-tail plot of the HTML report")
    add_format_flag(p, REPORT_FORMATS, help="output format (default table: box-drawn with "
                    "rich when installed, else plain text; html writes a self-contained page)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the output to FILE (html default: receval-report.html)")
    add_force_flag(p)
    p.add_argument("--digits", type=digits, default=4, help="decimals shown (default 4)")
    add_column_flags(p)
    add_policy_flags(p)
    add_debug_flags(p)
    p.set_defaults(func=run)


def _names(args: argparse.Namespace) -> list[str]:
    from ..errors import InputError

    if args.names:
        if len(args.names) != len(args.runs):
            raise InputError(f"--name was given {len(args.names)} times for {len(args.runs)} "
                             "runs; give one name per run, in order.")
        names = list(args.names)
    else:
        names = [os.path.splitext(os.path.basename(r))[0] or r for r in args.runs]
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n}-{seen[n]}")
    return out


def _read(args: argparse.Namespace):
    from ..io.files import read_run, read_truth

    g = getattr
    truth = read_truth(args.truth, format=g(args, "truth_format", None),
                       user_col=g(args, "truth_user_col", None) or g(args, "user_col", None),
                       item_col=g(args, "truth_item_col", None) or g(args, "item_col", None),
                       rel_col=g(args, "rel_col", None))
    runs = [read_run(path, format=g(args, "run_format", None), user_col=g(args, "user_col", None),
                     item_col=g(args, "item_col", None), score_col=g(args, "score_col", None),
                     rank_col=g(args, "rank_col", None)) for path in args.runs]
    train = read_truth(args.train) if args.train else None
    return runs, truth, train


def run(args: argparse.Namespace) -> int:
    import receval as rv

    from ..errors import InputError
    from ..report import report
    from ..stats import compare
    from .common import emit, input_paths, note, protect_inputs, terminal_width

    if len(args.runs) < 2:
        raise InputError(f"compare needs at least two runs, got {len(args.runs)}.")
    output = args.output or ("receval-report.html" if args.format == "html" else None)
    protect_inputs(args, [output], input_paths(args, "runs", "truth", "train"))
    names = _names(args)
    if args.baseline is not None and args.baseline not in names:
        raise InputError(f"--baseline {args.baseline!r} is not one of the run names {names}; "
                         "name runs with --name.")
    from .common import metric_keys, policies_from

    keys = metric_keys(args.metrics)
    policies = policies_from(args)
    runs, truth, train = _read(args)
    extra = {"train": train} if train is not None else {}
    ev = rv.Evaluator(truth, keys, **policies, **extra)
    results = {}
    for name, data in zip(names, runs, strict=True):
        kwargs = {}
        cols = getattr(data, "columns", None)
        if cols is not None and "qid" in list(cols) and "docno" in list(cols):
            kwargs = {"score_col": "score"}
        results[name] = ev.evaluate(data, name=name, **kwargs) if not kwargs else \
            rv.evaluate(data, truth, keys, name=name, **kwargs, **policies, **extra)
    cmp = compare(results, baseline=args.baseline, test=args.test, correction=args.correction,
                  alpha=args.alpha, rng=args.seed, n_resamples=args.resamples,
                  users=args.align_users)
    if args.format == "html":
        from ..report.html import plots_left_out

        options = {}
        if train is not None:
            options = {"train": train, "runs": dict(zip(names, runs, strict=True))}
        report(cmp, format="html", path=output, digits=args.digits, **options)
        left_out = plots_left_out()
        if left_out:
            note(args, left_out)
        note(args, f"wrote {output}")
        return 0
    fmt = "text" if args.format == "table" else args.format
    color = fmt == "text" and not args.output and sys.stdout.isatty()
    emit(report(cmp, format=fmt, digits=args.digits, color=color,
                width=terminal_width(args.output) if fmt in ("text", "plain") else None),
         args.output)
    return 0
