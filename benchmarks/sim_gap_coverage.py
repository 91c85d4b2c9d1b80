"""Coverage of ``EvalResult.gap``'s stratified bootstrap interval in a simulation.

Two (or more) groups of users with per-user hit indicators drawn with known hit rates; the
true max-min gap is known. Each replicate evaluates ``hit_rate@1`` with ``groups=`` and asks
for the gap's interval; the script prints how often the interval covers the true gap, for each
level and group size (the nominal coverage is the level).

    python benchmarks/sim_gap_coverage.py --replicates 400
"""

from __future__ import annotations

import argparse

import numpy as np

import receval as rv


def replicate(rng: np.random.Generator, rates: list[float], size: int, level: float,
              n_resamples: int, seed: int) -> bool:
    hits = np.concatenate([rng.random(size) < p for p in rates])
    n = len(hits)
    truth = {u: {"x": 1} for u in range(n)}
    run = {u: {("x" if hits[u] else "y"): 1.0} for u in range(n)}
    groups = {u: f"g{u // size}" for u in range(n)}
    res = rv.evaluate(run, truth, ["hit_rate@1"], groups=groups)
    g = res.gap("hit_rate@1", level=level, n_resamples=n_resamples, rng=seed)
    true_gap = max(rates) - min(rates)
    return bool(g["ci_low"] <= true_gap <= g["ci_high"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicates", type=int, default=400)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"receval {rv.__version__}; {args.replicates} replicates, "
          f"{args.resamples} bootstrap resamples each")
    print(f"{'groups (hit rates)':28s} {'users/group':>11s} {'level':>6s} {'coverage':>9s}")
    for rates in ([0.6, 0.4], [0.5, 0.4, 0.3]):
        for size in (50, 200):
            for level in (0.9, 0.95):
                covered = sum(replicate(rng, rates, size, level, args.resamples, r)
                              for r in range(args.replicates))
                print(f"{str(rates):28s} {size:11d} {level:6.2f} "
                      f"{covered / args.replicates:9.3f}")


if __name__ == "__main__":
    main()
