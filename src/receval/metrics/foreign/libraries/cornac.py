"""Cornac's metric names and conventions (``compat="cornac"``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..records import name as _n

NAMES: dict[str, Name] = {
    "ndcg": _n("ndcg", "gain 2^[relevant] - 1 (binary); ideal: the user's positives, cut "
               "at k", gain="binary"),
    "precision": _n("precision", "true positives in the top k / k"),
    "recall": _n("recall", "true positives in the top k / positives"),
    "fmeasure": _n("f1", "2 P R / (P + R)"),
    "hitratio": _n("hit_rate", "1 if a positive is in the top k"),
    "mrr": _n("mrr", "1 / rank of the first positive in the whole ranking (no cutoff)"),
    "map": _n("map", "AP over the whole ranking, divided by the positives"),
}

PRESET = Preset(
    "cornac", "Cornac", "cornac 3.0.1", "PreferredAI/cornac cornac/metrics/ranking.py (NDCG, "
    "MRR, Precision, Recall, FMeasure, HitRatio, MAP, AUC); read from the installed 3.0.1 source, "
    "the package needs compiled extras, so the tests use values worked out from these formulas",
    (("users", "truth"), ("empty_truth", "skip")),
    NAMES,
    ("MAP ranks tied scores pessimistically (rankdata 'max'); not reproduced",
     "MRR raises an error for a user without any positive in the ranking",
     "AUC is per user (averaged over users, not pooled), over the user's candidate items or "
     "the explicit negatives gt_neg, and counts a tied (positive, negative) pair 0 (strict >): "
     "gauc over the same candidates when scores are distinct; ties not reproduced"),
)
