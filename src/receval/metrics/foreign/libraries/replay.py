"""RePlay's metric names and conventions (``compat="replay"``)."""

from __future__ import annotations

from typing import Any

from ..records import Name, Preset, refuse
from ..records import name as _n

#: RePlay's ``topk`` (one cutoff: MAP(topk=5) is map@5) and ``mode=``
#: (replay/metrics/descriptors.py): only Mean() is the mean over users that receval's summary
#: gives
_MODE = {"topk": "@k", "mode": {"mean": {}, "mean()": {}}}


def _r(family: str, meaning: str, **params: Any) -> Name:
    """An entry that takes RePlay's ``mode=`` option."""
    return _n(family, meaning, options=_MODE, **params)


NAMES: dict[str, Name] = {
    "map": _r("map", "sum of precision at hits within k / min(k, |ground truth|)",
              denominator="min_k_rel", differs="DataFrame inputs"),
    "ndcg": _r("ndcg", "binary gain; ideal min(k, |ground truth|) hits", gain="binary",
               differs="DataFrame inputs"),
    "precision": _r("precision", "hits in the top k / k", differs="DataFrame inputs"),
    "recall": _r("recall", "hits in the top k / |ground truth|"),
    "mrr": _r("mrr", "1 / rank of the first hit within k", differs="DataFrame inputs"),
    "hitrate": _r("hit_rate", "1 if a hit is in the top k"),
    "rocauc": _r("gauc", "AUC of the pairs inside the top k; no hit scores 0, no miss 1",
                 single_class="zero_one", differs="RocAuc orders tied"),
    "surprisal": _r("novelty", "sum over the top k of log2(users / users of i) / "
                    "log2(users), unseen items 1, divided by k", pop="users",
                    normalize="max", denominator="k"),
    "coverage": _n("coverage", "distinct items in the top k of every user of the "
                   "recommendations / distinct items of train (Coverage(topk)(recs, train)): "
                   "evaluate(catalog='train', users='run'); recommended items outside train "
                   "count; allow_caching changes no value", outside="count",
                   options={"topk": "@k", "allow_caching": {"true": {}, "false": {}}}),
    "unexpectedness": _r("unexpectedness", "1 - |top k & baseline top k| / k over the users "
                         "of the recommendations: evaluate(baseline_run=base_recs, "
                         "users='run')"),
    "categoricaldiversity": _r("category_diversity", "distinct categories among the top k "
                               "rows / k (each row an item with one category): "
                               "evaluate(item_categories={item: [category]}, users='run')"),
    "novelty": refuse("|top k \\ train items of the user| / k",
                      "RePlay's Novelty divides by k even when a list is shorter than k; "
                      "receval's unseen_share@k divides by the list's length at k (equal "
                      "only when every list holds k items or more): evaluate unseen_share@k "
                      "with train=... where every list is that long"),
}


PRESET = Preset(
    "replay", "RePlay", "replay-rec 0.22.0", "sb-ai-lab/RePlay replay/metrics/"
    "__init__.py, map.py, ndcg.py, precision.py, recall.py, mrr.py, hitrate.py, rocauc.py, "
    "surprisal.py, coverage.py, novelty.py, unexpectedness.py, categorical_diversity.py, "
    "descriptors.py; tests/metrics",
    (("users", "truth"), ("empty_truth", "zero")),
    NAMES,
    ("RocAuc orders tied scores by the list (no half credit for ties): equal to gauc@k when "
     "scores are distinct",
     "a user with no recommendation or no ground truth scores 0",
     "DataFrame inputs (pandas, polars, Spark) are sorted by (score, item id) descending "
     "(base_metric.py): tied scores rank the larger item id first. receval's ties='id' ranks "
     "the smaller first; ties='trec_eval' (score as float32, then id descending as a string) "
     "reproduces it for string ids that sort like the library's and float32-exact scores; "
     "integer ids: not reproduced. Dict inputs keep the given order of tied scores",
     "Unexpectedness gives 0 to a user without a baseline list; receval's unexpectedness "
     "gives 1 (nothing of the list is in the baseline)",
     "mode=Median(), PerUser(), ConfidenceInterval(): not one mean over users; receval's "
     "per-user values (EvalResult.per_user) give them"),
)
