"""The kernel's columns are written into the table in place when they form a range of it (a
strided view) and through a copy when they do not: the same values, statuses and summaries
whatever the order of the metrics, under every empty-truth policy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.engines import local

KERNEL = ["ndcg@5", "map", "recall@3", "mrr", "num_rel_ret"]
PLUGIN = ["coverage@5", "intra_list_similarity@3"]


def _data(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n = 400
    run = pd.DataFrame({"user": rng.integers(0, 40, n), "item": rng.integers(0, 60, n),
                        "score": rng.integers(0, 5, n).astype(float)})
    run = run.drop_duplicates(["user", "item"])
    truth = pd.DataFrame({"user": rng.integers(0, 45, 150), "item": rng.integers(0, 60, 150),
                          "relevance": rng.integers(0, 3, 150)}).drop_duplicates(
        ["user", "item"])
    return run, truth


@pytest.mark.parametrize("empty", ["skip", "zero", "nan"])
def test_kernel_columns_in_any_order_give_the_same_table(monkeypatch, empty):
    run, truth = _data(3)
    feats = {i: [float(i % 3), float(i % 5)] for i in range(60)}
    kw = {"empty_truth": empty, "item_features": feats}
    spans = []
    orig = local.column_metric_states

    def spy(vals, status):
        spans.append(not vals.flags.owndata)  # a view of the table
        return orig(vals, status)

    monkeypatch.setattr(local, "column_metric_states", spy)
    orders = [KERNEL + PLUGIN, PLUGIN + KERNEL,
              [KERNEL[0], PLUGIN[0], *KERNEL[1:3], PLUGIN[1], *KERNEL[3:]]]
    results = [rv.evaluate(run, truth, metrics, **kw) for metrics in orders]
    assert any(spans) and not all(spans)  # both ways were taken
    first = results[0]
    keys = sorted(first.per_user.columns)
    for res in results[1:]:
        pd.testing.assert_frame_equal(res.per_user[keys], first.per_user[keys],
                                      check_exact=True)
        by_key = {row["metric"]: row for row in res.stats}
        assert str([by_key[row["metric"]] for row in first.stats]) == str(first.stats)
        assert res.counts == first.counts
