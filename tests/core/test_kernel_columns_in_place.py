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


PLUGIN_KINDS = [
    "coverage@5",                # a catalogue value only: no value per user
    "exposure_gini@5",           # a pooled state, NaN per user
    "popularity_lift@5",         # micro-averaged: numerators and denominators
    "epc@5(relevance=binary)",   # users without a relevant item skipped by the metric's rule
    "intra_list_similarity@3",   # per-user values, NaN for short lists
]


@pytest.mark.parametrize("rows", [1, 7, 1 << 14])
def test_plugin_columns_written_together_give_the_table_of_one_at_a_time(monkeypatch, rows):
    """Plugin columns that form a range of the table are written a few rows at a time and
    summarised by one pass; interleaved with kernel columns, one at a time. Both give the
    same per-user values, statuses (as counts and skips) and summaries, whatever the chunk."""
    run, truth = _data(5)
    train = pd.DataFrame({"user": np.arange(200) % 40, "item": (np.arange(200) * 7) % 60})
    feats = {i: [float(i % 3), float(i % 5)] for i in range(60)}
    kw = {"item_features": feats, "train": train}
    monkeypatch.setattr(local, "FILL_ROWS", rows)
    together = rv.evaluate(run, truth, KERNEL + PLUGIN_KINDS, **kw)
    apart = rv.evaluate(run, truth, [KERNEL[0], PLUGIN_KINDS[0], KERNEL[1], PLUGIN_KINDS[1],
                                     KERNEL[2], PLUGIN_KINDS[2], KERNEL[3], PLUGIN_KINDS[3],
                                     KERNEL[4], PLUGIN_KINDS[4]], **kw)
    keys = sorted(together.per_user.columns)
    pd.testing.assert_frame_equal(together.per_user[keys], apart.per_user[keys],
                                  check_exact=True)
    by_key = {row["metric"]: row for row in apart.stats}
    assert str([by_key[row["metric"]] for row in together.stats]) == str(together.stats)
    epc = next(row for row in together.stats if row["metric"].startswith("epc@5"))
    assert epc["skipped"] > 0  # the rule's users, counted
    assert together.counts == apart.counts
