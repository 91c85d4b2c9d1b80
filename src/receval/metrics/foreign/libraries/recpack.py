"""RecPack's metric names and conventions (``compat="recpack"``)."""

from __future__ import annotations

from typing import Any

from ..records import Name, Preset
from ..records import name as _n

#: RecPack's cutoff parameter: NDCGK(K=10) is ndcgk@10
_K = {"K": "@k"}


def _k(family: str, meaning: str, **params: Any) -> Name:
    """An entry with RecPack's ``K`` (the top-K list's length)."""
    return _n(family, meaning, options=_K, **params)


NAMES: dict[str, Name] = {
    "ndcgk": _k("ndcg", "binary interactions; ideal min(K, |truth|) hits", gain="binary"),
    "dcgk": _k("dcg", "sum over hits of y_true / log2(rank + 1)",
               differs="DCGK and NDCGK with a graded"),
    "precisionk": _k("precision", "hits in the top K / K"),
    "recallk": _k("recall", "hits in the top K / |truth|"),
    "calibratedrecallk": _k("recall", "hits in the top K / min(|truth|, K)",
                            denominator="min_k_rel"),
    "reciprocalrankk": _k("mrr", "1 / rank of the first hit within K"),
    "hitk": _k("hits", "number of hits in the top K (summed per user, then the mean over "
               "users with a truth interaction)"),
    "discountedgaink": _k("dcg", "sum over the hits in the top K of y_true / log2(rank + 1)",
                          differs="DiscountedGainK with a graded"),
    "coveragek": _k("coverage", "distinct items in the top K of the users with a truth "
                    "interaction / |I|, |I| the matrices' column count: "
                    "evaluate(catalog=n_items)"),
    "intralistdiversityk": _k("ild", "2 / (L (L - 1)) sum over pairs of the Jaccard distance "
                              "of the items' boolean feature rows (fit(X)): "
                              "evaluate(item_features=X); a list of fewer than two items "
                              "scores 0", sim="jaccard", short="zero"),
    "ipshitratek": _k("ips_hit_rate", "sum over the hits in the top K of 1 / p(i), summed per "
                      "user and averaged over users; p(i) = X[:, i].sum() / X.sum() of the "
                      "fitted X: evaluate(propensities={i: p(i)})", normalize="users"),
    "percentileranking": _n("percentile_rank", "expected percentile ranking over every "
                            "relevant (user, item), in percent; N = the column count: "
                            "percentile_rank(n_items=N)", cutoff="none"),
}

PRESET = Preset(
    "recpack", "RecPack", "recpack 0.3.6", "LienM/recpack recpack/metrics/__init__.py (METRICS), "
    "dcg.py (DCGK, NDCGK), hit.py (HitK, DiscountedGainK), coverage.py, diversity.py, ips.py, "
    "percentile_ranking.py, precision.py, recall.py (RecallK, CalibratedRecallK), "
    "reciprocal_rank.py, base.py (_eliminate_empty_users); recpack/tests/test_metrics",
    (("users", "truth"), ("empty_truth", "skip")),
    NAMES,
    ("users without truth interactions are removed before scoring (empty_truth='skip')",
     "NDCGK's ideal counts the sum of y_true, the number of items for binary matrices",
     "DCGK and NDCGK with a graded y_true discount by log2(rank * y_true + 1) (dcg.py "
     "multiplies the top-K ranks by y_true before the log): only binary matrices give the "
     "DCG of the docstring; graded matrices are not reproduced",
     "DiscountedGainK with a graded y_true divides y_true by log2(rank * y_true + 1) (hit.py): "
     "only binary matrices are reproduced",
     "IPSHitRateK gives an item no one interacted with in the fitted X the weight 0 and caps "
     "1 / p(i) at ip_cap = 10000: receval refuses a propensity of 0 (give every recommended "
     "and held-out item its p(i); use max(p(i), 1e-4) to reproduce the cap)"),
)
