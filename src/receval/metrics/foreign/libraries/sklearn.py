"""scikit-learn's metric names and conventions (``compat="sklearn"``).

Every function of ``sklearn.metrics._ranking`` exported by ``sklearn.metrics``: a score per
sample (a user) and label (an item), ``y_true`` and ``y_score`` of shape (users, items).
"""

from __future__ import annotations

from typing import Any

from ..records import Name, Preset, refuse
from ..records import name as _n

_CURVE = "a curve, not one number"
_K = {"k": "@k"}  # scikit-learn's cutoff parameter: ndcg_score(k=5) is ndcg_score@5
# ignore_ties=True orders by np.argsort, whose order of tied scores depends on the sort kernel
# numpy picks for the machine: it equals ignore_ties=False whenever a row's scores are distinct
_IGNORE_TIES: dict[str, Any] = {"ignore_ties": {"false": {}, "true": {}}}
_LOG_BASE = {"log_base": {"2": {}, "2.0": {}, "10": {"discount": "log10"},
                          "10.0": {"discount": "log10"}, "2.718281828459045": {"discount": "ln"},
                          "e": {"discount": "ln"}}}

NAMES: dict[str, Name] = {
    "ndcg_score": _n("ndcg", "DCG / DCG of the user's own candidates sorted by truth; "
                     "ties averaged (McSherry & Najork)", ideal="list",
                     options={**_K, **_IGNORE_TIES}, differs="ignore_ties=True: scikit-learn"),
    "dcg_score": _n("dcg", "sum of y_true / log_base(rank + 1); ties averaged; log_base -> "
                    "discount (2: log2, 10: log10, e: ln)",
                    options={**_K, **_IGNORE_TIES, **_LOG_BASE},
                    differs="ignore_ties=True: scikit-learn"),
    "top_k_accuracy_score": _n(
        "hit_rate", "1 if the sample's true label is among the k labels of highest score, "
        "averaged over samples (multiclass y_score: one score per class); k = 2 unless "
        "given (@k or k=)", options=_K, default_k=2, differs="top_k_accuracy_score: tied"),
    "label_ranking_average_precision_score": refuse(
        "LRAP: mean over relevant labels j of |relevant with score >= s_j| / |labels with "
        "score >= s_j|", "each relevant label is ranked below every label tied with it, and a "
        "row whose labels are all relevant or all irrelevant scores 1; map ranks ties "
        "otherwise and scores such rows 0"),
    "coverage_error": refuse(
        "how far down the ranking (ties ranked last) the last relevant label is, averaged",
        "receval has no metric for the rank of the last relevant item"),
    "label_ranking_loss": refuse(
        "share of (relevant, irrelevant) label pairs ordered wrongly, ties counted as wrong",
        "a tied pair counts as a whole error; gauc counts it half (with distinct scores, "
        "label_ranking_loss = 1 - gauc(candidates=list))"),
    "average_precision_score": refuse(
        "area under the precision-recall step curve, averaged over labels "
        "(average='macro': the items) by default",
        "averages over the labels (items, the columns) by default; per sample "
        "(average='samples') it ranks tied scores as one threshold, which map does not"),
    "roc_auc_score": refuse(
        "area under the ROC curve, averaged over labels (average='macro': the items) by "
        "default", "averages over the labels (items, the columns) by default; average="
        "'samples' is receval's gauc and average='micro' its global_auc, over arrays that "
        "score every candidate"),
    "roc_curve": refuse("false and true positive rates at every threshold", _CURVE),
    "precision_recall_curve": refuse("precision and recall at every threshold", _CURVE),
    "det_curve": refuse("false positive and false negative rates at every threshold", _CURVE),
    "auc": refuse("area under a curve given as points (x, y) by the trapezoidal rule",
                  "the area under points given as x and y, not a metric of rankings"),
    "confusion_matrix_at_thresholds": refuse(
        "true/false positives and negatives at every threshold",
        "counts at every threshold (arrays), not one number"),
    "metric_at_thresholds": refuse(
        "a metric's value at every threshold", "a value at every threshold (arrays), not "
        "one number"),
}

PRESET = Preset(
    "sklearn", "scikit-learn", "scikit-learn 1.9.1", "scikit-learn sklearn/metrics/_ranking.py "
    "(dcg_score, ndcg_score, _tie_averaged_dcg, top_k_accuracy_score, "
    "label_ranking_average_precision_score, coverage_error, label_ranking_loss, "
    "average_precision_score, roc_auc_score and the curves), sklearn/metrics/__init__.py; "
    "checked by tests/crosscheck/test_sklearn.py and test_preset_sklearn.py",
    (("ties", "average"), ("users", "truth"), ("empty_truth", "zero"),
     ("unretrieved", "bottom")),
    NAMES,
    ("y_true and y_score cover the same candidates, so every truth item is scored: built over "
     "the union of the recommended and the truth items, the truth items the run missed scored "
     "below every recommended item (0 or the minimum), they are tied at the bottom "
     "(unretrieved='bottom'); the ideal list is the user's candidates. Arrays over the whole "
     "catalogue (unrecommended, unjudged items tied with them) are not reproduced",
     "an all-zero y_true row scores 0 and counts (empty_truth='zero')",
     "ignore_ties=True: scikit-learn orders a row by np.argsort, whose order of tied scores "
     "depends on numpy's sort kernel; receval gives the value of ignore_ties=False (tied "
     "scores averaged), equal whenever a row's scores are distinct",
     "top_k_accuracy_score: tied scores at the cutoff are ordered by a reversed stable sort "
     "(the higher class index first); receval averages over the orders of tied scores "
     "(ties='average'), equal whenever the k-th and (k+1)-th scores differ; ties='trec_eval' "
     "(item id descending, ids compared as text) gives scikit-learn's order for class labels "
     "whose text sorts as their index (zero-padded) and scores exact in 32-bit floats. "
     "Without a cutoff it is scikit-learn's default k = 2; the binary form (one score per "
     "sample) is not a ranking",
     "the cutoff is written k=5 or @5 (ndcg_score(k=5) is ndcg_score@5); without one, the "
     "whole row (scikit-learn's k=None); sample_weight is not reproduced"),
)
