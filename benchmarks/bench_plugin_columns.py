"""Cost of writing and summarising the columns of metrics computed outside the ranking kernel.

The same evaluation (the six standard metrics and the four fairness metrics of
``bench_fairness.py``) with the metrics listed in two orders, in interleaved rounds:

- ``together``: the fairness metrics listed after the six, so their columns form one range
  of the per-user table: written a few thousand rows at a time and summarised by one
  compiled pass (``receval.engines.local._plugin_columns``);
- ``interleaved``: each fairness metric between two of the six, so each column is written
  into the table alone and summarised on its own (the route every plugin column took
  before).

Both give the same values; the difference of the medians is what the range route saves.

    python benchmarks/bench_plugin_columns.py --users 1000000 --repeat 7
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import receval as rv

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_fairness import FAIR, SIX, make  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    run, truth, train, groups, genres = make(args.users, 20, 20_000, args.seed)
    kw = {"train": train, "item_groups": groups, "item_categories": genres}
    orders = {"together": SIX + FAIR,
              "interleaved": [m for pair in zip(SIX, FAIR + [""] * 2, strict=True)
                              for m in pair if m]}
    first = {name: rv.evaluate(run, truth, metrics, **kw) for name, metrics in orders.items()}
    a, b = (repr(sorted(first[n].summary.items())) for n in orders)  # (NaN reads as nan)
    assert a == b, "the two orders gave different summaries"
    times: dict[str, list[float]] = {n: [] for n in orders}
    for _ in range(args.repeat):
        for name, metrics in orders.items():
            t = time.perf_counter()
            rv.evaluate(run, truth, metrics, **kw)
            times[name].append(time.perf_counter() - t)
    med = {n: statistics.median(ts) for n, ts in times.items()}
    for n, ts in times.items():
        print(f"{n:12s} median {med[n]:.3f} s  fastest {min(ts):.3f} s")
    print(f"saved by the range route: {med['interleaved'] - med['together']:+.3f} s "
          f"({len(FAIR)} plugin columns, {args.users:,} users)")


if __name__ == "__main__":
    main()
