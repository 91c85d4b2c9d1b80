"""Cold start: a fresh process's ``import receval`` + first evaluation of 1k users.

    python benchmarks/bench_cold_start.py                   # this interpreter
    python benchmarks/bench_cold_start.py --python .venv/bin/python --repeat 5

Each repetition is a new process; the script prints each time and the median. Run it with the
interpreter of a fresh virtual environment (README's install command) to measure a fresh install.
The children may write Python's bytecode cache (``PYTHONDONTWRITEBYTECODE`` is removed from their
environment) and one untimed run writes it first: ``pip install`` compiles a wheel's modules at
install time, so an installed receval never compiles its sources at import.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

CHILD = r"""
import time
t0 = time.perf_counter()
import receval as rv
t1 = time.perf_counter()
import numpy as np
rng = np.random.default_rng(0)
n = 1000
items = rng.integers(0, 5000, (n, 100))
run = {f"u{u}": {f"i{i}": float(100 - j) for j, i in enumerate(items[u])} for u in range(n)}
truth = {f"u{u}": {f"i{i}": 1 for i in items[u, rng.integers(0, 100, 10)]} for u in range(n)}
t2 = time.perf_counter()
rv.evaluate(run, truth, ["ndcg@10", "map@100", "mrr", "precision@10", "recall@100",
                         "hit_rate@10"], duplicates="max")
t3 = time.perf_counter()
print(f"{t1 - t0:.4f} {t3 - t2:.4f}")
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([args.python, "-c", CHILD], check=True, capture_output=True, env=env)
    totals = []
    for _ in range(args.repeat):
        out = subprocess.run([args.python, "-c", CHILD], check=True, capture_output=True,
                             text=True, env=env).stdout.split()
        imp, first = float(out[0]), float(out[1])
        totals.append(imp + first)
        print(f"import {imp:.3f} s + first evaluation {first:.3f} s = {imp + first:.3f} s")
    print(f"median import + first evaluation: {statistics.median(totals):.3f} s")


if __name__ == "__main__":
    main()
