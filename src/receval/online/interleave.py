"""Interleaving and multileaving: build merged lists from several rankings, credit clicks, and
test which ranker users prefer.

Construction (vectorised over users, seeded ``np.random.default_rng(rng)``; rankings are
``(users x L)`` integer arrays of item codes, ``-1`` pads):

- :func:`team_draft` (Radlinski, Kurup & Joachims, CIKM 2008; with more than two rankings the
  team-draft multileaving of Schuth et al., CIKM 2014): the team with the fewest picks so far
  picks next (ties broken at random) and adds its highest-ranked item not yet shown.
- :func:`balanced` (Joachims 2002/2003): a coin decides which ranking leads; the ranking whose
  pointer is behind picks next; an item already shown is skipped.
- :func:`probabilistic` (Hofmann, Whiteson & de Rijke, CIKM 2011): each slot picks a ranking at
  random and samples an item from its softmax ``P(d) ~ 1 / rank(d)^tau`` over items not yet shown.

Credit: team draft counts credit (clicks, watch time) per team; balanced compares the clicked
items in the top ``k`` of each ranking, ``k`` = the smaller rank of the lowest clicked item;
probabilistic gives the expected outcome over all ranker assignments that could have produced the
list (given the list they are independent per slot, so the outcome distribution is a
Poisson-binomial, computed exactly).

Analysis (:func:`analyze_outcomes`): per-unit outcome ``s_u in [-1, 1]`` (the sign of the unit's
summed impression outcomes by default); wins / losses / ties; preference
``Delta_AB = (wins + ties / 2) / n - 1/2`` (Chapelle, Joachims, Radlinski & Yue, ACM TOIS 30(1),
2012); two-sided sign test on wins vs losses; bootstrap CI over units.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import InputError, PolicyError, plain
from ..stats.corrections import adjust, check_correction
from ._frames import need, numeric, to_pandas
from ._results import OnlineResult


def _check(lists: Sequence[np.ndarray]) -> list[np.ndarray]:
    arrs = [np.asarray(x) for x in lists]
    if len(arrs) < 2:
        raise InputError("interleaving needs at least two rankings.")
    n = arrs[0].shape[0]
    for a in arrs:
        if a.ndim != 2 or a.shape[0] != n or not np.issubdtype(a.dtype, np.integer):
            raise InputError("each ranking must be an integer (users x L) array of item codes "
                             f"with the same number of users; got shapes {[x.shape for x in arrs]}.")
    return [a.astype(np.int64) for a in arrs]


def _next_unseen(lst: np.ndarray, ptr: np.ndarray, shown: np.ndarray, rows: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """For ``rows``, advance pointers past items already shown; return (item or -1, new ptr)."""
    L = lst.shape[1]
    p = ptr[rows].copy()
    item = np.full(rows.size, -1, dtype=np.int64)
    todo = np.ones(rows.size, dtype=bool)
    while todo.any():
        idx = np.flatnonzero(todo)
        out = p[idx] >= L
        cand = np.where(out, -1, lst[rows[idx], np.minimum(p[idx], L - 1)])
        end = out | (cand < 0)
        seen = (shown[rows[idx]] == cand[:, None]).any(axis=1) & ~end
        p[idx[seen]] += 1
        ok = ~seen & ~end
        item[idx[ok]] = cand[ok]
        todo[idx[~seen]] = False
    return item, p


def team_draft(lists: Sequence[np.ndarray], k: int, *, rng: int | None = 0
               ) -> tuple[np.ndarray, np.ndarray]:
    """Team-draft interleaving (two rankings) / multileaving (more): ``(items, teams)``,
    both ``(users x k)``; ``teams`` holds the index of the ranking credited, -1 where empty."""
    arrs = _check(lists)
    g = np.random.default_rng(rng)
    n, m = arrs[0].shape[0], len(arrs)
    items = np.full((n, k), -1, dtype=np.int64)
    teams = np.full((n, k), -1, dtype=np.int64)
    ptr = np.zeros((m, n), dtype=np.int64)
    picks = np.zeros((n, m), dtype=np.int64)
    exhausted = np.zeros((n, m), dtype=bool)
    for slot in range(k):
        prio = np.where(exhausted, np.iinfo(np.int64).max // 2, picks * (m + 1)) \
            + g.permuted(np.tile(np.arange(m), (n, 1)), axis=1)
        active = np.ones(n, dtype=bool)
        order = np.argsort(prio, axis=1)
        for t in range(m):  # try teams in priority order until one has an unseen item
            rows = np.flatnonzero(active)
            if rows.size == 0:
                break
            team = order[rows, t]
            got = np.full(rows.size, -1, dtype=np.int64)
            for j in range(m):
                sel = team == j
                if sel.any():
                    r = rows[sel]
                    it, p = _next_unseen(arrs[j], ptr[j], items, r)
                    ptr[j, r] = p
                    got[sel] = it
                    exhausted[r[it < 0], j] = True
            ok = got >= 0
            items[rows[ok], slot] = got[ok]
            teams[rows[ok], slot] = team[ok]
            picks[rows[ok], team[ok]] += 1
            for j in range(m):
                ptr[j, rows[ok & (team == j)]] += 1
            active[rows[ok]] = False
    return items, teams


def balanced(lists: Sequence[np.ndarray], k: int, *, rng: int | None = 0
             ) -> tuple[np.ndarray, np.ndarray]:
    """Balanced interleaving of two rankings: ``(items, a_first)`` (who led, per user)."""
    a, b = _check(lists)[:2] if len(lists) == 2 else (None, None)
    if a is None or b is None:
        raise InputError("balanced interleaving takes exactly two rankings.")
    g = np.random.default_rng(rng)
    n = a.shape[0]
    a_first = g.random(n) < 0.5
    items = np.full((n, k), -1, dtype=np.int64)
    ka = np.zeros(n, dtype=np.int64)
    kb = np.zeros(n, dtype=np.int64)
    filled = np.zeros(n, dtype=np.int64)
    for _ in range(2 * (a.shape[1] + b.shape[1])):
        live = np.flatnonzero((filled < k) & ((ka < a.shape[1]) | (kb < b.shape[1])))
        if live.size == 0:
            break
        use_a = (ka[live] < kb[live]) | ((ka[live] == kb[live]) & a_first[live])
        use_a = np.where(ka[live] >= a.shape[1], False, np.where(kb[live] >= b.shape[1], True, use_a))
        src = np.where(use_a[:, None], a[live], b[live])
        ptr = np.where(use_a, ka[live], kb[live])
        cand = src[np.arange(live.size), np.minimum(ptr, src.shape[1] - 1)]
        seen = (items[live] == cand[:, None]).any(axis=1) | (cand < 0)
        add = live[~seen]
        items[add, filled[add]] = cand[~seen]
        filled[add] += 1
        ka[live[use_a]] += 1
        kb[live[~use_a]] += 1
    return items, a_first


def _softmax_ranks(L: int, tau: float) -> np.ndarray:
    w = 1.0 / np.arange(1, L + 1) ** tau
    return w


def probabilistic(lists: Sequence[np.ndarray], k: int, *, tau: float = 3.0, rng: int | None = 0
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Probabilistic interleaving of two rankings: ``(items, p_a)`` where ``p_a[u, l]`` is the
    exact posterior probability that slot ``l`` was filled by ranking A given the list."""
    a, b = _check(lists)[:2]
    g = np.random.default_rng(rng)
    n = a.shape[0]
    items = np.full((n, k), -1, dtype=np.int64)
    p_a = np.full((n, k), np.nan)
    wa = np.where(a >= 0, _softmax_ranks(a.shape[1], tau)[None, :], 0.0)
    wb = np.where(b >= 0, _softmax_ranks(b.shape[1], tau)[None, :], 0.0)
    for slot in range(k):
        ra = wa / np.maximum(wa.sum(1, keepdims=True), 1e-300)
        rb = wb / np.maximum(wb.sum(1, keepdims=True), 1e-300)
        has_a, has_b = wa.sum(1) > 0, wb.sum(1) > 0
        pick_a = np.where(has_a & has_b, g.random(n) < 0.5, has_a)
        live = has_a | has_b
        probs = np.where(pick_a[:, None], ra, rb)
        src = np.where(pick_a[:, None], a, b)
        u = g.random(n)[:, None]
        j = np.minimum((np.cumsum(probs, axis=1) < u).sum(1), probs.shape[1] - 1)
        item = np.where(live, src[np.arange(n), j], -1)
        items[:, slot] = item
        pa_d = (ra * (a == item[:, None])).sum(1)
        pb_d = (rb * (b == item[:, None])).sum(1)
        tot = pa_d + pb_d
        p_a[:, slot] = np.where(live & (tot > 0), pa_d / np.where(tot > 0, tot, 1), np.nan)
        wa = np.where(a == item[:, None], 0.0, wa)
        wb = np.where(b == item[:, None], 0.0, wb)
    return items, p_a


# --- credit ---------------------------------------------------------------------------------
def credit_team_draft(teams: np.ndarray, clicks: np.ndarray, n_rankers: int = 2) -> np.ndarray:
    """Credit per impression and ranking: sum of ``clicks`` (or watch time) on each team's items."""
    teams = np.asarray(teams)
    c = np.asarray(clicks, dtype=np.float64)
    return np.stack([(c * (teams == j)).sum(axis=1) for j in range(n_rankers)], axis=1)


def outcome_balanced(items: np.ndarray, a: np.ndarray, b: np.ndarray, clicks: np.ndarray
                     ) -> np.ndarray:
    """+1 (A wins), -1 (B wins) or 0 per impression by Joachims' balanced rule."""
    items, a, b = np.asarray(items), np.asarray(a), np.asarray(b)
    c = np.asarray(clicks) > 0
    n, K = items.shape
    big = 10 ** 9
    ra = np.where((items[:, :, None] == a[:, None, :]) & (items[:, :, None] >= 0),
                  np.arange(1, a.shape[1] + 1)[None, None, :], big).min(axis=2)
    rb = np.where((items[:, :, None] == b[:, None, :]) & (items[:, :, None] >= 0),
                  np.arange(1, b.shape[1] + 1)[None, None, :], big).min(axis=2)
    last = np.where(c.any(axis=1), K - 1 - np.argmax(c[:, ::-1], axis=1), -1)
    rows = np.arange(n)
    kk = np.where(last >= 0, np.minimum(ra[rows, np.maximum(last, 0)],
                                        rb[rows, np.maximum(last, 0)]), 0)
    ha = (c & (ra <= kk[:, None])).sum(axis=1)
    hb = (c & (rb <= kk[:, None])).sum(axis=1)
    return np.sign(ha - hb).astype(np.float64)


def outcome_probabilistic(p_a: np.ndarray, clicks: np.ndarray) -> np.ndarray:
    """Expected outcome ``P(A wins) - P(B wins)`` per impression: the clicked slots' credits
    are independent Bernoulli(``p_a``) given the list (Poisson-binomial, exact)."""
    c = np.asarray(clicks) > 0
    p = np.where(c, np.nan_to_num(np.asarray(p_a, dtype=np.float64)), 0.0)
    n, K = p.shape
    nclick = c.sum(axis=1)
    dist = np.zeros((n, K + 1))
    dist[:, 0] = 1.0
    for j in range(K):
        pj = p[:, j:j + 1]
        cj = c[:, j:j + 1]
        shifted = np.concatenate([np.zeros((n, 1)), dist[:, :-1]], axis=1)
        dist = np.where(cj, dist * (1 - pj) + shifted * pj, dist)
    cnt = np.arange(K + 1)[None, :]
    win = (dist * (2 * cnt > nclick[:, None])).sum(axis=1)
    lose = (dist * (2 * cnt < nclick[:, None])).sum(axis=1)
    return win - lose


# --- analysis -------------------------------------------------------------------------------
def analyze_outcomes(unit: Any, outcome: Any, *, aggregate: str = "unit_sign",
                     n_resamples: int = 2000, confidence: float = 0.95, rng: int | None = 0,
                     names: tuple[str, str] = ("A", "B")) -> OnlineResult:
    """Test one pair from per-impression outcomes in [-1, 1] (+: first ranking preferred).

    ``aggregate``: ``"unit_sign"`` (default; a unit counts once, with the sign of its summed
    outcomes), ``"unit_mean"`` (its mean outcome) or ``"impression"`` (every impression
    counts: too narrow when units have many impressions).
    """
    if aggregate not in ("unit_sign", "unit_mean", "impression"):
        raise PolicyError(f"aggregate={plain(aggregate)} is not valid; choose unit_sign, unit_mean "
                          "or impression.")
    o = np.asarray(outcome, dtype=np.float64)
    if not np.isfinite(o).all() or (np.abs(o) > 1).any():
        raise InputError("interleaving outcomes must be finite values in [-1, 1].")
    if aggregate == "impression":
        s, uids = o, None
    else:
        codes, uids = pd.factorize(pd.Series(np.asarray(unit)), sort=False)
        tot = np.bincount(codes, weights=o, minlength=uids.size)
        s = np.sign(tot) if aggregate == "unit_sign" else tot / np.bincount(codes)
    n = s.size
    if n == 0:
        raise InputError("no interleaved impressions to analyse.")
    wins, losses = int((s > 0).sum()), int((s < 0).sum())
    ties = n - wins - losses
    pref = float(np.mean((s + 1) / 2) - 0.5)
    p_sign = float(stats.binomtest(wins, wins + losses, 0.5).pvalue) if wins + losses else 1.0
    sd = float(s.std(ddof=1)) if n > 1 else math.nan
    p_t = float(stats.ttest_1samp(s, 0.0).pvalue) if n > 1 and sd > 0 else math.nan
    g = np.random.default_rng(rng)
    idx = g.integers(0, n, size=(n_resamples, n))
    boot = ((s[idx] + 1) / 2).mean(axis=1) - 0.5
    lo, hi = np.quantile(boot, [0.5 - confidence / 2, 0.5 + confidence / 2])
    row = {"pair": f"{names[0]} vs {names[1]}", "delta": pref, "ci_low": float(lo),
           "ci_high": float(hi), "wins": wins, "losses": losses, "ties": ties, "n": n,
           "mean_outcome": float(s.mean()), "p_sign": p_sign, "p_t": p_t}
    units = {} if uids is None else {"unit": np.asarray(uids), "outcome": s}
    return OnlineResult(kind="interleave", rows=[row], summary={row["pair"]: pref},
                        counts={"impressions": int(o.size), "units": n, "wins": wins,
                                "losses": losses, "ties": ties},
                        provenance={"aggregate": aggregate, "n_resamples": n_resamples,
                                    "confidence": confidence, "seed": rng},
                        units=units, title="Interleaving")


def analyze(data: Any, *, unit: str = "user_id", impression: str = "impression_id",
            team: str = "team", credit: str = "click", aggregate: str = "unit_sign",
            correction: str = "holm", n_resamples: int = 2000, confidence: float = 0.95,
            rng: int | None = 0) -> OnlineResult:
    """Analyse a team-draft log: one row per shown item with its ``team`` (the ranking it was
    credited to) and its ``credit`` (click, watch time). Two teams give one pair; more teams
    (multileaving) give every pair, with ``correction`` over the pairs."""
    correction = check_correction(correction)
    df = to_pandas(data, "interleaving log")
    need(df, [unit, impression, team, credit], "interleaving log")
    df = df[df[team].notna()]
    cr = numeric(df, credit, "interleaving log")
    tcodes, tnames = pd.factorize(df[team], sort=True)
    icodes, _ = pd.factorize(pd.MultiIndex.from_arrays([df[unit], df[impression]]), sort=False)
    n_imp, m = int(icodes.max()) + 1 if icodes.size else 0, tnames.size
    if m < 2:
        raise InputError(f"column {plain(team)} names {m} team(s); interleaving needs at least two.")
    C = np.zeros((n_imp, m))
    np.add.at(C, (icodes, tcodes), cr)
    present = np.zeros((n_imp, m), dtype=bool)
    present[icodes, tcodes] = True
    imp_unit = np.empty(n_imp, dtype=object)
    imp_unit[icodes] = df[unit].to_numpy()
    rows, first = [], None
    for i, j in itertools.combinations(range(m), 2):
        sel = present[:, i] & present[:, j]
        res = analyze_outcomes(imp_unit[sel], np.sign(C[sel, i] - C[sel, j]),
                               aggregate=aggregate, n_resamples=n_resamples,
                               confidence=confidence, rng=rng,
                               names=(str(tnames[i]), str(tnames[j])))
        rows.append(res.rows[0])
        first = first or res
    for r, q in zip(rows, adjust([r["p_sign"] for r in rows], correction), strict=True):
        r["p_adjusted"] = float(q)
    assert first is not None
    return OnlineResult(kind="interleave", rows=rows, summary={r["pair"]: r["delta"] for r in rows},
                        counts={"impressions": n_imp, "rows": int(len(df)),
                                "units": int(pd.unique(df[unit]).size), "teams": m},
                        provenance={**first.provenance, "correction": correction},
                        units=first.units if m == 2 else {}, title="Interleaving")


def aa_check(lists: Sequence[np.ndarray], *, method: str = "team_draft", k: int = 10,
             click_prob: float | Sequence[float] = 0.1, rng: int | None = 0,
             tau: float = 3.0) -> OnlineResult:
    """Fidelity check: clicks that ignore the items (position-dependent probability only) must
    not prefer either ranking. Returns the analysis of one simulated impression per user."""
    if method not in ("team_draft", "balanced", "probabilistic"):
        raise PolicyError(f"method={plain(method)} is not valid; choose team_draft, balanced or "
                          "probabilistic.")
    g = np.random.default_rng(rng)
    arrs = _check(lists)[:2]
    cp = np.broadcast_to(np.asarray(click_prob, dtype=np.float64), (k,))
    if method == "team_draft":
        items, teams = team_draft(arrs, k, rng=g)
        clicks = (g.random(items.shape) < cp[None, :]) & (items >= 0)
        c = credit_team_draft(teams, clicks)
        out = np.sign(c[:, 0] - c[:, 1])
    elif method == "balanced":
        items, _ = balanced(arrs, k, rng=g)
        clicks = (g.random(items.shape) < cp[None, :]) & (items >= 0)
        out = outcome_balanced(items, arrs[0], arrs[1], clicks)
    else:
        items, p_a = probabilistic(arrs, k, tau=tau, rng=g)
        clicks = (g.random(items.shape) < cp[None, :]) & (items >= 0)
        out = outcome_probabilistic(p_a, clicks)
    res = analyze_outcomes(np.arange(out.size), out, aggregate="impression", rng=rng)
    res.title = f"A/A fidelity check ({method})"
    return res


def rankings_from_runs(runs: Mapping[str, Any], k: int, *, user_col: str = "user",
                       item_col: str = "item", score_col: str = "score"
                       ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """(user ids, item ids, one ``(users x k)`` code array per run) from receval runs, users in
    the union of the runs, best first (score descending, then item id)."""
    frames = {n: to_pandas(r, f"run {plain(n)}") for n, r in runs.items()}
    for n, f in frames.items():
        need(f, [user_col, item_col, score_col], f"run {plain(n)}")
    users = pd.Index(pd.unique(pd.concat([f[user_col] for f in frames.values()])))
    items = pd.Index(pd.unique(pd.concat([f[item_col] for f in frames.values()])))
    out = []
    for f in frames.values():
        u = users.get_indexer(f[user_col])
        it = items.get_indexer(f[item_col])
        s = numeric(f, score_col, "run")
        order = np.lexsort((it, -s, u))
        u, it = u[order], it[order]
        start = np.searchsorted(u, np.arange(users.size))
        pos = np.arange(u.size) - start[u]
        keep = pos < k
        arr = np.full((users.size, k), -1, dtype=np.int64)
        arr[u[keep], pos[keep]] = it[keep]
        out.append(arr)
    return users.to_numpy(), items.to_numpy(), out
