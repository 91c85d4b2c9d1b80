"""Per-user classification, AUC and rating metrics registered for :func:`receval.evaluate`.

Importing this module registers (as plugin metrics computed from the packed arrays):

- ``tp@k``, ``fp@k``, ``fn@k``, ``tn@k``, ``accuracy@k``, ``specificity@k``, ``fpr@k``: the top k
  seen as a binary decision (recommended vs not) against the truth (liked vs not);
- ``gauc`` (alias ``user_auc``): per-user AUC, averaged unweighted or weighted;
- ``lauc@k``: limited AUC over the top k (Schroder et al. 2011);
- ``global_auc`` (alias ``auc``): one AUC over the scored pairs of every user pooled (a value
  of the whole run, not a mean over users);
- ``rmse``, ``mae``, ``mse``, ``r2``: the run's scores as predicted ratings against the truth's
  relevance values as ratings (Herlocker et al. 2004);
- ``log_loss``: the run's scores as predicted probabilities that an item is relevant.

Notation per user u: ``R_u`` the recommended set (the first ``min(k, L_u)`` items of the list),
``T_u`` the truth items with relevance >= ``rel``, ``n`` the catalogue size. Catalogue size
(``tn``, ``accuracy``, ``specificity``, ``fpr``, ``lauc``, ``gauc(candidates=catalog)``), first
that applies: the metric parameter ``catalog=<int>``; ``evaluate(..., catalog=...)`` (an int,
a collection of item ids, or the names of item sources: ``"truth"``, ``"run"``, ``"train"``,
``"truth+run"``, ``"all"``); else the number of distinct items known to the truth and the run.
``info[key]["catalog_source"]`` says which one was used.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, PolicyError, plain
from ..metrics.spec import MetricDef, MetricSpec, Param, register
from ..pack import Packed
from ..pack.vocab import lookup
from ._pairs import _weights, pair_counts

REL = Param("rel", 1.0, "relevance threshold: truth items with relevance >= rel are positives",
            kind=float, low=0.0, low_open=True)
CATALOG = Param(
    "catalog", None,
    "catalogue size n (auto: evaluate(catalog=...) when given, else the distinct items of the "
    "truth and the run)", kind=int, low=1)
AVERAGE = Param("average", "macro",
                "macro = mean of per-user rates; micro = pooled counts (sum of numerators over "
                "sum of denominators)", ("macro", "micro"))
SINGLE = Param("single_class", "skip",
               "a user with no positive or no negative: skip (left out, counted) | error",
               ("skip", "error"))
GAUC_SINGLE = Param(
    "single_class", "skip",
    "a user with no positive or no negative: skip (left out, counted) | error | zero_one "
    "(no positive scores 0, positives but no negative score 1: RePlay RocAuc)",
    ("skip", "error", "zero_one"))
UNLABELLED = Param(
    "unlabelled", "negative",
    "scored items missing from the truth: negative (default) | skip (only labelled pairs "
    "count: positives have relevance >= rel, negatives a truth row below it; Microsoft "
    "Recommenders auc and logloss over the inner join of truth and predictions)",
    ("negative", "skip"))


def _kept_layout(packed: Packed, keep: np.ndarray) -> np.ndarray:
    """CSR ``indptr`` of the positions that ``keep`` retains, users unchanged."""
    user = _user_of_positions(packed)
    lens = np.bincount(user[keep], minlength=len(packed.user_ids))
    return np.r_[0, np.cumsum(lens)].astype(np.int64)


# ---- shared helpers --------------------------------------------------------------------------

def _user_of_positions(packed: Packed) -> np.ndarray:
    return np.repeat(np.arange(len(packed.user_ids), dtype=np.int64), np.diff(packed.indptr))


def _rank0(packed: Packed, user: np.ndarray) -> np.ndarray:
    return np.arange(len(user), dtype=np.int64) - packed.indptr[user]


def _truth_positives(packed: Packed, rel: float) -> np.ndarray:
    n_users = len(packed.user_ids)
    t_user = np.repeat(np.arange(n_users, dtype=np.int64), np.diff(packed.t_indptr))
    return np.bincount(t_user, weights=(packed.t_rel >= rel).astype(np.float64),
                       minlength=n_users)


def _catalog_items(value: Any) -> np.ndarray:
    if hasattr(value, "columns"):  # a frame of items
        from ..io.frames import ITEM_NAMES

        cols = list(value.columns)
        name = next((c for c in ITEM_NAMES if c in cols), cols[0] if len(cols) == 1 else None)
        if name is None:
            raise InputError(
                f"catalog: a table must have an item column (one of {list(ITEM_NAMES[:4])}); "
                f"got columns {cols}."
            )
        value = value[name]
    if isinstance(value, (set, frozenset, dict)):
        value = list(value)
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise InputError(
            f"catalog must be an int (its size) or a 1-D collection of item ids, got shape "
            f"{arr.shape}."
        )
    return np.asarray(list(dict.fromkeys(arr.tolist())), dtype=arr.dtype if arr.dtype.kind != "U"
                      else object)


def _catalog(spec: MetricSpec, packed: Packed, context: Context, rec_mask: np.ndarray | None
             ) -> tuple[int, dict[str, Any]]:
    """Catalogue size and its provenance; checks the items used lie in a given item collection."""
    given = spec.get("catalog")
    if given is not None:
        return int(given), {"catalog_size": int(given), "catalog_source": "parameter"}
    value = context.catalog
    if value is not None and not isinstance(value, bool) and isinstance(value, (int, np.integer)):
        if value < 1:
            raise InputError(f"catalog must be a positive item count, got {plain(value)}.")
        return int(value), {"catalog_size": int(value), "catalog_source": "evaluate(catalog=int)"}
    if value is not None:
        if isinstance(value, str):
            items = np.asarray(_source_items(value, packed, context))
            source = f"evaluate(catalog={plain(value)})"
        else:
            items = _catalog_items(value)
            source = "evaluate(catalog=items)"
        outside = 0
        t_codes = lookup(packed.truth_item_vocab, items)
        used_t = np.zeros(len(packed.truth_item_vocab), dtype=bool)
        used_t[packed.t_items] = True
        outside += int((used_t & (t_codes < 0)).sum())
        if rec_mask is not None and rec_mask.any():
            r_codes = np.unique(packed.items[rec_mask])
            outside += int((lookup(packed.item_vocab[r_codes], items) < 0).sum())
        if outside:
            raise InputError(
                f"{spec.key}: {outside} truth or recommended item(s) are not in the catalog "
                "passed to evaluate(catalog=...); pass the full item collection (or its size)."
            )
        return len(items), {"catalog_size": len(items), "catalog_source": source}
    extra = int((lookup(packed.item_vocab, packed.truth_item_vocab) < 0).sum())
    n = len(packed.truth_item_vocab) + extra
    return n, {"catalog_size": n, "catalog_source": "items of truth and run"}


def _source_items(text: str, packed: Packed, context: Context) -> Any:
    """Distinct item ids of the named sources: 'truth', 'run', 'train', '+'-joined, or 'all'."""
    import pandas as pd

    names = ["train", "truth", "run"] if text.strip().lower() == "all" else [
        n.strip() for n in text.lower().split("+")]
    parts = []
    for name in names:
        if name == "truth":
            parts.append(pd.Index(packed.truth_item_vocab))
        elif name == "run":
            parts.append(pd.Index(packed.item_vocab))
        elif name == "train":
            if context.train is None:
                if text.strip().lower() == "all":
                    continue
                raise InputError(f"catalog={plain(text)} needs train=...; pass it to evaluate().")
            from ..io.frames import column_values, read_columns

            cols = read_columns(context.train, role="train")
            parts.append(pd.Index(pd.unique(pd.Series(column_values(cols.item)))))
        else:
            raise InputError(
                f"catalog={plain(text)}: unknown item source {plain(name)}; use 'truth', 'run', 'train', a "
                "'+'-joined subset such as 'truth+run', 'all', an item count or a list of ids."
            )
    out = parts[0]
    for part in parts[1:]:
        out = out.union(part, sort=False)
    return out


def _single_class(spec: MetricSpec, packed: Packed, npos: np.ndarray, nneg: np.ndarray
                  ) -> tuple[np.ndarray, dict[str, int]]:
    no_pos, no_neg = npos <= 0, nneg <= 0
    bad = no_pos | no_neg
    counts = {"users_no_positive": int(no_pos.sum()), "users_no_negative": int(no_neg.sum()),
              "skipped": int(bad.sum())}
    if bad.any() and spec.get("single_class") == "error":
        u = int(np.flatnonzero(bad)[0])
        raise PolicyError(
            f"{spec.key}: {int(bad.sum())} user(s) have only one class (e.g. user "
            f"{plain(packed.user_ids[u])}: {int(npos[u])} positive(s), {int(nneg[u])} negative(s)); "
            "AUC is undefined for them. Use single_class='skip' (the default) to leave them out."
        )
    return bad, counts


def _weighted_mean(values: np.ndarray, weights: np.ndarray, keep: np.ndarray) -> float:
    w = weights[keep]
    return float(np.sum(values[keep] * w) / np.sum(w)) if w.sum() > 0 else float("nan")


# ---- AUC family ------------------------------------------------------------------------------

def _gauc(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    rel = float(spec.get("rel"))
    keep = np.ones(len(packed.rel), dtype=bool)
    if spec.k is not None:  # RePlay RocAuc@k: the pairs inside the top k
        keep &= _rank0(packed, _user_of_positions(packed)) < spec.k
    if spec.get("unlabelled") == "skip":
        keep &= packed.judged.astype(bool)
    pos = packed.rel[keep] >= rel
    s_pos, s_neg, correct = pair_counts(_kept_layout(packed, keep), packed.scores[keep], pos)
    info: dict[str, Any] = {"weight": spec.get("weight"), "candidates": spec.get("candidates")}
    if spec.get("candidates") == "catalog":
        n, cat = _catalog(spec, packed, context, np.ones(len(pos), dtype=bool))
        info.update(cat)
        npos = _truth_positives(packed, rel)
        nneg = n - npos
        u_pos, u_neg = npos - s_pos, nneg - s_neg
        if (u_neg < 0).any():
            raise InputError(
                f"{spec.key}: the catalogue size {n} is smaller than the items some users' lists "
                "and truth hold; pass a larger catalog."
            )
        correct = correct + s_pos * u_neg + 0.5 * u_pos * u_neg
    else:
        npos, nneg = s_pos, s_neg
    bad, counts = _single_class(spec, packed, npos, nneg)
    info.update(counts)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_user = np.where(bad, np.nan, correct / (npos * nneg))
    if spec.get("single_class") == "zero_one":
        per_user = np.where(npos <= 0, 0.0, np.where(nneg <= 0, 1.0, per_user))
        bad = np.zeros(len(per_user), dtype=bool)
        info["skipped"] = 0
    w = _weights(spec.get("weight"), npos, nneg)
    return MetricValues(per_user, _weighted_mean(per_user, w, ~bad), info, skipped=bad)


def _lauc(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    rel = float(spec.get("rel"))
    user = _user_of_positions(packed)
    k = spec.k
    keep = np.ones(len(user), dtype=bool) if k is None else _rank0(packed, user) < k
    lens = np.bincount(user[keep], minlength=len(packed.user_ids))
    indptr = np.r_[0, np.cumsum(lens)].astype(np.int64)
    pos = packed.rel[keep] >= rel
    tp_k, fp_k, correct = pair_counts(indptr, packed.scores[keep], pos)
    n, info = _catalog(spec, packed, context, keep)
    npos = _truth_positives(packed, rel)
    nneg = n - npos
    if (nneg < fp_k).any():
        raise InputError(
            f"{spec.key}: the catalogue size {n} is smaller than the items some users' lists and "
            "truth hold; pass a larger catalog."
        )
    bad, counts = _single_class(spec, packed, npos, nneg)
    info.update(counts)
    info["tail"] = spec.get("tail")
    with np.errstate(invalid="ignore", divide="ignore"):
        area = correct / (npos * nneg)
        if spec.get("tail") == "linear":
            area = area + (1.0 - fp_k / nneg) * (tp_k / npos + 1.0) / 2.0
    per_user = np.where(bad, np.nan, area)
    return MetricValues(per_user, None, info, skipped=bad)


register(MetricDef(
    "gauc", "Per-user AUC (GAUC)",
    "AUC_u = (1/(P_u N_u)) sum_{p,n} ([s_p > s_n] + 1/2 [s_p = s_n]); "
    "GAUC = sum_u w_u AUC_u / sum_u w_u",
    "AUC of each user's scores, averaged over users. candidates: list = the user's scored items "
    "(positive: truth relevance >= rel) | catalog = every catalogue item, unscored items ranked "
    "last and tied. weight: none (plain mean) | positives (w_u = P_u) | impressions "
    "(w_u = P_u + N_u). gauc@k: the pairs inside the top k only (RePlay RocAuc@k; with "
    "single_class=zero_one). unlabelled=skip: only scored items present in the truth count. "
    "The per-user column holds AUC_u.",
    (REL, Param("weight", "none", "none | positives | impressions",
                ("none", "positives", "impressions")),
     Param("candidates", "list", "list | catalog", ("list", "catalog")), GAUC_SINGLE, CATALOG,
     UNLABELLED),
    family="classification", compute=_gauc,
    reference="Zhou et al. 2018, Deep Interest Network (KDD): GAUC weighted by impressions; "
              "Fawcett 2006 (ROC analysis)",
    example="scores (0.9, 0.8, 0.7), labels (1, 0, 1): AUC = 1/2",
), ("user_auc",))

def _global_auc(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    rel = float(spec.get("rel"))
    keep = np.ones(len(packed.rel), dtype=bool)
    if spec.get("unlabelled") == "skip":
        keep &= packed.judged.astype(bool)
    pos = packed.rel[keep] >= rel
    scores = packed.scores[keep]
    # nan_scores="last": NaN ranks below every finite score, tied with the other NaN scores
    scores = np.where(np.isnan(scores), -np.inf, scores)
    # per user: the user's own AUC over its pairs (a diagnostic column, not the summary)
    u_pos, u_neg, u_correct = pair_counts(_kept_layout(packed, keep), scores, pos)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_user = np.where((u_pos > 0) & (u_neg > 0), u_correct / (u_pos * u_neg), np.nan)
    # pooled: every pair of every user sorted together by score (ties grouped: order-free)
    order = np.argsort(-scores, kind="stable")
    npos, nneg, correct = pair_counts(np.array([0, len(scores)], dtype=np.int64),
                                      scores[order], pos[order])
    p, n = float(npos[0]), float(nneg[0])
    n_rel_truth = float(_truth_positives(packed, rel).sum())
    info: dict[str, Any] = {
        "pairs": int(len(scores)), "positives": int(p), "negatives": int(n),
        "unlabelled": spec.get("unlabelled"),
        "unlabelled_pairs": int(len(packed.rel) - int(packed.judged.astype(bool).sum())),
        "unscored_positives": int(n_rel_truth - float(np.sum(packed.rel >= rel))),
    }
    if p <= 0 or n <= 0:
        if spec.get("single_class") == "error":
            raise PolicyError(
                f"{spec.key}: the pooled pairs hold {int(p)} positive(s) and {int(n)} "
                "negative(s); AUC needs both. Check the truth's relevance threshold (rel=) and "
                "that the run scores labelled negatives, or use single_class='nan' to report "
                "NaN."
            )
        value = float("nan")
    else:
        value = float(correct[0] / (p * n))
    return MetricValues(per_user, value, info)


register(MetricDef(
    "global_auc", "Global (pooled) AUC",
    "AUC = (1/(P N)) sum_{p,n} ([s_p > s_n] + 1/2 [s_p = s_n]) over the scored (user, item) "
    "pairs of every user pooled",
    "One ROC area over the scored (user, item) pairs of all users together, not a mean of "
    "per-user values: P positives (truth relevance >= rel) and N negatives pooled, every "
    "(positive, negative) pair compared, including pairs of two different users, so the "
    "scores must share one scale (probabilities, not per-user ranks). Tied scores count 1/2 "
    "(the trapezoidal ROC area, scikit-learn roc_auc_score). unlabelled: negative = a scored "
    "pair without a truth row is a negative (RecBole AUC, where every scored pair is "
    "labelled) | skip = only pairs with a truth row count, positives with relevance >= rel, "
    "negatives with a truth row below it (Microsoft Recommenders auc, an inner join of truth "
    "and predictions). Relevant truth items the run does not score take no part (counted in "
    "info unscored_positives). The users policy decides whose pairs enter the pool. "
    "single_class: when the pool has no positive or no negative the value is NaN (nan, as "
    "RecBole and scikit-learn >= 1.6 report it) or an error. The value needs every pair at "
    "once: evaluate it in memory (not in blocks or Spark buckets). The per-user column holds "
    "each user's own AUC over its pairs (NaN with one class); the summary is the pooled AUC, "
    "not their mean (gauc is the mean).",
    (REL, UNLABELLED,
     Param("single_class", "nan",
           "the pool has no positive or no negative: nan (the value is NaN) | error",
           ("nan", "error"))),
    cutoff="none", aggregate="pooled", family="classification", compute=_global_auc,
    reference="Fawcett 2006 (ROC analysis); RecBole recbole/evaluator/metrics.py (AUC); "
              "Microsoft Recommenders recommenders/evaluation/python_evaluation.py (auc)",
    example="user a: (0.9 +, 0.2 -), user b: (0.5 +, 0.6 -): pairs 0.9>0.2, 0.9>0.6, "
            "0.5>0.2, 0.5<0.6: AUC = 3/4",
), ("auc",))

register(MetricDef(
    "lauc", "Limited AUC@k (LAUC)",
    "LAUC@k = (1/(P N)) C_k + [tail=linear] (1 - FP_k/N) (TP_k/P + 1) / 2",
    "ROC area of the top k only (Schroder et al. 2011): C_k counts correctly ordered (positive, negative) "
    "pairs inside the top k (ties 1/2), P = relevant truth items, N = catalogue size - P, "
    "TP_k / FP_k the hits / misses in the top k. tail: linear = close the curve with a straight "
    "line to (1, 1) (items after k in random order; equals gauc(candidates=catalog) on the top-k "
    "list) | none = no area past the top k.",
    (REL, Param("tail", "linear", "linear | none", ("linear", "none")), SINGLE, CATALOG),
    family="classification", compute=_lauc,
    reference="Schroeder, Thiele, Lehner 2011 (UCERSTI 2)",
    example="top 2 = (miss, hit), P = 1, N = 3: LAUC@2(tail=none) = 0, tail=linear: 2/3",
))


# ---- confusion matrix at k -------------------------------------------------------------------

CANDIDATES = Param(
    "candidates", "catalog",
    "the items each user is judged over: catalog = every catalogue item (n, see catalog) | "
    "list = the user's own scored items (its whole list, not only the top k): FN and TN count "
    "only the candidates the run scores (torchmetrics retrieval metrics, e.g. "
    "RetrievalFallOut)", ("catalog", "list"))
FP_RULE = Param(
    "fp", "list",
    "false positives of a list shorter than k: list = FP = |R_u| - TP (empty slots are not "
    "recommendations) | k = FP = k - TP (each empty slot counts as a false positive: RecTools "
    "Accuracy, MCC); without a cutoff both are the list length", ("list", "k"))
NO_NEGATIVE = Param(
    "no_negative", "skip",
    "a user with FP + TN = 0 (no non-relevant candidate): skip (NaN, left out of the mean) | "
    "zero | one (torchmetrics RetrievalFallOut's default empty_target_action='pos')",
    ("skip", "zero", "one"))


def _whole_list(spec: MetricSpec) -> bool:
    return spec.get("candidates") == "list"


def _confusion(spec: MetricSpec, packed: Packed, context: Context, need_tn: bool):
    rel = float(spec.get("rel"))
    names = {p.name for p in spec.definition.params}
    user = _user_of_positions(packed)
    w = _in_top_k(packed, user, spec.k)
    n_users = len(packed.user_ids)
    liked = (packed.rel >= rel).astype(np.float64)
    if "fp" in names and spec.get("fp") == "k" and spec.k is not None:
        rec = np.full(n_users, float(spec.k))
    else:
        rec = np.bincount(user, weights=w, minlength=n_users)
    tp = np.bincount(user, weights=w * liked, minlength=n_users)
    fp = rec - tp
    on_list = "candidates" in names and spec.get("candidates") == "list"
    if on_list:  # the user's scored items: relevant candidates and list length
        fn = np.bincount(user, weights=liked, minlength=n_users) - tp
    else:
        fn = _truth_positives(packed, rel) - tp
    info: dict[str, Any] = {}
    tn = None
    if need_tn:
        if on_list:
            n_u = np.diff(packed.indptr).astype(np.float64)
            info = {"candidates": "list"}
            what = ""
        else:
            n, info = _catalog(spec, packed, context, w > 0)
            n_u = np.full(n_users, float(n))
            what = f"catalogue size {n}"
        tn = n_u - tp - fp - fn
        if (tn < 0).any():
            u = int(np.flatnonzero(tn < 0)[0])
            uid, used = plain(packed.user_ids[u]), int(tp[u] + fp[u] + fn[u])
            if on_list:
                raise InputError(
                    f"{spec.key}: user {uid} has {int(n_u[u])} scored candidate(s), fewer than "
                    f"the {used} counted with fp=k (k slots); use fp=list, or "
                    "candidates=catalog."
                )
            raise InputError(
                f"{spec.key}: the {what} is smaller than the recommended and truth "
                f"items of user {uid} ({used}); pass the real catalogue size, e.g. "
                "catalog=<number of items>."
            )
    return tp, fp, fn, tn, info


def _in_top_k(packed: Packed, user: np.ndarray, k: int | None) -> np.ndarray:
    """Weight of each position in the top k: 1 or 0; with ``ties="average"`` (tie groups in
    ``packed.grp_end``) a tied block straddling rank k gives each of its items the probability
    ``(k - start) / size`` of landing in the top k (expected counts)."""
    n = len(user)
    if k is None:
        return np.ones(n)
    rank = _rank0(packed, user)
    if len(packed.grp_end) != n or n == 0:
        return (rank < k).astype(np.float64)
    first = np.r_[True, packed.grp_end[1:] != packed.grp_end[:-1]]
    first[packed.indptr[:-1][np.diff(packed.indptr) > 0]] = True
    start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    base = packed.indptr[user]
    lo, hi = start - base, packed.grp_end - base
    return np.clip((k - lo) / (hi - lo), 0.0, 1.0)


def _count_metric(which: str):
    def compute(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
        tp, fp, fn, tn, info = _confusion(spec, packed, context, which == "tn")
        col = {"tp": tp, "fp": fp, "fn": fn, "tn": tn}[which]
        info = dict(info, total=float(np.sum(col)))
        return MetricValues(col, None, info)
    return compute


def _rate_metric(which: str):
    def compute(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
        tp, fp, fn, tn, info = _confusion(spec, packed, context, True)
        num, den = {
            "accuracy": (tp + tn, tp + fp + fn + tn),
            "specificity": (tn, tn + fp),
            "fpr": (fp, fp + tn),
        }[which]
        with np.errstate(invalid="ignore", divide="ignore"):
            per_user = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        info = dict(info, average=spec.get("average"), undefined=int((den <= 0).sum()))
        if which != "accuracy" and spec.get("no_negative") != "skip":
            fill = 0.0 if spec.get("no_negative") == "zero" else 1.0
            per_user = np.where(den > 0, per_user, fill)
        value = None
        if spec.get("average") == "micro":
            d = float(np.sum(den))
            value = float(np.sum(num)) / d if d > 0 else float("nan")
        return MetricValues(per_user, value, info)
    return compute


_CM_DOC = (" Top k as a binary decision over each user's candidates: TP = |R_u & T_u|, "
           "FP = |R_u| - TP (fp=list; fp=k: k - TP), FN = |T_u & C_u| - TP, "
           "TN = |C_u| - TP - FP - FN. |R_u| = min(k, list length). candidates=catalog: C_u = "
           "the catalogue, |C_u| = n (see info catalog_source); candidates=list: C_u = the "
           "user's scored items (the catalog parameter is then not used).")
_TN_PARAMS = (REL, CATALOG, CANDIDATES, FP_RULE)
for _name, _title, _formula, _params in (
    ("tp", "True positives@k", "TP@k = |R_u & T_u|", (REL,)),
    ("fp", "False positives@k", "FP@k = |R_u| - TP (fp=k: k - TP)", (REL, FP_RULE)),
    ("fn", "False negatives@k", "FN@k = |T_u & C_u| - TP", (REL, CANDIDATES)),
    ("tn", "True negatives@k", "TN@k = |C_u| - TP - FP - FN", _TN_PARAMS),
):
    register(MetricDef(
        _name, _title, _formula, "Per-user count; the summary is the mean per user (info: total)."
        + _CM_DOC, _params, bounds=(0.0, None),
        higher_is_better=_name in ("tp", "tn"), family="classification",
        compute=_count_metric(_name),
        whole_list=_whole_list if any(p.name == "candidates" for p in _params) else None,
        example="top 3 (hit, miss, hit), 3 liked, n = 10: TP 2, FP 1, FN 1, TN 6",
    ))

register(MetricDef(
    "accuracy", "Accuracy@k", "(TP + TN) / (TP + FP + FN + TN) = (TP + TN) / |C_u|",
    "Share of catalogue items correctly recommended or not (Herlocker et al. 2004)." + _CM_DOC
    + " average: macro = mean of per-user values | micro = pooled counts. RecTools Accuracy: "
    "accuracy@k(fp=k) with the catalogue size.",
    (*_TN_PARAMS, AVERAGE), family="classification", compute=_rate_metric("accuracy"),
    whole_list=_whole_list,
    example="TP 2, FP 1, FN 1, TN 6: accuracy = 8/10",
))
register(MetricDef(
    "specificity", "Specificity@k (true-negative rate)", "TN / (TN + FP)",
    "Share of the items a user does not like that were not recommended." + _CM_DOC,
    (*_TN_PARAMS, AVERAGE, NO_NEGATIVE), family="classification",
    compute=_rate_metric("specificity"), whole_list=_whole_list,
    example="FP 1, TN 6: specificity = 6/7",
), ("tnr",))
register(MetricDef(
    "fpr", "False-positive rate@k (fall-out)", "FP / (FP + TN)",
    "Share of the items a user does not like that were recommended (ROC x axis). "
    "torchmetrics RetrievalFallOut: fpr@k(candidates=list,no_negative=one)." + _CM_DOC,
    (*_TN_PARAMS, AVERAGE, NO_NEGATIVE), higher_is_better=False, family="classification",
    compute=_rate_metric("fpr"), whole_list=_whole_list, example="FP 1, TN 6: FPR = 1/7",
), ("fallout",))


# ---- rating prediction -----------------------------------------------------------------------

def _rating(which: str):
    def compute(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
        n_users = len(packed.user_ids)
        user = _user_of_positions(packed)
        sel = packed.judged.astype(bool)
        u = user[sel]
        pred, true = packed.scores[sel], packed.rel[sel]
        n_pairs = np.bincount(u, minlength=n_users).astype(np.float64)
        missing = np.diff(packed.t_indptr) - n_pairs
        info: dict[str, Any] = {"pairs": int(n_pairs.sum()), "unpredicted": int(missing.sum()),
                                "average": spec.get("average")}
        if missing.sum() > 0 and spec.get("missing") == "error":
            bad = int(np.flatnonzero(missing > 0)[0])
            raise PolicyError(
                f"{spec.key}: {int(missing.sum())} truth rating(s) have no prediction in the run "
                f"(e.g. user {plain(packed.user_ids[bad])}); predict every held-out pair, or pass "
                f"{spec.name}(missing=skip) to leave them out (counted in info)."
            )
        err = pred - true
        with np.errstate(invalid="ignore", divide="ignore"):
            if which in ("rmse", "mse", "mae"):
                e = np.abs(err) if which == "mae" else err * err
                s = np.bincount(u, weights=e, minlength=n_users)
                per_user = np.where(n_pairs > 0, s / n_pairs, np.nan)
                micro = float(e.sum() / len(e)) if len(e) else float("nan")
                if which == "rmse":
                    per_user, micro = np.sqrt(per_user), float(np.sqrt(micro))
            elif which == "explained_variance":
                # 1 - Var(r^ - r) / Var(r), population variances (scikit-learn
                # explained_variance_score): unlike R^2 a constant bias is not penalized
                def var(x: np.ndarray) -> np.ndarray:
                    m = np.bincount(u, weights=x, minlength=n_users) / np.maximum(n_pairs, 1)
                    return np.bincount(u, weights=(x - m[u]) ** 2, minlength=n_users)
                v_true, v_err = var(true), var(err)
                per_user = np.where(v_true > 0, 1.0 - v_err / np.where(v_true > 0, v_true, 1),
                                    np.nan)
                info["users_constant_ratings"] = int(((v_true <= 0) & (n_pairs > 0)).sum())
                tot = float(np.sum((true - true.mean()) ** 2)) if len(true) else 0.0
                res = float(np.sum((err - err.mean()) ** 2)) if len(err) else 0.0
                micro = 1.0 - res / tot if tot > 0 else float("nan")
            else:  # r2
                mean_u = np.bincount(u, weights=true, minlength=n_users) / np.maximum(n_pairs, 1)
                ss_tot = np.bincount(u, weights=(true - mean_u[u]) ** 2, minlength=n_users)
                ss_res = np.bincount(u, weights=err * err, minlength=n_users)
                per_user = np.where(ss_tot > 0, 1.0 - ss_res / ss_tot, np.nan)
                info["users_constant_ratings"] = int(((ss_tot <= 0) & (n_pairs > 0)).sum())
                tot = float(np.sum((true - true.mean()) ** 2)) if len(true) else 0.0
                micro = 1.0 - float(np.sum(err * err)) / tot if tot > 0 else float("nan")
        info["users_without_pairs"] = int((n_pairs == 0).sum())
        value = micro if spec.get("average") == "micro" else None
        return MetricValues(per_user, value, info)
    return compute


_RATING_PARAMS = (
    Param("average", "micro", "micro = over all (user, item) pairs (Herlocker et al. 2004) | macro = mean of "
          "per-user values", ("micro", "macro")),
    Param("missing", "error", "a truth pair without prediction: error | skip (counted)",
          ("error", "skip")),
)
_RATING_DOC = (" Pairs: (user, item) in both run and truth; the run's score is the predicted "
               "rating, the truth relevance the true rating. Per-user column: the user's own "
               "value; summary per `average`.")
for _name, _title, _formula, _hib, _bounds in (
    ("rmse", "Root mean squared error", "sqrt((1/|T|) sum_{(u,i) in T} (r^_ui - r_ui)^2)", False,
     (0.0, None)),
    ("mse", "Mean squared error", "(1/|T|) sum (r^_ui - r_ui)^2", False, (0.0, None)),
    ("mae", "Mean absolute error", "(1/|T|) sum |r^_ui - r_ui|", False, (0.0, None)),
    ("r2", "Coefficient of determination R^2",
     "1 - sum (r^_ui - r_ui)^2 / sum (r_ui - mean(r))^2", True, (float("-inf"), 1.0)),
    ("explained_variance", "Explained variance",
     "1 - Var(r^_ui - r_ui) / Var(r_ui) (population variances over T)", True,
     (float("-inf"), 1.0)),
):
    register(MetricDef(
        _name, _title, _formula, _title + "." + _RATING_DOC, _RATING_PARAMS, cutoff="none",
        higher_is_better=_hib, bounds=_bounds, family="rating", compute=_rating(_name),
        example="predictions (4, 3), ratings (5, 3): RMSE = sqrt(1/2), MAE = 1/2",
    ))


# ---- log loss of scored items ----------------------------------------------------------------

def _log_loss(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    user = _user_of_positions(packed)
    p = packed.scores
    bad = ~((p >= 0) & (p <= 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{spec.key}: run scores must be probabilities in [0, 1]; got {int(bad.sum())} "
            f"outside (e.g. {plain(p[i])} for user {plain(packed.user_ids[user[i]])}). Calibrate the scores "
            "(e.g. a sigmoid) first."
        )
    eps = spec.get("eps")
    e = float(np.finfo(np.float64).eps) if eps is None else float(eps)
    y = packed.rel >= float(spec.get("rel"))
    if spec.get("unlabelled") == "skip":  # only the scored items present in the truth
        keep = packed.judged.astype(bool)
        p, y, user = p[keep], y[keep], user[keep]
    q = np.clip(p, e, 1.0 - e)
    with np.errstate(divide="ignore"):
        terms = -np.where(y, np.log(q), np.log1p(-q))
    n_users = len(packed.user_ids)
    cnt = np.bincount(user, minlength=n_users).astype(np.float64)
    s = np.bincount(user, weights=terms, minlength=n_users)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_user = np.where(cnt > 0, s / np.where(cnt > 0, cnt, 1.0), np.nan)
    value = float(terms.mean()) if spec.get("average") == "micro" and len(terms) else None
    info = {"scored_pairs": int(len(terms)), "users_without_scores": int((cnt == 0).sum()),
            "average": spec.get("average"), "eps": e}
    return MetricValues(per_user, value, info)


register(MetricDef(
    "log_loss", "Log loss (binary cross-entropy)",
    "-(1/n) sum_i [y_i log p_i + (1 - y_i) log(1 - p_i)], p clipped to [eps, 1 - eps]",
    "The run's scores as probabilities that each scored item is relevant (y_i = truth relevance "
    ">= rel); only scored items count. Scores outside [0, 1] raise. average: macro = mean of "
    "per-user losses | micro = over all scored pairs. unlabelled=skip: only scored items "
    "present in the truth count (Microsoft Recommenders logloss).",
    (REL, Param("average", "macro", "macro | micro", ("macro", "micro")), UNLABELLED,
     Param("eps", None, "clipping (auto: float64 machine epsilon, as scikit-learn)", kind=float,
           low=0.0, high=0.5, high_open=True)),
    cutoff="none", higher_is_better=False, bounds=(0.0, None), family="classification",
    compute=_log_loss, example="scores (0.5, 0.5), labels (1, 0): log 2",
), ("logloss", "bce"))
