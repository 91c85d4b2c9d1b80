"""torchmetrics (retrieval)'s metric names and conventions (``compat="torchmetrics"``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..records import name as _n

NAMES: dict[str, Name] = {
    "retrievalmap": _n("map", "mean of precision at each hit within top_k: AP over the "
                       "hits", denominator="hits"),
    "retrievalprecision": _n("precision", "hits in the top_k / top_k (adaptive_k=True: "
                             "/ min(top_k, candidates), denominator=list)"),
    "retrievalrecall": _n("recall", "hits in the top_k / relevant candidates"),
    "retrievalhitrate": _n("hit_rate", "1 if a relevant candidate is in the top_k"),
    "retrievalmrr": _n("mrr", "1 / rank of the first relevant candidate within top_k"),
    "retrievalnormalizeddcg": _n("ndcg", "scikit-learn's nDCG: ideal from the query's own "
                                 "candidates, tied scores averaged", ideal="list"),
    "retrievalrprecision": _n("r_precision", "relevant in the top R / R"),
    "retrievalfallout": _n("fpr", "non-relevant candidates in the top_k / non-relevant "
                           "candidates of the query; a query without a non-relevant "
                           "candidate scores 1 (empty_target_action='pos', the class "
                           "default)", candidates="list", no_negative="one"),
}

PRESET = Preset(
    "torchmetrics", "torchmetrics (retrieval)", "torchmetrics 1.9.0",
    "Lightning-AI/torchmetrics src/torchmetrics/functional/retrieval/average_precision.py, "
    "precision.py, recall.py, hit_rate.py, reciprocal_rank.py, ndcg.py, r_precision.py, "
    "fall_out.py, retrieval/fall_out.py (RetrievalFallOut); "
    "torchmetrics needs torch, so the tests use values worked out from these formulas",
    (("users", "run"), ("empty_truth", "zero")),
    NAMES,
    ("the truth is the target of the scored candidates: relevant items that were not scored "
     "do not exist for torchmetrics; pass the truth restricted to the run's items",
     "precision, recall, AP and RR treat candidates scored <= 0 as not retrieved; not "
     "reproduced (use positive scores)",
     "RetrievalNormalizedDCG averages tied scores: add ties='average' for it",
     "empty_target_action='neg' (the default): a query without a relevant candidate scores 0"),
)
