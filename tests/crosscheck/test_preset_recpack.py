"""``compat="recpack"``: RecPack's own expected values, and its options.

Worked examples from RecPack's tests (LienM/recpack ``recpack/tests/test_metrics/``, commit
d42997736d0d: ``conftest.py`` fixtures ``X_pred``, ``X_true``, ``X_true_simplified``,
``X_true_unrecommended_user``, ``item_features``; ``test_dcg.py``, ``test_hit.py``,
``test_precision.py``, ``test_recall.py``, ``test_reciprocal_rank.py``, ``test_coverage.py``,
``test_diversity.py``, ``test_ips.py``, ``test_percentile_ranking.py``), the sparse matrices
written as receval runs and truths. The whole check against RecPack itself is
``benchmarks/peers/libs/recpack.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import receval as rv
from receval.compat import PRESETS, resolve
from receval.errors import InputError, MetricError

NAMES = PRESETS["recpack"].names
N_ITEMS = 5

#: conftest X_pred (users 0 and 2, 5 items)
X_PRED = {0: {0: 0.3, 2: 0.2, 3: 0.1}, 2: {1: 0.23, 3: 0.3, 4: 0.5}}
#: conftest X_true, X_true_simplified, X_true_unrecommended_user
X_TRUE = {0: {0: 1, 2: 1}, 2: {0: 1, 1: 1, 3: 1}}
X_TRUE_SIMPLIFIED = {0: {2: 1}, 2: {4: 1}}
X_TRUE_UNRECOMMENDED = {**X_TRUE, 3: {1: 1}}
#: conftest item_features: items 0, 2, 4 have feature 0, items 1, 3 feature 1
FEATURES = {i: np.array([1.0, 0.0]) if i % 2 == 0 else np.array([0.0, 1.0])
            for i in range(N_ITEMS)}


def _value(truth: dict, key: str, run: dict | None = None, **kwargs: object) -> float:
    return float(rv.evaluate(X_PRED if run is None else run, truth, [key], compat="recpack",
                             **kwargs)[key])


L3 = 1 / math.log2(3)


@pytest.mark.parametrize(("truth", "key", "expected"), [
    # test_dcg.py
    (X_TRUE_SIMPLIFIED, "dcgk@2", (L3 + 1) / 2),
    (X_TRUE_SIMPLIFIED, "ndcgk@2", (L3 + 1) / 2),
    (X_TRUE, "dcgk@2", (L3 + 1 + L3) / 2),
    (X_TRUE, "ndcgk@2", (L3 / (1 + L3) + (1 + L3) / (1 + L3)) / 2),
    (X_TRUE, "dcgk@3", (L3 + 1 / math.log2(4) + 1 + L3) / 2),
    # test_hit.py
    (X_TRUE, "hitk@2", (2 + 1) / 2),
    (X_TRUE, "discountedgaink@2", (1 + L3 + L3) / 2),
    # test_precision.py
    (X_TRUE, "precisionk@2", 0.75),
    (X_TRUE_UNRECOMMENDED, "precisionk@2", 2 / 4),
    # test_recall.py
    (X_TRUE, "recallk@2", 2 / 3),
    (X_TRUE, "recallk@1", 1 / 4),
    (X_TRUE_UNRECOMMENDED, "recallk@2", 4 / 9),
    (X_TRUE_UNRECOMMENDED, "recallk@1", 1 / 6),
    (X_TRUE, "calibratedrecallk@2", 3 / 4),
    (X_TRUE, "calibratedrecallk@1", 1 / 2),
    (X_TRUE_UNRECOMMENDED, "calibratedrecallk@2", 3 / 6),
    (X_TRUE_UNRECOMMENDED, "calibratedrecallk@1", 1 / 3),
    # test_reciprocal_rank.py
    (X_TRUE, "reciprocalrankk@2", 0.75),
    (X_TRUE_UNRECOMMENDED, "reciprocalrankk@2", 0.5),
])
def test_ranking_examples(truth: dict, key: str, expected: float) -> None:
    assert _value(truth, key) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("truth", [X_TRUE, X_TRUE_UNRECOMMENDED])
def test_coveragek(truth: dict) -> None:
    """test_coverage.py: items 0, 2 (user 0) and 3, 4 (user 2) of 5 columns, with or without
    a user that has no recommendation."""
    assert _value(truth, "coveragek@2", catalog=N_ITEMS) == pytest.approx(4 / 5, rel=1e-12)


@pytest.mark.parametrize(("truth", "expected"), [(X_TRUE, 1 / 2),
                                                 (X_TRUE_UNRECOMMENDED, 1 / 3)])
def test_intralistdiversityk(truth: dict, expected: float) -> None:
    """test_diversity.py: {0, 2} share their feature (distance 0), {4, 3} do not (1); a user
    without a recommendation scores 0."""
    got = _value(truth, "intralistdiversityk@2", item_features=FEATURES)
    assert got == pytest.approx(expected, rel=1e-12)


def _fitted(truth: dict) -> dict:
    """IPSMetric.fit(X): p(i) = interactions with i / all interactions; an item never
    interacted with (RecPack: weight 0) gets p = 1 here, which only matters for a hit."""
    counts = np.zeros(N_ITEMS)
    for items in truth.values():
        for i in items:
            counts[i] += 1
    return {i: float(c / counts.sum()) if c else 1.0 for i, c in enumerate(counts)}


@pytest.mark.parametrize(("truth", "expected"), [(X_TRUE, 12.5 / 2),
                                                 (X_TRUE_UNRECOMMENDED, 15 / 3)])
def test_ipshitratek(truth: dict, expected: float) -> None:
    """test_ips.py: the weighted hits per user, averaged over the users with truth."""
    got = _value(truth, "ipshitratek@2", propensities=_fitted(truth))
    assert got == pytest.approx(expected, rel=1e-12)


def test_ipshitratek_is_receval_ips_with_normalize_users() -> None:
    """The preset's entry is receval's ips_hit_rate(normalize=users); the default divides by
    the weights of the relevant items instead."""
    props = _fitted(X_TRUE)
    assert dict(NAMES["ipshitratek"].params)["normalize"] == "users"
    res = rv.evaluate(X_PRED, X_TRUE, ["ips_hit_rate@2", "ips_hit_rate@2(normalize=users)"],
                      propensities=props)
    # weights 1/p: item 0 2.5, items 1-3 5; hits 0, 2 (user 0) and 3 (user 2)
    assert float(res["ips_hit_rate@2"]) == pytest.approx(12.5 / (7.5 + 12.5), rel=1e-12)
    assert float(res["ips_hit_rate@2(normalize=users)"]) == pytest.approx(12.5 / 2, rel=1e-12)


def test_percentileranking() -> None:
    """test_percentile_ranking.py test_perc_ranking: relevant items at ranks 1, 3, 4, 8 of a
    full ranking of 10 items: (0 + 20 + 30 + 70) / 4 percent."""
    run = {0: {i: 1.0 - 0.1 * i for i in range(10)}}
    truth = {0: {0: 1, 2: 1, 3: 1, 7: 1}, 1: {}}
    got = _value(truth, "percentileranking(n_items=10)", run=run)
    assert got == pytest.approx((0 + 20 + 30 + 70) / 4, rel=1e-12)


def test_every_name_resolves_at_every_cutoff() -> None:
    """Each entry of the preset takes the form its library has (K, or none)."""
    for name, entry in NAMES.items():
        keys = [name] if entry.cutoff == "none" else [f"{name}@{k}" for k in (1, 3, 5, 10)]
        mapped = resolve("recpack", keys)[2]
        for key in keys:
            assert mapped[key].startswith(entry.family), key


def test_unknown_option_value_refused() -> None:
    with pytest.raises(MetricError, match="normalize"):
        rv.evaluate(X_PRED, X_TRUE, ["ips_hit_rate@2(normalize=items)"],
                    propensities=_fitted(X_TRUE))


def test_zero_propensity_refused() -> None:
    """RecPack gives an item no one interacted with the weight 0; receval refuses p = 0."""
    props = {**_fitted(X_TRUE), 4: 0.0}
    with pytest.raises(InputError, match="outside"):
        _value(X_TRUE, "ipshitratek@2", propensities=props)


def test_k_option_is_the_cutoff() -> None:
    """RecPack's ``K`` (NDCGK(K=2)) is the key's cutoff; two different cutoffs are refused."""
    for name, entry in NAMES.items():
        if entry.cutoff == "none":
            continue
        assert dict(entry.options) == {"K": "@k"}, name
    assert _value(X_TRUE, "reciprocalrankk(K=2)") == pytest.approx(0.75, rel=1e-12)
    with pytest.raises(MetricError, match="two cutoffs"):
        _value(X_TRUE, "reciprocalrankk@3(K=2)")
