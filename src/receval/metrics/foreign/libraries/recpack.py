"""RecPack's metric names and conventions (``compat="recpack"``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..records import name as _n

NAMES: dict[str, Name] = {
    "ndcgk": _n("ndcg", "binary interactions; ideal min(K, |truth|) hits", gain="binary"),
    "dcgk": _n("dcg", "sum over hits of y_true / log2(rank + 1)"),
    "precisionk": _n("precision", "hits in the top K / K"),
    "recallk": _n("recall", "hits in the top K / |truth|"),
    "calibratedrecallk": _n("recall", "hits in the top K / min(|truth|, K)",
                            denominator="min_k_rel"),
    "reciprocalrankk": _n("mrr", "1 / rank of the first hit within K"),
}

PRESET = Preset(
    "recpack", "RecPack", "recpack 0.3.6", "LienM/recpack recpack/metrics/dcg.py (DCGK, NDCGK), "
    "precision.py, recall.py (RecallK, CalibratedRecallK), reciprocal_rank.py, base.py "
    "(_eliminate_empty_users); worked examples from these formulas",
    (("users", "truth"), ("empty_truth", "skip")),
    NAMES,
    ("users without truth interactions are removed before scoring (empty_truth='skip')",
     "NDCGK's ideal counts the sum of y_true, the number of items for binary matrices",
     "DCGK and NDCGK with a graded y_true discount by log2(rank * y_true + 1) (dcg.py "
     "multiplies the top-K ranks by y_true before the log): only binary matrices give the "
     "DCG of the docstring; graded matrices are not reproduced"),
)
