from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics.pairwise import cosine_similarity

from receval.beyond import (
    aplt,
    arp,
    expected_by_popularity,
    novelty,
    personalization,
    popularity_curve,
    self_information,
    serendipity,
    tail_mask,
)
from receval.beyond.personalization import PersonalizationState
from receval.errors import InputError


def test_tail_mask_ties_go_to_head():
    # 4 seen items, head = ceil(0.25 * 4) = 1 item: count 10
    assert tail_mask([10, 1, 5, 0, 1], head=0.25).tolist() == [False, True, True, True, True]
    # head = ceil(0.5 * 4) = 2 items: 10 and 5; the tie at 5 joins the head
    assert tail_mask([10, 5, 5, 1], head=0.5).tolist() == [False, False, False, True]
    # head = 1: every seen item is in the head; only unseen items are long tail
    assert tail_mask([10, 5, 0, 1], head=1.0).tolist() == [False, False, True, False]
    with pytest.raises(InputError, match="head"):
        tail_mask([1, 2], head=1.5)


def test_aplt_with_head_one_counts_only_unseen_items():
    import receval as rv

    train = {"u": {"a": 1, "b": 1}, "v": {"a": 1}}
    run = {"u": {"a": 3.0, "c": 2.0, "d": 1.0}, "v": {"b": 2.0, "a": 1.0}}
    truth = {"u": {"a": 1}, "v": {"b": 1}}
    res = rv.evaluate(run, truth, ["aplt@3(head=1)"], train=train)
    # u: c and d are unseen in training (2 of 3); v: none of 2
    assert res.user_values("aplt@3(head=1)").tolist() == [2 / 3, 0.0]


def test_self_information_and_novelty_exact():
    assert self_information([4, 2, 1], 8).tolist() == [1.0, 2.0, 3.0]
    assert novelty([[0, 1], [2], []], [4, 2, 1], 8).tolist()[:2] == [1.5, 3.0]
    assert math.isnan(novelty([[0, 1], [2], []], [4, 2, 1], 8)[2])
    # unseen item: as seen once (-log2(1/8) = 3), skipped, or an error
    assert novelty([[0, 3]], [4, 2, 1, 0], 8).tolist() == [(1 + 3) / 2]
    assert novelty([[0, 3]], [4, 2, 1, 0], 8, unseen="skip").tolist() == [1.0]
    with pytest.raises(InputError, match="never occur"):
        novelty([[0, 3]], [4, 2, 1, 0], 8, unseen="error")
    assert novelty([[0]], [4, 2], 8, base=math.e)[0] == pytest.approx(math.log(2), abs=1e-15)


def test_arp_aplt_exact():
    assert arp([[0, 1], [2]], [4, 2, 1]).tolist() == [3.0, 1.0]
    assert arp([[0, 1, 2]], [4, 2, 1], k=2).tolist() == [3.0]
    assert aplt([[0, 1], [2]], [False, True, True]).tolist() == [0.5, 1.0]


def test_popularity_curve():
    train = pd.DataFrame({"user": ["a", "a", "b", "c", "c", "c"], "item": [1, 1, 4, 1, 6, 7]})
    run = pd.DataFrame({"user": ["a", "a", "a", "b", "b", "b"], "item": [1, 2, 3, 1, 4, 5],
                        "score": [3, 2, 1, 3, 2, 1]})
    curve = popularity_curve(train, run, k=2, head=0.25)
    assert curve["item"].tolist() == [1, 4, 6, 7, 2, 3, 5]
    assert curve["popularity"].tolist() == [3, 1, 1, 1, 0, 0, 0]
    assert curve["exposure"].tolist() == [2, 1, 0, 0, 1, 0, 0]
    assert curve["tail"].tolist() == [False] + [True] * 6
    assert curve["cum_exposure_share"].iloc[-1] == 1.0
    assert curve["popularity_share"].iloc[0] == 3 / 6


def brute_personalization(lists):
    items = sorted({i for lst in lists for i in lst})
    m = np.array([[1.0 if i in lst else 0.0 for i in items] for lst in lists if lst])
    cs = cosine_similarity(m)
    n = len(m)
    return 1 - (cs.sum() - np.trace(cs)) / (n * (n - 1))


def test_personalization_exact():
    assert personalization([[0, 1], [0, 2], [3, 4]]) == pytest.approx(1 - (1 / 2) / 3)
    assert personalization([[0, 1], [0, 1]]) == pytest.approx(0.0, abs=1e-15)
    assert personalization([[0], [1], []]) == 1.0
    assert math.isnan(personalization([[0, 1]]))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.integers(0, 12), max_size=6, unique=True), min_size=2,
                max_size=20), st.integers(1, 6))
def test_personalization_matches_brute_force_and_blocks(lists, size):
    if sum(1 for x in lists if x) < 2:
        return
    ref = brute_personalization(lists)
    whole = personalization(lists)
    assert whole == pytest.approx(ref, abs=1e-12)
    merged = PersonalizationState()
    for lo in range(0, len(lists), size):
        merged = merged.merge(PersonalizationState.from_lists(lists[lo:lo + size]))
    assert merged.value() == whole


def test_serendipity_exact():
    out = serendipity(np.array([0, 3, 3]), np.array([1, 0, 1]), np.array([0.5, 1.0, 1.0]), k=4)
    assert out[0] == (1 * 0.5 + 0 + 1 * 1.0) / 4
    assert out[1] == 0.0
    # without k the denominator is the list length; NaN unexpectedness -> NaN
    out = serendipity(np.array([0, 2, 3]), np.array([1, 1, 1]), np.array([0.5, 0.25, np.nan]))
    assert out[0] == (0.5 + 0.25) / 2 and math.isnan(out[1])
    assert expected_by_popularity([5, 1, 3, 3, 0], top=2).tolist() == [True, False, True, True,
                                                                       False]
