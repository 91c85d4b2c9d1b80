"""Library presets: what each metric name means in another library, as receval conventions.

A :class:`Preset` is pure data: the library's names for its metrics (from the one table of
foreign names, :mod:`receval.metrics.foreign`), the evaluation policies that match the
library's user set, tie order and empty-truth rule, the version and source files it was
checked against, and the conventions receval does not reproduce. :mod:`receval.compat` resolves metric names with
it; executors never read it.

A name whose mapping reproduces a known bug of the library carries ``bug``; ``strict=True``
refuses it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..metrics.foreign import LIBRARY_NAMES, Name

__all__ = ["PRESETS", "PRESET_ALIASES", "Name", "Preset"]


@dataclass(frozen=True)
class Preset:
    """Every convention of one library: names, policies, version and sources checked.

    ``names``: the library's names (lower case) from the one table of foreign names,
    :data:`receval.metrics.foreign.LIBRARY_NAMES`.
    """

    name: str
    library: str
    version: str
    source: str
    policies: tuple[tuple[str, str], ...]
    names: dict[str, Name] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def entry(self, name: str) -> Name | None:
        return self.names.get(name.lower())

    def by_family(self, family: str) -> Name | None:
        for entry in self.names.values():
            if entry.family == family:
                return entry
        return None


TREC_EVAL = Preset(
    "trec_eval", "trec_eval (also pytrec_eval, ir_measures)",
    "pytrec_eval-terrier 0.5.11 (trec_eval's C code)", "usnistgov/trec_eval measures.c and "
    "its m_*.c files; checked by tests/crosscheck/test_pytrec_eval.py",
    (("ties", "trec_eval"), ("users", "intersection"), ("empty_truth", "zero"),
     ("negative_rel", "zero")),
    LIBRARY_NAMES["trec_eval"],
    ("queries are those present in both the run and the qrels (trec_eval without -c); with "
     "-c use users='truth'",
     "ties: score as a 32-bit float descending, then docno descending"),
)

RANX = Preset(
    "ranx", "ranx", "ranx 0.3.21", "AmenRa/ranx ranx/metrics/*.py (ndcg.py, average_precision.py,"
    " hit_rate.py, r_precision.py), ranx/data_structures/common.py (sort_dict_by_value); "
    "checked by tests/crosscheck/test_ranx.py",
    (("ties", "input"), ("users", "truth"), ("empty_truth", "zero")),
    LIBRARY_NAMES["ranx"],
    ("ties: a ranx Run orders each query with numba's argsort of the negated scores, whose "
     "quicksort insertion-sorts fewer than 16 rows: lists of up to 15 items keep tied scores "
     "in input order (ties='input'); in longer lists quicksort's partitions move tied items "
     "in an order receval does not reproduce. A plain dict given to ranx.evaluate is sorted "
     "by an ascending argsort reversed, so short tied runs come in reverse input order",
     "make_comparable=True: qrels queries missing from the run score 0 (users='truth')",
     "bpref: a query without judged non-relevant items is NaN in ranx (bpref.py divides by "
     "min(R, N) = 0) and the mean over queries is then NaN; receval, as trec_eval, adds 1 for "
     "each relevant item with no judged non-relevant item above it. A query without a "
     "relevant item divides by R = 0 inside ranx's numba loop, and ranx 0.3.21 then reports "
     "0 for the other queries of the run as well: neither is reproduced"),
)

SKLEARN = Preset(
    "sklearn", "scikit-learn", "scikit-learn 1.9.1", "scikit-learn sklearn/metrics/_ranking.py "
    "(dcg_score, ndcg_score, _tie_averaged_dcg); checked by tests/crosscheck/test_sklearn.py",
    (("ties", "average"), ("users", "truth"), ("empty_truth", "zero"),
     ("unretrieved", "bottom")),
    LIBRARY_NAMES["sklearn"],
    ("y_true and y_score cover the same candidates, so every truth item is scored: built over "
     "the union of the recommended and the truth items, the truth items the run missed scored "
     "below every recommended item (0 or the minimum), they are tied at the bottom "
     "(unretrieved='bottom'); the ideal list is the user's candidates. Arrays over the whole "
     "catalogue (unrecommended, unjudged items tied with them) are not reproduced",
     "an all-zero y_true row scores 0 and counts (empty_truth='zero')"),
)

RECTOOLS = Preset(
    "rectools", "RecTools", "RecTools 0.19.0", "MobileTeleSystems/RecTools rectools/metrics/"
    "ranking.py (NDCG, MAP, MRR), classification.py (Precision, Recall, HitRate, Accuracy, "
    "calc_confusions), popularity.py (AvgRecPopularity), base.py (merge_reco, "
    "outer_merge_reco), auc.py (PartialAUC, PAP); checked by "
    "tests/crosscheck/test_compat_presets.py and tests/core/test_rank_positions.py",
    (("users", "truth"), ("empty_truth", "skip"), ("ranks", "position")),
    LIBRARY_NAMES["rectools"],
    ("ranks are the rank column as given, an absolute position (ranks='position'): rank 9 "
     "stays outside the top 3 even when the user has 2 rows, and discounts, reciprocal ranks "
     "and precision@rank read the rank; a score run is ranked by score (positions 1..n)",
     "NDCG(divide_by_achievable=True) is ndcg@k(gain=binary), MAP(divide_by_k=True) is "
     "map@k(denominator=k)",
     "users are the users of the interactions; a user without recommendations scores 0"),
)

MS_RECOMMENDERS = Preset(
    "ms_recommenders", "Microsoft Recommenders", "recommenders 1.2.1",
    "recommenders-team/recommenders recommenders/evaluation/python_evaluation.py "
    "(merge_ranking_true_pred, precision_at_k, recall_at_k, ndcg_at_k, map_at_k, map, "
    "r_precision_at_k, logloss, auc, catalog_coverage); checked by tests/crosscheck/test_compat_presets.py",
    (("users", "intersection"), ("empty_truth", "skip")),
    LIBRARY_NAMES["ms_recommenders"],
    ("auc is global_auc(unlabelled=skip), pooled over users; gauc(unlabelled=skip) is its "
     "per-user form. auc and logloss read the truth's rating as the label: give binary "
     "ratings (0/1) with rel=1",
     "users are those present in both the truth and the predictions (merge_ranking_true_pred); "
     "ndcg_at_k alone merges every truth user back in (outer join), so there users="
     "'truth' reproduces it when some truth users have no predictions",
     "r_precision_at_k averages over users with a hit at rank <= min(R, k) only; receval "
     "averages over every user"),
)

RECBOLE = Preset(
    "recbole", "RecBole", "RecBole 1.2.1 (master 7b02be5)", "RUCAIBox/RecBole "
    "recbole/evaluator/metrics.py (Hit, MRR, MAP, Recall, NDCG, Precision, ItemCoverage, "
    "AveragePopularity, ShannonEntropy, GiniIndex, TailPercentage, GAUC, AUC), "
    "evaluator/utils.py (_binary_clf_curve), "
    "evaluator/collector.py (data.num_items, data.count_items, rec.meanrank); RecBole needs torch, so the tests use values worked "
    "out from these formulas",
    (("users", "truth"), ("empty_truth", "skip")),
    LIBRARY_NAMES["recbole"],
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

LENSKIT = Preset(
    "lenskit", "LensKit", "lenskit 2025.8.1", "lenskit/lkpy src/lenskit/metrics/ranking/_pr.py "
    "(Precision, Recall), _dcg.py (NDCG); LensKit's metrics import torch, so the tests use "
    "values worked out from these formulas",
    (("users", "truth"), ("empty_truth", "skip"), ("duplicates", "count")),
    LIBRARY_NAMES["lenskit"],
    ("NDCG(gain='rating') uses graded gains: ndcg@k(discount=log2_max2); it drops NaN gains "
     "from the DCG and its ideal (_dcg.py gains.dropna()): add nan_rel='zero'. The binary "
     "metrics count a NaN-rated test item as relevant (recs.isin(test)), which no nan_rel "
     "choice gives: fill such ratings with 1",
     "repeated recommended items: every occurrence counts (recs.isin(test) per position, "
     "duplicates='count'), so recall can exceed 1",
     "a user with an empty list has no precision (NaN) in LensKit; receval scores 0"),
)

SPARK_MLLIB = Preset(
    "spark_mllib", "Spark MLlib RankingMetrics", "Spark 3.5", "apache/spark mllib/src/main/"
    "scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala; no JVM in the test suite, "
    "so the tests use values worked out from these formulas",
    (("users", "intersection"), ("empty_truth", "zero")),
    LIBRARY_NAMES["spark_mllib"],
    ("an empty label set scores 0 and counts (empty_truth='zero')",
     "with relevance values (Scala API, Spark >= 3.4) the ideal DCG sums the labels in "
     "their given order, not sorted: not reproduced"),
)

RECMETRICS = Preset(
    "recmetrics", "recmetrics", "recmetrics 0.1.5", "statisticianinstilettos/recmetrics "
    "recmetrics/metrics.py (_ark, mark, prediction_coverage); checked by "
    "tests/crosscheck/test_compat_presets.py",
    (("users", "truth"), ("empty_truth", "zero"), ("duplicates", "keep")),
    LIBRARY_NAMES["recmetrics"],
    ("recmetrics lists are the top k already; an empty actual list scores 0",
     "catalog_coverage draws k lists at random (random.choices, with replacement, unseeded): "
     "not reproduced; over every list it is prediction_coverage",
     "a repeated predicted item keeps its position and only its first occurrence can be a "
     "hit (_ark: p not in predicted[:i]; duplicates='keep')"),
)

TORCHMETRICS = Preset(
    "torchmetrics", "torchmetrics (retrieval)", "torchmetrics 1.9.0",
    "Lightning-AI/torchmetrics src/torchmetrics/functional/retrieval/average_precision.py, "
    "precision.py, recall.py, hit_rate.py, reciprocal_rank.py, ndcg.py, r_precision.py, "
    "fall_out.py, retrieval/fall_out.py (RetrievalFallOut); "
    "torchmetrics needs torch, so the tests use values worked out from these formulas",
    (("users", "run"), ("empty_truth", "zero")),
    LIBRARY_NAMES["torchmetrics"],
    ("the truth is the target of the scored candidates: relevant items that were not scored "
     "do not exist for torchmetrics; pass the truth restricted to the run's items",
     "precision, recall, AP and RR treat candidates scored <= 0 as not retrieved; not "
     "reproduced (use positive scores)",
     "RetrievalNormalizedDCG averages tied scores: add ties='average' for it",
     "empty_target_action='neg' (the default): a query without a relevant candidate scores 0"),
)

CORNAC = Preset(
    "cornac", "Cornac", "cornac 3.0.1", "PreferredAI/cornac cornac/metrics/ranking.py (NDCG, "
    "MRR, Precision, Recall, FMeasure, HitRatio, MAP, AUC); read from the installed 3.0.1 source, "
    "the package needs compiled extras, so the tests use values worked out from these formulas",
    (("users", "truth"), ("empty_truth", "skip")),
    LIBRARY_NAMES["cornac"],
    ("MAP ranks tied scores pessimistically (rankdata 'max'); not reproduced",
     "MRR raises an error for a user without any positive in the ranking",
     "AUC is per user (averaged over users, not pooled), over the user's candidate items or "
     "the explicit negatives gt_neg, and counts a tied (positive, negative) pair 0 (strict >): "
     "gauc over the same candidates when scores are distinct; ties not reproduced"),
)

DAISYREC = Preset(
    "daisyrec", "DaisyRec", "daisyRec metrics.py at commit 0a8f3f7", "AmazingDD/daisyRec daisy/utils/metrics.py "
    "(Precision, Recall, MRR, MAP, NDCG, HR); worked examples from these formulas",
    (("users", "truth"), ("empty_truth", "zero")),
    LIBRARY_NAMES["daisyrec"],
    ("DaisyRec cuts every list at k before computing (calc_ranking_results): give lists of "
     "length k, so that NDCG's ideal is the top k's own hits",
     "F1 and AUC are unreachable in Metric.run (it tests `kpi`, not `mc`, for them)"),
)

REPLAY = Preset(
    "replay", "RePlay", "RePlay 0.21.7 (master b4e051e)", "sb-ai-lab/RePlay replay/metrics/"
    "map.py, ndcg.py, precision.py, recall.py, mrr.py, hitrate.py, rocauc.py; RePlay needs "
    "Spark or polars extras, so the tests use values worked out from these formulas (and "
    "RocAuc's docstring example)",
    (("users", "truth"), ("empty_truth", "zero")),
    LIBRARY_NAMES["replay"],
    ("RocAuc orders tied scores by the list (no half credit for ties): equal to gauc@k when "
     "scores are distinct",
     "a user with no recommendation or no ground truth scores 0",
     "DataFrame inputs (pandas, polars, Spark) are sorted by (score, item id) descending "
     "(base_metric.py): tied scores rank the larger item id first. receval's ties='id' ranks "
     "the smaller first; ties='trec_eval' (score as float32, then id descending as a string) "
     "reproduces it for string ids that sort like the library's and float32-exact scores; "
     "integer ids: not reproduced. Dict inputs keep the given order of tied scores"),
)

RECPACK = Preset(
    "recpack", "RecPack", "recpack 0.3.6", "LienM/recpack recpack/metrics/dcg.py (DCGK, NDCGK), "
    "precision.py, recall.py (RecallK, CalibratedRecallK), reciprocal_rank.py, base.py "
    "(_eliminate_empty_users); worked examples from these formulas",
    (("users", "truth"), ("empty_truth", "skip")),
    LIBRARY_NAMES["recpack"],
    ("users without truth interactions are removed before scoring (empty_truth='skip')",
     "NDCGK's ideal counts the sum of y_true, the number of items for binary matrices",
     "DCGK and NDCGK with a graded y_true discount by log2(rank * y_true + 1) (dcg.py "
     "multiplies the top-K ranks by y_true before the log): only binary matrices give the "
     "DCG of the docstring; graded matrices are not reproduced"),
)

ELLIOT = Preset(
    "elliot", "Elliot", "elliot 0.3.1 (master fc27efe)",
    "sisinflab/elliot elliot/evaluation/metrics/accuracy/ (ndcg/ndcg.py, ndcg/ndcg_rendle2020.py, "
    "precision, recall, hit_rate, mrr, mar, f1, map, AUC/*.py), relevance/relevance.py, "
    "base_metric.py, coverage/item_coverage, diversity/shannon_entropy, diversity/gini_index; "
    "Elliot needs TensorFlow, so the tests use values worked out from these formulas",
    (("users", "intersection"), ("empty_truth", "skip")),
    LIBRARY_NAMES["elliot"],
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

PYKEEN = Preset(
    "pykeen", "PyKEEN (rank-based metrics)", "pykeen 1.11.2-dev (master 05c7bbb)",
    "pykeen/pykeen src/pykeen/metrics/ranking.py (HitsAtK, InverseHarmonicMeanRank, "
    "ArithmeticMeanRank), src/pykeen/evaluation/ranks.py (optimistic, pessimistic, realistic "
    "ranks); PyKEEN needs torch, so the tests use values worked out from these formulas",
    (("users", "truth"), ("empty_truth", "skip")),
    LIBRARY_NAMES["pykeen"],
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

PRESETS: dict[str, Preset] = {p.name: p for p in (
    TREC_EVAL, RANX, SKLEARN, RECTOOLS, MS_RECOMMENDERS, RECBOLE, LENSKIT, SPARK_MLLIB,
    RECMETRICS, TORCHMETRICS, CORNAC, DAISYREC, REPLAY, RECPACK, ELLIOT, PYKEEN,
)}
# other names of the same preset
PRESET_ALIASES = {"pytrec_eval": "trec_eval", "ir_measures": "trec_eval",
                  "scikit-learn": "sklearn", "recommenders": "ms_recommenders",
                  "spark": "spark_mllib"}
