"""Logged slates and target policies made from a receval run.

:func:`read_log` takes one row per (slate, position) with reward and logging propensity;
:func:`policy_from_run` turns a run (user, item, score | rank) into a policy that answers, for
the logged slates only (never a dense catalogue-wide array), the probability that it shows

- ``marginal``: the logged item at the logged position, ``pi(a(l) at l | x)``;
- ``prefix``: the logged top-``l`` prefix, ``pi(a(1..l) | x)`` (``joint`` = prefix at the last
  position of the slate).

Kinds (candidates = the user's items in the run, ``m_u`` of them, ordered by score):
``deterministic`` top-k; ``epsilon_greedy``: the top-k list with probability ``1 - epsilon``,
else ``k`` candidates in uniformly random order (marginal ``(1-eps)[rank = l] + eps/m_u``, prefix
``(1-eps)[prefix = top] + eps prod_{j<l} 1/(m_u - j)``); ``plackett_luce`` with weights
``exp(score / temperature)``: the prefix probability is exact,
``prod_j w(a_j) / (W - sum_{i<j} w(a_i))``; the marginal is exact at positions 1 and 2 and
estimated at deeper positions from ``n_samples`` (default 500; standard error
``sqrt(p (1 - p) / n_samples)``, cost ``n_samples x users x candidates``) seeded Gumbel-top-k draws (Plackett 1975;
Luce 1959; Gumbel-max sampling: Yellott 1977; Kool, van Hoof & Welling, ICML 2019).
A table policy (:func:`policy_from_table`) gives explicit single-slot probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, PolicyError, plain, suggest
from ..validation import POSITIVE_INT, SEED, InstanceOf, Interval, Options, Real, validate_params
from ._frames import (
    SUM_TOL,
    in_unit_interval,
    integers,
    need,
    numeric,
    to_pandas,
    unique_rows,
)

KINDS = ("deterministic", "plackett_luce", "epsilon_greedy")
PROPENSITY_KINDS = ("marginal", "prefix", "joint")


@dataclass
class Log:
    """Logged slates sorted by slate then position; ``offsets`` delimit slates (CSR)."""

    unit_ids: np.ndarray           # distinct units (raw ids)
    slate_unit: np.ndarray         # unit code of each slate
    offsets: np.ndarray            # rows of slate s: offsets[s]:offsets[s+1]
    user: np.ndarray               # raw context / user id per row (policy lookups)
    item: np.ndarray               # raw item id per row
    position: np.ndarray           # 1-based position per row
    reward: np.ndarray
    propensity: dict[str, np.ndarray] = field(default_factory=dict)
    columns: dict[str, np.ndarray] = field(default_factory=dict)
    rows_dropped: int = 0

    @property
    def n_slates(self) -> int:
        return int(self.offsets.size - 1)

    @property
    def n_rows(self) -> int:
        return int(self.reward.size)

    @property
    def slate_of_row(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_slates), np.diff(self.offsets))

    @property
    def slate_len(self) -> np.ndarray:
        return np.diff(self.offsets)


_COL = [InstanceOf(str)]
_OPT_COL = [None, InstanceOf(str)]


@validate_params({"unit": _COL, "slate": _OPT_COL, "position": _OPT_COL, "item": _COL,
                  "reward": _COL, "propensity": [None, InstanceOf(str), InstanceOf(dict)],
                  "propensity_kind": [Options(PROPENSITY_KINDS)], "context": _OPT_COL})
def read_log(data: Any, *, unit: str = "user_id", slate: str | None = "slate_id",
             position: str | None = "position", item: str = "item_id", reward: str = "reward",
             propensity: str | dict[str, str] | None = "propensity",
             propensity_kind: str = "marginal", context: str | None = None,
             extra: tuple[str, ...] = ()) -> Log:
    """Check and pack a log. ``slate=None``: one row per slate (single action, position 1).

    ``propensity``: a column of the ``propensity_kind`` (``marginal`` / ``prefix`` / ``joint``)
    or a dict ``{kind: column}``; ``None`` when a logging policy is given to the estimators.
    ``context``: id the target policy is looked up by (default: ``unit``). ``extra``: further
    numeric columns kept (e.g. ``q_hat``, ``q_hat_target`` for the doubly robust estimators).
    Propensities must lie in (0, 1]; positions are whole numbers >= 1 (``2.7`` raises, never
    truncated); a duplicate (slate, position) raises. Rows with a missing unit or item are
    dropped and counted (``Log.rows_dropped``).
    """
    df = to_pandas(data, "log")
    context = context or unit
    cols = [unit, item, reward, context] + [c for c in (slate, position) if c] + list(extra)
    pmap: dict[str, str] = {}
    if isinstance(propensity, str):
        if propensity_kind not in PROPENSITY_KINDS:
            raise PolicyError(f"propensity_kind={plain(propensity_kind)} is not valid; choose one of "
                              f"{list(PROPENSITY_KINDS)}." + suggest(propensity_kind, PROPENSITY_KINDS))
        pmap = {propensity_kind: propensity}
    elif isinstance(propensity, dict):
        pmap = dict(propensity)
    cols += list(pmap.values())
    need(df, list(dict.fromkeys(cols)), "log")
    keep = df[unit].notna() & df[item].notna()
    dropped = int((~keep).sum())
    df = df[keep]
    if not len(df):
        raise InputError(f"log has no row with both a unit ({plain(unit)}) and an item "
                         f"({plain(item)}); {dropped} row(s) lack one.")
    slate_key = df[slate] if slate else pd.Series(np.arange(len(df)), index=df.index)
    pos = (integers(df, position, "log", low=1, hint="Positions are 1-based: add 1 if they "
                    "start at 0.") if position else np.ones(len(df), dtype=np.int64))
    scodes, _ = pd.factorize(slate_key, sort=False)
    order = np.lexsort((pos, scodes))
    scodes, pos = scodes[order], pos[order]
    if scodes.size and ((np.diff(scodes) == 0) & (np.diff(pos) == 0)).any():
        i = int(np.flatnonzero((np.diff(scodes) == 0) & (np.diff(pos) == 0))[0])
        raise InputError(f"log has two rows for slate {plain(slate_key.iloc[order[i]])} at position "
                         f"{pos[i]}; each (slate, position) must appear once.")
    df = df.iloc[order]
    counts = np.bincount(scodes, minlength=int(scodes.max()) + 1 if scodes.size else 0)
    # slates were factorized in order of appearance; after the sort they are contiguous
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    first = offsets[:-1]
    ucodes, uids = pd.factorize(df[unit], sort=False)
    su = ucodes[first]
    if (ucodes != np.repeat(su, counts)).any():
        raise InputError(f"a slate spans two values of {plain(unit)}; a slate belongs to one unit.")
    props: dict[str, np.ndarray] = {}
    for kind, col in pmap.items():
        if kind not in PROPENSITY_KINDS:
            raise PolicyError(f"propensity kind {plain(kind)} is not valid; choose one of "
                              f"{list(PROPENSITY_KINDS)}.")
        props[kind] = in_unit_interval(
            numeric(df, col, "log"), col, "log (logging propensity)",
            hint="A zero propensity means the logged action could not have been shown: fix "
                 "the logger.")
    return Log(unit_ids=np.asarray(uids), slate_unit=su, offsets=offsets,
               user=df[context].to_numpy(), item=df[item].to_numpy(), position=pos,
               reward=numeric(df, reward, "log"), propensity=props,
               columns={c: numeric(df, c, "log") for c in extra}, rows_dropped=dropped)


# --- policies ---------------------------------------------------------------------------------
@dataclass
class Policy:
    """A target (or logging) policy over each user's candidate items."""

    kind: str
    users: pd.Index                  # distinct users of the run
    offsets: np.ndarray              # candidates of user u: offsets[u]:offsets[u+1], best first
    items: np.ndarray                # raw item ids, ranked within each user
    scores: np.ndarray               # scores (descending within each user)
    k: int | None = None
    temperature: float = 1.0
    epsilon: float = 0.0
    n_samples: int = 500
    seed: int = 0
    table: bool = False

    def _lookup(self, user: np.ndarray, item: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(user code or -1, 0-based rank of the item in the user's list or -1) per row."""
        uc = self.users.get_indexer(pd.Index(user))
        keys = pd.MultiIndex.from_arrays([np.repeat(np.arange(self.users.size),
                                                    np.diff(self.offsets)), self.items])
        pos = keys.get_indexer(pd.MultiIndex.from_arrays([uc, item]))
        rank = np.where(pos >= 0, pos - self.offsets[np.maximum(uc, 0)], -1)
        return uc, rank

    def _m(self, uc: np.ndarray) -> np.ndarray:
        m = np.diff(self.offsets)[np.maximum(uc, 0)].astype(np.float64)
        if self.k is not None and self.kind == "deterministic":
            m = np.minimum(m, self.k)
        return np.where(uc >= 0, m, 0.0)

    def _weights(self) -> np.ndarray:
        s = self.scores / self.temperature
        umax = np.maximum.reduceat(s, self.offsets[:-1]) if s.size else s
        return np.exp(s - np.repeat(umax, np.diff(self.offsets)))

    def marginal(self, log: Log) -> np.ndarray:
        """``pi(a(l) at position l | x)`` for every logged row."""
        uc, rank = self._lookup(log.user, log.item)
        pos0 = log.position - 1
        if self.table:
            if (log.position > 1).any():
                raise PolicyError("a table policy gives single-slot probabilities; the log has "
                                  "positions above 1.")
            ok = rank >= 0
            out = np.zeros(rank.size)
            out[ok] = self.scores[self.offsets[uc[ok]] + rank[ok]]
            return out
        k = np.inf if self.k is None else self.k
        det = ((rank == pos0) & (pos0 < k)).astype(np.float64)
        if self.kind == "deterministic":
            return det
        m = self._m(uc)
        if self.kind == "epsilon_greedy":
            inlist = (rank >= 0) & (pos0 < k)
            return np.where(inlist, (1 - self.epsilon) * det + self.epsilon / np.maximum(m, 1), 0.0)
        return self._pl_marginal(uc, rank, pos0)

    def _pl_marginal(self, uc: np.ndarray, rank: np.ndarray, pos0: np.ndarray) -> np.ndarray:
        w = self._weights()
        W = np.add.reduceat(w, self.offsets[:-1]) if w.size else w
        out = np.zeros(rank.size)
        ok = rank >= 0
        p_item = np.zeros(rank.size)
        p_item[ok] = w[self.offsets[uc[ok]] + rank[ok]] / W[uc[ok]]
        first = ok & (pos0 == 0)
        out[first] = p_item[first]
        second = ok & (pos0 == 1)
        if second.any():  # sum_j p_j p_i / (1 - p_j) over j != i
            pn = w / np.repeat(W, np.diff(self.offsets))
            term = pn / np.maximum(1 - pn, 1e-300)
            tot = np.add.reduceat(term, self.offsets[:-1])
            r = np.flatnonzero(second)
            pi = p_item[r]
            out[r] = pi * (tot[uc[r]] - pi / np.maximum(1 - pi, 1e-300))
        deep = np.flatnonzero(ok & (pos0 >= 2))
        if deep.size:
            out[deep] = self._pl_monte_carlo(uc[deep], rank[deep], pos0[deep], w)
        return out

    def _pl_monte_carlo(self, uc: np.ndarray, rank: np.ndarray, pos0: np.ndarray,
                        w: np.ndarray) -> np.ndarray:
        rng = np.random.default_rng(self.seed)
        users, inv = np.unique(uc, return_inverse=True)
        lens = np.diff(self.offsets)[users]
        mmax = int(lens.max())
        L = int(pos0.max()) + 1
        logw = np.full((users.size, mmax), -np.inf)
        col = np.arange(mmax)
        mask = col[None, :] < lens[:, None]
        idx = self.offsets[users][:, None] + np.minimum(col[None, :], lens[:, None] - 1)
        logw[mask] = np.log(w[idx[mask]])
        hits = np.zeros(uc.size)
        chunk = max(1, 4_000_000 // max(1, users.size * mmax))
        done = 0
        while done < self.n_samples:
            b = min(chunk, self.n_samples - done)
            g = logw[None] + rng.gumbel(size=(b, users.size, mmax))
            if L < mmax:  # the L largest keys, then their order
                part = np.argpartition(-g, L - 1, axis=2)[:, :, :L]
                order = np.argsort(-np.take_along_axis(g, part, axis=2), axis=2)
                top = np.take_along_axis(part, order, axis=2)
            else:
                top = np.argsort(-g, axis=2)[:, :, :L]
            hits += (top[:, inv, pos0] == rank[None, :]).sum(axis=0)
            done += b
        return hits / self.n_samples

    def prefix(self, log: Log) -> np.ndarray:
        """``pi(a(1..l) | x)`` for every logged row (rows sorted by slate, position)."""
        uc, rank = self._lookup(log.user, log.item)
        pos0 = log.position - 1
        starts = log.offsets[:-1]
        slate = log.slate_of_row
        contiguous = pos0 == (np.arange(pos0.size) - starts[slate])
        if not contiguous.all():
            raise InputError("prefix probabilities need complete slates (positions 1, 2, ... "
                             "without gaps); a slate has a gap.")
        if self.table:
            return self.marginal(log)
        k = np.inf if self.k is None else self.k
        match = ((rank == pos0) & (pos0 < k)).astype(np.float64)
        det = _segment_cumprod(match, log.offsets)
        if self.kind == "deterministic":
            return det
        m = self._m(uc)
        if self.kind == "epsilon_greedy":
            ok = ((rank >= 0) & (pos0 < k)).astype(np.float64)
            step = ok / np.maximum(m - pos0, 1)
            return (1 - self.epsilon) * det + self.epsilon * _segment_cumprod(step, log.offsets)
        w = self._weights()
        W = np.add.reduceat(w, self.offsets[:-1]) if w.size else w
        ok = rank >= 0
        wi = np.zeros(rank.size)
        wi[ok] = w[self.offsets[uc[ok]] + rank[ok]]
        used = _segment_cumsum(wi, log.offsets) - wi
        denom = np.where(ok, W[np.maximum(uc, 0)] - used, 1.0)
        step = np.where(ok, wi / np.maximum(denom, 1e-300), 0.0)
        return _segment_cumprod(step, log.offsets)

    def distribution(self, users: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Position-1 action distribution for each given user: (row index, item, probability)."""
        uc = self.users.get_indexer(pd.Index(users))
        if (uc < 0).any():
            u = users[int(np.flatnonzero(uc < 0)[0])]
            raise InputError(f"the policy has no candidates for user {plain(u)}.")
        lens = np.diff(self.offsets)[uc]
        row = np.repeat(np.arange(uc.size), lens)
        idx = np.concatenate([np.arange(self.offsets[u], self.offsets[u + 1]) for u in uc]) \
            if uc.size else np.zeros(0, dtype=np.int64)
        if self.table:
            p = self.scores[idx]
            tot = np.bincount(row, weights=p, minlength=uc.size)
            short = np.abs(tot - 1) > SUM_TOL
            if short.any():
                i = int(np.flatnonzero(short)[0])
                raise InputError(f"the policy table's probabilities of user {plain(users[i])} sum "
                                 f"to {tot[i]:.6g}, not 1 (tolerance {SUM_TOL:g}; {int(short.sum())} "
                                 "such user(s)): the direct method needs every item the policy "
                                 "may choose; list them all.")
        elif self.kind == "deterministic":
            p = (idx == self.offsets[uc][row]).astype(np.float64)
        elif self.kind == "epsilon_greedy":
            p = self.epsilon / lens[row] + (1 - self.epsilon) * (idx == self.offsets[uc][row])
        else:
            w = self._weights()
            W = np.add.reduceat(w, self.offsets[:-1])
            p = w[idx] / W[uc][row]
        return row, self.items[idx], p


def _segment_cumsum(x: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    c = np.cumsum(x)
    base = np.concatenate([[0.0], c])[offsets[:-1]]
    return c - np.repeat(base, np.diff(offsets))


def _segment_cumprod(x: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Cumulative product within segments (zeros handled exactly)."""
    zero = x == 0
    logs = np.log(np.where(zero, 1.0, x))
    out = np.exp(_segment_cumsum(logs, offsets))
    zc = _segment_cumsum(zero.astype(np.float64), offsets)
    return np.where(zc > 0, 0.0, out)


@validate_params({
    "k": [None, *POSITIVE_INT],
    "temperature": [Interval(Real, 0, None, closed="neither")],
    "epsilon": [Interval(Real, 0, 1)],
    "n_samples": POSITIVE_INT,
    "seed": SEED,
    "kind": [Options(KINDS)],
    "user_col": _COL, "item_col": _COL, "score_col": _OPT_COL, "rank_col": _OPT_COL,
})
def policy_from_run(run: Any, *, kind: str = "deterministic", k: int | None = None,
                    temperature: float = 1.0, epsilon: float = 0.0, user_col: str = "user",
                    item_col: str = "item", score_col: str | None = "score",
                    rank_col: str | None = None, n_samples: int = 500, seed: int = 0) -> Policy:
    """A policy from a receval run (user, item, score | rank); see the module docstring.

    ``k``: list length of the deterministic / epsilon-greedy policies (default: the whole run
    list). ``rank_col``: order by rank (1 = best) instead of score; Plackett-Luce then uses
    ``-rank`` as the score. Ties in score are broken by item id ascending (receval's default).
    """
    if kind not in KINDS:
        raise PolicyError(f"kind={plain(kind)} is not valid; choose one of {list(KINDS)}."
                          + suggest(kind, KINDS))
    if not temperature > 0:
        raise PolicyError(f"temperature={plain(temperature)} must be positive.")
    if not 0 <= epsilon <= 1:
        raise PolicyError(f"epsilon={plain(epsilon)} must lie in [0, 1].")
    df = to_pandas(run, "run")
    sc = rank_col if rank_col else score_col
    if sc is None:
        raise PolicyError("give score_col= or rank_col=.")
    need(df, [user_col, item_col, sc], "run")
    s = numeric(df, sc, "run")
    if rank_col:
        s = -s
    _ids(df, user_col, item_col, "run")
    uc, users = pd.factorize(df[user_col], sort=False)
    icodes, _ = pd.factorize(df[item_col], sort=True)
    order = np.lexsort((icodes, -s, uc))
    counts = np.bincount(uc, minlength=users.size)
    return Policy(kind=kind, users=pd.Index(users), offsets=np.concatenate([[0], np.cumsum(counts)]),
                  items=df[item_col].to_numpy()[order], scores=s[order], k=k,
                  temperature=temperature, epsilon=epsilon, n_samples=n_samples, seed=seed)


def _ids(df: pd.DataFrame, user_col: str, item_col: str, what: str) -> None:
    """Ids present, of one kind per column, each (user, item) once."""
    for c in (user_col, item_col):
        if df[c].isna().any():
            raise InputError(f"{what} column {plain(c)} has {int(df[c].isna().sum())} missing "
                             "id(s); drop those rows first.")
    unique_rows(df, [user_col, item_col], what)


@validate_params({"user_col": _COL, "item_col": _COL, "prob_col": _COL})
def policy_from_table(table: Any, *, user_col: str = "user", item_col: str = "item",
                      prob_col: str = "prob") -> Policy:
    """A single-slot policy from explicit probabilities ``pi(item | user)`` in [0, 1], each
    (user, item) once; a user's probabilities sum to at most 1 (within ``1e-6``; a table that
    lists only the logged items may sum to less). The direct-method estimators, which need the
    whole distribution, refuse a user whose probabilities do not sum to 1."""
    df = to_pandas(table, "policy table")
    need(df, [user_col, item_col, prob_col], "policy table")
    _ids(df, user_col, item_col, "policy table")
    p = in_unit_interval(numeric(df, prob_col, "policy table"), prob_col, "policy table",
                         zero=True)
    uc, users = pd.factorize(df[user_col], sort=False)
    tot = np.bincount(uc, weights=p)
    if (tot > 1 + SUM_TOL).any():
        u = users[int(np.argmax(tot))]
        raise InputError(f"policy table column {plain(prob_col)}: the probabilities of user "
                         f"{plain(u)} sum to {tot.max():.6g} > 1 (tolerance {SUM_TOL:g}); "
                         "normalise them first.")
    order = np.argsort(uc, kind="stable")
    counts = np.bincount(uc, minlength=users.size)
    return Policy(kind="table", users=pd.Index(users),
                  offsets=np.concatenate([[0], np.cumsum(counts)]),
                  items=df[item_col].to_numpy()[order], scores=p[order], table=True)
