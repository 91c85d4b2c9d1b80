"""Evaluate every epoch of a training loop, batch by batch, as RecBole's full-sort evaluation
does: the model scores every item for a batch of validation users, their training items are
masked, the top k are ranked (on the scores' device, for torch tensors), and an accumulator
keeps the exact metric states; ``compute()`` is ``rv.evaluate`` on the whole epoch."""

import numpy as np

import receval as rv
from receval.baselines import interaction_matrix
from receval.datasets import synthetic_interactions, temporal_split

# 1. Data: a seeded implicit-feedback log split by time; held-out items as the truth.
log = synthetic_interactions(1200, 600, seed=11)
split = temporal_split(log, test_share=0.2)
X, users, items = interaction_matrix(split.train)                 # users x items, 0/1
Y, _, _ = interaction_matrix(split.test, users=users, items=items)  # same row / column order
print(f"{X.shape[0]} users x {X.shape[1]} items, {X.nnz} training interactions")

# 2. The truth is packed once, for every epoch (rows of Y are the user indexes).
acc = rv.Accumulator(Y, ["ndcg@10", "recall@20", "mrr"])

# 3. A model trained epoch by epoch: alternating least squares on the 0/1 matrix.
rng = np.random.default_rng(0)
dim, reg = 32, 5.0
U = rng.normal(scale=0.1, size=(X.shape[0], dim))
V = rng.normal(scale=0.1, size=(X.shape[1], dim))
Xd = X.toarray()
for epoch in range(1, 4):
    U = Xd @ V @ np.linalg.inv(V.T @ V + reg * np.eye(dim))
    V = Xd.T @ U @ np.linalg.inv(U.T @ U + reg * np.eye(dim))

    # 4. Validation, 256 users at a time: scores -> masked top 20 -> the accumulator.
    acc.reset()
    for lo in range(0, X.shape[0], 256):
        rows = np.arange(lo, min(lo + 256, X.shape[0]))
        acc.update_scores(rows, U[rows] @ V.T, 20, exclude=X[rows])
    res = acc.compute()
    print(f"epoch {epoch}: " + "  ".join(f"{k} {v:.4f}" for k, v in res.summary.items())
          + f"  ({res.counts['evaluated']} users)")

# 5. The same numbers as one call on the whole run.
whole = rv.evaluate(rv.topk_from_scores(U @ V.T, 20, exclude=X).items, Y,
                    ["ndcg@10", "recall@20", "mrr"])
assert whole.summary == res.summary
print("equal to rv.evaluate on the whole run:", whole.summary == res.summary)
