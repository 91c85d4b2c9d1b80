"""Cost of ``groups=``: ``rv.evaluate`` with and without user groups, interleaved.

Usage::

    python benchmarks/bench_groups.py                          # 1M users, k=20, 8 groups
    python benchmarks/bench_groups.py --users 200000 --repeat 3 --ids int32
    python benchmarks/bench_groups.py --profile                # cProfile of one grouped call

Data: ``common.make_data`` (Zipf items, ~``--truth`` held-out items per user, ``--k``
recommendations per user), ids as int32 (``int32``) or pandas strings (``str``); each user in
one of ``--groups`` groups, drawn uniformly (seeded). Contenders, run in turn in every round
(the order rotates from round to round, so that drift of a shared machine falls on each):

- ``plain``      ``rv.evaluate(run, truth, metrics)``
- ``groups``     the same with ``groups=table, group_col="group"`` (the table read on each call)
- ``membership`` the same with ``groups=`` a ``Membership`` read once beforehand
- with ``--blocks N``: ``Evaluator.evaluate_blocks`` over blocks of N users, without and with
  groups (``blocks`` and ``blocks+groups``; the truth packed once, outside the timing).

Prints each contender's median and fastest time, and the ratio of the medians to ``plain``
(``blocks`` for the blocks contenders) against the target (1.15x).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

METRICS = ["ndcg@10", "map@20", "mrr", "precision@10", "recall@20", "hit_rate@10"]
TARGET = 1.15


def make_inputs(n_users: int, k: int, n_truth: int, n_groups: int, ids: str, seed: int):
    """Run and truth frames, and the groups table ``user, group`` (every truth user listed)."""
    import pandas as pd
    from common import make_data

    run, truth = make_data(n_users, k=k, n_truth=n_truth, seed=seed,
                           ids="int" if ids == "int32" else ids)
    if ids == "int32":
        run = run.astype({"user": np.int32, "item": np.int32})
        truth = truth.astype({"user": np.int32, "item": np.int32})
    users = truth["user"].drop_duplicates().reset_index(drop=True)
    rng = np.random.default_rng(seed + 1)
    labels = np.array([f"g{j}" for j in range(n_groups)], dtype=object)
    groups = pd.DataFrame({"user": users, "group": labels[rng.integers(0, n_groups,
                                                                       len(users))]})
    return run, truth, groups


def user_blocks(run, block_users: int):
    """The run cut into blocks of ``block_users`` whole users (rows of a user are contiguous)."""
    starts = np.flatnonzero(np.r_[True, run["user"].to_numpy()[1:] != run["user"].to_numpy()[:-1]])
    cuts = starts[::block_users].tolist() + [len(run)]
    return [run.iloc[a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--k", type=int, default=20, help="recommendations per user")
    ap.add_argument("--truth", type=int, default=10, help="mean held-out items per user")
    ap.add_argument("--groups", type=int, default=8, help="number of user groups")
    ap.add_argument("--ids", nargs="+", default=["int32", "str"], choices=["int32", "str"])
    ap.add_argument("--metrics", nargs="+", default=METRICS)
    ap.add_argument("--repeat", type=int, default=5, help="rounds (each contender once a round)")
    ap.add_argument("--blocks", type=int, default=0, metavar="USERS",
                    help="also time evaluate_blocks with blocks of USERS users (0: skip)")
    ap.add_argument("--profile", action="store_true",
                    help="print a cProfile of one grouped call (by cumulative time) and stop")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    for ids in args.ids:
        bench_ids(args, ids)


def bench_ids(args: argparse.Namespace, ids: str) -> None:
    """Every contender on the data of one id type, ``args.repeat`` interleaved rounds."""
    import receval as rv
    from receval.io.groups import read_groups

    t0 = time.perf_counter()
    run, truth, groups = make_inputs(args.users, args.k, args.truth, args.groups, ids,
                                     args.seed)
    print(f"== ids {ids}: {args.users:,} users, {len(run):,} run rows, {len(truth):,} "
          f"truth rows, {args.groups} groups (data {time.perf_counter() - t0:.1f} s)",
          flush=True)
    if args.profile:
        profile(rv, run, truth, groups, args.metrics)
        return
    membership = read_groups(groups, group_col="group")
    calls = {
        "plain": lambda: rv.evaluate(run, truth, args.metrics),
        "groups": lambda: rv.evaluate(run, truth, args.metrics, groups=groups,
                                      group_col="group"),
        "membership": lambda: rv.evaluate(run, truth, args.metrics, groups=membership),
    }
    if args.blocks:
        blocks = user_blocks(run, args.blocks)
        ev_plain = rv.Evaluator(truth, args.metrics)
        ev_groups = rv.Evaluator(truth, args.metrics, groups=membership)
        calls["blocks"] = lambda: ev_plain.evaluate_blocks(blocks)
        calls["blocks+groups"] = lambda: ev_groups.evaluate_blocks(blocks)
    check(calls)
    times: dict[str, list[float]] = {name: [] for name in calls}
    names = list(calls)
    for r in range(args.repeat):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            t = time.perf_counter()
            calls[name]()
            times[name].append(time.perf_counter() - t)
    report(times)


def check(calls) -> None:
    """One call of each contender: the grouped results carry the same summary as the plain
    one (groups never change the whole evaluation) and one row per group and metric."""
    base = calls["plain"]().summary
    for name, call in calls.items():
        res = call()
        assert res.summary == base, (name, res.summary, base)
        if "groups" in name or name == "membership":
            assert res.group_stats and len({r["group"] for r in res.group_stats}) > 1, name


def report(times: dict[str, list[float]]) -> None:
    print(f"{'contender':<15} {'median s':>9} {'fastest s':>9} {'ratio':>7}  target")
    for name, ts in times.items():
        base = "blocks" if name.startswith("blocks") else "plain"
        ratio = statistics.median(ts) / statistics.median(times[base])
        verdict = "" if name == base else ("PASS" if ratio <= TARGET else "FAIL")
        print(f"{name:<15} {statistics.median(ts):9.3f} {min(ts):9.3f} {ratio:6.3f}x  "
              f"{verdict}", flush=True)


def profile(rv, run, truth, groups, metrics) -> None:
    """cProfile of the plain call, of reading the groups table, and of the call with the
    groups read beforehand (the cost of the per-group summaries alone)."""
    import cProfile
    import pstats

    from receval.io.groups import read_groups

    membership = read_groups(groups, group_col="group")
    steps = (("plain", lambda: rv.evaluate(run, truth, metrics)),
             ("read_groups", lambda: read_groups(groups, group_col="group")),
             ("membership", lambda: rv.evaluate(run, truth, metrics, groups=membership)))
    for name, call in steps:
        call()  # warm
        prof = cProfile.Profile()
        prof.enable()
        call()
        prof.disable()
        print(f"-- {name}")
        pstats.Stats(prof).sort_stats("cumulative").print_stats(18)


if __name__ == "__main__":
    main()
