"""Microsoft Recommenders's metric names and conventions (``compat="ms_recommenders"``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..records import name as _n

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
    "precision_at_k": _n("precision", "hits in the top k / k"),
    "recall_at_k": _n("recall", "hits in the top k / R"),
    "ndcg_at_k": _n("ndcg", "score_type='binary' (default): gain 1 for every true item; "
                    "ideal from the true items", gain="binary"),
    "map_at_k": _n("map", "sum of precision at hits within k / min(R, k)",
                   denominator="min_k_rel"),
    "map": _n("map", "sum of precision at hits within k / R (k still cuts the list)"),
    "catalog_coverage": _n("coverage", "distinct recommended items / distinct training "
                           "items; recommended items absent from training count: pass "
                           "catalog='train' and train=..., and users='run' (reco_df's "
                           "every user)", outside="count"),
    "logloss": _n("log_loss", "log loss over the inner join of truth and predictions "
                  "(labelled pairs only), pooled", average="micro", unlabelled="skip"),
    "auc": _n("global_auc", "roc_auc_score over the inner join of truth and predictions: "
              "one ROC area over the labelled pairs of every user pooled, ties 1/2; one "
              "class only gives NaN (scikit-learn >= 1.6)", unlabelled="skip"),
    "r_precision_at_k": _n(
        "r_precision", "hits at ranks <= min(R, k) / R",
        "users without such a hit drop out of the mean (pandas division leaves NaN for "
        "them and .mean() skips it), so the value is not an average over all users",
        denominator="rel"),
}

PRESET = Preset(
    "ms_recommenders", "Microsoft Recommenders", "recommenders 1.2.1",
    "recommenders-team/recommenders recommenders/evaluation/python_evaluation.py "
    "(merge_ranking_true_pred, precision_at_k, recall_at_k, ndcg_at_k, map_at_k, map, "
    "r_precision_at_k, logloss, auc, catalog_coverage); checked by tests/crosscheck/test_compat_presets.py",
    (("users", "intersection"), ("empty_truth", "skip")),
    NAMES,
    ("auc is global_auc(unlabelled=skip), pooled over users; gauc(unlabelled=skip) is its "
     "per-user form. auc and logloss read the truth's rating as the label: give binary "
     "ratings (0/1) with rel=1",
     "users are those present in both the truth and the predictions (merge_ranking_true_pred); "
     "ndcg_at_k alone merges every truth user back in (outer join), so there users="
     "'truth' reproduces it when some truth users have no predictions",
     "r_precision_at_k averages over users with a hit at rank <= min(R, k) only; receval "
     "averages over every user"),
)
