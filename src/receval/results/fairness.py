"""User-group fairness measures: one number comparing groups of users.

Two kinds, by what they read:

**Of a result evaluated with** ``groups=`` (its per-user ``values``, ``user_ids`` and each
user's group ``group_of``): the group means ``m_g`` of a metric's per-user values (users with a
value and a group; NaN values left out, as the summaries do).

- :func:`user_mad`: the mean absolute difference of the group means over every pair of groups,
  ``MAD = mean_{g < h} |m_g - m_h|`` (Deldjoo, Anelli, Zamani, Bellogin & Di Noia, UMUAI 2021;
  Elliot ``evaluation/metrics/fairness/MAD/UserMADranking.py`` over Elliot's nDCG, i.e.
  ``user_mad(rv.evaluate(run, truth, ["ndcg@10"], compat="elliot", groups=g), "ndcg@10")``;
  ``UserMADrating.py`` over the mean predicted score of the top k).

**Of predictions per (user, item) pair with a user attribute** (RecBole-FairRec,
``recbole/evaluator/metrics.py`` of TheFairBear/RecBole-FairRec; Yao & Huang, "Beyond parity:
fairness objectives for collaborative filtering", NeurIPS 2017): for item j and group g,
``E_g[y]_j`` and ``E_g[r]_j`` are the means of the true labels y and predictions r over the
group's pairs with j.

- :func:`value_unfairness`: ``mean_j |(E_g[y]_j - E_g[r]_j) - (E_h[y]_j - E_h[r]_j)|``;
- :func:`absolute_unfairness`: ``mean_j ||E_g[y]_j - E_g[r]_j| - |E_h[y]_j - E_h[r]_j||``;
- :func:`under_unfairness`: ``mean_j |max(0, E_g[y]_j - E_g[r]_j) - max(0, E_h[y]_j -
  E_h[r]_j)|``; :func:`over_unfairness`: the same with ``r - y``;
- :func:`non_parity`: ``|E_g[r] - E_h[r]|`` over every pair (two groups), the population
  standard deviation of the group means for more (RecBole-FairRec);
- :func:`differential_fairness` (Foulds, Islam, Keya & Pan, "An intersectional definition of
  fairness", ICDE 2020; RecBole-FairRec ``DifferentialFairness``): per item the smoothed
  rate ``(sum_g r + alpha) / (n_g + concentration)`` of each group, ``eps_j = max_{g,h} |log
  rate_g - log rate_h|``, averaged (``reduce="mean"``, RecBole-FairRec) or maximised
  (``"max"``, the paper's epsilon) over the items.

The paper and RecBole-FairRec define the first four for a binary attribute (RecBole-FairRec
raises otherwise); here several groups give the mean (``pairs="mean"``) or the largest
(``"max"``) value over the pairs of groups. Items without a pair in one of the groups have no
group mean: ``eps=0`` (the paper) leaves them out; ``eps=1e-5`` adds RecBole-FairRec's 1e-5 to
every count (an item missing from a group then has means 0 there).

A value that is undefined is NaN, with an :class:`UndefinedValueWarning` that says why.
"""

from __future__ import annotations

import math
import warnings
from itertools import combinations
from typing import Any

import numpy as np

from ..errors import InputError, UndefinedValueWarning, plain, user_stacklevel

#: a :class:`receval.results.EvalResult` (that module imports this one's layer)
EvalResult = Any

PAIRS = ("mean", "max")


def _nan(name: str, why: str) -> float:
    warnings.warn(f"{name} is undefined: {why}.", UndefinedValueWarning,
                  stacklevel=user_stacklevel())
    return float("nan")


# -------------------------------------------------------------------------------------------------
# Of a result with groups=


def group_means(result: EvalResult, metric: str) -> dict[str, float]:
    """Mean of ``metric``'s per-user values in each user group of ``result`` (evaluated with
    ``groups=``), groups in the order of the result's group rows; NaN for a group without a
    value. Users without a group are left out."""
    if result.group_of is None or not result.group_stats:
        raise InputError("this result has no groups: evaluate with groups= (e.g. "
                         f"rv.evaluate(run, truth, [{plain(metric)}], groups={{user: group}})).")
    values = np.asarray(result.user_values(metric), dtype=np.float64)
    labels = list(dict.fromkeys(str(r["group"]) for r in result.group_stats))
    of = np.asarray([None if g is None else str(g) for g in result.group_of], dtype=object)
    out: dict[str, float] = {}
    for g in labels:
        x = values[(of == g) & ~np.isnan(values)]
        out[g] = math.fsum(x.tolist()) / len(x) if len(x) else float("nan")
    return out


def user_mad(result: EvalResult, metric: str, *, pairs: str = "mean") -> float:
    """User MAD: ``mean_{g < h} |m_g - m_h|`` of the user groups' means of ``metric``
    (module docstring; Elliot ``UserMADranking`` / ``UserMADrating``). ``pairs="max"``: the
    largest difference instead (the max-min gap).

    NaN, with a warning, with fewer than two groups or a group without a value.
    """
    _check_pairs(pairs)
    means = group_means(result, metric)
    return _pairwise("user_mad", means, pairs)


def _check_pairs(pairs: str) -> None:
    if pairs not in PAIRS:
        raise InputError(f"pairs={plain(pairs)}: choose 'mean' (the mean over the pairs of "
                         "groups) or 'max' (the largest).")


def _pairwise(name: str, means: dict[str, float], pairs: str) -> float:
    if len(means) < 2:
        return _nan(name, f"{len(means)} group: a difference between groups needs two")
    empty = [g for g, m in means.items() if math.isnan(m)]
    if empty:
        return _nan(name, f"group(s) {empty[:5]} have no value")
    diffs = [abs(a - b) for a, b in combinations(means.values(), 2)]
    return max(diffs) if pairs == "max" else math.fsum(diffs) / len(diffs)


# -------------------------------------------------------------------------------------------------
# Of predictions per (user, item) pair with a user attribute


def _arrays(y_pred: Any, attribute: Any, items: Any = None, y_true: Any = None
            ) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray | None, np.ndarray | None]:
    r = np.asarray(y_pred, dtype=np.float64).ravel()
    a = np.asarray(attribute, dtype=object).ravel()
    if len(a) != len(r):
        raise InputError(f"attribute has {len(a)} values for {len(r)} predictions; give one "
                         "group per (user, item) pair.")
    if not np.isfinite(r).all():
        raise InputError("y_pred holds NaN or infinite values; every prediction must be finite.")
    labels, codes = np.unique(np.asarray([str(x) for x in a], dtype=object),
                              return_inverse=True)
    it = None
    if items is not None:
        it = np.asarray(items, dtype=object).ravel()
        if len(it) != len(r):
            raise InputError(f"items has {len(it)} values for {len(r)} predictions.")
    y = None
    if y_true is not None:
        y = np.asarray(y_true, dtype=np.float64).ravel()
        if len(y) != len(r):
            raise InputError(f"y_true has {len(y)} values for {len(r)} predictions.")
    return r, codes.astype(np.int64), [str(x) for x in labels], it, y


def _item_group_means(r: np.ndarray, y: np.ndarray, codes: np.ndarray, items: np.ndarray,
                      n_groups: int, eps: float
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(E[y], E[r], count) per (item, group)."""
    _, ic = np.unique(np.asarray([repr(x) for x in items], dtype=object), return_inverse=True)
    n_items = int(ic.max()) + 1 if len(ic) else 0
    key = ic * n_groups + codes
    size = n_items * n_groups
    count = np.bincount(key, minlength=size).reshape(n_items, n_groups).astype(np.float64)
    sr = np.bincount(key, weights=r, minlength=size).reshape(n_items, n_groups)
    sy = np.bincount(key, weights=y, minlength=size).reshape(n_items, n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        ey, er = sy / (count + eps), sr / (count + eps)
    return ey, er, count


def _yao_huang(name: str, kind: str, y_true: Any, y_pred: Any, items: Any, attribute: Any,
               eps: float, pairs: str) -> float:
    _check_pairs(pairs)
    if not (eps >= 0 and math.isfinite(eps)):
        raise InputError(f"eps={plain(eps)}: a count smoothing >= 0 (0: the paper; 1e-5: "
                         "RecBole-FairRec).")
    r, codes, labels, it, y = _arrays(y_pred, attribute, items, y_true)
    assert it is not None and y is not None
    if len(labels) < 2:
        return _nan(name, f"{len(labels)} group: a difference between groups needs two")
    ey, er, count = _item_group_means(r, y, codes, it, len(labels), eps)
    values = []
    for g, h in combinations(range(len(labels)), 2):
        ok = np.ones(len(count), dtype=bool) if eps > 0 else (count[:, g] > 0) & (count[:, h] > 0)
        if not ok.any():
            continue
        dg, dh = ey[ok, g] - er[ok, g], ey[ok, h] - er[ok, h]
        if kind == "value":
            d = np.abs(dg - dh)
        elif kind == "absolute":
            d = np.abs(np.abs(dg) - np.abs(dh))
        elif kind == "under":
            d = np.abs(np.maximum(dg, 0) - np.maximum(dh, 0))
        else:
            d = np.abs(np.maximum(-dg, 0) - np.maximum(-dh, 0))
        values.append(math.fsum(d.tolist()) / len(d))
    if not values:
        return _nan(name, "no item has pairs in two groups (eps=0 leaves out the items a group "
                    "has no pair with)")
    return max(values) if pairs == "max" else math.fsum(values) / len(values)


def value_unfairness(y_true: Any, y_pred: Any, items: Any, attribute: Any, *, eps: float = 0.0,
                     pairs: str = "mean") -> float:
    """Value unfairness (Yao & Huang 2017; RecBole-FairRec ``ValueUnfairness``):
    ``mean_j |(E_g[y]_j - E_g[r]_j) - (E_h[y]_j - E_h[r]_j)|``.

    One value per (user, item) pair in ``y_true`` (the label or rating), ``y_pred`` (the
    prediction), ``items`` and ``attribute`` (the user's group). ``eps``: count smoothing
    (RecBole-FairRec: 1e-5); ``pairs``: several groups (module docstring).

    >>> value_unfairness([1, 1, 1, 1], [1.0, 0.5, 0.5, 0.5], ["a", "a", "a", "a"],
    ...                  ["f", "f", "m", "m"])   # f: 1 - 3/4, m: 1 - 1/2 -> |1/4 - 1/2|
    0.25
    """
    return _yao_huang("value_unfairness", "value", y_true, y_pred, items, attribute, eps, pairs)


def absolute_unfairness(y_true: Any, y_pred: Any, items: Any, attribute: Any, *,
                        eps: float = 0.0, pairs: str = "mean") -> float:
    """Absolute unfairness (Yao & Huang 2017; RecBole-FairRec ``AbsoluteUnfairness``):
    ``mean_j ||E_g[y]_j - E_g[r]_j| - |E_h[y]_j - E_h[r]_j||`` (see :func:`value_unfairness`)."""
    return _yao_huang("absolute_unfairness", "absolute", y_true, y_pred, items, attribute, eps,
                      pairs)


def under_unfairness(y_true: Any, y_pred: Any, items: Any, attribute: Any, *, eps: float = 0.0,
                     pairs: str = "mean") -> float:
    """Underestimation unfairness (Yao & Huang 2017; RecBole-FairRec ``UnderUnfairness``):
    ``mean_j |max(0, E_g[y]_j - E_g[r]_j) - max(0, E_h[y]_j - E_h[r]_j)|``."""
    return _yao_huang("under_unfairness", "under", y_true, y_pred, items, attribute, eps, pairs)


def over_unfairness(y_true: Any, y_pred: Any, items: Any, attribute: Any, *, eps: float = 0.0,
                    pairs: str = "mean") -> float:
    """Overestimation unfairness (Yao & Huang 2017; RecBole-FairRec ``OverUnfairness``):
    ``mean_j |max(0, E_g[r]_j - E_g[y]_j) - max(0, E_h[r]_j - E_h[y]_j)|``."""
    return _yao_huang("over_unfairness", "over", y_true, y_pred, items, attribute, eps, pairs)


def non_parity(y_pred: Any, attribute: Any) -> float:
    """Non-parity unfairness (Yao & Huang 2017; RecBole-FairRec ``NonParityUnfairness``): the
    absolute difference of the two groups' mean predictions; with more groups the population
    standard deviation of the group means (RecBole-FairRec). NaN with one group.

    >>> non_parity([1.0, 0.0, 0.5, 0.5, 0.5], ["f", "f", "m", "m", "m"])
    0.0
    """
    r, codes, labels, _, _ = _arrays(y_pred, attribute)
    if len(labels) < 2:
        return _nan("non_parity", f"{len(labels)} group: parity compares two or more")
    means = [math.fsum(r[codes == g].tolist()) / int((codes == g).sum())
             for g in range(len(labels))]
    if len(means) == 2:
        return abs(means[0] - means[1])
    return float(np.std(np.asarray(means)))


def differential_fairness(y_pred: Any, items: Any, attribute: Any, *,
                          alpha: float | str = "recbole", concentration: float = 1.0,
                          reduce: str = "mean") -> float:
    """Differential fairness epsilon (Foulds et al., ICDE 2020; RecBole-FairRec
    ``DifferentialFairness``): per item j and group g the smoothed rate
    ``p_gj = (sum_{pairs of g with j} r + alpha) / (n_gj + concentration)``; per item
    ``eps_j = max_{g, h} |log p_gj - log p_hj|``; the value is the mean of ``eps_j`` over the
    items (``reduce="mean"``, RecBole-FairRec) or their maximum (``"max"``, the paper's epsilon).

    ``alpha="recbole"``: ``concentration / number of items`` (RecBole-FairRec's
    ``dirichlet_alpha``); a number: the Dirichlet smoothing of the paper (with
    ``concentration = 2 alpha`` for a binary outcome). RecBole-FairRec computes in float32;
    here float64. Predictions must be >= 0 (rates).

    >>> x = differential_fairness([1.0, 0.0], ["a", "a"], ["f", "m"], alpha=0.5)
    >>> round(x, 12)  # log((1 + 1/2) / 2) - log((0 + 1/2) / 2) = log 3
    1.098612288668
    """
    if reduce not in ("mean", "max"):
        raise InputError(f"reduce={plain(reduce)}: choose 'mean' (RecBole-FairRec) or 'max' "
                         "(the paper's epsilon).")
    if not (concentration > 0 and math.isfinite(concentration)):
        raise InputError(f"concentration={plain(concentration)}: a positive number.")
    r, codes, labels, it, _ = _arrays(y_pred, attribute, items)
    assert it is not None
    if (r < 0).any():
        raise InputError("y_pred holds negative values; differential fairness compares rates "
                         "(predictions >= 0).")
    if not len(r):
        return _nan("differential_fairness", "no prediction")
    if len(labels) < 2:
        return _nan("differential_fairness", f"{len(labels)} group: epsilon compares two or "
                    "more")
    _, ic = np.unique(np.asarray([repr(x) for x in it], dtype=object), return_inverse=True)
    n_items = int(ic.max()) + 1 if len(ic) else 0
    if alpha == "recbole":
        a = concentration / n_items
    elif isinstance(alpha, str):
        raise InputError(f"alpha={plain(alpha)}: 'recbole' or a number > 0.")
    else:
        a = float(alpha)
        if not (a > 0 and math.isfinite(a)):
            raise InputError(f"alpha={plain(alpha)}: a Dirichlet smoothing > 0.")
    G = len(labels)
    key = ic * G + codes
    s = np.bincount(key, weights=r, minlength=n_items * G).reshape(n_items, G)
    n = np.bincount(key, minlength=n_items * G).reshape(n_items, G)
    logp = np.log((s + a) / (n + concentration))
    eps = logp.max(axis=1) - logp.min(axis=1)
    return float(eps.max()) if reduce == "max" else math.fsum(eps.tolist()) / len(eps)
