"""REO, RSP, PopREO, PopRSP, ItemMAD and bias disparity against WarpRec's own metric classes.

WarpRec (``pip install warprec``) needs Python >= 3.12 and torch; receval's compiled kernels here
are built for the main environment's Python, so the comparison runs in two processes: this
script (with receval) writes the data, runs itself under ``WARPREC_PYTHON`` (default
/tmp/warprec-env/bin/python, a virtual environment with warprec and a CPU torch) with
``--warprec``, which feeds the data to WarpRec's classes (``warprec/evaluation/metrics/
fairness/reo.py``, ``rsp.py``, ``itemmadranking.py``, ``itemmadrating.py``,
``biasdisparitybr.py``, ``biasdisparitybs.py``, ``biasdisparitybd.py``, ``bias/pop_reo.py``,
``bias/pop_rsp.py``) and prints their values as JSON, and compares them with
``rv.evaluate(..., item_groups=..., train=...)``.

The data (seeded): a full score matrix (distinct scores) with each user's training items at
-inf, as WarpRec's full evaluation masks them (its RSP counts the finite scores as a group's
candidates: receval's ``train_items=drop``); graded relevance 1..3 of items outside training;
item clusters 1..3 covering every item (WarpRec's cluster 0 holds the items without one);
training popularities all distinct and positive (WarpRec's head / tail split sorts with torch,
ties in any order; items without training rows are its long tail, receval's no group).
Keys use WarpRec's conventions: ``empty=drop`` (a group without candidates is left out),
``head_rule=warprec`` (the head ends where the cumulative popularity exceeds the share),
ItemMADranking ``gain=warprec`` (2^(r + 1) - 1) over every user (``users=all``),
ItemMADrating ``count=hits`` (an item's mean over the lists where it is relevant).

    python benchmarks/peers/check_warprec.py > benchmarks/peers/check_warprec.out

WarpRec accumulates in float32; a line passes when ``|diff| <= 1e-6``. The exit status is 1
when a line fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

TOL = 1e-6
CUTS = (1, 5, 10)
SEEDS = (11, 12, 13)
N_USERS, N_ITEMS = 50, 40


def make_data(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    # item j is trained on by users 0 .. pop_j - 1: distinct popularities 1 .. N_USERS
    pop = rng.choice(np.arange(1, N_USERS + 1), N_ITEMS, replace=False)
    train = np.zeros((N_USERS, N_ITEMS), dtype=np.int8)
    for j, p in enumerate(pop):
        train[rng.choice(N_USERS, int(p), replace=False), j] = 1
    scores = rng.permutation(N_USERS * N_ITEMS).reshape(N_USERS, N_ITEMS).astype(np.float64)
    scores = scores / (N_USERS * N_ITEMS)
    ground = np.zeros((N_USERS, N_ITEMS))
    for u in range(N_USERS):
        free = np.flatnonzero(train[u] == 0)
        if len(free) == 0:
            continue
        pick = rng.choice(free, min(len(free), int(rng.integers(1, 6))), replace=False)
        ground[u, pick] = rng.integers(1, 4, len(pick))
    clusters = rng.integers(1, 4, N_ITEMS)
    user_clusters = rng.integers(1, 4, N_USERS)
    return {"user_clusters": user_clusters.tolist(), "train": train.tolist(), "scores": scores.tolist(), "ground": ground.tolist(),
            "clusters": clusters.tolist(), "pop": pop.tolist()}


def warprec_side(path: str) -> None:
    import scipy.sparse as sp
    import torch
    from warprec.evaluation.metrics.bias.pop_reo import PopREO
    from warprec.evaluation.metrics.bias.pop_rsp import PopRSP
    from warprec.evaluation.metrics.fairness.biasdisparitybd import BiasDisparityBD
    from warprec.evaluation.metrics.fairness.biasdisparitybr import BiasDisparityBR
    from warprec.evaluation.metrics.fairness.biasdisparitybs import BiasDisparityBS
    from warprec.evaluation.metrics.fairness.itemmadranking import ItemMADRanking
    from warprec.evaluation.metrics.fairness.itemmadrating import ItemMADRating
    from warprec.evaluation.metrics.fairness.reo import REO
    from warprec.evaluation.metrics.fairness.rsp import RSP
    from warprec.evaluation.metrics.fairness.usermadranking import UserMADRanking

    with open(path) as fh:
        datasets = json.load(fh)
    from importlib.metadata import version

    out = {"version": version("warprec"), "torch": torch.__version__,
           "values": []}
    for d in datasets:
        train = np.asarray(d["train"])
        preds = torch.tensor(d["scores"], dtype=torch.float32)
        preds[torch.tensor(train, dtype=torch.bool)] = -torch.inf
        ground = torch.tensor(d["ground"], dtype=torch.float32)
        icl = torch.tensor(d["clusters"], dtype=torch.long)
        ucl = torch.ones(N_USERS, dtype=torch.long)
        interactions = torch.tensor(train.sum(axis=0), dtype=torch.float32)
        users = torch.arange(N_USERS)
        csr = sp.csr_matrix(train)
        row = {}
        for k in CUTS:
            metrics = {
                "REO": REO(k, item_cluster=icl),
                "RSP": RSP(k, num_users=N_USERS, item_interactions=interactions,
                           item_cluster=icl),
                "PopREO": PopREO(k, item_interactions=interactions),
                "PopRSP": PopRSP(k, item_interactions=interactions),
                "ItemMADRanking": ItemMADRanking(k, num_items=N_ITEMS, item_cluster=icl),
                "ItemMADRating": ItemMADRating(k, num_items=N_ITEMS, item_cluster=icl),
                "BiasDisparityBR": BiasDisparityBR(k, num_items=N_ITEMS, user_cluster=ucl,
                                                   item_cluster=icl),
                "BiasDisparityBS": BiasDisparityBS(num_items=N_ITEMS, user_cluster=ucl,
                                                   item_cluster=icl, train_matrix=csr),
                "BiasDisparityBD": BiasDisparityBD(k, num_items=N_ITEMS, user_cluster=ucl,
                                                   item_cluster=icl, train_matrix=csr),
            }
            binary = (ground > 0).float()
            ucl3 = torch.tensor(d["user_clusters"], dtype=torch.long)
            metrics["UserMADRanking"] = UserMADRanking(k, num_users=N_USERS, user_cluster=ucl3)
            for name, m in metrics.items():
                truth = binary if name == "UserMADRanking" else ground
                keys = ("binary_relevance", "discounted_relevance", "valid_users",
                        f"top_{k}_indices", f"top_{k}_values", f"top_{k}_binary_relevance",
                        f"top_{k}_discounted_relevance")
                blocks = {key: m.block({"ground": truth}, key, preds) for key in keys}
                m.update(preds, user_indices=users, ground=truth, **blocks)
                for key, v in m.compute().items():
                    row[f"{key}@{k}"] = float(v)
        out["values"].append(row)
    print(json.dumps(out))


def receval_side(d: dict) -> dict[str, float]:
    import pandas as pd

    import receval as rv
    import receval.beyond.groupfair  # noqa: F401 - registers the families
    from receval.results.fairness import user_mad

    train = np.asarray(d["train"])
    scores = np.asarray(d["scores"])
    ground = np.asarray(d["ground"])
    run = pd.DataFrame([(u, i, scores[u, i]) for u in range(N_USERS) for i in range(N_ITEMS)
                        if not train[u, i]], columns=["user", "item", "score"])
    truth = pd.DataFrame([(u, i, int(ground[u, i])) for u, i in zip(*np.nonzero(ground),
                                                                     strict=True)],
                         columns=["user", "item", "rel"])
    tr = pd.DataFrame(list(zip(*np.nonzero(train), strict=True)), columns=["user", "item"])
    groups = {i: str(c) for i, c in enumerate(d["clusters"])}
    keys = {}
    for k in CUTS:
        keys.update({
            f"REO@{k}": f"reo@{k}(empty=drop)",
            f"RSP@{k}": f"rsp@{k}(empty=drop)",
            f"PopREO@{k}": f"pop_reo@{k}(head_rule=warprec)",
            f"PopRSP@{k}": f"pop_rsp@{k}(head_rule=warprec)",
            f"ItemMADRanking@{k}": f"item_mad@{k}(gain=warprec,users=all)",
            f"ItemMADRating@{k}": f"item_mad@{k}(variant=rating,count=hits,users=all)",
        })
        for c in ("1", "2", "3"):
            for m in ("BR", "BS", "BD"):
                keys[f"BiasDisparity{m}_UC1_IC{c}@{k}"] = \
                    f"bias_disparity@{k}(group={c},measure={m.lower()})"
    res = rv.evaluate(run, truth, sorted(set(keys.values())), item_groups=groups, train=tr)
    out = {theirs: (ours, float(res[ours])) for theirs, ours in keys.items()}
    # UserMADRanking: WarpRec's nDCG (gain 2^(r + 1) - 1) on binary relevance is receval's
    # ndcg; user groups through groups=, the measure from the result
    binary = truth.assign(rel=1)
    ugroups = {u: str(c) for u, c in enumerate(d["user_clusters"])}
    for k in CUTS:
        per = rv.evaluate(run, binary, [f"ndcg@{k}"], groups=ugroups)
        out[f"UserMADRanking@{k}"] = (f"user_mad(ndcg@{k}) of groups=",
                                      user_mad(per, f"ndcg@{k}"))
    return out


def main() -> int:
    if "--warprec" in sys.argv:
        warprec_side(sys.argv[-1])
        return 0
    import receval as rv

    datasets = [make_data(s) for s in SEEDS]
    python = os.environ.get("WARPREC_PYTHON", "/tmp/warprec-env/bin/python")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "data.json")
        with open(path, "w") as fh:
            json.dump(datasets, fh)
        proc = subprocess.run([python, os.path.abspath(__file__), "--warprec", path],
                              capture_output=True, text=True, cwd=tmp)
    if proc.returncode:
        print(f"WarpRec did not run under {python}:\n{proc.stderr[-2000:]}")
        return 1
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"WarpRec {theirs['version']} (torch {theirs['torch']}) under {python}; "
          f"receval {rv.__version__}; seeds {list(SEEDS)}")
    print(f"{'WarpRec metric':34} {'receval key':52} {'value (seed ' + str(SEEDS[-1]) + ')':>18} "
          f"{'max |diff|':>10}  status")
    worst: dict[str, tuple[str, float, bool]] = {}
    last: dict[str, float] = {}
    for d, row in zip(datasets, theirs["values"], strict=True):
        ours = receval_side(d)
        for name, (key, value) in ours.items():
            w = row.get(name, float("nan"))
            both_nan = np.isnan(w) and np.isnan(value)
            diff = 0.0 if both_nan else abs(w - value)
            ok = both_nan or diff <= TOL
            last[name] = value
            prev = worst.get(name, (key, 0.0, True))
            worst[name] = (key, max(prev[1], diff) if not np.isnan(diff) else float("inf"),
                           prev[2] and ok)
    failed = 0
    for name, (key, diff, ok) in worst.items():
        failed += not ok
        print(f"{name:34} {key:52} {last[name]:18.12g} {diff:10.2e}  "
              f"{'PASS' if ok else 'FAIL'}")
    print(f"{len(worst) - failed} PASS, {failed} FAIL")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
