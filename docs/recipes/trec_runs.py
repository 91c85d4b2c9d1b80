"""Evaluate a set of TREC runs against qrels like trec_eval, from Python and from the shell.

The collection is generated here (5 topics, 3 runs) so the recipe runs anywhere; with a real
one, point ``load_trec`` at your qrels file and run folder."""

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from receval.datasets import load_trec

# Write a small collection in the standard layouts: qrels 'qid iter docno rel',
# runs 'qid Q0 docno rank score tag'.
root = Path(tempfile.mkdtemp())
(root / "runs").mkdir()
rng = np.random.default_rng(3)
docs = [f"D{d:03d}" for d in range(60)]
qrels = [f"{q} 0 {d} {rng.choice([0, 0, 1, 2])}" for q in range(401, 406)
         for d in rng.choice(docs, 15, replace=False)]
(root / "qrels.401-405.txt").write_text("\n".join(qrels) + "\n")
for name in ("bm25", "dense", "hybrid"):
    lines = []
    for q in range(401, 406):
        ranked = rng.choice(docs, 20, replace=False)
        scores = np.sort(rng.random(20))[::-1] * 10
        lines += [f"{q} Q0 {d} {r + 1} {s:.4f} {name}" for r, (d, s) in
                  enumerate(zip(ranked, scores, strict=True))]
    (root / "runs" / f"{name}.run").write_text("\n".join(lines) + "\n")

# Python: one call reads the qrels and every run; evaluate() applies trec_eval's semantics.
col = load_trec(root)
measures = ["map", "P.5", "ndcg_cut.10", "recip_rank"]
results = col.evaluate(measures)
for name, res in results.items():
    print(f"== {name}")
    print("\n".join(res.lines()))

# Shell: the same numbers from `receval trec`, trec_eval's flags and output layout.
cli = subprocess.run([sys.executable, "-m", "receval", "trec", str(root / "qrels.401-405.txt"),
                      str(root / "runs" / "bm25.run"), "-m", "map", "-m", "P.5",
                      "-m", "ndcg_cut.10", "-m", "recip_rank"],
                     capture_output=True, text=True, check=True).stdout
print("receval trec output equals the Python lines:",
      cli.strip().splitlines() == results["bm25.run"].lines())
