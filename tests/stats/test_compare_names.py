"""``rv.compare`` reads a metric name the way each compared result reads it: under a library
preset, the library's names (every spelling the preset resolves), as ``result[name]`` does."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.compat import PRESETS
from receval.errors import InputError, RecevalError


def _runs():
    rng = np.random.default_rng(11)
    rows_a, rows_b, truth = [], [], []
    for u in range(12):
        for i in rng.choice(20, 8, replace=False):
            rows_a.append((u, int(i), float(rng.random())))
            rows_b.append((u, int(i), float(rng.random())))
        truth += [(u, int(i), int(rng.integers(1, 3))) for i in rng.choice(20, 4, replace=False)]
    cols = ["user", "item", "score"]
    return (pd.DataFrame(rows_a, columns=cols), pd.DataFrame(rows_b, columns=cols),
            pd.DataFrame(truth, columns=["user", "item", "relevance"]))


RUN_A, RUN_B, TRUTH = _runs()


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_library_name_of_every_preset(preset):
    compared = 0
    for name in PRESETS[preset].names:
        for key in (f"{name}@5", name):
            try:
                a = rv.evaluate(RUN_A, TRUTH, [key], compat=preset, name="a")
                b = rv.evaluate(RUN_B, TRUTH, [key], compat=preset, name="b")
            except RecevalError:  # a name that needs a cutoff, a parameter or other inputs
                continue
            spellings = {key, key.upper(), a.metrics[0]}
            for spelling in spellings:
                cmp = rv.compare([a, b], metrics=[spelling])
                assert cmp.metrics == a.metrics
                for r in (a, b):  # (NaN where a metric needs more inputs: the same NaN)
                    np.testing.assert_equal(cmp.summary[r.name][a.metrics[0]], r[spelling])
                assert cmp.pair(spelling, "a", "b")["metric"] == a.metrics[0]
            compared += 1
            break
    assert compared >= min(3, len(PRESETS[preset].names))


def test_results_asked_with_different_spellings_compare():
    a = rv.evaluate(RUN_A, TRUTH, ["ndcg@10", "mrr@10"], compat="recbole", name="a")
    b = rv.evaluate(RUN_B, TRUTH, ["NDCG@10", "MRR@10"], compat="recbole", name="b")
    for name in ("ndcg@10", "NDCG@10"):
        assert a[name] == a["ndcg@10(gain=binary)"] and b[name] == b["ndcg@10(gain=binary)"]
        cmp = rv.compare([a, b], metrics=[name, "mrr@10"])
        assert cmp.metrics == ["ndcg@10(gain=binary)", "mrr@10"]


def test_one_name_for_two_metrics_is_refused():
    # ndcg@10 is binary-gain ndcg under recbole, graded under receval's defaults
    a = rv.evaluate(RUN_A, TRUTH, ["ndcg@10"], compat="recbole", name="a")
    b = rv.evaluate(RUN_B, TRUTH, ["ndcg@10", "ndcg@10(gain=binary)"], name="b")
    with pytest.raises(InputError, match="names different metrics"):
        rv.compare([a, b], metrics=["ndcg@10"])
    assert rv.compare([a, b], metrics=["ndcg@10(gain=binary)"]).metrics == a.metrics
