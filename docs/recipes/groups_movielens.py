"""Results per user group on MovieLens ratings: cold vs warm users and light / medium / heavy
users, each group's means with confidence intervals, the gap between groups, and the HTML
report.

The ratings file is written here in the MovieLens 100k layout (``u.data``, 943 users, 1682
movies) from a seeded synthetic log, so the recipe runs offline in seconds; with the real data,
point ``load_movielens`` at your unpacked ``ml-100k/`` folder and delete step 1."""

import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import receval as rv
from receval.baselines import MostPopular, interaction_matrix
from receval.datasets import load_movielens, synthetic_interactions

# 1. A ratings file in the ml-100k layout: "user<TAB>item<TAB>rating<TAB>timestamp", ids from 1.
root = Path(tempfile.mkdtemp()) / "ml-100k"
root.mkdir()
log = synthetic_interactions(943, 1682, seed=7)
log[["user", "item"]] += 1
log[["user", "item", "rating", "timestamp"]].to_csv(root / "u.data", sep="\t", header=False,
                                                    index=False)

# 2. Ratings -> a temporal split; the last 20% of the timeline is held out, ratings >= 4 are
#    relevant. 120 users are new: their earlier ratings are dropped, so they have no history.
ratings = load_movielens(root)
cut = ratings["timestamp"].quantile(0.8)
rng = np.random.default_rng(0)
new_users = rng.choice(ratings["user"].unique(), 120, replace=False)
train = ratings[(ratings["timestamp"] < cut) & ~ratings["user"].isin(new_users)]
truth = ratings[(ratings["timestamp"] >= cut) & (ratings["rating"] >= 4)]
print(f"{ratings['user'].nunique()} users, {len(train)} training ratings, "
      f"{truth['user'].nunique()} users with held-out relevant ratings")

# 3. A popularity baseline: the 20 most rated training movies the user has not rated yet
#    (the new users, with an empty history, get the plain top 20).
X, users, items = interaction_matrix(train, users=np.sort(ratings["user"].unique()))
top = MostPopular().fit(X).recommend(np.arange(len(users)), 20)
run = pd.DataFrame({"user": np.repeat(users.to_numpy(), 20),
                    "item": items.to_numpy()[top.items.ravel()],
                    "score": top.scores.ravel()})

# 4. Cold (no training rating) vs warm users: each group's row is that group evaluated alone.
metrics = ["ndcg@10", "recall@20", "coverage@20"]
cold_warm = rv.groups.cold_warm(train, users=truth)
by_history = rv.evaluate(run, truth, metrics, groups=cold_warm)
pd.set_option("display.width", 120)
print(by_history.by_group[["group", "metric", "mean", "ci_low", "ci_high", "users"]]
      .round(4).to_string(index=False))
print("groups:", by_history.info["groups"]["sizes"], "| without a group:",
      by_history.info["groups"]["ungrouped"])

# 5. Activity terciles of the training rating counts (cold users apart), the gap between the
#    best and the worst group with a bootstrap interval that resamples users within each group,
#    and the share of each group's users who get nothing.
activity = rv.groups.activity(train, users=truth, n_groups=3)
by_activity = rv.evaluate(run, truth, metrics, groups=activity)
labels = by_activity.info["groups"]["labels"]
means = by_activity.by_group.pivot(index="group", columns="metric", values="mean")
print(means.loc[labels, metrics].round(4).to_string())
for how in ("max-min", "ratio"):
    g = by_activity.gap("recall@20", how=how, n_resamples=1000, rng=0)
    print(f"recall@20 gap ({how}): {g['value']:.4f} "
          f"[{g['ci_low']:.4f}, {g['ci_high']:.4f}], worst {g['worst']}, best {g['best']}")
d = by_activity.distribution("recall@20")
print("recall@20 share of users at 0:",
      {k: round(d["by_group"][k]["share_zero"], 3) for k in labels})

# 6. The HTML report of the evaluation.
out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp()) / "groups.html"
rv.report(by_activity, format="html", path=str(out))
print("report written:", out.name, "| self-contained:", "<script src=" not in out.read_text())
