"""An evaluation's inputs are read once: ``Context.memo`` reuses a built value only while every
source is the very same object."""

from __future__ import annotations

import pandas as pd

import receval as rv
from receval.engines.plugins import Context, memo


def test_memo_reuses_only_for_the_same_objects():
    calls = []
    cache: dict = {}
    a, b = [1], [1]  # equal, not the same object

    def build(tag):
        return lambda: calls.append(tag) or tag

    assert memo(cache, "k", (a,), build("a")) == "a"
    assert memo(cache, "k", (a,), build("a2")) == "a"  # the same object: not rebuilt
    assert memo(cache, "k", (b,), build("b")) == "b"  # an equal object: rebuilt
    assert memo(cache, "k", (b, a), build("ba")) == "ba"  # other sources: rebuilt
    assert memo(cache, "other", (b,), build("o")) == "o"  # keys apart
    assert calls == ["a", "b", "ba", "o"]


def test_context_memo_is_per_evaluation():
    one, two = Context(), Context()
    src = object()
    assert one.memo("k", (src,), lambda: 1) == 1
    assert two.memo("k", (src,), lambda: 2) == 2
    assert one.memo("k", (src,), lambda: 3) == 1


def test_another_train_table_gives_its_own_values():
    run = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user": [1], "item": ["a"]})
    train = pd.DataFrame({"user": [2, 3], "item": ["a", "a"]})
    ev = rv.Evaluator(truth, ["novelty@2"], train=train)
    before = ev.evaluate(run)["novelty@2"]
    train2 = pd.DataFrame({"user": [2, 3, 4], "item": ["b", "b", "b"]})
    after = rv.Evaluator(truth, ["novelty@2"], train=train2).evaluate(run)["novelty@2"]
    assert before != after
