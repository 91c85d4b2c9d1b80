"""Properties every ranking metric must keep, checked on random data with hypothesis."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import random_case, to_frame

import receval as rv
from receval.metrics import REGISTRY, parse_metric

METRICS = [
    "hits@3", "precision@3", "precision@4(denominator=list)", "precision@2(denominator=min_k_rel)",
    "recall@3", "recall@2(denominator=min_k_rel)", "f1@3", "fbeta@3(beta=2)", "hit_rate@2",
    "hit_rate@3(level=recommended)", "hit_rate@3(level=truth)", "mrr", "first_hit_rank", "map",
    "map@3(denominator=min_k_rel)", "map@3(denominator=hits)", "mar@3", "cg@3", "dcg@3",
    "idcg@3", "ndcg@3", "ndcg(gain=exp)", "ndcg@3(ideal=list)", "r_precision", "err", "rbp",
    "bpref", "num_rel", "num_ret@3", "precision@3(rel=2)",
]
POLICIES = st.fixed_dictionaries({
    "ties": st.sampled_from(["id", "trec_eval"]),
    "users": st.sampled_from(["truth", "run", "union", "intersection"]),
    "empty_truth": st.sampled_from(["skip", "zero", "nan"]),
})
SEEDS = st.integers(0, 2**32 - 1)


def _case(seed: int, **kw) -> tuple[pd.DataFrame, pd.DataFrame]:
    run, truth = random_case(np.random.default_rng(seed), **kw)
    return to_frame(run, "score"), to_frame(truth, "relevance")


def _by_user(res) -> dict:
    return {u: tuple(row) for u, row in zip(res.user_ids, res.values, strict=True)}


def _same(a: dict, b: dict) -> bool:
    if set(a) != set(b):
        return False
    return all(np.allclose(a[u], b[u], rtol=0, atol=0, equal_nan=True) for u in a)


@settings(max_examples=30, deadline=None)
@given(SEEDS, POLICIES)
def test_row_order_does_not_matter(seed, policies):
    run, truth = _case(seed)
    base = rv.evaluate(run, truth, METRICS, **policies)
    rng = np.random.default_rng(seed + 1)
    shuffled = rv.evaluate(run.sample(frac=1, random_state=rng), truth.sample(frac=1,
                           random_state=rng), METRICS, **policies)
    assert _same(_by_user(base), _by_user(shuffled))
    for key in base.summary:
        a, b = base.summary[key], shuffled.summary[key]
        assert (math.isnan(a) and math.isnan(b)) or a == b


def _rename(frame: pd.DataFrame, users: dict, items: dict) -> pd.DataFrame:
    out = frame.copy()
    out["user"] = out["user"].map(users).astype(object)
    out["item"] = out["item"].map(items).astype(object)
    return out


@settings(max_examples=30, deadline=None)
@given(SEEDS, st.sampled_from(["id", "trec_eval"]))
def test_order_preserving_relabelling_changes_nothing(seed, ties):
    # a bijective renaming that keeps the ids' order keeps tie breaks, hence every value
    run, truth = _case(seed, id_kind="str")
    ids_u = sorted(set(run["user"]) | set(truth["user"]))
    ids_i = sorted(set(run["item"]) | set(truth["item"]))
    users = {u: f"user-{j:04d}-ü" for j, u in enumerate(ids_u)}
    items = {i: f"item-{j:04d}-字" for j, i in enumerate(ids_i)}
    a = rv.evaluate(run, truth, METRICS, ties=ties)
    b = rv.evaluate(_rename(run, users, items), _rename(truth, users, items), METRICS, ties=ties)
    renamed = {users[u]: v for u, v in _by_user(a).items()}
    assert _same(renamed, _by_user(b))


@settings(max_examples=30, deadline=None)
@given(SEEDS)
def test_any_relabelling_changes_nothing_without_ties(seed):
    # continuous scores: no tie to break, so any bijective renaming (ints <-> str) is harmless
    run, truth = _case(seed, id_kind="str", tie_levels=None)
    perm = np.random.default_rng(seed).permutation(200)
    ids_u = sorted(set(run["user"]) | set(truth["user"]))
    ids_i = sorted(set(run["item"]) | set(truth["item"]))
    users = {u: int(perm[j]) for j, u in enumerate(ids_u)}
    items = {i: int(perm[-1 - j]) for j, i in enumerate(ids_i)}
    a = rv.evaluate(run, truth, METRICS)
    b = rv.evaluate(_rename(run, users, items), _rename(truth, users, items), METRICS)
    assert _same({users[u]: v for u, v in _by_user(a).items()}, _by_user(b))


@settings(max_examples=30, deadline=None)
@given(SEEDS, POLICIES)
def test_bounds(seed, policies):
    run, truth = _case(seed)
    res = rv.evaluate(run, truth, METRICS, **policies)
    for j, key in enumerate(res.metrics):
        spec = parse_metric(key)
        lo, hi = REGISTRY[spec.name].bounds
        col = res.values[:, j]
        col = col[~np.isnan(col)]
        assert (col >= lo - 1e-12).all(), key
        if hi is not None:
            assert (col <= hi + 1e-12).all(), key


@settings(max_examples=30, deadline=None)
@given(SEEDS, st.integers(1, 6))
def test_precision_times_k_is_hits(seed, k):
    run, truth = _case(seed)
    res = rv.evaluate(run, truth, [f"precision@{k}", f"hits@{k}", f"recall@{k}", "num_rel",
                                   f"f1@{k}", f"fbeta@{k}(beta=1)"], empty_truth="zero")
    p, h, r, n = (res.user_values(x) for x in (f"precision@{k}", f"hits@{k}", f"recall@{k}",
                                               "num_rel"))
    np.testing.assert_allclose(p * k, h, rtol=1e-12)
    has = n > 0
    np.testing.assert_allclose(r[has] * n[has], h[has], rtol=1e-12)
    np.testing.assert_allclose(res.user_values(f"f1@{k}"), res.user_values(f"fbeta@{k}"),
                               rtol=1e-12)


@settings(max_examples=30, deadline=None)
@given(SEEDS)
def test_whole_list_recall_counts_every_retrieved_relevant_item(seed):
    run, truth = _case(seed)
    res = rv.evaluate(run, truth, ["recall", "hits", "num_rel", "recall@1000", "r_precision"])
    n = res.user_values("num_rel")
    ok = ~np.isnan(n)
    np.testing.assert_allclose(res.user_values("recall")[ok],
                               res.user_values("hits")[ok] / n[ok], rtol=1e-12)
    np.testing.assert_array_equal(res.user_values("recall"), res.user_values("recall@1000"))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=12), st.integers(1, 8))
def test_ideal_list_scores_one(rels, k):
    # the truth's own items sorted by relevance are a perfect list
    if max(rels) == 0:
        return
    truth = {"u": {f"i{j}": float(r) for j, r in enumerate(rels)}}
    order = sorted(range(len(rels)), key=lambda j: -rels[j])
    run = {"u": {f"i{j}": float(len(rels) - pos) for pos, j in enumerate(order)}}
    keys = [f"ndcg@{k}", "ndcg", f"ndcg@{k}(gain=exp)", f"ndcg@{k}(ideal=list)", "map", "mrr",
            "r_precision", "bpref", f"precision@{k}(denominator=min_k_rel)",
            f"recall@{k}(denominator=min_k_rel)", "recall", "ndcg(gain=exp,ideal=list)"]
    res = rv.evaluate(run, truth, keys)
    for key in keys:
        assert res.summary[parse_metric(key).key] == 1.0 or math.isclose(
            res.summary[parse_metric(key).key], 1.0, rel_tol=1e-12), key


@settings(max_examples=30, deadline=None)
@given(SEEDS, st.integers(1, 5))
def test_deeper_cutoffs_never_lose_hits(seed, k):
    run, truth = _case(seed)
    keys = [f"hits@{k}", f"hits@{k + 1}", f"recall@{k}", f"recall@{k + 1}", f"cg@{k}",
            f"cg@{k + 1}", f"dcg@{k}", f"dcg@{k + 1}", f"hit_rate@{k}", f"hit_rate@{k + 1}",
            f"mrr@{k}", f"mrr@{k + 1}"]
    res = rv.evaluate(run, truth, keys, empty_truth="zero")
    for a, b in zip(keys[::2], keys[1::2], strict=True):
        assert (res.user_values(a) <= res.user_values(b) + 1e-12).all(), (a, b)


@settings(max_examples=20, deadline=None)
@given(SEEDS)
def test_rank_input_equals_score_input(seed):
    run, truth = _case(seed, tie_levels=None)
    ranked = run.sort_values(["user", "score"], ascending=[True, False]).copy()
    ranked["rank"] = ranked.groupby("user").cumcount() + 1
    a = rv.evaluate(run, truth, METRICS)
    b = rv.evaluate(ranked.drop(columns="score"), truth, METRICS)
    assert _same(_by_user(a), _by_user(b))


@pytest.mark.skipif(any(importlib.util.find_spec(m) is None for m in ("polars", "pyarrow")),
                    reason="polars and pyarrow containers need the polars and arrow extras")
@settings(max_examples=20, deadline=None)
@given(SEEDS)
def test_containers_agree(seed):
    pl = __import__("polars")
    pa = __import__("pyarrow")
    run, truth = _case(seed)
    base = _by_user(rv.evaluate(run, truth, METRICS))
    as_pl = rv.evaluate(pl.from_pandas(run.astype({"user": str, "item": str})),
                        pl.from_pandas(truth.astype({"user": str, "item": str})), METRICS)
    as_pa = rv.evaluate(pa.Table.from_pandas(run.astype({"user": str, "item": str})),
                        pa.Table.from_pandas(truth.astype({"user": str, "item": str})), METRICS)
    assert _same(base, _by_user(as_pl))
    assert _same(base, _by_user(as_pa))


@pytest.mark.filterwarnings("ignore::receval.errors.RelevanceThresholdWarning")
@settings(max_examples=40, deadline=None)
@given(SEEDS, POLICIES, st.sampled_from(["int", "str", "unicode"]), st.integers(1, 12))
def test_the_same_users_in_the_same_order_equal_any_other_order(seed, policies, id_kind,
                                                                block):
    """A run over exactly the truth's users, in the truth's order, is planned without an index
    pass (each evaluated row is that run user and that truth user); it gives what the same
    rows give with the users in another order, in blocks of any size."""
    import importlib
    from unittest import mock

    from receval.pack import packed

    run, truth = _case(seed, id_kind=id_kind)
    both = set(run["user"]) & set(truth["user"])
    run, truth = run[run["user"].isin(both)], truth[truth["user"].isin(both)]
    order = {u: i for i, u in enumerate(pd.unique(truth["user"]))}
    rank = run["user"].map(order).to_numpy()
    same = run.iloc[np.argsort(rank, kind="stable")]
    other = run.iloc[np.argsort(-rank, kind="stable")]
    planned, real = [], packed._evaluated_users

    def spy(*args, **kw):
        users = real(*args, **kw)
        planned.append(users.identity)
        return users

    executor = importlib.import_module("receval.engines.evaluator")
    with mock.patch.object(executor, "BLOCK_POSITIONS", block), \
            mock.patch.object(packed, "_evaluated_users", spy):
        if not both:  # no common user: nothing to compare
            return
        a = rv.evaluate(same, truth, METRICS, **policies)
        b = rv.evaluate(other, truth, METRICS, **policies)
    assert planned[0] and (len(both) == 1 or not planned[1])
    assert list(a.user_ids) == list(pd.unique(truth["user"]))
    assert _same(_by_user(a), _by_user(b))
    assert a.counts == b.counts
    for key in a.summary:
        x, y = a.summary[key], b.summary[key]
        assert (math.isnan(x) and math.isnan(y)) or x == y


@settings(max_examples=20, deadline=None)
@given(SEEDS)
def test_evaluator_reuses_truth(seed):
    run, truth = _case(seed)
    ev = rv.Evaluator(truth, METRICS)
    a, b = ev.evaluate(run), ev.evaluate(run.sample(frac=1, random_state=seed))
    direct = rv.evaluate(run, truth, METRICS)
    assert _same(_by_user(a), _by_user(direct))
    assert _same(_by_user(b), _by_user(direct))


def test_reversed_frame_view():
    # a view with negative strides must be accepted like any other frame
    run, truth = _case(0)
    a = rv.evaluate(run.iloc[::-1], truth, METRICS)
    assert _same(_by_user(a), _by_user(rv.evaluate(run, truth, METRICS)))
