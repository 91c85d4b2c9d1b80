"""The same predictions, scored as each library scores them (Tamm, Damdinov & Vasilev, RecSys
2021, reproduced on receval's synthetic log): one column per metric, one row per preset."""

import numpy as np
import pandas as pd

import receval as rv
from receval.baselines import ItemKNN, interaction_matrix
from receval.datasets import synthetic_interactions, temporal_split

log = synthetic_interactions(1500, 800, seed=7)
split = temporal_split(log, test_share=0.2)
X, users, items = interaction_matrix(split.train)
Y, _, _ = interaction_matrix(split.test, users=users, items=items)
top = ItemKNN(neighbors=50).fit(X).recommend(np.arange(X.shape[0]), 20).items

families = ["map@20", "ndcg@20", "hit_rate@20", "mrr@20", "precision@20", "recall@20"]
print(f"{'library':16s}" + "".join(f"{m:>14s}" for m in families))
for name, preset in rv.compat.PRESETS.items():
    cells = []
    for m in families:
        family = rv.metric(m.split("@")[0]).name
        if preset.by_family(family) is None:
            cells.append(f"{'-':>14s}")
            continue
        value = rv.evaluate(top, Y, [m], compat=name)[m]
        cells.append(f"{value:14.4f}")
    print(f"{name:16s}" + "".join(cells))

# AUC variants: the same model's scores of each user's top 20 and of their held-out items;
# held-out ratings >= 4 are positives, lower ratings labelled negatives, and recommended items
# without a rating unlabelled
scores = ItemKNN(neighbors=50).fit(X).score(np.arange(X.shape[0]))
test = split.test[split.test.user.isin(users) & split.test.item.isin(items)]
rows = pd.Index(users).get_indexer(test.user)
cols = pd.Index(items).get_indexer(test.item)
truth = pd.DataFrame({"user": test.user, "item": test.item,
                      "relevance": (test.rating >= 4).astype(int)})
pairs = {(u, i) for u, i in zip(rows, cols, strict=True)}
pairs |= {(u, i) for u in range(top.shape[0]) for i in top[u] if i >= 0}
u_rows, i_cols = np.array(sorted(pairs)).T
run = pd.DataFrame({"user": users[u_rows], "item": items[i_cols],
                    "score": scores[u_rows, i_cols]})
print()
print(f"{'AUC variant':46s}{'receval key':36s}{'value':>8s}")
for label, name, preset in [
    ("per-user AUC (receval default)", "gauc", None),
    ("per-user AUC of the pairs in the top 20", "gauc@20", None),
    ("RecBole GAUC (weighted by positives)", "gauc", "recbole"),
    ("RePlay RocAuc@20", "rocauc@20", "replay"),
    ("per-user AUC over labelled pairs only", "gauc(unlabelled=skip)", None),
    ("RecBole AUC (every scored pair pooled)", "auc", "recbole"),
    ("Microsoft Recommenders auc (labelled pooled)", "auc", "ms_recommenders"),
]:
    res = rv.evaluate(run, truth, [name], compat=preset)
    key = res.info["compat"]["names"][name] if preset else res.metrics[0]
    print(f"{label:46s}{key:36s}{res[name]:8.4f}")

# why do two of them differ?
d = rv.diff(top, Y, ["ndcg@20", "map@20"], "trec_eval", "rectools")
print()
print(d.to_text())
