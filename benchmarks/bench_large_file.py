"""Large-file benchmark: `receval evaluate --stream` on a generated Parquet, CSV or TREC run.

Generates a run of USERS x K rows (grouped by user, as model output is) and a truth of
USERS x T rows, then runs the real command line in a child process and reports its wall time
and peak resident memory. For Parquet it also times the floor, `pyarrow.parquet.read_table` of
the two files (in a child process too), and prints the ratio. Each child runs under its own
measuring process, so every peak RSS is that command's alone. The generator streams in
chunks, so it does not inflate the measured peaks.

    python benchmarks/bench_large_file.py --users 1000000 --k 100          # 100M rows
    python benchmarks/bench_large_file.py --users 200000 --format csv
    python benchmarks/bench_large_file.py --users 1000000 --format trec

Targets (printed as PASS / FAIL, not asserted): Parquet within 3x of the pyarrow read and under
1 GiB peak; a TREC run streamed under 1 GiB.
"""

from __future__ import annotations

import argparse
import json
import os
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
    csv_out = open(run_path, "wb") if fmt in ("csv", "trec") else None  # noqa: SIM115
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
            elif fmt == "csv":
                pcsv.write_csv(table, csv_out, write_options=pcsv.WriteOptions(
                    include_header=start == 0))
            else:  # TREC: qid Q0 docid rank score tag
                rank = np.tile(np.arange(1, k + 1), n)
                lines = pa.table({"q": uid, "q0": pa.array(np.full(len(uid), "Q0")),
                                  "d": items, "r": rank, "s": score,
                                  "t": pa.array(np.full(len(uid), "bench"))})
                pcsv.write_csv(lines, csv_out, write_options=pcsv.WriteOptions(
                    include_header=False, delimiter=" ", quoting_style="none"))
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


# runs one command and prints its wall seconds and peak RSS (its own, as the only child here)
MEASURE = r"""
import json, resource, subprocess, sys, time
t0 = time.perf_counter()
out = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"rc": out.returncode, "wall": wall, "peak_mib": peak, "stdout": out.stdout,
                  "stderr": out.stderr[-2000:]}))
"""
READ_PARQUET = "import pyarrow.parquet as pq, sys; [pq.read_table(p) for p in sys.argv[1:]]"


def measure(cmd: list[str]) -> dict:
    """Wall seconds and peak RSS (MiB) of one command, measured in a process of its own."""
    out = subprocess.run([sys.executable, "-c", MEASURE, *cmd], capture_output=True, text=True,
                         check=True)
    result = json.loads(out.stdout)
    if result["rc"] != 0:
        print(result["stderr"], file=sys.stderr)
        raise SystemExit(result["rc"])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--k", type=int, default=100, help="recommendations per user")
    ap.add_argument("--truth", type=int, default=10, help="truth items per user")
    ap.add_argument("--items", type=int, default=200_000, help="catalogue size")
    ap.add_argument("--format", choices=["parquet", "csv", "trec"], default="parquet")
    ap.add_argument("--block-rows", type=int, default=1_000_000)
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
           "csv", "--digits", "17", "--quiet"]  # the summary table (JSON adds every user's row)
    got = measure(cmd)
    wall, peak_mib = got["wall"], got["peak_mib"]
    lines = got["stdout"].strip().splitlines()[1:]  # metric,mean,std,se,n,skipped
    data = {"summary": {ln.rsplit(",", 5)[0]: float(ln.rsplit(",", 5)[1]) for ln in lines}}
    print(f"receval evaluate --stream: {wall:.1f}s wall, peak RSS {peak_mib:,.0f} MiB, "
          f"{rows / wall / 1e6:.2f}M rows/s")
    for key, value in data["summary"].items():
        print(f"  {key:<32} {value:.6f}")
    record = {"rows": rows, "users": args.users, "format": args.format,
              "block_rows": args.block_rows, "seconds": round(wall, 2),
              "peak_rss_mib": round(peak_mib), "file_mib": round(size_mb)}
    targets = [(f"{args.format} run streamed under 1 GiB peak", peak_mib < 1024,
                f"{peak_mib:,.0f} MiB")] if args.format != "csv" else []
    if args.format == "parquet":
        floor = measure([sys.executable, "-c", READ_PARQUET, run_path, truth_path])
        ratio = wall / floor["wall"]
        print(f"pyarrow.parquet.read_table (run + truth): {floor['wall']:.1f}s wall, peak RSS "
              f"{floor['peak_mib']:,.0f} MiB; receval / read = {ratio:.2f}x")
        record.update(read_seconds=round(floor["wall"], 2), read_peak_mib=round(floor["peak_mib"]),
                      ratio=round(ratio, 2))
        targets.insert(0, ("parquet within 3x of the pyarrow read", ratio <= 3,
                           f"{ratio:.2f}x"))
    for name, ok, detail in targets:
        print(f"target {'PASS' if ok else 'FAIL'}: {name} ({detail})")
    print(json.dumps(record))


if __name__ == "__main__":
    main()
