"""RecPack: the ``compat="recpack"`` preset against the library itself."""

from __future__ import annotations

import numpy as np
from common import CUTS, Report, binary, check, make_data, need, ours, version


@check("recpack", "RecPack")
def check_recpack(report: Report) -> None:
    sparse = need("scipy.sparse")
    metrics = need("recpack.metrics")
    label = f"recpack {version('recpack')}"
    n_items = 30
    # distinct scores: get_top_K_ranks uses np.argpartition, whose order of ties is unspecified
    run, truth = make_data(1101, ties=False, n_items=n_items)
    n_users = max([*run, *truth]) + 1

    def matrix(rows: dict) -> object:
        cells = [(u, i, v) for u, items in rows.items() for i, v in items.items() if v]
        u, i, v = zip(*cells, strict=True)
        return sparse.csr_matrix((v, (u, i)), shape=(n_users, n_items), dtype=np.float64)

    y_true = matrix(binary(truth))
    y_graded = matrix(truth)
    y_pred = matrix(run)
    classes = {"ndcgk": metrics.NDCGK, "dcgk": metrics.DCGK, "precisionk": metrics.PrecisionK,
               "recallk": metrics.RecallK, "calibratedrecallk": metrics.CalibratedRecallK,
               "reciprocalrankk": metrics.ReciprocalRankK}
    for k in CUTS:
        for name, cls in classes.items():
            m = cls(k)
            m.calculate(y_true, y_pred)
            key = f"{name}@{k}"
            report.add("recpack", label, key, ours(run, binary(truth), [key], "recpack")[key],
                       m.value)
        # graded y_true: DCGK's discount takes the log of rank * y_true + 1 (not reproduced)
        m = metrics.DCGK(k)
        m.calculate(y_graded, y_pred)
        report.add("recpack", label, f"dcgk@{k} graded", ours(run, truth, [f"dcgk@{k}"],
                   "recpack")[f"dcgk@{k}"], m.value, known="DCGK and NDCGK")
        m = metrics.DiscountedGainK(k)
        m.calculate(y_graded, y_pred)
        key = f"discountedgaink@{k}"
        report.add("recpack", label, key + " graded", ours(run, truth, [key], "recpack")[key],
                   m.value, known="DiscountedGainK with")
        # HitK, DiscountedGainK, CoverageK (|I| = the column count)
        for name, cls, extra in (("hitk", metrics.HitK, {}),
                                 ("discountedgaink", metrics.DiscountedGainK, {}),
                                 ("coveragek", metrics.CoverageK, {"catalog": n_items})):
            m = cls(k)
            m.calculate(y_true, y_pred)
            key = f"{name}@{k}"
            report.add("recpack", label, key,
                       ours(run, binary(truth), [key], "recpack", **extra)[key], m.value)
        # IntraListDiversityK: Jaccard distance of boolean feature rows
        rng = np.random.default_rng(1102)
        feats = (rng.random((n_items, 6)) < 0.4).astype(np.float64)
        feats[:, 0] = 1.0  # no item without a feature
        m = metrics.IntraListDiversityK(k)
        m.fit(sparse.csr_matrix(feats))
        m.calculate(y_true, y_pred)
        key = f"intralistdiversityk@{k}"
        report.add("recpack", label, key, ours(run, binary(truth), [key], "recpack",
                   item_features={i: feats[i] for i in range(n_items)})[key], m.value)
        # IPSHitRateK fitted on y_true: p(i) = column sum / total
        m = metrics.IPSHitRateK(k)
        m.fit(y_true)
        m.calculate(y_true, y_pred)
        col = np.asarray(y_true.sum(axis=0)).ravel() / y_true.sum()
        props = {i: float(max(col[i], 1e-4)) for i in range(n_items) if col[i] > 0}
        props.update({i: 1.0 for items in run.values() for i in items if i not in props})
        key = f"ipshitratek@{k}"
        report.add("recpack", label, key, ours(run, binary(truth), [key], "recpack",
                   propensities=props)[key], m.value)
    m = metrics.PercentileRanking()
    m.calculate(y_true, y_pred)
    key = f"percentileranking(n_items={n_items})"
    report.add("recpack", label, key, ours(run, binary(truth), [key], "recpack")[key], m.value)
