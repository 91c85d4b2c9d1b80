"""receval against ranx on one random run without tied scores, and on short lists with ties.

A ranx ``Run`` sorts each query with numba's ``np.argsort`` of the negated scores
(``ranx/data_structures/common.py`` ``sort_dict_by_value``); numba's quicksort insertion-sorts
ranges of fewer than 16 rows, so lists of up to 15 items keep tied scores in input order:
``ties="input"`` (and the ``ranx`` preset). Longer lists with ties are not compared.

ranx compiles its numba kernels on first use (tens of seconds on a cold machine, cached on disk
afterwards), so it is called once per module, for every metric at the same time.
"""

from __future__ import annotations

import numpy as np
import pytest

import receval as rv

ranx = pytest.importorskip("ranx")
# numba's compile-time notes about ranx's own casts are not receval's concern
pytestmark = pytest.mark.filterwarnings("ignore:unsafe cast:Warning")

# ranx metric -> receval key
PAIRS = {
    "ndcg@5": "ndcg@5",
    "ndcg@10": "ndcg@10",
    "ndcg": "ndcg",
    "ndcg_burges@10": "ndcg@10(gain=exp)",
    "ndcg_burges": "ndcg(gain=exp)",
    "map": "map",
    "map@5": "map@5",
    "mrr": "mrr",
    "mrr@3": "mrr@3",
    "precision@5": "precision@5",
    "recall@10": "recall@10",
    "hit_rate@3": "hit_rate@3",
    "hits@5": "hits@5",
    "f1@5": "f1@5",
    "r-precision": "r_precision",
    "precision@5-l2": "precision@5(rel=2)",
    "map-l2": "map(rel=2)",
    "mrr-l3": "mrr(rel=3)",
}


def _data(seed: int = 0) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    docs = [f"doc{j}" for j in range(40)]
    run, qrels = {}, {}
    for q in range(40):
        qid = f"q{q:02d}"
        chosen = rng.choice(len(docs), size=int(rng.integers(1, 25)), replace=False)
        scores = rng.permutation(len(chosen)) + rng.random()  # distinct scores: no ties
        run[qid] = {docs[c]: float(s) for c, s in zip(chosen, scores, strict=True)}
        judged = rng.choice(len(docs), size=int(rng.integers(1, 10)), replace=False)
        rels = rng.integers(0, 4, size=len(judged))
        rels[0] = max(int(rels[0]), 3)  # every query has an item of each threshold used
        qrels[qid] = {docs[c]: int(r) for c, r in zip(judged, rels, strict=True)}
    return run, qrels


@pytest.fixture(scope="module")
def ranx_scores() -> tuple[dict, dict, dict]:
    run, qrels = _data()
    r_run, r_qrels = ranx.Run(run), ranx.Qrels(qrels)
    ranx.evaluate(r_qrels, r_run, list(PAIRS), make_comparable=True)
    return run, qrels, {m: dict(r_run.scores[m]) for m in PAIRS}


@pytest.mark.parametrize("ranx_metric", list(PAIRS))
def test_matches_ranx(ranx_scores, ranx_metric):
    run, qrels, scores = ranx_scores
    key = PAIRS[ranx_metric]
    res = rv.evaluate(run, qrels, [key])
    got = dict(zip(res.user_ids, res.user_values(key), strict=True))
    exp = scores[ranx_metric]
    assert set(got) == set(exp)
    for qid, value in exp.items():
        assert got[qid] == pytest.approx(value, rel=1e-9, abs=1e-12), (qid, ranx_metric)


def test_rbp_matches_ranx_on_binary_truth(ranx_scores):
    # ranx's RBP sums the raw relevance grades; with 0/1 judgements it is Moffat & Zobel's RBP
    run, qrels, _ = ranx_scores
    binary = {q: {d: int(r >= 1) for d, r in docs.items()} for q, docs in qrels.items()}
    r_run = ranx.Run(run)
    ranx.evaluate(ranx.Qrels(binary), r_run, ["rbp.8", "rbp.5"], make_comparable=True)
    res = rv.evaluate(run, binary, ["rbp(p=0.8)", "rbp(p=0.5)"])
    for metric, key in (("rbp.8", "rbp(p=0.8)"), ("rbp.5", "rbp(p=0.5)")):
        got = dict(zip(res.user_ids, res.user_values(key), strict=True))
        for qid, value in r_run.scores[metric].items():
            assert got[qid] == pytest.approx(value, rel=1e-9, abs=1e-12), (qid, metric)


def test_bpref_matches_ranx(ranx_scores):
    # ranx returns NaN for a query without judged non-relevant items (it divides by
    # min(R, N) = 0 even when no such item is ranked); receval follows trec_eval there
    run, qrels, _ = ranx_scores
    r_run = ranx.Run(run)
    ranx.evaluate(ranx.Qrels(qrels), r_run, ["bpref"])
    res = rv.evaluate(run, qrels, ["bpref"])
    got = dict(zip(res.user_ids, res.user_values("bpref"), strict=True))
    compared = 0
    for qid, value in r_run.scores["bpref"].items():
        if np.isnan(value):
            assert min(qrels[qid].values()) >= 1, qid
            continue
        compared += 1
        assert got[qid] == pytest.approx(value, rel=1e-9, abs=1e-12), qid
    assert compared >= 10


def _tied_data(seed: int = 1) -> tuple[dict, dict]:
    """Lists of 1 to 15 items, scores from three levels (many ties), in a random input order."""
    rng = np.random.default_rng(seed)
    docs = [f"doc{j}" for j in range(40)]
    run, qrels = {}, {}
    for q in range(60):
        qid = f"q{q:02d}"
        chosen = rng.choice(len(docs), size=int(rng.integers(1, 16)), replace=False)
        scores = rng.integers(0, 3, size=len(chosen)) / 2
        run[qid] = {docs[c]: float(s) for c, s in zip(chosen, scores, strict=True)}
        judged = rng.choice(len(docs), size=int(rng.integers(1, 10)), replace=False)
        rels = rng.integers(0, 4, size=len(judged))
        rels[0] = max(int(rels[0]), 3)
        qrels[qid] = {docs[c]: int(r) for c, r in zip(judged, rels, strict=True)}
    return run, qrels


@pytest.fixture(scope="module")
def ranx_tied_scores() -> tuple[dict, dict, dict]:
    run, qrels = _tied_data()
    r_run, r_qrels = ranx.Run(run), ranx.Qrels(qrels)
    ranx.evaluate(r_qrels, r_run, list(PAIRS), make_comparable=True)
    return run, qrels, {m: dict(r_run.scores[m]) for m in PAIRS}


@pytest.mark.parametrize("ranx_metric", list(PAIRS))
def test_matches_ranx_with_ties_on_short_lists(ranx_tied_scores, ranx_metric):
    run, qrels, scores = ranx_tied_scores
    key = PAIRS[ranx_metric]
    res = rv.evaluate(run, qrels, [key], ties="input")
    got = dict(zip(res.user_ids, res.user_values(key), strict=True))
    assert set(got) == set(scores[ranx_metric])
    for qid, value in scores[ranx_metric].items():
        assert got[qid] == pytest.approx(value, rel=1e-9, abs=1e-12), (qid, ranx_metric)


def test_ties_change_values_here(ranx_tied_scores):
    # the tied data would tell the tie orders apart: ties="id" differs from ranx somewhere
    run, qrels, scores = ranx_tied_scores
    res = rv.evaluate(run, qrels, ["mrr"], ties="id")
    got = dict(zip(res.user_ids, res.user_values("mrr"), strict=True))
    assert any(got[q] != pytest.approx(v, abs=1e-12) for q, v in scores["mrr"].items())


def test_ranx_preset_with_ties_on_short_lists(ranx_tied_scores):
    run, qrels, scores = ranx_tied_scores
    names = ["ndcg@5", "map@5", "mrr", "precision@5", "recall@10"]
    res = rv.evaluate(run, qrels, names, compat="ranx")
    for name in names:
        got = dict(zip(res.user_ids, res.user_values(name), strict=True))
        for qid, value in scores[name].items():
            assert got[qid] == pytest.approx(value, rel=1e-9, abs=1e-12), (qid, name)
