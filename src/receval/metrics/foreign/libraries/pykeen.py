"""PyKEEN (rank-based metrics)'s metric names and conventions (``compat="pykeen"``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..records import name as _n

NAMES: dict[str, Name] = {
    "hits": _n("hit_rate", "Hits@k: 1 if the true item's rank is <= k"),
    "h": _n("hit_rate", "Hits@k (synonym h@k)"),
    "mrr": _n("mrr", "inverse harmonic mean rank: 1 / rank of the true item (no cutoff)"),
    "mean_reciprocal_rank": _n("mrr", "MRR (synonym)"),
    "inverse_harmonic_mean_rank": _n("mrr", "MRR: mean of 1 / rank"),
    "mr": _n("first_hit_rank", "mean rank: the rank of the true item, averaged over "
             "ranking tasks (lower is better)"),
    "mean_rank": _n("first_hit_rank", "mean rank (synonym)"),
    "arithmetic_mean_rank": _n("first_hit_rank", "arithmetic mean rank (AMR)"),
}

PRESET = Preset(
    "pykeen", "PyKEEN (rank-based metrics)", "pykeen 1.11.2-dev (master 05c7bbb)",
    "pykeen/pykeen src/pykeen/metrics/ranking.py (HitsAtK, InverseHarmonicMeanRank, "
    "ArithmeticMeanRank), src/pykeen/evaluation/ranks.py (optimistic, pessimistic, realistic "
    "ranks); PyKEEN needs torch, so the tests use values worked out from these formulas",
    (("users", "truth"), ("empty_truth", "skip")),
    NAMES,
    ("one ranking task per user with one true item (leave-one-out), every candidate scored; "
     "with several true items PyKEEN ranks each one against the non-true candidates (filtered "
     "setting) and averages over (user, item) pairs: not reproduced",
     "tied scores: PyKEEN's rank types are optimistic (1 + candidates scored higher), "
     "pessimistic (candidates scored at least as high) and realistic (their mean, the default); "
     "the metric is taken of the realistic rank, not averaged over tie orders as receval's "
     "ties='average' does: with tied scores none of the three is reproduced (with distinct "
     "scores they coincide with every receval tie policy)",
     "adjusted and z-scored metrics (AMRI, adjusted Hits@k, zMR, ...) need the number of "
     "candidates per task: not reproduced",
     "PyKEEN averages head and tail predictions ('both'); evaluate each side as its own run"),
)
