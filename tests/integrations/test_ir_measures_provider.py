"""receval as an ir_measures provider: every measure it supports gives, query by query, the
value of ir_measures' default pipeline (pytrec_eval and the others) on random qrels and runs
with tied scores, graded relevance and queries missing from either side."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

irm = pytest.importorskip("ir_measures", reason="ir_measures is not installed")
from receval.integrations import ir_measures as rv_irm  # noqa: E402

MEASURES = ["nDCG@10", "nDCG", "P@5", "P(rel=2)@5", "R@100", "AP",
            "AP@10", "RR", "RR(rel=2)", "Success@1", "Success@10", "Rprec", "SetP", "SetR",
            "NumRet", "NumRel", "NumRelRet", "Bpref", "Judged@10", "IPrec@0.5",
            "SetF", "infAP", "Compat(p=0.8)"]


def _data(seed: int):
    rng = np.random.default_rng(seed)
    qrels = pd.DataFrame({"query_id": [f"q{i % 25}" for i in range(400)],
                          "doc_id": [f"d{j}" for j in rng.integers(0, 60, 400)],
                          "relevance": rng.integers(0, 4, 400)})
    qrels = qrels.drop_duplicates(["query_id", "doc_id"])
    run = pd.DataFrame({"query_id": [f"q{i % 28}" for i in range(900)],
                        "doc_id": [f"d{j}" for j in rng.integers(0, 60, 900)],
                        "score": rng.integers(0, 6, 900).astype(float)})  # ties
    return qrels, run.drop_duplicates(["query_id", "doc_id"])


def _measures(prov) -> list:
    out = []
    for text in MEASURES:
        m = irm.parse_measure(text)
        if prov.supports(m):
            out.append(m)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_per_query_values_equal_the_default_pipeline(seed):
    qrels, run = _data(seed)
    prov = rv_irm.provider()
    measures = _measures(prov)
    assert len(measures) >= 12
    ours = {(m.measure, m.query_id): m.value for m in prov.iter_calc(measures, qrels, run)}
    theirs = {(m.measure, m.query_id): m.value
              for m in irm.iter_calc(measures, qrels, run)}
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        assert math.isclose(ours[key], value, rel_tol=1e-12, abs_tol=1e-12), (key, ours[key],
                                                                              value)


def test_register_puts_receval_first_once():
    try:
        prov = rv_irm.register()
        rv_irm.register()
        names = [getattr(p, "NAME", None) for p in irm.DefaultPipeline.providers]
        assert names[0] == "receval" and names.count("receval") == 1
        assert irm.providers.registry["receval"] is prov
        qrels, run = _data(0)
        got = irm.calc_aggregate([irm.nDCG @ 10, irm.AP], qrels, run)
        rv_irm.unregister()
        assert "receval" not in [getattr(p, "NAME", None) for p in irm.DefaultPipeline.providers]
        want = irm.calc_aggregate([irm.nDCG @ 10, irm.AP], qrels, run)
        for m, v in want.items():
            assert math.isclose(got[m], v, rel_tol=1e-12)
    finally:
        rv_irm.unregister()


def test_measures_the_preset_refuses_are_left_to_other_providers():
    from receval.compat import PRESETS

    prov = rv_irm.provider()
    refused = [n for n, e in PRESETS["ir_measures"].names.items() if e.refused]
    for name in refused:
        for text in irm.measures.registry:
            if text.lower() == name:
                try:
                    measure = irm.parse_measure(f"{text}@10")
                    measure.validate_params()
                except (ValueError, AssertionError):  # a measure without a cutoff
                    measure = irm.parse_measure(text)
                assert not prov.supports(measure), text
    assert prov.supports(irm.parse_measure("nDCG@10"))
