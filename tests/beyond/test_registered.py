from __future__ import annotations

import importlib
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import receval as rv
import receval.beyond.registered  # noqa: F401  (registers the metrics)
from receval.errors import InputError
from receval.metrics.spec import PLUGIN_MODULES

LOG2_6 = math.log2(6)
S2 = math.sqrt(2)


@pytest.fixture
def data():
    run = pd.DataFrame({"user": ["a", "a", "a", "b", "b", "b"], "item": [1, 2, 3, 1, 4, 5],
                        "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0]})
    truth = pd.DataFrame({"user": ["a", "b"], "item": [2, 9]})
    # item 1: 3 rows (users a, c), items 4, 6, 7: 1 row each; 6 rows, 3 users
    train = pd.DataFrame({"user": ["a", "a", "b", "c", "c", "c"], "item": [1, 1, 4, 1, 6, 7]})
    vec = {1: [1, 0], 2: [0, 1], 3: [1, 1], 4: [1, 0], 5: [0, 1], 6: [1, 0], 7: [0, 1]}
    feats = pd.DataFrame.from_dict(vec, orient="index", dtype=float)
    return run, truth, train, feats


def test_catalogue_metrics_exact(data):
    run, truth, train, feats = data
    res = rv.evaluate(run, truth, ["coverage@2", "coverage@3", "coverage@3(kind=count)",
                                   "gini@3", "gini@3(denominator=n)",
                                   "entropy@3", "entropy@3(normalize=true)",
                                   "dist_coverage@3", "tail_share@3", "personalization@3"],
                      train=train)
    s = res.summary
    # catalogue = train + truth + run items = {1, 2, 3, 4, 5, 6, 7, 9}
    assert s["coverage@2"] == 3 / 8
    assert s["coverage@3"] == 5 / 8
    assert s["coverage@3(kind=count)"] == 5
    assert res.info["coverage@3"]["catalog_size"] == 8
    assert "train + truth + run" in res.info["coverage@3"]["catalog"]
    # exposure over 8 items: [0, 0, 0, 1, 1, 1, 1, 2] / 6
    assert s["gini@3"] == pytest.approx((-1 + 1 + 3 + 5 + 7 * 2) / 6 / 7, abs=1e-15)
    assert s["gini@3(denominator=n)"] == pytest.approx((-1 + 1 + 3 + 5 + 7 * 2) / 6 / 8,
                                                       abs=1e-15)
    h = -(1 / 3 * math.log2(1 / 3) + 4 / 6 * math.log2(1 / 6))
    assert s["entropy@3"] == pytest.approx(h, abs=1e-14)
    assert s["entropy@3(normalize=true)"] == pytest.approx(h / 3, abs=1e-14)
    assert s["dist_coverage@3"] == pytest.approx(2 ** h / 8, abs=1e-14)
    # head = ceil(0.2 * 4 training items) = item 1; 4 of 6 slots are tail items
    assert s["tail_share@3"] == 4 / 6
    assert s["personalization@3"] == pytest.approx(1 - 1 / 3, abs=1e-15)
    assert np.isnan(res.user_values("gini@3")).all()


def test_per_user_metrics_exact(data):
    run, truth, train, feats = data
    res = rv.evaluate(run, truth, ["arp@3", "aplt@3", "novelty@3", "novelty@3(pop=users)",
                                   "user_coverage@3(kind=hit)", "user_coverage@3",
                                   "serendipity@3(unexpected=popularity)"], train=train)
    pu = res.per_user
    assert pu.loc["a", "arp@3"] == (3 + 0 + 0) / 3 and pu.loc["b", "arp@3"] == (3 + 1 + 0) / 3
    assert pu.loc["a", "aplt@3"] == 2 / 3
    # p(1) = 3/6 -> 1 bit; item 4 and the unseen items (counted once) -> log2 6
    assert pu.loc["a", "novelty@3"] == pytest.approx((1 + 2 * LOG2_6) / 3, abs=1e-14)
    # pop=users: p(1) = 2/3 users, p(4) = 1/3, unseen = 1/3
    assert pu.loc["b", "novelty@3(pop=users)"] == pytest.approx(
        (math.log2(3 / 2) + 2 * math.log2(3)) / 3, abs=1e-14)
    assert pu["user_coverage@3(kind=hit)"].tolist() == [1.0, 0.0]
    assert pu["user_coverage@3"].tolist() == [1.0, 1.0]
    # top 3 training items with ties = all seen items; a's relevant item 2 is unseen in train
    assert pu["serendipity@3(unexpected=popularity)"].tolist() == [1 / 3, 0.0]


def test_similarity_metrics_exact(data):
    run, truth, train, feats = data
    keys = ["ils@3", "ild@3", "sim_novelty@3", "sim_novelty@3(reference=history)",
            "serendipity@3"]
    res = rv.evaluate(run, truth, keys, train=train, item_features=feats)
    pu = res.per_user
    assert pu.loc["a", "ils@3"] == pytest.approx((0 + 2 / S2) / 3, abs=1e-15)
    assert pu.loc["b", "ils@3"] == pytest.approx(1 / 3, abs=1e-15)
    np.testing.assert_allclose(pu["ils@3"] + pu["ild@3"], 1.0, atol=1e-15)
    np.testing.assert_allclose(pu["sim_novelty@3"], pu["ild@3"], atol=1e-15)
    # history of a = {1}, of b = {4}
    assert pu.loc["a", "sim_novelty@3(reference=history)"] == pytest.approx(
        (0 + 1 + (1 - 1 / S2)) / 3, abs=1e-15)
    assert pu.loc["b", "sim_novelty@3(reference=history)"] == pytest.approx(1 / 3, abs=1e-15)
    # a: relevant item 2, orthogonal to the history -> 1/3; b: nothing relevant
    assert pu["serendipity@3"].tolist() == pytest.approx([1 / 3, 0.0], abs=1e-15)
    # co-occurrence: users of 1 = {a, c}, of 4 = {b}; items 2, 3, 5 have no training users
    with pytest.raises(InputError, match=r"without features.*ild@3\(missing=skip,source="):
        rv.evaluate(run, truth, ["ild@3(source=cooccurrence)"], train=train)
    res2 = rv.evaluate(run, truth, ["ild@3(source=cooccurrence,missing=skip)"], train=train)
    assert res2.per_user["ild@3(missing=skip,source=cooccurrence)"].tolist()[1] == pytest.approx(
        1.0, abs=1e-15)
    assert math.isnan(res2.per_user["ild@3(missing=skip,source=cooccurrence)"].tolist()[0])


def test_custom_similarity_through_evaluate(data):
    run, truth, train, feats = data

    def always_half(a, b):
        return np.full(a.shape[0], 0.5)

    res = rv.evaluate(run, truth, ["ils@3(sim=custom)"], item_features=feats,
                      similarity=always_half)
    assert res.summary["ils@3(sim=custom)"] == 0.5
    with pytest.raises(InputError, match="similarity=fn"):
        rv.evaluate(run, truth, ["ils@3(sim=custom)"], item_features=feats)


def test_catalog_forms(data):
    run, truth, train, _ = data
    def cov(**kw):
        return rv.evaluate(run, truth, ["coverage@3"], **kw).summary["coverage@3"]
    assert cov() == 5 / 6  # no train: truth + run = {1, 2, 3, 4, 5, 9}
    assert cov(catalog=20) == 5 / 20
    assert cov(catalog=list(range(1, 11))) == 5 / 10
    assert cov(catalog="train+run", train=train) == 5 / 7
    with pytest.raises(InputError, match="not in the catalogue"):
        cov(catalog="train", train=train)
    with pytest.raises(InputError, match=r"catalogue size evaluate\(catalog=3\) is smaller "
                                         r"than the 5 distinct"):
        cov(catalog=3)
    with pytest.raises(InputError, match="unknown source"):
        cov(catalog="everything")


def test_missing_inputs_named(data):
    run, truth, train, feats = data
    with pytest.raises(InputError, match="train="):
        rv.evaluate(run, truth, ["novelty@3"])
    with pytest.raises(InputError, match="item_features="):
        rv.evaluate(run, truth, ["ild@3"])
    with pytest.raises(InputError, match="without features"):
        rv.evaluate(run, truth, ["ild@3"], item_features=feats.drop(index=[5]))
    with pytest.raises(InputError, match="never occur"):
        rv.evaluate(run, truth, ["novelty@3(unseen=error)"], train=train)


def test_keys_round_trip():
    for key in ["entropy@10(base=e,normalize=true)", "coverage@10(kind=count)",
                "gini@5(denominator=n,over=recommended)", "aplt@20(head=0.1,pop=users)",
                "serendipity@10(top=50,unexpected=popularity)", "ild@10(sim=jaccard)"]:
        assert rv.parse_metric(key).key == key
    assert rv.parse_metric("entropy@10(base=2)").key == "entropy@10"
    assert rv.parse_metric("diversity@10").key == "ild@10"


def _random_eval(seed, n_users=80, n_items=60):
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(n_users):
        length = int(rng.integers(0, 9))
        for r, i in enumerate(rng.choice(n_items, size=length, replace=False)):
            rows.append((f"u{u}", int(i), float(length - r)))
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": [f"u{u}" for u in range(n_users)],
                          "item": rng.integers(0, n_items, n_users)})
    train = pd.DataFrame({"user": [f"u{u}" for u in rng.integers(0, n_users, 500)],
                          "item": rng.integers(0, n_items, 500)})
    feats = rng.normal(size=(n_items, 5))
    return run, truth, train, feats


KEYS = ["coverage@5", "gini@5", "entropy@5", "dist_coverage@5", "tail_share@5",
        "personalization@5", "ild@5", "ils@5(sim=jaccard)", "novelty@5", "arp@5", "aplt@5",
        "sim_novelty@5(reference=history)", "serendipity@5", "user_coverage@5"]


def test_block_sizes_give_identical_results(monkeypatch):
    run, truth, train, feats = _random_eval(1)
    ref = rv.evaluate(run, truth, KEYS, train=train, item_features=feats)
    readers = [m for m in map(importlib.import_module, PLUGIN_MODULES)
               if hasattr(m, "BLOCK_USERS")]
    assert len(readers) >= 2  # the catalogue metrics and personalization build block states
    for module in readers:
        monkeypatch.setattr(module, "BLOCK_USERS", 3)
    got = rv.evaluate(run, truth, KEYS, train=train, item_features=feats)
    assert got.summary == ref.summary
    assert np.array_equal(got.values, ref.values, equal_nan=True)


def test_matches_standalone_functions():
    run, truth, train, feats = _random_eval(2)
    res = rv.evaluate(run, truth, ["ild@5", "personalization@5"], train=train,
                      item_features=feats)
    lists = []
    for u in res.user_ids:
        sub = run[run.user == u].sort_values(["score", "item"], ascending=[False, True])
        lists.append(sub["item"].tolist()[:5])
    np.testing.assert_allclose(res.user_values("ild@5"),
                               rv.beyond.intra_list_diversity(lists, feats), atol=1e-15)
    assert res.summary["personalization@5"] == pytest.approx(
        rv.beyond.personalization(lists), abs=1e-15)


def test_numpy_run_sparse_truth_and_train():
    topk = np.array([[0, 1, 2], [0, 3, -1], [4, 5, 6]])
    truth = sp.csr_matrix(np.array([[1, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 1],
                                    [0, 0, 0, 0, 0, 0, 1, 0]]))
    train = sp.csr_matrix(np.array([[1, 1, 0, 0, 0, 0, 0, 0], [1, 0, 0, 1, 0, 0, 0, 0],
                                    [1, 0, 0, 0, 0, 0, 0, 0]]))
    feats = np.eye(8)
    res = rv.evaluate(topk, truth, ["coverage@3", "ild@3", "arp@3", "user_coverage@3(kind=hit)"],
                      train=train, item_features=feats)
    assert res.summary["coverage@3"] == 7 / 8
    assert res.user_values("ild@3").tolist() == [1.0, 1.0, 1.0]
    # popularity: item 0 -> 3, item 1 -> 1, item 3 -> 1, others 0
    assert res.user_values("arp@3").tolist() == [4 / 3, 2.0, 0.0]
    assert res.user_values("user_coverage@3(kind=hit)").tolist() == [1.0, 0.0, 1.0]


def test_users_without_lists(data):
    run, truth, train, feats = data
    truth2 = pd.concat([truth, pd.DataFrame({"user": ["z"], "item": [1]})])
    res = rv.evaluate(run, truth2, ["ild@3", "user_coverage@3", "coverage@3"],
                      item_features=feats)
    assert math.isnan(res.per_user.loc["z", "ild@3"])
    assert res.info["ild@3"]["undefined_users"] == 1
    assert res.summary["user_coverage@3"] == 2 / 3
    assert res.summary["coverage@3"] == 5 / 6


def test_id_type_mismatch_is_reported(data):
    run, truth, train, feats = data
    train_str = train.astype({"item": str})
    with pytest.raises(InputError, match="no recommended item occurs in train"):
        rv.evaluate(run, truth, ["novelty@3"], train=train_str)
    train_users = train.assign(user=train["user"].map({"a": 1, "b": 2, "c": 3}))
    with pytest.raises(InputError, match="no evaluated user occurs in train"):
        rv.evaluate(run, truth, ["serendipity@3"], train=train_users, item_features=feats)


#: every metric that reads train= (derived from the registry)
READS_TRAIN = sorted(d.name for d in rv.list_metrics() if "train" in d.needs)


@pytest.mark.parametrize("name", READS_TRAIN)
def test_train_users_of_another_id_kind_are_refused_or_unused(name):
    # a metric that looks each user up in train= refuses user ids of another kind (1 against
    # "1") instead of leaving every user without a profile (NaN for all, no error); one that
    # reads only the items' popularity gives the same values
    run = pd.DataFrame({"user": np.repeat([1, 2, 3], 3), "item": [1, 2, 3, 2, 4, 5, 1, 5, 6],
                        "score": np.tile([3.0, 2.0, 1.0], 3)})
    truth = pd.DataFrame({"user": [1, 2, 3], "item": [1, 4, 6]})
    train = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3, 3], "item": [1, 7, 2, 7, 3, 7, 8]})
    feats = {i: [f"g{i % 3}"] for i in range(1, 9)}
    d = next(m for m in rv.list_metrics() if m.name == name)
    key = name if d.cutoff == "none" else f"{name}@3"
    kw = {"item_features": feats, "item_categories": feats}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same = rv.evaluate(run, truth, [key], train=train, **kw).per_user[key]
        try:
            other = rv.evaluate(run, truth, [key], train=train.astype({"user": str}), **kw)
        except InputError as exc:
            assert "no evaluated user occurs in train" in str(exc) and key in str(exc)
            return
    assert np.array_equal(other.per_user[key].to_numpy(), same.to_numpy(), equal_nan=True)
