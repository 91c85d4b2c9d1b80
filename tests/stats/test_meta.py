"""receval.stats.meta: worked examples by hand, slow oracles from the definitions (every
ordering of tied systems enumerated), scipy for tau-b, properties, and refused inputs."""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sps

import receval as rv
from receval.errors import InputError, ParameterError, UndefinedValueWarning
from receval.results import EvalResult
from receval.stats import meta


# ---- slow oracles, written from the papers' definitions -----------------------------------
def _orderings(x):
    """Every ranking (list of system indices, best first) that breaks the ties of ``x``."""
    groups = [[i for i in range(len(x)) if x[i] == v] for v in sorted(set(x), reverse=True)]
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for p in perms for i in p]


def _tau_ap_plain(ref, other):
    """Yilmaz et al. 2008, rankings without ties (lists of systems, best first)."""
    n = len(ref)
    pos = {s: k for k, s in enumerate(other)}
    total = Fraction(0)
    for i in range(1, n):
        c = sum(pos[ref[j]] < pos[ref[i]] for j in range(i))
        total += Fraction(c, i)
    return Fraction(2, n - 1) * total - 1


def _rbo_plain(a, b, p):
    """RBO = (1 - p) sum_d p^(d-1) A_d, A_d = |a[:d] & b[:d]| / d, A_d = 1 past depth n."""
    n = len(a)
    s = sum((1 - p) * p ** (d - 1) * len(set(a[:d]) & set(b[:d])) / d for d in range(1, n + 1))
    return s + p**n


def _expected(func, x, y, *args):
    vals = [func(a, b, *args) for a in _orderings(x) for b in _orderings(y)]
    return sum(vals) / len(vals)


def _pairs():
    """Two score vectors of the same 2..5 systems, with ties."""
    return st.integers(2, 5).flatmap(lambda n: st.tuples(
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
        st.lists(st.integers(0, 3), min_size=n, max_size=n)))


def _defined(x, y):
    return len(set(x)) > 1 and len(set(y)) > 1


# ---- worked examples ---------------------------------------------------------------------
def test_tau_b_by_hand():
    # 5 concordant pairs, 1 discordant, no ties: (5 - 1) / 6
    assert meta.kendall_tau_b([4, 3, 2, 1], [3, 4, 2, 1]) == pytest.approx(2 / 3, abs=1e-15)
    # C = 4, D = 0, one pair tied in x, one in y: 4 / sqrt(5 * 5)
    assert meta.kendall_tau_b([3, 2, 2, 1], [3, 3, 2, 1]) == pytest.approx(4 / 5, abs=1e-15)


def test_tau_ap_by_hand_five_systems():
    # reference A > B > C > D > E; other B, A, C, E, D: C(i)/(i-1) = 0/1, 2/2, 3/3, 3/4
    ref, other = [5, 4, 3, 2, 1], [4, 5, 3, 1, 2]
    assert meta.tau_ap(ref, other) == pytest.approx(2 / 4 * (0 + 1 + 1 + 3 / 4) - 1, abs=1e-15)
    assert meta.tau_ap(ref, other) == pytest.approx(3 / 8, abs=1e-15)
    assert meta.kendall_tau_b(ref, other) == pytest.approx(6 / 10, abs=1e-15)
    # tau_AP is not symmetric: with E, D swapped at the bottom and A, B at the top
    assert meta.tau_ap([4, 5, 3, 1, 2], [5, 4, 3, 2, 1]) == pytest.approx(3 / 8, abs=1e-15)
    assert meta.tau_ap([5, 4, 3, 2, 1], [5, 4, 3, 1, 2]) == pytest.approx(
        2 / 4 * (1 + 1 + 1 + 3 / 4) - 1, abs=1e-15)


def test_tau_ap_ties_by_hand():
    # reference A > B = C: orders A,B,C (tau 1) and A,C,B (C(2) = 1, C(3) = 1 of 2: 0.5)
    assert meta.tau_ap([2, 1, 1], [3, 2, 1]) == pytest.approx(3 / 4, abs=1e-15)
    # other ties A and B: the pair counts 1/2: 1 * (0.5/1 + 2/2) - 1
    assert meta.tau_ap([3, 2, 1], [2, 2, 1]) == pytest.approx(1 / 2, abs=1e-15)


def test_rbo_by_hand():
    # X = (0, 2, 3): 3/3 (1/8) + 1 * (0 + 2/2 1/4 + 3/3 1/8)
    assert meta.rbo([3, 2, 1], [2, 3, 1], p=0.5) == pytest.approx(1 / 2, abs=1e-15)
    assert meta.rbo([3, 2, 1], [3, 2, 1], p=0.9) == pytest.approx(1.0, abs=1e-15)
    # reversed: X = (0, 1, 3): 1/8 + (0 + 1/2 1/4 + 1/8) at p = 0.5
    assert meta.rbo([3, 2, 1], [1, 2, 3], p=0.5) == pytest.approx(3 / 8, abs=1e-15)


def test_ktu_and_rbo_lists_by_hand():
    # union a b c d -> 0 1 2 3; x = (0, 1, 2), y = (1, 0, 3): C = 2, D = 1
    assert meta.ktu(["a", "b", "c"], ["b", "a", "d"]) == pytest.approx(1 / 3, abs=1e-15)
    # A_d = 0, 2, 2 at p = 0.5: (0 + 0.5 * 2/2 + 0.25 * 2/3) / 1.75 = 8/21
    assert meta.rbo_lists(["a", "b", "c"], ["b", "a", "d"], p=0.5, depth=3) == pytest.approx(
        8 / 21, abs=1e-15)


# ---- oracles -----------------------------------------------------------------------------
@given(_pairs())
def test_tau_b_matches_scipy(xy):
    x, y = xy
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine = meta.kendall_tau_b(x, y)
        ref = sps.kendalltau(x, y).statistic
    if _defined(x, y):
        assert mine == pytest.approx(ref, abs=1e-12)
    else:
        assert math.isnan(mine)


@given(_pairs())
def test_tau_ap_is_the_expectation_over_tie_orders(xy):
    x, y = xy
    if not _defined(x, y):
        return
    assert meta.tau_ap(x, y) == pytest.approx(float(_expected(_tau_ap_plain, x, y)), abs=1e-12)


@given(_pairs(), st.sampled_from([0.1, 0.5, 0.9, 0.99]))
def test_rbo_is_the_expectation_over_tie_orders(xy, p):
    x, y = xy
    if not _defined(x, y):
        return
    assert meta.rbo(x, y, p=p) == pytest.approx(_expected(_rbo_plain, x, y, p), abs=1e-12)


@given(st.lists(st.text("abcdefgh", min_size=1, max_size=2), min_size=0, max_size=12,
                unique=True),
       st.lists(st.text("abcdefgh", min_size=1, max_size=2), min_size=0, max_size=12,
                unique=True),
       st.sampled_from([0.5, 0.9]), st.integers(1, 15))
def test_rbo_lists_matches_its_sum(a, b, p, depth):
    slow = sum(p ** (d - 1) * len(set(a[:d]) & set(b[:d])) / d for d in range(1, depth + 1))
    norm = sum(p ** (d - 1) for d in range(1, depth + 1))
    assert meta.rbo_lists(a, b, p=p, depth=depth) == pytest.approx(slow / norm, abs=1e-12)


# ---- properties --------------------------------------------------------------------------
@given(_pairs())
def test_properties(xy):
    x, y = xy
    if not _defined(x, y):
        return
    for f in (meta.kendall_tau_b, meta.tau_ap):
        assert -1 - 1e-12 <= f(x, y) <= 1 + 1e-12
    assert 0 <= meta.rbo(x, y) <= 1 + 1e-12
    assert meta.kendall_tau_b(x, y) == pytest.approx(meta.kendall_tau_b(y, x), abs=1e-15)
    assert meta.rbo(x, y) == pytest.approx(meta.rbo(y, x), abs=1e-15)
    assert meta.kendall_tau_b(x, x) == pytest.approx(1.0, abs=1e-15)
    if len(set(x)) == len(x):          # no ties: identical rankings agree fully
        assert meta.tau_ap(x, x) == pytest.approx(1.0, abs=1e-12)
        assert meta.rbo(x, x) == pytest.approx(1.0, abs=1e-12)
        rev = [-v for v in x]
        assert meta.kendall_tau_b(x, rev) == pytest.approx(-1.0, abs=1e-12)
        assert meta.tau_ap(x, rev) == pytest.approx(-1.0, abs=1e-12)


# ---- the meta-evaluation object ----------------------------------------------------------
def _result(values, metric="mrr"):
    topics = list(values)
    v = np.array([[values[t]] for t in topics], dtype=np.float64)
    return EvalResult([metric], np.array(topics, dtype=object), v,
                      [{"metric": metric, "mean": float(np.nanmean(v))}], {}, {})


def _me(table, judgments="qrels"):
    """``{system: [per-topic values]}`` under one judgment set, topics t0, t1, ..."""
    return meta.from_results({(s, judgments): _result({f"t{i}": x for i, x in enumerate(vals)})
                              for s, vals in table.items()})


def test_discriminative_power_by_hand():
    me = _me({"A": [1.0] * 6, "B": [0.5] * 6, "C": [0.5, 0.6, 0.4, 0.5, 0.6, 0.4]})
    # sign test, 6 of 6 positive: p = 2/64; B - C: 2 of 4 non-zero positive: p = 1
    dp = me.discriminative_power(test="sign", correction="none")
    assert dp["discriminative_power"].item() == pytest.approx(2 / 3)
    assert dp["significant"].item() == 2 and dp["pairs"].item() == 3
    tests = me.pair_tests(test="sign", correction="none")
    assert tests["p_value"].tolist() == pytest.approx([2 / 64, 2 / 64, 1.0])
    # Holm: 3 * 2/64 = 0.094 > 0.05: nothing significant
    assert me.discriminative_power(test="sign", correction="holm")[
        "discriminative_power"].item() == 0.0


def test_swap_rate_split_and_bootstrap():
    # A - B = +1 on t0, -1 on t1: halves of one topic always disagree
    me = _me({"A": [1.0, 0.0], "B": [0.0, 1.0]})
    sw = me.swap_rate(method="split", n_resamples=50)
    assert sw["swap_rate"].item() == 1.0 and sw["trials"].item() == 50
    # bootstrap: d1 != 0 with chance 1/2; then d2 has the other sign with chance 1/4
    sw = me.swap_rate(n_resamples=20000, rng=3)
    assert abs(sw["swap_rate"].item() - 0.25) < 0.02
    assert abs(sw["trials"].item() / 20000 - 0.5) < 0.02
    # a system better on every topic never swaps
    assert _me({"A": [1.0, 0.9, 0.8], "B": [0.1, 0.2, 0.3]}).swap_rate()["swap_rate"].item() == 0
    # min_diff leaves out the small differences
    with pytest.warns(UndefinedValueWarning, match="min_diff"):
        sw = me.swap_rate(n_resamples=200, min_diff=2.0)
    assert math.isnan(sw["swap_rate"].item()) and sw["trials"].item() == 0


def test_agreement_same_condition_is_one_in_every_resample():
    rng = np.random.default_rng(0)
    table = {f"s{i}": list(rng.random(8)) for i in range(5)}
    me = _me(table)
    ag = me.agreement("qrels", "qrels", n_resamples=200).set_index("measure")
    for m in ("tau_b", "tau_ap", "rbo"):
        assert ag.loc[m, "value"] == pytest.approx(1.0)
        assert ag.loc[m, "ci_low"] == pytest.approx(1.0) and ag.loc[m, "ci_high"] == pytest.approx(1.0)
    again = me.agreement("qrels", "qrels", n_resamples=200)
    assert again.equals(me.agreement("qrels", "qrels", n_resamples=200))


def test_agreement_two_judgment_sets_drops_missing_topics():
    a = {"A": {"t0": 0.9, "t1": 0.8, "t2": 0.1}, "B": {"t0": 0.5, "t1": 0.4, "t2": 0.9},
         "C": {"t0": 0.1, "t1": 0.2, "t2": 0.3}}
    b = {"A": {"t0": 0.8, "t1": 0.9}, "B": {"t0": 0.2, "t1": 0.1}, "C": {"t0": 0.3, "t1": 0.2}}
    me = meta.from_results({**{(s, "human"): _result(v) for s, v in a.items()},
                            **{(s, "llm"): _result(v) for s, v in b.items()}})
    ag = me.agreement("human", "llm", n_resamples=100).set_index("measure")
    assert ag.loc["tau_b", "topics"] == 2 and ag.loc["tau_b", "topics_dropped_a"] == 1
    assert ag.loc["tau_b", "topics_dropped_b"] == 0
    # on t0, t1: human A 0.85 > B 0.45 > C 0.15; llm A 0.85 > C 0.25 > B 0.15
    assert ag.loc["tau_b", "value"] == pytest.approx(1 / 3)
    assert ag.loc["tau_ap", "value"] == pytest.approx(2 / 2 * (1 / 1 + 1 / 2) - 1)
    assert ag.loc["tau_b", "ci_low"] <= ag.loc["tau_b", "value"] <= ag.loc["tau_b", "ci_high"]


def test_undefined_values_are_nan_with_a_reason():
    one = _me({"A": [0.1, 0.2, 0.3]})
    with pytest.warns(UndefinedValueWarning, match="at least 2 systems"):
        assert math.isnan(one.discriminative_power()["discriminative_power"].item())
    with pytest.warns(UndefinedValueWarning, match="at least 2 systems"):
        assert one.agreement("qrels", "qrels")["value"].isna().all()
    with pytest.warns(UndefinedValueWarning, match="at least 2 systems"):
        assert math.isnan(one.swap_rate()["swap_rate"].item())
    tied = _me({"A": [0.5, 0.5], "B": [0.5, 0.5]})
    with pytest.warns(UndefinedValueWarning, match="ties every system"):
        ag = tied.agreement("qrels", "qrels")
    assert ag["value"].isna().all() and not (ag["value"] == 0).any()
    dp = tied.discriminative_power()
    assert dp["significant"].item() == 0          # identical systems: never "significant"
    with pytest.warns(UndefinedValueWarning, match="ties every system"):
        assert math.isnan(meta.kendall_tau_b([1, 1, 1], [1, 2, 3]))
    with pytest.warns(UndefinedValueWarning, match="at least 2 systems"):
        assert math.isnan(meta.rbo([1], [1]))
    with pytest.warns(UndefinedValueWarning, match="different lengths"):
        assert math.isnan(meta.ktu(["a", "b"], ["a"]))


def test_evaluate_grid_and_tidy_scores():
    truth = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    runs = {"s1": {q: {"a": 3, "b": 2, "c": 1} for q in truth},
            "s2": {q: {"b": 3, "c": 2, "a": 1} for q in truth}}
    me = meta.evaluate(runs, {"full": truth, "part": {"q1": truth["q1"]}}, ["mrr", "ndcg@3"])
    assert me.systems == ["s1", "s2"] and me.judgments == ["full", "part"]
    sc = me.scores
    assert list(sc.columns) == meta.SCORE_COLUMNS
    assert len(sc) == 2 * 2 * 3 + 2 * 2 * 1
    row = sc[(sc.system == "s2") & (sc.judgments == "full") & (sc.metric == "mrr")
             & (sc.topic == "q1")]
    assert row["value"].item() == pytest.approx(1 / 3)
    means = me.means()
    assert means.loc["s1", ("part", "mrr")] == 1.0 and means.loc["s2", ("part", "mrr")] == 1 / 3
    # one truth (a dict of dicts) is one judgment set named "truth"
    assert meta.evaluate(runs, truth, "mrr").judgments == ["truth"]


def test_reproducibility_by_hand():
    truth = {"q1": {"a": 1}, "q2": {"b": 1}}
    ob = {"q1": {"b": 2, "a": 1}, "q2": {"b": 2, "a": 1}}      # rr .5, 1
    oa = {"q1": {"a": 2, "b": 1}, "q2": {"b": 2, "a": 1}}      # 1, 1
    rb = {"q1": {"b": 2, "a": 1}, "q2": {"a": 2, "b": 1}}      # .5, .5
    ra = {"q1": {"a": 2, "b": 1}, "q2": {"b": 2, "a": 1}}      # 1, 1
    rep = meta.reproducibility({"baseline": ob, "advanced": oa},
                               {"baseline": rb, "advanced": ra}, truth, ["mrr"])
    eff = rep.effects.set_index("metric")
    assert eff.loc["mrr", "er"] == pytest.approx(0.5 / 0.25)
    assert eff.loc["mrr", "delta_ri"] == pytest.approx((1 - 0.75) / 0.75 - (1 - 0.5) / 0.5)
    rm = rep.effectiveness.set_index("run")
    assert rm.loc["baseline", "rmse"] == pytest.approx(math.sqrt(0.5**2 / 2))
    assert rm.loc["advanced", "rmse"] == 0.0
    order = rep.order.set_index(["run", "topic"])
    assert order.loc[("baseline", "q1"), "ktu"] == pytest.approx(1.0)
    assert order.loc[("baseline", "q2"), "ktu"] == pytest.approx(-1.0)


def test_reproducibility_no_effect_is_nan_not_zero():
    truth = {"q1": {"a": 1}}
    same = {"q1": {"a": 2, "b": 1}}
    with pytest.warns(UndefinedValueWarning, match="mean improvement is 0"):
        rep = meta.reproducibility({"baseline": same, "advanced": same},
                                   {"baseline": same, "advanced": same}, truth, ["mrr"])
    assert math.isnan(rep.effects["er"].item())


# ---- refused inputs ----------------------------------------------------------------------
@pytest.mark.parametrize(("kwargs", "param"), [
    ({"p": 0}, "p"), ({"p": 1.0}, "p"), ({"p": float("nan")}, "p"),
    ({"n_resamples": 0}, "n_resamples"), ({"rng": -1}, "rng"), ({"confidence": 1.0}, "confidence"),
])
def test_agreement_refuses_bad_parameters(kwargs, param):
    me = _me({"A": [0.1, 0.2], "B": [0.3, 0.1]})
    with pytest.raises(ParameterError, match=param) as info:
        me.agreement("qrels", "qrels", **kwargs)
    assert info.value.param == param


@pytest.mark.parametrize(("method", "kwargs", "param"), [
    ("discriminative_power", {"test": "ttest2"}, "test"),
    ("discriminative_power", {"correction": "holmes"}, "correction"),
    ("discriminative_power", {"alpha": 0}, "alpha"),
    ("swap_rate", {"method": "halves"}, "method"),
    ("swap_rate", {"min_diff": -0.1}, "min_diff"),
])
def test_methods_refuse_bad_parameters(method, kwargs, param):
    me = _me({"A": [0.1, 0.2], "B": [0.3, 0.1]})
    with pytest.raises(ParameterError, match=param):
        getattr(me, method)(**kwargs)


def test_refused_inputs_name_the_keyword():
    me = _me({"A": [0.1, 0.2], "B": [0.3, 0.1]})
    with pytest.raises(InputError, match=r"a='qrel'.*qrels"):
        me.agreement("qrel", "qrels")
    with pytest.raises(InputError, match="metric='map'"):
        me.swap_rate(metric="map")
    with pytest.raises(InputError, match="runs="):
        meta.evaluate([], {"q": {"a": 1}}, ["mrr"])  # type: ignore[arg-type]
    with pytest.raises(InputError, match="metrics="):
        meta.evaluate({"s": {"q": {"a": 1}}}, {"q": {"a": 1}}, [])
    with pytest.raises(InputError, match="same systems"):
        meta.kendall_tau_b([1, 2], [1, 2, 3])
    with pytest.raises(InputError, match="NaN"):
        meta.tau_ap([1, float("nan")], [1, 2])
    with pytest.raises(ParameterError, match="depth"):
        meta.rbo_lists(["a"], ["a"], depth=0)
    with pytest.raises(InputError, match="original="):
        meta.reproducibility({"base": {}}, {"base": {}}, {"q": {"a": 1}}, ["mrr"])
    with pytest.raises(InputError, match="lacks"):
        meta.from_results({("A", "j1"): _result({"t": 1.0}), ("B", "j2"): _result({"t": 1.0})})


# ---- HTML section ------------------------------------------------------------------------
def test_html_section_shows_every_table_and_undefined_values():
    from receval.report.meta import meta_section_html, render_meta_html

    me = _me({"A": [0.9, 0.8, 0.7], "B": [0.1, 0.2, 0.3], "C": [0.5, 0.5, 0.6]})
    ag = me.agreement("qrels", "qrels", n_resamples=50)
    dp = me.discriminative_power(test="sign", correction="none")
    html = meta_section_html(me, agreement=ag, power=dp, swaps=me.swap_rate(n_resamples=50))
    assert html.startswith('<section id="meta">') and html.endswith("</section>")
    for text in ("System-ranking agreement", "tau_ap", "Discriminative power", "Swap rate",
                 "<td>0.8000</td>", "<td>0.5333</td>", "<td>1.0000</td>"):
        assert text in html, text
    with pytest.warns(UndefinedValueWarning):
        tied = _me({"A": [0.5, 0.5], "B": [0.5, 0.5]}).agreement("qrels", "qrels")
    assert "undefined" in meta_section_html(agreement=tied)
    page = render_meta_html(me, title="LLM <judges>")
    assert page.startswith("<!DOCTYPE html>") and "LLM &lt;judges&gt;" in page
    with pytest.raises(InputError, match="swap"):
        meta_section_html(me, swap=dp)
    # rv.report renders the same page, written to path too
    assert rv.report(me, "html", title="LLM <judges>") == page
    assert rv.report(me, "html", agreement=ag, power=dp) == render_meta_html(
        me, agreement=ag, power=dp)
    with pytest.raises(InputError, match="format='html'"):
        rv.report(me, "text")


# ---- resampling against a slow recomputation ----------------------------------------------
def test_agreement_interval_is_the_percentile_of_shared_topic_resamples():
    from receval.results.intervals import bootstrap_means

    rng = np.random.default_rng(5)
    nt, B = 7, 300
    a = {f"s{i}": list(rng.integers(0, 4, nt) / 4) for i in range(4)}
    b = {f"s{i}": list(rng.integers(0, 4, nt) / 4) for i in range(4)}
    me = meta.from_results({**{(s, "a"): _result({f"t{k}": x for k, x in enumerate(v)})
                               for s, v in a.items()},
                            **{(s, "b"): _result({f"t{k}": x for k, x in enumerate(v)})
                               for s, v in b.items()}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedValueWarning)
        got = me.agreement("a", "b", n_resamples=B, rng=11, confidence=0.9).set_index("measure")
    # the draws: bootstrap_means of the identity gives each resample's topic counts / nt
    counts = np.round(bootstrap_means(np.eye(nt), B, 11) * nt)
    A = np.array(list(a.values())).T
    Bm = np.array(list(b.values())).T
    slow: dict[str, list[float]] = {"tau_b": [], "tau_ap": [], "rbo": []}
    for c in counts:
        xa, xb = c @ A / nt, c @ Bm / nt          # exact: quarters times small counts
        if len(set(xa)) < 2 or len(set(xb)) < 2:
            continue
        slow["tau_b"].append(sps.kendalltau(xa, xb).statistic)
        slow["tau_ap"].append(float(_expected(_tau_ap_plain, list(xa), list(xb))))
        slow["rbo"].append(_expected(_rbo_plain, list(xa), list(xb), 0.9))
    for m, vals in slow.items():
        lo, hi = np.quantile(vals, [0.05, 0.95])
        assert got.loc[m, "ci_low"] == pytest.approx(lo, abs=1e-9), m
        assert got.loc[m, "ci_high"] == pytest.approx(hi, abs=1e-9), m
        assert got.loc[m, "undefined_resamples"] == B - len(vals)


def test_swap_rate_bootstrap_against_a_slow_count():
    from receval.results.intervals import bootstrap_means

    rng = np.random.default_rng(8)
    table = {f"s{i}": list(rng.random(6)) for i in range(3)}
    me = _me(table)
    got = me.swap_rate(n_resamples=200, rng=4, min_diff=0.05)
    X = np.array(list(table.values())).T
    w = bootstrap_means(np.eye(6), 400, 4)
    trials = swaps = 0
    for b in range(200):
        m1, m2 = w[b] @ X, w[200 + b] @ X
        for i, j in itertools.combinations(range(3), 2):
            d1, d2 = m1[i] - m1[j], m2[i] - m2[j]
            if d1 != 0 and abs(d1) >= 0.05:
                trials += 1
                swaps += d1 * d2 < 0
    assert got["trials"].item() == trials and got["swaps"].item() == swaps


def test_reproduction_lists_order_ties_by_id_descending_and_ranks():
    # KTU and RBO read tied scores as d, c, b, a (id descending); the metrics follow the
    # ties= policy given (trec_eval's is the same order); ranks given: as listed
    truth = {"q": {"a": 1}}
    tied = {"q": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0}}
    import pandas as pd

    ranked = pd.DataFrame({"user": "q", "item": ["d", "b", "c", "a"], "rank": [1, 2, 3, 4]})
    rep = meta.reproducibility({"baseline": tied}, {"baseline": ranked}, truth, ["mrr"],
                               ties="trec_eval")
    # union a b c d; original d c b a -> 3 2 1 0; reproduced d b c a -> 3 1 2 0: one discordant
    assert rep.order["ktu"].item() == pytest.approx((5 - 1) / 6)
    assert rep.effectiveness["rmse"].item() == 0.0 and rep.effects.empty


def test_replicability_computes_effects_only():
    truth = {"q1": {"a": 1}, "q2": {"b": 1}}
    other = {"p1": {"x": 1}, "p2": {"y": 1}}
    ob = {"q1": {"b": 2, "a": 1}, "q2": {"b": 2, "a": 1}}                # .5, 1
    oa = {"q1": {"a": 2, "b": 1}, "q2": {"b": 2, "a": 1}}                # 1, 1
    rb = {"p1": {"y": 2, "x": 1}, "p2": {"x": 2, "y": 1}}                # .5, .5
    ra = {"p1": {"x": 2, "y": 1}, "p2": {"x": 2, "y": 1}}                # 1, .5
    rep = meta.reproducibility({"baseline": ob, "advanced": oa}, {"baseline": rb, "advanced": ra},
                               truth, ["mrr"], reproduced_truth=other)
    assert rep.order.empty and rep.effectiveness.empty and "replicability" in rep.notes[0]
    assert rep.effects["er"].item() == pytest.approx(0.25 / 0.25)
    assert rep.effects["delta_ri"].item() == pytest.approx(0.25 / 0.75 - 0.25 / 0.5)
