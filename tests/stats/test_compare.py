from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps

import receval as rv
from receval.errors import InputError, PolicyError
from receval.stats import Comparison, adjust, compare

METRICS = ["ndcg@5", "ndcg@10", "recall@10", "mrr"]


def _truth(n_users: int = 150, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [(u, i) for u in range(n_users) for i in rng.choice(40, 4, replace=False)]
    return pd.DataFrame(rows, columns=["user", "item"])


def _run(truth: pd.DataFrame, skill: float, seed: int, n_users: int = 150) -> pd.DataFrame:
    """Lists of 20 items where relevant items get a score boost of ``skill``."""
    rng = np.random.default_rng(seed)
    rel = set(map(tuple, truth[["user", "item"]].to_numpy()))
    rows = []
    for u in range(n_users):
        for i in range(40):
            rows.append((u, i, rng.random() + skill * ((u, i) in rel)))
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    return run.sort_values(["user", "score"], ascending=[True, False]).groupby("user").head(20)


@pytest.fixture(scope="module")
def results():
    truth = _truth()
    ev = rv.Evaluator(truth, METRICS)
    return {name: ev.evaluate(_run(truth, skill, seed), name=name)
            for name, skill, seed in [("weak", 0.0, 1), ("mid", 0.3, 2), ("strong", 0.8, 3)]}


def test_t_test_rows_match_scipy(results):
    cmp = compare(results, test="t", correction="none")
    assert isinstance(cmp, Comparison)
    assert len(cmp.pairs) == 3 * len(METRICS)
    for row in cmp.pairs:
        a = results[row["a"]].user_values(row["metric"])
        b = results[row["b"]].user_values(row["metric"])
        ref = sps.ttest_rel(a, b)
        assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
        assert row["p_adjusted"] == row["p_value"]
        assert row["diff"] == pytest.approx(a.mean() - b.mean(), rel=1e-12)
        d = a - b
        assert row["cohens_d"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
        assert (row["wins"], row["ties"], row["losses"]) == (
            int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()))
        assert row["ci_low"] <= row["diff"] <= row["ci_high"]


def test_wilcoxon_rows_match_scipy(results):
    cmp = compare(results, test="wilcoxon", correction="none")
    for row in cmp.pairs:
        a = results[row["a"]].user_values(row["metric"])
        b = results[row["b"]].user_values(row["metric"])
        assert row["p_value"] == pytest.approx(
            sps.wilcoxon(a, b, method="asymptotic").pvalue, rel=1e-10)


def test_holm_applied_per_metric(results):
    raw = compare(results, test="t", correction="none")
    holm = compare(results, test="t", correction="holm")
    for m in METRICS:
        p = np.array([r["p_value"] for r in raw.pairs if r["metric"] == m])
        q = np.array([r["p_adjusted"] for r in holm.pairs if r["metric"] == m])
        np.testing.assert_allclose(q, adjust(p, "holm"), rtol=1e-15)
    allfam = compare(results, test="t", correction="bonferroni", family="all")
    n_tests = len(allfam.pairs)
    for r0, r1 in zip(raw.pairs, allfam.pairs, strict=True):
        assert r1["p_adjusted"] == pytest.approx(min(1.0, n_tests * r0["p_value"]), rel=1e-12)


def test_permutation_same_seed_same_p_whatever_the_order(results):
    fwd = compare(results, test="permutation", n_resamples=2000, rng=7)
    rev = compare(dict(reversed(list(results.items()))), test="permutation",
                  n_resamples=2000, rng=7)
    two = compare({k: results[k] for k in ("strong", "weak")}, test="permutation",
                  n_resamples=2000, rng=7, correction="none")
    for m in METRICS:
        for a, b in [("weak", "mid"), ("weak", "strong"), ("mid", "strong")]:
            r1, r2 = fwd.pair(m, a, b), rev.pair(m, a, b)
            assert r1["p_value"] == r2["p_value"]
            assert r1["p_adjusted"] == r2["p_adjusted"]
            assert r1["ci_low"] == pytest.approx(r2["ci_low"], rel=1e-12, abs=1e-15)
        assert two.pair(m, "weak", "strong")["p_value"] == fwd.pair(m, "weak", "strong")["p_value"]


def test_baseline_pairs_and_beats(results):
    cmp = compare(results, baseline="weak", test="t")
    assert {(r["a"], r["b"]) for r in cmp.pairs} == {("mid", "weak"), ("strong", "weak")}
    assert cmp.significant("ndcg@10", "strong", "weak")
    assert cmp.beats("ndcg@10", "strong") == ["weak"]
    assert cmp.beats("ndcg@10", "weak") == []
    assert cmp.best("ndcg@10") == ["strong"]
    flipped = cmp.pair("ndcg@10", "weak", "strong")
    direct = cmp.pair("ndcg@10", "strong", "weak")
    assert flipped["diff"] == -direct["diff"] and flipped["wins"] == direct["losses"]


def test_tukey(results):
    cmp = compare(results, test="tukey", tukey_design="independent")
    assert cmp.correction == "none"
    X = np.column_stack([results[s].user_values("mrr") for s in results])
    ref = sps.tukey_hsd(*X.T)
    names = list(results)
    for row in cmp.pairs:
        if row["metric"] == "mrr":
            i, j = names.index(row["a"]), names.index(row["b"])
            assert row["p_value"] == pytest.approx(ref.pvalue[i, j], rel=1e-6, abs=1e-9)


def test_mismatched_users_error_and_intersection(results):
    truth = _truth()
    small = truth[truth.user < 100]
    other = rv.evaluate(_run(truth, 0.5, 4), small, METRICS, name="other")
    data = {"weak": results["weak"], "other": other}
    with pytest.raises(InputError, match="different users"):
        compare(data)
    cmp = compare(data, users="intersection")
    assert cmp.counts["users_compared"] == 100
    row = cmp.pair("mrr", "weak", "other")
    weak = results["weak"].per_user.loc[other.user_ids, "mrr"].to_numpy()
    assert row["p_value"] == pytest.approx(
        sps.ttest_rel(weak, other.user_values("mrr")).pvalue, rel=1e-12)


def test_nan_users_dropped(results):
    a, b = results["weak"], results["mid"]
    a2 = rv.EvalResult(a.metrics, a.user_ids, a.values.copy(), a.stats, a.counts, a.policies,
                       name="a2")
    a2.values[:10, 0] = np.nan
    cmp = compare({"a2": a2, "mid": b}, correction="none")
    assert cmp.counts["nan_dropped"][METRICS[0]] == 10
    row = cmp.pair(METRICS[0], "a2", "mid")
    assert row["n"] == len(a.user_ids) - 10
    assert row["p_value"] == pytest.approx(
        sps.ttest_rel(a.values[10:, 0], b.values[10:, 0]).pvalue, rel=1e-12)


def test_json_round_trip(results):
    cmp = compare(results, test="bootstrap", n_resamples=500)
    back = Comparison.from_json(cmp.to_json())
    assert back.pairs == cmp.pairs
    assert back.summary == cmp.summary and back.systems == cmp.systems
    assert back.results["mid"].values.tobytes() == cmp.results["mid"].values.tobytes()
    assert back.to_json() == cmp.to_json()


def test_bad_arguments(results):
    with pytest.raises(PolicyError, match="wilcoxon"):
        compare(results, test="wilcoxn")
    with pytest.raises(PolicyError, match="correction"):
        compare(results, correction="holmes")
    with pytest.raises(InputError, match="baseline"):
        compare(results, baseline="nope")
    with pytest.raises(InputError, match="at least 2"):
        compare({"weak": results["weak"]})
    with pytest.raises(InputError, match="EvalResult"):
        compare({"a": results["weak"], "b": 3})
