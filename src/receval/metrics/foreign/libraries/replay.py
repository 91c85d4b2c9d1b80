"""RePlay's metric names and conventions (``compat="replay"``)."""

from __future__ import annotations

from ..records import Name, Preset
from ..records import name as _n

NAMES: dict[str, Name] = {
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
}

PRESET = Preset(
    "replay", "RePlay", "RePlay 0.21.7 (master b4e051e)", "sb-ai-lab/RePlay replay/metrics/"
    "map.py, ndcg.py, precision.py, recall.py, mrr.py, hitrate.py, rocauc.py; RePlay needs "
    "Spark or polars extras, so the tests use values worked out from these formulas (and "
    "RocAuc's docstring example)",
    (("users", "truth"), ("empty_truth", "zero")),
    NAMES,
    ("RocAuc orders tied scores by the list (no half credit for ties): equal to gauc@k when "
     "scores are distinct",
     "a user with no recommendation or no ground truth scores 0",
     "DataFrame inputs (pandas, polars, Spark) are sorted by (score, item id) descending "
     "(base_metric.py): tied scores rank the larger item id first. receval's ties='id' ranks "
     "the smaller first; ties='trec_eval' (score as float32, then id descending as a string) "
     "reproduces it for string ids that sort like the library's and float32-exact scores; "
     "integer ids: not reproduced. Dict inputs keep the given order of tied scores"),
)
