"""``compat="trec_eval"`` (``pytrec_eval``): every trec_eval measure of the preset, summarised
as trec_eval's ``all`` line (the counts summed).

Worked examples are those ir_measures checks its pytrec_eval provider (trec_eval's C code)
with (terrierteam/ir_measures ``test/test_pytrec_eval.py``: ``test_NumRet``, ``test_NumRel``,
``test_NumQ``, ``test_Success``, ``test_SetP``, ``test_SetR``, ``test_IPrec``, ``test_infAP``'s
AP), written with trec_eval's names.
"""

from __future__ import annotations

import numpy as np
import pytest

import receval as rv
from receval.compat import PRESETS
from receval.metrics.foreign import TREC_EVAL

RUN = {"0": {"D0": 0.8, "D2": 0.7, "D1": 0.3, "D3": 0.4, "D4": 0.1},
       "1": {"D1": 0.8, "D4": 0.7, "D3": 0.3, "D2": 0.4}}
RUN_B = {"0": RUN["0"], "1": {"D1": 0.8, "D3": 0.7, "D4": 0.3, "D2": 0.4}}
QRELS_SET = {"0": {"D0": 0, "D1": 1, "D2": 2, "D3": 2, "D4": 0},
             "1": {"D0": 1, "D3": 2, "D5": 0}}
QRELS_COUNT = {"0": {"D0": 0, "D1": 1, "D2": 1, "D3": 2, "D4": 0},
               "1": {"D0": 1, "D3": 2, "D5": 2}}
QRELS_IPREC = {"0": {"D0": 1, "D1": 1, "D2": 2, "D3": 2, "D4": 0},
               "1": {"D0": 1, "D3": 2, "D5": 0}}
QRELS_AP = {"0": {"D0": 1, "D1": -1, "D2": 0, "D3": 2, "D4": 0},
            "1": {"D0": 1, "D3": 2, "D4": -1, "D5": 0}}


def _trec(run: dict, qrels: dict, names: list[str]) -> dict[str, float]:
    res = rv.evaluate(run, qrels, names, compat="trec_eval")
    return {n: float(res[n]) for n in names}


def test_counts_are_summed_as_the_all_line():
    got = _trec(RUN_B, QRELS_COUNT, ["num_ret", "num_rel_ret", "num_rel_ret(rel=2)",
                                     "num_rel"])
    assert got == {"num_ret": 9.0, "num_rel_ret": 4.0, "num_rel_ret(rel=2)": 2.0,
                   "num_rel": 6.0}
    got = _trec(RUN_B, {**QRELS_COUNT, "1": {"D0": 1, "D3": 2, "D5": 0}}, ["num_rel"])
    assert got["num_rel"] == 5.0
    # receval's own keys keep the mean
    plain = rv.evaluate(RUN_B, QRELS_COUNT, ["num_ret"], ties="trec_eval")
    assert float(plain["num_ret"]) == 4.5


def test_set_measures_and_success():
    got = _trec(RUN, QRELS_SET, ["set_P", "set_P(rel=2)", "set_recall", "set_recall(rel=2)",
                                 "success.2", "success_2", "success@2(rel=2)"])
    assert got["set_P"] == 0.425
    assert got["set_P(rel=2)"] == pytest.approx(0.325, rel=1e-15)
    assert got["set_recall"] == 0.75
    assert got["set_recall(rel=2)"] == 1.0
    assert got["success.2"] == got["success_2"] == got["success@2(rel=2)"] == 0.5
    with pytest.warns(rv.RelevanceThresholdWarning):  # no grade reaches 3: every query 0
        assert _trec(RUN, QRELS_SET, ["success@2(rel=3)"])["success@2(rel=3)"] == 0.0


def test_iprec_at_recall():
    got = _trec(RUN, QRELS_IPREC, ["iprec_at_recall.0.25", "iprec_at_recall_0.50",
                                   "iprec_at_recall(recall=0.75)",
                                   "iprec_at_recall(recall=0.5,rel=2)"])
    assert got["iprec_at_recall.0.25"] == got["iprec_at_recall_0.50"] == 0.625
    assert got["iprec_at_recall(recall=0.75)"] == 0.5
    assert got["iprec_at_recall(recall=0.5,rel=2)"] == pytest.approx((2 / 3 + 1 / 4) / 2,
                                                                     rel=1e-15)


def test_map_with_pooled_unjudged_rows():
    """rel = -1 counts as judged non-relevant for map (negative_rel='zero')."""
    got = _trec(RUN, QRELS_AP, ["map", "map(rel=2)"])
    assert got["map"] == pytest.approx((5 / 6 + 1 / 8) / 2, rel=1e-15)
    assert got["map(rel=2)"] == pytest.approx((1 / 3 + 1 / 4) / 2, rel=1e-15)


# ---- every entry against pytrec_eval ------------------------------------------------------------

ENTRIES = [m for m in TREC_EVAL if m.family is not None and not m.plugin]


def test_the_entries_are_the_mapped_measures():
    names = PRESETS["trec_eval"].names
    for m in ENTRIES:
        assert names[m.name.lower()].family == m.family


@pytest.mark.parametrize("level", [1, 2])
def test_every_entry_against_pytrec_eval(level):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(level)
    run, qrels = {}, {}
    for q in range(12):
        docs = rng.choice(25, size=int(rng.integers(1, 16)), replace=False)
        run[f"q{q}"] = {f"d{d:02d}": float(rng.integers(0, 6)) / 4 for d in docs}
        judged = rng.choice(25, size=int(rng.integers(1, 9)), replace=False)
        qrels[f"q{q}"] = {f"d{d:02d}": int(rng.integers(0, 4)) for d in judged}
    run["only_run"] = {"d01": 1.0}
    qrels["only_qrels"] = {"d01": 1}
    cuts = (1, 3, 5, 10)
    fields: dict[str, str] = {}
    for m in ENTRIES:
        if m.kind == "cut_long":
            fields |= {f"{m.name}@{k}": f"{m.name}_{k}" for k in cuts}
        elif m.kind == "cut_double":
            fields |= {f"{m.name}(recall={p})": f"{m.name}_{p:.2f}" for p in (0.0, 0.5, 1.0)}
        else:
            fields[m.name] = m.name
    asked = {m.name + (f".{','.join(map(str, cuts))}" if m.kind == "cut_long" else "")
             for m in ENTRIES}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, asked,
                                               relevance_level=level).evaluate(run)
    keys = {name: _with_level(name, level) for name in fields}
    got = _trec(run, qrels, list(keys.values()))
    summed = {m.name for m in ENTRIES if m.summary == "sum"}
    for name, field in fields.items():
        values = [v[field] for v in per_query.values()]
        want = np.sum(values) if name in summed else np.mean(values)
        assert got[keys[name]] == pytest.approx(float(want), rel=1e-12, abs=1e-15), name


def _with_level(name: str, level: int) -> str:
    if level == 1 or name.startswith(("ndcg", "num_ret")):  # grades / no threshold
        return name
    if name == "11pt_avg":
        return f"iprec_avg(rel={level})"
    if name.endswith(")"):
        return f"{name[:-1]},rel={level})"
    return f"{name}(rel={level})"


@pytest.mark.parametrize(("key", "words"), [("P.0", "positive integers"),
                                            ("P.five", "not a number"),
                                            ("utility.1,2", "needs 4 numbers")])
def test_bad_trec_eval_parameters_are_refused(key, words):
    with pytest.raises(rv.MetricError, match=words):
        rv.evaluate(RUN, QRELS_SET, [key], compat="trec_eval")
