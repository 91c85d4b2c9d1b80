"""The same predictions, scored as each library scores them (Tamm, Damdinov & Vasilev, RecSys
2021, reproduced on receval's synthetic log): one column per metric, one row per preset."""

import numpy as np

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

# why do two of them differ?
d = rv.diff(top, Y, ["ndcg@20", "map@20"], "trec_eval", "rectools")
print()
print(d.to_text())
