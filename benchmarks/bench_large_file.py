"""Large-file benchmark: `receval evaluate --stream` on a generated Parquet or CSV run.

Generates a run of USERS x K rows (grouped by user, as model output is) and a truth of
USERS x T rows, then runs the real command line in a child process and reports its wall time
and peak resident memory (the child's ru_maxrss). The generator itself streams in chunks, so it
does not inflate the measured peak.

    python benchmarks/bench_large_file.py --users 1000000 --k 100          # 100M rows
    python benchmarks/bench_large_file.py --users 200000 --format csv
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np


def generate(folder: str, users: int, k: int, t: int, n_items: int, fmt: str,
             chunk: int = 100_000, seed: int = 0) -> tuple[str, str, float]:
    """Write run and truth files in chunks of users; returns their paths and the seconds."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    run_path = os.path.join(folder, f"run.{fmt}")
    truth_path = os.path.join(folder, "truth.parquet")
    run_writer = truth_writer = None
    csv_out = open(run_path, "wb") if fmt == "csv" else None  # noqa: SIM115
    try:
        for start in range(0, users, chunk):
            n = min(chunk, users - start)
            uid = np.repeat(np.arange(start, start + n, dtype=np.int64), k)
            # k distinct-ish items per user: a random offset plus a stride (cheap, no sort)
            base = rng.integers(0, n_items, size=(n, 1))
            step = rng.integers(1, 97, size=(n, 1))
            items = ((base + step * np.arange(k)) % n_items).ravel().astype(np.int64)
            score = np.sort(rng.random((n, k), dtype=np.float32), axis=1)[:, ::-1].ravel()
            table = pa.table({"user": uid, "item": items, "score": score})
            if fmt == "parquet":
                if run_writer is None:
                    run_writer = pq.ParquetWriter(run_path, table.schema)
                run_writer.write_table(table, row_group_size=1_000_000)
            else:
                pcsv.write_csv(table, csv_out, write_options=pcsv.WriteOptions(
                    include_header=start == 0))
            # truth: t items per user, half of them at random ranks of the user's own list,
            # the others outside the catalogue of lists (never recommended)
            tu = np.repeat(np.arange(start, start + n, dtype=np.int64), t)
            pos = (rng.integers(0, k, size=(n, 1)) + 7 * np.arange(t // 2)) % k
            from_list = np.take_along_axis(items.reshape(n, k), pos, axis=1)
            other = n_items + (base * 7 + np.arange(t - t // 2)) % n_items
            t_items = np.concatenate([from_list, other], axis=1).ravel()
            rel = rng.integers(1, 4, size=len(tu)).astype(np.float64)
            ttab = pa.table({"user": tu, "item": t_items.astype(np.int64), "relevance": rel})
            if truth_writer is None:
                truth_writer = pq.ParquetWriter(truth_path, ttab.schema)
            truth_writer.write_table(ttab)
    finally:
        if run_writer is not None:
            run_writer.close()
        if truth_writer is not None:
            truth_writer.close()
        if csv_out is not None:
            csv_out.close()
    return run_path, truth_path, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--k", type=int, default=100, help="recommendations per user")
    ap.add_argument("--truth", type=int, default=10, help="truth items per user")
    ap.add_argument("--items", type=int, default=200_000, help="catalogue size")
    ap.add_argument("--format", choices=["parquet", "csv"], default="parquet")
    ap.add_argument("--block-rows", type=int, default=5_000_000)
    ap.add_argument("--dir", default=None, help="folder for the files (default: a temp dir)")
    ap.add_argument("--metrics", default="ndcg@10,map@100,mrr,recall@50,"
                                         "hit_rate@10(level=recommended)")
    args = ap.parse_args()

    folder = args.dir or tempfile.mkdtemp(prefix="receval-bench-")
    os.makedirs(folder, exist_ok=True)
    run_path, truth_path, gen_s = generate(folder, args.users, args.k, args.truth, args.items,
                                           args.format)
    rows = args.users * args.k
    size_mb = os.path.getsize(run_path) / 2 ** 20
    print(f"generated {rows:,} run rows ({size_mb:,.0f} MiB {args.format}) and "
          f"{args.users * args.truth:,} truth rows in {gen_s:.1f}s", flush=True)

    cmd = [sys.executable, "-m", "receval", "evaluate", "--run", run_path, "--truth", truth_path,
           "-m", args.metrics, "--stream", "--block-rows", str(args.block_rows), "--format",
           "json", "--quiet"]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if out.returncode != 0:
        print(out.stderr, file=sys.stderr)
        raise SystemExit(out.returncode)
    data = json.loads(out.stdout)
    print(f"receval evaluate --stream: {wall:.1f}s wall, peak RSS {peak_mib:,.0f} MiB, "
          f"{rows / wall / 1e6:.2f}M rows/s")
    for key, value in data["summary"].items():
        print(f"  {key:<32} {value:.6f}")
    print(json.dumps({"rows": rows, "users": args.users, "format": args.format,
                      "block_rows": args.block_rows, "seconds": round(wall, 2),
                      "peak_rss_mib": round(peak_mib), "file_mib": round(size_mb)}))


if __name__ == "__main__":
    main()
