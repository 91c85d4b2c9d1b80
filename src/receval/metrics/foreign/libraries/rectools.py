"""RecTools's metric names and conventions (``compat="rectools"``).

Every metric class ``rectools.metrics`` exports (its ``__all__``), lower case, with its own
parameters as options: ``k`` (the cutoff: ``ndcg(k=10)`` is ``ndcg@10``), ``NDCG``'s
``divide_by_achievable`` and ``log_base``, ``MAP``'s ``divide_by_k``, ``Precision``'s
``r_precision``, ``F1Beta``'s ``beta``, ``PartialAUC`` / ``PAP``'s ``insufficient_handling``,
``CatalogCoverage`` / ``AvgRecPopularity``'s ``normalize``, ``SufficientReco``'s ``deep``;
``debias_config`` is accepted only as ``None`` (RecTools' debiasing samples the interactions at
random). The reco table's ``rank`` column is read as an absolute position (``ranks=
"position"``); the interactions are the relevant truth items.
"""

from __future__ import annotations

from typing import Any

from ..records import Name, Preset, refuse
from ..records import name as _n

#: every RecTools metric's cutoff parameter
_K: dict[str, Any] = {"k": "@k"}
#: DebiasableMetrikAtK's debias_config: only None (no debiasing) is reproduced
_DEBIAS: dict[str, Any] = {"debias_config": {"none": {}}}
#: rectools.metrics.auc's insufficient_handling ("raise" is refused: receval does not stop)
_INSUFFICIENT: dict[str, Any] = {"insufficient_handling": {
    "ignore": {}, "exclude": {"insufficient": "exclude"}}}


def _flag(true: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A boolean library parameter: False is the entry as it stands, True adds ``true``."""
    return {"false": {}, "true": true}


NAMES: dict[str, Name] = {
    "ndcg": _n("ndcg", "sum over hits of 1/log(rank+1) / sum_{i<=k} 1/log(i+1): the ideal is "
               "k hits whatever the number of relevant items (divide_by_achievable=False, the "
               "default; True: min(R, k) hits, ndcg(ideal=truth)); the base of the logarithm "
               "cancels (log_base 2 or 10)", gain="binary", ideal="k",
               options={**_K, **_DEBIAS,
                        "divide_by_achievable": _flag({"ideal": "truth"}),
                        "log_base": {"2": {}, "10": {"discount": "log10"}}}),
    "map": _n("map", "sum over the ranks r <= k that hold a hit of (hits at ranks <= r) / r, "
              "over R (divide_by_k=False, the default; True: over k, map(denominator=k))",
              options={**_K, **_DEBIAS, "divide_by_k": _flag({"denominator": "k"})}),
    "precision": _n("precision", "hits with rank <= k / k (r_precision=True: / min(k, R), "
                    "precision(denominator=min_k_rel))",
                    options={**_K, **_DEBIAS,
                             "r_precision": _flag({"denominator": "min_k_rel"})}),
    "recall": _n("recall", "hits with rank <= k / R", options={**_K, **_DEBIAS}),
    "hitrate": _n("hit_rate", "1 if a relevant item has rank <= k", options={**_K, **_DEBIAS}),
    "mrr": _n("mrr", "1 / the smallest rank <= k of a relevant item (0 without one)",
              options={**_K, **_DEBIAS}),
    "f1beta": _n("fbeta", "(1 + beta^2) P R / (beta^2 P + R) with P = hits / k, R = hits / "
                 "R; 0 when both are 0 (beta=1.0, the default)",
                 options={**_K, **_DEBIAS, "beta": "beta"}),
    "accuracy": _n("accuracy", "(TP + TN) / |catalog|, FP = k - TP (a short list's empty "
                   "slots are false positives), TN = |catalog| - k - FN; the catalogue is "
                   "evaluate(catalog=...)", fp="k", options={**_K, **_DEBIAS},
                   differs="Accuracy and CoveredUsers"),
    "mcc": _n("mcc", "(TP TN - FP FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN)), "
              "FP = k - TP, FN = R - TP, TN = N - k - FN, 0 when the denominator is 0; "
              "N = len(catalog): write mcc@k(n_items=N)", options={**_K, **_DEBIAS}),
    "partialauc": _n("pauc", "sum over the relevant items before the k-th non-relevant one "
                     "of (k - non-relevant items above it) / (R k); "
                     "insufficient_handling='exclude': pauc(insufficient=exclude)",
                     options={**_K, **_DEBIAS, **_INSUFFICIENT}, differs="PartialAUC and PAP"),
    "pap": _n("pap", "partial AUC of the first k relevant and the first k non-relevant items "
              "/ (min(R, k) k); insufficient_handling='exclude': pap(insufficient=exclude)",
              options={**_K, **_DEBIAS, **_INSUFFICIENT}, differs="PartialAUC and PAP"),
    "catalogcoverage": _n("coverage", "distinct items with rank <= k (normalize=False, the "
                          "default; normalize=True divides by len(catalog) and counts items "
                          "outside it: coverage(outside=count), catalog=...)", kind="count",
                          options={**_K, "normalize": _flag({"kind": "catalog",
                                                             "outside": "count"})}),
    "avgrecpopularity": _n("arp", "mean over the items with rank <= k of their training "
                           "interactions (normalize=True: their share of the interactions, "
                           "arp(normalize=share)); the users are the users of the reco table",
                           options={**_K, "normalize": {
                               **_flag({"normalize": "share"}),
                               "none": {}, "share": {"normalize": "share"}}}),
    "meaninvuserfreq": _n("novelty", "mean over the items with rank <= k of -log2(users of "
                          "the item / users of prev_interactions), an item no one saw counting "
                          "one user; the users are the users of the reco table",
                          pop="users", options=_K),
    "intralistdiversity": _n("ild", "mean distance of the pairs of items with rank <= k; a "
                             "pair with an item without features has no distance (left out; "
                             "NaN when every pair has one: missing=nan), a one-item list "
                             "scores 0 (short=one_item). RecTools' distance is its "
                             "distance_calculator's, receval's 1 - sim: pass sim=custom with "
                             "evaluate(similarity=fn), fn = 1 - distance (Hamming: "
                             "1 - (Xa != Xb).sum(axis=1))", short="one_item", missing="nan",
                             options=_K),
    "serendipity": _n("rank_serendipity", "mean over the items with rank <= k of "
                      "max(p(i) - pu(i), 0) [relevant], p(i) = (N + 1 - rank) / N, pu(i) = "
                      "(N + 1 - popularity rank) / N, N = len(catalog): evaluate(catalog=...)",
                      options=_K),
    "sufficientreco": _n("sufficient_reco", "1 if the user has k rows with rank <= k "
                         "(deep=False, the default; True: min(rows, k) / k); the users are "
                         "the users of the reco table",
                         options={**_K, "deep": _flag({"deep": "true"})}),
    "coveredusers": _n("user_coverage", "1 if a user of the interactions has a row with rank "
                       "<= k", kind="list", options=_K, differs="Accuracy and CoveredUsers"),
    "unrepeatedreco": refuse(
        "1 if no item repeats among the rows with rank <= k (deep=True: the share of first "
        "occurrences)",
        "a list with a repeated item is refused or merged when the run is packed "
        "(duplicates=...), so no metric sees the repeats; receval.beyond.dq.unrepeated_reco("
        "run, k) checks the raw rows (it cuts at k rows, RecTools at rank <= k)"),
    "intersection": refuse(
        "|R_k & B_ref_k| / |R_k|: the share of the rows with rank <= k that are among the "
        "reference reco's rows with rank <= ref_k",
        "receval's unexpectedness is 1 - |R_k & B_k| / k and its overlap |A & B| / |A | B|; "
        "neither divides by the rows of the list, nor takes another cutoff for the reference"),
    "debiasconfig": refuse(
        "the debiasing of the interactions a metric's debias_config asks for",
        "RecTools drops a random sample of the interactions with popular items (IQR outliers, "
        "random_state) before computing; debias the interactions first, then evaluate them"),
    "debias_interactions": refuse(
        "the interactions with a random sample of those of popular items dropped",
        "a random preprocessing of the interactions, not a metric: apply it to the truth "
        "before evaluate"),
}

PRESET = Preset(
    "rectools", "RecTools", "RecTools 0.19.0", "MobileTeleSystems/RecTools rectools/metrics/"
    "__init__.py (__all__), ranking.py (NDCG, MAP, MRR), classification.py (Precision, Recall, "
    "HitRate, F1Beta, Accuracy, MCC, calc_confusions), auc.py (PartialAUC, PAP), catalog.py "
    "(CatalogCoverage), popularity.py (AvgRecPopularity), novelty.py (MeanInvUserFreq), "
    "diversity.py and distances.py (IntraListDiversity), serendipity.py (Serendipity), dq.py "
    "(SufficientReco, UnrepeatedReco, CoveredUsers), intersection.py (Intersection), "
    "debias.py (DebiasConfig), base.py (merge_reco, outer_merge_reco); read from the installed "
    "0.19.0; checked by benchmarks/peers/libs/rectools.py and "
    "tests/crosscheck/test_preset_rectools.py",
    (("users", "truth"), ("empty_truth", "skip"), ("ranks", "position")),
    NAMES,
    ("ranks are the rank column as given, an absolute position (ranks='position'): rank 9 "
     "stays outside the top 3 even when the user has 2 rows, and discounts, reciprocal ranks "
     "and precision@rank read the rank; a score run is ranked by score (positions 1..n)",
     "two rows of a user at one rank (shared ranks) each sit at that rank, as RecTools reads "
     "them (rank <= k): both are in the top k for precision, recall, F1Beta, HitRate, MCC, "
     "Accuracy and the metrics on the recommended items, NDCG adds 1/log(rank+1) for each "
     "hit, MRR reads the smallest hit rank and MAP adds (hits at ranks <= r) / r once for "
     "each rank r holding a hit",
     "PartialAUC and PAP: shared ranks are refused (an error naming the metric, the user and "
     "the rank), while RecTools orders the rows of one rank arbitrarily (its sort of the reco "
     "table) and counts the non-relevant rows above each relevant one in that order",
     "users are the users of the interactions; a user without recommendations scores 0; "
     "AvgRecPopularity, MeanInvUserFreq, IntraListDiversity, Serendipity and SufficientReco "
     "average the users of the reco table: evaluate them with users='run'",
     "Accuracy and CoveredUsers: a user whose truth rows are all non-relevant (relevance 0) "
     "has no interactions, so RecTools does not count it, while receval's accuracy and "
     "user_coverage evaluate every truth user whatever empty_truth: pass the relevant rows "
     "only as the truth",
     "insufficient_handling='raise' is refused: receval leaves such users out "
     "(insufficient=exclude) or scores them as their lists stand, never stops on them"),
)
