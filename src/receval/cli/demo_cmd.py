"""``receval demo``: the built-in example, end to end, in well under a minute."""

from __future__ import annotations

import argparse
import sys

SHOWN = ["ndcg@10", "recall@10", "precision@10", "map@10", "mrr@10", "hit_rate@10",
         "coverage@10", "novelty@10"]


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "demo", help="run the built-in example and write receval-report.html",
        description="Generate a seeded synthetic interaction log (Zipf item popularity, varied "
                    "user activity, timestamps, ratings), split it by time, run four baselines "
                    "(random, most popular, item-kNN cosine, EASE), evaluate them, compare them "
                    "with paired significance tests, print the table and write a "
                    "self-contained HTML report.",
    )
    from .common import add_debug_flags, add_format_flag, positive_int

    p.add_argument("--users", type=positive_int, default=4000,
                   help="number of users (default 4000)")
    p.add_argument("--items", type=positive_int, default=2500,
                   help="number of items (default 2500)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--test", default="permutation",
                   choices=("t", "wilcoxon", "permutation", "bootstrap", "tukey"),
                   help="paired test (default permutation)")
    p.add_argument("--resamples", type=positive_int, default=2000,
                   help="resamples of the permutation / bootstrap procedures (default 2000)")
    p.add_argument("-o", "--output", default="receval-report.html", metavar="FILE",
                   help="HTML report path (default receval-report.html)")
    p.add_argument("--no-html", action="store_true", help="do not write the HTML report")
    add_format_flag(p, ("table", "plain", "markdown", "latex"),
                    help="format of the printed table (default table)")
    p.add_argument("--all-metrics", action="store_true",
                   help="print every metric (the report always has all of them)")
    p.add_argument("--online", action="store_true",
                   help="also simulate a shop (click model, exploration log): A/B tests, "
                        "off-policy estimates, interleaving and offline-online agreement")
    add_debug_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..demo import run_demo
    from ..report import report
    from ..report.html import plots_left_out
    from .common import note, terminal_width

    out = run_demo(n_users=args.users, n_items=args.items, seed=args.seed, test=args.test,
                   n_resamples=args.resamples, html=None if args.no_html else args.output)
    cmp = out.comparison
    shown = None if args.all_metrics else [m for m in SHOWN if m in cmp.metrics]
    fmt = "text" if args.format == "table" else args.format
    color = fmt == "text" and sys.stdout.isatty()
    text = report(cmp, format=fmt, metrics=shown, color=color,
                  width=terminal_width() if fmt in ("text", "plain") else None,
                  title="receval demo: four baselines on a synthetic log")
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    info = out.info
    print(f"{info['train_rows']} training rows, {info['test_rows']} held-out rows of "
          f"{info['test_users']} users; finished in {out.timings['total']:.1f} s.")
    if out.html_path:
        left_out = plots_left_out()
        print(f"Report with {'' if left_out else 'plots and '}metric definitions: "
              f"{out.html_path}")
        if left_out:
            note(args, left_out)
    if getattr(args, "online", False):
        from .online_cmd import online_demo

        online_demo(out, seed=args.seed, html=None if args.no_html else args.output)
    return 0
