"""The training data every beyond metric reads (``receval.beyond.inputs.as_train``): counts of
rows and users per item and each user's distinct items, against a plain oracle, including a
(users x items) key space past 2**31 (32-bit codes times the item count)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.beyond.inputs import as_train


def _check(frame: pd.DataFrame) -> None:
    tr = as_train(frame)
    items = tr.items.tolist()
    rows = frame.groupby("item").size()
    users_of = frame.drop_duplicates().groupby("item")["user"].nunique()
    assert tr.n_rows == len(frame)
    for j, item in enumerate(items):
        assert tr.item_rows[j] == rows[item]
        assert tr.item_users[j] == users_of[item]
    for u, user in enumerate(tr.users.tolist()):
        got = sorted(items[h] for h in tr.hist[tr.indptr[u]:tr.indptr[u + 1]])
        assert got == sorted(set(frame.loc[frame["user"] == user, "item"]))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_train_counts_match_an_oracle(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    _check(pd.DataFrame({"user": rng.integers(0, 8, n), "item": rng.integers(0, 12, n)}))


def test_a_key_space_past_two_to_the_31():
    # 50,000 users x 50,000 items: user code x item count reaches 2.5e9
    n = 50_000
    frame = pd.DataFrame({"user": np.arange(n), "item": np.arange(n)[::-1]})
    tr = as_train(frame)
    assert (tr.item_users == 1).all() and (np.diff(tr.indptr) == 1).all()
    last = int(tr.users.tolist().index(n - 1))
    assert tr.items[tr.hist[tr.indptr[last]]] == 0
