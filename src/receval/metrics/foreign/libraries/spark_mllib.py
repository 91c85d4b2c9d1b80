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
    # pyspark.ml.evaluation.RankingEvaluator(metricName=..., k=10): the same RankingMetrics
    "meanaverageprecisionatk": _n("map", "RankingEvaluator: meanAveragePrecisionAt(k), k = "
                                  "10 unless given", cutoff="required", default_k=10,
                                  options={"k": "@k"}, denominator="min_k_rel"),
    "precisionatk": _n("precision", "RankingEvaluator: precisionAt(k), k = 10 unless given",
                       default_k=10, options={"k": "@k"}),
    "recallatk": _n("recall", "RankingEvaluator: recallAt(k), k = 10 unless given",
                    default_k=10, options={"k": "@k"}),
    "ndcgatk": _n("ndcg", "RankingEvaluator: ndcgAt(k) with binary labels, k = 10 unless "
                  "given", default_k=10, options={"k": "@k"}, gain="binary"),
}

PRESET = Preset(
    "spark_mllib", "Spark MLlib RankingMetrics", "pyspark 4.3.0 (Spark 3.5 formulas alike)",
    "apache/spark mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala, "
    "ml/evaluation/RankingEvaluator.scala; checked by benchmarks/peers/libs/spark_mllib.py "
    "(pyspark.mllib RankingMetrics and pyspark.ml RankingEvaluator on a local Spark)",
    (("users", "intersection"), ("empty_truth", "zero")),
    NAMES,
    ("an empty label set scores 0 and counts (empty_truth='zero')",
     "with relevance values (Scala API, Spark >= 3.4) the ideal DCG sums the labels in "
     "their given order, not sorted: not reproduced"),
)
