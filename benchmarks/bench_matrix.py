"""A numpy top-k matrix with a scipy.sparse truth against the same data as int64 frames.

Each case runs in a fresh process: it builds its inputs (seeded, the same rows for every
case), evaluates once to warm up, resets the peak-RSS mark (/proc/self/clear_refs), then
times ``rv.evaluate(run, truth, METRICS)`` (best of ``--repeat``) and reports the seconds and
the peak RSS above the RSS with the inputs built (``extra MB``).

Cases: ``frame`` (pandas frames of int64 user / item ids, float64 scores, one row per
recommendation; truth the same way); ``matrix-<dtype>`` (the users x k matrix of item ids in
that dtype, padded with -1 where a user has fewer than k items; truth a CSR matrix of int32
indices); ``truth-<format>`` (an int32 matrix with a truth in that scipy format and index
width). Ratios are against ``frame`` (time) and against the matrix's bytes (memory).

    python benchmarks/bench_matrix.py --users 300000 --k 100 --repeat 3
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import status_mb  # noqa: E402

METRICS = ["ndcg@10", "map@100", "mrr", "precision@10", "recall@100", "hit_rate@10"]
CASES = ["frame", "matrix-int64", "matrix-int32", "matrix-int16", "matrix-uint16",
         "matrix-float64", "truth-csr64", "truth-csc", "truth-coo"]


def build(case: str, n: int, k: int, n_items: int, truth_per_user: int, seed: int = 0):
    """The inputs of one case: ``(run, truth)``."""
    import numpy as np
    import pandas as pd
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    top = np.empty((n, k), dtype=np.int64)
    for lo in range(0, n, 10_000):  # k distinct items per user, in rank order
        hi = min(n, lo + 10_000)
        keys = rng.random((hi - lo, n_items // 8), dtype=np.float32)
        top[lo:hi] = np.argpartition(keys, k, axis=1)[:, :k] * 8 + rng.integers(
            0, 8, size=(hi - lo, 1))
    short = rng.random(n) < 0.1  # a tenth of the users have fewer than k items
    lengths = np.where(short, rng.integers(1, k, size=n), k)
    top[np.arange(k)[None, :] >= lengths[:, None]] = -1
    # truth: a few of each user's recommended items and as many others
    hits = top[:, : truth_per_user // 2].copy()
    hits[hits < 0] = 0
    others = rng.integers(0, n_items, size=(n, truth_per_user - truth_per_user // 2))
    t_items = np.concatenate([hits, others], axis=1)
    t_users = np.repeat(np.arange(n), t_items.shape[1])
    t_items = t_items.ravel()
    keep = np.ones(len(t_items), dtype=bool)  # one row per (user, item)
    pair = t_users * n_items + t_items
    _, first = np.unique(pair, return_index=True)
    keep[:] = False
    keep[first] = True
    t_users, t_items = t_users[keep], t_items[keep]
    rel = rng.integers(1, 4, size=len(t_items)).astype(np.float64)
    if case == "frame":
        valid = top >= 0
        run = pd.DataFrame({
            "user": np.repeat(np.arange(n, dtype=np.int64), valid.sum(axis=1)),
            "item": top[valid],
            "score": (k - np.broadcast_to(np.arange(k), top.shape)[valid]).astype(np.float64)})
        truth = pd.DataFrame({"user": t_users.astype(np.int64), "item": t_items,
                              "relevance": rel})
        return run, truth
    csr = sp.csr_matrix((rel, (t_users, t_items)), shape=(n, n_items))
    csr.indices = csr.indices.astype(np.int32)
    csr.indptr = csr.indptr.astype(np.int32)
    dtype = case.split("-")[1] if case.startswith("matrix-") else "int32"
    run = top.astype(dtype)
    if dtype.startswith("uint"):  # no -1 to pad with: items outside the truth instead
        run = np.where(top >= 0, top, n_items + np.arange(k)).astype(dtype)
    truth = csr
    if case == "truth-csr64":
        truth = sp.csr_matrix((csr.data, csr.indices.astype(np.int64),
                               csr.indptr.astype(np.int64)), shape=csr.shape)
    elif case == "truth-csc":
        truth = csr.tocsc()
    elif case == "truth-coo":
        truth = csr.tocoo()
    return run, truth


def nbytes(x) -> int:
    if hasattr(x, "memory_usage"):
        return int(x.memory_usage(deep=True).sum())
    if hasattr(x, "format"):  # scipy.sparse
        parts = ("data", "indices", "indptr") if x.format in ("csr", "csc") \
            else ("data", "row", "col")
        return sum(getattr(x, p).nbytes for p in parts)
    return int(x.nbytes)


def child(case: str, n: int, k: int, n_items: int, truth_per_user: int, repeat: int) -> None:
    import receval as rv

    run, truth = build(case, n, k, n_items, truth_per_user)
    rv.evaluate(run, truth, METRICS)  # warm up

    def measured(f):
        gc.collect()
        with open("/proc/self/clear_refs", "w") as fh:  # VmHWM (peak RSS) := current RSS
            fh.write("5")
        base = status_mb("VmRSS")
        best, res = float("inf"), None
        for _ in range(repeat):
            t = time.perf_counter()
            res = f()
            best = min(best, time.perf_counter() - t)
        return best, status_mb("VmHWM") - base, res

    seconds, extra, res = measured(lambda: rv.evaluate(run, truth, METRICS))
    ev = rv.Evaluator(truth, METRICS)  # the truth packed once: what the run costs
    run_s, run_extra, run_res = measured(lambda: ev.evaluate(run))
    assert res is not None and run_res is not None
    print("RESULT " + json.dumps({
        "seconds": seconds, "extra_mb": extra, "run_seconds": run_s, "run_extra_mb": run_extra,
        "run_mb": nbytes(run) / 2**20, "truth_mb": nbytes(truth) / 2**20,
        "summary": {key: float(v) for key, v in res.summary.items()}}), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=300_000)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--items", type=int, default=20_000)
    ap.add_argument("--truth", type=int, default=20, help="truth rows per user (about)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cases", nargs="*", default=CASES)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.child, a.users, a.k, a.items, a.truth, a.repeat)
        return
    print(f"{a.users:,} users x k={a.k}, {a.items:,} items, ~{a.truth} truth rows per user; "
          f"{', '.join(METRICS)}; best of {a.repeat}, each case in its own process")
    print("evaluate: rv.evaluate(run, truth) (the truth packed too); run only: "
          "Evaluator(truth).evaluate(run), the truth packed beforehand. extra MB: peak RSS "
          "above the inputs; x run: that over the run's bytes")
    print(f"{'case':<16}{'run MB':>8}{'truth MB':>9} | {'s':>7}{'x frame':>8}{'extra MB':>9}"
          f"{'x run':>7} | {'run only s':>10}{'x frame':>8}{'extra MB':>9}{'x run':>7}")
    results = {}
    for case in a.cases:
        out = subprocess.run(
            [sys.executable, __file__, "--child", case, "--users", str(a.users), "--k",
             str(a.k), "--items", str(a.items), "--truth", str(a.truth), "--repeat",
             str(a.repeat)], capture_output=True, text=True, check=False)
        line = next((x for x in out.stdout.splitlines() if x.startswith("RESULT ")), None)
        if line is None:
            print(f"{case:<16} failed: {out.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(line[7:])
        results[case] = r
        f = results.get("frame", r)
        print(f"{case:<16}{r['run_mb']:>8.0f}{r['truth_mb']:>9.0f} | {r['seconds']:>7.3f}"
              f"{r['seconds'] / f['seconds']:>8.2f}{r['extra_mb']:>9.0f}"
              f"{r['extra_mb'] / r['run_mb']:>7.2f} | {r['run_seconds']:>10.3f}"
              f"{r['run_seconds'] / f['run_seconds']:>8.2f}{r['run_extra_mb']:>9.0f}"
              f"{r['run_extra_mb'] / r['run_mb']:>7.2f}", flush=True)
    ref = results.get("frame", {}).get("summary")
    if ref:
        same = [c for c, r in results.items() if r["summary"] == ref]
        print(f"summaries equal to the frame's: {', '.join(same)}")


if __name__ == "__main__":
    main()
