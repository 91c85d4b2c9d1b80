"""Benchmark of the beyond-accuracy metrics: 1M users x top-20, 64-dimensional item embeddings.

Usage::

    python benchmarks/bench_beyond.py                      # 1M users, k=20, d=64, 100k items
    python benchmarks/bench_beyond.py --users 100000 --pairs-users 100000

Prints, per step, the wall time and the peak memory allocated during that step (tracemalloc,
which numpy reports its buffers to), and the process's peak RSS at the end.
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp


def step(name: str, fn):
    tracemalloc.start()
    tracemalloc.reset_peak()
    t0 = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"{name:<52} {dt:9.2f} s   peak {peak / 2**20:9.1f} MiB", flush=True)
    return out


def _dedupe_rows(lists: np.ndarray, n_items: int, rng: np.random.Generator) -> np.ndarray:
    """Replace repeated items inside a row by uniform draws until every row is duplicate-free."""
    while True:
        order = np.argsort(lists, axis=1, kind="stable")
        s = np.take_along_axis(lists, order, axis=1)
        dup = s[:, 1:] == s[:, :-1]
        if not dup.any():
            return lists
        rows, cols = np.nonzero(dup)
        lists[rows, order[rows, cols + 1]] = rng.integers(0, n_items, len(rows))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--k", type=int, default=20)
    ap.add_argument("--dims", type=int, default=64)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--pairs-users", type=int, default=200_000,
                    help="users for the explicit pairwise route (k(k-1)/2 pairs per list)")
    ap.add_argument("--evaluate-users", type=int, default=1_000_000,
                    help="users for the end-to-end rv.evaluate call (0 = skip)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import receval as rv
    import receval.beyond.registered  # noqa: F401
    from receval.beyond import (
        ExposureState,
        PersonalizationState,
        entropy,
        gini,
        intra_list_diversity,
        novelty,
        similarity_novelty,
    )
    from receval.beyond._lists import as_csr

    rng = np.random.default_rng(args.seed)
    # Zipf-like popularity so that exposure is skewed as in real recommenders
    weights = 1.0 / np.arange(1, args.items + 1) ** 0.8
    weights /= weights.sum()
    lists = rng.choice(args.items, size=(args.users, args.k), p=weights).astype(np.int64)
    lists = _dedupe_rows(lists, args.items, rng)
    feats = rng.normal(size=(args.items, args.dims))
    popularity = rng.poisson(weights * 5e7).astype(np.int64)
    print(f"users={args.users:,} k={args.k} dims={args.dims} items={args.items:,}")
    csr = as_csr(lists)

    ild = step("ILD (cosine, exact sum identity)",
               lambda: intra_list_diversity(csr, feats))
    n = min(args.pairs_users, args.users)
    sub = as_csr(lists[:n])
    ild_pairs = step(f"ILD (cosine, explicit pairs, {n:,} users)",
                     lambda: intra_list_diversity(sub, feats, method="pairs"))
    print(f"{'':<52} max |auto - pairs| = {np.nanmax(np.abs(ild[:n] - ild_pairs)):.2e}")
    step(f"ILD (jaccard on sign bits, pairs, {n:,} users)",
         lambda: intra_list_diversity(sub, feats > 0, sim="jaccard"))
    step("similarity novelty per item (cosine)",
         lambda: similarity_novelty(csr, feats, per_item=True))
    state = step("exposure state (coverage / gini / entropy)",
                 lambda: ExposureState.from_lists(csr, n_items=args.items))
    print(f"{'':<52} coverage={np.mean(state.counts > 0):.4f} gini={gini(state.counts):.4f} "
          f"entropy={entropy(state.counts):.4f}")
    pers = step("personalization (exact, item counts)",
                lambda: PersonalizationState.from_lists(csr).value())
    print(f"{'':<52} personalization={pers:.6f}")
    step("popularity novelty", lambda: novelty(csr, popularity, popularity.sum()))

    m = min(args.evaluate_users, args.users)
    if m:
        truth = sp.csr_matrix((np.ones(m), (np.arange(m), rng.integers(0, args.items, m))),
                              shape=(m, args.items))
        keys = [f"coverage@{args.k}", f"gini@{args.k}", f"entropy@{args.k}",
                f"ild@{args.k}", f"personalization@{args.k}", f"ndcg@{args.k}"]
        res = step(f"rv.evaluate({len(keys)} metrics incl. ndcg, {m:,} users)",
                   lambda: rv.evaluate(lists[:m], truth, keys, item_features=feats))
        print(f"{'':<52} " + ", ".join(f"{k}={v:.4f}" for k, v in res.summary.items()))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"peak RSS of the process: {rss:.2f} GiB")


if __name__ == "__main__":
    main()
