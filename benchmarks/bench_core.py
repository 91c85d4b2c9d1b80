"""Time receval against ranx and pytrec_eval on the same pandas frames, and print ratios.

Data: seeded, users x 100 recommendations, ~10 held-out items per user, Zipf item popularity,
string ids (benchmarks/common.py). Metric set: ndcg@10, map@100, mrr, precision@10,
recall@100, hit_rate@10 (and the matching ranx / pytrec_eval measures).

Every tool is timed end to end from the frames (conversion + evaluation); ranx is warmed up
first (its numba JIT compiles on the first call), pytrec_eval builds its dict-of-dicts.

    python benchmarks/bench_core.py --users 10000 100000
    python benchmarks/bench_core.py --users 1000000 --tools receval
    python benchmarks/bench_core.py --memory 1000000   # receval's peak memory beyond the frames
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import make_data  # noqa: E402

METRICS = ["ndcg@10", "map@100", "mrr", "precision@10", "recall@100", "hit_rate@10"]
RANX = ["ndcg@10", "map@100", "mrr", "precision@10", "recall@100", "hit_rate@10"]
TREC = {"ndcg_cut.10", "map_cut.100", "recip_rank", "P.10", "recall.100", "success.10"}


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return float("nan")


def time_receval(run, truth):
    import receval as rv

    t = time.perf_counter()
    res = rv.evaluate(run, truth, METRICS)
    return time.perf_counter() - t, res.summary


def time_ranx(run, truth):
    from ranx import Qrels, Run, evaluate

    def once(r, q):  # conversion + evaluation, as a user runs it
        qrels = Qrels.from_df(q, q_id_col="user", doc_id_col="item", score_col="relevance")
        rr = Run.from_df(r, q_id_col="user", doc_id_col="item", score_col="score")
        return evaluate(qrels, rr, RANX)

    # ranx asserts object-dtype id columns: convert before timing (not counted against ranx)
    run = run.astype({"user": object, "item": object})
    truth = truth.astype({"user": object, "item": object, "relevance": int})
    small_users = run["user"].unique()[:100]
    once(run[run["user"].isin(small_users)], truth[truth["user"].isin(small_users)])  # JIT warm
    gc.collect()
    t = time.perf_counter()
    out = once(run, truth)
    return time.perf_counter() - t, out


def time_pytrec(run, truth):
    import pytrec_eval

    t = time.perf_counter()
    qrels: dict = {}
    for u, i, r in zip(truth["user"].tolist(), truth["item"].tolist(),
                       truth["relevance"].astype(int).tolist(), strict=True):
        qrels.setdefault(u, {})[i] = r
    runs: dict = {}
    for u, i, s in zip(run["user"].tolist(), run["item"].tolist(), run["score"].tolist(),
                       strict=True):
        runs.setdefault(u, {})[i] = s
    ev = pytrec_eval.RelevanceEvaluator(qrels, TREC)
    per_q = ev.evaluate(runs)
    elapsed = time.perf_counter() - t
    keys = next(iter(per_q.values())).keys()
    return elapsed, {k: sum(v[k] for v in per_q.values()) / len(per_q) for k in keys}


def _status(field: str) -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    return float("nan")


def _measure_child(run_path: str, truth_path: str) -> None:
    """In a fresh process: load the frames, reset the peak-RSS mark, evaluate, report."""
    import pandas as pd

    import receval as rv

    run, truth = pd.read_parquet(run_path), pd.read_parquet(truth_path)
    gc.collect()
    frames = (run.memory_usage(deep=True).sum() + truth.memory_usage(deep=True).sum()) / 2**20
    with open("/proc/self/clear_refs", "w") as fh:  # reset VmHWM (peak RSS) to the current RSS
        fh.write("5")
    base = _status("VmRSS")
    t = time.perf_counter()
    rv.evaluate(run, truth, METRICS)
    elapsed = time.perf_counter() - t
    peak = _status("VmHWM")
    print(f"users={len(truth['user'].unique())} frames={frames:.0f} MB rss_before={base:.0f} MB "
          f"peak={peak:.0f} MB beyond_frames={peak - base:.0f} MB "
          f"({(peak - base) / frames:.2f}x the frames) seconds={elapsed:.2f}")


def memory(n: int) -> None:
    """Peak memory of one evaluation beyond the input frames, in a fresh child process."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        run, truth = make_data(n)
        run.to_parquet(f"{tmp}/run.parquet")
        truth.to_parquet(f"{tmp}/truth.parquet")
        del run, truth
        subprocess.run([sys.executable, __file__, "--child", f"{tmp}/run.parquet",
                        f"{tmp}/truth.parquet"], check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--users", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--tools", nargs="+", default=["receval", "ranx", "pytrec_eval"])
    ap.add_argument("--repeat", type=int, default=3, help="receval repetitions (best is kept)")
    ap.add_argument("--memory", type=int, metavar="USERS",
                    help="only measure receval's peak memory beyond the frames at USERS users")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _measure_child(*args.child)
        return
    if args.memory:
        memory(args.memory)
        return
    print(f"{'users':>9} {'rows':>11} {'tool':>12} {'seconds':>9} {'ratio':>7} {'peak MB':>9}")
    for n in args.users:
        run, truth = make_data(n)
        gc.collect()
        base_rss = rss_mb()
        frames_mb = (run.memory_usage(deep=True).sum() + truth.memory_usage(deep=True).sum()) / 2**20
        times = {}
        for tool in args.tools:
            if tool == "receval":
                best = min(time_receval(run, truth)[0] for _ in range(args.repeat))
                times[tool] = best
            elif tool == "ranx":
                times[tool] = time_ranx(run, truth)[0]
            elif tool == "pytrec_eval":
                times[tool] = time_pytrec(run, truth)[0]
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            ratio = times[tool] / times["receval"] if "receval" in times else float("nan")
            print(f"{n:>9} {len(run):>11} {tool:>12} {times[tool]:>9.3f} {ratio:>6.1f}x "
                  f"{peak:>9.0f}", flush=True)
        print(f"# frames: {frames_mb:.0f} MB in memory; RSS before evaluating {base_rss:.0f} MB; "
              "ratio = tool seconds / receval seconds", flush=True)
        del run, truth
        gc.collect()


if __name__ == "__main__":
    main()
