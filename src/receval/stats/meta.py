"""Meta-evaluation: do two sets of judgments, or two metrics, rank systems alike; how
discriminative is a metric; does a reproduced experiment reproduce the original one.

Every statistic here reads per-topic scores (one value per system, judgment set, metric and
topic: the per-user values of :func:`receval.evaluate`). A "condition" is one
``(judgments, metric)`` pair; a system's score under it is its mean over the topics used.

System-ranking agreement (:func:`kendall_tau_b`, :func:`tau_ap`, :func:`rbo`; on a
:class:`MetaEvaluation`, :meth:`MetaEvaluation.agreement` adds bootstrap intervals):

- Kendall's tau-b over the ``n`` systems' means ``x`` and ``y``: with ``P = n(n-1)/2`` pairs,
  ``C - D`` the concordant minus discordant pairs, ``T_x`` / ``T_y`` the pairs tied in ``x`` /
  ``y``: ``tau_b = (C - D) / sqrt((P - T_x)(P - T_y))`` (Kendall 1945; scipy's ``kendalltau``).
- tau_AP (Yilmaz, Aslam & Robertson, SIGIR 2008), ``x`` the reference ranking: with the systems
  in the reference order, ``tau_AP = 2 / (n - 1) sum_{i=2}^{n} C(i) / (i - 1) - 1``, ``C(i)``
  the systems above rank ``i`` in the reference that ``y`` also ranks above it. It is not
  symmetric. Ties: the value is the expectation over uniform random orderings of every group of
  tied systems, in both rankings (a pair tied in ``y`` counts 1/2; a system tied with others
  in ``x`` takes each position of its group with equal chance). Without ties this is the paper's
  value.
- RBO (Webber, Moffat & Zobel, TOIS 2010) of the two rankings of the same ``n`` systems, the
  extrapolated form at depth ``n`` (their eq. 32): ``RBO = X_n / n p^n + (1 - p) / p
  sum_{d=1}^{n} X_d / d p^d``, ``X_d`` the systems in the top ``d`` of both rankings. Ties:
  the expectation over uniform random orderings of tied systems, ``E[X_d] = sum_s
  P_x(s in top d) P_y(s in top d)`` (RBO is linear in ``X_d``).

Each is undefined (NaN, with an :class:`~receval.errors.UndefinedValueWarning`) with fewer
than 2 systems, or when either ranking ties every system.

Bootstrap over topics (:meth:`MetaEvaluation.agreement`): each of ``B`` resamples draws ``n_t``
topics with replacement (the same draws for both conditions: a topic's scores move together),
recomputes every system's mean under both conditions and the statistic; the interval is the
percentile interval (``(1 - c)/2`` and ``(1 + c)/2`` quantiles, linear interpolation) of the
resamples where the statistic is defined; ``undefined_resamples`` counts the others. The draws
depend only on ``rng`` and ``n_t`` (:func:`receval.results.intervals.bootstrap_means`).

Discriminative power (Sakai, SIGIR 2006; :meth:`MetaEvaluation.discriminative_power`): the
share of the ``n(n-1)/2`` system pairs whose paired test over topics (:mod:`receval.stats.paired`,
as in :func:`receval.stats.compare`) is significant at ``alpha`` after ``correction`` over the
pairs of one condition. Swap rate (Voorhees & Buckley, SIGIR 2002; Sakai 2006's bootstrap form;
:meth:`MetaEvaluation.swap_rate`): per trial and pair, two topic samples give mean differences
``d1`` and ``d2``; trials with ``d1 != 0`` and ``|d1| >= min_diff`` count, and a swap is
``d1 d2 < 0``. ``method="bootstrap"``: two independent resamples of ``n_t`` topics with
replacement; ``method="split"``: two disjoint random halves of ``floor(n_t / 2)`` topics.

Reproducibility (Breuer et al., SIGIR 2020, the ``repro_eval`` package;
:func:`reproducibility`), for an original and a reproduced baseline / advanced pair of runs:

- KTU, Kendall's tau union, per topic: both lists cut at ``cutoff``; each document gets its
  position in the sorted union of the two lists' documents; ``KTU`` is Kendall's tau-b between
  those positions read down the original list and down the reproduced list (lists of equal
  length; repro_eval's ``KTU``).
- RBO between the original and reproduced list of a topic, repro_eval's form (after Clarke et
  al.'s code): ``sum_{d=1}^{depth} p^(d-1) |A_d| / d / sum_{d=1}^{depth} p^(d-1)``, ``A_d``
  the documents in both top-``d`` prefixes.
- RMSE over topics of a metric, ``sqrt(mean_t (o_t - r_t)^2)``; nRMSE divides it by
  ``sqrt(mean_t max(o_t, 1 - o_t)^2)``.
- Effect ratio ``ER = mean_t(r^a_t - r^b_t) / mean_t(o^a_t - o^b_t)`` and delta relative
  improvement ``DeltaRI = RI_o - RI_r``, ``RI = (mean(a) - mean(b)) / mean(b)``.

Lists order a topic's documents by score descending, then document id descending (trec_eval's
and repro_eval's order), or by rank ascending when the run has ranks.

Three systems, judged by people on five topics and by a model on four of them (``q5`` is
left out of the agreement and counted):

>>> human = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}, "q4": {"a": 1}, "q5": {"b": 1}}
>>> model = {"q1": {"a": 1}, "q2": {"b": 1, "c": 1}, "q3": {"a": 1}, "q4": {"c": 1}}
>>> runs = {s: {q: {d: 3 - i for i, d in enumerate(order)} for q in human}
...         for s, order in {"s1": "abc", "s2": "bca", "s3": "cab"}.items()}
>>> me = evaluate(runs, {"human": human, "model": model}, ["mrr"])       # rv.meta.evaluate
>>> ag = me.agreement("human", "model", n_resamples=200)
>>> ag[["measure", "value", "topics", "topics_dropped_a"]].round(4)
  measure   value  topics  topics_dropped_a
0   tau_b  0.3333       4                 1
1  tau_ap  0.0000       4                 1
2     rbo  0.9000       4                 1
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from ..errors import InputError, UndefinedValueWarning, plain, suggest, user_stacklevel
from ..results import EvalResult
from ..results.intervals import bootstrap_means
from ..validation import (
    POSITIVE_INT,
    PROBABILITY_OPEN,
    SEED,
    Interval,
    Options,
    Real,
    validate_params,
)
from .compare import TESTS, TestSettings, test_rows
from .corrections import CORRECTIONS, adjust

__all__ = ["AGREEMENT_MEASURES", "SCORE_COLUMNS", "MetaEvaluation", "Reproduction", "evaluate",
           "from_results", "kendall_tau_b", "rbo", "reproducibility", "tau_ap"]

#: columns of :attr:`MetaEvaluation.scores`
SCORE_COLUMNS = ["system", "judgments", "metric", "topic", "value"]
#: the agreement measures, in the order :meth:`MetaEvaluation.agreement` reports them
AGREEMENT_MEASURES = ("tau_b", "tau_ap", "rbo")
_P = [Interval(Real, 0, 1, closed="neither")]
_RNG = [None, *SEED]


def _undefined(what: str, why: str) -> float:
    warnings.warn(f"{what} is undefined (NaN): {why}.", UndefinedValueWarning,
                  stacklevel=user_stacklevel())
    return float("nan")


# ---- ranking agreement on score vectors --------------------------------------------------
def _as_scores(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 1:
        raise InputError(f"{name} must be 1-d (one score per system), got shape {arr.shape}.")
    if not np.isfinite(arr).all():
        raise InputError(f"{name} holds NaN or inf ({plain(arr.tolist())}); give every system "
                         "a finite score (drop the topics without a value first).")
    return arr


def _pair(x: Any, y: Any, xname: str, yname: str) -> tuple[np.ndarray, np.ndarray]:
    a, b = _as_scores(x, xname), _as_scores(y, yname)
    if a.shape != b.shape:
        raise InputError(f"{xname} and {yname} must score the same systems, got {a.size} and "
                         f"{b.size} scores; give one score per system in the same order.")
    return a, b


def _why_undefined(x: np.ndarray, y: np.ndarray) -> str | None:
    n = x.shape[-1]
    if n < 2:
        return f"it needs at least 2 systems, got {n}"
    for v, name in ((x, "the first"), (y, "the second")):
        if (v == v[..., :1]).all():
            return f"{name} ranking ties every system"
    return None


def _tau_b_batch(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """tau-b of each row pair of ``x`` and ``y`` (``(B, n)``); NaN where undefined."""
    n = x.shape[1]
    iu, ju = np.triu_indices(n, 1)
    sx = np.sign(x[:, iu] - x[:, ju])
    sy = np.sign(y[:, iu] - y[:, ju])
    pairs = iu.size
    num = (sx * sy).sum(axis=1)
    den = np.sqrt((pairs - (sx == 0).sum(axis=1)) * (pairs - (sy == 0).sum(axis=1)).astype(float))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _tau_ap_batch(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Expected tau_AP (reference ``x``) under random orderings of tied systems, per row."""
    n = x.shape[1]
    above = x[:, None, :] > x[:, :, None]          # [b, i, j]: j strictly above i in x
    tied = x[:, None, :] == x[:, :, None]
    eye = np.eye(n, dtype=bool)[None]
    tied &= ~eye
    conc = (y[:, None, :] > y[:, :, None]) + 0.5 * ((y[:, None, :] == y[:, :, None]) & ~eye)
    s = above.sum(axis=2)                           # systems strictly above i
    g = tied.sum(axis=2) + 1                        # size of i's tie group
    c_out = (above * conc).sum(axis=2)
    c_in = (tied * conc).sum(axis=2)
    # sum over the group positions r = 1..g of 1/(s+r-1) and (r-1)/(s+r-1), skipping s+r-1 = 0
    r = np.arange(1, n + 1)[None, None, :]
    pos = s[..., None] + r - 1
    valid = (r <= g[..., None]) & (pos > 0)
    inv = np.where(valid, 1.0 / np.where(pos > 0, pos, 1), 0.0)
    h1 = inv.sum(axis=2)
    h2 = (inv * (r - 1)).sum(axis=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = np.where(g > 1, c_in / np.maximum(g - 1, 1), 0.0)
    expected = (c_out * h1 + inner * h2) / g
    out = 2.0 / (n - 1) * expected.sum(axis=1) - 1.0
    bad = (x == x[:, :1]).all(axis=1) | (y == y[:, :1]).all(axis=1)
    return np.where(bad, np.nan, out)


def _top_prob(x: np.ndarray) -> np.ndarray:
    """``[b, s, d-1]``: the chance that system ``s`` is in the top ``d`` of ranking ``x[b]``
    when tied systems are ordered at random."""
    n = x.shape[1]
    s = (x[:, None, :] > x[:, :, None]).sum(axis=2)
    g = (x[:, None, :] == x[:, :, None]).sum(axis=2)
    d = np.arange(1, n + 1)[None, None, :]
    return np.clip((d - s[..., None]) / g[..., None], 0.0, 1.0)


def _rbo_batch(x: np.ndarray, y: np.ndarray, p: float) -> np.ndarray:
    n = x.shape[1]
    overlap = (_top_prob(x) * _top_prob(y)).sum(axis=1)   # E[X_d], d = 1..n
    d = np.arange(1, n + 1, dtype=np.float64)
    out = overlap[:, -1] / n * p**n + (1 - p) / p * (overlap / d * p**d).sum(axis=1)
    bad = (x == x[:, :1]).all(axis=1) | (y == y[:, :1]).all(axis=1)
    return np.where(bad, np.nan, out)


def _one(func: Any, x: np.ndarray, y: np.ndarray, what: str, *args: Any) -> float:
    why = _why_undefined(x, y)
    if why is not None:
        return _undefined(what, why)
    return float(func(x[None], y[None], *args)[0])


def kendall_tau_b(x: Any, y: Any) -> float:
    """Kendall's tau-b between two score vectors of the same systems (higher is better).

    ``tau_b = (C - D) / sqrt((P - T_x)(P - T_y))`` (see the module docstring). Example: ``x =
    [4, 3, 2, 1]``, ``y = [3, 4, 2, 1]``: 5 concordant pairs, 1 discordant, no ties: ``4/6``.
    """
    a, b = _pair(x, y, "x", "y")
    return _one(_tau_b_batch, a, b, "Kendall's tau-b")


def tau_ap(reference: Any, other: Any) -> float:
    """tau_AP of ``other`` against ``reference`` (Yilmaz, Aslam & Robertson 2008), with ties
    as the expectation over random orderings of tied systems (module docstring).

    Example: ``reference = [4, 3, 2, 1]``, ``other = [3, 4, 2, 1]``: ``C = (0, 2, 3)`` for
    ranks 2-4, ``2/3 (0/1 + 2/2 + 3/3) - 1 = 1/3``.
    """
    a, b = _pair(reference, other, "reference", "other")
    return _one(_tau_ap_batch, a, b, "tau_AP")


@validate_params({"p": _P})
def rbo(x: Any, y: Any, *, p: float = 0.9) -> float:
    """Extrapolated rank-biased overlap of two rankings of the same systems (Webber, Moffat &
    Zobel 2010, eq. 32, at depth ``n``), ties as expected values (module docstring).

    Example: ``x = [3, 2, 1]``, ``y = [2, 3, 1]``, ``p = 0.5``: ``X = (0, 2, 3)``,
    ``RBO = 3/3 * 1/8 + 1 * (0 + 2/2 * 1/4 + 3/3 * 1/8) = 1/2``.
    """
    a, b = _pair(x, y, "x", "y")
    return _one(_rbo_batch, a, b, "RBO", float(p))


_BATCH = {"tau_b": _tau_b_batch, "tau_ap": _tau_ap_batch, "rbo": _rbo_batch}


# ---- the meta-evaluation object ----------------------------------------------------------
def _names(obj: Any, what: str, keyword: str) -> dict[str, Any]:
    if not isinstance(obj, Mapping) or not obj:
        raise InputError(f"{keyword}= must be a non-empty dict {{name: {what}}}, got "
                         f"{type(obj).__name__}" + (" (empty)" if isinstance(obj, Mapping) else "")
                         + f"; name each {what}, e.g. {keyword}={{'bm25': ...}}.")
    out: dict[str, Any] = {}
    for k, v in obj.items():
        if str(k) in out:
            raise InputError(f"{keyword}= has two names that read {plain(str(k))} as text; give "
                             "them distinct names.")
        out[str(k)] = v
    return out


@dataclass
class MetaEvaluation:
    """Per-topic scores of systems x judgment sets x metrics, and the meta-evaluation statistics
    over them (see the module docstring for every definition).

    ``results[(system, judgments)]`` is the :class:`~receval.results.EvalResult` of that
    system under that judgment set; ``metrics`` are the keys asked for.
    """

    results: dict[tuple[str, str], EvalResult]
    systems: list[str]
    judgments: list[str]
    metrics: list[str]
    notes: list[str] = field(default_factory=list)

    # ---- scores --------------------------------------------------------------------------
    @property
    def scores(self) -> pd.DataFrame:
        """Tidy per-topic scores: columns :data:`SCORE_COLUMNS`, NaN where a topic has no value
        (skipped, e.g. no relevant document)."""
        parts = []
        for (s, j), res in self.results.items():
            for m in self.metrics:
                parts.append(pd.DataFrame({"system": s, "judgments": j, "metric": m,
                                           "topic": np.asarray(res.user_ids, dtype=object),
                                           "value": res.user_values(m)}))
        return pd.concat(parts, ignore_index=True)[SCORE_COLUMNS]

    def _frame(self, judgments: str, metric: str) -> pd.DataFrame:
        cols = {}
        for s in self.systems:
            res = self.results[(s, judgments)]
            cols[s] = pd.Series(res.user_values(metric), index=pd.Index(
                np.asarray(res.user_ids, dtype=object)))
        return pd.DataFrame(cols)

    def _condition(self, c: Any, keyword: str) -> tuple[str, str]:
        if isinstance(c, str):
            if len(self.metrics) == 1 and c in self.judgments:
                return c, self.metrics[0]
            if len(self.judgments) == 1 and c in self.metrics:
                return self.judgments[0], c
            raise InputError(
                f"{keyword}={plain(c)} is neither a judgment set (with one metric) nor a metric "
                f"(with one judgment set) of this evaluation; give a (judgments, metric) pair "
                f"from judgments {self.judgments} and metrics {self.metrics}."
                + suggest(c, self.judgments + self.metrics))
        if isinstance(c, tuple) and len(c) == 2:
            j, m = (str(v) for v in c)
            if j not in self.judgments:
                raise InputError(f"{keyword}={plain(c)}: {plain(j)} is not a judgment set; "
                                 f"choose one of {self.judgments}." + suggest(j, self.judgments))
            if m not in self.metrics:
                raise InputError(f"{keyword}={plain(c)}: {plain(m)} is not a metric of this "
                                 f"evaluation; choose one of {self.metrics}."
                                 + suggest(m, self.metrics))
            return j, m
        raise InputError(f"{keyword}={plain(c)} is not valid; give a (judgments, metric) pair, "
                         "or a judgment set's or a metric's name.")

    def _conditions(self, judgments: Any, metric: Any) -> list[tuple[str, str]]:
        js = self.judgments if judgments is None else [judgments] if isinstance(judgments, str) \
            else list(judgments)
        ms = self.metrics if metric is None else [metric] if isinstance(metric, str) \
            else list(metric)
        for j in js:
            if j not in self.judgments:
                raise InputError(f"judgments={plain(j)} is not a judgment set; choose one of "
                                 f"{self.judgments}." + suggest(str(j), self.judgments))
        for m in ms:
            if m not in self.metrics:
                raise InputError(f"metric={plain(m)} is not a metric of this evaluation; choose "
                                 f"one of {self.metrics}." + suggest(str(m), self.metrics))
        return [(j, m) for j in js for m in ms]

    def topic_matrix(self, judgments: str, metric: str) -> tuple[np.ndarray, np.ndarray, int]:
        """``(topics, X, dropped)``: the topics where every system has a value under the
        condition, their scores (topics x systems, ``systems`` order) and how many topics of
        the condition were left out."""
        j, m = self._condition((judgments, metric), "judgments, metric")
        frame = self._frame(j, m)
        keep = np.isfinite(frame.to_numpy(dtype=np.float64)).all(axis=1)
        return (frame.index[keep].to_numpy(), frame.to_numpy(dtype=np.float64)[keep],
                int((~keep).sum()))

    def means(self) -> pd.DataFrame:
        """Each system's mean over the topics where every system has a value, one column per
        ``(judgments, metric)``."""
        cols = {}
        for j, m in self._conditions(None, None):
            _, X, _ = self.topic_matrix(j, m)
            cols[(j, m)] = X.mean(axis=0) if X.shape[0] else np.full(len(self.systems), np.nan)
        return pd.DataFrame(cols, index=pd.Index(self.systems, name="system"))

    # ---- agreement -----------------------------------------------------------------------
    @validate_params({"p": _P, "n_resamples": POSITIVE_INT, "rng": _RNG,
                      "confidence": PROBABILITY_OPEN})
    def agreement(self, a: Any, b: Any, *, p: float = 0.9, n_resamples: int = 1000,
                  rng: int | None = 0, confidence: float = 0.95) -> pd.DataFrame:
        """Agreement of the system rankings under conditions ``a`` and ``b`` (each a
        ``(judgments, metric)`` pair, or a judgment set's name when there is one metric, or a
        metric's name when there is one judgment set): ``tau_b``, ``tau_ap`` (``a`` the
        reference) and ``rbo`` (persistence ``p``), each with a bootstrap percentile interval
        over topics (module docstring).

        Topics: those where every system has a value under both conditions (a topic missing
        from one judgment set is left out; ``topics_dropped_a`` / ``_b`` count them).
        """
        ca, cb = self._condition(a, "a"), self._condition(b, "b")
        fa, fb = self._frame(*ca), self._frame(*cb)
        joined = fa.add_suffix("\0a").join(fb.add_suffix("\0b"), how="inner")
        X = joined.to_numpy(dtype=np.float64)
        keep = np.isfinite(X).all(axis=1)
        X = X[keep]
        n_sys = len(self.systems)
        nt = X.shape[0]
        base = {"a": f"{ca[0]} / {ca[1]}", "b": f"{cb[0]} / {cb[1]}", "systems": n_sys,
                "topics": nt, "topics_dropped_a": int(len(fa) - nt),
                "topics_dropped_b": int(len(fb) - nt)}
        rows = []
        if nt == 0:
            why = (f"the conditions share no topic where every system has a value "
                   f"({len(fa)} and {len(fb)} topics)")
        else:
            why = None
        xa = X[:, :n_sys].mean(axis=0) if nt else np.zeros(n_sys)
        xb = X[:, n_sys:].mean(axis=0) if nt else np.zeros(n_sys)
        for name in AGREEMENT_MEASURES:
            args = (float(p),) if name == "rbo" else ()
            label = {"tau_b": "Kendall's tau-b", "tau_ap": "tau_AP", "rbo": "RBO"}[name]
            reason = why or _why_undefined(xa, xb)
            if reason is not None:
                value = _undefined(f"{label} of {base['a']} against {base['b']}", reason)
                rows.append({"measure": name, **base, "value": value, "ci_low": math.nan,
                             "ci_high": math.nan, "undefined_resamples": int(n_resamples)})
                continue
            value = float(_BATCH[name](xa[None], xb[None], *args)[0])
            boot = _boot_stat(X, n_sys, int(n_resamples), rng, _BATCH[name], args)
            ok = np.isfinite(boot)
            lo = hi = math.nan
            if ok.any():
                lo, hi = (float(v) for v in np.quantile(
                    boot[ok], [(1 - confidence) / 2, (1 + confidence) / 2]))
            rows.append({"measure": name, **base, "value": value, "ci_low": lo, "ci_high": hi,
                         "undefined_resamples": int((~ok).sum())})
        return pd.DataFrame(rows)

    # ---- discriminative power and swaps --------------------------------------------------
    @validate_params({"test": [Options(TESTS)], "correction": [None, Options(CORRECTIONS)],
                      "alpha": PROBABILITY_OPEN, "n_resamples": POSITIVE_INT, "rng": _RNG})
    def pair_tests(self, judgments: Any = None, metric: Any = None, *, test: str = "t",
                   correction: str | None = "holm", alpha: float = 0.05,
                   n_resamples: int = 10000, rng: int | None = 0) -> pd.DataFrame:
        """The paired test of every system pair over topics, per condition, as in
        :func:`receval.stats.compare` (``correction`` over the pairs of one condition):
        columns ``judgments``, ``metric``, ``topics_dropped`` and compare's pair columns."""
        out = []
        settings = TestSettings(test=test, ci="t", alpha=float(alpha),
                                n_resamples=int(n_resamples), seed=rng, tie_tol=0.0,
                                zero_method="wilcox", design="paired", alternative="two-sided")
        pairs = [(a, b) for i, a in enumerate(self.systems) for b in self.systems[i + 1:]]
        for j, m in self._conditions(judgments, metric):
            _, X, dropped = self.topic_matrix(j, m)
            if X.shape[0] < 2 or len(pairs) == 0:
                continue
            rows = test_rows(m, X, list(self.systems), pairs, settings)
            q = adjust(np.array([r["p_value"] for r in rows]), correction)
            for r, qi in zip(rows, q, strict=True):
                r.update(judgments=j, topics_dropped=dropped, p_adjusted=float(qi),
                         significant=bool(qi == qi and qi <= alpha))
            out += rows
        cols = ["judgments", "metric", "a", "b", "n", "topics_dropped", "mean_a", "mean_b",
                "diff", "statistic", "p_value", "p_adjusted", "significant"]
        return pd.DataFrame(out, columns=cols)

    @validate_params({"test": [Options(TESTS)], "correction": [None, Options(CORRECTIONS)],
                      "alpha": PROBABILITY_OPEN, "n_resamples": POSITIVE_INT, "rng": _RNG})
    def discriminative_power(self, judgments: Any = None, metric: Any = None, *,
                             test: str = "t", correction: str | None = "holm",
                             alpha: float = 0.05, n_resamples: int = 10000,
                             rng: int | None = 0) -> pd.DataFrame:
        """Discriminative power per condition (Sakai 2006): significant pairs / all pairs, by
        :meth:`pair_tests`. NaN (with a warning) with fewer than 2 systems or 2 topics."""
        tests = self.pair_tests(judgments, metric, test=test, correction=correction,
                                alpha=alpha, n_resamples=n_resamples, rng=rng)
        n_pairs = len(self.systems) * (len(self.systems) - 1) // 2
        rows = []
        for j, m in self._conditions(judgments, metric):
            _, X, dropped = self.topic_matrix(j, m)
            sel = tests[(tests["judgments"] == j) & (tests["metric"] == m)]
            sig = int(sel["significant"].sum())
            if n_pairs == 0 or X.shape[0] < 2:
                why = (f"it needs at least 2 systems, got {len(self.systems)}" if n_pairs == 0
                       else f"the paired tests need at least 2 topics, got {X.shape[0]}")
                value = _undefined(f"the discriminative power of {j} / {m}", why)
            else:
                value = sig / n_pairs
            rows.append({"judgments": j, "metric": m, "test": test,
                         "correction": correction or "none", "alpha": float(alpha),
                         "pairs": n_pairs, "significant": sig, "discriminative_power": value,
                         "topics": int(X.shape[0]), "topics_dropped": dropped})
        return pd.DataFrame(rows)

    @validate_params({"method": [Options(("bootstrap", "split"))], "n_resamples": POSITIVE_INT,
                      "rng": _RNG, "min_diff": [Interval(Real, 0, None)]})
    def swap_rate(self, judgments: Any = None, metric: Any = None, *,
                  method: str = "bootstrap", n_resamples: int = 1000, rng: int | None = 0,
                  min_diff: float = 0.0) -> pd.DataFrame:
        """Swap rate per condition (Voorhees & Buckley 2002; Sakai 2006): swaps / counted
        trials over every system pair (module docstring). NaN (with a warning) when no trial
        counts (fewer than 2 systems, or every first-sample difference below ``min_diff``)."""
        rows = []
        for j, m in self._conditions(judgments, metric):
            _, X, dropped = self.topic_matrix(j, m)
            nt, ns = X.shape
            B = int(n_resamples)
            trials = swaps = 0
            if ns >= 2 and (nt >= 1 if method == "bootstrap" else nt >= 2):
                m1, m2 = _two_samples(X, B, rng, method)
                iu, ju = np.triu_indices(ns, 1)
                d1 = m1[:, iu] - m1[:, ju]
                d2 = m2[:, iu] - m2[:, ju]
                counted = (d1 != 0) & (np.abs(d1) >= min_diff)
                trials = int(counted.sum())
                swaps = int((counted & (d1 * d2 < 0)).sum())
            if trials == 0:
                why = (f"it needs at least 2 systems, got {ns}" if ns < 2 else
                       f"method='split' needs at least 2 topics, got {nt}"
                       if nt < 2 and method == "split" else
                       "no trial has a first-sample difference that is non-zero and at least "
                       f"min_diff={plain(min_diff)}")
                value = _undefined(f"the swap rate of {j} / {m}", why)
            else:
                value = swaps / trials
            rows.append({"judgments": j, "metric": m, "method": method,
                         "min_diff": float(min_diff), "trials": trials, "swaps": swaps,
                         "swap_rate": value, "topics": nt, "topics_dropped": dropped})
        return pd.DataFrame(rows)


def _boot_stat(X: np.ndarray, n_sys: int, B: int, rng: int | None, func: Any,
               args: tuple[Any, ...]) -> np.ndarray:
    """The statistic on ``B`` topic resamples (shared by both halves of ``X``'s columns)."""
    out = []
    chunk = max(1, 2_000_000 // max(n_sys * n_sys * 2, 1))
    means = bootstrap_means(X, B, rng)
    for start in range(0, B, chunk):
        blk = means[start:start + chunk]
        out.append(func(blk[:, :n_sys], blk[:, n_sys:], *args))
    return np.concatenate(out)


def _two_samples(X: np.ndarray, B: int, rng: int | None,
                 method: str) -> tuple[np.ndarray, np.ndarray]:
    if method == "bootstrap":
        means = bootstrap_means(X, 2 * B, rng)
        return means[:B], means[B:]
    from ..results.intervals import generator

    gen = generator(rng, 2)
    nt = X.shape[0]
    half = nt // 2
    m1 = np.empty((B, X.shape[1]))
    m2 = np.empty((B, X.shape[1]))
    for b in range(B):
        perm = gen.permutation(nt)
        m1[b] = X[perm[:half]].mean(axis=0)
        m2[b] = X[perm[half:2 * half]].mean(axis=0)
    return m1, m2


# ---- construction ------------------------------------------------------------------------
def _split_kwargs(kwargs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    run_only = ("score_col", "rank_col")
    both = ("user_col", "item_col")
    ev = {k: v for k, v in kwargs.items() if k not in run_only}
    run = {k: v for k, v in kwargs.items() if k in run_only + both}
    return ev, run


def _metric_list(metrics: Any) -> list[str]:
    if isinstance(metrics, str):
        metrics = [metrics]
    if not isinstance(metrics, Sequence) or not metrics or \
            not all(isinstance(m, str) for m in metrics):
        raise InputError(f"metrics={plain(metrics)} is not valid; give a non-empty list of metric "
                         "names such as ['ndcg@10', 'map'].")
    return list(metrics)


def evaluate(runs: Mapping[str, Any], truths: Any, metrics: Any, **kwargs: Any) -> MetaEvaluation:
    """Evaluate every run under every judgment set with ``metrics``, in one call.

    ``runs``: ``{system: run}``; ``truths``: ``{judgments: truth}`` (or one truth, named
    ``"truth"``); ``kwargs``: what :func:`receval.evaluate` takes (policies, ``compat=``,
    column names). Each judgment set is read once (:class:`receval.Evaluator`).
    """
    from ..engines.evaluator import Evaluator

    named_runs = _names(runs, "run", "runs")
    if isinstance(truths, Mapping) and truths and _looks_like_sets(truths):
        named_truths = _names(truths, "truth", "truths")
    else:
        named_truths = {"truth": truths}
    metric_list = _metric_list(metrics)
    ev_kwargs, run_kwargs = _split_kwargs(kwargs)
    results: dict[tuple[str, str], EvalResult] = {}
    for j, truth in named_truths.items():
        ev = Evaluator(truth, metric_list, **ev_kwargs)
        for s, run in named_runs.items():
            results[(s, j)] = ev.evaluate(run, name=s, **run_kwargs)
    return from_results(results, metrics=metric_list)


def _looks_like_sets(truths: Mapping[Any, Any]) -> bool:
    """Whether a mapping is ``{name: truth}`` rather than one dict-of-dicts truth
    ``{user: {item: rel}}``: its values are not all ``{item: number}`` dicts."""
    for v in truths.values():
        if not isinstance(v, Mapping):
            return True
        if not all(isinstance(x, (int, float, np.integer, np.floating)) for x in v.values()):
            return True
    return False


def from_results(results: Mapping[tuple[str, str], EvalResult], *,
                 metrics: Any = None) -> MetaEvaluation:
    """A :class:`MetaEvaluation` over ``{(system, judgments): EvalResult}`` (every pair
    present; ``metrics`` default: those every result has)."""
    if not isinstance(results, Mapping) or not results:
        raise InputError("results= must be a non-empty dict {(system, judgments): EvalResult}.")
    systems: list[str] = []
    judgments: list[str] = []
    for key, res in results.items():
        if not (isinstance(key, tuple) and len(key) == 2):
            raise InputError(f"results= key {plain(key)} is not a (system, judgments) pair; "
                             "key each result by (system name, judgment set name).")
        if not isinstance(res, EvalResult):
            raise InputError(f"results[{plain(key)}] is a {type(res).__name__}, not an "
                             "EvalResult; evaluate it first with rv.evaluate(run, truth, metrics).")
        s, j = str(key[0]), str(key[1])
        systems += [s] if s not in systems else []
        judgments += [j] if j not in judgments else []
    res_by = {(str(k[0]), str(k[1])): v for k, v in results.items()}
    missing = [(s, j) for s in systems for j in judgments if (s, j) not in res_by]
    if missing:
        raise InputError(f"results= lacks {missing[:5]}{'...' if len(missing) > 5 else ''}: every "
                         "system needs a result under every judgment set.")
    first = next(iter(res_by.values()))
    if metrics is None:
        metric_list = [m for m in first.metrics if all(m in r.metrics for r in res_by.values())]
    else:
        metric_list = _metric_list(metrics)
    for m in metric_list:
        for key, r in res_by.items():
            try:
                r._key(m)
            except Exception as exc:
                raise InputError(f"metrics=: {plain(m)} is not in the result of {key}; "
                                 f"evaluate every result with it ({exc}).") from None
    return MetaEvaluation(res_by, systems, judgments, metric_list)


# ---- reproducibility (repro_eval) --------------------------------------------------------
def _lists(run: Any) -> dict[Any, list[Any]]:
    """Each topic's documents in rank order (score descending then id descending, or rank
    ascending)."""
    from ..io.frames import read_columns

    cols = read_columns(run, role="run")
    frame = pd.DataFrame({"topic": np.asarray(cols.user, dtype=object),
                          "doc": np.asarray(cols.item, dtype=object), "value": cols.value})
    if cols.value_kind == "rank":
        frame = frame.sort_values(["topic", "value", "doc"], ascending=[True, True, True],
                                  kind="stable")
    else:
        frame = frame.sort_values(["value", "doc"], ascending=[False, False], kind="stable")
    out: dict[Any, list[Any]] = {}
    for t, docs in frame.groupby("topic", sort=False)["doc"]:
        out[t] = docs.tolist()
    return out


def ktu(original: Sequence[Any], reproduced: Sequence[Any]) -> float:
    """Kendall's tau union of two document lists of equal length (repro_eval's ``KTU``; module
    docstring); NaN (with a warning) for unequal lengths or fewer than 2 documents."""
    o, r = list(original), list(reproduced)
    if len(o) != len(r):
        return _undefined("KTU", f"the lists have different lengths ({len(o)} and {len(r)})")
    if len(o) < 2:
        return _undefined("KTU", f"it needs at least 2 documents, got {len(o)}")
    union = {d: i for i, d in enumerate(sorted(set(o) | set(r)))}
    x = np.array([union[d] for d in o])
    y = np.array([union[d] for d in r])
    return float(sps.kendalltau(x, y).statistic)


@validate_params({"p": _P, "depth": POSITIVE_INT})
def rbo_lists(original: Sequence[Any], reproduced: Sequence[Any], *, p: float = 0.95,
              depth: int = 1000) -> float:
    """repro_eval's RBO of two document lists (module docstring), to ``depth``."""
    pos_o = {d: i for i, d in enumerate(original) if i < depth}
    both = [max(i, pos_o[d]) for i, d in enumerate(reproduced) if i < depth and d in pos_o]
    enter = np.bincount(np.asarray(both, dtype=np.int64), minlength=depth)[:depth]
    overlap = np.cumsum(enter)
    d = np.arange(1, depth + 1, dtype=np.float64)
    w = p ** (d - 1)
    return float((w * overlap / d).sum() / w.sum())


@dataclass
class Reproduction:
    """repro_eval's measures of an original and a reproduced experiment (module docstring).

    ``order``: one row per run and topic (``ktu``, ``rbo``); ``order_summary``: their means per
    run (undefined topics left out and counted); ``effectiveness``: ``rmse`` and ``nrmse`` per
    run and metric; ``effects``: ``er`` and ``delta_ri`` per metric; ``results``: the
    :class:`~receval.results.EvalResult` of each run (``("original", "baseline")``, ...).
    """

    order: pd.DataFrame
    order_summary: pd.DataFrame
    effectiveness: pd.DataFrame
    effects: pd.DataFrame
    results: dict[tuple[str, str], EvalResult]
    notes: list[str] = field(default_factory=list)


def _aligned(a: EvalResult, b: EvalResult, m: str) -> tuple[np.ndarray, np.ndarray, int]:
    sa = pd.Series(a.user_values(m), index=pd.Index(np.asarray(a.user_ids, dtype=object)))
    sb = pd.Series(b.user_values(m), index=pd.Index(np.asarray(b.user_ids, dtype=object)))
    both = pd.concat([sa, sb], axis=1, join="inner").to_numpy(dtype=np.float64)
    keep = np.isfinite(both).all(axis=1)
    return both[keep, 0], both[keep, 1], int(len(sa) - keep.sum())


@validate_params({"p": _P, "depth": POSITIVE_INT, "cutoff": POSITIVE_INT})
def reproducibility(original: Mapping[str, Any], reproduced: Mapping[str, Any], truth: Any,
                    metrics: Any, *, p: float = 0.95,
                    depth: int = 1000, cutoff: int = 1000, reproduced_truth: Any = None,
                    **kwargs: Any) -> Reproduction:
    """repro_eval's measures (Breuer et al., SIGIR 2020) for an original and a reproduced run
    set: ``original`` and ``reproduced`` are ``{"baseline": run, "advanced": run}`` (or one
    run, ``{"baseline": run}``: no ER or DeltaRI); ``truth`` judges both, unless
    ``reproduced_truth`` is given (replicability, other topics: then only ER and DeltaRI,
    which compare means, are computed). ``p`` and ``depth``: RBO's; ``cutoff``: KTU's list
    length (repro_eval's 1000). ``kwargs`` go to :func:`receval.evaluate`.

    KTU and RBO read each topic's list in trec_eval's order (score descending, then id
    descending) whatever ``ties=`` says; the metrics follow the policies given: pass
    ``ties="trec_eval"`` (or ``compat="ir_measures"``, as repro_eval evaluates through
    ir_measures) for the same order there.

    Topics: KTU and RBO read the reproduced run's topics (a topic the original run lacks is
    left out and counted); RMSE the topics where both runs have a value; ER and DeltaRI the
    topics where the baseline and the advanced run of one experiment both have a value.
    """
    from ..engines.evaluator import Evaluator

    orig = _names(original, "run", "original")
    rep = _names(reproduced, "run", "reproduced")
    roles = [r for r in ("baseline", "advanced") if r in orig]
    for name, runs in (("original", orig), ("reproduced", rep)):
        bad = [k for k in runs if k not in ("baseline", "advanced")]
        if bad or "baseline" not in runs:
            raise InputError(f"{name}= must be {{'baseline': run}} or {{'baseline': run, "
                             f"'advanced': run}}, got keys {list(runs)}.")
    if set(orig) != set(rep):
        raise InputError(f"original= has {sorted(orig)} and reproduced= has {sorted(rep)}; give "
                         "both the same runs.")
    metric_list = _metric_list(metrics)
    ev_kwargs, run_kwargs = _split_kwargs(kwargs)
    ev_o = Evaluator(truth, metric_list, **ev_kwargs)
    ev_r = ev_o if reproduced_truth is None else Evaluator(reproduced_truth, metric_list,
                                                           **ev_kwargs)
    results = {}
    for role in roles:
        results[("original", role)] = ev_o.evaluate(orig[role], name=f"original {role}",
                                                    **run_kwargs)
        results[("reproduced", role)] = ev_r.evaluate(rep[role], name=f"reproduced {role}",
                                                      **run_kwargs)
    notes: list[str] = []
    order_rows: list[dict[str, Any]] = []
    summary_rows: list[dict[str, Any]] = []
    eff_rows: list[dict[str, Any]] = []
    if reproduced_truth is None:
        for role in roles:
            lo, lr = _lists(orig[role]), _lists(rep[role])
            dropped = 0
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", UndefinedValueWarning)
                for t, docs in lr.items():
                    if t not in lo:
                        dropped += 1
                        continue
                    order_rows.append({"run": role, "topic": t,
                                       "ktu": ktu(lo[t][:cutoff], docs[:cutoff]),
                                       "rbo": rbo_lists(lo[t], docs, p=p, depth=depth)})
            sel = [r for r in order_rows if r["run"] == role]
            k = np.array([r["ktu"] for r in sel], dtype=np.float64)
            rb = np.array([r["rbo"] for r in sel], dtype=np.float64)
            undefined = int(np.isnan(k).sum())
            if undefined:
                notes.append(f"{role}: KTU undefined on {undefined} topics ("
                             + "; ".join(sorted({str(w.message) for w in caught}))[:300] + ")")
            summary_rows.append({
                "run": role,
                "ktu": float(np.nanmean(k)) if (~np.isnan(k)).any() else
                _undefined(f"the mean KTU of the {role} runs", "no topic has a defined KTU"),
                "rbo": float(rb.mean()) if rb.size else
                _undefined(f"the mean RBO of the {role} runs", "the runs share no topic"),
                "topics": len(sel), "topics_dropped": dropped, "ktu_undefined": undefined})
            for m in metric_list:
                o, r, dr = _aligned(results[("original", role)], results[("reproduced", role)], m)
                if o.size == 0:
                    rmse = nrmse = _undefined(f"the RMSE of {m} ({role})",
                                              "the runs share no topic with a value")
                else:
                    rmse = math.sqrt(float(np.mean((o - r) ** 2)))
                    worst = math.sqrt(float(np.mean(np.maximum(o, 1 - o) ** 2)))
                    nrmse = rmse / worst if worst > 0 else _undefined(
                        f"the nRMSE of {m} ({role})", "its largest possible RMSE is 0")
                eff_rows.append({"run": role, "metric": m, "rmse": rmse, "nrmse": nrmse,
                                 "topics": int(o.size), "topics_dropped": dr})
    else:
        notes.append("replicability (reproduced_truth= given): KTU, RBO and RMSE compare "
                     "topic by topic and are not computed.")
    effect_rows = []
    if "advanced" in roles:
        for m in metric_list:
            oa, ob, _ = _aligned(results[("original", "advanced")],
                                 results[("original", "baseline")], m)
            ra, rb_, _ = _aligned(results[("reproduced", "advanced")],
                                  results[("reproduced", "baseline")], m)
            if oa.size == 0 or ra.size == 0:
                er = dri = _undefined(f"ER and DeltaRI of {m}",
                                      "a baseline and its advanced run share no topic")
            else:
                mi_o, mi_r = float(np.mean(oa - ob)), float(np.mean(ra - rb_))
                er = mi_r / mi_o if mi_o != 0 else _undefined(
                    f"the effect ratio of {m}", "the original mean improvement is 0")
                mo, mr = float(np.mean(ob)), float(np.mean(rb_))
                if mo == 0 or mr == 0:
                    dri = _undefined(f"DeltaRI of {m}", "a baseline's mean is 0")
                else:
                    dri = (float(np.mean(oa)) - mo) / mo - (float(np.mean(ra)) - mr) / mr
            effect_rows.append({"metric": m, "er": er, "delta_ri": dri})
    return Reproduction(
        pd.DataFrame(order_rows, columns=["run", "topic", "ktu", "rbo"]),
        pd.DataFrame(summary_rows, columns=["run", "ktu", "rbo", "topics", "topics_dropped",
                                            "ktu_undefined"]),
        pd.DataFrame(eff_rows, columns=["run", "metric", "rmse", "nrmse", "topics",
                                        "topics_dropped"]),
        pd.DataFrame(effect_rows, columns=["metric", "er", "delta_ri"]), results, notes)
