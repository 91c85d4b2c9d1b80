"""Group summaries, gaps between groups and distributions of per-user values.

``by_group``: one row per group and metric (the group's exact summary, as if its users were
evaluated alone: :mod:`receval.engines.groups`) with a Student-t interval of the mean
(:func:`receval.results.intervals.t_bounds`; NaN where the summary is not a mean over users).

``gap``: how far apart the groups' means are, for groups ``g`` with means ``m_g``:

============  ==========================================================================
``how``       value
============  ==========================================================================
``max-min``   ``max_g m_g - min_g m_g``
``ratio``     ``min_g m_g / max_g m_g`` (1: equal; NaN when ``max_g m_g <= 0``)
``worst``     the worst group's mean (the lowest, or the highest for a metric where lower
              is better)
``cv``        ``sd_g(m_g) / mean_g(m_g)``, the population standard deviation of the group
              means over their mean (the coefficient of variation)
============  ==========================================================================

Its interval is a stratified bootstrap (percentile; Efron & Tibshirani 1993, ch. 13, 16): each
resample draws each group's users with replacement within the group, keeping group sizes, and
recomputes the group means and the gap. It needs per-user values whose mean is the summary:
catalogue-wide, micro and pooled metrics get NaN with the reason.

``distribution``: quantiles of the per-user values, the share of users at 0 and the Gini
coefficient of the values (utility inequality over users; 0: every user gets the same value),
``G = sum_i (2 i - n - 1) x_(i) / (n sum_i x_(i))`` over the values sorted ascending (Gini
1912; for values >= 0, NaN otherwise or when they sum to 0).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .._lazy import pandas
from ..errors import InputError, PolicyError, suggest
from .intervals import check_level, generator, t_bounds

if TYPE_CHECKING:
    import pandas as pd

#: a :class:`receval.results.EvalResult` (that module imports this one)
EvalResult = Any

GAPS = ("max-min", "ratio", "worst", "cv")


def _no_groups(res: EvalResult) -> None:
    if not res.group_stats:
        raise InputError("this result has no groups: evaluate with groups= (e.g. "
                         "rv.evaluate(run, truth, metrics, groups={user: group})).")


def by_group_frame(res: EvalResult, level: float = 0.95) -> pd.DataFrame:
    """One row per (group, metric): ``group, metric, mean, std, se, ci_low, ci_high, n,
    skipped, users, missing_from_run``."""
    _no_groups(res)
    level = check_level(level)
    rows = []
    for row in res.group_stats:
        lo = hi = math.nan
        n = int(row["n"])
        if n > 1 and row["se"] == row["se"] and _mean_over_users(row["metric"]):
            lo, hi = (float(v) for v in t_bounds(row["mean"], row["se"], n, level=level))
        rows.append({**{k: row[k] for k in ("group", "metric", "mean", "std", "se")},
                     "ci_low": lo, "ci_high": hi,
                     **{k: row[k] for k in ("n", "skipped", "users", "missing_from_run")}})
    return pandas().DataFrame(rows, columns=[
        "group", "metric", "mean", "std", "se", "ci_low", "ci_high", "n", "skipped", "users",
        "missing_from_run"])


def _mean_over_users(key: str) -> bool:
    """Whether the metric's summary is the mean of its per-user values."""
    from ..metrics import parse_metric

    spec = parse_metric(key)
    d = spec.definition
    micro = d.kernel is not None and d.kernel.micro_requests(spec) is not None
    return not micro and d.aggregate not in ("micro", "pooled") and spec.summary == "mean"


def _gap(means: np.ndarray, how: str, lower_better: bool) -> np.ndarray:
    """The gap of each row of group means (columns: groups)."""
    if how == "max-min":
        return means.max(axis=1) - means.min(axis=1)
    if how == "ratio":
        top = means.max(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(top > 0, means.min(axis=1) / np.where(top > 0, top, 1), np.nan)
    if how == "worst":
        return means.max(axis=1) if lower_better else means.min(axis=1)
    centre = means.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(centre != 0, means.std(axis=1) / np.where(centre != 0, centre, 1),
                        np.nan)


def gap(res: EvalResult, metric: str, how: str = "max-min", *, level: float = 0.95,
        n_resamples: int = 2000, rng: int | None = 0) -> dict[str, Any]:
    """The gap between the groups' means of ``metric`` (module docstring) and its stratified
    bootstrap interval: ``metric, how, value, ci_low, ci_high, level, groups, worst, best,
    n_resamples, note``. Groups with no user in the metric's summary are left out (listed in
    ``note``); fewer than 2 groups give NaN."""
    from ..metrics import higher_is_better

    _no_groups(res)
    if how not in GAPS:
        raise PolicyError(f"how={how!r}: choose one of {list(GAPS)}." + suggest(str(how), GAPS))
    level = check_level(level)
    if not isinstance(n_resamples, (int, np.integer)) or isinstance(n_resamples, bool) \
            or n_resamples < 1:
        raise PolicyError(f"n_resamples={n_resamples!r}: a whole number >= 1.")
    key = res._key(metric)
    rows = [r for r in res.group_stats if r["metric"] == key]
    out: dict[str, Any] = {"metric": key, "how": how, "value": math.nan, "ci_low": math.nan,
                           "ci_high": math.nan, "level": level, "groups": [],
                           "worst": None, "best": None, "n_resamples": int(n_resamples),
                           "note": ""}
    empty = [r["group"] for r in rows if r["n"] == 0 or r["mean"] != r["mean"]]
    rows = [r for r in rows if r["group"] not in empty]
    if empty:
        out["note"] = f"groups without a value left out: {empty}. "
    out["groups"] = [r["group"] for r in rows]
    if len(rows) < 2:
        out["note"] += "fewer than 2 groups with a value: no gap"
        return out
    lower = not higher_is_better(key)
    means = np.array([[r["mean"] for r in rows]], dtype=np.float64)
    out["value"] = float(_gap(means, how, lower)[0])
    order = sorted(rows, key=lambda r: r["mean"], reverse=lower)
    out["worst"], out["best"] = order[0]["group"], order[-1]["group"]
    if not _mean_over_users(key):
        out["note"] += "no interval: the summary is not a mean of per-user values"
        return out
    x = res.user_values(key)
    assert res.group_of is not None
    boot = np.empty((n_resamples, len(rows)), dtype=np.float64)
    for g, r in enumerate(rows):
        vals = x[(res.group_of == r["group"]) & np.isfinite(x)]
        if not len(vals):
            out["note"] += ("no interval: a catalogue-wide value, not a mean of per-user "
                            "values")
            return out
        if len(vals) != r["n"]:
            out["note"] += (f"no interval: group {r['group']!r} has {len(vals)} finite "
                            f"per-user values for a summary over {r['n']} users")
            return out
        gen = generator(rng, 100 + g)
        for start in range(0, n_resamples, 256):
            b = min(256, n_resamples - start)
            idx = gen.integers(0, len(vals), size=(b, len(vals)))
            boot[start:start + b, g] = vals[idx].mean(axis=1)
    gaps = _gap(boot, how, lower)
    gaps = gaps[np.isfinite(gaps)]
    a = 1.0 - level
    if len(gaps):
        out["ci_low"], out["ci_high"] = (float(v) for v in np.quantile(gaps, [a / 2, 1 - a / 2]))
    return out


def distribution(res: EvalResult, metric: str,
                 quantiles: tuple[float, ...] = (0.1, 0.25, 0.5, 0.75, 0.9)) -> dict[str, Any]:
    """The distribution of ``metric``'s per-user values (users with a finite value):
    ``metric, n, quantiles`` (linear interpolation), ``share_zero``, ``gini`` (module
    docstring), and ``by_group`` (the same per group) when the result has groups."""
    key = res._key(metric)
    qs = tuple(float(q) for q in quantiles)
    if not all(0.0 <= q <= 1.0 for q in qs):
        raise PolicyError(f"quantiles={quantiles!r}: each must be in [0, 1].")
    x = res.user_values(key)

    def describe(v: np.ndarray) -> dict[str, Any]:
        v = v[np.isfinite(v)]
        n = len(v)
        return {"n": int(n),
                "quantiles": {q: (float(np.quantile(v, q)) if n else math.nan) for q in qs},
                "share_zero": float(np.mean(v == 0)) if n else math.nan,
                "gini": gini(v)}

    out = {"metric": key, **describe(x)}
    if res.group_stats and res.group_of is not None:
        labels = list(dict.fromkeys(r["group"] for r in res.group_stats))
        out["by_group"] = {g: describe(x[res.group_of == g]) for g in labels}
    return out


def gini(values: np.ndarray) -> float:
    """Gini coefficient of non-negative values (module docstring); NaN for fewer than 1
    value, a negative value or a zero sum."""
    v = np.sort(np.asarray(values, dtype=np.float64))
    n = len(v)
    if n == 0 or v[0] < 0 or not np.isfinite(v).all():
        return math.nan
    total = float(v.sum())
    if total <= 0:
        return math.nan
    i = np.arange(1, n + 1, dtype=np.float64)
    return float(np.sum((2 * i - n - 1) * v) / (n * total))
