"""Type-checked by mypy (``mypy`` reads its settings from pyproject.toml), never run by pytest:
user code written against the public API, which must type-check with the shipped py.typed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

import receval as rv
from receval.datasets import TrecCollection, load_movielens, load_trec
from receval.errors import MissingExtensionError, RecevalError
from receval.metrics import MetricDef, MetricSpec, list_metrics
from receval.metrics.describe import describe, reference_markdown
from receval.topk import TopK, topk_from_scores


def evaluate_frames(run: pd.DataFrame, truth: pd.DataFrame) -> float:
    res: rv.EvalResult = rv.evaluate(run, truth, ["ndcg@10", "mrr"], ties="average")
    ev = rv.Evaluator(truth, ["ndcg@10"])
    other: rv.EvalResult = ev.evaluate(run, name="other")
    assert other is not None
    return float(res.summary["ndcg@10"])


def metrics_api() -> list[str]:
    spec: MetricSpec = rv.parse_metric("ndcg@10(gain=exp)")
    specs: list[MetricSpec] = rv.parse_metrics("ndcg@10,mrr")
    defs: list[MetricDef] = list_metrics()
    texts: list[str] = [describe(d) for d in defs]
    return [spec.key, *(s.key for s in specs), reference_markdown(), *texts]


def topk_api(scores: np.ndarray, train: sp.csr_matrix) -> np.ndarray:
    top: TopK = topk_from_scores(scores, 10, exclude=train)
    return top.items


def datasets_api(path: str) -> int:
    ratings: pd.DataFrame = load_movielens(path, datetime=True)
    col: TrecCollection = load_trec(path)
    runs: dict[str, pd.DataFrame] = col.runs
    return len(ratings) + len(runs)


def errors_api() -> type[RecevalError]:
    return MissingExtensionError
