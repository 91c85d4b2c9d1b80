"""PyTerrier's ``pt.Experiment`` with ir_measures' default providers against the same call with
receval registered first in ir_measures' pipeline (``receval.integrations.ir_measures.register``):
the same table, and the time of each, best of ``--repeat``.

The systems are runs given as frames (``pt.Transformer.from_df``): no index and no Java are
needed (PyTerrier 1.x). Run in an environment with python-terrier and receval::

    python3.11 -m venv /tmp/pt-env
    /tmp/pt-env/bin/pip install python-terrier pyarrow
    /tmp/pt-env/bin/pip install -e . --no-deps    # receval
    /tmp/pt-env/bin/python benchmarks/bench_pyterrier.py --topics 10000 --docs 100

The exit status is 1 when a value differs by more than 1e-12.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd


def _frames(n: int, k: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    rng = np.random.default_rng(seed)
    qids = np.char.add("q", np.arange(n).astype(str))
    topics = pd.DataFrame({"qid": qids, "query": "a query"})
    res = [pd.DataFrame({"qid": np.repeat(qids, k),
                         "docno": np.char.add("d", ((np.arange(n * k) * (s + 1)) % 5000)
                                              .astype(str)),
                         "score": rng.random(n * k).round(2)})  # 2 decimals: tied scores
           for s in range(2)]
    for r in res:
        r["rank"] = r.groupby("qid")["score"].rank(ascending=False, method="first") \
            .astype(int) - 1
    qrels = pd.DataFrame({"qid": np.repeat(qids, 10),
                          "docno": np.char.add("d", rng.choice(5000, n * 10).astype(str)),
                          "label": rng.integers(0, 3, n * 10)})
    return topics, qrels.drop_duplicates(["qid", "docno"]), res


def main() -> int:
    import ir_measures as irm
    import pyterrier as pt

    from receval.integrations import ir_measures as rv_irm

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    topics, qrels, res = _frames(args.topics, args.docs)
    systems = [pt.Transformer.from_df(r) for r in res]
    metrics = [irm.nDCG @ 10, irm.P @ 10, irm.AP, irm.R @ 100, irm.Success @ 10,
               irm.P(rel=2) @ 5, irm.Rprec]
    print(f"pyterrier {pt.__version__}, ir_measures {irm.__version__}; {args.topics:,} topics, "
          f"{len(res[0]):,} rows per system, 2 systems, {len(metrics)} measures")

    def experiment() -> pd.DataFrame:
        return pt.Experiment(systems, topics, qrels, eval_metrics=metrics,
                             names=["sys0", "sys1"])

    times, tables = {}, {}
    for name in ("ir_measures default", "receval registered"):
        if name.startswith("receval"):
            rv_irm.register()
        best = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            tables[name] = experiment()
            best = min(best, time.perf_counter() - t0)
        times[name] = best
        rv_irm.unregister()
    a, b = tables["ir_measures default"], tables["receval registered"]
    cols = [c for c in a.columns if c != "name"]
    diff = float(np.max(np.abs(a[cols].to_numpy(float) - b[cols].to_numpy(float))))
    print(b.to_string(index=False))
    for name, t in times.items():
        print(f"  {name:22s} {t:8.3f} s")
    print(f"  speed-up {times['ir_measures default'] / times['receval registered']:.1f}x; "
          f"largest |difference| {diff:.1e}")
    return 0 if diff <= 1e-12 else 1


if __name__ == "__main__":
    sys.exit(main())
