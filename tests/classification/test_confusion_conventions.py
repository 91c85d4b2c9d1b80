"""Confusion counts over the user's own candidates (``candidates=list``), the false-positive rule
of short lists (``fp=k``) and the value of a user without a non-relevant candidate
(``no_negative``).

A slow oracle from the docstring formulas (``TP = |R_u & T_u|``, ``FP = |R_u| - TP`` or
``k - TP``, ``FN = |T_u & C_u| - TP``, ``TN = |C_u| - TP - FP - FN``) against the registered
metrics on random data with tied scores; torchmetrics' documented RetrievalFallOut values; RecTools
``Accuracy`` itself when it is installed.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.errors import InputError

N_ITEMS = 12


def counts(items: list[tuple[int, float]], liked: set[int], k: int, *, candidates: str,
           fp: str) -> tuple[int, int, int, int]:
    """TP, FP, FN, TN of one user from the formulas (ties: score desc, then item id asc)."""
    order = [i for i, _ in sorted(items, key=lambda t: (-t[1], t[0]))]
    top = order[:k]
    tp = len(set(top) & liked)
    fpc = (k if fp == "k" else len(top)) - tp
    if candidates == "list":
        cand = set(order)
        n = len(cand)
    else:
        cand, n = set(range(N_ITEMS)), N_ITEMS
    fn = len(liked & cand) - tp
    return tp, fpc, fn, n - tp - fpc - fn


@st.composite
def cases(draw):
    n_users = draw(st.integers(1, 6))
    run, truth = {}, {}
    for u in range(n_users):
        items = draw(st.lists(st.integers(0, N_ITEMS - 1), max_size=8, unique=True))
        if items:
            run[u] = {i: draw(st.integers(0, 3)) / 2 for i in items}  # tied scores
        judged = draw(st.lists(st.integers(0, N_ITEMS - 1), min_size=1, max_size=6,
                               unique=True))
        truth[u] = {i: draw(st.integers(0, 2)) for i in judged}
    return run, truth


def _rate(num: int, den: int, no_negative: str) -> float:
    if den > 0:
        return float(Fraction(num, den))
    return {"skip": math.nan, "zero": 0.0, "one": 1.0}[no_negative]


@pytest.mark.filterwarnings("ignore::receval.errors.NoCommonUsersWarning",
                            "ignore::receval.errors.RelevanceThresholdWarning")
@settings(max_examples=120, deadline=None)
@given(cases(), st.integers(1, 5), st.sampled_from(["catalog", "list"]),
       st.sampled_from(["list", "k"]), st.sampled_from(["skip", "zero", "one"]))
def test_oracle(data, k, candidates, fp, no_negative):
    run, truth = data
    params = {"candidates": candidates, "fp": fp}
    rates = {"fpr": "fpr", "specificity": "specificity", "accuracy": "accuracy"}
    keys = {name: rv.metric(name, k, **params).key for name in ("tn",)}
    keys["fp"] = rv.metric("fp", k, fp=fp).key
    keys["fn"] = rv.metric("fn", k, candidates=candidates).key
    for name in rates:
        extra = {} if name == "accuracy" else {"no_negative": no_negative}
        keys[name] = rv.metric(name, k, **params, **extra).key
    want = {}
    for u in sorted(truth):
        liked = {i for i, r in truth[u].items() if r >= 1}
        want[u] = counts(list(run.get(u, {}).items()), liked, k, candidates=candidates, fp=fp)
    if any(c[3] < 0 for c in want.values()):
        with pytest.raises(InputError, match="fp=k|catalogue"):
            rv.evaluate(run, truth, list(keys.values()), catalog=N_ITEMS)
        return
    res = rv.evaluate(run, truth, list(keys.values()), catalog=N_ITEMS)
    for u, (tp, fpc, fn, tn) in want.items():
        row = res.per_user.loc[u]
        assert (row[keys["fp"]], row[keys["fn"]], row[keys["tn"]]) == (fpc, fn, tn)
        expect = {"fpr": _rate(fpc, fpc + tn, no_negative),
                  "specificity": _rate(tn, tn + fpc, no_negative),
                  "accuracy": _rate(tp + tn, tp + fpc + fn + tn, "skip")}
        if u not in run:  # no list, no decision: no rate, unless k empty slots are FPs
            expect = {name: value if fp == "k" else math.nan
                      for name, value in expect.items()}
        for name, value in expect.items():
            got = row[keys[name]]
            assert got == value or (math.isnan(got) and math.isnan(value)), (name, u)


def test_torchmetrics_fall_out_documented_examples():
    # retrieval_fall_out(preds=[0.2, 0.3, 0.5], target=[True, False, True], top_k=2) = 1.0
    run = {0: {"a": 0.2, "b": 0.3, "c": 0.5}}
    truth = {0: {"a": 1, "c": 1}}
    res = rv.evaluate(run, truth, ["retrievalfallout@2"], compat="torchmetrics")
    assert res["retrievalfallout@2"] == 1.0
    # RetrievalFallOut(top_k=2) on indexes [0,0,0,1,1,1,1], preds [.2,.3,.5,.1,.3,.5,.2],
    # target [F,F,T,F,T,F,T] prints 0.5
    run = {0: {"a": 0.2, "b": 0.3, "c": 0.5}, 1: {"a": 0.1, "b": 0.3, "c": 0.5, "d": 0.2}}
    truth = {0: {"c": 1}, 1: {"b": 1, "d": 1}}
    res = rv.evaluate(run, truth, ["retrievalfallout@2"], compat="torchmetrics")
    assert res["retrievalfallout@2"] == 0.5
    assert res.info["compat"]["names"]["retrievalfallout@2"] == \
        "fpr@2(candidates=list,no_negative=one)"


def test_torchmetrics_query_without_negative_scores_one():
    # every candidate relevant: empty_target_action='pos' (the class default) gives 1.0
    run = {0: {"a": 0.9, "b": 0.1}, 1: {"a": 0.9, "b": 0.1}}
    truth = {0: {"a": 1, "b": 1}, 1: {"b": 1}}
    res = rv.evaluate(run, truth, ["retrievalfallout@1"], compat="torchmetrics")
    assert res.user_values("retrievalfallout@1").tolist() == [1.0, 1.0]  # 1: FP 1 of 1
    plain = rv.evaluate(run, truth, ["fpr@1(candidates=list)"])
    assert math.isnan(plain.user_values("fpr@1(candidates=list)")[0])
    assert plain["fpr@1(candidates=list)"] == 1.0  # user 0 left out


def test_candidates_read_the_whole_list_past_k():
    # 5 scored candidates, 1 relevant at rank 4: FP@2 = 2 over 4 non-relevant candidates
    run = {0: {i: 1.0 - i / 10 for i in range(5)}}
    truth = {0: {3: 1}}
    res = rv.evaluate(run, truth, ["fpr@2(candidates=list)", "tn@2(candidates=list)",
                                   "ndcg@2"])
    assert res["fpr@2(candidates=list)"] == 2 / 4
    assert res["tn@2(candidates=list)"] == 2  # items 2 and 4


def test_fp_k_counts_empty_slots():
    run = {0: {"a": 0.9}}  # one item, k = 3
    truth = {0: {"a": 1, "b": 1}}
    res = rv.evaluate(run, truth, ["fp@3", "fp@3(fp=k)", "tn@3(fp=k)", "accuracy@3(fp=k)"],
                      catalog=10)
    assert res["fp@3"] == 0 and res["fp@3(fp=k)"] == 2
    # TN = n - k - FN = 10 - 3 - 1 (RecTools calc_confusions)
    assert res["tn@3(fp=k)"] == 6
    assert res["accuracy@3(fp=k)"] == (1 + 6) / 10
    with pytest.raises(InputError, match="fp=k"):
        rv.evaluate(run, truth, ["tn@3(candidates=list,fp=k)"])


@pytest.mark.parametrize("seed", range(4))
def test_rectools_accuracy(seed):
    metrics = pytest.importorskip("rectools.metrics")
    rng = np.random.default_rng(seed)
    catalog = list(range(40))
    reco, inter = [], []
    for u in range(20):
        n = int(rng.integers(1, 9))  # lists shorter than k too
        for r, i in enumerate(rng.choice(40, n, replace=False), start=1):
            reco.append((u, int(i), r))
        for i in rng.choice(40, int(rng.integers(1, 6)), replace=False):
            inter.append((u, int(i)))
    reco_df = pd.DataFrame(reco, columns=["user_id", "item_id", "rank"])
    inter_df = pd.DataFrame(inter, columns=["user_id", "item_id"])
    truth = inter_df.assign(relevance=1.0)
    for k in (1, 3, 5, 10):
        want = metrics.Accuracy(k=k).calc_per_user(reco_df, inter_df, catalog)
        res = rv.evaluate(reco_df, truth, [f"accuracy@{k}"], compat="rectools",
                          catalog=len(catalog), user_col="user_id", item_col="item_id")
        got = pd.Series(res.user_values(f"accuracy@{k}"), index=res.user_ids)
        assert np.allclose(got.loc[want.index].to_numpy(), want.to_numpy(), rtol=1e-12,
                           atol=0)


def test_confusion_at_k_takes_the_same_conventions():
    from receval.classification import confusion_at_k

    run = {0: {"a": 0.2, "b": 0.3, "c": 0.5}, 1: {"a": 0.1, "b": 0.3, "c": 0.5, "d": 0.2}}
    truth = {0: {"c": 1}, 1: {"b": 1, "d": 1}}
    c = confusion_at_k(run, truth, 2, candidates="list")
    # user 0: top 2 = c (hit), b: TP 1 FP 1 FN 0 TN 1 (a); user 1: c, b: TP 1 FP 1 FN 1 (d)
    # TN 1 (a)
    assert c.to_frame().to_numpy().tolist() == [[1, 1, 0, 1], [1, 1, 1, 1]]
    assert c.fpr() == 0.5
    c = confusion_at_k(run, truth, 5, fp="k", catalog=10)
    # FP = 5 - TP; TN = 10 - 5 - FN
    assert c.to_frame().to_numpy().tolist() == [[1, 4, 0, 5], [2, 3, 0, 5]]
