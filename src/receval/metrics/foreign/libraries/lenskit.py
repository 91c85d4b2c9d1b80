"""LensKit's metric names and conventions (``compat="lenskit"``).

Every metric ``lenskit.metrics`` exports (``__all__``), lower case, and those of its public
submodules ``lenskit.metrics.ranking`` (``AveragePrecision``, ``rank_biased_precision``) and
``lenskit.metrics.reranking``. A ranking metric's ``n`` (or its deprecated alias ``k``) is the
cutoff: ``ndcg@10`` is ``NDCG(n=10)``. The weighting classes (``RankWeight``,
``GeometricRankWeight``, ``LogRankWeight``) and the run machinery (``RunAnalysis``,
``MeasurementCollector``, ``quick_measure_model``) are not metrics.
"""

from __future__ import annotations

from ..records import Name, Preset, refuse
from ..records import name as _n

#: a ranking metric's cutoff: ``n`` and its deprecated alias ``k``
_CUT = {"n": "@k", "k": "@k"}
#: a prediction metric's handling of test ratings without a score / scores without a rating
_PREDICT = {"missing_scores": {"error": {"missing": "error"}, "ignore": {"missing": "skip"}},
            "missing_truth": {"ignore": {}}}

#: NDCG / DCG gain: None (1 per test item) or the test items' field of graded gains
_GAIN = {"none": {"gain": "binary"}, "rating": {"gain": "linear"}}

NAMES: dict[str, Name] = {
    "hit": _n("hit_rate", "Hit(n): 1 if a test item is in the (truncated) list",
              options=_CUT),
    "reciprank": _n("mrr", "RecipRank(n): 1 / rank of the first test item in the (truncated) "
                    "list, 0 without one", options=_CUT),
    "rbp": _n("rbp", "RBP(n, patience=0.85): (1 - p) sum over test items in the list of "
              "p^(rank - 1) (normalize=False: the geometric series' sum; normalize=True, over "
              "the best achievable, is not reproduced)", p=0.85,
              options={**_CUT, "patience": "p", "normalize": {"false": {}}}),
    "rank_biased_precision": refuse(
        "rank_biased_precision(good, weights, normalization): sum of the weights at the good "
        "positions / normalization, a helper over explicit arrays",
        "LensKit's rank_biased_precision is a helper over explicit arrays of hits and "
        "position weights, not a metric of a run: write rbp@k(patience=p) (RBP) instead"),
    "listlength": _n("num_ret", "ListLength: the length of the list (it takes no cutoff)",
                     cutoff="none"),
    "testitemcount": _n("num_rel", "TestItemCount: the number of test items R (it takes no "
                        "cutoff; in 2025.8.1 the class leaves Metric.measure_list and "
                        "summarize abstract, so LensKit cannot instantiate it)", cutoff="none"),
    "dcg": _n("dcg", "DCG(n): unnormalized, gain 1 per test item (gain=None; gain='rating': "
              "the test item's rating), discount 1/max(log2(rank), 1)",
              options={**_CUT, "gain": _GAIN}, gain="binary", discount="log2_max2"),
    "precision": _n("precision", "hits / length of the (truncated) list",
                    denominator="list", options=_CUT, differs="a user with an empty list"),
    "recall": _n("recall", "hits / min(R, k); without k (Recall()): hits / R",
                 denominator="min_k_rel", uncut={"denominator": "rel"}, options=_CUT),
    "ndcg": _n("ndcg", "gain 1 per test item (gain=None; gain='rating': the test item's "
               "rating, the ideal its k largest ratings); ideal min(R, k) ones; discount "
               "1/max(log2(rank), 1)", gain="binary", discount="log2_max2",
               options={**_CUT, "gain": _GAIN}),
    "averageprecision": _n(
        "map", "AveragePrecision(n) (lenskit.metrics.ranking): sum over the test items in "
        "the truncated list of (hits up to its rank) / rank, over min(R, length of the "
        "truncated list)", denominator="min_k_rel", options=_CUT,
        differs="AveragePrecision(n) divides"),
    "listgini": _n(
        "gini", "ListGini(n, items=N): Gini coefficient sum_j (2j - N - 1) c_(j) / (N sum_j "
        "c_j) of the number of lists c_i holding item i, over the N catalogue items, c "
        "ascending (items= is the catalogue: evaluate(catalog=N))", denominator="n",
        options=_CUT),
    "exposuregini": _n(
        "exposure_gini", "ExposureGini(n, items=N, weight=GeometricRankWeight(p)): Gini "
        "coefficient sum_j (2j - N - 1) e_(j) / (N sum_j e_j) of each item's exposure e_i, the "
        "sum of the rank weights p^(rank - 1) of its positions over all lists, over the N "
        "catalogue items, e ascending (items= is the catalogue: evaluate(catalog=N); "
        "GeometricRankWeight(p) is p=p, LogRankWeight() weight=log_clip); LensKit sums the "
        "exposure in float32", options={**_CUT, "patience": "p"}, p=0.85, denominator="n"),
    "meanpoprank": refuse(
        "MeanPopRank(data, n, count='users'): mean over the list of each item's training "
        "popularity quantile (average rank among the items with a positive count / their "
        "number; 0 without one)",
        "LensKit's MeanPopRank averages popularity quantiles (ranks among the training "
        "items); receval's arp averages the raw popularity (or its share), not its rank"),
    "entropy": _n(
        "rank_biased_entropy", "entropy(items, categories, n): Shannon entropy (bits) of one "
        "list's category totals over every category (the columns of the item-by-category "
        "matrix: item_categories=), each total plus 1e-6; the mean over the lists",
        options=_CUT, weight="uniform", smooth=1e-6),
    "rank_biased_entropy": _n(
        "rank_biased_entropy", "rank_biased_entropy(items, categories, weight, n): entropy "
        "(bits) of one list's category totals, each item weighted by its rank weight "
        "(GeometricRankWeight(0.85): p^(rank - 1); patience p is p=p), each total plus 1e-6; "
        "the mean over the lists", options={**_CUT, "patience": "p"}, p=0.85, smooth=1e-6),
    "rank_biased_overlap": refuse(
        "rank_biased_overlap(reference, reranked, weight, n=10): sum_{d<=n} w_d X_d/d / "
        "sum_{d<=n} w_d, X_d the items shared by the two top-d prefixes, w_d = 0.85^(d-1)",
        "LensKit's rank_biased_overlap divides by the sum of the n weights and runs to "
        "depth n past the lists' ends; receval's rbo (form=sum) does neither"),
    "least_item_promoted": refuse(
        "least_item_promoted(reference, reranked, n=10): the largest 0-based position in the "
        "reference of an item of the reranked top n, minus n (at least 0)",
        "LensKit's least_item_promoted measures how far a reranking moved an item up from "
        "a reference list; receval has no such metric"),
    "mae": _n("mae", "MAE: per list, mean |score - rating| over the test ratings; "
              "averaged over the lists (macro)", average="macro", cutoff="none",
              options=_PREDICT),
    "rmse": _n("rmse", "RMSE: per list, sqrt of the mean (score - rating)^2 over the test "
               "ratings; averaged over the lists (macro)", average="macro", cutoff="none",
               options=_PREDICT),
}

PRESET = Preset(
    "lenskit", "LensKit", "lenskit 2025.8.1", "lenskit/lkpy src/lenskit/metrics/__init__.py "
    "(__all__), basic.py (ListLength, TestItemCount), predict.py (MAE, RMSE), "
    "ranking/_pr.py (Precision, Recall), _dcg.py (NDCG, DCG), _hit.py, _recip.py, _rbp.py, "
    "_map.py (AveragePrecision), _gini.py (ListGini, ExposureGini), _pop.py (MeanPopRank), "
    "_entropy.py (entropy, rank_biased_entropy: receval.beyond.exposure), _weighting.py, reranking/_rbo.py, _lip.py, _base.py (ListMetric.summarize: mean over lists); "
    "read from the installed 2025.8.1; checked by benchmarks/peers/libs/lenskit.py and "
    "tests/crosscheck/test_preset_lenskit.py",
    (("users", "truth"), ("empty_truth", "skip"), ("duplicates", "count")),
    NAMES,
    ("NDCG(gain='rating') and DCG(gain='rating') (ndcg@k(gain=rating)) are NaN when a "
     "NaN-rated test item is in the list (NDCG without n: when any test rating is NaN); "
     "receval raises on NaN relevance (nan_rel='error'). The binary metrics count a "
     "NaN-rated test item as relevant (recs.isin(test)), which no nan_rel choice gives: fill "
     "such ratings with 1",
     "repeated recommended items: every occurrence counts (recs.isin(test) per position, "
     "duplicates='count'), so recall can exceed 1",
     "a user with an empty list has no precision or average precision (NaN, left out of the "
     "mean) in LensKit; receval scores 0 (users='intersection' leaves such users out)",
     "AveragePrecision(n) divides by min(R, length of the truncated list): on a list "
     "shorter than n with more than its length test items, receval's min(R, n) is larger "
     "(equal on lists of n items or more, and without n); an empty list has no value (NaN), "
     "as for Precision",
     "MAE and RMSE are summarised as the mean of the lists' values (ListMetric.summarize "
     "comes first in their classes' order); their global_aggregate (the pooled, micro "
     "value: average='micro') is not what RunAnalysis reports. With missing_scores='ignore', a "
     "list none of whose test ratings is scored makes MAE raise and RMSE NaN (and so the "
     "mean); receval leaves that user out"),
)
