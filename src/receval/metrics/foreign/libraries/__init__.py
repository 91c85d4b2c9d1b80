"""Every library preset (``compat=``): one module a library, holding its metric names as the
library writes them, the receval metric each means (or why it is refused), the policies that
match the library, the version and sources it was checked against, and its notes.

trec_eval's names come from :mod:`receval.metrics.foreign.trec_eval` (``pytrec_eval`` is
another name of that preset); ir_measures, which averages over the qrels' queries, has its
own.
"""

from __future__ import annotations

from ..records import Name, Preset
from . import (
    cornac,
    daisyrec,
    elliot,
    ir_measures,
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
    trec_eval, ir_measures, ranx, sklearn, rectools, ms_recommenders, recbole, lenskit, spark_mllib,
    recmetrics, torchmetrics, cornac, daisyrec, replay, recpack, elliot, pykeen,
)}

#: other names of the same preset
PRESET_ALIASES = {"pytrec_eval": "trec_eval", "ir-measures": "ir_measures",
                  "scikit-learn": "sklearn", "recommenders": "ms_recommenders",
                  "spark": "spark_mllib"}

#: preset name -> {library name (lower case): Name}
LIBRARY_NAMES: dict[str, dict[str, Name]] = {k: p.names for k, p in PRESETS.items()}
