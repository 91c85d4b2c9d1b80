"""The retrieval measures of issue 14 against trec_eval (pytrec_eval), ir_measures and cwl_eval.

- infAP, interpolated precision, the 11-point average and set_map against pytrec_eval
  (trec_eval 9.0.8's C code) on random runs with tied scores;
- the ``unjudged="remove"`` policy against trec_eval's ``-J`` (``judged_docs_only_flag``);
- Judged@k against ir_measures, and the C/W/L measures (INST, INSQ, SDCG, BPM, NERR eq. 8-11,
  RBP) against cwl_eval through ir_measures' cwl_eval provider.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import receval as rv

pytrec_eval = pytest.importorskip("pytrec_eval")

TREC = dict(ties="trec_eval", users="intersection", empty_truth="zero")


def random_trec(rng: np.random.Generator, n_q: int = 8, low: int = 0,
                levels: int = 4, ties: bool = True) -> tuple[dict, dict]:
    docs = [f"d{j}" for j in range(30)]
    run, qrels = {}, {}
    for q in range(n_q):
        qid = f"q{q}"
        chosen = rng.choice(len(docs), size=int(rng.integers(1, 20)), replace=False)
        n_ties = int(rng.integers(2, 8))
        run[qid] = {docs[c]: float(rng.integers(0, n_ties)) / 3 if ties else float(rng.normal())
                    for c in chosen}
        chosen = rng.choice(len(docs), size=int(rng.integers(1, 14)), replace=False)
        qrels[qid] = {docs[c]: int(rng.integers(low, levels)) for c in chosen}
    return run, qrels


def _check(expected: dict, res, pairs: dict[str, str]) -> None:
    users = [str(u) for u in res.user_ids]
    for measure, key in pairs.items():
        col = res.user_values(rv.metrics.parse_metric(key).key)
        for qid, values in expected.items():
            got, exp = col[users.index(qid)], values[measure]
            assert math.isclose(got, exp, rel_tol=1e-9, abs_tol=1e-12), (qid, measure, got, exp)


LEVELS = (0.0, 0.1, 0.3, 0.5, 0.7, 1.0)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", [1, 2])
def test_trec_measures_match_pytrec_eval(seed, level):
    run, qrels = random_trec(np.random.default_rng(seed))
    expected = pytrec_eval.RelevanceEvaluator(
        qrels, {"infAP", "iprec_at_recall", "11pt_avg", "set_map", "set_F", "set_P"},
        relevance_level=level).evaluate(run)
    pairs = {"infAP": f"infap(rel={level})", "11pt_avg": f"iprec_avg(rel={level})",
             "set_map": f"set_map(rel={level})", "set_F": f"f1(rel={level})",
             "set_P": f"precision(rel={level})"}
    for p in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
        pairs[f"iprec_at_recall_{p:.2f}"] = f"iprec(recall={p},rel={level})"
    res = rv.evaluate(run, qrels, list(pairs.values()), **TREC)
    _check(expected, res, pairs)


@pytest.mark.parametrize("seed", range(6))
def test_unjudged_remove_is_trec_eval_minus_J(seed):
    run, qrels = random_trec(np.random.default_rng(100 + seed), low=-1)
    measures = {"map", "P_5", "ndcg_cut_10", "recip_rank", "recall_5", "Rprec", "infAP"}
    expected = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "P.5", "ndcg_cut.10", "recip_rank", "recall.5", "Rprec", "infAP"},
        judged_docs_only_flag=True).evaluate(run)
    pairs = {"map": "map", "P_5": "precision@5", "ndcg_cut_10": "ndcg@10", "recip_rank": "mrr",
             "recall_5": "recall@5", "Rprec": "r_precision", "infAP": "infap"}
    assert set(pairs) == measures
    res = rv.evaluate(run, qrels, list(pairs.values()), negative_rel="drop",
                      unjudged="remove", **TREC)
    _check(expected, res, pairs)
    # without the policy the values differ (unjudged documents count as non-relevant)
    keep = rv.evaluate(run, qrels, ["precision@5"], negative_rel="drop", **TREC)
    assert not np.array_equal(keep.user_values("precision@5"), res.user_values("precision@5"))


def _irm(measures, qrels, run) -> dict:
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl")
    return {(m.query_id, str(m.measure)): m.value
            for m in ir_measures.iter_calc(measures, qrels, run)}


@pytest.mark.parametrize("seed", range(4))
def test_judged_and_cwl_match_ir_measures(seed):
    irm = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl")
    # continuous scores: ir_measures orders tied scores by input order (cwl_eval provider) or
    # by docno ascending (Judged), so ties are left out here
    run, qrels = random_trec(np.random.default_rng(200 + seed), ties=False)
    pairs = {
        irm.Judged @ 5: "judged@5", irm.Judged @ 10: "judged@10", irm.Judged: "judged",
        irm.INST(T=1., max_rel=3): "inst(max_grade=3)",
        irm.INST(T=2., max_rel=3): "inst(T=2,max_grade=3)",
        irm.INSQ(T=2., max_rel=3): "insq(T=2,max_grade=3)",
        irm.SDCG(max_rel=3) @ 5: "sdcg@5(max_grade=3)",
        irm.SDCG(max_rel=3) @ 20: "sdcg@20(max_grade=3)",
        irm.BPM(T=1., max_rel=3) @ 10: "bpm@10(max_grade=3)",
        irm.BPM(T=2., max_rel=3) @ 5: "bpm@5(T=2,max_grade=3)",
        irm.NERR8(max_rel=3) @ 5: "nerr_eq8@5(max_grade=3)",
        irm.NERR9(max_rel=3) @ 5: "nerr_eq9@5(max_grade=3)",
        irm.NERR10(p=0.8, max_rel=3): "nerr_eq10(max_grade=3,phi=0.8)",
        irm.NERR11(T=2., max_rel=3): "nerr_eq11(T=2,max_grade=3)",
    }
    got = _irm(list(pairs), qrels, run)
    res = rv.evaluate(run, qrels, list(pairs.values()), **TREC)
    users = [str(u) for u in res.user_ids]
    n = 0
    for m, key in pairs.items():
        col = res.user_values(rv.metrics.parse_metric(key).key)
        for q in run:
            if (q, str(m)) in got:
                n += 1
                exp, val = got[(q, str(m))], col[users.index(q)]
                assert math.isclose(val, exp, rel_tol=1e-9, abs_tol=1e-12), (q, m, val, exp)
    assert n >= len(pairs) * 4


def test_cwl_outputs_match_cwl_eval():
    """EU, ETU, ETC and ED of cwl_eval's own metric objects (binary gains, RBP and INST)."""
    pytest.importorskip("cwl")
    from cwl.ruler.measures.cwl_inst import INSTCWLMetric
    from cwl.ruler.measures.cwl_rbp import RBPCWLMetric
    from cwl.ruler.ranking import Ranking

    rng = np.random.default_rng(7)
    for _ in range(5):
        gains = rng.integers(0, 2, size=int(rng.integers(1, 15))).astype(float)
        run = {"u": {f"d{i:02d}": float(-i) for i in range(len(gains))}}
        truth = {"u": {f"d{i:02d}": g for i, g in enumerate(gains)}}
        truth["u"]["extra"] = 1.0  # one relevant item that is not retrieved
        for metric_obj, key in ((RBPCWLMetric(0.7), "cwl_rbp(phi=0.7"),
                                (INSTCWLMetric(2.0), "inst(T=2")):
            ranking = Ranking("u", gains, np.ones(len(gains)), max_n=1000)
            metric_obj.measure(ranking)
            eu, etu, _ec, etc, ed = metric_obj.get_scores()
            for out, exp in (("eu", eu), ("etu", etu), ("etc", etc), ("ed", ed)):
                k = f"{key},output={out})" if out != "eu" else key + ")"
                val = rv.evaluate(run, truth, [k])[rv.metrics.parse_metric(k).key]
                assert math.isclose(val, exp, rel_tol=1e-9, abs_tol=1e-12), (k, val, exp)
