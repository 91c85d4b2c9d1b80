"""Every worked example of the seed documents, with exact arithmetic.

The seeds print rounded intermediate terms; the expectations here are the exact formulas
(see the seeds' ERRATA). Runs are ``{user: {item: score}}``, truths ``{user: {item: rel}}``.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from pytest import approx

import receval as rv

log2 = math.log2


def one(run, truth, key, **kw) -> float:
    return rv.evaluate(run, truth, [key], **kw).summary[rv.metrics.parse_metric(key).key]


def ranked(items: list[str]) -> dict[str, float]:
    """A list in rank order as scores (first item = highest score)."""
    return {item: float(len(items) - i) for i, item in enumerate(items)}


# --- seed 000: knowledge-base triples, two positives against four negatives each ----------------

SEED000_RUN = {
    "born_in": {"Ireland": 0.789, "Italy": 0.753, "Germany": 0.695, "China": 0.456,
                "Thomas": 0.234},
    "friend_with": {"Thomas": 0.901, "China": 0.345, "Italy": 0.293, "Ireland": 0.201,
                    "Germany": 0.156},
}
SEED000_TRUTH = {"born_in": {"Italy": 1}, "friend_with": {"Thomas": 1}}


def test_seed000_hits_and_mrr():
    res = rv.evaluate(SEED000_RUN, SEED000_TRUTH,
                      ["hit_rate@1", "hit_rate@3", "mrr", "hit_rate@1(level=truth)"])
    assert res["hit_rate@1"] == 1 / 2
    assert res["hit_rate@3"] == 2 / 2
    assert res["mrr"] == (1 / 2 + 1 / 1) / 2 == 0.75
    assert res["hit_rate@1(level=truth)"] == 1 / 2  # one positive per query: same count
    assert list(res.user_values("mrr")) == [1 / 2, 1.0]


def test_seed000_average_precision():
    # AP = sum_k P@k * rel(k) / m1 (number of relevant documents)
    run = {"q": ranked(["d1", "n1", "d2", "n2", "n3", "d3"])}
    truth = {"q": {"d1": 1, "d2": 1, "d3": 1, "d4": 1}}
    assert one(run, truth, "map") == approx((1 / 1 + 2 / 3 + 3 / 6) / 4, rel=1e-15)
    assert one(run, truth, "map@3") == approx((1 / 1 + 2 / 3) / 4, rel=1e-15)
    assert one(run, truth, "map@3(denominator=min_k_rel)") == approx((1 + 2 / 3) / 3, rel=1e-15)
    assert one(run, truth, "map@3(denominator=hits)") == approx((1 + 2 / 3) / 2, rel=1e-15)
    # MAP is the mean of the users' AP
    run2 = dict(run, r={"x": 2.0, "d9": 1.0})
    truth2 = dict(truth, r={"d9": 1})
    assert one(run2, truth2, "map") == approx(((1 + 2 / 3 + 3 / 6) / 4 + (1 / 2) / 1) / 2,
                                             rel=1e-15)


def test_seed000_short_list_counts_missing_ranks_as_misses():
    run = {"q": ranked(["a", "b"])}
    truth = {"q": {"a": 1, "c": 1}}
    assert one(run, truth, "precision@10") == 1 / 10
    assert one(run, truth, "precision@10(denominator=list)") == 1 / 2
    assert one(run, truth, "ndcg@10") == approx(1 / (1 + 1 / log2(3)), rel=1e-15)


# --- seed 002: Alice, binary relevance ------------------------------------------------------------

ALICE_TRUTH = {"alice": {"pineapple": 1, "apple": 1, "watermelon": 1, "banana": 1, "cherry": 1}}
ALICE_RUN = {"alice": ranked(["banana", "pear", "cherry", "melon", "grape"])}  # [1, 0, 1, 0, 0]
IDCG3 = 1 + 1 / log2(3) + 1 / 2


def test_seed002_precision_at_1_to_5():
    expected = [1 / 1, 1 / 2, 2 / 3, 2 / 4, 2 / 5]
    for k, exp in enumerate(expected, start=1):
        assert one(ALICE_RUN, ALICE_TRUTH, f"precision@{k}") == exp
        # Alice bought 5 items, so min(k, 5) = k: adjusted precision equals precision here
        assert one(ALICE_RUN, ALICE_TRUTH, f"precision@{k}(denominator=min_k_rel)") == exp


def test_seed002_adjusted_precision_when_truth_is_smaller_than_k():
    # 5 items shown, 3 bought, all 3 at the top: plain P@5 is capped at 3/5, adjusted reaches 1
    run = {"bob": ranked(["a", "b", "c", "x", "y"])}
    truth = {"bob": {"a": 1, "b": 1, "c": 1}}
    assert one(run, truth, "precision@5") == 3 / 5
    assert one(run, truth, "precision@5(denominator=min_k_rel)") == 3 / 3
    assert one(run, truth, "recall@5(denominator=min_k_rel)") == 3 / 3
    assert one(run, truth, "precision@2(denominator=min_k_rel)") == 2 / 2


def test_seed002_recall_at_1_to_5():
    expected = [1 / 5, 1 / 5, 2 / 5, 2 / 5, 2 / 5]
    for k, exp in enumerate(expected, start=1):
        assert one(ALICE_RUN, ALICE_TRUTH, f"recall@{k}") == exp
        # adjusted recall = hits / min(k, total) = adjusted precision
        assert one(ALICE_RUN, ALICE_TRUTH, f"recall@{k}(denominator=min_k_rel)") == \
            one(ALICE_RUN, ALICE_TRUTH, f"precision@{k}(denominator=min_k_rel)")


def test_seed002_f1_and_map():
    p, r = 2 / 5, 2 / 5
    assert one(ALICE_RUN, ALICE_TRUTH, "f1@5") == approx(2 * p * r / (p + r), rel=1e-15)
    assert one(ALICE_RUN, ALICE_TRUTH, "fbeta@5(beta=2)") == approx(
        (1 + 4) * p * r / (4 * p + r), rel=1e-15)
    assert one(ALICE_RUN, ALICE_TRUTH, "map") == approx((1 / 1 + 2 / 3) / 5, rel=1e-15)


def test_seed002_dcg_ndcg():
    res = rv.evaluate(ALICE_RUN, ALICE_TRUTH, ["dcg@3", "idcg@3", "ndcg@3"])
    assert res["dcg@3"] == 1 / log2(2) + 0 / log2(3) + 1 / log2(4) == 1.5
    assert res["idcg@3"] == approx(IDCG3, rel=1e-15)
    assert res["ndcg@3"] == approx(1.5 / IDCG3, rel=1e-15)
    assert res["ndcg@3"] == approx(0.7039180890341347, rel=1e-15)  # ERRATA: printed 0.704


def test_seed002_worse_pattern_011():
    run = {"alice": ranked(["pear", "banana", "cherry"])}  # [0, 1, 1]
    res = rv.evaluate(run, ALICE_TRUTH, ["dcg@3", "ndcg@3"])
    assert res["dcg@3"] == approx(1 / log2(3) + 1 / 2, rel=1e-15)
    assert res["ndcg@3"] == approx((1 / log2(3) + 1 / 2) / IDCG3, rel=1e-15)
    assert res["ndcg@3"] < one(ALICE_RUN, ALICE_TRUTH, "ndcg@3")


# --- seed 003: ratings as graded relevance, exponential gain ---------------------------------------

SEED003_TRUTH = {"u": {"M1": 5, "M2": 3, "M3": 2, "M4": 1, "M5": 2, "M6": 4, "M7": 0}}
SEED003_RUN = {"u": ranked(["M1", "M2", "M3", "M4", "M5"])}  # ratings [5, 3, 2, 1, 2]


def test_seed003_cumulative_gain():
    assert one(SEED003_RUN, SEED003_TRUTH, "cg@5") == 5 + 3 + 2 + 1 + 2 == 13


def test_seed003_exponential_dcg_ndcg():
    # the seed prints the rounded terms 31 + 4.4 + 1.5 + 0.4 + 1.2 = 38.5 and IDCG 46.5, hence
    # 0.827; the exact values are DCG 38.5077..., IDCG 46.4165... and NDCG 0.8296...
    dcg = 31 / log2(2) + 7 / log2(3) + 3 / log2(4) + 1 / log2(5) + 3 / log2(6)
    idcg = 31 / log2(2) + 15 / log2(3) + 7 / log2(4) + 3 / log2(5) + 3 / log2(6)  # [5,4,3,2,2]
    res = rv.evaluate(SEED003_RUN, SEED003_TRUTH,
                      ["dcg@5(gain=exp)", "idcg@5(gain=exp)", "ndcg@5(gain=exp)"])
    assert res["dcg@5(gain=exp)"] == approx(dcg, rel=1e-15)
    assert res["idcg@5(gain=exp)"] == approx(idcg, rel=1e-15)
    assert res["ndcg@5(gain=exp)"] == approx(dcg / idcg, rel=1e-15)
    assert res["ndcg@5(gain=exp)"] == approx(0.8296126316400654, rel=1e-14)
    assert res["ndcg@5(gain=exp)"] != approx(38.5 / 46.5, abs=1e-3)


def test_seed003_ap_with_graded_truth_and_threshold():
    # rel=3 keeps M1 (5), M2 (3) and M6 (4) relevant: list [1, 1, 0, 0, 0], R = 3
    assert one(SEED003_RUN, SEED003_TRUTH, "map(rel=3)") == approx((1 / 1 + 2 / 2) / 3,
                                                                    rel=1e-15)
    assert one(SEED003_RUN, SEED003_TRUTH, "precision@5(rel=3)") == 2 / 5


# --- seed 004: linear gain, MRR, hit rate levels ----------------------------------------------------

SEED004_RUN = {"q": ranked(["D1", "D2", "D3", "D4", "D5"])}  # relevances [3, 2, 3, 0, 1]
SEED004_TRUTH = {"q": {"D1": 3, "D2": 2, "D3": 3, "D4": 0, "D5": 1}}
DCG004 = 3 / log2(2) + 2 / log2(3) + 3 / log2(4)


def test_seed004_linear_dcg():
    assert one(SEED004_RUN, SEED004_TRUTH, "dcg@3") == approx(DCG004, rel=1e-15)
    assert one(SEED004_RUN, SEED004_TRUTH, "dcg@3") == approx(5.761859507142915, rel=1e-15)


def test_seed004_ideal_from_the_list():
    # the text sorts the list's own relevances: [3, 3, 2]
    idcg = 3 / log2(2) + 3 / log2(3) + 2 / log2(4)
    res = rv.evaluate(SEED004_RUN, SEED004_TRUTH, ["idcg@3(ideal=list)", "ndcg@3(ideal=list)"])
    assert res["idcg@3(ideal=list)"] == approx(idcg, rel=1e-15)
    assert res["ndcg@3(ideal=list)"] == approx(DCG004 / idcg, rel=1e-15)
    assert res["ndcg@3(ideal=list)"] == approx(0.9777813616305049, rel=1e-14)


def test_seed004_ideal_333_reading():
    # the printed 6.43 / 0.90 fit a user with one more, unretrieved item of relevance 3
    truth = {"q": dict(SEED004_TRUTH["q"], D6=3)}
    idcg = 3 / log2(2) + 3 / log2(3) + 3 / log2(4)
    res = rv.evaluate(SEED004_RUN, truth, ["idcg@3", "ndcg@3", "ndcg@3(ideal=list)"])
    assert res["idcg@3"] == approx(idcg, rel=1e-15)
    assert res["ndcg@3"] == approx(DCG004 / idcg, rel=1e-15)
    assert res["ndcg@3"] == approx(0.901306029678045, rel=1e-14)
    # the list-based ideal ignores the unretrieved D6
    assert res["ndcg@3(ideal=list)"] == approx(0.9777813616305049, rel=1e-14)


def test_seed004_mrr_three_queries():
    run = {"q1": ranked(["D3", "D1", "D2"]), "q2": ranked(["D2", "D4", "D1"]),
           "q3": ranked(["D3", "D4", "D5"])}
    truth = {"q1": {"D1": 1}, "q2": {"D2": 1}, "q3": {"D9": 1}}
    res = rv.evaluate(run, truth, ["mrr", "first_hit_rank"])
    assert res["mrr"] == (1 / 2 + 1 + 0) / 3 == 0.5
    assert list(res.user_values("mrr")) == [1 / 2, 1.0, 0.0]
    # mean rank of the first hit over the queries that have one
    assert res["first_hit_rank"] == (2 + 1) / 2
    assert res.stats[1]["n"] == 2


def test_seed004_hit_rate_user_vs_item_level():
    run = {"u1": ranked(["a", "b", "x"]), "u2": ranked(["y", "z"]),
           "u3": ranked(["w", "c", "v", "d"])}
    truth = {"u1": {"a": 1, "b": 1}, "u2": {"e": 1}, "u3": {"c": 1, "d": 1}}
    res = rv.evaluate(run, truth, ["hit_rate@3", "hit_rate@3(level=recommended)",
                                   "hit_rate@3(level=truth)"])
    # users with a hit in the top 3 / users
    assert res["hit_rate@3"] == 2 / 3
    # total hits / total recommended (u2 got only 2 items; u3's 4th item is past the cutoff)
    assert res["hit_rate@3(level=recommended)"] == (2 + 0 + 1) / (3 + 2 + 3)
    # total hits / total held-out items
    assert res["hit_rate@3(level=truth)"] == (2 + 0 + 1) / (2 + 1 + 2)
    assert list(res.user_values("hit_rate@3(level=recommended)")) == [2 / 3, 0 / 2, 1 / 3]


def test_seed001_hit_ratio_over_held_out_items():
    # HR@K = sum of the users' hits in the top K / number of held-out (GT) items
    run = {"u1": ranked(["a", "b", "x", "c"]), "u2": ranked(["y", "e"])}
    truth = {"u1": {"a": 1, "b": 1, "c": 1, "d": 1}, "u2": {"e": 1, "f": 1}}
    assert one(run, truth, "hit_rate@2(level=truth)") == (2 + 1) / (4 + 2)
    assert one(run, truth, "hit_rate@4(level=truth)") == (3 + 1) / (4 + 2)
    # the micro average differs from the mean of the users' own ratios
    assert one(run, truth, "recall@2") == (2 / 4 + 1 / 2) / 2


# --- the docstring examples of the other metrics ----------------------------------------------------


def test_docstring_examples():
    run = {"u": ranked(["a", "n", "b"])}  # [1, 0, 1]
    truth = {"u": {"a": 1, "b": 1}}
    assert one(run, truth, "mar@3") == approx((1 / 2 + 1 / 2 + 2 / 2) / 3, rel=1e-15)
    assert one(run, truth, "rbp(p=0.5)") == (1 - 0.5) * (1 + 0.5**2)
    assert one(run, truth, "r_precision") == 1 / 2
    assert one(run, truth, "hits@3") == 2
    assert one({"u": ranked(["a", "n"])}, {"u": {"a": 1}}, "err(max_grade=1)") == \
        (2**1 - 1) / 2**1
    # bpref: a judged non-relevant item above the only relevant one, R = 1, N = 1
    assert one({"u": ranked(["n", "a"])}, {"u": {"a": 1, "n": 0}}, "bpref") == 1 - 1 / 1
    assert one({"u": ranked(["x", "a"])}, {"u": {"a": 1, "n": 0}}, "bpref") == 1.0


def test_err_graded_cascade():
    run = {"u": ranked(["a", "b", "c"])}
    truth = {"u": {"a": 2, "b": 0, "c": 1}}
    r1, r2, r3 = 3 / 4, 0.0, 1 / 4
    exp = r1 / 1 + (1 - r1) * r2 / 2 + (1 - r1) * (1 - r2) * r3 / 3
    assert one(run, truth, "err") == approx(exp, rel=1e-15)
    assert one(run, truth, "err@1") == approx(r1, rel=1e-15)


@pytest.mark.parametrize("container", ["dict", "pandas", "polars", "arrow"])
def test_seed002_through_every_container(container):
    run_rows = [("alice", i, s) for i, s in ALICE_RUN["alice"].items()]
    truth_rows = [("alice", i, 1) for i in ALICE_TRUTH["alice"]]
    run = pd.DataFrame(run_rows, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user", "item", "rel"])
    if container == "dict":
        run, truth = ALICE_RUN, ALICE_TRUTH
    elif container == "polars":
        pl = pytest.importorskip("polars")
        run, truth = pl.from_pandas(run), pl.from_pandas(truth)
    elif container == "arrow":
        pa = pytest.importorskip("pyarrow")
        run, truth = pa.Table.from_pandas(run), pa.Table.from_pandas(truth)
    res = rv.evaluate(run, truth, ["precision@3", "recall@3", "ndcg@3"])
    assert res["precision@3"] == 2 / 3
    assert res["recall@3"] == 2 / 5
    assert res["ndcg@3"] == approx(1.5 / IDCG3, rel=1e-15)
