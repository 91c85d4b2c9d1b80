"""trec_eval's measures that no other receval metric computes, as plugin metric families.

Each family computes its per-query values with the code of the trec_eval emulator
(:func:`receval.trec.measures.compute`) on the packed arrays of ``rv.evaluate``, so that
``rv.evaluate(run, truth, ["Rprec_mult_1.00"])`` and ``receval trec -m Rprec_mult.1.0`` give the
same values. The names trec_eval writes map to these families in the one table of foreign names
(:data:`receval.metrics.foreign.TREC_EVAL`). Relevant means relevance >= ``rel`` (trec_eval's
``-l``). References: usnistgov/trec_eval ``m_Rprec_mult.c``, ``m_utility.c``, ``m_binG.c``,
``m_G.c``, ``m_ndcg_rel.c``, ``m_Rndcg.c``, ``m_num_nonrel_judged_ret.c``, ``m_num_q.c``,
``m_gm_map.c``, ``m_gm_bpref.c`` (and ``meas_avg.c``'s ``te_calc_avg_meas_s_gm``).

Two families are summarised otherwise than by their mean (``MetricDef.summary``): ``num_q``
(1 per user, summed: the number of users) and ``gm_map`` / ``gm_bpref``, whose per-user values
are trec_eval's ``log(max(x, 1e-5))`` and whose summary is exp of their mean.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from ..engines.local import evaluate_packed
from ..engines.plan import Plan
from ..engines.plugins import Context, MetricValues
from ..errors import PolicyError
from ..metrics.foreign import BY_NAME
from ..metrics.spec import MetricDef, MetricSpec, Param, register
from .measures import MIN_GEO_MEAN, Measure, QueryArrays, compute

REL = Param("rel", 1.0, "relevance threshold: truth items with relevance >= rel are relevant "
            "(trec_eval's -l)", kind=float, low=0.0, low_open=True)
_COEF = {"a": (1.0, "relevant retrieved"), "b": (-1.0, "non-relevant retrieved"),
         "c": (0.0, "relevant not retrieved"), "d": (0.0, "non-relevant not retrieved")}
_REF = "trec_eval 9.0.8 (usnistgov/trec_eval), m_{}.c"


def _queries(packed: Any, level: float) -> QueryArrays:
    """The emulator's per-query arrays of a packed run (code -1: not in the truth)."""
    code = np.where(packed.judged.astype(bool), packed.rel, -1.0)
    return QueryArrays(qids=packed.user_ids, indptr=packed.indptr, rel=packed.rel, code=code,
                       t_indptr=packed.t_indptr, t_rel=packed.t_rel, level=level)


def _compute(trec_name: str, params: Any = None, num_docs: Any = None):
    """A plugin compute: the emulator's values of ``trec_name`` with the spec's parameters."""
    defn = BY_NAME[trec_name]

    def run(spec: MetricSpec, packed: Any, context: Context) -> MetricValues:
        level = float(spec.get("rel")) if any(p.name == "rel"
                                              for p in spec.definition.params) else 1.0
        values = params(spec) if params else ()
        text = ",".join(values) if defn.kind == "params" and values else None
        measure = Measure(defn, tuple(values), text)
        docs = float(num_docs(spec)) if num_docs else 0.0
        out = compute([measure], _queries(packed, level), {}, num_docs=docs)
        return MetricValues(per_user=np.asarray(out[measure.columns()[0]], dtype=np.float64))
    return run


register(MetricDef(
    "rprec_mult", "Precision at a multiple of R",
    "Rprec_mult(x) = h_c / c, c = floor(x R + 0.9)",
    "Precision at rank floor(x R + 0.9), R the user's relevant items (trec_eval Rprec_mult; "
    "x = 1 is R-precision).",
    (REL, Param("mult", 1.0, "the multiple x of R", kind=float, low=0.0, low_open=True)),
    cutoff="none", reference=_REF.format("Rprec_mult"),
    example="R = 2, x = 1.5: precision at rank 3",
    compute=_compute("Rprec_mult", lambda s: (float(s.get("mult")),)),
))

register(MetricDef(
    "utility", "Set utility",
    "utility = a h + b (ret - h) + c (R - h) + d (N + h - ret - R)",
    "Linear utility of the retrieved set: h relevant retrieved, ret retrieved, R relevant, "
    "N the collection size n_docs (trec_eval utility, -N).",
    (REL, *(Param(k, v, f"weight of the {doc} documents", kind=float)
            for k, (v, doc) in _COEF.items()),
     Param("n_docs", 0.0, "documents in the collection (trec_eval -N)", kind=float, low=0.0)),
    cutoff="none", bounds=(float("-inf"), None), reference=_REF.format("utility"),
    example="h = 2, ret = 5, default weights: 2 - 3 = -1",
    compute=_compute("utility", lambda s: tuple(repr(float(s.get(k))) for k in _COEF),
                     lambda s: s.get("n_docs")),
))

register(MetricDef(
    "bin_g", "Binary G",
    "binG = (1/R) sum over relevant retrieved i of 1 / log2(2 + non-relevant above i)",
    "trec_eval's experimental binary G: each relevant document discounted by the non-relevant "
    "documents ranked above it.", (REL,), cutoff="none", reference=_REF.format("binG"),
    example="relevant at ranks 1 and 3, R = 2: (1 + 1/log2(3)) / 2",
    compute=_compute("binG"),
))

_GAINS = ("Gain of a document: its relevance level (trec_eval's G, ndcg_rel and Rndcg "
          "without parameters).")

register(MetricDef(
    "norm_g", "Normalized gain G",
    "G = sum_i g_i / log2(2 + sum_{j<=i} max(ideal_j, 1) - sum_{j<=i} g_j) / sum ideal gains",
    "trec_eval's experimental normalized gain G. " + _GAINS, cutoff="none",
    reference=_REF.format("G"), compute=_compute("G"),
))

register(MetricDef(
    "ndcg_rel", "nDCG averaged over the relevant documents",
    "ndcg_rel = mean over relevant documents d of DCG(rank d) / IDCG(rank d)",
    "trec_eval's experimental ndcg_rel: nDCG at each relevant document's rank, averaged over "
    "the relevant documents (unretrieved ones at the list's nDCG). " + _GAINS, cutoff="none",
    reference=_REF.format("ndcg_rel"), compute=_compute("ndcg_rel"),
))

register(MetricDef(
    "rndcg", "nDCG averaged at the ideal gain boundaries",
    "Rndcg = mean of DCG / IDCG at each rank where the ideal gain changes",
    "trec_eval's experimental Rndcg. " + _GAINS, cutoff="none",
    reference=_REF.format("Rndcg"), compute=_compute("Rndcg"),
))

register(MetricDef(
    "num_nonrel_judged_ret", "Judged non-relevant documents retrieved",
    "count of retrieved documents judged with relevance < rel",
    "Retrieved documents present in the truth and not relevant (trec_eval "
    "num_nonrel_judged_ret; its 'all' line sums them, receval's summary is the mean).",
    (REL,), cutoff="none", bounds=(0.0, None), higher_is_better=False,
    reference=_REF.format("num_nonrel_judged_ret"), compute=_compute("num_nonrel_judged_ret"),
))


def _count_queries(spec: MetricSpec, packed: Any, context: Context) -> MetricValues:
    """``num_q``: 1 for every user of the evaluation."""
    return MetricValues(per_user=np.ones(len(packed.user_ids)))


def _geometric(trec_name: str):
    """A plugin compute: trec_eval's per-query ``log(max(x, 1e-5))`` of ``x`` the values of the
    measure's ``values_of`` metric (``map``, ``bpref``), measured by the ranking kernel under
    the evaluation's policies; users without a relevant item are skipped as that metric
    skips them (``empty_truth="skip"``)."""
    defn = BY_NAME[trec_name]
    base = BY_NAME[str(defn.values_of)]

    def run(spec: MetricSpec, packed: Any, context: Context) -> MetricValues:
        if context.policies is None:
            raise PolicyError(f"{spec.key} needs the evaluation's policies (Context.policies).")
        level = float(spec.get("rel"))
        plan = Plan([base.target(None, level)], context.policies)
        values = evaluate_packed(dataclasses.replace(packed, kernel_out=None), plan,
                                 context).values[:, 0]
        queries = _queries(packed, level)
        logs = compute([Measure(defn, (), None)], queries, {base.name: values})[defn.name]
        skip = context.policies.empty_truth == "skip"
        return MetricValues(per_user=np.asarray(logs, dtype=np.float64),
                            skipped=(queries.num_rel == 0) if skip else None)
    return run


register(MetricDef(
    "num_q", "Number of queries",
    "num_q = sum over users of 1",
    "trec_eval's num_q: 1 for every evaluated user, summarised by the sum (the number of "
    "users; with compat='trec_eval' the queries in both run and qrels, or every qrels "
    "query with users='truth', trec_eval's -c).", cutoff="none", bounds=(1.0, 1.0),
    summary="sum", reference=_REF.format("num_q"), example="3 queries: 1, 1, 1; summary 3",
    compute=_count_queries,
))

_GEOMETRIC = ("Per user log(max({0}, 1e-5)); the summary is exp of their mean, the "
              "geometric mean of max({0}, 1e-5) (trec_eval's {1}, which rewards runs that "
              "are consistent over queries).")

for _name, _of, _title in (("gm_map", "AP", "Geometric mean average precision"),
                           ("gm_bpref", "bpref", "Geometric mean bpref")):
    register(MetricDef(
        _name, _title, f"{_name} = exp(mean over users of log(max({_of}, 1e-5)))",
        _GEOMETRIC.format(_of, _name), (REL,), cutoff="none",
        bounds=(math.log(MIN_GEO_MEAN), 0.0), summary="geometric",
        reference=_REF.format(_name),
        example=f"{_of} 0.5 and 0.02: per user log 0.5, log 0.02; summary sqrt(0.5 * 0.02) = 0.1",
        compute=_geometric(_name),
    ))
