"""The one aggregator: per-user values to summaries, exactly and in any order.

Every executor (in memory, block streaming, a distributed engine) turns its blocks of users into
:class:`MetricState` values, merges them with :meth:`MetricState.merge` and finishes them with
:meth:`MetricState.summary`. The sums are exact: a state holds the non-overlapping partials of
the exact sum of its values and of their exact squares (:func:`receval.kernels.exact_partials`),
so merging is associative and commutative and the summary is the same bits for any split of the
users into blocks and any order of the blocks.

For one metric over the users that enter its summary (``n`` of them, values ``x_u``)::

    mean = (sum x_u) / n                                  (micro: sum num_u / sum den_u)
    std  = sqrt((sum x_u^2 - (sum x_u)^2 / n) / (n - 1))  (sample standard deviation)
    se   = std / sqrt(n)

each computed exactly from the exact sums and rounded once (``std`` twice: the variance, then its
square root). A metric summarised otherwise (:data:`receval.metrics.spec.SUMMARIES`) reports in
``mean``, from the same exact sum::

    sum        = sum x_u                 se = std sqrt(n)   (n times the mean's se)
    geometric  = exp((sum x_u) / n)      se = NaN           (x_u are logarithms)

so its value too is the same bits for any split of the users.

Each user has a status per metric: ``IN`` (enters the summary; a NaN value there makes the mean
NaN, which is what ``empty_truth="nan"`` asks for), ``SKIPPED`` (no relevant truth item under
``empty_truth="skip"``; counted) or ``NO_VALUE`` (the metric is undefined for this user, e.g.
``first_hit_rank`` without a hit; left out, not counted as skipped).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ..kernels import exact_partials

IN, SKIPPED, NO_VALUE = 0, 1, 2


def _exact(partials: list[float]) -> Fraction:
    return sum((Fraction(p) for p in partials), Fraction(0))


def _compact(partials: list[float]) -> list[float]:
    """The same exact sum in fewer partials (keeps merged states small)."""
    return exact_partials(np.asarray(partials, dtype=np.float64)) if len(partials) > 8 \
        else partials


def _exp(x: float) -> float:
    """exp(x), with exp(-inf) = 0, exp(inf) = inf and NaN kept; inf where it overflows."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


@dataclass
class MetricState:
    """Mergeable summary state of one metric over a set of users.

    ``n``: users that enter the summary; ``skipped``: users skipped for having no relevant item;
    ``nan``: users in ``n`` whose value is NaN; ``total`` / ``squares``: exact partials of the sum
    of the values and of their squares (finite values of users in ``n``); ``num`` / ``den``:
    exact partials of a micro average's numerators and denominators; ``nonfinite``: a sum of
    the infinite values (they cannot be summed exactly, and make the summary infinite or NaN).
    """

    n: int = 0
    skipped: int = 0
    nan: int = 0
    total: list[float] = field(default_factory=list)
    squares: list[float] = field(default_factory=list)
    num: list[float] | None = None
    den: list[float] | None = None
    nonfinite: float = 0.0

    @classmethod
    def of(cls, values: np.ndarray, status: np.ndarray, num: np.ndarray | None = None,
           den: np.ndarray | None = None) -> MetricState:
        """State of one block: per-user values, statuses and (micro) numerators/denominators."""
        inside = status == IN
        whole = bool(inside.all())
        x = np.ascontiguousarray(values if whole else values[inside], dtype=np.float64)
        nonfinite = 0.0
        n_nan = 0
        if not np.isfinite(x).all():
            n_nan = int(np.isnan(x).sum())
            inf = np.isinf(x)
            if inf.any():
                nonfinite = float(np.sum(x[inf]))
                x = np.where(inf, np.nan, x)
        state = cls(n=len(x), skipped=0 if whole else int((status == SKIPPED).sum()),
                    nan=n_nan, total=exact_partials(x), squares=exact_partials(x, 1),
                    nonfinite=nonfinite)
        if num is not None and den is not None:
            state.num = exact_partials(np.ascontiguousarray(num if whole else num[inside],
                                                            dtype=np.float64))
            state.den = exact_partials(np.ascontiguousarray(den if whole else den[inside],
                                                            dtype=np.float64))
        return state

    def merge(self, other: MetricState) -> MetricState:
        """The state of the union of both sets of users (associative, commutative)."""
        def cat(a: list[float] | None, b: list[float] | None) -> list[float] | None:
            if a is None or b is None:
                return a if b is None else b
            return _compact(a + b)

        return MetricState(
            n=self.n + other.n, skipped=self.skipped + other.skipped, nan=self.nan + other.nan,
            total=_compact(self.total + other.total),
            squares=_compact(self.squares + other.squares), num=cat(self.num, other.num),
            den=cat(self.den, other.den), nonfinite=self.nonfinite + other.nonfinite,
        )

    def summary(self, metric: str, value: float | None = None,
                mode: str = "mean") -> dict[str, Any]:
        """``metric, mean, std, se, n, skipped``; ``mode``: ``"mean"``, ``"sum"`` or
        ``"geometric"`` (module docstring); ``value`` overrides the result (a plugin's global
        value)."""
        n = self.n
        nan = float("nan")
        if self.nan:
            mean = std = nan
        elif self.nonfinite:
            mean, std = self.nonfinite, nan
        elif n == 0:
            mean, std = (0.0 if mode == "sum" else nan), nan  # an empty sum is 0
        else:
            s1 = _exact(self.total)
            mean = float(s1) if mode == "sum" else float(s1 / n)
            if n > 1:
                var = (_exact(self.squares) - s1 * s1 / n) / (n - 1)
                std = math.sqrt(float(max(var, Fraction(0))))
            else:
                std = nan
        if self.num is not None and self.den is not None and not self.nan:
            den = _exact(self.den)
            mean = float(_exact(self.num) / den) if den > 0 else nan
        if mode == "geometric":
            mean = _exp(mean)
        if value is not None:
            mean = float(value)
        se = std / math.sqrt(n) if n > 1 and std == std else nan
        if mode != "mean" and value is None:
            se = std * math.sqrt(n) if mode == "sum" and se == se else nan
        return {"metric": metric, "mean": mean, "std": std, "se": se, "n": n,
                "skipped": self.skipped}
