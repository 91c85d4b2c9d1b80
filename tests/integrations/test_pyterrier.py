"""PyTerrier's ``pt.Experiment`` computing through receval (registered first in ir_measures'
pipeline) gives the table of ir_measures' default providers: systems given as frames, no
index (PyTerrier 1.x needs no Java for them). Skipped where python-terrier is absent;
``benchmarks/bench_pyterrier.py`` times the same at 10k topics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pt = pytest.importorskip("pyterrier")
irm = pytest.importorskip("ir_measures")
from receval.integrations import ir_measures as rv_irm  # noqa: E402


def test_experiment_table_is_ir_measures_one():
    rng = np.random.default_rng(5)
    qids = [f"q{q}" for q in range(12)]
    topics = pd.DataFrame({"qid": qids, "query": "a query"})
    qrels = pd.DataFrame([(q, f"d{d}", int(rng.integers(0, 3))) for q in qids
                          for d in rng.choice(40, 8, replace=False)],
                         columns=["qid", "docno", "label"])
    res = pd.DataFrame([(q, f"d{d}", float(rng.integers(0, 6))) for q in qids[:-1]
                        for d in rng.choice(40, 20, replace=False)],
                       columns=["qid", "docno", "score"])  # tied scores; q11 retrieves nothing
    res["rank"] = res.groupby("qid")["score"].rank(ascending=False, method="first") \
        .astype(int) - 1
    metrics = [irm.nDCG @ 10, irm.P @ 5, irm.AP, irm.R @ 10, irm.Success @ 3, irm.Rprec]
    system = pt.Transformer.from_df(res)
    want = pt.Experiment([system], topics, qrels, eval_metrics=metrics)
    prov = rv_irm.register()
    try:
        got = pt.Experiment([system], topics, qrels, eval_metrics=metrics)
        for m in metrics:  # the receval provider computes each of them
            assert prov.supports(m)
    finally:
        rv_irm.unregister()
    cols = [str(m) for m in metrics]
    np.testing.assert_allclose(got[cols].to_numpy(float), want[cols].to_numpy(float),
                               rtol=0, atol=1e-12)
