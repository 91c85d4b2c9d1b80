"""Classification, rating and curve metrics: confusion counts and rates, ROC / PR curves, the
AUC family (AUC, GAUC, global AUC, LAUC@k), average precision as an area, 11-point interpolated
precision, break-even point, log loss, RMSE / MAE / MSE / R^2, average recall over IoU, and the
CTR model metrics (normalized entropy, calibration ratio, ECE with its reliability diagram,
Brier score).

Array functions take ``(y_true, y_score)``; table functions take a run and a truth like
:func:`receval.evaluate`. The family modules register their per-user metrics (``gauc``,
``lauc@k``, ``tp@k`` ... ``fpr@k``, ``rmse`` ..., ``log_loss``, ``normalized_entropy``,
``calibration_ratio``, ``ece``, ``brier_score``) for ``evaluate`` beside their
array code; importing this package registers them all.
"""

from __future__ import annotations

from ._common import Score
from .auc import auc, gauc, global_auc, lauc, roc_auc, roc_curve, scored_pairs
from .average_recall import average_recall, iou, mean_average_recall, recall_iou_curve
from .calibration import (
    CalibrationState,
    Reliability,
    brier_score,
    calibration_ratio,
    expected_calibration_error,
    normalized_entropy,
    reliability_diagram,
)
from .confusion import Confusion, binary_confusion, confusion_at_k
from .curves import (
    Curve,
    Curves,
    average_precision,
    break_even_point,
    eleven_point_average_precision,
    interpolated_precision,
    metric_at_k,
    pr_curve,
)
from .probability import log_loss
from .rating import mae, mse, r2, rating_errors, rmse

__all__ = [
    "CalibrationState", "Confusion", "Curve", "Curves", "Reliability", "Score", "auc",
    "average_precision", "average_recall", "binary_confusion", "break_even_point",
    "brier_score", "calibration_ratio", "confusion_at_k", "eleven_point_average_precision",
    "expected_calibration_error", "gauc", "global_auc", "interpolated_precision", "iou", "lauc",
    "log_loss", "mae", "mean_average_recall", "metric_at_k", "mse", "normalized_entropy",
    "pr_curve", "r2", "rating_errors", "recall_iou_curve", "reliability_diagram", "rmse",
    "roc_auc", "roc_curve", "scored_pairs",
]
