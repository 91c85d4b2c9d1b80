"""Propensity-scored metrics as plugin metric families of :func:`receval.evaluate`.

Propensities come from ``propensities={item: p}`` (an evaluate() option) or are estimated from
``train=`` with Jain et al.'s formula (parameters ``A``, ``B`` of the metric key)::

    rv.evaluate(run, truth, ["psp@5", "psndcg@5", "ips_hit_rate@10"], train=train)
    rv.evaluate(run, truth, ["psp@5"], propensities={"item1": 0.3, ...})

The summary is a ratio of sums (micro average, as pyxclib's ``psprecision`` / ``psndcg``: the
mean over users of the propensity-scored gain over the mean of the best achievable one); the
per-user column holds each user's own ratio. Users without a relevant item have no value.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..engines.plugins import Context, MetricValues
from ..metrics.spec import MetricDef, MetricSpec, Param, register
from ..pack.packed import Packed
from ._propensity import inverse_weights, ps_values, train_counts

REL = Param("rel", 1.0, "relevance threshold: truth items with relevance >= rel are relevant",
            kind=float, low=0.0, low_open=True)
A = Param("A", 0.55, "Jain et al.'s A (used when propensities are estimated from train=)",
          kind=float, low=0.0, low_open=True)
B = Param("B", 1.5, "Jain et al.'s B (used when propensities are estimated from train=)",
          kind=float, low=0.0)
NORMALIZE = Param("normalize", "truth",
                  "truth = divide by the weights of the relevant items (default) | users = "
                  "divide by the number of users with a relevant item (RecPack IPSHitRateK)",
                  ("truth", "users"))
_PROP = ("Propensities p_l: propensities={item: p} (an evaluate() option) or, from train=, "
         "p_l = 1 / (1 + C (N_l + B)^-A), C = (ln N - 1) (B + 1)^A, N = training users, N_l = "
         "training users with item l (Jain, Prabhu & Varma, KDD 2016). Every propensity read, given "
         "or estimated, must lie in (0, 1]; one outside is refused, not clipped (the formula "
         "needs N >= 3 training users, and B > 0 for items no training user has). ")


def _weights(spec: MetricSpec, packed: Packed, context: Context) -> tuple[np.ndarray, ...]:
    given = context.options.get("propensities")
    train = None
    if given is None:
        src = context.require("train", spec.key)
        train = context.memo("train_counts", (src,), lambda: train_counts(src))
    a, b = float(spec.get("A")), float(spec.get("B"))
    # one look-up over the distinct items of the run and the truth (checked and counted once)
    run_items, truth_items = np.asarray(packed.item_vocab), np.asarray(packed.truth_item_vocab)
    items = pd.Index(run_items).append(pd.Index(truth_items)).unique()
    w = inverse_weights(items.to_numpy(), given, train, a, b, spec.key)
    return w[items.get_indexer(run_items)], w[items.get_indexer(truth_items)]


def _compute(kind: str):
    def compute(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
        w_run, w_truth = _weights(spec, packed, context)
        w_pos = w_run[packed.items] if len(packed.items) else np.zeros(0)
        num, den = ps_values(kind, spec.k, float(spec.get("rel")), packed.indptr, packed.rel,
                             w_pos, packed.t_indptr, packed.t_rel,
                             w_truth[packed.t_items] if len(packed.t_items) else np.zeros(0),
                             packed.list_len)
        with np.errstate(divide="ignore", invalid="ignore"):
            if kind == "ips_hit_rate" and spec.get("normalize") == "users":
                # RecPack's IPSHitRateK: the weighted hits of each user with a relevant item
                den = np.where(den > 0, 1.0, 0.0)
            per_user = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        return MetricValues(per_user=per_user, num=num, den=den)
    return compute


register(MetricDef(
    "psp", "Propensity-scored precision@k",
    "PSP@k = sum_u sum_{i<=k} b_i / p_{l_i}  /  sum_u sum_{j<=min(k, R)} 1 / p*_j "
    "(p*: the user's relevant items, smallest propensity first)",
    "Precision@k where each hit counts 1/propensity, normalized by the best achievable value "
    "(pyxclib psprecision): rare items found count more. " + _PROP,
    (REL, A, B), aggregate="micro", bounds=(0.0, 1.0), family="debiased",
    reference="Jain, Prabhu & Varma (KDD 2016); pyxclib xclib/evaluation/xc_metrics.py "
              "(psprecision, compute_inv_propesity)",
    example="hits with p = 0.5 and 0.25 in the top 2, relevant p = {0.5, 0.25, 0.1}: "
            "(2 + 4) / (10 + 4) = 3/7",
    compute=_compute("psp"),
))

register(MetricDef(
    "psndcg", "Propensity-scored nDCG@k",
    "PSnDCG@k = sum_u (sum_{i<=k} b_i / (p_{l_i} log2(i + 1))) / Z_u  /  "
    "sum_u (sum_{j<=min(k, R)} 1 / (p*_j log2(j + 1))) / Z_u, Z_u = sum_{j<=min(k, R)} 1/log2(j+1)",
    "nDCG@k with gains 1/propensity, normalized by the best achievable value (pyxclib "
    "psndcg). " + _PROP,
    (REL, A, B), aggregate="micro", bounds=(0.0, 1.0), family="debiased",
    reference="Jain, Prabhu & Varma (KDD 2016); pyxclib xclib/evaluation/xc_metrics.py (psndcg)",
    example="one user, hit at rank 2 with p = 0.5, relevant p = {0.5}: (2 / log2(3)) / 2 = 0.63093",
    compute=_compute("psndcg"),
))

register(MetricDef(
    "ips_hit_rate", "IPS-weighted hit rate@k",
    "IPS-HR@k = sum_u sum_{i<=k} b_i / p_{l_i}  /  sum_u sum_{relevant j} 1 / p_j "
    "(normalize=users: / |{u: R_u > 0}|)",
    "Share of the held-out items found in the top k, each weighted by 1/propensity: the "
    "inverse-propensity-scored (unbiased under missing-not-at-random exposure) estimate of the "
    "item-level hit rate hit_rate@k(level=truth) (Yang et al., RecSys 2018), in [0, 1]. "
    "normalize=users: sum_u sum_{i<=k} b_i / p_{l_i} / |{u: R_u > 0}|, the mean over users "
    "of their weighted hits (RecPack IPSHitRateK; not bounded by 1). " + _PROP,
    (REL, A, B, NORMALIZE), aggregate="micro", bounds=(0.0, None), family="debiased",
    reference="Yang, Cui, Xiong, Mcauley, Ma, Zhang, Berg, Estrin, 'Unbiased offline recommender "
              "evaluation for missing-not-at-random implicit feedback' (RecSys 2018)",
    example="held-out p = {0.5, 0.1}, the first found: 2 / (2 + 10) = 1/6",
    compute=_compute("ips_hit_rate"),
))

