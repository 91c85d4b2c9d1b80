"""torchmetrics (retrieval)'s metric names and conventions (``compat="torchmetrics"``).

Every class of ``torchmetrics.retrieval`` and every function of
``torchmetrics.functional.retrieval``, lower case. A class averages one value per query
(``indexes``) and decides a query without a relevant target by ``empty_target_action``; a
function scores one query and gives 0 to a query without a relevant target (the preset's
``empty_truth=zero``). ``top_k`` is the cutoff: ``retrievalmap@10`` is ``RetrievalMAP(top_k=10)``.
"""

from __future__ import annotations

from typing import Any

from ..records import Name, Preset, refuse
from ..records import name as _n

#: ``empty_target_action`` of a class: a query without a relevant target scores 0 ("neg",
#: the default), is left out ("skip") or is refused ("error"); "pos" (such a query scores 1)
#: has no receval policy.
_EMPTY = {"neg": {"empty_truth": "zero"}, "skip": {"empty_truth": "skip"},
          "error": {"empty_truth": "error"}}
#: the parameters every class takes: ``ignore_index`` (drops the rows whose target is that
#: value; only None) and ``aggregation`` (only "mean": receval summarises by the mean)
_CLASS = {"empty_target_action": _EMPTY, "ignore_index": {"none": {}},
          "aggregation": {"mean": {}}, "top_k": "@k"}
_ADAPTIVE = {"adaptive_k": {"false": {}, "true": {"denominator": "list"}}}
_MAX_FPR: dict[str, Any] = {"max_fpr": {"none": {}, "1": {}, "1.0": {}}}
_TOP_K = {"top_k": "@k"}  # the cutoff, as written in parentheses

_CURVE = ("a curve (mean precision and recall at every k up to max_k), not one number: "
          "evaluate precision@k and recall@k for each k")

_MEANINGS: dict[str, tuple[str, dict[str, Any]]] = {
    "map": ("mean of precision at each relevant candidate within top_k: AP over the hits "
            "(0 without a hit)", {"family": "map", "denominator": "hits"}),
    "precision": ("relevant candidates in the top_k / top_k (top_k beyond the candidates "
                  "still divides by top_k; adaptive_k=True divides by min(top_k, "
                  "candidates): denominator=list); without top_k / candidates",
                  {"family": "precision"}),
    "recall": ("relevant candidates in the top_k / relevant candidates",
               {"family": "recall"}),
    "hitrate": ("1 if a relevant candidate is in the top_k", {"family": "hit_rate"}),
    "mrr": ("1 / rank of the first relevant candidate within top_k", {"family": "mrr"}),
    "ndcg": ("nDCG with linear gain (the target grade), the ideal from the query's own "
             "targets; tied scores share their mean gain: add ties='average'",
             {"family": "ndcg", "ideal": "list"}),
    "rprecision": ("relevant candidates in the top R / R, R = relevant candidates",
                   {"family": "r_precision"}),
    "auroc": ("ROC AUC of the query's top_k candidates (all without top_k), tied "
              "(relevant, non-relevant) pairs counting 1/2; a query whose top_k lacks a "
              "class (no relevant or no non-relevant candidate) scores 0",
              {"family": "gauc", "single_class": "zero"}),
}


def _entry(key: str, options: dict[str, Any]) -> Name:
    """The entry of a metric both a class and a function compute, with ``options``."""
    meaning, target = _MEANINGS[key]
    params = dict(target)
    family = params.pop("family")
    return _n(family, meaning, options=options, **params)


def _fallout(meaning: str, no_negative: str, options: dict[str, Any]) -> Name:
    """Fall-out: fpr over the query's own candidates."""
    return _n("fpr", meaning, options=options, candidates="list", no_negative=no_negative)


NAMES: dict[str, Name] = {
    # torchmetrics.retrieval: the classes
    "retrievalmap": _entry("map", _CLASS),
    "retrievalprecision": _entry("precision", {**_CLASS, **_ADAPTIVE}),
    "retrievalrecall": _entry("recall", _CLASS),
    "retrievalhitrate": _entry("hitrate", _CLASS),
    "retrievalmrr": _entry("mrr", _CLASS),
    "retrievalnormalizeddcg": _entry("ndcg", _CLASS),
    "retrievalrprecision": _entry("rprecision", {k: v for k, v in _CLASS.items()
                                                 if k != "top_k"}),  # R is its cutoff
    "retrievalauroc": _entry("auroc", {"empty_target_action": {"neg": {}},
                                       "ignore_index": {"none": {}},
                                       "aggregation": {"mean": {}}, "top_k": "@k",
                                       **_MAX_FPR}),
    "retrievalfallout": _fallout(
        "non-relevant candidates in the top_k / non-relevant candidates of the query; a "
        "query without a non-relevant candidate scores 1 (empty_target_action='pos', this "
        "class's default)", "one",
        {"empty_target_action": {"pos": {"no_negative": "one"},
                                 "neg": {"no_negative": "zero"},
                                 "skip": {"no_negative": "skip"}},
         "ignore_index": {"none": {}}, "aggregation": {"mean": {}}}),
    "retrievalprecisionrecallcurve": refuse("precision and recall at k = 1..max_k", _CURVE),
    "retrievalrecallatfixedprecision": refuse(
        "the largest mean recall@k, k <= max_k, whose mean precision@k reaches "
        "min_precision, and that k",
        "a search over k returning (recall, k), not one metric: evaluate precision@k and "
        "recall@k for k = 1..max_k and take the largest recall whose precision reaches "
        "min_precision"),
    # torchmetrics.functional.retrieval: one query each, averaged over the users
    "retrieval_average_precision": _entry("map", _TOP_K),
    "retrieval_precision": _entry("precision", {**_ADAPTIVE, **_TOP_K}),
    "retrieval_recall": _entry("recall", _TOP_K),
    "retrieval_hit_rate": _entry("hitrate", _TOP_K),
    "retrieval_reciprocal_rank": _entry("mrr", _TOP_K),
    "retrieval_normalized_dcg": _entry("ndcg", _TOP_K),
    "retrieval_r_precision": _entry("rprecision", {}),
    "retrieval_auroc": _entry("auroc", {**_MAX_FPR, **_TOP_K}),
    "retrieval_fall_out": _fallout(
        "non-relevant candidates in the top_k / non-relevant candidates of the query; a "
        "query without a non-relevant candidate scores 0", "zero", {}),
    "retrieval_precision_recall_curve": refuse("precision and recall at k = 1..max_k",
                                               _CURVE),
}

PRESET = Preset(
    "torchmetrics", "torchmetrics (retrieval)", "torchmetrics 1.9.0",
    "Lightning-AI/torchmetrics src/torchmetrics/retrieval/base.py (RetrievalMetric: "
    "empty_target_action, aggregation), average_precision.py, precision.py, recall.py, "
    "hit_rate.py, reciprocal_rank.py, ndcg.py, r_precision.py, auroc.py, fall_out.py, "
    "precision_recall_curve.py, and the same files of src/torchmetrics/functional/retrieval/ "
    "(read from the installed 1.9.0); checked by benchmarks/peers/libs/torchmetrics.py and "
    "tests/crosscheck/test_preset_torchmetrics.py",
    (("users", "run"), ("empty_truth", "zero")),
    NAMES,
    ("the truth is the target of the scored candidates: relevant items that were not scored "
     "do not exist for torchmetrics; pass the truth restricted to the run's items",
     "precision, recall, AP and RR treat candidates scored <= 0 as not retrieved (1.9.0 "
     "masks the target where preds <= 0); not reproduced: use positive scores",
     "tied scores: torch.topk and torch.argsort leave the order of tied candidates "
     "unspecified, so every metric but nDCG depends on it; receval orders them by item id. "
     "RetrievalNormalizedDCG averages tied scores: add ties='average' for it (receval's map"
     "(denominator=hits) has no expected value over tie orders: evaluate RetrievalMAP apart)",
     "empty_target_action='pos' (a query without a relevant target scores 1) has no receval "
     "policy: refused; 'neg' (the default) is empty_truth=zero, 'skip' empty_truth=skip, "
     "'error' empty_truth=error. RetrievalFallOut's empty_target_action is about queries "
     "without a non-relevant target: fpr(no_negative=one|zero|skip)",
     "ignore_index (drops the rows whose target is that value), aggregation other than "
     "'mean' (median, min, max, a callable) and max_fpr below 1 (McClish-standardised "
     "partial AUC) are refused",
     "RetrievalAUROC with empty_target_action='skip' leaves out a query without any "
     "relevant target, but one whose top_k lacks a class still scores 0: not reproduced "
     "(only 'neg' is accepted)",
     "top_k is the cutoff, written either way: retrievalmap@10 or retrievalmap(top_k=10)"),
)
