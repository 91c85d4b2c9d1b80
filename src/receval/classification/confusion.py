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

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, plain
from ..metrics.catalogue import check_catalogue
from ..metrics.spec import MetricDef, MetricSpec, Param, register
from ..pack import Packed
from ._common import as_binary, check_choice, same_length
from ._packed import (
    CATALOG,
    REL,
    catalog_size,
    rank_in_list,
    size_text,
    truth_positives,
    user_of_positions,
)

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

# -------------------------------------------------------------------------------------------------
# The confusion counts and rates at k:
# plugin metrics of receval.evaluate over the packed lists, registered on import.

AVERAGE = Param("average", "macro",
                "macro = mean of per-user rates; micro = pooled counts (sum of numerators over "
                "sum of denominators)", ("macro", "micro"))


CANDIDATES = Param(
    "candidates", "catalog",
    "the items each user is judged over: catalog = every catalogue item (n, see catalog) | "
    "list = the user's own scored items (its whole list, not only the top k): FN and TN count "
    "only the candidates the run scores (torchmetrics retrieval metrics, e.g. "
    "RetrievalFallOut)", ("catalog", "list"))


FP_RULE = Param(
    "fp", "list",
    "false positives of a list shorter than k: list = FP = |R_u| - TP (empty slots are not "
    "recommendations) | k = FP = k - TP (each empty slot counts as a false positive: RecTools "
    "Accuracy, MCC); without a cutoff both are the list length. The rates (accuracy, "
    "specificity, fpr) of a user without any list are NaN (no decision was made), except with "
    "fp=k and a cutoff (k false positives)", ("list", "k"))


NO_NEGATIVE = Param(
    "no_negative", "skip",
    "a user with FP + TN = 0 (no non-relevant candidate): skip (NaN, left out of the mean) | "
    "zero | one (torchmetrics RetrievalFallOut's default empty_target_action='pos')",
    ("skip", "zero", "one"))


def _whole_list(spec: MetricSpec) -> bool:
    return spec.get("candidates") == "list"


def _confusion(spec: MetricSpec, packed: Packed, context: Context, need_tn: bool):
    rel = float(spec.get("rel"))
    names = {p.name for p in spec.definition.params}
    user = user_of_positions(packed)
    w = _in_top_k(packed, user, spec.k)
    n_users = len(packed.user_ids)
    liked = (packed.rel >= rel).astype(np.float64)
    if "fp" in names and spec.get("fp") == "k" and spec.k is not None:
        rec = np.full(n_users, float(spec.k))
    else:
        rec = np.bincount(user, weights=w, minlength=n_users)
    tp = np.bincount(user, weights=w * liked, minlength=n_users)
    fp = rec - tp
    on_list = "candidates" in names and spec.get("candidates") == "list"
    if on_list:  # the user's scored items: relevant candidates and list length
        fn = np.bincount(user, weights=liked, minlength=n_users) - tp
    else:
        fn = truth_positives(packed, rel) - tp
    info: dict[str, Any] = {}
    tn = None
    if need_tn:
        if on_list:
            n_u = np.diff(packed.indptr).astype(np.float64)
            info = {"candidates": "list"}
        else:
            n, info = catalog_size(spec, packed, context, w > 0)
            n_u = np.full(n_users, float(n))
        tn = n_u - tp - fp - fn
        if on_list and (tn < 0).any():
            u = int(np.flatnonzero(tn < 0)[0])
            raise InputError(
                f"{spec.key}: user {plain(packed.user_ids[u])} has {int(n_u[u])} scored "
                f"candidate(s), fewer than the {int(tp[u] + fp[u] + fn[u])} counted with fp=k "
                "(k slots); use fp=list, or candidates=catalog."
            )
        if not on_list:
            slots = "fp" in names and spec.get("fp") == "k" and spec.k is not None
            check_catalogue(spec.key, size_text(n, info), n, rec, fn, packed.user_ids,
                            f"slots of the top {spec.k} (fp=k: each empty slot is a false "
                            "positive)" if slots else "recommended item(s) in the top k")
    return tp, fp, fn, tn, info


def _in_top_k(packed: Packed, user: np.ndarray, k: int | None) -> np.ndarray:
    """Weight of each position in the top k: 1 or 0; with ``ties="average"`` (tie groups in
    ``packed.grp_end``) a tied block straddling rank k gives each of its items the probability
    ``(k - start) / size`` of landing in the top k (expected counts)."""
    n = len(user)
    if k is None or packed.absolute_ranks:  # ranks="position": rows with rank <= k
        return np.ones(n)
    rank = rank_in_list(packed, user)
    if len(packed.grp_end) != n or n == 0:
        return (rank < k).astype(np.float64)
    first = np.r_[True, packed.grp_end[1:] != packed.grp_end[:-1]]
    first[packed.indptr[:-1][np.diff(packed.indptr) > 0]] = True
    start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    base = packed.indptr[user]
    lo, hi = start - base, packed.grp_end - base
    return np.clip((k - lo) / (hi - lo), 0.0, 1.0)


def _count_metric(which: str):
    def compute(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
        tp, fp, fn, tn, info = _confusion(spec, packed, context, which == "tn")
        col = {"tp": tp, "fp": fp, "fn": fn, "tn": tn}[which]
        info = dict(info, total=float(np.sum(col)))
        return MetricValues(col, None, info)
    return compute


def _rate_metric(which: str):
    def compute(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
        tp, fp, fn, tn, info = _confusion(spec, packed, context, True)
        num, den = {
            "accuracy": (tp + tn, tp + fp + fn + tn),
            "specificity": (tn, tn + fp),
            "fpr": (fp, fp + tn),
        }[which]
        with np.errstate(invalid="ignore", divide="ignore"):
            per_user = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        info = dict(info, average=spec.get("average"), undefined=int((den <= 0).sum()))
        if which != "accuracy" and spec.get("no_negative") != "skip":
            fill = 0.0 if spec.get("no_negative") == "zero" else 1.0
            per_user = np.where(den > 0, per_user, fill)
        # a user without a list made no decision: an empty list would be "right" about every
        # negative (accuracy, specificity near 1, fpr 0) and reward having no list. Only k
        # empty slots counted as false positives (fp=k with a cutoff) give it a value.
        no_list = ~np.asarray(packed.in_run, dtype=bool)
        slots = any(p.name == "fp" for p in spec.definition.params) and \
            spec.get("fp") == "k" and spec.k is not None
        if no_list.any() and not slots:
            per_user = np.where(no_list, np.nan, per_user)
            num, den = np.where(no_list, 0.0, num), np.where(no_list, 0.0, den)
            info = dict(info, users_without_list=int(no_list.sum()))
        value = None
        if spec.get("average") == "micro":
            d = float(np.sum(den))
            value = float(np.sum(num)) / d if d > 0 else float("nan")
        return MetricValues(per_user, value, info)
    return compute


_CM_DOC = (" Top k as a binary decision over each user's candidates: TP = |R_u & T_u|, "
           "FP = |R_u| - TP (fp=list; fp=k: k - TP), FN = |T_u & C_u| - TP, "
           "TN = |C_u| - TP - FP - FN. |R_u| = min(k, list length). candidates=catalog: C_u = "
           "the catalogue, |C_u| = n (see info catalog_source); candidates=list: C_u = the "
           "user's scored items (the catalog parameter is then not used).")


_TN_PARAMS = (REL, CATALOG, CANDIDATES, FP_RULE)


for _name, _title, _formula, _params in (
    ("tp", "True positives@k", "TP@k = |R_u & T_u|", (REL,)),
    ("fp", "False positives@k", "FP@k = |R_u| - TP (fp=k: k - TP)", (REL, FP_RULE)),
    ("fn", "False negatives@k", "FN@k = |T_u & C_u| - TP", (REL, CANDIDATES)),
    ("tn", "True negatives@k", "TN@k = |C_u| - TP - FP - FN", _TN_PARAMS),
):
    register(MetricDef(
        _name, _title, _formula, "Per-user count; the summary is the mean per user (info: total)."
        + _CM_DOC, _params, bounds=(0.0, None),
        higher_is_better=_name in ("tp", "tn"), family="classification",
        compute=_count_metric(_name),
        whole_list=_whole_list if any(p.name == "candidates" for p in _params) else None,
        example="top 3 (hit, miss, hit), 3 liked, n = 10: TP 2, FP 1, FN 1, TN 6",
    ))


register(MetricDef(
    "accuracy", "Accuracy@k", "(TP + TN) / (TP + FP + FN + TN) = (TP + TN) / |C_u|",
    "Share of catalogue items correctly recommended or not (Herlocker et al. 2004)." + _CM_DOC
    + " average: macro = mean of per-user values | micro = pooled counts. RecTools Accuracy: "
    "accuracy@k(fp=k) with the catalogue size.",
    (*_TN_PARAMS, AVERAGE), family="classification", compute=_rate_metric("accuracy"),
    whole_list=_whole_list,
    example="TP 2, FP 1, FN 1, TN 6: accuracy = 8/10",
))


register(MetricDef(
    "specificity", "Specificity@k (true-negative rate)", "TN / (TN + FP)",
    "Share of the items a user does not like that were not recommended." + _CM_DOC,
    (*_TN_PARAMS, AVERAGE, NO_NEGATIVE), family="classification",
    compute=_rate_metric("specificity"), whole_list=_whole_list,
    example="FP 1, TN 6: specificity = 6/7",
), ("tnr",))


register(MetricDef(
    "fpr", "False-positive rate@k (fall-out)", "FP / (FP + TN)",
    "Share of the items a user does not like that were recommended (ROC x axis). "
    "torchmetrics RetrievalFallOut: fpr@k(candidates=list,no_negative=one)." + _CM_DOC,
    (*_TN_PARAMS, AVERAGE, NO_NEGATIVE), higher_is_better=False, family="classification",
    compute=_rate_metric("fpr"), whole_list=_whole_list, example="FP 1, TN 6: FPR = 1/7",
), ("fallout",))
