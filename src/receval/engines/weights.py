"""Weighted summaries (``weights=``): each user's value weighs by its user's weight.

For one metric over the users that enter its summary (values ``x_u``, weights ``w_u >= 0``,
``n`` users, ``W = sum w_u > 0``)::

    mean = sum w_u x_u / W
    std  = sqrt(n / (n - 1) * sum w_u (x_u - mean)^2 / W)
    se   = sqrt(n / (n - 1) * sum w_u^2 (x_u - mean)^2) / W

``se`` is the linearised (sandwich) standard error of a ratio estimator (Cochran, "Sampling
Techniques", 1977, sec. 6.4; Gatz & Smith, Atmospheric Environment 1995); with every weight 1
the three are the unweighted mean, sample standard deviation and ``std / sqrt(n)``. Each sum is
``math.fsum`` of per-user products, correctly rounded and independent of the users' order, so
a weighted summary is the same bits in memory and in blocks. ``W = 0`` gives NaN.

Only a metric summarised by the mean of its per-user values can be weighted: a catalogue-wide,
pooled, micro-averaged, summed or geometric summary is refused, naming the metric. Every
evaluated user needs a weight (a user without one is refused, naming it).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import InputError, MetricError, plain
from ..io.weights import Weights
from ..pack.vocab import lookup
from .plan import Plan
from .totals import Totals


def user_weights(weights: Weights, user_ids: np.ndarray) -> np.ndarray:
    """The weight of each evaluated user; a user without a weight is refused."""
    found = lookup(np.asarray(user_ids), weights.users) if len(user_ids) else \
        np.zeros(0, dtype=np.int64)
    if (found < 0).any():
        i = int(np.flatnonzero(found < 0)[0])
        raise InputError(
            f"weights: {int((found < 0).sum())} evaluated user(s) have no weight (e.g. user "
            f"{plain(user_ids[i])}); give every evaluated user a weight (0 to leave it out of "
            "the mean), with the run's user id type.")
    return weights.values[found]


def weighted_row(row: dict[str, Any], x: np.ndarray, w: np.ndarray) -> dict[str, Any]:
    """A stats row (``metric, mean, std, se, n, skipped``) with the weighted summary of the
    per-user values ``x`` (NaN: not in the summary, or NaN in it when the unweighted mean is
    NaN) and weights ``w``."""
    out = {**row, "weighted": True}
    inside = np.isfinite(x)
    if row["mean"] != row["mean"] and row["n"]:  # a NaN value in the summary: NaN
        out.update(mean=math.nan, std=math.nan, se=math.nan)
        return out
    xs, ws = x[inside], w[inside]
    n = int(len(xs))
    total = math.fsum(ws.tolist())
    out["n"] = n
    if n == 0 or total <= 0:
        out.update(mean=math.nan, std=math.nan, se=math.nan)
        return out
    mean = math.fsum((ws * xs).tolist()) / total
    dev = xs - mean
    if n > 1:
        std = math.sqrt(n / (n - 1) * math.fsum((ws * dev * dev).tolist()) / total)
        se = math.sqrt(n / (n - 1) * math.fsum(((ws * dev) ** 2).tolist())) / total
    else:
        std = se = math.nan
    out.update(mean=mean, std=std, se=se)
    return out


def weighted_stats(plan: Plan, totals: Totals, stats: list[dict[str, Any]],
                   values: np.ndarray, w: np.ndarray) -> list[dict[str, Any]]:
    """Every stats row weighted; a metric whose summary is not a mean of per-user values is
    refused."""
    bad = []
    for j, s in enumerate(plan.specs):
        kernel = s.definition.kernel
        micro = kernel is not None and kernel.micro_requests(s) is not None
        if j in totals.global_only or j in totals.overrides or j in totals.pooled or micro \
                or s.summary != "mean" or s.definition.aggregate in ("micro", "pooled"):
            bad.append(s.key)
    if bad:
        raise MetricError(
            f"weights=: {bad} are not summarised by the mean of per-user values (a "
            "catalogue-wide, pooled, micro-averaged, summed or geometric value); evaluate them "
            "without weights=.")
    return [weighted_row(row, values[:, j], w) for j, row in enumerate(stats)]
