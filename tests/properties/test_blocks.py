"""Block execution is in-memory execution: bit-identical values, summaries, counts and info.

Every executor merges per-block states with the one exact aggregator, so evaluating a run in
blocks of whole users (any block sizes, any policy) must give exactly what ``rv.evaluate`` gives
on the whole run: the same users in the same row order, the same bits in every value and summary
and the same counts, including run-only users spread over several blocks.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from cases import exact_under_average, metric_cases
from hypothesis import given
from hypothesis import strategies as st
from oracle import ID_KINDS, make_ids, random_case, to_frame

import receval as rv
from receval.engines.aggregate import MetricState

METRICS = metric_cases(cutoffs=(2, 4))
AVERAGE = [m for m in METRICS if exact_under_average(m)]
POLICIES = st.fixed_dictionaries({
    "ties": st.sampled_from(["id", "trec_eval", "average"]),
    "users": st.sampled_from(["truth", "run", "union", "intersection"]),
    "empty_truth": st.sampled_from(["skip", "zero", "nan"]),
    "duplicates": st.sampled_from(["first", "max"]),
    "nan_scores": st.sampled_from(["drop", "last"]),
    "unjudged": st.sampled_from(["keep", "remove"]),
})


def _case(seed: int, id_kind: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    run, truth = random_case(rng, n_users=int(rng.integers(1, 9)), id_kind=id_kind)
    # more run-only users, so that several of them fall into different blocks
    for u in make_ids(id_kind, 14)[-3:]:
        run += [(u, it, float(rng.integers(0, 3))) for it in make_ids(id_kind, 4)]
    # a duplicate row and a NaN score exercise the row policies
    if run:
        run.append(run[0])
        run.append((run[-1][0], make_ids(id_kind, 30)[-1], float("nan")))
    return to_frame(run, "score"), to_frame(truth, "relevance")


def _blocks(run: pd.DataFrame, cuts: list[int]) -> list[pd.DataFrame]:
    """Whole users per block, users in order of first appearance, split at ``cuts``."""
    users = pd.unique(run["user"])
    rank = {u: i for i, u in enumerate(users)}
    ordered = run.iloc[np.argsort(run["user"].map(rank).to_numpy(), kind="stable")]
    bounds = sorted({0, len(users), *(c % (len(users) + 1) for c in cuts)})
    out = []
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        keep = ordered["user"].isin(set(users[a:b]))
        out.append(ordered[keep.to_numpy()])
    return out


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


# random data: users or relevance levels may not meet, which the warnings rightly report
@pytest.mark.filterwarnings("ignore::receval.errors.NoCommonUsersWarning")
@pytest.mark.filterwarnings("ignore::receval.errors.RelevanceThresholdWarning")
@given(seed=st.integers(0, 2**32 - 1), policies=POLICIES, id_kind=st.sampled_from(ID_KINDS),
       cuts=st.lists(st.integers(0, 40), max_size=6))
def test_blocks_equal_in_memory(seed, policies, id_kind, cuts):
    run, truth = _case(seed, id_kind)
    metrics = AVERAGE if policies["ties"] == "average" else METRICS
    ev = rv.Evaluator(truth, metrics, **policies)
    whole = ev.evaluate(run)
    parts = ev.evaluate_blocks(_blocks(run, cuts))
    assert list(map(repr, parts.user_ids)) == list(map(repr, whole.user_ids))
    assert parts.values.tobytes() == whole.values.tobytes()
    assert parts.counts == whole.counts
    assert parts.info == whole.info
    for p, w in zip(parts.stats, whole.stats, strict=True):
        assert p.keys() == w.keys()
        for key in p:
            assert _same(p[key], w[key]) if isinstance(p[key], float) else p[key] == w[key], \
                (p["metric"], key, p[key], w[key])


def test_one_user_per_block_and_all_in_one(tmp_path):
    run, truth = _case(7, "str")
    ev = rv.Evaluator(truth, METRICS, duplicates="max", nan_scores="drop", users="union")
    whole = ev.evaluate(run)
    for cuts in ([], list(range(40))):
        res = ev.evaluate_blocks(_blocks(run, cuts))
        assert res.values.tobytes() == whole.values.tobytes()
        assert res.stats == whole.stats or all(
            _same(a["mean"], b["mean"]) for a, b in zip(res.stats, whole.stats, strict=True))
        assert res.counts == whole.counts


def test_user_split_over_blocks_is_refused():
    run, truth = _case(3, "int")
    blocks = _blocks(run, [1, 2, 3])
    first_user = blocks[0]["user"].iloc[0]
    blocks.append(run[run["user"] == first_user])
    ev = rv.Evaluator(truth, ["ndcg@3"], duplicates="max", nan_scores="drop", users="union")
    with pytest.raises(rv.InputError, match="not contiguous"):
        ev.evaluate_blocks(blocks)


def test_evaluate_blocks_leaves_the_evaluator_unchanged():
    run, truth = _case(5, "str")
    ev = rv.Evaluator(truth, ["ndcg@3"], duplicates="max", nan_scores="drop")
    before = ev.policies
    ev.evaluate_blocks(_blocks(run, [2]))
    assert ev.policies is before and ev.policies.users == "truth"


@given(st.lists(st.lists(st.floats(-1e6, 1e6), max_size=30), min_size=1, max_size=6))
def test_state_merge_is_exact_and_order_free(groups):
    """Merged states give the correctly rounded mean of all values, whatever the grouping."""
    from fractions import Fraction

    states = [MetricState.of(np.array(g, dtype=np.float64), np.zeros(len(g), dtype=np.int8))
              for g in groups]
    merged = states[0]
    for s in states[1:]:
        merged = merged.merge(s)
    backwards = states[-1]
    for s in reversed(states[:-1]):
        backwards = backwards.merge(s)
    values = [v for g in groups for v in g]
    a, b = merged.summary("m"), backwards.summary("m")
    assert _same(a["mean"], b["mean"]) and _same(a["std"], b["std"])
    if values:
        exact = sum((Fraction(v) for v in values), Fraction(0)) / len(values)
        assert a["mean"] == float(exact)
