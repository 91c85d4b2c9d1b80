"""MovieLens 100K end to end: the real ratings that RecBole's wheel ships, split by time, two
baselines, results per user group with statistics, and the same run scored through the
``compat=`` presets next to ranx, pytrec_eval and RecBole's own metric code.

Run it in an environment with RecBole, ranx and pytrec_eval-terrier installed; its output is
committed as ``benchmarks/real_movielens.out``::

    python benchmarks/real_movielens.py > benchmarks/real_movielens.out

Nothing is downloaded: the ratings are read from the installed RecBole package
(``recbole/dataset_example/ml-100k/ml-100k.inter``). ``tests/datasets/test_movielens_real.py``
asserts the same facts and equalities (skipped where RecBole's data is absent).

Conventions that matter on this run (popularity and item-kNN scores tie heavily: a user without
history gets item-kNN scores that are all 0):

- ``compat="trec_eval"``: trec_eval re-sorts each query by score (as a C float) descending,
  then docno descending (``strcmp`` order of the ids as strings), and scores the queries in
  both run and qrels.
- ``compat="ranx"``: a ranx ``Run`` keeps tied scores in input order in lists of up to 15
  items (numba's insertion sort); the lists here have 10. The run is given in the model's rank
  order, so ties keep that order (``ties="input"``).
- ``compat="recbole"``: RecBole's metrics read the positions of a full sort (``torch.topk``,
  history masked); the order of tied items there is torch's, so the positions given to its
  metric code here are those of ``ties="id"`` (score descending, item id ascending), the
  preset's order. MAP and NDCG divide by ``min(R, k)``; NDCG's gain is binary.
"""

from __future__ import annotations

import inspect
import math
import sys
import time
import warnings

import numpy as np
import pandas as pd

import receval as rv
from receval.baselines import ItemKNN, MostPopular, interaction_matrix
from receval.datasets.public import load_movielens, recbole_movielens_path
from receval.split import temporal_split

warnings.filterwarnings("ignore", message="unsafe cast")  # numba's notes while ranx compiles

K = 10
# receval key -> (trec_eval measure, ranx metric, RecBole metric class)
PAIRS = {
    "ndcg@10": ("ndcg_cut_10", "ndcg@10", "NDCG"),
    "map@10": ("map_cut_10", "map@10", "MAP"),
    "mrr@10": ("recip_rank", "mrr@10", "MRR"),
    "precision@10": ("P_10", "precision@10", "Precision"),
    "recall@10": ("recall_10", "recall@10", "Recall"),
    "hit_rate@10": ("success_10", "hit_rate@10", "Hit"),
}
RECBOLE_NAMES = {"NDCG": "ndcg@10", "MAP": "map@10", "MRR": "mrr@10",
                 "Precision": "precision@10", "Recall": "recall@10", "Hit": "hit@10"}


def main() -> None:
    started = time.perf_counter()
    path = recbole_movielens_path()
    if path is None:
        sys.exit("RecBole is not installed here (or ships no ml-100k): pip install recbole")
    ratings = load_movielens(path)
    print(f"ratings: {len(ratings):,} rows, {ratings['user'].nunique()} users, "
          f"{ratings['item'].nunique()} items ({path.parent.name}/{path.name} from RecBole)")

    # 1. a global time split: the last 20% of the ratings are held out; ratings >= 4 relevant
    train, test = temporal_split(ratings, quantile=0.8)
    truth = test.loc[test["rating"] >= 4, ["user", "item"]].reset_index(drop=True)
    print(f"train {len(train):,} rows; test {len(test):,} rows, {len(truth):,} relevant "
          f"(rating >= 4) of {truth['user'].nunique()} users")

    # 2. two baselines, the top 10 unseen items of every user with a relevant held-out item
    X, uidx, iidx = interaction_matrix(train, users=np.sort(ratings["user"].unique()),
                                       items=np.sort(ratings["item"].unique()))
    users = np.unique(truth["user"])
    runs = {}
    for name, model in {"MostPopular": MostPopular(), "ItemKNN": ItemKNN(neighbors=100)}.items():
        top = model.fit(X).recommend(uidx.get_indexer(users), K)
        cols = top.items.ravel()
        run = pd.DataFrame({"user": np.repeat(users, K), "item": iidx.to_numpy()[cols],
                            "score": top.scores.ravel()})
        runs[name] = run[cols >= 0].reset_index(drop=True)
        tied = runs[name].groupby("user")["score"].nunique() < K
        print(f"{name}: {len(runs[name]):,} rows; {int(tied.sum())} of {len(users)} lists "
              "hold tied scores")

    # 3. per user group: cold (no training rating) vs warm, and activity terciles of the warm
    metrics = list(PAIRS)
    cold_warm = rv.groups.cold_warm(train, users=truth)
    results = {n: rv.evaluate(r, truth, metrics, groups=cold_warm) for n, r in runs.items()}
    print("groups:", results["ItemKNN"].info["groups"]["sizes"])
    table = pd.concat({n: r.by_group.set_index(["group", "metric"])["mean"]
                       for n, r in results.items()}, axis=1)
    print(table.round(4).to_string())
    activity = rv.groups.activity(train, users=truth, n_groups=3)
    act = rv.evaluate(runs["ItemKNN"], truth, ["ndcg@10", "recall@10"], groups=activity)
    print("ItemKNN by training activity:", {
        row.group: round(row.mean, 4)
        for row in act.by_group[act.by_group.metric == "ndcg@10"].itertuples()})

    # 4. statistics: paired tests of the two baselines, overall and within each group
    cmp = rv.compare(results, baseline="MostPopular", metrics=["ndcg@10", "recall@10"],
                     by=True)
    shown = ["metric", "a", "b", "mean_a", "mean_b", "p_value"]
    print(cmp.table[shown].round(4).to_string(index=False))
    print(cmp.by_group[["group", *shown]].round(4).to_string(index=False))

    # 5. the same runs through the presets, next to the libraries' own numbers
    print()
    print(f"{'model':12s}{'metric':14s}{'trec_eval':>11s}{'pytrec_eval':>12s}{'ranx':>9s}"
          f"{'ranx lib':>10s}{'recbole':>9s}{'RecBole lib':>12s}")
    worst = 0.0
    for name, run in runs.items():
        lib = library_numbers(run, truth)
        pre = {p: rv.evaluate(run, truth, [PAIRS[m][i] if p != "recbole" else
                                           RECBOLE_NAMES[PAIRS[m][2]] for m in metrics],
                              compat=p)
               for i, p in ((0, "trec_eval"), (1, "ranx"), (2, "recbole"))}
        for m in metrics:
            te, rx, rb = PAIRS[m][0], PAIRS[m][1], RECBOLE_NAMES[PAIRS[m][2]]
            row = (pre["trec_eval"][te], lib["pytrec_eval"][m], pre["ranx"][rx],
                   lib["ranx"][m], pre["recbole"][rb], lib["recbole"].get(m, math.nan))
            worst = max(worst, *(abs(a - b) for a, b in (row[0:2], row[2:4], row[4:6])
                                 if b == b))
            print(f"{name:12s}{m:14s}" + "".join(
                f"{v:{w}.4f}" if v == v else f"{'n/a':>{w}s}"
                for v, w in zip(row, (11, 12, 9, 10, 9, 12), strict=True)))
    print(f"largest difference between a preset and its library: {worst:.1e}")
    print(f"(ran in {time.perf_counter() - started:.0f} s)", file=sys.stderr)


def library_numbers(run: pd.DataFrame, truth: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Each library's own mean of every metric of PAIRS on ``run`` (in rank order)."""
    import pytrec_eval
    import ranx

    qrels = {str(u): {str(i): 1 for i in g["item"]} for u, g in truth.groupby("user")}
    lists = {str(u): {str(i): float(s) for i, s in zip(g["item"], g["score"], strict=True)}
             for u, g in run.groupby("user", sort=False)}
    ev = pytrec_eval.RelevanceEvaluator(
        qrels, {"ndcg_cut.10", "map_cut.10", "recip_rank", "P.10", "recall.10",
                "success.10"}).evaluate(lists)
    out: dict[str, dict[str, float]] = {
        "pytrec_eval": {m: float(np.mean([q[PAIRS[m][0]] for q in ev.values()]))
                        for m in PAIRS}}
    rx = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(lists), [p[1] for p in PAIRS.values()],
                       make_comparable=True)
    out["ranx"] = {m: float(rx[PAIRS[m][1]]) for m in PAIRS}
    try:  # RecBole's metric classes import torch; without it that column reads n/a
        out["recbole"] = recbole_numbers(run, truth)
    except ImportError:
        out["recbole"] = {}
    return out


def recbole_numbers(run: pd.DataFrame, truth: pd.DataFrame) -> dict[str, float]:
    """RecBole's metric classes on the positions of ``ties="id"`` (score descending, item id
    ascending): RecBole's ``pos_index`` (is the j-th item relevant) and ``pos_len`` (R)."""
    from recbole.evaluator import metrics as rbm

    ordered = run.sort_values(["user", "score", "item"], ascending=[True, False, True])
    rel = set(zip(truth["user"], truth["item"], strict=True))
    users = np.unique(truth["user"])
    pos_index = np.zeros((len(users), K), dtype=bool)
    row_of = {u: r for r, u in enumerate(users)}
    rank = ordered.groupby("user").cumcount().to_numpy()
    for u, i, j in zip(ordered["user"], ordered["item"], rank, strict=True):
        pos_index[row_of[u], j] = (u, i) in rel
    pos_len = truth.groupby("user").size().reindex(users).to_numpy()
    config = {"topk": [K], "metric_decimal_place": 12}
    had_float = hasattr(np, "float")
    if not had_float:  # RecBole 1.2.1's NDCG and MAP still write np.float (numpy < 1.24)
        np.float = float  # type: ignore[attr-defined]
    try:
        out = {}
        for m, (_, _, cls) in PAIRS.items():
            metric = getattr(rbm, cls)(config)
            takes_len = len(inspect.signature(metric.metric_info).parameters) == 2
            per_user = (metric.metric_info(pos_index, pos_len) if takes_len
                        else metric.metric_info(pos_index))
            out[m] = float(per_user[:, K - 1].mean())
        return out
    finally:
        if not had_float:
            del np.float  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
