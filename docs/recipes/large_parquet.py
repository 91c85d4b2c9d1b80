"""Evaluate a run file too large for memory: a Parquet file grouped by user, read and
evaluated in blocks of whole users. Scaled down by default (5,000 users x 100 rows); pass
``--users 1000000`` for the 100M-row case."""

import argparse
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import receval as rv

parser = argparse.ArgumentParser()
parser.add_argument("--users", type=int, default=5000)
parser.add_argument("--block-rows", type=int, default=100_000)
args = parser.parse_args()
n_users, depth, n_items = args.users, 100, 50_000

# Write the run the way a batch scoring job does: chunks of users, each user's rows together.
path = Path(tempfile.mkdtemp()) / "run.parquet"
rng = np.random.default_rng(0)
truth_users, truth_items = [], []
with pq.ParquetWriter(path, pa.schema([("user", pa.int64()), ("item", pa.int64()),
                                       ("score", pa.float32())])) as writer:
    for start in range(0, n_users, 10_000):
        users = np.arange(start, min(start + 10_000, n_users))
        items = rng.integers(0, n_items, size=(len(users), depth))
        scores = np.sort(rng.random((len(users), depth), dtype=np.float32), axis=1)[:, ::-1]
        writer.write_table(pa.table({"user": np.repeat(users, depth), "item": items.ravel(),
                                     "score": scores.ravel()}))
        # truth: 10 items per user, three of them at random positions of the user's list
        hits = np.take_along_axis(items, rng.integers(0, depth, size=(len(users), 3)), axis=1)
        picked = np.concatenate([hits, rng.integers(0, n_items, size=(len(users), 7))], axis=1)
        truth_users.append(np.repeat(users, 10))
        truth_items.append(picked.ravel())
truth = {"user": np.concatenate(truth_users), "item": np.concatenate(truth_items)}
print(f"run: {n_users * depth:,} rows of {n_users:,} users in {path.name}")

metrics = ["ndcg@10", "recall@100", "map@100", "mrr"]
blocks = []
res = rv.evaluate_blocks(path, truth, metrics, block_rows=args.block_rows,
                         duplicates="first", progress=blocks.append)
print(f"evaluated in {len(blocks)} blocks of at most {args.block_rows:,} rows; "
      f"users evaluated: {res.counts['evaluated']:,}")
for key in metrics:
    print(f"{key:<11} {res.summary[key]:.4f}")

if n_users <= 100_000:  # small enough to check against one in-memory evaluation
    whole = rv.evaluate(pq.read_table(path), truth, metrics, duplicates="first")
    same = all(np.isclose(res.summary[k], whole.summary[k], rtol=0, atol=1e-12) for k in metrics)
    print("equal to the in-memory evaluation:", same)
