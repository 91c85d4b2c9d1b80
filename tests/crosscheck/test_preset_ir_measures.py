"""``compat="ir_measures"`` (its own preset: the qrels' queries): every measure of
ir_measures 0.4.3, written as ir_measures writes it, reproduced with its parameters or refused with the reason.

Worked examples are ir_measures' own (terrierteam/ir_measures ``test/test_pytrec_eval.py``:
``test_NumRet``, ``test_NumQ``, ``test_NumRel``, ``test_Success``, ``test_SetP``, ``test_SetR``,
``test_IPrec``, ``test_infAP``'s AP), with ir_measures' names and parameters.
"""

from __future__ import annotations

import numpy as np
import pytest

import receval as rv
from receval.metrics import parse_metric
from receval.metrics.foreign import IR_MEASURE_NAMES

RUN = {"0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1},
       "1": {"D1": 0.8, "D4": 0.7, "D3": 0.3, "D2": 0.4}}
RUN_B = {"0": RUN["0"], "1": {"D1": 0.8, "D3": 0.7, "D4": 0.3, "D2": 0.4}}
QRELS_SET = {"0": {"D0": 0, "D1": 1, "D2": 2, "D3": 2, "D4": 0},
             "1": {"D0": 1, "D3": 2, "D5": 0}}
QRELS_COUNT = {"0": {"D0": 0, "D1": 1, "D2": 1, "D3": 2, "D4": 0},
               "1": {"D0": 1, "D3": 2, "D5": 2}}
QRELS_IPREC = {"0": {"D0": 1, "D1": 1, "D2": 2, "D3": 2, "D4": 0},
               "1": {"D0": 1, "D3": 2, "D5": 0}}
QRELS_AP = {"0": {"D0": 1, "D1": -1, "D2": 0, "D3": 2, "D4": 0},
            "1": {"D0": 1, "D3": 2, "D4": -1, "D5": 0}}


def _irm(run: dict, qrels: dict, names: list[str], **policies) -> dict[str, float]:
    res = rv.evaluate(run, qrels, names, compat="ir_measures", **policies)
    return {n: float(res[n]) for n in names}


def test_counts():
    got = _irm(RUN_B, QRELS_COUNT, ["NumRet", "NumRelRet", "NumQ"])
    assert got == {"NumRet": 9.0, "NumRelRet": 4.0, "NumQ": 2.0}
    qrels = {**QRELS_COUNT, "1": {"D0": 1, "D3": 2, "D5": 0}}
    assert _irm(RUN_B, qrels, ["NumRel"])["NumRel"] == 5.0


def test_set_measures_and_success():
    got = _irm(RUN, QRELS_SET, ["SetP(rel=1)", "SetP(rel=2)", "SetR(rel=1)", "SetR(rel=2)",
                                "Success@2", "Success(rel=2)@2"])
    assert got["SetP(rel=1)"] == 0.425
    assert got["SetP(rel=2)"] == pytest.approx(0.325, rel=1e-15)
    assert got["SetR(rel=1)"] == 0.75
    assert got["SetR(rel=2)"] == 1.0
    assert got["Success@2"] == got["Success(rel=2)@2"] == 0.5


def test_iprec_at_sets_the_recall_level():
    got = _irm(RUN, QRELS_IPREC, ["IPrec@0.25", "IPrec@0.5", "IPrec@0.75",
                                  "IPrec(rel=2)@0.1", "IPrec(rel=2)@0.75"])
    assert got["IPrec@0.25"] == got["IPrec@0.5"] == 0.625
    assert got["IPrec@0.75"] == 0.5
    assert got["IPrec(rel=2)@0.1"] == got["IPrec(rel=2)@0.75"] == pytest.approx(
        (2 / 3 + 1 / 4) / 2, rel=1e-15)


def test_ap_with_pooled_unjudged_rows():
    got = _irm(RUN, QRELS_AP, ["AP", "AP(rel=2)", "MAP"])
    assert got["AP"] == got["MAP"] == pytest.approx((5 / 6 + 1 / 8) / 2, rel=1e-15)
    assert got["AP(rel=2)"] == pytest.approx((1 / 3 + 1 / 4) / 2, rel=1e-15)


def test_parameters_map_to_receval_parameters():
    assert parse_metric("nDCG(dcg='exp-log2')@10").key == "ndcg@10(gain=exp)"
    assert parse_metric("SetP(relative=True)").key == "precision(denominator=min_k_rel)"
    assert parse_metric("RBP(p=0.5,rel=2)").key == "rbp(p=0.5,rel=2)"
    assert parse_metric("NERR10(max_rel=3)").key == "nerr_eq10(max_grade=3,phi=0.9)"
    assert parse_metric("INST(T=2.0,max_rel=3)").key == "inst(T=2,max_grade=3)"
    # gdeval's ERR divides by 2^4 whatever the grades: under the preset
    specs, _, _ = rv.compat.resolve("ir_measures", ["ERR@10"])
    assert [s.key for s in specs] == ["err@10(max_grade=4)"]


def test_cutoff_parameter_is_the_cutoff():
    got = _irm(RUN, QRELS_SET, ["P(cutoff=2)", "P@2", "nDCG(cutoff=3)", "nDCG@3"])
    assert got["P(cutoff=2)"] == got["P@2"] == (1 / 2 + 0) / 2
    assert got["nDCG(cutoff=3)"] == got["nDCG@3"]
    with pytest.raises(rv.MetricError, match="two cutoffs"):
        parse_metric("P(cutoff=5)@3")


def test_judged_only_is_the_unjudged_remove_policy():
    """judged_only=True drops the unjudged documents (trec_eval -J): under the preset it asks
    for unjudged='remove'; outside a preset it names that policy."""
    got = _irm(RUN, QRELS_SET, ["P@2(judged_only=True)"])["P@2(judged_only=True)"]
    want = rv.evaluate(RUN, QRELS_SET, ["precision@2"], compat="ir_measures",
                       unjudged="remove")["precision@2"]
    assert got == float(want)
    run = {"0": {"X": 0.9, "D3": 0.5}}  # query 1 of the qrels is not in the run: it scores 0
    assert _irm(run, QRELS_SET, ["P@1(judged_only=True)"])["P@1(judged_only=True)"] == 0.5
    assert _irm(run, QRELS_SET, ["P@1(judged_only=True)"], users="intersection")[
        "P@1(judged_only=True)"] == 1.0
    assert _irm(run, QRELS_SET, ["P@1(judged_only=False)"])["P@1(judged_only=False)"] == 0.0
    with pytest.raises(rv.MetricError, match="unjudged='remove'"):
        parse_metric("P(judged_only=True)@5")


@pytest.mark.parametrize(("key", "words"), [
    ("nDCG(dcg='exp')@5", "accepted values are exp-log2, log2"),
    ("SetP(relative=maybe)", "accepted values are false, true"),
    ("P(beta=2)@5", "no parameter 'beta'"),
    ("SDCG(min_rel=1,max_rel=3)@5", "accepted values are 0")])
def test_bad_parameters_are_refused_naming_them(key, words):
    with pytest.raises(rv.MetricError, match=words):
        rv.evaluate(RUN, QRELS_SET, [key], compat="ir_measures")


@pytest.mark.parametrize("name", sorted(n for n, e in IR_MEASURE_NAMES.items() if e.refused))
def test_refused_measures_say_why(name):
    with pytest.raises(rv.MetricError) as err:
        rv.evaluate(RUN, QRELS_SET, [name], compat="ir_measures")
    assert IR_MEASURE_NAMES[name].refused in str(err.value)


# one query, subtopics {a, b}; d1 is relevant to a, d2 to a and b (pyndeval's tuple order)
INTENTS = [("q", "a", "d1", 1), ("q", "a", "d2", 1), ("q", "b", "d2", 1)]
DIV_RUN = {"q": {"d1": 2.0, "d2": 1.0}}
DIV_TRUTH = {"q": {"d1": 1, "d2": 1}}


def test_intent_aware_measures_read_the_subtopic_qrels():
    # alpha-DCG@2, ndeval's ideal-ideal normalisation (A = 2 subtopics, alpha = 0.5):
    # gains 1 (d1: a) and 0.5 + 1 (d2: a seen once, b new)
    log3 = float(np.log2(3.0))
    want = (1 + 1.5 / log3) / (2 * (1 + 0.5 / log3))
    res = rv.evaluate(DIV_RUN, DIV_TRUTH, ["alpha_DCG@2", "alpha_nDCG@2", "StRecall@1"],
                      compat="ir_measures", intents=INTENTS)
    assert float(res["alpha_DCG@2"]) == pytest.approx(want, abs=1e-15)
    # the greedy ideal puts d2 first: (2 + 0.5 / log2 3); StRecall@1: d1 covers a of {a, b}
    assert float(res["alpha_nDCG@2"]) == pytest.approx((1 + 1.5 / log3) / (2 + 0.5 / log3),
                                                       abs=1e-15)
    assert float(res["StRecall@1"]) == 0.5
    # ndeval's value at rank 1 is undivided (rank1='ndeval'): 1 / 1, not 1 / 2
    at1 = rv.evaluate(DIV_RUN, DIV_TRUTH, ["ERR_IA@1"], compat="ir_measures", intents=INTENTS)
    own = rv.evaluate(DIV_RUN, DIV_TRUTH, ["err_ia@1", "err_ia@1(rank1=ndeval)"],
                      intents=INTENTS)
    assert float(at1["ERR_IA@1"]) == float(own["err_ia@1(rank1=ndeval)"]) == 1.0
    assert float(own["err_ia@1"]) == 0.5


def test_intent_aware_measures_name_what_is_missing():
    with pytest.raises(rv.InputError, match="intents="):
        rv.evaluate(DIV_RUN, DIV_TRUTH, ["alpha_nDCG@5"], compat="ir_measures")
    with pytest.raises(rv.MetricError, match="judged_only='maybe'"):
        rv.evaluate(DIV_RUN, DIV_TRUTH, ["P_IA@5(judged_only=maybe)"], compat="ir_measures",
                    intents=INTENTS)
    # the pyndeval provider orders tied scores by docno ascending, not trec_eval's way
    with pytest.raises(rv.MetricError, match="pyndeval"):
        rv.evaluate(DIV_RUN, DIV_TRUTH, ["alpha_nDCG@5"], compat="ir_measures", strict=True,
                    intents=INTENTS)


def test_intent_aware_measures_against_ir_measures():
    """ir_measures' pyndeval provider reads the subtopic from the qrels' iteration field;
    receval reads the same frame as intents= (distinct scores: no tie order involved)."""
    irm = pytest.importorskip("ir_measures")
    pytest.importorskip("pyndeval")
    import pandas as pd

    rng = np.random.default_rng(8)
    rows, run = [], []
    for q in range(8):
        for d in range(12):
            for s in range(1 + q % 3):
                if rng.random() < 0.35:
                    rows.append((f"q{q}", str(s), f"d{d:02d}", int(rng.integers(0, 3))))
        docs = rng.choice(15, size=int(rng.integers(1, 12)), replace=False)
        run += [(f"q{q}", f"d{d:02d}", float(i)) for i, d in enumerate(docs)]
    qrels = pd.DataFrame(rows, columns=["query_id", "iteration", "doc_id", "relevance"])
    run_frame = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    truth = qrels.groupby(["query_id", "doc_id"], as_index=False)["relevance"].max()
    for m in (irm.alpha_nDCG @ 5, irm.alpha_nDCG(alpha=0.3) @ 10, irm.alpha_DCG @ 3,
              irm.ERR_IA @ 1, irm.nERR_IA @ 10, irm.P_IA(rel=2) @ 5, irm.StRecall @ 3,
              irm.NRBP(beta=0.8), irm.AP_IA):
        want = irm.calc_aggregate([m], qrels, run_frame)[m]  # one a call: pyndeval's globals
        got = rv.evaluate(run_frame, truth, [str(m)], compat="ir_measures", intents=qrels)
        assert float(got[str(m)]) == pytest.approx(want, abs=1e-12), str(m)


def test_every_registered_measure_is_an_entry():
    irm = pytest.importorskip("ir_measures")
    registered = {n.lower() for n in irm.measures.registry if n.isascii()}
    assert registered <= set(IR_MEASURE_NAMES)


def test_against_ir_measures():
    """ir_measures' mean measures average over the queries of the qrels (users='truth', its
    counts over both, the preset's policy); tied scores are left out (providers differ)."""
    irm = pytest.importorskip("ir_measures")
    rng = np.random.default_rng(3)
    run, qrels = {}, {}
    for q in range(10):
        docs = rng.choice(20, size=int(rng.integers(2, 12)), replace=False)
        run[f"q{q}"] = {f"d{d:02d}": float(s) for d, s in
                        zip(docs, rng.permutation(len(docs)), strict=True)}
        judged = rng.choice(20, size=6, replace=False)
        qrels[f"q{q}"] = {f"d{d:02d}": int(g) for d, g in
                          zip(judged, rng.integers(0, 4, size=6), strict=True)}
    qrels["only_qrels"] = {"d01": 1}
    means = [irm.P @ 5, irm.P(rel=2) @ 3, irm.R @ 10, irm.AP, irm.AP @ 5, irm.nDCG,
             irm.nDCG @ 10, irm.RR, irm.RR @ 3, irm.Rprec, irm.Bpref, irm.infAP,
             irm.Success @ 1, irm.SetP, irm.SetRelP, irm.SetR, irm.SetF, irm.SetAP,
             irm.IPrec @ 0.3, irm.Judged @ 5, irm.P(judged_only=True) @ 5]
    for m in means:
        name = str(m).replace("P(judged_only=True)@5", "P@5(judged_only=True)")
        got = _irm(run, qrels, [name])[name]  # the preset's users='truth
        assert got == pytest.approx(irm.calc_aggregate([m], qrels, run)[m], rel=1e-12), name
    for m in (irm.NumRet, irm.NumRel, irm.NumRelRet, irm.NumQ):
        name = "NumRelRet" if m == irm.NumRelRet else str(m)
        # pytrec_eval's counts: the queries of both (the preset's notes)
        got = _irm(run, qrels, [name], users="intersection")[name]
        assert got == irm.calc_aggregate([m], qrels, run)[m]
