"""Every metric's cost depends on the list length, not on k (issue 11: ``mar@k`` looped k times
per user, about a day at k = 10**9 for 100k users). Derived from the registry: every family,
every parameter choice, kernel and plugin, at k = 10**9 against k = 64 (deeper than every list,
truth and catalogue here, so the two agree except where k itself is in the formula)."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
import pytest
from cases import metric_cases

import receval as rv
from receval.errors import RecevalError
from receval.metrics import parse_metric

BIG, SMALL = 10**9, 64
# families whose formula has k itself in it (a denominator k, or a mean over the k cutoffs)
K_IN_FORMULA = {
    "precision", "f1", "fbeta", "mar", "serendipity",
    # C/W/L: the ranking is padded with zero gains to the depth k (eu, etc and ed change)
    "cwl_rbp", "inst", "insq", "sdcg", "bpm", "nerr_eq8", "nerr_eq9", "nerr_eq10", "nerr_eq11",
    "set_map",        # h^2 / (k R)
    "mcc",            # TN = n_items - k - FN (FP = k - TP)
    "pauc", "pap",    # RecTools: a hit below fp misses gains k - fp, over R k
}
# parameter choices that put k in the formula of their family
K_IN_OPTION = {
    "ideal=k",        # ndcg, idcg: the ideal list holds k items of the top relevance
    "denominator=k",  # map, novelty: divided by k
    "deep=true",      # sufficient_reco: the filled share, list length / k
    "fp=k",           # confusion counts: the empty slots of a short list are false positives
    "normalize=bounds",  # ee_*: the greatest EE-D of any policy sums the attention down to k
}


def _data():
    rng = np.random.default_rng(0)
    run = pd.DataFrame({"user": np.repeat(np.arange(5), 4), "item": rng.integers(0, 12, 20),
                        "score": rng.random(20)}).drop_duplicates(["user", "item"])
    truth = pd.DataFrame({"user": np.repeat(np.arange(6), 3), "item": rng.integers(0, 12, 18),
                          "relevance": rng.integers(0, 3, 18)}).drop_duplicates(["user", "item"])
    train = pd.DataFrame({"user": np.repeat(np.arange(6), 3), "item": rng.integers(0, 15, 18)})
    feats = pd.DataFrame(rng.random((15, 3)), index=np.arange(15))
    return run, truth, {"train": train, "item_features": feats, "catalog": 20}


PAIRS = list(zip(metric_cases(cutoffs=(BIG,)) + metric_cases(cutoffs=(BIG,), plugins=True),
                 metric_cases(cutoffs=(SMALL,)) + metric_cases(cutoffs=(SMALL,), plugins=True),
                 strict=True))


@pytest.mark.filterwarnings("ignore::receval.errors.RecevalWarning")
def test_every_metric_at_a_huge_cutoff_is_fast_and_exact():
    run, truth, extra = _data()
    checked = 0
    for big, small in PAIRS:
        try:
            b = rv.evaluate(run, truth, [small], **extra)
        except RecevalError as exc:  # the data does not suit this metric (e.g. needs ratings)
            with pytest.raises(type(exc)):
                rv.evaluate(run, truth, [big], **extra)
            continue
        if big.startswith("mcc@"):  # a cutoff above the catalogue size is refused
            with pytest.raises(rv.InputError, match="n_items=100 is smaller than the 10+ slots"):
                rv.evaluate(run, truth, [big], **extra)
            continue
        t0 = time.perf_counter()
        a = rv.evaluate(run, truth, [big], **extra)
        assert time.perf_counter() - t0 < 2.0, big
        va, vb = a.values[:, 0], b.values[:, 0]
        name = parse_metric(big).name
        if (name in K_IN_FORMULA or any(o in big for o in K_IN_OPTION)) and "@" in big:
            assert np.all(np.isfinite(va) | np.isnan(vb)), big
            if name in ("precision", "serendipity") and "denominator" not in big:
                np.testing.assert_allclose(va * BIG, vb * SMALL, rtol=1e-9, err_msg=big)
        else:
            np.testing.assert_allclose(va, vb, rtol=1e-12, atol=0, equal_nan=True, err_msg=big)
        checked += 1
    assert checked > 100


def test_mar_tail_in_closed_form():
    # recall@i is 0, 1/2, 1/2, 1/2, ... : mar@k = (k - 1) / (2 k), for any k
    run, truth = {"a": {"x": 3, "y": 2, "z": 1}}, {"a": {"y": 1, "q": 1}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for k in (3, 10, 10**6, BIG):
            t0 = time.perf_counter()
            value = rv.evaluate(run, truth, [f"mar@{k}"])[f"mar@{k}"]
            assert time.perf_counter() - t0 < 1.0
            assert value == pytest.approx((k - 1) / (2 * k), rel=1e-15)
