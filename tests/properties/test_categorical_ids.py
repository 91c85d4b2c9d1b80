"""Categorical id columns (pandas ``category``) give the bits of the same ids as plain columns:
categories sorted or not, shared between run and truth or not, with unused categories, integer
or string ids, under every tie policy, with and without metrics that keep the lists."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv

METRICS = ["ndcg@3", "map@5", "mrr", "precision@2", "recall@10", "hit_rate@3", "ndcg@10"]
WITH_LISTS = [*METRICS, "coverage@3", "novelty@3"]


def _as_category(col: pd.Series, rng: np.random.Generator, extra: list) -> pd.Series:
    cats = list(pd.unique(col)) + extra  # unused categories too
    if rng.random() < 0.5:
        rng.shuffle(cats)  # categories in no order
    else:
        cats = sorted(cats, key=lambda v: (str(type(v)), v))
    return pd.Series(pd.Categorical(col, categories=cats), index=col.index)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["int", "str"]),
       ties=st.sampled_from(["id", "average", "trec_eval", "input"]),
       which=st.sampled_from(["items", "users", "both", "truth"]),
       lists=st.booleans())
def test_categorical_ids_give_the_bits_of_plain_ids(seed, kind, ties, which, lists):
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(1, 12)), int(rng.integers(2, 40))
    rows = []
    for u in range(n_users):
        for i in rng.choice(n_items, int(rng.integers(0, min(n_items, 12) + 1)), replace=False):
            rows.append((u, int(i), float(rng.integers(0, 4))))  # tied scores
    run = pd.DataFrame(rows, columns=["user", "item", "score"]) if rows else \
        pd.DataFrame({"user": [0], "item": [0], "score": [1.0]})
    truth = pd.DataFrame({"user": rng.integers(0, n_users + 2, 30),
                          "item": rng.integers(0, n_items + 5, 30),
                          "relevance": rng.integers(0, 3, 30)}).drop_duplicates(["user", "item"])
    if kind == "str":
        for f in (run, truth):
            f["user"] = "u" + f["user"].astype(str)
            f["item"] = "i" + f["item"].astype(str)
    metrics = WITH_LISTS if lists else METRICS
    train = pd.DataFrame({"user": run["user"], "item": run["item"]})
    plain = rv.evaluate(run, truth, metrics, ties=ties, train=train, catalog=None)
    run_c, truth_c = run.copy(), truth.copy()
    extra = [10_000, 10_001] if kind == "int" else ["zz", "aa"]
    cols = {"items": ["item"], "users": ["user"], "both": ["user", "item"]}.get(which, [])
    for c in cols:
        run_c[c] = _as_category(run_c[c], rng, extra)
    if which in ("both", "truth"):
        for c in ("user", "item"):
            truth_c[c] = _as_category(truth_c[c], rng, extra)
    got = rv.evaluate(run_c, truth_c, metrics, ties=ties, train=train, catalog=None)
    assert got.user_ids.tolist() == plain.user_ids.tolist()
    assert np.array_equal(got.values, plain.values, equal_nan=True)
    assert str(got.stats) == str(plain.stats)
    assert got.counts == plain.counts


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["int", "str"]),
       shared=st.booleans(), ordered=st.booleans(),
       users=st.sampled_from(["same", "fewer", "more", "other order"]))
def test_grouped_categorical_frames_give_the_bits_of_plain_ids(seed, kind, shared, ordered,
                                                               users):
    """Run and truth grouped by user (as most frames are), both categorical: one dictionary
    for both or one each, sorted or not; the truth's users the run's in the same order, fewer,
    more, or in another order. The run then shares the truth's user ids, and the truth's item
    positions are mapped into the run's categories (or are its ranks, with one dictionary)."""
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(1, 10)), int(rng.integers(2, 30))
    rows = [(u, int(i), float(rng.integers(0, 4))) for u in range(n_users)
            for i in rng.choice(n_items, int(rng.integers(1, min(n_items, 8) + 1)),
                                replace=False)]
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    t_users = {"same": range(n_users), "other order": range(n_users),
               "fewer": range(0, n_users, 2), "more": range(n_users + 3)}[users]
    t_rows = [(u, int(i), int(rng.integers(0, 3))) for u in t_users
              for i in rng.choice(n_items + 4, int(rng.integers(1, 6)), replace=False)]
    truth = pd.DataFrame(t_rows, columns=["user", "item", "relevance"])
    if users == "other order":  # grouped, in descending user order
        truth = truth.sort_values("user", ascending=False, kind="stable")
    if kind == "str":
        for f in (run, truth):
            f["user"] = "u" + f["user"].astype(str)
            f["item"] = "i" + f["item"].astype(str)
    plain = rv.evaluate(run, truth, METRICS)
    run_c, truth_c = run.copy(), truth.copy()
    for c in ("user", "item"):
        if shared:
            cats = sorted(set(run[c]) | set(truth[c]))
            if not ordered:
                rng.shuffle(cats)
            dtype = pd.CategoricalDtype(cats)
            run_c[c], truth_c[c] = run[c].astype(dtype), truth[c].astype(dtype)
        else:
            run_c[c] = run[c].astype("category") if ordered else _as_category(run[c], rng, [])
            truth_c[c] = truth[c].astype("category") if ordered else \
                _as_category(truth[c], rng, [])
    got = rv.evaluate(run_c, truth_c, METRICS)
    assert got.user_ids.tolist() == plain.user_ids.tolist()
    assert np.array_equal(got.values, plain.values, equal_nan=True)
    assert got.counts == plain.counts


def test_a_categorical_item_column_is_joined_on_its_codes():
    # the run's items are read in place as ranks into the sorted categories (no value per
    # row is factorized), and a categorical user column is grouped on its codes
    from receval.io.frames import read_columns
    from receval.pack import run_codes

    run = pd.DataFrame({"user": pd.Categorical(["b", "b", "a"], categories=["b", "a"]),
                        "item": pd.Categorical([30, 10, 20], categories=[30, 20, 10, 99]),
                        "score": [2.0, 1.0, 1.0]})
    codes = run_codes(read_columns(run, role="run"))
    assert codes.item_raw is not None and codes.item_raw.dictionary.tolist() == [10, 20, 30, 99]
    assert codes.item_raw.a.tolist() == [2, 0, 1]
    assert codes.users.tolist() == ["b", "a"] and codes.user_starts.tolist() == [0, 2, 3]


def _entry_points(run, truth):
    """Each way a run reaches the packer: its categorical user column read with the check
    left to the grouping (``evaluate``, ``Evaluator.evaluate``) or made by the reader."""
    ev = rv.Evaluator(truth, ["ndcg@3", "recall@5"])
    return [lambda: rv.evaluate(run, truth, ["ndcg@3", "recall@5"]),
            lambda: ev.evaluate(run),
            lambda: ev.evaluate_blocks([run]),
            lambda: ev.pack(run)]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["int", "str"]),
       n_missing=st.integers(1, 5), grouped=st.booleans(), unused=st.booleans())
def test_a_missing_categorical_user_is_refused_with_its_count(seed, kind, n_missing, grouped,
                                                               unused):
    # the grouping finds a missing code (-1) among its runs' ids, wherever the rows lie: a
    # run of its own, between two users' rows, first or last, several runs of them
    rng = np.random.default_rng(seed)
    n_users = int(rng.integers(1, 6))
    users = np.repeat(np.arange(n_users), rng.integers(1, 5, n_users))
    users = users.astype(object)
    at = rng.choice(len(users) + n_missing, n_missing, replace=False)
    col = np.insert(users, np.sort(at) - np.arange(n_missing), None) if grouped else \
        np.insert(users, rng.integers(0, len(users) + 1, n_missing), None)
    ids = [None if u is None else (f"u{u}" if kind == "str" else int(u)) for u in col]
    cats = sorted({v for v in ids if v is not None}) + (["zz"] if kind == "str" else [99]) \
        * unused
    run = pd.DataFrame({"user": pd.Categorical(ids, categories=cats),
                        "item": rng.integers(0, 9, len(ids)),
                        "score": rng.random(len(ids))})
    truth = pd.DataFrame({"user": [v for v in cats[:n_users]], "item": 1})
    for call in _entry_points(run, truth):
        with pytest.raises(rv.InputError, match=rf"'user'.* {n_missing} missing id"):
            call()


def test_without_a_missing_user_the_grouping_keeps_the_codes_it_read():
    # the deferred check costs no pass: the run's groups come from the codes, and the users
    # are the categories of the runs, in row order
    run = pd.DataFrame({"user": pd.Categorical(["b", "b", "a", "c"], categories=["a", "b", "c"]),
                        "item": [1, 2, 1, 3], "score": [2.0, 1.0, 1.0, 1.0]})
    truth = pd.DataFrame({"user": ["a", "b", "c"], "item": [1, 1, 3]})
    got = rv.evaluate(run, truth, ["recall@5"])
    assert dict(zip(got.user_ids.tolist(), got.values[:, 0].tolist(), strict=True)) == \
        {"a": 1.0, "b": 1.0, "c": 1.0}


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), n_items=st.sampled_from([5, 300, 40_000]),
       shuffled=st.booleans(), n_missing=st.integers(1, 3),
       judged=st.sampled_from(["all", "missing", "others"]), lists=st.booleans(),
       ties=st.booleans())
def test_a_missing_categorical_item_is_refused_wherever_it_lies(seed, n_items, shuffled,
                                                                n_missing, judged, lists,
                                                                ties):
    # the join checks each code it reads (codes of 1, 2 or 4 bytes); rows it does not read
    # (a user outside the truth) are checked before it; sorted categories are read as they
    # are, others mapped to their ranks after the check
    rng = np.random.default_rng(seed)
    users = np.repeat(np.arange(6), 5)
    items = np.array([rng.choice(n_items, 5, replace=False) for _ in range(6)]).ravel()
    items = items.astype(object)
    rows = rng.choice(len(users), n_missing, replace=False)
    items[rows] = None
    cats = list(range(n_items))
    if shuffled:
        rng.shuffle(cats)
    run = pd.DataFrame({"user": users, "item": pd.Categorical(items, categories=cats),
                        "score": rng.integers(0, 3, len(users)) if ties else
                        rng.random(len(users))})
    # every run user evaluated (every row read by the join), the users of the missing
    # items only, or the others only (those rows not read by the join)
    missing = {int(users[r]) for r in rows}
    who = {"all": set(range(6)), "missing": missing,
           "others": set(range(6)) - missing}[judged] or {7}
    truth = pd.DataFrame({"user": sorted(who), "item": 1})
    metrics = ["ndcg@3", "recall@5"] + (["coverage@3"] if lists else [])
    ev = rv.Evaluator(truth, metrics)
    for call in (lambda: rv.evaluate(run, truth, metrics), lambda: ev.evaluate(run),
                 lambda: ev.evaluate_blocks([run])):
        with pytest.raises(rv.InputError, match=rf"'item'.* {n_missing} missing id"):
            call()


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), n_items=st.sampled_from([5, 300, 40_000]),
       shuffled=st.booleans(), unused=st.booleans())
def test_categorical_items_left_to_the_join_give_the_bits_of_plain_ids(seed, n_items,
                                                                       shuffled, unused):
    rng = np.random.default_rng(seed)
    users = np.repeat(np.arange(7), rng.integers(1, 9, 7))
    items = rng.integers(0, n_items, len(users))
    run = pd.DataFrame({"user": users, "item": items, "score": rng.random(len(users))}
                       ).drop_duplicates(["user", "item"])
    items = run["item"].to_numpy()
    truth = pd.DataFrame({"user": rng.integers(0, 9, 20), "item": rng.integers(0, n_items, 20)}
                         ).drop_duplicates()
    plain = rv.evaluate(run, truth, METRICS)
    cats = list(range(n_items + (3 if unused else 0)))
    if shuffled:
        rng.shuffle(cats)
    run_c = run.assign(item=pd.Categorical(items, categories=cats))
    got = rv.evaluate(run_c, truth, METRICS)
    assert np.array_equal(got.values, plain.values, equal_nan=True)
    assert got.counts == plain.counts
