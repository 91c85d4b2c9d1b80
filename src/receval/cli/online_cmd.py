"""``receval ab | interleave | ope | agreement``: online analyses over CSV / TSV / Parquet /
JSON Lines files. Output: a table (default), markdown, csv, json or a self-contained html page."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import (
    add_debug_flags,
    add_force_flag,
    add_format_flag,
    check_not_empty,
    digits,
    emit,
    input_paths,
    nonnegative_int,
    positive_int,
    protect_inputs,
)

OUT_FORMATS = ("table", "markdown", "csv", "json", "html")


def _read(path: str, role: str = "input", dtype: dict[str, Any] | None = None) -> Any:
    """One table from ``path`` through the shared file reader (format by extension or
    content, compression by magic bytes, a pipe read once); every failure names the file and
    its role."""
    from ..io.files import read_frame

    df = read_frame(path, role=role, dtype=dtype)
    check_not_empty(df, path, role)
    return df


def _out(p: argparse.ArgumentParser, *inputs: str) -> None:
    add_format_flag(p, OUT_FORMATS)
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    add_force_flag(p)
    p.add_argument("--digits", type=digits, default=4, help="decimals shown (default 4)")
    add_debug_flags(p, quiet=False)
    p.set_defaults(input_flags=inputs)


def _protect(args: argparse.Namespace) -> None:
    protect_inputs(args, [args.output], input_paths(args, *args.input_flags))


def _emit(res: Any, args: argparse.Namespace) -> int:
    from ..report import report

    fmt = "plain" if args.format == "table" else args.format
    emit(report(res, format=fmt, digits=args.digits), args.output)
    return 0


def _pairs(values: list[str] | None, flag: str) -> dict[str, str]:
    from ..errors import InputError

    out = {}
    for v in values or []:
        if "=" not in v:
            raise InputError(f"{flag} {v!r} must look like NAME=COLUMN.")
        k, c = v.split("=", 1)
        out[k] = c
    return out


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "ab", help="analyse an A/B test (delta method, CUPED, SRM, corrections)",
        description="Analyse an A/B test from a per-unit table (one row per randomised unit), "
                    "from raw events (--events: summed per unit first) or from per-arm "
                    "aggregates (--aggregates). Example: receval ab units.csv --control A "
                    "--ratio clicks/impressions --mean revenue --covariate revenue=revenue_pre")
    p.add_argument("data", help="per-unit table, events (--events) or aggregates (--aggregates)")
    p.add_argument("--control", required=True, help="name of the control arm")
    p.add_argument("--variant", default="variant", help="arm column (default variant)")
    p.add_argument("--mean", action="append", metavar="COL", help="per-unit mean metric")
    p.add_argument("--proportion", action="append", metavar="COL", help="0/1 metric")
    p.add_argument("--ratio", action="append", metavar="NUM/DEN",
                   help="ratio of sums by the delta method, e.g. clicks/impressions")
    p.add_argument("--covariate", action="append", metavar="METRIC=COL[/COL]",
                   help="CUPED covariate of a metric (a ratio takes NUM/DEN)")
    p.add_argument("--events", action="store_true", help="DATA holds raw events; sum per unit")
    p.add_argument("--aggregates", action="store_true",
                   help="DATA holds per-arm aggregates (n, sum:COL, cross:A:B)")
    p.add_argument("--unit", default="user_id", help="unit column of --events (default user_id)")
    p.add_argument("--sum", action="append", metavar="NAME=COL",
                   help="with --events: per-unit sum NAME of COL (COL=1 counts rows)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--relative-ci", default="log", choices=("log", "fieller", "delta", "control"),
                   help="relative-effect interval (default log)")
    p.add_argument("--correction", default="holm",
                   choices=("none", "bonferroni", "holm", "bh", "by"),
                   help="multiple-testing correction across metrics (default holm)")
    p.add_argument("--nan", default="error", choices=("error", "drop"),
                   help="units with missing values: error (default) or drop (counted)")
    _out(p, "data")
    p.set_defaults(func=run_ab)

    p = subparsers.add_parser(
        "interleave", help="analyse a team-draft interleaving / multileaving log",
        description="One row per shown item with the team (ranking) it was credited to and its "
                    "credit (click, watch time). Per-unit preference, sign test, bootstrap CI; "
                    "every pair of teams with a correction when there are more than two.")
    p.add_argument("log", help="interleaving log: one row per shown item (CSV, TSV, Parquet, "
                               "JSON Lines)")
    p.add_argument("--unit", default="user_id", help="unit column (default user_id)")
    p.add_argument("--impression", default="impression_id",
                   help="impression column (default impression_id)")
    p.add_argument("--team", default="team",
                   help="column of the team (ranking) an item was credited to (default team)")
    p.add_argument("--credit", default="click",
                   help="credit column: click, watch time, ... (default click)")
    p.add_argument("--aggregate", default="unit_sign", choices=("unit_sign", "unit_mean",
                                                                  "impression"),
                   help="unit of the preference: unit_sign (default; one vote per unit), "
                        "unit_mean, impression")
    p.add_argument("--correction", default="holm",
                   choices=("none", "bonferroni", "holm", "bh", "by"),
                   help="multiple-testing correction across pairs of teams (default holm)")
    p.add_argument("--resamples", type=positive_int, default=2000,
                   help="bootstrap resamples (default 2000)")
    p.add_argument("--seed", type=nonnegative_int, default=0, help="random seed (default 0)")
    _out(p, "log")
    p.set_defaults(func=run_interleave)

    p = subparsers.add_parser(
        "ope", help="off-policy estimates of a run from a log of randomised slates",
        description="Estimate the value of a target policy made from a run (deterministic top-k, "
                    "Plackett-Luce, epsilon-greedy) from a log with logging propensities; the "
                    "overlap report runs first.")
    p.add_argument("log", help="log of shown slates with logging propensities (CSV, TSV, "
                               "Parquet, JSON Lines)")
    p.add_argument("--run", required=True, help="run file (user, item, score)")
    p.add_argument("--policy", default="deterministic",
                   choices=("deterministic", "plackett_luce", "epsilon_greedy"),
                   help="target policy made from the run (default deterministic top-k)")
    p.add_argument("--k", type=positive_int, default=None,
                   help="list length of the target policy")
    p.add_argument("--temperature", type=float, default=1.0,
                   help="plackett_luce: softmax temperature of the scores (default 1)")
    p.add_argument("--epsilon", type=float, default=0.0,
                   help="epsilon_greedy: probability of a uniformly random item (default 0)")
    p.add_argument("-e", "--estimator", action="append",
                   help="estimator (repeatable; default ips, snips), e.g. cips(cap=10)")
    for flag, default in (("unit", "user_id"), ("slate", "slate_id"), ("position", "position"),
                          ("item", "item_id"), ("reward", "reward"),
                          ("propensity", "propensity")):
        p.add_argument(f"--{flag}", default=default, help=f"log column (default {default})")
    p.add_argument("--propensity-kind", default="marginal", choices=("marginal", "prefix", "joint"),
                   help="what the propensity column is the probability of: the item at its "
                        "position (marginal, default), the slate up to it (prefix), the whole "
                        "slate (joint)")
    p.add_argument("--run-user", default="user", help="user column of the run (default user)")
    p.add_argument("--run-item", default="item", help="item column of the run (default item)")
    p.add_argument("--run-score", default="score",
                   help="score column of the run (default score)")
    p.add_argument("--ci", default="analytic", choices=("analytic", "bootstrap"),
                   help="confidence intervals (default analytic)")
    p.add_argument("--cluster", default="unit", choices=("unit", "slate"),
                   help="resampling / variance cluster (default unit)")
    p.add_argument("--resamples", type=positive_int, default=2000,
                   help="bootstrap resamples (default 2000)")
    p.add_argument("--seed", type=nonnegative_int, default=0, help="random seed (default 0)")
    _out(p, "log", "run")
    p.set_defaults(func=run_ope)

    p = subparsers.add_parser(
        "agreement", help="which offline metric predicts the online result (ledger of experiments)",
        description="Read a ledger (experiment, side, metric, delta, se[, p_value]; side = offline "
                    "or online) and measure, per offline metric, sign agreement, Kendall tau, "
                    "Spearman rho, the noise-aware slope and the ranking of the metrics.")
    p.add_argument("ledger", help="ledger of experiments (CSV, TSV, Parquet, JSON Lines)")
    p.add_argument("--offline-metric", action="append", help="offline metric (default: all)")
    p.add_argument("--online-metric", default=None, help="online metric (needed if several)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--resamples", type=positive_int, default=2000,
                   help="bootstrap resamples (default 2000)")
    p.add_argument("--no-measurement-error", action="store_true",
                   help="bootstrap without perturbing each effect by its standard error")
    p.add_argument("--seed", type=nonnegative_int, default=0, help="random seed (default 0)")
    _out(p, "ledger")
    p.set_defaults(func=run_agreement)


def run_ab(args: argparse.Namespace) -> int:
    from ..errors import InputError
    from ..online import ab

    _protect(args)
    cov = _pairs(args.covariate, "--covariate")
    metrics = []
    for c in args.mean or []:
        metrics.append(ab.mean(c, covariate=cov.pop(c, None)))
    for c in args.proportion or []:
        metrics.append(ab.proportion(c, covariate=cov.pop(c, None)))
    for r in args.ratio or []:
        if "/" not in r:
            raise InputError(f"--ratio {r!r} must look like NUM/DEN.")
        num, den = r.split("/", 1)
        cv = cov.pop(r, None)
        metrics.append(ab.ratio(num, den, covariate=tuple(cv.split("/", 1)) if cv else None))
    if cov:
        raise InputError(f"--covariate names metric(s) {sorted(cov)} that are not analysed.")
    if not metrics:
        raise InputError("give at least one metric: --mean COL, --proportion COL or --ratio NUM/DEN.")
    role = "aggregates" if args.aggregates else "events" if args.events else "units"
    data = _read(args.data, role)
    if args.aggregates:
        data = ab.from_aggregates(data, variant=args.variant)
    elif args.events:
        sums = {k: (1 if v == "1" else v) for k, v in _pairs(args.sum, "--sum").items()}
        data = ab.per_unit(data, unit=args.unit, variant=args.variant, sums=sums or None)
    res = ab.analyze(data, metrics=metrics, control=_cast(args.control, data, args.variant),
                     variant=args.variant, alpha=args.alpha, relative_ci=args.relative_ci,
                     correction=args.correction, nan=args.nan)
    return _emit(res, args)


def _cast(control: str, data: Any, variant: str) -> Any:
    """The control name with the type of the arm column (a number when arms are numbers)."""
    keys = list(data) if isinstance(data, dict) else list(data[variant].dropna().unique())
    for k in keys:
        if str(k) == control:
            return k
    return control


def run_interleave(args: argparse.Namespace) -> int:
    from ..online import interleave

    _protect(args)
    res = interleave.analyze(_read(args.log, "interleaving log"), unit=args.unit, impression=args.impression,
                             team=args.team, credit=args.credit, aggregate=args.aggregate,
                             correction=args.correction, n_resamples=args.resamples,
                             rng=args.seed)
    return _emit(res, args)


def run_ope(args: argparse.Namespace) -> int:
    from ..online import estimate, policy_from_run, read_log

    _protect(args)
    log = read_log(_read(args.log, "log"), unit=args.unit, slate=args.slate, position=args.position,
                   item=args.item, reward=args.reward, propensity=args.propensity,
                   propensity_kind=args.propensity_kind)
    pol = policy_from_run(_read(args.run, "run"), kind=args.policy, k=args.k,
                          temperature=args.temperature, epsilon=args.epsilon,
                          user_col=args.run_user, item_col=args.run_item,
                          score_col=args.run_score, seed=args.seed)
    res = estimate(log, pol, estimators=args.estimator or ["ips", "snips"], ci=args.ci,
                   cluster=args.cluster, n_resamples=args.resamples, rng=args.seed)
    return _emit(res, args)


def run_agreement(args: argparse.Namespace) -> int:
    from ..online import Ledger, agreement

    _protect(args)
    text = {"experiment": str, "side": str, "metric": str}
    res = agreement(Ledger.from_frame(_read(args.ledger, "ledger", text)), offline_metrics=args.offline_metric,
                    online_metric=args.online_metric, alpha=args.alpha,
                    n_resamples=args.resamples,
                    measurement_error=not args.no_measurement_error, rng=args.seed)
    return _emit(res, args)


def online_demo(out: Any, *, seed: int = 0, html: str | None = None) -> None:
    """Print the simulated shop of ``receval demo --online`` and write its agreement page."""
    from ..online.simulate import simulate_shop
    from ..report import report

    shop = simulate_shop(out.runs, out.test, out.comparison, seed=seed)
    print("\nSimulated shop: position-based click model, clicks per impression of "
          f"{shop.info['k']} slots; true value of each model:")
    for name, v in sorted(shop.true_value.items(), key=lambda kv: -kv[1]):
        print(f"  {name:>10}  {v:.4f}")
    for res in list(shop.ab.values())[-1:]:
        sys.stdout.write("\n" + report(res, format="plain"))
    sys.stdout.write("\n" + report(shop.ope, format="plain"))
    sys.stdout.write("\n" + report(shop.interleaving, format="plain"))
    sys.stdout.write("\n" + report(shop.agreement, format="plain"))
    best = shop.agreement.diagnostics["best_metric"]
    print(f"\nOver {len(shop.ledger.experiments)} simulated A/B tests, {best} tracked the KPI "
          "best (Kendall tau; see the table).")
    if html:
        path = html[:-5] + "-online.html" if html.endswith(".html") else html + "-online.html"
        report(shop.agreement, format="html", path=path)
        print(f"Agreement report with the offline-vs-online scatter: {path}")
