"""repro_eval's reproducibility measures (receval.stats.meta.reproducibility) against repro_eval.

Seeded random graded qrels (0..2) and four runs (original and reproduced baseline and advanced)
written as TREC files, with what separates conventions: tied scores (one decimal; both order
ties by document id descending), topics whose lists have different lengths, reproduced lists
that share only part of the original documents, a run longer than KTU's cutoff in one setting.
repro_eval (``RpdEvaluator``: ``trim``, ``evaluate``, then ``ktu``, ``rbo``, ``rmse``, ``nrmse``,
``er``, ``dri``) evaluates with ir_measures; receval evaluates the same frames under
``compat="ir_measures"``. Per line::

    status  measure  run / metric  topics  max |diff|

``PASS``: within 1e-9 (per topic for KTU and RBO). Run in a virtual environment with
repro_eval and receval (outside the repository)::

    python3.11 -m venv /tmp/meta-env
    /tmp/meta-env/bin/pip install repro_eval numpy pandas scipy
    /tmp/meta-env/bin/pip install -e . --no-deps
    /tmp/meta-env/bin/python benchmarks/peers/check_repro_eval.py

The exit status is 1 on any FAIL.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import warnings

import ir_measures
import numpy as np
import pandas as pd
import repro_eval
from repro_eval.Evaluator import RpdEvaluator

from receval.stats import meta

TOL = 1e-9
MEASURES = ["P@10", "nDCG@10", "AP", "RR", "nDCG", "R@20"]
FAILS = 0


def data(seed: int, topics: int, long: bool) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    rng = np.random.default_rng(seed)
    qrels, runs = [], {k: [] for k in ("b_orig", "a_orig", "b_rep", "a_rep")}
    for t in range(topics):
        q = f"q{t:03d}"
        length = int(rng.integers(3, 25)) if not long else int(rng.integers(20, 40))
        pool = [f"d{t:03d}_{i:04d}" for i in range(int(rng.integers(2 * length + 25,
                                                                   2 * length + 60)))]
        judged = rng.choice(pool, size=int(rng.integers(5, 25)), replace=False)
        rel = rng.integers(0, 3, size=judged.size)
        rel[0] = max(rel[0], 1)                                  # one relevant document
        qrels += [(q, d, int(r)) for d, r in zip(judged, rel, strict=True)]
        base = rng.choice(pool, size=length, replace=False)
        for k in runs:
            if k.endswith("rep"):                                # swap some documents out
                docs = base.copy()
                swap = rng.random(length) < 0.3
                extra = [d for d in pool if d not in set(base)]
                docs[swap] = rng.choice(extra, size=int(swap.sum()), replace=False)
                docs = rng.permutation(docs) if rng.random() < 0.5 else docs
            else:
                docs = rng.permutation(base)
            scores = np.round(rng.random(length) * 2, 1)          # ties
            runs[k] += [(q, d, float(s)) for d, s in zip(docs, scores, strict=True)]
    qrels_df = pd.DataFrame(qrels, columns=["user", "item", "rel"])
    return qrels_df, {k: pd.DataFrame(v, columns=["user", "item", "score"]) for k, v in runs.items()}


def write(path: str, frame: pd.DataFrame, kind: str) -> None:
    with open(path, "w") as f:
        if kind == "qrels":
            for u, i, r in frame.itertuples(index=False):
                f.write(f"{u} 0 {i} {r}\n")
        else:   # sorted by score descending, ties in the frame's order (repro_eval breaks them)
            frame = frame.sort_values(["user", "score"], ascending=[True, False], kind="stable")
            for rank, (u, i, s) in enumerate(frame.itertuples(index=False)):
                f.write(f"{u} Q0 {i} {rank + 1} {s} run\n")


def line(status_ok: bool, measure: str, what: str, n: int, diff: float) -> None:
    global FAILS
    FAILS += not status_ok
    print(f"{'PASS' if status_ok else 'FAIL'}  {measure:8s} {what:28s} {n:5d}  {diff:.2e}")


def compare(a: float, b: float) -> tuple[bool, float]:
    if np.isnan(a) and np.isnan(b):
        return True, 0.0
    d = abs(a - b)
    return bool(d <= TOL), float(d)


def check(seed: int, topics: int, long: bool, p: float, depth: int, cutoff: int) -> None:
    qrels, runs = data(seed, topics, long)
    print(f"# seed={seed} topics={topics} p={p} depth={depth} cutoff={cutoff}")
    with tempfile.TemporaryDirectory() as tmp:
        paths = {k: os.path.join(tmp, k) for k in runs}
        for k, frame in runs.items():
            write(paths[k], frame, "run")
        write(os.path.join(tmp, "qrels"), qrels, "qrels")
        ev = RpdEvaluator(qrels_orig_path=os.path.join(tmp, "qrels"),
                          run_b_orig_path=paths["b_orig"], run_a_orig_path=paths["a_orig"],
                          run_b_rep_path=paths["b_rep"], run_a_rep_path=paths["a_rep"])
        ev.measures = [ir_measures.parse_measure(m) for m in MEASURES]
        ev.trim(cutoff)
        ev.evaluate()
        ref = {"ktu": ev.ktu(per_topic=True), "rbo": ev.rbo(per_topic=True, p=p, depth=depth),
               "rmse": ev.rmse(), "nrmse": ev.nrmse(), "er": ev.er(), "dri": ev.dri()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # repro_eval trims every run to ``cutoff`` before RBO too: receval cuts the frames alike
        cut = {k: v.sort_values(["user", "score", "item"], ascending=[True, False, False])
               .groupby("user", sort=False).head(cutoff) for k, v in runs.items()}
        mine = meta.reproducibility({"baseline": cut["b_orig"], "advanced": cut["a_orig"]},
                                    {"baseline": cut["b_rep"], "advanced": cut["a_rep"]},
                                    qrels, MEASURES, p=p, depth=depth, cutoff=cutoff,
                                    compat="ir_measures")
    for role, key in (("baseline", "baseline"), ("advanced", "advanced")):
        order = mine.order[mine.order["run"] == role].set_index("topic")
        for m in ("ktu", "rbo"):
            diffs = [compare(float(order.loc[t, m]), float(v)) for t, v in ref[m][key].items()]
            ok = all(d[0] for d in diffs) and len(order) == len(ref[m][key])
            line(ok, m.upper(), f"{role} per topic", len(diffs), max(d[1] for d in diffs))
        eff = mine.effectiveness[mine.effectiveness["run"] == role].set_index("metric")
        for m in ("rmse", "nrmse"):
            for name in MEASURES:
                ok, d = compare(float(eff.loc[name, m]), float(ref[m][key][name]))
                line(ok, m.upper(), f"{role} {name}", int(eff.loc[name, "topics"]), d)
    eff = mine.effects.set_index("metric")
    for m, col in (("er", "er"), ("dri", "delta_ri")):
        for name in MEASURES:
            ok, d = compare(float(eff.loc[name, col]), float(ref[m][name]))
            line(ok, m.upper(), name, topics, d)


def main() -> int:
    print(f"repro_eval {getattr(repro_eval, '__version__', '0.5.0')}, ir_measures "
          f"{ir_measures.__version__}, python {platform.python_version()}")
    check(1, 40, False, 0.95, 1000, 1000)
    check(2, 25, False, 0.8, 10, 1000)
    check(3, 30, True, 0.9, 50, 15)          # KTU and RBO on lists cut at 15
    print(f"{FAILS} FAIL")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
