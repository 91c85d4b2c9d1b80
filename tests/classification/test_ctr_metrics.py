"""CTR / pointwise model metrics: normalized entropy, calibration ratio, ECE (equal-width and
equal-mass bins) with the reliability diagram, Brier score; weights, per-user and pooled values,
mergeable states; cross-checks against scikit-learn and TorchRec's formulas."""

from __future__ import annotations

import importlib.util
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.classification import (
    CalibrationState,
    brier_score,
    calibration_ratio,
    expected_calibration_error,
    log_loss,
    normalized_entropy,
    reliability_diagram,
)
from receval.classification.calibration import UndefinedValueWarning
from receval.errors import InputError, MetricError, PolicyError

HAVE_MPL = importlib.util.find_spec("matplotlib") is not None
FUNCS = (normalized_entropy, calibration_ratio, brier_score, expected_calibration_error)


def _data(seed: int, n: int = 300, ties: bool = False):
    r = np.random.default_rng(seed)
    p = r.random(n)
    if ties:
        p = np.round(p, 1)
    y = (r.random(n) < p).astype(int)
    w = r.random(n) * 3
    return y, p, w


# ------------------------------------------------------------------ worked examples (exact)


def test_worked_examples_unweighted():
    assert normalized_entropy([1, 0], [0.5, 0.5]) == 1.0  # log 2 / H(1/2)
    assert calibration_ratio([1, 0, 0], [0.5, 0.25, 0.75]) == 1.5
    assert brier_score([1, 0], [0.75, 0.5]) == 0.15625  # (1/16 + 1/4) / 2
    # bins [0, .5): gap |(1 + 0) - (.2 + .2)| = .6; [.5, 1]: |2 - 1.6| = .4; (0.6 + 0.4) / 4
    assert expected_calibration_error([1, 0, 1, 1], [0.2, 0.2, 0.8, 0.8], bins=2) == 0.25


def test_worked_examples_weighted():
    y, p, w = [1, 0, 1], [0.5, 0.25, 0.75], [2, 1, 1]
    assert calibration_ratio(y, p, weights=w) == (2 * 0.5 + 0.25 + 0.75) / 3
    assert brier_score(y, p, weights=w) == (2 * 0.25 + 0.0625 + 0.0625) / 4
    # one bin: |sum w (y - p)| / W = |2 * .5 - .25 + .25| / 4
    assert expected_calibration_error(y, p, bins=1, weights=w) == 0.25
    # NE: LL / H(3/4), LL = (2 log 2 + log(4/3) + log(4/3)) / 4
    ll = (2 * math.log(2) + 2 * math.log(4 / 3)) / 4
    h = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    assert normalized_entropy(y, p, weights=w) == pytest.approx(ll / h, rel=1e-15)


def test_equal_mass_bins_worked_example():
    # 6 rows, p = .1 .1 .2 .3 .6 .9, 3 equal-mass bins: F = 0 0 2/6 3/6 4/6 5/6
    # -> bins 0 0 1 1 2 2 (ties .1 share bin 0)
    y = [0, 1, 0, 1, 1, 1]
    p = [0.1, 0.1, 0.2, 0.3, 0.6, 0.9]
    gaps = [abs(1 - 0.2), abs(1 - 0.5), abs(2 - 1.5)]
    assert expected_calibration_error(y, p, bins=3, binning="mass") == pytest.approx(
        sum(gaps) / 6, rel=1e-15)
    r = reliability_diagram(y, p, bins=3, binning="mass")
    assert r.count.tolist() == [2, 2, 2]
    assert r.lo.tolist() == [0.1, 0.2, 0.6] and r.hi.tolist() == [0.1, 0.3, 0.9]
    assert r.observed_rate.tolist() == [0.5, 0.5, 1.0]
    assert r.mean_predicted == pytest.approx([0.1, 0.25, 0.75], rel=1e-15)
    assert r.ece == expected_calibration_error(y, p, bins=3, binning="mass")


def test_reliability_diagram_weighted_width_bins():
    y, p, w = [1, 0, 0, 1], [0.05, 0.15, 0.55, 0.95], [1, 3, 2, 2]
    r = reliability_diagram(y, p, bins=2, weights=w)
    assert r.count.tolist() == [2, 2] and r.weight.tolist() == [4.0, 4.0]
    assert r.mean_predicted == pytest.approx([(0.05 + 0.45) / 4, (1.1 + 1.9) / 4], rel=1e-15)
    assert r.observed_rate.tolist() == [0.25, 0.5]
    assert r.lo.tolist() == [0.0, 0.5] and r.hi.tolist() == [0.5, 1.0]
    frame = r.to_frame()
    assert list(frame.columns) == ["lo", "hi", "count", "weight", "mean_predicted",
                                   "observed_rate"]
    # empty bins are left out
    r10 = reliability_diagram(y, p, bins=10)
    assert r10.count.tolist() == [1, 1, 1, 1] and r10.lo.tolist() == [0.0, 0.1, 0.5, 0.9]


# ------------------------------------------------------------------ cross-checks


@pytest.mark.parametrize("seed", range(5))
def test_brier_and_log_loss_match_scikit_learn(seed):
    sk = pytest.importorskip("sklearn.metrics")
    y, p, w = _data(seed)
    assert brier_score(y, p, weights=w) == pytest.approx(
        sk.brier_score_loss(y, p, sample_weight=w), rel=1e-12)
    assert brier_score(y, p) == pytest.approx(sk.brier_score_loss(y, p), rel=1e-12)
    # NE * H(p_bar) is the (weighted) log loss
    pbar = np.average(y, weights=w)
    h = -(pbar * math.log(pbar) + (1 - pbar) * math.log(1 - pbar))
    assert normalized_entropy(y, p, weights=w) * h == pytest.approx(
        sk.log_loss(y, p, sample_weight=w), rel=1e-12)
    assert normalized_entropy(y, p, weights=w) * h == pytest.approx(
        log_loss(y, p, sample_weight=w), rel=1e-12)


def _torchrec_ne(labels, predictions, weights, eta=1e-12):
    """TorchRec torchrec/metrics/ne.py (compute_cross_entropy, _compute_cross_entropy_norm,
    compute_ne), as formulas in numpy: log2, predictions and the mean label clamped to
    [eta, 1 - eta]."""
    q = np.clip(predictions.astype(np.float64), eta, 1 - eta)
    ce_sum = np.sum(-weights * labels * np.log2(q) - weights * (1.0 - labels) * np.log2(1.0 - q))
    pos, neg = np.sum(weights * labels), np.sum(weights * (1.0 - labels))
    mean_label = np.clip(pos / np.sum(weights), eta, 1 - eta)
    return ce_sum / (-pos * np.log2(mean_label) - neg * np.log2(1.0 - mean_label))


def _torchrec_calibration(labels, predictions, weights):
    """TorchRec torchrec/metrics/calibration.py: sum(predictions * weights) / sum(labels *
    weights), 0 when the denominator is <= 0."""
    den = np.sum(labels * weights)
    return 0.0 if den <= 0 else np.sum(predictions * weights) / den


@pytest.mark.parametrize("seed", range(5))
def test_ne_and_calibration_match_torchrec_formulas(seed):
    y, p, w = _data(seed)
    yf = y.astype(np.float64)
    assert normalized_entropy(y, p, weights=w, eps=1e-12) == pytest.approx(
        _torchrec_ne(yf, p, w), rel=1e-12)
    assert normalized_entropy(y, p, eps=1e-12) == pytest.approx(
        _torchrec_ne(yf, p, np.ones(len(p))), rel=1e-12)
    assert calibration_ratio(y, p, weights=w) == pytest.approx(
        _torchrec_calibration(yf, p, w), rel=1e-12)


def _ece_oracle(y, p, w, bins, binning):
    """The docstring formula, row by row: sum_b (W_b / W) |mean_b(y) - mean_b(p)|."""
    y, p, w = list(map(float, y)), list(map(float, p)), list(map(float, w))
    total = sum(w)
    members: dict[int, list[int]] = {}
    for i, pi in enumerate(p):
        if binning == "width":
            b = min(math.floor(bins * pi), bins - 1)
        else:
            below = sum(wj for wj, pj in zip(w, p, strict=True) if pj < pi)
            b = min(math.floor(bins * (below / total)), bins - 1)
        members.setdefault(b, []).append(i)
    out = 0.0
    for rows in members.values():
        wb = sum(w[i] for i in rows)
        if wb == 0:
            continue
        my = sum(w[i] * y[i] for i in rows) / wb
        mp = sum(w[i] * p[i] for i in rows) / wb
        out += wb / total * abs(my - mp)
    return out


@pytest.mark.parametrize("binning", ["width", "mass"])
@pytest.mark.parametrize("bins", [1, 3, 10, 15])
@pytest.mark.parametrize("ties", [False, True])
def test_ece_matches_slow_oracle(binning, bins, ties):
    y, p, w = _data(bins * 7 + ties, n=120, ties=ties)
    assert expected_calibration_error(y, p, bins=bins, binning=binning, weights=w) == \
        pytest.approx(_ece_oracle(y, p, w, bins, binning), rel=1e-12, abs=1e-15)
    assert expected_calibration_error(y, p, bins=bins, binning=binning) == \
        pytest.approx(_ece_oracle(y, p, np.ones(len(p)), bins, binning), rel=1e-12, abs=1e-15)
    r = reliability_diagram(y, p, bins=bins, binning=binning, weights=w)
    assert r.ece == expected_calibration_error(y, p, bins=bins, binning=binning, weights=w)
    assert int(r.count.sum()) == len(p) and r.weight.sum() == pytest.approx(w.sum())


# ------------------------------------------------------------------ properties

rows = st.integers(1, 40).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 1), min_size=n, max_size=n),
    st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.7, 0.9, 1.0]) | st.floats(0, 1),
             min_size=n, max_size=n),
    st.lists(st.floats(0.01, 100), min_size=n, max_size=n)))


def _values(y, p, w=None, bins=5):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedValueWarning)
        return [normalized_entropy(y, p, weights=w), calibration_ratio(y, p, weights=w),
                brier_score(y, p, weights=w),
                expected_calibration_error(y, p, bins=bins, weights=w),
                expected_calibration_error(y, p, bins=bins, binning="mass", weights=w)]


def _same(a, b):
    return all((x == y) or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b, strict=True))


@settings(max_examples=60, deadline=None)
@given(rows)
def test_unit_weights_equal_unweighted(data):
    y, p, _ = data
    assert _same(_values(y, p, [1.0] * len(y)), _values(y, p))


@settings(max_examples=60, deadline=None)
@given(rows, st.integers(-20, 20))
def test_scaling_weights_by_a_power_of_two_changes_nothing(data, k):
    y, p, w = data
    scaled = [x * 2.0**k for x in w]
    assert _same(_values(y, p, scaled), _values(y, p, w))


@settings(max_examples=40, deadline=None)
@given(rows, st.floats(0.1, 10))
def test_scaling_weights_by_any_factor_changes_nothing_but_rounding(data, c):
    y, p, w = data
    a, b = _values(y, p, w)[:4], _values(y, p, [x * c for x in w])[:4]
    for x, z in zip(a, b, strict=True):
        assert (math.isnan(x) and math.isnan(z)) or x == pytest.approx(z, rel=1e-9, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 8), st.integers(1, 3)), min_size=1, max_size=6),
       st.integers(1, 12), st.sampled_from(["width", "mass"]))
def test_perfectly_calibrated_bins_have_ece_zero(groups, bins, binning):
    # each group: 8 m rows predicting j/8 of which m j are positive (observed rate j/8)
    y, p = [], []
    for j, m in groups:
        y += [1] * (m * j) + [0] * (m * (8 - j))
        p += [j / 8] * (8 * m)
    assert expected_calibration_error(y, p, bins=bins, binning=binning) == 0.0
    if sum(y):  # and sum p = sum y, exactly
        assert calibration_ratio(y, p) == 1.0


@settings(max_examples=50, deadline=None)
@given(rows, st.data())
def test_states_merged_in_any_split_and_order_give_the_same_bits(data, draw):
    y, p, w = data
    n = len(y)
    cuts = sorted(draw.draw(st.lists(st.integers(0, n), max_size=4)))
    parts = [(a, b) for a, b in zip([0, *cuts], [*cuts, n], strict=True) if b > a]
    order = draw.draw(st.permutations(parts))
    states = [CalibrationState.of(y[a:b], p[a:b], weights=w[a:b], bins=5) for a, b in order]
    merged = states[0]
    for s in states[1:]:
        merged = merged.merge(s)
    merged = CalibrationState.from_dict(json.loads(json.dumps(merged.to_dict())))
    whole = _values(y, p, w)
    got = [merged.normalized_entropy(), merged.calibration_ratio(), merged.brier_score(),
           merged.expected_calibration_error()]
    assert _same(got, whole[:4])
    assert merged.rows == n


def test_states_of_other_bins_do_not_merge():
    with pytest.raises(InputError, match="same bins and eps"):
        CalibrationState.of([1], [0.5], bins=5).merge(CalibrationState.of([1], [0.5], bins=10))


# ------------------------------------------------------------------ adversarial inputs


@pytest.mark.parametrize("func", FUNCS)
def test_probabilities_outside_the_unit_interval_are_refused(func):
    with pytest.raises(InputError, match=r"y_prob must hold probabilities in \[0, 1\].*1\.5.*"
                                         r"sigmoid"):
        func([1, 0], [0.5, 1.5])
    with pytest.raises(InputError, match=r"y_prob .*-0\.1"):
        func([1, 0], [-0.1, 0.5])
    with pytest.raises(InputError, match=r"y_prob .*nan.*drop or fill NaN"):
        func([1, 0], [float("nan"), 0.5])


@pytest.mark.parametrize("func", FUNCS)
def test_bad_weights_are_refused(func):
    with pytest.raises(InputError, match=r"weights must be >= 0.*index 1: -0\.5.*drop those rows"):
        func([1, 0], [0.5, 0.5], weights=[1.0, -0.5])
    with pytest.raises(InputError, match=r"weights are all 0.*positive weight"):
        func([1, 0], [0.5, 0.5], weights=[0.0, 0.0])
    with pytest.raises(InputError, match=r"weights has 1 NaN.*drop or fill"):
        func([1, 0], [0.5, 0.5], weights=[1.0, float("nan")])
    with pytest.raises(InputError, match=r"weights has 3 elements but there are 2 rows"):
        func([1, 0], [0.5, 0.5], weights=[1.0, 1.0, 1.0])


@pytest.mark.parametrize("func", FUNCS)
def test_labels_not_binary_are_refused(func):
    with pytest.raises(InputError, match=r"y_true must hold binary labels.*got 2 at index 1.*"
                                         r"binarize"):
        func([1, 2], [0.5, 0.5])
    with pytest.raises(InputError, match=r"empty"):
        func([], [])
    with pytest.raises(InputError, match=r"length mismatch"):
        func([1, 0, 1], [0.5, 0.5])


def test_bins_and_binning_are_checked():
    with pytest.raises(InputError, match=r"bins must be a positive integer.*got 0"):
        expected_calibration_error([1], [0.5], bins=0)
    with pytest.raises(InputError, match=r"bins must be a positive integer.*2\.5"):
        reliability_diagram([1], [0.5], bins=2.5)
    with pytest.raises(PolicyError, match=r"binning='quantile' is not valid.*width.*mass"):
        expected_calibration_error([1], [0.5], binning="quantile")


@pytest.mark.parametrize("y", [[0, 0, 0], [1, 1, 1]])
def test_ne_without_both_classes_is_nan_with_the_reason(y):
    with pytest.warns(UndefinedValueWarning, match=r"background entropy H\(p_bar\) is 0"):
        assert math.isnan(normalized_entropy(y, [0.2, 0.5, 0.9]))
    with pytest.warns(UndefinedValueWarning):  # weights that leave one class only
        assert math.isnan(normalized_entropy([1, 0], [0.2, 0.5], weights=[1, 0]))


def test_calibration_without_positive_labels_is_inf_or_nan_with_the_reason():
    with pytest.warns(UndefinedValueWarning, match="no row has a positive label"):
        assert calibration_ratio([0, 0], [0.2, 0.5]) == math.inf
    with pytest.warns(UndefinedValueWarning, match="every prediction is 0"):
        assert math.isnan(calibration_ratio([0, 0], [0.0, 0.0]))


def test_eps_clips_as_log_loss_does():
    # a certain wrong prediction: eps=0 gives an infinite log loss, hence an infinite NE
    assert normalized_entropy([1, 0], [0.0, 0.5], eps=0) == math.inf
    assert math.isfinite(normalized_entropy([1, 0], [0.0, 0.5]))
    with pytest.raises(InputError, match=r"eps must be 'auto' or a number in \[0, 0\.5\)"):
        normalized_entropy([1, 0], [0.5, 0.5], eps=0.7)


# ------------------------------------------------------------------ registered metrics

RUN = pd.DataFrame({
    "user": ["a", "a", "a", "a", "b", "b", "b", "c", "c"],
    "item": ["x", "y", "z", "v", "x", "u", "t", "y", "z"],
    "score": [0.9, 0.6, 0.3, 0.1, 0.8, 0.4, 0.05, 0.7, 0.2],
})
TRUTH = pd.DataFrame({"user": ["a", "a", "b", "c", "c"], "item": ["x", "z", "u", "y", "z"],
                      "relevance": [1, 2, 1, 1, 0]})
WEIGHTS = RUN[["user", "item"]].assign(weight=[1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 2.0, 1.0, 4.0])


def _labels(rel=1.0):
    rel_of = {(u, i): r for u, i, r in TRUTH.itertuples(index=False)}
    return np.array([rel_of.get((u, i), 0) >= rel for u, i in
                     zip(RUN.user, RUN.item, strict=True)], dtype=int)


KEYS = ["normalized_entropy", "calibration_ratio", "brier_score", "ece", "ece(binning=mass)",
        "ece(bins=3)"]


def _func(key, y, p, w):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedValueWarning)
        if key.startswith("ece"):
            spec = rv.metrics.parse_metric(key)
            return expected_calibration_error(y, p, bins=spec.get("bins"),
                                              binning=spec.get("binning"), weights=w)
        return {"normalized_entropy": normalized_entropy, "calibration_ratio": calibration_ratio,
                "brier_score": brier_score}[key](y, p, weights=w)


@pytest.mark.parametrize("weighted", [False, True])
def test_pooled_values_equal_the_array_functions(weighted):
    y, p = _labels(), RUN.score.to_numpy()
    w = WEIGHTS.weight.to_numpy() if weighted else None
    opts = {"sample_weights": WEIGHTS} if weighted else {}
    res = rv.evaluate(RUN, TRUTH, KEYS, **opts)
    for key in KEYS:
        want = _func(key, y, p, w)
        if key == "brier_score":  # a ratio of exact sums of per-user sums (mergeable)
            assert res.summary[key] == pytest.approx(want, rel=1e-15)
        else:  # one value from the exact sums over all pairs: the same bits
            assert res.summary[key] == want, key
        assert res.info[key]["weighted"] is weighted


@pytest.mark.parametrize("weighted", [False, True])
def test_per_user_values_and_macro_average(weighted):
    y, p = _labels(), RUN.score.to_numpy()
    w = WEIGHTS.weight.to_numpy() if weighted else np.ones(len(p))
    opts = {"sample_weights": WEIGHTS} if weighted else {}
    macro = [rv.metrics.parse_metric(f"{k}(average=macro)" if "(" not in k else
                                     k[:-1] + ",average=macro)").key for k in KEYS]
    res = rv.evaluate(RUN, TRUTH, macro, **opts)
    frame = res.per_user
    for key, mkey in zip(KEYS, macro, strict=True):
        vals = []
        for u in ("a", "b", "c"):
            m = (RUN.user == u).to_numpy()
            want = _func(key, y[m], p[m], w[m])
            got = frame.loc[u, mkey]
            if key in ("normalized_entropy", "calibration_ratio") and not 0 < y[m].sum() < m.sum():
                # single-class user (NE) / no positive label (calibration): skipped
                if key == "calibration_ratio" and y[m].sum() > 0:
                    assert got == pytest.approx(want, rel=1e-14)
                    vals.append(got)
                    continue
                assert math.isnan(got), (mkey, u)
                continue
            assert got == pytest.approx(want, rel=1e-14), (mkey, u)
            vals.append(got)
        assert res.summary[mkey] == pytest.approx(np.mean(vals), rel=1e-14), mkey
    # user c: labels (1, 0); user b: (0, 1, 0) -> every user has both classes here except none
    assert res.info[macro[0]]["users_single_class"] == 0


def test_single_class_users_are_skipped_and_counted():
    truth = TRUTH.assign(relevance=np.where(TRUTH.user == "b", 0, TRUTH.relevance))  # b: all 0
    keys = ["ne(average=macro)", "calibration(average=macro)"]
    res = rv.evaluate(RUN, truth, keys)
    ne, cal = (rv.metrics.parse_metric(k).key for k in keys)
    assert res.info[ne]["users_single_class"] == 1
    assert res.info[cal]["users_without_positives"] == 1
    assert math.isnan(res.per_user.loc["b", ne]) and math.isnan(res.per_user.loc["b", cal])
    stats = res.stats_frame
    assert stats.loc[ne, "skipped"] == 1 and stats.loc[ne, "n"] == 2
    assert res.summary[ne] == pytest.approx(
        np.mean([res.per_user.loc[u, ne] for u in ("a", "c")]), rel=1e-15)


def test_rel_threshold_and_unlabelled_skip():
    p = RUN.score.to_numpy()
    y2 = _labels(rel=2.0)
    res = rv.evaluate(RUN, TRUTH, ["brier(rel=2)", "brier(unlabelled=skip)"])
    assert res.summary["brier_score(rel=2)"] == pytest.approx(brier_score(y2, p), rel=1e-15)
    judged = np.array([(u, i) in set(zip(TRUTH.user, TRUTH.item, strict=True))
                       for u, i in zip(RUN.user, RUN.item, strict=True)])
    assert res.summary["brier_score(unlabelled=skip)"] == pytest.approx(
        brier_score(_labels()[judged], p[judged]), rel=1e-15)


def test_weights_as_a_dict_equal_weights_as_a_table():
    d = {(u, i): w for u, i, w in WEIGHTS.itertuples(index=False)}
    a = rv.evaluate(RUN, TRUTH, KEYS, sample_weights=d).summary
    b = rv.evaluate(RUN, TRUTH, KEYS, sample_weights=WEIGHTS).summary
    assert a == b


def test_weight_option_errors():
    with pytest.raises(InputError, match=r"no weight in sample_weights.*user 'c', item 'z'"):
        rv.evaluate(RUN, TRUTH, ["ne"], sample_weights=WEIGHTS.iloc[:-1])
    neg = WEIGHTS.assign(weight=-WEIGHTS.weight)
    with pytest.raises(InputError, match=r"sample_weights weights must be >= 0.*-1"):
        rv.evaluate(RUN, TRUTH, ["brier"], sample_weights=neg)
    with pytest.raises(InputError, match=r"sample_weights weights are all 0"):
        rv.evaluate(RUN, TRUTH, ["ece"], sample_weights=WEIGHTS.assign(weight=0.0))
    with pytest.raises(InputError, match=r"sample_weights: no weight column"):
        rv.evaluate(RUN, TRUTH, ["ece"], sample_weights=WEIGHTS.rename(columns={"weight": "x"}))
    dup = pd.concat([WEIGHTS, WEIGHTS.iloc[:1]])
    with pytest.raises(InputError, match=r"several weights"):
        rv.evaluate(RUN, TRUTH, ["ece"], sample_weights=dup)
    with pytest.raises(InputError, match=r"\(user, item\) pairs"):
        rv.evaluate(RUN, TRUTH, ["ece"], sample_weights={"a": 1.0})


def test_scores_that_are_not_probabilities_are_refused():
    bad = RUN.assign(score=RUN.score * 3)
    for key in ("ne", "calibration", "brier", "ece"):
        with pytest.raises(InputError, match=r"run scores must be probabilities.*2\.7.*user 'a'"):
            rv.evaluate(bad, TRUTH, [key])


def test_parameters_are_declared_and_checked():
    spec = rv.metrics.parse_metric("ece(bins=20,binning=mass)")
    assert spec.get("bins") == 20 and spec.get("binning") == "mass"
    assert rv.metrics.parse_metric("ece").get("bins") == 10
    assert rv.metrics.parse_metric("ne").get("average") == "micro"
    with pytest.raises(MetricError, match=r"bins='0' is out of range"):
        rv.metrics.parse_metric("ece(bins=0)")
    with pytest.raises(MetricError, match=r"binning='quantile' is not valid"):
        rv.metrics.parse_metric("ece(binning=quantile)")
    for alias, name in (("ne", "normalized_entropy"), ("calibration", "calibration_ratio"),
                        ("brier", "brier_score"), ("expected_calibration_error", "ece")):
        assert rv.metrics.parse_metric(alias).name == name


def test_summary_sum_needs_per_user_values():
    res = rv.evaluate(RUN, TRUTH, ["brier(average=macro,summary=sum)", "brier(average=macro)"])
    assert res.summary["brier_score(average=macro,summary=sum)"] == pytest.approx(
        3 * res.summary["brier_score(average=macro)"], rel=1e-15)
    for key in ("brier(summary=sum)", "ne(summary=sum)"):
        with pytest.raises(MetricError, match=r"summary=sum sums per-user values.*average=macro"):
            rv.evaluate(RUN, TRUTH, [key])


def test_pooled_ne_undefined_is_nan_with_the_reason():
    truth = TRUTH.assign(relevance=0)
    res = rv.evaluate(RUN, truth, ["ne", "calibration"], empty_truth="zero")
    assert math.isnan(res.summary["normalized_entropy"])
    assert "background entropy" in res.info["normalized_entropy"]["undefined"]
    assert res.summary["calibration_ratio"] == math.inf
    assert "no row has a positive label" in res.info["calibration_ratio"]["undefined"]


def test_blocks_give_the_same_bits_for_every_pooled_value():
    """Pooled NE, calibration ratio and equal-width ECE are exact sums over every row, merged
    over blocks (and accumulators): the same bits as in memory, for any split. Equal-mass ECE
    keeps the rows themselves, put in one order before binning: the same bits too."""
    mergeable = ["brier", "brier(average=macro)", "ne(average=macro)", "ece(average=macro)",
                 "ece(average=macro,binning=mass)", "calibration(average=macro)", "ne",
                 "calibration", "ece", "ece(bins=4)", "ece(binning=mass)",
                 "ece(bins=3,binning=mass)"]
    whole = rv.evaluate(RUN, TRUTH, mergeable, sample_weights=WEIGHTS)
    for order in (("a", "b", "c"), ("c", "a", "b")):
        got = rv.evaluate_blocks(iter([RUN[RUN.user == u] for u in order]), TRUTH, mergeable,
                                 sample_weights=WEIGHTS)
        assert got.summary == whole.summary
        pd.testing.assert_frame_equal(got.per_user, whole.per_user)
        assert got.info["ece(binning=mass)"]["reliability"] == \
            whole.info["ece(binning=mass)"]["reliability"]
    # the pooled equal-mass value is the array function's on every scored pair
    assert whole.summary["ece(binning=mass)"] == pytest.approx(expected_calibration_error(
        _labels(), RUN.score, bins=10, binning="mass", weights=WEIGHTS.weight), abs=1e-15)


# ------------------------------------------------------------------ the figure


@pytest.mark.skipif(not HAVE_MPL, reason="matplotlib (the receval[plot] extra) is not installed")
def test_reliability_figure_is_svg_with_every_bin():
    from receval.report.figures import reliability_figure
    from receval.report.plots import new_figure, plot_reliability

    y, p, w = _data(3)
    a = reliability_diagram(y, p, weights=w)
    b = reliability_diagram(y, p**2, binning="mass", bins=5)
    svg = reliability_figure("calibration", {"model $A$": a, "model B": b})
    assert svg.startswith("<svg") and "ECE = " in svg and "model $A$" in svg.replace("\\$", "$")
    ax = plot_reliability(a, ax=new_figure().add_subplot(1, 1, 1))
    line = [ln for ln in ax.lines if ln.get_linestyle() != "--"][0]
    assert line.get_xdata().tolist() == a.mean_predicted.tolist()
    assert line.get_ydata().tolist() == a.observed_rate.tolist()
    assert a.plot() is not None
    with pytest.raises(InputError, match="at least one"):
        plot_reliability([])


@pytest.mark.parametrize("lens", [[3, 1, 4, 1, 5], [1] * 50 + [4000]])  # padded / loop paths
def test_cumsum_within_runs_is_the_cumsum_of_each_run_alone(lens):
    from receval.classification.calibration import _cumsum_within

    x = np.random.default_rng(1).random(sum(lens)) * 10
    starts = np.r_[0, np.cumsum(lens)[:-1]]
    got = _cumsum_within(x, starts)
    for a, n in zip(starts, lens, strict=True):
        assert got[a:a + n].tolist() == np.cumsum(x[a:a + n]).tolist()


def test_per_user_equal_mass_bins_are_the_users_own_bins():
    r = np.random.default_rng(7)
    n_users, per = 40, 25
    users = np.repeat([f"u{i}" for i in range(n_users)], per)
    items = np.tile(np.arange(per), n_users)
    p = np.round(r.random(len(users)), 2)  # ties
    y = (r.random(len(users)) < p).astype(int)
    w = r.random(len(users)) * 7
    run = pd.DataFrame({"user": users, "item": items, "score": p})
    truth = run[y == 1][["user", "item"]].assign(relevance=1)
    weights = run[["user", "item"]].assign(weight=w)
    key = rv.metrics.parse_metric("ece(average=macro,binning=mass,bins=4)").key
    res = rv.evaluate(run, truth, [key], sample_weights=weights)
    for i in range(n_users):
        m = users == f"u{i}"
        want = _ece_oracle(y[m], p[m], w[m], 4, "mass")
        assert res.per_user.loc[f"u{i}", key] == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_a_target_value_is_best_where_it_is_closest():
    """A calibration ratio is best at 1, not at an end: comparisons and reports pick the system
    closest to 1 (0.9 beats 1.3 and 0.5), and the registry says so."""
    from receval.metrics import REGISTRY, best_value, goodness
    from receval.metrics.describe import describe

    key = "calibration_ratio"
    assert best_value(key) == 1.0 and best_value("ndcg@10") is None
    good = goodness(key)
    assert max([0.5, 0.9, 1.3], key=good) == 0.9
    assert good(0.8) == good(1.2)
    assert goodness("rmse")(0.1) > goodness("rmse")(0.2)
    assert "best at 1" in describe(REGISTRY[key])


def test_pooled_ece_carries_its_reliability_diagram_over_blocks():
    """result.info['ece']['reliability'] is the diagram of every scored pair (the same as
    reliability_diagram on the rows), whether evaluated at once or in blocks."""
    whole = rv.evaluate(RUN, TRUTH, ["ece(bins=4)"], sample_weights=WEIGHTS)
    blocks = rv.evaluate_blocks(iter([RUN[RUN.user == u] for u in ("b", "c", "a")]), TRUTH,
                                ["ece(bins=4)"], sample_weights=WEIGHTS)
    got = whole.info["ece(bins=4)"]["reliability"]
    assert blocks.info["ece(bins=4)"]["reliability"] == got
    want = reliability_diagram(_labels(), RUN.score, bins=4, weights=WEIGHTS.weight)
    assert got["count"] == want.count.tolist() and sum(got["count"]) == len(RUN)
    assert got["lo"] == want.lo.tolist() and got["weight"] == want.weight.tolist()
    np.testing.assert_allclose(got["mean_predicted"], want.mean_predicted, rtol=1e-15)
    np.testing.assert_allclose(got["observed_rate"], want.observed_rate, rtol=1e-15)


@pytest.mark.skipif(not HAVE_MPL, reason="matplotlib (the receval[plot] extra) is not installed")
def test_the_html_report_draws_the_reliability_diagram():
    res = rv.evaluate(RUN, TRUTH, ["ece", "ne"], sample_weights=WEIGHTS)
    page = rv.report(res, format="html")
    assert 'id="calibration"' in page and "Reliability diagram of ece" in page
    assert 'id="calibration"' not in rv.report(rv.evaluate(RUN, TRUTH, ["ne"],
                                                           sample_weights=WEIGHTS),
                                               format="html")
