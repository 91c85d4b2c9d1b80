"""recmetrics's metric names and conventions (``compat="recmetrics"``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..records import name as _n

NAMES: dict[str, Name] = {
    "mark": _n("map", "'mean average recall': sum over hits of (hits so far / rank) / R, "
               "which is average precision with denominator R",
               "_ark accumulates precision at each hit, not recall; the result is MAP@k "
               "(denominator R), not a mean average recall"),
    "prediction_coverage": _n("coverage", "distinct predicted items / len(catalog), as a "
                              "percentage rounded to 2 decimals (receval gives the share: "
                              "100 x the value); predicted items outside the catalogue "
                              "count (can exceed 100%): pass catalog=<the catalog list>",
                              outside="count"),
}

PRESET = Preset(
    "recmetrics", "recmetrics", "recmetrics 0.1.5", "statisticianinstilettos/recmetrics "
    "recmetrics/metrics.py (_ark, mark, prediction_coverage); checked by "
    "tests/crosscheck/test_compat_presets.py",
    (("users", "truth"), ("empty_truth", "zero"), ("duplicates", "keep")),
    NAMES,
    ("recmetrics lists are the top k already; an empty actual list scores 0",
     "catalog_coverage draws k lists at random (random.choices, with replacement, unseeded): "
     "not reproduced; over every list it is prediction_coverage",
     "a repeated predicted item keeps its position and only its first occurrence can be a "
     "hit (_ark: p not in predicted[:i]; duplicates='keep')"),
)
