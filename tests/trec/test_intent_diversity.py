"""Intent-aware diversity measures (receval.trec.diversity): worked examples by hand, a slow
oracle written from the papers' formulas against the fast path, blocks == in memory, inputs
and refusals. pyndeval itself is compared in benchmarks/peers/check_ndeval.py."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.engines import plugins
from receval.errors import InputError, MetricError, RelevanceThresholdWarning
from receval.trec.diversity import as_intents


def test_the_intent_options_are_listed():
    assert {"intents", "intent_weights"} <= set(plugins.OPTION_NAMES)


# pyndeval's documented example (seanmacavaney/pyndeval tests/test_pyndeval.py)
QRELS = pd.DataFrame({"query": ["0"] * 4, "subtopic": ["a", "b", "b", "c"],
                      "doc": ["A", "B", "D", "C"], "relevance": [1, 1, 1, 1]})
RUN = pd.DataFrame({"query": ["0"] * 4, "doc": ["A", "D", "E", "B"],
                    "score": [9.3, 8.4, 8.1, 7.6]})
TRUTH = QRELS.groupby(["query", "doc"], as_index=False)["relevance"].max()


def lg(r: int) -> float:  # log2(r + 1) of a 1-based rank
    return math.log2(r + 1)


def one(keys, run=RUN, intents=QRELS, truth=TRUTH, **kw):
    res = rv.evaluate(run, truth, keys, intents=intents, **kw)
    return {k: float(res.per_user[k].iloc[0]) for k in res.per_user.columns}


def test_pyndeval_example_by_hand():
    # run A(a), D(b), E(unjudged), B(b): gains 1, 1, 0, 0.5 (b seen once); A = 3 subtopics.
    # greedy ideal: all tie at 1 -> largest id D(b); then A, C tie at 1 -> C; then A; then B.
    v = one(["alpha_dcg@5", "alpha_ndcg@5", "err_ia@5", "nerr_ia@5", "nrbp", "nnrbp",
             "p_ia@5", "strec@5", "ap_ia", "alpha_ndcg@2", "strec@1"])
    dcg = 1 + 1 / lg(2) + 0.5 / lg(4)
    assert v["alpha_dcg@5"] == pytest.approx(
        dcg / (3 * sum(0.5 ** r / lg(r + 1) for r in range(5))), rel=1e-14)
    assert v["alpha_ndcg@5"] == pytest.approx(dcg / (1 + 1 / lg(2) + 1 / lg(3) + 0.5 / lg(4)),
                                              rel=1e-14)
    err = 1 + 1 / 2 + 0.5 / 4
    assert v["err_ia@5"] == pytest.approx(err / (3 * sum(0.5 ** r / (r + 1) for r in range(5))),
                                          rel=1e-14)
    assert v["nerr_ia@5"] == pytest.approx(err / (1 + 1 / 2 + 1 / 3 + 0.5 / 4), rel=1e-14)
    assert v["nrbp"] == pytest.approx(0.75 / 3 * (1 + 0.5 + 0.125 * 0.5), rel=1e-14)
    assert v["nnrbp"] == pytest.approx((1 + 0.5 + 0.125 * 0.5) / (1 + 0.5 + 0.25 + 0.125 * 0.5),
                                       rel=1e-14)
    assert v["p_ia@5"] == pytest.approx(3 / 15, rel=1e-15)
    assert v["strec@5"] == pytest.approx(2 / 3, rel=1e-15)
    assert v["strec@1"] == pytest.approx(1 / 3, rel=1e-15)
    # AP per subtopic: a 1/1; b (1/2 + 2/4) / 2; c 0
    assert v["ap_ia"] == pytest.approx((1 + 0.5 + 0) / 3, rel=1e-15)
    assert v["alpha_ndcg@2"] == pytest.approx((1 + 1 / lg(2)) / (1 + 1 / lg(2)), rel=1e-15)
    # pyndeval's documented values (4 decimals)
    for key, ref in (("err_ia@5", 0.3933), ("nerr_ia@5", 0.8297), ("alpha_dcg@5", 0.4052),
                     ("alpha_ndcg@5", 0.7868), ("nrbp", 0.3906), ("nnrbp", 0.8620),
                     ("ap_ia", 0.5), ("p_ia@5", 0.2), ("strec@5", 0.6666)):
        assert abs(v[key] - ref) < 1e-4, key


def test_greedy_ideal_breaks_ties_to_the_largest_id():
    # d4, d0 cover a..d (gains 4, 2); then d1 {a,b}, d2 {c,d}, d3 {b,c} tie at 0.5: d3 (largest
    # id) is placed, leaving d2 and d1 at 0.25 + 0.125 = 0.375 each (ndeval's idealResult);
    # ties to the smallest id would place d1, then d2 at 0.5 and d3 at 0.25
    judg = {"d0": "abcd", "d1": "ab", "d2": "cd", "d3": "bc", "d4": "abcd"}
    intents = pd.DataFrame([("0", d, s, 1) for d, ss in judg.items() for s in ss],
                           columns=["query", "doc", "subtopic", "relevance"])
    run = pd.DataFrame({"query": "0", "doc": ["d1", "d2", "d3"], "score": [3.0, 2.0, 1.0]})
    truth = intents.groupby(["query", "doc"], as_index=False)["relevance"].max()
    v = one(["alpha_ndcg@5", "nnrbp"], run=run, intents=intents, truth=truth)
    run_gains = [2, 2, 1]  # d1 {a,b}, d2 {c,d}, d3 {b,c}: b and c seen once
    ideal = [4, 2, 0.5, 0.375, 0.375]
    dcg = sum(g / lg(r + 1) for r, g in enumerate(run_gains))
    assert v["alpha_ndcg@5"] == pytest.approx(dcg / sum(g / lg(r + 1)
                                                         for r, g in enumerate(ideal)), rel=1e-14)
    other = [4, 2, 0.5, 0.5, 0.25]
    assert v["alpha_ndcg@5"] != pytest.approx(dcg / sum(g / lg(r + 1)
                                                         for r, g in enumerate(other)), rel=1e-9)
    assert v["nnrbp"] == pytest.approx(sum(g * 0.5 ** r for r, g in enumerate(run_gains))
                                       / sum(g * 0.5 ** r for r, g in enumerate(ideal)), rel=1e-14)


def test_rank1_as_ndeval_prints_it():
    v = one(["alpha_dcg@1", "alpha_dcg@1(rank1=ndeval)", "err_ia@1(rank1=ndeval)",
             "err_ia@1", "alpha_ndcg@1"])
    assert v["alpha_dcg@1"] == pytest.approx(1 / 3, rel=1e-15)
    assert v["alpha_dcg@1(rank1=ndeval)"] == 1.0  # ndeval leaves rank 1 undivided
    assert v["err_ia@1(rank1=ndeval)"] == 1.0 and v["err_ia@1"] == pytest.approx(1 / 3)
    assert v["alpha_ndcg@1"] == 1.0


def test_graded_judgments_are_binary_at_rel():
    graded = QRELS.assign(relevance=[2, 1, 3, 2])
    v1 = one(["alpha_ndcg@5", "p_ia@5"], intents=graded)
    v0 = one(["alpha_ndcg@5", "p_ia@5"])
    assert v1 == v0  # relevance >= 1: the same as binary judgments
    v2 = one(["alpha_ndcg@5(rel=2)", "strec@5(rel=2)", "p_ia@5(rel=2)"], intents=graded,
             truth=graded.groupby(["query", "doc"], as_index=False)["relevance"].max())
    # rel=2: a (A), b (D), c (C) relevant, B not; run A, D, E, B: gains 1, 1, 0, 0
    assert v2["strec@5(rel=2)"] == pytest.approx(2 / 3)
    assert v2["p_ia@5(rel=2)"] == pytest.approx(2 / 15)
    assert v2["alpha_ndcg@5(rel=2)"] == pytest.approx((1 + 1 / lg(2)) / (1 + 1 / lg(2)
                                                                          + 1 / lg(3)))


def test_one_subtopic_and_no_relevant_query():
    intents = pd.DataFrame({"query": ["x", "x", "y"], "subtopic": [0, 0, 0],
                            "doc": ["p", "q", "p"], "relevance": [1, 1, 0]})
    run = pd.DataFrame({"query": ["x", "x", "y"], "doc": ["q", "r", "p"], "score": [2, 1, 1]})
    truth = pd.DataFrame({"query": ["x", "x", "y"], "doc": ["p", "q", "p"],
                          "relevance": [1, 1, 0]})
    res = rv.evaluate(run, truth, ["alpha_ndcg@3", "nnrbp", "ap_ia", "err_ia@3"],
                      intents=intents)
    pu = res.per_user
    # x: one subtopic, q at rank 1 (gain 1), ideal q, p: gains 1, 0.5
    assert pu.loc["x", "alpha_ndcg@3"] == pytest.approx(1 / (1 + 0.5 / lg(2)), rel=1e-15)
    assert pu.loc["x", "ap_ia"] == pytest.approx(1 / 2, rel=1e-15)
    # y: no relevant document: 0, and nNRBP undefined (ndeval's 0 / 0)
    assert pu.loc["y", "alpha_ndcg@3"] == 0.0 and pu.loc["y", "err_ia@3"] == 0.0
    assert math.isnan(pu.loc["y", "nnrbp"])


def test_intent_weights():
    weights = {"0": {"a": 2.0, "b": 1.0, "c": 1.0}}  # renormalised: .5, .25, .25
    v = one(["p_ia@5", "strec@5", "ap_ia", "alpha_dcg@5", "nrbp"], intent_weights=weights)
    assert v["p_ia@5"] == pytest.approx((0.5 * 1 + 0.25 * 2) / 5, rel=1e-15)
    assert v["strec@5"] == pytest.approx(0.75, rel=1e-15)
    assert v["ap_ia"] == pytest.approx(0.5 * 1 + 0.25 * 0.5, rel=1e-15)
    gains = [0.5, 0.25, 0.0, 0.125]
    assert v["alpha_dcg@5"] == pytest.approx(
        sum(g / lg(r + 1) for r, g in enumerate(gains))
        / sum(0.5 ** r / lg(r + 1) for r in range(5)), rel=1e-14)
    assert v["nrbp"] == pytest.approx(0.75 * sum(g * 0.5 ** r for r, g in enumerate(gains)),
                                      rel=1e-14)
    uniform = one(["p_ia@5", "alpha_ndcg@5", "ap_ia"],
                  intent_weights={"0": {"a": 1, "b": 1, "c": 1}})
    plain_ = one(["p_ia@5", "alpha_ndcg@5", "ap_ia"])
    for k in uniform:
        assert uniform[k] == pytest.approx(plain_[k], rel=1e-14)
    with pytest.raises(InputError, match="no weight"):
        one(["p_ia@5"], intent_weights={"0": {"a": 1.0}})


def test_ndeval_qrels_file(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("1 1 A 1\n1 2 B 1\n1 2 D 1\n1 3 C 1\n")
    run = RUN.assign(query="1")
    truth = TRUTH.assign(query="1")
    from_file = one(["alpha_ndcg@5", "nrbp", "ap_ia"], run=run, truth=truth, intents=str(path))
    assert from_file == one(["alpha_ndcg@5", "nrbp", "ap_ia"])


def test_refusals():
    with pytest.raises(InputError, match="intents="):
        rv.evaluate(RUN, TRUTH, ["alpha_ndcg@5"])
    with pytest.raises(InputError, match="twice"):
        one(["alpha_ndcg@5"], intents=pd.concat([QRELS, QRELS.iloc[:1]]))
    with pytest.raises(MetricError, match="alpha"):
        one(["alpha_ndcg@5(alpha=2)"])
    with pytest.raises(InputError, match="same id type"):
        one(["alpha_ndcg@5"], intents=QRELS.assign(query=7))
    with pytest.raises(MetricError, match="cutoff"):
        one(["nrbp@5"])


# -------------------------------------------------------------------------------------------------
# A slow oracle from the papers' formulas (per query, plain Python)


def oracle(judg: dict, ranking: list, alpha: float, beta: float, k: int,
           weights: dict | None) -> dict:
    """``judg``: {doc: set(subtopics)} (relevant ones); ``ranking``: the run's documents."""
    subs = sorted({s for ss in judg.values() for s in ss})
    a = len(subs)
    w = {s: (weights[s] / sum(weights[t] for t in subs) if weights else 1.0) for s in subs}
    div = 1.0 if weights else float(a)

    def gains(docs):
        seen = dict.fromkeys(subs, 0)
        out = []
        for d in docs:
            g = 0.0
            for s in subs:
                if s in judg.get(d, ()):
                    g += w[s] * (1 - alpha) ** seen[s]
                    seen[s] += 1
            out.append(g)
        return out

    # greedy ideal: largest gain, ties to the largest document id
    left, ideal_docs, seen = dict(judg), [], dict.fromkeys(subs, 0)
    while left:
        best = max(left, key=lambda d: (sum(w[s] * (1 - alpha) ** seen[s] for s in left[d]), d))
        for s in left.pop(best):
            seen[s] += 1
        ideal_docs.append(best)
    run_g, ideal_g = gains(ranking), gains(ideal_docs)
    out = {}
    if not a:
        return dict.fromkeys(("alpha_dcg", "alpha_ndcg", "err_ia", "nerr_ia", "nrbp", "p_ia",
                              "strec", "ap_ia"), 0.0) | {"nnrbp": float("nan")}
    dcg = sum(g / math.log2(r + 2) for r, g in enumerate(run_g[:k]))
    idcg = sum(g / math.log2(r + 2) for r, g in enumerate(ideal_g[:k]))
    out["alpha_dcg"] = dcg / (div * sum((1 - alpha) ** r / math.log2(r + 2) for r in range(k)))
    out["alpha_ndcg"] = dcg / idcg if dcg else 0.0
    err = sum(g / (r + 1) for r, g in enumerate(run_g[:k]))
    ierr = sum(g / (r + 1) for r, g in enumerate(ideal_g[:k]))
    out["err_ia"] = err / (div * sum((1 - alpha) ** r / (r + 1) for r in range(k)))
    out["nerr_ia"] = err / ierr if err else 0.0
    scale = 1 - (1 - alpha) * beta
    out["nrbp"] = scale / div * sum(g * beta ** r for r, g in enumerate(run_g))
    out["nnrbp"] = out["nrbp"] / (scale / div * sum(g * beta ** r for r, g in enumerate(ideal_g)))
    top = ranking[:k]
    out["p_ia"] = sum(w[s] * sum(s in judg.get(d, ()) for d in top) for s in subs) / (k * div)
    out["strec"] = sum(w[s] for s in subs if any(s in judg.get(d, ()) for d in top)) / div
    ap = 0.0
    for s in subs:
        nrel = sum(s in ss for ss in judg.values())
        hits, total = 0, 0.0
        for r, d in enumerate(ranking):
            if s in judg.get(d, ()):
                hits += 1
                total += hits / (r + 1)
        ap += w[s] * total / nrel
    out["ap_ia"] = ap / div
    return out


DOCS = [f"d{i}" for i in range(8)]


@st.composite
def cases(draw):
    queries = []
    for q in range(draw(st.integers(1, 4))):
        n_sub = draw(st.integers(1, 4))
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))
        rows = [(f"q{q}", d, f"s{s}", draw(st.integers(0, 2)))
                for d in judged for s in range(n_sub) if draw(st.booleans())]
        rows = rows or [(f"q{q}", judged[0], "s0", draw(st.integers(0, 2)))]
        ranking = draw(st.lists(st.sampled_from(DOCS), max_size=7, unique=True))
        queries.append((rows, ranking))
    alpha = draw(st.sampled_from([0.5, 0.25, 0.8, 1.0]))
    beta = draw(st.sampled_from([0.5, 0.9]))
    k = draw(st.integers(1, 8))
    weighted = draw(st.booleans())
    return queries, alpha, beta, k, weighted


@settings(max_examples=60, deadline=None)
@given(cases())
def test_fast_path_matches_the_oracle(case):
    queries, alpha, beta, k, weighted = case
    rows = [r for rows, _ in queries for r in rows]
    if not rows:
        return
    intents = pd.DataFrame(rows, columns=["query", "doc", "subtopic", "relevance"])
    run = pd.DataFrame([(f"q{q}", d, float(len(rk) - i)) for q, (_, rk) in enumerate(queries)
                        for i, d in enumerate(rk)], columns=["query", "doc", "score"]) \
        .astype({"query": object, "doc": object, "score": np.float64})
    truth = intents.groupby(["query", "doc"], as_index=False)["relevance"].max()
    weights = {f"q{q}": {f"s{s}": 1.0 + (q + 3 * s) % 4 for s in range(4)}
               for q in range(len(queries))} if weighted else None
    keys = [f"alpha_dcg@{k}(alpha={alpha})", f"alpha_ndcg@{k}(alpha={alpha})",
            f"err_ia@{k}(alpha={alpha})", f"nerr_ia@{k}(alpha={alpha})",
            f"nrbp(alpha={alpha},beta={beta})", f"nnrbp(alpha={alpha},beta={beta})",
            f"p_ia@{k}", f"strec@{k}", "ap_ia"]
    keys = [rv.metrics.canonical_key(key) for key in keys]
    if run.empty:
        return
    with warnings.catch_warnings():  # all-zero judgments: the engine warns, values stay defined
        warnings.simplefilter("ignore", RelevanceThresholdWarning)
        res = rv.evaluate(run, truth, keys, intents=intents, intent_weights=weights)
    compared = 0
    for q, (qrows, ranking) in enumerate(queries):
        qid = f"q{q}"
        if qid not in res.per_user.index:
            continue
        compared += 1
        judg = {}
        for _, d, s, rel in qrows:
            judg.setdefault(d, set())
            if rel >= 1:
                judg[d].add(s)
        judg = {d: ss for d, ss in judg.items() if ss}
        exp = oracle(judg, ranking, alpha, beta, k, weights[qid] if weights else None)
        for key in keys:
            name = key.split("@")[0].split("(")[0]
            got = res.per_user.loc[qid, key]
            if math.isnan(exp[name]):
                assert math.isnan(got), (qid, key)
            else:
                assert got == pytest.approx(exp[name], rel=1e-12, abs=1e-14), (qid, key)
    assert compared


def test_blocks_equal_in_memory():
    rng = np.random.default_rng(5)
    rows, run = [], []
    for q in range(30):
        for d in rng.choice(40, 12, replace=False):
            for s in range(int(rng.integers(1, 5))):
                rows.append((f"q{q}", f"d{d}", s, int(rng.integers(0, 3))))
        for d in rng.choice(50, int(rng.integers(0, 30)), replace=False):
            run.append((f"q{q}", f"d{d}", float(rng.integers(0, 5))))
    intents = pd.DataFrame(rows, columns=["query", "doc", "subtopic", "relevance"]) \
        .drop_duplicates(["query", "doc", "subtopic"])
    run = pd.DataFrame(run, columns=["query", "doc", "score"])
    truth = intents.groupby(["query", "doc"], as_index=False)["relevance"].max()
    keys = ["alpha_ndcg@10", "alpha_dcg@5", "err_ia@20", "nerr_ia@10", "nrbp", "nnrbp",
            "p_ia@10", "strec@5", "ap_ia", "alpha_ndcg@10(alpha=0.3)"]
    ev = rv.Evaluator(truth, keys, intents=intents)
    whole = ev.evaluate(run)
    users = run["query"].unique()
    parts = ev.evaluate_blocks([run[run["query"].isin(users[:7])],
                                run[run["query"].isin(users[7:19])],
                                run[run["query"].isin(users[19:])]])
    for key in whole.summary:
        a, b = parts.summary[key], whole.summary[key]
        assert a == b or (math.isnan(a) and math.isnan(b)), key
    left, right = parts.per_user.sort_index(), whole.per_user.sort_index()
    assert left.index.equals(right.index)
    for key in keys:
        key = rv.metrics.canonical_key(key)
        assert np.array_equal(left[key].to_numpy(), right[key].to_numpy(), equal_nan=True), key


def test_intents_reader_layout():
    it = as_intents(QRELS)
    assert list(it.topics) == ["0"] and it.n_sub.tolist() == [3]
    assert it.rel.sum() == 4 and it.nrel_sub.tolist() == [[1, 2, 1]]
    tuples = as_intents([("0", "a", "A", 1), ("0", "b", "B", 1), ("0", "b", "D", 1),
                         ("0", "c", "C", 1)])
    assert np.array_equal(tuples.rel, it.rel) and np.array_equal(tuples.key, it.key)


def test_judged_only_drops_unjudged_documents_before_ranking():
    # E is unjudged: with judged_only=true the run is A, D, B (ir_measures' judged_only)
    keys = ["alpha_ndcg@3(judged_only=true)", "ap_ia(judged_only=true)",
            "p_ia@3(judged_only=true)", "nrbp(judged_only=true)"]
    v = one(keys)
    w = one(["alpha_ndcg@3", "ap_ia", "p_ia@3", "nrbp"], run=RUN[RUN["doc"] != "E"])
    assert list(v.values()) == list(w.values())
    assert v["p_ia@3(judged_only=true)"] == pytest.approx(3 / 9, rel=1e-15)
