"""ranx's metric names and conventions (``compat="ranx"``)."""

from __future__ import annotations

from ..records import Name, Preset, refuse
from ..records import name as _n

NAMES: dict[str, Name] = {
    "ndcg": _n("ndcg", "Jarvelin & Kekalainen nDCG, gain = grade, ideal = all judged"),
    "ndcg_burges": _n("ndcg", "Burges nDCG: gain 2^grade - 1", gain="exp"),
    "dcg": _n("dcg", "Jarvelin & Kekalainen DCG: sum of grade / log2(rank + 1)"),
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
                "judged non-relevant or relevant items)", differs="bpref: a query without"),
    "rbp": refuse("rank-biased precision (1 - p) sum_i grade_i p^(i-1) over the whole list, "
                  "written rbp.p: rbp.95 is p = 0.95, rbp.8 p = 0.8 (receval rbp(p=...))",
                  "ranx reads the persistence from the name: write rbp.95 (p = 0.95) or "
                  "rbp.8 (p = 0.8); rbp@95 would read as a cutoff"),
    "interpolated_precision_at_recall": refuse(
        "interpolated precision at the 11 recall levels 0, 0.1, ..., 1",
        "11 values (a precision-recall curve), not one number; iprec(recall=p) is one "
        "level, iprec_avg their mean"),
    "get_hit_lists": refuse("each query's 0/1 list of relevant retrieved documents",
                            "a list per query, not one number"),
}

#: ranx's ``rbp.p`` (``rbp.95``: persistence 0.95): the persistence is read from the name
RBP_P = _n("rbp", "rank-biased precision, persistence 0.p", differs="rbp: ranx weighs")

PRESET = Preset(
    "ranx", "ranx", "ranx 0.3.21", "AmenRa/ranx ranx/metrics/*.py (ndcg.py, average_precision.py,"
    " hit_rate.py, r_precision.py, rank_biased_precision.py, bpref.py), ranx/meta/evaluate.py "
    "(extract_metric_and_params: @k, rbp.p, -lN), ranx/data_structures/common.py "
    "(sort_dict_by_value); checked by tests/crosscheck/test_ranx.py and "
    "test_preset_ranx.py",
    (("ties", "input"), ("users", "truth"), ("empty_truth", "zero")),
    NAMES,
    ("ties: a ranx Run orders each query with numba's argsort of the negated scores, whose "
     "quicksort insertion-sorts fewer than 16 rows: lists of up to 15 items keep tied scores "
     "in input order (ties='input'); in longer lists quicksort's partitions move tied items "
     "in an order receval does not reproduce. A plain dict given to ranx.evaluate is sorted "
     "by an ascending argsort reversed, so short tied runs come in reverse input order",
     "make_comparable=True: qrels queries missing from the run score 0 (users='truth')",
     "names take ranx's suffixes: @k (cutoff), -lN (relevance level N: rel=N; on ndcg, dcg "
     "and their Burges forms only -l1, as ranx drops lower grades before the gains), rbp.p "
     "(persistence 0.p)",
     "rbp: ranx weighs each retrieved document by its grade; receval's rbp counts a relevant "
     "document once (b_i = [grade >= rel]): equal on binary qrels, not on graded ones",
     "bpref: a query without judged non-relevant items is NaN in ranx (bpref.py divides by "
     "min(R, N) = 0) and the mean over queries is then NaN; receval, as trec_eval, adds 1 for "
     "each relevant item with no judged non-relevant item above it. A query without a "
     "relevant item divides by R = 0 inside ranx's numba loop, and ranx 0.3.21 then reports "
     "0 for the other queries of the run as well: neither is reproduced"),
)
