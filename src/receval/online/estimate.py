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
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import InputError, PolicyError, plain, suggest
from ..stats.corrections import adjust, check_correction
from ..validation import Interval, Real, validate_params
from ._results import OnlineResult
from .overlap import overlap_result, weight_stats
from .propensity import Log, Policy

ESTIMATORS = ("ips", "snips", "cips", "ncips", "dm", "dr", "sndr", "switch_dr", "replay",
              "sips", "snsips", "iips", "sniips", "rips", "snrips", "cascade_dr", "pi", "pbm_ips")
_NEEDS = {"sips": "joint", "snsips": "joint", "rips": "prefix", "snrips": "prefix",
          "cascade_dr": "prefix"}
_PARAM = {"cips": ("cap", 10.0), "ncips": ("cap", 10.0), "switch_dr": ("tau", 10.0)}


def parse_estimator(spec: str) -> tuple[str, float | None]:
    m = re.fullmatch(r"\s*([a-z_]+)\s*(?:\(\s*(?:(\w+)\s*=\s*)?([0-9.eE+-]+|inf)\s*\))?\s*", spec)
    if not m or m.group(1) not in ESTIMATORS:
        name = m.group(1) if m else spec
        raise PolicyError(f"unknown estimator {plain(spec)}; choose from {list(ESTIMATORS)}."
                          + suggest(str(name), ESTIMATORS))
    name = m.group(1)
    if name in _PARAM:
        pname, default = _PARAM[name]
        if m.group(2) and m.group(2) != pname:
            raise PolicyError(f"estimator {name} takes {pname}=..., not {m.group(2)}=...")
        val = float(m.group(3)) if m.group(3) else default
        if not val >= 0:
            raise PolicyError(f"{name}({pname}={val}) must be >= 0.")
        return name, val
    if m.group(3):
        raise PolicyError(f"estimator {name} takes no parameter; got {plain(spec)}.")
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

    def w(self, kind: str) -> np.ndarray:
        return self.prob("e", kind) / self.prob("b", kind)

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


def _components(name: str, param: float | None, W: _Weights, alpha: np.ndarray,
                q: np.ndarray | None, qt: np.ndarray | None,
                examination: np.ndarray | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per-row (numerator, denominator) pairs; a denominator of 1 per slate is coded by
    placing 1 on each slate's first row."""
    log = W.log
    r = log.reward
    first = np.zeros(log.n_rows)
    first[log.offsets[:-1]] = 1.0
    pos = log.position

    def per_position(num: np.ndarray, den: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        out = []
        for p in np.unique(pos):
            sel = (pos == p).astype(np.float64)
            out.append((num * sel, den * sel))
        return out

    def need_q() -> tuple[np.ndarray, np.ndarray]:
        if q is None or qt is None:
            raise InputError(f"estimator {plain(name)} needs a reward model: pass q_hat= (a table of "
                             "(user, item, q) or the name of a log column with q for the logged "
                             "row) and, for slates, q_hat_target= (a log column).")
        return q, qt

    if name in ("ips", "iips"):
        return [(alpha * W.w("marginal") * r, first)]
    if name in ("snips", "sniips"):
        w = W.w("marginal")
        return per_position(alpha * w * r, w)
    if name == "cips":
        return [(alpha * np.minimum(W.w("marginal"), param) * r, first)]
    if name == "ncips":
        w = np.minimum(W.w("marginal"), param)
        return per_position(alpha * w * r, w)
    if name == "replay":
        pe = W.prob("e", "marginal")
        if not np.isin(pe, (0.0, 1.0)).all():
            raise PolicyError("replay needs a deterministic target policy (probabilities 0 or 1);"
                              " use snips for a stochastic one.")
        return per_position(alpha * pe * r, pe)
    if name == "sips":
        return [(alpha * W.w("joint") * r, first)]
    if name == "snsips":
        w = W.w("joint")
        return [(alpha * w * r, w * first)]
    if name == "rips":
        return [(alpha * W.w("prefix") * r, first)]
    if name == "snrips":
        w = W.w("prefix")
        return per_position(alpha * w * r, w)
    if name == "pi":
        w = W.w("marginal")
        L = np.repeat(log.slate_len, log.slate_len)
        wpi = np.repeat(np.add.reduceat(w, log.offsets[:-1]), log.slate_len) - (L - 1)
        return [(alpha * wpi * r, first)]
    if name == "pbm_ips":
        if examination is None:
            raise InputError("pbm_ips needs examination= (the examination probability of each "
                             "position, theta_1..theta_K, e.g. from result randomisation).")
        den = W.examined("b", examination)
        if not (den > 0).all():
            raise InputError("the logging policy never shows a logged item at an examined "
                             "position; check the logging policy and examination.")
        return [(W.examined("e", examination) / den * r, first)]
    q_, qt_ = need_q()
    if name == "dm":
        return [(qt_, first)]
    if name in ("dr", "switch_dr"):
        w = W.w("marginal")
        if name == "switch_dr":
            w = np.where(w <= param, w, 0.0)
        return [(qt_ + alpha * w * (r - q_), first)]
    if name == "sndr":
        w = W.w("marginal")
        return [(qt_, first)] + per_position(alpha * w * (r - q_), w)
    if name == "cascade_dr":
        wp = W.w("prefix")
        prev = np.concatenate([[1.0], wp[:-1]])
        prev[log.offsets[:-1]] = 1.0
        return [(wp * (alpha * r - q_) + prev * qt_, first)]
    raise PolicyError(f"unknown estimator {plain(name)}.")  # pragma: no cover


def _unit_sums(comps: list[tuple[np.ndarray, np.ndarray]], row_cluster: np.ndarray,
               n_clusters: int) -> tuple[np.ndarray, np.ndarray]:
    N = np.stack([np.bincount(row_cluster, weights=n, minlength=n_clusters) for n, _ in comps])
    D = np.stack([np.bincount(row_cluster, weights=d, minlength=n_clusters) for _, d in comps])
    return N, D


def _value(N: np.ndarray, D: np.ndarray) -> tuple[float, np.ndarray]:
    """Value and per-cluster influence of ``sum_k sum N_k / sum D_k``."""
    sN, sD = N.sum(axis=1), D.sum(axis=1)
    ok = sD > 0
    vk = np.where(ok, sN / np.where(ok, sD, 1.0), 0.0)
    phi = ((N - vk[:, None] * D) / np.where(ok, sD, 1.0)[:, None])[ok].sum(axis=0)
    return float(vk.sum()), phi


def _boot_values(N: np.ndarray, D: np.ndarray, counts: np.ndarray) -> np.ndarray:
    bN = counts @ N.T  # (B, K)
    bD = counts @ D.T
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(bD > 0, bN / np.where(bD > 0, bD, 1.0), 0.0)
    return v.sum(axis=1)


def _boot_counts(n: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    return rng.multinomial(n, np.full(n, 1.0 / n), size=n_resamples).astype(np.float64)


def _prepare(log: Log, target: Policy, logging_policy: Policy | None, q_hat: Any,
             q_hat_target: Any, position_weights: Any, cluster: str
             ) -> tuple[_Weights, np.ndarray, np.ndarray | None, np.ndarray | None, np.ndarray, int]:
    if cluster not in ("unit", "slate"):
        raise PolicyError(f"cluster={plain(cluster)} is not valid; choose 'unit' (default) or 'slate'.")
    W = _Weights(log, target, logging_policy)
    if position_weights is None:
        alpha = np.ones(log.n_rows)
    else:
        pw = np.asarray(position_weights, dtype=np.float64)
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


def _q_from_table(log: Log, target: Policy, table: Any) -> tuple[np.ndarray, np.ndarray]:
    """q(x, a) for the logged rows and sum_a pi_e(a|x) q(x, a) (single slot) from a table
    with columns user, item, q."""
    from ._frames import need, numeric, to_pandas

    if (log.position > 1).any():
        raise InputError("a q_hat table serves single-slot logs; for slates give q_hat and "
                         "q_hat_target as log columns.")
    df = to_pandas(table, "q_hat")
    need(df, ["user", "item", "q"], "q_hat")
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


@validate_params({"cap": [Interval(Real, 0, None, closed="neither")]})
def overlap(log: Log, target: Policy, *, logging_policy: Policy | None = None,
            kinds: Sequence[str] = ("marginal",), cap: float = 10.0) -> OnlineResult:
    """Overlap report (see :mod:`receval.online.overlap`) for the weights of each kind."""
    W = _Weights(log, target, logging_policy)
    uc = log.slate_unit[log.slate_of_row]
    st = {k: weight_stats(W.w(k), W.prob("b", k), uc, int(log.unit_ids.size), cap)
          for k in kinds}
    return overlap_result(st, {"rows": log.n_rows, "slates": log.n_slates,
                               "units": int(log.unit_ids.size),
                               "rows_dropped": log.rows_dropped}, cap)


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
    ``theta_1..theta_K`` of the position-based model, for ``pbm_ips``.
    """
    if ci not in ("analytic", "bootstrap"):
        raise PolicyError(f"ci={plain(ci)} is not valid; choose 'analytic' or 'bootstrap'.")
    if not 0 < confidence < 1:
        raise PolicyError(f"confidence={plain(confidence)} must lie in (0, 1).")
    specs = [parse_estimator(e) for e in estimators]
    W, alpha, q, qt, clus, nc = _prepare(log, target, logging_policy, q_hat, q_hat_target,
                                         position_weights, cluster)
    kinds = sorted({_NEEDS.get(n, "marginal") for n, _ in specs})
    ov = overlap(log, target, logging_policy=logging_policy, kinds=kinds, cap=cap)
    if any(r["share_deterministic_logging"] == 1.0 for r in ov.rows):
        raise PolicyError("every logged propensity is 1: the log comes from a deterministic "
                          "policy and carries no information about other actions. Off-policy "
                          "estimation needs randomised logging (epsilon-greedy, Plackett-Luce "
                          "sampling, a uniform bucket).")
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    counts_b = None
    if ci == "bootstrap":
        counts_b = _boot_counts(nc, n_resamples, np.random.default_rng(rng))
    first = np.zeros(log.n_rows)
    first[log.offsets[:-1]] = 1.0
    onp = float(np.bincount(log.slate_of_row, weights=alpha * log.reward).mean())
    rows, units = [], {"unit": log.unit_ids}
    theta = None if examination is None else np.asarray(examination, dtype=np.float64)
    for name, param in specs:
        comps = _components(name, param, W, alpha, q, qt, theta)
        N, D = _unit_sums(comps, clus, nc)
        v, phi = _value(N, D)
        se = math.sqrt(nc / max(nc - 1, 1) * float((phi ** 2).sum()))
        if counts_b is None:
            lo, hi = v - z * se, v + z * se
        else:
            bv = _boot_values(N, D, counts_b)
            lo, hi = (float(x) for x in np.quantile(bv, [0.5 - confidence / 2, 0.5 + confidence / 2]))
        label = name if param is None else f"{name}({_PARAM[name][0]}={param:g})"
        rows.append({"estimator": label, "value": v, "se": se, "ci_low": lo, "ci_high": hi,
                     "relative": v / onp if onp != 0 else math.nan,
                     "n_units": int(log.unit_ids.size), "n_slates": log.n_slates})
        if cluster == "unit":
            units[label] = phi
    return OnlineResult(
        kind="ope", rows=rows, summary={r["estimator"]: r["value"] for r in rows},
        counts={"rows": log.n_rows, "slates": log.n_slates, "units": int(log.unit_ids.size),
                "rows_dropped": log.rows_dropped},
        diagnostics={"overlap": ov.rows, "warnings": ov.diagnostics["warnings"],
                     "logged_value": onp},
        provenance={"ci": ci, "cluster": cluster, "n_resamples": n_resamples,
                    "confidence": confidence, "seed": rng, "cap": cap,
                    "position_weights": None if position_weights is None
                    else list(map(float, position_weights))},
        units=units if cluster == "unit" else {}, title="Off-policy estimates")


def compare_policies(log: Log, policies: Mapping[str, Policy], *, baseline: str,
                     estimator: str = "snips", logging_policy: Policy | None = None,
                     q_hat: Any = None, q_hat_target: Any = None, position_weights: Any = None,
                     examination: Any = None, ci: str = "analytic", cluster: str = "unit",
                     n_resamples: int = 2000,
                     confidence: float = 0.95, correction: str = "holm",
                     rng: int | None = 0) -> OnlineResult:
    """Paired comparison of target policies on the same log: ``Delta = V(a) - V(baseline)``
    with the clustered SE of the difference of influence values (or a unit bootstrap with the
    same resamples for both), z test p-value, ``correction`` over the pairs."""
    if baseline not in policies:
        raise InputError(f"baseline={plain(baseline)} is not one of {list(policies)}."
                         + suggest(baseline, policies))
    correction = check_correction(correction)
    name, param = parse_estimator(estimator)
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    vals: dict[str, tuple[float, np.ndarray, np.ndarray, np.ndarray]] = {}
    nc = 0
    for pname, pol in policies.items():
        W, alpha, q, qt, clus, nc = _prepare(log, pol, logging_policy,
                                             q_hat, q_hat_target, position_weights, cluster)
        theta = None if examination is None else np.asarray(examination, dtype=np.float64)
        N, D = _unit_sums(_components(name, param, W, alpha, q, qt, theta), clus, nc)
        v, phi = _value(N, D)
        vals[pname] = (v, phi, N, D)
    counts_b = _boot_counts(nc, n_resamples, np.random.default_rng(rng)) if ci == "bootstrap" \
        else None
    rows = []
    vb, pb, Nb, Db = vals[baseline]
    for pname, (v, phi, N, D) in vals.items():
        if pname == baseline:
            continue
        d = v - vb
        se = math.sqrt(nc / max(nc - 1, 1) * float(((phi - pb) ** 2).sum()))
        if counts_b is None:
            lo, hi = d - z * se, d + z * se
        else:
            bd = _boot_values(N, D, counts_b) - _boot_values(Nb, Db, counts_b)
            lo, hi = (float(x) for x in np.quantile(bd, [0.5 - confidence / 2, 0.5 + confidence / 2]))
        p = float(2 * stats.norm.sf(abs(d / se))) if se > 0 else math.nan
        rows.append({"pair": f"{pname} - {baseline}", "value_a": v, "value_baseline": vb,
                     "diff": d, "se": se, "ci_low": lo, "ci_high": hi, "p_value": p})
    for r, qv in zip(rows, adjust([r["p_value"] for r in rows], correction), strict=True):
        r["p_adjusted"] = float(qv)
    return OnlineResult(kind="ope_compare", rows=rows,
                        summary={r["pair"]: r["diff"] for r in rows},
                        counts={"rows": log.n_rows, "slates": log.n_slates,
                                "units": int(log.unit_ids.size)},
                        provenance={"estimator": estimator, "baseline": baseline, "ci": ci,
                                    "cluster": cluster, "correction": correction, "seed": rng},
                        title="Paired comparison of target policies")
