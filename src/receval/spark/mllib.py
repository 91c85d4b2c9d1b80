"""``compat="spark_mllib"``: ``RankingEvaluator`` names, read from the ``spark_mllib`` preset.

What each Spark MLlib metric means, and the policies that reproduce it, are defined once, in
the library preset :data:`receval.compat.presets.SPARK_MLLIB` (the local engine's
``compat="spark_mllib"`` reads the same entry). This module only translates the names as
``pyspark.ml.evaluation.RankingEvaluator`` writes them (``metricName`` plus its ``k``
parameter, default 10) into the preset's names, and resolves them with
:func:`receval.compat.resolve`:

=========================== ============================ ==========================================
RankingEvaluator metricName preset name                  meaning (Spark's per-user value)
=========================== ============================ ==========================================
``precisionAtK``            ``precisionAt@k``            hits in ``pred[:k]`` / **k**
``recallAtK``               ``recallAt@k``               hits in ``pred[:k]`` / \\|labels\\|
``meanAveragePrecision``    ``meanAveragePrecision``     AP over the whole list / \\|labels\\|
``meanAveragePrecisionAtK`` ``meanAveragePrecisionAt@k`` AP@k / min(\\|labels\\|, k)
``ndcgAtK``                 ``ndcgAt@k``                 binary gains, ideal min(\\|labels\\|, k)
=========================== ============================ ==========================================

The receval keys and the policies (:data:`MLLIB_POLICIES`) are the preset's. Names that are
not ``RankingEvaluator`` names (``"ndcg@10"``) are resolved by the preset too, as
``rv.evaluate(..., compat="spark_mllib")`` does locally.
"""

from __future__ import annotations

import re
from typing import Any

from ..compat import get, resolve
from ..errors import UnknownMetricError

PRESET = "spark_mllib"
#: the preset's policies (user set, empty-truth rule)
MLLIB_POLICIES: dict[str, str] = dict(get(PRESET).policies)
DEFAULT_K = 10  # RankingEvaluator's default k
#: RankingEvaluator's metricName values (lower case) -> whether they take ``k``
RANKING_EVALUATOR_NAMES = {"precisionatk": True, "recallatk": True,
                           "meanaverageprecision": False, "meanaverageprecisionatk": True,
                           "ndcgatk": True}
_NAME = re.compile(r"\s*([A-Za-z]+)\s*(?:@\s*(\d+))?\s*")


def _preset_name(name: str, k: int | None = None) -> str | None:
    """The preset's name for a ``RankingEvaluator`` metricName (``"ndcgAtK@10"`` ->
    ``"ndcgat@10"``), or None when ``name`` is not one."""
    m = _NAME.fullmatch(str(name))
    base = m.group(1).lower() if m else ""
    if m is None or base not in RANKING_EVALUATOR_NAMES:
        return None
    if not RANKING_EVALUATOR_NAMES[base]:
        return base
    if m.group(2):
        k = int(m.group(2))
    return f"{base[:-1]}@{int(k if k is not None else DEFAULT_K)}"  # "...atk" -> "...at@k"


def mllib_key(name: str, k: int | None = None) -> str:
    """The receval key of one ``RankingEvaluator`` metric (``"ndcgAtK"``, ``k=10``).

    ``name`` may carry the cutoff itself: ``"ndcgAtK@10"``.

    >>> mllib_key("meanAveragePrecisionAtK", 100)
    'map@100(denominator=min_k_rel)'
    """
    preset_name = _preset_name(name, k)
    if preset_name is None:
        raise UnknownMetricError(
            f"{name!r} is not a RankingEvaluator metricName; use one of precisionAtK, recallAtK, "
            "meanAveragePrecision, meanAveragePrecisionAtK, ndcgAtK (optionally '@k')."
        )
    specs, _, _ = resolve(PRESET, [preset_name])
    return specs[0].key


def mllib_names(metrics: Any) -> dict[str, str]:
    """Name as given -> the preset's name, for a list (or one) of names: ``RankingEvaluator``
    names (``"ndcgAtK@10"``) are translated, any other name is kept."""
    if isinstance(metrics, str):
        metrics = [metrics]
    return {str(m): _preset_name(str(m)) or str(m) for m in metrics}


def mllib_keys(metrics: Any) -> dict[str, str]:
    """Name as given -> receval key, for a list (or one) of names under the preset.

    ``RankingEvaluator`` names (``"ndcgAtK@10"``) are translated; any other name is resolved
    by the preset as the local engine resolves it (an unknown one raises ``MetricError``).
    """
    texts = mllib_names(metrics)
    _, _, keys = resolve(PRESET, list(texts.values()))
    return {name: keys[text] for name, text in texts.items()}
