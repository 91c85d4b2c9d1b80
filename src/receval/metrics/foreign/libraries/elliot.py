"""Elliot's metric names and conventions (``compat="elliot"``)."""

from __future__ import annotations

from ..records import Name, Preset, refuse
from ..records import name as _n

#: relevance_threshold t: a truth row is relevant when its relevance >= t
_T = {"relevance_threshold": "rel"}
_POP = ("needs the training interactions (Elliot's item popularity from its training set), "
        "which receval's evaluation does not take under this preset")
_USER = ("a measure of a result with groups=: rv.results.fairness.user_mad(...) (e.g. "
         "user_mad(rv.evaluate(run, truth, ['ndcg@10'], compat='elliot', groups=g), 'ndcg@10'))")

NAMES: dict[str, Name] = {
    "ndcg": _n("ndcg", "gain 2^(r - t + 1) - 1 for truth items with r >= t (t = "
               "relevance_threshold; t = 1: 2^r - 1); ideal from the user's relevant "
               "items, cut at k", gain="exp",
               options={"relevance_threshold": {"1": {}}}),
    "ndcgrendle2020": _n("ndcg", "binary gain; ideal min(R, k) hits", gain="binary",
                                 options={"relevance_threshold": {"1": {}}}),
    "precision": _n("precision", "hits in the top k / k", options=_T),
    "recall": _n("recall", "hits in the top k / R", options=_T),
    "hr": _n("hit_rate", "1 if a relevant item is in the top k", options=_T),
    "mrr": _n("mrr", "1 / rank of the first relevant item within k", options=_T),
    "mar": _n("mar", "mean over n = 1..k of recall@n", options=_T),
    "f1": _n("f1", "2 P R / (P + R), P over k, R over the relevant items", options=_T),
    "itemcoverage": _n("coverage", "distinct items in the top-k lists (a count)",
                       kind="count"),
    "sentropy": _n("entropy", "sum_i w_i (-log2 c_i / sum_j c_j) / users, w_i = sum over "
                   "lists holding i of 1 / list length: the entropy of exposure in bits "
                   "when every list has k items", differs="SEntropy weights"),
    "numretrieved": _n("num_ret", "min(k, list length) averaged over the users with a relevant "
                       "item"),
    "dsc": _n("fbeta", "Sorensen-Dice (1 + b^2) P R / (b^2 P + R) of Precision and Recall "
              "(beta, default 1)", options={**_T, "beta": "beta"}),
    "map": refuse("mean over n = 1..k of precision@n", "Elliot's MAP averages precision@n over "
                  "every n = 1..k (map.py), not over the relevant ranks: no receval metric "
                  "computes that mean"),
    "extendedf1": refuse("F1 of two configured metrics", "combines any two configured "
                         "metrics per user (complex_metrics); write fbeta or dsc instead"),
    "auc": refuse("AUC over the catalogue", "counts negatives as |I| - |train(u)| - R + 1: "
                  "needs each user's training items and the full score matrix"),
    "gauc": refuse("group AUC", "counts negatives over the catalogue minus the user's training "
                   "items: needs the training data and the full score matrix"),
    "lauc": refuse("limited AUC", "counts negatives over the catalogue minus the user's "
                   "training items: needs the training data"),
    "mae": refuse("mean absolute error", "computed on Elliot's full predicted score matrix "
                  "for every test rating (needs_full_recommendations), not on a top-k run"),
    "mse": refuse("mean squared error", "computed on Elliot's full predicted score matrix "
                  "for every test rating (needs_full_recommendations), not on a top-k run"),
    "rmse": refuse("root mean squared error", "computed on Elliot's full predicted score "
                   "matrix for every test rating (needs_full_recommendations), not on a "
                   "top-k run"),
    "usercoverage": refuse("count of users with a non-empty list", "a count of users (with "
                           "test rows) whose list is not empty, where receval's user_coverage "
                           "is a share of users"),
    "usercoverageatn": refuse("count of users whose list holds at least k items", "a count of "
                              "users whose list has k items or more: no receval metric counts "
                              "full lists"),
    "gini": refuse("1 - Gini of exposure over the catalogue", "Elliot reports 1 - G over its "
                   "catalogue of num_items items (the dataset's items), where receval's gini "
                   "is G: compute 1 - gini@k with that catalogue"),
    "srecall": refuse("subtopic recall", "needs Elliot's item feature (category) file"),
    "efd": refuse("expected free discovery", _POP),
    "extendedefd": refuse("expected free discovery, rank and relevance aware", _POP),
    "epc": refuse("expected popularity complement", _POP),
    "extendedepc": refuse("expected popularity complement, rank and relevance aware", _POP),
    "arp": refuse("average recommendation popularity", _POP),
    "aplt": refuse("average percentage of long-tail items", _POP),
    "aclt": refuse("average coverage of long-tail items", _POP),
    "poprsp": _n("pop_rsp", "RSP over the short head and long tail of the training data "
                 "(items by distinct users until their popularity reaches 0.8 of the distinct "
                 "training pairs; Elliot's Popularity); candidates: items not in the user's "
                 "training items (pass train=)",
                 differs="PopREO and PopRSP ties"),
    "popreo": _n("pop_reo", "REO over the short head and long tail of the training data; "
                 "relevant items in the user's training items left out (pass train=)",
                 train_items="drop", options=_T, differs="PopREO and PopRSP ties"),
    "extendedpoprsp": _n("pop_rsp", "PopRSP with the short head's share pop_ratio (default "
                         "0.8; pass train=)", options={"pop_ratio": "head"},
                         differs="PopREO and PopRSP ties"),
    "extendedpopreo": _n("pop_reo", "PopREO with the short head's share pop_ratio (default "
                         "0.8; pass train=)", train_items="drop",
                         options={**_T, "pop_ratio": "head"},
                         differs="PopREO and PopRSP ties"),
    "usermadrating": refuse("user groups' mean absolute deviation of the mean top-k score",
                            _USER),
    "usermadranking": refuse("user groups' mean absolute deviation of nDCG", _USER),
    "itemmadrating": _n("item_mad", "item groups' mean absolute difference of the items' mean "
                        "score where relevant (0 elsewhere) over the lists holding them; users "
                        "with a relevant item (pass item_groups=)", variant="rating",
                        options=_T),
    "itemmadranking": _n("item_mad", "item groups' mean absolute difference of the items' mean "
                         "gain 2^(r - t + 1) - 1 over the lists holding them; users with a "
                         "relevant item (pass item_groups=)", options=_T),
    "biasdisparitybr": _n("bias_disparity", "bias of the recommendations: the item group's "
                          "share of the top-k slots over its share of the items (name the "
                          "group: biasdisparitybr@10(group=G); per user group with groups=)",
                          measure="br"),
    "biasdisparitybs": _n("bias_disparity", "bias of the source: the item group's share of "
                          "every user's training pairs over its share of the items (pass "
                          "train=; group=G)", measure="bs"),
    "biasdisparitybd": _n("bias_disparity", "(BR - BS) / BS of the item group (pass train=; "
                          "group=G)", measure="bd"),
    "rsp": _n("rsp", "ranking-based statistical parity of item groups: std / mean over the "
              "groups of their items' rate of being in the top k among the items not in the "
              "user's training items (pass item_groups= and train=)"),
    "reo": _n("reo", "ranking-based equal opportunity of item groups: std / mean of the "
              "groups' rate of relevant items in the top k, relevant training items left out "
              "(pass item_groups= and train=)", train_items="drop", options=_T),
}

PRESET = Preset(
    "elliot", "Elliot", "elliot 0.3.1 (master fc27efe)",
    "sisinflab/elliot at fc27efedaddf (master, 0.3.1) elliot/evaluation/metrics/__init__.py "
    "(_metric_dictionary: every exported name), accuracy/ (ndcg/ndcg.py, ndcg/ndcg_rendle2020.py, "
    "precision, recall, hit_rate, mrr, mar, map, f1, DSC, AUC/*.py), rating/, coverage/, "
    "diversity/, novelty/, bias/, fairness/, base_metric.py, relevance/relevance.py, "
    "evaluation/evaluator.py; the metric modules import with numpy and pandas only, and "
    "benchmarks/peers/libs/elliot.py checks the preset against them",
    (("users", "intersection"), ("empty_truth", "skip")),
    NAMES,
    ("relevance_threshold t: Elliot's default when the configuration omits it is 0 (every test "
     "row relevant, nDCG gain 2^(r + 1) - 1); the preset follows the example configurations "
     "(t = 1). On implicit feedback (every truth relevance 1) both give the same values. "
     "Binary metrics take relevance_threshold as receval's rel; nDCG and nDCGRendle2020 accept "
     "only 1 (receval's exponential gain does not shift by t); relevance_threshold=0 is "
     "refused (receval's rel is positive: a truth row of relevance 0 is never relevant)",
     "users are those with recommendations and at least one relevant test item "
     "(eval_user_metric), hence users='intersection', empty_truth='skip'",
     "MAP averages precision@n over every n = 1..k (map.py), not over the relevant ranks as "
     "its docstring states: no receval metric computes that mean, so map is refused",
     "AUC, GAUC and LAUC count negatives as |I| - |train(u)| - |relevant(u)| + 1 (the catalogue "
     "minus the user's training items, plus one): refused, as are the metrics that read "
     "Elliot's training popularity (EFD, EPC, ARP, APLT, ACLT)",
     "REO, RSP, ItemMAD* and BiasDisparity* read item_groups= (Elliot's clustering_file), and "
     "RSP, REO, PopREO, PopRSP and BiasDisparityBS train= (Elliot's training set); "
     "BiasDisparity* names one item group with group= and reads the user groups from groups= "
     "(Elliot's user_clustering_file); UserMADranking / UserMADrating are measures of a result "
     "with groups= (receval.results.fairness.user_mad). With a user clustering, Elliot's "
     "BiasDisparityBS of a user group counts that group's training users: receval's "
     "bias_disparity(users=evaluated) with groups= counts the group's evaluated users (equal "
     "when every training user is evaluated); users=train counts every training user",
     "PopREO and PopRSP ties: Elliot orders items of equal training popularity as a Python set "
     "iterates; receval by raw item id: the short head differs only when tied items straddle "
     "its end",
     "Gini reports 1 - G over the catalogue (Elliot's num_items): refused, write 1 - gini@k "
     "with that catalogue",
     "SEntropy weights each exposure by 1 / the list's length and divides by the users: equal "
     "to entropy@k only when every list has k items"),
)
