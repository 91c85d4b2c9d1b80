"""The built-in example: synthetic log -> time split -> baselines -> evaluate -> compare -> report.

>>> import receval.demo
>>> out = receval.demo.run_demo(n_users=500, n_items=300, html=None)
>>> out.comparison.best("ndcg@10")
['ease']
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

ACCURACY = ["ndcg@5", "ndcg@10", "ndcg@20", "recall@5", "recall@10", "recall@20",
            "precision@10", "map@10", "mrr@10", "hit_rate@10"]
BEYOND = ["coverage@10", "novelty@10", "tail_share@10", "arp@10"]


@dataclass
class DemoResult:
    """Everything the demo produced."""

    comparison: Any
    results: dict[str, Any]
    runs: dict[str, pd.DataFrame]
    train: pd.DataFrame
    test: pd.DataFrame
    html_path: str | None
    timings: dict[str, float] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)


def _beyond_metrics() -> list[str]:
    """The beyond-accuracy metrics that are available in this installation."""
    try:
        import receval.beyond.registered  # noqa: F401
    except ImportError:
        return []
    from .metrics import parse_metric

    out = []
    for key in BEYOND:
        try:
            parse_metric(key)
        except (KeyError, ValueError):
            continue
        out.append(key)
    return out


def _pr_roc_curves(runs: dict[str, pd.DataFrame], test: pd.DataFrame) -> dict[str, list]:
    """ROC and precision-recall curves over the recommended (user, item) pairs of each system,
    labelled 1 when the pair is in the held-out data; empty when the curve module is absent."""
    try:
        from .classification import pr_curve, roc_curve
    except ImportError:
        return {}
    held = pd.MultiIndex.from_frame(test[["user", "item"]])
    roc, pr = [], []
    for name, run in runs.items():
        labels = pd.MultiIndex.from_frame(run[["user", "item"]]).isin(held).astype(np.int64)
        scores = run["score"].to_numpy()
        if labels.min() == labels.max():
            continue
        roc.append(roc_curve(labels, scores, drop_intermediate=True, label=name))
        pr.append(pr_curve(labels, scores, label=name))
    out = {}
    if roc:
        out["ROC (recommended pairs; held-out = positive)"] = roc
    if pr:
        out["Precision-recall (recommended pairs)"] = pr
    return out


def run_demo(*, n_users: int = 4000, n_items: int = 2500, seed: int = 0, k: int = 50,
             test: str = "permutation", correction: str = "holm", n_resamples: int = 2000,
             html: str | None = "receval-report.html", models: tuple[str, ...] | None = None,
             curves: bool = True) -> DemoResult:
    """Run the whole example and write the HTML report to ``html`` (``None``: no file).

    Steps: :func:`receval.datasets.synthetic_interactions` (seeded), a global temporal split
    (last 20% of time held out, cold users/items dropped), four baselines (random, most popular,
    item-kNN cosine, EASE) recommending ``k`` unseen items to every held-out user, evaluation with
    ranking and (when available) beyond-accuracy metrics, paired tests of every pair, report.
    """
    from . import evaluate
    from .baselines import BASELINES, interaction_matrix
    from .datasets import synthetic_interactions, temporal_split
    from .stats import compare

    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    log = synthetic_interactions(n_users, n_items, seed=seed)
    split = temporal_split(log)
    timings["data"] = time.perf_counter() - t0
    train, held = split.train, split.test
    X, uidx, iidx = interaction_matrix(train)
    users = uidx.get_indexer(pd.unique(held["user"]))
    uids, iids = uidx.to_numpy(), iidx.to_numpy()
    names = list(models or BASELINES)
    runs: dict[str, pd.DataFrame] = {}
    for name in names:
        t = time.perf_counter()
        model = BASELINES[name]().fit(X)
        top = model.recommend(users, k)
        ok = top.items.ravel() >= 0
        runs[name] = pd.DataFrame({
            "user": np.repeat(uids[users], top.items.shape[1])[ok],
            "item": iids[top.items.ravel()[ok]],
            "score": top.scores.ravel()[ok],
        })
        timings[f"model:{name}"] = time.perf_counter() - t
    t = time.perf_counter()
    metrics = ACCURACY + _beyond_metrics()
    truth = held[["user", "item", "rating"]].rename(columns={"rating": "relevance"})
    extra = {"train": train[["user", "item"]]} if len(metrics) > len(ACCURACY) else {}
    results = {name: evaluate(run, truth, metrics, name=name, **extra)
               for name, run in runs.items()}
    timings["evaluate"] = time.perf_counter() - t
    t = time.perf_counter()
    cmp = compare(results, test=test, correction=correction, n_resamples=n_resamples, rng=seed)
    timings["compare"] = time.perf_counter() - t
    path = None
    if html:
        from .report import report

        t = time.perf_counter()
        description = (
            f"Synthetic log (seed {seed}): {len(log)} interactions of {n_users} users on "
            f"{n_items} items (Zipf popularity, log-normal activity, genre tastes, ratings 1-5). "
            f"Global time split: the last 20% of time is held out ({split.info['test_rows']} "
            f"rows of {split.info['test_users']} users; rows of users or items unseen in "
            f"training dropped). Each baseline recommends its top {k} unseen items. Truth "
            "relevance = rating (all held-out items are relevant at rel >= 1; graded gains in "
            "nDCG)."
        )
        report(cmp, format="html", path=html, title="receval demo: four baselines compared",
               train=train[["user", "item"]], runs=runs, longtail_k=10,
               curves=_pr_roc_curves(runs, held) if curves else None, description=description,
               max_distributions=8)
        timings["report"] = time.perf_counter() - t
        path = html
    timings["total"] = time.perf_counter() - t0
    return DemoResult(cmp, results, runs, train, held, path, timings, dict(split.info))
