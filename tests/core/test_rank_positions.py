"""``ranks="position"``: a rank column read as absolute positions (RecTools).

A row with rank r sits at position r; ranks without a row hold a non-relevant, unjudged
placeholder; two rows of a user at one rank (shared ranks) each sit at that rank
(``tests/core/test_shared_ranks.py``). Checked against two oracles written from that
definition (the same run with real
filler items at the missing ranks under ``ranks="order"``, and RecTools' formulas computed by
hand), a worked example, RecTools itself when it is installed, both packing routes and blocks.
"""

from __future__ import annotations

import importlib
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.pack import packed as packed_module

evaluate_module = importlib.import_module("receval.engines.evaluator")

METRICS = ["precision@3", "recall@5", "ndcg@4", "ndcg@4(ideal=k)", "mrr@10", "map@6",
           "hit_rate@2", "ndcg", "map", "mrr", "num_ret@4", "num_ret", "ncrr@3", "r_precision",
           "ndcg@5(ideal=list)", "precision@4(denominator=list)"]
WHOLE_LIST = ["pauc@3", "pap@2"]  # not under ties="average"


def _case(rng: np.random.Generator, n_users: int = 6, max_rank: int = 14):
    """Rows with distinct integer ranks (with gaps) per user, and a binary truth."""
    run, truth = [], []
    for u in range(n_users):
        m = int(rng.integers(0, 6))
        ranks = np.sort(rng.choice(np.arange(1, max_rank + 1), size=m, replace=False))
        items = rng.choice(20, size=m, replace=False)
        run += [(u, int(i), int(r)) for i, r in zip(items, ranks, strict=True)]
        t = rng.choice(20, size=int(rng.integers(0, 5)), replace=False)
        truth += [(u, int(i), 1.0) for i in t]
    if not truth:
        truth = [(0, 0, 1.0)]
    return (pd.DataFrame(run, columns=["user", "item", "rank"]).astype({"rank": "int64"}),
            pd.DataFrame(truth, columns=["user", "item", "relevance"]))


def _filled(run: pd.DataFrame) -> pd.DataFrame:
    """The definition: every rank 1..r_max without a row holds an item outside the truth."""
    rows = []
    for u, g in run.groupby("user", sort=False):
        have = dict(zip(g["rank"], g["item"], strict=True))
        for r in range(1, int(g["rank"].max()) + 1):
            rows.append((u, have.get(r, 10_000 + 100 * int(u) + r), r))
    return pd.DataFrame(rows, columns=["user", "item", "rank"]).astype({"rank": "int64"})


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), ties=st.sampled_from(["id", "average"]),
       users=st.sampled_from(["truth", "union"]))
def test_positions_equal_the_run_with_filler_items(seed, ties, users):
    run, truth = _case(np.random.default_rng(seed))
    metrics = METRICS + (WHOLE_LIST if ties == "id" else [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = rv.evaluate(run, truth, metrics, ranks="position", ties=ties, users=users)
        slow = rv.evaluate(_filled(run), truth, metrics, ties=ties, users=users)
    pd.testing.assert_frame_equal(fast.per_user, slow.per_user, check_exact=True)


def _by_hand(run: pd.DataFrame, truth: pd.DataFrame, k: int) -> pd.DataFrame:
    """RecTools' formulas (ranking.py, classification.py) on the rank column as given."""
    out = {}
    for u, t in truth.groupby("user"):
        rel = set(t["item"])
        rows = run[run["user"] == u]
        hits = sorted(int(r) for i, r in zip(rows["item"], rows["rank"], strict=True)
                      if i in rel)
        top = [r for r in hits if r <= k]
        ideal = sum(1 / math.log2(i + 1) for i in range(1, k + 1))
        out[u] = {
            f"precision@{k}": len(top) / k,
            f"recall@{k}": len(top) / len(rel),
            f"ndcg@{k}": sum(1 / math.log2(r + 1) for r in top) / ideal,
            f"mrr@{k}": 1 / top[0] if top else 0.0,
            f"map@{k}": sum((j + 1) / r for j, r in enumerate(top)) / len(rel),
            f"hitrate@{k}": float(bool(top)),
        }
    return pd.DataFrame.from_dict(out, orient="index")


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 8))
def test_rectools_preset_equals_the_formulas_on_the_rank_column(seed, k):
    run, truth = _case(np.random.default_rng(seed))
    names = [f"precision@{k}", f"recall@{k}", f"ndcg@{k}", f"mrr@{k}", f"map@{k}",
             f"hitrate@{k}"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rv.evaluate(run, truth, names, compat="rectools")
    assert res.policies["ranks"] == "position"
    keys = rv.compat.resolve("rectools", names)[2]  # name as written -> canonical key
    want = _by_hand(run, truth, k)
    got = res.per_user.loc[want.index, [keys[n] for n in names]]
    np.testing.assert_allclose(got.to_numpy(), want[names].to_numpy(), rtol=1e-12, atol=1e-15)


def test_worked_example():
    # user 1: a at rank 1, b at rank 9; user 2: a at 2, c at 3, d at 5; truth 1: a, b; 2: c, x
    run = pd.DataFrame({"user": [1, 1, 2, 2, 2], "item": ["a", "b", "a", "c", "d"],
                        "rank": [1, 9, 2, 3, 5]})
    truth = pd.DataFrame({"user": [1, 1, 2, 2], "item": ["a", "b", "c", "x"]})
    keys = ["precision@3", "ndcg@10", "mrr@10", "map@10", "recall@3", "pauc@3", "num_ret"]
    pos = rv.evaluate(run, truth, keys, ranks="position").per_user
    order = rv.evaluate(run, truth, keys).per_user
    idcg = 1 + 1 / math.log2(3)
    assert pos.loc[1, "precision@3"] == 1 / 3            # b at rank 9 is outside the top 3
    assert order.loc[1, "precision@3"] == 2 / 3          # ranked 2nd of the rows given
    assert pos.loc[1, "ndcg@10"] == pytest.approx((1 + 1 / math.log2(10)) / idcg, abs=1e-15)
    assert pos.loc[1, "map@10"] == pytest.approx((1 + 2 / 9) / 2, abs=1e-15)
    assert pos.loc[1, "num_ret"] == 9                    # the list reaches rank 9
    assert pos.loc[2, "mrr@10"] == pytest.approx(1 / 3, abs=1e-15)
    assert order.loc[2, "mrr@10"] == 0.5
    assert pos.loc[2, "ndcg@10"] == pytest.approx((1 / math.log2(4)) / idcg, abs=1e-15)
    # PartialAUC@3 (RecTools auc.py): ranks 1 (gap) and 2 (a) are false positives above c:
    # c gains 3 - 2 = 1 over 2 test positives x 3
    assert pos.loc[2, "pauc@3"] == pytest.approx(1 / 6, abs=1e-15)
    assert pos.loc[1, "pauc@3"] == pytest.approx((3 + 0) / 6, abs=1e-15)


def test_rectools_docstring_example():
    # rectools/metrics/ranking.py MAP / NDCG / MRR docstrings (contiguous ranks: as under
    # ranks="order"); the expected arrays are the ones the docstrings print
    run = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4],
                        "item": [7, 8, 1, 2, 1, 2, 3, 4, 1, 2, 3],
                        "rank": [1, 2, 1, 2, 1, 2, 3, 4, 1, 2, 3]})
    truth = pd.DataFrame({"user": [1, 1, 2, 3, 3, 3, 4, 4, 4],
                          "item": [1, 2, 1, 1, 3, 4, 1, 2, 3]})
    res = rv.evaluate(run, truth, ["map@1", "map@3", "mrr@1", "mrr@3"], compat="rectools")
    np.testing.assert_allclose(res.per_user["map@1"],
                               [0, 1, 1 / 3, 1 / 3], atol=1e-8)
    np.testing.assert_allclose(res.per_user["map@3"], [0, 1, 0.55555556, 1], atol=1e-8)
    np.testing.assert_allclose(res.per_user["mrr@1"], [0, 1, 1, 1], atol=1e-8)
    np.testing.assert_allclose(res.per_user["mrr@3"], [0, 1, 1, 1], atol=1e-8)


def _rectools():
    try:
        from rectools import Columns
        from rectools.metrics import MAP, MRR, NDCG, PAP, HitRate, PartialAUC, Precision, Recall
    except Exception as exc:  # noqa: BLE001 - any import failure: not usable here
        pytest.skip(f"rectools is not importable: {exc}")
    try:  # RecTools pins numpy < 2 and pandas < 3: installed beside newer ones it may not run
        reco = pd.DataFrame({Columns.User: [1, 1], Columns.Item: [1, 2], Columns.Rank: [1, 3]})
        inter = pd.DataFrame({Columns.User: [1, 1], Columns.Item: [2, 5]})
        for m in (Precision(1), NDCG(2), MAP(2)):
            m.calc_per_user(reco, inter)
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"rectools does not run with this numpy / pandas: {exc!r}"[:200])
    try:  # its AUCs need pandas < 3 (a groupby cumsum of an object column)
        PartialAUC(2).calc_per_user(reco, inter)
        auc = {"pauc": PartialAUC, "pap": PAP}
    except Exception:  # noqa: BLE001 - the AUCs are checked by the worked example then
        auc = {}
    return Columns, MAP, MRR, NDCG, auc, HitRate, Precision, Recall


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6))
def test_rectools_itself_on_ranks_with_gaps(seed, k):
    Columns, MAP, MRR, NDCG, auc, HitRate, Precision, Recall = _rectools()
    run, truth = _case(np.random.default_rng(seed))
    reco = run.rename(columns={"user": Columns.User, "item": Columns.Item,
                               "rank": Columns.Rank})
    inter = truth[["user", "item"]].rename(columns={"user": Columns.User,
                                                    "item": Columns.Item})
    theirs = {
        f"precision@{k}": Precision(k), f"recall@{k}": Recall(k), f"ndcg@{k}": NDCG(k),
        f"map@{k}": MAP(k), f"mrr@{k}": MRR(k), f"hitrate@{k}": HitRate(k),
    }
    # receval's own keys for the other RecTools options (the preset's notes), and the AUCs
    plain = {
        f"ndcg@{k}(gain=binary)": NDCG(k, divide_by_achievable=True),
        f"map@{k}(denominator=k)": MAP(k, divide_by_k=True),
        **{f"{name}@{k}": cls(k) for name, cls in auc.items()},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rv.evaluate(run, truth, list(theirs), compat="rectools")
        keys = rv.compat.resolve("rectools", list(theirs))[2]
        own = rv.evaluate(run, truth, list(plain), ranks="position", empty_truth="zero")
        for key, m in {**theirs, **plain}.items():
            want = m.calc_per_user(reco, inter)
            got = own.per_user[key] if key in plain else res.per_user[keys[key]]
            got = got.reindex(want.index)
            np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-12,
                                       atol=1e-15, err_msg=key)


def test_beyond_accuracy_metrics_see_the_rows_with_rank_at_most_k():
    run = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 1, 4],
                        "rank": [1, 5, 2, 4, 7]})
    truth = pd.DataFrame({"user": [1, 2], "item": [2, 4]})
    train = pd.DataFrame({"user": [9, 9, 8, 7, 7, 7], "item": [1, 2, 2, 3, 4, 1]})
    keys = ["arp@3", "arp@5", "coverage@3"]
    pos = rv.evaluate(run, truth, keys, ranks="position", train=train)
    for k in (3, 5):
        inside = run[run["rank"] <= k]
        ref = rv.evaluate(inside, truth, [f"arp@{k}"], train=train)
        pd.testing.assert_series_equal(pos.per_user[f"arp@{k}"],
                                       ref.per_user[f"arp@{k}"], check_exact=True)
    ref3 = rv.evaluate(run[run["rank"] <= 3], truth, ["coverage@3"], train=train)
    assert pos["coverage@3"] == ref3["coverage@3"]


def _evaluate(run, truth, metrics, raw: bool, **kw):
    orig = packed_module._truth_raw_for
    used = []

    def spy(*a):
        out = orig(*a)
        used.append(out is not None)
        return out

    packed_module._truth_raw_for = spy if raw else (lambda *a: None)
    try:
        return rv.evaluate(run, truth, metrics, **kw), any(used)
    finally:
        packed_module._truth_raw_for = orig


def _same(a, b):
    pd.testing.assert_frame_equal(a.per_user, b.per_user, check_exact=True)
    assert a.counts == b.counts
    assert str(a.stats) == str(b.stats)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), ties=st.sampled_from(["id", "average", "trec_eval"]))
def test_raw_join_and_factorized_route_give_the_same_bits(seed, ties):
    run, truth = _case(np.random.default_rng(seed), n_users=9)
    run["item"] = run["item"].map(lambda i: f"i{i}")
    truth["item"] = truth["item"].map(lambda i: f"i{i}")
    fast, used = _evaluate(run, truth, METRICS, True, ranks="position", ties=ties)
    slow, _ = _evaluate(run, truth, METRICS, False, ranks="position", ties=ties)
    _same(fast, slow)
    if ties != "trec_eval" and len(run):
        assert used


@pytest.mark.parametrize("block", [1, 4, 25])
def test_blocks_of_users_change_no_bit(monkeypatch, block):
    rng = np.random.default_rng(block)
    run, truth = _case(rng, n_users=80, max_rank=30)
    whole = rv.evaluate(run, truth, METRICS, ranks="position", users="union")
    monkeypatch.setattr(evaluate_module, "BLOCK_POSITIONS", block)
    parts = rv.evaluate(run, truth, METRICS, ranks="position", users="union")
    _same(whole, parts)
    assert parts.provenance["blocks"] > 1
    streamed = rv.Evaluator(truth, METRICS, ranks="position", users="union").evaluate_blocks(
        [g for _, g in run.groupby("user", sort=False)])
    _same(whole, streamed)


def test_score_run_takes_positions_in_score_order():
    run = pd.DataFrame({"user": [1, 1, 1], "item": [1, 2, 3], "score": [0.9, 0.1, 0.5]})
    truth = pd.DataFrame({"user": [1, 1], "item": [2, 3]})
    a = rv.evaluate(run, truth, METRICS, ranks="position")
    b = rv.evaluate(run, truth, METRICS)
    pd.testing.assert_frame_equal(a.per_user, b.per_user, check_exact=True)


@pytest.mark.parametrize("ranks, match", [
    ([1, 2.5], "integer ranks >= 1.*2.5"),
    ([0, 1], "integer ranks >= 1.*0.0"),
    ([-3, 1], "integer ranks >= 1"),
])
def test_bad_ranks_are_refused(ranks, match):
    run = pd.DataFrame({"user": [1, 1], "item": [1, 2], "rank": ranks})
    truth = pd.DataFrame({"user": [1], "item": [1]})
    with pytest.raises((rv.InputError, rv.PolicyError), match=match):
        rv.evaluate(run, truth, ["ndcg@5"], ranks="position")


def test_shared_ranks_are_read_by_every_metric_reading_them():
    """Shared ranks mean that each row sits at its rank (RecTools counts both rows at rank 1
    in precision@1: 2/1), for the ranking metrics and the metrics on the recommended items
    alike; only the metrics that need a strict order refuse them, naming the user, the rank
    and themselves."""
    run = pd.DataFrame({"user": [1, 1, 1, 2], "item": [1, 2, 3, 1], "rank": [1, 1, 2, 1]})
    truth = pd.DataFrame({"user": [1, 1, 2], "item": [1, 2, 1]})
    res = rv.evaluate(run, truth, ["precision@1", "map", "coverage@1(kind=count)", "sufficient_reco@1"],
                      ranks="position", train=truth)
    assert res.per_user["precision@1"].to_dict() == {1: 2.0, 2: 1.0}
    assert res.per_user["map"].to_dict() == {1: 1.0, 2: 1.0}  # rank 1: (2 hits) / 1, over R
    assert res["coverage@1(kind=count)"] == 2  # items 1 and 2 have rank <= 1
    assert res.per_user["sufficient_reco@1"].to_dict() == {1: 1.0, 2: 1.0}
    with pytest.raises(rv.InputError, match=r"user 1 has 2 rows at rank 1 \(shared rank\).*"
                                            r"pauc@2.*strict order.*ranks='order'"):
        rv.evaluate(run, truth, ["precision@1", "pauc@2"], ranks="position")


@pytest.mark.parametrize("key", ["precision@2", "coverage@2(kind=count)"])
def test_rows_sharing_a_rank_within_the_cutoff_are_all_read(key):
    """Lists are packed whole under absolute ranks: five rows at ranks <= 2 are all in the
    top 2, however many rows that is (a packing depth of k + 1 rows would drop two)."""
    run = pd.DataFrame({"user": [1] * 6, "item": [1, 2, 3, 4, 5, 6],
                        "rank": [1, 1, 1, 1, 2, 3]})
    truth = pd.DataFrame({"user": [1, 1], "item": [5, 6]})
    want = {"precision@2": 1 / 2, "coverage@2(kind=count)": 5}[key]
    assert rv.evaluate(run, truth, [key], ranks="position", train=truth)[key] == want


def test_duplicate_ranks_past_the_depth_are_not_read():
    run = pd.DataFrame({"user": [1, 1, 1], "item": [1, 2, 3], "rank": [1, 7, 7]})
    truth = pd.DataFrame({"user": [1, 1], "item": [1, 3]})
    assert rv.evaluate(run, truth, ["precision@3"], ranks="position")["precision@3"] == 1 / 3
    # without a cutoff rank 7 is read: both of its rows, the hit among them at rank 7
    assert rv.evaluate(run, truth, ["map"], ranks="position")["map"] == (1 + 2 / 7) / 2


def test_list_length_at_k_counts_the_rows_with_rank_at_most_k():
    """RecTools SufficientReco: a user whose only row has rank 3 has no row in the top 2."""
    run = pd.DataFrame({"user": [1, 1, 1, 3, 4], "item": [1, 2, 3, 1, 1],
                        "rank": [1, 2, 3, 3, 2]})
    truth = pd.DataFrame({"user": [1], "item": [1]})
    res = rv.evaluate(run, truth, ["sufficient_reco@2(deep=true)", "sufficient_reco@2"],
                      ranks="position", users="run", empty_truth="zero")
    assert res.per_user["sufficient_reco@2(deep=true)"].to_dict() == {1: 1.0, 3: 0.0, 4: 0.5}
    assert res.per_user["sufficient_reco@2"].to_dict() == {1: 1.0, 3: 0.0, 4: 0.0}


def test_nan_ranks():
    run = pd.DataFrame({"user": [1, 1, 1], "item": [1, 2, 3], "rank": [1, np.nan, 3]})
    truth = pd.DataFrame({"user": [1, 1], "item": [3, 2]})
    with pytest.raises(rv.PolicyError, match="no position"):
        rv.evaluate(run, truth, ["mrr@5"], ranks="position", nan_scores="last")
    res = rv.evaluate(run, truth, ["mrr@5"], ranks="position", nan_scores="drop")
    assert res["mrr@5"] == 1 / 3 and res.counts["dropped_nan_scores"] == 1


def test_condensed_lists_are_refused():
    run = pd.DataFrame({"user": [1], "item": [1], "rank": [2]})
    with pytest.raises(rv.PolicyError, match="ranks='position'.*unjudged='remove'"):
        rv.evaluate(run, run[["user", "item"]], ["mrr"], ranks="position", unjudged="remove")


def test_diff_attributes_the_difference_to_ranks():
    run = pd.DataFrame({"user": [1, 1], "item": [1, 2], "rank": [1, 9]})
    truth = pd.DataFrame({"user": [1, 1], "item": [1, 2]})
    d = rv.diff(run, truth, ["precision@3"], {"ranks": "order"}, {"ranks": "position"})
    m = d["precision@3"]
    assert (m.value_a, m.value_b) == (2 / 3, 1 / 3)
    assert m.factors == ["ranks"] and m.shapley["ranks"] == pytest.approx(-1 / 3, abs=1e-15)
    assert "ranks" in d.explanation(m)


@pytest.mark.parametrize("policy", [{"ranks": "position"}, {"unretrieved": "bottom"}])
def test_the_spark_engine_refuses_the_list_shapes(policy):
    rvs = pytest.importorskip("receval.spark")
    truth = pd.DataFrame({"user": [1], "item": [1]})
    name, value = next(iter(policy.items()))
    with pytest.raises(rv.PolicyError, match=f"{name}='{value}' is not available on the Spark"):
        rvs.Evaluator(truth, ["ndcg@3"], **policy)


def test_explain_refuses_absolute_ranks():
    from receval.explain import explain

    run = pd.DataFrame({"user": [1, 1], "item": [1, 2], "rank": [1, 4]})
    truth = pd.DataFrame({"user": [1], "item": [2]})
    with pytest.raises(rv.PolicyError, match="ranks='position'"):
        explain("mrr", run, truth, 1, ranks="position")


def test_a_huge_rank_needs_a_cutoff():
    run = pd.DataFrame({"user": [1, 1], "item": [1, 2], "rank": [1, 10**9]})
    truth = pd.DataFrame({"user": [1], "item": [2]})
    with pytest.raises(rv.PolicyError, match="give every metric a cutoff"):
        rv.evaluate(run, truth, ["mrr"], ranks="position")
    assert rv.evaluate(run, truth, ["mrr@10"], ranks="position")["mrr@10"] == 0.0
    assert rv.evaluate(run, truth, ["mrr@10"])["mrr@10"] == 0.5
