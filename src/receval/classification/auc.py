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

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, PolicyError, plain
from ..metrics.catalogue import check_catalogue
from ..metrics.spec import MetricDef, MetricSpec, Param, register
from ..pack import Packed
from ._common import (
    Score,
    as_binary,
    as_float_array,
    as_weights,
    order_desc,
    same_length,
)
from ._packed import (
    CATALOG,
    REL,
    UNLABELLED,
    catalog_size,
    kept_layout,
    rank_in_list,
    size_text,
    truth_positives,
    user_of_positions,
)
from ._pairs import _weights, pair_counts
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

# -------------------------------------------------------------------------------------------------
# GAUC, global AUC and LAUC@k:
# plugin metrics of receval.evaluate over the packed lists, registered on import.

SINGLE = Param("single_class", "skip",
               "a user with no positive or no negative: skip (left out, counted) | error",
               ("skip", "error"))


GAUC_SINGLE = Param(
    "single_class", "skip",
    "a user with no positive or no negative: skip (left out, counted) | error | zero_one "
    "(no positive scores 0, positives but no negative score 1: RePlay RocAuc) | zero (either "
    "way it scores 0: torchmetrics RetrievalAUROC)",
    ("skip", "error", "zero_one", "zero"))


def _single_class(spec: MetricSpec, packed: Packed, npos: np.ndarray, nneg: np.ndarray
                  ) -> tuple[np.ndarray, dict[str, int]]:
    no_pos, no_neg = npos <= 0, nneg <= 0
    bad = no_pos | no_neg
    counts = {"users_no_positive": int(no_pos.sum()), "users_no_negative": int(no_neg.sum()),
              "skipped": int(bad.sum())}
    if bad.any() and spec.get("single_class") == "error":
        u = int(np.flatnonzero(bad)[0])
        raise PolicyError(
            f"{spec.key}: {int(bad.sum())} user(s) have only one class (e.g. user "
            f"{plain(packed.user_ids[u])}: {int(npos[u])} positive(s), {int(nneg[u])} negative(s)); "
            "AUC is undefined for them. Use single_class='skip' (the default) to leave them out."
        )
    return bad, counts


def _weighted_mean(values: np.ndarray, weights: np.ndarray, keep: np.ndarray) -> float:
    w = weights[keep]
    return float(np.sum(values[keep] * w) / np.sum(w)) if w.sum() > 0 else float("nan")


def _gauc(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    rel = float(spec.get("rel"))
    keep = np.ones(len(packed.rel), dtype=bool)
    if spec.k is not None:  # RePlay RocAuc@k: the pairs inside the top k
        keep &= rank_in_list(packed, user_of_positions(packed)) < spec.k
    if spec.get("unlabelled") == "skip":
        keep &= packed.judged.astype(bool)
    pos = packed.rel[keep] >= rel
    s_pos, s_neg, correct = pair_counts(kept_layout(packed, keep), packed.scores[keep], pos)
    info: dict[str, Any] = {"weight": spec.get("weight"), "candidates": spec.get("candidates")}
    if spec.get("candidates") == "catalog":
        n, cat = catalog_size(spec, packed, context, np.ones(len(pos), dtype=bool))
        info.update(cat)
        npos = truth_positives(packed, rel)
        nneg = n - npos
        u_pos, u_neg = npos - s_pos, nneg - s_neg
        check_catalogue(spec.key, size_text(n, cat), n, s_pos + s_neg, u_pos, packed.user_ids,
                        "scored item(s) compared")
        correct = correct + s_pos * u_neg + 0.5 * u_pos * u_neg
    else:
        npos, nneg = s_pos, s_neg
    bad, counts = _single_class(spec, packed, npos, nneg)
    info.update(counts)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_user = np.where(bad, np.nan, correct / (npos * nneg))
    if spec.get("single_class") in ("zero_one", "zero"):
        one = 1.0 if spec.get("single_class") == "zero_one" else 0.0
        per_user = np.where(npos <= 0, 0.0, np.where(nneg <= 0, one, per_user))
        bad = np.zeros(len(per_user), dtype=bool)
        info["skipped"] = 0
    w = _weights(spec.get("weight"), npos, nneg)
    return MetricValues(per_user, _weighted_mean(per_user, w, ~bad), info, skipped=bad)


def _lauc(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    rel = float(spec.get("rel"))
    user = user_of_positions(packed)
    k = spec.k
    keep = np.ones(len(user), dtype=bool) if k is None else rank_in_list(packed, user) < k
    lens = np.bincount(user[keep], minlength=len(packed.user_ids))
    indptr = np.r_[0, np.cumsum(lens)].astype(np.int64)
    pos = packed.rel[keep] >= rel
    tp_k, fp_k, correct = pair_counts(indptr, packed.scores[keep], pos)
    n, info = catalog_size(spec, packed, context, keep)
    npos = truth_positives(packed, rel)
    nneg = n - npos
    check_catalogue(spec.key, size_text(n, info), n, tp_k + fp_k, npos - tp_k, packed.user_ids,
                    "scored item(s) in the top k")
    bad, counts = _single_class(spec, packed, npos, nneg)
    info.update(counts)
    info["tail"] = spec.get("tail")
    with np.errstate(invalid="ignore", divide="ignore"):
        area = correct / (npos * nneg)
        if spec.get("tail") == "linear":
            area = area + (1.0 - fp_k / nneg) * (tp_k / npos + 1.0) / 2.0
    # a user without a list scores 0 (the users policy), not the area of a random order
    per_user = np.where(bad, np.nan, np.where(np.asarray(packed.in_run, dtype=bool), area, 0.0))
    return MetricValues(per_user, None, info, skipped=bad)


register(MetricDef(
    "gauc", "Per-user AUC (GAUC)",
    "AUC_u = (1/(P_u N_u)) sum_{p,n} ([s_p > s_n] + 1/2 [s_p = s_n]); "
    "GAUC = sum_u w_u AUC_u / sum_u w_u",
    "AUC of each user's scores, averaged over users. candidates: list = the user's scored items "
    "(positive: truth relevance >= rel) | catalog = every catalogue item, unscored items ranked "
    "last and tied. weight: none (plain mean) | positives (w_u = P_u) | impressions "
    "(w_u = P_u + N_u). gauc@k: the pairs inside the top k only (RePlay RocAuc@k; with "
    "single_class=zero_one). unlabelled=skip: only scored items present in the truth count. "
    "The per-user column holds AUC_u.",
    (REL, Param("weight", "none", "none | positives | impressions",
                ("none", "positives", "impressions")),
     Param("candidates", "list", "list | catalog", ("list", "catalog")), GAUC_SINGLE, CATALOG,
     UNLABELLED),
    family="classification", compute=_gauc,
    reference="Zhou et al. 2018, Deep Interest Network (KDD): GAUC weighted by impressions; "
              "Fawcett 2006 (ROC analysis)",
    example="scores (0.9, 0.8, 0.7), labels (1, 0, 1): AUC = 1/2",
), ("user_auc",))


def _global_auc(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    rel = float(spec.get("rel"))
    keep = np.ones(len(packed.rel), dtype=bool)
    if spec.get("unlabelled") == "skip":
        keep &= packed.judged.astype(bool)
    pos = packed.rel[keep] >= rel
    scores = packed.scores[keep]
    # nan_scores="last": NaN ranks below every finite score, tied with the other NaN scores
    scores = np.where(np.isnan(scores), -np.inf, scores)
    # per user: the user's own AUC over its pairs (a diagnostic column, not the summary)
    u_pos, u_neg, u_correct = pair_counts(kept_layout(packed, keep), scores, pos)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_user = np.where((u_pos > 0) & (u_neg > 0), u_correct / (u_pos * u_neg), np.nan)
    # pooled: every pair of every user sorted together by score (ties grouped: order-free)
    order = np.argsort(-scores, kind="stable")
    npos, nneg, correct = pair_counts(np.array([0, len(scores)], dtype=np.int64),
                                      scores[order], pos[order])
    p, n = float(npos[0]), float(nneg[0])
    n_rel_truth = float(truth_positives(packed, rel).sum())
    info: dict[str, Any] = {
        "pairs": int(len(scores)), "positives": int(p), "negatives": int(n),
        "unlabelled": spec.get("unlabelled"),
        "unlabelled_pairs": int(len(packed.rel) - int(packed.judged.astype(bool).sum())),
        "unscored_positives": int(n_rel_truth - float(np.sum(packed.rel >= rel))),
    }
    if p <= 0 or n <= 0:
        if spec.get("single_class") == "error":
            raise PolicyError(
                f"{spec.key}: the pooled pairs hold {int(p)} positive(s) and {int(n)} "
                "negative(s); AUC needs both. Check the truth's relevance threshold (rel=) and "
                "that the run scores labelled negatives, or use single_class='nan' to report "
                "NaN."
            )
        value = float("nan")
    else:
        value = float(correct[0] / (p * n))
    return MetricValues(per_user, value, info)


register(MetricDef(
    "global_auc", "Global (pooled) AUC",
    "AUC = (1/(P N)) sum_{p,n} ([s_p > s_n] + 1/2 [s_p = s_n]) over the scored (user, item) "
    "pairs of every user pooled",
    "One ROC area over the scored (user, item) pairs of all users together, not a mean of "
    "per-user values: P positives (truth relevance >= rel) and N negatives pooled, every "
    "(positive, negative) pair compared, including pairs of two different users, so the "
    "scores must share one scale (probabilities, not per-user ranks). Tied scores count 1/2 "
    "(the trapezoidal ROC area, scikit-learn roc_auc_score). unlabelled: negative = a scored "
    "pair without a truth row is a negative (RecBole AUC, where every scored pair is "
    "labelled) | skip = only pairs with a truth row count, positives with relevance >= rel, "
    "negatives with a truth row below it (Microsoft Recommenders auc, an inner join of truth "
    "and predictions). Relevant truth items the run does not score take no part (counted in "
    "info unscored_positives). The users policy decides whose pairs enter the pool. "
    "single_class: when the pool has no positive or no negative the value is NaN (nan, as "
    "RecBole and scikit-learn >= 1.6 report it) or an error. The value needs every pair at "
    "once: evaluate it in memory (not in blocks or Spark buckets). The per-user column holds "
    "each user's own AUC over its pairs (NaN with one class); the summary is the pooled AUC, "
    "not their mean (gauc is the mean).",
    (REL, UNLABELLED,
     Param("single_class", "nan",
           "the pool has no positive or no negative: nan (the value is NaN) | error",
           ("nan", "error"))),
    cutoff="none", aggregate="pooled", family="classification", compute=_global_auc,
    reference="Fawcett 2006 (ROC analysis); RecBole recbole/evaluator/metrics.py (AUC); "
              "Microsoft Recommenders recommenders/evaluation/python_evaluation.py (auc)",
    example="user a: (0.9 +, 0.2 -), user b: (0.5 +, 0.6 -): pairs 0.9>0.2, 0.9>0.6, "
            "0.5>0.2, 0.5<0.6: AUC = 3/4",
), ("auc",))


register(MetricDef(
    "lauc", "Limited AUC@k (LAUC)",
    "LAUC@k = (1/(P N)) C_k + [tail=linear] (1 - FP_k/N) (TP_k/P + 1) / 2",
    "ROC area of the top k only (Schroder et al. 2011): C_k counts correctly ordered (positive, negative) "
    "pairs inside the top k (ties 1/2), P = relevant truth items, N = catalogue size - P, "
    "TP_k / FP_k the hits / misses in the top k. tail: linear = close the curve with a straight "
    "line to (1, 1) (items after k in random order; equals gauc(candidates=catalog) on the top-k "
    "list) | none = no area past the top k. A user without a list scores 0, not the area "
    "of a random order.",
    (REL, Param("tail", "linear", "linear | none", ("linear", "none")), SINGLE, CATALOG),
    family="classification", compute=_lauc,
    reference="Schroeder, Thiele, Lehner 2011 (UCERSTI 2)",
    example="top 2 = (miss, hit), P = 1, N = 3: LAUC@2(tail=none) = 0, tail=linear: 2/3",
))
