"""ndeval's greedy ideal: the compiled loop (``kernels.greedy_ideal``) gives the bits of the
array loop over every topic at once, on judgments with ties of gain, clusters of equal
subtopic sets, graded relevance, given weights and one-subtopic topics; and a worked example."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.trec.diversity import as_intents, ideal_gains


def test_worked_example():
    # subtopics a, b: d1 {a}, d2 {a, b}, d3 {b}; alpha = 1/2
    judged = pd.DataFrame({"query": "q", "doc": ["d1", "d2", "d2", "d3"],
                           "subtopic": ["a", "a", "b", "b"], "relevance": 1})
    intents = as_intents(judged)
    indptr, gains = ideal_gains(intents, np.array([0]), 0.5)
    # d2: 1 + 1 = 2 (a, b new); then d1: a seen once 0.5, d3: b seen once 0.5 -> tie, d3 (larger
    # id); then d1: a seen once 0.5
    assert indptr.tolist() == [0, 3] and gains.tolist() == [2.0, 0.5, 0.5]
    _, array_gains = ideal_gains(intents, np.array([0]), 0.5, compiled=False)
    assert array_gains.tolist() == gains.tolist()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([0.0, 0.3, 0.5, 1.0]),
       st.booleans())
def test_compiled_loop_gives_the_array_loop_bits(seed, alpha, weighted):
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(int(rng.integers(1, 12))):
        n_sub = int(rng.integers(1, 6))
        for _ in range(int(rng.integers(1, 25))):
            for s in range(n_sub):
                if rng.random() < 0.4:
                    rows.append((f"q{q}", f"d{int(rng.integers(0, 40)):02d}", f"s{s}",
                                 int(rng.integers(0, 3))))
    judged = pd.DataFrame(rows, columns=["query", "doc", "subtopic", "relevance"]) \
        .drop_duplicates(["query", "doc", "subtopic"])
    if judged.empty:
        return
    weights = None
    if weighted:
        pairs = judged[["query", "subtopic"]].drop_duplicates()
        weights = pairs.assign(weight=rng.random(len(pairs)).round(2) + 0.01)
    rel = float(rng.integers(1, 3))
    intents = as_intents(judged, rel, weights)
    topic = np.arange(len(intents.topics), dtype=np.int64)
    a = ideal_gains(intents, topic, alpha)
    b = ideal_gains(intents, topic, alpha, compiled=False)
    assert a[0].tolist() == b[0].tolist()
    assert a[1].tolist() == b[1].tolist()
