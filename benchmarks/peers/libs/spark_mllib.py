"""Spark MLlib: the ``compat="spark_mllib"`` preset against the library itself."""

from __future__ import annotations

from common import CUTS, Report, check, make_data, need, ours, ranked, version


@check("spark_mllib", "Spark MLlib RankingMetrics")
def check_spark_mllib(report: Report) -> None:
    sql = need("pyspark.sql")
    evaluation = need("pyspark.mllib.evaluation")
    label = f"pyspark {version('pyspark')}"
    spark = (sql.SparkSession.builder.master("local[1]").appName("check_presets")
             .config("spark.ui.enabled", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        run, truth = make_data(1501, ties=True)
        # one (prediction, labels) pair per user of both the run and the truth
        # (users='intersection'); a user whose labels are empty scores 0 and counts
        users = [u for u in run if u in truth]
        labels = {u: [i for i, r in truth[u].items() if r > 0] for u in users}
        pairs = [(ranked(run[u]), labels[u]) for u in users]
        metrics = evaluation.RankingMetrics(spark.sparkContext.parallelize(pairs, 1))
        for k in CUTS:
            for key, value in ((f"precisionat@{k}", metrics.precisionAt(k)),
                               (f"recallat@{k}", metrics.recallAt(k)),
                               (f"meanaverageprecisionat@{k}", metrics.meanAveragePrecisionAt(k)),
                               (f"ndcgat@{k}", metrics.ndcgAt(k))):
                report.add("spark_mllib", label, key,
                           ours(run, truth, [key], "spark_mllib")[key], value)
        report.add("spark_mllib", label, "meanaverageprecision",
                   ours(run, truth, ["meanaverageprecision"], "spark_mllib")[
                       "meanaverageprecision"], metrics.meanAveragePrecision)
        # (prediction, labels, relevance) triples: the Python API hands only the first two
        # columns to the JVM, so ndcgAt stays binary (the preset's ndcgat)
        triples = [(ranked(run[u]), labels[u], [float(truth[u][i]) for i in labels[u]])
                   for u in users]
        graded = evaluation.RankingMetrics(spark.sparkContext.parallelize(triples, 1))
        for k in CUTS:
            key = f"ndcgat@{k}"
            report.add("spark_mllib", label, key + " relevance given",
                       ours(run, truth, [key], "spark_mllib")[key], graded.ndcgAt(k))
        # pyspark.ml's RankingEvaluator on a DataFrame of the same pairs (k = 10 by default)
        ml_eval = need("pyspark.ml.evaluation")
        frame = spark.createDataFrame(
            [([float(i) for i in p], [float(i) for i in lab]) for p, lab in pairs],
            ["prediction", "label"])
        for metric_name in ("meanAveragePrecisionAtK", "precisionAtK", "recallAtK", "ndcgAtK"):
            for k in (None, *CUTS):
                ev = ml_eval.RankingEvaluator(metricName=metric_name)
                if k is not None:
                    ev.setK(k)
                name = metric_name.lower() + ("" if k is None else f"@{k}")
                report.add("spark_mllib", label, name + " (RankingEvaluator)",
                           ours(run, truth, [name], "spark_mllib")[name], ev.evaluate(frame))
    finally:
        spark.stop()
