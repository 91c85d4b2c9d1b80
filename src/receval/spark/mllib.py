"""``compat="spark_mllib"``: the conventions of Spark's ``RankingEvaluator`` / ``RankingMetrics``.

Spark MLlib (``mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala``,
wrapped by ``pyspark.ml.evaluation.RankingEvaluator``) computes, per user, from an ordered
prediction array ``pred`` (n items) and a label array ``lab`` (its set ``L``), then takes the
plain mean over every row:

=========================== ==================================================== =====================================
RankingEvaluator metricName  Spark's per-user value                              receval key
=========================== ==================================================== =====================================
``precisionAtK``             hits in ``pred[:k]`` / **k** (even when n < k)        ``precision@k`` (denominator=k)
``recallAtK``                hits in ``pred[:k]`` / \\|L\\|                          ``recall@k`` (denominator=rel)
``meanAveragePrecision``     sum over hits at i of (hits so far)/i, / \\|L\\|        ``map`` (no cutoff, denominator=rel)
                             (k = max(n, \\|L\\|), so min(\\|L\\|, k) = \\|L\\|)
``meanAveragePrecisionAtK``  the same over ``pred[:k]``, / **min(\\|L\\|, k)**        ``map@k(denominator=min_k_rel)``
``ndcgAtK``                  binary gains, DCG = sum_{i<k, pred[i] in L}           ``ndcg@k(discount=ln)``
                             1/ln(i+2), IDCG over min(\\|L\\|, k) positions
=========================== ==================================================== =====================================

and an empty label set gives 0 and **stays in the mean** (``empty_truth="zero"``). Every
label counts as relevant whatever its grade: the Python API drops relevance values (``PythonMLLibAPI``
passes only (pred, lab) pairs), so the compat mode ignores the truth's relevance column.
Differences that cannot be reproduced by a policy: Spark keeps duplicate items in ``pred``
(receval removes or rejects them: ``duplicates=``), and Spark takes ``pred`` already ordered,
so its tie order is whatever the caller's array build produced; receval orders by score then
item id (the order of ``sort_array(collect_list(struct(-score, item)))``).
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import UnknownMetricError

MLLIB_POLICIES = {"empty_truth": "zero"}

_NAMES = {
    "precisionatk": "precision@{k}",
    "recallatk": "recall@{k}",
    "meanaverageprecision": "map",
    "meanaverageprecisionatk": "map@{k}(denominator=min_k_rel)",
    "ndcgatk": "ndcg@{k}(discount=ln)",
}
DEFAULT_K = 10  # RankingEvaluator's default k


def mllib_key(name: str, k: int | None = None) -> str:
    """The receval key of one ``RankingEvaluator`` metric (``"ndcgAtK"``, ``k=10``).

    ``name`` may carry the cutoff itself: ``"ndcgAtK@10"``.

    >>> mllib_key("meanAveragePrecisionAtK", 100)
    'map@100(denominator=min_k_rel)'
    """
    m = re.fullmatch(r"\s*([A-Za-z]+)\s*(?:@\s*(\d+))?\s*", name)
    base = m.group(1).lower() if m else name
    if base not in _NAMES:
        raise UnknownMetricError(
            f"{name!r} is not a RankingEvaluator metricName; use one of precisionAtK, recallAtK, "
            "meanAveragePrecision, meanAveragePrecisionAtK, ndcgAtK (optionally '@k')."
        )
    if m and m.group(2):
        k = int(m.group(2))
    if k is None:
        k = DEFAULT_K
    if base == "meanaverageprecision":
        return _NAMES[base]
    return _NAMES[base].format(k=int(k))


def mllib_keys(metrics: Any) -> dict[str, str]:
    """RankingEvaluator name -> receval key for a list (or one) of names."""
    if isinstance(metrics, str):
        metrics = [metrics]
    return {name: mllib_key(name) for name in metrics}
