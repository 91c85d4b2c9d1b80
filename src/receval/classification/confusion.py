"""Confusion-matrix metrics: TP, FP, FN, TN and the rates built on them, with named averaging.

For top-k recommendation seen as a binary decision (Herlocker et al. 2004): for user u, ``R_u`` =
the recommended items (the first ``min(k, L_u)`` of the list), ``T_u`` = the truth items with
relevance >= ``rel`` (liked), ``n`` = catalogue size::

    TP = |R_u & T_u|     FP = |R_u| - TP     FN = |T_u| - TP     TN = n - TP - FP - FN

(``candidates="list"``: FN and TN over the user's scored items ``C_u`` instead of the
catalogue, ``FN = |T_u & C_u| - TP``, ``TN = |C_u| - TP - FP - FN``; ``fp="k"``:
``FP = k - TP``, a short list's empty slots counted as false positives.)

Rates: ``accuracy = (TP + TN) / (TP + FP + FN + TN)``, ``precision = TP / (TP + FP)``,
``recall = TP / (TP + FN)``, ``F_beta = (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP)``,
``specificity = TN / (TN + FP)``, ``FPR = FP / (FP + TN)``.
Averaging: ``macro`` = mean over users of the per-user rate (users where it is 0/0 are left out
and counted); ``micro`` = the rate of the summed counts.

Note ``precision`` here divides by the number actually recommended, ``|R_u|``; the core
``precision@k`` divides by k by default (``denominator=list`` matches this one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, plain
from ._common import as_binary, check_choice, same_length

__all__ = ["Confusion", "binary_confusion", "confusion_at_k"]


@dataclass(frozen=True)
class Confusion:
    """Confusion counts, one row per user (or a single row), and the rates built on them.

    ``tn`` is ``None`` when no catalogue size is known (the TN-based rates then raise).
    ``info`` says where the catalogue size came from.
    """

    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    tn: np.ndarray | None
    user_ids: np.ndarray | None = None
    info: dict[str, Any] = field(default_factory=dict)

    def _tn(self) -> np.ndarray:
        if self.tn is None:
            raise InputError(
                "true negatives need a catalogue size; pass catalog=<number of items> (or the "
                "item collection)."
            )
        return self.tn

    def _rate(self, num: np.ndarray, den: np.ndarray, average: str) -> float:
        check_choice("average", average, ("macro", "micro"))
        if average == "micro":
            d = float(np.sum(den))
            return float(np.sum(num)) / d if d > 0 else float("nan")
        ok = den > 0
        return float(np.mean(num[ok] / den[ok])) if ok.any() else float("nan")

    def per_user(self, which: str, *, beta: float = 1.0) -> np.ndarray:
        """Per-row rate (NaN where it is 0/0): accuracy, precision, recall, fbeta, specificity,
        fpr."""
        num, den = self._parts(which, beta)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)

    def _parts(self, which: str, beta: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        check_choice("which", which,
                     ("accuracy", "precision", "recall", "fbeta", "specificity", "fpr"))
        tp, fp, fn = self.tp, self.fp, self.fn
        if which == "precision":
            return tp, tp + fp
        if which == "recall":
            return tp, tp + fn
        if which == "fbeta":
            if not beta > 0:
                raise InputError(f"beta must be > 0, got {plain(beta)}.")
            b2 = beta * beta
            return (1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp
        tn = self._tn()
        if which == "accuracy":
            return tp + tn, tp + fp + fn + tn
        if which == "specificity":
            return tn, tn + fp
        return fp, fp + tn

    def accuracy(self, *, average: str = "macro") -> float:
        """``(TP + TN) / (TP + FP + FN + TN)``."""
        return self._rate(*self._parts("accuracy"), average)

    def precision(self, *, average: str = "macro") -> float:
        """``TP / (TP + FP)``."""
        return self._rate(*self._parts("precision"), average)

    def recall(self, *, average: str = "macro") -> float:
        """``TP / (TP + FN)``."""
        return self._rate(*self._parts("recall"), average)

    def fbeta(self, beta: float = 1.0, *, average: str = "macro") -> float:
        """``(1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP)``; ``micro`` pools the counts, which
        equals the F-beta of micro precision and micro recall."""
        return self._rate(*self._parts("fbeta", beta), average)

    def f1(self, *, average: str = "macro") -> float:
        return self.fbeta(1.0, average=average)

    def specificity(self, *, average: str = "macro") -> float:
        """``TN / (TN + FP)``."""
        return self._rate(*self._parts("specificity"), average)

    def fpr(self, *, average: str = "macro") -> float:
        """``FP / (FP + TN)``."""
        return self._rate(*self._parts("fpr"), average)

    def to_frame(self) -> pd.DataFrame:
        data = {"tp": self.tp, "fp": self.fp, "fn": self.fn}
        if self.tn is not None:
            data["tn"] = self.tn
        index = pd.Index(self.user_ids, name="user") if self.user_ids is not None else None
        return pd.DataFrame(data, index=index)


def binary_confusion(y_true: Any, y_pred: Any) -> Confusion:
    """Counts of one binary decision vector against binary labels (a single row).

    >>> c = binary_confusion([1, 1, 0, 0], [1, 0, 1, 0])
    >>> c.to_frame().iloc[0].tolist(), c.accuracy()
    ([1.0, 1.0, 1.0, 1.0], 0.5)
    """
    t = as_binary(y_true, "y_true")
    p = as_binary(y_pred, "y_pred")
    same_length(y_true=t, y_pred=p)
    one = np.ones(1)
    return Confusion(one * np.sum(t & p), one * np.sum(~t & p), one * np.sum(t & ~p),
                     one * np.sum(~t & ~p))


def confusion_at_k(run: Any, truth: Any, k: int | None, *, rel: float = 1.0,
                   catalog: Any = None, candidates: str = "catalog", fp: str = "list",
                   **kwargs: Any) -> Confusion:
    """Per-user confusion counts of the top k (the whole list when ``k`` is ``None``).

    ``catalog``: an int (the catalogue size), a collection of item ids, or ``None`` (the
    distinct items of the truth and the run). ``candidates="list"`` counts FN and TN over the
    user's own scored items instead of the catalogue (``FN = |T_u & C_u| - TP``,
    ``TN = |C_u| - TP - FP - FN``); ``fp="k"`` counts the empty slots of a list shorter than
    k as false positives (``FP = k - TP``). ``kwargs`` go to :func:`receval.evaluate`
    (column names, policies; ``users="truth"`` by default, so a user without a list has
    TP = FP = 0). ``info["catalog_source"]`` says which catalogue was used.
    """
    from ..engines.evaluator import evaluate_local as evaluate
    from ..metrics import metric

    specs = [metric("tp", k, rel=rel), metric("fp", k, rel=rel, fp=fp),
             metric("fn", k, rel=rel, candidates=candidates),
             metric("tn", k, rel=rel, candidates=candidates, fp=fp)]
    res = evaluate(run, truth, specs, catalog=catalog, **kwargs)
    cols = [res.user_values(s.key) for s in specs]
    return Confusion(*[np.asarray(c, dtype=np.float64) for c in cols],
                     user_ids=res.user_ids, info=dict(res.info.get(specs[3].key, {})))
