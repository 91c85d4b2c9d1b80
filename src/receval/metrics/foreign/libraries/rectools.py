"""RecTools's metric names and conventions (``compat="rectools"``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..records import name as _n

NAMES: dict[str, Name] = {
    "ndcg": _n("ndcg", "sum over hits of 1/log2(rank+1) / sum_{i<=k} 1/log2(i+1): the "
               "ideal is k hits whatever the number of relevant items "
               "(divide_by_achievable=False, the default)", gain="binary", ideal="k"),
    "map": _n("map", "sum of precision at relevant ranks within k / R "
              "(divide_by_k=False, the default)"),
    "precision": _n("precision", "hits in the top k / k"),
    "recall": _n("recall", "hits in the top k / R"),
    "hitrate": _n("hit_rate", "1 if a relevant item is in the top k"),
    "mrr": _n("mrr", "1 / rank of the first relevant item within k"),
    "catalogcoverage": _n("coverage", "distinct items of the top-k lists (normalize=False, "
                          "the default; normalize=True divides by len(catalog) and counts "
                          "items outside it: coverage(outside=count))", kind="count"),
    "accuracy": _n("accuracy", "(TP + TN) / |catalog|, FP = k - TP (a short list's empty "
                   "slots are false positives), TN = |catalog| - k - FN; the catalogue is "
                   "evaluate(catalog=...)", fp="k"),
    "avgrecpopularity": _n("arp", "mean training interactions of the top-k items "
                           "(normalize=True: arp(normalize=share), their share of the "
                           "interactions)"),
}

PRESET = Preset(
    "rectools", "RecTools", "RecTools 0.19.0", "MobileTeleSystems/RecTools rectools/metrics/"
    "ranking.py (NDCG, MAP, MRR), classification.py (Precision, Recall, HitRate, Accuracy, "
    "calc_confusions), popularity.py (AvgRecPopularity), base.py (merge_reco, "
    "outer_merge_reco), auc.py (PartialAUC, PAP); checked by "
    "tests/crosscheck/test_compat_presets.py and tests/core/test_rank_positions.py",
    (("users", "truth"), ("empty_truth", "skip"), ("ranks", "position")),
    NAMES,
    ("ranks are the rank column as given, an absolute position (ranks='position'): rank 9 "
     "stays outside the top 3 even when the user has 2 rows, and discounts, reciprocal ranks "
     "and precision@rank read the rank; a score run is ranked by score (positions 1..n)",
     "NDCG(divide_by_achievable=True) is ndcg@k(gain=binary), MAP(divide_by_k=True) is "
     "map@k(denominator=k)",
     "users are the users of the interactions; a user without recommendations scores 0"),
)
