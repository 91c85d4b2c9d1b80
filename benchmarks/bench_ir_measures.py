"""ir_measures' default pipeline (pytrec_eval) against receval as an ir_measures provider, on
one run set: ``calc_aggregate`` of five measures, best of ``--repeat``.

    python benchmarks/bench_ir_measures.py --topics 10000 --docs 100
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd


def main() -> None:
    import ir_measures as irm

    from receval.integrations import ir_measures as rv_irm

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    n, k = args.topics, args.docs
    qids = np.char.add("q", np.arange(n).astype(str))
    run = pd.DataFrame({"query_id": np.repeat(qids, k),
                        "doc_id": np.char.add("d", (np.arange(n * k) % 5000).astype(str)),
                        "score": rng.random(n * k)})
    qrels = pd.DataFrame({"query_id": np.repeat(qids, 10),
                          "doc_id": np.char.add("d", rng.choice(5000, n * 10).astype(str)),
                          "relevance": rng.integers(0, 3, n * 10)})
    qrels = qrels.drop_duplicates(["query_id", "doc_id"])
    measures = [irm.nDCG @ 10, irm.P @ 10, irm.AP, irm.R @ 100, irm.Success @ 10]
    prov = rv_irm.provider()
    print(f"{n:,} topics, {len(run):,} run rows, {len(qrels):,} qrels")
    out = {}
    for name, calc in (("ir_measures default", irm.calc_aggregate),
                       ("receval provider", prov.calc_aggregate)):
        best = float("inf")
        for _ in range(args.repeat):
            t = time.perf_counter()
            out[name] = calc(measures, qrels, run)
            best = min(best, time.perf_counter() - t)
        print(f"{name:20s} {best:8.3f} s")
        out[name + " s"] = best
    diff = max(abs(out["receval provider"][m] - out["ir_measures default"][m]) for m in measures)
    ratio = out["ir_measures default s"] / out["receval provider s"]
    print(f"receval provider {ratio:.1f}x faster; max |difference| of the means {diff:.1e}")


if __name__ == "__main__":
    main()
