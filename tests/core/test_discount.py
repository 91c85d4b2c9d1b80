"""The DCG ``discount`` parameter: exact worked examples and scikit-learn's ``log_base``."""

from __future__ import annotations

import math

import numpy as np
import pytest

import receval as rv

RUN = {"u": {"a": 3.0, "b": 2.0, "c": 1.0}}
TRUTH = {"u": {"a": 1, "c": 1}}  # list [1, 0, 1], R = 2


@pytest.mark.parametrize(("discount", "d"), [
    ("log2", lambda i: 1 / math.log2(i + 1)),
    ("log2_max2", lambda i: 1 / math.log2(max(i, 2))),
    ("ln", lambda i: 1 / math.log(i + 1)),
    ("log10", lambda i: 1 / math.log10(i + 1)),
])
def test_worked_example(discount, d):
    res = rv.evaluate(RUN, TRUTH, [f"dcg@3(discount={discount})", f"idcg@3(discount={discount})",
                                   f"ndcg@3(discount={discount})"])
    dcg, idcg = d(1) + d(3), d(1) + d(2)
    assert res[f"dcg@3(discount={discount})"] == pytest.approx(dcg, rel=1e-15)
    assert res[f"idcg@3(discount={discount})"] == pytest.approx(idcg, rel=1e-15)
    assert res[f"ndcg@3(discount={discount})"] == pytest.approx(dcg / idcg, rel=1e-15)


def test_lenskit_discount_treats_ranks_one_and_two_alike():
    # LensKit: 1/log2(max(i, 2)): hits at ranks 1 and 2 are worth the same
    first = rv.evaluate({"u": {"a": 2.0, "b": 1.0}}, {"u": {"a": 1}},
                        ["dcg(discount=log2_max2)"])
    second = rv.evaluate({"u": {"b": 2.0, "a": 1.0}}, {"u": {"a": 1}},
                         ["dcg(discount=log2_max2)"])
    assert first["dcg(discount=log2_max2)"] == second["dcg(discount=log2_max2)"] == 1.0


def test_ndcg_does_not_depend_on_the_log_base():
    rng = np.random.default_rng(0)
    run = {u: {i: float(rng.random()) for i in range(12)} for u in range(20)}
    truth = {u: {int(i): int(rng.integers(1, 4)) for i in rng.choice(12, 4, replace=False)}
             for u in range(20)}
    res = rv.evaluate(run, truth, ["ndcg@5", "ndcg@5(discount=ln)", "ndcg@5(discount=log10)"])
    base = res.user_values("ndcg@5")
    np.testing.assert_allclose(res.user_values("ndcg@5(discount=ln)"), base, rtol=1e-12)
    np.testing.assert_allclose(res.user_values("ndcg@5(discount=log10)"), base, rtol=1e-12)


@pytest.mark.parametrize(("discount", "base"), [("log2", 2), ("ln", math.e), ("log10", 10)])
def test_dcg_matches_scikit_learn_log_base(discount, base):
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(1)
    n_items = 15
    y_true = rng.integers(0, 4, size=(8, n_items)).astype(float)
    y_score = rng.random((8, n_items))
    run = {u: {i: float(y_score[u, i]) for i in range(n_items)} for u in range(8)}
    truth = {u: {i: float(y_true[u, i]) for i in range(n_items) if y_true[u, i] > 0}
             for u in range(8)}
    res = rv.evaluate(run, truth, [f"dcg@5(discount={discount})"], empty_truth="zero")
    for u in range(8):
        want = sklearn_metrics.dcg_score(y_true[u:u + 1], y_score[u:u + 1], k=5, log_base=base)
        got = res.user_values(f"dcg@5(discount={discount})")[list(res.user_ids).index(u)]
        assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("discount", ["log2", "log2_max2", "ln", "log10"])
def test_explain_shows_the_discount_and_agrees(discount):
    from receval.explain import explain

    for name in ("dcg@3", "idcg@3", "ndcg@3"):
        ex = explain(f"{name}(discount={discount})", RUN, TRUTH, "u")
        assert ex.computed and ex.agrees, ex.to_text()
