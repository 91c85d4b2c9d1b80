from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from receval.errors import InputError, PolicyError
from receval.sampling import (
    corrected_metric,
    estimate_rank_distribution,
    hits_at_k,
    least_squares_correction,
    link_prediction_ranks,
    mean_rank,
    mrr,
    ndcg_at_k,
    rank_against_negatives,
    rank_metrics,
    rank_transition_matrix,
    sample_negatives,
    sampled_ranks,
)

# ----------------------------------------------------------------------------- seed 000

JACK, ITALY, THOMAS, IRELAND, GERMANY, CHINA = range(6)
BORN_IN, FRIEND_WITH = range(2)
SEED_SCORES = {
    (JACK, BORN_IN, IRELAND): 0.789,
    (JACK, BORN_IN, ITALY): 0.753,
    (JACK, BORN_IN, GERMANY): 0.695,
    (JACK, BORN_IN, CHINA): 0.456,
    (JACK, BORN_IN, THOMAS): 0.234,
    (JACK, FRIEND_WITH, THOMAS): 0.901,
    (JACK, FRIEND_WITH, CHINA): 0.345,
    (JACK, FRIEND_WITH, ITALY): 0.293,
    (JACK, FRIEND_WITH, IRELAND): 0.201,
    (JACK, FRIEND_WITH, GERMANY): 0.156,
}
TEST = np.array([[JACK, BORN_IN, ITALY], [JACK, FRIEND_WITH, THOMAS]])


def seed_score_fn(h, r, t):
    # triples outside the seed's tables (e.g. Jack born in Jack) score lowest
    return np.vectorize(lambda a, b, c: SEED_SCORES.get((a, b, c), 0.0))(h, r, t)


def test_seed_000_precomputed_scores():
    pos = [0.753, 0.901]
    neg = [[0.789, 0.695, 0.456, 0.234], [0.345, 0.293, 0.201, 0.156]]
    ranks = rank_against_negatives(pos, neg)
    assert ranks.tolist() == [2.0, 1.0]
    assert hits_at_k(ranks, 3) == 2 / 2 == 1.0
    assert hits_at_k(ranks, 1) == 1 / 2
    assert mrr(ranks) == (1 / 2 + 1 / 1) / 2 == 0.75
    assert mean_rank(ranks) == 1.5
    assert rank_metrics(ranks, ks=(1, 3)) == {
        "hits@1": 0.5, "hits@3": 1.0, "mrr": 0.75, "mean_rank": 1.5
    }


def test_seed_000_link_prediction_tail_corruption():
    ranks = link_prediction_ranks(TEST, seed_score_fn, n_entities=6, side="tail")
    assert ranks.head is None
    assert ranks.tail.tolist() == [2.0, 1.0]
    m = ranks.metrics(ks=(1, 3, 10))
    assert m["hits@3"] == 1.0 and m["hits@1"] == 0.5 and m["mrr"] == 0.75
    assert m["hits@10"] == 1.0


def test_filtered_vs_raw():
    # if (Jack, born_in, Ireland) is also true, the filtered rank of Italy becomes 1
    known = np.vstack([TEST, [[JACK, BORN_IN, IRELAND]]])
    filt = link_prediction_ranks(TEST, seed_score_fn, n_entities=6, side="tail", known=known)
    raw = link_prediction_ranks(
        TEST, seed_score_fn, n_entities=6, side="tail", known=known, filtered=False
    )
    assert filt.tail.tolist() == [1.0, 1.0]
    assert raw.tail.tolist() == [2.0, 1.0]


def test_link_prediction_against_bruteforce():
    rng = np.random.default_rng(5)
    n_ent, n_rel = 9, 3
    table = rng.integers(0, 4, size=(n_ent, n_rel, n_ent)).astype(float)  # many ties
    known = np.unique(rng.integers(0, [n_ent, n_rel, n_ent], size=(40, 3)), axis=0)
    test = known[::3]

    def score(h, r, t):
        return table[h, r, t]

    known_set = {tuple(x) for x in known.tolist()}
    for ties in ("optimistic", "pessimistic", "realistic"):
        for filtered in (True, False):
            got = link_prediction_ranks(
                test, score, n_entities=n_ent, known=known, ties=ties, filtered=filtered,
                batch_size=4,
            )
            for side, arr in (("head", got.head), ("tail", got.tail)):
                for i, (h, r, t) in enumerate(test.tolist()):
                    true_e = h if side == "head" else t
                    s0 = table[h, r, t]
                    gt = eq = 0
                    for e in range(n_ent):
                        cand = (e, r, t) if side == "head" else (h, r, e)
                        if e == true_e or (filtered and cand in known_set):
                            continue
                        gt += table[cand] > s0
                        eq += table[cand] == s0
                    exp = {"optimistic": 1 + gt, "pessimistic": 1 + gt + eq,
                           "realistic": 1 + gt + eq / 2}[ties]
                    assert arr[i] == exp
    both = link_prediction_ranks(test, score, n_entities=n_ent, known=known)
    np.testing.assert_array_equal(both.all, np.concatenate([both.head, both.tail]))
    assert both.metrics()["head_mrr"] == pytest.approx(np.mean(1 / both.head))


def test_link_prediction_sampled_corruptions_exclude_known():
    known = np.vstack([TEST, [[JACK, BORN_IN, IRELAND]]])
    seen = []

    def score(h, r, t):
        seen.append(t.copy())
        return seed_score_fn(h, r, t)

    ranks = link_prediction_ranks(
        TEST, score, n_entities=6, side="tail", known=known, n_negatives=3, seed=1
    )
    cand = seen[0][:, 1:]
    assert cand.shape == (2, 3)
    assert IRELAND not in cand[0] and ITALY not in cand[0] and THOMAS not in cand[1]
    assert ranks.tail[1] == 1.0  # Thomas outscores every friend_with corruption
    with pytest.raises(InputError, match="allowed corruptions"):
        link_prediction_ranks(TEST, score, n_entities=6, side="tail", known=known, n_negatives=5)


def test_tie_policies():
    r = {
        t: rank_against_negatives([1.0], [[1.0, 1.0, 2.0, 0.0]], ties=t)[0]
        for t in ("optimistic", "pessimistic", "realistic")
    }
    assert r == {"optimistic": 2.0, "pessimistic": 4.0, "realistic": 3.0}
    with pytest.raises(PolicyError, match="realistic"):
        rank_against_negatives([1.0], [[1.0]], ties="realist")
    with pytest.raises(InputError, match="NaN"):
        rank_against_negatives([np.nan], [[1.0]])
    assert ndcg_at_k([1, 3, 11], 10) == pytest.approx((1 + 1 / np.log2(4) + 0) / 3)


# ----------------------------------------------------------------------------- samplers


def test_sampler_excludes_known_and_is_distinct():
    n_items = 30
    known = sp.random(20, n_items, density=0.3, random_state=2, format="csr")
    users = np.repeat(np.arange(20), 2)
    for sampler, pop in (("uniform", None), ("popularity", np.arange(n_items) + 1.0)):
        neg = sample_negatives(users, 12, n_items=n_items, known=known, sampler=sampler,
                               popularity=pop, seed=4)
        assert neg.shape == (40, 12) and neg.dtype == np.int64
        dense = known.toarray() != 0
        assert not dense[users[:, None], neg].any()
        assert all(len(set(row)) == 12 for row in neg.tolist())
        again = sample_negatives(users, 12, n_items=n_items, known=known, sampler=sampler,
                                 popularity=pop, seed=4)
        np.testing.assert_array_equal(neg, again)


def test_sampler_exhausts_eligible_items():
    known = sp.csr_matrix(np.array([[1, 1, 0, 0, 1, 0]]))
    neg = sample_negatives([0, 0], 3, n_items=6, known=known, seed=0)
    assert [sorted(r) for r in neg.tolist()] == [[2, 3, 5], [2, 3, 5]]
    with pytest.raises(InputError, match="only 3 item"):
        sample_negatives([0], 4, n_items=6, known=known)
    assert sample_negatives([0], 4, n_items=6, known=known, replace=True).shape == (1, 4)
    # exclude_known=False: the known items are drawable again
    assert sample_negatives([0], 6, n_items=6, known=known, exclude_known=False).shape == (1, 6)


def test_popularity_sampler_matches_weights():
    pop = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    neg = sample_negatives(np.zeros(4000, dtype=int), 5, n_items=5, sampler="popularity",
                           popularity=pop, replace=True, seed=11)
    counts = np.bincount(neg.ravel(), minlength=5)
    assert counts[0] == 0  # zero popularity is never drawn
    res = stats.chisquare(counts[1:], f_exp=pop[1:] / pop.sum() * counts.sum())
    assert res.pvalue > 1e-3
    # alpha flattens or sharpens the distribution; alpha=0 is uniform over popular items
    flat = sample_negatives(np.zeros(4000, dtype=int), 1, n_items=5, sampler="popularity",
                            popularity=pop, alpha=0.0, replace=True, seed=1)
    c = np.bincount(flat.ravel(), minlength=5)
    assert c[0] == 0 and stats.chisquare(c[1:]).pvalue > 1e-3
    with pytest.raises(InputError, match="popularity"):
        sample_negatives([0], 1, n_items=5, sampler="popularity")
    with pytest.raises(PolicyError, match="uniform"):
        sample_negatives([0], 1, n_items=5, sampler="uniferm")


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 15), st.integers(1, 6), st.integers(0, 1000), st.booleans(), st.booleans())
def test_sampler_properties(n_items, n_neg, seed, replace, popular):
    rng = np.random.default_rng(seed)
    known = sp.csr_matrix(rng.random((4, n_items)) < 0.3)
    pop = rng.integers(0, 3, n_items).astype(float) if popular else None
    if pop is not None and pop.sum() == 0:
        pop[0] = 1.0
    drawable = np.ones(n_items, bool) if pop is None else pop > 0
    kw = dict(n_items=n_items, known=known, replace=replace,
              sampler="popularity" if popular else "uniform", popularity=pop)
    eligible = (drawable & ~known.toarray()).sum(axis=1)
    need = 1 if replace else n_neg
    users = np.arange(4)
    if (eligible < need).any():
        with pytest.raises(InputError, match="can be drawn"):
            sample_negatives(users, n_neg, **kw)
        return
    neg = sample_negatives(users, n_neg, seed=seed, **kw)
    assert ((neg >= 0) & (neg < n_items)).all()
    assert drawable[neg].all()  # zero-popularity items are never drawn
    assert not known.toarray()[users[:, None], neg].any()
    if not replace:
        assert all(len(set(r)) == n_neg for r in neg.tolist())
    np.testing.assert_array_equal(neg, sample_negatives(users, n_neg, seed=seed, **kw))


def test_sampled_ranks_with_score_fn():
    s = np.array([[0.5, 0.1, 0.9, 0.3], [0.2, 0.8, 0.4, 0.6]])
    ranks = sampled_ranks(lambda u, i: s[u[:, None], i], [0, 1], [0, 1], [[1, 2], [0, 3]],
                          batch_size=1)
    assert ranks.tolist() == [2.0, 1.0]


# ----------------------------------------------------------------------------- corrections


def test_transition_matrix_matches_scipy():
    n, m = 60, 9
    big_r = np.arange(1, n + 1)[:, None]
    j = np.arange(m + 1)[None, :]
    np.testing.assert_allclose(
        rank_transition_matrix(n, m), stats.hypergeom.pmf(j, n - 1, big_r - 1, m), atol=1e-12
    )
    np.testing.assert_allclose(
        rank_transition_matrix(n, m, replace=True),
        stats.binom.pmf(j, m, (big_r - 1) / (n - 1)), atol=1e-12,
    )
    # n=3, m=1: R=2 gives r=1 or r=2 with probability 1/2 each
    np.testing.assert_allclose(rank_transition_matrix(3, 1)[1], [1 / 2, 1 / 2])


def _simulate(seed: int, n_items: int, n_users: int, n_neg: int, scale: float):
    """Users with known full ranks; sampled ranks from the real sampling pipeline."""
    rng = np.random.default_rng(seed)
    scores = rng.random((n_users, n_items))
    full = np.minimum(1 + np.floor(rng.lognormal(scale, 1.2, n_users)).astype(int), n_items)
    order = np.argsort(-scores, axis=1)
    pos = order[np.arange(n_users), full - 1]
    known = sp.csr_matrix((np.ones(n_users), (np.arange(n_users), pos)), shape=scores.shape)
    neg = sample_negatives(np.arange(n_users), n_neg, n_items=n_items, known=known, seed=seed)
    u = np.arange(n_users)[:, None]
    sampled = rank_against_negatives(scores[u[:, 0], pos], scores[u, neg], ties="optimistic")
    return full, sampled


@pytest.mark.parametrize("metric", ["ndcg", "recall"])
def test_corrected_estimates_beat_naive(metric):
    n_items, n_neg = 500, 49
    full, sampled = _simulate(0, n_items, 3000, n_neg, 2.5)
    truth = {
        "ndcg": np.mean(np.where(full <= 10, 1 / np.log2(full + 1), 0)),
        "recall": np.mean(full <= 10),
    }[metric]
    kw = dict(k=10, n_items=n_items, n_negatives=n_neg)
    naive = corrected_metric(sampled, metric, method="naive", **kw)
    ls = corrected_metric(sampled, metric, method="least_squares", gamma=0.01, **kw)
    dist = corrected_metric(sampled, metric, method="rank_distribution", **kw)
    # the naive sampled metric is far off (a sampled top-10 is roughly a full top-100)
    assert abs(naive - truth) > 0.2
    assert abs(ls - truth) < abs(naive - truth) / 5
    assert abs(dist - truth) < abs(naive - truth) / 5


def test_correction_keeps_model_order_that_sampling_reverses():
    # model A: many positives near the top (but rarely in the full top 10)
    # model B: a few positives exactly at rank 1, the rest far down
    n_items, n_neg = 1000, 99
    rng = np.random.default_rng(3)
    a_full = rng.integers(11, 60, 4000)
    b_full = np.where(rng.random(4000) < 0.2, 1, rng.integers(400, 1001, 4000))

    def sample(full):
        return 1 + rng.hypergeometric(full - 1, n_items - full, n_neg)

    kw = dict(k=10, n_items=n_items, n_negatives=n_neg)
    full_a = np.mean(a_full <= 10)
    full_b = np.mean(b_full <= 10)
    assert full_b > full_a  # B is better on full-ranking recall@10
    ra, rb = sample(a_full), sample(b_full)
    assert corrected_metric(ra, "recall", method="naive", **kw) > corrected_metric(
        rb, "recall", method="naive", **kw
    )  # the naive sampled metric prefers A
    for method in ("least_squares", "rank_distribution"):
        assert corrected_metric(ra, "recall", method=method, **kw) < corrected_metric(
            rb, "recall", method=method, **kw
        )


def test_least_squares_unbiased_when_exact():
    # with m = n - 1 every negative is drawn: sampled rank == full rank, x_r == M(r)
    x = least_squares_correction("mrr", k=None, n_items=8, n_negatives=7, gamma=0.0)
    np.testing.assert_allclose(x, 1 / np.arange(1, 9), atol=1e-9)
    p = estimate_rank_distribution([1, 1, 2, 8], n_items=8, n_negatives=7)
    np.testing.assert_allclose(p, [2 / 4, 1 / 4, 0, 0, 0, 0, 0, 1 / 4], atol=1e-6)
    with pytest.raises(InputError, match="integer"):
        corrected_metric([1.5], "ndcg", n_items=8, n_negatives=7)
    with pytest.raises(InputError, match="1..8"):
        corrected_metric([9], "ndcg", n_items=8, n_negatives=7)


def test_sampler_chunks_keep_constraints(monkeypatch):
    from receval.sampling import _samplers

    monkeypatch.setattr(_samplers, "_CHUNK_CELLS", 7)  # rows processed 1 at a time
    rows = np.repeat(np.arange(30), 4)
    cols = (rows + np.tile(np.arange(4), 30)) % 12  # each user knows 4 consecutive items
    known = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(30, 12))
    neg = sample_negatives(np.arange(30), 6, n_items=12, known=known, seed=2)
    assert not known.toarray()[np.arange(30)[:, None], neg].any()
    assert all(len(set(r)) == 6 for r in neg.tolist())
    np.testing.assert_array_equal(neg, sample_negatives(np.arange(30), 6, n_items=12,
                                                        known=known, seed=2))
