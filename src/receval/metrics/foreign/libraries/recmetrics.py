"""recmetrics's metric names and conventions (``compat="recmetrics"``)."""

from __future__ import annotations

from ..records import Name, Preset, refuse
from ..records import name as _n

_MAPK = _n("map", "mean over users of _apk: the sum of precision at each hit within k (each "
           "prefix's precision) divided by the number of hits; no hit scores 0",
           denominator="hits")

NAMES: dict[str, Name] = {
    "mark": _n("map", "'mean average recall': sum over hits of (hits so far / rank) / R, "
               "which is average precision with denominator R",
               "_ark accumulates precision at each hit, not recall; the result is MAP@k "
               "(denominator R), not a mean average recall"),
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
}

PRESET = Preset(
    "recmetrics", "recmetrics", "recmetrics master b21222d (0.1.5 on PyPI has no mapk)",
    "statisticianinstilettos/recmetrics recmetrics/metrics.py (_ark, mark, _apk, mapk, "
    "prediction_coverage, catalog_coverage, make_confusion_matrix); checked by "
    "benchmarks/peers/libs/recmetrics.py and tests/crosscheck/test_compat_presets.py",
    (("users", "truth"), ("empty_truth", "zero"), ("duplicates", "keep")),
    NAMES,
    ("recmetrics lists are the top k already; an empty actual list scores 0",
     "catalog_coverage draws k lists at random (random.choices, with replacement, unseeded): "
     "not reproduced; over every list it is prediction_coverage",
     "a repeated predicted item keeps its position and only its first occurrence can be a "
     "hit (_ark: p not in predicted[:i]; duplicates='keep')"),
)
