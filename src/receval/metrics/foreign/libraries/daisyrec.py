"""DaisyRec's metric names and conventions (``compat="daisyrec"``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..records import name as _n

NAMES: dict[str, Name] = {
    "map": _n("map", "mean of precision at each hit of the top k (AP over the hits)",
              denominator="hits"),
    "ndcg": _n("ndcg", "binary gain; the ideal is the user's own top k sorted (the hits "
               "first)", gain="binary", ideal="list"),
    "precision": _n("precision", "hits / length of the top-k list", denominator="list"),
    "recall": _n("recall", "hits / |test items|"),
    "mrr": _n("mrr", "1 / rank of the first hit"),
    "hit": _n("hit_rate", "1 if a test item is in the top k"),
}

PRESET = Preset(
    "daisyrec", "DaisyRec", "daisyRec metrics.py at commit 0a8f3f7", "AmazingDD/daisyRec daisy/utils/metrics.py "
    "(Precision, Recall, MRR, MAP, NDCG, HR); worked examples from these formulas",
    (("users", "truth"), ("empty_truth", "zero")),
    NAMES,
    ("DaisyRec cuts every list at k before computing (calc_ranking_results): give lists of "
     "length k, so that NDCG's ideal is the top k's own hits",
     "F1 and AUC are unreachable in Metric.run (it tests `kpi`, not `mc`, for them)"),
)
