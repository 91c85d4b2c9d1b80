"""Three ir_measures measures that trec_eval lacks: NCG, Compat and pairwise Accuracy.

- ``ncg``: normalized cumulative gain, CG@k over the ideal CG@k of the user's judged grades
  (the TREC Deep Learning track's NCG; requested as ir_measures issue #19, which ir_measures
  0.4.3 does not provide).
- ``compat``: Compatibility (Clarke, Vtyurina & Smucker, "Assessing top-k preferences", ACM
  TOIS 39(3), 2021): rank-biased overlap of the list with the ideal ranking of the truth,
  as ir_measures 0.4.3 computes it (``providers/compat_provider.py``).
- ``pairwise_accuracy``: the fraction of (relevant, non-relevant) pairs among the retrieved
  documents that the list orders correctly, as ir_measures 0.4.3's ``Accuracy`` computes it
  (``providers/accuracy_provider.py``).

Every value is per user, so blocks of users and in-memory evaluation give the same bits.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..engines.plugins import Context, MetricValues
from ..metrics.spec import MetricDef, MetricSpec, Param, register

_IRM = "ir_measures 0.4.3 (terrierteam/ir_measures), providers/{}_provider.py"

GAIN = Param("gain", "linear", "gain of a relevance r: linear = r, exp = 2^r - 1 (negative "
             "grades gain 0)", ("linear", "exp"))
P = Param("p", 0.95, "persistence of the rank-biased overlap (ir_measures' p)", kind=float,
          low=0.0, high=1.0)
NORMALIZE = Param("normalize", "true", "true: divide by the overlap of the ideal ranking with "
                  "itself at the same depth (ir_measures' normalize=True)", ("true", "false"))
REL = Param("rel", 1.0, "relevance threshold: judged grades >= rel are relevant (ir_measures' "
            "rel)", kind=float, low=0.0, low_open=True)


def _gains(rel: np.ndarray, how: str) -> np.ndarray:
    r = np.maximum(np.asarray(rel, dtype=np.float64), 0.0)
    return np.exp2(r) - 1.0 if how == "exp" else r


def _ncg(spec: MetricSpec, packed: Any, context: Context) -> MetricValues:
    how = str(spec.get("gain"))
    n = len(packed.user_ids)
    out = np.zeros(n, dtype=np.float64)
    for u in range(n):
        s, e = int(packed.indptr[u]), int(packed.indptr[u + 1])
        if spec.k is not None:
            e = min(e, s + spec.k)
        ts, te = int(packed.t_indptr[u]), int(packed.t_indptr[u + 1])
        ideal = np.sort(_gains(packed.t_rel[ts:te], how))[::-1]
        if spec.k is not None:
            ideal = ideal[:spec.k]
        icg = float(np.cumsum(ideal)[-1]) if len(ideal) else 0.0
        got = _gains(packed.rel[s:e], how)
        cg = float(np.cumsum(got)[-1]) if len(got) else 0.0
        out[u] = cg / icg if icg > 0.0 else 0.0
    return MetricValues(per_user=out)


def _rbo_sums(overlap: np.ndarray, p: float) -> tuple[float, float]:
    """(sum_i w_i X_i / i, sum_i w_i) for i = 1..D, w_i = p^(i-1), summed in rank order."""
    depth = len(overlap)
    weights = np.cumprod(np.concatenate(([1.0], np.full(depth - 1, p))))
    terms = weights * overlap / np.arange(1, depth + 1, dtype=np.float64)
    return float(np.cumsum(terms)[-1]), float(np.cumsum(weights)[-1])


def compat_one(grades: np.ndarray, scores: np.ndarray, truth: np.ndarray, p: float,
               normalize: bool) -> float:
    """Compatibility of one ranked list (``grades`` of its documents in rank order, 0 for
    unjudged; ``scores`` theirs) with the ideal ranking of ``truth`` (every judged grade).

    The ideal ranking holds the documents with grade > 0, by grade descending, then by the
    list's score descending (an unretrieved document scores 0.0, ir_measures' convention),
    then retrieved before unretrieved, then in list order. RBO to depth D = max(list,
    ideal): (sum_i p^(i-1) X_i / i) / (sum_i p^(i-1)), X_i the overlap of the top i of both;
    normalised by the same quantity for the ideal ranking against itself when positive.
    """
    pos = np.flatnonzero(grades > 0)
    t = np.asarray(truth, dtype=np.float64)
    t = t[t > 0]
    n_ret, n_ideal = len(grades), len(t)
    depth = max(n_ret, n_ideal)
    if depth == 0:
        return 0.0
    # the unretrieved relevant documents: each grade's truth count less its retrieved count
    levels, counts = np.unique(t, return_counts=True)
    got = np.unique(grades[pos], return_counts=True)
    left = counts.copy()
    left[np.searchsorted(levels, got[0])] -= got[1]
    g = np.concatenate((grades[pos], np.repeat(levels, left)))
    sc = np.concatenate((scores[pos], np.zeros(int(left.sum()))))
    absent = np.concatenate((np.zeros(len(pos)), np.ones(int(left.sum()))))
    order = np.concatenate((pos, np.full(int(left.sum()), n_ret)))
    ideal_rank = np.empty(len(g), dtype=np.int64)
    ideal_rank[np.lexsort((order, absent, -sc, -g))] = np.arange(len(g))
    both = np.maximum(ideal_rank[:len(pos)], pos)  # 0-based depth where the document meets
    overlap = np.cumsum(np.bincount(both, minlength=depth)[:depth]).astype(np.float64)
    num, norm = _rbo_sums(overlap, p)
    score = num / norm
    if normalize:
        best_num, best_norm = _rbo_sums(
            np.minimum(np.arange(1, depth + 1), n_ideal).astype(np.float64), p)
        best = best_num / best_norm
        if best > 0.0:
            score = score / best
    return score


def _compat(spec: MetricSpec, packed: Any, context: Context) -> MetricValues:
    p = float(spec.get("p"))
    normalize = spec.get("normalize") == "true"
    n = len(packed.user_ids)
    out = np.zeros(n, dtype=np.float64)
    judged = np.asarray(packed.judged, dtype=bool)
    rel = np.where(judged, packed.rel, 0.0)
    scores = np.asarray(packed.scores, dtype=np.float64)
    for u in range(n):
        s, e = int(packed.indptr[u]), int(packed.indptr[u + 1])
        ts, te = int(packed.t_indptr[u]), int(packed.t_indptr[u + 1])
        sc = scores[s:e] if len(scores) else -np.arange(1.0, e - s + 1.0)
        out[u] = compat_one(rel[s:e], sc, packed.t_rel[ts:te], p, normalize)
    return MetricValues(per_user=out)


def accuracy_one(relevant: np.ndarray) -> float:
    """1 - (sum over relevant documents of the non-relevant ranked above it) / (N R), N and R
    the non-relevant and relevant documents of the list; NaN when R = 0 or N = 0."""
    b = np.asarray(relevant, dtype=bool)
    n_rel = int(b.sum())
    n_non = len(b) - n_rel
    if n_rel == 0 or n_non == 0:
        return math.nan
    above = int(np.cumsum(~b)[b].sum())
    return 1.0 - above / (float(n_non) * n_rel)


def _accuracy(spec: MetricSpec, packed: Any, context: Context) -> MetricValues:
    level = float(spec.get("rel"))
    n = len(packed.user_ids)
    out = np.full(n, math.nan)
    skipped = np.zeros(n, dtype=bool)
    no_rel = no_non = 0
    relevant = np.asarray(packed.judged, dtype=bool) & (packed.rel >= level)
    for u in range(n):
        s, e = int(packed.indptr[u]), int(packed.indptr[u + 1])
        if spec.k is not None:
            e = min(e, s + spec.k)
        if packed.t_indptr[u + 1] == packed.t_indptr[u]:
            skipped[u] = True  # no truth rows: ir_measures reports no value
            continue
        b = relevant[s:e]
        out[u] = accuracy_one(b)
        if not b.any():
            no_rel += 1
        elif b.all():
            no_non += 1
        skipped[u] = math.isnan(out[u])
    info = {"users_no_relevant_retrieved": no_rel, "users_no_nonrelevant_retrieved": no_non}
    if no_non:
        info["undefined"] = ("a list with relevant but no non-relevant documents has no pair "
                             "to order (0/0; ir_measures 0.4.3 raises ZeroDivisionError): NaN")
    return MetricValues(per_user=out, info=info, skipped=skipped)


register(MetricDef(
    "ncg", "Normalized cumulative gain",
    "NCG@k = sum_{i<=k} g(rel_i) / sum_{i<=k} g(rel*_i), rel* the truth grades descending",
    "Cumulative gain of the top k over the cumulative gain of the best k judged documents: "
    "nDCG without a discount, so a measure of recall of gain rather than of order (TREC Deep "
    "Learning track, Craswell et al. 2019; ir_measures issue #19). 0 when the ideal gain is 0.",
    (GAIN,), reference="Craswell et al., Overview of the TREC 2019 Deep Learning Track",
    example="[2, 0, 1], truth grades [2, 2, 1]: NCG@3 = 3 / 5", compute=_ncg,
))

register(MetricDef(
    "compat", "Compatibility",
    "Compat = RBO_p(list, ideal) / RBO_p(ideal, ideal), RBO_p(a, b) = sum_{i<=D} p^(i-1) "
    "|a_:i & b_:i| / i / sum_{i<=D} p^(i-1), D = max(|a|, |b|)",
    "Rank-biased overlap of the whole list with the ideal ranking of the truth's relevant "
    "documents (grade descending; equal grades by the list's scores, unretrieved documents "
    "scoring 0), normalised by the ideal ranking's overlap with itself (normalize=true). "
    "Follows ir_measures' compat provider.",
    (P, NORMALIZE), cutoff="none",
    reference="Clarke, Vtyurina & Smucker, ACM TOIS 39(3) 2021; " + _IRM.format("compat"),
    example="[a, x], ideal [a, b], p = 0.5: (1 + 0.5 * 1/2) / (1 + 0.5 * 2/2) = 5/6",
    compute=_compat,
))

register(MetricDef(
    "pairwise_accuracy", "Pairwise accuracy of the retrieved documents",
    "Acc@k = 1 - sum_{relevant i <= k} N_i / (N R), N_i the non-relevant above i",
    "Probability that a retrieved relevant document is ranked above a retrieved non-relevant "
    "(or unjudged) one, over the top k (ir_measures' Accuracy). Undefined (NaN, left out of "
    "the mean, as ir_measures leaves the query out) when the top k holds no relevant document "
    "or no non-relevant one.",
    (REL,), reference=_IRM.format("accuracy"),
    example="[1, 0, 1, 0]: N = 2, R = 2, N_i = 0, 1: 1 - 1/4 = 3/4", compute=_accuracy,
))
