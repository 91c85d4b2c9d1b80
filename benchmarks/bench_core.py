"""Time receval against ranx and pytrec_eval on the same pandas frames, and print ratios.

Data (benchmarks/common.py): seeded, users x 100 recommendations (no repeated item within a
user), ~10 held-out items per user, Zipf item popularity, scores descending per user. It is
cached as Parquet under benchmarks/.cache/ (--cache-dir), keyed by its parameters, so a second
run at the same size reads it instead of generating it. --ids picks the id columns' type, for
user and item of both frames: str (pandas' default string dtype), int (int64) or object
(object dtype holding Python str).

Metric set: ndcg@10, map@100, mrr, precision@10, recall@100, hit_rate@10 (and the matching
ranx / pytrec_eval measures). Contenders, each timed end to end from the frames:

  receval       rv.evaluate(run, truth, METRICS)
  receval_31    rv.evaluate with the six families at cutoffs 1, 5, 10, 20, 100 and mrr (31
                keys): its time over receval's is what more metric-cutoffs cost
  ranx          Qrels.from_df / Run.from_df + ranx.evaluate. from_df only takes object-dtype
                ids (Python str; int ids are turned into str) and int relevance: that cast is
                done before the clock starts, so it is not counted against ranx.
  ranx_numeric  ranx's fastest path: ids made numeric (int ids used as they are; str / object
                ids coded against the truth's users and items, unjudged run items coded -1),
                rows grouped per user and sorted by score / relevance in a numba function into
                the typed lists of (id, value) arrays that ranx's metric kernels read, then
                ranx.evaluate on those lists (no Qrels / Run objects, no string hashing).
  pytrec_eval   dict-of-dicts built from the columns (ids as str), RelevanceEvaluator.evaluate

ranx's numba code is compiled before timing (one call on 100 users). Every contender runs
--repeat times and the best time is kept, except that a contender whose first run takes over
5 s is run once. The `check` column is the largest absolute difference, over the metrics,
between the contender's means and receval's (the per-metric differences follow the table).

In-process (all contenders share one process; `peak MB` is that process's peak RSS so far):

    python benchmarks/bench_core.py --users 10000 100000
    python benchmarks/bench_core.py --users 100000 --ids str int object

Isolated (--isolate): every contender runs in a fresh process that reads the cached Parquet
(reading and the warm-up are not timed), resets the peak-RSS mark (/proc/self/clear_refs)
and reports seconds and `beyond MB`, the peak RSS above the RSS with the frames loaded. The
1M-user comparison is run this way, receval against ranx_numeric:

    python benchmarks/bench_core.py --isolate --users 100000 --ids str int object
    python benchmarks/bench_core.py --isolate --users 1000000 --ids str int \\
        --tools receval ranx_numeric --repeat 1
    # object ids at 1M users hold ~14 GB of frames: add `object` to --ids where memory allows
    python benchmarks/bench_core.py --memory 1000000   # receval alone, isolated, str ids

After each block of rows, one line per target reports PASS / FAIL / n/a (the script reports,
it does not assert): at 100k users with str ids receval >= 50x faster than ranx and >= 15x
faster than pytrec_eval; at 1M users >= 10x faster than ranx_numeric with str ids, >= 20x
with int ids; object ids within 2x of str ids (receval's seconds); receval's peak memory
beyond the frames <= 0.5x the frames (only measured with --isolate).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (  # noqa: E402
    ID_TYPES,
    cache_paths,
    ensure_cached,
    load_data,
    read_cached,
    status_mb,
)

METRICS = ["ndcg@10", "map@100", "mrr", "precision@10", "recall@100", "hit_rate@10"]
RANX = dict(zip(METRICS, ["ndcg@10", "map@100", "mrr", "precision@10", "recall@100",
                          "hit_rate@10"], strict=True))
TREC = dict(zip(METRICS, ["ndcg_cut_10", "map_cut_100", "recip_rank", "P_10", "recall_100",
                          "success_10"], strict=True))
TREC_MEASURES = {"ndcg_cut.10", "map_cut.100", "recip_rank", "P.10", "recall.100", "success.10"}
# the six at five cutoffs each, plus mrr without one: what one more cutoff costs
MANY = [*METRICS, *(f"{m}@{k}" for m in ("ndcg", "map", "mrr", "precision", "recall", "hit_rate")
                    for k in (1, 5, 10, 20, 100) if f"{m}@{k}" not in METRICS)]
TOOLS = ("receval", "receval_31", "ranx", "ranx_numeric", "pytrec_eval", "floor")
LONG_RUN_S = 5.0  # a contender slower than this on its first run is not repeated


# ---------------------------------------------------------------------------------------------
# contenders: prepare(run, truth) (untimed, includes warm-up) -> f(run, truth) -> {metric: mean}

def _receval(metrics=METRICS):
    import receval as rv

    def f(run, truth):
        summary = rv.evaluate(run, truth, metrics).summary
        return {m: summary[m] for m in METRICS}

    return f


def _first_users(run, truth, n=100):
    users = truth["user"].drop_duplicates().iloc[:n]
    return run[run["user"].isin(users)], truth[truth["user"].isin(users)]


def _ranx_prepare(run, truth):
    """The casts ranx's from_df demands (object-dtype str ids, int relevance); not timed."""
    ids = {"user": object, "item": object}
    if run["user"].dtype.kind in "iu":
        run = run.astype({"user": str, "item": str})
        truth = truth.astype({"user": str, "item": str})
    return run.astype(ids), truth.astype({**ids, "relevance": "int64"})


def _ranx():
    from ranx import Qrels, Run, evaluate

    def f(run, truth):
        qrels = Qrels.from_df(truth, q_id_col="user", doc_id_col="item", score_col="relevance")
        rr = Run.from_df(run, q_id_col="user", doc_id_col="item", score_col="score")
        out = evaluate(qrels, rr, list(RANX.values()))
        return {m: float(out[RANX[m]]) for m in METRICS}

    return f


_GROUPED = None


def _grouped_lists():
    """A numba function: rows -> typed list (one per group) of (id, value) arrays, value-descending."""
    global _GROUPED
    if _GROUPED is None:
        import numba as nb
        import numpy as np
        from numba.typed import List

        @nb.njit
        def grouped(codes, ids, values, n_groups):
            counts = np.zeros(n_groups + 1, np.int64)
            for c in codes:
                if c >= 0:
                    counts[c + 1] += 1
            offsets = np.cumsum(counts)
            fill = offsets[:-1].copy()
            order = np.empty(offsets[-1], np.int64)
            for i in range(codes.size):  # counting sort by group, stable within a group
                c = codes[i]
                if c >= 0:
                    order[fill[c]] = i
                    fill[c] += 1
            out = List()
            for g in range(n_groups):
                lo, hi = offsets[g], offsets[g + 1]
                a = np.empty((hi - lo, 2), np.float64)
                ordered = True
                for j in range(hi - lo):
                    a[j, 0] = ids[order[lo + j]]
                    a[j, 1] = values[order[lo + j]]
                    if j > 0 and a[j, 1] > a[j - 1, 1]:
                        ordered = False
                if not ordered:
                    a = a[np.argsort(-a[:, 1], kind="mergesort")]
                out.append(a)
            return out

        _GROUPED = grouped
    return _GROUPED


def _lookup(values, uniques):
    """Position of each value in `uniques` (int64), -1 where absent."""
    import numpy as np
    import pandas as pd

    if isinstance(values.dtype, pd.StringDtype) and values.dtype.storage == "pyarrow":
        import pyarrow as pa
        import pyarrow.compute as pc

        pos = pc.index_in(pa.array(values), value_set=pa.array(uniques))
        return pc.fill_null(pos, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    return pd.Index(uniques).get_indexer(values)


def _user_codes(users, uniques):
    """Codes of a user column: looked up once per block of equal consecutive ids."""
    import numpy as np
    import pandas as pd

    n = len(users)
    if n == 0:
        return np.empty(0, np.int64)
    if isinstance(users.dtype, pd.StringDtype) and users.dtype.storage == "pyarrow":
        import pyarrow as pa
        import pyarrow.compute as pc

        a = pa.array(users)
        change = pc.not_equal(a[1:], a[:-1]).to_numpy(zero_copy_only=False)
        starts = np.concatenate([[0], np.flatnonzero(change) + 1])
        pos = pc.index_in(a.take(pa.array(starts)), value_set=pa.array(uniques))
        head_codes = pc.fill_null(pos, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    else:
        v = users.to_numpy()
        starts = np.concatenate([[0], np.flatnonzero(v[1:] != v[:-1]) + 1])
        head_codes = pd.Index(uniques).get_indexer(v[starts])
    return np.repeat(head_codes, np.diff(np.append(starts, n)))


def ranx_numeric_lists(run, truth):
    """The frames as ranx's typed lists (qrels, run), one array per truth user, same order."""
    import numpy as np
    import pandas as pd

    grouped = _grouped_lists()
    t_codes, users = pd.factorize(truth["user"])
    r_codes = _user_codes(run["user"], users)
    if truth["item"].dtype.kind in "iu":  # numeric ids: used as they are
        t_item = truth["item"].to_numpy(np.float64)
        r_item = run["item"].to_numpy(np.float64)
    else:  # str ids: coded against the judged items; any unjudged item is -1 (never a hit)
        i_codes, items = pd.factorize(truth["item"])
        t_item = i_codes.astype(np.float64)
        r_item = _lookup(run["item"], items).astype(np.float64)
    qrels = grouped(t_codes.astype(np.int64), t_item,
                    truth["relevance"].to_numpy(np.float64), len(users))
    runs = grouped(r_codes, r_item, run["score"].to_numpy(np.float64), len(users))
    return qrels, runs


def _ranx_numeric():
    from ranx import evaluate

    def f(run, truth):
        qrels, runs = ranx_numeric_lists(run, truth)
        out = evaluate(qrels, runs, list(RANX.values()), save_results_in_run=False)
        return {m: float(out[RANX[m]]) for m in METRICS}

    return f


def _pytrec():
    import pytrec_eval

    def f(run, truth):
        def ids(col):
            out = col.tolist()
            return out if col.dtype.kind not in "iu" else [str(x) for x in out]

        qrels: dict = {}
        for u, i, r in zip(ids(truth["user"]), ids(truth["item"]),
                           truth["relevance"].astype(int).tolist(), strict=True):
            qrels.setdefault(u, {})[i] = r
        runs: dict = {}
        for u, i, s in zip(ids(run["user"]), ids(run["item"]), run["score"].tolist(),
                           strict=True):
            runs.setdefault(u, {})[i] = s
        per_q = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES).evaluate(runs)
        n = len(per_q)
        return {m: sum(v[TREC[m]] for v in per_q.values()) / n for m in METRICS}

    return f


def prepare(tool, run, truth):
    """(timed function, run, truth) for a tool, after the untimed casts and the JIT warm-up."""
    if tool == "receval":
        f = _receval()
    elif tool == "receval_31":
        f = _receval(MANY)
    elif tool == "ranx":
        run, truth = _ranx_prepare(run, truth)
        f = _ranx()
    elif tool == "ranx_numeric":
        f = _ranx_numeric()
    elif tool == "pytrec_eval":
        f = _pytrec()
    elif tool == "floor":
        f = _floor
    else:
        raise ValueError(f"unknown tool {tool!r}; choose from {TOOLS}")
    if tool.startswith("ranx"):
        f(*_first_users(run, truth))  # numba compiles on the first call
    gc.collect()
    return f, run, truth


def _floor(run, truth):
    """The read floor: one pass over each of the run's three columns (a sum of the numbers; of
    the codes of a categorical; of the lengths of text ids), nothing else."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    for name in ("user", "item", "score"):
        col = run[name]
        if isinstance(col.dtype, pd.CategoricalDtype):
            col.cat.codes.to_numpy().sum()
        elif isinstance(col.dtype, np.dtype) and col.dtype.kind in "iuf":
            col.to_numpy().sum()
        else:
            # the Arrow data behind the column, as it lies (a Series given to pa.array
            # whole is converted value by value: 50 s at 30M rows)
            pc.sum(pc.utf8_length(pa.array(col.array)))
    return {}


def timed(f, run, truth, repeat):
    best, out = float("inf"), None
    for i in range(max(1, repeat)):
        t = time.perf_counter()
        out = f(run, truth)
        best = min(best, time.perf_counter() - t)
        if i == 0 and best > LONG_RUN_S:
            break
    return best, out


# ---------------------------------------------------------------------------------------------
# memory

def frames_mb(run, truth) -> float:
    return float(run.memory_usage(deep=True).sum() + truth.memory_usage(deep=True).sum()) / 2**20


def _child(tool: str, run_path: str, truth_path: str, ids: str, repeat: int) -> None:
    """In a fresh process: read the frames, warm up, reset the peak-RSS mark, time, report."""
    run, truth = read_cached(run_path, truth_path, ids)
    f, run, truth = prepare(tool, run, truth)
    size = frames_mb(run, truth)
    gc.collect()
    with open("/proc/self/clear_refs", "w") as fh:  # VmHWM (peak RSS) := current RSS
        fh.write("5")
    base = status_mb("VmRSS")
    seconds, means = timed(f, run, truth, repeat)
    peak = status_mb("VmHWM")
    print("RESULT " + json.dumps({"seconds": seconds, "frames_mb": size, "rss_mb": base,
                                  "rows": len(run),
                                  "peak_mb": peak, "beyond_mb": peak - base, "means": means}),
          flush=True)


def cache_isolated(n, ids, cache_dir):
    """Parquet paths for (n, ids), generated in a child process when missing (so the memory the
    generator used is not held by this process while the contenders run)."""
    run_path, truth_path = cache_paths(n, ids=ids, cache_dir=cache_dir)
    if not (os.path.exists(run_path) and os.path.exists(truth_path)):
        cmd = [sys.executable, os.path.abspath(__file__), "--make-cache", str(n), ids]
        subprocess.run(cmd + (["--cache-dir", cache_dir] if cache_dir else []), check=True)
    return run_path, truth_path


def run_isolated(tool, n, ids, repeat, cache_dir):
    run_path, truth_path = cache_isolated(n, ids, cache_dir)
    cmd = [sys.executable, os.path.abspath(__file__), "--child", tool, run_path, truth_path, ids,
           str(repeat)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
    return {"error": f"exit {proc.returncode}: " + " | ".join(tail)}


# ---------------------------------------------------------------------------------------------
# report

def _targets(rows):
    """PASS / FAIL / n/a lines for the speed and memory targets, from the rows of one size."""
    def secs(tool, ids):
        r = rows.get((tool, ids))
        return r["seconds"] if r and "seconds" in r else None

    def speed(tool, ids, want):
        a, b = secs("receval", ids), secs(tool, ids)
        if a is None or b is None:
            return "n/a", f"{tool} / receval ({ids} ids) not measured"
        return ("PASS" if b / a >= want else "FAIL"), f"{tool} / receval ({ids} ids) = {b / a:.1f}x"

    n = next(iter(rows.values()))["users"]
    out = []
    if n == 100_000:
        out.append(("receval >= 50x faster than ranx, 100k users, str ids",
                    *speed("ranx", "str", 50)))
        out.append(("receval >= 15x faster than pytrec_eval, 100k users, str ids",
                    *speed("pytrec_eval", "str", 15)))
    if n == 1_000_000:
        out.append(("receval >= 10x faster than ranx_numeric, 1M users, str ids",
                    *speed("ranx_numeric", "str", 10)))
        out.append(("receval >= 20x faster than ranx_numeric, 1M users, int ids",
                    *speed("ranx_numeric", "int", 20)))
    for ids in ID_TYPES:
        a, b = secs("receval", ids), secs("receval_31", ids)
        if a is not None and b is not None:
            out.append((f"receval: {len(MANY)} metric-cutoffs cost little more than "
                        f"{len(METRICS)} ({ids} ids)", "info", f"{b / a:.2f}x the time"))
    s, o = secs("receval", "str"), secs("receval", "object")
    if s is not None and o is not None:
        out.append(("receval with object ids within 2x of str ids",
                    "PASS" if o / s <= 2 else "FAIL", f"object / str = {o / s:.2f}x"))
    base = secs("receval", "int")
    for ids, want in (("int32", 1.2), ("category", 1.2), ("category_shared", 1.2),
                      ("str", 3.0), ("hex", 3.0), ("uuid", 3.0)):
        t = secs("receval", ids)
        if base is not None and t is not None:
            out.append((f"receval with {ids} ids within {want}x of int64 ids",
                        "PASS" if t / base <= want else "FAIL", f"{t / base:.2f}x"))
    floor = secs("floor", "int")
    if base is not None and floor is not None:
        out.append(("receval with int64 ids within 2.5x of the read floor",
                    "PASS" if base / floor <= 2.5 else "FAIL", f"{base / floor:.2f}x"))
    for ids in ID_TYPES:
        r = rows.get(("receval", ids))
        if r and "beyond_mb" in r:
            x = r["beyond_mb"] / r["frames_mb"]
            out.append((f"receval peak memory beyond the frames <= 0.5x the frames ({ids} ids)",
                        "PASS" if x <= 0.5 else "FAIL",
                        f"{r['beyond_mb']:.0f} MB / {r['frames_mb']:.0f} MB = {x:.2f}x"))
    return out


def _header(isolate):
    mem = "beyond MB" if isolate else "peak MB"
    return (f"{'users':>9} {'rows':>11} {'ids':>6} {'tool':>12} {'seconds':>9} {'ratio':>8} "
            f"{mem:>10} {'check':>9}")


def _print_row(n, rows_count, ids, tool, r, receval_means, receval_s, isolate):
    if "error" in r:
        print(f"{n:>9} {rows_count:>11} {ids:>6} {tool:>12}  failed: {r['error']}", flush=True)
        return
    ratio = f"{r['seconds'] / receval_s:.1f}x" if receval_s else "-"
    mem = r["beyond_mb"] if isolate else r["peak_mb"]
    diffs = {m: abs(r["means"][m] - receval_means[m]) for m in METRICS} \
        if receval_means and r.get("means") else {}
    r["diffs"] = diffs
    check = f"{max(diffs.values()):.1e}" if diffs else "-"
    print(f"{n:>9} {rows_count:>11} {ids:>6} {tool:>12} {r['seconds']:>9.3f} {ratio:>8} "
          f"{mem:>10.0f} {check:>9}", flush=True)


def bench(n, id_types, tools, repeat, isolate, cache_dir):
    rows = {}
    for ids in id_types:
        receval_means = receval_s = None
        size = n_rows = None
        if not isolate:
            run, truth = load_data(n, ids=ids, cache_dir=cache_dir)
            size, n_rows = frames_mb(run, truth), len(run)
            gc.collect()
        for tool in tools:
            if isolate:
                r = run_isolated(tool, n, ids, repeat, cache_dir)
            else:
                try:
                    f, r_run, r_truth = prepare(tool, run, truth)
                    seconds, means = timed(f, r_run, r_truth, repeat)
                    del f, r_run, r_truth
                    r = {"seconds": seconds, "means": means, "frames_mb": size,
                         "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
                except Exception as exc:  # report, keep going with the other contenders
                    r = {"error": f"{type(exc).__name__}: {exc}"}
                gc.collect()
            r["users"] = n
            size = size or r.get("frames_mb")
            n_rows = n_rows or r.get("rows")
            if tool == "receval" and "means" in r:
                receval_means, receval_s = r["means"], r["seconds"]
            _print_row(n, n_rows, ids, tool, r, receval_means, receval_s, isolate)
            rows[(tool, ids)] = r
        if not isolate:
            del run, truth
            gc.collect()
        for tool in tools:
            r = rows[(tool, ids)]
            if tool != "receval" and r.get("diffs"):
                print(f"#   check {tool} ({ids}): " + ", ".join(
                    f"{m} {d:.1e}" for m, d in r["diffs"].items()), flush=True)
        if size:
            print(f"#   frames ({ids} ids): {size:.0f} MB in memory", flush=True)
    print("# ratio = tool seconds / receval seconds (same ids); check = max |tool mean - "
          "receval mean| over the metrics")
    for what, verdict, detail in _targets(rows):
        print(f"# target {verdict:>4}: {what}: {detail}", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--users", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--ids", nargs="+", default=["str"], choices=ID_TYPES,
                    help="id column types to run (default: str)")
    ap.add_argument("--tools", nargs="+", default=list(TOOLS), choices=TOOLS)
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs per contender, best kept (one run when the first exceeds 5 s)")
    ap.add_argument("--isolate", action="store_true",
                    help="each contender in a fresh process reading the cached Parquet")
    ap.add_argument("--memory", type=int, metavar="USERS",
                    help="only receval, isolated, at USERS users (its peak memory beyond the frames)")
    ap.add_argument("--cache-dir", default=None, help="Parquet cache (default benchmarks/.cache)")
    ap.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    ap.add_argument("--make-cache", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.make_cache:
        ensure_cached(int(args.make_cache[0]), ids=args.make_cache[1], cache_dir=args.cache_dir)
        return
    if args.child:
        tool, run_path, truth_path, ids, repeat = args.child
        _child(tool, run_path, truth_path, ids, int(repeat))
        return
    if args.memory:
        args.users, args.tools, args.isolate = [args.memory], ["receval"], True
    print(_header(args.isolate))
    for n in args.users:
        bench(n, args.ids, args.tools, args.repeat, args.isolate, args.cache_dir)


if __name__ == "__main__":
    main()
