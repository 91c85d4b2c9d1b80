"""ir_measures' metric names and conventions (``compat="ir_measures"``).

ir_measures 0.4.3 names its measures ``P(rel=2)@5``, ``SetF``, ``IPrec@0.5``,
``nDCG(dcg='exp-log2')@10``; most are computed by trec_eval's C code (pytrec_eval). Each name
is that of ``ir_measures.measures.registry``, lower case; its parameters are
:attr:`~receval.metrics.foreign.records.Name.options`, mapped to the receval parameters and
policies that give the value of the provider ir_measures' ``DefaultPipeline`` picks first:
pytrec_eval, then cwl_eval, compat, pyndeval, judged, msmarco, gdeval, accuracy, ranx.
ir_measures averages over the queries of the qrels (a query the run lacks scores 0), where
trec_eval averages over the queries of both: hence a preset of its own.
"""

from __future__ import annotations

from typing import Any

from ..records import Name, Preset
from ..records import name as _n

_JUDGED_ONLY = {"judged_only": {"true": {"unjudged": "remove"}, "false": {}}}
_REL = {"rel": "rel"}
_CUT = {"cutoff": "@k"}  # ir_measures' cutoff=5 is @5
_CWL = {"max_rel": "max_grade", "min_rel": {"0": {}}}
_SUM: dict[str, Any] = {"summary": "sum"}  # a count: ir_measures' SumAgg, trec_eval's all line
_TIES = "ties: trec_eval's"  # the start of the preset's note on tied scores
#: the intent-aware measures (the pyndeval provider): subtopic qrels through intents=
_IA_JUDGED = {"judged_only": {"true": {"judged_only": "true"}, "false": {}}}
_IA = {**_CUT, **_REL, **_IA_JUDGED}
_IA_ALPHA = {**_IA, "alpha": "alpha"}
_IA_RBP = {**_REL, "alpha": "alpha", "beta": "beta"}
_IA_SOURCE = (", from the subtopic qrels passed as intents= (ir_measures reads the subtopic "
              "from the qrels' iteration field: pass that same qrels frame)")
_NDEVAL_AT1 = ("ndeval leaves the value at rank 1 undivided, A times larger (its normalising "
               "loop starts at rank 2; rank1='ndeval' reproduces it)")

#: ir_measures' measures (and aliases) by lower-case name
IR_MEASURES_NAMES: dict[str, Name] = {
    "p": _n("precision", "P@k = relevant in the top k / k (pytrec_eval P.k)",
            options={**_CUT, **_REL, **_JUDGED_ONLY}),
    "precision": _n("precision", "ir_measures' alias of P",
                    options={**_CUT, **_REL, **_JUDGED_ONLY}),
    "r": _n("recall", "R@k = relevant in the top k / R (pytrec_eval recall.k)",
            options={**_CUT, **_REL, **_JUDGED_ONLY}),
    "recall": _n("recall", "R@k (ir_measures' alias of R; trec_eval's recall.k)",
                 options={**_CUT, **_REL, **_JUDGED_ONLY}),
    "ap": _n("map", "AP = sum of precision at relevant ranks / R; AP@k is trec_eval's "
             "map_cut.k", options={**_CUT, **_REL, **_JUDGED_ONLY}),
    "map": _n("map", "AP (trec_eval map; ir_measures' MAP, alias of AP)",
              options={**_CUT, **_REL, **_JUDGED_ONLY}),
    "rr": _n("mrr", "1 / rank of the first relevant document (pytrec_eval recip_rank; RR@k: "
             "the msmarco provider)", options={**_CUT, **_REL, **_JUDGED_ONLY},
             differs=_TIES),
    "mrr": _n("mrr", "ir_measures' alias of RR",
              options={**_CUT, **_REL, **_JUDGED_ONLY}),
    "rprec": _n("r_precision", "relevant in the top R / R", options={**_REL, **_JUDGED_ONLY}),
    "success": _n("hit_rate", "1 if a relevant document is in the top k",
                  options={**_CUT, **_REL, **_JUDGED_ONLY}),
    "bpref": _n("bpref", "Buckley & Voorhees binary preference", options=_REL),
    "infap": _n("infap", "inferred AP (Yilmaz & Aslam 2006); rel < 0: pooled, unjudged",
                options=_REL),
    "iprec": _n("iprec", "interpolated precision at recall level p (IPrec@p: '@' sets the "
                "recall, trec_eval iprec_at_recall.p)", options={**_REL, **_JUDGED_ONLY}),
    "ndcg": _n("ndcg", "nDCG = DCG / ideal DCG of all judged grades, gain = grade, "
               "1/log2(i+1); nDCG@k is trec_eval's ndcg_cut.k; dcg='exp-log2': gain "
               "2^grade - 1 (gdeval)",
               options={"dcg": {"log2": {}, "exp-log2": {"gain": "exp"}}, **_CUT,
                        **_JUDGED_ONLY}),
    "err": _n("err", "ERR@k (Chapelle et al. 2009) as gdeval computes it: R_i = (2^grade - 1) "
              "/ 2^4 (gdeval's MAX_JUDGMENT = 4)", options=_CUT, max_grade=4),
    "setp": _n("precision", "relevant retrieved / retrieved (trec_eval set_P; relative=True: "
               "set_relative_P)",
               options={**_REL, **_JUDGED_ONLY,
                        "relative": {"true": {"denominator": "min_k_rel"}, "false": {}}}),
    "setrelp": _n("precision", "relevant retrieved / min(retrieved, R) (trec_eval "
                  "set_relative_P)", options={**_REL, **_JUDGED_ONLY},
                  denominator="min_k_rel"),
    "setr": _n("recall", "relevant retrieved / R (trec_eval set_recall)", options=_REL),
    "setf": _n("f1", "F1 of set precision and set recall (trec_eval set_F)",
               options={**_REL, **_JUDGED_ONLY}),
    "setap": _n("set_map", "set precision x set recall (trec_eval set_map)",
                options={**_REL, **_JUDGED_ONLY}),
    "numret": _n("num_ret", "documents retrieved, summed over queries (SumAgg)", **_SUM),
    "numrel": _n("num_rel", "relevant documents judged, summed over queries (SumAgg)",
                 options=_REL, **_SUM),
    "numrelret": _n("hits", "relevant documents retrieved, summed over queries (ir_measures "
                    "NumRet(rel=1), trec_eval num_rel_ret)", options=_REL, **_SUM),
    "numq": _n("num_q", "number of queries evaluated, summed"),
    "judged": _n("judged", "judged documents in the top k / min(k, retrieved) (the judged "
                 "provider)", options=_CUT, differs=_TIES),
    "rbp": _n("rbp", "RBP = (1 - p) sum_i b_i p^(i-1), b_i = [grade >= rel] (cwl_eval; "
              "ir_measures needs rel)", options={"p": "p", **_REL}),
    "inst": _n("inst", "INST (Bailey et al. 2015), C/W/L gain = grade / max_rel (cwl_eval)",
               options={"T": "T", **_CWL}),
    "insq": _n("insq", "INSQ (Moffat et al. 2012), C/W/L (cwl_eval)",
               options={"T": "T", **_CWL}),
    "sdcg": _n("sdcg", "scaled DCG@k: discount scaled to sum to 1 (cwl_eval NDCG-k)",
               options={"dcg": {"log2": {}}, **_CUT, **_CWL}),
    "bpm": _n("bpm", "Bejeweled Player Model (Zhang et al. 2017), C/W/L (cwl_eval)",
              options={"T": "T", **_CUT, **_CWL}),
    "nerr8": _n("nerr_eq8", "NERR eq. 8 (Azzopardi et al. 2021), C/W/L (cwl_eval)",
                options={**_CUT, **_CWL}),
    "nerr9": _n("nerr_eq9", "NERR eq. 9 (Azzopardi et al. 2021), C/W/L (cwl_eval)",
                options={**_CUT, **_CWL}),
    "nerr10": _n("nerr_eq10", "NERR eq. 10 (Azzopardi et al. 2021), C/W/L, persistence p "
                 "(cwl_eval)", options={"p": "phi", **_CWL}, phi=0.9),
    "nerr11": _n("nerr_eq11", "NERR eq. 11 (Azzopardi et al. 2021), C/W/L, goal T (cwl_eval)",
                 options={"T": "T", **_CWL}),
    "accuracy": _n("pairwise_accuracy", "the probability that a retrieved relevant document is "
                   "ranked above a retrieved non-relevant or unjudged one, over the top k (the "
                   "accuracy provider); a query with no relevant or no non-relevant document "
                   "retrieved has no value (left out of the mean)",
                   options={**_CUT, **_REL}, differs="Compat and Accuracy"),
    "compat": _n("compat", "Compatibility: rank-biased overlap (persistence p) of the run with "
                 "the ideal ranking of the qrels, normalised by the ideal's overlap with itself "
                 "(Clarke et al. 2021; the compat provider)",
                 options={"p": "p", "normalize": {"true": {}, "false": {"normalize": "false"}}},
                 cutoff="none", differs="Compat and Accuracy"),
    "ncg": _n("ncg", "NCG@k = CG@k / ideal CG@k of the judged grades, gain = grade (TREC Deep "
              "Learning; ir_measures issue #19: no ir_measures 0.4.3 provider computes it)",
              options=_CUT),
    "alpha_ndcg": _n("alpha_ndcg", "alpha-nDCG@k (Clarke et al. 2008) with ndeval's greedy "
                     "ideal" + _IA_SOURCE, options=_IA_ALPHA, cutoff="required",
                     differs=_TIES),
    "alpha_dcg": _n("alpha_dcg", "alpha-DCG@k, ndeval's collection-independent normalisation"
                    + _IA_SOURCE + "; " + _NDEVAL_AT1, options=_IA_ALPHA, cutoff="required",
                    differs=_TIES, rank1="ndeval"),
    "err_ia": _n("err_ia", "intent-aware ERR@k, ndeval's collection-independent "
                 "normalisation" + _IA_SOURCE + "; " + _NDEVAL_AT1, options=_IA,
                 cutoff="required",
                 differs=_TIES, rank1="ndeval"),
    "nerr_ia": _n("nerr_ia", "intent-aware nERR@k over ndeval's greedy ideal" + _IA_SOURCE,
                  options=_IA, cutoff="required", differs=_TIES),
    "nrbp": _n("nrbp", "novelty- and rank-biased precision (Clarke et al. 2009)" + _IA_SOURCE,
               options=_IA_RBP, cutoff="none", differs=_TIES),
    "nnrbp": _n("nnrbp", "NRBP over that of ndeval's greedy ideal" + _IA_SOURCE,
                options=_IA_RBP, cutoff="none", differs="nNRBP:"),
    "ap_ia": _n("ap_ia", "intent-aware AP (ndeval's MAP-IA)" + _IA_SOURCE,
                options={**_REL, **_IA_JUDGED}, cutoff="none", differs=_TIES),
    "map_ia": _n("ap_ia", "ir_measures' alias of AP_IA" + _IA_SOURCE,
                 options={**_REL, **_IA_JUDGED}, cutoff="none", differs=_TIES),
    "p_ia": _n("p_ia", "intent-aware P@k" + _IA_SOURCE, options=_IA, cutoff="required",
               differs=_TIES),
    "strecall": _n("strec", "subtopic recall@k: the share of the query's subtopics covered by "
                   "the top k" + _IA_SOURCE, options={**_CUT, **_REL}, cutoff="required",
                   differs=_TIES),
}


PRESET = Preset(
    "ir_measures", "ir_measures", "ir_measures 0.4.3 (pytrec_eval-terrier 0.5.11, cwl_eval 1.0.12)",
    "ir_measures measures/*.py, providers/{pytrec_eval,cwl_eval,msmarco,gdeval,judged,"
    "compat,accuracy}_provider.py, bin/gdeval.pl; checked by tests/crosscheck/test_preset_ir_measures.py and "
    "benchmarks/peers/libs/ir_measures.py",
    (("ties", "trec_eval"), ("users", "truth"), ("empty_truth", "zero"),
     ("negative_rel", "zero")),
    IR_MEASURES_NAMES,
    ("queries: those of the qrels, a query the run lacks scoring 0 (users='truth'); the "
     "counts NumQ and NumRel are pytrec_eval's, over the queries of both the run and the "
     "qrels: pass users='intersection' for them when the run lacks qrels queries",
     "ties: trec_eval's (score as a 32-bit float descending, then docno descending); RR@k and "
     "Judged (the msmarco and judged providers) and the intent-aware measures (the pyndeval "
     "provider) order tied scores by docno ascending: pass "
     "ties='id' for them",
     "nDCG(dcg='exp-log2')@k and ERR@k (the gdeval provider) are printed with 5 decimals; ERR "
     "without a cutoff has no ir_measures provider",
     "Compat and Accuracy: the compat provider orders tied scores by docno ascending "
     "(ties='id') and breaks ties of grade and score in its ideal ranking by qrels order, "
     "where receval takes the run's order; the accuracy provider keeps tied documents in run "
     "order (ties='input'), and raises ZeroDivisionError on a query whose top k holds relevant "
     "documents only, where receval gives NaN (left out of the mean)",
     "nNRBP: ndeval gives a query without a relevant document no value (NaN), and ir_measures' "
     "mean is then NaN, where receval leaves the query out of the mean (its n counts the "
     "rest); the pyndeval provider orders tied scores by docno ascending (ties='id')",
     "the C/W/L measures (cwl_eval provider: RBP, INST, INSQ, SDCG, BPM, NERR8-11) keep tied "
     "documents in run order (ties='input')",
     "parameters are written as ir_measures writes them (P(rel=2)@5) or after the cutoff "
     "(P@5(rel=2)); judged_only=True is the policy unjudged='remove' (trec_eval -J). "
     "gains={...} (a custom gain map) and NumRet(rel=N) (write NumRelRet) are not reproduced; "
     "α_nDCG and α_DCG are alpha_nDCG and alpha_DCG"),
)
