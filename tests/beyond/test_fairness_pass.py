"""The compiled passes of the fairness metrics give the bits of the numpy formulas they replace
(``receval.beyond._lists.COMPILED = False`` runs those, the oracle): exposure_share,
exposure_gini, awrf and miscalibration over random lists with ties, items without a group or a
category, several categories per item, several cutoffs, blocks and the whole run; and the
training log read per user equals the one global sort of its (user, item) pairs, grouped or
not, on int64 or str ids."""

from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
import receval.beyond._lists as lists
import receval.beyond.exposure  # noqa: F401  (registers the families)
import receval.beyond.miscalibration  # noqa: F401
from receval.beyond.inputs import _as_train_sorted, as_train


@st.composite
def cases(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    n_users, n_items = int(rng.integers(1, 30)), int(rng.integers(2, 16))
    rows = []
    for u in range(n_users):
        m = int(rng.integers(0, n_items + 1))
        for c in rng.choice(n_items, size=m, replace=False):
            rows.append((u, f"i{c}", float(rng.integers(0, 3))))  # ties in the scores
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": np.arange(n_users), "item": [f"i{j % n_items}"
                                                              for j in range(n_users)]})
    labels = ["A", "B", "C", "D"][: int(rng.integers(1, 5))]
    groups = {f"i{j}": labels[int(rng.integers(0, len(labels)))] for j in range(n_items)
              if rng.random() < 0.8} or {"i0": labels[0]}
    if rng.random() < 0.4:  # one category each, every item known
        cats = {f"i{j}": [f"c{int(rng.integers(0, 4))}"] for j in range(n_items)}
    else:  # several, none, or absent
        cats = {f"i{j}": [f"c{c}" for c in rng.choice(5, size=int(rng.integers(0, 4)),
                                                      replace=False)]
                for j in range(n_items) if rng.random() < 0.9}
    train = pd.DataFrame({"user": rng.integers(0, n_users + 2, 4 * n_users + 1),
                          "item": [f"i{j}" for j in rng.integers(0, n_items,
                                                                 4 * n_users + 1)]})
    if rng.random() < 0.5:
        train = train.sort_values("user", kind="stable")
    return run, truth, sorted(set(groups.values())), groups, cats, train


def _keys(labels: list[str], k: int | None) -> list[str]:
    return [rv.metric("exposure_share", k, group=labels[0], missing="skip").key,
            rv.metric("exposure_share", k, group=labels[-1], missing="other",
                      weight="log").key,
            rv.metric("exposure_share", k, group=labels[0], weight="uniform",
                      missing="other").key,
            rv.metric("exposure_gini", k).key,
            rv.metric("exposure_gini", k, weight="log_clip", denominator="n-1").key,
            rv.metric("awrf", k).key,
            rv.metric("awrf", k, weight="geometric", p=0.5, target="population").key,
            rv.metric("awrf", k, target="relevant", distance="kl", missing="skip").key,
            rv.metric("miscalibration", k, missing="skip").key,
            rv.metric("miscalibration", k, missing="skip", weight="log", distance="js").key,
            rv.metric("miscalibration", k, missing="skip", weight="geometric",
                      distance="hellinger", alpha=0.0).key]


@contextmanager
def _compiled(on: bool):
    old, lists.COMPILED = lists.COMPILED, on
    try:
        yield
    finally:
        lists.COMPILED = old


def _evaluate(compiled: bool, run, truth, keys, kw, n_blocks: int = 1):
    with _compiled(compiled):
        ev = rv.Evaluator(truth, keys, **kw)
        if n_blocks == 1:
            return ev.evaluate(run)
        users = sorted(run["user"].unique())
        parts = [run[run["user"].isin(users[b::n_blocks])] for b in range(n_blocks)]
        return ev.evaluate_blocks([p for p in parts if len(p)])


def _same(a, b, keys, info: bool = True) -> None:
    for key in keys:
        assert a.per_user[key].sort_index().equals(b.per_user[key].sort_index()), key
        x, y = a.summary[key], b.summary[key]
        assert x == y or (math.isnan(x) and math.isnan(y)), key
        if info:  # (blocks add up some counts of info: compared on one layout)
            assert a.info.get(key) == b.info.get(key), key


@settings(max_examples=40, deadline=None)
@given(cases(), st.sampled_from([1, 2, 3, None]), st.integers(1, 3))
def test_compiled_passes_give_the_bits_of_the_numpy_formulas(d, k, n_blocks):
    run, truth, labels, groups, cats, train = d
    keys = _keys(labels, k)
    kw = {"item_groups": groups, "item_categories": cats, "train": train, "users": "run"}
    if not len(run):
        return
    oracle = _evaluate(False, run, truth, keys, kw)
    fast = _evaluate(True, run, truth, keys, kw)
    _same(fast, oracle, keys)
    # blocks give the bits of the whole run
    _same(_evaluate(True, run, truth, keys, kw, n_blocks), oracle, keys, info=False)


@settings(max_examples=25, deadline=None)
@given(cases())
def test_several_cutoffs_in_one_evaluation_equal_each_alone(d):
    # one pass per block and cutoff: a cutoff never reads another's tables
    run, truth, labels, groups, cats, train = d
    keys = _keys(labels, 2) + _keys(labels, None)
    kw = {"item_groups": groups, "item_categories": cats, "train": train, "users": "run"}
    if not len(run):
        return
    together = _evaluate(True, run, truth, keys, kw)
    for key in keys:
        alone = _evaluate(False, run, truth, [key], kw)
        _same(together, alone, [key])


def test_an_item_without_a_group_is_refused_by_the_compiled_pass_as_before():
    run = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user": [1], "item": ["a"]})
    kw = {"item_groups": {"a": "A"}, "item_categories": {"a": ["x"]},
          "train": pd.DataFrame({"user": [1], "item": ["a"]})}
    for key in ("exposure_share@2(group=A)", "awrf@2(missing=error)",
                "miscalibration@2"):
        messages = []
        for compiled in (False, True):
            with _compiled(compiled), pytest.raises(rv.errors.InputError) as err:
                rv.evaluate(run, truth, [key], **kw)
            messages.append(str(err.value))
        assert messages[0] == messages[1]
        assert "'b'" in messages[1]


def test_exposure_share_worked_example_on_the_compiled_pass():
    # lists [a, b, c] and [b, x]; groups a, c: A, b: B, x none; geometric p = 1/2:
    # user 1: A = 1 + 1/4, all = 1 + 1/2 + 1/4 -> 5/7; user 2 (skip x): A = 0 -> 0
    run = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": ["a", "b", "c", "b", "x"],
                        "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 2], "item": ["a", "b"]})
    key = rv.parse_metric("exposure_share@3(group=A,p=0.5,missing=skip)").key
    res = rv.evaluate(run, truth, [key], item_groups={"a": "A", "b": "B", "c": "A"})
    assert res.per_user.loc[1, key] == 5 / 7
    assert res.per_user.loc[2, key] == 0.0
    # run-wide: A gets 1 + 1/4, all known attention 1 + 1/2 + 1/4 + 1 -> 5/11
    assert res.summary[key] == 5 / 11


def _same_train(a, b) -> None:
    for f in ("users", "items", "item_rows", "item_users", "indptr", "hist"):
        x, y = getattr(a, f), getattr(b, f)
        assert x.dtype == y.dtype and np.array_equal(x, y), f
    assert a.n_rows == b.n_rows


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.booleans(), st.sampled_from(["int", "str", "wide"]),
       st.sampled_from(["int", "str", "wide"]))
def test_training_log_read_per_user_equals_the_global_sort(seed, grouped, u_kind, i_kind):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    users = rng.integers(0, int(rng.integers(1, 9)), n)
    if grouped:
        users = np.sort(users)
    items = rng.integers(-3, 12, n)
    frame = pd.DataFrame({"user": users, "item": items})
    for col, kind in (("user", u_kind), ("item", i_kind)):
        if kind == "str":
            frame[col] = [f"v{v}" for v in frame[col]]
        elif kind == "wide":  # int64 ids over a range too wide for a direct table
            frame[col] = frame[col].astype(np.int64) * (1 << 40) + 7
    _same_train(as_train(frame), _as_train_sorted(frame))


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("n_items", [50, 100_000])
def test_a_training_log_large_enough_for_threads_equals_the_global_sort(grouped, n_items):
    """Over 32k rows the users are sorted on several threads (their distinct items written
    where their rows start, the gaps closed after); with few item codes the counts are made
    in a table per thread, with many by serial passes: the global sort's arrays either way."""
    rng = np.random.default_rng(5)
    n = 120_000
    users = rng.integers(0, 9_000, n)
    users[: n // 3] = 9_001  # one long user: a thread's share of rows, not of users
    if grouped:
        users = np.sort(users)
    items = rng.integers(0, n_items, n)  # (many codes: more table cells than rows)
    frame = pd.DataFrame({"user": users, "item": items})
    _same_train(as_train(frame), _as_train_sorted(frame))


def test_a_user_in_two_runs_is_one_user():
    # rows of user 1, then 2, then 1 again: not grouped, read by user code
    frame = pd.DataFrame({"user": [1, 1, 2, 1], "item": [5, 3, 3, 3]})
    tr = as_train(frame)
    assert tr.users.tolist() == [1, 2]
    assert tr.indptr.tolist() == [0, 2, 3]
    assert tr.items[tr.hist].tolist() == [5, 3, 3]  # codes ascending: 5 came first
    assert tr.item_rows.tolist() == [1, 3] and tr.item_users.tolist() == [1, 2]
    _same_train(tr, _as_train_sorted(frame))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 12), st.sampled_from(["js", "kl"]),
       st.sampled_from(["e", "2"]), st.booleans())
def test_awrf_distance_compiled_equals_numpy(seed, n_groups, distance, base, per_row):
    # rows of fewer than 8 groups take the compiled loops; zeros in both distributions
    from receval.beyond.exposure import _row_sums, awrf_distance

    rng = np.random.default_rng(seed)
    a = rng.random((50, n_groups)) * (rng.random((50, n_groups)) < 0.7)
    a[a.sum(axis=1) == 0, 0] = 1.0
    a = a / a.sum(axis=1, keepdims=True)
    t = rng.random((50, n_groups) if per_row else n_groups) * (
        rng.random((50, n_groups) if per_row else n_groups) < 0.8)
    t = t + (t.sum(axis=-1, keepdims=True) == 0)
    t = t / t.sum(axis=-1, keepdims=True)
    with _compiled(False):
        want = awrf_distance(a, t, distance, base)
        want_sums = _row_sums(a)
    with _compiled(True):
        got = awrf_distance(a, t, distance, base)
        got_sums = _row_sums(a)
    assert np.array_equal(got, want, equal_nan=True)
    # rows of fewer than 8 entries: numpy's sum adds the columns in order
    assert np.array_equal(got_sums, want_sums)


@pytest.mark.parametrize("k", [5, None])
def test_a_block_large_enough_for_threads_gives_the_numpy_bits(k):
    """A block of over 100k positions: the compiled pass runs its per-user sums on several
    threads (each user's cells its own, in rank order) and gives the numpy formulas' bits;
    so do the training profiles read on several threads."""
    rng = np.random.default_rng(21)
    n_users, n_items, per = 6000, 300, 25
    items = rng.integers(0, n_items, (n_users, per))
    run = pd.DataFrame({"user": np.repeat(np.arange(n_users), per),
                        "item": [f"i{j}" for j in items.ravel()],
                        "score": rng.integers(0, 5, n_users * per).astype(float)})
    run = run.drop_duplicates(["user", "item"])
    truth = pd.DataFrame({"user": np.arange(n_users),
                          "item": [f"i{j}" for j in rng.integers(0, n_items, n_users)]})
    groups = {f"i{j}": "ABC"[j % 3] for j in range(n_items) if j % 7}
    cats = {f"i{j}": [f"c{c}" for c in range(j % 4)] for j in range(n_items) if j % 11}
    # over 32k profile entries: the profiles' cells are made on several threads too
    train = pd.DataFrame({"user": rng.integers(0, n_users, 8 * n_users),
                          "item": [f"i{j}" for j in rng.integers(0, n_items, 8 * n_users)]})
    kw = {"train": train, "item_groups": groups, "item_categories": cats}
    keys = _keys(["A", "C"], k)
    _same(_evaluate(True, run, truth, keys, kw), _evaluate(False, run, truth, keys, kw), keys)
