"""recmetrics's metric names and conventions (``compat="recmetrics"``)."""

from __future__ import annotations

from ..records import Name, Preset, refuse
from ..records import name as _n

_MAPK = _n("map", "mean over users of _apk: the sum of precision at each hit within k (each "
           "prefix's precision) divided by the number of hits; no hit scores 0",
           denominator="hits", duplicates="keep")

_ROUNDED = "recommender_precision and recommender_recall round each user's value"

NAMES: dict[str, Name] = {
    "mark": _n("map", "'mean average recall': sum over hits of (hits so far / rank) / R, "
               "which is average precision with denominator R",
               "_ark accumulates precision at each hit, not recall; the result is MAP@k "
               "(denominator R), not a mean average recall", duplicates="keep"),
    "mapk": _MAPK,
    "map": _MAPK,  # MAP@K, as recmetrics' README names mapk (not mark, which divides by R)
    "catalog_coverage": refuse(
        "distinct items of k lists drawn at random / len(catalog)",
        "it draws the k lists with random.choices (with replacement, unseeded), so its value "
        "is not a function of the run; over every list it is prediction_coverage"),
    "make_confusion_matrix": refuse("a plot of the confusion matrix of y and yhat",
                                    "a figure, not a number"),
    "prediction_coverage": _n("coverage", "distinct predicted items / len(catalog), as a "
                              "percentage rounded to 2 decimals (receval gives the share: "
                              "100 x the value); predicted items outside the catalogue "
                              "count (can exceed 100%): pass catalog=<the catalog list>",
                              outside="count"),
    "novelty": _n("novelty", "mean over the lists of sum_{i in list} -log2(pop[i] / u) / n "
                  "(Zhou et al. 2010), pop[i] = training users of i, u = training users: "
                  "pass train=<the interactions pop and u count, one row per user and item>; "
                  "n is the cutoff (novelty(n=10) = novelty@10, a shorter list is still "
                  "divided by n); without one each list is divided by its own length (n = "
                  "the length of every list); an item missing from pop is refused (KeyError)",
                  pop="users", unseen="error", denominator="k", options={"n": "@k"}),
    "personalization": _n("personalization", "1 - the mean cosine similarity of the binary "
                          "item vectors of every pair of lists (sklearn cosine_similarity "
                          "of the user x item matrix, diagonal left out); recmetrics needs "
                          "lists of one length without repeats (np.array, pivot), receval "
                          "takes any and leaves empty lists out"),
    "intra_list_similarity": _n(
        "ils", "mean over the lists of the mean cosine similarity of the feature rows of "
        "every pair of items of the list; pass item_features=feature_df.fillna(0) (a DataFrame "
        "indexed by item id); an item without a row is refused (KeyError in recmetrics); a "
        "list of fewer than two items, which recmetrics refuses (division by zero), has no "
        "value and is left out", sim="cosine", source="features", missing="error",
        short="skip"),
    "mse": _n("mse", "sklearn mean_squared_error(y, yhat) over the (user, item) pairs of the "
              "truth: y the truth's ratings, yhat the run's scores for the same pairs (a pair "
              "without a score is refused)", cutoff="none", average="micro", missing="error"),
    "rmse": _n("rmse", "sqrt of sklearn mean_squared_error(y, yhat) over the (user, item) "
               "pairs of the truth (a pair without a score is refused)", cutoff="none",
               average="micro", missing="error"),
    "recommender_precision": _n(
        "precision", "mean over users of round(hits / len(predicted list), 4), each repeat "
        "of a relevant item a hit (duplicates='count'); receval does not round (|diff| < "
        "5e-5); an empty list raises in recmetrics", denominator="list", duplicates="count",
        differs=_ROUNDED),
    "recommender_recall": _n(
        "recall", "mean over users of round(hits / len(actual list), 4), each repeat of a "
        "relevant item a hit (duplicates='count': it can exceed 1); receval does not round "
        "(|diff| < 5e-5); an empty actual list raises in recmetrics (ZeroDivisionError), "
        "receval scores it 0 (empty_truth='zero')", denominator="rel", duplicates="count",
        differs=_ROUNDED),
}

PRESET = Preset(
    "recmetrics", "recmetrics", "recmetrics master b21222d (0.1.5 on PyPI has no mapk)",
    "statisticianinstilettos/recmetrics recmetrics/metrics.py (novelty, prediction_coverage, "
    "catalog_coverage, _ark, mark, _apk, mapk, personalization, intra_list_similarity, mse, "
    "rmse, make_confusion_matrix, recommender_precision, recommender_recall); plots.py only "
    "draws scores computed here, not listed; checked by benchmarks/peers/libs/recmetrics.py, "
    "tests/crosscheck/test_compat_presets.py and tests/crosscheck/test_preset_recmetrics.py",
    (("users", "truth"), ("empty_truth", "zero"), ("duplicates", "keep")),
    NAMES,
    ("recmetrics lists are the top k already; an empty actual list scores 0",
     "catalog_coverage draws k lists at random (random.choices, with replacement, unseeded): "
     "not reproduced; over every list it is prediction_coverage",
     "a repeated predicted item keeps its position and only its first occurrence can be a "
     "hit (_ark: p not in predicted[:i]; duplicates='keep')",
     "recommender_precision and recommender_recall count every repeat of a relevant item "
     "(_precision: value in actual for each predicted value; duplicates='count'); mark and "
     "mapk ask for duplicates='keep', so the two kinds are evaluated apart",
     "recommender_precision and recommender_recall round each user's value to 4 decimals "
     "before the mean; receval gives the unrounded mean (|diff| < 5e-5)",
     "novelty, personalization and intra_list_similarity read the lists alone: the users "
     "are the evaluated users (users='run' for every list of the run)"),
)
