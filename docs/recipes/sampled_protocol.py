"""A common paper protocol: leave-one-out, rank the held-out item against 100 sampled
negatives, report HR@10 / nDCG@10. Compared here with the full ranking it stands in for, and
with the corrected estimators of Krichene & Rendle (KDD 2020)."""

import numpy as np

import receval as rv
from receval.baselines import EASE, interaction_matrix
from receval.datasets import synthetic_interactions
from receval.sampling import corrected_metric, sample_negatives, sampled_ranks

log = synthetic_interactions(1500, 800, seed=7)
split = rv.split.leave_one_out(log, pick="last")          # each user's latest interaction
items = np.sort(log["item"].unique())
X, users, _ = interaction_matrix(split.train, items=items)
Y, _, _ = interaction_matrix(split.test, users=users, items=items)
model = EASE(lam=300.0).fit(X)
test_rows, positives = Y.nonzero()                        # one held-out item per test user
print(f"{X.shape[1]} items, {len(test_rows)} test users, one held-out item each")

# Full ranking: every item the user has not trained on is a candidate.
full = rv.evaluate(model.recommend(np.arange(X.shape[0]), 10).items, Y,
                   ["hit_rate@10", "ndcg@10"])

# Sampled: 100 negatives per test user, never a known positive (train or test).
negatives = sample_negatives(test_rows, 100, n_items=X.shape[1], known=X + Y, seed=0)
ranks = sampled_ranks(lambda u, i: np.take_along_axis(model.score(u), i, axis=1),
                      test_rows, positives, negatives, ties="pessimistic")
n_candidates = int(round(float(np.mean(X.shape[1] - X[test_rows].getnnz(axis=1)))))

print(f"{'':<10}{'full ranking':>14}{'sampled':>10}{'corrected (LS)':>16}{'corrected (EM)':>16}")
for name, metric, key in [("HR@10", "hits", "hit_rate@10"), ("nDCG@10", "ndcg", "ndcg@10")]:
    est = {m: corrected_metric(ranks, metric, k=10, n_items=n_candidates, n_negatives=100,
                               method=m) for m in ("naive", "least_squares", "rank_distribution")}
    print(f"{name:<10}{full.summary[key]:>14.4f}{est['naive']:>10.4f}"
          f"{est['least_squares']:>16.4f}{est['rank_distribution']:>16.4f}")
