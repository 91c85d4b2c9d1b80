"""A simulated shop that closes the loop from offline metrics to an online KPI.

Users and models come from receval's demo (seeded synthetic log, time split, baselines). A
position-based click model (Craswell, Zoeter, Taylor & Ramsey, WSDM 2008; Richardson et al. 2007)
decides clicks: ``P(click on item i at position l) = theta_l * a(u, i)`` with
``theta_l = 1 / l^eta`` and attraction ``a = attract_relevant`` for the user's held-out items,
``attract_other`` otherwise. The KPI is clicks per impression of ``k`` slots; each model's true
value is known exactly. For every pair of models the simulation runs an A/B test (users split at
random), computes the off-policy estimate of the difference from one shared log of uniformly
random slates over the models' candidates (known propensities), and records the offline effects
from the paired comparison; the pair of the two best models is also interleaved (team draft).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..validation import NON_NEGATIVE_INT, POSITIVE_INT, Interval, Real, validate_params
from . import ab, interleave
from ._frames import need
from ._params import UNIT
from ._results import OnlineResult
from .agreement import agreement
from .estimate import compare_policies
from .ledger import Ledger
from .propensity import policy_from_run, read_log


@dataclass
class ShopResult:
    """Everything the simulated shop produced."""

    true_value: dict[str, float]
    ledger: Ledger
    agreement: OnlineResult
    ab: dict[str, OnlineResult]
    ope: OnlineResult
    interleaving: OnlineResult
    info: dict[str, Any] = field(default_factory=dict)


def _topk(run: pd.DataFrame, users: pd.Index, items: pd.Index, k: int) -> np.ndarray:
    u = users.get_indexer(run["user"])
    keep = u >= 0
    u, it, s = u[keep], items.get_indexer(run["item"][keep]), run["score"].to_numpy()[keep]
    order = np.lexsort((it, -s, u))
    u, it = u[order], it[order]
    start = np.searchsorted(u, np.arange(users.size))
    pos = np.arange(u.size) - start[u]
    out = np.full((users.size, k), -1, dtype=np.int64)
    sel = pos < k
    out[u[sel], pos[sel]] = it[sel]
    return out


def _check_inputs(runs: Any, test: Any, comparison: Any) -> None:
    """Runs ``{name: frame(user, item, score)}`` (two or more), a test frame (user, item) and a
    Comparison (``pair``, ``metrics``), as :func:`receval.run_demo` returns them."""
    if not isinstance(runs, Mapping) or len(runs) < 2 or not all(
            isinstance(r, pd.DataFrame) for r in runs.values()):
        raise InputError("simulate_shop: runs must be a dict of at least two run frames "
                         "{name: DataFrame(user, item, score)}.")
    for name, r in runs.items():
        need(r, ["user", "item", "score"], f"run {name!r}")
    if not isinstance(test, pd.DataFrame):
        raise InputError(f"simulate_shop: test must be a DataFrame(user, item); got "
                         f"{type(test).__name__}.")
    need(test, ["user", "item"], "test")
    if not (hasattr(comparison, "pair") and hasattr(comparison, "metrics")):
        raise InputError(f"simulate_shop: comparison must be a receval Comparison; got "
                         f"{type(comparison).__name__}.")


@validate_params({"k": POSITIVE_INT, "eta": [Interval(Real, 0, None)], "attract_relevant": UNIT,
                  "attract_other": UNIT, "impressions": POSITIVE_INT, "log_slates": POSITIVE_INT,
                  "seed": NON_NEGATIVE_INT})
def simulate_shop(runs: Mapping[str, pd.DataFrame], test: pd.DataFrame, comparison: Any, *,
                  k: int = 5, eta: float = 1.0, attract_relevant: float = 0.5,
                  attract_other: float = 0.02, impressions: int = 4, log_slates: int = 4,
                  offline_metrics: Sequence[str] = ("ndcg@10", "recall@10", "precision@10",
                                                    "mrr@10", "coverage@10", "novelty@10"),
                  seed: int = 0) -> ShopResult:
    """Run the simulation (see the module docstring); ``runs`` and ``comparison`` come from
    :func:`receval.run_demo`, ``test`` is its held-out (user, item) table."""
    _check_inputs(runs, test, comparison)
    g = np.random.default_rng(seed)
    names = list(runs)
    users = pd.Index(pd.unique(test["user"]))
    items = pd.Index(pd.unique(pd.concat([r["item"] for r in runs.values()] + [test["item"]])))
    tops = {n: _topk(runs[n], users, items, k) for n in names}
    rel_key = pd.MultiIndex.from_arrays([users.get_indexer(test["user"]),
                                         items.get_indexer(test["item"])])
    theta = 1.0 / np.arange(1, k + 1) ** eta

    def attraction(lists: np.ndarray) -> np.ndarray:
        uu = np.repeat(np.arange(lists.shape[0]), lists.shape[1])
        hit = rel_key.get_indexer(pd.MultiIndex.from_arrays([uu, lists.ravel()])) >= 0
        a = np.where(hit, attract_relevant, attract_other).reshape(lists.shape)
        return np.where(lists >= 0, a, 0.0)

    click_p = {n: attraction(t) * theta[None, :] for n, t in tops.items()}
    true_value = {n: float(p.sum(axis=1).mean()) for n, p in click_p.items()}

    # one shared exploration log: uniformly random k-slates over the union of the models' lists
    cand = np.concatenate(list(tops.values()), axis=1)
    cand_df = pd.DataFrame({"user": np.repeat(np.arange(users.size), cand.shape[1]),
                            "item": cand.ravel()})
    cand_df = cand_df[cand_df["item"] >= 0].drop_duplicates()
    m_u = np.bincount(cand_df["user"].to_numpy(), minlength=users.size)
    mmax = int(m_u.max())
    padded = np.full((users.size, mmax), -1, dtype=np.int64)
    cu = cand_df["user"].to_numpy()
    start = np.searchsorted(cu, np.arange(users.size))
    padded[cu, np.arange(cu.size) - start[cu]] = cand_df["item"].to_numpy()
    rows = []
    for s in range(log_slates):
        keys = np.where(padded >= 0, g.random(padded.shape), np.inf)
        slate = np.take_along_axis(padded, np.argsort(keys, axis=1)[:, :k], axis=1)
        click = g.random(slate.shape) < attraction(slate) * theta[None, :]
        uu = np.repeat(np.arange(users.size), k)
        ok = slate.ravel() >= 0
        rows.append(pd.DataFrame({
            "user_id": uu[ok], "slate_id": (uu * log_slates + s)[ok],
            "position": np.tile(np.arange(1, k + 1), users.size)[ok],
            "item_id": slate.ravel()[ok], "reward": click.ravel()[ok].astype(float),
            "propensity": (1.0 / m_u[uu])[ok]}))
    log = read_log(pd.concat(rows, ignore_index=True))
    policies = {n: policy_from_run(pd.DataFrame({
        "user": np.repeat(np.arange(users.size), k), "item": tops[n].ravel(),
        "score": np.tile(-np.arange(k, dtype=float), users.size)})[tops[n].ravel() >= 0],
        kind="deterministic", k=k) for n in names}

    ledger = Ledger()
    ab_results: dict[str, OnlineResult] = {}
    ope_rows = []
    for control, treat in itertools.combinations(names, 2):
        arm = g.random(users.size) < 0.5
        p = np.where(arm[:, None], click_p[treat], click_p[control])
        clicks = (g.random((impressions,) + p.shape) < p[None]).sum(axis=(0, 2))
        units = pd.DataFrame({"user": users, "variant": np.where(arm, treat, control),
                              "clicks": clicks.astype(float),
                              "impressions": np.full(users.size, float(impressions))})
        res = ab.analyze(units, metrics=[ab.ratio("clicks", "impressions", name="ctr")],
                         control=control)
        ab_results[f"{treat} vs {control}"] = res
        ope = compare_policies(log, {treat: policies[treat], control: policies[control]},
                               baseline=control, estimator="iips", correction="none")
        o = ope.rows[0]
        ope_rows.append({**o, "pair": f"{treat} - {control}",
                         "true_diff": true_value[treat] - true_value[control]})
        offline = {m: comparison.pair(m, treat, control) for m in offline_metrics
                   if m in comparison.metrics}
        off = {m: {"delta": r["diff"], "se": (r["ci_high"] - r["ci_low"]) / (2 * 1.959963984540054),
                   "p_value": r["p_value"]} for m, r in offline.items()}
        off["ope:iips"] = {"delta": o["diff"], "se": o["se"], "p_value": o["p_value"]}
        ledger.add(f"{treat} vs {control}", offline=off, online=res)
    agr = agreement(ledger, online_metric="ctr", n_resamples=500, rng=seed)
    ope_res = OnlineResult(kind="ope_compare", rows=ope_rows,
                           summary={r["pair"]: r["diff"] for r in ope_rows},
                           counts={"slates": log.n_slates, "units": int(log.unit_ids.size)},
                           provenance={"estimator": "iips", "seed": seed},
                           title="Off-policy estimates of the differences (IIPS)")
    best = sorted(names, key=lambda n: -true_value[n])[:2]
    it, team = interleave.team_draft([tops[best[0]], tops[best[1]]], k, rng=g)
    cl = g.random(it.shape) < attraction(it) * theta[None, :]
    cred = interleave.credit_team_draft(team, cl)
    il = interleave.analyze_outcomes(np.arange(users.size), np.sign(cred[:, 0] - cred[:, 1]),
                                     names=(best[0], best[1]), rng=seed)
    return ShopResult(true_value, ledger, agr, ab_results, ope_res, il,
                      {"users": int(users.size), "k": k, "log_slates": log.n_slates})
