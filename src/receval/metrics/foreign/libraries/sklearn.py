"""scikit-learn's metric names and conventions (``compat="sklearn"``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..records import name as _n

NAMES: dict[str, Name] = {
    "ndcg_score": _n("ndcg", "DCG / DCG of the user's own candidates sorted by truth; "
                     "ties averaged (McSherry & Najork)", ideal="list"),
    "dcg_score": _n("dcg", "sum of y_true / log2(rank + 1); log_base -> discount"),
}

PRESET = Preset(
    "sklearn", "scikit-learn", "scikit-learn 1.9.1", "scikit-learn sklearn/metrics/_ranking.py "
    "(dcg_score, ndcg_score, _tie_averaged_dcg); checked by tests/crosscheck/test_sklearn.py",
    (("ties", "average"), ("users", "truth"), ("empty_truth", "zero"),
     ("unretrieved", "bottom")),
    NAMES,
    ("y_true and y_score cover the same candidates, so every truth item is scored: built over "
     "the union of the recommended and the truth items, the truth items the run missed scored "
     "below every recommended item (0 or the minimum), they are tied at the bottom "
     "(unretrieved='bottom'); the ideal list is the user's candidates. Arrays over the whole "
     "catalogue (unrecommended, unjudged items tied with them) are not reproduced",
     "an all-zero y_true row scores 0 and counts (empty_truth='zero')"),
)
