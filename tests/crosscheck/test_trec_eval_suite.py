"""trec_eval's own test suite (v9.0.8 reference outputs) through the Python API.

The suite lives in the project's shared folder (``X/shared/trec_eval_suite`` beside the ``X/main``
checkout); the tests skip when it is absent. Parameters that reproduce trec_eval: ties broken
trec_eval's way (score as C float descending, then docno descending), negative judgements count
as judged non-relevant, queries in both files (or every qrels query with ``-c``), and relevance
threshold = trec_eval's ``-l`` level.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import receval as rv

SUITE = Path(__file__).resolve().parents[3] / "shared" / "trec_eval_suite"
EXPECTED = SUITE / "expected.json"
pytestmark = pytest.mark.skipif(not EXPECTED.is_file(), reason=f"{EXPECTED} not found")

COUNTS = {"num_rel_ret", "num_rel", "num_ret"}  # trec_eval sums these in 'all'


def read_qrels(path: Path) -> pd.DataFrame:
    """``qid iter docno rel`` lines."""
    rows = [line.split()[:4] for line in path.read_text().splitlines() if line.strip()]
    return pd.DataFrame({"user": [r[0] for r in rows], "item": [r[2] for r in rows],
                         "rel": np.array([float(r[3]) for r in rows])})


def read_results(path: Path, max_docs: int | None = None) -> pd.DataFrame:
    """``qid Q0 docno rank score tag`` lines (anything after the tag is ignored); with
    ``max_docs`` only each query's first max_docs documents in trec_eval's order are kept."""
    rows = [line.split()[:6] for line in path.read_text().splitlines() if line.strip()]
    frame = pd.DataFrame({"user": [r[0] for r in rows], "item": [r[2] for r in rows],
                          "score": np.array([float(r[4]) for r in rows])})
    if max_docs is not None:
        keep = []
        for _, group in frame.groupby("user", sort=False):
            order = sorted(group.index, key=lambda i: (-np.float32(frame.at[i, "score"]),
                                                       _Desc(frame.at[i, "item"])))
            keep.extend(order[:max_docs])
        frame = frame.loc[sorted(keep)].reset_index(drop=True)
    return frame


class _Desc:
    def __init__(self, v: str) -> None:
        self.v = v

    def __lt__(self, other: _Desc) -> bool:
        return self.v.encode() > other.v.encode()


def receval_key(measure: str, rel_level: int) -> str | None:
    """The receval metric key that computes a trec_eval measure, or None."""
    rel = "" if rel_level == 1 else f"rel={rel_level}"

    def with_rel(base: str) -> str:
        return f"{base}({rel})" if rel else base

    simple = {"map": "map", "recip_rank": "mrr", "Rprec": "r_precision", "bpref": "bpref",
              "num_rel_ret": "hits", "num_rel": "num_rel"}
    if measure in simple:
        return with_rel(simple[measure])
    if measure == "num_ret":
        return "num_ret"
    if measure == "ndcg":
        return "ndcg"
    m = re.fullmatch(r"(P|recall|map_cut|ndcg_cut|success)_(\d+)", measure)
    if not m:
        return None
    name, k = m.groups()
    if name == "ndcg_cut":
        return f"ndcg@{k}"
    base = {"P": "precision", "recall": "recall", "map_cut": "map", "success": "hit_rate"}[name]
    return with_rel(f"{base}@{k}")


def _runs() -> list[dict]:
    if not EXPECTED.is_file():
        return []
    return json.loads(EXPECTED.read_text())["runs"]


def _measures(run: dict) -> dict[str, str]:
    out = {}
    for measure in run["values"]["all"]:
        key = receval_key(measure, run["rel_level"])
        if key is not None:
            out[measure] = key
    return out


@pytest.mark.parametrize("run", _runs(), ids=lambda r: r["output"])
def test_trec_eval_reference_output(run):
    data = json.loads(EXPECTED.read_text())
    tol = data["tolerance"]
    folder = SUITE / "v9.0.8"
    qrels = read_qrels(folder / run["qrels"])
    results = read_results(folder / run["results"], run["max_docs"])
    measures = _measures(run)
    keys = list(dict.fromkeys(measures.values()))
    res = rv.evaluate(results, qrels, keys, ties="trec_eval", negative_rel="zero",
                      users="truth" if run["complete"] else "intersection",
                      empty_truth="zero")
    users = [str(u) for u in res.user_ids]
    n_q = run["values"]["all"].get("num_q")
    if n_q is not None:
        assert len(users) == n_q
    problems, compared = [], 0
    for measure, key in measures.items():
        col = res.user_values(rv.metrics.parse_metric(key).key)
        for qid, values in run["values"].items():
            if measure not in values:
                continue
            exp = float(values[measure])
            if qid == "all":
                got = float(np.sum(col)) if measure in COUNTS else float(np.mean(col))
            else:
                got = float(col[users.index(qid)])
            compared += 1
            if not math.isclose(got, exp, abs_tol=tol):
                problems.append(f"{qid} {measure} ({key}): receval {got:.6f}, trec_eval {exp}")
    assert not problems, "\n".join(problems[:30])
    assert compared >= len(measures)


def test_parser_reads_the_suite():
    folder = SUITE / "v9.0.8"
    qrels = read_qrels(folder / "qrels.test")
    results = read_results(folder / "results.trunc")
    lines = (folder / "qrels.test").read_text().splitlines()
    assert len(qrels) == sum(1 for line in lines if line.strip())
    assert set(results.columns) == {"user", "item", "score"}
    assert read_results(folder / "results.test", 100).groupby("user").size().max() == 100
