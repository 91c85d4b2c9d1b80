"""Log loss (binary cross-entropy) of predicted probabilities."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, plain
from ..metrics.spec import MetricDef, MetricSpec, Param, register
from ..pack import Packed
from ._common import as_binary, as_float_array, as_weights, same_length
from ._packed import REL, UNLABELLED, user_of_positions

__all__ = ["log_loss"]

#: the default clipping ``eps`` (``"auto"``): float64 machine epsilon, as scikit-learn >= 1.5
AUTO_EPS = float(np.finfo(np.float64).eps)


def first_outside_unit(p: np.ndarray) -> int | None:
    """Index of the first value of ``p`` outside [0, 1] (NaN included), or None."""
    bad = ~((p >= 0) & (p <= 1))
    return int(np.flatnonzero(bad)[0]) if bad.any() else None


def cross_entropy(y: np.ndarray, p: np.ndarray, eps: float) -> np.ndarray:
    """The log-loss terms ``-[y log q + (1 - y) log(1 - q)]``, ``q = clip(p, eps, 1 - eps)``
    (natural log; ``inf`` for a certain wrong prediction when ``eps = 0``)."""
    q = np.clip(p, eps, 1.0 - eps)
    with np.errstate(divide="ignore"):
        return -np.where(y, np.log(q), np.log1p(-q))


def log_loss(y_true: Any, y_prob: Any, *, eps: float | str = "auto", normalize: bool = True,
             sample_weight: Any = None) -> float:
    """Binary log loss: ``-(1/n) sum_i [y_i log p_i + (1 - y_i) log(1 - p_i)]`` (natural log).

    ``y_prob`` is the predicted probability of the positive class and must lie in [0, 1]
    (anything else raises :class:`~receval.InputError`; scores are not probabilities: calibrate
    them first). ``eps``: probabilities are clipped to ``[eps, 1 - eps]`` so a confident wrong
    prediction costs ``-log(eps)`` instead of infinity; ``"auto"`` = machine epsilon of float64
    (as scikit-learn >= 1.5 does); ``0`` disables clipping (the loss may be ``inf``).
    ``normalize=False`` returns the sum instead of the mean; ``sample_weight`` weights each term
    (the mean divides by the total weight).

    >>> log_loss([1, 0], [0.5, 0.5])  # log 2
    0.6931471805599453
    """
    labels = as_binary(y_true)
    p = as_float_array(y_prob, "y_prob", finite=False)
    same_length(y_true=labels, y_prob=p)
    if len(p) == 0:
        raise InputError("log_loss needs at least one prediction, got none.")
    i = first_outside_unit(p)
    if i is not None:
        bad = ~((p >= 0) & (p <= 1))
        raise InputError(
            f"y_prob must hold probabilities in [0, 1]; got {int(bad.sum())} value(s) outside "
            f"(first at index {i}: {plain(p[i])}). Convert scores to probabilities (e.g. a sigmoid or a "
            "calibration) first."
        )
    if eps == "auto":
        e = AUTO_EPS
    else:
        try:
            e = float(eps)
        except (TypeError, ValueError):
            raise InputError(f"eps must be 'auto' or a number in [0, 0.5), got {plain(eps)}.") from None
        if not 0.0 <= e < 0.5:
            raise InputError(f"eps must be 'auto' or a number in [0, 0.5), got {plain(eps)}.")
    w = as_weights(sample_weight, len(p))
    terms = cross_entropy(labels, p, e)
    if w is not None:
        total = float(np.sum(w * terms))
        return total / float(np.sum(w)) if normalize else total
    total = float(np.sum(terms))
    return total / len(terms) if normalize else total

# -------------------------------------------------------------------------------------------------
# Log loss of scored items:
# plugin metrics of receval.evaluate over the packed lists, registered on import.

def check_run_probabilities(spec: MetricSpec, packed: Packed, user: np.ndarray) -> None:
    """Refuse run scores outside [0, 1] (or NaN) for a metric of probabilities, naming the
    first value and its user."""
    p = packed.scores
    i = first_outside_unit(p)
    if i is not None:
        bad = ~((p >= 0) & (p <= 1))
        raise InputError(
            f"{spec.key}: run scores must be probabilities in [0, 1]; got {int(bad.sum())} "
            f"outside (e.g. {plain(p[i])} for user {plain(packed.user_ids[user[i]])}). Calibrate "
            "the scores (e.g. a sigmoid) and drop or fill NaN first."
        )


def _log_loss(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    user = user_of_positions(packed)
    p = packed.scores
    check_run_probabilities(spec, packed, user)
    eps = spec.get("eps")
    e = AUTO_EPS if eps is None else float(eps)
    y = packed.rel >= float(spec.get("rel"))
    if spec.get("unlabelled") == "skip":  # only the scored items present in the truth
        keep = packed.judged.astype(bool)
        p, y, user = p[keep], y[keep], user[keep]
    terms = cross_entropy(y, p, e)
    n_users = len(packed.user_ids)
    cnt = np.bincount(user, minlength=n_users).astype(np.float64)
    s = np.bincount(user, weights=terms, minlength=n_users)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_user = np.where(cnt > 0, s / np.where(cnt > 0, cnt, 1.0), np.nan)
    value = float(terms.mean()) if spec.get("average") == "micro" and len(terms) else None
    info = {"scored_pairs": int(len(terms)), "users_without_scores": int((cnt == 0).sum()),
            "average": spec.get("average"), "eps": e}
    return MetricValues(per_user, value, info)


register(MetricDef(
    "log_loss", "Log loss (binary cross-entropy)",
    "-(1/n) sum_i [y_i log p_i + (1 - y_i) log(1 - p_i)], p clipped to [eps, 1 - eps]",
    "The run's scores as probabilities that each scored item is relevant (y_i = truth relevance "
    ">= rel); only scored items count. Scores outside [0, 1] raise. average: macro = mean of "
    "per-user losses | micro = over all scored pairs. unlabelled=skip: only scored items "
    "present in the truth count (Microsoft Recommenders logloss).",
    (REL, Param("average", "macro", "macro | micro", ("macro", "micro")), UNLABELLED,
     Param("eps", None, "clipping (auto: float64 machine epsilon, as scikit-learn)", kind=float,
           low=0.0, high=0.5, high_open=True)),
    cutoff="none", higher_is_better=False, bounds=(0.0, None), family="classification",
    compute=_log_loss, example="scores (0.5, 0.5), labels (1, 0): log 2",
), ("logloss", "bce"))
