"""Off-policy estimates of a target policy's value from a log of shown slates.

Notation: row ``i`` of slate ``s`` at position ``l`` with reward ``r``, position weight
``alpha_l`` (default 1); weights ``w`` = target / logging probability of the ``marginal`` item
at its position, of the ``prefix`` a(1..l), or of the ``joint`` slate. Every estimator is a sum
of ratios of unit-level sums, ``V = sum_k (sum_u N_ku) / (sum_u D_ku)``:

| name | value |
|---|---|
| ``ips`` | ``(1/n_s) sum alpha w_marg r`` (Horvitz & Thompson 1952) |
| ``snips`` | per position ``sum w r / sum w`` (Swaminathan & Joachims, NeurIPS 2015) |
| ``cips(cap=c)`` | ``(1/n_s) sum alpha min(w, c) r`` (Ionides 2008; Bottou et al., JMLR 2013) |
| ``ncips(cap=c)`` | per position ``sum min(w,c) r / sum min(w,c)`` (Gilotte et al., WSDM 2018) |
| ``dm`` | ``(1/n_s) sum q_target`` (``q_target = sum_a pi_e(a|x) q(x,a)``) |
| ``dr`` | ``(1/n_s) sum [q_target + alpha w (r - q)]`` (Dudik, Langford & Li, ICML 2011) |
| ``sndr`` | DM + per position ``sum w (r - q) / sum w`` |
| ``switch_dr(tau=t)`` | DR with ``w 1{w <= t}`` in the correction (Wang, Agarwal & Dudik, ICML 2017) |
| ``replay`` | per position ``sum 1{pi_e(a)>0} r / sum 1{pi_e(a)>0}``, deterministic target only (Li, Chu, Langford & Wang, WSDM 2011) |
| ``sips`` / ``snsips`` | joint slate weight on the slate reward (McInerney et al., KDD 2020) |
| ``iips`` / ``sniips`` | marginal item-position weight (Li et al., KDD 2018) |
| ``rips`` / ``snrips`` | prefix weight (McInerney et al., KDD 2020) |
| ``cascade_dr`` | ``sum_l [w_1:l (alpha r - Q_l) + w_1:l-1 Qtarget_l]`` (Kiyohara et al., WSDM 2022) |
| ``pi`` | slate reward x ``(sum_l w_marg,l - (L - 1))``, product logging (Swaminathan et al., NeurIPS 2017) |
| ``pbm_ips`` | ``(1/n_s) sum r sum_k theta_k pi_e(a at k) / sum_k theta_k pi_b(a at k)``, position-based click model with examination ``theta`` (Li et al., KDD 2018); needs ``examination`` and a ``logging_policy`` |

Single-action estimators on slates of several positions treat every (slate, position) row with
its marginal weight, and sum the slate's rows. Standard errors are clustered by ``cluster``
(``"unit"``, default: linearised ratio estimator, ``phi_u = sum_k (N_ku - V_k D_ku) / sum D_k``,
``SE^2 = U/(U-1) sum phi_u^2``); the bootstrap resamples units and recomputes every
normaliser in each resample (percentile interval).

Numerical stability: weights are ratios ``pi_e / pi_b``; when one would exceed ``1e250`` (a
valid propensity of ``1e-308``, or a subnormal one) they are formed from logarithms as
``exp(log w - s)`` with ``s`` the largest log weight, and ``e^s`` multiplies only the final value
and standard error (it cancels in the self-normalised estimators). Undefined statistics are NaN
with a ``note`` (and a warning): the standard error with fewer than two clusters, every
weighting estimator when the target gives probability 0 to every logged action (no overlap).
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import InputError, ParameterError, PolicyError, RecevalWarning, plain, suggest
from ..stats.corrections import adjust, check_correction
from ..validation import (
    POSITIVE_INT,
    PROBABILITY_OPEN,
    InstanceOf,
    Interval,
    Options,
    Real,
    check_param,
    validate_params,
)
from ._frames import same_id_kind
from ._params import CORRECTION, RNG
from ._results import OnlineResult
from .overlap import overlap_result, weight_stats
from .propensity import Log, Policy

ESTIMATORS = ("ips", "snips", "cips", "ncips", "dm", "dr", "sndr", "switch_dr", "replay",
              "sips", "snsips", "iips", "sniips", "rips", "snrips", "cascade_dr", "pi", "pbm_ips")
_NEEDS = {"sips": "joint", "snsips": "joint", "rips": "prefix", "snrips": "prefix",
          "cascade_dr": "prefix"}
_PARAM = {"cips": ("cap", 10.0), "ncips": ("cap", 10.0), "switch_dr": ("tau", 10.0)}


#: a weight above this is formed from logarithms (its sums and squares would overflow)
_BIG = 1e250


def _bad_estimator(spec: Any, why: str) -> ParameterError:
    return ParameterError(f"estimators: estimator={plain(spec)} is not valid; {why}",
                          function="estimate", param="estimators", value=spec,
                          expected="an estimator name such as 'ips' or 'cips(cap=10)'")


def parse_estimator(spec: str) -> tuple[str, float | None]:
    """``"cips(cap=5)"`` -> ``("cips", 5.0)``; a name without its parameter takes the default."""
    if not isinstance(spec, str):
        raise _bad_estimator(spec, f"give a name from {list(ESTIMATORS)}.")
    m = re.fullmatch(r"\s*([a-z_]+)\s*(?:\(\s*(?:(\w+)\s*=\s*)?([^()]*?)\s*\))?\s*", spec)
    if not m or m.group(1) not in ESTIMATORS:
        name = m.group(1) if m else spec
        raise _bad_estimator(spec, f"unknown estimator {plain(name)}; choose from {list(ESTIMATORS)}."
                             + suggest(str(name), ESTIMATORS))
    name = m.group(1)
    if name in _PARAM:
        pname, default = _PARAM[name]
        if m.group(2) and m.group(2) != pname:
            raise _bad_estimator(spec, f"{name} takes {pname}=..., not {m.group(2)}=...")
        text = m.group(3)
        try:
            val = float(text) if text else default
        except ValueError:
            val = math.nan
        if not val >= 0 or (math.isinf(val) and text != "inf"):
            raise _bad_estimator(spec, f"{pname} must be a number >= 0 (or inf), e.g. "
                                 f"'{name}({pname}=10)'; got {plain(text)}.")
        return name, val
    if m.group(3) is not None:
        raise _bad_estimator(spec, f"estimator {name} takes no parameter.")
    return name, None


class _Weights:
    """Target and logging probabilities of the logged rows, computed once per kind."""

    def __init__(self, log: Log, target: Policy, logging: Policy | None):
        self.log, self.target, self.logging = log, target, logging
        self._cache: dict[tuple[str, str], np.ndarray] = {}

    def prob(self, who: str, kind: str) -> np.ndarray:
        key = (who, kind)
        if key not in self._cache:
            if who == "b" and kind in self.log.propensity:
                self._cache[key] = self.log.propensity[kind]
            elif who == "b" and self.log.propensity and (self.log.slate_len == 1).all():
                # single-slot slates: marginal, prefix and joint propensities coincide
                self._cache[key] = next(iter(self.log.propensity.values()))
            elif who == "b" and kind == "joint" and "prefix" in self.log.propensity:
                self._cache[key] = _joint(self.log.propensity["prefix"], self.log.offsets)
            elif who == "b" and self.logging is None:
                raise InputError(f"the log has no {plain(kind)} logging propensity (it has "
                                 f"{sorted(self.log.propensity)}); add that column or pass "
                                 "logging_policy=.")
            else:
                pol = self.target if who == "e" else self.logging
                assert pol is not None
                if kind == "marginal":
                    v = pol.marginal(self.log)
                else:
                    v = pol.prefix(self.log)
                    if kind == "joint":
                        v = _joint(v, self.log.offsets)
                if who == "b":
                    bad = ~(v > 0)
                    if bad.any():
                        raise InputError(f"the logging policy gives probability 0 to "
                                         f"{int(bad.sum())} logged row(s): it cannot have "
                                         "logged them; check the logging policy.")
                self._cache[key] = v
        return self._cache[key]

    def w(self, kind: str, cap: float | None = None) -> tuple[np.ndarray, float]:
        """Weights ``min(pi_e / pi_b, cap)`` as ``(w e^-s, s)``: ``s = 0`` unless a weight
        exceeds ``_BIG``, then ``s`` is the largest log weight (formed from logarithms)."""
        pe, pb = self.prob("e", kind), self.prob("b", kind)
        with np.errstate(over="ignore"):
            w = pe / pb
        if cap is not None:
            w = np.minimum(w, cap)
        if not w.size or float(w.max()) <= _BIG:
            return w, 0.0
        with np.errstate(divide="ignore"):
            lw = np.log(pe) - np.log(pb)
        if cap is not None:
            lw = np.minimum(lw, math.log(cap) if cap > 0 else -math.inf)
        top = float(lw.max())
        return np.exp(lw - top), top

    def examined(self, who: str, theta: np.ndarray) -> np.ndarray:
        """``sum_k theta_k pi(a at k | x)`` for the logged item of every row."""
        pol = self.target if who == "e" else self.logging
        if pol is None:
            raise InputError("pbm_ips needs logging_policy= (the logging probabilities of the "
                             "logged items at every position, not only the logged one).")
        log, K = self.log, theta.size
        rep = Log(unit_ids=log.unit_ids, slate_unit=np.arange(log.n_rows * K) // K,
                  offsets=np.arange(log.n_rows * K + 1), user=np.repeat(log.user, K),
                  item=np.repeat(log.item, K), position=np.tile(np.arange(1, K + 1), log.n_rows),
                  reward=np.zeros(log.n_rows * K))
        return (pol.marginal(rep).reshape(log.n_rows, K) * theta[None, :]).sum(axis=1)


def _joint(prefix: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    last = offsets[1:] - 1
    return np.repeat(prefix[last], np.diff(offsets))


#: per-row (numerator, denominator, log scale) of one ratio of sums; the term is
#: ``e^s sum N / sum D``
Component = tuple[np.ndarray, np.ndarray, float]


def _components(name: str, param: float | None, W: _Weights, alpha: np.ndarray,
                q: np.ndarray | None, qt: np.ndarray | None,
                examination: np.ndarray | None = None) -> list[Component]:
    """Per-row (numerator, denominator, log scale) triples; a denominator of 1 per slate is
    coded by placing 1 on each slate's first row. A self-normalised term carries the weights'
    scale in both sums, so its own scale is 0."""
    log = W.log
    r = log.reward
    first = np.zeros(log.n_rows)
    first[log.offsets[:-1]] = 1.0
    pos = log.position

    def per_position(num: np.ndarray, den: np.ndarray) -> list[Component]:
        out = []
        for p in np.unique(pos):
            sel = (pos == p).astype(np.float64)
            out.append((num * sel, den * sel, 0.0))
        return out

    def need_q() -> tuple[np.ndarray, np.ndarray]:
        if q is None or qt is None:
            raise InputError(f"estimator {plain(name)} needs a reward model: pass q_hat= (a table of "
                             "(user, item, q) or the name of a log column with q for the logged "
                             "row) and, for slates, q_hat_target= (a log column).")
        return q, qt

    if name in ("ips", "iips"):
        w, sc = W.w("marginal")
        return [(alpha * w * r, first, sc)]
    if name in ("snips", "sniips"):
        w, _ = W.w("marginal")
        return per_position(alpha * w * r, w)
    if name == "cips":
        w, sc = W.w("marginal", param)
        return [(alpha * w * r, first, sc)]
    if name == "ncips":
        w, _ = W.w("marginal", param)
        return per_position(alpha * w * r, w)
    if name == "replay":
        pe = W.prob("e", "marginal")
        if not np.isin(pe, (0.0, 1.0)).all():
            raise PolicyError("replay needs a deterministic target policy (probabilities 0 or 1);"
                              " use snips for a stochastic one.")
        return per_position(alpha * pe * r, pe)
    if name == "sips":
        w, sc = W.w("joint")
        return [(alpha * w * r, first, sc)]
    if name == "snsips":
        w, _ = W.w("joint")
        return [(alpha * w * r, w * first, 0.0)]
    if name == "rips":
        w, sc = W.w("prefix")
        return [(alpha * w * r, first, sc)]
    if name == "snrips":
        w, _ = W.w("prefix")
        return per_position(alpha * w * r, w)
    if name == "pi":
        w, sc = W.w("marginal")
        L = np.repeat(log.slate_len, log.slate_len)
        wpi = np.repeat(np.add.reduceat(w, log.offsets[:-1]), log.slate_len) - (L - 1) * math.exp(-sc)
        return [(alpha * wpi * r, first, sc)]
    if name == "pbm_ips":
        if examination is None:
            raise InputError("pbm_ips needs examination= (the examination probability of each "
                             "position, theta_1..theta_K, e.g. from result randomisation).")
        den = W.examined("b", examination)
        if not (den > 0).all():
            raise InputError("the logging policy never shows a logged item at an examined "
                             "position; check the logging policy and examination.")
        return [(W.examined("e", examination) / den * r, first, 0.0)]
    q_, qt_ = need_q()
    if name == "dm":
        return [(qt_, first, 0.0)]
    if name in ("dr", "switch_dr"):
        w, sc = W.w("marginal")
        if name == "switch_dr":
            keep = w <= param if sc == 0 else (np.log(w) + sc <= math.log(param) if param > 0
                                               else np.zeros(w.size, dtype=bool))
            w = np.where(keep, w, 0.0)
        if sc == 0:
            return [(qt_ + alpha * w * (r - q_), first, 0.0)]
        return [(qt_, first, 0.0), (alpha * w * (r - q_), first, sc)]
    if name == "sndr":
        w, _ = W.w("marginal")
        return [(qt_, first, 0.0)] + per_position(alpha * w * (r - q_), w)
    if name == "cascade_dr":
        wp, sc = W.w("prefix")
        prev = np.concatenate([[1.0], wp[:-1]])
        prev[log.offsets[:-1]] = math.exp(-sc)
        return [(wp * (alpha * r - q_) + prev * qt_, first, sc)]
    raise PolicyError(f"unknown estimator {plain(name)}.")  # pragma: no cover


def _unit_sums(comps: list[Component], row_cluster: np.ndarray, n_clusters: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    N = np.stack([np.bincount(row_cluster, weights=n, minlength=n_clusters) for n, _, _ in comps])
    D = np.stack([np.bincount(row_cluster, weights=d, minlength=n_clusters) for _, d, _ in comps])
    return N, D, np.array([sc for _, _, sc in comps])


def _value(N: np.ndarray, D: np.ndarray, scale: np.ndarray) -> tuple[float, np.ndarray, float]:
    """Value, per-cluster influence (times ``e^-top``) and ``top`` of
    ``sum_k e^{s_k} sum N_k / sum D_k``."""
    sN, sD = N.sum(axis=1), D.sum(axis=1)
    ok = sD > 0
    vk = np.where(ok, sN / np.where(ok, sD, 1.0), 0.0)
    top = float(scale.max())
    f = np.exp(scale - top)
    phi = (f[:, None] * (N - vk[:, None] * D) / np.where(ok, sD, 1.0)[:, None])[ok].sum(axis=0)
    with np.errstate(over="ignore"):
        v = float((vk * np.exp(scale)).sum()) if top > 0 else float(vk.sum())
    return v, phi, top


def _se(phi: np.ndarray, top: float) -> float:
    """Clustered standard error ``e^top sqrt(U/(U-1) sum phi^2)``; NaN below two clusters."""
    nc = phi.size
    if nc < 2:
        return math.nan
    m = float(np.abs(phi).max())
    if m < 1e150:
        se = math.sqrt(nc / (nc - 1) * float((phi ** 2).sum()))
    else:
        se = m * math.sqrt(nc / (nc - 1) * float(((phi / m) ** 2).sum()))
    with np.errstate(over="ignore"):
        return float(se * np.exp(top)) if top > 0 else se


def _boot_values(N: np.ndarray, D: np.ndarray, scale: np.ndarray, counts: np.ndarray
                 ) -> np.ndarray:
    bN = counts @ N.T  # (B, K)
    bD = counts @ D.T
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        v = np.where(bD > 0, bN / np.where(bD > 0, bD, 1.0), 0.0)
        return (v * np.exp(scale)[None, :]).sum(axis=1)


def _boot_counts(n: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    return rng.multinomial(n, np.full(n, 1.0 / n), size=n_resamples).astype(np.float64)


def _prepare(log: Log, target: Policy, logging_policy: Policy | None, q_hat: Any,
             q_hat_target: Any, position_weights: Any, cluster: str
             ) -> tuple[_Weights, np.ndarray, np.ndarray | None, np.ndarray | None, np.ndarray, int]:
    if cluster not in ("unit", "slate"):
        raise PolicyError(f"cluster={plain(cluster)} is not valid; choose 'unit' (default) or 'slate'.")
    W = _checked_weights(log, target, logging_policy)
    if position_weights is None:
        alpha = np.ones(log.n_rows)
    else:
        try:
            pw = np.asarray(position_weights, dtype=np.float64).ravel()
        except (TypeError, ValueError):
            raise InputError(f"position_weights={plain(position_weights)} must be numbers, one "
                             "per position.") from None
        if not np.isfinite(pw).all():
            raise InputError("position_weights must be finite numbers; found NaN/inf.")
        if (log.position > pw.size).any():
            raise InputError(f"position_weights has {pw.size} entries but the log has position "
                             f"{int(log.position.max())}; give one weight per position.")
        alpha = pw[log.position - 1]
    q = qt = None
    if isinstance(q_hat, str):
        if q_hat not in log.columns:
            raise InputError(f"q_hat={plain(q_hat)} is not a column kept by read_log; pass "
                             f"extra=({plain(q_hat)},) to read_log.")
        q = log.columns[q_hat]
    elif q_hat is not None:
        q, qt_tab = _q_from_table(log, target, q_hat)
        qt = qt_tab
    if isinstance(q_hat_target, str):
        if q_hat_target not in log.columns:
            raise InputError(f"q_hat_target={plain(q_hat_target)} is not a column kept by read_log; "
                             f"pass extra=({plain(q_hat_target)},) to read_log.")
        qt = log.columns[q_hat_target]
    slate = log.slate_of_row
    if cluster == "unit":
        return W, alpha, q, qt, log.slate_unit[slate], int(log.unit_ids.size)
    return W, alpha, q, qt, slate, log.n_slates


def _checked_weights(log: Log, target: Policy, logging_policy: Policy | None) -> _Weights:
    """Weights of a log against policies whose user ids are of the log's kind."""
    for pol, name in ((target, "the target policy"), (logging_policy, "the logging policy")):
        if pol is None:
            continue
        if not all(hasattr(pol, a) for a in ("marginal", "prefix")):
            raise InputError(f"{name} must be a Policy (policy_from_run / policy_from_table); "
                             f"got {type(pol).__name__}.")
        if hasattr(pol, "users"):
            same_id_kind(log.user, pol.users, "the log", name, "user (context)")
    if not isinstance(log, Log):
        raise InputError(f"log must be a Log (read_log); got {type(log).__name__}.")
    return _Weights(log, target, logging_policy)


def _matched_rows(log: Log, target: Policy) -> int:
    """Logged rows whose user (context) the target policy knows (all, for a policy that
    answers per row without a user index)."""
    if not hasattr(target, "users"):
        return log.n_rows
    return int((target.users.get_indexer(pd.Index(log.user)) >= 0).sum())


def _q_from_table(log: Log, target: Policy, table: Any) -> tuple[np.ndarray, np.ndarray]:
    """q(x, a) for the logged rows and sum_a pi_e(a|x) q(x, a) (single slot) from a table
    with columns user, item, q."""
    from ._frames import need, numeric, to_pandas

    if (log.position > 1).any():
        raise InputError("a q_hat table serves single-slot logs; for slates give q_hat and "
                         "q_hat_target as log columns.")
    df = to_pandas(table, "q_hat")
    need(df, ["user", "item", "q"], "q_hat")
    same_id_kind(log.user, df["user"], "the log", "q_hat", "user")
    same_id_kind(log.item, df["item"], "the log", "q_hat", "item")
    key = pd.MultiIndex.from_arrays([df["user"], df["item"]])
    qv = numeric(df, "q", "q_hat")
    pos = key.get_indexer(pd.MultiIndex.from_arrays([log.user, log.item]))
    if (pos < 0).any():
        i = int(np.flatnonzero(pos < 0)[0])
        raise InputError(f"q_hat has no value for logged (user, item) = ({plain(log.user[i])}, "
                         f"{plain(log.item[i])}); give q for every logged pair.")
    q = qv[pos]
    row, items, p = target.distribution(log.user)
    tpos = key.get_indexer(pd.MultiIndex.from_arrays([log.user[row], items]))
    if (tpos[p > 0] < 0).any():
        j = int(np.flatnonzero((tpos < 0) & (p > 0))[0])
        raise InputError(f"q_hat has no value for (user, item) = ({plain(log.user[row[j]])}, "
                         f"{plain(items[j])}) that the target policy may choose.")
    qt = np.bincount(row, weights=np.where(tpos >= 0, qv[np.maximum(tpos, 0)], 0.0) * p,
                     minlength=log.n_rows)
    return q, qt


_KINDS = [Options(("marginal", "prefix", "joint"))]
_SHARED = {"ci": [Options(("analytic", "bootstrap"))], "cluster": [Options(("unit", "slate"))],
           "n_resamples": POSITIVE_INT, "confidence": PROBABILITY_OPEN, "rng": RNG}


def _log_counts(log: Log, target: Policy) -> dict[str, int]:
    """Rows, slates, units, dropped rows and rows whose user the target policy does not know."""
    return {"rows": log.n_rows, "slates": log.n_slates, "units": int(log.unit_ids.size),
            "rows_dropped": log.rows_dropped,
            "rows_user_not_in_policy": log.n_rows - _matched_rows(log, target)}


def _check_matched(counts: dict[str, int], warn: list[str]) -> None:
    """No logged user known to the target: refuse; some unknown: warn with the count."""
    miss = counts["rows_user_not_in_policy"]
    if counts["rows"] and miss == counts["rows"]:
        raise InputError(f"no logged user (context) is in the target policy: all {miss} log "
                         "rows would get weight 0 and every estimate would read 0. Check that "
                         "the log's unit/context column and the run's user column hold the same "
                         "ids.")
    if miss:
        msg = (f"{miss} of {counts['rows']} log rows have a user the target policy does not "
               "know; they get target probability 0 (counted in rows_user_not_in_policy).")
        warn.append(msg)
        warnings.warn(msg, RecevalWarning, stacklevel=3)


@validate_params({"cap": [Interval(Real, 0, None, closed="neither")]})
def overlap(log: Log, target: Policy, *, logging_policy: Policy | None = None,
            kinds: Sequence[str] = ("marginal",), cap: float = 10.0) -> OnlineResult:
    """Overlap report (see :mod:`receval.online.overlap`) for the weights of each kind."""
    W = _checked_weights(log, target, logging_policy)
    for k in kinds:
        check_param("overlap", "kinds", k, _KINDS)
    uc = log.slate_unit[log.slate_of_row]
    st = {}
    for k in kinds:
        w, shift = W.w(k)
        st[k] = weight_stats(w, W.prob("b", k), uc, int(log.unit_ids.size), cap, shift)
    return overlap_result(st, _log_counts(log, target), cap)


def _interval(v: float, se: float, z: float, boot: np.ndarray | None, confidence: float
              ) -> tuple[float, float]:
    if boot is None:
        return v - z * se, v + z * se
    lo, hi = np.quantile(boot, [0.5 - confidence / 2, 0.5 + confidence / 2])
    return float(lo), float(hi)


@validate_params({**_SHARED, "cap": [Interval(Real, 0, None, closed="neither")]})
def estimate(log: Log, target: Policy, *, estimators: Sequence[str] = ("ips", "snips"),
             logging_policy: Policy | None = None, q_hat: Any = None, q_hat_target: Any = None,
             position_weights: Any = None, examination: Any = None, ci: str = "analytic",
             cluster: str = "unit", n_resamples: int = 2000, confidence: float = 0.95,
             rng: int | None = 0, cap: float = 10.0) -> OnlineResult:
    """Estimate the target policy's value with each estimator (see the module docstring).

    ``ci``: ``"analytic"`` (clustered linearisation, normal interval) or ``"bootstrap"``
    (percentile, resampling clusters, normalisers re-estimated). ``cluster``: ``"unit"``
    (default) or ``"slate"`` (treats slates as independent: too narrow when a unit has many).
    The overlap report runs first: a log where every propensity is 1 raises; its warnings are
    in ``diagnostics``. ``relative`` = value / mean logged slate reward. ``examination``:
    ``theta_1..theta_K`` of the position-based model, for ``pbm_ips``. Ids of another kind than
    the log's (``1`` against ``"1"``), or no logged user known to the target, raise; rows of
    users the target does not know are counted (``rows_user_not_in_policy``) and warned about.
    """
    if isinstance(estimators, str):
        estimators = [estimators]
    specs = [parse_estimator(e) for e in estimators]
    if not specs:
        raise _bad_estimator([], "give at least one estimator, e.g. ['ips', 'snips'].")
    W, alpha, q, qt, clus, nc = _prepare(log, target, logging_policy, q_hat, q_hat_target,
                                         position_weights, cluster)
    counts = _log_counts(log, target)
    warn: list[str] = []
    _check_matched(counts, warn)
    kinds = sorted({_NEEDS.get(n, "marginal") for n, _ in specs})
    ov = overlap(log, target, logging_policy=logging_policy, kinds=kinds, cap=cap)
    if any(r["share_deterministic_logging"] == 1.0 for r in ov.rows):
        raise PolicyError("every logged propensity is 1: the log comes from a deterministic "
                          "policy and carries no information about other actions. Off-policy "
                          "estimation needs randomised logging (epsilon-greedy, Plackett-Luce "
                          "sampling, a uniform bucket).")
    warn = ov.diagnostics["warnings"] + warn
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    counts_b = None
    if ci == "bootstrap":
        counts_b = _boot_counts(nc, n_resamples, _rng(rng))
    onp = float(np.bincount(log.slate_of_row, weights=alpha * log.reward).mean())
    rows, units = [], {"unit": log.unit_ids}
    theta = _examination(examination)
    for name, param in specs:
        N, D, sc = _unit_sums(_components(name, param, W, alpha, q, qt, theta), clus, nc)
        v, phi, top = _value(N, D, sc)
        se = _se(phi, top)
        note = _note(name, W, nc, cluster)
        if note.startswith("no overlap"):
            v = se = math.nan
        boot = None if counts_b is None else _boot_values(N, D, sc, counts_b)
        lo, hi = _interval(v, se, z, boot, confidence) if not note.startswith("no overlap") \
            else (math.nan, math.nan)
        label = name if param is None else f"{name}({_PARAM[name][0]}={param:g})"
        rows.append({"estimator": label, "value": v, "se": se, "ci_low": lo, "ci_high": hi,
                     "relative": v / onp if onp != 0 else math.nan,
                     "n_units": int(log.unit_ids.size), "n_slates": log.n_slates, "note": note})
        if note:
            warn.append(f"{label}: {note}")
            warnings.warn(f"{label}: {note}", RecevalWarning, stacklevel=2)
        if cluster == "unit":
            with np.errstate(over="ignore"):
                units[label] = phi * np.exp(top) if top > 0 else phi
    return OnlineResult(
        kind="ope", rows=rows, summary={r["estimator"]: r["value"] for r in rows},
        counts=counts,
        diagnostics={"overlap": ov.rows, "warnings": warn, "logged_value": onp},
        provenance={"ci": ci, "cluster": cluster, "n_resamples": n_resamples,
                    "confidence": confidence, "seed": rng if not isinstance(rng, np.random.Generator)
                    else None, "cap": cap,
                    "position_weights": None if position_weights is None
                    else list(map(float, position_weights))},
        units=units if cluster == "unit" else {}, title="Off-policy estimates")


def _examination(examination: Any) -> np.ndarray | None:
    """``theta_1..theta_K``: examination probabilities in [0, 1], one per position."""
    if examination is None:
        return None
    try:
        theta = np.asarray(examination, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise InputError(f"examination={plain(examination)} must be probabilities, one per "
                         "position.") from None
    if not theta.size or not ((theta >= 0) & (theta <= 1)).all():
        raise InputError(f"examination={plain(examination)} must be probabilities in [0, 1], "
                         "one per position.")
    return theta


def _rng(rng: Any) -> np.random.Generator:
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def _note(name: str, W: _Weights, nc: int, cluster: str) -> str:
    """Why an estimate (or its standard error) is undefined; "" when it is defined."""
    if name not in ("dm", "pbm_ips") and not (W.prob("e", _NEEDS.get(name, "marginal")) > 0).any():
        return ("no overlap: the target gives probability 0 to every logged action, so no "
                "logged reward informs its value (NaN).")
    if nc < 2:
        return (f"the log has {nc} {cluster}(s): a standard error needs at least two, so se "
                "and the interval are NaN.")
    return ""


@validate_params({**_SHARED, "baseline": [InstanceOf(str)], "estimator": [InstanceOf(str)],
                  "correction": CORRECTION})
def compare_policies(log: Log, policies: Mapping[str, Policy], *, baseline: str,
                     estimator: str = "snips", logging_policy: Policy | None = None,
                     q_hat: Any = None, q_hat_target: Any = None, position_weights: Any = None,
                     examination: Any = None, ci: str = "analytic", cluster: str = "unit",
                     n_resamples: int = 2000,
                     confidence: float = 0.95, correction: str = "holm",
                     rng: int | None = 0) -> OnlineResult:
    """Paired comparison of target policies on the same log: ``Delta = V(a) - V(baseline)``
    with the clustered SE of the difference of influence values (or a unit bootstrap with the
    same resamples for both), z test p-value (NaN with fewer than two clusters or no
    overlap), ``correction`` over the pairs."""
    if not isinstance(policies, Mapping) or not policies:
        raise InputError("policies must be a non-empty dict {name: Policy}.")
    if baseline not in policies:
        raise InputError(f"baseline={plain(baseline)} is not one of {list(policies)}."
                         + suggest(baseline, policies))
    correction = check_correction(correction)
    name, param = parse_estimator(estimator)
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    vals: dict[str, tuple[float, np.ndarray, float, np.ndarray, np.ndarray, np.ndarray, str]] = {}
    nc = 0
    warn: list[str] = []
    for pname, pol in policies.items():
        W, alpha, q, qt, clus, nc = _prepare(log, pol, logging_policy,
                                             q_hat, q_hat_target, position_weights, cluster)
        _check_matched(_log_counts(log, pol), warn)
        theta = _examination(examination)
        N, D, sc = _unit_sums(_components(name, param, W, alpha, q, qt, theta), clus, nc)
        v, phi, top = _value(N, D, sc)
        vals[pname] = (v, phi, top, N, D, sc, _note(name, W, nc, cluster))
    counts_b = _boot_counts(nc, n_resamples, _rng(rng)) if ci == "bootstrap" else None
    rows = []
    vb, pb, tb, Nb, Db, sb, nb = vals[baseline]
    for pname, (v, phi, top, N, D, sc, note) in vals.items():
        if pname == baseline:
            continue
        d = v - vb
        common = max(top, tb)
        se = _se(phi * np.exp(top - common) - pb * np.exp(tb - common), common)
        note = note or nb
        if note.startswith("no overlap"):
            d = se = math.nan
        boot = None if counts_b is None else \
            _boot_values(N, D, sc, counts_b) - _boot_values(Nb, Db, sb, counts_b)
        lo, hi = _interval(d, se, z, boot, confidence) if not note.startswith("no overlap") \
            else (math.nan, math.nan)
        p = float(2 * stats.norm.sf(abs(d / se))) if se > 0 else math.nan
        rows.append({"pair": f"{pname} - {baseline}", "value_a": v, "value_baseline": vb,
                     "diff": d, "se": se, "ci_low": lo, "ci_high": hi, "p_value": p,
                     "note": note})
        if note:
            warn.append(f"{pname} - {baseline}: {note}")
    for r, qv in zip(rows, adjust([r["p_value"] for r in rows], correction), strict=True):
        r["p_adjusted"] = float(qv)
    return OnlineResult(kind="ope_compare", rows=rows,
                        summary={r["pair"]: r["diff"] for r in rows},
                        counts={"rows": log.n_rows, "slates": log.n_slates,
                                "units": int(log.unit_ids.size),
                                "rows_dropped": log.rows_dropped},
                        diagnostics={"warnings": warn},
                        provenance={"estimator": estimator, "baseline": baseline, "ci": ci,
                                    "cluster": cluster, "correction": correction,
                                    "seed": rng if not isinstance(rng, np.random.Generator)
                                    else None},
                        title="Paired comparison of target policies")
