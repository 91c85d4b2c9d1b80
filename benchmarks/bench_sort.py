"""What ordering each user's list costs: the same lists in random score order and already
in rank order (per user, scores descending), ``rv.evaluate`` of one measure (``ap``, every
position), the process's CPU time, best of ``--repeat``; the difference is the sort.

Lists of ``--length`` rows (20: a top-k list read back with its scores; 1000: a TREC run),
``--rows`` in all, int64 ids and ``str`` ids (pandas' default string dtype, Arrow-held with
pyarrow) of the same values:

    python benchmarks/bench_sort.py --rows 10000000 --length 20 1000

Run it under two builds (PYTHONPATH pointing at each checkout's ``src``) to compare sorts.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

import receval as rv


def frames(rows: int, length: int, ids: str, ordered: bool, seed: int = 0
           ) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    users = rows // length
    user = np.repeat(np.arange(users), length)
    item = np.tile(np.arange(length), users)
    score = rng.random(users * length)
    if ordered:  # each user's scores descending, the same values
        score = -np.sort(-score.reshape(users, length), axis=1).ravel()
    run = pd.DataFrame({"user": user, "item": item, "score": score})
    truth = run[run["item"] % 10 == 3][["user", "item"]].assign(relevance=1)
    if ids == "str":
        for frame in (run, truth):
            frame["user"] = "u" + frame["user"].astype(str)
            frame["item"] = "i" + frame["item"].astype(str)
    return run, truth


def cpu_best(run: pd.DataFrame, truth: pd.DataFrame, repeat: int) -> float:
    rv.evaluate(run.head(1000), truth, ["ap"])
    best = float("inf")
    for _ in range(repeat):
        c = time.process_time()
        rv.evaluate(run, truth, ["ap"])
        best = min(best, time.process_time() - c)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--length", type=int, nargs="+", default=[20, 1000])
    ap.add_argument("--ids", nargs="+", default=["int", "str"], choices=["int", "str"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"receval from {rv.__file__}; {args.rows:,} rows; CPU seconds, best of {args.repeat}")
    print(f"{'ids':4s} {'length':>6s} {'random order':>13s} {'rank order':>11s} {'sort':>7s}")
    for ids in args.ids:
        for length in args.length:
            t = {o: cpu_best(*frames(args.rows, length, ids, o), args.repeat)
                 for o in (False, True)}
            print(f"{ids:4s} {length:6d} {t[False]:13.3f} {t[True]:11.3f} "
                  f"{t[False] - t[True]:7.3f}")


if __name__ == "__main__":
    main()
