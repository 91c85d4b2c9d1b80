"""Microsoft Recommenders's metric names and conventions (``compat="ms_recommenders"``).

Every public metric function of ``recommenders.evaluation.python_evaluation``, lower case, with
its own parameters as options: the ranking metrics' ``k`` (the cutoff, default 10:
``precision_at_k`` is ``precision@10``) and ``relevancy_method`` (``"top_k"`` only),
``ndcg_at_k``'s ``score_type`` and ``discfun_type``, and the diversity and serendipity
functions' ``item_sim_measure`` (``"item_cooccurrence_count"``: cosine of the items' columns of
the training user x item matrix, ``source=cooccurrence``; ``"item_feature_vector"``: cosine of
``item_features=...``, ``source=features``). The column-name parameters (``col_user``,
``col_item``, ``col_item_features``, ...) name DataFrame columns; receval reads the run, the
truth, ``train=...`` and ``item_features=...`` instead.
"""

from __future__ import annotations

from typing import Any

from ..records import Name, Preset, refuse
from ..records import name as _n

#: the ranking metrics' cutoff (DEFAULT_K = 10) and top-k relevancy (the only one reproduced:
#: "by_threshold" passes the threshold as the cutoff, None ranks by row order)
_K: dict[str, Any] = {"k": "@k", "relevancy_method": {"top_k": {}}}
#: the diversity / serendipity functions' item similarity
_SIM: dict[str, Any] = {"item_sim_measure": {"item_cooccurrence_count": {"source": "cooccurrence"},
                                             "item_feature_vector": {"source": "features"}}}
#: the beyond-accuracy functions read reco_df's every user
_RUN = "; pass users='run' (reco_df's every user) and train=..."

NAMES: dict[str, Name] = {
    # rating metrics: scikit-learn's over the inner join of rating_true and rating_pred
    "rmse": _n("rmse", "sqrt of the mean squared error over the (user, item) pairs of both "
               "rating_true and rating_pred, pooled", average="micro", missing="skip"),
    "mae": _n("mae", "mean absolute error over the pairs of both, pooled", average="micro",
              missing="skip"),
    "rsquared": _n("r2", "scikit-learn's r2_score over the pairs of both, pooled",
                   average="micro", missing="skip"),
    "exp_var": _n("explained_variance", "scikit-learn's explained_variance_score over the "
                  "pairs of both, pooled", average="micro", missing="skip"),
    "precision_at_k": _n("precision", "hits in the top k / k (k=10 by default)",
                         default_k=10, options=_K),
    "recall_at_k": _n("recall", "hits in the top k / R (k=10 by default)", default_k=10,
                      options=_K),
    "ndcg_at_k": _n("ndcg", "sum over hits of rel / log(1 + rank) over the ideal of the true "
                    "items, top k (k=10 by default); score_type='binary' (default): rel = 1 "
                    "for every true item, 'raw': the rating (ndcg), 'exp': 2^rating - 1 "
                    "(ndcg(gain=exp)); the base of the logarithm (discfun_type 'loge' or "
                    "'log2') cancels", gain="binary", default_k=10,
                    options={**_K, "score_type": {"binary": {"gain": "binary"},
                                                  "raw": {"gain": "linear"},
                                                  "exp": {"gain": "exp"}},
                             "discfun_type": {"loge": {}, "log2": {}}}),
    "map_at_k": _n("map", "sum of precision at hits within k / min(R, k) (k=10 by default)",
                   denominator="min_k_rel", default_k=10, options=_K),
    "map": _n("map", "sum of precision at hits within k / R (k still cuts the list; k=10 by "
              "default)", default_k=10, options=_K),
    "catalog_coverage": _n("coverage", "distinct recommended items / distinct training "
                           "items; recommended items absent from training count: pass "
                           "catalog='train' and train=..., and users='run' (reco_df's "
                           "every user)", outside="count"),
    "distributional_coverage": _n(
        "entropy", "-sum_i p(i) log2 p(i), p(i) = rows of reco_df holding item i / rows of "
        "reco_df (Shani & Gunawardana eq. 21): the base-2 entropy of exposure; pass users='run' "
        "(reco_df's every user)"),
    "logloss": _n("log_loss", "log loss over the inner join of truth and predictions "
                  "(labelled pairs only), pooled", average="micro", unlabelled="skip"),
    "auc": _n("global_auc", "roc_auc_score over the inner join of truth and predictions: "
              "one ROC area over the labelled pairs of every user pooled, ties 1/2; one "
              "class only gives NaN (scikit-learn >= 1.6)", unlabelled="skip"),
    "r_precision_at_k": _n(
        "r_precision", "hits at ranks <= min(R, k) / R (k=10 by default)",
        denominator="rel", default_k=10, options=_K, differs="r_precision_at_k averages"),
    # diversity, novelty and serendipity (Zhang et al., WSDM 2012; Castells et al., ECIR 2011)
    "diversity": _n(
        "ild", "mean over users of 1 - the mean similarity of the distinct item pairs of "
        "the user's reco_df rows (users with one item have no pair and drop out); "
        "item_sim_measure='item_cooccurrence_count' (default): cosine of co-occurrence in "
        "train_df, shared users / sqrt(users_i users_j), 0 for a pair never seen together"
        + _RUN, source="cooccurrence", options=_SIM),
    "user_diversity": _n(
        "ild", "the table of each user's diversity (1 - mean pair similarity): receval's "
        "per-user values (result.user_values), a user with one item has no value and no "
        "row; the summary is the library's diversity" + _RUN, source="cooccurrence",
        options=_SIM),
    "serendipity": _n(
        "sim_novelty", "mean over users with training rows of the mean over their reco_df "
        "items of 1 - mean similarity to the user's training items; col_relevance=None "
        "(default): every recommended item relevant" + _RUN, source="cooccurrence",
        reference="history", options={**_SIM, "col_relevance": {"none": {}}}),
    "user_serendipity": _n(
        "sim_novelty", "the table of each user's serendipity (mean over the user's items of "
        "1 - mean similarity to the user's training items): receval's per-user values "
        "(result.user_values), a user without training rows has no value and no row; the "
        "summary is the library's serendipity" + _RUN, source="cooccurrence",
        reference="history", options={**_SIM, "col_relevance": {"none": {}}}),
    "user_item_serendipity": refuse(
        "a table of (1 - mean similarity to the user's training items) x relevance for every "
        "(user, item) row of reco_df",
        "it is a table with one value per recommended (user, item) pair; receval keeps one "
        "value per user: user_serendipity (per user) or serendipity (their mean)."),
    "historical_item_novelty": refuse(
        "a table of -log2(training rows of the item / training rows) for every training item",
        "it is a table with one value per training item (its popularity self-information), "
        "not a value of the recommendations; receval's novelty averages it over each list."),
    "novelty": refuse(
        "sum over every reco_df row of -log2(training rows of the item / training rows) / "
        "rows of reco_df; an item absent from training adds 0 but counts in the rows",
        "it pools every recommended (user, item) row, where receval's novelty averages within "
        "each list and then over users (equal only when every list has the same length), "
        "and an item absent from training adds 0 bits (receval: unseen=one, skip or error)."),
}

PRESET = Preset(
    "ms_recommenders", "Microsoft Recommenders", "recommenders 1.2.1",
    "recommenders-team/recommenders recommenders/evaluation/python_evaluation.py "
    "(merge_rating_true_pred, rmse, mae, rsquared, exp_var, auc, logloss, "
    "merge_ranking_true_pred, precision_at_k, recall_at_k, r_precision_at_k, ndcg_at_k, map, "
    "map_at_k, _get_cooccurrence_similarity, _get_item_feature_similarity, user_diversity, "
    "diversity, historical_item_novelty, novelty, user_item_serendipity, user_serendipity, "
    "serendipity, catalog_coverage, distributional_coverage); checked by "
    "benchmarks/peers/libs/ms_recommenders.py and tests/crosscheck/test_preset_ms_recommenders.py",
    (("users", "intersection"), ("empty_truth", "skip")),
    NAMES,
    ("auc is global_auc(unlabelled=skip), pooled over users; gauc(unlabelled=skip) is its "
     "per-user form. auc and logloss read the truth's rating as the label: give binary "
     "ratings (0/1) with rel=1",
     "users are those present in both the truth and the predictions (merge_ranking_true_pred); "
     "ndcg_at_k alone merges every truth user back in (outer join), so there users="
     "'truth' reproduces it when some truth users have no predictions",
     "r_precision_at_k averages over users with a hit at rank <= min(R, k) only; receval "
     "averages over every user",
     "catalog_coverage, distributional_coverage, diversity and serendipity read train_df "
     "and reco_df only, every user of reco_df: evaluate them with users='run' and train=..., "
     "apart from the accuracy metrics (users='intersection'); a key with a cutoff (diversity@10) "
     "means reco_df holds each user's top k",
     "diversity and serendipity give a pair that involves an item without a similarity "
     "(item_cooccurrence_count: an item absent from train_df; item_feature_vector: an item "
     "without a feature vector) similarity 0; receval refuses such items (missing='error') "
     "or leaves them out of the list (missing='skip'): give every recommended and training "
     "item a feature vector, or recommend training items only",
     "serendipity and user_serendipity take only col_relevance=None (every recommended item "
     "relevant); with a 0/1 col_relevance column, receval's own serendipity(source="
     "cooccurrence) (item_feature_vector: source=features), without compat and without a "
     "cutoff, with those relevances as the truth, users='run' and train=..., gives the "
     "library's value (a graded column weights each item; receval does not)",
     "the Spark classes of recommenders.evaluation.spark_evaluation (SparkRatingEvaluation, "
     "SparkRankingEvaluation, SparkDiversityEvaluation) share these method names and are not "
     "checked here; SparkRankingEvaluation's are Spark MLlib's RankingMetrics (compat="
     "'spark_mllib')"),
)
