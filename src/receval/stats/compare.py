"""compare(): paired significance tests between systems evaluated on the same users.

>>> import receval as rv
>>> truth = {"u1": {"b": 1}, "u2": {"c": 1}, "u3": {"a": 1}, "u4": {"c": 1}}
>>> pop = {u: {"a": 3, "b": 2, "c": 1} for u in truth}           # one list for every user
>>> knn = {"u1": {"b": 2, "a": 1}, "u2": {"c": 2, "b": 1},
...        "u3": {"b": 2, "a": 1}, "u4": {"c": 2, "a": 1}}
>>> results = {"pop": rv.evaluate(pop, truth, ["mrr"]), "knn": rv.evaluate(knn, truth, ["mrr"])}
>>> cmp = compare(results, baseline="pop", test="permutation")      # rv.compare
>>> cmp.table[["metric", "a", "b", "diff", "wins", "losses", "p_value"]]
  metric    a    b      diff  wins  losses  p_value
0    mrr  knn  pop  0.333333     3       1    0.375

``cmp.table`` has one row per (metric, pair): the difference, its CI, the effect size and the
p-values (here exact: 6 of the 2**4 sign flips of the per-user differences are as extreme);
``rv.report(cmp, format="latex")`` renders it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, PolicyError, plain, suggest
from ..results.comparison import Comparison
from ..validation import POSITIVE_INT, PROBABILITY_OPEN, Interval, Options, Real, validate_params
from . import paired
from .corrections import adjust, check_correction
from .tukey import tukey_hsd

TESTS = ("t", "wilcoxon", "sign", "permutation", "bootstrap", "tukey")
_TEST_ALIASES = {"ttest": "t", "t-test": "t", "paired_t": "t", "fisher": "permutation",
                 "randomization": "permutation", "signflip": "permutation", "tukey_hsd": "tukey"}
TEST_TITLES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "permutation": "Fisher randomization (sign-flip permutation) test",
    "bootstrap": "paired bootstrap test",
    "tukey": "Tukey HSD (all pairs)",
}


# ---- compare() ----------------------------------------------------------------------------
def _check_test(test: str) -> str:
    name = _TEST_ALIASES.get(test, test)
    if name not in TESTS:
        raise PolicyError(f"test={plain(test)} is not valid; choose one of {list(TESTS)}."
                          + suggest(str(test), TESTS))
    return name


def _named(results: Any) -> dict[str, Any]:
    from ..results import EvalResult

    if isinstance(results, Mapping):
        named = {}
        for k, v in results.items():
            if str(k) in named:  # 1 and "1": one label, two systems
                raise InputError(
                    f"two systems have the same name once written as text ({plain(str(k))}): "
                    f"{[key for key in results if str(key) == str(k)]}; give them distinct names."
                )
            named[str(k)] = v
    elif isinstance(results, Sequence) and not isinstance(results, (str, bytes)):
        named = {}
        for i, r in enumerate(results):
            name = getattr(r, "name", None) or f"system{i + 1}"
            if name in named:
                raise InputError(f"two results are named {plain(name)}; pass a dict "
                                 "{name: result} to compare() to name them.")
            named[name] = r
    else:
        raise InputError("compare() needs a dict {name: EvalResult} or a list of EvalResults, "
                         f"got {type(results).__name__}.")
    if len(named) < 2:
        raise InputError(f"compare() needs at least 2 systems, got {len(named)}.")
    for name, r in named.items():
        if not isinstance(r, EvalResult):
            raise InputError(f"system {plain(name)} is a {type(r).__name__}, not an EvalResult; "
                             "evaluate it first with rv.evaluate(run, truth, metrics).")
    return named


def _align(named: dict[str, Any], users: str) -> tuple[np.ndarray, dict[str, np.ndarray], dict]:
    """Common users and, per system, the row index of each common user."""
    names = list(named)
    sets = {n: pd.Index(np.asarray(r.user_ids)) for n, r in named.items()}
    ref = sets[names[0]]
    mismatch = [n for n in names[1:]
                if len(sets[n]) != len(ref) or not sets[n].isin(ref).all()]
    counts: dict[str, Any] = {"users_per_system": {n: int(len(s)) for n, s in sets.items()}}
    if mismatch and users != "intersection":
        detail = ", ".join(
            f"{n}: {len(sets[n])} users, {int((~sets[n].isin(ref)).sum())} not in {plain(names[0])}, "
            f"{int((~ref.isin(sets[n])).sum())} of {plain(names[0])} missing" for n in mismatch)
        raise InputError(
            f"the systems were evaluated on different users ({plain(names[0])}: {len(ref)} users; "
            f"{detail}). Paired tests need the same users: evaluate every run against the same "
            "truth (rv.Evaluator), or pass users='intersection' to compare only the users all "
            "systems share."
        )
    keep = np.ones(len(ref), dtype=bool)
    for n in names[1:]:
        keep &= ref.isin(sets[n])
    order = ref[keep]
    if len(order) == 0:
        raise InputError(
            f"the systems share no user ({', '.join(f'{plain(n)}: {len(s)}' for n, s in sets.items())}"
            " users); there is nothing to compare. Evaluate every run against the same truth."
        )
    rows = {n: sets[n].get_indexer(order) for n in names}
    counts["users_compared"] = int(len(order))
    counts["users_dropped"] = {n: int(len(sets[n]) - len(order)) for n in names}
    return np.asarray(order), rows, counts


@validate_params({
    "alpha": PROBABILITY_OPEN,
    "n_resamples": POSITIVE_INT,
    "users": [Options(("error", "intersection"))],
    "family": [Options(("metric", "all"))],
    "ci": [Options(("bootstrap", "t"))],
    "tie_tol": [Interval(Real, 0, None)],
    "tukey_design": [Options(("paired", "independent"))],
})
def compare(results: Mapping[str, Any] | Sequence[Any], *, baseline: str | None = None,
            metrics: Sequence[str] | None = None, test: str = "t",
            correction: str | None = "holm", alpha: float = 0.05, rng: Any = 0,
            n_resamples: int = 10000, users: str = "error", family: str = "metric",
            ci: str = "bootstrap", tie_tol: float = 0.0, wilcoxon_zero_method: str = "wilcox",
            tukey_design: str = "paired", alternative: str = "two-sided", by: Any = None,
            group_col: str | Sequence[str] | None = None, user_col: str | None = None,
            interaction: str | None = None) -> Comparison:
    """Compare systems with paired tests over the per-user values of the same users.

    Parameters
    ----------
    results : ``{name: EvalResult}`` (or a list of results with names).
    baseline : compare every other system with this one; default ``None`` compares all pairs.
    metrics : metric keys to compare (default: every metric all systems have).
    test : ``"t"`` (paired t-test, default), ``"wilcoxon"``, ``"sign"``, ``"permutation"`` (Fisher
        randomization, sign flips), ``"bootstrap"`` (paired bootstrap), ``"tukey"`` (Tukey HSD,
        all pairs; family-wise by itself, so ``correction`` is not applied).
    correction : ``"holm"`` (default), ``"bonferroni"``, ``"hochberg"``, ``"sidak"``,
        ``"holm-sidak"`` (Šidák step-down), ``"bh"`` (Benjamini-Hochberg), ``"by"``,
        ``"none"``; applied within each family.
    family : ``"metric"`` (default: the pairs of one metric form a family) or ``"all"`` (every
        test of the comparison is one family).
    alpha : significance level; confidence intervals have level ``1 - alpha``.
    rng : int seed (default 0) shared by the permutation and bootstrap resampling: random
        matrices depend only on the seed and the number of users, so a pair's p-value and CI do
        not depend on the other systems or their order.
    n_resamples : resamples of the permutation and bootstrap procedures (default 10000).
    users : ``"error"`` (default: systems must cover the same users) or ``"intersection"``.
    ci : confidence interval of the mean difference: ``"bootstrap"`` (percentile, default) or
        ``"t"`` (Student t).
    tie_tol : a user's difference with ``|d| <= tie_tol`` counts as a tie in win/tie/loss.
    wilcoxon_zero_method, tukey_design : see :func:`receval.stats.wilcoxon` and
        :func:`receval.stats.tukey_hsd`.
    alternative : ``"two-sided"`` (default), ``"greater"`` (H1: ``a`` scores higher than ``b``,
        i.e. ``mean_a - mean_b > 0``, for each row's ``a`` and ``b``) or ``"less"``; confidence
        intervals are then one-sided. Tukey HSD is two-sided only.

    by : test within each group of users as well (default ``None``: no groups): ``True`` or
        ``"groups"`` for the groups the results were evaluated with (``groups=`` of
        :func:`receval.evaluate`, their ``group_of``), or any ``groups=`` input
        (:func:`receval.io.groups.read_groups`: ``{user: label}``, a Series, a table with
        ``group_col`` / ``user_col``). Returns a :class:`receval.stats.groups.GroupComparison`:
        ``by_group`` (the same paired tests within each group, ``correction`` over every
        group x metric x pair test as one family) and ``interaction`` (whether the difference
        between two systems differs between groups; ``interaction="anova"`` (default) or
        ``"permutation"`` (default when ``test="permutation"``)). See
        :mod:`receval.stats.groups`.

    Users with NaN for a metric (skipped, e.g. no relevant item) in any system are left out of
    that metric's tests; ``counts["nan_dropped"]`` says how many. Metrics with no per-user values
    (catalogue metrics) are summarised but not tested.
    """
    named = _named(results)
    weighted = [n for n, r in named.items() if "weights" in getattr(r, "info", {})]
    if weighted:
        raise PolicyError(
            f"{weighted} were evaluated with weights=: the paired tests here are unweighted, and "
            "would test other means than the results report; compare results evaluated "
            "without weights=.")
    if by is None and (group_col is not None or user_col is not None):
        raise PolicyError("group_col= and user_col= name the columns of by= (the groups); "
                          "give by= as well, or leave them out.")
    test = _check_test(test)
    alternative = paired.check_alternative(alternative)
    if test == "tukey" and alternative != "two-sided":
        raise PolicyError("test='tukey' is two-sided only; use alternative='two-sided' or a "
                          "paired test (t, wilcoxon, sign, permutation, bootstrap).")
    correction = "none" if test == "tukey" else check_correction(correction)
    names = list(named)
    if baseline is not None and baseline not in named:
        raise InputError(f"baseline={plain(baseline)} is not one of the systems {names}."
                         + suggest(str(baseline), names))
    seed = paired.seed_from(rng)
    if metrics is None:
        metrics = [m for m in named[names[0]].metrics
                   if all(m in r.metrics for r in named.values())]
        if not metrics:
            raise InputError("the systems share no metric; evaluate them with the same metrics.")
    else:
        metrics = [_common_key(named, m) for m in metrics]
    order, rows, counts = _align(named, users)
    if baseline is not None:
        pair_list = [(n, baseline) for n in names if n != baseline]
    else:
        pair_list = [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
    counts["nan_dropped"] = {}
    summary = {n: {m: float(r.summary[r._key(m)]) for m in metrics} for n, r in named.items()}
    settings = TestSettings(test=test, ci=ci, alpha=float(alpha), n_resamples=int(n_resamples),
                            seed=seed, tie_tol=float(tie_tol), zero_method=wilcoxon_zero_method,
                            design=tukey_design, alternative=alternative)
    out_rows: list[dict[str, Any]] = []
    values: dict[str, np.ndarray] = {}
    for m in metrics:
        X = np.column_stack([named[n].user_values(m)[rows[n]] for n in names])
        values[m] = X
        keep = np.isfinite(X).all(axis=1)
        counts["nan_dropped"][m] = int((~keep).sum())
        X = X[keep]
        n_users = X.shape[0]
        if n_users < 2:
            for a, b in pair_list:
                out_rows.append(_empty_row(m, a, b, summary, n_users))
            continue
        out_rows += test_rows(m, X, names, pair_list, settings)
    _apply_correction(out_rows, correction, family, alpha)
    options = {"family": family, "ci": ci, "tie_tol": tie_tol, "users": users,
               "alternative": alternative,
               "wilcoxon_zero_method": wilcoxon_zero_method, "tukey_design": tukey_design}
    if by is None:
        return Comparison(names, list(metrics), summary, out_rows, baseline, test, correction,
                          float(alpha), int(n_resamples), seed, counts, options, dict(named))
    from .groups import compare_groups

    return compare_groups(
        Comparison(names, list(metrics), summary, out_rows, baseline, test, correction,
                   float(alpha), int(n_resamples), seed, counts, options, dict(named)),
        by, order=order, rows=rows, values=values, pair_list=pair_list, settings=settings,
        test_rows=test_rows, group_col=group_col, user_col=user_col, interaction=interaction)


def _common_key(named: dict[str, Any], name: str) -> str:
    """The one column ``name`` reads in every system, each result resolving it its own way
    (under a library preset, the library's names: :meth:`EvalResult._key`); refused where the
    systems read different metrics under that name."""
    keys = {n: r._key(name) for n, r in named.items()}
    if len(set(keys.values())) > 1:
        raise InputError(
            f"metric {plain(name)} names different metrics in the systems ({keys}): they were "
            "evaluated under different conventions; compare them by one of these keys, "
            "evaluated alike.")
    return next(iter(keys.values()))


@dataclass(frozen=True)
class TestSettings:
    """The settings of one comparison's paired tests (shared by the tests within groups)."""

    test: str
    ci: str
    alpha: float
    n_resamples: int
    seed: int | None
    tie_tol: float
    zero_method: str
    design: str
    alternative: str

    __test__ = False  # not a pytest class


def test_rows(m: str, X: np.ndarray, names: list[str], pair_list: list[tuple[str, str]],
              s: TestSettings) -> list[dict[str, Any]]:
    """One row per pair (columns of :data:`PAIR_COLUMNS`, ``p_adjusted`` NaN, not significant)
    of the paired tests of metric ``m`` over ``X`` (users x systems, finite, >= 2 users)."""
    idx = {n: i for i, n in enumerate(names)}
    D = np.column_stack([X[:, idx[a]] - X[:, idx[b]] for a, b in pair_list])
    stat, pval = _run_test(s.test, D, X, pair_list, idx, n_resamples=s.n_resamples,
                           seed=s.seed, alpha=s.alpha, zero_method=s.zero_method,
                           design=s.design, alternative=s.alternative)
    if s.ci == "bootstrap":
        boot = paired.bootstrap(D, n_resamples=s.n_resamples, rng=s.seed,
                                confidence=1 - s.alpha, alternative=s.alternative)
        lo, hi = boot.extra["ci_low"], boot.extra["ci_high"]
    else:
        lo, hi = paired.t_interval(D, confidence=1 - s.alpha, alternative=s.alternative)
    d_eff = paired.cohens_d(D)
    wins, ties, losses = paired.win_tie_loss(D, tol=s.tie_tol)
    out = []
    for j, (a, b) in enumerate(pair_list):
        out.append({
            "metric": m, "a": a, "b": b, "n": int(X.shape[0]),
            "mean_a": float(X[:, idx[a]].mean()), "mean_b": float(X[:, idx[b]].mean()),
            "diff": float(D[:, j].mean()), "ci_low": float(lo[j]), "ci_high": float(hi[j]),
            "cohens_d": float(d_eff[j]), "wins": int(wins[j]), "ties": int(ties[j]),
            "losses": int(losses[j]), "statistic": float(stat[j]), "p_value": float(pval[j]),
            "p_adjusted": float("nan"), "significant": False,
        })
    return out


def _empty_row(m: str, a: str, b: str, summary: dict, n_users: int) -> dict[str, Any]:
    nan = float("nan")
    return {"metric": m, "a": a, "b": b, "n": n_users, "mean_a": summary[a][m],
            "mean_b": summary[b][m], "diff": summary[a][m] - summary[b][m], "ci_low": nan,
            "ci_high": nan, "cohens_d": nan, "wins": 0, "ties": 0, "losses": 0,
            "statistic": nan, "p_value": nan, "p_adjusted": nan, "significant": False}


def _run_test(test: str, D: np.ndarray, X: np.ndarray, pair_list: list[tuple[str, str]],
              idx: dict[str, int], *, n_resamples: int, seed: int | None, alpha: float,
              zero_method: str, design: str,
              alternative: str = "two-sided") -> tuple[np.ndarray, np.ndarray]:
    if test == "t":
        res = paired.paired_ttest(D, alternative=alternative)
    elif test == "wilcoxon":
        res = paired.wilcoxon(D, zero_method=zero_method, alternative=alternative)
    elif test == "sign":
        res = paired.sign_test(D, alternative=alternative)
    elif test == "permutation":
        res = paired.permutation_test(D, n_resamples=n_resamples, rng=seed,
                                      alternative=alternative)
    elif test == "bootstrap":
        res = paired.bootstrap(D, n_resamples=n_resamples, rng=seed, confidence=1 - alpha,
                               alternative=alternative)
    else:
        tk = tukey_hsd(X, design=design, confidence=1 - alpha)
        stat = np.array([tk.statistic[idx[a], idx[b]] for a, b in pair_list])
        pval = np.array([tk.pvalue[idx[a], idx[b]] for a, b in pair_list])
        return stat, pval
    return np.asarray(res.statistic, dtype=np.float64), np.asarray(res.pvalue, dtype=np.float64)


def _apply_correction(rows: list[dict[str, Any]], correction: str, family: str,
                      alpha: float) -> None:
    groups: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        groups.setdefault(row["metric"] if family == "metric" else "", []).append(i)
    for members in groups.values():
        adj = adjust(np.array([rows[i]["p_value"] for i in members]), correction)
        for i, q in zip(members, adj, strict=True):
            rows[i]["p_adjusted"] = float(q)
            rows[i]["significant"] = bool(q == q and q <= alpha)
