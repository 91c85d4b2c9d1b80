"""LensKit's metric names and conventions (``compat="lenskit"``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..records import name as _n

NAMES: dict[str, Name] = {
    "hit": _n("hit_rate", "Hit(n): 1 if a test item is in the (truncated) list",
              options={"n": "@k"}),
    "reciprank": _n("mrr", "RecipRank(n): 1 / rank of the first test item in the (truncated) "
                    "list, 0 without one", options={"n": "@k"}),
    "rbp": _n("rbp", "RBP(n, patience=0.85): (1 - p) sum over test items in the list of "
              "p^(rank - 1) (normalize=False: the geometric series' sum; normalize=True, over "
              "the best achievable, is not reproduced)", p=0.85,
              options={"n": "@k", "patience": "p", "normalize": {"false": {}}}),
    "listlength": _n("num_ret", "ListLength: the length of the list (it takes no cutoff)"),
    "dcg": _n("dcg", "DCG(n): unnormalized, gain 1 per test item (gain=None), discount "
              "1/max(log2(rank), 1)", options={"n": "@k"}, gain="binary",
              discount="log2_max2"),
    "precision": _n("precision", "hits / length of the (truncated) list",
                    denominator="list"),
    "recall": _n("recall", "hits / min(R, k); without k (Recall()): hits / R",
                 denominator="min_k_rel", uncut={"denominator": "rel"}),
    "ndcg": _n("ndcg", "gain 1 per test item (gain=None); ideal min(R, k) ones; discount "
               "1/max(log2(rank), 1)", gain="binary", discount="log2_max2"),
}

PRESET = Preset(
    "lenskit", "LensKit", "lenskit 2025.8.1", "lenskit/lkpy src/lenskit/metrics/ranking/_pr.py "
    "(Precision, Recall), _dcg.py (NDCG); LensKit's metrics import torch, so the tests use "
    "values worked out from these formulas",
    (("users", "truth"), ("empty_truth", "skip"), ("duplicates", "count")),
    NAMES,
    ("NDCG(gain='rating') uses graded gains: ndcg@k(discount=log2_max2); it drops NaN gains "
     "from the DCG and its ideal (_dcg.py gains.dropna()): add nan_rel='zero'. The binary "
     "metrics count a NaN-rated test item as relevant (recs.isin(test)), which no nan_rel "
     "choice gives: fill such ratings with 1",
     "repeated recommended items: every occurrence counts (recs.isin(test) per position, "
     "duplicates='count'), so recall can exceed 1",
     "a user with an empty list has no precision (NaN) in LensKit; receval scores 0"),
)
