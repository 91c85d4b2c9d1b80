"""LensKit: the ``compat="lenskit"`` preset against the library itself."""

from __future__ import annotations

import numpy as np
from common import (
    CUTS,
    TOL_F32,
    Report,
    check,
    make_data,
    need,
    ours,
    ranked,
    relevant,
    version,
)

_LENSKIT_EMPTY = "a user with an empty list"
_LENSKIT_AP = "AveragePrecision(n) divides"


@check("lenskit", "LensKit")
def check_lenskit(report: Report) -> None:
    data = need("lenskit.data")
    ranking = need("lenskit.metrics")
    label = f"lenskit {version('lenskit')}"
    run, truth = make_data(901, ties=True)
    # every test user gets a list (empty when the run has none); users without a relevant
    # item have no test items: LensKit's NaN, left out of the mean (empty_truth='skip')
    tests = {u: items for u, items in relevant(truth).items()}

    def mean(metric, graded: bool = False) -> float:
        values = []
        for u, items in tests.items():
            recs = data.ItemList(item_ids=np.array(ranked(run.get(u, {})), dtype=np.int64),
                                 ordered=True)
            fields = {"rating": np.array([truth[u][i] for i in items], dtype=np.float64)} \
                if graded else {}
            test = data.ItemList(item_ids=np.array(items, dtype=np.int64), **fields)
            values.append(metric.measure_list(recs, test))
        return float(np.nanmean(values))

    for k in CUTS:
        got = ours(run, truth, [f"precision@{k}", f"recall@{k}", f"ndcg@{k}"], "lenskit")
        report.add("lenskit", label, f"precision@{k}", got[f"precision@{k}"],
                   mean(ranking.Precision(n=k)), known=_LENSKIT_EMPTY)
        # without the users whose list is empty (users='intersection')
        only = ours(run, truth, [f"precision@{k}"], "lenskit", users="intersection")
        kept = {u: items for u, items in tests.items() if run.get(u)}
        tests, saved = kept, tests
        report.add("lenskit", label, f"precision@{k} users=intersection",
                   only[f"precision@{k}"], mean(ranking.Precision(n=k)))
        tests = saved
        report.add("lenskit", label, f"recall@{k}", got[f"recall@{k}"],
                   mean(ranking.Recall(n=k)))
        report.add("lenskit", label, f"ndcg@{k}", got[f"ndcg@{k}"], mean(ranking.NDCG(n=k)))
        for name, cls in (("hit", ranking.Hit), ("reciprank", ranking.RecipRank),
                          ("dcg", ranking.DCG), ("rbp", ranking.RBP)):
            key = f"{name}@{k}"
            report.add("lenskit", label, key, ours(run, truth, [key], "lenskit")[key],
                       mean(cls(n=k)))
        for name, cls in (("ndcg", ranking.NDCG), ("dcg", ranking.DCG)):
            key = f"{name}@{k}(gain=rating)"
            report.add("lenskit", label, key, ours(run, truth, [key], "lenskit")[key],
                       mean(cls(n=k, gain="rating"), graded=True))
    # the forms without a cutoff: the whole list
    for name, cls in (("hit", ranking.Hit), ("reciprank", ranking.RecipRank),
                      ("rbp", ranking.RBP), ("recall", ranking.Recall),
                      ("precision", ranking.Precision)):
        report.add("lenskit", label, name, ours(run, truth, [name], "lenskit")[name],
                   mean(cls()), known=_LENSKIT_EMPTY if name == "precision" else "")
    kept = {u: items for u, items in tests.items() if run.get(u)}
    tests, saved = kept, tests
    report.add("lenskit", label, "precision users=intersection",
               ours(run, truth, ["precision"], "lenskit", users="intersection")["precision"],
               mean(ranking.Precision()))
    tests = saved
    for name, cls in (("ndcg", ranking.NDCG), ("dcg", ranking.DCG)):
        key = f"{name}(gain=rating)"
        report.add("lenskit", label, key, ours(run, truth, [key], "lenskit")[key],
                   mean(cls(gain="rating"), graded=True))
        report.add("lenskit", label, name, ours(run, truth, [name], "lenskit")[name],
                   mean(cls()))
    report.add("lenskit", label, "listlength",
               ours(run, truth, ["listlength"], "lenskit")["listlength"],
               mean(ranking.ListLength()))
    key = "rbp@5(patience=0.5)"
    report.add("lenskit", label, key, ours(run, truth, [key], "lenskit")[key],
               mean(ranking.RBP(n=5, patience=0.5)))
    key = "hit(k=3)"
    report.add("lenskit", label, key, ours(run, truth, [key], "lenskit")[key],
               mean(ranking.Hit(n=3)))
    report.add("lenskit", label, "testitemcount",
               ours(run, truth, ["testitemcount"], "lenskit")["testitemcount"],
               float(np.mean([ranking_count(data, m) for m in tests.values()])))
    _average_precision(report, label, data)
    _gini(report, label, data)
    _exposure(report, label, data)
    _predict(report, label, data)


def ranking_count(data, items: list[int]) -> float:
    """LensKit's TestItemCount of one test list: its ``__call__`` (the installed class leaves
    Metric's measure_list and summarize abstract, so it cannot be instantiated)."""
    from lenskit.metrics import TestItemCount

    return float(TestItemCount.__call__(None, data.ItemList(item_ids=np.array([], dtype=np.int64)),
                                        data.ItemList(item_ids=np.array(items, dtype=np.int64))))


def _lists(data, run, tests) -> list[tuple[object, object]]:
    """(recommendations, test items) of each test user, the list in receval's tie order."""
    return [(data.ItemList(item_ids=np.array(ranked(run.get(u, {})), dtype=np.int64),
                           ordered=True),
             data.ItemList(item_ids=np.array(items, dtype=np.int64)))
            for u, items in tests.items()]


def _average_precision(report: Report, label: str, data) -> None:
    """AveragePrecision: short lists (KNOWN: min(R, list length)), then lists of every item
    (no list shorter than n: equal), and without n."""
    from lenskit.metrics.ranking import AveragePrecision

    for full in (False, True):
        run, truth = make_data(907, ties=True, full=full)
        pairs = _lists(data, run, relevant(truth))
        for k in (*CUTS, None):
            key = "averageprecision" if k is None else f"averageprecision@{k}"
            got = ours(run, truth, [key], "lenskit", users="intersection")[key]
            metric = AveragePrecision(n=k)
            theirs = float(np.nanmean([metric.measure_list(r, t) for r, t in pairs]))
            report.add("lenskit", label, f"{key} {'full lists' if full else 'short lists'}",
                       got, theirs, known="" if full or k is None else _LENSKIT_AP)


def _gini(report: Report, label: str, data) -> None:
    """ListGini over a catalogue of n_items items and the lists of every test user (each user
    with truth rows: LensKit's test set holds every held-out item, whatever its rating; the
    users of the run alone have no test list)."""
    from lenskit.metrics import ListGini

    n_items = 40
    run, truth = make_data(911, ties=True, n_items=30)
    pairs = _lists(data, run, {u: list(t) for u, t in truth.items()})
    for k in (*CUTS, None):
        key = "listgini" if k is None else f"listgini@{k}"
        got = ours(run, truth, [key], "lenskit", catalog=n_items)[key]
        metric = ListGini(n=k, items=n_items)
        # an empty list adds no count (and its arrow array has another type): left out
        theirs = metric.global_aggregate([metric.compute_list_data(r, t) for r, t in pairs
                                          if len(r)])
        report.add("lenskit", label, key, got, float(theirs))


def _exposure(report: Report, label: str, data) -> None:
    """ExposureGini (geometric rank weights, float32 sums: TOL_F32) over a catalogue of
    n_items items, and the category entropies of each list (entropy, rank_biased_entropy:
    an item-by-category 0/1 matrix over every category, each total plus 1e-6), averaged over
    the test users' lists (an empty list: NaN, left out)."""
    from lenskit.metrics import ExposureGini, GeometricRankWeight, entropy, rank_biased_entropy

    import receval.beyond.exposure  # noqa: F401  (registers the families)

    n_items = 40
    run, truth = make_data(917, ties=True, n_items=30)
    pairs = _lists(data, run, {u: list(t) for u, t in truth.items()})
    for k in (*CUTS, None):
        for p in (0.85, 0.5):
            key = "exposuregini" if k is None else f"exposuregini@{k}"
            key += "" if p == 0.85 else f"(patience={p})"
            got = ours(run, truth, [key], "lenskit", catalog=n_items)[key]
            metric = ExposureGini(n=k, items=n_items, weight=GeometricRankWeight(p))
            theirs = metric.global_aggregate([metric.compute_list_data(r, t) for r, t in pairs
                                              if len(r)])
            report.add("lenskit", label, key, got, float(theirs), tol=TOL_F32)
    rng = np.random.default_rng(919)
    n_cat = 6
    cats = {i: sorted({int(c) for c in rng.integers(0, n_cat, size=int(rng.integers(1, 3)))})
            for i in range(30)}
    cats[29] = []  # an item without a category: a zero row
    matrix = np.zeros((30, n_cat))
    for i, cs in cats.items():
        matrix[i, cs] = 1.0
    users = list(truth)
    for k in (*CUTS, None):
        for name, p in (("entropy", None), ("rank_biased_entropy", 0.85),
                        ("rank_biased_entropy", 0.5)):
            key = name if k is None else f"{name}@{k}"
            key += "" if p in (None, 0.85) else f"(patience={p})"
            values = []
            for u in users:
                ids = np.array(ranked(run.get(u, {})), dtype=np.int64)
                recs = data.ItemList(item_ids=ids, ordered=True)
                if name == "entropy":
                    values.append(entropy(recs, matrix[ids], n=k))
                else:
                    values.append(rank_biased_entropy(recs, matrix[ids], n=k,
                                                      weight=GeometricRankWeight(p)))
            got = ours(run, truth, [key], "lenskit", item_categories=cats)[key]
            report.add("lenskit", label, key, got, float(np.nanmean(values)))


def _predict(report: Report, label: str, data) -> None:
    """MAE and RMSE: the run's scores against the test ratings, averaged over the lists
    (ListMetric.summarize); a prediction without a rating is ignored (missing_truth=
    'ignore'); a rating without a score raises or, with missing_scores='ignore', is left
    out."""
    from lenskit.metrics import MAE, RMSE

    rng = np.random.default_rng(913)
    run: dict = {}
    truth: dict = {}
    for u in range(25):
        items = rng.choice(30, size=int(rng.integers(1, 8)), replace=False)
        truth[u] = {int(i): int(rng.integers(1, 6)) for i in items}
        # multiples of 1/4: LensKit keeps scores in float32
        run[u] = {int(i): float(rng.integers(2, 21)) / 4 for i in items}
        run[u][int(rng.integers(30, 35))] = 2.5  # a prediction without a rating
    # every fifth user's first rated item unscored (when the user has another: a list with no
    # scored rating makes LensKit's MAE raise and its mean NaN)
    unscored = {u: dict(list(s.items())[1:]) if u % 5 == 0 and len(truth[u]) > 1 else s
                for u, s in run.items()}
    for data_run, option in ((run, "missing_truth=ignore"),
                             (unscored, "missing_truth=ignore, missing_scores=ignore")):
        for name, cls in (("mae", MAE), ("rmse", RMSE)):
            metric = cls(missing_truth="ignore",
                         missing_scores="ignore" if "scores" in option else "error")
            values = []
            for u, rated in truth.items():
                scored = data_run[u]
                preds = data.ItemList(item_ids=np.array(list(scored), dtype=np.int64),
                                      scores=np.array(list(scored.values())))
                test = data.ItemList(item_ids=np.array(list(rated), dtype=np.int64),
                                     rating=np.array(list(rated.values()), dtype=np.float64))
                values.append(metric.measure_list(preds, test))
            key = f"{name}({option})"
            report.add("lenskit", label, key, ours(data_run, truth, [key], "lenskit")[key],
                       metric.summarize(values)["mean"])
