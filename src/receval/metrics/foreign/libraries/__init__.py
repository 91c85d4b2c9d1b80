"""Every library preset (``compat=``): one module a library, holding its metric names as the
library writes them, the receval metric each means (or why it is refused), the policies that
match the library, the version and sources it was checked against, and its notes.

trec_eval's names come from :mod:`receval.metrics.foreign.trec_eval`; ``ir_measures`` and
``pytrec_eval`` are other names of that preset.
"""

from __future__ import annotations

from ..records import Name, Preset
from . import (
    cornac,
    daisyrec,
    elliot,
    lenskit,
    ms_recommenders,
    pykeen,
    ranx,
    recbole,
    recmetrics,
    recpack,
    rectools,
    replay,
    sklearn,
    spark_mllib,
    torchmetrics,
    trec_eval,
)

__all__ = ["LIBRARY_NAMES", "PRESETS", "PRESET_ALIASES"]

PRESETS: dict[str, Preset] = {m.PRESET.name: m.PRESET for m in (
    trec_eval, ranx, sklearn, rectools, ms_recommenders, recbole, lenskit, spark_mllib,
    recmetrics, torchmetrics, cornac, daisyrec, replay, recpack, elliot, pykeen,
)}

#: other names of the same preset
PRESET_ALIASES = {"pytrec_eval": "trec_eval", "ir_measures": "trec_eval",
                  "scikit-learn": "sklearn", "recommenders": "ms_recommenders",
                  "spark": "spark_mllib"}

#: preset name -> {library name (lower case): Name}
LIBRARY_NAMES: dict[str, dict[str, Name]] = {k: p.names for k, p in PRESETS.items()}
