"""Every ``compat=`` preset against the library itself, wherever that library imports.

For each preset and each metric name it maps, random seeded data (tied scores, graded
relevance where the library takes it, users whose truth has no relevant item, users with no
truth or no list, lists shorter than k) goes through the library's own metric API and through
``rv.evaluate(..., compat=<preset>)``. The table printed has one line per (preset, metric):

    status  preset  library-version  metric  receval  library  |diff|

``PASS``: ``|diff| <= 1e-9`` (``1e-6`` where the library computes in float32: torchmetrics).
``KNOWN``: a difference the preset documents as not reproduced (its note is printed); known
cases do not count as passes. ``FAIL``: anything else. ``ERROR``: the library is installed
but the check raised. A library that does not import is listed with the reason; the presets
of libraries that install nowhere are covered by worked examples in
``tests/crosscheck/test_compat_presets.py``.

Run with any interpreter that has receval (each library is imported inside a ``try``)::

    python benchmarks/peers/check_presets.py [--only torchmetrics,rectools]

The exit status is 1 when any line is FAIL or ERROR.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import math
import platform
import sys
import traceback
import warnings
from collections.abc import Callable

import numpy as np

import receval as rv
from receval.compat import PRESETS

TOL = 1e-9
TOL_F32 = 1e-6  # float32 arithmetic: a few ulps of 1.0 (2^-23 = 1.2e-7) over a sum of terms
CUTS = (1, 3, 5, 10)

Run = dict[int, dict[int, float]]
Truth = dict[int, dict[int, int]]


# ---- data ----------------------------------------------------------------------------------------

def make_data(seed: int, *, ties: bool = True, graded: bool = True, full: bool = False,
              n_users: int = 40, n_items: int = 30, max_len: int = 15,
              edge_users: bool = True) -> tuple[Run, Truth]:
    """A seeded run and truth.

    Scores are positive multiples of 1/4 (exact in float32); ``ties=True`` draws them from
    five values, so most lists hold tied scores. Lists have 1..``max_len`` items (many shorter
    than the cutoffs) or, with ``full=True``, every item. Users ``u % 7 == 0`` have judged items
    that are all non-relevant (relevance 0), users ``u % 7 == 1`` have no truth rows at all,
    and three more users have truth but no list (``edge_users=False`` leaves both out). Graded
    relevance is 0..3, binary 0..1.
    """
    rng = np.random.default_rng(seed)
    run: Run = {}
    truth: Truth = {}
    top = 3 if graded else 1
    for u in range(n_users):
        if full:
            items = rng.permutation(n_items)
        else:
            items = rng.choice(n_items, size=int(rng.integers(1, max_len + 1)), replace=False)
        if ties:
            scores = rng.integers(1, 6, size=len(items)) * 0.25
        else:
            scores = (rng.permutation(len(items)) + 1) * 0.25
        run[u] = {int(i): float(s) for i, s in zip(items, scores, strict=True)}
        if edge_users and u % 7 == 1:
            continue
        judged = rng.choice(n_items, size=int(rng.integers(1, 9)), replace=False)
        # relevant items are drawn half from the list, so that lists have hits
        if len(items) and rng.random() < 0.8:
            judged[0] = items[int(rng.integers(0, min(len(items), 5)))]
            judged = np.unique(judged)
        rels = rng.integers(0 if edge_users else 1, top + 1, size=len(judged))
        if edge_users and u % 7 == 0:
            rels[:] = 0
        elif not rels.any():
            rels[0] = 1
        truth[u] = {int(i): int(r) for i, r in zip(judged, rels, strict=True)}
    if edge_users:
        for u in range(n_users, n_users + 3):
            judged = rng.choice(n_items, size=3, replace=False)
            truth[u] = {int(i): 1 for i in judged}
    return run, truth


def ranked(items: dict[int, float]) -> list[int]:
    """A list in receval's default tie order (ties='id'): score descending, then item id."""
    return [i for i, _ in sorted(items.items(), key=lambda kv: (-kv[1], kv[0]))]


def relevant(truth: Truth) -> dict[int, list[int]]:
    """Each user's relevant items (relevance > 0); users without one are left out."""
    out = {u: [i for i, r in t.items() if r > 0] for u, t in truth.items()}
    return {u: items for u, items in out.items() if items}


def binary(truth: Truth) -> Truth:
    return {u: {i: 1 for i in items} for u, items in relevant(truth).items()}


# ---- report ---------------------------------------------------------------------------------------

class Report:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, float, float, float]] = []
        self.notes: dict[tuple[str, str], list[str]] = {}
        self.missing: list[tuple[str, str, str]] = []
        self.errors: list[tuple[str, str]] = []
        self.checked: set[str] = set()
        self.info: list[str] = []

    def add(self, preset: str, label: str, metric: str, ours: float, theirs: float, *,
            tol: float = TOL, known: str = "") -> None:
        ours, theirs = float(ours), float(theirs)
        both_nan = math.isnan(ours) and math.isnan(theirs)
        diff = 0.0 if both_nan else abs(ours - theirs)
        ok = both_nan or diff <= tol
        if known and not ok:
            status = "KNOWN"
            self.notes.setdefault((preset, note(preset, known)), []).append(metric)
        else:
            status = "PASS" if ok else "FAIL"
        self.rows.append((status, preset, label, metric, ours, theirs, diff))
        self.checked.add(preset)

    def print(self) -> int:
        w_metric = max([len(r[3]) for r in self.rows] + [6])
        w_label = max([len(r[2]) for r in self.rows] + [7])
        print(f"receval {rv.__version__}, Python {platform.python_version()}, "
              f"numpy {np.__version__}")
        print()
        print(f"{'status':6s}  {'preset':16s}  {'library':{w_label}s}  {'metric':{w_metric}s}  "
              f"{'receval':>20s}  {'library value':>20s}  {'|diff|':>9s}")
        for status, preset, label, metric, ours, theirs, diff in self.rows:
            print(f"{status:6s}  {preset:16s}  {label:{w_label}s}  {metric:{w_metric}s}  "
                  f"{ours:20.15g}  {theirs:20.15g}  {diff:9.2e}")
        if self.notes:
            print()
            print("Known differences (documented in the preset, not counted as passes):")
            for (preset, text), metrics in self.notes.items():
                print(f"- {preset}: {', '.join(metrics)}:")
                print(f"    {text}")
        if self.info:
            print()
            for line in self.info:
                print(f"NOTE  {line}")
        for preset, error in self.errors:
            print(f"ERROR  {preset}: {error}")
        if self.missing:
            print()
            print("Libraries not installed (presets covered by worked examples in "
                  "tests/crosscheck/test_compat_presets.py):")
            for preset, library, reason in self.missing:
                print(f"NOT-INSTALLED  {preset}  {library}: {reason}")
        counts = {s: sum(r[0] == s for r in self.rows) for s in ("PASS", "KNOWN", "FAIL")}
        print()
        print(f"SUMMARY  {counts['PASS']} pass, {counts['KNOWN']} known, {counts['FAIL']} fail, "
              f"{len(self.errors)} error; presets checked: {len(self.checked)}, "
              f"not installed: {len(self.missing)}")
        return 1 if counts["FAIL"] or self.errors else 0


def version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def ours(run: Run | dict, truth: Truth | dict, names: list[str], preset: str,
         **policies: object) -> dict[str, float]:
    res = rv.evaluate(run, truth, names, compat=preset, **policies)
    return {n: float(res[n]) for n in names}


def note(preset: str, start: str) -> str:
    """The preset's own note on a known difference (a KNOWN line needs one)."""
    for text in PRESETS[preset].notes:
        if text.startswith(start):
            return text
    raise LookupError(f"preset {preset!r} documents no difference starting {start!r}")


CHECKS: list[tuple[str, str, Callable[[Report], None]]] = []


def check(preset: str, library: str):
    def wrap(fn):
        CHECKS.append((preset, library, fn))
        return fn
    return wrap


class NotInstalled(Exception):
    pass


def need(module: str):
    try:
        return importlib.import_module(module)
    except Exception as exc:  # noqa: BLE001 - any import failure is a reason to report
        raise NotInstalled(f"import {module}: {type(exc).__name__}: "
                           f"{str(exc).splitlines()[0] if str(exc) else ''}") from exc


# ---- torchmetrics ----------------------------------------------------------------------------------

@check("torchmetrics", "torchmetrics")
def check_torchmetrics(report: Report) -> None:
    torch = need("torch")
    retrieval = need("torchmetrics.retrieval")
    label = f"torchmetrics {version('torchmetrics')} (torch {torch.__version__})"

    def tensors(run: Run, truth: Truth, graded: bool):
        preds, target, indexes = [], [], []
        for u, items in run.items():
            for i, s in items.items():
                rel = truth.get(u, {}).get(i, 0)
                preds.append(s)
                target.append(rel if graded else int(rel > 0))
                indexes.append(u)
        return (torch.tensor(preds, dtype=torch.float64), torch.tensor(target),
                torch.tensor(indexes))

    def restricted(run: Run, truth: Truth) -> Truth:
        # torchmetrics knows only the targets of the scored candidates
        return {u: {i: r for i, r in truth.get(u, {}).items() if i in items}
                for u, items in run.items()}

    classes = {"retrievalmap": retrieval.RetrievalMAP,
               "retrievalprecision": retrieval.RetrievalPrecision,
               "retrievalrecall": retrieval.RetrievalRecall,
               "retrievalhitrate": retrieval.RetrievalHitRate,
               "retrievalmrr": retrieval.RetrievalMRR,
               "retrievalnormalizeddcg": retrieval.RetrievalNormalizedDCG}
    # distinct scores: torch.topk leaves the order of tied scores unspecified
    run, truth = make_data(101, ties=False)
    sub = restricted(run, truth)
    for graded in (False, True):
        preds, target, indexes = tensors(run, truth, graded)
        t = sub if graded else {u: {i: int(r > 0) for i, r in x.items()} for u, x in sub.items()}
        for name, cls in classes.items():
            if graded and name != "retrievalnormalizeddcg":
                continue  # the other retrieval metrics take binary targets only
            for k in (*CUTS, None):
                m = cls() if k is None else cls(top_k=k)
                theirs = float(m(preds, target, indexes=indexes))
                key = name if k is None else f"{name}@{k}"
                got = ours(run, t, [key], "torchmetrics")[key]
                report.add("torchmetrics", label, key + (" graded" if graded else ""), got,
                           theirs, tol=TOL_F32)
        if not graded:
            m = retrieval.RetrievalPrecision(top_k=5, adaptive_k=True)
            theirs = float(m(preds, target, indexes=indexes))
            key = "retrievalprecision@5(denominator=list)"
            report.add("torchmetrics", label, key + " adaptive_k", ours(run, t, [key],
                       "torchmetrics")[key], theirs, tol=TOL_F32)
            theirs = float(retrieval.RetrievalRPrecision()(preds, target, indexes=indexes))
            report.add("torchmetrics", label, "retrievalrprecision",
                       ours(run, t, ["retrievalrprecision"], "torchmetrics")[
                           "retrievalrprecision"], theirs, tol=TOL_F32)
    # tied scores: RetrievalNormalizedDCG averages them (ties='average')
    run, truth = make_data(102, ties=True)
    sub = restricted(run, truth)
    preds, target, indexes = tensors(run, truth, True)
    for k in (*CUTS, None):
        m = retrieval.RetrievalNormalizedDCG() if k is None else \
            retrieval.RetrievalNormalizedDCG(top_k=k)
        key = "retrievalnormalizeddcg" if k is None else f"retrievalnormalizeddcg@{k}"
        report.add("torchmetrics", label, key + " graded ties(average)",
                   ours(run, sub, [key], "torchmetrics", ties="average")[key],
                   float(m(preds, target, indexes=indexes)), tol=TOL_F32)



# ---- RecTools -------------------------------------------------------------------------------------

@check("rectools", "RecTools")
def check_rectools(report: Report) -> None:
    pd = need("pandas")
    metrics = need("rectools.metrics")
    label = f"RecTools {version('rectools')}"
    run, truth = make_data(201, ties=True)
    # a user without a list scores 0; users are the users with interactions (empty_truth skip)
    reco = pd.DataFrame([(u, i, r + 1) for u, items in run.items()
                         for r, i in enumerate(ranked(items))],
                        columns=["user_id", "item_id", "rank"])
    inter = pd.DataFrame([(u, i) for u, items in relevant(truth).items() for i in items],
                         columns=["user_id", "item_id"])
    rng = np.random.default_rng(202)
    train = pd.DataFrame([(u, int(i)) for u in range(40)
                          for i in rng.choice(30, size=int(rng.integers(1, 12)), replace=False)],
                         columns=["user_id", "item_id"])
    frame = train.rename(columns={"user_id": "user", "item_id": "item"})
    for k in CUTS:
        pairs = {f"ndcg@{k}": metrics.NDCG(k=k), f"map@{k}": metrics.MAP(k=k),
                 f"precision@{k}": metrics.Precision(k=k), f"recall@{k}": metrics.Recall(k=k),
                 f"hitrate@{k}": metrics.HitRate(k=k), f"mrr@{k}": metrics.MRR(k=k),
                 f"map@{k}(denominator=k)": metrics.MAP(k=k, divide_by_k=True),
                 f"ndcg@{k}(ideal=truth)": metrics.NDCG(k=k, divide_by_achievable=True)}
        got = ours(run, truth, list(pairs), "rectools")
        for name, m in pairs.items():
            report.add("rectools", label, name, got[name], m.calc(reco, inter))
        for normalize in (False, True):
            name = f"avgrecpopularity@{k}" + ("(normalize=share)" if normalize else "")
            # AvgRecPopularity is a property of the lists: every user with a list counts
            value = ours(run, truth, [name], "rectools", train=frame, users="run",
                         empty_truth="zero")[name]
            m = metrics.AvgRecPopularity(k=k, normalize=normalize)
            report.add("rectools", label, name, value, m.calc(reco, train))


# ---- Microsoft Recommenders -----------------------------------------------------------------------

_MS_R_PRECISION = "r_precision_at_k averages"


@check("ms_recommenders", "Microsoft Recommenders")
def check_ms_recommenders(report: Report) -> None:
    pd = need("pandas")
    pe = need("recommenders.evaluation.python_evaluation")
    label = f"recommenders {version('recommenders')}"
    run, truth = make_data(301, ties=True)
    truth_df = pd.DataFrame([(u, i, float(r)) for u, items in binary(truth).items()
                             for i, r in items.items()], columns=["userID", "itemID", "rating"])
    # rows in receval's tie order: pandas' sort by (user, prediction) keeps it for tied scores
    pred_df = pd.DataFrame([(u, i, run[u][i]) for u in run for i in ranked(run[u])],
                           columns=["userID", "itemID", "prediction"])
    names = {"precision_at_k": pe.precision_at_k, "recall_at_k": pe.recall_at_k,
             "ndcg_at_k": pe.ndcg_at_k, "map_at_k": pe.map_at_k, "map": pe.map,
             "r_precision_at_k": pe.r_precision_at_k}
    for k in CUTS:
        keys = [f"{n}@{k}" for n in names]
        got = ours(run, truth, keys, "ms_recommenders")
        # ndcg_at_k merges every truth user back in (outer join): users='truth' there
        got[f"ndcg_at_k@{k}"] = ours(run, truth, [f"ndcg_at_k@{k}"], "ms_recommenders",
                                     users="truth")[f"ndcg_at_k@{k}"]
        for n, fn in names.items():
            report.add("ms_recommenders", label, f"{n}@{k}", got[f"{n}@{k}"],
                       fn(truth_df, pred_df, k=k),
                       known=_MS_R_PRECISION if n == "r_precision_at_k" else "")
        # the published r_precision_at_k: receval's per-user values, averaged over the users
        # with a hit at rank <= min(R, k) (those with a value above 0)
        res = rv.evaluate(run, truth, [f"r_precision_at_k@{k}"], compat="ms_recommenders")
        values = res.user_values(res.info["compat"]["names"][f"r_precision_at_k@{k}"])
        report.add("ms_recommenders", label, f"r_precision_at_k@{k} over users with a hit",
                   float(np.mean(values[values > 0])), pe.r_precision_at_k(truth_df, pred_df, k=k))
    # logloss over the labelled pairs (truth rows 0/1 with a prediction in (0, 1))
    rng = np.random.default_rng(302)
    run2, truth2 = {}, {}
    for u in range(25):
        items = rng.choice(30, size=10, replace=False)
        run2[u] = {int(i): float(rng.uniform(0.01, 0.99)) for i in items}
        labelled = rng.choice(items, size=6, replace=False)
        truth2[u] = {int(i): int(rng.integers(0, 2)) for i in labelled}
    t_df = pd.DataFrame([(u, i, float(r)) for u, t in truth2.items() for i, r in t.items()],
                        columns=["userID", "itemID", "rating"])
    p_df = pd.DataFrame([(u, i, s) for u, items in run2.items() for i, s in items.items()],
                        columns=["userID", "itemID", "prediction"])
    report.add("ms_recommenders", label, "logloss",
               ours(run2, truth2, ["logloss"], "ms_recommenders")["logloss"],
               pe.logloss(t_df, p_df))


# ---- recmetrics -----------------------------------------------------------------------------------

@check("recmetrics", "recmetrics")
def check_recmetrics(report: Report) -> None:
    spec = importlib.util.find_spec("recmetrics")
    if spec is None or not spec.submodule_search_locations:
        raise NotInstalled("import recmetrics: ModuleNotFoundError")
    try:
        rm = importlib.import_module("recmetrics.metrics")
        how = ""
    except ImportError:
        # the package's __init__ imports its plotting module (matplotlib, plotly, seaborn);
        # metrics.py itself needs numpy, pandas, scipy and scikit-learn
        path = f"{list(spec.submodule_search_locations)[0]}/metrics.py"
        loader = importlib.util.spec_from_file_location("_recmetrics_metrics", path)
        rm = importlib.util.module_from_spec(loader)
        try:
            loader.loader.exec_module(rm)
        except ImportError as exc:
            raise NotInstalled(f"recmetrics/metrics.py: {exc}") from exc
        how = ", metrics.py loaded alone"
    label = f"recmetrics {version('recmetrics')}{how}"
    run, truth = make_data(401, ties=True)
    # users='truth', empty_truth='zero': every truth user, an empty actual list scores 0
    users = sorted(truth)
    actual = [[i for i, r in truth[u].items() if r > 0] for u in users]
    predicted = [ranked(run.get(u, {})) for u in users]
    for k in CUTS:
        got = ours(run, truth, [f"mark@{k}"], "recmetrics")[f"mark@{k}"]
        report.add("recmetrics", label, f"mark@{k}", got, rm.mark(actual, predicted, k=k))


# ---- scikit-learn ---------------------------------------------------------------------------------

@check("sklearn", "scikit-learn")
def check_sklearn(report: Report) -> None:
    sk = need("sklearn.metrics")
    label = f"scikit-learn {version('scikit-learn')}"
    rng = np.random.default_rng(501)
    y_true = rng.integers(0, 4, size=(30, 12)).astype(float)
    y_true[::6] = 0.0  # users without a relevant item score 0 and count
    y_score = rng.integers(0, 5, size=(30, 12)) / 4  # many ties
    run = {u: {i: float(y_score[u, i]) for i in range(12)} for u in range(30)}
    truth = {u: {i: int(y_true[u, i]) for i in range(12)} for u in range(30)}
    for k in (*CUTS, None):
        name = "ndcg_score" if k is None else f"ndcg_score@{k}"
        report.add("sklearn", label, name, ours(run, truth, [name], "sklearn")[name],
                   sk.ndcg_score(y_true, y_score, k=k))
        name = "dcg_score" if k is None else f"dcg_score@{k}"
        report.add("sklearn", label, name, ours(run, truth, [name], "sklearn")[name],
                   sk.dcg_score(y_true, y_score, k=k))


# ---- trec_eval (pytrec_eval) -----------------------------------------------------------------------

def _strings(run: Run, truth: Truth) -> tuple[dict, dict]:
    return ({f"q{u:03d}": {f"d{i:03d}": s for i, s in items.items()} for u, items in run.items()},
            {f"q{u:03d}": {f"d{i:03d}": r for i, r in items.items()}
             for u, items in truth.items()})


@check("trec_eval", "trec_eval (pytrec_eval)")
def check_trec_eval(report: Report) -> None:
    pytrec_eval = need("pytrec_eval")
    label = f"pytrec_eval-terrier {version('pytrec_eval-terrier')}"
    run, truth = _strings(*make_data(601, ties=True))
    cuts = ",".join(map(str, CUTS))
    measures = {"map", "recip_rank", "Rprec", "ndcg", "bpref", "num_rel_ret", "num_rel",
                "num_ret"} | {f"{m}.{cuts}" for m in ("map_cut", "P", "recall", "ndcg_cut",
                                                      "success")}
    per_query = pytrec_eval.RelevanceEvaluator(truth, measures).evaluate(run)
    fields = {"map": "map", "recip_rank": "recip_rank", "rprec": "Rprec", "ndcg": "ndcg",
              "bpref": "bpref", "num_rel_ret": "num_rel_ret", "num_rel": "num_rel",
              "num_ret": "num_ret"}
    names = list(fields) + [f"{m}@{k}" for m in ("map_cut", "p", "recall", "ndcg_cut",
                                                  "success") for k in CUTS]
    cut_fields = {"map_cut": "map_cut", "p": "P", "recall": "recall", "ndcg_cut": "ndcg_cut",
                  "success": "success"}
    got = ours(run, truth, names, "trec_eval")
    for name in names:
        base, _, k = name.partition("@")
        field = f"{cut_fields[base]}_{k}" if k else fields[base]
        theirs = float(np.mean([v[field] for v in per_query.values()]))
        report.add("trec_eval", label, name, got[name], theirs)


# ---- ranx -----------------------------------------------------------------------------------------

_RANX_TIES = "ties: ranx sorts"


@check("ranx", "ranx")
def check_ranx(report: Report) -> None:
    ranx = need("ranx")
    label = f"ranx {version('ranx')}"
    names = ["ndcg@5", "ndcg_burges@5", "map@10", "map", "mrr", "mrr@3", "precision@5",
             "recall@10", "hit_rate@3", "hits@5", "f1@5", "r-precision"]
    for ties in (False, True):
        run, truth = _strings(*make_data(701 + ties, ties=ties))
        if ties:
            # lists of up to 15 items keep their input order in ranx: give receval's
            run = {q: {d: items[d] for d in sorted(items, key=lambda d: (-items[d], d))}
                   for q, items in run.items()}
        values = ranx.evaluate(ranx.Qrels(truth), ranx.Run(run), names, make_comparable=True)
        got = ours(run, truth, names, "ranx")
        for name in names:
            report.add("ranx", label, name + (" ties" if ties else ""), got[name],
                       values[name], known=_RANX_TIES if ties else "")
    # bpref: every query with a relevant and a judged non-relevant item, then the edge users
    run, truth = _strings(*make_data(703, ties=False))
    both = {q: t for q, t in truth.items() if any(t.values()) and not all(t.values())}
    report.add("ranx", label, "bpref", ours(run, both, ["bpref"], "ranx")["bpref"],
               ranx.evaluate(ranx.Qrels(both), ranx.Run(run), "bpref", make_comparable=True))
    report.add("ranx", label, "bpref edge users", ours(run, truth, ["bpref"], "ranx")["bpref"],
               ranx.evaluate(ranx.Qrels(truth), ranx.Run(run), "bpref", make_comparable=True),
               known="bpref: a query without")



# ---- RecBole --------------------------------------------------------------------------------------

_RECBOLE_TIE_TAIL = "TailPercentage(tail_ratio"


@check("recbole", "RecBole")
def check_recbole(report: Report) -> None:
    torch = need("torch")
    need("recbole.evaluator.metrics")
    collector_mod = need("recbole.evaluator.collector")
    evaluator_mod = need("recbole.evaluator.evaluator")
    pd = need("pandas")
    from collections import Counter

    label = f"RecBole {version('recbole')} (torch {torch.__version__})"
    # RecBole 1.2.1's metrics.py uses np.float and np.bool, removed in numpy 1.24/2.0: restore
    # them as the builtins they were aliases of
    for alias, builtin in (("float", float), ("bool", bool), ("int", int)):
        if alias not in np.__dict__:
            setattr(np, alias, builtin)
            report.info.append(f"recbole: np.{alias} restored as {builtin.__name__} (RecBole "
                               "1.2.1 uses the alias numpy removed)")
    n_items = 30
    # full ranking, distinct scores (torch.topk leaves tied scores' order unspecified)
    run, truth = make_data(801, ties=False, full=True, n_items=n_items)
    users = [u for u in run if u in relevant(truth)]  # RecBole's test users have positives
    run = {u: run[u] for u in users}
    truth = {u: t for u, t in truth.items() if u in users or not any(t.values())}
    rng = np.random.default_rng(802)
    counts = dict(zip(range(n_items), rng.permutation(n_items) + 1, strict=True))
    del counts[3]  # an item never seen in training
    train = pd.DataFrame([(f"t{j}", i) for i, c in counts.items() for j in range(c)],
                         columns=["user", "item"])

    def evaluate(names: list[str], **extra) -> dict[str, float]:
        config = {"metrics": names, "topk": list(CUTS), "metric_decimal_place": 15,
                  "eval_args": {"mode": "full"}, "device": torch.device("cpu"),
                  "tail_ratio": 0.1, **extra}
        # the trainer's path: the collector turns the score matrix into rec.topk / rec.items /
        # rec.meanrank; internal item ids are 1..n (0 is the padding id, scored -inf)
        collector = collector_mod.Collector(config)
        scores = torch.full((len(users), n_items + 1), -np.inf, dtype=torch.float64)
        pos_u, pos_i = [], []
        for row, u in enumerate(users):
            for i, s in run[u].items():
                scores[row, i + 1] = s
            for i in relevant(truth)[u]:
                pos_u.append(row)
                pos_i.append(i + 1)
        collector.eval_batch_collect(scores, None, torch.tensor(pos_u), torch.tensor(pos_i))
        data = collector.get_data_struct()
        # what Collector.data_collect reads from the training dataset: the item count with
        # the padding id, and the training interactions per item
        data.set("data.num_items", n_items + 1)
        data.set("data.count_items", Counter({i + 1: int(c) for i, c in counts.items()}))
        return evaluator_mod.Evaluator(config).evaluate(data)

    topk_names = ["hit", "mrr", "map", "recall", "ndcg", "precision"]
    theirs = evaluate(topk_names)
    for name in topk_names:
        keys = [f"{name}@{k}" for k in CUTS]
        got = ours(run, truth, keys, "recbole")
        for key in keys:
            report.add("recbole", label, key, got[key], theirs[key])
    items_names = ["itemcoverage", "averagepopularity", "shannonentropy", "giniindex",
                   "tailpercentage"]
    theirs = evaluate(items_names)
    for name in items_names:
        keys = [f"{name}@{k}" for k in CUTS]
        got = ours(run, truth, keys, "recbole", train=train, catalog=n_items + 1)
        for key in keys:
            report.add("recbole", label, key, got[key], theirs[key],
                       known=_RECBOLE_TIE_TAIL if name == "tailpercentage" else "")
    theirs = evaluate(["tailpercentage"], tail_ratio=4)
    for k in CUTS:
        key = f"tailpercentage@{k}(tail_max=4)"
        report.add("recbole", label, key + " tail_ratio=4",
                   ours(run, truth, [key], "recbole", train=train)[key],
                   theirs[f"tailpercentage@{k}"])
    # GAUC from the average ranks of tied scores: a run with ties
    run, truth = make_data(803, ties=True, full=True, n_items=n_items)
    users = [u for u in run if u in relevant(truth)]
    run = {u: run[u] for u in users}
    truth = {u: t for u, t in truth.items() if u in users}
    theirs = evaluate(["gauc"])
    report.add("recbole", label, "gauc ties", ours(run, truth, ["gauc"], "recbole")["gauc"],
               theirs["gauc"])



# ---- LensKit --------------------------------------------------------------------------------------

_LENSKIT_EMPTY = "a user with an empty list"


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
        key = f"ndcg@{k}(gain=linear)"
        report.add("lenskit", label, f"{key} gain='rating'",
                   ours(run, truth, [key], "lenskit")[key],
                   mean(ranking.NDCG(n=k, gain="rating"), graded=True))


# ---- PyKEEN ---------------------------------------------------------------------------------------

_PYKEEN_TIES = "tied scores: PyKEEN"


@check("pykeen", "PyKEEN")
def check_pykeen(report: Report) -> None:
    torch = need("torch")
    ranks_mod = need("pykeen.evaluation.ranks")
    ranking = need("pykeen.metrics.ranking")
    label = f"pykeen {version('pykeen')}"
    n_items = 30
    for ties in (False, True):
        rng = np.random.default_rng(1001 + ties)
        # leave one out: one true item per user, every candidate scored
        run, truth = {}, {}
        for u in range(40):
            scores = (rng.integers(1, 8, size=n_items) if ties
                      else rng.permutation(n_items) + 1) * 0.25
            run[u] = {i: float(s) for i, s in enumerate(scores)}
            truth[u] = {int(rng.integers(0, n_items)): 1}
        all_scores = torch.tensor([[run[u][i] for i in range(n_items)] for u in run],
                                  dtype=torch.float64)
        true_score = torch.tensor([[run[u][next(iter(truth[u]))]] for u in run],
                                  dtype=torch.float64)
        # the realistic rank comes back as float32: (optimistic + pessimistic) / 2
        realistic = ranks_mod.Ranks.from_scores(true_score, all_scores).realistic.numpy()
        tag = " ties" if ties else ""
        known = _PYKEEN_TIES if ties else ""
        for k in CUTS:
            for name in (f"hits@{k}", f"h@{k}"):
                report.add("pykeen", label, name + tag, ours(run, truth, [name], "pykeen")[name],
                           ranking.HitsAtK(k=k)(realistic), known=known, tol=TOL_F32)
        mrr = ranking.InverseHarmonicMeanRank()(realistic)
        mr = ranking.ArithmeticMeanRank()(realistic)
        for name, value in (("mrr", mrr), ("mean_reciprocal_rank", mrr),
                            ("inverse_harmonic_mean_rank", mrr), ("mr", mr), ("mean_rank", mr),
                            ("arithmetic_mean_rank", mr)):
            report.add("pykeen", label, name + tag, ours(run, truth, [name], "pykeen")[name],
                       value, known=known, tol=TOL_F32)


# ---- RecPack --------------------------------------------------------------------------------------

@check("recpack", "RecPack")
def check_recpack(report: Report) -> None:
    sparse = need("scipy.sparse")
    metrics = need("recpack.metrics")
    label = f"recpack {version('recpack')}"
    n_items = 30
    # distinct scores: get_top_K_ranks uses np.argpartition, whose order of ties is unspecified
    run, truth = make_data(1101, ties=False, n_items=n_items)
    n_users = max([*run, *truth]) + 1

    def matrix(rows: dict) -> object:
        cells = [(u, i, v) for u, items in rows.items() for i, v in items.items() if v]
        u, i, v = zip(*cells, strict=True)
        return sparse.csr_matrix((v, (u, i)), shape=(n_users, n_items), dtype=np.float64)

    y_true = matrix(binary(truth))
    y_graded = matrix(truth)
    y_pred = matrix(run)
    classes = {"ndcgk": metrics.NDCGK, "dcgk": metrics.DCGK, "precisionk": metrics.PrecisionK,
               "recallk": metrics.RecallK, "calibratedrecallk": metrics.CalibratedRecallK,
               "reciprocalrankk": metrics.ReciprocalRankK}
    for k in CUTS:
        for name, cls in classes.items():
            m = cls(k)
            m.calculate(y_true, y_pred)
            key = f"{name}@{k}"
            report.add("recpack", label, key, ours(run, binary(truth), [key], "recpack")[key],
                       m.value)
        # graded y_true: DCGK's discount takes the log of rank * y_true + 1 (not reproduced)
        m = metrics.DCGK(k)
        m.calculate(y_graded, y_pred)
        report.add("recpack", label, f"dcgk@{k} graded", ours(run, truth, [f"dcgk@{k}"],
                   "recpack")[f"dcgk@{k}"], m.value, known="DCGK and NDCGK")


# ---- RePlay ---------------------------------------------------------------------------------------

_REPLAY_ROCAUC = "RocAuc orders"


@check("replay", "RePlay")
def check_replay(report: Report) -> None:
    pd = need("pandas")
    metrics = need("replay.metrics")
    label = f"replay-rec {version('replay-rec')}"
    names = {"map": metrics.MAP, "ndcg": metrics.NDCG, "precision": metrics.Precision,
             "recall": metrics.Recall, "mrr": metrics.MRR, "hitrate": metrics.HitRate,
             "rocauc": metrics.RocAuc}
    # dict inputs: lists in receval's tie order (RePlay keeps the given order of tied scores);
    # users whose ground truth is empty are given with an empty list and score 0
    run, truth = make_data(1201, ties=True)
    recs = {u: [(i, run[u][i]) for i in ranked(items)] for u, items in run.items()}
    gt = {u: [i for i, r in t.items() if r > 0] for u, t in truth.items()}
    for name, cls in names.items():
        values = cls(topk=list(CUTS))(recs, gt)
        keys = [f"{name}@{k}" for k in CUTS]
        got = ours(run, truth, keys, "replay")
        for k, key in zip(CUTS, keys, strict=True):
            report.add("replay", label, key + " dict ties", got[key],
                       values[f"{cls.__name__}@{k}"],
                       known=_REPLAY_ROCAUC if name == "rocauc" else "")
    # pandas frames with distinct scores
    run, truth = make_data(1202, ties=False)
    rec_df = pd.DataFrame([(u, i, s) for u, items in run.items() for i, s in items.items()],
                          columns=["query_id", "item_id", "rating"])
    gt_df = pd.DataFrame([(u, i) for u, items in relevant(truth).items() for i in items],
                         columns=["query_id", "item_id"])
    # a frame holds no user without a relevant item: those users are not evaluated
    truth_rel = binary(truth)
    for name, cls in names.items():
        values = cls(topk=list(CUTS))(rec_df, gt_df)
        keys = [f"{name}@{k}" for k in CUTS]
        got = ours(run, truth_rel, keys, "replay")
        for k, key in zip(CUTS, keys, strict=True):
            report.add("replay", label, key + " pandas", got[key], values[f"{cls.__name__}@{k}"])
    # pandas frames with tied scores: RePlay sorts by (score, item id) descending. With
    # integer ids receval has no such order (known); with string ids (zero-padded, so that
    # string and number order agree) ties='trec_eval' (score as float32, then id descending)
    # is that order
    run, truth = make_data(1203, ties=True)
    truth_rel = binary(truth)
    s_run, s_truth = _strings(run, truth_rel)
    for ids, r, t in (("int", run, truth_rel), ("str", s_run, s_truth)):
        rec_df = pd.DataFrame([(u, i, s) for u, items in r.items() for i, s in items.items()],
                              columns=["query_id", "item_id", "rating"])
        gt_df = pd.DataFrame([(u, i) for u, items in t.items() for i in items],
                             columns=["query_id", "item_id"])
        policy = "id" if ids == "int" else "trec_eval"
        for name in ("map", "ndcg", "mrr", "precision"):
            cls = names[name]
            values = cls(topk=list(CUTS))(rec_df, gt_df)
            keys = [f"{name}@{k}" for k in CUTS]
            got = ours(r, t, keys, "replay", ties=policy)
            for k, key in zip(CUTS, keys, strict=True):
                report.add("replay", label, f"{key} pandas ties {ids} ids ties={policy}",
                           got[key], values[f"{cls.__name__}@{k}"],
                           known="DataFrame inputs" if ids == "int" else "")
    # Surprisal: a property of the lists (every user with a list), weights from training
    rng = np.random.default_rng(1204)
    train = {u: [int(i) for i in rng.choice(30, size=int(rng.integers(1, 10)), replace=False)]
             for u in range(50)}
    frame = pd.DataFrame([(u, i) for u, items in train.items() for i in items],
                         columns=["user", "item"])
    recs = {u: [(i, run[u][i]) for i in ranked(items)] for u, items in run.items()}
    values = metrics.Surprisal(topk=list(CUTS))(recs, train)
    keys = [f"surprisal@{k}" for k in CUTS]
    got = ours(run, truth, keys, "replay", train=frame, users="run")
    for k, key in zip(CUTS, keys, strict=True):
        report.add("replay", label, key, got[key], values[f"Surprisal@{k}"])


# ---- Cornac ---------------------------------------------------------------------------------------

_CORNAC_MAP = "MAP ranks tied"


@check("cornac", "Cornac")
def check_cornac(report: Report) -> None:
    metrics = need("cornac.metrics")
    label = f"cornac {version('cornac')}"
    n_items = 30
    for ties in (False, True):
        # cornac ranks every candidate item for each user with a positive test item
        run, truth = make_data(1301 + ties, ties=ties, full=True, n_items=n_items)
        users = [u for u in relevant(truth) if u in run]
        ev_run = {u: run[u] for u in users}
        # every test user has a ranking: users without one are not a case cornac has
        truth = {u: t for u, t in truth.items() if u in run}
        tag = " ties" if ties else ""

        def mean(metric, run=run, truth=truth, users=users) -> float:
            values = []
            rel = relevant(truth)
            for u in users:
                rank = np.array(ranked(run[u]))
                pos = np.array(rel[u])
                items = np.arange(n_items)
                scores = np.array([run[u][i] for i in items])
                values.append(metric.compute(gt_pos=pos, pd_rank=rank, pd_scores=scores,
                                             item_indices=items))
            return float(np.mean(values))

        for k in CUTS:
            for name, cls in (("ndcg", metrics.NDCG), ("precision", metrics.Precision),
                              ("recall", metrics.Recall), ("fmeasure", metrics.FMeasure),
                              ("hitratio", metrics.HitRatio)):
                key = f"{name}@{k}"
                report.add("cornac", label, key + tag,
                           ours(ev_run, truth, [key], "cornac")[key], mean(cls(k=k)))
        report.add("cornac", label, "mrr" + tag, ours(ev_run, truth, ["mrr"], "cornac")["mrr"],
                   mean(metrics.MRR()))
        report.add("cornac", label, "map" + tag, ours(ev_run, truth, ["map"], "cornac")["map"],
                   mean(metrics.MAP()), known=_CORNAC_MAP if ties else "")



# ---- DaisyRec -------------------------------------------------------------------------------------

@check("daisyrec", "DaisyRec")
def check_daisyrec(report: Report) -> None:
    dm = need("daisy.utils.metrics")
    label = f"daisyRec {version('daisyrec')}"
    # daisy/utils/metrics.py calls np.in1d and np.asfarray, which numpy 2.x removed: give the
    # module the functions they were (1-D isin; asarray as float)
    shims = {"in1d": lambda a, b: np.isin(np.ravel(a), b),
             "asfarray": lambda a: np.asarray(a, dtype=np.float64)}
    for alias, fn in shims.items():
        if alias not in np.__dict__:
            setattr(dm.np, alias, fn)
            report.info.append(f"daisyrec: np.{alias} restored for daisy/utils/metrics.py")
    n_items = 30
    # DaisyRec ranks every candidate and cuts each list at k (calc_ranking_results): full lists
    run, truth = make_data(1401, ties=True, full=True, n_items=n_items)
    funcs = {"map": dm.MAP, "ndcg": dm.NDCG, "precision": dm.Precision, "recall": dm.Recall,
             "mrr": dm.MRR, "hit": dm.HR}
    gt = {u: set(relevant(truth).get(u, [])) for u in run}
    for name, fn in funcs.items():
        # Recall divides by the number of test items: its users have at least one
        users = [u for u in run if u in truth and (gt[u] or name != "recall")]
        t = {u: truth[u] for u in users}
        for k in CUTS:
            top = {u: ranked(run[u])[:k] for u in users}
            cut = {u: {i: run[u][i] for i in top[u]} for u in users}
            pred = np.array([top[u] for u in users])
            key = f"{name}@{k}"
            report.add("daisyrec", label, key, ours(cut, t, [key], "daisyrec")[key],
                       fn(gt, pred, users))



# ---- Spark MLlib ----------------------------------------------------------------------------------

@check("spark_mllib", "Spark MLlib RankingMetrics")
def check_spark_mllib(report: Report) -> None:
    sql = need("pyspark.sql")
    evaluation = need("pyspark.mllib.evaluation")
    label = f"pyspark {version('pyspark')}"
    spark = (sql.SparkSession.builder.master("local[1]").appName("check_presets")
             .config("spark.ui.enabled", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        run, truth = make_data(1501, ties=True)
        # one (prediction, labels) pair per user of both the run and the truth
        # (users='intersection'); a user whose labels are empty scores 0 and counts
        users = [u for u in run if u in truth]
        labels = {u: [i for i, r in truth[u].items() if r > 0] for u in users}
        pairs = [(ranked(run[u]), labels[u]) for u in users]
        metrics = evaluation.RankingMetrics(spark.sparkContext.parallelize(pairs, 1))
        for k in CUTS:
            for key, value in ((f"precisionat@{k}", metrics.precisionAt(k)),
                               (f"recallat@{k}", metrics.recallAt(k)),
                               (f"meanaverageprecisionat@{k}", metrics.meanAveragePrecisionAt(k)),
                               (f"ndcgat@{k}", metrics.ndcgAt(k))):
                report.add("spark_mllib", label, key,
                           ours(run, truth, [key], "spark_mllib")[key], value)
        report.add("spark_mllib", label, "meanaverageprecision",
                   ours(run, truth, ["meanaverageprecision"], "spark_mllib")[
                       "meanaverageprecision"], metrics.meanAveragePrecision)
        # (prediction, labels, relevance) triples: the Python API hands only the first two
        # columns to the JVM, so ndcgAt stays binary (the preset's ndcgat)
        triples = [(ranked(run[u]), labels[u], [float(truth[u][i]) for i in labels[u]])
                   for u in users]
        graded = evaluation.RankingMetrics(spark.sparkContext.parallelize(triples, 1))
        for k in CUTS:
            key = f"ndcgat@{k}"
            report.add("spark_mllib", label, key + " relevance given",
                       ours(run, truth, [key], "spark_mllib")[key], graded.ndcgAt(k))
    finally:
        spark.stop()



# ---- Elliot ---------------------------------------------------------------------------------------

@check("elliot", "Elliot")
def check_elliot(report: Report) -> None:
    try:
        importlib.import_module("elliot.evaluation.metrics")
    except Exception as exc:  # noqa: BLE001
        raise NotInstalled(
            f"import elliot.evaluation.metrics: {type(exc).__name__}: {exc}; Elliot is not on "
            "PyPI (pip install elliot: no matching distribution); it installs from its "
            "repository with TensorFlow and pinned numpy/pandas") from exc
    raise NotInstalled("elliot imports, but no check is written for it")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated preset names")
    args = parser.parse_args(argv)
    only = {x.strip() for x in args.only.split(",") if x.strip()}
    report = Report()
    covered = {preset for preset, _, _ in CHECKS}
    for preset, library, fn in CHECKS:
        if only and preset not in only:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fn(report)
            except NotInstalled as exc:
                report.missing.append((preset, library, str(exc)))
            except Exception as exc:  # noqa: BLE001 - reported, and the exit status says so
                tb = traceback.format_exc(limit=-3).strip().splitlines()
                report.errors.append((preset, f"{type(exc).__name__}: {exc} | {tb[-3:]}"))
    for preset in PRESETS:
        if preset not in covered and (not only or preset in only):
            report.missing.append((preset, PRESETS[preset].library, MISSING.get(
                preset, "no check written")))
    return report.print()


# presets whose library does not install here at all
MISSING: dict[str, str] = {}

if __name__ == "__main__":
    sys.exit(main())
