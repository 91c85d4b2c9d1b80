"""ROC curve and the AUC family: AUC, per-user AUC averaged (GAUC), global AUC, limited AUC.

Conventions (one user, or one pooled set of scored pairs): ``P`` positives, ``N`` negatives.

- AUC = (1 / (P N)) * sum over (positive p, negative n) of ``[s_p > s_n] + 1/2 [s_p = s_n]``
  (Mann-Whitney U / (P N); ties count one half). It equals the trapezoidal area under the ROC
  curve whose points are taken at each distinct threshold, so tied scores give a diagonal segment.
- Trapezoid rule (Fawcett 2006): ``AUC = sum_{i=2}^{m} (x_i - x_{i-1}) (y_i + y_{i-1}) / 2``.

Reference: Fawcett, "An introduction to ROC analysis", Pattern Recognition Letters 27 (2006).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError
from ._common import (
    Score,
    as_binary,
    as_float_array,
    as_weights,
    order_desc,
    same_length,
)
from ._pairs import pair_counts
from .curves import Curve

__all__ = [
    "auc", "gauc", "global_auc", "lauc", "pair_counts", "roc_auc", "roc_curve", "scored_pairs",
]


def auc(x: Any, y: Any) -> float:
    """Area under a piecewise-linear curve by the trapezoid rule.

    ``AUC = sum_{i=2}^{m} (x_i - x_{i-1}) (y_i + y_{i-1}) / 2`` (Fawcett 2006). ``x`` must be
    monotone (non-decreasing or non-increasing; a decreasing ``x`` gives the same positive area).

    >>> auc([0, 0.5, 1], [0, 1, 1])
    0.75
    """
    xa = as_float_array(x, "x")
    ya = as_float_array(y, "y")
    same_length(x=xa, y=ya)
    if len(xa) < 2:
        raise InputError(f"auc needs at least 2 points, got {len(xa)}.")
    dx = np.diff(xa)
    if (dx < 0).any() and (dx > 0).any():
        raise InputError(
            "x must be monotone (sorted increasing or decreasing) for the trapezoid rule; sort "
            "the points by x first."
        )
    return abs(float(np.sum(dx * (ya[1:] + ya[:-1]) / 2.0)))


def _roc_points(y_true: Any, y_score: Any, sample_weight: Any = None):
    labels = as_binary(y_true)
    scores = as_float_array(y_score, "y_score")
    same_length(y_true=labels, y_score=scores)
    w = as_weights(sample_weight, len(labels))
    order = order_desc(scores)
    s = scores[order]
    lab = labels[order]
    wt = np.ones(len(s)) if w is None else w[order]
    tp = np.cumsum(wt * lab)
    fp = np.cumsum(wt * ~lab)
    last = np.flatnonzero(np.r_[s[1:] != s[:-1], True]) if len(s) else np.zeros(0, dtype=int)
    tps = np.r_[0.0, tp[last]]
    fps = np.r_[0.0, fp[last]]
    thr = np.r_[np.inf, s[last]]
    return thr, fps, tps


def roc_curve(y_true: Any, y_score: Any, *, sample_weight: Any = None,
              drop_intermediate: bool = False, label: str = "") -> Curve:
    """ROC curve: false-positive rate (x) and true-positive rate (y) at each distinct threshold.

    ``FPR(t) = FP(t) / N``, ``TPR(t) = TP(t) / P`` where an example is predicted positive when
    ``score >= t``. Thresholds run from ``+inf`` (the point (0, 0)) down to the lowest score
    (the point (1, 1)); tied scores form one point. ``drop_intermediate=True`` removes collinear
    points (same area). ``curve.area`` is :func:`roc_auc`. Unpack as
    ``thresholds, fpr, tpr = roc_curve(y, s)``.

    >>> c = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> c.x.tolist(), c.y.tolist(), c.area
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0], 0.75)
    """
    thr, fps, tps = _roc_points(y_true, y_score, sample_weight)
    if tps[-1] <= 0 or fps[-1] <= 0:
        raise InputError(
            f"the ROC curve needs both classes: got {tps[-1]:g} positive and {fps[-1]:g} negative "
            "weight in y_true."
        )
    if drop_intermediate and len(fps) > 3:
        # keep the (0, 0) point, the first and last thresholds and every corner (counts, exact)
        keep = np.ones(len(fps), dtype=bool)
        keep[2:-1] = (np.diff(fps[1:], 2) != 0) | (np.diff(tps[1:], 2) != 0)
        thr, fps, tps = thr[keep], fps[keep], tps[keep]
    fpr, tpr = fps / fps[-1], tps / tps[-1]
    return Curve("roc", fpr, tpr, thr, xlabel="False-positive rate", ylabel="True-positive rate",
                 label=label, area=auc(fpr, tpr),
                 info={"positives": float(tps[-1]), "negatives": float(fps[-1])})


def roc_auc(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """Area under the ROC curve: ``(1/(P N)) sum_{p,n} ([s_p > s_n] + 1/2 [s_p = s_n])``.

    Equal to scikit-learn's ``roc_auc_score`` for binary labels. Both classes must be present.

    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> roc_auc([1, 0], [0.5, 0.5])  # a tie counts one half
    0.5
    """
    if sample_weight is not None:
        return roc_curve(y_true, y_score, sample_weight=sample_weight).area  # type: ignore
    labels = as_binary(y_true)
    scores = as_float_array(y_score, "y_score")
    same_length(y_true=labels, y_score=scores)
    order = order_desc(scores)
    npos, nneg, correct = pair_counts(np.array([0, len(scores)]), scores[order], labels[order])
    if npos[0] == 0 or nneg[0] == 0:
        raise InputError(
            f"AUC needs both classes: y_true has {int(npos[0])} positive(s) and {int(nneg[0])} "
            "negative(s)."
        )
    return float(correct[0] / (npos[0] * nneg[0]))


def _evaluate_one(run: Any, truth: Any, spec: Any, kwargs: dict) -> Score:
    from ..engines.evaluator import evaluate_local as evaluate

    res = evaluate(run, truth, [spec], **kwargs)
    key = res.metrics[0]
    return Score(key, float(res.summary[key]), res.per_user[key], dict(res.info.get(key, {})))


def gauc(run: Any, truth: Any, *, weight: str = "none", rel: float = 1.0,
         candidates: str = "list", single_class: str = "skip", catalog: int | None = None,
         **kwargs: Any) -> Score:
    """Per-user AUC averaged over users (GAUC) from a run table and a truth table.

    ``AUC_u = C_u / (P_u N_u)`` over the user's scored items (``candidates="list"``: a
    positive is a scored item whose truth relevance is >= ``rel``; every other scored item is a
    negative) or over the whole catalogue (``candidates="catalog"``: unscored items rank below
    all scored ones, tied with each other). ``GAUC = sum_u w_u AUC_u / sum_u w_u`` with
    ``weight``: ``none`` (w_u = 1), ``positives`` (w_u = P_u), ``impressions`` (w_u = P_u + N_u).
    Users with no positive or no negative: ``single_class="skip"`` (left out, counted in
    ``info``) or ``"error"``. Other keywords (``user_col``, ``ties``, ...) go to
    :func:`receval.evaluate`. Returns a :class:`Score` with per-user AUC values.
    """
    from ..metrics import metric

    spec = metric("gauc", None, weight=weight, rel=rel, candidates=candidates,
                  single_class=single_class, catalog=catalog)
    return _evaluate_one(run, truth, spec, kwargs)


def lauc(run: Any, truth: Any, k: int, *, rel: float = 1.0, tail: str = "linear",
         single_class: str = "skip", catalog: int | None = None, **kwargs: Any) -> Score:
    """Limited AUC at k (LAUC@k, Schroder et al. 2011): the ROC area using only each user's top k.

    The ROC curve of the top k (``x = FP_i / N``, ``y = TP_i / P`` after rank i, with
    ``P`` = the user's relevant truth items, ``N`` = catalogue size - P) is closed by
    ``tail="linear"``: a straight line from its last point to (1, 1), i.e. the items after rank
    k are treated as tied (a random order); or ``tail="none"``: no area right of the last point.
    See :func:`gauc` for the other keywords.
    """
    from ..metrics import metric

    spec = metric("lauc", k, rel=rel, tail=tail, single_class=single_class, catalog=catalog)
    return _evaluate_one(run, truth, spec, kwargs)


def scored_pairs(run: Any, truth: Any, *, rel: float = 1.0, user_col: str | None = None,
                 item_col: str | None = None, score_col: str | None = None,
                 rel_col: str | None = None, **policies: Any
                 ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Labels and scores of every scored (user, item) pair of a run, for the array functions:
    ``y, s, info = scored_pairs(run, truth); roc_curve(y, s)``.

    A pair is positive when the truth gives it relevance >= ``rel``. ``policies`` (``ties``,
    ``duplicates``, ``nan_scores``, ``users``, ...) go to the packing step as in
    :func:`receval.evaluate`. ``info`` counts positives, negatives and the truth pairs the run
    does not score (``unscored_positives``).
    """
    from ..engines.evaluator import Evaluator

    ev = Evaluator(truth, ["gauc"], user_col=user_col, item_col=item_col, rel_col=rel_col,
                   **policies)
    packed = ev.pack(run, user_col=user_col, item_col=item_col, score_col=score_col)
    labels = packed.rel >= rel
    n_rel_truth = int((packed.t_rel >= rel).sum())
    info = {"positives": int(labels.sum()), "negatives": int((~labels).sum()),
            "unscored_positives": n_rel_truth - int(labels.sum()), "rel": float(rel)}
    return labels, packed.scores, info


def global_auc(run: Any, truth: Any, *, rel: float = 1.0, unlabelled: str = "negative",
               single_class: str = "nan", **kwargs: Any) -> Score:
    """AUC over all scored (user, item) pairs pooled together (one ROC curve for everyone):
    the metric ``global_auc`` (alias ``auc``) of :func:`receval.evaluate`.

    ``AUC = (1/(P N)) sum_{p,n} ([s_p > s_n] + 1/2 [s_p = s_n])`` over the P positive and N
    negative pairs of every user together. A scored pair is positive when the truth gives it
    relevance >= ``rel``; ``unlabelled="negative"`` makes a scored pair without a truth row a
    negative, ``"skip"`` leaves it out (only labelled pairs, Microsoft Recommenders ``auc``).
    Scores are compared across users, so they must be on one scale (probabilities, not
    per-user ranks). Truth pairs the run does not score are left out and counted in
    ``info["unscored_positives"]``. A pool with one class only gives NaN
    (``single_class="nan"``) or raises (``"error"``). Other keywords (column names,
    policies) go to :func:`receval.evaluate`. ``per_user`` holds each user's own AUC.
    """
    from ..metrics import metric

    spec = metric("global_auc", None, rel=rel, unlabelled=unlabelled, single_class=single_class)
    return _evaluate_one(run, truth, spec, kwargs)
