"""Evaluate a model that outputs a users x items score matrix (EASE here; implicit ALS gives
``user_factors @ item_factors.T``, the same shape), with each user's training items masked."""

import numpy as np

import receval as rv
from receval.baselines import interaction_matrix
from receval.datasets import synthetic_interactions, temporal_split

# 1. Data: a seeded synthetic implicit-feedback log, split by time.
log = synthetic_interactions(1500, 800, seed=7)
split = temporal_split(log, test_share=0.2)
X, users, items = interaction_matrix(split.train)                 # users x items, 0/1
Y, _, _ = interaction_matrix(split.test, users=users, items=items)  # held-out, same indexes
print(f"train {X.shape[0]} users x {X.shape[1]} items, {X.nnz} interactions; "
      f"test {Y.nnz} interactions of {int((Y.getnnz(axis=1) > 0).sum())} users")

# 2. Your model's scores. EASE (Steck 2019): B = I - P / diag(P), P = (X'X + lambda I)^-1.
G = (X.T @ X).toarray() + 300.0 * np.eye(X.shape[1])
P = np.linalg.inv(G)
B = -P / np.diag(P)
np.fill_diagonal(B, 0.0)
scores = X @ B                                                     # dense users x items

# 3. Full ranking: the top 100 per user, training items masked (never recommended).
top = rv.topk_from_scores(scores, 100, exclude=X)
assert not X[np.arange(X.shape[0])[:, None], top.items].toarray().any()

# 4. Evaluate: the item-index matrix against the sparse truth, one row per user.
metrics = ["ndcg@10", "recall@20", "map@100", "mrr", "precision@10"]
ease = rv.evaluate(top.items, Y, metrics, name="ease")

# A popularity baseline through the same path, for scale.
pop_scores = np.broadcast_to(np.asarray(X.sum(axis=0)).ravel(), X.shape)
pop = rv.evaluate(rv.topk_from_scores(pop_scores, 100, exclude=X).items, Y, metrics, name="pop")

print(f"evaluated {ease.counts['evaluated']} users, "
      f"skipped (no held-out item) {ease.counts['skipped_no_relevant']}")
for key in metrics:
    print(f"{key:<14} ease {ease.summary[key]:.4f}   pop {pop.summary[key]:.4f}")
print("no training item appears in any list (checked by the assert above)")
