"""A/B analysis from per-unit sufficient statistics: means, proportions, ratio metrics (delta
method), CUPED, sample-ratio mismatch, corrections; power and mSPRT re-exported.

The unit of analysis is the unit of randomisation. Events are first summed per unit
(:func:`per_unit`); every analysis then needs only, per arm, the mergeable
:class:`Aggregates` ``(n, sum x_j, sum x_j x_k)`` of the columns used, so partial aggregates of
blocks (or Spark partitions) add up to exactly the one-shot result.

A metric ``M = mu_y / mu_x`` (``x`` = 1 for a mean) is linearised: ``g = (1/mu_x)(e_y - M e_x)``,
``Var(M) = g' S g / n`` with ``S`` the per-arm sample covariance (delta method; Deng, Knoblich &
Lu, KDD 2018). CUPED (Deng, Xu, Kohavi & Walker, WSDM 2013) with covariate metric ``C`` (gradient
``h``): ``theta = g' S_p h / h' S_p h`` and ``C_pooled`` on the two compared arms pooled (per
pair: with three or more arms each treatment arm gets its own ``theta`` from itself and the
control, as tea-tasting does), ``M_cv = M - theta (C - C_pooled)``,
``Var(M_cv) = Var(M) + theta^2 Var(C) - 2 theta Cov(M, C)``. Effect ``Delta = M_T - M_C`` with
``Var = Var_T + Var_C``; relative effect ``M_T / M_C - 1`` with a CI on the log scale (default),
by Fieller's theorem, by the delta method, or the absolute CI divided by ``M_C`` (``"control"``).
Under Welch's test the log-scale and delta relative CIs take their Welch-Satterthwaite degrees of
freedom from the relative variances ``Var_g / M_g^2`` (tea-tasting's convention).

A statistic that is undefined is NaN with the reason in the row's ``note`` and in
``diagnostics["warnings"]``, never 0 or a false "significant": an arm with fewer than two units
(no variance estimate), zero variance in both arms (no test).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import InputError, PolicyError, RecevalWarning, plain, suggest
from ..stats.corrections import adjust, check_correction
from ..validation import PROBABILITY_OPEN, Boolean, InstanceOf, Options, validate_params
from ._frames import integers, need, numeric, one_arm_per_unit, to_pandas, unique_rows
from ._params import CORRECTION
from ._results import OnlineResult
from .power import mde, power, sample_size
from .sequential import msprt

__all__ = ["Aggregates", "Metric", "analyze", "from_aggregates", "mde", "mean", "msprt",
           "per_unit", "power", "proportion", "ratio", "sample_size", "srm"]

RELATIVE_CI = ("log", "fieller", "delta", "control")
TESTS = ("welch", "z")


# --- aggregates -------------------------------------------------------------------------------
@dataclass
class Aggregates:
    """Mergeable sufficient statistics of one arm: ``n``, ``sum x_j`` and ``sum x_j x_k``."""

    columns: tuple[str, ...]
    n: int
    sums: np.ndarray
    cross: np.ndarray

    @classmethod
    def from_frame(cls, df: pd.DataFrame, columns: Sequence[str]) -> Aggregates:
        X = np.column_stack([numeric(df, c, "units") for c in columns]) if len(df) else \
            np.zeros((0, len(columns)))
        return cls(tuple(columns), int(X.shape[0]), X.sum(axis=0), X.T @ X)

    def __add__(self, other: Aggregates) -> Aggregates:
        if self.columns != other.columns:
            raise InputError(f"cannot add aggregates of columns {list(self.columns)} and "
                             f"{list(other.columns)}.")
        return Aggregates(self.columns, self.n + other.n, self.sums + other.sums,
                          self.cross + other.cross)

    def index(self, column: str) -> int:
        if column not in self.columns:
            raise InputError(f"aggregates have no column {plain(column)}; they hold "
                             f"{list(self.columns)}." + suggest(column, self.columns))
        return self.columns.index(column)

    @property
    def means(self) -> np.ndarray:
        return self.sums / self.n

    def cov(self, ddof: int = 1) -> np.ndarray:
        """Sample covariance matrix ``(sum x x' - n mu mu') / (n - ddof)``."""
        mu = self.means
        return (self.cross - self.n * np.outer(mu, mu)) / max(self.n - ddof, 1)

    def to_row(self) -> dict[str, float]:
        row: dict[str, float] = {"n": self.n}
        p = len(self.columns)
        for i, a in enumerate(self.columns):
            row[f"sum:{a}"] = float(self.sums[i])
            for j in range(i, p):
                row[f"cross:{a}:{self.columns[j]}"] = float(self.cross[i, j])
        return row


@validate_params({"variant": [InstanceOf(str)]})
def from_aggregates(table: Any, *, variant: str = "variant") -> dict[Any, Aggregates]:
    """Per-arm :class:`Aggregates` from a summary table with one row per arm and columns
    ``n``, ``sum:<col>`` and ``cross:<a>:<b>`` (``cross:<a>:<a>`` = sum of squares), as written
    by :meth:`Aggregates.to_row` (e.g. by a SQL or Spark job)."""
    df = to_pandas(table, "aggregates")
    need(df, [variant, "n"], "aggregates")
    unique_rows(df, [variant], "aggregates")
    cols = [str(c)[4:] for c in df.columns if str(c).startswith("sum:")]
    n = integers(df, "n", "aggregates", low=0)
    values = {c: numeric(df, c, "aggregates") for c in df.columns
              if str(c).startswith(("sum:", "cross:"))}
    out: dict[Any, Aggregates] = {}
    for row, arm in enumerate(df[variant].to_numpy()):
        p = len(cols)
        cross = np.empty((p, p))
        for i, a in enumerate(cols):
            for j, b in enumerate(cols):
                key = f"cross:{a}:{b}" if f"cross:{a}:{b}" in df.columns else f"cross:{b}:{a}"
                if key not in df.columns:
                    raise InputError(f"aggregates lack column 'cross:{a}:{b}' (the sum of "
                                     f"{a} * {b} per arm), needed for variances and covariances.")
                cross[i, j] = values[key][row]
        out[arm] = Aggregates(tuple(cols), int(n[row]),
                              np.array([values[f"sum:{c}"][row] for c in cols]), cross)
    return out


# --- per-unit statistics ---------------------------------------------------------------------
@validate_params({"unit": [InstanceOf(str)], "variant": [InstanceOf(str)],
                  "pre_suffix": [InstanceOf(str)]})
def per_unit(events: Any, *, unit: str = "user_id", variant: str = "variant",
             sums: Mapping[str, str | int] | None = None, pre_period: Any = None,
             pre_suffix: str = "_pre") -> pd.DataFrame:
    """Sum events per unit: one row per unit with its arm and one column per entry of ``sums``
    (``{"clicks": "click", "impressions": 1}``: a column name is summed, ``1`` counts rows).

    ``pre_period``: events of the same units before the test (no arm needed); their sums are
    added with ``pre_suffix`` (units without pre-period data get 0 and ``has_pre = 0``, an
    indicator to use as a second covariate). A unit seen in two arms raises. ``df.attrs``
    holds ``rows_dropped`` (rows with a missing unit or arm) and ``unit`` (the unit column,
    which :func:`analyze` checks for one row and one arm per unit).
    """
    df = to_pandas(events, "events")
    sums = dict(sums if sums is not None else {"events": 1})
    if not sums:
        raise InputError("per_unit: sums={} names no column to sum; give e.g. {'events': 1}.")
    for name, src in sums.items():
        if not (isinstance(src, str) or (type(src) is int and src == 1)):
            raise InputError(f"per_unit: sums[{plain(name)}]={plain(src)} is not valid; give a "
                             "column name to sum or 1 to count rows.")
    need(df, [unit, variant] + [c for c in sums.values() if isinstance(c, str)], "events")
    keep = df[unit].notna() & df[variant].notna()
    dropped = int((~keep).sum())
    df = df[keep]
    if not len(df):
        raise InputError(f"events: no row has both a unit ({plain(unit)}) and an arm "
                         f"({plain(variant)}); {dropped} row(s) lack one.")
    one_arm_per_unit(df, unit, variant, "events")
    out = _sum_events(df, unit, sums)
    out.insert(1, variant, df.groupby(unit, sort=False)[variant].first().to_numpy())
    if pre_period is not None:
        pre = to_pandas(pre_period, "pre_period")
        need(pre, [unit] + [c for c in sums.values() if isinstance(c, str)], "pre_period")
        ps = _sum_events(pre[pre[unit].notna()], unit, sums)
        ps.columns = [unit] + [f"{c}{pre_suffix}" for c in sums]
        ps["has_pre"] = 1.0
        out = out.merge(ps, on=unit, how="left")
        fill = [f"{c}{pre_suffix}" for c in sums] + ["has_pre"]
        out[fill] = out[fill].fillna(0.0)
    out.attrs["rows_dropped"] = dropped
    out.attrs["unit"] = unit
    return out


def _sum_events(df: pd.DataFrame, unit: str, sums: Mapping[str, str | int]) -> pd.DataFrame:
    codes, uniq = pd.factorize(df[unit], sort=False)
    cols: dict[str, Any] = {unit: uniq}
    for name, src in sums.items():
        w = np.ones(len(df)) if not isinstance(src, str) else numeric(df, src, "events")
        cols[name] = np.bincount(codes, weights=w, minlength=len(uniq))
    return pd.DataFrame(cols)


# --- metrics ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Metric:
    """One KPI: ``mu_numer / mu_denom`` (``denom=None``: a mean), optional CUPED covariate
    (a column, or a ``(numer, denom)`` pair for a ratio covariate)."""

    name: str
    numer: str
    denom: str | None = None
    covariate: str | tuple[str, str] | None = None
    kind: str = "mean"
    pvalue: str = "unpooled"
    test: str = "welch"
    correction: bool = False

    def columns(self) -> list[str]:
        cols = [self.numer] + ([self.denom] if self.denom else [])
        if isinstance(self.covariate, str):
            cols.append(self.covariate)
        elif self.covariate is not None:
            cols.extend(self.covariate)
        return cols


_NAMES = {"column": [InstanceOf(str)], "name": [None, InstanceOf(str)],
          "covariate": [None, InstanceOf(str)]}


@validate_params({**_NAMES, "test": [Options(TESTS)]})
def mean(column: str, *, covariate: str | None = None, name: str | None = None,
         test: str = "welch") -> Metric:
    """Per-unit mean (``revenue per user``), Welch t test by default (``test="z"``: normal)."""
    return Metric(name or column, column, None, covariate, "mean", "unpooled", _test(test))


@validate_params({**_NAMES, "pvalue": [Options(("pooled", "unpooled"))],
                  "correction": [Boolean()]})
def proportion(column: str, *, covariate: str | None = None, name: str | None = None,
               pvalue: str = "pooled", correction: bool = False) -> Metric:
    """Share of units with a 0/1 outcome (every arm checked): z test; variance ``p(1-p)``; CI
    unpooled; p-value ``"pooled"`` (the classic two-proportion z / chi-square test, default) or
    ``"unpooled"``.

    ``correction=True``: continuity correction ``cc = (1/n_T + 1/n_C) / 2``, the statistic uses
    ``max(|Delta| - cc, 0)`` and the absolute CI (and the log-scale relative CI, by
    ``cc / M_C``) widen by it; the pooled p-value is then Yates' chi-square of the 2x2 table
    (tea-tasting's default for its normal approximation, used from 1000 units).
    """
    return Metric(name or column, column, None, covariate, "proportion", pvalue, "z", correction)


@validate_params({"numer": [InstanceOf(str)], "denom": [InstanceOf(str)],
                  "name": [None, InstanceOf(str)], "test": [Options(TESTS)]})
def ratio(numer: str, denom: str, *, covariate: tuple[str, str] | None = None,
          name: str | None = None, test: str = "z") -> Metric:
    """Ratio of sums (``CTR = sum clicks / sum impressions``) by the delta method; never the mean
    of per-unit ratios. ``covariate=(numer_pre, denom_pre)`` applies CUPED with the ratio covariate."""
    if covariate is not None and (isinstance(covariate, str) or len(covariate) != 2
                                  or not all(isinstance(c, str) for c in covariate)):
        raise PolicyError(f"ratio covariate must be a (numer, denom) pair; got {plain(covariate)}.")
    return Metric(name or f"{numer}/{denom}", numer, denom, covariate, "ratio", "unpooled",
                  _test(test))


def _test(test: str) -> str:
    if test not in TESTS:
        raise PolicyError(f"test={plain(test)} is not valid; choose one of {list(TESTS)}.")
    return test


def _grad(agg: Aggregates, numer: str, denom: str | None) -> tuple[float, np.ndarray]:
    mu = agg.means
    g = np.zeros(len(agg.columns))
    iy = agg.index(numer)
    if denom is None:
        g[iy] = 1.0
        return float(mu[iy]), g
    ix = agg.index(denom)
    if mu[ix] == 0:
        raise InputError(f"the denominator {plain(denom)} sums to 0 in an arm; a ratio is undefined.")
    r = mu[iy] / mu[ix]
    g[iy] += 1.0 / mu[ix]
    g[ix] -= r / mu[ix]
    return float(r), g


def _cov_split(cov: str | tuple[str, str]) -> tuple[str, str | None]:
    return (cov, None) if isinstance(cov, str) else (cov[0], cov[1])


def _arm_stats(m: Metric, agg: Aggregates, theta: float, cpool: float) -> dict[str, float]:
    ddof = 0 if m.kind == "proportion" else 1
    S = agg.cov(ddof)
    val, g = _grad(agg, m.numer, m.denom)
    var = float(g @ S @ g) / agg.n
    raw = val
    if m.covariate is not None:
        cval, h = _grad(agg, *_cov_split(m.covariate))
        vc, cmc = float(h @ S @ h) / agg.n, float(g @ S @ h) / agg.n
        val = val - theta * (cval - cpool)
        var = var + theta ** 2 * vc - 2 * theta * cmc
    return {"value": val, "raw": raw, "var": max(var, 0.0), "n": agg.n}


def _theta(m: Metric, pooled: Aggregates) -> tuple[float, float, float]:
    if m.covariate is None:
        return 0.0, 0.0, 0.0
    S = pooled.cov(1)
    _, g = _grad(pooled, m.numer, m.denom)
    cval, h = _grad(pooled, *_cov_split(m.covariate))
    vh = float(h @ S @ h)
    if vh <= 0:
        raise InputError(f"covariate {plain(m.covariate)} of metric {plain(m.name)} has zero variance; "
                         "CUPED cannot use it (drop the covariate).")
    gh = float(g @ S @ h)
    vg = float(g @ S @ g)
    rho2 = gh ** 2 / (vh * vg) if vg > 0 else 0.0
    return gh / vh, cval, rho2


def _fieller(a: float, va: float, b: float, vb: float, z: float) -> tuple[float, float]:
    """Fieller interval for ``a / b`` with independent ``a``, ``b`` (Fieller 1954)."""
    A = b * b - z * z * vb
    B = -2 * a * b
    C = a * a - z * z * va
    disc = B * B - 4 * A * C
    if A <= 0 or disc < 0:
        return -math.inf, math.inf
    r = math.sqrt(disc)
    return (-B - r) / (2 * A), (-B + r) / (2 * A)


def _counts(counts: Any) -> dict[Any, int]:
    """Unit counts per arm: non-negative whole numbers."""
    if not isinstance(counts, Mapping):
        raise InputError(f"srm counts must be a dict {{arm: units}}; got {type(counts).__name__}.")
    out: dict[Any, int] = {}
    for a, v in counts.items():
        ok = not isinstance(v, (bool, np.bool_)) and isinstance(v, (int, float, np.integer,
                                                                     np.floating))
        if not ok or not math.isfinite(float(v)) or float(v) < 0 or float(v) != int(v):
            raise InputError(f"srm counts[{plain(a)}]={plain(v)} is not valid; a unit count is a "
                             "whole number >= 0.")
        out[a] = int(v)
    return out


@validate_params({"method": [Options(("auto", "chisquare", "binomial"))],
                  "threshold": PROBABILITY_OPEN, "correction": [Boolean()]})
def srm(counts: Mapping[Any, int], expected: Mapping[Any, float] | None = None, *,
        method: str = "auto", threshold: float = 0.001, correction: bool = False) -> OnlineResult:
    """Sample-ratio-mismatch test of unit counts per arm against the design shares.

    Pearson chi-square ``sum_g (O_g - N q_g)^2 / (N q_g)``, ``df = G - 1``; ``method="auto"``
    uses the exact binomial test for two arms below 1000 units (as tea-tasting's
    ``SampleRatio``). ``correction=True``: continuity correction of the chi-square,
    ``sum_g max(|O_g - N q_g| - 1/2, 0)^2 / (N q_g)`` (for two arms tea-tasting's default normal
    approximation). An arm of ``expected`` missing from ``counts`` has 0 units (a mismatch, not
    an arm left out). ``mismatch`` when ``p < threshold`` (default 0.001: Fabijan et al.,
    "Diagnosing sample ratio mismatch in online controlled experiments", KDD 2019).
    """
    obs_map = _counts(counts)
    if expected is not None:
        if not isinstance(expected, Mapping):
            raise InputError(f"srm expected must be a dict {{arm: share}}; got "
                             f"{type(expected).__name__}.")
        for a in expected:
            obs_map.setdefault(a, 0)
    arms = list(obs_map)
    if len(arms) < 2:
        raise InputError(f"SRM needs at least two arms; got {arms}.")
    obs = np.array([obs_map[a] for a in arms], dtype=np.float64)
    if expected is None:
        q = np.full(len(arms), 1.0 / len(arms))
    else:
        missing = [a for a in arms if a not in expected]
        if missing:
            raise InputError(f"srm expected shares lack arm(s) {missing}; give a share per arm.")
        q = np.array([float(expected[a]) if isinstance(expected[a], (int, float, np.number))
                      and not isinstance(expected[a], bool) else math.nan for a in arms])
        if not ((q > 0) & np.isfinite(q)).all():
            raise PolicyError(f"srm expected shares must be positive finite numbers; got "
                              f"{ {str(k): plain(v) for k, v in expected.items()} }.")
        q = q / q.sum()
    N = obs.sum()
    if N == 0:
        raise InputError(f"srm: every arm has 0 units ({ {str(a): 0 for a in arms} }); there is "
                         "nothing to test.")
    dev = np.abs(obs - N * q)
    if correction:
        dev = np.maximum(dev - 0.5, 0.0)
    chi2 = float((dev ** 2 / (N * q)).sum())
    use_binom = method == "binomial" or (method == "auto" and len(arms) == 2 and N < 1000)
    if use_binom:
        if len(arms) != 2:
            raise PolicyError("the exact binomial SRM test needs exactly two arms.")
        p = float(stats.binomtest(int(obs[0]), int(N), float(q[0])).pvalue)
    else:
        p = float(stats.chi2.sf(chi2, len(arms) - 1))
    row = {"test": "binomial" if use_binom else "chisquare", "statistic": chi2, "p_value": p,
           "mismatch": bool(p < threshold)}
    return OnlineResult(kind="srm", rows=[row], summary={"p_value": p},
                        counts={str(a): int(o) for a, o in zip(arms, obs, strict=True)},
                        diagnostics={"expected_share": {str(a): float(x) for a, x in zip(arms, q, strict=True)}},
                        provenance={"method": method, "threshold": threshold,
                                    "correction": correction},
                        title="Sample-ratio mismatch")


def _units_frame(df: pd.DataFrame, unit: str | None, variant: str) -> pd.DataFrame:
    """One row and one arm per unit (when the unit column is known)."""
    if unit is None:
        return df
    need(df, [unit], "units")
    one_arm_per_unit(df, unit, variant, "units")
    unique_rows(df[df[unit].notna()], [unit], "units (one row per unit)")
    return df


def _check_binary(m: Metric, aggs: Mapping[Any, Aggregates], df: pd.DataFrame | None,
                  variant: str) -> None:
    """A proportion's column holds 0/1 in every arm (each value checked when the units are at
    hand; from aggregates, ``sum x = sum x^2`` and the mean in [0, 1])."""
    if df is not None:
        x = numeric(df, m.numer, "units")
        bad = (x != 0) & (x != 1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(f"proportion column {plain(m.numer)} is not 0/1 in every arm: arm "
                             f"{plain(df[variant].iloc[i])} has {plain(x[i])} ({int(bad.sum())} "
                             "such value(s)); use mean() for other values.")
        return
    for arm, agg in aggs.items():
        j = agg.index(m.numer)
        y, yy = agg.sums[j], agg.cross[j, j]
        if abs(y - yy) > 1e-9 * max(1.0, abs(y)) or not 0 <= y <= agg.n:
            raise InputError(f"proportion column {plain(m.numer)} is not 0/1 in arm {plain(arm)} "
                             f"(sum {plain(float(y))}, sum of squares {plain(float(yy))}, "
                             f"{agg.n} units); use mean() instead.")


@validate_params({"variant": [InstanceOf(str)], "alpha": PROBABILITY_OPEN,
                  "relative_ci": [Options(RELATIVE_CI)], "correction": CORRECTION,
                  "srm_threshold": PROBABILITY_OPEN, "nan": [Options(("error", "drop"))],
                  "unit": [None, InstanceOf(str)], "srm_correction": [Boolean()]})
def analyze(data: Any, *, metrics: Sequence[Metric | str], control: Any,
            variant: str = "variant", alpha: float = 0.05, relative_ci: str = "log",
            correction: str = "holm", srm_expected: Mapping[Any, float] | None = None,
            srm_threshold: float = 0.001, nan: str = "error",
            unit: str | None = None, srm_correction: bool = False) -> OnlineResult:
    """Compare every arm with ``control`` on each metric.

    ``data``: the per-unit frame of :func:`per_unit` (one row per unit) or a dict
    ``{arm: Aggregates}`` (:func:`from_aggregates`, or sums of partial aggregates).
    A metric given as a string is ``mean(string)``. ``correction`` (over all metric x arm
    rows): ``none``, ``bonferroni``, ``holm`` (default), ``bh``, ``by``. The SRM check runs
    first (``srm_correction``: its continuity correction); a mismatch is a
    :class:`RecevalWarning` and is recorded in ``diagnostics``; an arm of ``srm_expected``
    without units counts 0. ``nan``: ``"error"`` (default) or ``"drop"`` (units with a
    missing value in a used column are dropped and counted in ``counts["units_dropped"]``).
    ``unit``: the unit column (default: the one :func:`per_unit` wrote, else ``user_id`` when
    the frame has it); a unit in two arms or on two rows raises. An undefined statistic is NaN with a ``note`` (module docstring).
    """
    correction = check_correction(correction)
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    if not isinstance(metrics, Sequence):
        raise InputError(f"analyze: metrics must be a list of column names or ab.mean / "
                         f"ab.proportion / ab.ratio; got {type(metrics).__name__}.")
    ms = [mean(m) if isinstance(m, str) else m for m in metrics]
    if not ms:
        raise InputError("analyze needs at least one metric.")
    if not all(isinstance(m, Metric) for m in ms):
        bad = next(m for m in ms if not isinstance(m, Metric))
        raise InputError(f"analyze: metric {plain(bad)} is not valid; give a column name or "
                         "ab.mean / ab.proportion / ab.ratio.")
    cols = list(dict.fromkeys(c for m in ms for c in m.columns()))
    dropped = 0
    units_table: dict[str, Any] = {}
    df: pd.DataFrame | None = None
    if isinstance(data, Mapping) and data and all(isinstance(v, Aggregates) for v in data.values()):
        aggs = dict(data)
    else:
        df = to_pandas(data, "units")
        if unit is None:  # the column per_unit wrote, else its default when present
            unit = df.attrs.get("unit") or "user_id"
            unit = unit if unit in df.columns else None
        need(df, [variant] + cols, "units")
        df = _units_frame(df, unit, variant)
        bad = df[cols].isna().any(axis=1) | df[variant].isna()
        if bad.any():
            if nan == "error":
                c = next(c for c in [variant] + cols if df[c].isna().any())
                raise InputError(f"units column {plain(c)} has {int(df[c].isna().sum())} missing "
                                 "value(s); fill them (0 for a count) or pass nan='drop'.")
            dropped = int(bad.sum())
            df = df[~bad]
        aggs = {a: Aggregates.from_frame(g, cols) for a, g in df.groupby(variant, sort=True)}
        if unit is not None and unit in df.columns:
            units_table = {unit: df[unit].to_numpy(), variant: df[variant].to_numpy()}
    if control not in aggs:
        raise InputError(f"control={plain(control)} is not an arm; arms are {list(aggs)}."
                         + suggest(str(control), map(str, aggs)))
    for m in ms:
        if m.kind == "proportion":
            _check_binary(m, aggs, df, variant)
    srm_res = srm({a: g.n for a, g in aggs.items()}, srm_expected, threshold=srm_threshold,
                  correction=srm_correction)
    warn_list: list[str] = []
    if srm_res.rows[0]["mismatch"]:
        msg = (f"sample-ratio mismatch: unit counts {srm_res.counts} have p = "
               f"{srm_res.rows[0]['p_value']:.3g} < {srm_threshold} against the design; the arms "
               "are not comparable, do not trust the effects below.")
        warn_list.append(msg)
        warnings.warn(msg, RecevalWarning, stacklevel=2)
    z = float(stats.norm.ppf(1 - alpha / 2))
    rows: list[dict[str, Any]] = []
    for m in ms:
        for arm, agg in aggs.items():
            if arm == control:
                continue
            pair = aggs[control] + agg
            theta, cpool, rho2 = _theta(m, pair)
            c = _arm_stats(m, aggs[control], theta, cpool)
            t = _arm_stats(m, agg, theta, cpool)
            rows.append(_effect_row(m, arm, control, t, c, agg, aggs[control], z, alpha,
                                    relative_ci, theta, rho2))
            if min(t["n"], c["n"]) < 100 and m.kind == "ratio":
                warn_list.append(f"metric {plain(m.name)}: fewer than 100 units in an arm; the delta "
                                 "method is a large-sample approximation.")
    padj = adjust([r["p_value"] for r in rows], correction)
    for r, q in zip(rows, padj, strict=True):
        r["p_adjusted"] = float(q)
        r["significant"] = bool(q < alpha)
    undefined = [r for r in rows if r["note"]]
    for r in undefined:
        msg = f"metric {plain(r['metric'])}, arm {plain(r['arm'])}: {r['note']}"
        warn_list.append(msg)
        warnings.warn(msg, RecevalWarning, stacklevel=2)
    counts = {"units": int(sum(g.n for g in aggs.values())), "units_dropped": dropped,
              "units_per_arm": {str(a): int(g.n) for a, g in aggs.items()},
              "rows_undefined": len(undefined)}
    return OnlineResult(
        kind="ab", rows=rows,
        summary={f"{r['metric']}:{r['arm']}": r["effect"] for r in rows},
        counts=counts,
        diagnostics={"srm": srm_res.rows[0], "warnings": warn_list},
        provenance={"control": str(control), "alpha": alpha, "relative_ci": relative_ci,
                    "correction": correction, "srm_threshold": srm_threshold,
                    "srm_correction": srm_correction,
                    "metrics": [m.__dict__ | {"covariate": m.covariate} for m in ms]},
        units=units_table, title="A/B test")


def _welch_df(vt: float, nt: int, vc: float, nc: int) -> float:
    """Welch-Satterthwaite df of ``Var_T + Var_C`` (variances of the arm means)."""
    den = vt ** 2 / (nt - 1) + vc ** 2 / (nc - 1)
    return (vt + vc) ** 2 / den if den > 0 else math.inf


def _pooled_share(m: Metric, at: Aggregates, ac: Aggregates) -> float:
    return float((at.sums[at.index(m.numer)] + ac.sums[ac.index(m.numer)]) / (at.n + ac.n))


def _undefined(m: Metric, t: dict, c: dict, arm: Any, control: Any, at: Aggregates,
               ac: Aggregates) -> str:
    """Why the test of this pair is undefined ("" when it is defined)."""
    for a, s in ((arm, t), (control, c)):
        if s["n"] < 2:
            return (f"arm {plain(a)} has {s['n']} unit(s): a variance needs at least two, so "
                    "the standard error, CI and p-value are undefined (NaN).")
    if m.kind == "proportion" and m.pvalue == "pooled":
        if _pooled_share(m, at, ac) in (0.0, 1.0):
            return ("every unit of both arms has the same value: the pooled test is undefined "
                    "(NaN).")
    elif t["var"] + c["var"] <= 0:
        return ("both arms have zero variance: the test is undefined (NaN); the effect is "
                "exact only if the data really have no spread.")
    return ""


def _effect_row(m: Metric, arm: Any, control: Any, t: dict, c: dict, at: Aggregates,
                ac: Aggregates, z: float, alpha: float, relative_ci: str, theta: float,
                rho2: float) -> dict[str, Any]:
    eff = t["value"] - c["value"]
    note = _undefined(m, t, c, arm, control, at, ac)
    var = t["var"] + c["var"]
    se = math.sqrt(var) if not note else math.nan
    cc = 0.5 * (1 / t["n"] + 1 / c["n"]) if m.kind == "proportion" and m.correction else 0.0
    shrunk = math.copysign(max(abs(eff) - cc, 0.0), eff)
    if note:
        stat = math.nan
    elif m.kind == "proportion" and m.pvalue == "pooled":
        p_all = _pooled_share(m, at, ac)
        stat = shrunk / math.sqrt(p_all * (1 - p_all) * (1 / t["n"] + 1 / c["n"]))
    else:
        stat = shrunk / se if se > 0 else math.nan
    df_rel = math.inf
    if m.test == "welch" and not note:
        df = _welch_df(t["var"], t["n"], c["var"], c["n"])
        q = float(stats.t.ppf(1 - alpha / 2, df))
        p = float(2 * stats.t.sf(abs(stat), df)) if math.isfinite(stat) else math.nan
        if t["value"] != 0 and c["value"] != 0:
            df_rel = _welch_df(t["var"] / t["value"] ** 2, t["n"], c["var"] / c["value"] ** 2,
                               c["n"])
        q_rel = float(stats.t.ppf(1 - alpha / 2, df_rel))
    else:
        df = math.inf if not note else math.nan
        q = q_rel = z
        p = float(2 * stats.norm.sf(abs(stat))) if math.isfinite(stat) else math.nan
    half = q * se + cc
    ratio_ = t["value"] / c["value"] if c["value"] != 0 else math.nan
    if relative_ci == "log" and t["value"] > 0 and c["value"] > 0:
        sl = math.sqrt(t["var"] / t["value"] ** 2 + c["var"] / c["value"] ** 2)
        w = q_rel * sl + cc / c["value"] if not note else math.nan
        rlo, rhi = ratio_ * math.exp(-w) - 1, ratio_ * math.exp(w) - 1
    elif relative_ci == "fieller" and c["value"] != 0:
        lo, hi = _fieller(t["value"], t["var"], c["value"], c["var"], q)
        rlo, rhi = (lo - 1, hi - 1) if not note else (math.nan, math.nan)
    elif relative_ci == "control" and c["value"] != 0:
        rlo, rhi = (eff - half) / c["value"], (eff + half) / c["value"]
    elif c["value"] != 0:
        sl = math.sqrt(t["var"] / t["value"] ** 2 + c["var"] / c["value"] ** 2) \
            if t["value"] != 0 else math.nan
        rlo, rhi = ratio_ - 1 - q_rel * abs(ratio_) * sl, ratio_ - 1 + q_rel * abs(ratio_) * sl
    else:
        rlo = rhi = math.nan
    if note:
        rlo = rhi = math.nan
    return {"metric": m.name, "arm": str(arm), "control": str(control), "kind": m.kind,
            "n_control": c["n"], "n_treatment": t["n"], "control_value": c["value"],
            "treatment_value": t["value"], "control_raw": c["raw"], "treatment_raw": t["raw"],
            "effect": eff, "se": se, "ci_low": eff - half, "ci_high": eff + half,
            "relative": ratio_ - 1, "rel_ci_low": rlo, "rel_ci_high": rhi, "statistic": stat,
            "df": df, "df_relative": df_rel, "p_value": p, "theta": theta,
            "variance_reduction": rho2,
            "covariate": None if m.covariate is None else str(m.covariate), "note": note}
