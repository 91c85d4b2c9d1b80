"""Ranking metrics: definitions, formulas, conventions.

Notation for one user: the list is ordered by the tie policy; ``rel_i`` is the truth relevance
of the item at rank i (0 when the item is not in the truth), ``b_i = [rel_i >= rel]`` its binary
relevance at threshold ``rel``, ``R`` the number of the user's truth items with relevance >= rel,
``L`` the list length, ``k`` the cutoff (the whole list when no cutoff is given), and
``h_k = sum_{i<=k} b_i`` the hits in the top k. Ranks past the end of a short list count as
non-relevant. Every value is per user; the summary is the mean over evaluated users unless the
metric says "micro". Each metric's ``explain`` hook (its step-by-step display, see
:mod:`receval.metrics.steps`) sits beside its definition; the C/W/L family is in
:mod:`receval.metrics.cwl`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InputError, MetricError
from ..kernels import DISCOUNTS, GAINS, IDEALS, VARIANTS, Request
from . import cwl  # noqa: F401  (registers the C/W/L family)
from .grades import auto_grade, max_grade_par
from .spec import Kernel, MetricDef, Param, register
from .steps import POSITIVE as POSITIVE  # re-exported: engines.plan reads it here
from .steps import Positions, Steps, UserList, num, ratio

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


# Each metric's step-by-step display (``explain=``, see :mod:`receval.metrics.steps`) sits
# beside its definition: the same formula over one user's list, in plain Python.

def _top(spec: Any, user: UserList) -> Positions:
    """The top-k table with the hits ``h`` of the top k as its first step."""
    t = Positions(spec, user)
    t.steps.append(f"h{t.at} (relevant in the top {t.K}) = {t.h}")
    return t


def _hits_steps(spec: Any, user: UserList) -> Steps:
    t = _top(spec, user)
    return t.done(t.h)

register(MetricDef(
    "hits", "Hits (relevant retrieved)", "h_k = sum_{i<=k} b_i",
    "Number of relevant items in the top k (trec_eval num_rel_ret, ranx hits).",
    (REL,), bounds=(0.0, None),
    example="list [1, 0, 1], k=3: hits = 2",
    kernel=Kernel(Request.HITS, count=True),
    explain=_hits_steps,
), ("num_rel_ret",))


_PRECISION_DEN: dict[str, Callable[[Positions], int]] = {
    "k": lambda t: t.K, "list": lambda t: min(t.K, t.L), "min_k_rel": lambda t: min(t.K, t.R)}


def _precision_steps(spec: Any, user: UserList) -> Steps | None:
    rule = _PRECISION_DEN.get(spec.get("denominator"))
    if rule is None:
        return None
    t = _top(spec, user)
    den = rule(t)
    t.steps += [f"denominator ({spec.get('denominator')}) = {den}",
                f"precision{t.at} = {t.h} / {den}"]
    return t.done(ratio(t.h, den))

register(MetricDef(
    "precision", "Precision@k", "P@k = h_k / D",
    "Share of the top k that is relevant. Denominator D: k (default, trec_eval P; short lists "
    "count missing ranks as misses) | list = min(k, L) | min_k_rel = min(k, R), the 'adjusted' "
    "precision (R-precision's cut form) that a perfect list can always bring to 1.",
    (REL, _variant(Request.PRECISION, "denominator", "k", "k | list | min_k_rel")),
    example="list [1, 0, 1, 0, 0]: P@1..5 = 1, 1/2, 2/3, 2/4, 2/5",
    kernel=Kernel(Request.PRECISION, variant="denominator"),
    explain=_precision_steps,
), ("p", "prec"))


_RECALL_DEN: dict[str, Callable[[Positions], int]] = {
    "rel": lambda t: t.R, "min_k_rel": lambda t: min(t.K, t.R)}


def _recall_steps(spec: Any, user: UserList) -> Steps | None:
    rule = _RECALL_DEN.get(spec.get("denominator"))
    if rule is None:
        return None
    t = _top(spec, user)
    den = rule(t)
    t.steps += [f"denominator ({spec.get('denominator')}) = {den}",
                f"recall{t.at} = {t.h} / {den}"]
    return t.done(ratio(t.h, den, float("nan")))

register(MetricDef(
    "recall", "Recall@k", "R@k = h_k / D",
    "Share of the relevant items found in the top k. Denominator D: rel = R (default) | "
    "min_k_rel = min(k, R) (then equal to adjusted precision).",
    (REL, _variant(Request.RECALL, "denominator", "rel", "rel | min_k_rel")),
    example="list [1, 0, 1, 0, 0], R = 5: recall@2 = 1/5, recall@3 = 2/5",
    kernel=Kernel(Request.RECALL, variant="denominator"),
    explain=_recall_steps,
), ("r",))


def _fbeta_steps(spec: Any, user: UserList) -> Steps:
    t = _top(spec, user)
    beta = float(spec.get("beta")) if spec.name == "fbeta" else 1.0
    den = beta * beta * t.R + t.K
    t.steps.append(f"{spec.name}{t.at} = (1 + {beta:g}^2) * {t.h} / ({beta:g}^2 * {t.R} + "
                   f"{t.K})")
    return t.done(ratio((1 + beta * beta) * t.h, den))

register(MetricDef(
    "f1", "F1@k", "F1@k = 2 P R / (P + R) = 2 h_k / (R + k)",
    "Harmonic mean of precision@k (denominator k) and recall@k (denominator R); 0 when both are 0.",
    (REL,),
    example="h=2, k=5, R=5: F1 = 4/10",
    kernel=Kernel(Request.FBETA, par=_one),
    explain=_fbeta_steps,
))

register(MetricDef(
    "fbeta", "F-beta@k", "F_b@k = (1 + b^2) P R / (b^2 P + R) = (1 + b^2) h_k / (b^2 R + k)",
    "Weighted harmonic mean of precision@k and recall@k; beta > 1 favours recall.",
    (REL, Param("beta", 1.0, "weight of recall", kind=float, low=0.0, low_open=True)),
    example="h=2, k=5, R=5, beta=2: F = 5*2/(4*5+5) = 0.4",
    kernel=Kernel(Request.FBETA, par=_beta),
    explain=_fbeta_steps,
))


def _hit_rate_steps(spec: Any, user: UserList) -> Steps | None:
    t = _top(spec, user)
    level = spec.get("level")
    if level == "user":
        t.steps.append(f"hit_rate{t.at} = [h > 0] (the summary is the share of users)")
        return t.done(1.0 if t.h > 0 else 0.0)
    den = {"recommended": min(t.K, t.L), "truth": t.R}.get(level)
    if den is None:
        return None
    what = "min(k, L)" if level == "recommended" else "R"
    t.steps.append(f"this user's ratio = {t.h} / {den}; the summary is the micro average "
                   f"sum(h) / sum({what}) over users")
    return t.done(ratio(t.h, den, 0.0 if level == "recommended" else float("nan")))

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
    explain=_hit_rate_steps,
), ("hr", "success", "hit_ratio"))


def _first_hit_steps(spec: Any, user: UserList) -> Steps:
    """The first relevant rank: RR = 1 / rank (``mrr``) or the rank itself."""
    t = Positions(spec, user)
    first = next((i for i, bi in enumerate(t.b, start=1) if bi), None)
    t.add("note")
    for row in t.rows:
        row.append("first hit" if row[0] == first else "")
    if first is None:
        t.steps.append(f"no relevant item in the top {t.K}")
        return t.done(0.0 if spec.name == "mrr" else float("nan"))
    t.steps.append(f"first relevant item at rank {first}")
    if spec.name == "mrr":
        t.steps.append(f"RR{t.at} = 1 / {first}")
        return t.done(1.0 / first)
    return t.done(float(first))

register(MetricDef(
    "mrr", "Reciprocal rank (mean: MRR)", "RR@k = 1 / rank of the first relevant item within k (0 if none)",
    "Reciprocal rank of the first relevant item; 0 when nothing relevant is retrieved within k "
    "(trec_eval recip_rank; Voorhees, TREC-8 QA track 1999).",
    (REL,),
    example="first hits at ranks 2, 1 and none: MRR = (1/2 + 1 + 0)/3 = 0.5",
    kernel=Kernel(Request.RR),
    explain=_first_hit_steps,
), ("rr", "recip_rank", "reciprocal_rank"))

register(MetricDef(
    "first_hit_rank", "Rank of the first hit", "rank of the first relevant item within k",
    "1-based rank of the first relevant item. Users with no hit within k have no value (NaN) "
    "and are left out of the mean; the summary's n counts the users that have one.",
    (REL,), higher_is_better=False, bounds=(1.0, None),
    example="[0, 1, 1]: 2",
    kernel=Kernel(Request.FIRST_HIT, undefined_without_hit=True, average=False),
    explain=_first_hit_steps,
), ("mean_rank_first_hit",))


_AP_DEN: dict[str, Callable[[Positions], int]] = {
    "rel": lambda t: t.R, "min_k_rel": lambda t: min(t.K, t.R), "hits": lambda t: t.h,
    "k": lambda t: t.K}


def _ap_steps(spec: Any, user: UserList) -> Steps | None:
    rule = _AP_DEN.get(spec.get("denominator"))
    if rule is None:
        return None
    t = Positions(spec, user)
    t.add("P@i at hits")
    total = 0.0
    for row, bi in zip(t.rows, t.b, strict=True):
        p = row[5] / row[0] if bi else 0.0
        row.append(p if bi else "")
        total += p
    den = rule(t)
    t.steps += [f"sum of P@i over the hits = {num(total)}",
                f"denominator ({spec.get('denominator')}) = {den}",
                f"AP{t.at} = {num(total)} / {den}"]
    return t.done(ratio(total, den))

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
    explain=_ap_steps,
), ("ap", "average_precision"))


def _mar_steps(spec: Any, user: UserList) -> Steps:
    t = Positions(spec, user)
    t.add("recall@i")
    total = 0.0
    for row in t.rows:
        row.append(ratio(row[5], t.R))
        total += row[-1]
    if len(t.rows) < t.K:  # ranks past the end of a short list keep the last recall
        last = ratio(t.h, t.R)
        total += (t.K - len(t.rows)) * last
        t.steps.append(f"ranks {len(t.rows) + 1}..{t.K} are past the end of the list: "
                       f"recall stays {num(last)}")
    t.steps.append(f"AR{t.at} = (sum of recall@i, i = 1..{t.K}) / {t.K} = {num(total)} / {t.K}")
    return t.done(ratio(total, t.K))

register(MetricDef(
    "mar", "Average recall@k (mean: MAR@k)", "AR@k = (1/k) sum_{j=1..k} recall@j",
    "Mean of recall@j over the cutoffs j = 1..k (the recall counterpart of AP's mean over "
    "ranks). Distinct from the IoU-based average recall of object detection.",
    (REL,),
    example="[1, 0, 1], R = 2, k = 3: (1/2 + 1/2 + 1)/3 = 2/3",
    kernel=Kernel(Request.MAR),
    explain=_mar_steps,
))


_GAIN_OF: dict[str, tuple[str, Callable[[float], float]]] = {
    "linear": ("rel", lambda r: max(r, 0.0)),
    "exp": ("2^rel - 1", lambda r: 2.0 ** max(r, 0.0) - 1.0),
    "binary": ("[rel > 0]", lambda r: 1.0 if r > 0 else 0.0),
}
_DISCOUNT_OF: dict[str, tuple[str, Callable[[int], float]]] = {
    "log2": ("1 / log2(rank + 1)", lambda i: 1.0 / math.log2(i + 1)),
    "log2_max2": ("1 / log2(max(rank, 2))", lambda i: 1.0 / math.log2(max(i, 2))),
    "ln": ("1 / ln(rank + 1)", lambda i: 1.0 / math.log(i + 1)),
    "log10": ("1 / log10(rank + 1)", lambda i: 1.0 / math.log10(i + 1)),
}
_IDEAL_OF: dict[str, tuple[str, Callable[[Positions], list[float]]]] = {
    "truth": ("all of the user's truth relevances, descending",
              lambda t: sorted((r for r in t.user.truth.values() if r > 0), reverse=True)),
    "list": ("the relevances of the user's own items, descending",
             lambda t: sorted((t.user.truth.get(it, 0.0) for it in t.user.items), reverse=True)),
    "k": ("every position holds the largest truth relevance",
          lambda t: [max(t.user.truth.values(), default=0.0)] * t.K),
}


def _dcg_steps(spec: Any, user: UserList) -> Steps | None:
    """CG, DCG, IDCG and nDCG: the gains, discounts and running sums of the list and of the
    ideal list."""
    names = {p.name for p in spec.definition.params}
    gain = _GAIN_OF.get(spec.get("gain"))
    disc = _DISCOUNT_OF.get(spec.get("discount") if "discount" in names else "log2")
    ideal = _IDEAL_OF.get(spec.get("ideal")) if "ideal" in names else None
    if gain is None or disc is None or ("ideal" in names and ideal is None):
        return None
    t = Positions(spec, user)
    t.add("gain", "discount", "contribution", "running sum")
    dcg = 0.0
    for row, r in zip(t.rows, t.rels, strict=True):
        g, d = gain[1](r), (1.0 if spec.name == "cg" else disc[1](row[0]))
        dcg += g * d
        row += [g, d, g * d, dcg]
    t.steps += [f"gain = {gain[0]}; discount = {disc[0] if spec.name != 'cg' else '1'}",
                f"{'CG' if spec.name == 'cg' else 'DCG'}{t.at} = {num(dcg)}"]
    if ideal is None:
        return t.done(dcg)
    rels = ideal[1](t)
    title = f"ideal list: {ideal[0]}"
    if spec.k is not None:
        rels, title = rels[:spec.k], f"{title}, cut at {spec.k}"
    ideal_rows: list[list[Any]] = []
    idcg = 0.0
    for i, r in enumerate(rels, start=1):
        g, d = gain[1](r), disc[1](i)
        idcg += g * d
        ideal_rows.append([i, r, g, d, g * d, idcg])
    t.steps.append(f"IDCG{t.at} = {num(idcg)}")
    extra = dict(ideal_title=title, ideal_rows=ideal_rows, ideal_columns=[
        "rank", "relevance", "gain", "discount", "contribution", "running sum"])
    if spec.name == "idcg":
        return t.done(idcg, **extra)
    t.steps.append(f"nDCG{t.at} = DCG{t.at} / IDCG{t.at} = {num(dcg)} / {num(idcg)}")
    return t.done(dcg / idcg if idcg > 0 else 0.0, **extra)

register(MetricDef(
    "cg", "Cumulative gain", "CG@k = sum_{i<=k} g(rel_i)",
    "Sum of the gains in the top k; order-blind.", (GAIN,), bounds=(0.0, None),
    reference="Jarvelin & Kekalainen (2002)",
    example="ratings [5, 3, 2, 1, 2]: CG@5 = 13",
    kernel=Kernel(Request.CG, graded=True),
    explain=_dcg_steps,
))

register(MetricDef(
    "dcg", "Discounted cumulative gain", "DCG@k = sum_{i<=k} g(rel_i) * d(i), d(i) = 1 / log2(i + 1)",
    "Gains times the discount of their rank; g is linear (r) or exponential (2^r - 1); d is "
    "1/log2(i+1) (default), 1/log2(max(i, 2)) (LensKit), 1/ln(i+1) or 1/log10(i+1).",
    (GAIN, DISCOUNT), bounds=(0.0, None),
    reference="Jarvelin & Kekalainen (2002); Burges et al. (2005) for exp gain",
    example="[1, 0, 1]: DCG@3 = 1 + 1/2 = 1.5",
    kernel=Kernel(Request.DCG, graded=True),
    explain=_dcg_steps,
))

register(MetricDef(
    "idcg", "Ideal DCG", "IDCG@k = sum_{i<=k} g(rel*_i) * d(i), rel* sorted descending",
    "DCG of the ideal ordering; the ideal list is all truth relevances (ideal=truth) or the "
    "relevances of the user's own list items (ideal=list).",
    (GAIN, IDEAL, DISCOUNT), bounds=(0.0, None),
    example="ideal [1, 1, 1]: IDCG@3 = 1 + 1/log2(3) + 1/2",
    kernel=Kernel(Request.IDCG, graded=True, whole_list=(("ideal", "list"),)),
    explain=_dcg_steps,
))

register(MetricDef(
    "ndcg", "Normalized DCG", "nDCG@k = DCG@k / IDCG@k (0 when IDCG@k = 0)",
    "DCG normalised by the ideal DCG. gain=linear with ideal=truth is trec_eval's ndcg_cut and "
    "ranx ndcg; gain=exp is ranx ndcg_burges; ideal=list is scikit-learn ndcg_score.",
    (GAIN, IDEAL, DISCOUNT),
    reference="Jarvelin & Kekalainen (2002)",
    example="[1, 0, 1], R = 5: 1.5 / (1 + 1/log2(3) + 1/2) = 0.70391808903...",
    kernel=Kernel(Request.NDCG, graded=True, whole_list=(("ideal", "list"),)),
    explain=_dcg_steps,
), ("ndcg_cut",))


def _r_precision_steps(spec: Any, user: UserList) -> Steps | None:
    t = Positions(spec, user, whole=True)
    m = t.R if spec.k is None else min(spec.k, t.R)
    den = {"rel": t.R, "min_k_rel": m}.get(spec.get("denominator"))
    if den is None:
        return None
    hits = sum(t.b[:m])
    t.steps += [f"h (relevant in the top {m}) = {hits}", f"R-precision{t.at} = {hits} / {den}"]
    return t.done(ratio(hits, den, float("nan")))

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
    explain=_r_precision_steps,
), ("rprec",))


def _err_steps(spec: Any, user: UserList) -> Steps:
    t = Positions(spec, user)
    notes: list[str] = []
    grade = auto_grade(spec, user, notes)
    t.add("R_i", "P(reach i)", "contribution", "running sum")
    reach, total = 1.0, 0.0
    for row, r in zip(t.rows, t.rels, strict=True):
        ri = (2.0 ** max(r, 0.0) - 1.0) / 2.0 ** grade
        total += reach * ri / row[0]
        row += [ri, reach, reach * ri / row[0], total]
        reach *= 1 - ri
    t.steps.append(f"ERR{t.at} = {num(total)}")
    return t.done(total, notes=notes)

register(MetricDef(
    "err", "Expected reciprocal rank",
    "ERR@k = sum_{i<=k} (1/i) R_i prod_{j<i} (1 - R_j), R_i = (2^rel_i - 1) / 2^max_grade",
    "Cascade model: the user stops at rank i with probability R_i. max_grade defaults to the "
    "largest relevance in the truth (auto); set it to the scale's maximum to compare datasets.",
    (Param("max_grade", None, "largest grade of the relevance scale (auto: truth maximum)",
           kind=float, low=0.0, low_open=True),),
    reference="Chapelle, Metzler, Zhang, Grinspan (CIKM 2009)",
    example="grades [1, 0], max_grade 1: ERR = 1/2",
    kernel=Kernel(Request.ERR, graded=True, par=max_grade_par, average=False),
    explain=_err_steps,
))


def _rbp_steps(spec: Any, user: UserList) -> Steps:
    t = Positions(spec, user)
    p = float(spec.get("p"))
    t.add("weight (1-p) p^(i-1)", "contribution", "running sum")
    total = 0.0
    for row, bi in zip(t.rows, t.b, strict=True):
        w = (1 - p) * p ** (row[0] - 1)
        total += w * bi
        row += [w, w * bi, total]
    t.steps.append(f"RBP{t.at} (p = {p:g}) = {num(total)}")
    return t.done(total)

register(MetricDef(
    "rbp", "Rank-biased precision", "RBP@k = (1 - p) sum_{i<=k} b_i p^(i-1)",
    "Expected rate of relevant items seen by a user who goes on to the next rank with "
    "probability p (persistence).",
    (REL, Param("p", 0.8, "persistence", kind=float, low=0.0, high=1.0, low_open=True, high_open=True)),
    reference="Moffat & Zobel (TOIS 2008)",
    example="[1, 0, 1], p = 0.5: 0.5 * (1 + 0.25) = 0.625",
    kernel=Kernel(Request.RBP, par=_persistence),
    explain=_rbp_steps,
))


def _bpref_steps(spec: Any, user: UserList) -> Steps:
    t = Positions(spec, user, whole=True)
    n_judged_non = sum(1 for r in user.truth.values() if r < t.thr)
    t.add("judged non-relevant above", "contribution")
    above, total = 0, 0.0
    for row, (it, _), bi in zip(t.rows, t.shown, t.b, strict=True):
        if bi:
            c = 1.0 - min(above, t.R) / min(t.R, n_judged_non) if above > 0 else 1.0
            total += c
            row += [above, c]
        elif it in user.truth:
            above += 1
            row += [above, ""]
        else:
            row += ["", ""]
    t.steps += [f"N (judged non-relevant truth items) = {n_judged_non}",
                f"bpref = {num(total)} / {t.R}"]
    return t.done(ratio(total, t.R, float("nan")))

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
    explain=_bpref_steps,
))


def _num_rel_steps(spec: Any, user: UserList) -> Steps:
    t = Positions(spec, user, whole=True)
    return t.done(t.R)


def _num_ret_steps(spec: Any, user: UserList) -> Steps:
    t = _top(spec, user)
    t.steps.append(f"num_ret{t.at} = min({t.K}, {t.L})")
    return t.done(min(t.K, t.L))

register(MetricDef(
    "num_rel", "Relevant items in the truth", "R", "Number of truth items with relevance >= rel.",
    (REL,), cutoff="none", bounds=(0.0, None),
    kernel=Kernel(Request.NREL, count=True, ranked=False), explain=_num_rel_steps,
))

register(MetricDef(
    "num_ret", "Retrieved items", "min(k, L)", "Number of items in the (cut) list.",
    (), bounds=(0.0, None),
    kernel=Kernel(Request.NRET, count=True), explain=_num_ret_steps,
))


# ---------------------------------------------------------------------------------------------
# trec_eval / ir_measures retrieval measures
# ---------------------------------------------------------------------------------------------

def _recall_level(spec, max_rel: float) -> float:
    return float(spec.get("recall"))


def _judged_steps(spec: Any, user: UserList) -> Steps:
    t = Positions(spec, user)
    t.add("judged")
    judged = 0
    for row, (it, _) in zip(t.rows, t.shown, strict=True):
        judged += it in user.truth
        row.append("yes" if it in user.truth else "")
    den = min(t.K, t.L)
    t.steps.append(f"judged in the top {den} = {judged}; Judged{t.at} = {judged} / {den}")
    return t.done(ratio(judged, den))

register(MetricDef(
    "judged", "Judged@k (judgement rate)", "Judged@k = (judged items in the top k) / min(k, L)",
    "Share of the top k that has a truth row (any relevance, 0 included): how much of a run the "
    "judgements cover (ir_measures Judged@k; Sakai 2007). Without a cutoff, over the whole "
    "list; a list shorter than k is divided by its length, and an empty list scores 0.",
    (), bounds=(0.0, 1.0),
    reference="ir_measures Judged (MacAvaney et al., OpenNIR); Sakai (SIGIR 2007)",
    example="top 3 = [judged non-relevant, unjudged, judged relevant]: Judged@3 = 2/3",
    kernel=Kernel(Request.JUDGED, count=True),  # defined without a relevant item
    explain=_judged_steps,
))


INFAP_EPS = 1e-5  # trec_eval m_infAP.c's smoothing of the judged ratio


def _infap_steps(spec: Any, user: UserList) -> Steps:
    t = Positions(spec, user, whole=True)
    t.add("E[prec@i] at hits")
    judged_rel = judged_non = 0
    total = 0.0
    for j, (row, (it, _), bi) in enumerate(zip(t.rows, t.shown, t.b, strict=True)):
        if bi:
            if j == 0:
                e = 1.0
            else:  # every judged item is in the pool (rv.evaluate has no pooled-only rows)
                pooled = judged_rel + judged_non
                e = 1.0 / (j + 1) + (j / (j + 1)) * (pooled / j) * (
                    (judged_rel + INFAP_EPS) / (pooled + 2 * INFAP_EPS))
            total += e
            row.append(e)
        else:
            row.append("")
        if it in user.truth:
            judged_rel += bi
            judged_non += 1 - bi
    t.steps += ["E[prec@i] = 1/i + ((i-1)/i) (p/(i-1)) (r + eps) / (r + n + 2 eps), r / n: "
                "judged relevant / non-relevant items above, p = r + n, eps = 1e-5",
                f"infAP = {num(total)} / {t.R}"]
    return t.done(ratio(total, t.R, float("nan")))

register(MetricDef(
    "infap", "Inferred average precision",
    "infAP = (1/R) sum_{relevant r} E[prec@r], E[prec@1] = 1, "
    "E[prec@j+1] = 1/(j+1) + (j/(j+1)) * (p_j / j) * (r_j + eps) / (r_j + n_j + 2 eps)",
    "AP estimated from incomplete judgements (Yilmaz & Aslam 2006), exactly as trec_eval 9.0.8 "
    "m_infAP.c: for the relevant item at 0-based position j, r_j / n_j are the judged "
    "relevant / non-relevant items above it, p_j the items above it that are in the pool "
    "(judged, or pooled but unjudged), eps = 1e-5; items outside the pool are skipped but "
    "count in j. With rv.evaluate every truth row is judged and items without one are outside "
    "the pool; `receval trec` reads qrels lines with a negative relevance as pooled but "
    "unjudged, as trec_eval does. Equals AP when every retrieved item is judged.",
    (REL,), cutoff="none",
    reference="Yilmaz & Aslam, 'Estimating average precision with incomplete and imperfect "
              "judgments' (CIKM 2006); trec_eval 9.0.8 m_infAP.c",
    example="judged [r, n, r], R = 2: (1 + 1/3 + (2/3) (2/2) (1 + eps) / (2 + 2 eps)) / 2 = 0.83333",
    kernel=Kernel(Request.INFAP, average=False),
    explain=_infap_steps,
), ("infap_trec", "inferred_ap"))


def _iprec(t: Positions, level: float) -> tuple[float, int]:
    """Interpolated precision at recall ``level`` and the count c of relevant items it needs."""
    c = max(1, math.floor(level * t.R + 0.9))
    ranks = [row[0] for row, bi in zip(t.rows, t.b, strict=True) if bi]
    if len(ranks) < c:
        return 0.0, c
    return max(row[5] / row[0] for row in t.rows[ranks[c - 1] - 1:]), c


def _precision_column(t: Positions) -> None:
    t.add("P@i")
    for row in t.rows:
        row.append(row[5] / row[0])


def _iprec_steps(spec: Any, user: UserList) -> Steps:
    t = Positions(spec, user, whole=True)
    _precision_column(t)
    level = float(spec.get("recall"))
    value, c = _iprec(t, level)
    t.steps += [f"c = max(1, floor({level:g} * {t.R} + 0.9)) = {c} relevant items",
                f"iprec = max P@i from the rank of the {c}-th relevant item on = {num(value)}"
                if value else f"fewer than {c} relevant items retrieved: 0"]
    return t.done(value)

register(MetricDef(
    "iprec", "Interpolated precision at a recall level",
    "iprec(p) = max_{i >= r_c} P@i, r_c = rank of the c-th relevant item, c = max(1, floor(p R + 0.9)); "
    "0 when fewer than c relevant items are retrieved",
    "Interpolated precision at recall level p over the whole list, as trec_eval "
    "iprec_at_recall (ir_measures IPrec@p): the best precision at or below the rank where "
    "recall first reaches p, with trec_eval's rounding of p R.",
    (REL, Param("recall", 0.5, "recall level p", kind=float, low=0.0, high=1.0)),
    cutoff="none",
    reference="trec_eval 9.0.8 m_iprec_at_recall.c; Manning, Raghavan, Schuetze (2008), ch. 8.4",
    example="[1, 0, 1, 0], R = 2: iprec(recall=0.5) = max(1, 1/2, 2/3, 2/4) = 1; "
            "iprec(recall=1) = max(2/3, 2/4) = 2/3",
    kernel=Kernel(Request.IPREC, par=_recall_level, average=False),
    explain=_iprec_steps,
), ("iprec_at_recall", "interpolated_precision"))


def _iprec_avg_steps(spec: Any, user: UserList) -> Steps:
    t = Positions(spec, user, whole=True)
    _precision_column(t)
    values = [_iprec(t, j / 10)[0] for j in range(11)]
    t.steps.append("iprec at recall 0, 0.1, ..., 1 = " + ", ".join(num(v) for v in values))
    t.steps.append(f"11pt_avg = {num(sum(values))} / 11")
    return t.done(sum(values) / 11)

register(MetricDef(
    "iprec_avg", "11-point interpolated average precision",
    "11pt = (1/11) sum_{p in 0, 0.1, ..., 1} iprec(p)",
    "Mean of the interpolated precision at the 11 recall levels 0, 0.1, ..., 1 over the whole "
    "list (trec_eval 11pt_avg).",
    (REL,), cutoff="none",
    reference="trec_eval 9.0.8 m_11pt_avg.c; Manning, Raghavan, Schuetze (2008), ch. 8.4",
    example="[1, 0, 1, 0], R = 2: levels 0..0.5 give 1, 0.6..1 give 2/3: (6 + 5 * 2/3) / 11",
    kernel=Kernel(Request.IPREC_AVG, average=False),
    explain=_iprec_avg_steps,
), ("eleven_point_ap",))


def _set_map_steps(spec: Any, user: UserList) -> Steps:
    t = _top(spec, user)
    t.steps.append(f"set_map{t.at} = ({t.h} / {t.K}) * ({t.h} / {t.R})")
    return t.done(ratio(t.h, t.K) * ratio(t.h, t.R))

register(MetricDef(
    "set_map", "Set MAP (precision x recall)", "set_map@k = (h_k / k) * (h_k / R)",
    "trec_eval set_map: set precision times set recall of the retrieved set. Without a cutoff "
    "k is the list length L (the whole retrieved set). trec_eval's other set measures are "
    "receval metrics without a cutoff: set_P = precision, set_recall = recall, set_relative_P "
    "= precision(denominator=min_k_rel), set_F = f1 / fbeta.",
    (REL,),
    reference="trec_eval 9.0.8 m_set_map.c",
    example="[1, 0, 1, 0], R = 4: (2/4) * (2/4) = 1/4",
    kernel=Kernel(Request.SET_MAP, average=False),
    explain=_set_map_steps,
))


def _ncrr_steps(spec: Any, user: UserList) -> Steps:
    t = Positions(spec, user)
    t.add("1/rank at hits")
    crr = 0.0
    for row, bi in zip(t.rows, t.b, strict=True):
        row.append(1.0 / row[0] if bi else "")
        crr += 1.0 / row[0] if bi else 0.0
    m = min(t.R, t.K, t.L)
    icrr = sum(1.0 / i for i in range(1, m + 1))
    t.steps += [f"CRR{t.at} = {num(crr)}; ideal CRR over min(R, k, L) = {m} hits = {num(icrr)}",
                f"NCRR{t.at} = {num(crr)} / {num(icrr)}"]
    return t.done(crr / icrr if icrr > 0 else 0.0)

register(MetricDef(
    "ncrr", "Normalized cumulative reciprocal rank",
    "NCRR@k = (sum_{i<=k} b_i / i) / (sum_{i=1..min(R, k, L)} 1 / i); 0 without a hit",
    "Sum of the reciprocal ranks of every hit in the top k, normalized by the same sum for the "
    "best list of that length, exactly as Cornac's NCRR (whose ideal list has "
    "min(R, len(truncated list)) hits).",
    (REL,),
    reference="Cornac cornac/metrics/ranking.py NCRR (Salah, Truong, Lauw, JMLR 2020)",
    example="[0, 1, 1], R = 2, k = 3: (1/2 + 1/3) / (1 + 1/2) = 5/9",
    kernel=Kernel(Request.NCRR),
    explain=_ncrr_steps,
))

# ---------------------------------------------------------------------------------------------
# recommender extras: RecTools partial AUC / PAP / MCC, RecPack percentile ranking
# ---------------------------------------------------------------------------------------------

N_ITEMS = Param("n_items", None, "catalogue size N: the number of items that could be recommended",
                kind=int, low=1.0)


def _n_items(spec, max_rel: float) -> float:
    n = spec.get("n_items")
    if n is None:
        raise MetricError(
            f"{spec.key} needs the catalogue size: write e.g. {spec.name}"
            f"{'@' + str(spec.k) if spec.k else ''}(n_items=5000)."
        )
    return float(n)


def _mcc_n_items(spec, max_rel: float) -> float:
    """MCC@k counts k slots whatever the list (FP = k - TP): N < k is refused for every user."""
    n = _n_items(spec, max_rel)
    if spec.k is not None and spec.k > n:
        raise InputError(
            f"{spec.key}: the catalogue size n_items={int(n)} is smaller than the {spec.k} "
            f"slots of the top {spec.k} that MCC counts (FP = k - TP: each empty slot is a "
            "false positive), so TN = N - k - FN < 0. Pass the real catalogue size (the "
            "number of items that could be recommended)."
        )
    return n


def catalogue_need(spec: Any, nret: np.ndarray, hits: np.ndarray, nrel: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, str]:
    """What each user occupies in the catalogue of ``mcc`` / ``percentile_rank`` (``n_items``):
    ``(listed, unlisted, what)`` for :func:`receval.metrics.catalogue.check_catalogue`.

    ``nret``: the list positions read (``min(L, k)``), ``hits``: the relevant items among
    them, ``nrel``: the user's relevant truth items (R). MCC@k counts k slots (FP = k - TP);
    the percentile rank reads the ``min(L, k)`` positions and ranks each of the R - hits
    unlisted relevant items among the N - min(L, k) unranked ones.
    """
    unlisted = np.asarray(nrel, dtype=np.float64) - np.asarray(hits, dtype=np.float64)
    if spec.name == "mcc" and spec.k is not None:
        return (np.full(len(unlisted), float(spec.k)), unlisted,
                f"slots of the top {spec.k} (FP = k - TP)")
    return np.asarray(nret, dtype=np.float64), unlisted, "list position(s) read"


INSUFFICIENT = _variant(
    Request.PAUC, "insufficient", "ignore",
    "a user whose whole list holds fewer than k non-relevant items while one of its relevant "
    "items is not in the list (the k non-relevant items the partial AUC compares with are not "
    "all known): ignore = scored as the list stands, the missing relevant items below every "
    "listed one (RecTools insufficient_handling='ignore') | exclude = no value, left out of the "
    "mean (RecTools insufficient_handling='exclude')")


def _partial_auc_steps(spec: Any, user: UserList) -> Steps:
    """RecTools PAUC / PAP: each relevant item ranked above the k-th non-relevant one gains
    the number of those k it outranks."""
    t = Positions(spec, user, whole=True)
    k = t.K
    t.add("non-relevant above f_i", "gain k - f_i")
    above = hits = 0
    total = 0
    for row, bi in zip(t.rows, t.b, strict=True):
        counted = bi and above < k and (spec.name == "pauc" or hits < k)
        hits += bi
        gain = k - above if counted else 0
        total += gain
        row += [above if bi else "", gain if bi else ""]
        above += 1 - bi
    den = t.R * k if spec.name == "pauc" else min(t.R, k) * k
    what = "R k" if spec.name == "pauc" else "min(R, k) k"
    hits = sum(t.b)
    if spec.get("insufficient") == "exclude" and t.L - hits < k and hits < t.R:
        t.steps.append(f"{t.L - hits} non-relevant item(s) in the list (< k = {k}) and "
                       f"{t.R - hits} relevant item(s) not in it: insufficient, excluded")
        return t.done(float("nan"))
    t.steps.append(f"{spec.name}{t.at} = {total} / ({what} = {den})")
    return t.done(ratio(total, den))

register(MetricDef(
    "pauc", "Partial AUC@k (RecTools PAUC)",
    "pAUC@k = (1 / (R k)) sum_{relevant i in the list, f_i < k} (k - f_i), "
    "f_i = non-relevant items ranked above i",
    "ROC AUC of the whole list against the first k non-relevant items: each relevant item "
    "recommended before the k-th non-relevant one gains the number of those k that it "
    "outranks; relevant items that are not recommended rank below all of them and gain 0 "
    "(RecTools PAUC, insufficient_handling='ignore'). k counts non-relevant items, not ranks, "
    "so the whole list is read; without a cutoff k = L.",
    (REL, INSUFFICIENT), reference="RecTools rectools/metrics/auc.py (PAUC); McClish (1989) for partial AUC",
    example="[1, 0, 1, 0], R = 3, k = 2: (2 + 1) / (3 * 2) = 1/2",
    kernel=Kernel(Request.PAUC, full_list=True, average=False, variant="insufficient"),
    explain=_partial_auc_steps,
), ("partial_auc",))

register(MetricDef(
    "pap", "Partial AUC-precision@k (RecTools PAP)",
    "pAP@k = (1 / (min(R, k) k)) sum_{first k relevant i in the list, f_i < k} (k - f_i)",
    "RecTools PAP: partial AUC over the first k non-relevant and the first k relevant items, "
    "normalized by min(R, k) k (reaches 1 when min(R, k) relevant items lead the list). The "
    "whole list is read; without a cutoff k = L.",
    (REL, INSUFFICIENT), reference="RecTools rectools/metrics/auc.py (PAP)",
    example="[1, 0, 1, 0], R = 3, k = 2: (2 + 1) / (2 * 2) = 3/4",
    kernel=Kernel(Request.PAP, full_list=True, average=False, variant="insufficient"),
    explain=_partial_auc_steps,
), ("partial_ap",))


def _mcc_steps(spec: Any, user: UserList) -> Steps:
    t = _top(spec, user)
    n = int(_mcc_n_items(spec, 0.0))
    tp = t.h
    fp, fn = t.K - tp, t.R - tp
    tn = n - t.K - fn
    den = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    t.steps += [f"TP = {tp}, FP = k - TP = {fp}, FN = R - TP = {fn}, TN = N - k - FN = {tn}",
                f"MCC{t.at} = ({tp} * {tn} - {fp} * {fn}) / {num(den)}"]
    return t.done(ratio(tp * tn - fp * fn, den))

register(MetricDef(
    "mcc", "Matthews correlation coefficient@k",
    "MCC@k = (TP TN - FP FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN)), TP = h_k, "
    "FP = k - TP, FN = R - TP, TN = N - k - FN (0 when the denominator is 0)",
    "The top k as a classifier of the catalogue's N items (RecTools MCC: a list shorter than "
    "k counts its missing ranks as false positives). Needs n_items, at least k + FN.",
    (REL, N_ITEMS), bounds=(-1.0, 1.0),
    reference="Matthews (1975); RecTools rectools/metrics/classification.py (MCC)",
    example="h = 1, k = 2, R = 2, N = 10: (1 * 7 - 1 * 1) / sqrt(2 * 2 * 8 * 8) = 6/16",
    kernel=Kernel(Request.MCC, par=_mcc_n_items, average=False, catalogue=catalogue_need),
    explain=_mcc_steps,
))

def _percentile_rank_steps(spec: Any, user: UserList) -> Steps | None:
    if spec.get("average") not in ("items", "users"):
        return None
    t = Positions(spec, user)
    n = _n_items(spec, 0.0)
    listed = len(t.rows)
    missing = 100 * (max(listed - 1, 0) / n + 1) / 2  # an empty list: (0 / N + 1) / 2, 50
    t.add("rank_ui")
    total = 0.0
    for row, bi in zip(t.rows, t.b, strict=True):
        row.append(100 * (row[0] - 1) / n if bi else "")
        total += 100 * (row[0] - 1) / n if bi else 0.0
    unlisted = t.R - t.h
    total += unlisted * missing
    t.steps += [f"{unlisted} relevant item(s) not in the list: rank_ui = 100 (max(L - 1, 0) / N "
                f"+ 1) / 2 with L = {listed}, N = {n:g}: {num(missing)} each",
                f"this user's value = {num(total)} / {t.R}; the summary is "
                + ("sum over users of the numerators / sum of R" if spec.get("average") == "items"
                   else "the mean of the users' values")]
    return t.done(ratio(total, t.R, float("nan")))


register(MetricDef(
    "percentile_rank", "Expected percentile ranking (percent)",
    "rank_ui = 100 (r_ui - 1) / N for a relevant item at rank r_ui, 100 (max(L - 1, 0) / N + 1) "
    "/ 2 for one not in the list (L = min(list length, k); no list: 50); "
    "PR = sum_{u,i} rank_ui / sum_u R",
    "Where the relevant items sit in the lists, as a percentage of the catalogue (lower is "
    "better; Hu, Koren & Volinsky 2008). Relevant items missing from a list get the mean "
    "percentile of the unranked rest, as RecPack's PercentileRanking: the mean of the largest "
    "listed percentile (L - 1) / N and 1, where a user without a list has largest percentile 0 "
    "(RecPack's row maximum of an empty sparse row), so 50. N must hold the list and the "
    "relevant items outside it. average: items = over "
    "every relevant (user, item) pair (RecPack, micro) | users = mean of each user's mean.",
    (REL, N_ITEMS, _variant(Request.PERC_RANK, "average", "items", "items | users")),
    higher_is_better=False, bounds=(0.0, 100.0),
    reference="Hu, Koren & Volinsky (ICDM 2008); RecPack recpack/metrics/percentile_ranking.py",
    example="N = 10, list of 4 with hits at ranks 1 and 3, R = 3: (0 + 20 + 100 (3/10 + 1)/2) / 3",
    kernel=Kernel(Request.PERC_RANK, par=_n_items, variant="average",
                  micro=(("items", Request.PERC_NUM, Request.NREL),),
                  catalogue=catalogue_need),
    explain=_percentile_rank_steps,
), ("percentile_ranking", "epr"))
