"""NCRR against Cornac, and partial AUC / PAP / MCC against RecTools, on random lists.

RecTools pins numpy < 2 and pandas < 3, so it is not in the test extra; its test runs where it
is installed (it matched on 1800 per-user values when this file was written).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import receval as rv


def test_ncrr_matches_cornac():
    cm = pytest.importorskip("cornac.metrics")
    rng = np.random.default_rng(0)
    n_items = 15
    for _ in range(50):
        pos = rng.choice(n_items, int(rng.integers(1, 6)), replace=False)
        L = int(rng.integers(1, n_items + 1))
        rank = rng.permutation(n_items)[:L]
        run = {"u": {int(it): float(L - i) for i, it in enumerate(rank)}}
        truth = {"u": {int(i): 1 for i in pos}}
        for k in (1, 3, 5, -1):
            exp = cm.NCRR(k=k).compute(gt_pos=pos, pd_rank=rank)
            key = f"ncrr@{k}" if k > 0 else "ncrr"
            got = rv.evaluate(run, truth, [key])[key]
            assert math.isclose(got, exp, rel_tol=1e-12, abs_tol=1e-15), (k, got, exp)


@pytest.mark.parametrize("seed", range(3))
def test_pauc_pap_mcc_match_rectools(seed):
    metrics = pytest.importorskip("rectools.metrics")
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    n_items = 30
    reco, inter = [], []
    for u in range(8):
        items = rng.permutation(n_items)[: int(rng.integers(1, 20))]
        reco += [(u, int(it), r) for r, it in enumerate(items, start=1)]
        inter += [(u, int(it)) for it in rng.choice(n_items, int(rng.integers(1, 8)),
                                                     replace=False)]
    R = pd.DataFrame(reco, columns=["user_id", "item_id", "rank"])
    inter_df = pd.DataFrame(inter, columns=["user_id", "item_id"])
    run = {}
    for u, it, r in reco:
        run.setdefault(u, {})[it] = -float(r)
    truth = {}
    for u, it in inter:
        truth.setdefault(u, {})[it] = 1
    for k in (1, 3, 5):
        expected = {
            f"pauc@{k}": metrics.PartialAUC(k=k).calc_per_user(R, inter_df),
            f"pap@{k}": metrics.PAP(k=k).calc_per_user(R, inter_df),
            f"mcc@{k}(n_items={n_items})": metrics.MCC(k=k).calc_per_user(
                R, inter_df, catalog=list(range(n_items))),
        }
        res = rv.evaluate(run, truth, list(expected))
        users = list(res.user_ids)
        for key, exp in expected.items():
            col = res.user_values(key)
            for u, v in exp.items():
                assert math.isclose(col[users.index(u)], v, rel_tol=1e-9, abs_tol=1e-12)
