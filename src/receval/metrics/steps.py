"""One user's value, step by step: what a metric's ``explain`` hook reads and returns.

A :class:`~receval.metrics.spec.MetricDef` may carry ``explain(spec, user) -> Steps | None``:
its own step-by-step display (as trec_eval's measures print their own steps), written beside
its formula. The hook reads the user's list exactly as :func:`receval.evaluate` packed it
(:class:`UserList`) and returns the position table, the steps and the value computed in plain
Python (:class:`Steps`), or ``None`` for a parameter choice it has no rule for. The engine's
own rules stay outside the hooks: the empty-truth policy, the condensing and duplicate rules
(applied before the list reaches the hook).

:class:`Positions` is the table most ranking hooks start from: for ``b_i = [rel_i >= rel]``,
``R`` the relevant truth items and ``K`` the cutoff (the list length without one), the rows
``rank, item, score, relevance, relevant, hits`` of the first ``K`` positions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: Smallest positive double: "relevant" for graded metrics means relevance > 0.
POSITIVE = float(np.nextafter(0.0, 1.0))


@dataclass(frozen=True)
class UserList:
    """One user's packed list: ``items`` in evaluation order with their ``scores``, the
    user's truth rows (``truth``: item -> relevance), the largest relevance of the whole truth
    (``truth_max``, the automatic scale of ERR and C/W/L gains) and, for the metrics that
    compare two runs, the baseline run's list of the same user (``baseline``)."""

    items: list[Any]
    scores: list[float]
    truth: dict[Any, float]
    truth_max: float = 0.0
    baseline: list[Any] | None = None


@dataclass
class Steps:
    """A hook's answer: the position table, the steps in words and the value; optionally a
    second table (``ideal_*``: the ideal list of the DCG family) and notes."""

    columns: list[str]
    rows: list[list[Any]]
    steps: list[str]
    value: float
    ideal_title: str = ""
    ideal_columns: list[str] = field(default_factory=list)
    ideal_rows: list[list[Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def num(v: float | None) -> str:
    """A value as the steps print it (``nan`` for a missing or NaN value)."""
    return "nan" if v is None or (isinstance(v, float) and math.isnan(v)) else repr(float(v))


def threshold(spec: Any) -> float:
    """The relevance threshold of ``spec``: its ``rel`` parameter, else ``relevance > 0``."""
    return float(spec.get("rel")) if any(p.name == "rel" for p in spec.definition.params) \
        else POSITIVE


class Positions:
    """The rows ``rank, item, score, relevance, relevant, hits`` of a user's list, cut at the
    spec's k (``whole=True``: every position, for measures that read the whole list).

    Attributes: ``thr`` (relevance threshold), ``L`` (list length), ``K`` (cutoff, ``L``
    without one), ``rels`` and ``b`` (relevance and ``[rel_i >= thr]`` of each shown
    position), ``R`` (relevant truth items), ``h`` (hits shown), ``at`` (``"@k"`` or ``""``).
    """

    def __init__(self, spec: Any, user: UserList, whole: bool = False) -> None:
        self.spec, self.user = spec, user
        self.thr = threshold(spec)
        self.L = len(user.items)
        self.K = spec.k if spec.k is not None else self.L
        self.at = f"@{spec.k}" if spec.k is not None else ""
        shown = list(zip(user.items, user.scores, strict=True))
        self.shown = shown if whole else shown[:self.K]
        truth = user.truth
        self.rels = [truth.get(it, 0.0) for it, _ in self.shown]
        self.b = [1 if it in truth and truth[it] >= self.thr else 0 for it, _ in self.shown]
        self.R = sum(1 for r in truth.values() if r >= self.thr)
        self.columns = ["rank", "item", "score", "relevance", "relevant", "hits"]
        self.rows: list[list[Any]] = []
        h = 0
        for i, ((it, s), r, bi) in enumerate(zip(self.shown, self.rels, self.b, strict=True),
                                             start=1):
            h += bi
            self.rows.append([i, it, float(s), r if it in truth else "-",
                              "yes" if bi else "", h])
        self.h = h
        self.steps: list[str] = []
        if any(p.name == "rel" for p in spec.definition.params):
            self.steps.append(f"R (truth items with relevance >= {self.thr:g}) = {self.R}")

    def add(self, *columns: str) -> None:
        """Name the columns the hook appends to each row."""
        self.columns += list(columns)

    def done(self, value: float, **extra: Any) -> Steps:
        """The hook's answer with these rows and steps."""
        return Steps(self.columns, self.rows, self.steps, float(value), **extra)


def ratio(numerator: float, denominator: float, empty: float = 0.0) -> float:
    """``numerator / denominator``, or ``empty`` when the denominator is 0."""
    return numerator / denominator if denominator else empty


__all__ = ["POSITIVE", "Positions", "Steps", "UserList", "num", "ratio", "threshold"]
