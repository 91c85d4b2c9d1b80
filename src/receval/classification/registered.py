"""Kept for ``import receval.classification.registered``: importing it registers the per-user
classification, AUC and rating metrics, as importing :mod:`receval.classification` does.

Each family module registers its own metrics beside its array code: :mod:`.auc` (``gauc``,
``global_auc``, ``lauc@k``), :mod:`.confusion` (``tp@k`` ... ``fpr@k``), :mod:`.rating`
(``rmse``, ``mae``, ``mse``, ``r2``, ``explained_variance``), :mod:`.probability`
(``log_loss``) and :mod:`.calibration` (``normalized_entropy``, ``calibration_ratio``,
``brier_score``, ``ece``; imported with the package); the helpers over packed lists they
share are in :mod:`._packed`. The registry imports them on first need (:data:`receval.metrics.spec.PLUGIN_MODULES`).
"""
