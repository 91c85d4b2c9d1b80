"""RecBole's metric names and conventions (``compat="recbole"``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..records import name as _n

NAMES: dict[str, Name] = {
    "rmse": _n("rmse", "value-based evaluation: sqrt of the mean squared error of the predicted "
               "ratings over every labelled (user, item) pair pooled", average="micro"),
    "mae": _n("mae", "value-based evaluation: mean absolute error of the predicted ratings "
              "over every labelled pair pooled", average="micro"),
    "logloss": _n("log_loss", "value-based evaluation: mean of -y log p - (1 - y) log(1 - p) "
                  "over every labelled pair pooled, p clipped to [1e-15, 1 - 1e-15]",
                  average="micro", unlabelled="skip", eps=1e-15),
    "hit": _n("hit_rate", "1 if a relevant item is in the top k"),
    "mrr": _n("mrr", "1 / rank of the first relevant item"),
    "map": _n("map", "sum of precision at hits / min(R, k)", denominator="min_k_rel"),
    "recall": _n("recall", "hits / R"),
    "ndcg": _n("ndcg", "binary gain; ideal = min(R, k) hits", gain="binary"),
    "precision": _n("precision", "hits / k"),
    "itemcoverage": _n("coverage", "distinct items of the top-k lists / |I|"),
    "averagepopularity": _n("arp", "mean over users of the mean training interactions of "
                            "the top-k items (unseen items 0)"),
    "shannonentropy": _n("entropy", "-sum_i p_i ln p_i over the recommended items, p_i = "
                         "their share of the top-k slots, divided by the number of "
                         "distinct recommended items", base="e", normalize="distinct"),
    "giniindex": _n("gini", "sum_j (2j - |I| - 1) c_(j) / (|I| sum_j c_j), exposure counts "
                    "ascending over the catalogue", denominator="n"),
    "tailpercentage": _n("aplt", "mean over users of the share of long-tail items in the "
                         "top k; tail = the max(floor(0.1 m), 1) least popular of the m "
                         "training items (tail_ratio=0.1); items absent from training are "
                         "not tail", head=0.9, unseen="head"),
    "auc": _n("global_auc", "one ROC area (trapezoid, ties 1/2) over the labelled "
              "(user, item) pairs of value-based evaluation pooled; no positive or no "
              "negative gives NaN (with a warning)"),
    "gauc": _n("gauc", "per-user AUC from the average ranks of the positives among the "
               "user's scored candidates (ties 1/2), weighted by the positives; users "
               "without a positive or a negative left out", weight="positives"),
}

PRESET = Preset(
    "recbole", "RecBole", "RecBole 1.2.1 (master 7b02be5)", "RUCAIBox/RecBole "
    "recbole/evaluator/metrics.py (Hit, MRR, MAP, Recall, NDCG, Precision, ItemCoverage, "
    "AveragePopularity, ShannonEntropy, GiniIndex, TailPercentage, GAUC, AUC), "
    "evaluator/utils.py (_binary_clf_curve), "
    "evaluator/collector.py (data.num_items, data.count_items, rec.meanrank); RecBole needs torch, so the tests use values worked "
    "out from these formulas",
    (("users", "truth"), ("empty_truth", "skip")),
    NAMES,
    ("relevance is binary (every test interaction is relevant)",
     "full ranking: every user has a list of length >= k",
     "ItemCoverage and GiniIndex divide by data.num_items, RecBole's item count, which includes "
     "the padding id 0: pass catalog=<number of items + 1> to reproduce them",
     "TailPercentage(tail_ratio=r <= 1) is aplt@k(head=1-r,unseen=head) when no tie in training "
     "popularity straddles the cut (RecBole breaks it by internal item id) and floor(r m) >= 1; "
     "tail_ratio=T > 1 is aplt@k(tail_max=T,unseen=head)",
     "AveragePopularity, ShannonEntropy, GiniIndex and TailPercentage see full lists of k "
     "items; with shorter lists RecBole's padding is not reproduced",
     "GAUC ranks every candidate item (full sort, history items masked): give the run every "
     "candidate's score",
     "AUC pools the labelled pairs of value-based evaluation (label field, e.g. a rating "
     "threshold): give the run the scored pairs and the truth every labelled pair (label 0 as "
     "relevance 0), so that every user with a labelled pair is a truth user (users='truth')"),
)
