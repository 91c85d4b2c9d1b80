"""Cross-check receval's RecTools / RePlay / rbo metrics against the libraries themselves.

The libraries pin numpy < 2 (RecTools 0.19, rbo 0.1.3), so they live in a separate virtual
environment, not in receval's test extra::

    python3 -m venv /tmp/libs && /tmp/libs/bin/pip install rectools replay-rec rbo
    python scripts/crosscheck_recsys_libs.py --libs-python /tmp/libs/bin/python

Random runs are written to a temporary folder, the libraries compute their per-user values
there, and receval computes the same metrics here. Printed: the largest difference per metric
and the users whose conventions differ by design (unexpectedness of a user without a baseline
list: RePlay 0, receval 1; see docs/beyond_accuracy.md).
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import receval as rv
from receval.beyond import unrepeated_reco

LIBS = r'''
import sys, pandas as pd
from rectools.metrics import Serendipity, SufficientReco, UnrepeatedReco
from replay.metrics import Unexpectedness, Novelty, CategoricalDiversity, PerUser
from rbo import RankingSimilarity
d = sys.argv[1]
run = pd.read_csv(f"{d}/run.csv"); base = pd.read_csv(f"{d}/base.csv")
train = pd.read_csv(f"{d}/train.csv"); truth = pd.read_csv(f"{d}/truth.csv")
dup = pd.read_csv(f"{d}/dup.csv"); cat = pd.read_csv(f"{d}/cat.csv")
n_items = int(sys.argv[2]); ks = [1, 3, 5, 10]
def rt(df): return df.rename(columns={"user": "user_id", "item": "item_id"})
def rp(df): return df.rename(columns={"user": "query_id", "item": "item_id", "score": "rating"})
out = {}
for k in ks:
    out[f"rank_serendipity@{k}"] = Serendipity(k=k).calc_per_user(
        rt(run), rt(truth), rt(train), list(range(n_items)))
    out[f"sufficient_reco@{k}"] = SufficientReco(k=k).calc_per_user(rt(run)).astype(float)
    out[f"sufficient_reco@{k}(deep=true)"] = SufficientReco(k=k, deep=True).calc_per_user(
        rt(run)).astype(float)
    out[f"unrepeated@{k}"] = UnrepeatedReco(k=k).calc_per_user(rt(dup)).astype(float)
    out[f"unrepeated@{k}(deep)"] = UnrepeatedReco(k=k, deep=True).calc_per_user(rt(dup)).astype(float)
scored = rp(run.assign(score=-run["rank"]).drop(columns="rank"))
for name, vals in Unexpectedness(ks, mode=PerUser())(scored, rp(base)).items():
    out["unexpectedness@" + name.split("@")[1]] = pd.Series(vals)
for name, vals in Novelty(ks, mode=PerUser())(scored, rp(train)).items():
    out["unseen_share@" + name.split("@")[1]] = pd.Series(vals)
crec = scored.merge(rp(cat), on="item_id")[["query_id", "category_id", "rating"]]
for name, vals in CategoricalDiversity(ks, mode=PerUser())(crec).items():
    out["category_diversity@" + name.split("@")[1]] = pd.Series(vals)
lists = {u: g.sort_values("rank")["item"].tolist() for u, g in run.groupby("user")}
blists = {u: g.sort_values("score", ascending=False)["item"].tolist() for u, g in base.groupby("user")}
for u in lists:
    if lists[u] and blists.get(u):
        out.setdefault("rbo", {})[u] = RankingSimilarity(lists[u], blists[u]).rbo_ext(p=0.9)
        out.setdefault("rbo(form=sum)", {})[u] = RankingSimilarity(lists[u], blists[u]).rbo(p=0.9)
pd.DataFrame({k: pd.Series(v) for k, v in out.items()}).to_csv(f"{d}/libs.csv")
'''


def _data(seed: int, n_users: int = 300, n_items: int = 40):
    rng = np.random.default_rng(seed)
    rows, base = [], []
    for u in range(n_users):
        items = rng.choice(n_items, rng.integers(1, 12), replace=False)
        rows += [(u, int(i), r) for r, i in enumerate(items, 1)]
        if rng.random() < 0.9:
            b = rng.choice(n_items, rng.integers(1, 10), replace=False)
            base += [(u, int(i), float(s)) for i, s in zip(b, rng.permutation(1000)[:len(b)] + 1.0,
                                                           strict=False)]
    run = pd.DataFrame(rows, columns=["user", "item", "rank"])
    base = pd.DataFrame(base, columns=["user", "item", "score"])
    truth = pd.DataFrame([(u, int(i)) for u in range(n_users)
                          for i in rng.choice(n_items, 4, replace=False)], columns=["user", "item"])
    train = pd.DataFrame([(u, int(i)) for u in range(n_users + 50)
                          for i in rng.choice(n_items - 5, 6, replace=False)],
                         columns=["user", "item"])
    dup = run.assign(item=rng.integers(0, 8, len(run)))
    cat = pd.DataFrame({"item": range(n_items), "category_id": rng.integers(0, 6, n_items)})
    return run, base, truth, train, dup, cat


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--libs-python", required=True, help="python of an env with rectools, "
                    "replay-rec and rbo installed")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    n_items = 40
    run, base, truth, train, dup, cat = _data(args.seed, n_items=n_items)
    with tempfile.TemporaryDirectory() as d:
        for name, df in (("run", run), ("base", base), ("truth", truth), ("train", train),
                         ("dup", dup), ("cat", cat)):
            df.to_csv(Path(d) / f"{name}.csv", index=False)
        subprocess.run([args.libs_python, "-c", LIBS, d, str(n_items)], check=True)
        ref = pd.read_csv(Path(d) / "libs.csv", index_col=0)
    ks = [1, 3, 5, 10]
    keys = [f"{m}@{k}" for k in ks for m in ("rank_serendipity", "sufficient_reco",
                                               "unexpectedness", "unseen_share",
                                               "category_diversity")]
    keys += [f"sufficient_reco@{k}(deep=true)" for k in ks]
    cats = {int(i): [int(c)] for i, c in zip(cat["item"], cat["category_id"], strict=True)}
    res = rv.evaluate(run, truth, keys + ["rbo(p=0.9)", "rbo(form=sum,p=0.9)"], users="run",
                      train=train, catalog=list(range(n_items)), baseline_run=base,
                      item_categories=cats).per_user
    for k in ks:
        res[f"unrepeated@{k}"] = unrepeated_reco(dup, k)
        res[f"unrepeated@{k}(deep)"] = unrepeated_reco(dup, k, deep=True)
    no_base = set(run["user"]) - set(base["user"])
    for col in ref.columns:
        mine = res[col].reindex(ref.index)
        theirs = ref[col]
        both = mine.notna() & theirs.notna()
        diff = (mine[both] - theirs[both]).abs()
        differing = set(diff.index[diff > 1e-12])
        by_design = differing & no_base if col.startswith("unexpectedness") else set()
        print(f"{col:32s} users {int(both.sum()):4d}  max |diff| "
              f"{float(diff[~diff.index.isin(list(by_design))].max()):.2e}  "
              f"differ by design {len(by_design)}  other differences {len(differing - by_design)}")


if __name__ == "__main__":
    main()
