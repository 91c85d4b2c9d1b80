"""``compat="ranx"``: every metric of ranx 0.3.21, with ranx's name suffixes.

Worked examples are those of ranx's own tests (AmenRa/ranx ``tests/unit/ranx/metrics_test.py``:
``test_hits``, ``test_hit_rate``, ``test_recall``, ``test_r_precision``,
``test_dcg_jarvelin``, ``test_ndcg_jarvelin``, ``test_dcg_burges``, ``test_ndcg_burges``;
``tests/unit/ranx/metrics/rank_biased_precision_test.py``), their expected values computed
from the formulas the tests state.
"""

from __future__ import annotations

import numpy as np
import pytest

import receval as rv
from receval.compat import PRESETS

NAMES = PRESETS["ranx"].names
# numba's note on ranx's uint64 ids, raised while ranx compiles
pytestmark = pytest.mark.filterwarnings("ignore:.*unsafe cast:Warning")


def _ours(run: dict, truth: dict, names: list[str]) -> dict[str, float]:
    res = rv.evaluate(run, truth, names, compat="ranx")
    return {n: float(res[n]) for n in names}


def _ranked(*lists: list[int]) -> dict:
    """Runs in the given order (descending scores)."""
    return {f"q{u}": {f"d{d}": float(len(items) - i) for i, d in enumerate(items)}
            for u, items in enumerate(lists)}


# ---- metrics_test.py -------------------------------------------------------------------------

def test_hits_and_hit_rate():
    run = _ranked([1, 2, 3, 4, 5, 7], [1, 2, 4, 3, 5, 7])
    truth = {"q0": {"d1": 1, "d4": 1, "d5": 1, "d6": 1}, "q1": {"d1": 1, "d4": 1, "d6": 1}}
    assert _ours(run, truth, ["hits@5"])["hits@5"] == 2.5
    truth = {"q0": {"d9": 1, "d6": 1, "d8": 1}, "q1": {"d1": 1, "d2": 1, "d4": 1}}
    assert _ours(run, truth, ["hit_rate@5"])["hit_rate@5"] == 0.5


def test_recall_and_r_precision():
    run = _ranked([2, 4, 3, 1, 5, 6, 7], [2, 4, 3, 1, 5, 6, 7])
    truth = {"q0": {"d1": 1, "d2": 1, "d3": 1}, "q1": {"d1": 1, "d2": 1}}
    got = _ours(run, truth, ["recall@2", "r-precision"])
    assert got["recall@2"] == pytest.approx((1 / 3 + 1 / 2) / 2, rel=1e-15)
    assert got["r-precision"] == pytest.approx((2 / 3 + 1 / 2) / 2, rel=1e-15)


GRADED = {"q0": {"d2": 5, "d4": 4, "d5": 3, "d10": 2}}
RUN_1 = _ranked([1, 2, 3, 4, 5])  # grades 0, 5, 0, 4, 3
RUN_2 = _ranked([10, 5, 2, 4, 3])  # grades 2, 3, 5, 4, 0


def _dcg(grades: list[float], exp: bool) -> float:
    return sum(((2 ** g - 1) if exp else g) / np.log2(i + 2) for i, g in enumerate(grades))


@pytest.mark.parametrize("exp", [False, True])
def test_dcg_and_ndcg_jarvelin_and_burges(exp):
    dcg, ndcg = ("dcg_burges", "ndcg_burges") if exp else ("dcg", "ndcg")
    ideal = _dcg([5, 4, 3, 2], exp)
    for run, grades in ((RUN_1, [0, 5, 0, 4, 3]), (RUN_2, [2, 3, 5, 4, 0])):
        got = _ours(run, GRADED, [f"{dcg}@10", f"{ndcg}@10"])
        assert got[f"{dcg}@10"] == pytest.approx(_dcg(grades, exp), rel=1e-12)
        assert got[f"{ndcg}@10"] == pytest.approx(_dcg(grades, exp) / ideal, rel=1e-12)
    none = _ranked([1, 3, 6, 7, 8])
    assert _ours(none, GRADED, [f"{dcg}@10"])[f"{dcg}@10"] == 0.0


# ---- rank_biased_precision_test.py ------------------------------------------------------------

@pytest.mark.parametrize(("name", "p", "rounded"),
                         [("rbp.5", 0.5, 0.7661), ("rbp.8", 0.8, 0.4526),
                          ("rbp.95", 0.95, 0.1881)])
def test_rbp_persistence_from_the_name(name, p, rounded):
    run = {"q1": {f"d{i}": float(21 - i) for i in range(1, 21)}}
    truth = {"q1": {"d1": 1, "d2": 1, "d6": 1, "d11": 1, "d17": 1}}
    got = _ours(run, truth, [name])[name]
    assert got == pytest.approx((1 - p) * sum(p ** (r - 1) for r in (1, 2, 6, 11, 17)),
                                rel=1e-12)
    assert round(got, 4) == rounded


# ---- suffixes, refusals, the table ------------------------------------------------------------

def test_relevance_level_suffix_is_rel():
    run = _ranked([1, 2, 3, 4])
    truth = {"q0": {"d1": 1, "d2": 2, "d4": 3}}
    got = _ours(run, truth, ["precision@4-l2", "map-l2", "ndcg@3-l1"])
    assert got["precision@4-l2"] == 0.5
    assert got["map-l2"] == pytest.approx((1 / 2 + 2 / 4) / 2, rel=1e-15)
    assert got["ndcg@3-l1"] == _ours(run, truth, ["ndcg@3"])["ndcg@3"]


@pytest.mark.parametrize(("key", "words"), [
    ("rbp", "write rbp.95"), ("rbp@95", "write rbp.95"),
    ("ndcg@3-l2", "no relevance level"),
    ("interpolated_precision_at_recall", "not one number"),
    ("get_hit_lists", "not one number")])
def test_refused_forms_say_why(key, words):
    with pytest.raises(rv.MetricError, match=words):
        rv.evaluate({"q": {"a": 1.0}}, {"q": {"a": 1}}, [key], compat="ranx")


def test_against_ranx():
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(11)
    run, truth = {}, {}
    for q in range(15):
        items = rng.choice(30, size=int(rng.integers(2, 15)), replace=False)
        run[f"q{q}"] = {f"d{i:02d}": float(s) for i, s in
                        zip(items, rng.permutation(len(items)) + 1, strict=True)}
        rel = rng.choice(30, size=4, replace=False)
        truth[f"q{q}"] = {f"d{i:02d}": int(g) for i, g in
                          zip(rel, rng.integers(1, 4, size=4), strict=True)}
    names = [n for n, e in NAMES.items() if not e.refused and n != "bpref"]
    keys = [f"{n}@{k}" for n in names if n != "r-precision" for k in (1, 3, 5, 10)]
    keys += names + ["precision@5-l2", "recall@3-l3"]
    want = ranx.evaluate(ranx.Qrels(truth), ranx.Run(run), keys, make_comparable=True)
    got = _ours(run, truth, keys)
    for key in keys:
        assert got[key] == pytest.approx(float(want[key]), rel=1e-12, abs=1e-15), key


def test_every_ranx_metric_is_an_entry():
    """Every name of ranx's metric_switch and every function of ranx.metrics.__all__."""
    metrics = pytest.importorskip("ranx.metrics")
    for name, entry in NAMES.items():
        if not entry.refused or name == "rbp":
            assert metrics.metric_switch(name) is not None
    assert set(metrics.__all__) - {"average_precision", "reciprocal_rank", "r_precision",
                                   "rank_biased_precision"} <= set(NAMES)
