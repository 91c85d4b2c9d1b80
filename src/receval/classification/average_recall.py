"""Average recall over IoU thresholds (AR) and its mean over classes (mAR) (Hosang et al. 2016).

For each ground-truth object ``g`` let ``o_g`` be its best overlap (IoU) with any proposal or
detection. ``recall(t) = (1/G) sum_g [o_g >= t]``. Average recall (Hosang et al. 2016, "What
makes for effective detection proposals?"):

    AR = 2 * integral_{0.5}^{1} recall(t) dt = (1/G) sum_g clip(2 o_g - 1, 0, 1)

(each object contributes the length of ``[0.5, min(o_g, 1)]``, doubled), computed exactly.
``method="thresholds"`` averages recall at a grid of thresholds instead (COCO: 0.5, 0.55, ...,
0.95). ``mAR = (1/K) sum_k AR_k`` over classes.

Not to be confused with the recommendation metric ``mar@k`` of :mod:`receval.metrics.ranking`
(mean of per-user average recall over a ranked list); this module is about overlaps.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import InputError, plain
from ._common import as_float_array, check_choice
from .curves import Curve

__all__ = ["average_recall", "iou", "mean_average_recall", "recall_iou_curve"]

COCO_THRESHOLDS = np.linspace(0.5, 0.95, 10)


def iou(boxes_a: Any, boxes_b: Any) -> np.ndarray:
    """Intersection over union of axis-aligned boxes ``(x1, y1, x2, y2)``, pairwise:
    an ``(len(a), len(b))`` matrix. ``IoU = area(A & B) / area(A | B)`` (0 when both are empty).

    >>> iou([[0, 0, 2, 2]], [[1, 1, 3, 3]]).tolist()  # 1 / (4 + 4 - 1)
    [[0.14285714285714285]]
    """
    a = np.asarray(boxes_a, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(boxes_b, dtype=np.float64).reshape(-1, 4)
    for name, bx in (("boxes_a", a), ("boxes_b", b)):
        if not np.isfinite(bx).all():
            raise InputError(f"{name} has NaN/infinite coordinates.")
        if ((bx[:, 2] < bx[:, 0]) | (bx[:, 3] < bx[:, 1])).any():
            raise InputError(f"{name}: boxes must be (x1, y1, x2, y2) with x2 >= x1 and y2 >= y1.")
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    w = np.clip(np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0]),
                0, None)
    h = np.clip(np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1]),
                0, None)
    inter = w * h
    union = area_a[:, None] + area_b[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)


def _overlaps(best_iou: Any) -> np.ndarray:
    o = as_float_array(best_iou, "best_iou")
    if len(o) == 0:
        raise InputError("average recall needs at least one ground-truth overlap, got none.")
    if ((o < 0) | (o > 1)).any():
        raise InputError("best_iou values are overlaps and must lie in [0, 1].")
    return o


def average_recall(best_iou: Any, *, method: str = "exact", low: float = 0.5,
                   thresholds: Any = None) -> float:
    """AR from the best IoU of each ground-truth object (a missed object has overlap 0).

    ``method="exact"``: ``AR = 1/(1 - low) * integral_{low}^{1} recall(t) dt`` (``low = 0.5``
    gives the ``2 * integral_{0.5}^{1}``), i.e. ``mean_g clip((o_g - low)/(1 - low), 0,
    1)``. ``method="thresholds"``: ``mean_t recall(t)`` over ``thresholds`` (default COCO 0.5,
    0.55, ..., 0.95), with ``recall(t) = mean_g [o_g >= t]``.

    >>> average_recall([0.75, 1.0, 0.3])  # (0.5 + 1 + 0) / 3
    0.5
    """
    check_choice("method", method, ("exact", "thresholds"))
    o = _overlaps(best_iou)
    if method == "exact":
        if not 0.0 <= low < 1.0:
            raise InputError(f"low must lie in [0, 1), got {plain(low)}.")
        return float(np.mean(np.clip((o - low) / (1.0 - low), 0.0, 1.0)))
    t = COCO_THRESHOLDS if thresholds is None else as_float_array(thresholds, "thresholds")
    return float(np.mean((o[None, :] >= t[:, None]).mean(axis=1)))


def recall_iou_curve(best_iou: Any, *, low: float = 0.5, label: str = "") -> Curve:
    """Recall as a function of the IoU threshold on ``[low, 1]``: a step function with a step at
    each distinct overlap; ``area`` is the exact :func:`average_recall`."""
    o = _overlaps(best_iou)
    ts = np.unique(np.r_[low, o[(o > low) & (o <= 1.0)], 1.0])
    rec = (o[None, :] >= ts[:, None]).mean(axis=1)
    # recall(t) is left-continuous-down: recall just above each step point is the next value
    return Curve("recall_iou", ts, rec, ts, xlabel="IoU threshold", ylabel="Recall", label=label,
                 area=average_recall(o, low=low), info={"objects": len(o)})


def mean_average_recall(best_iou_by_class: Mapping[Any, Any] | list, *, method: str = "exact",
                        low: float = 0.5, thresholds: Any = None) -> float:
    """``mAR = (1/K) sum_k AR_k`` over classes (Hosang et al. 2016); input: ``{class: best_iou_array}`` or
    a list of arrays. Every class needs at least one ground-truth object.

    >>> mean_average_recall({"cat": [1.0], "dog": [0.75, 0.5]})  # (1 + 0.25) / 2
    0.625
    """
    groups = list(best_iou_by_class.values()) if isinstance(best_iou_by_class, Mapping) \
        else list(best_iou_by_class)
    if not groups:
        raise InputError("mean_average_recall needs at least one class.")
    return float(np.mean([average_recall(g, method=method, low=low, thresholds=thresholds)
                          for g in groups]))
