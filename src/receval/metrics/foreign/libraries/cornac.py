"""Cornac's metric names and conventions (``compat="cornac"``).

Every class ``cornac.metrics`` exports, lower case, and ``f1`` (the name ``FMeasure``
reports). Cornac's ranking evaluation (``cornac.eval_methods.base_method.ranking_eval``) ranks
every candidate item of each test user that has a positive test item (rating >=
``rating_threshold``) and averages the users; a class's ``k`` is the cutoff (``ndcg@10`` is
``NDCG(k=10)``; ``k=-1``, the default, is the name without one). Its rating evaluation
(``rating_eval``) averages the errors over every test rating, or over users with
``user_based=True``.
"""

from __future__ import annotations

from ..records import Name, Preset
from ..records import name as _n

#: ranking_eval's rating_threshold: the positives are the ratings >= it (receval's rel)
_RANKING = {"rating_threshold": "rel"}
#: rating_eval's user_based: the mean over ratings (False, the default) or over users
_RATING = {"user_based": {"false": {"average": "micro"}, "true": {"average": "macro"}}}

NAMES: dict[str, Name] = {
    "ndcg": _n("ndcg", "DCG of the top k, gain 2^[positive] - 1, discount log2(rank + 1), "
               "over the DCG of min(R, k) positives (the whole list without k)",
               gain="binary",
               options={"rating_threshold": {"1": {}, "1.0": {}}}),
    "ncrr": _n("ncrr", "sum of 1 / rank of the positives in the top k over the same sum for "
               "min(R, list length) positives at the top", options=_RANKING),
    "mrr": _n("mrr", "1 / rank of the first positive in the whole ranking (no cutoff)",
              options=_RANKING),
    "hitratio": _n("hit_rate", "1 if a positive is in the top k", options=_RANKING),
    "precision": _n("precision", "positives in the top k / k (the list length without k)",
                    options=_RANKING),
    "recall": _n("recall", "positives in the top k / positives", options=_RANKING),
    "fmeasure": _n("f1", "2 P R / (P + R) of Precision@k and Recall@k; 0 when both are 0",
                   options=_RANKING),
    "f1": _n("f1", "FMeasure's reported name (F1@k)", options=_RANKING),
    "auc": _n("gauc", "per user: the share of (positive, negative) candidate pairs the "
              "positive scores strictly above, averaged over users", options=_RANKING,
              differs="AUC counts a tied"),
    "map": _n("map", "AP over the whole ranking: mean over the positives of (positives "
              "ranked at or above it) / its rank", options=_RANKING,
              differs="MAP ranks tied scores"),
    "mae": _n("mae", "mean |predicted - true rating| over the test ratings "
              "(user_based=True: mean of the users' means)", options=_RATING),
    "rmse": _n("rmse", "square root of the mean squared error over the test ratings "
               "(user_based=True: mean of the users' RMSE)", options=_RATING),
    "mse": _n("mse", "mean squared error over the test ratings (user_based=True: mean of "
              "the users' MSE)", options=_RATING),
}

PRESET = Preset(
    "cornac", "Cornac", "cornac 3.0.1", "PreferredAI/cornac cornac/metrics/ranking.py (NDCG, "
    "NCRR, MRR, HitRatio, Precision, Recall, FMeasure, AUC, MAP), cornac/metrics/rating.py "
    "(MAE, RMSE, MSE), cornac/eval_methods/base_method.py (ranking_eval, rating_eval); read "
    "from the installed 3.0.1; checked by benchmarks/peers/libs/cornac.py and "
    "tests/crosscheck/test_preset_cornac.py",
    (("users", "truth"), ("empty_truth", "skip")),
    NAMES,
    ("MAP ranks tied scores pessimistically (rankdata 'max'); not reproduced",
     "AUC counts a tied (positive, negative) pair 0 (strict >); receval's gauc counts it 1/2: "
     "with tied scores not reproduced",
     "MRR raises an error for a user without any positive in the ranking; receval scores 0",
     "the run holds every candidate the user's ranking covers: ranking_eval scores all items "
     "but the user's training and validation positives; AUC's negatives are the candidates "
     "that are not positive (ranking_eval's gt_neg); MAP, MRR and AUC read the whole ranking",
     "Recommender.rank orders tied scores as numpy's argsort reversed; receval orders them by "
     "item id (ties='id')",
     "NDCG takes no rating_threshold other than 1 here (receval's binary gain is [rating > "
     "0]): binarise the truth at the threshold first",
     "the weights argument of the rating metrics' compute (not used by rating_eval) has no "
     "receval parameter"),
)
