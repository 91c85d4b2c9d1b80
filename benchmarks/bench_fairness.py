"""Cost of the exposure, provider-fairness and calibration metrics over the six standard ones.

``rv.evaluate`` with the six ranking metrics alone, and with ``exposure_share``,
``exposure_gini``, ``awrf`` and ``miscalibration`` added (item groups, genres and a training
log given), interleaved rounds after ``--warmup`` full-size rounds of each (the first
evaluation at full size also pays for the process's first large allocations); prints the
medians of the wall-clock time and of the process's CPU time (user + system: less disturbed by
other processes on a shared machine) and their ratios (target: at most 1.5x at 1M users).

    python benchmarks/bench_fairness.py --users 1000000 --repeat 3

``--numpy`` reads the fairness inputs with the numpy formulas instead of the compiled passes
(``receval.beyond._lists.COMPILED = False``, the tests' oracle): the cost before those passes,
measured in the same tree.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pandas as pd

import receval as rv

SIX = ["ndcg@10", "map@20", "mrr", "precision@10", "recall@20", "hit_rate@10"]
FAIR = ["exposure_share@20(group=tail)", "exposure_gini@20", "awrf@20", "miscalibration@20"]


def make(n_users: int, k: int, n_items: int, seed: int):
    rng = np.random.default_rng(seed)
    pop = 1.0 / np.arange(1, n_items + 1) ** 1.05
    cdf = np.cumsum(pop / pop.sum())
    items = np.minimum(np.searchsorted(cdf, rng.random((n_users, k))), n_items - 1)
    items = np.sort(items, axis=1)  # distinct per row: keep the first of each repeat, refill
    dup = np.zeros(items.shape, dtype=bool)
    dup[:, 1:] = items[:, 1:] == items[:, :-1]
    items[dup] = (items[dup] + 7919 * np.arange(1, int(dup.sum()) + 1)) % n_items
    users = np.repeat(np.arange(n_users), k)
    run = pd.DataFrame({"user": users, "item": items.ravel(),
                        "score": rng.random(n_users * k)}).drop_duplicates(["user", "item"])
    n_truth = 5
    truth = pd.DataFrame({"user": np.repeat(np.arange(n_users), n_truth),
                          "item": np.minimum(np.searchsorted(cdf, rng.random(n_users * n_truth)),
                                             n_items - 1)}).drop_duplicates()
    train = pd.DataFrame({"user": np.repeat(np.arange(n_users), 10),
                          "item": np.minimum(np.searchsorted(cdf, rng.random(n_users * 10)),
                                             n_items - 1)})
    groups = {i: ("head" if i < n_items // 5 else "tail") for i in range(n_items)}
    genres = {i: [f"g{i % 12}"] for i in range(n_items)}
    return run, truth, train, groups, genres


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--k", type=int, default=20)
    ap.add_argument("--items", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--warmup", type=int, default=1,
                    help="full-size rounds of each contender before the timed ones")
    ap.add_argument("--numpy", action="store_true",
                    help="the numpy formulas instead of the compiled fairness passes")
    args = ap.parse_args()
    if args.numpy:
        import receval.beyond._lists as lists

        lists.COMPILED = False
    t = time.perf_counter()
    run, truth, train, groups, genres = make(args.users, args.k, args.items, args.seed)
    print(f"receval {rv.__version__}{' (numpy formulas)' if args.numpy else ''}: "
          f"{args.users:,} users, {len(run):,} run rows, "
          f"{len(truth):,} truth rows, {len(train):,} training rows (data {time.perf_counter() - t:.1f} s)")
    kw = {"train": train, "item_groups": groups, "item_categories": genres}
    # the six alone take no fairness input; the fairness metrics read theirs
    contenders = {"six": (SIX, {}), "six+fairness": (SIX + FAIR, kw)}
    rv.evaluate(run.head(1000), truth, SIX + FAIR, users="run", **kw)  # warm-up
    for _ in range(args.warmup):
        for metrics, inputs in contenders.values():
            rv.evaluate(run, truth, metrics, **inputs)
    wall: dict[str, list[float]] = {n: [] for n in contenders}
    cpu: dict[str, list[float]] = {n: [] for n in contenders}
    for _ in range(args.repeat):
        for name, (metrics, inputs) in contenders.items():
            t, c = time.perf_counter(), time.process_time()
            rv.evaluate(run, truth, metrics, **inputs)
            wall[name].append(time.perf_counter() - t)
            cpu[name].append(time.process_time() - c)
    for clock, times in (("wall", wall), ("cpu", cpu)):
        base = statistics.median(times["six"])
        for name, ts in times.items():
            med = statistics.median(ts)
            print(f"{clock:4s} {name:14s} median {med:7.3f} s  fastest {min(ts):7.3f} s  "
                  f"ratio {med / base:5.2f}x")
        ratio = statistics.median(times["six+fairness"]) / base
        print(f"{clock:4s} target (<= 1.5x): {'PASS' if ratio <= 1.5 else 'FAIL'} "
              f"({ratio:.2f}x)")


if __name__ == "__main__":
    main()
