"""trec_eval's own test suite (v9.0.8 reference outputs) through the Python API.

The suite lives in the project's shared folder (``X/shared/trec_eval_suite`` beside the ``X/main``
checkout); the tests skip when it is absent. Parameters that reproduce trec_eval: ties broken
trec_eval's way (score as C float descending, then docno descending), negative judgements count
as judged non-relevant, queries in both files (or every qrels query with ``-c``): the
``compat="trec_eval"`` preset, with ``users="truth"`` for ``-c``; relevance threshold =
trec_eval's ``-l`` level. Which receval metric computes each measure, and how its ``all`` line
is formed, is the one table of foreign names' (:data:`receval.metrics.foreign.TREC_EVAL`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.metrics import MetricSpec, metric
from receval.metrics.foreign import trec_measure

SUITE = Path(__file__).resolve().parents[3] / "shared" / "trec_eval_suite"
EXPECTED = SUITE / "expected.json"
pytestmark = pytest.mark.skipif(not EXPECTED.is_file(), reason=f"{EXPECTED} not found")

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


def receval_name(column: str, rel_level: int) -> str | MetricSpec | None:
    """What ``rv.evaluate(..., compat="trec_eval")`` is given for one printed trec_eval column:
    the column itself at trec_eval's default level, else the receval spec of the one table of
    foreign names at that level (the measure's :meth:`~TrecMeasure.target`, summarised as
    ``compat`` summarises it); None for a measure without a receval metric."""
    found = trec_measure(column)
    if found is None:
        return None
    measure, text = found
    if not measure.maps(text):
        return None
    if rel_level == 1:
        return column
    values = measure.parse(text)
    value = None if not text else values if measure.kind == "params" else values[0]
    spec = measure.target(value, float(rel_level))
    return metric(spec.name, spec.k, **{**dict(spec.params), **dict(measure.compat_params)})


def _runs() -> list[dict]:
    if not EXPECTED.is_file():
        return []
    return json.loads(EXPECTED.read_text())["runs"]


def _measures(run: dict) -> dict[str, str | MetricSpec]:
    out = {}
    for column in run["values"]["all"]:
        name = receval_name(column, run["rel_level"])
        if name is not None:
            out[column] = name
    return out


@pytest.mark.parametrize("run", _runs(), ids=lambda r: r["output"])
def test_trec_eval_reference_output(run):
    """Every column the table maps, per query and on the ``all`` line (sums, geometric means
    and the count of queries included), as ``compat="trec_eval"`` reports it. Negative
    judgements are unjudged (``negative_rel="drop"``), as trec_eval reads them; ``infAP``
    over qrels with such lines reads them as pooled, which only ``receval trec`` does."""
    data = json.loads(EXPECTED.read_text())
    tol = data["tolerance"]
    folder = SUITE / "v9.0.8"
    qrels = read_qrels(folder / run["qrels"])
    results = read_results(folder / run["results"], run["max_docs"])
    measures = _measures(run)
    if (qrels["rel"] < 0).any():  # pooled but unjudged documents: only receval trec reads them
        measures.pop("infAP", None)
    res = rv.evaluate(results, qrels, list(measures.values()), compat="trec_eval",
                      users="truth" if run["complete"] else "intersection",
                      negative_rel="drop")
    users = [str(u) for u in res.user_ids]
    n_q = run["values"]["all"].get("num_q")
    if n_q is not None:
        assert len(users) == n_q
    problems, compared = [], set()
    for column, name in measures.items():
        key = name.key if isinstance(name, MetricSpec) else name
        col = res.user_values(key)
        for qid, values in run["values"].items():
            if column not in values:
                continue
            exp = float(values[column])
            got = float(res[key]) if qid == "all" else float(col[users.index(qid)])
            compared.add(column)
            if not math.isclose(got, exp, abs_tol=tol):
                problems.append(f"{qid} {column} ({key}): receval {got:.6f}, trec_eval {exp}")
    assert not problems, "\n".join(problems[:30])
    assert compared == set(measures)
    for column in set(run["values"]["all"]) - set(measures):  # what is left is not a number
        measure, text = trec_measure(column)  # type: ignore[misc]  # or has no receval metric
        assert measure.name == "infAP" or (measure.family is None and measure.kind in (
            "string", "params")) or (text and measure.kind == "params" and measure.arg is None)


def test_parser_reads_the_suite():
    folder = SUITE / "v9.0.8"
    qrels = read_qrels(folder / "qrels.test")
    results = read_results(folder / "results.trunc")
    lines = (folder / "qrels.test").read_text().splitlines()
    assert len(qrels) == sum(1 for line in lines if line.strip())
    assert set(results.columns) == {"user", "item", "score"}
    assert read_results(folder / "results.test", 100).groupby("user").size().max() == 100
