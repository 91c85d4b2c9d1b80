"""ranx's metric names and conventions (``compat="ranx"``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..records import name as _n

NAMES: dict[str, Name] = {
    "ndcg": _n("ndcg", "Jarvelin & Kekalainen nDCG, gain = grade, ideal = all judged"),
    "ndcg_burges": _n("ndcg", "Burges nDCG: gain 2^grade - 1", gain="exp"),
    "dcg_burges": _n("dcg", "Burges DCG: gain 2^grade - 1", gain="exp"),
    "map": _n("map", "AP / R"),
    "mrr": _n("mrr", "1 / rank of the first relevant"),
    "precision": _n("precision", "relevant in the top k / k"),
    "recall": _n("recall", "relevant in the top k / R"),
    "hit_rate": _n("hit_rate", "1 if a relevant item is in the top k"),
    "hits": _n("hits", "relevant retrieved"),
    "f1": _n("f1", "harmonic mean of precision@k and recall@k"),
    "r-precision": _n("r_precision", "relevant in the top R / R"),
    "bpref": _n("bpref", "bpref, trec_eval's form (see the notes for queries without "
                "judged non-relevant or relevant items)"),
}

PRESET = Preset(
    "ranx", "ranx", "ranx 0.3.21", "AmenRa/ranx ranx/metrics/*.py (ndcg.py, average_precision.py,"
    " hit_rate.py, r_precision.py), ranx/data_structures/common.py (sort_dict_by_value); "
    "checked by tests/crosscheck/test_ranx.py",
    (("ties", "input"), ("users", "truth"), ("empty_truth", "zero")),
    NAMES,
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
