from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.errors import InputError, PolicyError
from receval.split import (
    LeakageWarning,
    Split,
    check_leakage,
    cold_start_split,
    drop_cold,
    filter_min_interactions,
    kfold_split,
    leave_one_out,
    random_split,
    temporal_split,
    user_temporal_split,
)


def purchases() -> pd.DataFrame:
    # who bought what, when (a seed-002-style purchase log)
    return pd.DataFrame(
        {
            "user": ["A", "A", "B", "B", "C", "A", "C", "B"],
            "item": ["X", "Y", "X", "Z", "Y", "Z", "X", "W"],
            "timestamp": pd.to_datetime(
                [
                    "2023-01-03", "2023-01-10", "2023-01-05", "2023-02-01",
                    "2023-02-10", "2023-02-15", "2023-03-01", "2023-03-02",
                ]
            ),
        }
    )


def test_temporal_split_threshold_date():
    """Seed 002: pick a threshold date; entries before it train, the rest test."""
    df = purchases()
    tr, te = temporal_split(df, at="2023-02-01")
    assert tr.index.tolist() == [0, 1, 2]
    assert te.index.tolist() == [3, 4, 5, 6, 7]  # 2023-02-01 itself is not before the date
    assert list(tr.columns) == list(df.columns) == list(te.columns)
    rep = check_leakage(tr, te, timestamp_col="timestamp", warn=False)
    assert rep.test_before_train_end == 0
    assert rep.test_before_user_train_end == 0
    # C has no training row; train items are X, Y, so Z (rows 3, 5) and W (row 7) are test-only
    assert rep.test_only_users == 1 and rep.test_only_user_rows == 2
    assert rep.test_only_items == 2 and rep.test_only_item_rows == 3
    assert rep.pairs_in_both == 0


def test_temporal_quantile_and_numeric():
    df = pd.DataFrame({"user": range(10), "item": range(10), "timestamp": range(1, 11)})
    tr, te = temporal_split(df, quantile=0.8)  # at = sorted[floor(8.0)] = 9
    assert tr["timestamp"].tolist() == list(range(1, 9))
    assert te["timestamp"].tolist() == [9, 10]
    # equal timestamps never straddle the cut
    df2 = pd.DataFrame({"user": range(6), "item": range(6), "timestamp": [1, 2, 2, 2, 3, 4]})
    tr, te = temporal_split(df2, quantile=0.5)  # at = sorted[3] = 2 -> all 2s go to test
    assert tr["timestamp"].tolist() == [1]
    with pytest.raises(InputError, match="exactly one"):
        temporal_split(df)
    with pytest.raises(InputError, match="string"):
        temporal_split(df, at="2020-01-01")


def test_leakage_counts_and_warning():
    df = pd.DataFrame(
        {"user": ["a", "a", "b", "b"], "item": ["x", "y", "x", "z"], "timestamp": [1, 2, 10, 11]}
    )
    split = user_temporal_split(df, last_n=1)
    assert split.test.index.tolist() == [1, 3]
    with pytest.warns(LeakageWarning, match="test_before_train_end=1"):
        rep = check_leakage(split, timestamp_col="timestamp")
    # newest train row is t=10; a's test row at t=2 is older: a global time leak of one row
    assert rep.test_before_train_end == 1
    assert rep.test_before_user_train_end == 0
    assert (rep.test_only_items, rep.test_only_item_rows) == (2, 2)
    assert rep.problems == {
        "test_before_train_end": 1, "test_only_items": 2, "test_only_item_rows": 2
    }
    leaky = pd.DataFrame({"user": ["a"], "item": ["x"], "timestamp": [0]})
    rep = check_leakage(split.train, leaky, timestamp_col="timestamp", warn=False)
    assert rep.test_before_user_train_end == 1 and rep.pairs_in_both == 1
    no_time = check_leakage(split, warn=False)
    assert no_time.test_before_train_end is None


def test_user_temporal_secondary_key_is_item():
    df = pd.DataFrame(
        {"user": [1, 1, 1], "item": ["b", "c", "a"], "timestamp": [5, 5, 5]}
    )
    tr, te = user_temporal_split(df, last_n=1)
    assert te["item"].tolist() == ["c"]  # equal timestamps: item id ascending, last is "c"
    tr, te = user_temporal_split(df, fraction=0.5)  # floor(1.5 + 0.5) = 2 rows
    assert sorted(te["item"]) == ["b", "c"]


def test_leave_one_out_and_min_train():
    df = purchases()
    tr, te = leave_one_out(df)
    assert sorted(te.index) == [5, 6, 7]
    single = pd.DataFrame({"user": [1, 2, 2], "item": [1, 1, 2], "timestamp": [1, 1, 2]})
    tr, te = leave_one_out(single)
    assert te.index.tolist() == [2]  # user 1 has one row and keeps it for training
    tr, te = leave_one_out(single, pick="random", seed=3, timestamp_col=None)
    assert len(te) == 1 and te["user"].tolist() == [2]
    # a random pick works without any timestamp column
    tr, te = leave_one_out(single.drop(columns="timestamp"), pick="random", seed=3)
    assert te["user"].tolist() == [2] and len(tr) == 2
    with pytest.raises(InputError, match="timestamp"):
        leave_one_out(single.drop(columns="timestamp"))
    with pytest.raises(PolicyError, match="last"):
        leave_one_out(single, pick="lats")


def test_random_split_counts():
    df = pd.DataFrame({"user": np.repeat(np.arange(4), 5), "item": np.tile(np.arange(5), 4)})
    tr, te = random_split(df, test_size=0.25)
    assert len(te) == 5  # floor(0.25 * 20 + 0.5)
    tr, te = random_split(df, test_size=0.3, per_user=True)
    # each user: floor(1.5 + 0.5) = 2 test rows
    assert te.groupby("user").size().tolist() == [2, 2, 2, 2]
    with pytest.raises(InputError, match="test_size"):
        random_split(df, test_size=1.5)
    with pytest.raises(InputError, match="seed"):
        random_split(df, seed=None)
    with pytest.raises(InputError, match="user_col"):
        random_split(df.rename(columns={"user": "u"}))


def test_cold_start_and_kfold_by_user():
    df = pd.DataFrame({"user": np.repeat(np.arange(10), 3), "item": np.tile(np.arange(3), 10)})
    tr, te = cold_start_split(df, test_users=0.3, seed=1)
    assert te["user"].nunique() == 3
    assert set(te["user"]).isdisjoint(tr["user"])
    folds = kfold_split(df, n_folds=5, by="user", seed=2)
    seen = np.concatenate([f.test["user"].unique() for f in folds])
    assert sorted(seen) == list(range(10))
    assert all(set(f.test["user"]).isdisjoint(f.train["user"]) for f in folds)


def test_filters_and_drop_cold():
    df = pd.DataFrame({"user": list("aaab"), "item": list("xyzx")})
    assert filter_min_interactions(df, min_user=2)["user"].tolist() == ["a", "a", "a"]
    # one pass: item counts x=2, y=1, z=1; min_item=2 keeps only x rows; iterate then drops b? no:
    # after the pass a has 1 row and b 1 row, with min_user=1 nothing more changes
    assert filter_min_interactions(df, min_item=2).index.tolist() == [0, 3]
    # a 2-core: one pass keeps users with >=2 rows (a) and items with >=2 rows (x) -> row 0;
    # iterating drops it too (a now has 1 row)
    assert filter_min_interactions(df, min_user=2, min_item=2).index.tolist() == [0]
    assert len(filter_min_interactions(df, min_user=2, min_item=2, iterate=True)) == 0
    tr = pd.DataFrame({"user": ["a"], "item": ["x"]})
    te = pd.DataFrame({"user": ["a", "a", "b"], "item": ["x", "y", "x"]})
    assert drop_cold(tr, te).test.index.tolist() == [0]
    assert drop_cold(tr, te, items=False).test.index.tolist() == [0, 1]


def test_polars_input():
    pl = pytest.importorskip("polars")
    df = purchases()
    out = temporal_split(pl.from_pandas(df), at="2023-02-01")
    assert len(out.train) == 3 and isinstance(out.train, pd.DataFrame)


# ----------------------------------------------------------------------------- properties

frames = st.integers(1, 60).flatmap(
    lambda n: st.builds(
        lambda u, i, t: pd.DataFrame({"user": u, "item": i, "timestamp": t}),
        st.lists(st.integers(0, 6), min_size=n, max_size=n),
        st.lists(st.sampled_from(["p", "q", "r", "s"]), min_size=n, max_size=n),
        st.lists(st.integers(0, 5), min_size=n, max_size=n),
    )
)

# (splitter, uses the timestamp column): without timestamps, rows equal on (user, item) are
# interchangeable, so order invariance is checked on (user, item) only
SPLITTERS = [
    (lambda d, s: random_split(d, test_size=0.3, seed=s), False),
    (lambda d, s: random_split(d, test_size=0.3, per_user=True, seed=s), False),
    (lambda d, s: random_split(d, test_size=0.3, seed=s, timestamp_col="timestamp"), True),
    (lambda d, s: temporal_split(d, quantile=0.6), True),
    (lambda d, s: user_temporal_split(d, last_n=2), True),
    (lambda d, s: user_temporal_split(d, fraction=0.4), True),
    (lambda d, s: leave_one_out(d), True),
    (lambda d, s: leave_one_out(d, pick="random", seed=s), True),
    (lambda d, s: cold_start_split(d, test_users=0.5, seed=s), True),
    (lambda d, s: kfold_split(d, n_folds=3, seed=s)[1], False),
    (lambda d, s: kfold_split(d, n_folds=3, by="user", seed=s)[2], True),
    (lambda d, s: kfold_split(d, n_folds=3, by="user_interactions", seed=s)[0], False),
]


def _keyset(df: pd.DataFrame, cols: list[str]) -> list[tuple]:
    return sorted(map(tuple, df[cols].to_numpy().tolist()))


# an empty side or fold is refused (InputError) or, for a fold that is empty by chance, warned
# about; the properties hold for every split that is returned
_EMPTY_FOLD = "ignore:kfold_split:receval.errors.RecevalWarning"


@pytest.mark.filterwarnings(_EMPTY_FOLD)
@settings(max_examples=30, deadline=None)
@given(frames, st.integers(0, 2**31), st.permutations(range(60)))
def test_split_properties(df, seed, perm):
    perm = [p for p in perm if p < len(df)]
    shuffled = df.iloc[perm].reset_index(drop=True)
    for make, uses_time in SPLITTERS:
        try:
            a = make(df, seed)
        except InputError as exc:
            assert "is empty" in str(exc) or "no test rows" in str(exc)
            with pytest.raises(InputError):  # refused whatever the row order
                make(shuffled, seed)
            continue
        assert isinstance(a, Split)
        # partition: every row exactly once
        idx = np.concatenate([a.train.index.to_numpy(), a.test.index.to_numpy()])
        assert sorted(idx.tolist()) == list(range(len(df)))
        assert list(a.train.columns) == list(df.columns)
        # deterministic for a seed
        b = make(df, seed)
        assert a.train.index.equals(b.train.index) and a.test.index.equals(b.test.index)
        # independent of the input row order
        cols = ["user", "item", "timestamp"] if uses_time else ["user", "item"]
        assert _keyset(make(shuffled, seed).test, cols) == _keyset(a.test, cols)


@settings(max_examples=40, deadline=None)
@given(frames, st.integers(2, 5), st.sampled_from(["interaction", "user", "user_interactions"]))
@pytest.mark.filterwarnings(_EMPTY_FOLD)
def test_kfold_each_row_tested_once(df, k, by):
    units = df["user"].nunique() if by == "user" else len(df)
    if units < k:
        with pytest.raises(InputError, match="no test rows"):
            kfold_split(df, n_folds=k, by=by, seed=7)
        return
    folds = kfold_split(df, n_folds=k, by=by, seed=7)
    tested = np.concatenate([f.test.index.to_numpy() for f in folds])
    assert sorted(tested.tolist()) == list(range(len(df)))
    for f in folds:
        assert len(f.train) + len(f.test) == len(df)
    if by == "interaction":
        sizes = [len(f.test) for f in folds]
        assert max(sizes) - min(sizes) <= 1


@settings(max_examples=40, deadline=None)
@given(frames)
def test_temporal_has_no_time_leak(df):
    try:
        tr, te = temporal_split(df, quantile=0.5)
    except InputError as exc:  # every timestamp on one side of the cut
        assert "side is empty" in str(exc)
    else:
        assert len(tr) and len(te)
        assert tr["timestamp"].max() < te["timestamp"].min()
        rep = check_leakage(tr, te, timestamp_col="timestamp", warn=False)
        assert rep.test_before_train_end == 0
    tr, te = user_temporal_split(df, last_n=1)
    rep = check_leakage(tr, te, timestamp_col="timestamp", warn=False)
    assert rep.test_before_user_train_end == 0
    # brute-force count of the global leak
    expected = sum(int(t < tr["timestamp"].max()) for t in te["timestamp"]) if len(tr) else 0
    assert rep.test_before_train_end == expected


@settings(max_examples=40, deadline=None)
@given(frames, st.integers(1, 3))
def test_user_temporal_takes_each_users_latest(df, n):
    tr, te = user_temporal_split(df, last_n=n)
    counts = df.groupby("user").size()
    got = te.groupby("user").size().reindex(counts.index, fill_value=0)
    expected = np.minimum(n, counts - 1)  # min_train=1 keeps one row per user
    assert (got == expected).all()
    # brute force: sort each user's rows by (timestamp, item, position); the last ones are test
    for user, rows in df.groupby("user"):
        order = sorted(rows.index, key=lambda j: (df.at[j, "timestamp"], df.at[j, "item"], j))
        assert sorted(order[len(order) - int(expected[user]):]) == sorted(
            te.index[te["user"] == user]
        )
