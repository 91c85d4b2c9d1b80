"""Each library preset's metric names (``compat=``) and the receval metric each one means.

The names are written as the library writes them, lower case (look-ups fold case); each maps
to a receval family and the parameters that reproduce the library's value, with the meaning
in the library's own terms. The sources each preset was checked against are in
:mod:`receval.compat.presets`. trec_eval's names are :mod:`receval.metrics.foreign.trec_eval`.
"""

from __future__ import annotations

from .records import Name
from .records import name as _n

LIBRARY_NAMES: dict[str, dict[str, Name]] = {
    "ranx": {
        "ndcg": _n("ndcg", "Jarvelin & Kekalainen nDCG, gain = grade, ideal = all judged"),
        "ndcg_burges": _n("ndcg", "Burges nDCG: gain 2^grade - 1", gain="exp"),
        "dcg_burges": _n("dcg", "Burges DCG: gain 2^grade - 1", gain="exp"),
        "map": _n("map", "AP / R"),
        "mrr": _n("mrr", "1 / rank of the first relevant"),
        "precision": _n("precision", "relevant in the top k / k"),
        "recall": _n("recall", "relevant in the top k / R"),
        "hit_rate": _n("hit_rate", "1 if a relevant item is in the top k"),
        "hits": _n("hits", "relevant retrieved"),
        "f1": _n("f1", "harmonic mean of precision@k and recall@k"),
        "r-precision": _n("r_precision", "relevant in the top R / R"),
        "bpref": _n("bpref", "bpref, trec_eval's form (see the notes for queries without "
                    "judged non-relevant or relevant items)"),
    },
    "sklearn": {
        "ndcg_score": _n("ndcg", "DCG / DCG of the user's own candidates sorted by truth; "
                         "ties averaged (McSherry & Najork)", ideal="list"),
        "dcg_score": _n("dcg", "sum of y_true / log2(rank + 1); log_base -> discount"),
    },
    "rectools": {
        "ndcg": _n("ndcg", "sum over hits of 1/log2(rank+1) / sum_{i<=k} 1/log2(i+1): the "
                   "ideal is k hits whatever the number of relevant items "
                   "(divide_by_achievable=False, the default)", gain="binary", ideal="k"),
        "map": _n("map", "sum of precision at relevant ranks within k / R "
                  "(divide_by_k=False, the default)"),
        "precision": _n("precision", "hits in the top k / k"),
        "recall": _n("recall", "hits in the top k / R"),
        "hitrate": _n("hit_rate", "1 if a relevant item is in the top k"),
        "mrr": _n("mrr", "1 / rank of the first relevant item within k"),
        "catalogcoverage": _n("coverage", "distinct items of the top-k lists (normalize=False, "
                              "the default; normalize=True divides by len(catalog) and counts "
                              "items outside it: coverage(outside=count))", kind="count"),
        "accuracy": _n("accuracy", "(TP + TN) / |catalog|, FP = k - TP (a short list's empty "
                       "slots are false positives), TN = |catalog| - k - FN; the catalogue is "
                       "evaluate(catalog=...)", fp="k"),
        "avgrecpopularity": _n("arp", "mean training interactions of the top-k items "
                               "(normalize=True: arp(normalize=share), their share of the "
                               "interactions)"),
    },
    "ms_recommenders": {
        "precision_at_k": _n("precision", "hits in the top k / k"),
        "recall_at_k": _n("recall", "hits in the top k / R"),
        "ndcg_at_k": _n("ndcg", "score_type='binary' (default): gain 1 for every true item; "
                        "ideal from the true items", gain="binary"),
        "map_at_k": _n("map", "sum of precision at hits within k / min(R, k)",
                       denominator="min_k_rel"),
        "map": _n("map", "sum of precision at hits within k / R (k still cuts the list)"),
        "catalog_coverage": _n("coverage", "distinct recommended items / distinct training "
                               "items; recommended items absent from training count: pass "
                               "catalog='train' and train=..., and users='run' (reco_df's "
                               "every user)", outside="count"),
        "logloss": _n("log_loss", "log loss over the inner join of truth and predictions "
                      "(labelled pairs only), pooled", average="micro", unlabelled="skip"),
        "auc": _n("global_auc", "roc_auc_score over the inner join of truth and predictions: "
                  "one ROC area over the labelled pairs of every user pooled, ties 1/2; one "
                  "class only gives NaN (scikit-learn >= 1.6)", unlabelled="skip"),
        "r_precision_at_k": _n(
            "r_precision", "hits at ranks <= min(R, k) / R",
            "users without such a hit drop out of the mean (pandas division leaves NaN for "
            "them and .mean() skips it), so the value is not an average over all users",
            denominator="rel"),
    },
    "recbole": {
        "hit": _n("hit_rate", "1 if a relevant item is in the top k"),
        "mrr": _n("mrr", "1 / rank of the first relevant item"),
        "map": _n("map", "sum of precision at hits / min(R, k)", denominator="min_k_rel"),
        "recall": _n("recall", "hits / R"),
        "ndcg": _n("ndcg", "binary gain; ideal = min(R, k) hits", gain="binary"),
        "precision": _n("precision", "hits / k"),
        "itemcoverage": _n("coverage", "distinct items of the top-k lists / |I|"),
        "averagepopularity": _n("arp", "mean over users of the mean training interactions of "
                                "the top-k items (unseen items 0)"),
        "shannonentropy": _n("entropy", "-sum_i p_i ln p_i over the recommended items, p_i = "
                             "their share of the top-k slots, divided by the number of "
                             "distinct recommended items", base="e", normalize="distinct"),
        "giniindex": _n("gini", "sum_j (2j - |I| - 1) c_(j) / (|I| sum_j c_j), exposure counts "
                        "ascending over the catalogue", denominator="n"),
        "tailpercentage": _n("aplt", "mean over users of the share of long-tail items in the "
                             "top k; tail = the max(floor(0.1 m), 1) least popular of the m "
                             "training items (tail_ratio=0.1); items absent from training are "
                             "not tail", head=0.9, unseen="head"),
        "auc": _n("global_auc", "one ROC area (trapezoid, ties 1/2) over the labelled "
                  "(user, item) pairs of value-based evaluation pooled; no positive or no "
                  "negative gives NaN (with a warning)"),
        "gauc": _n("gauc", "per-user AUC from the average ranks of the positives among the "
                   "user's scored candidates (ties 1/2), weighted by the positives; users "
                   "without a positive or a negative left out", weight="positives"),
    },
    "lenskit": {
        "precision": _n("precision", "hits / length of the (truncated) list",
                        denominator="list"),
        "recall": _n("recall", "hits / min(R, k)", denominator="min_k_rel"),
        "ndcg": _n("ndcg", "gain 1 per test item (gain=None); ideal min(R, k) ones; discount "
                   "1/max(log2(rank), 1)", gain="binary", discount="log2_max2"),
    },
    "spark_mllib": {
        "precisionat": _n("precision", "hits in the top k / k"),
        "recallat": _n("recall", "hits in the top k / |labels|"),
        "meanaverageprecisionat": _n("map", "AP@k / min(|labels|, k)",
                                     denominator="min_k_rel"),
        "meanaverageprecision": _n("map", "AP over the whole list / |labels|"),
        "ndcgat": _n("ndcg", "binary relevance (the Python API passes no relevance values): "
                     "ideal min(|labels|, k) ones",
                     "pyspark's RankingMetrics hands only the first two columns of each row to "
                     "the JVM (PythonMLLibAPI.newRankingMetrics), so graded relevance, even "
                     "given as a third element, is ignored: every label counts 1",
                     gain="binary"),
    },
    "recmetrics": {
        "mark": _n("map", "'mean average recall': sum over hits of (hits so far / rank) / R, "
                   "which is average precision with denominator R",
                   "_ark accumulates precision at each hit, not recall; the result is MAP@k "
                   "(denominator R), not a mean average recall"),
        "prediction_coverage": _n("coverage", "distinct predicted items / len(catalog), as a "
                                  "percentage rounded to 2 decimals (receval gives the share: "
                                  "100 x the value); predicted items outside the catalogue "
                                  "count (can exceed 100%): pass catalog=<the catalog list>",
                                  outside="count"),
    },
    "torchmetrics": {
        "retrievalmap": _n("map", "mean of precision at each hit within top_k: AP over the "
                           "hits", denominator="hits"),
        "retrievalprecision": _n("precision", "hits in the top_k / top_k (adaptive_k=True: "
                                 "/ min(top_k, candidates), denominator=list)"),
        "retrievalrecall": _n("recall", "hits in the top_k / relevant candidates"),
        "retrievalhitrate": _n("hit_rate", "1 if a relevant candidate is in the top_k"),
        "retrievalmrr": _n("mrr", "1 / rank of the first relevant candidate within top_k"),
        "retrievalnormalizeddcg": _n("ndcg", "scikit-learn's nDCG: ideal from the query's own "
                                     "candidates, tied scores averaged", ideal="list"),
        "retrievalrprecision": _n("r_precision", "relevant in the top R / R"),
        "retrievalfallout": _n("fpr", "non-relevant candidates in the top_k / non-relevant "
                               "candidates of the query; a query without a non-relevant "
                               "candidate scores 1 (empty_target_action='pos', the class "
                               "default)", candidates="list", no_negative="one"),
    },
    "cornac": {
        "ndcg": _n("ndcg", "gain 2^[relevant] - 1 (binary); ideal: the user's positives, cut "
                   "at k", gain="binary"),
        "precision": _n("precision", "true positives in the top k / k"),
        "recall": _n("recall", "true positives in the top k / positives"),
        "fmeasure": _n("f1", "2 P R / (P + R)"),
        "hitratio": _n("hit_rate", "1 if a positive is in the top k"),
        "mrr": _n("mrr", "1 / rank of the first positive in the whole ranking (no cutoff)"),
        "map": _n("map", "AP over the whole ranking, divided by the positives"),
    },
    "daisyrec": {
        "map": _n("map", "mean of precision at each hit of the top k (AP over the hits)",
                  denominator="hits"),
        "ndcg": _n("ndcg", "binary gain; the ideal is the user's own top k sorted (the hits "
                   "first)", gain="binary", ideal="list"),
        "precision": _n("precision", "hits / length of the top-k list", denominator="list"),
        "recall": _n("recall", "hits / |test items|"),
        "mrr": _n("mrr", "1 / rank of the first hit"),
        "hit": _n("hit_rate", "1 if a test item is in the top k"),
    },
    "replay": {
        "map": _n("map", "sum of precision at hits within k / min(k, |ground truth|)",
                  denominator="min_k_rel"),
        "ndcg": _n("ndcg", "binary gain; ideal min(k, |ground truth|) hits", gain="binary"),
        "precision": _n("precision", "hits in the top k / k"),
        "recall": _n("recall", "hits in the top k / |ground truth|"),
        "mrr": _n("mrr", "1 / rank of the first hit within k"),
        "hitrate": _n("hit_rate", "1 if a hit is in the top k"),
        "rocauc": _n("gauc", "AUC of the pairs inside the top k; no hit scores 0, no miss 1",
                     single_class="zero_one"),
        "surprisal": _n("novelty", "sum over the top k of log2(users / users of i) / "
                        "log2(users), unseen items 1, divided by k", pop="users",
                        normalize="max", denominator="k"),
    },
    "recpack": {
        "ndcgk": _n("ndcg", "binary interactions; ideal min(K, |truth|) hits", gain="binary"),
        "dcgk": _n("dcg", "sum over hits of y_true / log2(rank + 1)"),
        "precisionk": _n("precision", "hits in the top K / K"),
        "recallk": _n("recall", "hits in the top K / |truth|"),
        "calibratedrecallk": _n("recall", "hits in the top K / min(|truth|, K)",
                                denominator="min_k_rel"),
        "reciprocalrankk": _n("mrr", "1 / rank of the first hit within K"),
    },
    "elliot": {
        "ndcg": _n("ndcg", "gain 2^(r - t + 1) - 1 for truth items with r >= t (t = "
                   "relevance_threshold; t = 1: 2^r - 1); ideal from the user's relevant "
                   "items, cut at k", gain="exp"),
        "ndcgrendle2020": _n("ndcg", "binary gain; ideal min(R, k) hits", gain="binary"),
        "precision": _n("precision", "hits in the top k / k"),
        "recall": _n("recall", "hits in the top k / R"),
        "hr": _n("hit_rate", "1 if a relevant item is in the top k"),
        "mrr": _n("mrr", "1 / rank of the first relevant item within k"),
        "mar": _n("mar", "mean over n = 1..k of recall@n"),
        "f1": _n("f1", "2 P R / (P + R), P over k, R over the relevant items"),
        "itemcoverage": _n("coverage", "distinct items in the top-k lists (a count)",
                           kind="count"),
        "sentropy": _n("entropy", "sum_i w_i (-log2 c_i / sum_j c_j) / users, w_i = sum over "
                       "lists holding i of 1 / list length: the entropy of exposure in bits "
                       "when every list has k items"),
    },
    "pykeen": {
        "hits": _n("hit_rate", "Hits@k: 1 if the true item's rank is <= k"),
        "h": _n("hit_rate", "Hits@k (synonym h@k)"),
        "mrr": _n("mrr", "inverse harmonic mean rank: 1 / rank of the true item (no cutoff)"),
        "mean_reciprocal_rank": _n("mrr", "MRR (synonym)"),
        "inverse_harmonic_mean_rank": _n("mrr", "MRR: mean of 1 / rank"),
        "mr": _n("first_hit_rank", "mean rank: the rank of the true item, averaged over "
                 "ranking tasks (lower is better)"),
        "mean_rank": _n("first_hit_rank", "mean rank (synonym)"),
        "arithmetic_mean_rank": _n("first_hit_rank", "arithmetic mean rank (AMR)"),
    },
}
