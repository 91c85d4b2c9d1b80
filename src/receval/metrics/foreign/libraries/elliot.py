"""Elliot's metric names and conventions (``compat="elliot"``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..records import name as _n

NAMES: dict[str, Name] = {
    "ndcg": _n("ndcg", "gain 2^(r - t + 1) - 1 for truth items with r >= t (t = "
               "relevance_threshold; t = 1: 2^r - 1); ideal from the user's relevant "
               "items, cut at k", gain="exp"),
    "ndcgrendle2020": _n("ndcg", "binary gain; ideal min(R, k) hits", gain="binary"),
    "precision": _n("precision", "hits in the top k / k"),
    "recall": _n("recall", "hits in the top k / R"),
    "hr": _n("hit_rate", "1 if a relevant item is in the top k"),
    "mrr": _n("mrr", "1 / rank of the first relevant item within k"),
    "mar": _n("mar", "mean over n = 1..k of recall@n"),
    "f1": _n("f1", "2 P R / (P + R), P over k, R over the relevant items"),
    "itemcoverage": _n("coverage", "distinct items in the top-k lists (a count)",
                       kind="count"),
    "sentropy": _n("entropy", "sum_i w_i (-log2 c_i / sum_j c_j) / users, w_i = sum over "
                   "lists holding i of 1 / list length: the entropy of exposure in bits "
                   "when every list has k items"),
}

PRESET = Preset(
    "elliot", "Elliot", "elliot 0.3.1 (master fc27efe)",
    "sisinflab/elliot elliot/evaluation/metrics/accuracy/ (ndcg/ndcg.py, ndcg/ndcg_rendle2020.py, "
    "precision, recall, hit_rate, mrr, mar, f1, map, AUC/*.py), relevance/relevance.py, "
    "base_metric.py, coverage/item_coverage, diversity/shannon_entropy, diversity/gini_index; "
    "Elliot needs TensorFlow, so the tests use values worked out from these formulas",
    (("users", "intersection"), ("empty_truth", "skip")),
    NAMES,
    ("relevance_threshold t: Elliot's default when the configuration omits it is 0 (every test "
     "row relevant, nDCG gain 2^(r + 1) - 1); the preset follows the example configurations "
     "(t = 1). On implicit feedback (every truth relevance 1) both give the same values",
     "users are those with recommendations and at least one relevant test item "
     "(eval_user_metric), hence users='intersection', empty_truth='skip'",
     "MAP averages precision@n over every n = 1..k (map.py), not over the relevant ranks as "
     "its docstring states: not reproduced",
     "AUC, GAUC and LAUC count negatives as |I| - |train(u)| - |relevant(u)| + 1 (the catalogue "
     "minus the user's training items, plus one): not reproduced",
     "Gini reports 1 - G over the catalogue (Elliot's num_items): 1 - gini@k",
     "SEntropy weights each exposure by 1 / the list's length and divides by the users: equal "
     "to entropy@k only when every list has k items"),
)
