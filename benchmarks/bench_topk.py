"""Benchmark: full-ranking top-k extraction with training items masked.

Scores come from a factor model (``users @ items.T`` in float32), produced block by block by a
callable, so the full users x items matrix never exists. Reports wall and CPU time of the whole run
and of the scoring function alone (the rest is masking + top-k), the cost of a naive full sort
for comparison, and peak memory (tracemalloc peak of Python/numpy allocations, and the process peak RSS).

    python benchmarks/bench_topk.py                      # 100k users x 50k items, k=100
    python benchmarks/bench_topk.py --users 10000        # quicker
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp

from receval.topk import BLOCK_ELEMENTS, topk_from_scores


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--items", type=int, default=50_000)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--train-per-user", type=int, default=20)
    ap.add_argument("--block-users", type=int, default=None)
    ap.add_argument("--threads", type=int, default=1, help="n_threads of topk_from_scores")
    ap.add_argument("--copy", action="store_true",
                    help="copy each score block before masking (default: mask the fresh matmul "
                         "output in place, copy=False)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    rng = np.random.default_rng(args.seed)
    n_u, n_i = args.users, args.items
    user_f = rng.standard_normal((n_u, args.dim), dtype=np.float32)
    item_f = rng.standard_normal((n_i, args.dim), dtype=np.float32)
    item_t = np.ascontiguousarray(item_f.T)
    rows = np.repeat(np.arange(n_u), args.train_per_user)
    cols = rng.integers(0, n_i, rows.size)
    train = sp.csr_matrix((np.ones(rows.size, np.float32), (rows, cols)), shape=(n_u, n_i))
    train.sum_duplicates()

    spent = [0.0, 0.0]  # wall and CPU seconds inside the scoring function

    def score_fn(u: np.ndarray) -> np.ndarray:
        w, c = time.perf_counter(), time.process_time()
        out = user_f[u] @ item_t
        spent[0] += time.perf_counter() - w
        spent[1] += time.process_time() - c
        return out

    block = args.block_users or max(1, BLOCK_ELEMENTS // n_i)
    print(f"users={n_u} items={n_i} k={args.k} dim={args.dim} "
          f"train nnz={train.nnz} block_users={block} threads={args.threads} copy={args.copy} "
          "dtype=float32")

    tracemalloc.start()
    w0, c0 = time.perf_counter(), time.process_time()
    top = topk_from_scores(score_fn, args.k, exclude=train, n_users=n_u, block_users=block,
                           n_threads=args.threads, copy=args.copy)
    t_total, c_total = time.perf_counter() - w0, time.process_time() - c0
    spent_total = list(spent)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"total (scoring + masking + top-k): wall {t_total:8.2f} s, CPU {c_total:8.2f} s")
    print(f"  inside score_fn (matmul):        wall {spent[0]:8.2f} s, CPU {spent[1]:8.2f} s")
    print(f"  masking + top-k:                 wall {t_total - spent[0]:8.2f} s, "
          f"CPU {c_total - spent[1]:8.2f} s "
          f"({(t_total - spent[0]) / n_u * 1e3:.3f} ms/user, "
          f"{(t_total - spent[0]) / (n_u * n_i) * 1e9:.2f} ns/score)")
    print(f"tracemalloc peak during the run:   {peak / 2**20:8.1f} MiB "
          f"(output alone {(top.items.nbytes + top.scores.nbytes) / 2**20:.1f} MiB; a dense "
          f"float32 score matrix would be {n_u * n_i * 4 / 2**30:.1f} GiB)")

    # correctness spot check on a few users against a full sort
    sample = rng.choice(n_u, 50, replace=False)
    s = score_fn(sample).astype(np.float64)
    ex = train[sample]
    s[np.repeat(np.arange(50), np.diff(ex.indptr)), ex.indices] = -np.inf
    ref = np.lexsort((np.broadcast_to(np.arange(n_i), s.shape), -s), axis=-1)[:, : args.k]
    assert (ref == top.items[sample]).all(), "top-k differs from the full sort"

    # naive baseline: full argsort of each block (masking not even included)
    n_naive = min(n_u, 8 * block)
    spent[:] = [0.0, 0.0]
    w0, c0 = time.perf_counter(), time.process_time()
    for a in range(0, n_naive, block):
        b = score_fn(np.arange(a, min(n_naive, a + block)))
        np.argsort(-b, axis=1)[:, : args.k]
    scale = n_u / n_naive
    w_naive = (time.perf_counter() - w0 - spent[0]) * scale
    c_naive = (time.process_time() - c0 - spent[1]) * scale
    print(f"naive full argsort instead of top-k (extrapolated from {n_naive} users): "
          f"wall {w_naive:8.2f} s, CPU {c_naive:8.2f} s -> "
          f"{c_naive / (c_total - spent_total[1]):.1f}x the CPU time of masking + top-k")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process peak RSS (includes factors, train matrix, output): {rss:8.1f} MiB")


if __name__ == "__main__":
    main()
