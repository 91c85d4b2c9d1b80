"""trec_eval 9.0.8's measures (``all_trec``, in trec_eval's output order) and their receval metrics.

Sources: usnistgov/trec_eval ``measures.c`` (the table and its default parameters) and the
``m_*.c`` file of each measure. A measure with ``family=None`` has no receval metric with the
same per-query value; ``receval trec`` (:mod:`receval.trec`) computes it alone. The families
``num_q``, ``gm_map``, ``gm_bpref``, ``rprec_mult``, ``utility``, ``bin_g``, ``norm_g``,
``ndcg_rel``, ``rndcg`` and ``num_nonrel_judged_ret`` are :mod:`receval.trec.registered`'s.
``runid`` and ``relstring`` are text, not numbers: only ``receval trec`` prints them.
"""

from __future__ import annotations

from .records import TrecMeasure as M

#: trec_eval's default cutoffs (``P``, ``recall``, ``ndcg_cut``, ``map_cut``, ``relative_P``)
CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_MIN_K_REL = (("denominator", "min_k_rel"),)

TREC_EVAL: tuple[M, ...] = (
    M("runid", "string", "the run tag: a text field of trec_eval's output, not a number",
      summary="runid", per_query=False),
    M("num_q", "count", "number of queries evaluated (1 per query, summed)", "num_q",
      summary="count", per_query=False, plugin=True),
    M("num_ret", "count", "documents retrieved", "num_ret", summary="sum"),
    M("num_rel", "count", "relevant documents judged (rel >= l)", "num_rel", summary="sum"),
    M("num_rel_ret", "count", "relevant documents retrieved", "hits", summary="sum"),
    M("map", "single", "AP = sum of precision at each relevant rank / R (all relevant)", "map"),
    M("gm_map", "single", "geometric mean of AP: per query log(max(AP, 1e-5)), all line exp of "
      "their mean", "gm_map", summary="geometric", per_query=False, values_of="map",
      plugin=True),
    M("Rprec", "single", "relevant in the top R / R", "r_precision"),
    M("bpref", "single", "Buckley & Voorhees binary preference", "bpref"),
    M("recip_rank", "single", "1 / rank of the first relevant document", "mrr"),
    M("iprec_at_recall", "cut_double", "interpolated precision at recall level p: max precision "
      "at ranks >= the rank of the c-th relevant document, c = floor(p R + 0.9)", "iprec",
      arg="recall", default=tuple(i / 10 for i in range(11))),
    M("P", "cut_long", "P@k = relevant in the top k / k", "precision", arg="k", default=CUTS),
    M("relstring", "params", "the relevance codes of the first n documents: a text field of "
      "trec_eval's per-query output, not a number", default=("10",), summary="none"),
    M("recall", "cut_long", "R@k = relevant in the top k / R", "recall", arg="k", default=CUTS),
    M("infAP", "single", "inferred AP (Yilmaz & Aslam, CIKM 2006); qrels with rel < 0 are "
      "pooled but unjudged, which only receval trec reads", "infap"),
    M("gm_bpref", "single", "geometric mean of bpref: per query log(max(bpref, 1e-5)), all "
      "line exp of their mean", "gm_bpref", summary="geometric", per_query=False,
      values_of="bpref", plugin=True),
    M("Rprec_mult", "cut_double", "precision at floor(x R + 0.9)", "rprec_mult", arg="mult", plugin=True,
      default=tuple(i / 10 for i in range(2, 21, 2))),
    M("utility", "params", "set utility a h + b (ret - h) + c (R - h) + d (N + h - ret - R); "
      "N is receval's n_docs, trec_eval's -N", "utility", arg="a,b,c,d", plugin=True,
      default=("1", "-1", "0", "0")),
    M("11pt_avg", "params", "mean interpolated precision at the 11 recall levels 0, 0.1, ..., 1 "
      "(maps to receval only at these levels)", "iprec_avg",
      default=tuple(f"{i / 10}" for i in range(11))),
    M("binG", "single", "binary G: mean over relevant of 1/log2(2 + non-relevant above)",
      "bin_g", plugin=True),
    M("G", "params", "normalized gain G (trec_eval, experimental; maps to receval without "
      "per-level gains)", "norm_g", plugin=True),
    M("ndcg", "params", "DCG / ideal DCG of all judged grades; gain = grade, 1/log2(i+1) "
      "(maps to receval without per-level gains)", "ndcg"),
    M("ndcg_rel", "params", "nDCG averaged over the relevant documents (maps to receval "
      "without per-level gains)", "ndcg_rel", plugin=True),
    M("Rndcg", "params", "nDCG averaged at the R-level boundaries (maps to receval without "
      "per-level gains)", "rndcg", plugin=True),
    M("ndcg_cut", "cut_long", "nDCG@k: DCG@k / IDCG@k, gain = grade", "ndcg", arg="k",
      default=CUTS),
    M("map_cut", "cut_long", "AP@k: precision at relevant ranks within k / R", "map", arg="k",
      default=CUTS),
    M("relative_P", "cut_long", "relevant in the top k / min(k, R)", "precision", _MIN_K_REL,
      arg="k", default=CUTS),
    M("success", "cut_long", "1 if a relevant document is in the top k", "hit_rate", arg="k",
      default=(1, 5, 10)),
    M("set_P", "single", "relevant retrieved / retrieved", "precision"),
    M("set_relative_P", "single", "relevant retrieved / min(retrieved, R)", "precision",
      _MIN_K_REL),
    M("set_recall", "single", "relevant retrieved / R", "recall"),
    M("set_map", "single", "(relevant retrieved)^2 / (retrieved R)", "set_map"),
    M("set_F", "single", "F1 of set precision and set recall", "f1"),
    M("num_nonrel_judged_ret", "count", "judged non-relevant documents retrieved",
      "num_nonrel_judged_ret", summary="sum", plugin=True),
)

#: measure name -> record
BY_NAME: dict[str, M] = {m.name: m for m in TREC_EVAL}
#: trec_eval's measure sets (``-m official``, ``-m all_trec``)
SETS: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                 "bpref", "recip_rank", "iprec_at_recall", "P"),
    "all_trec": tuple(m.name for m in TREC_EVAL),
}
