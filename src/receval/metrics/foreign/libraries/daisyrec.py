"""DaisyRec's metric names and conventions (``compat="daisyrec"``).

The metric names of ``daisy/utils/metrics.py``: the keys of ``metrics_name_config`` that a
configuration lists (``recall``, ``mrr``, ``ndcg``, ``hit``, ``precision``, ``f1``, ``auc``,
``coverage``, ``diversity``, ``popularity``), ``map`` (which ``Metric.run`` computes), and the
module's functions lower case (``hr``: ``HR``). ``calc_ranking_results`` cuts every user's
ranking at each k (``pred_ur[:, :topk]``) and averages the users of the test set; the cutoff is
that k (``ndcg@10``).
"""

from __future__ import annotations

from ..records import Name, Preset, refuse
from ..records import name as _n

NAMES: dict[str, Name] = {
    "precision": _n("precision", "hits / length of the top-k list", denominator="list"),
    "recall": _n("recall", "hits / |test items|"),
    "mrr": _n("mrr", "1 / rank of the first hit in the top k"),
    "map": _n("map", "mean of precision at each hit of the top k (AP over the hits; 0 "
              "without a hit)", denominator="hits"),
    "ndcg": _n("ndcg", "binary gain 2^hit - 1; the ideal is the user's own top k sorted (its "
               "hits first)", gain="binary", ideal="list"),
    "hit": _n("hit_rate", "1 if a test item is in the top k"),
    "hr": _n("hit_rate", "the function HR behind 'hit'"),
    "f1": _n("f1", "2 P R / (P + R), P = hits / k, R = hits / |test items| (the function "
             "F1)", differs="F1 divides 0 by 0"),
    "auc": _n("gauc", "per user, the share of (hit, non-hit) pairs of the top k with the hit "
              "ranked above, averaged over users (the function AUC)", differs="F1 divides 0 by 0"),
    "coverage": _n("coverage", "distinct items of all top-k lists / item_num: pass "
                   "evaluate(catalog=item_num)"),
    "popularity": refuse(
        "per user, the summed popularity (item_pop) of the top-k items that are test items, "
        "divided by the number of test items",
        "a popularity of the hits divided by the test items, which no receval metric "
        "computes (arp averages the popularity of every recommended item)"),
    "diversity": refuse(
        "per user, the mean Euclidean distance between the category vectors of each pair "
        "of top-k items",
        "a Euclidean distance, where receval's ild is 1 - a similarity: evaluate "
        "ild@k(sim=custom) with item_features=the category matrix and similarity=lambda a, "
        "b: 1 - numpy.linalg.norm(a - b, axis=1)"),
}

PRESET = Preset(
    "daisyrec", "DaisyRec", "daisyRec 2.3.0", "AmazingDD/daisyRec daisy/utils/metrics.py "
    "(metrics_name_config, calc_ranking_results, Metric.run, Precision, Recall, MRR, MAP, "
    "NDCG, HR, F1, AUC, Coverage, Popularity, Diversity); read from the installed 2.3.0; "
    "checked by benchmarks/peers/libs/daisyrec.py and tests/crosscheck/test_preset_daisyrec.py",
    (("users", "truth"), ("empty_truth", "zero")),
    NAMES,
    ("DaisyRec cuts every list at k before computing (calc_ranking_results): give lists of "
     "length k, so that NDCG's ideal is the top k's own hits",
     "F1 and AUC are unreachable in Metric.run (it tests `kpi`, not `mc`, for them) and map "
     "in calc_ranking_results (metrics_name_config has no 'map'); the functions themselves "
     "are reproduced",
     "F1 divides 0 by 0 for a user without a hit, and AUC for a user whose top k holds no "
     "hit or only hits: the mean is then NaN; receval's f1 scores such a user 0 and its "
     "gauc leaves a user with one class out (single_class=skip)",
     "AUC compares positions in the top k (a hit above a non-hit counts 1): with tied scores "
     "receval's gauc counts the pair 1/2",
     "Coverage divides by config['item_num']: pass evaluate(catalog=item_num), otherwise "
     "the catalogue is the items of the truth and the run"),
)
