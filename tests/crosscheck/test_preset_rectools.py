"""``compat="rectools"``: RecTools' own expected values, and its options.

Worked examples from RecTools' tests (MobileTeleSystems/RecTools ``tests/metrics/``:
``test_ranking.py``, ``test_classification.py``, ``test_auc.py``, ``test_dq.py``,
``test_catalog.py``, ``test_popularity.py``, ``test_novelty.py``, ``test_serendipity.py``,
``test_diversity.py``), each reco table passed as a rank run (``ranks="position"``) and the
interactions as the truth. The whole check against RecTools itself is
``benchmarks/peers/libs/rectools.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.compat import PRESETS, resolve
from receval.errors import MetricError

NAMES = PRESETS["rectools"].names


def _reco(users, items, ranks) -> pd.DataFrame:
    return pd.DataFrame({"user": users, "item": items, "rank": ranks})


def _inter(users, items) -> pd.DataFrame:
    return pd.DataFrame({"user": users, "item": items})


def _per_user(run, truth, name: str, **kwargs) -> dict:
    """One name's per-user values under the preset, by user."""
    res = rv.evaluate(run, truth, [name], compat="rectools", **kwargs)
    key = resolve("rectools", [name])[2][name]
    col = res.per_user[key]
    return {u: float(v) for u, v in col.items()}


def _assert_users(got: dict, want: dict) -> None:
    """The users RecTools scores, with its values (NaN: no value, left out of the mean)."""
    for user, value in want.items():
        if math.isnan(value):
            assert math.isnan(got.get(user, math.nan)), user
        else:
            assert got[user] == pytest.approx(value, rel=1e-12, abs=1e-15), user


# ---- tests/metrics/test_ranking.py -----------------------------------------------------------

MAP_RECO = _reco([1, 1, 2, 3, 3, 3, 3, 3, 4, 5, 5, 5, 7, 8, 9],
                 [1, 3, 1, 1, 2, 3, 4, 5, 1, 1, 2, 3, 1, 2, 1],
                 [9, 1, 3, 1, 3, 5, 7, 9, 1, 1, 2, 3, 2, 1, 1])
MAP_INTER = _inter([1, 1, 2, 3, 3, 3, 3, 3, 3, 4, 5, 5, 5, 6, 7, 8],
                   [1, 2, 1, 1, 2, 3, 4, 5, 6, 1, 1, 2, 3, 1, 1, 1])


@pytest.mark.parametrize(("name", "expected"), [
    ("map@1", [0, 0, 1 / 6, 1, 1 / 3, 0, 0, 0]),
    ("map@3", [0, 1 / 3, 1 / 6 * (1 / 1 + 2 / 3), 1, 1, 0, 1 * (1 / 2), 0]),
    ("map@1(divide_by_k=True)", [0, 0, 1, 1, 1, 0, 0, 0]),
    ("map@3(divide_by_k=True)", [0, 1 / 9, 1 / 3 * (1 / 1 + 2 / 3), 1 / 3, 1, 0, 1 / 3 * (1 / 2), 0]),
    ("map(k=3, divide_by_k=True)", [0, 1 / 9, 1 / 3 * (1 / 1 + 2 / 3), 1 / 3, 1, 0, 1 / 6, 0]),
])
def test_map(name, expected):
    got = _per_user(MAP_RECO, MAP_INTER, name)
    _assert_users(got, dict(zip([1, 2, 3, 4, 5, 6, 7, 8], expected, strict=True)))
    assert 9 not in got  # a user only in the reco table is not a RecTools user


NDCG_RECO = _reco([1, 2, 3, 3, 3, 4, 5, 5, 5, 5, 6], [1, 2, 1, 2, 3, 1, 1, 2, 3, 5, 1],
                  [9, 1, 1, 2, 3, 1, 3, 7, 9, 1, 1])
NDCG_INTER = _inter([1, 2, 3, 3, 3, 4, 5], [1, 1, 1, 2, 3, 1, 1])
_IDCG3 = 1 / np.log2(2) + 1 / np.log2(3) + 1 / np.log2(4)


@pytest.mark.parametrize(("name", "expected"), [
    ("ndcg@1", [0, 0, 1, 1, 0]),
    ("ndcg@3", [0, 0, 1, 1 / _IDCG3, 0.5 / _IDCG3]),
    ("ndcg@3(log_base=10)", [0, 0, 1, 1 / _IDCG3, 0.5 / _IDCG3]),
    ("ndcg@1(divide_by_achievable=True)", [0, 0, 1, 1, 0]),
    ("ndcg@3(divide_by_achievable=True)", [0, 0, 1, 1, (1 / np.log2(4)) / (1 / np.log2(2))]),
])
def test_ndcg(name, expected):
    _assert_users(_per_user(NDCG_RECO, NDCG_INTER, name),
                  dict(zip([1, 2, 3, 4, 5], expected, strict=True)))


@pytest.mark.parametrize(("k", "expected"), [(1, [0, 0, 1, 1, 0]), (3, [0, 0, 1, 1, 1 / 3])])
def test_mrr(k, expected):
    reco = _reco([1, 2, 3, 3, 3, 4, 5, 5, 5, 5], [1, 2, 1, 2, 3, 1, 1, 2, 3, 5],
                 [9, 1, 1, 2, 3, 1, 3, 7, 9, 1])
    inter = _inter([1, 2, 3, 3, 3, 4, 5, 5, 5, 5], [1, 1, 1, 2, 3, 1, 1, 2, 3, 4])
    _assert_users(_per_user(reco, inter, f"mrr@{k}"),
                  dict(zip([1, 2, 3, 4, 5], expected, strict=True)))


# ---- tests/metrics/test_classification.py ----------------------------------------------------

RECO = _reco([1, 1, 1, 2, 2, 3, 4], [1, 2, 3, 1, 2, 1, 1], [1, 2, 3, 1, 2, 1, 1])
INTER = _inter([1, 1, 1, 3, 4, 5], [4, 2, 3, 1, 2, 2])
CATALOG = list(range(10))


@pytest.mark.parametrize(("name", "expected", "kwargs"), [
    ("precision@2", [0.5, 0.5, 0.0, 0.0], {}),
    ("precision@2(r_precision=True)", [0.5, 1, 0.0, 0.0], {}),
    ("recall@2", [1 / 3, 1, 0, 0], {}),
    ("accuracy@2", [0.7, 0.9, 0.7, 0.7], {"catalog": CATALOG}),
    (f"f1beta@2(beta={2 ** 0.5!r})", [0.375, 0.75, 0, 0], {}),
    ("mcc@2(n_items=10)", [1 / 21 ** 0.5, 2 / 3, -1 / 6, -1 / 6], {}),
    ("hitrate@2", [1, 1, 0, 0], {}),
])
def test_classification(name, expected, kwargs):
    got = _per_user(RECO, INTER, name, **kwargs)
    _assert_users(got, dict(zip([1, 3, 4, 5], expected, strict=True)))
    assert 2 not in got  # no interactions: not a RecTools user


# ---- tests/metrics/test_auc.py ---------------------------------------------------------------

AUC_RECO = _reco([1, 2, 3, 3, 3, 4, 5, 5, 5, 5], [1, 2, 1, 2, 3, 1, 1, 2, 3, 5],
                 [9, 1, 1, 2, 3, 1, 3, 7, 9, 1])
AUC_INTER = _inter([1, 2, 3, 3, 3, 4, 5, 5, 5, 5], [1, 1, 1, 2, 3, 1, 1, 2, 3, 4])


@pytest.mark.parametrize(("name", "expected"), [
    ("partialauc@1", [0, 0, 1, 1, 0]),
    ("partialauc@3", [0, 0, 1, 1, 1 / 12]),
    ("partialauc@1(insufficient_handling=exclude)", [0, 0, 1, 1, 0]),
    # user 2: one non-relevant item (< 3) and its relevant item not recommended: excluded
    ("partialauc@3(insufficient_handling=exclude)", [0, math.nan, 1, 1, 1 / 12]),
    ("partialauc@3(insufficient_handling=ignore)", [0, 0, 1, 1, 1 / 12]),
])
def test_partial_auc(name, expected):
    got = _per_user(AUC_RECO, AUC_INTER, name)
    want = dict(zip([1, 2, 3, 4, 5], expected, strict=True))
    _assert_users(got, want)
    assert rv.evaluate(AUC_RECO, AUC_INTER, [name], compat="rectools")[name] == \
        pytest.approx(np.nanmean(expected), rel=1e-12)


def test_insufficient_lists_left_out_of_pap_too():
    """pap(insufficient=exclude): the same users as pauc's are left out (RecTools auc.py's
    _handle_insufficient_cases is shared by both)."""
    ignore = _per_user(AUC_RECO, AUC_INTER, "pap@3")
    exclude = _per_user(AUC_RECO, AUC_INTER, "pap@3(insufficient_handling=exclude)")
    assert math.isnan(exclude[2]) and not math.isnan(ignore[2])
    assert {u: v for u, v in exclude.items() if u != 2} == \
        {u: v for u, v in ignore.items() if u != 2}


def test_insufficient_raise_is_refused_with_the_accepted_values():
    with pytest.raises(MetricError, match="insufficient_handling='raise': accepted values are "
                                          "exclude, ignore"):
        rv.evaluate(AUC_RECO, AUC_INTER, ["partialauc@3(insufficient_handling=raise)"],
                    compat="rectools")


# ---- tests/metrics/test_dq.py, test_catalog.py -----------------------------------------------

def test_sufficient_reco_counts_the_rows_with_rank_at_most_k():
    """test_dq.py's table without user 2 (whose two rows share rank 1): a row at rank 3 is
    outside the top 2, so user 3 has none."""
    reco = _reco([1, 1, 1, 3, 4], [1, 2, 3, 1, 1], [1, 2, 3, 3, 2])
    inter = _inter([1], [1])
    kw = {"users": "run", "empty_truth": "zero"}
    _assert_users(_per_user(reco, inter, "sufficientreco@2(deep=True)", **kw),
                  {1: 1.0, 3: 0.0, 4: 0.5})
    _assert_users(_per_user(reco, inter, "sufficientreco(k=2)", **kw), {1: 1, 3: 0, 4: 0})


def test_covered_users():
    # users of the interactions with a row at rank <= k: 1, 3, 4 of 1, 3, 4, 5
    assert rv.evaluate(RECO, INTER, ["coveredusers@2"], compat="rectools")[
        "coveredusers@2"] == 0.75
    assert rv.evaluate(RECO, INTER, ["coveredusers@1"], compat="rectools")[
        "coveredusers@1"] == 0.75


@pytest.mark.parametrize(("normalize", "expected"), [(True, 0.4), (False, 2.0)])
@pytest.mark.parametrize("rank", [1, 2])
def test_catalog_coverage(normalize, expected, rank):
    """test_catalog.py's table (user 2's second row shares rank 1), and the same with that
    row at rank 2: the same items at rank <= 2."""
    reco = _reco([1, 1, 1, 2, 2, 3, 4], [1, 2, 3, 1, 2, 1, 1], [1, 2, 3, 1, rank, 3, 2])
    name = f"catalogcoverage@2(normalize={normalize})"
    got = rv.evaluate(reco, _inter([1], [1]), [name], compat="rectools", users="run",
                      empty_truth="zero", catalog=list(range(5)))[name]
    assert got == expected


def test_shared_ranks_are_read_by_the_ranking_metrics():
    """test_dq.py's table: user 2 has two rows at rank 1, both in the top 1 (RecTools filters
    rank <= k): precision@1 2/1, recall@1 2/2, MAP@2 (2 hits at rank 1) / 1 / 2."""
    reco = _reco([1, 1, 1, 2, 2, 3, 4], [1, 2, 3, 1, 2, 1, 1], [1, 2, 3, 1, 1, 3, 2])
    inter = _inter([2, 2], [1, 2])
    for name, want in [("precision@1", 2.0), ("recall@1", 1.0), ("map@2", 1.0),
                       ("mrr@2", 1.0), ("hitrate@1", 1.0)]:
        _assert_users(_per_user(reco, inter, name), {2: want})
    with pytest.raises(rv.InputError, match=r"user 2 has 2 rows at rank 1 \(shared rank\).*"
                                            r"pauc@2.*ranks='order'"):
        rv.evaluate(reco, inter, ["partialauc@2"], compat="rectools")


def test_sufficient_reco_reads_rows_sharing_a_rank():
    """test_dq.py's whole table: user 2's two rows at rank 1 are two rows with rank <= 2."""
    reco = _reco([1, 1, 1, 2, 2, 3, 4], [1, 2, 3, 1, 2, 1, 1], [1, 2, 3, 1, 1, 3, 2])
    kw = {"users": "run", "empty_truth": "zero"}
    _assert_users(_per_user(reco, _inter([1], [1]), "sufficientreco@2(deep=True)", **kw),
                  {1: 1.0, 2: 1.0, 3: 0.0, 4: 0.5})
    _assert_users(_per_user(reco, _inter([1], [1]), "sufficientreco(k=2)", **kw),
                  {1: 1, 2: 1, 3: 0, 4: 0})


# ---- tests/metrics/test_popularity.py, test_novelty.py, test_serendipity.py ------------------

POP_TRAIN = _inter(["u1", "u1", "u2", "u2", "u3", "u3"], ["i1", "i2", "i1", "i3", "i1", "i2"])
POP_RECO = _reco(["u1", "u1", "u2", "u2", "u2", "u3", "u3"],
                 ["i1", "i2", "i3", "i1", "i2", "i3", "i2"], [1, 2, 1, 2, 3, 1, 2])


@pytest.mark.parametrize(("name", "expected"), [
    ("avgrecpopularity@1", [3.0, 1.0, 1.0]),
    ("avgrecpopularity@3", [2.5, 2.0, 1.5]),
    ("avgrecpopularity@1(normalize=True)", [0.5, 1 / 6, 1 / 6]),
    ("avgrecpopularity@3(normalize=True)", [5 / 12, 1 / 3, 0.25]),
])
def test_avg_rec_popularity(name, expected):
    got = _per_user(POP_RECO, _inter(["u1"], ["i1"]), name, train=POP_TRAIN, users="run",
                    empty_truth="zero")
    _assert_users(got, dict(zip(["u1", "u2", "u3"], expected, strict=True)))


@pytest.mark.parametrize(("k", "expected"), [
    (1, [-np.log2(1 / 3), -np.log2(1 / 3), 0]),
    (2, [-np.log2(1 / 3), -np.log2(1 / 3), -np.log2(1 / 3) / 2]),
])
def test_mean_inv_user_freq(k, expected):
    train = _inter(["u1", "u1", "u2", "u3"], ["i1", "i2", "i1", "i1"])
    reco = _reco(["u1", "u2", "u2", "u3", "u3"], ["i3", "i2", "i3", "i1", "i2"],
                 [1, 1, 2, 1, 2])
    got = _per_user(reco, _inter(["u1"], ["i1"]), f"meaninvuserfreq@{k}", train=train,
                    users="run", empty_truth="zero")
    _assert_users(got, dict(zip(["u1", "u2", "u3"], expected, strict=True)))


@pytest.mark.parametrize(("k", "expected"), [(1, [0, 0.25, 0, 0.25]), (2, [0, 0.5, 0, 0.125])])
def test_serendipity(k, expected):
    train = _inter(["u1", "u1", "u2", "u2", "u3"], ["i1", "i2", "i1", "i2", "i1"])
    test = _inter(["u1", "u1", "u2", "u2", "u3", "u4"], ["i1", "i2", "i2", "i3", "i2", "i2"])
    reco = _reco(["u1", "u1", "u2", "u2", "u3", "u4", "u4"],
                 ["i1", "i2", "i2", "i3", "i3", "i2", "i3"], [1, 2, 1, 2, 1, 1, 2])
    got = _per_user(reco, test, f"serendipity@{k}", train=train, users="run",
                    catalog=["i1", "i2", "i3", "i4"])
    _assert_users(got, dict(zip(["u1", "u2", "u3", "u4"], expected, strict=True)))


# ---- tests/metrics/test_diversity.py ---------------------------------------------------------

def _hamming_similarity(a, b) -> np.ndarray:
    """1 - RecTools' PairwiseHammingDistanceCalculator distance."""
    return 1.0 - np.asarray((np.asarray(a) != np.asarray(b)).sum(axis=1), dtype=float).ravel()


@pytest.mark.parametrize(("k", "expected"), [
    (1, [0, 0, 0]), (2, [1, math.nan, 0]), (3, [4 / 3, math.nan, 0]),
])
def test_intra_list_diversity(k, expected):
    """Item i4 has no features: u2's only pair has no distance (NaN, left out of the mean)."""
    features = {"i1": np.array([0.0, 0.0]), "i2": np.array([0.0, 1.0]),
                "i3": np.array([1.0, 1.0])}
    reco = _reco(["u1", "u1", "u1", "u2", "u2", "u3"], ["i1", "i2", "i3", "i1", "i4", "i1"],
                 [1, 2, 3, 1, 2, 1])
    name = f"intralistdiversity@{k}(sim=custom)"
    kw = {"item_features": features, "similarity": _hamming_similarity, "users": "run",
          "empty_truth": "zero"}
    got = _per_user(reco, _inter(["u1"], ["i1"]), name, **kw)
    _assert_users(got, dict(zip(["u1", "u2", "u3"], expected, strict=True)))
    assert rv.evaluate(reco, _inter(["u1"], ["i1"]), [name], compat="rectools", **kw)[name] \
        == pytest.approx(np.nanmean(expected), rel=1e-12)


# ---- the table itself ------------------------------------------------------------------------

def test_every_exported_metric_class_has_an_entry():
    """rectools/metrics/__init__.py's __all__ at 0.19.0: its metric classes and the debiasing
    tools (the calculators and calc_metrics are tools, not metrics)."""
    exported = ["Precision", "Recall", "F1Beta", "Accuracy", "MCC", "HitRate", "MAP", "NDCG",
                "PartialAUC", "PAP", "MRR", "CatalogCoverage", "MeanInvUserFreq",
                "IntraListDiversity", "AvgRecPopularity", "Serendipity", "Intersection",
                "SufficientReco", "UnrepeatedReco", "CoveredUsers", "DebiasConfig",
                "debias_interactions"]
    assert sorted(n.lower() for n in exported) == sorted(NAMES)


@pytest.mark.parametrize("name", sorted(n for n, e in NAMES.items() if e.refused))
def test_refused_names_give_the_reason(name):
    with pytest.raises(MetricError, match="reproduced") as info:
        rv.evaluate({1: {1: 1.0}}, {1: {1: 1}}, [name], compat="rectools")
    assert NAMES[name].refused in str(info.value)


@pytest.mark.parametrize("name", sorted(n for n, e in NAMES.items()
                                        if not e.refused and "debias_config" in dict(e.options)))
def test_debias_config_only_none(name):
    key = f"{name}@3(debias_config=None)"
    assert resolve("rectools", [key])[2][key] == resolve("rectools", [f"{name}@3"])[2][
        f"{name}@3"]
    with pytest.raises(MetricError, match="debias_config=.*accepted values are none"):
        resolve("rectools", [f"{name}@3(debias_config=DebiasConfig)"])


@pytest.mark.parametrize("key", ["ndcg@3(log_base=3)", "map@3(divide_by_k=maybe)",
                                 "sufficientreco@3(deep=2)"])
def test_bad_option_values_are_refused_naming_them(key):
    option = key[key.index("(") + 1:key.index("=")]
    with pytest.raises(MetricError, match=f"{option}=.*accepted values"):
        resolve("rectools", [key])


def test_the_cutoff_as_k():
    assert resolve("rectools", ["ndcg(k=5)"])[2]["ndcg(k=5)"] == \
        resolve("rectools", ["ndcg@5"])[2]["ndcg@5"]
    with pytest.raises(MetricError, match="two cutoffs"):
        resolve("rectools", ["ndcg@3(k=5)"])
