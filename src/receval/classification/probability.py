"""Log loss (binary cross-entropy) of predicted probabilities."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError, plain
from ._common import as_binary, as_float_array, as_weights, same_length

__all__ = ["log_loss"]


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
    bad = ~((p >= 0) & (p <= 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"y_prob must hold probabilities in [0, 1]; got {int(bad.sum())} value(s) outside "
            f"(first at index {i}: {plain(p[i])}). Convert scores to probabilities (e.g. a sigmoid or a "
            "calibration) first."
        )
    if eps == "auto":
        e = float(np.finfo(np.float64).eps)
    else:
        try:
            e = float(eps)
        except (TypeError, ValueError):
            raise InputError(f"eps must be 'auto' or a number in [0, 0.5), got {plain(eps)}.") from None
        if not 0.0 <= e < 0.5:
            raise InputError(f"eps must be 'auto' or a number in [0, 0.5), got {plain(eps)}.")
    p = np.clip(p, e, 1.0 - e)
    w = as_weights(sample_weight, len(p))
    with np.errstate(divide="ignore"):
        terms = -np.where(labels, np.log(p), np.log1p(-p))
    if w is not None:
        total = float(np.sum(w * terms))
        return total / float(np.sum(w)) if normalize else total
    total = float(np.sum(terms))
    return total / len(terms) if normalize else total
