"""Spark MLlib RankingMetrics's metric names and conventions (``compat="spark_mllib"``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..records import name as _n

NAMES: dict[str, Name] = {
    "precisionat": _n("precision", "hits in the top k / k"),
    "recallat": _n("recall", "hits in the top k / |labels|"),
    "meanaverageprecisionat": _n("map", "AP@k / min(|labels|, k)", cutoff="required",
                                 denominator="min_k_rel"),
    "meanaverageprecision": _n("map", "AP over the whole list / |labels|", cutoff="none"),
    "ndcgat": _n("ndcg", "binary relevance (the Python API passes no relevance values): "
                 "ideal min(|labels|, k) ones",
                 "pyspark's RankingMetrics hands only the first two columns of each row to "
                 "the JVM (PythonMLLibAPI.newRankingMetrics), so graded relevance, even "
                 "given as a third element, is ignored: every label counts 1",
                 gain="binary"),
}

PRESET = Preset(
    "spark_mllib", "Spark MLlib RankingMetrics", "Spark 3.5", "apache/spark mllib/src/main/"
    "scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala; no JVM in the test suite, "
    "so the tests use values worked out from these formulas",
    (("users", "intersection"), ("empty_truth", "zero")),
    NAMES,
    ("an empty label set scores 0 and counts (empty_truth='zero')",
     "with relevance values (Scala API, Spark >= 3.4) the ideal DCG sums the labels in "
     "their given order, not sorted: not reproduced"),
)
