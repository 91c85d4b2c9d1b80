"""``rv.Accumulator``: any split of the users into batches, in any order, in one or several
accumulators merged in any order (their states pickled on the way), gives the bits of
``rv.evaluate`` on the whole run; and every bad input is refused, naming it."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.errors import InputError, ParameterError
from receval.topk import topk_from_scores

METRICS = ["ndcg@3", "map@5", "recall@2", "precision@4", "mrr", "hit_rate@3", "r_precision",
           "ndcg(gain=exp)", "num_ret"]


@st.composite
def cases(draw):
    n_users = draw(st.integers(1, 12))
    run, truth = {}, {}
    for u in range(n_users):
        if draw(st.booleans()) or u == 0:  # some users only in the truth
            items = draw(st.lists(st.integers(0, 15), min_size=1, max_size=6, unique=True))
            run[u] = {i: draw(st.integers(0, 4)) / 4 for i in items}  # tied scores
        if draw(st.integers(0, 4)):  # some users only in the run
            judged = draw(st.lists(st.integers(0, 15), min_size=1, max_size=5, unique=True))
            truth[u] = {i: draw(st.integers(0, 3)) for i in judged}
    if not truth:
        truth[n_users] = {0: 1}
    return run, truth


def _matrix(run: dict, users: list) -> tuple[np.ndarray, np.ndarray]:
    """The batch of ``users`` as (B x k) item ids (-1 padding) and scores (NaN padding)."""
    k = max([len(run[u]) for u in users] + [1])
    items = np.full((len(users), k), -1, dtype=np.int64)
    scores = np.full((len(users), k), np.nan)
    for r, u in enumerate(users):
        for c, (i, s) in enumerate(run[u].items()):
            items[r, c], scores[r, c] = i, s
    return items, scores


def _same(a: rv.EvalResult, b: rv.EvalResult) -> None:
    assert a.metrics == b.metrics
    assert a.counts == b.counts
    for x, y in zip(a.stats, b.stats, strict=True):
        for key in ("mean", "std", "se"):
            assert (np.isnan(x[key]) and np.isnan(y[key])) or x[key] == y[key], (key, x, y)
        assert (x["n"], x["skipped"]) == (y["n"], y["skipped"])
    order_a = {u: i for i, u in enumerate(a.user_ids.tolist())}
    assert sorted(order_a) == sorted(b.user_ids.tolist())
    rows = [order_a[u] for u in b.user_ids.tolist()]
    np.testing.assert_array_equal(a.values[rows], b.values)


@pytest.mark.filterwarnings("ignore::receval.errors.NoCommonUsersWarning",
                            "ignore::receval.errors.EmptyRunWarning",
                            "ignore::receval.errors.RelevanceThresholdWarning")
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.integers(1, 4), st.integers(1, 3), st.randoms(use_true_random=False),
       st.sampled_from(["truth", "run", "union", "intersection"]))
def test_any_batches_any_order_any_merge_give_the_bits_of_evaluate(
        data, n_batches, n_workers, rnd, users):
    run, truth = data
    whole = rv.evaluate(run, truth, METRICS, users=users)
    ev = rv.Evaluator(truth, METRICS, users=users)
    ids = list(run)
    rnd.shuffle(ids)
    batches = [ids[i::n_batches] for i in range(n_batches)]
    workers = [rv.Accumulator(ev) for _ in range(n_workers)]
    for b, batch in enumerate(batches):
        if batch:
            items, scores = _matrix(run, batch)
            workers[b % n_workers].update(np.array(batch), items, scores)
    rnd.shuffle(workers)
    total = workers[0]
    for other in workers[1:]:
        total.merge(pickle.loads(pickle.dumps(other.state())))
    _same(total.compute(), whole)
    _same(total.compute(), whole)  # compute leaves the accumulator as it was


def test_scores_of_every_item_are_ranked_with_the_training_items_masked():
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 5, size=(7, 12)).astype(np.float64)  # many ties
    train = sp.random(7, 12, density=0.3, random_state=4, format="csr")
    truth = {u: {int(i): 1 for i in rng.choice(12, 3, replace=False)} for u in range(7)}
    top = topk_from_scores(scores, 5, exclude=train)
    run = {u: {int(i): float(s) for i, s in zip(top.items[u], top.scores[u], strict=True)
               if i >= 0} for u in range(7)}
    acc = rv.Accumulator(truth, ["ndcg@5", "recall@5"])
    acc.update_scores(np.arange(4), scores[:4], exclude=train[:4])
    acc.update_scores(np.arange(4, 7), scores[4:], exclude=train[4:].toarray() > 0)
    _same(acc.compute(), rv.evaluate(run, truth, ["ndcg@5", "recall@5"]))
    # copy=False masks the batch in place: same bits, the batch then holds -inf there
    in_place = rv.Accumulator(truth, ["ndcg@5", "recall@5"])
    batch = scores.copy()
    in_place.update_scores(np.arange(7), batch, exclude=train, copy=False)
    _same(in_place.compute(), acc.compute())
    assert np.array_equal(batch, np.where(train.toarray() != 0, -np.inf, scores))
    with pytest.raises(rv.InputError, match="copy=1"):
        in_place.update_scores(np.arange(7), scores, exclude=train, copy=1)


def test_item_ids_name_the_columns():
    truth = {"u": {"b": 1}, "v": {"c": 1}}
    acc = rv.Accumulator(truth, ["mrr"], item_ids=np.array(["a", "b", "c"]))
    acc.update(np.array(["u", "v"]), np.array([[1, 0], [0, 2]]))
    assert acc.compute()["mrr"] == (1 + 1 / 2) / 2


def test_window_keeps_the_last_batches():
    truth = {0: {1: 1}, 1: {1: 1}, 2: {1: 1}}
    acc = rv.Accumulator(truth, ["hit_rate@1"], window=2, users="run")
    for u, item in ((0, 1), (1, 2), (2, 1)):
        acc.update(np.array([u]), np.array([[item]]))
    assert acc.n_batches == 2
    assert acc.compute()["hit_rate@1"] == 0.5  # users 1 and 2
    acc.reset()
    assert acc.n_batches == 0


def test_compat_names_read_back():
    acc = rv.Accumulator({0: {1: 1, 2: 1}}, ["map@2"], compat="recbole")
    acc.update(np.array([0]), np.array([[1, 3]]))
    res = acc.compute()
    assert res["map@2"] == 0.5 and res.info["compat"]["preset"] == "recbole"


# ---- refusals ----------------------------------------------------------------------------

@pytest.fixture
def acc():
    return rv.Accumulator({0: {1: 1}, 1: {2: 1}}, ["ndcg@2"])


def test_a_user_in_two_batches_is_refused(acc):
    acc.update(np.array([0]), np.array([[1, 2]]))
    acc.update(np.array([0]), np.array([[2, 1]]))
    with pytest.raises(InputError, match="user 0"):
        acc.compute()


def test_merging_another_evaluation_is_refused(acc):
    other = rv.Accumulator({0: {1: 1}, 1: {2: 1}}, ["ndcg@3"])
    with pytest.raises(InputError, match="other metrics"):
        acc.merge(other)
    with pytest.raises(InputError, match="AccumulatorState"):
        acc.merge({"blocks": []})


@pytest.mark.parametrize(("args", "match"), [
    ((np.array([[0]]), np.array([[1, 2]])), "users: expected one id per row"),
    ((np.array([0, 1]), np.array([1, 2])), r"items: expected 2 rows"),
    ((np.array([0]), np.array([[1.5, 2.0]])), "integer item ids"),
    ((np.array([0]), np.array([[1, 2]]), np.array([[1.0]])), "scores: expected the shape"),
])
def test_bad_batches_are_refused_naming_them(acc, args, match):
    with pytest.raises(InputError, match=match):
        acc.update(*args)


def test_declared_parameters(acc):
    with pytest.raises(ParameterError, match="window"):
        rv.Accumulator({0: {1: 1}}, ["ndcg@2"], window=0)
    with pytest.raises(ParameterError, match="k"):
        acc.update_scores(np.array([0]), np.zeros((1, 3)), k=0)
    with pytest.raises(InputError, match="give the metrics"):
        rv.Accumulator({0: {1: 1}})
    with pytest.raises(InputError, match="no cutoff"):
        rv.Accumulator({0: {1: 1}}, ["mrr"]).update_scores(np.array([0]), np.zeros((1, 3)))
    with pytest.raises(InputError, match="boolean mask"):
        acc.update_scores(np.array([0]), np.zeros((1, 3)), exclude=np.zeros((1, 3)))


def test_ctr_metrics_pool_exactly_over_batches():
    """Normalized entropy, calibration ratio, Brier and equal-width ECE pooled over every
    scored pair: batches in any order give the bits of one evaluation."""
    rng = np.random.default_rng(9)
    users = np.arange(30)
    items = np.stack([rng.permutation(12)[:5] for _ in users])
    probs = rng.random((30, 5)).round(3)
    truth = {int(u): {int(i): int(rng.random() < 0.3) for i in items[u]} for u in users}
    keys = ["ne", "calibration", "brier", "ece", "ece(bins=3)"]
    run = {int(u): dict(zip(items[u].tolist(), probs[u].tolist(), strict=True)) for u in users}
    whole = rv.evaluate(run, truth, keys)
    acc = rv.Accumulator(truth, keys)
    for batch in (users[20:], users[:7], users[7:20]):
        acc.update(batch, items[batch], probs[batch])
    assert acc.compute().summary == whole.summary


# ---- torchmetrics' rows -----------------------------------------------------------------

def test_pair_rows_in_any_batches_give_the_bits_of_evaluate():
    rng = np.random.default_rng(4)
    q = np.repeat(np.arange(12), 6)
    p = rng.integers(0, 4, size=len(q)) / 4  # ties
    t = rng.integers(0, 3, size=len(q))
    keys = ["ndcg@3", "map@5", "mrr", "precision@2"]
    whole = rv.evaluate({"user": q, "item": np.arange(len(q)), "score": p},
                        {"user": q, "item": np.arange(len(q)), "relevance": t}, keys)
    acc = rv.training.PairAccumulator(keys)
    other = rv.training.PairAccumulator(keys)
    for lo in range(0, len(q), 10):  # batches cut through queries, as torchmetrics allows
        (acc if lo < 40 else other).update(p[lo:lo + 10], t[lo:lo + 10], q[lo:lo + 10])
    acc.merge(pickle.loads(pickle.dumps(other.state())))
    _same(acc.compute(), whole)


def test_pair_rows_are_one_dimensional_and_labels_non_negative():
    acc = rv.training.PairAccumulator(["mrr"])
    with pytest.raises(InputError, match="1-D"):
        acc.update(np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((2, 3)))
    with pytest.raises(InputError, match="one length"):
        acc.update(np.zeros(3), np.zeros(2), np.zeros(3))
    with pytest.raises(InputError, match=">= 0"):
        acc.update(np.zeros(2), np.array([1, -1]), np.zeros(2))
    with pytest.raises(InputError, match="no rows yet"):
        acc.compute()
    with pytest.raises(rv.MetricError):
        rv.training.PairAccumulator(["ndcg@zz"])
