"""Metrics of pointwise (CTR) models: normalized entropy, the calibration ratio, the expected
calibration error with its reliability diagram, and the Brier score, each with sample weights.

Every value is a weighted mean over rows ``i`` with label ``y_i`` in {0, 1}, predicted
probability ``p_i`` in [0, 1] and weight ``w_i >= 0`` (all 1 when no weights are given);
``W = sum_i w_i``::

    normalized entropy  NE  = LL / H(p_bar)          (He et al., ADKDD 2014)
        LL = -(1/W) sum_i w_i [y_i log q_i + (1 - y_i) log(1 - q_i)],  q = clip(p, eps, 1 - eps)
        p_bar = (1/W) sum_i w_i y_i,  H(x) = -x log x - (1 - x) log(1 - x)
    calibration ratio   sum_i w_i p_i / sum_i w_i y_i  (TorchRec's ``calibration``)
    Brier score         (1/W) sum_i w_i (p_i - y_i)^2
    ECE                 sum_b (W_b / W) |mean_b(y) - mean_b(p)| = (1/W) sum_b |sum_{i in b} w_i (y_i - p_i)|

The base of the logarithm cancels in NE (TorchRec uses log2, receval the natural log). NE is
undefined (NaN, with the reason) when ``p_bar`` is 0 or 1: the background entropy is then 0.

ECE bins (``bins`` = B): ``binning="width"``: row i is in bin ``min(floor(B p_i), B - 1)``
(B equal-width bins of [0, 1], the last one closed, computed in float64); ``binning="mass"``
(equal-mass, quantile bins): row i is in bin ``min(floor(B F(p_i)), B - 1)`` with ``F(p)`` the
weighted fraction of rows whose prediction is strictly below ``p``, so each bin holds about
``W / B`` of the weight and tied predictions always share a bin. Empty bins add nothing.

Sums are exact (:func:`receval.kernels.exact_partials`) and rounded once, so a
:class:`CalibrationState` built from any split of the rows and merged in any order gives the
same bits as the array functions on all rows.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, MetricError, UndefinedValueWarning, plain, user_stacklevel
from ..kernels import exact_partials
from ..metrics.spec import MetricDef, MetricSpec, Param, register
from ..pack import Packed
from ._common import as_binary, as_float_array, check_choice, same_length
from ._packed import REL, UNLABELLED, user_of_positions
from .probability import AUTO_EPS, check_run_probabilities, cross_entropy, first_outside_unit

__all__ = [
    "CalibrationState", "Reliability", "brier_score", "calibration_ratio",
    "expected_calibration_error", "normalized_entropy", "reliability_diagram",
]

BINNINGS = ("width", "mass")
#: the evaluate() option that weights each scored (user, item) pair of the run
WEIGHT_OPTION = "sample_weights"
WEIGHT_NAMES = ("weight", "sample_weight", "w")


# -------------------------------------------------------------------------------------------------
# Input checks


def check_weights(weights: Any, n: int, name: str = "weights") -> np.ndarray:
    """Sample weights as float64: finite, >= 0, aligned with the rows, not all 0 (ones if None)."""
    if weights is None:
        return np.ones(n, dtype=np.float64)
    w = as_float_array(weights, name)
    if len(w) != n:
        raise InputError(f"{name} has {len(w)} elements but there are {n} rows; give one weight "
                         "per row.")
    neg = w < 0
    if neg.any():
        i = int(np.flatnonzero(neg)[0])
        raise InputError(
            f"{name} must be >= 0; got {int(neg.sum())} negative weight(s) (first at index {i}: "
            f"{plain(w[i])}). Sample weights are counts or importances: drop those rows or give "
            "them a weight >= 0."
        )
    if n and not (w > 0).any():
        raise InputError(
            f"{name} are all 0, so every weighted mean is 0/0; give at least one row a positive "
            "weight."
        )
    return w


def check_probabilities(p: np.ndarray, name: str = "y_prob") -> None:
    i = first_outside_unit(p)
    if i is not None:
        bad = ~((p >= 0) & (p <= 1))
        raise InputError(
            f"{name} must hold probabilities in [0, 1]; got {int(bad.sum())} value(s) outside "
            f"(first at index {i}: {plain(p[i])}). Convert scores to probabilities (e.g. a "
            "sigmoid or a calibration) and drop or fill NaN first."
        )


def _eps(eps: Any) -> float:
    if eps is None or (isinstance(eps, str) and eps == "auto"):
        return AUTO_EPS
    try:
        e = float(eps)
    except (TypeError, ValueError):
        raise InputError(f"eps must be 'auto' or a number in [0, 0.5), got {plain(eps)}.") from None
    if not 0.0 <= e < 0.5:
        raise InputError(f"eps must be 'auto' or a number in [0, 0.5), got {plain(eps)}.")
    return e


def _bins(bins: Any) -> int:
    if isinstance(bins, (bool, np.bool_)) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise InputError(f"bins must be a positive integer (the number of ECE bins), got "
                         f"{plain(bins)}; e.g. bins=10.")
    return int(bins)


def _rows(y_true: Any, y_prob: Any, weights: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(labels as 0.0 / 1.0, probabilities, weights), checked."""
    y = as_binary(y_true)
    p = as_float_array(y_prob, "y_prob", finite=False)
    same_length(y_true=y, y_prob=p)
    if len(p) == 0:
        raise InputError("y_true and y_prob are empty; these metrics need at least one row.")
    check_probabilities(p)
    return y.astype(np.float64), p, check_weights(weights, len(p))


# -------------------------------------------------------------------------------------------------
# Exact sums and the values they make


def _partials(x: np.ndarray) -> list[float]:
    return list(exact_partials(np.ascontiguousarray(x, dtype=np.float64)))


def _exact(partials: list[float]) -> Fraction | float:
    """The exact sum of the partials (a float inf / NaN when one of them is not finite)."""
    if not all(math.isfinite(v) for v in partials):
        return math.fsum(partials)
    return sum((Fraction(v) for v in partials), Fraction(0))


def _compact(partials: list[float]) -> list[float]:
    return _partials(np.asarray(partials)) if len(partials) > 8 else list(partials)


def entropy(x: float) -> float:
    """Binary entropy ``-x log x - (1 - x) log(1 - x)`` (natural log) of ``x`` in (0, 1)."""
    return -(x * math.log(x) + (1.0 - x) * math.log1p(-x))


def ne_value(ce: Fraction | float, pos: Fraction | float, total: Fraction | float
             ) -> tuple[float, str | None]:
    """NE from the exact sums ``sum w ce``, ``sum w y``, ``sum w``: (value, why it is NaN)."""
    if total <= 0:
        return math.nan, "the total weight is 0"
    mean = float(pos / total)
    if not 0.0 < mean < 1.0:
        which = "positive" if mean >= 1.0 else "negative"
        return math.nan, (f"every label is {which} (mean label {plain(mean)}), so the background "
                          "entropy H(p_bar) is 0 and NE = LL / 0 has no value")
    return float(ce / total) / entropy(mean), None


def ratio_value(num: Fraction | float, den: Fraction | float) -> tuple[float, str | None]:
    """``num / den`` of exact sums; inf or NaN (with why) when ``den`` is 0."""
    if den > 0:
        return float(num / den), None
    why = "no row has a positive label (sum of weighted labels 0)"
    return (math.inf, why) if num > 0 else (math.nan, why + " and every prediction is 0")


def _bin_width(p: np.ndarray, bins: int) -> np.ndarray:
    return np.minimum(np.floor(p * bins), bins - 1).astype(np.int64)


def _cumsum_within(x: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Cumulative sums restarted at each index of ``starts`` (sorted, ``starts[0] == 0``),
    each run summed from 0 in order: the same bits as ``np.cumsum`` of the run alone."""
    n = len(x)
    lens = np.diff(np.r_[starts, n])
    width = int(lens.max()) if len(lens) else 0
    if len(lens) * width <= 4 * n + 1024:  # one padded (runs x longest run) array
        pad = np.zeros((len(lens), width))
        col = np.arange(n) - np.repeat(starts, lens)
        row = np.repeat(np.arange(len(lens)), lens)
        pad[row, col] = x
        return np.cumsum(pad, axis=1)[row, col]
    out = np.empty(n)
    for a, b in zip(starts, np.r_[starts[1:], n], strict=True):
        out[a:b] = np.cumsum(x[a:b])
    return out


def _bin_mass(p: np.ndarray, w: np.ndarray, bins: int, group: np.ndarray | None = None,
              n_groups: int = 1) -> np.ndarray:
    """Equal-mass bin of each row (within its group): ``min(floor(B F(p)), B - 1)``, ``F(p)``
    the group's weighted fraction of rows with a prediction strictly below ``p``. Each group is
    binned exactly as the rows of that group alone would be."""
    n = len(p)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    g = np.zeros(n, dtype=np.int64) if group is None else group
    order = np.lexsort((p, g))  # stable: by group, then prediction, then row
    ps, gs, ws = p[order], g[order], w[order]
    g_start = np.r_[0, np.flatnonzero(gs[1:] != gs[:-1]) + 1]
    cum = _cumsum_within(ws, g_start) - ws  # the group's weight before each sorted row
    start = np.ones(n, dtype=bool)  # a new tie group: prediction or group changes
    start[1:] = (ps[1:] != ps[:-1]) | (gs[1:] != gs[:-1])
    below = cum[np.flatnonzero(start)][np.cumsum(start) - 1]  # weight before the tie group
    total = np.bincount(g, weights=w, minlength=n_groups)[gs]
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(total > 0, below / np.where(total > 0, total, 1.0), 0.0)
    out = np.empty(n, dtype=np.int64)
    out[order] = np.minimum(np.floor(frac * bins), bins - 1).astype(np.int64)
    return out


def _bin_of(p: np.ndarray, w: np.ndarray, bins: int, binning: str) -> np.ndarray:
    return _bin_width(p, bins) if binning == "width" else _bin_mass(p, w, bins)


def _gaps(d: np.ndarray, b: np.ndarray, bins: int) -> list[list[float]]:
    """Exact partials of ``sum_{i in bin} d_i`` for each bin."""
    order = np.argsort(b, kind="stable")
    cuts = np.searchsorted(b[order], np.arange(bins + 1))
    ds = d[order]
    return [_partials(ds[cuts[j]:cuts[j + 1]]) for j in range(bins)]


def ece_value(gaps: list[list[float]], total: Fraction | float) -> float:
    """``(1/W) sum_b |D_b|`` from each bin's exact ``D_b = sum w (y - p)``."""
    if total <= 0:
        return math.nan
    acc: Fraction | float = Fraction(0)
    for g in gaps:
        d = _exact(g)
        acc += d if d >= 0 else -d
    return float(acc / total)


@dataclass
class CalibrationState:
    """Mergeable state of the CTR metrics over a set of rows: exact partial sums of ``w``,
    ``w y``, ``w p``, ``w ce`` (the clipped cross-entropy at ``eps``), ``w (p - y)^2`` and, per
    equal-width bin, ``w (y - p)``. :meth:`merge` is associative and commutative, so the
    values are the same bits for any split of the rows and any merge order. Equal-mass ECE
    needs the quantiles of all predictions: its state is the rows (:class:`MassRows`).

    >>> s = CalibrationState.of([1, 0], [0.75, 0.25]).merge(CalibrationState.of([1], [0.5]))
    >>> s.calibration_ratio(), s.rows
    (0.75, 3)
    """

    bins: int = 10
    eps: float = AUTO_EPS
    rows: int = 0
    weight: list[float] = field(default_factory=list)
    pos: list[float] = field(default_factory=list)
    pred: list[float] = field(default_factory=list)
    ce: list[float] = field(default_factory=list)
    sq: list[float] = field(default_factory=list)
    gaps: list[list[float]] = field(default_factory=list)
    #: per equal-width bin: rows, and exact partials of w, w p and w y (the reliability diagram)
    bin_rows: list[int] = field(default_factory=list)
    bin_weight: list[list[float]] = field(default_factory=list)
    bin_pred: list[list[float]] = field(default_factory=list)
    bin_pos: list[list[float]] = field(default_factory=list)

    @classmethod
    def of(cls, y_true: Any, y_prob: Any, *, weights: Any = None, bins: int = 10,
           eps: float | str = "auto") -> CalibrationState:
        """The state of one batch of rows (checked as the array functions check them)."""
        y, p, w = _rows(y_true, y_prob, weights)
        return cls._of(y, p, w, _bins(bins), _eps(eps))

    @classmethod
    def _of(cls, y: np.ndarray, p: np.ndarray, w: np.ndarray, bins: int, e: float
            ) -> CalibrationState:
        ce = cross_entropy(y > 0, p, e)
        b = _bin_width(p, bins)
        return cls(bins=bins, eps=e, rows=len(p), weight=_partials(w), pos=_partials(w * y),
                   pred=_partials(w * p), ce=_partials(w * ce), sq=_partials(w * (p - y) ** 2),
                   gaps=_gaps(w * (y - p), b, bins),
                   bin_rows=np.bincount(b, minlength=bins).astype(int).tolist(),
                   bin_weight=_gaps(w, b, bins), bin_pred=_gaps(w * p, b, bins),
                   bin_pos=_gaps(w * y, b, bins))

    def merge(self, other: CalibrationState) -> CalibrationState:
        """The state of both sets of rows."""
        if (self.bins, self.eps) != (other.bins, other.eps):
            raise InputError(
                f"only states with the same bins and eps merge; got bins={self.bins}, "
                f"eps={plain(self.eps)} and bins={other.bins}, eps={plain(other.eps)}.")
        def per_bin(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
            if a and b:
                return [_compact(x + y) for x, y in zip(a, b, strict=True)]
            return [list(g) for g in (a or b)]

        rows = [x + y for x, y in zip(self.bin_rows, other.bin_rows, strict=True)] \
            if self.bin_rows and other.bin_rows else list(self.bin_rows or other.bin_rows)
        return CalibrationState(
            self.bins, self.eps, self.rows + other.rows, _compact(self.weight + other.weight),
            _compact(self.pos + other.pos), _compact(self.pred + other.pred),
            _compact(self.ce + other.ce), _compact(self.sq + other.sq),
            per_bin(self.gaps, other.gaps), rows, per_bin(self.bin_weight, other.bin_weight),
            per_bin(self.bin_pred, other.bin_pred), per_bin(self.bin_pos, other.bin_pos))

    def to_dict(self) -> dict[str, Any]:
        """Plain lists and numbers (JSON-ready); :meth:`from_dict` restores the state."""
        return {k: getattr(self, k) for k in _FIELDS}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CalibrationState:
        return cls(**{k: data[k] for k in _FIELDS if k in data})

    def _total(self) -> Fraction | float:
        return _exact(self.weight)

    def normalized_entropy(self) -> float:
        return ne_value(_exact(self.ce), _exact(self.pos), self._total())[0]

    def calibration_ratio(self) -> float:
        return ratio_value(_exact(self.pred), _exact(self.pos))[0]

    def brier_score(self) -> float:
        t = self._total()
        return float(_exact(self.sq) / t) if t > 0 else math.nan

    def expected_calibration_error(self) -> float:
        """ECE over ``bins`` equal-width bins."""
        return ece_value(self.gaps, self._total())

    def reliability(self, label: str = "") -> Reliability:
        """The reliability diagram of the rows (equal-width bins), from the exact sums: the
        same as :func:`reliability_diagram` on the rows."""
        nb = self.bins
        count = np.asarray(self.bin_rows, dtype=np.int64)
        wt = np.array([float(_exact(g)) for g in self.bin_weight])
        keep = (count > 0) & (wt > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_p = np.array([float(_exact(g)) for g in self.bin_pred]) / wt
            rate = np.array([float(_exact(g)) for g in self.bin_pos]) / wt
        lo, hi = np.arange(nb) / nb, np.arange(1, nb + 1) / nb
        return Reliability("width", nb, lo[keep], hi[keep], count[keep], wt[keep],
                           mean_p[keep], rate[keep], self.expected_calibration_error(), label)


_FIELDS = ("bins", "eps", "rows", "weight", "pos", "pred", "ce", "sq", "gaps", "bin_rows",
           "bin_weight", "bin_pred", "bin_pos")


@dataclass(frozen=True)
class PooledValue:
    """One CTR metric's pooled value over the rows of a block, mergeable over blocks (the
    :class:`~receval.engines.plugins.MetricValues` ``pooled`` state): the block's
    :class:`CalibrationState` and the metric it gives (``which``, a method of the state)."""

    state: CalibrationState
    which: str

    def merge(self, other: PooledValue) -> PooledValue:
        return PooledValue(self.state.merge(other.state), self.which)

    def value(self) -> float:
        return float(getattr(self.state, self.which)())

    def info(self) -> dict[str, Any]:
        """Facts of the whole evaluation for ``result.info``: ECE's reliability diagram (per
        bin: range, rows, weight, mean prediction, observed rate) as plain lists."""
        if self.which != "expected_calibration_error":
            return {}
        r = self.state.reliability()
        return {"reliability": {"bins": r.bins, "lo": r.lo.tolist(), "hi": r.hi.tolist(),
                                "count": r.count.tolist(), "weight": r.weight.tolist(),
                                "mean_predicted": r.mean_predicted.tolist(),
                                "observed_rate": r.observed_rate.tolist()}}


@dataclass(frozen=True)
class MassRows:
    """Pooled equal-mass ECE over the rows of a block, mergeable over blocks (the
    :class:`~receval.engines.plugins.MetricValues` ``pooled`` state). Its bins are quantiles of
    every prediction, so the state is the rows themselves (``p``, ``y``, ``w``: 24 bytes a
    scored pair); :meth:`value` puts them in one order (by prediction, label, weight) before
    binning, so any split of the rows and any merge order give the same bits."""

    bins: int
    p: np.ndarray
    y: np.ndarray
    w: np.ndarray

    def merge(self, other: MassRows) -> MassRows:
        if self.bins != other.bins:
            raise InputError(f"only equal-mass ECE states with the same bins merge; got "
                             f"{self.bins} and {other.bins}.")
        return MassRows(self.bins, np.concatenate([self.p, other.p]),
                        np.concatenate([self.y, other.y]), np.concatenate([self.w, other.w]))

    def _rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        order = np.lexsort((self.w, self.y, self.p))
        return self.p[order], self.y[order], self.w[order]

    def value(self) -> float:
        p, y, w = self._rows()
        b = _bin_mass(p, w, self.bins)
        return ece_value(_gaps(w * (y - p), b, self.bins), _exact(_partials(w)))

    def info(self) -> dict[str, Any]:
        """The reliability diagram of the equal-mass bins, as :class:`PooledValue` gives it."""
        p, y, w = self._rows()
        if not len(p):
            return {}
        r = reliability_diagram(y, p, bins=self.bins, binning="mass", weights=w)
        return {"reliability": {"bins": r.bins, "lo": r.lo.tolist(), "hi": r.hi.tolist(),
                                "count": r.count.tolist(), "weight": r.weight.tolist(),
                                "mean_predicted": r.mean_predicted.tolist(),
                                "observed_rate": r.observed_rate.tolist()}}


# -------------------------------------------------------------------------------------------------
# Array functions


def _warn(metric: str, why: str | None) -> None:
    if why:
        warnings.warn(f"{metric} has no finite value: {why}.", UndefinedValueWarning,
                      stacklevel=user_stacklevel())


def normalized_entropy(y_true: Any, y_prob: Any, *, weights: Any = None,
                       eps: float | str = "auto") -> float:
    """Normalized entropy (He et al., ADKDD 2014): the log loss divided by the entropy of the
    background rate, ``NE = LL / H(p_bar)``, ``p_bar = sum w y / sum w`` (module docstring).

    Below 1: better than always predicting the mean label. ``eps`` clips the predictions as in
    :func:`~receval.classification.log_loss` (``"auto"``: float64 machine epsilon; TorchRec
    clips at 1e-12). When every label is 0 (or every one 1) H(p_bar) = 0: the result is NaN and
    an :class:`UndefinedValueWarning` says why.

    >>> round(normalized_entropy([1, 0], [0.5, 0.5]), 12)  # log 2 / H(1/2)
    1.0
    """
    y, p, w = _rows(y_true, y_prob, weights)
    ce = cross_entropy(y > 0, p, _eps(eps))
    value, why = ne_value(_exact(_partials(w * ce)), _exact(_partials(w * y)),
                          _exact(_partials(w)))
    _warn("normalized_entropy", why)
    return value


def calibration_ratio(y_true: Any, y_prob: Any, *, weights: Any = None) -> float:
    """``sum w p / sum w y``: predicted over observed positives (TorchRec ``calibration``);
    1 is calibrated on average, above 1 over-predicts. Without a positive label the ratio is
    inf (NaN when every prediction is 0 too), with an :class:`UndefinedValueWarning` (TorchRec
    reports 0 there).

    >>> calibration_ratio([1, 0, 0], [0.5, 0.25, 0.75])
    1.5
    """
    y, p, w = _rows(y_true, y_prob, weights)
    value, why = ratio_value(_exact(_partials(w * p)), _exact(_partials(w * y)))
    _warn("calibration_ratio", why)
    return value


def brier_score(y_true: Any, y_prob: Any, *, weights: Any = None) -> float:
    """Brier score ``sum w (p - y)^2 / sum w`` (scikit-learn ``brier_score_loss``).

    >>> brier_score([1, 0], [0.75, 0.5])
    0.15625
    """
    y, p, w = _rows(y_true, y_prob, weights)
    return float(_exact(_partials(w * (p - y) ** 2)) / _exact(_partials(w)))


def expected_calibration_error(y_true: Any, y_prob: Any, *, bins: int = 10,
                               binning: str = "width", weights: Any = None) -> float:
    """Expected calibration error ``sum_b (W_b / W) |mean_b(y) - mean_b(p)|`` over ``bins``
    bins, ``binning="width"`` (equal-width bins of [0, 1]) or ``"mass"`` (equal-mass, quantile
    bins); the bin rules are in the module docstring. Weighted means when ``weights`` is given.

    >>> expected_calibration_error([1, 0, 1, 1], [0.2, 0.2, 0.8, 0.8], bins=2)  # (2*0.3 + 2*0.2)/4
    0.25
    """
    y, p, w = _rows(y_true, y_prob, weights)
    b = _bins(bins)
    check_choice("binning", binning, BINNINGS)
    return ece_value(_gaps(w * (y - p), _bin_of(p, w, b, binning), b), _exact(_partials(w)))


@dataclass(frozen=True)
class Reliability:
    """A reliability diagram as data: for each non-empty bin, its prediction range
    (``lo``, ``hi``: the bin's edges for equal-width bins, its smallest and largest prediction
    for equal-mass bins), ``count`` (rows), ``weight`` (their total weight), the weighted
    ``mean_predicted`` probability and the weighted ``observed_rate`` of positive labels.
    ``ece`` is the expected calibration error of these bins."""

    binning: str
    bins: int
    lo: np.ndarray
    hi: np.ndarray
    count: np.ndarray
    weight: np.ndarray
    mean_predicted: np.ndarray
    observed_rate: np.ndarray
    ece: float
    label: str = ""

    def to_frame(self) -> Any:
        import pandas as pd

        return pd.DataFrame({"lo": self.lo, "hi": self.hi, "count": self.count,
                             "weight": self.weight, "mean_predicted": self.mean_predicted,
                             "observed_rate": self.observed_rate})

    def plot(self, ax: Any = None, **style: Any) -> Any:
        """Draw the diagram (matplotlib) on ``ax`` (a new figure's axes when ``None``)."""
        from ..report.display import plot_reliability

        return plot_reliability([self], ax=ax, **style)


def reliability_diagram(y_true: Any, y_prob: Any, *, bins: int = 10, binning: str = "width",
                        weights: Any = None, label: str = "") -> Reliability:
    """Per-bin mean prediction against observed positive rate (weighted), with counts: the data
    of a reliability diagram, binned as :func:`expected_calibration_error` bins (same ECE).
    Draw it with ``.plot()`` or :func:`receval.report.plots.plot_reliability`.

    >>> r = reliability_diagram([1, 0, 1, 1], [0.2, 0.2, 0.8, 0.8], bins=2)
    >>> r.mean_predicted.tolist(), r.observed_rate.tolist(), r.count.tolist()
    ([0.2, 0.8], [0.5, 1.0], [2, 2])
    """
    y, p, w = _rows(y_true, y_prob, weights)
    nb = _bins(bins)
    check_choice("binning", binning, BINNINGS)
    b = _bin_of(p, w, nb, binning)
    count = np.bincount(b, minlength=nb)
    wt = np.bincount(b, weights=w, minlength=nb)
    keep = (count > 0) & (wt > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_p = np.bincount(b, weights=w * p, minlength=nb) / wt
        rate = np.bincount(b, weights=w * y, minlength=nb) / wt
    if binning == "width":
        lo, hi = np.arange(nb) / nb, np.arange(1, nb + 1) / nb
    else:
        lo = np.full(nb, np.inf)
        hi = np.full(nb, -np.inf)
        np.minimum.at(lo, b, p)
        np.maximum.at(hi, b, p)
    ece = ece_value(_gaps(w * (y - p), b, nb), _exact(_partials(w)))
    return Reliability(binning, nb, lo[keep], hi[keep], count[keep], wt[keep], mean_p[keep],
                       rate[keep], ece, label)


# -------------------------------------------------------------------------------------------------
# Registered metrics of receval.evaluate over the packed lists (the run's scores are the
# probabilities, y = truth relevance >= rel, weights from evaluate(sample_weights=...)).


def _weight_table(raw: Any) -> Any:
    """``sample_weights`` as a pandas Series indexed by (user, item)."""
    import pandas as pd

    from ..io.frames import ITEM_NAMES, USER_NAMES

    if isinstance(raw, dict):
        keys = list(raw)
        if not all(isinstance(k, tuple) and len(k) == 2 for k in keys):
            raise InputError(
                f"{WEIGHT_OPTION}: a dict must map (user, item) pairs to weights, got a key "
                f"{plain(next(k for k in keys if not (isinstance(k, tuple) and len(k) == 2)))}; "
                "e.g. {(user, item): 2.0}, or pass a table with user, item and weight columns.")
        users: Any = [k[0] for k in keys]
        items: Any = [k[1] for k in keys]
        values = list(raw.values())
    else:
        frame = raw.to_pandas() if hasattr(raw, "to_pandas") else raw
        if not hasattr(frame, "columns"):
            raise InputError(
                f"{WEIGHT_OPTION} must be a table with user, item and weight columns, or a dict "
                f"{{(user, item): weight}}; got {type(raw).__name__}.")
        cols = list(frame.columns)

        def find(names: tuple[str, ...], what: str) -> Any:
            for n in names:
                if n in cols:
                    return n
            raise InputError(f"{WEIGHT_OPTION}: no {what} column (one of {list(names[:4])}) in "
                             f"the columns {plain(cols)}; rename it.")

        users = np.asarray(frame[find(USER_NAMES, "user")])
        items = np.asarray(frame[find(ITEM_NAMES, "item")])
        values = frame[find(WEIGHT_NAMES, "weight")]
    w = check_weights(values, len(values), f"{WEIGHT_OPTION} weights")
    index = pd.MultiIndex.from_arrays([pd.Index(users), pd.Index(items)])
    if index.has_duplicates:
        dup = index[index.duplicated()][0]
        raise InputError(f"{WEIGHT_OPTION}: the pair (user, item) = {plain(dup)} has several "
                         "weights; give each pair one weight.")
    return pd.Series(w, index=index)


def _pair_weights(spec: MetricSpec, packed: Packed, context: Context, user: np.ndarray,
                  pos: np.ndarray) -> np.ndarray | None:
    raw = context.options.get(WEIGHT_OPTION)
    if raw is None:
        return None
    import pandas as pd

    cache = context.__dict__.setdefault("_ctr_cache", {})
    if cache.get("src") is not raw:
        cache["src"], cache["table"] = raw, _weight_table(raw)
    table = cache["table"]
    keys = pd.MultiIndex.from_arrays([pd.Index(packed.user_ids[user]),
                                      pd.Index(packed.item_vocab[packed.items[pos]])])
    at = table.index.get_indexer(keys)
    missing = at < 0
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise InputError(
            f"{spec.key}: {int(missing.sum())} scored (user, item) pair(s) have no weight in "
            f"{WEIGHT_OPTION} (e.g. user {plain(keys[i][0])}, item {plain(keys[i][1])}); give "
            "every scored pair of the run a weight (1 for an unweighted row)."
        )
    return table.to_numpy()[at]


def _pairs(spec: MetricSpec, packed: Packed, context: Context
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    """(user, y, p, w) of the scored pairs that count, and the info shared by the family."""
    if spec.summary != "mean" and spec.get("average") == "micro":
        raise MetricError(
            f"{spec.key}: summary={spec.summary} sums per-user values, but average=micro is one "
            f"value pooled over every pair; use {spec.name}(average=macro,summary="
            f"{spec.summary}) for the sum of the per-user values.")
    user = user_of_positions(packed)
    p = packed.scores
    check_run_probabilities(spec, packed, user)
    pos = np.arange(len(p))
    y = (packed.rel >= float(spec.get("rel"))).astype(np.float64)
    if spec.get("unlabelled") == "skip":
        pos = np.flatnonzero(packed.judged)
        p, y, user = p[pos], y[pos], user[pos]
    w = _pair_weights(spec, packed, context, user, pos)
    weighted = w is not None
    if w is None:
        w = np.ones(len(p))
    elif len(w) and not (w > 0).any():
        raise InputError(f"{spec.key}: every scored pair has weight 0 in {WEIGHT_OPTION}; give "
                         "at least one pair a positive weight.")
    info = {"scored_pairs": int(len(p)), "average": spec.get("average"), "weighted": weighted}
    return user, y, p, w, info


def _per_user(user: np.ndarray, x: np.ndarray, n: int) -> np.ndarray:
    return np.bincount(user, weights=x, minlength=n)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _no_weight(info: dict[str, Any], wu: np.ndarray) -> None:
    info["users_without_weight"] = int((wu <= 0).sum())


def _ne(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    user, y, p, w, info = _pairs(spec, packed, context)
    eps = spec.get("eps")
    e = AUTO_EPS if eps is None else float(eps)
    ce = cross_entropy(y > 0, p, e)
    n = len(packed.user_ids)
    wu, yu, lu = _per_user(user, w, n), _per_user(user, w * y, n), _per_user(user, w * ce, n)
    mean = _ratio(yu, wu)
    single = (wu > 0) & ((mean <= 0) | (mean >= 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        h = -(mean * np.log(mean) + (1 - mean) * np.log1p(-mean))
        per_user = np.where((wu > 0) & ~single, (lu / np.where(wu > 0, wu, 1)) / h, np.nan)
    _no_weight(info, wu)
    info.update(eps=e, users_single_class=int(single.sum()))
    pooled = None
    if spec.get("average") == "micro":
        state = CalibrationState._of(y, p, w, 1, e)
        why = ne_value(_exact(state.ce), _exact(state.pos), _exact(state.weight))[1]
        if why:
            info["undefined"] = why
        pooled = PooledValue(state, "normalized_entropy")
    return MetricValues(per_user, None, info, skipped=single, pooled=pooled)


def _calibration(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    user, y, p, w, info = _pairs(spec, packed, context)
    n = len(packed.user_ids)
    pu, yu = _per_user(user, w * p, n), _per_user(user, w * y, n)
    no_pos = (yu <= 0) & (_per_user(user, w, n) > 0)
    info["users_without_positives"] = int(no_pos.sum())
    pooled = None
    if spec.get("average") == "micro":
        state = CalibrationState._of(y, p, w, 1, AUTO_EPS)
        why = ratio_value(_exact(state.pred), _exact(state.pos))[1]
        if why:
            info["undefined"] = why
        pooled = PooledValue(state, "calibration_ratio")
    return MetricValues(_ratio(pu, yu), None, info, skipped=no_pos, pooled=pooled)


def _brier(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    user, y, p, w, info = _pairs(spec, packed, context)
    n = len(packed.user_ids)
    su, wu = _per_user(user, w * (p - y) ** 2, n), _per_user(user, w, n)
    _no_weight(info, wu)
    micro = spec.get("average") == "micro"
    return MetricValues(_ratio(su, wu), None, info, num=su if micro else None,
                        den=wu if micro else None)


def _ece(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    user, y, p, w, info = _pairs(spec, packed, context)
    n = len(packed.user_ids)
    nb, binning = int(spec.get("bins")), spec.get("binning")
    b = _bin_width(p, nb) if binning == "width" else _bin_mass(p, w, nb, user, n)
    d = np.bincount(user * nb + b, weights=w * (y - p), minlength=n * nb).reshape(n, nb)
    wu = _per_user(user, w, n)
    per_user = _ratio(np.abs(d).sum(axis=1), wu)
    _no_weight(info, wu)
    info.update(bins=nb, binning=binning)
    pooled: PooledValue | MassRows | None = None
    if spec.get("average") == "micro" and binning == "width":  # per-bin sums merge
        pooled = PooledValue(CalibrationState._of(y, p, w, nb, AUTO_EPS),
                             "expected_calibration_error")
    elif spec.get("average") == "micro":  # equal-mass bins: the rows themselves merge
        pooled = MassRows(nb, p.astype(np.float64), y.astype(np.float64), w.astype(np.float64))
    return MetricValues(per_user, None, info, pooled=pooled)


AVERAGE = Param("average", "micro", "micro = pooled over every scored pair of every user (the "
                "CTR definition) | macro = mean of per-user values", ("micro", "macro"))
EPS = Param("eps", None, "clipping of the predictions in the log loss (auto: float64 machine "
            "epsilon, as log_loss; TorchRec uses 1e-12)", kind=float, low=0.0, high=0.5,
            high_open=True)
BINS = Param("bins", 10, "number of ECE bins B", kind=int, low=1)
BINNING = Param("binning", "width", "width = B equal-width bins of [0, 1] | mass = equal-mass "
                "(quantile) bins of the predictions", BINNINGS)
_INPUT = (" The run's scores are predicted probabilities (outside [0, 1] or NaN raises); y = "
          "truth relevance >= rel; only scored items count (unlabelled=skip: only those in the "
          "truth). Weights: evaluate(..., sample_weights=...) weights each scored (user, item) "
          "pair (a table with user, item and weight columns, or {(user, item): w}); else 1. "
          "average=micro pools every pair; macro averages per-user values.")

register(MetricDef(
    "normalized_entropy", "Normalized entropy (normalized cross-entropy)",
    "NE = LL / H(p_bar): LL = -(1/W) sum w [y log q + (1 - y) log(1 - q)], q = clip(p, eps, "
    "1 - eps), p_bar = sum w y / W, H(x) = -x log x - (1 - x) log(1 - x)",
    "Log loss relative to always predicting the background rate; below 1 beats it. NaN where "
    "every label is 0 or every one is 1 (H(p_bar) = 0; per user: skipped, counted; pooled: "
    "the reason in info['undefined'])." + _INPUT,
    (REL, AVERAGE, UNLABELLED, EPS), cutoff="none", higher_is_better=False, bounds=(0.0, None),
    family="classification", compute=_ne,
    reference="He et al., Practical lessons from predicting clicks on ads at Facebook (ADKDD "
              "2014); TorchRec torchrec/metrics/ne.py",
    example="scores (0.5, 0.5), labels (1, 0): log 2 / H(1/2) = 1",
), ("ne",))

register(MetricDef(
    "calibration_ratio", "Calibration ratio (predicted / observed positives)",
    "sum w p / sum w y",
    "1 = calibrated on average, above 1 over-predicts (the best value is 1, not an extreme). "
    "Per user: no value for a user without a positive label (skipped, counted); pooled "
    "(micro): inf without any positive label (NaN if every prediction is 0 too), the reason in "
    "info['undefined'] (TorchRec reports 0 there)." + _INPUT,
    (REL, AVERAGE, UNLABELLED), cutoff="none", higher_is_better=False, bounds=(0.0, None),
    best=1.0, family="classification", compute=_calibration,
    reference="TorchRec torchrec/metrics/calibration.py (calibration_num / calibration_denom)",
    example="scores (0.5, 0.25, 0.75), labels (1, 0, 0): 1.5 / 1 = 1.5",
), ("calibration",))

register(MetricDef(
    "brier_score", "Brier score", "(1/W) sum w (p - y)^2",
    "Mean squared error of the predicted probabilities (micro: mergeable over blocks)." + _INPUT,
    (REL, AVERAGE, UNLABELLED), cutoff="none", higher_is_better=False, bounds=(0.0, 1.0),
    family="classification", compute=_brier,
    reference="Brier (1950); scikit-learn brier_score_loss",
    example="scores (0.75, 0.5), labels (1, 0): (1/16 + 1/4) / 2 = 0.15625",
), ("brier",))

register(MetricDef(
    "ece", "Expected calibration error",
    "sum_b (W_b / W) |mean_b(y) - mean_b(p)| over B bins (weighted means)",
    "Gap between predicted and observed rates within bins of the predictions. binning=width: "
    "row in bin min(floor(B p), B - 1); binning=mass: min(floor(B F(p)), B - 1), F(p) = the "
    "weighted fraction of predictions below p (the user's own under macro), ties share a bin. "
    "Empty bins add nothing." + _INPUT,
    (REL, AVERAGE, UNLABELLED, BINS, BINNING), cutoff="none", higher_is_better=False,
    bounds=(0.0, 1.0), family="classification", compute=_ece,
    reference="Naeini, Cooper & Hauskrecht (AAAI 2015); Guo et al. (ICML 2017)",
    example="scores (0.2, 0.2, 0.8, 0.8), labels (1, 0, 1, 1), bins=2: (2 * 0.3 + 2 * 0.2) / 4 "
            "= 0.25",
), ("expected_calibration_error",))
