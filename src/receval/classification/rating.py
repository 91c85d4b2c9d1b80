"""Rating prediction errors: RMSE, MAE, MSE and R^2 (Herlocker et al. 2004; Shani & Gunawardana 2011).

Over a test set ``T`` of (user, item) pairs with true rating ``r_ui`` and prediction ``r^_ui``:

- ``RMSE = sqrt((1/|T|) sum_{(u,i) in T} (r^_ui - r_ui)^2)``   (Herlocker et al. 2004)
- ``MAE  = (1/|T|) sum_{(u,i) in T} |r^_ui - r_ui|``            (Herlocker et al. 2004)
- ``MSE  = (1/|T|) sum (r^_ui - r_ui)^2``
- ``R^2  = 1 - sum (r^_ui - r_ui)^2 / sum (r_ui - mean(r))^2``

``average="micro"`` pools every pair (Herlocker et al. 2004, scikit-learn on the flattened
pairs); ``average="macro"`` computes each user's value first and averages over users.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, PolicyError, plain
from ..metrics.spec import MetricDef, MetricSpec, Param, register
from ..pack import Packed
from ._common import Score, as_float_array, as_weights, check_choice, same_length
from ._packed import user_of_positions

__all__ = ["mae", "mse", "r2", "rating_errors", "rmse"]


def _pair(y_true: Any, y_pred: Any, sample_weight: Any):
    t = as_float_array(y_true, "y_true")
    p = as_float_array(y_pred, "y_pred")
    same_length(y_true=t, y_pred=p)
    if len(t) == 0:
        raise InputError("need at least one (true, predicted) pair, got none.")
    return t, p, as_weights(sample_weight, len(t))


def _mean(values: np.ndarray, w: np.ndarray | None) -> float:
    return float(np.mean(values)) if w is None else float(np.sum(w * values) / np.sum(w))


def mse(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """``(1/n) sum_i (p_i - t_i)^2``.

    >>> mse([5, 3], [4, 3])
    0.5
    """
    t, p, w = _pair(y_true, y_pred, sample_weight)
    return _mean((p - t) ** 2, w)


def rmse(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """``sqrt((1/n) sum_i (p_i - t_i)^2)`` (Herlocker et al. 2004).

    >>> rmse([5, 3], [4, 3]) == 0.5 ** 0.5
    True
    """
    return float(np.sqrt(mse(y_true, y_pred, sample_weight=sample_weight)))


def mae(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """``(1/n) sum_i |p_i - t_i|`` (Herlocker et al. 2004).

    >>> mae([5, 3], [4, 3])
    0.5
    """
    t, p, w = _pair(y_true, y_pred, sample_weight)
    return _mean(np.abs(p - t), w)


def r2(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """``1 - sum (p_i - t_i)^2 / sum (t_i - mean(t))^2``; can be negative. Constant ``y_true``
    makes it undefined: an :class:`~receval.InputError`.

    >>> r2([1, 2, 3], [1, 2, 4])  # 1 - 1/2
    0.5
    """
    t, p, w = _pair(y_true, y_pred, sample_weight)
    ww = np.ones_like(t) if w is None else w
    mean = np.sum(ww * t) / np.sum(ww)
    ss_tot = float(np.sum(ww * (t - mean) ** 2))
    if ss_tot <= 0:
        raise InputError("R^2 is undefined when every true rating is the same (zero variance).")
    return 1.0 - float(np.sum(ww * (p - t) ** 2)) / ss_tot


def rating_errors(predictions: Any, ratings: Any, *, metrics: Any = ("rmse", "mae", "mse", "r2"),
                  average: str = "micro", missing: str = "error", user_col: str | None = None,
                  item_col: str | None = None, pred_col: str | None = None,
                  rating_col: str | None = None) -> dict[str, Score]:
    """RMSE / MAE / MSE / R^2 of predicted ratings (a table of user, item, prediction) against
    true ratings (a table of user, item, rating), matched on (user, item).

    ``average``: ``micro`` (all pairs pooled, Herlocker et al. 2004) | ``macro`` (mean over users of
    each user's value; users whose R^2 is undefined are left out and counted). ``missing``: a
    rated pair with no prediction raises (``error``) or is left out (``skip``); predictions
    without a true rating are ignored; both are counted in ``info``. Column names are detected
    (``prediction`` / ``score``, ``rating`` / ``relevance``) or given. Duplicate pairs raise.
    Returns ``{metric: Score}`` with per-user values.
    """
    from ..io.frames import read_columns

    check_choice("average", average, ("micro", "macro"))
    check_choice("missing", missing, ("error", "skip"))
    wanted = [metrics] if isinstance(metrics, str) else list(metrics)
    for m in wanted:
        check_choice("metrics", m, ("rmse", "mae", "mse", "r2"))
    pc = read_columns(predictions, role="run", user_col=user_col, item_col=item_col,
                      score_col=pred_col)
    if pc.value_kind != "score":
        raise InputError("predictions need a prediction column (pred_col=...), not a rank column.")
    tc = read_columns(ratings, role="truth", user_col=user_col, item_col=item_col,
                      rel_col=rating_col)
    if tc.value is None:
        raise InputError(
            "ratings: no rating column found; name it 'rating' or pass rating_col=..."
        )
    pf = pd.DataFrame({"user": _series(pc.user), "item": _series(pc.item), "pred": pc.value})
    tf = pd.DataFrame({"user": _series(tc.user), "item": _series(tc.item), "true": tc.value})
    for name, frame in (("predictions", pf), ("ratings", tf)):
        dup = frame.duplicated(["user", "item"])
        if dup.any():
            row = frame[dup].iloc[0]
            raise InputError(
                f"{name}: {int(dup.sum())} duplicate (user, item) row(s), e.g. "
                f"({plain(row['user'])}, {plain(row['item'])}); keep one row per pair."
            )
    bad = ~np.isfinite(pf["pred"].to_numpy())
    if bad.any():
        raise InputError(f"predictions: {int(bad.sum())} NaN/infinite prediction(s); fix them.")
    bad = ~np.isfinite(tf["true"].to_numpy())
    if bad.any():
        raise InputError(f"ratings: {int(bad.sum())} NaN/infinite rating(s); fix them.")
    joined = tf.merge(pf, on=["user", "item"], how="left", indicator=False)
    unpredicted = int(joined["pred"].isna().sum())
    if unpredicted and missing == "error":
        row = joined[joined["pred"].isna()].iloc[0]
        raise PolicyError(
            f"{unpredicted} rated (user, item) pair(s) have no prediction, e.g. "
            f"({plain(row['user'])}, {plain(row['item'])}); predict every pair or pass missing='skip'."
        )
    joined = joined.dropna(subset=["pred"])
    if len(joined) == 0:
        raise InputError("no (user, item) pair is both predicted and rated; check the ids.")
    info_base = {"pairs": len(joined), "unpredicted": unpredicted,
                 "unrated_predictions": len(pf) - len(joined), "average": average}
    codes, users = pd.factorize(joined["user"], sort=False)
    n_users = len(users)
    t = joined["true"].to_numpy(np.float64)
    p = joined["pred"].to_numpy(np.float64)
    err = p - t
    cnt = np.bincount(codes, minlength=n_users).astype(np.float64)
    out: dict[str, Score] = {}
    for m in wanted:
        info = dict(info_base)
        with np.errstate(invalid="ignore", divide="ignore"):
            if m in ("rmse", "mse", "mae"):
                e = np.abs(err) if m == "mae" else err * err
                per = np.bincount(codes, weights=e, minlength=n_users) / cnt
                micro = float(np.mean(e))
                if m == "rmse":
                    per, micro = np.sqrt(per), float(np.sqrt(micro))
            else:
                mu = np.bincount(codes, weights=t, minlength=n_users) / cnt
                ss_tot = np.bincount(codes, weights=(t - mu[codes]) ** 2, minlength=n_users)
                ss_res = np.bincount(codes, weights=err * err, minlength=n_users)
                per = np.where(ss_tot > 0, 1.0 - ss_res / np.where(ss_tot > 0, ss_tot, 1.0),
                               np.nan)
                info["users_constant_ratings"] = int((ss_tot <= 0).sum())
                tot = float(np.sum((t - t.mean()) ** 2))
                micro = 1.0 - float(np.sum(err * err)) / tot if tot > 0 else float("nan")
        per_user = pd.Series(per, index=pd.Index(users, name="user"), name=m)
        value = micro if average == "micro" else float(np.nanmean(per)) if np.isfinite(
            per).any() else float("nan")
        key = m if average == "micro" else f"{m}(average=macro)"
        out[m] = Score(key, value, per_user, info)
    return out


def _series(col: Any) -> pd.Series:
    if isinstance(col, pd.Series):
        return col.reset_index(drop=True)
    if isinstance(col, np.ndarray):  # ids of a dict-of-dicts
        return pd.Series(col)
    return col.to_pandas().reset_index(drop=True)

# -------------------------------------------------------------------------------------------------
# RMSE, MSE, MAE, R^2 and explained variance of predicted ratings:
# plugin metrics of receval.evaluate over the packed lists, registered on import.

def _rating(which: str):
    def compute(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
        n_users = len(packed.user_ids)
        user = user_of_positions(packed)
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
