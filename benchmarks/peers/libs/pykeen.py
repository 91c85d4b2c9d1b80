"""PyKEEN: the ``compat="pykeen"`` preset against the library itself."""

from __future__ import annotations

import numpy as np
from common import CUTS, TOL_F32, Report, check, need, ours, version

_PYKEEN_TIES = "tied scores: PyKEEN"


@check("pykeen", "PyKEEN")
def check_pykeen(report: Report) -> None:
    torch = need("torch")
    ranks_mod = need("pykeen.evaluation.ranks")
    ranking = need("pykeen.metrics.ranking")
    label = f"pykeen {version('pykeen')}"
    n_items = 30
    for ties in (False, True):
        rng = np.random.default_rng(1001 + ties)
        # leave one out: one true item per user, every candidate scored
        run, truth = {}, {}
        for u in range(40):
            scores = (rng.integers(1, 8, size=n_items) if ties
                      else rng.permutation(n_items) + 1) * 0.25
            run[u] = {i: float(s) for i, s in enumerate(scores)}
            truth[u] = {int(rng.integers(0, n_items)): 1}
        all_scores = torch.tensor([[run[u][i] for i in range(n_items)] for u in run],
                                  dtype=torch.float64)
        true_score = torch.tensor([[run[u][next(iter(truth[u]))]] for u in run],
                                  dtype=torch.float64)
        # the realistic rank comes back as float32: (optimistic + pessimistic) / 2
        realistic = ranks_mod.Ranks.from_scores(true_score, all_scores).realistic.numpy()
        tag = " ties" if ties else ""
        known = _PYKEEN_TIES if ties else ""
        for k in CUTS:
            for name in (f"hits@{k}", f"h@{k}"):
                report.add("pykeen", label, name + tag, ours(run, truth, [name], "pykeen")[name],
                           ranking.HitsAtK(k=k)(realistic), known=known, tol=TOL_F32)
        mrr = ranking.InverseHarmonicMeanRank()(realistic)
        mr = ranking.ArithmeticMeanRank()(realistic)
        for name, value in (("mrr", mrr), ("mean_reciprocal_rank", mrr),
                            ("inverse_harmonic_mean_rank", mrr), ("mr", mr), ("mean_rank", mr),
                            ("arithmetic_mean_rank", mr)):
            report.add("pykeen", label, name + tag, ours(run, truth, [name], "pykeen")[name],
                       value, known=known, tol=TOL_F32)
