"""Conventions other libraries use, as named parameters: exact worked examples.

Expected values are worked out by hand from each formula, or are the values a library's own
documentation prints for its example (RecTools' ``MAP`` and ``NDCG`` docstrings).
"""

from __future__ import annotations

import math

import pytest

import receval as rv
from receval.errors import MetricError, PolicyError

# RecTools' docstring example (rectools/metrics/ranking.py, MAP and NDCG): recommendations in
# rank order and the held-out interactions of four users
RECO = {1: [7, 8], 2: [1, 2], 3: [1, 2, 3, 4], 4: [1, 2, 3]}
INTERACTIONS = {1: [1, 2], 2: [1], 3: [1, 3, 4], 4: [1, 2, 3]}
RUN = {u: {item: -float(r) for r, item in enumerate(items)} for u, items in RECO.items()}
TRUTH = {u: dict.fromkeys(items, 1) for u, items in INTERACTIONS.items()}


def _per_user(res, key):
    return dict(zip(res.user_ids.tolist(), res.user_values(key).tolist(), strict=True))


@pytest.mark.parametrize(("key", "expected"), [
    # printed by RecTools' docstrings
    ("map@1", [0.0, 1.0, 1 / 3, 1 / 3]),
    ("map@3", [0.0, 1.0, 0.55555556, 1.0]),
    ("map@1(denominator=k)", [0.0, 1.0, 1.0, 1.0]),
    ("map@3(denominator=k)", [0.0, 0.33333333, 0.55555556, 1.0]),
    ("ndcg@1(gain=binary,ideal=k)", [0.0, 1.0, 1.0, 1.0]),
    ("ndcg@3(gain=binary,ideal=k)", [0.0, 0.46927873, 0.70391809, 1.0]),
])
def test_rectools_documented_values(key, expected):
    res = rv.evaluate(RUN, TRUTH, [key])
    got = _per_user(res, key)
    assert [got[u] for u in (1, 2, 3, 4)] == pytest.approx(expected, abs=5e-9)


def test_ideal_k_worked_example():
    # truth a:3, b:1; list [b, x, a]; every ideal position holds relevance 3
    run = {"u": {"b": 3.0, "x": 2.0, "a": 1.0}}
    truth = {"u": {"a": 3, "b": 1}}
    d = [1 / math.log2(i + 2) for i in range(3)]
    res = rv.evaluate(run, truth, ["ndcg@3(ideal=k)", "idcg@3(ideal=k)", "ndcg@3(gain=binary)",
                                   "dcg@3(gain=binary)", "ndcg(ideal=k)"])
    assert res["idcg@3(ideal=k)"] == pytest.approx(3 * sum(d), rel=1e-15)
    assert res["ndcg@3(ideal=k)"] == pytest.approx((1 * d[0] + 3 * d[2]) / (3 * sum(d)),
                                                   rel=1e-15)
    assert res["dcg@3(gain=binary)"] == pytest.approx(d[0] + d[2], rel=1e-15)
    assert res["ndcg@3(gain=binary)"] == pytest.approx((d[0] + d[2]) / (d[0] + d[1]), rel=1e-15)
    # no cutoff: the ideal has one position per item of the list
    assert res["ndcg(ideal=k)"] == res["ndcg@3(ideal=k)"]


def test_map_denominator_k_divides_by_k_even_for_short_lists():
    run = {"u": {"a": 2.0, "b": 1.0}}      # 2 items, k = 5
    truth = {"u": {"a": 1, "b": 1, "c": 1}}
    res = rv.evaluate(run, truth, ["map@5(denominator=k)", "map(denominator=k)"])
    assert res["map@5(denominator=k)"] == pytest.approx(2 / 5, rel=1e-15)
    assert res["map(denominator=k)"] == pytest.approx(2 / 2, rel=1e-15)


def test_r_precision_capped_at_k():
    # R = 4; list [1, 1, 0, 1, 1]
    run = {"u": {"a": 5.0, "b": 4.0, "x": 3.0, "c": 2.0, "d": 1.0}}
    truth = {"u": {"a": 1, "b": 1, "c": 1, "d": 1}}
    res = rv.evaluate(run, truth, ["r_precision", "r_precision@2", "r_precision@3",
                                   "r_precision@2(denominator=rel)", "r_precision@9"])
    assert res["r_precision"] == pytest.approx(3 / 4, rel=1e-15)      # top R = 4
    assert res["r_precision@2"] == pytest.approx(2 / 2, rel=1e-15)     # top min(2, 4)
    assert res["r_precision@3"] == pytest.approx(2 / 3, rel=1e-15)
    assert res["r_precision@2(denominator=rel)"] == pytest.approx(2 / 4, rel=1e-15)
    assert res["r_precision@9"] == res["r_precision"]                  # k >= R: uncapped


def test_compat_names_read_the_library_values():
    res = rv.evaluate(RUN, TRUTH, ["ndcg@3", "map@3"], compat="rectools")
    assert res["ndcg@3"] == pytest.approx((0 + 0.46927873 + 0.70391809 + 1) / 4, abs=5e-9)
    assert res.info["compat"]["names"] == {"ndcg@3": "ndcg@3(gain=binary,ideal=k)",
                                           "map@3": "map@3"}
    assert res.metrics == ["ndcg@3(gain=binary,ideal=k)", "map@3"]


def test_compat_keys_override_the_preset_and_policies_override_too():
    specs, policies, names = rv.compat.resolve("rectools", ["ndcg@3(ideal=truth)"])
    assert [s.key for s in specs] == ["ndcg@3(gain=binary)"]
    res = rv.evaluate(RUN, TRUTH, ["precision_at_k@2"], compat="ms_recommenders",
                      users="truth")
    assert res.policies["users"] == "truth"
    assert res["precision_at_k@2"] == pytest.approx((0 + 0.5 + 0.5 + 1) / 4, rel=1e-15)


def test_compat_library_names_and_receval_names_agree():
    # RecBole's 'hit' and receval's 'hit_rate' name the same metric under the preset
    a = rv.evaluate(RUN, TRUTH, ["hit@2", "ndcg@2", "map@2"], compat="recbole")
    b = rv.evaluate(RUN, TRUTH, ["hit_rate@2", "ndcg@2(gain=binary)",
                                 "map@2(denominator=min_k_rel)"])
    assert list(a.summary.values()) == list(b.summary.values())


def test_ms_recommenders_r_precision_worked_example():
    # users 3 and 4 (R = 3): top min(2, 3) = 2 hold 1 and 2 hits; divided by R = 3
    res = rv.evaluate(RUN, TRUTH, ["r_precision_at_k@2"], compat="ms_recommenders")
    got = _per_user(res, "r_precision_at_k@2")
    assert got[3] == pytest.approx(1 / 3, rel=1e-15)
    assert got[4] == pytest.approx(2 / 3, rel=1e-15)


def test_strict_refuses_a_preset_that_reproduces_a_bug():
    ok = rv.evaluate(RUN, TRUTH, ["mark@3"], compat="recmetrics")
    assert ok["mark@3"] == rv.evaluate(RUN, TRUTH, ["map@3"], empty_truth="zero")["map@3"]
    with pytest.raises(MetricError, match="known bug"):
        rv.evaluate(RUN, TRUTH, ["mark@3"], compat="recmetrics", strict=True)
    # pyspark's RankingMetrics ignores graded relevance
    graded = {u: {i: 2 for i in t} for u, t in TRUTH.items()}
    spark = rv.evaluate(RUN, graded, ["ndcgat@3"], compat="spark_mllib")
    assert spark["ndcgat@3"] == rv.evaluate(RUN, TRUTH, ["ndcgat@3"], compat="spark_mllib")[
        "ndcgat@3"]
    with pytest.raises(MetricError, match="graded relevance.*is ignored"):
        rv.evaluate(RUN, graded, ["ndcgat@3"], compat="spark_mllib", strict=True)


def test_unknown_preset_and_unknown_name_explain_the_fix():
    with pytest.raises(PolicyError, match="rectools"):
        rv.evaluate(RUN, TRUTH, ["ndcg@3"], compat="rectool")
    with pytest.raises(MetricError, match="has no metric for 'bpref'"):
        rv.evaluate(RUN, TRUTH, ["bpref"], compat="recbole")


@pytest.mark.parametrize("name", sorted(rv.compat.PRESETS))
def test_every_preset_describes_itself_and_resolves_its_names(name):
    preset = rv.compat.PRESETS[name]
    text = rv.compat.describe(name)
    assert preset.version in text
    for lib_name, entry in preset.names.items():
        assert lib_name in text
        if entry.refused:
            assert entry.refused in text
            continue
        k = None if rv.metric(entry.family).definition.cutoff == "none" else 3
        at = "" if k is None else f"@{k}"
        specs, policies, _ = rv.compat.resolve(name, [f"{lib_name}{at}"], strict=False)
        params, own = entry.split()
        assert specs[0] == rv.metric(entry.family, k, **params)
        assert own.items() <= policies.items()


# Presets of libraries that do not run here (torch, a JVM, compiled extras): values worked out
# by hand from each library's formula on RecTools' example. k = 3.
#   user 1: [7, 8], truth {1, 2}: no hit          user 2: [1, 2], truth {1}: hit at rank 1
#   user 3: [1, 2, 3, 4], truth {1, 3, 4}: hits at 1, 3 within k   user 4: [1, 2, 3]: all hits
_L3 = 1 / math.log2(3)
_HAND = {
    ("recbole", "map@3"): [0, 1, (1 + 2 / 3) / 3, 1],              # / min(R, k)
    ("recbole", "ndcg@3"): [0, 1, (1 + 0.5) / (1 + _L3 + 0.5), 1],  # binary, ideal min(R, k)
    ("recbole", "precision@3"): [0, 1 / 3, 2 / 3, 1],
    ("recbole", "hit@3"): [0, 1, 1, 1],
    ("lenskit", "precision@3"): [0, 1 / 2, 2 / 3, 1],               # / list length
    ("lenskit", "recall@3"): [0, 1, 2 / 3, 1],                     # / min(R, k)
    ("lenskit", "ndcg@3"): [0, 1, (1 + _L3) / (1 + 1 + _L3), 1],    # 1/log2(max(i, 2))
    ("spark_mllib", "meanaverageprecisionat@3"): [0, 1, (1 + 2 / 3) / 3, 1],
    ("spark_mllib", "ndcgat@3"): [0, 1, (1 + 0.5) / (1 + _L3 + 0.5), 1],
    ("spark_mllib", "recallat@3"): [0, 1, 2 / 3, 1],
    ("torchmetrics", "retrievalmap@3"): [0, 1, (1 + 2 / 3) / 2, 1],  # / hits
    ("torchmetrics", "retrievalprecision@3"): [0, 1 / 3, 2 / 3, 1],
    ("cornac", "ndcg@3"): [0, 1, (1 + 0.5) / (1 + _L3 + 0.5), 1],
    ("cornac", "mrr"): [0, 1, 1, 1],
    ("cornac", "map"): [0, 1, (1 + 2 / 3 + 3 / 4) / 3, 1],          # whole ranking / positives
    ("daisyrec", "map@3"): [0, 1, (1 + 2 / 3) / 2, 1],              # / hits
    ("daisyrec", "ndcg@3"): [0, 1, (1 + 0.5) / (1 + _L3), 1],       # ideal: own top k sorted
    ("daisyrec", "precision@3"): [0, 1 / 2, 2 / 3, 1],
    ("replay", "map@3"): [0, 1, (1 + 2 / 3) / 3, 1],               # / min(k, R)
    ("replay", "ndcg@3"): [0, 1, (1 + 0.5) / (1 + _L3 + 0.5), 1],
    ("replay", "precision@3"): [0, 1 / 3, 2 / 3, 1],
    # RocAuc@3: user 1 no hit -> 0; user 2 (hit, miss) -> 1; user 3 (hit, miss, hit): 1 - 1/2;
    # user 4: no miss -> 1
    ("replay", "rocauc@3"): [0, 1, 0.5, 1],
    ("recpack", "ndcgk@3"): [0, 1, (1 + 0.5) / (1 + _L3 + 0.5), 1],
    ("recpack", "calibratedrecallk@3"): [0, 1, 2 / 3, 1],          # / min(R, K)
    ("recpack", "recallk@2"): [0, 1, 1 / 3, 2 / 3],
}


@pytest.mark.parametrize(("preset", "name"), sorted(_HAND))
def test_presets_against_hand_computed_values(preset, name):
    run = RUN
    if preset == "daisyrec":  # DaisyRec scores lists already cut at k
        run = {u: dict(sorted(items.items(), key=lambda kv: -kv[1])[:3])
               for u, items in RUN.items()}
    res = rv.evaluate(run, TRUTH, [name], compat=preset)
    got = _per_user(res, res.info["compat"]["names"][name])
    assert [got[u] for u in (1, 2, 3, 4)] == pytest.approx(_HAND[preset, name], rel=1e-14)


def test_replay_surprisal_documented_values():
    # RePlay's Surprisal docstring (replay/metrics/surprisal.py): per-user Surprisal@2
    recs = {1: [3, 7, 10, 11, 2], 2: [5, 8, 11, 1, 3], 3: [4, 9, 2]}
    train = {1: [5, 6, 8, 9, 2], 2: [5, 8, 11, 1, 3], 3: [4, 9, 2]}
    run = {u: {i: -float(r) for r, i in enumerate(items)} for u, items in recs.items()}
    truth = {u: {items[0]: 1} for u, items in recs.items()}
    train_rows = [(u, i) for u, items in train.items() for i in items]
    import pandas as pd

    key = "novelty@2(denominator=k,normalize=max,pop=users)"
    res = rv.evaluate(run, truth, [key], train=pd.DataFrame(train_rows, columns=["user", "item"]))
    assert res.user_values(key).tolist() == pytest.approx(
        [1.0, 0.3690702464285426, 0.6845351232142713], rel=1e-12)
    # the RePlay preset names it
    res2 = rv.evaluate(run, truth, ["surprisal@2"], compat="replay",
                       train=pd.DataFrame(train_rows, columns=["user", "item"]))
    assert res2["surprisal@2"] == pytest.approx(0.6845351232142715, rel=1e-12)


def test_rectools_arp_documented_values():
    # RecTools' AvgRecPopularity docstring (rectools/metrics/popularity.py)
    recs = {1: [1, 2], 2: [3, 1, 2], 3: [3, 2]}
    train = [(1, 1), (1, 2), (2, 1), (2, 3), (3, 1), (3, 2)]
    import pandas as pd

    run = {u: {i: -float(r) for r, i in enumerate(items)} for u, items in recs.items()}
    truth = {u: {items[0]: 1} for u, items in recs.items()}
    frame = pd.DataFrame(train, columns=["user", "item"])
    res = rv.evaluate(run, truth, ["arp@1", "arp@3", "arp@3(normalize=share)"], train=frame)
    assert res.user_values("arp@1").tolist() == [3.0, 1.0, 1.0]
    assert res.user_values("arp@3").tolist() == [2.5, 2.0, 1.5]
    assert res.user_values("arp@3(normalize=share)").tolist() == pytest.approx(
        [0.41666667, 0.33333333, 0.25], abs=5e-9)
