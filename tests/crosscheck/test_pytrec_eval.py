"""receval against pytrec_eval (trec_eval's C code) on random runs with tied scores.

Matching parameters: ``ties="trec_eval"`` (score as C float descending, then docno
descending), ``users="intersection"`` (trec_eval scores the queries present in both),
``negative_rel="zero"`` (negative judgements are judged non-relevant) and
``empty_truth="zero"`` (a query with no relevant document scores 0 and is counted).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTS = (1, 3, 5, 10)
MEASURES = {"map", "map_cut", "P", "recall", "ndcg", "ndcg_cut", "recip_rank", "Rprec", "bpref",
            "success", "num_rel_ret", "num_rel", "num_ret"}


def _pairs() -> dict[str, str]:
    """pytrec_eval measure name -> receval key."""
    out = {"map": "map", "ndcg": "ndcg", "recip_rank": "mrr", "Rprec": "r_precision",
           "bpref": "bpref", "num_rel_ret": "hits", "num_rel": "num_rel", "num_ret": "num_ret"}
    for k in CUTS:
        out[f"map_cut_{k}"] = f"map@{k}"
        out[f"P_{k}"] = f"precision@{k}"
        out[f"recall_{k}"] = f"recall@{k}"
        out[f"ndcg_cut_{k}"] = f"ndcg@{k}"
        out[f"success_{k}"] = f"hit_rate@{k}"
    return out


PAIRS = _pairs()
CUT_PARAMS = {f"{m}.{','.join(map(str, CUTS))}" for m in ("map_cut", "P", "recall", "ndcg_cut",
                                                            "success")}


def compare(run: dict, qrels: dict) -> None:
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "ndcg", "recip_rank", "Rprec", "bpref", "num_rel_ret", "num_rel",
                "num_ret"} | CUT_PARAMS)
    expected = evaluator.evaluate(run)
    res = rv.evaluate(run, qrels, list(PAIRS.values()), ties="trec_eval",
                      users="intersection", negative_rel="zero", empty_truth="zero")
    users = [str(u) for u in res.user_ids]
    assert sorted(users) == sorted(expected)
    # trec_eval's bpref treats a negative judgement as "not in the pool" (neither relevant nor
    # judged non-relevant); dropping those rows reproduces it (see test_bpref_negative_judgements)
    judged = {q: {d: r for d, r in docs.items() if r >= 0} for q, docs in qrels.items()}
    res_bpref = rv.evaluate(run, judged, ["bpref"], ties="trec_eval", users="intersection",
                            empty_truth="zero")
    bpref = dict(zip(map(str, res_bpref.user_ids), res_bpref.user_values("bpref"), strict=True))
    for measure, key in PAIRS.items():
        col = res.user_values(key)
        for qid, values in expected.items():
            got, exp = col[users.index(qid)], values[measure]
            if measure == "bpref":
                got = bpref.get(qid, 0.0)  # a query whose judgements are all negative: 0
            assert math.isclose(got, exp, rel_tol=1e-9, abs_tol=1e-12), (qid, measure, got, exp)


def random_trec(rng: np.random.Generator, n_q: int = 8) -> tuple[dict, dict]:
    docs = [f"d{j}" for j in range(30)]  # d1 < d10 < d2 as strings: trec_eval uses strcmp
    run, qrels = {}, {}
    for q in range(n_q):
        qid = f"q{q}"
        if q != 0:  # q0: judged only
            chosen = rng.choice(len(docs), size=int(rng.integers(1, 20)), replace=False)
            levels = rng.integers(2, 8)
            run[qid] = {docs[c]: float(rng.integers(0, levels)) / 3 for c in chosen}
        if q != 1:  # q1: retrieved only
            chosen = rng.choice(len(docs), size=int(rng.integers(0, 12)), replace=False)
            qrels[qid] = {docs[c]: int(rng.integers(-1, 4)) for c in chosen}
    return run, qrels


@pytest.mark.parametrize("seed", range(6))
def test_random_runs_match_pytrec_eval(seed):
    run, qrels = random_trec(np.random.default_rng(seed))
    compare(run, qrels)


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["q1", "q2", "q3"]),
        st.dictionaries(st.sampled_from([f"d{i}" for i in range(12)]),
                        st.sampled_from([0.0, 0.25, 0.5, 1.0, 1e-8, 2.0]), min_size=1,
                        max_size=10),
        min_size=1),
    st.dictionaries(
        st.sampled_from(["q1", "q2", "q3"]),
        st.dictionaries(st.sampled_from([f"d{i}" for i in range(12)]),
                        st.integers(-1, 3), min_size=1, max_size=8),
        min_size=1),
)
def test_hypothesis_matches_pytrec_eval(run, qrels):
    # (pytrec_eval crashes on a query with an empty ranking, so every ranking has a document)
    if not set(run) & set(qrels):
        return
    compare(run, qrels)


def test_float32_ties_like_trec_eval():
    # 0.1 + 1e-9 and 0.1 are the same C float: trec_eval breaks the tie on docno (descending)
    run = {"q": {"a": 0.1 + 1e-9, "b": 0.1, "c": 0.05}}
    qrels = {"q": {"a": 1}}
    compare(run, qrels)
    res = rv.evaluate(run, qrels, ["mrr"], ties="trec_eval")
    assert res["mrr"] == 1 / 2
    assert rv.evaluate(run, qrels, ["mrr"])["mrr"] == 1.0  # default: exact scores


def test_frames_and_dicts_agree():
    run, qrels = random_trec(np.random.default_rng(42))
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    trows = [(q, d, r) for q, docs in qrels.items() for d, r in docs.items()]
    frame = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    tframe = pd.DataFrame(trows, columns=["qid", "docno", "rel"])
    kw = {"ties": "trec_eval", "users": "intersection", "negative_rel": "zero",
          "empty_truth": "zero"}
    a = rv.evaluate(run, qrels, list(PAIRS.values()), **kw)
    b = rv.evaluate(frame, tframe, list(PAIRS.values()), **kw)
    assert list(a.user_ids) == list(b.user_ids)
    np.testing.assert_array_equal(a.values, b.values)


def test_bpref_negative_judgements():
    # trec_eval's bpref treats a negative judgement as unjudged: negative_rel="drop"
    run = {"q": {"n": 3.0, "a": 2.0, "m": 1.0}}
    qrels = {"q": {"a": 1, "n": -1, "m": 0, "z": 1}}
    exp = pytrec_eval.RelevanceEvaluator(qrels, {"bpref"}).evaluate(run)["q"]["bpref"]
    assert exp == 1 / 2  # 'n' is ignored: 'a' has no judged non-relevant item above it
    res = rv.evaluate(run, qrels, ["bpref"], ties="trec_eval", negative_rel="drop")
    assert res["bpref"] == exp
