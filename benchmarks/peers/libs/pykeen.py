"""PyKEEN: the ``compat="pykeen"`` preset against the library itself.

Every name the preset maps, spelled as PyKEEN's own parser reads it
(``RankBasedMetricResults.key_from_string``: ``hits@5``, ``h@5``, ``hits_at_k.5``, ``mrr``),
on leave-one-out data (one true item per user, every candidate scored), with distinct and
with tied scores. Every name the preset lists, refused ones included, must be a spelling
PyKEEN resolves.
"""

from __future__ import annotations

import numpy as np
from common import CUTS, TOL_F32, Report, check, need, ours, version

from receval.compat import PRESETS

_PYKEEN_TIES = "tied scores: PyKEEN"
_HITS = {"hits": "hits@{k}", "h": "h@{k}", "hits_at_k": "hits_at_k.{k}",
         "hitsatk": "hitsatk.{k}"}


@check("pykeen", "PyKEEN")
def check_pykeen(report: Report) -> None:
    torch = need("torch")
    ranks_mod = need("pykeen.evaluation.ranks")
    ranking = need("pykeen.metrics.ranking")
    evaluator = need("pykeen.evaluation.rank_based_evaluator")
    label = f"pykeen {version('pykeen')}"
    parse = evaluator.RankBasedMetricResults.key_from_string
    names = PRESETS["pykeen"].names
    for name in names:  # a spelling PyKEEN does not read is an error of the preset
        parse(_HITS[name].format(k=10) if name in _HITS else name)

    def metric(text: str):
        key = parse(text).metric
        if key.startswith("hits_at_"):
            return ranking.HitsAtK(k=int(key.rsplit("_", 1)[1]))
        return ranking.rank_based_metric_resolver.make(key)

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
        for name, entry in names.items():
            if entry.refused:
                continue
            if name in _HITS:
                for k in CUTS:
                    key = f"{name}@{k}"
                    report.add("pykeen", label, key + tag, ours(run, truth, [key], "pykeen")[key],
                               metric(_HITS[name].format(k=k))(realistic), known=known,
                               tol=TOL_F32)
                # without a cutoff PyKEEN's HitsAtK is Hits@10: so is the preset's name
                text = name if name.startswith("hits_at") or name == "hitsatk" else name + "@k"
                report.add("pykeen", label, name + " (no cutoff)" + tag,
                           ours(run, truth, [name], "pykeen")[name], metric(text)(realistic),
                           known=known, tol=TOL_F32)
                key = f"{name}(k=3)"
                report.add("pykeen", label, key + tag, ours(run, truth, [key], "pykeen")[key],
                           metric(_HITS[name].format(k=3))(realistic), known=known,
                           tol=TOL_F32)
            else:
                report.add("pykeen", label, name + tag, ours(run, truth, [name], "pykeen")[name],
                           metric(name)(realistic), known=known, tol=TOL_F32)
