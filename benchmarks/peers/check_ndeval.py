"""Intent-aware diversity measures (receval.trec.diversity) against pyndeval 0.0.8 (ndeval 4.5).

Seeded random subtopic judgments and runs with what separates conventions: graded judgments
0..3 (binary at rel=1 and at rel=2), queries with one subtopic, queries whose judgments have
no relevant document, documents judged for several subtopics, unjudged retrieved documents,
tied scores (pyndeval orders ties by document id ascending, as receval's ties="id"), empty and
short lists, a run query without judgments, alpha / beta other than 0.5. Every measure
pyndeval computes, at every cutoff it allows (1..20), plus NRBP, nNRBP and MAP-IA, per query:

    status  measure(params)  receval key  queries  max |diff|

``PASS``: every query within 1e-9 (NaN where both are NaN). Then a micro benchmark: Q topics x
1000 retrieved documents x 5 subtopics, the 21 measures ndeval prints, receval
(``rv.evaluate``) against pyndeval (``RelevanceEvaluator`` + ``evaluate``), the median wall
time of ``--repeat`` interleaved rounds of each, and the largest difference over every query
and measure. The frames hold pandas' default ``str`` columns (Arrow-held with pyarrow).

Run in a virtual environment with pyndeval and receval (outside the repository)::

    python3 -m venv /tmp/ndeval-env
    /tmp/ndeval-env/bin/pip install pyndeval==0.0.8 numpy pandas pyarrow scipy
    /tmp/ndeval-env/bin/pip install -e . --no-deps
    /tmp/ndeval-env/bin/python benchmarks/peers/check_ndeval.py [--topics 10000]

The exit status is 1 on any FAIL.
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import sys
import time

import numpy as np
import pandas as pd
import pyndeval

import receval as rv
from receval.metrics import canonical_key

NAMES = {"ERR-IA": "err_ia", "nERR-IA": "nerr_ia", "alpha-DCG": "alpha_dcg",
         "alpha-nDCG": "alpha_ndcg", "P-IA": "p_ia", "strec": "strec", "NRBP": "nrbp",
         "nNRBP": "nnrbp", "MAP-IA": "ap_ia"}
CUT = ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "P-IA", "strec")
WHOLE = ("NRBP", "nNRBP", "MAP-IA")
DEFAULT = [f"{m}@{k}" for m in CUT for k in (5, 10, 20)] + list(WHOLE)


def key_of(measure: str, params: dict) -> str:
    base, _, k = measure.partition("@")
    name = NAMES[base]
    p = {n: v for n, v in params.items()
         if n in ("alpha", "rel") or (n == "beta" and name in ("nrbp", "nnrbp"))}
    if name in ("p_ia", "strec", "ap_ia"):
        p.pop("alpha", None)
    if k == "1" and name in ("alpha_dcg", "err_ia"):
        p["rank1"] = "ndeval"
    defaults = {"alpha": 0.5, "beta": 0.5, "rel": 1}
    args = ",".join(f"{n}={v}" for n, v in sorted(p.items()) if v != defaults.get(n))
    return canonical_key(name + (f"@{k}" if k else "") + (f"({args})" if args else ""))


def random_data(seed: int, topics: int) -> tuple[list, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(topics):
        qid = f"q{q:03d}"
        kind = q % 10
        n_sub = 1 if kind in (1, 2) else int(rng.integers(2, 7))
        pool = list(dict.fromkeys(f"d{int(rng.integers(0, 90)):02d}"
                                  for _ in range(int(rng.integers(1, 40)))))
        for d in pool:
            for s in rng.choice(n_sub, size=int(rng.integers(1, n_sub + 1)), replace=False):
                grade = 0 if kind == 3 else int(rng.choice(4, p=[0.45, 0.3, 0.15, 0.1]))
                qrels.append((qid, str(int(s)), d, grade))
        if kind == 4:
            continue  # judged, not retrieved: not in pyndeval's output
        n = 0 if kind == 5 else int(rng.integers(1, 60))
        docs = list(dict.fromkeys([*(str(rng.choice(pool)) for _ in range(n // 2)),
                                   *(f"d{int(rng.integers(0, 120)):02d}" for _ in range(n))]))
        for d in docs:
            run.append((qid, d, float(rng.integers(0, 6))))  # few values: ties
    run += [("zz-unjudged", "d01", 1.0), ("zz-unjudged", "d02", 0.5)]
    # pyndeval numbers subtopics in order of first appearance over all queries; sorting by
    # subtopic makes that the sorted order receval uses (it fixes the order of the sums)
    qrels.sort(key=lambda r: (r[1], r[0], r[2]))
    return qrels, pd.DataFrame(run, columns=["query", "doc", "score"])


def evaluate_receval(qrels: list, run: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    intents = pd.DataFrame(qrels, columns=["query", "subtopic", "doc", "relevance"])
    truth = intents.groupby(["query", "doc"], as_index=False)["relevance"].max()
    res = rv.evaluate(run, truth, keys, intents=intents)
    return res.per_user


def check(seed: int, topics: int, params: dict) -> list[tuple[str, str, str, int, float]]:
    qrels, run = random_data(seed, topics)
    measures = [f"{m}@{k}" for m in CUT for k in range(1, 21)] + list(WHOLE)
    ev = pyndeval.RelevanceEvaluator(qrels, measures, relevance_level=params["rel"],
                                     alpha=params["alpha"], beta=params["beta"])
    ref = ev.evaluate(list(run.itertuples(index=False, name=None)))
    keys = [key_of(m, params) for m in measures]
    per_user = evaluate_receval(qrels, run, keys)
    lines = []
    for m, key in zip(measures, keys, strict=True):
        worst, ok = 0.0, True
        for q, vals in ref.items():
            a, b = vals[m], float(per_user.loc[q, key])
            if np.isnan(a) or np.isnan(b):
                ok &= bool(np.isnan(a) and np.isnan(b))
                continue
            worst = max(worst, abs(a - b))
        # queries judged but not retrieved: not in pyndeval's output; 0 as ndeval -c prints
        # them (nNRBP NaN, 0 / 0, where the query has no relevant document)
        judged = {r[0] for r in qrels}
        extra = [q for q in per_user.index if q not in ref
                 and not (q in judged and (per_user.loc[q, key] == 0.0 or (
                     key.startswith("nnrbp") and np.isnan(per_user.loc[q, key]))))]
        ok &= worst <= 1e-9 and not extra
        lines.append(("PASS" if ok else "FAIL", m, key, len(ref), worst))
    return lines


def bench(topics: int, repeat: int = 5, seed: int = 7) -> None:
    rng = np.random.default_rng(seed)
    docs_per_topic, n_sub, judged = 1000, 5, 100
    q = np.repeat(np.arange(topics), judged)
    d = np.concatenate([rng.choice(docs_per_topic, judged, replace=False)
                        for _ in range(topics)])
    rows = []
    for s in range(n_sub):
        on = rng.random(len(q)) < 0.25
        grade = rng.integers(0, 3, len(q))
        rows.append(pd.DataFrame({"query": q[on], "subtopic": s, "doc": d[on],
                                  "relevance": grade[on]}))
    qr = pd.concat(rows, ignore_index=True)
    qr["query"] = "q" + qr["query"].astype(str)
    qr["doc"] = "d" + qr["doc"].astype(str)
    qr["subtopic"] = qr["subtopic"].astype(str)
    run = pd.DataFrame({"query": np.repeat(np.arange(topics), docs_per_topic),
                        "doc": np.tile(np.arange(docs_per_topic), topics),
                        "score": rng.random(topics * docs_per_topic)})
    run["query"] = "q" + run["query"].astype(str)
    run["doc"] = "d" + run["doc"].astype(str)
    qr = qr.sort_values(["subtopic", "query", "doc"], kind="stable")
    qrels = list(qr[["query", "subtopic", "doc", "relevance"]].itertuples(index=False,
                                                                          name=None))
    run_tuples = list(run.itertuples(index=False, name=None))
    keys = [key_of(m, {"alpha": 0.5, "beta": 0.5, "rel": 1}) for m in DEFAULT]
    intents = qr.rename(columns={})
    truth = intents.groupby(["query", "doc"], as_index=False)["relevance"].max()
    # the inputs of both tools (among them 11M tuples) are kept out of the garbage collector's
    # passes, so that a collection started in one tool's call does not walk them
    gc.collect()
    gc.freeze()

    def timed(f):  # (wall time, result)
        gc.collect()
        t0 = time.perf_counter()
        out = f()
        return time.perf_counter() - t0, out

    times: dict[str, list[float]] = {"receval": [], "pack": [], "pyndeval": []}
    for _ in range(max(1, repeat)):  # interleaved rounds: a busy moment hits every tool
        t, res = timed(lambda: rv.evaluate(run, truth, keys, intents=intents))
        times["receval"].append(t)
        # reading and packing the same whole lists, one measure
        times["pack"].append(timed(lambda: rv.evaluate(run, truth, ["ap"]))[0])
        t, ref = timed(lambda: pyndeval.ndeval(qrels, run_tuples, DEFAULT))
        times["pyndeval"].append(t)
    t_receval, t_pack, t_pyndeval = (statistics.median(times[k])
                                     for k in ("receval", "pack", "pyndeval"))
    worst = 0.0
    pu = res.per_user
    for m, key in zip(DEFAULT, keys, strict=True):
        a = np.array([ref[qq][m] for qq in pu.index])
        b = pu[key].to_numpy()
        both = ~(np.isnan(a) & np.isnan(b))
        worst = max(worst, float(np.nanmax(np.abs(a[both] - b[both]))))
    print(f"\nbenchmark: {topics} topics x {docs_per_topic} retrieved documents x {n_sub} "
          f"subtopics ({len(qr)} subtopic judgments, {len(run)} run rows), {len(DEFAULT)} "
          f"measures; medians of {max(1, repeat)} interleaved rounds")
    print(f"  receval rv.evaluate (pack + measures):   {t_receval:8.2f} s")
    print(f"  of which reading + packing the run:      {t_pack:8.2f} s (rv.evaluate of 'ap')")
    print(f"  pyndeval.ndeval (parse + measures):      {t_pyndeval:8.2f} s")
    print(f"  speed-up: {t_pyndeval / t_receval:.1f}x end to end, "
          f"{t_pyndeval / max(t_receval - t_pack, 1e-9):.1f}x for the measures after packing; "
          f"largest |diff| over every query and "
          f"measure: {worst:.2e}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--topics", type=int, default=10000, help="benchmark topics")
    parser.add_argument("--repeat", type=int, default=5, help="benchmark rounds (medians)")
    args = parser.parse_args()
    print(f"python {platform.python_version()}, pyndeval 0.0.8, numpy {np.__version__}, "
          f"receval {rv.__version__}")
    print(f"{'status':6}  {'pyndeval measure (params)':38}  {'receval key':40}  queries  "
          "max|diff|")
    failed = 0
    for seed, params in ((1, {"alpha": 0.5, "beta": 0.5, "rel": 1}),
                         (2, {"alpha": 0.5, "beta": 0.5, "rel": 2}),
                         (3, {"alpha": 0.3, "beta": 0.8, "rel": 1}),
                         (4, {"alpha": 1.0, "beta": 0.2, "rel": 1})):
        for status, m, key, n, worst in check(seed, 120, params):
            failed += status != "PASS"
            label = f"{m} (alpha={params['alpha']}, beta={params['beta']}, rel={params['rel']})"
            print(f"{status:6}  {label:38}  {key:40}  {n:7d}  {worst:.1e}")
    print(f"\n{'all lines PASS' if not failed else f'{failed} line(s) FAIL'}")
    if args.topics:
        bench(args.topics, args.repeat)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
