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
import warnings
from collections.abc import Mapping, Sequence
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import InputError, RecevalWarning, plain
from ..stats.corrections import adjust, check_correction
from ..validation import (
    POSITIVE_INT,
    PROBABILITY_OPEN,
    InstanceOf,
    Interval,
    Options,
    validate_params,
)
from ._frames import need, numeric, same_id_kind, to_pandas, unique_rows
from ._params import CORRECTION, POSITIVE, RNG
from ._results import OnlineResult

__all__ = ["aa_check", "analyze", "analyze_outcomes", "balanced", "credit_team_draft",
           "outcome_balanced", "outcome_probabilistic", "probabilistic", "rankings_from_runs",
           "team_draft"]

_BUILD = {"k": POSITIVE_INT, "rng": RNG}
_COL = [InstanceOf(str)]


def _check(lists: Sequence[np.ndarray], exactly: int | None = None) -> list[np.ndarray]:
    """Integer ``(users x L)`` rankings of one user count, ``-1`` pads, no item twice in a
    user's ranking; ``exactly``: the number of rankings the method takes."""
    if isinstance(lists, np.ndarray) and lists.ndim == 2:
        raise InputError("give the rankings as a list of (users x L) arrays, one per ranker.")
    try:
        arrs = [np.asarray(x) for x in lists]
    except TypeError:
        raise InputError(f"rankings must be a list of (users x L) integer arrays; got "
                         f"{type(lists).__name__}.") from None
    if len(arrs) < 2:
        raise InputError("interleaving needs at least two rankings.")
    if exactly is not None and len(arrs) != exactly:
        raise InputError(f"this interleaving method takes exactly {exactly} rankings; got "
                         f"{len(arrs)} (use team_draft for multileaving).")
    n = arrs[0].shape[0] if arrs[0].ndim else -1
    for a in arrs:
        if a.ndim != 2 or a.shape[0] != n or not np.issubdtype(a.dtype, np.integer):
            raise InputError("each ranking must be an integer (users x L) array of item codes "
                             f"with the same number of users; got shapes {[x.shape for x in arrs]}.")
    out = [a.astype(np.int64) for a in arrs]
    for j, a in enumerate(out):
        if (a < -1).any():
            raise InputError(f"ranking {j} holds item code {int(a.min())}; codes are >= 0 with "
                             "-1 as padding.")
        srt = np.sort(a, axis=1)
        rep = (srt[:, 1:] == srt[:, :-1]) & (srt[:, 1:] >= 0)
        if rep.any():
            u = int(np.flatnonzero(rep.any(axis=1))[0])
            raise InputError(f"ranking {j} lists an item twice for user row {u}; each item "
                             "appears once per ranking.")
    return out


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


@validate_params(_BUILD)
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


@validate_params(_BUILD)
def balanced(lists: Sequence[np.ndarray], k: int, *, rng: int | None = 0
             ) -> tuple[np.ndarray, np.ndarray]:
    """Balanced interleaving of two rankings: ``(items, a_first)`` (who led, per user)."""
    a, b = _check(lists, exactly=2)
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


@validate_params({**_BUILD, "tau": POSITIVE})
def probabilistic(lists: Sequence[np.ndarray], k: int, *, tau: float = 3.0, rng: int | None = 0
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Probabilistic interleaving of two rankings: ``(items, p_a)`` where ``p_a[u, l]`` is the
    exact posterior probability that slot ``l`` was filled by ranking A given the list."""
    a, b = _check(lists, exactly=2)
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
def _same_shape(what: str, *arrays: np.ndarray) -> None:
    shapes = [a.shape for a in arrays]
    if len(set(shapes)) > 1 or arrays[0].ndim != 2:
        raise InputError(f"{what}: the arrays must be (impressions x slots) of one shape; got "
                         f"{shapes}.")


def _credit(clicks: Any, what: str) -> np.ndarray:
    try:
        c = np.asarray(clicks, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{what}: clicks must be numbers (0/1, or watch time).") from None
    if not np.isfinite(c).all():
        raise InputError(f"{what}: clicks hold NaN/inf; fill them (0 = no click) first.")
    return c


@validate_params({"n_rankers": [Interval(Integral, 2, None)]})
def credit_team_draft(teams: np.ndarray, clicks: np.ndarray, n_rankers: int = 2) -> np.ndarray:
    """Credit per impression and ranking: sum of ``clicks`` (or watch time) on each team's items."""
    teams = np.asarray(teams)
    c = _credit(clicks, "credit_team_draft")
    _same_shape("credit_team_draft", teams, c)
    if teams.size and (teams.max() >= n_rankers or teams.min() < -1):
        raise InputError(f"credit_team_draft: teams hold {int(teams.max())}, but n_rankers="
                         f"{n_rankers}; teams are 0..n_rankers-1 with -1 for empty slots.")
    return np.stack([(c * (teams == j)).sum(axis=1) for j in range(n_rankers)], axis=1)


@validate_params({})
def outcome_balanced(items: np.ndarray, a: np.ndarray, b: np.ndarray, clicks: np.ndarray
                     ) -> np.ndarray:
    """+1 (A wins), -1 (B wins) or 0 per impression by Joachims' balanced rule."""
    items, a, b = np.asarray(items), np.asarray(a), np.asarray(b)
    c = _credit(clicks, "outcome_balanced") > 0
    _same_shape("outcome_balanced", items, c)
    if items.shape[1] == 0:
        raise InputError("outcome_balanced: the impressions have no slots.")
    if a.ndim != 2 or b.ndim != 2 or a.shape[0] != items.shape[0] or b.shape[0] != items.shape[0]:
        raise InputError(f"outcome_balanced: rankings a {a.shape} and b {b.shape} need one row "
                         f"per impression ({items.shape[0]}).")
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


@validate_params({})
def outcome_probabilistic(p_a: np.ndarray, clicks: np.ndarray) -> np.ndarray:
    """Expected outcome ``P(A wins) - P(B wins)`` per impression: the clicked slots' credits
    are independent Bernoulli(``p_a``) given the list (Poisson-binomial, exact). A clicked
    slot must have a probability in [0, 1] (NaN marks an empty slot, which cannot be clicked)."""
    c = _credit(clicks, "outcome_probabilistic") > 0
    pa = np.asarray(p_a, dtype=np.float64)
    _same_shape("outcome_probabilistic", pa, c)
    if pa.shape[1] == 0:
        raise InputError("outcome_probabilistic: the impressions have no slots.")
    bad = c & ~((pa >= 0) & (pa <= 1))
    if bad.any():
        raise InputError(f"outcome_probabilistic: {int(bad.sum())} clicked slot(s) have no "
                         "probability in [0, 1] (an empty slot, NaN, was clicked?).")
    p = np.where(c, pa, 0.0)
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
@validate_params({"aggregate": [Options(("unit_sign", "unit_mean", "impression"))],
                  "n_resamples": POSITIVE_INT, "confidence": PROBABILITY_OPEN, "rng": RNG})
def analyze_outcomes(unit: Any, outcome: Any, *, aggregate: str = "unit_sign",
                     n_resamples: int = 2000, confidence: float = 0.95, rng: int | None = 0,
                     names: tuple[str, str] = ("A", "B")) -> OnlineResult:
    """Test one pair from per-impression outcomes in [-1, 1] (+: first ranking preferred).

    ``aggregate``: ``"unit_sign"`` (default; a unit counts once, with the sign of its summed
    outcomes), ``"unit_mean"`` (its mean outcome) or ``"impression"`` (every impression
    counts: too narrow when units have many impressions). With no decided unit (all ties) the
    sign test is NaN, with fewer than two units the bootstrap interval and t test are NaN; the
    row's ``note`` says why.
    """
    try:
        o = np.asarray(outcome, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise InputError("interleaving outcomes must be numbers in [-1, 1].") from None
    if not np.isfinite(o).all() or (np.abs(o) > 1).any():
        raise InputError("interleaving outcomes must be finite values in [-1, 1].")
    unit = np.asarray(unit, dtype=object).ravel()
    if aggregate != "impression" and unit.size != o.size:
        raise InputError(f"analyze_outcomes: unit has {unit.size} entries but outcome has "
                         f"{o.size}; give one unit per impression.")
    if aggregate == "impression":
        s, uids = o, None
    else:
        codes, uids = pd.factorize(pd.Series(unit), sort=False)
        tot = np.bincount(codes, weights=o, minlength=uids.size)
        s = np.sign(tot) if aggregate == "unit_sign" else tot / np.bincount(codes)
    n = s.size
    if n == 0:
        raise InputError("no interleaved impressions to analyse.")
    wins, losses = int((s > 0).sum()), int((s < 0).sum())
    ties = n - wins - losses
    pref = float(np.mean((s + 1) / 2) - 0.5)
    p_sign = float(stats.binomtest(wins, wins + losses, 0.5).pvalue) if wins + losses else math.nan
    sd = float(s.std(ddof=1)) if n > 1 else math.nan
    p_t = float(stats.ttest_1samp(s, 0.0).pvalue) if n > 1 and sd > 0 else math.nan
    g = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    note = ""
    if n < 2:
        lo = hi = math.nan
        note = f"{n} unit: the bootstrap interval and the t test need at least two (NaN)."
    else:
        idx = g.integers(0, n, size=(n_resamples, n))
        boot = ((s[idx] + 1) / 2).mean(axis=1) - 0.5
        lo, hi = np.quantile(boot, [0.5 - confidence / 2, 0.5 + confidence / 2])
    if not wins + losses:
        note = (note + " " if note else "") + ("no unit prefers either ranking (all ties): the "
                                               "sign test is undefined (NaN).")
    row = {"pair": f"{names[0]} vs {names[1]}", "delta": pref, "ci_low": float(lo),
           "ci_high": float(hi), "wins": wins, "losses": losses, "ties": ties, "n": n,
           "mean_outcome": float(s.mean()), "p_sign": p_sign, "p_t": p_t, "note": note}
    units = {} if uids is None else {"unit": np.asarray(uids), "outcome": s}
    return OnlineResult(kind="interleave", rows=[row], summary={row["pair"]: pref},
                        counts={"impressions": int(o.size), "units": n, "wins": wins,
                                "losses": losses, "ties": ties},
                        diagnostics={"warnings": [note] if note else []},
                        provenance={"aggregate": aggregate, "n_resamples": n_resamples,
                                    "confidence": confidence,
                                    "seed": None if isinstance(rng, np.random.Generator) else rng},
                        units=units, title="Interleaving")


@validate_params({"unit": _COL, "impression": _COL, "team": _COL, "credit": _COL,
                  "aggregate": [Options(("unit_sign", "unit_mean", "impression"))],
                  "correction": CORRECTION, "n_resamples": POSITIVE_INT,
                  "confidence": PROBABILITY_OPEN, "rng": RNG})
def analyze(data: Any, *, unit: str = "user_id", impression: str = "impression_id",
            team: str = "team", credit: str = "click", aggregate: str = "unit_sign",
            correction: str = "holm", n_resamples: int = 2000, confidence: float = 0.95,
            rng: int | None = 0) -> OnlineResult:
    """Analyse a team-draft log: one row per shown item with its ``team`` (the ranking it was
    credited to) and its ``credit`` (click, watch time). Two teams give one pair; more teams
    (multileaving) give every pair, with ``correction`` over the pairs. Rows without a team or
    unit and impressions that show only one team (nothing to compare) are left out, counted
    (``rows_dropped``, ``impressions_one_team``) and warned about."""
    correction = check_correction(correction)
    df = to_pandas(data, "interleaving log")
    need(df, [unit, impression, team, credit], "interleaving log")
    keep = df[team].notna() & df[unit].notna() & df[impression].notna()
    rows_dropped = int((~keep).sum())
    df = df[keep]
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
    one_team = int((present.sum(axis=1) < 2).sum())
    warn = []
    if rows_dropped:
        warn.append(f"{rows_dropped} row(s) without a unit, impression or team were left out.")
    if one_team:
        warn.append(f"{one_team} of {n_imp} impression(s) show items of one team only and "
                    "compare nothing; they were left out.")
    for msg in warn:
        warnings.warn(msg, RecevalWarning, stacklevel=2)
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
    warn += [f"{r['pair']}: {r['note']}" for r in rows if r["note"]]
    return OnlineResult(kind="interleave", rows=rows, summary={r["pair"]: r["delta"] for r in rows},
                        counts={"impressions": n_imp, "rows": int(len(df)),
                                "units": int(pd.unique(df[unit]).size), "teams": m,
                                "rows_dropped": rows_dropped,
                                "impressions_one_team": one_team},
                        diagnostics={"warnings": warn},
                        provenance={**first.provenance, "correction": correction},
                        units=first.units if m == 2 else {}, title="Interleaving")


@validate_params({"method": [Options(("team_draft", "balanced", "probabilistic"))],
                  "k": POSITIVE_INT, "rng": RNG, "tau": POSITIVE})
def aa_check(lists: Sequence[np.ndarray], *, method: str = "team_draft", k: int = 10,
             click_prob: float | Sequence[float] = 0.1, rng: int | None = 0,
             tau: float = 3.0) -> OnlineResult:
    """Fidelity check: clicks that ignore the items (position-dependent probability only) must
    not prefer either ranking. Returns the analysis of one simulated impression per user."""
    g = np.random.default_rng(rng)
    arrs = _check(lists, exactly=2)
    try:
        cp = np.broadcast_to(np.asarray(click_prob, dtype=np.float64), (k,))
    except (TypeError, ValueError):
        raise InputError(f"aa_check: click_prob must be one probability or {k} (one per slot); "
                         f"got {plain(click_prob)}.") from None
    if not ((cp >= 0) & (cp <= 1)).all():
        raise InputError(f"aa_check: click_prob must lie in [0, 1]; got {plain(click_prob)}.")
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
    res = analyze_outcomes(np.arange(out.size), out, aggregate="impression",
                           rng=rng if not isinstance(rng, np.random.Generator) else g)
    res.title = f"A/A fidelity check ({method})"
    return res


@validate_params({"k": POSITIVE_INT, "user_col": _COL, "item_col": _COL, "score_col": _COL})
def rankings_from_runs(runs: Mapping[str, Any], k: int, *, user_col: str = "user",
                       item_col: str = "item", score_col: str = "score"
                       ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """(user ids, item ids, one ``(users x k)`` code array per run) from receval runs, users in
    the union of the runs, best first (score descending, then item id). A run listing a
    (user, item) twice, or ids of another kind than the first run's, raises."""
    if not isinstance(runs, Mapping) or len(runs) < 2:
        raise InputError("rankings_from_runs needs a dict of at least two runs {name: run}.")
    frames = {n: to_pandas(r, f"run {plain(n)}") for n, r in runs.items()}
    ref_name, ref = next(iter(frames.items()))
    for n, f in frames.items():
        need(f, [user_col, item_col, score_col], f"run {plain(n)}")
        unique_rows(f, [user_col, item_col], f"run {plain(n)}")
        for c in (user_col, item_col):
            same_id_kind(ref[c], f[c], f"run {plain(ref_name)}", f"run {plain(n)}", c)
    users = pd.Index(pd.unique(pd.concat([f[user_col] for f in frames.values()])))
    items = pd.Index(pd.unique(pd.concat([f[item_col] for f in frames.values()])))
    out = []
    for f in frames.values():
        u = users.get_indexer(f[user_col])
        it = items.get_indexer(f[item_col])
        s = numeric(f, score_col, "run")
        if (u < 0).any() or (it < 0).any():
            raise InputError("a run has a missing user or item id; drop those rows first.")
        order = np.lexsort((it, -s, u))
        u, it = u[order], it[order]
        start = np.searchsorted(u, np.arange(users.size))
        pos = np.arange(u.size) - start[u]
        keep = pos < k
        arr = np.full((users.size, k), -1, dtype=np.int64)
        arr[u[keep], pos[keep]] = it[keep]
        out.append(arr)
    return users.to_numpy(), items.to_numpy(), out
