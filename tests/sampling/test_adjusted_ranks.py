"""PyKEEN's rank-adjusted metrics against exhaustive enumeration of random rankings."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from receval.sampling import adjusted_rank_metrics, link_prediction_ranks


def test_worked_example():
    out = adjusted_rank_metrics([1, 2], [3, 3], ks=(1,))
    assert out["expected_mean_rank"] == 2.0
    assert out["amr"] == 1.5 / 2
    assert out["amri"] == 1 - 0.5 / 1
    assert out["expected_mrr"] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    assert out["expected_hits@1"] == pytest.approx(1 / 3)
    assert out["adjusted_hits@1"] == pytest.approx((1 / 2 - 1 / 3) / (1 - 1 / 3))


def test_expectations_and_variances_by_enumeration():
    """Every combination of uniformly random ranks of three tasks with 2, 3 and 5 candidates:
    the means of MR, MRR and hits@2 equal the expectations, and their variances give the
    z-score scale."""
    n = [2, 3, 5]
    combos = list(itertools.product(*(range(1, c + 1) for c in n)))
    mr = np.array([np.mean(c) for c in combos])
    rr = np.array([np.mean([1 / x for x in c]) for c in combos])
    h2 = np.array([np.mean([x <= 2 for x in c]) for c in combos])
    ranks = np.array(combos[7], dtype=float)
    out = adjusted_rank_metrics(ranks, n, ks=(2,))
    assert out["expected_mean_rank"] == pytest.approx(mr.mean(), rel=1e-14)
    assert out["expected_mrr"] == pytest.approx(rr.mean(), rel=1e-14)
    assert out["expected_hits@2"] == pytest.approx(h2.mean(), rel=1e-14)
    assert out["z_mean_rank"] == pytest.approx((mr.mean() - ranks.mean()) / mr.std(), rel=1e-12)
    assert out["z_mrr"] == pytest.approx((np.mean(1 / ranks) - rr.mean()) / rr.std(), rel=1e-12)
    assert out["z_hits@2"] == pytest.approx((np.mean(ranks <= 2) - h2.mean()) / h2.std(),
                                            rel=1e-12)
    # a perfect ranking: AMRI = adjusted MRR = adjusted hits = 1
    best = adjusted_rank_metrics([1, 1, 1], n, ks=(2,))
    assert best["amri"] == 1.0 and best["adjusted_mrr"] == 1.0 and best["adjusted_hits@2"] == 1.0
    assert math.isclose(adjusted_rank_metrics([1.5, 2, 3], n)["amr"], 1.0)  # the mean ranks


def test_link_prediction_ranks_carry_candidate_counts():
    triples = np.array([[0, 0, 1], [1, 0, 2]])
    known = np.array([[0, 0, 1], [1, 0, 2], [0, 0, 3]])

    def score(h, r, t):
        return -(np.abs(h - t)).astype(float)

    lr = link_prediction_ranks(triples, score, n_entities=5, known=known)
    # tail of (0, 0, 1): entity 3 is another known answer, filtered: 5 - 1 candidates
    assert lr.tail_candidates.tolist() == [4.0, 5.0]
    assert lr.head_candidates.tolist() == [5.0, 5.0]
    m = lr.metrics(ks=(1,), adjusted=True)
    direct = adjusted_rank_metrics(lr.all, lr.candidates, ks=(1,))
    assert m["amri"] == direct["amri"] and "head_amri" in m
    sampled = link_prediction_ranks(triples, score, n_entities=5, known=known, n_negatives=2)
    assert sampled.candidates.tolist() == [3.0] * 4
