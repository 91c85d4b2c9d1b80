"""Ranking metrics: definitions, formulas, conventions.

Notation for one user: the list is ordered by the tie policy; ``rel_i`` is the truth relevance
of the item at rank i (0 when the item is not in the truth), ``b_i = [rel_i >= rel]`` its binary
relevance at threshold ``rel``, ``R`` the number of the user's truth items with relevance >= rel,
``L`` the list length, ``k`` the cutoff (the whole list when no cutoff is given), and
``h_k = sum_{i<=k} b_i`` the hits in the top k. Ranks past the end of a short list count as
non-relevant. Every value is per user; the summary is the mean over evaluated users unless the
metric says "micro".
"""

from __future__ import annotations

import numpy as np

from ..errors import MetricError
from ..kernels import DISCOUNTS, GAINS, IDEALS, VARIANTS, Request
from .spec import Kernel, MetricDef, Param, register

# Smallest positive double: "relevant" for graded metrics means relevance > 0.
POSITIVE = float(np.nextafter(0.0, 1.0))

REL = Param(
    "rel", 1.0, "relevance threshold: truth items with relevance >= rel are relevant",
    kind=float, low=0.0, low_open=True,
)
GAIN = Param(
    "gain", "linear",
    "gain of a relevance r: linear = r, exp = 2^r - 1, binary = [r > 0] (graded truth read as "
    "relevant / not relevant: RecBole, RecTools, Microsoft Recommenders' default, Spark)",
    GAINS,
)
IDEAL = Param(
    "ideal", "truth",
    "ideal list for IDCG: truth = all of the user's truth relevances (trec_eval, ranx); "
    "list = the relevances of the items in the user's own list (scikit-learn ndcg_score); "
    "k = all k positions hold the user's largest truth relevance, k ones on binary data, "
    "whatever the number of relevant items (RecTools NDCG, divide_by_achievable=False)",
    IDEALS,
)
DISCOUNT = Param(
    "discount", "log2",
    "discount of rank i: log2 = 1/log2(i+1) (Jarvelin & Kekalainen 2002, trec_eval); "
    "log2_max2 = 1/log2(max(i, 2)) (LensKit); ln = 1/ln(i+1) and log10 = 1/log10(i+1) "
    "(scikit-learn log_base; nDCG does not depend on the base, DCG does)",
    DISCOUNTS,
)


def _variant(request: int, name: str, default: str, doc: str) -> Param:
    return Param(name, default, doc, VARIANTS[request])


def _beta(spec, max_rel: float) -> float:
    return float(spec.get("beta"))


def _one(spec, max_rel: float) -> float:
    return 1.0


def _persistence(spec, max_rel: float) -> float:
    return float(spec.get("p"))


def _max_grade(spec, max_rel: float) -> float:
    grade = spec.get("max_grade")
    par = float(grade) if grade is not None else max(max_rel, POSITIVE)
    if par < max_rel:
        raise MetricError(
            f"{spec.key}: max_grade={grade!r} is below the largest relevance in the truth "
            f"({max_rel!r}), so a stopping probability (2^rel - 1) / 2^max_grade would exceed 1. "
            "Set max_grade to the top of the relevance scale, or leave it out (the truth "
            "maximum is used)."
        )
    return par

register(MetricDef(
    "hits", "Hits (relevant retrieved)", "h_k = sum_{i<=k} b_i",
    "Number of relevant items in the top k (trec_eval num_rel_ret, ranx hits).",
    (REL,), bounds=(0.0, None),
    example="list [1, 0, 1], k=3: hits = 2",
    kernel=Kernel(Request.HITS, count=True),
), ("num_rel_ret",))

register(MetricDef(
    "precision", "Precision@k", "P@k = h_k / D",
    "Share of the top k that is relevant. Denominator D: k (default, trec_eval P; short lists "
    "count missing ranks as misses) | list = min(k, L) | min_k_rel = min(k, R), the 'adjusted' "
    "precision (R-precision's cut form) that a perfect list can always bring to 1.",
    (REL, _variant(Request.PRECISION, "denominator", "k", "k | list | min_k_rel")),
    example="list [1, 0, 1, 0, 0]: P@1..5 = 1, 1/2, 2/3, 2/4, 2/5",
    kernel=Kernel(Request.PRECISION, variant="denominator"),
), ("p", "prec"))

register(MetricDef(
    "recall", "Recall@k", "R@k = h_k / D",
    "Share of the relevant items found in the top k. Denominator D: rel = R (default) | "
    "min_k_rel = min(k, R) (then equal to adjusted precision).",
    (REL, _variant(Request.RECALL, "denominator", "rel", "rel | min_k_rel")),
    example="list [1, 0, 1, 0, 0], R = 5: recall@2 = 1/5, recall@3 = 2/5",
    kernel=Kernel(Request.RECALL, variant="denominator"),
), ("r",))

register(MetricDef(
    "f1", "F1@k", "F1@k = 2 P R / (P + R) = 2 h_k / (R + k)",
    "Harmonic mean of precision@k (denominator k) and recall@k (denominator R); 0 when both are 0.",
    (REL,),
    example="h=2, k=5, R=5: F1 = 4/10",
    kernel=Kernel(Request.FBETA, par=_one),
))

register(MetricDef(
    "fbeta", "F-beta@k", "F_b@k = (1 + b^2) P R / (b^2 P + R) = (1 + b^2) h_k / (b^2 R + k)",
    "Weighted harmonic mean of precision@k and recall@k; beta > 1 favours recall.",
    (REL, Param("beta", 1.0, "weight of recall", kind=float, low=0.0, low_open=True)),
    example="h=2, k=5, R=5, beta=2: F = 5*2/(4*5+5) = 0.4",
    kernel=Kernel(Request.FBETA, par=_beta),
))

register(MetricDef(
    "hit_rate", "Hit rate@k",
    "user: [h_k > 0]; recommended: sum_u h_k / sum_u min(k, L) (micro); truth: sum_u h_k / sum_u R (micro)",
    "Three meanings the field mixes up, each named by `level`: user = share of users with at "
    "least one hit in the top k (trec_eval success, PyKEEN Hits@k, RecBole hit); recommended = "
    "total hits over total recommended items (micro precision); truth = total hits over total "
    "held-out items (the HR of He et al. 2017 with several held-out items, micro recall). The "
    "item levels are micro averages; the per-user column holds each user's own ratio.",
    (REL, _variant(Request.HIT_RATE, "level", "user", "user | recommended | truth")),
    example="users with 1 and 0 hits in the top 3: hit_rate@3 = 1/2",
    kernel=Kernel(Request.HIT_RATE, variant="level",
                  micro=(("recommended", Request.HITS, Request.NRET),
                         ("truth", Request.HITS, Request.NREL))),
), ("hr", "success", "hit_ratio"))

register(MetricDef(
    "mrr", "Reciprocal rank (mean: MRR)", "RR@k = 1 / rank of the first relevant item within k (0 if none)",
    "Reciprocal rank of the first relevant item; 0 when nothing relevant is retrieved within k "
    "(trec_eval recip_rank; Voorhees, TREC-8 QA track 1999).",
    (REL,),
    example="first hits at ranks 2, 1 and none: MRR = (1/2 + 1 + 0)/3 = 0.5",
    kernel=Kernel(Request.RR),
), ("rr", "recip_rank", "reciprocal_rank"))

register(MetricDef(
    "first_hit_rank", "Rank of the first hit", "rank of the first relevant item within k",
    "1-based rank of the first relevant item. Users with no hit within k have no value (NaN) "
    "and are left out of the mean; the summary's n counts the users that have one.",
    (REL,), higher_is_better=False, bounds=(1.0, None),
    example="[0, 1, 1]: 2",
    kernel=Kernel(Request.FIRST_HIT, undefined_without_hit=True, average=False),
), ("mean_rank_first_hit",))

register(MetricDef(
    "map", "Average precision (mean: MAP)", "AP@k = (1/D) sum_{i<=k} b_i * h_i / i",
    "Mean of precision at each relevant rank within k. Denominator D: rel = R (default; "
    "trec_eval map / map_cut, ranx) | min_k_rel = min(k, R) (RecBole, Microsoft "
    "Recommenders) | hits = h_k (torchmetrics, DaisyRec; 0 when h_k = 0) | k = k, the "
    "list length without a cutoff (RecTools MAP(divide_by_k=True)).",
    (REL, _variant(Request.AP, "denominator", "rel", "rel | min_k_rel | hits | k")),
    reference="Manning, Raghavan, Schuetze (2008), ch. 8.4",
    example="[1, 0, 1, 0, 0], R = 5: AP = (1/1 + 2/3) / 5 = 1/3",
    kernel=Kernel(Request.AP, variant="denominator", not_average=(("denominator", "hits"),)),
), ("ap", "average_precision"))

register(MetricDef(
    "mar", "Average recall@k (mean: MAR@k)", "AR@k = (1/k) sum_{j=1..k} recall@j",
    "Mean of recall@j over the cutoffs j = 1..k (the recall counterpart of AP's mean over "
    "ranks). Distinct from the IoU-based average recall of object detection.",
    (REL,),
    example="[1, 0, 1], R = 2, k = 3: (1/2 + 1/2 + 1)/3 = 2/3",
    kernel=Kernel(Request.MAR),
))

register(MetricDef(
    "cg", "Cumulative gain", "CG@k = sum_{i<=k} g(rel_i)",
    "Sum of the gains in the top k; order-blind.", (GAIN,), bounds=(0.0, None),
    reference="Jarvelin & Kekalainen (2002)",
    example="ratings [5, 3, 2, 1, 2]: CG@5 = 13",
    kernel=Kernel(Request.CG, graded=True),
))

register(MetricDef(
    "dcg", "Discounted cumulative gain", "DCG@k = sum_{i<=k} g(rel_i) * d(i), d(i) = 1 / log2(i + 1)",
    "Gains times the discount of their rank; g is linear (r) or exponential (2^r - 1); d is "
    "1/log2(i+1) (default), 1/log2(max(i, 2)) (LensKit), 1/ln(i+1) or 1/log10(i+1).",
    (GAIN, DISCOUNT), bounds=(0.0, None),
    reference="Jarvelin & Kekalainen (2002); Burges et al. (2005) for exp gain",
    example="[1, 0, 1]: DCG@3 = 1 + 1/2 = 1.5",
    kernel=Kernel(Request.DCG, graded=True),
))

register(MetricDef(
    "idcg", "Ideal DCG", "IDCG@k = sum_{i<=k} g(rel*_i) * d(i), rel* sorted descending",
    "DCG of the ideal ordering; the ideal list is all truth relevances (ideal=truth) or the "
    "relevances of the user's own list items (ideal=list).",
    (GAIN, IDEAL, DISCOUNT), bounds=(0.0, None),
    example="ideal [1, 1, 1]: IDCG@3 = 1 + 1/log2(3) + 1/2",
    kernel=Kernel(Request.IDCG, graded=True, whole_list=(("ideal", "list"),)),
))

register(MetricDef(
    "ndcg", "Normalized DCG", "nDCG@k = DCG@k / IDCG@k (0 when IDCG@k = 0)",
    "DCG normalised by the ideal DCG. gain=linear with ideal=truth is trec_eval's ndcg_cut and "
    "ranx ndcg; gain=exp is ranx ndcg_burges; ideal=list is scikit-learn ndcg_score.",
    (GAIN, IDEAL, DISCOUNT),
    reference="Jarvelin & Kekalainen (2002)",
    example="[1, 0, 1], R = 5: 1.5 / (1 + 1/log2(3) + 1/2) = 0.70391808903...",
    kernel=Kernel(Request.NDCG, graded=True, whole_list=(("ideal", "list"),)),
), ("ndcg_cut",))

register(MetricDef(
    "r_precision", "R-precision", "RP = h_R / R; RP@k = h_m / D, m = min(k, R)",
    "Precision at rank R, the number of relevant items (trec_eval Rprec); equals recall at R. "
    "A cutoff caps the rank at m = min(k, R) (Microsoft Recommenders r_precision_at_k: 'k "
    "indicates the maximum possible R'). Denominator D: min_k_rel = m (default; at most 1, "
    "precision@k when R >= k) | rel = R (the value Microsoft Recommenders 1.2.1 computes: "
    "recall at m). Without a cutoff both are h_R / R.",
    (REL, _variant(Request.RPREC, "denominator", "min_k_rel", "min_k_rel | rel")),
    example="R = 2, list [1, 0, 1]: 1/2; R = 4, list [1, 1, 0, 1], k = 2: 2/2 (rel: 2/4)",
    kernel=Kernel(Request.RPREC, variant="denominator"),
), ("rprec",))

register(MetricDef(
    "err", "Expected reciprocal rank",
    "ERR@k = sum_{i<=k} (1/i) R_i prod_{j<i} (1 - R_j), R_i = (2^rel_i - 1) / 2^max_grade",
    "Cascade model: the user stops at rank i with probability R_i. max_grade defaults to the "
    "largest relevance in the truth (auto); set it to the scale's maximum to compare datasets.",
    (Param("max_grade", None, "largest grade of the relevance scale (auto: truth maximum)",
           kind=float, low=0.0, low_open=True),),
    reference="Chapelle, Metzler, Zhang, Grinspan (CIKM 2009)",
    example="grades [1, 0], max_grade 1: ERR = 1/2",
    kernel=Kernel(Request.ERR, graded=True, par=_max_grade, average=False),
))

register(MetricDef(
    "rbp", "Rank-biased precision", "RBP@k = (1 - p) sum_{i<=k} b_i p^(i-1)",
    "Expected rate of relevant items seen by a user who goes on to the next rank with "
    "probability p (persistence).",
    (REL, Param("p", 0.8, "persistence", kind=float, low=0.0, high=1.0, low_open=True, high_open=True)),
    reference="Moffat & Zobel (TOIS 2008)",
    example="[1, 0, 1], p = 0.5: 0.5 * (1 + 0.25) = 0.625",
    kernel=Kernel(Request.RBP, par=_persistence),
))

register(MetricDef(
    "bpref", "Binary preference",
    "bpref = (1/R) sum_{relevant retrieved r} (1 - min(n_r, R) / min(R, N))",
    "Judged items only: n_r is the number of judged non-relevant items ranked above r, N the "
    "number of judged non-relevant truth items; a relevant item with no judged non-relevant item "
    "above it adds 1 (trec_eval).",
    (REL,), cutoff="none",
    reference="Buckley & Voorhees (SIGIR 2004)",
    example="judged [n, r], R = 1, N = 1: 1 - 1/1 = 0",
    kernel=Kernel(Request.BPREF, average=False),
))

register(MetricDef(
    "num_rel", "Relevant items in the truth", "R", "Number of truth items with relevance >= rel.",
    (REL,), cutoff="none", bounds=(0.0, None),
    kernel=Kernel(Request.NREL, count=True, ranked=False),
))

register(MetricDef(
    "num_ret", "Retrieved items", "min(k, L)", "Number of items in the (cut) list.",
    (), bounds=(0.0, None),
    kernel=Kernel(Request.NRET, count=True),
))
