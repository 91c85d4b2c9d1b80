"""Curves as data (thresholds, x, y) that also draw themselves: ROC, precision-recall,
interpolated precision, and metric@k against k.

Precision-recall conventions for scores ``s`` and binary labels, ``P`` positives. At each
distinct threshold ``t`` (descending), with ``TP(t)``, ``FP(t)`` counting examples scored >= t:
``precision(t) = TP / (TP + FP)``, ``recall(t) = TP / P``. Tied scores form one point.

Average precision as an area (Manning et al. 2008, ``AveP = integral_0^1 p(r) dr``), ``interpolation``:

- ``step`` (default): ``AP = sum_n (R_n - R_{n-1}) P_n`` with ``R_0 = 0``; the precision
  between two recall levels is the one reached at the upper level (scikit-learn
  ``average_precision_score``).
- ``max``: the same sum over the interpolated precision ``max_{m >= n} P_m`` (all-point
  interpolated AP, PASCAL VOC 2010+).
- ``trapezoid``: trapezoid rule through (0, 1) and every point (optimistic; Davis & Goadrich
  2006 explain why linear interpolation in PR space is wrong; kept for comparison).

Difference from the core ``map`` (discrete sum ``AP = (1/R) sum_k P@k rel_k`` over one ranked
list, ties broken by item id): with no tied scores and every positive scored, ``step`` equals
it. With ties, the area gives every positive of a tied block the precision at the *end* of the
block: scores (0.8, 0.8), labels (1, 0): area AP = 1/2, while the discrete sum is 1 or 1/2
depending on which item the tie rule puts first (expected value 3/4). Positives that are not
scored at all never reach the curve: the area stops at the highest recall reached.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, plain
from ._common import as_binary, as_float_array, check_choice, order_desc, same_length

__all__ = [
    "Curve", "Curves", "average_precision", "break_even_point", "eleven_point_average_precision",
    "interpolated_precision", "metric_at_k", "pr_curve",
]


@dataclass(frozen=True)
class Curve:
    """One curve: ``x``, ``y`` and the ``thresholds`` that produced each point (or ``None``).

    ``kind``: ``roc``, ``pr``, ``interpolated_pr``, ``at_k`` or ``recall_iou``; ``area`` is the
    area the producing function reports (AUC, AP, ...). Unpacks as ``thresholds, x, y``.
    ``plot()`` draws it on a matplotlib axes; ``save(path)`` writes PNG / SVG / PDF without a
    display; ``render(format)`` returns those bytes; ``to_dict()`` gives plain lists for JSON and
    HTML reports.
    """

    kind: str
    x: np.ndarray
    y: np.ndarray
    thresholds: np.ndarray | None = None
    xlabel: str = "x"
    ylabel: str = "y"
    label: str = ""
    area: float | None = None
    info: dict[str, Any] = field(default_factory=dict)

    def arrays(self) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
        return self.thresholds, self.x, self.y

    def __iter__(self):
        return iter(self.arrays())

    def __len__(self) -> int:
        return len(self.x)

    def to_dict(self) -> dict[str, Any]:
        def lst(a: np.ndarray | None) -> list | None:
            if a is None:
                return None
            return [None if not np.isfinite(v) else float(v) for v in np.asarray(a, float)]

        return {"kind": self.kind, "label": self.label, "xlabel": self.xlabel,
                "ylabel": self.ylabel, "x": lst(self.x), "y": lst(self.y),
                "thresholds": lst(self.thresholds),
                "area": None if self.area is None else float(self.area),
                "info": _plain(self.info)}

    def plot(self, ax: Any = None, **style: Any) -> Any:
        """Draw on ``ax`` (a new Figure's axes when ``None``); returns the axes."""
        from ..report.display import plot_curves

        return plot_curves([self], ax=ax, **style)

    def save(self, path: str | Path, *, format: str | None = None, **style: Any) -> Path:
        """Render to a file (format from the suffix: png, svg, pdf) with the Agg backend."""
        from ..report.display import save_curves

        return save_curves([self], path, format=format, **style)

    def render(self, format: str = "svg", **style: Any) -> bytes:
        """The figure as bytes (svg, png or pdf), for embedding in reports."""
        from ..report.display import render_curves

        return render_curves([self], format=format, **style)


class Curves(list):
    """Several curves drawn on one set of axes (e.g. precision@k, recall@k, ndcg@k)."""

    title: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "curves": [c.to_dict() for c in self]}

    def plot(self, ax: Any = None, **style: Any) -> Any:
        from ..report.display import plot_curves

        return plot_curves(list(self), ax=ax, title=self.title, **style)

    def save(self, path: str | Path, *, format: str | None = None, **style: Any) -> Path:
        from ..report.display import save_curves

        return save_curves(list(self), path, format=format, title=self.title, **style)

    def render(self, format: str = "svg", **style: Any) -> bytes:
        from ..report.display import render_curves

        return render_curves(list(self), format=format, title=self.title, **style)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            for c in self:
                if c.label == key:
                    return c
            raise KeyError(f"no curve labelled {plain(key)}; labels: {[c.label for c in self]}")
        return super().__getitem__(key)


def _plain(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


# ---- precision-recall ------------------------------------------------------------------------

def _pr_points(y_true: Any, y_score: Any):
    labels = as_binary(y_true)
    scores = as_float_array(y_score, "y_score")
    same_length(y_true=labels, y_score=scores)
    npos = int(labels.sum())
    if npos == 0:
        raise InputError(
            "precision-recall needs at least one positive in y_true (recall is 0/0 otherwise)."
        )
    order = order_desc(scores)
    s, lab = scores[order], labels[order]
    last = np.flatnonzero(np.r_[s[1:] != s[:-1], True])
    tp = np.cumsum(lab)[last].astype(np.float64)
    fp = (last + 1) - tp
    return s[last], tp, fp, float(npos), s, lab


def pr_curve(y_true: Any, y_score: Any, *, label: str = "") -> Curve:
    """Precision-recall curve: recall (x) and precision (y) at each distinct threshold,
    thresholds descending (recall non-decreasing). ``area`` is :func:`average_precision`
    (``step``); ``info["bep"]`` the break-even point. No artificial end point is added
    (scikit-learn appends (recall 0, precision 1)).

    >>> c = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
    >>> c.x.tolist(), c.y.tolist(), c.area  # AP = 1/2 * 1 + 1/2 * 2/3
    ([0.5, 0.5, 1.0, 1.0], [1.0, 0.5, 0.6666666666666666, 0.5], 0.8333333333333333)
    """
    thr, tp, fp, npos, _, _ = _pr_points(y_true, y_score)
    precision = tp / (tp + fp)
    recall = tp / npos
    return Curve("pr", recall, precision, thr, xlabel="Recall", ylabel="Precision", label=label,
                 area=_ap(recall, precision, "step"),
                 info={"bep": break_even_point(y_true, y_score), "positives": npos})


def _ap(recall: np.ndarray, precision: np.ndarray, interpolation: str) -> float:
    if interpolation == "trapezoid":
        x = np.r_[0.0, recall]
        y = np.r_[1.0, precision]
        return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0))
    p = precision
    if interpolation == "max":
        p = np.maximum.accumulate(precision[::-1])[::-1]
    return float(np.sum(np.diff(np.r_[0.0, recall]) * p))


def average_precision(y_true: Any, y_score: Any, *, interpolation: str = "step") -> float:
    """Average precision as the area under the precision-recall curve (Manning, Raghavan & Schuetze 2008).

    ``step``: ``AP = sum_n (R_n - R_{n-1}) P_n`` (= scikit-learn ``average_precision_score``);
    ``max``: ``sum_n (R_n - R_{n-1}) max_{m >= n} P_m``; ``trapezoid``: trapezoid rule through
    (0, 1). See the module docstring for how it differs from the core discrete ``map``.

    >>> average_precision([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])  # 1/2 * (1 + 2/3)
    0.8333333333333333
    >>> average_precision([1, 0], [0.8, 0.8])  # the tie gives both positives precision 1/2
    0.5
    """
    check_choice("interpolation", interpolation, ("step", "max", "trapezoid"))
    _, tp, fp, npos, _, _ = _pr_points(y_true, y_score)
    return _ap(tp / npos, tp / (tp + fp), interpolation)


ELEVEN = np.linspace(0.0, 1.0, 11)


def interpolated_precision(y_true: Any, y_score: Any, *, recall_levels: Any = None,
                           label: str = "") -> Curve:
    """Interpolated precision at standard recall levels (11-point by default: 0, 0.1, ..., 1).

    ``p_interp(r) = max { P_n : R_n >= r }`` (0 when no point reaches recall r). ``area`` is the
    mean over the levels: the 11-point interpolated average precision (TREC, PASCAL VOC 2007).

    >>> curve = interpolated_precision([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
    >>> curve.y.tolist()[4:8]   # recall levels 0.4, 0.5, 0.6, 0.7
    [1.0, 1.0, 0.6666666666666666, 0.6666666666666666]
    """
    levels = ELEVEN if recall_levels is None else as_float_array(recall_levels, "recall_levels")
    if ((levels < 0) | (levels > 1)).any():
        raise InputError(f"recall_levels must lie in [0, 1], got {levels.tolist()}.")
    _, tp, fp, npos, _, _ = _pr_points(y_true, y_score)
    recall, precision = tp / npos, tp / (tp + fp)
    best_from = np.maximum.accumulate(precision[::-1])[::-1]  # max over points n..end
    # first point with recall >= level, compared as TP >= level * P (1e-9 absorbs levels such
    # as 0.3 that have no exact binary form)
    idx = np.searchsorted(tp, levels * npos - 1e-9, side="left")
    reached = idx < len(recall)
    p = np.where(reached, best_from[np.minimum(idx, len(recall) - 1)], 0.0)
    return Curve("interpolated_pr", levels.copy(), p, None, xlabel="Recall",
                 ylabel="Interpolated precision", label=label, area=float(np.mean(p)),
                 info={"levels": len(levels)})


def eleven_point_average_precision(y_true: Any, y_score: Any) -> float:
    """``(1/11) sum_{r in {0, 0.1, ..., 1}} p_interp(r)``; see :func:`interpolated_precision`.

    >>> eleven_point_average_precision([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])  # (6 + 5 * 2/3) / 11
    0.8484848484848484
    """
    return float(interpolated_precision(y_true, y_score).area)  # type: ignore[arg-type]


def break_even_point(y_true: Any, y_score: Any) -> float:
    """Break-even point (Joachims 2005): the value where precision = recall on the PR curve.

    Precision = recall exactly when the number of examples predicted positive equals the
    number of positives ``P``, i.e. at rank ``P``: so with no ties the BEP is the R-precision
    ``TP@P / P`` (the core ``r_precision``). When a tied block of scores straddles rank P, the
    block is taken in random order: ``BEP = (TP_before + (P - n_before) * p_block / n_block) / P``
    (the expected R-precision; the point lies on the curve interpolated in (TP, FP) space).

    >>> break_even_point([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])  # rank 2: 1 hit of 2
    0.5
    """
    _, _, _, npos, s, lab = _pr_points(y_true, y_score)
    p = int(npos)
    # block of tied scores that contains rank p (1-based)
    v = s[p - 1]
    lo = int(np.searchsorted(-s, -v, side="left"))
    hi = int(np.searchsorted(-s, -v, side="right"))
    tp_before = float(lab[:lo].sum())
    in_block = float(lab[lo:hi].sum())
    return (tp_before + (p - lo) * in_block / (hi - lo)) / npos


# ---- metric@k against k ----------------------------------------------------------------------

def metric_at_k(run: Any, truth: Any, metrics: Any = ("precision", "recall", "ndcg"),
                ks: Any = range(1, 21), *, title: str = "", **kwargs: Any) -> Curves:
    """Summary value of each metric at every cutoff in ``ks``, one :class:`Curve` per metric
    (x = k, y = mean over users), computed in one :func:`receval.evaluate` call.

    ``metrics`` are keys without a cutoff, parameters allowed (``"ndcg(gain=exp)"``);
    ``kwargs`` go to :func:`receval.evaluate` (policies, column names).
    """
    from ..engines.evaluator import evaluate_local as evaluate
    from ..metrics import metric, parse_metric

    if isinstance(metrics, str):
        metrics = [metrics]
    ks_arr = np.asarray(list(ks))
    if ks_arr.ndim != 1 or len(ks_arr) == 0 or ks_arr.dtype.kind not in "iu" or (ks_arr < 1).any():
        raise InputError(f"ks must be a non-empty sequence of positive integers, got {plain(ks)}.")
    bases = [parse_metric(m) for m in metrics]
    for b in bases:
        if b.k is not None:
            raise InputError(
                f"metric_at_k takes metrics without a cutoff (the cutoffs come from ks); got "
                f"{plain(b.key)}, pass {plain(b.name)} instead."
            )
    specs = [[metric(b.name, int(k), **dict(b.params)) for k in ks_arr] for b in bases]
    res = evaluate(run, truth, [s for row in specs for s in row], **kwargs)
    out = Curves()
    out.title = title
    for b, row in zip(bases, specs, strict=True):
        y = np.array([res.summary[s.key] for s in row], dtype=np.float64)
        out.append(Curve("at_k", ks_arr.astype(np.float64), y, None, xlabel="k (cutoff)",
                         ylabel="value", label=b.key,
                         info={"keys": [s.key for s in row], "counts": dict(res.counts)}))
    return out
