"""Groups against fairlearn's ``MetricFrame`` (fairlearn 0.10+): a metric's per-group means,
their difference (max - min), ratio (min / max), smallest and largest, from the per-user values.

MetricFrame computes a metric on each group's rows; with the metric "mean of the per-user
values" that is receval's per-group summary of a metric averaged over users. fairlearn's
bootstrap intervals resample all rows together (group sizes vary between resamples), receval's
gap interval resamples within each group (sizes fixed), so the intervals are not compared.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import receval as rv

fairlearn = pytest.importorskip("fairlearn.metrics", reason="fairlearn is not installed")


def _mean(y_true, y_pred):  # MetricFrame's metric: the mean of the per-user values
    return float(np.mean(y_true))


@pytest.mark.parametrize("seed", range(5))
def test_group_means_and_gaps_match_metricframe(seed):
    rng = np.random.default_rng(seed)
    run = {u: {int(i): float(rng.random()) for i in rng.choice(20, 6, replace=False)}
           for u in range(60)}
    truth = {u: {int(i): 1 for i in rng.choice(20, 3, replace=False)} for u in range(60)}
    groups = {u: ["north", "south", "east"][int(rng.integers(0, 3))] for u in range(60)}
    res = rv.evaluate(run, truth, ["ndcg@5", "recall@10", "mrr"], groups=groups)
    users = res.user_ids.tolist()
    sensitive = np.array([groups[u] for u in users])
    for key in res.metrics:
        x = res.user_values(key)
        mf = fairlearn.MetricFrame(metrics=_mean, y_true=x, y_pred=x,
                                   sensitive_features=sensitive)
        ours = res.by_group.query("metric == @key").set_index("group")["mean"]
        for group, value in mf.by_group.items():
            assert math.isclose(ours[group], value, rel_tol=1e-13), (key, group)
        assert math.isclose(res.gap(key)["value"], mf.difference(), rel_tol=1e-12,
                            abs_tol=1e-15)
        assert math.isclose(res.gap(key, "ratio")["value"], mf.ratio(), rel_tol=1e-12)
        assert math.isclose(res.gap(key, "worst")["value"], mf.group_min(), rel_tol=1e-13)
        assert math.isclose(ours.max(), mf.group_max(), rel_tol=1e-13)
        assert math.isclose(res[key], mf.overall, rel_tol=1e-13)
