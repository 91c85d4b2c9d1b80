"""Every policy combination is invariant to row order (issue 11: ``duplicates="first"`` used to
keep the first row in input order, so reversing the rows changed ndcg from 0.9068 to 0.9747)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import random_case, to_frame

import receval as rv
from receval.metrics import parse_metric

METRICS = [
    "precision@3", "recall@3", "hit_rate@2", "mrr", "map", "mar@3", "dcg@3", "ndcg@3",
    "ndcg(gain=exp)", "r_precision", "err", "rbp", "bpref", "num_ret@3", "precision@3(rel=2)",
]
AVERAGE = [m for m in METRICS
           if parse_metric(m).definition.kernel.exact_under_average(parse_metric(m))]
POLICIES = st.fixed_dictionaries({
    "ties": st.sampled_from(["id", "trec_eval", "average"]),
    "users": st.sampled_from(["truth", "run", "union", "intersection"]),
    "empty_truth": st.sampled_from(["skip", "zero", "nan"]),
    "duplicates": st.sampled_from(["first", "max"]),
    "nan_scores": st.sampled_from(["drop", "last"]),
    "negative_rel": st.sampled_from(["zero", "drop"]),
})


def _case(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Random rows with repeated (user, item) rows of other scores / relevances, NaN scores
    and negative relevances, so that every policy has something to decide."""
    rng = np.random.default_rng(seed)
    run, truth = random_case(rng, negative=True)
    run = run + [(u, i, s + float(rng.integers(-2, 3)) / 2) for u, i, s in run[::2]]
    run = run + [(u, i, float("nan")) for u, i, _ in run[1::5]]
    truth = truth + [(u, i, float(rng.integers(-1, 4))) for u, i, _ in truth[::2]]
    return to_frame(run, "score"), to_frame(truth, "relevance")


def _by_user(res) -> dict:
    return {u: row.tobytes() for u, row in zip(res.user_ids.tolist(), res.values, strict=True)}


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), POLICIES, st.integers(0, 2**32 - 1))
def test_every_policy_combination_is_invariant_to_row_order(seed, policies, shuffle):
    run, truth = _case(seed)
    metrics = AVERAGE if policies["ties"] == "average" else METRICS
    base = rv.evaluate(run, truth, metrics, **policies)
    rng = np.random.default_rng(shuffle)
    for r, t in ((run.iloc[::-1], truth.iloc[::-1]),
                 (run.sample(frac=1, random_state=rng), truth.sample(frac=1, random_state=rng))):
        other = rv.evaluate(r, t, metrics, **policies)
        assert _by_user(other) == _by_user(base)  # bit for bit, per user
        assert other.counts == base.counts


def test_first_keeps_the_best_ranked_occurrence():
    run = pd.DataFrame({"user": ["u"] * 4, "item": ["a", "b", "c", "a"],
                        "score": [0.1, 0.9, 0.5, 0.95]})
    truth = pd.DataFrame({"user": ["u", "u", "u"], "item": ["a", "c", "c"],
                          "relevance": [1, 1, 3]})
    fwd = rv.evaluate(run, truth, ["ndcg@3", "mrr"], duplicates="first")
    rev = rv.evaluate(run.iloc[::-1], truth.iloc[::-1], ["ndcg@3", "mrr"], duplicates="first")
    assert fwd.summary == rev.summary
    # kept: a at 0.95 (rank 1), c with relevance 3 (rank 3)
    dcg = 1 + 3 / np.log2(4)
    idcg = 3 + 1 / np.log2(3)
    assert fwd["ndcg@3"] == dcg / idcg
    assert fwd["mrr"] == 1.0
    assert fwd.counts["duplicates_removed"] == 1 and fwd.counts["truth_duplicates"] == 1
